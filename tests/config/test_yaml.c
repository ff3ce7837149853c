/*
 * test_yaml.c - AIPerf config files (config v2 YAML): every key and the flag it stands
 * for, the command line over the file, sweeps as comma lists and their variations, and
 * each refusal with its file, line and column.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "config_test_util.h"

#define BASE "benchmark:\n  model: m\n"

static char *const no_env[] = {NULL};

static struct config_file *load_ok(const char *yaml, char *const *envp)
{
    struct config_file *file = NULL;
    char err[1024] = "";
    int rc = config_file_load_text(yaml, strlen(yaml), "t.yaml", envp, &file, err, sizeof(err));
    cr_assert_eq(rc, 0, "%s", err);
    return file;
}

/* parse_yaml loads yaml and parses it with the flags of words (NULL: none) on top. */
static int parse_yaml(const char *yaml, const char *const *words, size_t variation,
                      struct profile_config *cfg, char *err, size_t cap)
{
    struct config_file *file = NULL;
    int rc = config_file_load_text(yaml, strlen(yaml), "t.yaml", no_env, &file, err, cap);
    if (rc != 0) {
        return rc;
    }
    char *argv[WORDS_MAX] = {NULL};
    int argc = 0;
    while (words != NULL && words[argc] != NULL) {
        argv[argc] = (char *)words[argc];
        argc++;
    }
    rc = config_parse_file(file, variation, argc, argv, cfg, err, cap);
    config_file_free(file);
    return rc;
}

/* same_flags requires that the file and the command line set the same flags. */
static void check_same_as_flags(const char *yaml, const char *const *words)
{
    struct profile_config from_file;
    struct profile_config from_flags;
    char err[1024] = "";
    cr_assert_eq(parse_yaml(yaml, NULL, CONFIG_FILE_WHOLE_SWEEP, &from_file, err, sizeof(err)), 0,
                 "%s", err);
    cr_assert_eq(parse(words, &from_flags, err, sizeof(err)), 0, "%s", err);
    cr_assert_arr_eq(from_file.flags_given, from_flags.flags_given, sizeof(from_file.flags_given),
                     "the file sets the flags the command line does");
    cr_assert_eq(from_file.concurrency, from_flags.concurrency);
    cr_assert_eq(from_file.request_count, from_flags.request_count);
    cr_assert_eq(from_file.request_rate_per_second, from_flags.request_rate_per_second);
    cr_assert_eq(from_file.arrival_pattern, from_flags.arrival_pattern);
    cr_assert_eq(from_file.streaming, from_flags.streaming);
    cr_assert_eq(from_file.isl_tokens_mean, from_flags.isl_tokens_mean);
    cr_assert_eq(from_file.osl_tokens_mean, from_flags.osl_tokens_mean);
    cr_assert_eq(from_file.header_count, from_flags.header_count);
    cr_assert_eq(from_file.models.count, from_flags.models.count);
    for (size_t i = 0; i < from_file.models.count; i++) {
        cr_assert_str_eq(from_file.models.items[i], from_flags.models.items[i]);
    }
    config_free(&from_file);
    config_free(&from_flags);
}

Test(config_yaml, tutorial_config_is_its_command_line)
{
    check_same_as_flags("schemaVersion: \"2.0\"\n"
                        "benchmark:\n"
                        "  model: meta-llama/Llama-3.1-8B-Instruct\n"
                        "  endpoint:\n"
                        "    url: http://localhost:8000\n"
                        "    type: chat\n"
                        "    streaming: true\n"
                        "  dataset:\n"
                        "    type: synthetic\n"
                        "    entries: 500\n"
                        "    prompts: {isl: 512, osl: 128}\n"
                        "  phases:\n"
                        "    - {name: warmup, type: concurrency, concurrency: 8, requests: 50}\n"
                        "    - {name: profiling, type: concurrency, requests: 500}\n"
                        "  artifacts:\n"
                        "    dir: ./artifacts/my-test\n",
                        W("--model", "meta-llama/Llama-3.1-8B-Instruct", "--url",
                          "http://localhost:8000", "--endpoint-type", "chat", "--streaming",
                          "--num-dataset-entries", "500", "--isl", "512", "--osl", "128",
                          "--warmup-concurrency", "8", "--warmup-request-count", "50",
                          "--request-count", "500", "--artifact-dir", "./artifacts/my-test"));
}

