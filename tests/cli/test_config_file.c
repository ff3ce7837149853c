/*
 * `ringperf profile -f FILE` and `ringperf config validate|expand FILE` as a user runs them
 * against the mock server: a config file and its command line give the same input_config,
 * flags override the file, and the config commands' output and exit status.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"

/* write_bench writes bench.yaml for the world: the tutorial's shape, pointed at the mock. */
static void write_bench(const struct e2e *w)
{
    char yaml[2048];
    snprintf(yaml, sizeof(yaml),
             "# an AIPerf config v2 file\n"
             "schemaVersion: \"2.0\"\n"
             "benchmark:\n"
             "  model: mock-model\n"
             "  endpoint:\n"
             "    url: %s\n"
             "    type: chat\n"
             "    streaming: true\n"
             "    headers: {X-Team: perf}\n"
             "    extra: {temperature: 0.5}\n"
             "    timeout: 30\n"
             "  dataset:\n"
             "    type: synthetic\n"
             "    entries: 8\n"
             "    random_seed: 42\n"
             "    prompts: {isl: {mean: 32, stddev: 2}, osl: 8}\n"
             "  phases:\n"
             "    - {name: warmup, type: concurrency, concurrency: 2, requests: 2}\n"
             "    - {name: profiling, type: concurrency, concurrency: 3, requests: 12}\n"
             "  artifacts:\n"
             "    dir: %s\n"
             "  slos: {time_to_first_token: 500}\n",
             w->url, w->dir);
    e2e_write(w, "bench.yaml", yaml);
}

static json_t *input_config(const struct e2e *w)
{
    json_t *root = e2e_load_json(w, "profile_export_aiperf.json");
    json_t *config = json_incref(json_object_get(root, "input_config"));
    json_decref(root);
    cr_assert_not_null(config, "the summary has input_config");
    return config;
}

Test(config_file_e2e, yaml_and_its_flags_give_the_same_input_config, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    write_bench(&w);
    e2e_run_ok(&w, "profile -f IN/bench.yaml");
    json_t *from_file = input_config(&w);
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 12, "the file's profiling phase ran");
    cr_assert_eq(errors, 0);
    e2e_run_ok(&w, "profile -m mock-model -u URL --endpoint-type chat --streaming -H X-Team:perf "
                   "--extra-inputs temperature:0.5 --request-timeout-seconds 30 "
                   "--num-dataset-entries 8 --random-seed 42 --isl 32 --isl-stddev 2 --osl 8 "
                   "--warmup-concurrency 2 --warmup-request-count 2 --concurrency 3 "
                   "--request-count 12 --artifact-dir DIR --goodput time_to_first_token:500");
    json_t *from_flags = input_config(&w);
    char *file_text = json_dumps(from_file, JSON_SORT_KEYS);
    char *flags_text = json_dumps(from_flags, JSON_SORT_KEYS);
    cr_assert_str_eq(file_text, flags_text, "the file and its flags configure the same run");
    cr_assert_not_null(strstr(file_text, "\"phases\": [{\"concurrency\": 2"), "%s", file_text);
    cr_assert_not_null(strstr(file_text, "\"headers\": {\"X-Team\": \"perf\"}"), "%s", file_text);
    free(file_text);
    free(flags_text);
    json_decref(from_file);
    json_decref(from_flags);
    e2e_finish(&w);
}

Test(config_file_e2e, command_line_flags_override_the_file, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    write_bench(&w);
    e2e_run_ok(&w, "profile --config IN/bench.yaml --concurrency 1 --request-count 4");
    json_t *config = input_config(&w);
    json_t *profiling = json_array_get(json_object_get(config, "phases"), 1);
    cr_assert_eq(json_integer_value(json_object_get(profiling, "concurrency")), 1);
    cr_assert_eq(json_integer_value(json_object_get(profiling, "requests")), 4);
    json_t *warmup = json_array_get(json_object_get(config, "phases"), 0);
    cr_assert_eq(json_integer_value(json_object_get(warmup, "requests")), 2, "the file's warmup");
    json_decref(config);
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 4, "the command line's request count ran");
    json_t *root = e2e_load_json(&w, "profile_export_aiperf.json");
    const char *command =
        json_string_value(json_object_get(json_object_get(root, "run_info"), "cli_command"));
    cr_assert_not_null(command);
    cr_assert_not_null(strstr(command, "--config"), "the command line as typed: %s", command);
    json_decref(root);
    e2e_finish(&w);
}

