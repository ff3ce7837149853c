/*
 * test_input_config.c - input_config (AIPerf's BenchmarkConfig, schema 2.0,
 * spec §1.5) from representative command lines: exact key sets, values and
 * order, and no secret in it.
 */
#include "export/export.h"
#include "tests/config/config_test_util.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* CMD is a command line after `profile`, with the required --model. */
#define CMD(...) W("--model", "m", __VA_ARGS__)

/* build parses the words and returns their input_config. */
static json_t *build(const char *const *words, const char *artifact_dir)
{
    struct profile_config cfg;
    char err[512];
    cr_assert_eq(parse(words, &cfg, err, sizeof(err)), 0, "%s", err);
    json_t *doc = export_input_config(&cfg, artifact_dir);
    config_free(&cfg);
    cr_assert_not_null(doc);
    return doc;
}

/* assert_json compares `actual` dumped compact, keys in their order, with `expected`. */
static void assert_json(const json_t *actual, const char *expected)
{
    char *text = json_dumps(actual, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
    cr_assert_not_null(text);
    cr_assert_str_eq(text, expected);
    free(text);
}

static void assert_keys(const json_t *object, const char *expected)
{
    char keys[1024] = "";
    const char *key;
    json_t *value;
    json_object_foreach((json_t *)object, key, value)
    {
        (void)value;
        strncat(keys, keys[0] != '\0' ? " " : "", sizeof(keys) - strlen(keys) - 1);
        strncat(keys, key, sizeof(keys) - strlen(keys) - 1);
    }
    cr_assert_str_eq(keys, expected);
}

/* temp_file writes text into a new file named from the mkstemp template path. */
static void temp_file(char *path, const char *text)
{
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

static const json_t *phase(const json_t *doc, size_t i)
{
    return json_array_get(json_object_get(doc, "phases"), i);
}

Test(input_config, default_run_sets_only_what_aiperf_sets)
{
    cr_assert_eq(isatty(STDOUT_FILENO), 0, "runtime.ui depends on stdout not being a terminal");
    json_t *doc = build(CMD("--url", "localhost:8000"), "artifacts/m-openai-chat-concurrency1");
    assert_keys(doc, "models endpoint datasets phases artifacts gpu_telemetry server_metrics "
                     "network_latency otel mlflow wandb runtime");
    assert_json(json_object_get(doc, "models"), "{\"items\":[{\"name\":\"m\"}]}");
    assert_json(json_object_get(doc, "endpoint"), "{\"urls\":[\"http://localhost:8000\"]}");
    assert_json(
        json_object_get(doc, "datasets"),
        "[{\"name\":\"main\",\"type\":\"synthetic\",\"prompts\":{\"isl\":{\"mean\":550}}}]");
    assert_json(json_object_get(doc, "phases"),
                "[{\"name\":\"profiling\",\"kind\":\"profiling\",\"type\":\"concurrency\","
                "\"requests\":10}]");
    assert_json(json_object_get(doc, "artifacts"),
                "{\"dir\":\"artifacts/m-openai-chat-concurrency1\",\"records\":[\"jsonl\"],"
                "\"auto_plot\":false,\"plot_required\":false}");
    assert_json(json_object_get(doc, "gpu_telemetry"), "{\"enabled\":true}");
    assert_json(json_object_get(doc, "server_metrics"), "{\"enabled\":true,\"urls\":[]}");
    assert_json(json_object_get(doc, "network_latency"), "{\"enabled\":false}");
    assert_json(json_object_get(doc, "otel"), "{}");
    assert_json(json_object_get(doc, "runtime"), "{\"ui\":\"none\"}");
    json_decref(doc);
}

Test(input_config, server_metrics_urls_are_listed_redacted)
{
    json_t *doc =
        build(CMD("--server-metrics", "http://u:secret@host:9100", "localhost:9400"), NULL);
    assert_json(json_object_get(doc, "server_metrics"),
                "{\"enabled\":true,\"urls\":[\"http://<redacted>@host:9100\",\"localhost:9400\"]}");
    json_decref(doc);
}

Test(input_config, concurrency_with_warmup_is_the_spec_example)
{
    json_t *doc = build(
        CMD("--concurrency", "8", "--request-count", "100", "--warmup-request-count", "5"), NULL);
    assert_json(json_object_get(doc, "phases"),
                "[{\"name\":\"warmup\",\"kind\":\"warmup\",\"type\":\"concurrency\","
                "\"exclude_from_results\":true,\"requests\":5,\"concurrency\":8},"
                "{\"name\":\"profiling\",\"kind\":\"profiling\",\"type\":\"concurrency\","
                "\"requests\":100,\"concurrency\":8}]");
    /* --request-count sizes the synthetic dataset too. */
    cr_assert_eq(json_integer_value(json_object_get(
                     json_array_get(json_object_get(doc, "datasets"), 0), "entries")),
                 100);
    cr_assert_null(json_object_get(json_object_get(doc, "artifacts"), "dir"));
    json_decref(doc);
}

/* phase_cases: command lines and the phases AIPerf's converter builds of them,
 * keys in the models' field order. */
static const struct phase_case {
    const char *const *words;
    const char *phases;
} phase_cases[] = {
    {CMD("--concurrency", "1"),
     "[{\"name\":\"profiling\",\"kind\":\"profiling\",\"type\":\"concurrency\",\"requests\":10,"
     "\"concurrency\":1}]"},
    {CMD("--request-rate", "5", "--arrival-pattern", "gamma", "--arrival-smoothness", "2",
         "--benchmark-duration", "30", "--request-rate-ramp-duration", "4"),
     "[{\"name\":\"profiling\",\"kind\":\"profiling\",\"type\":\"gamma\",\"duration\":30.0,"
     "\"grace_period\":30.0,\"rate_ramp\":{\"duration\":4.0},\"rate\":5.0,\"smoothness\":2.0}]"},
    /* smoothness alone means gamma; a given concurrency caps a rate; inf reads null */
    {CMD("--request-rate", "5", "--arrival-smoothness", "0.5", "--concurrency", "3",
         "--benchmark-duration", "10", "--benchmark-grace-period", "inf"),
     "[{\"name\":\"profiling\",\"kind\":\"profiling\",\"type\":\"gamma\",\"duration\":10.0,"
     "\"concurrency\":3,\"grace_period\":null,\"rate\":5.0,\"smoothness\":0.5}]"},
    /* the warmup inherits the profiling rate and pattern */
    {CMD("--request-rate", "4", "--arrival-pattern", "constant", "--warmup-duration", "3",
         "--warmup-grace-period", "1"),
     "[{\"name\":\"warmup\",\"kind\":\"warmup\",\"type\":\"constant\",\"exclude_from_results\":"
     "true,\"duration\":3.0,\"grace_period\":1.0,\"rate\":4.0},{\"name\":\"profiling\",\"kind\":"
     "\"profiling\",\"type\":\"constant\",\"requests\":10,\"rate\":4.0}]"},
    /* warmup flags of its own win over the profiling ones */
    {CMD("--concurrency", "8", "--warmup-request-count", "4", "--warmup-concurrency", "2",
         "--concurrency-ramp-duration", "5", "--warmup-concurrency-ramp-duration", "1"),
     "[{\"name\":\"warmup\",\"kind\":\"warmup\",\"type\":\"concurrency\",\"exclude_from_results\":"
     "true,\"requests\":4,\"concurrency\":2,\"concurrency_ramp\":{\"duration\":1.0}},{\"name\":"
     "\"profiling\",\"kind\":\"profiling\",\"type\":\"concurrency\",\"requests\":10,"
     "\"concurrency\":8,\"concurrency_ramp\":{\"duration\":5.0}}]"},
    /* concurrency_burst is a closed loop: a concurrency phase, whatever the rate */
    {CMD("--request-rate", "30", "--warmup-request-count", "5", "--warmup-concurrency", "8",
         "--warmup-arrival-pattern", "concurrency_burst"),
     "[{\"name\":\"warmup\",\"kind\":\"warmup\",\"type\":\"concurrency\",\"exclude_from_results\":"
     "true,\"requests\":5,\"concurrency\":8},{\"name\":\"profiling\",\"kind\":\"profiling\","
     "\"type\":\"poisson\",\"requests\":10,\"rate\":30.0}]"},
    {CMD("--request-rate", "30", "--arrival-pattern", "concurrency_burst", "--concurrency", "2"),
     "[{\"name\":\"profiling\",\"kind\":\"profiling\",\"type\":\"concurrency\",\"requests\":10,"
     "\"concurrency\":2}]"},
    {CMD("--user-centric-rate", "10", "--num-users", "4", "--conversation-turn-mean", "2",
         "--benchmark-duration", "20", "--benchmark-grace-period", "5"),
     "[{\"name\":\"profiling\",\"kind\":\"profiling\",\"type\":\"user_centric\",\"duration\":"
     "20.0,\"grace_period\":5.0,\"rate\":10.0,\"users\":4}]"},
    {CMD("--streaming", "--concurrency", "4", "--prefill-concurrency", "2",
         "--request-cancellation-rate", "25", "--request-cancellation-delay", "0.5"),
     "[{\"name\":\"profiling\",\"kind\":\"profiling\",\"type\":\"concurrency\",\"requests\":10,"
     "\"concurrency\":4,\"prefill_concurrency\":2,\"cancellation\":{\"rate\":25.0,\"delay\":0.5}}"
     "]"},
};

Test(input_config, phases_follow_the_converter)
{
    for (size_t i = 0; i < sizeof(phase_cases) / sizeof(phase_cases[0]); i++) {
        json_t *doc = build(phase_cases[i].words, NULL);
        assert_json(json_object_get(doc, "phases"), phase_cases[i].phases);
        json_decref(doc);
    }
    json_t *doc = build(CMD("--streaming"), NULL);
    assert_json(json_object_get(doc, "endpoint"),
                "{\"urls\":[\"http://localhost:8000\"],\"streaming\":true}");
    json_decref(doc);
}

Test(input_config, conversation_num_is_sessions)
{
    json_t *doc = build(CMD("--conversation-num", "10", "--conversation-turn-mean", "3",
                            "--conversation-turn-delay-mean", "50"),
                        NULL);
    assert_json(phase(doc, 0), "{\"name\":\"profiling\",\"kind\":\"profiling\",\"type\":"
                               "\"concurrency\",\"sessions\":10}");
    assert_json(json_object_get(doc, "datasets"),
                "[{\"name\":\"main\",\"type\":\"synthetic\",\"entries\":10,"
                "\"prompts\":{\"isl\":{\"mean\":550}},\"turns\":{\"mean\":3,\"stddev\":0},"
                "\"turn_delay\":{\"mean\":50.0,\"stddev\":0.0}}]");
    json_decref(doc);
}

Test(input_config, fixed_schedule_counts_the_file)
{
    char path[] = "/tmp/ringperf_input_config_XXXXXX";
    temp_file(path, "{\"timestamp\":0,\"input_length\":10,\"output_length\":2}\n\n"
                    "{\"timestamp\":5,\"input_length\":10,\"output_length\":2}\n"
                    "{\"timestamp\":9,\"input_length\":10,\"output_length\":2}");
    json_t *doc = build(CMD("--input-file", path, "--custom-dataset-type", "mooncake_trace",
                            "--fixed-schedule", "--fixed-schedule-auto-offset"),
                        NULL);
    unlink(path);
    assert_json(phase(doc, 0), "{\"name\":\"profiling\",\"kind\":\"profiling\",\"type\":"
                               "\"fixed_schedule\",\"requests\":3,\"auto_offset\":true}");
    const json_t *dataset = json_array_get(json_object_get(doc, "datasets"), 0);
    assert_keys(dataset, "name type path format");
    cr_assert_str_eq(json_string_value(json_object_get(dataset, "type")), "file");
    cr_assert_str_eq(json_string_value(json_object_get(dataset, "format")), "mooncake_trace");
    json_decref(doc);
}

Test(input_config, a_timed_mooncake_trace_is_promoted_to_a_fixed_schedule)
{
    char path[] = "/tmp/ringperf_input_config_XXXXXX";
    temp_file(path, "\n{\"timestamp\":0,\"input_length\":10,\"output_length\":2}\n"
                    "{\"timestamp\":5,\"input_length\":10,\"output_length\":2}\n");
    json_t *doc = build(CMD("--input-file", path, "--custom-dataset-type", "mooncake_trace"), NULL);
    assert_json(phase(doc, 0), "{\"name\":\"profiling\",\"kind\":\"profiling\",\"type\":"
                               "\"fixed_schedule\",\"requests\":2}");
    json_decref(doc);
    doc = build(
        CMD("--input-file", path, "--custom-dataset-type", "mooncake_trace", "--no-fixed-schedule"),
        NULL);
    unlink(path);
    assert_json(phase(doc, 0), "{\"name\":\"profiling\",\"kind\":\"profiling\",\"type\":"
                               "\"concurrency\",\"requests\":10}");
    json_decref(doc);
}

Test(input_config, endpoint_keeps_what_was_given_and_redacts_secrets)
{
    json_t *doc =
        build(CMD("--url", "http://host:9000/base?api_key=zz&x=1", "--endpoint-type", "completions",
                  "--api-key", "sk-secret", "-H", "Authorization: Bearer tok", "-H", "X-Trace: abc",
                  "-H", "Cookie: c=1", "--extra-inputs", "max_tokens:5", "ignore_eos:true",
                  "--request-timeout-seconds", "60", "--connection-reuse-strategy", "never"),
              NULL);
    assert_json(json_object_get(doc, "endpoint"),
                "{\"urls\":[\"http://host:9000/base?api_key=<redacted>&x=1\"],"
                "\"type\":\"completions\",\"api_key\":\"<redacted>\",\"timeout\":60.0,"
                "\"connection_reuse\":\"never\",\"headers\":{\"Authorization\":\"<redacted>\","
                "\"X-Trace\":\"abc\",\"Cookie\":\"<redacted>\"},"
                "\"extra\":{\"max_tokens\":5,\"ignore_eos\":true}}");
    char *text = json_dumps(doc, JSON_COMPACT);
    cr_assert_null(strstr(text, "sk-secret"));
    cr_assert_null(strstr(text, "Bearer"));
    cr_assert_null(strstr(text, "zz"));
    free(text);
    json_decref(doc);
    /* URL credentials (Basic auth; with --api-key too they are refused). */
    doc = build(CMD("--url", "http://user:pw@host:9000/base"), NULL);
    text = json_dumps(json_object_get(doc, "endpoint"), JSON_COMPACT);
    cr_assert_not_null(strstr(text, "\"http://<redacted>@host:9000/base\""), "%s", text);
    cr_assert_null(strstr(text, "pw"));
    free(text);
    json_decref(doc);
}

Test(input_config, optional_sections_follow_their_flags)
{
    json_t *doc = build(CMD("--tokenizer", "gpt2", "--goodput",
                            "time_to_first_token:100 "
                            "request_latency:300",
                            "-v", "--export-level", "summary", "--profile-export-prefix", "run1",
                            "--api-port", "0", "--model-selection-strategy", "random"),
                        NULL);
    assert_json(json_object_get(doc, "models"),
                "{\"strategy\":\"random\",\"items\":[{\"name\":\"m\"}]}");
    assert_json(json_object_get(doc, "artifacts"),
                "{\"prefix\":\"run1\",\"records\":false,\"raw\":false,\"auto_plot\":false,"
                "\"plot_required\":false}");
    assert_json(json_object_get(doc, "runtime"), "{\"ui\":\"simple\",\"api_port\":0}");
    assert_json(json_object_get(doc, "logging"), "{\"level\":\"DEBUG\"}");
    assert_json(json_object_get(doc, "tokenizer"), "{\"name\":\"gpt2\"}");
    assert_json(json_object_get(doc, "slos"),
                "{\"time_to_first_token\":100.0,\"request_latency\":300.0}");
    json_decref(doc);
}