Test(config_yaml, phase_types_are_their_load_flags)
{
    check_same_as_flags("benchmark:\n  model: m\n  phases: {type: gamma, rate: 5, smoothness: 2, "
                        "concurrency: 4, duration: 2m}\n",
                        W("-m", "m", "--request-rate", "5", "--arrival-pattern", "gamma",
                          "--arrival-smoothness", "2", "--concurrency", "4", "--benchmark-duration",
                          "120"));
    check_same_as_flags("benchmark:\n  model: m\n  phases: {type: poisson, rate: 5.5}\n",
                        W("-m", "m", "--request-rate", "5.5"));
    check_same_as_flags("benchmark:\n  model: m\n  dataset: {turns: {mean: 2}}\n"
                        "  phases: {type: user_centric, rate: 2, users: 4, sessions: 8}\n",
                        W("-m", "m", "--user-centric-rate", "2", "--num-users", "4",
                          "--conversation-num", "8", "--conversation-turn-mean", "2"));
    check_same_as_flags("benchmark:\n  model: m\n  phases:\n"
                        "    - {name: w, kind: warmup, type: constant, rate: 3, duration: 10s}\n"
                        "    - {name: main, kind: profiling, type: constant, rate: 4, "
                        "requests: 20, cancellation: {rate: 10, delay: 1}}\n",
                        W("-m", "m", "--warmup-arrival-pattern", "constant",
                          "--warmup-request-rate", "3", "--warmup-duration", "10",
                          "--arrival-pattern", "constant", "--request-rate", "4", "--request-count",
                          "20", "--request-cancellation-rate", "10", "--request-cancellation-delay",
                          "1"));
}

/* A concurrency warmup stays a closed loop before a rate phase. */
Test(config_yaml, concurrency_warmup_before_a_rate_phase_is_a_burst)
{
    check_same_as_flags("benchmark:\n  model: m\n  phases:\n"
                        "    - {name: warmup, type: concurrency, concurrency: 8, requests: 50}\n"
                        "    - {name: profiling, type: poisson, rate: 30, duration: 120}\n",
                        W("-m", "m", "--warmup-concurrency", "8", "--warmup-request-count", "50",
                          "--warmup-arrival-pattern", "concurrency_burst", "--request-rate", "30",
                          "--benchmark-duration", "120"));
}

Test(config_yaml, endpoint_and_models_are_their_flags)
{
    check_same_as_flags(
        "benchmark:\n"
        "  models: {strategy: random, items: [{name: a}, b]}\n"
        "  endpoint:\n"
        "    urls: [localhost:1, localhost:2]\n"
        "    headers: {X-Team: perf, Authorization: Bearer t}\n"
        "    extra: {temperature: 0.5, stop: [x], ignore_eos: true, tag: \"7\"}\n"
        "    timeout: 30\n"
        "    reset_kv_cache: {path: /reset, timeout_seconds: 5}\n",
        W("--model-selection-strategy", "random", "-m", "a", "-m", "b", "-u", "localhost:1", "-u",
          "localhost:2", "-H", "X-Team: perf", "-H", "Authorization: Bearer t", "--extra-inputs",
          "{\"temperature\": 0.5, \"stop\": [\"x\"], \"ignore_eos\": true, \"tag\": \"7\"}",
          "--request-timeout-seconds", "30", "--reset-kv-cache-path", "/reset",
          "--reset-kv-cache-timeout-seconds", "5"));
}

Test(config_yaml, dataset_and_output_sections_are_their_flags)
{
    check_same_as_flags(
        "benchmark:\n"
        "  model: m\n"
        "  dataset:\n"
        "    entries: 20\n"
        "    random_seed: 7\n"
        "    prompts: {isl: {mean: 100, stddev: 5}, cache_bust: {target: system_prefix}}\n"
        "    images: {width: 64, height: {mean: 32}, format: png}\n"
        "  artifacts: {records: false, slice_duration: 2, auto_plot: false}\n"
        "  runtime: {ui: none, stats_interval: 2}\n"
        "  logging: {level: DEBUG}\n"
        "  tokenizer: {name: gpt2}\n"
        "  slos: {time_to_first_token: 200, request_latency: 900}\n"
        "  gpu_telemetry: {enabled: false}\n"
        "  server_metrics: {enabled: false, urls: []}\n"
        "  otel: {}\n",
        W("-m", "m", "--num-dataset-entries", "20", "--random-seed", "7", "--isl", "100",
          "--isl-stddev", "5", "--cache-bust", "system_prefix", "--image-width-mean", "64",
          "--image-height-mean", "32", "--image-format", "png", "--export-level", "summary",
          "--slice-duration", "2", "--ui-type", "none", "--stats-interval", "2", "--log-level",
          "DEBUG", "--tokenizer", "gpt2", "--goodput",
          "time_to_first_token:200 request_latency:900", "--no-gpu-telemetry",
          "--no-server-metrics", "--auto-plot=false"));
}