Test(config_file_e2e, validate_exits_0_for_a_good_file_and_1_with_the_line_for_a_bad_one,
     .timeout = 60)
{
    struct e2e w;
    e2e_start(&w, NULL);
    write_bench(&w);
    char *out = NULL;
    cr_assert_eq(run_ringperf(&w, "config validate IN/bench.yaml", false, &out), 0, "%s", out);
    cr_assert_not_null(strstr(out, "bench.yaml: valid (1 variation)\n"), "%s", out);
    free(out);
    e2e_write(&w, "typo.yaml", "benchmark:\n  model: m\n  phases:\n    - {concurency: 8}\n");
    cr_assert_eq(run_ringperf(&w, "config validate IN/typo.yaml", true, &out), 1, "%s", out);
    cr_assert_not_null(strstr(out, "typo.yaml:4:8: unknown key 'concurency' in "
                                   "benchmark.phases[0] (did you mean 'concurrency'?)"),
                       "%s", out);
    free(out);
    e2e_write(&w, "value.yaml", "benchmark:\n  model: m\n  phases: {concurrency: 0}\n");
    cr_assert_eq(run_ringperf(&w, "config validate IN/value.yaml", true, &out), 1, "%s", out);
    cr_assert_not_null(strstr(out, "value.yaml:3:25: benchmark.phases.concurrency: "
                                   "--concurrency: '0' must be a whole number of at least 1"),
                       "%s", out);
    free(out);
    e2e_write(&w, "broken.yaml", "benchmark:\n  model: [m\n");
    cr_assert_eq(run_ringperf(&w, "config validate IN/broken.yaml", true, &out), 1, "%s", out);
    cr_assert_not_null(strstr(out, "broken.yaml:3:1: invalid YAML"), "%s", out);
    free(out);
    cr_assert_eq(run_ringperf(&w, "config validate IN/missing.yaml", true, &out), 1, "%s", out);
    cr_assert_not_null(strstr(out, "cannot open"), "%s", out);
    free(out);
    cr_assert_eq(run_ringperf(&w, "config check IN/bench.yaml", true, &out), 1, "%s", out);
    cr_assert_not_null(strstr(out, "expected `validate FILE`, `expand FILE` or `init`"), "%s", out);
    free(out);
    e2e_finish(&w);
}

Test(config_file_e2e, expand_lists_a_sweep_that_profile_refuses_to_run, .timeout = 60)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char yaml[1024];
    snprintf(yaml, sizeof(yaml),
             "benchmark:\n  model: m\n  endpoint: {url: %s, api_key: sk-secret}\n"
             "  phases: {concurrency: 1, requests: 3}\n"
             "sweep:\n  type: zip\n  parameters:\n    concurrency: [1, 2, 4]\n"
             "    phases.profiling.requests_unused: [1, 2, 3]\n",
             w.url);
    e2e_write(&w, "bad-sweep.yaml", yaml);
    char *out = NULL;
    cr_assert_eq(run_ringperf(&w, "config expand IN/bad-sweep.yaml", true, &out), 1, "%s", out);
    cr_assert_not_null(strstr(out, "sweep parameter 'phases.profiling.requests_unused' is "
                                   "unknown"),
                       "%s", out);
    free(out);
    snprintf(yaml, sizeof(yaml),
             "benchmark:\n  model: m\n  endpoint: {url: %s, api_key: sk-secret}\n"
             "  phases: {concurrency: 1, requests: 3}\n"
             "sweep:\n  type: zip\n  parameters:\n    concurrency: [1, 2, 4]\n"
             "    datasets.default.prompts.isl: [16, 32, 64]\n",
             w.url);
    e2e_write(&w, "sweep.yaml", yaml);
    cr_assert_eq(run_ringperf(&w, "config expand IN/sweep.yaml", false, &out), 0, "%s", out);
    cr_assert_not_null(strstr(out, "sweep.yaml: 3 variations (zip sweep)\nringperf profile "
                                   "--model 'm' --url "),
                       "%s", out);
    cr_assert_not_null(strstr(out, "--api-key '<redacted>' --concurrency 1 --request-count 3\n"
                                   "sweep settings: --sweep-type zip\n"
                                   "[1] concurrency_1__isl_16: --concurrency 1 --isl 16\n"
                                   "[2] concurrency_2__isl_32: --concurrency 2 --isl 32\n"
                                   "[3] concurrency_4__isl_64: --concurrency 4 --isl 64\n"),
                       "%s", out);
    cr_assert_null(strstr(out, "sk-secret"), "the key stays secret: %s", out);
    free(out);
    cr_assert_eq(run_ringperf(&w, "config validate IN/sweep.yaml", false, &out), 0, "%s", out);
    cr_assert_not_null(strstr(out, "sweep.yaml: valid (3 variations)"), "%s", out);
    free(out);
    /* The whole sweep runs, one directory per cell, as its comma lists would. */
    cr_assert_eq(run_ringperf(&w, "profile -f IN/sweep.yaml --artifact-dir DIR", true, &out), 0,
                 "%s", out);
    free(out);
    static const char *const cells[] = {"concurrency_1__isl_16", "concurrency_2__isl_32",
                                        "concurrency_4__isl_64"};
    for (size_t i = 0; i < 3; i++) {
        char path[512];
        snprintf(path, sizeof(path), "%s/%s/profile_export_aiperf.json", w.dir, cells[i]);
        cr_assert_eq(access(path, F_OK), 0, "%s", path);
    }
    char aggregate[512];
    snprintf(aggregate, sizeof(aggregate), "%s/sweep_aggregate/profile_export_aiperf_sweep.json",
             w.dir);
    cr_assert_eq(access(aggregate, F_OK), 0, "%s", aggregate);
    /* One variation runs as its flags say. */
    cr_assert_eq(run_ringperf(&w,
                              "profile -f IN/sweep.yaml --concurrency 2 --isl 32 --artifact-dir "
                              "DIR",
                              true, &out),
                 0, "%s", out);
    free(out);
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 3);
    e2e_finish(&w);
}