Test(config_yaml, network_latency_is_a_mean_or_measured)
{
    check_same_as_flags(BASE "  network_latency: {enabled: true, mean_ms: 0.5}\n",
                        W("-m", "m", "--network-latency-mean", "0.5"));
    check_same_as_flags(
        BASE "  network_latency: {enabled: true, ping_interval: 2}\n",
        W("-m", "m", "--network-latency-automatic", "--network-latency-ping-interval", "2"));
    check_same_as_flags(BASE "  network_latency: {enabled: false}\n", W("-m", "m"));
}

Test(config_yaml, camel_case_keys_and_shorthands_read_alike)
{
    struct profile_config cfg;
    char err[1024] = "";
    cr_assert_eq(parse_yaml("schemaVersion: '2.0'\nrandomSeed: 9\nbenchmark:\n"
                            "  model: [a, b]\n"
                            "  endpoint: {waitForModelTimeout: 1m, useLegacyMaxTokens: true}\n"
                            "  datasets: [{name: main, type: synthetic, entries: 3}]\n"
                            "  phases: {concurrencyRamp: {duration: 1h}, requests: 4}\n",
                            NULL, CONFIG_FILE_WHOLE_SWEEP, &cfg, err, sizeof(err)),
                 0, "%s", err);
    cr_assert_eq(cfg.random_seed, 9);
    cr_assert_eq(cfg.models.count, 2);
    cr_assert_float_eq(cfg.wait_for_model_seconds, 60.0, 1e-9);
    cr_assert(cfg.use_legacy_max_tokens);
    cr_assert_eq(cfg.num_dataset_entries, 3);
    cr_assert_float_eq(cfg.concurrency_ramp_seconds, 3600.0, 1e-9);
    cr_assert_eq(cfg.request_count, 4);
    cr_assert_str_eq(cfg.config_file == NULL ? "" : "set", "", "no --config on the command line");
    config_free(&cfg);
}

Test(config_yaml, environment_variables_fill_values)
{
    char *env[] = {"MODEL_NAME=qwen", "RATE=7.5", NULL};
    struct config_file *file = load_ok("benchmark:\n  model: ${MODEL_NAME:x}\n"
                                       "  endpoint: {url: 'localhost:${PORT:9000}'}\n"
                                       "  phases: {type: poisson, rate: '${RATE}'}\n",
                                       env);
    struct profile_config cfg;
    char err[1024] = "";
    cr_assert_eq(config_parse_file(file, 0, 0, NULL, &cfg, err, sizeof(err)), 0, "%s", err);
    cr_assert_str_eq(cfg.models.items[0], "qwen");
    cr_assert_str_eq(cfg.urls.items[0], "localhost:9000");
    cr_assert_float_eq(cfg.request_rate_per_second, 7.5, 1e-9);
    config_free(&cfg);
    config_file_free(file);
}

Test(config_yaml, command_line_flags_win_over_the_file)
{
    struct profile_config cfg;
    char err[1024] = "";
    const char *yaml = "benchmark:\n  model: [a, b]\n  endpoint: {streaming: true}\n"
                       "  phases: {concurrency: 8, requests: 40}\n";
    cr_assert_eq(parse_yaml(yaml, W("--concurrency", "3", "-m", "c", "--streaming=false"), 0, &cfg,
                            err, sizeof(err)),
                 0, "%s", err);
    cr_assert_eq(cfg.concurrency, 3);
    cr_assert_eq(cfg.models.count, 1, "a list flag replaces the file's list");
    cr_assert_str_eq(cfg.models.items[0], "c");
    cr_assert(!cfg.streaming_requested, "an explicit false overrides too");
    cr_assert_eq(cfg.request_count, 40, "what the command line leaves is the file's");
    config_free(&cfg);
}

Test(config_yaml, config_flag_reads_the_file_under_the_command_line)
{
    char path[] = "/tmp/ringperf-yaml-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    const char *yaml = "benchmark:\n  model: m\n  phases: {concurrency: 8, requests: 40}\n";
    cr_assert_eq(write(fd, yaml, strlen(yaml)), (ssize_t)strlen(yaml));
    close(fd);
    struct profile_config cfg;
    char err[1024] = "";
    cr_assert_eq(parse(W("-f", path, "--request-count", "5"), &cfg, err, sizeof(err)), 0, "%s",
                 err);
    cr_assert_eq(cfg.concurrency, 8);
    cr_assert_eq(cfg.request_count, 5);
    cr_assert_str_eq(cfg.config_file, path);
    cr_assert(config_flag_given(&cfg, "--concurrency"), "a file's setting counts as given");
    cr_assert_not_null(strstr(cfg.cli_command, "-f"), "%s", cfg.cli_command);
    config_free(&cfg);
    unlink(path);
    cr_assert_neq(parse(W("--config", path), &cfg, err, sizeof(err)), 0);
    cr_assert_not_null(strstr(err, "--config: cannot open"), "%s", err);
}

static const char sweep_yaml[] = "benchmark:\n  model: m\n  phases: {type: poisson, rate: 1}\n"
                                 "sweep:\n  type: grid\n  parameters:\n"
                                 "    rate: [1, 2]\n"
                                 "    datasets.main.prompts.isl: [10, 20, 30]\n";

Test(config_yaml, sweep_expands_to_comma_lists_and_variations)
{
    struct config_file *file = load_ok(sweep_yaml, no_env);
    cr_assert_eq(config_file_variation_count(file), 6);
    const char *labels[] = {"rate_1__isl_10", "rate_1__isl_20", "rate_1__isl_30",
                            "rate_2__isl_10", "rate_2__isl_20", "rate_2__isl_30"};
    const int isl[] = {10, 20, 30, 10, 20, 30};
    for (size_t v = 0; v < 6; v++) {
        char label[128];
        cr_assert_eq(config_file_variation_label(file, v, label, sizeof(label)), 0);
        cr_assert_str_eq(label, labels[v]);
        struct profile_config cfg;
        char err[1024] = "";
        cr_assert_eq(config_parse_file(file, v, 0, NULL, &cfg, err, sizeof(err)), 0, "%s", err);
        cr_assert_eq(cfg.isl_tokens_mean, isl[v]);
        cr_assert_float_eq(cfg.request_rate_per_second, v < 3 ? 1.0 : 2.0, 1e-9);
        config_free(&cfg);
    }
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    cr_assert_eq(config_file_print_expansion(file, out), 0);
    fclose(out);
    cr_assert_not_null(strstr(text, "t.yaml: 6 variations (grid sweep)\n"
                                    "ringperf profile --model 'm' --request-rate 1\n"
                                    "sweep settings: --sweep-type grid\n"
                                    "[1] rate_1__isl_10: --request-rate 1 --isl 10\n"),
                       "%s", text);
    cr_assert_not_null(strstr(text, "[6] rate_2__isl_30: --request-rate 2 --isl 30\n"), "%s", text);
    free(text);
    config_file_free(file);
}

Test(config_yaml, zip_sweep_pairs_its_lists)
{
    struct config_file *file =
        load_ok("benchmark:\n  model: m\nsweep:\n  type: zip\n  parameters:\n"
                "    concurrency: [1, 2, 4]\n    phases.profiling.duration: [5, 6, 7]\n",
                no_env);
    cr_assert_eq(config_file_variation_count(file), 3);
    char label[128];
    cr_assert_eq(config_file_variation_label(file, 2, label, sizeof(label)), 0);
    cr_assert_str_eq(label, "concurrency_4__duration_7");
    config_file_free(file);
}

Test(config_yaml, a_run_of_a_sweep_is_the_comma_lists_and_the_command_line_fixes_a_point)
{
    struct profile_config cfg;
    char err[1024] = "";
    cr_assert_eq(parse_yaml(sweep_yaml, NULL, CONFIG_FILE_WHOLE_SWEEP, &cfg, err, sizeof(err)), 0,
                 "%s", err);
    cr_assert_eq(cfg.sweep.dim_count, 2);
    cr_assert_eq(cfg.sweep.type, CONFIG_SWEEP_GRID);
    cr_assert_eq(cfg.sweep.dims[0].param, CONFIG_SWEEP_REQUEST_RATE);
    cr_assert_eq(cfg.sweep.dims[0].count, 2);
    cr_assert_eq(cfg.sweep.dims[1].param, CONFIG_SWEEP_ISL);
    cr_assert_eq(cfg.sweep.dims[1].count, 3);
    cr_assert_float_eq(cfg.sweep.dims[1].values[2], 30.0, 1e-9);
    config_free(&cfg);
    cr_assert_eq(parse_yaml(sweep_yaml, W("--request-rate", "3", "--isl", "5"),
                            CONFIG_FILE_WHOLE_SWEEP, &cfg, err, sizeof(err)),
                 0, "%s", err);
    cr_assert_eq(cfg.sweep.dim_count, 0, "the command line fixed both swept flags");
    cr_assert_float_eq(cfg.request_rate_per_second, 3.0, 1e-9);
    config_free(&cfg);
}

/* yaml_case is a file and the message its refusal must contain. */
struct yaml_case {
    const char *yaml;
    const char *says;
};

static const struct yaml_case refusals[] = {
    {"benchmark:\n  model: m\n  endpoint: {url: [a, b}\n", "t.yaml:3:24: invalid YAML"},
    {"benchmark:\n  model: m\n  model: n\n", "t.yaml:3:3: invalid YAML: duplicate key"},
    {"", "t.yaml: empty or unreadable YAML"},
    {"? a :\t:\n", "t.yaml: invalid YAML that libfyaml cannot report (it crashed on it)"},
    {"%\x9a:\n", "t.yaml:1:2: byte 0x9a is not UTF-8 text; save the file as UTF-8 YAML"},
    {BASE "  endpoint: {api_key: \"\xed\xa0\x80\"}\n", "t.yaml:3:24: byte 0xed is not UTF-8"},
    {BASE "  endpoint: {api_key: \"a\x01\"}\n", "t.yaml:3:25: byte 0x01 is not allowed in YAML"},
    {"- a\n", "t.yaml:1:3: expected a mapping with a benchmark: section"},
    {"schema_version: '1.0'\n" BASE, "t.yaml:1:18: schema_version: '1.0' is not supported"},
    {"schemaVersion: '2.0'\n", "t.yaml:1:1: benchmark: expected a mapping"},
    {BASE "sweeps: {}\n", "t.yaml:3:1: unknown key 'sweeps' in the file's top level (did you "
                          "mean 'sweep'?)"},
    {BASE "variables: {a: 1}\n", "t.yaml:3:1: variables: AIPerf's variables is not supported"},
    {"benchmark:\n  modle: m\n", "t.yaml:2:3: unknown key 'modle' in benchmark (did you mean "
                                 "'model'?)"},
    {BASE "  phases:\n    - {name: profiling, type: concurrency, concurency: 8}\n",
     "t.yaml:4:44: unknown key 'concurency' in benchmark.phases[0] (did you mean "
     "'concurrency'?)"},
    {BASE "  phases: {concurrency: abc}\n",
     "t.yaml:3:25: benchmark.phases.concurrency: --concurrency: 'abc' must be a whole number"},
    {BASE "  phases: {concurrency: {a: 1}}\n",
     "t.yaml:3:26: benchmark.phases.concurrency: expected a single value, not a mapping"},
    {BASE "  endpoint: {template: x}\n",
     "t.yaml:3:14: benchmark.endpoint.template: AIPerf's template is not supported"},
    {BASE "  tokenizer: {trust_remote_code: true}\n",
     "t.yaml:3:34: benchmark.tokenizer.trust_remote_code: ringperf does not support this setting "
     "yet (AIPerf's --tokenizer-trust-remote-code)"},
    {BASE "multi_run: {num_runs: 0}\n", "t.yaml:3:23: multi_run.num_runs: --num-profile-runs"},
    {BASE "multi_run: {runs: 3}\n", "t.yaml:3:13: unknown key 'runs' in multi_run"},
    {"benchmark:\n  model: &x m\n  tokenizer: {name: *x}\n",
     "t.yaml:3:22: benchmark.tokenizer.name: aliases (*name) are not supported"},
    {BASE "  endpoint: {api_key: '${NOPE_KEY}'}\n",
     "t.yaml:3:24: benchmark.endpoint.api_key: the environment variable NOPE_KEY is not set"},
    {BASE "  endpoint: {api_key: '${NOPE'}\n", "'${' without a closing '}'"},
    {BASE "  endpoint: {api_key: '${A-B}'}\n", "'${A-B}' is not a variable name"},
    {BASE "  phases: {requests: '{{ n * 2 }}'}\n",
     "t.yaml:3:23: benchmark.phases.requests: {{ }} expressions (AIPerf's Jinja variables) are "
     "not supported"},
    {BASE "  phases: {duration: 5 days}\n", "--benchmark-duration: '5 days' must be a number"},
    {BASE "  phases: {duration: xm}\n", "'xm' must be a number"},
    {BASE "  datasets: [{entries: 1}, {entries: 2}]\n",
     "t.yaml:3:3: benchmark.datasets: ringperf reads exactly one dataset"},
    {BASE "  dataset: {type: file, prompts: {isl: 3}}\n",
     "t.yaml:3:19: benchmark.dataset: a file dataset needs a path"},
    {BASE "  dataset: {type: file, path: x.jsonl, prompts: {isl: 3}}\n",
     "t.yaml:3:40: benchmark.dataset.prompts: applies to synthetic datasets, not to a file one"},
    {BASE "  dataset: {type: trace}\n", "benchmark.dataset.type: 'trace' is not a dataset type"},
    {BASE "  dataset: {name: 9lives}\n", "t.yaml:3:19: benchmark.dataset.name: a name is"},
    {BASE "  phases: {type: burst}\n",
     "t.yaml:3:18: benchmark.phases.type: 'burst' is not a phase type"},
    {BASE "  phases: {type: poisson, concurrency: 3}\n",
     "t.yaml:3:12: benchmark.phases: a poisson phase needs rate"},
    {BASE "  phases: {type: user_centric, rate: 3}\n", "a user_centric phase needs users"},
    {BASE "  phases: {type: concurrency, rate: 3}\n",
     "t.yaml:3:31: benchmark.phases.rate: a concurrency phase takes no rate"},
    {BASE "  phases: {type: poisson, rate: 3, smoothness: 2}\n",
     "benchmark.phases.smoothness: a poisson phase takes no smoothness"},
    {BASE "  phases: {exclude_from_results: true}\n",
     "benchmark.phases.exclude_from_results: the profiling phase is what ringperf reports"},
    {BASE "  phases: [{name: warmup, exclude_from_results: false}, {requests: 2}]\n",
     "benchmark.phases[0].exclude_from_results: ringperf always leaves the warmup out"},
    {BASE "  phases: [{name: a, requests: 1}]\n",
     "t.yaml:3:13: benchmark.phases[0]: phase 'a' needs kind: warmup or profiling"},
    {BASE "  phases: [{kind: cooldown}]\n", "benchmark.phases[0].kind: 'cooldown' is not a phase"},
    {BASE "  phases: [{requests: 1}, {name: p2, kind: profiling, requests: 2}]\n",
     "benchmark.phases[1]: ringperf runs one warmup phase and then one profiling phase"},
    {BASE "  phases: [{requests: 1}, {name: warmup, requests: 2}]\n",
     "benchmark.phases[1]: ringperf runs one warmup phase and then one profiling phase"},
    {BASE "  phases: [{name: warmup, requests: 2}]\n",
     "benchmark.phases: there is no profiling phase"},
    {BASE "  phases: []\n", "benchmark.phases: expected a phase or a list of phases"},
    {BASE "  phases: [{name: warmup, type: poisson, requests: 2}, {requests: 3}]\n",
     "a poisson warmup needs a rate"},
    {BASE "  artifacts: {records: [csv]}\n", "benchmark.artifacts.records: ringperf writes "
                                             "records as [jsonl] only"},
    {BASE "  tokenizer: {trust_remote_code: true}\n", "(AIPerf's --tokenizer-trust-remote-code)"},
    {BASE "  artifacts: {raw: maybe}\n",
     "t.yaml:3:20: benchmark.artifacts.raw: expected true or false"},
    {BASE "  network_latency: {enabled: 1}\n",
     "t.yaml:3:30: benchmark.network_latency.enabled: expected true or false"},
    {BASE "  server_metrics: {urls: [http://x]}\n", "ringperf does not scrape metrics URLs yet"},
    {BASE "  mlflow: {tracking_uri: x}\n", "benchmark.mlflow: AIPerf's mlflow export is not"},
    {BASE "  endpoint: {headers: [a]}\n", "benchmark.endpoint.headers: expected a mapping"},
    {BASE "  endpoint: x\n", "t.yaml:3:13: benchmark.endpoint: expected a mapping of settings"},
    {BASE "sweep: {type: sobol, parameters: {concurrency: [1]}}\n",
     "t.yaml:3:15: sweep.type: 'sobol' is not supported; ringperf sweeps grid and zip"},
    {BASE "sweep: {parameters: {phases.profiling.requests: [1, 2]}}\n",
     "t.yaml:3:22: sweep parameter 'phases.profiling.requests' is not supported: ringperf sweeps "
     "concurrency, rate"},
    {BASE "sweep: {parameters: {endpoint.timeout: [1, 2]}}\n",
     "sweep parameter 'endpoint.timeout' is unknown"},
    {BASE "sweep: {parameters: {phases.warmup.concurrency: [1, 2]}}\n",
     "ringperf sweeps the profiling phase"},
    {BASE "sweep: {parameters: {concurrency: []}}\n",
     "sweep parameter 'concurrency': expected a non-empty list"},
    {BASE "sweep: {parameters: {concurrency: ['1,2']}}\n", "a value must be one number"},
    {BASE "sweep: {parameters: {rate: [1, 2]}}\n",
     "sweep parameter 'rate': the profiling phase is of type concurrency"},
    {BASE "sweep: {type: zip, parameters: {concurrency: [1, 2], isl: [3]}}\n",
     "sweep parameter 'isl' is unknown"},
    {BASE "sweep: {type: zip, parameters: {concurrency: [1, 2], dataset.prompts.isl: [3]}}\n",
     "a zip sweep's lists have one length (1 values here, 2 before)"},
    {BASE "sweep: {parameters: {concurrency: [1], phases.profiling.concurrency: [2]}}\n",
     "sweep parameter 'phases.profiling.concurrency': sweep.parameters.concurrency is swept "
     "twice"},
    {BASE "sweep: {type: grid}\n", "sweep: there are no parameters to sweep"},
    {BASE "sweep: {parameters: {concurrency: [1]}, mode: x}\n", "unknown key 'mode' in sweep"},
};

Test(config_yaml, refusals_name_the_file_line_and_column)
{
    for (size_t i = 0; i < sizeof(refusals) / sizeof(refusals[0]); i++) {
        struct profile_config cfg;
        char err[1024] = "";
        int rc = parse_yaml(refusals[i].yaml, NULL, 0, &cfg, err, sizeof(err));
        cr_expect_neq(rc, 0, "case %zu is refused:\n%s", i, refusals[i].yaml);
        cr_expect_not_null(strstr(err, refusals[i].says), "case %zu: [%s] lacks [%s]", i, err,
                           refusals[i].says);
    }
}

Test(config_yaml, empty_and_null_sections_set_nothing)
{
    struct profile_config cfg;
    char err[1024] = "";
    cr_assert_eq(parse_yaml(BASE "  endpoint: ~\n  artifacts:\n  runtime: null\n", NULL, 0, &cfg,
                            err, sizeof(err)),
                 0, "%s", err);
    cr_assert(!config_flag_given(&cfg, "--url"));
    config_free(&cfg);
}

Test(config_yaml, a_far_off_key_gets_no_suggestion)
{
    struct profile_config cfg;
    char err[1024] = "";
    cr_assert_neq(parse_yaml(BASE "  zzzzzzzz: 1\n", NULL, 0, &cfg, err, sizeof(err)), 0);
    cr_assert_str_eq(err, "t.yaml:3:3: unknown key 'zzzzzzzz' in benchmark");
}

/* Cross-flag checks run on the file's settings as on flags. */
Test(config_yaml, checks_across_settings_apply_to_the_file)
{
    struct profile_config cfg;
    char err[1024] = "";
    cr_assert_neq(parse_yaml(BASE "  phases: {type: poisson, rate: 2, prefill_concurrency: 2}\n",
                             NULL, 0, &cfg, err, sizeof(err)),
                  0);
    cr_assert_not_null(strstr(err, "--prefill-concurrency needs --streaming"), "%s", err);
    cr_assert_neq(
        parse_yaml("benchmark:\n  endpoint: {type: chat}\n", NULL, 0, &cfg, err, sizeof(err)), 0);
    cr_assert_not_null(strstr(err, "--model is required"), "%s", err);
}
