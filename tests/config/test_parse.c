/*
 * test_parse.c - `ringperf profile` flag parsing: valid and invalid command
 * lines as tables and limits (the flag table itself: test_table.c).
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "config/config_internal.h"
#include "config_test_util.h"

/* ---------------------------------------------------------------- valid lines */

struct valid_case {
    const char *name;
    const char *const *words;
    void (*check)(const struct profile_config *cfg);
};

static void check_seed_responses_synthetic(const struct profile_config *c)
{
    cr_assert_eq(c->models.count, 1);
    cr_assert_str_eq(c->models.items[0], "Qwen/Qwen3-0.6B");
    cr_assert_eq(c->endpoint_type, CONFIG_ENDPOINT_RESPONSES);
    cr_assert_str_eq(c->custom_endpoint, "/v1/responses");
    cr_assert(c->streaming);
    cr_assert_eq(c->isl_tokens_mean, 100);
    cr_assert_float_eq(c->isl_tokens_stddev, 0.0, 1e-12);
    cr_assert(c->osl_set);
    cr_assert_eq(c->osl_tokens_mean, 200);
    cr_assert_eq(c->urls.count, 1);
    cr_assert_str_eq(c->urls.items[0], "localhost:8000");
    cr_assert_eq(c->request_count, 20);
    cr_assert(c->request_count_set);
    cr_assert_eq(c->concurrency, 0, "not given");
}

static void check_seed_responses_nonstreaming(const struct profile_config *c)
{
    cr_assert_not(c->streaming);
    cr_assert_not(c->streaming_requested);
    cr_assert_eq(c->endpoint_type, CONFIG_ENDPOINT_RESPONSES);
    cr_assert_eq(c->osl_tokens_mean, 200);
}

static void check_seed_concurrency(const struct profile_config *c)
{
    cr_assert_eq(c->concurrency, 10);
    cr_assert_eq(c->request_count, 100);
}

static void check_seed_request_rate(const struct profile_config *c)
{
    cr_assert_float_eq(c->request_rate_per_second, 5.0, 1e-12);
    cr_assert_eq(c->concurrency, 0);
}

static void check_seed_server_tokens(const struct profile_config *c)
{
    cr_assert(c->use_server_token_count);
    cr_assert_not(c->use_legacy_max_tokens);
}

static void check_seed_extra_inputs(const struct profile_config *c)
{
    cr_assert_eq(c->extra_inputs.count, 2);
    cr_assert_str_eq(c->extra_inputs.items[0], "temperature:0.7");
    cr_assert_str_eq(c->extra_inputs.items[1], "top_p:0.9");
}

static void check_seed_chat(const struct profile_config *c)
{
    cr_assert_eq(c->endpoint_type, CONFIG_ENDPOINT_CHAT);
    cr_assert_str_eq(c->custom_endpoint, "/v1/chat/completions");
    cr_assert(c->streaming);
}

static void check_seed_completions(const struct profile_config *c)
{
    cr_assert_eq(c->endpoint_type, CONFIG_ENDPOINT_COMPLETIONS);
    cr_assert_eq(c->isl_tokens_mean, 64);
    cr_assert_float_eq(c->isl_tokens_stddev, 4.0, 1e-12);
    cr_assert_eq(c->osl_tokens_mean, 128);
    cr_assert_float_eq(c->osl_tokens_stddev, 4.0, 1e-12);
    cr_assert_eq(c->request_count, 32);
}

static void check_seed_cross_server(const struct profile_config *c)
{
    cr_assert_str_eq(c->urls.items[0], "server-a:8000");
    cr_assert_eq(c->concurrency, 4);
    cr_assert_not(c->request_count_set);
    cr_assert_eq(c->request_count, 10, "AIPerf's default");
}

static void check_defaults(const struct profile_config *c)
{
    cr_assert_eq(c->models.count, 1);
    cr_assert_eq(c->urls.count, 1);
    cr_assert_str_eq(c->urls.items[0], "localhost:8000");
    cr_assert_eq(c->endpoint_type, CONFIG_ENDPOINT_CHAT);
    cr_assert_null(c->custom_endpoint);
    cr_assert_not(c->streaming);
    cr_assert_float_eq(c->request_timeout_seconds, 600.0, 1e-12);
    cr_assert_null(c->api_key);
    cr_assert_eq(c->header_count, 0);
    cr_assert_eq(c->extra_inputs.count, 0);
    cr_assert_not(c->random_seed_set);
    cr_assert_eq(c->isl_tokens_mean, 550);
    cr_assert_not(c->osl_set);
    cr_assert_eq(c->concurrency, 0);
    cr_assert_eq(c->request_count, 10);
    cr_assert_not(c->request_count_set);
    cr_assert_float_eq(c->request_rate_per_second, 0.0, 1e-12);
    cr_assert_float_eq(c->benchmark_duration_seconds, 0.0, 1e-12);
    cr_assert_float_eq(c->benchmark_grace_period_seconds, 30.0, 1e-12);
    cr_assert_str_eq(c->artifact_dir, "artifacts");
    cr_assert_not(c->artifact_dir_set);
    cr_assert_null(c->profile_export_prefix);
    cr_assert_null(c->tokenizer);
    cr_assert_eq(c->ui_type, CONFIG_UI_AUTO);
    cr_assert_eq(c->log_level, CONFIG_LOG_INFO);
    cr_assert_eq(c->workers_max, 0);
    cr_assert_eq(c->realtime_priority, 0, "normal scheduling unless asked");
    cr_assert_not(c->no_server_metrics);
    cr_assert_not(c->no_gpu_telemetry);
}

static void check_aliases(const struct profile_config *c)
{
    cr_assert_eq(c->models.count, 2);
    cr_assert_str_eq(c->models.items[1], "b");
    cr_assert_eq(c->urls.count, 2);
    cr_assert_str_eq(c->custom_endpoint, "/x");
    cr_assert_eq(c->request_count, 7);
    cr_assert_eq(c->isl_tokens_mean, 11);
    cr_assert_float_eq(c->isl_tokens_stddev, 1.5, 1e-12);
    cr_assert_eq(c->osl_tokens_mean, 12);
    cr_assert_float_eq(c->osl_tokens_stddev, 2.5, 1e-12);
    cr_assert_str_eq(c->artifact_dir, "out");
    cr_assert(c->artifact_dir_set);
    cr_assert_str_eq(c->profile_export_prefix, "pfx");
    cr_assert_eq(c->workers_max, 3);
    cr_assert_eq(c->ui_type, CONFIG_UI_SIMPLE);
    cr_assert_eq(c->header_count, 1);
}

static void check_equals_form(const struct profile_config *c)
{
    cr_assert_str_eq(c->models.items[0], "m=1");
    cr_assert_eq(c->concurrency, 8);
    cr_assert_str_eq(c->custom_endpoint, "", "--endpoint= means no path");
    cr_assert_float_eq(c->request_timeout_seconds, 2.5, 1e-12);
    cr_assert_not(c->streaming_requested, "--streaming=false");
}

static void check_lists(const struct profile_config *c)
{
    cr_assert_eq(c->models.count, 4);
    cr_assert_str_eq(c->models.items[0], "a");
    cr_assert_str_eq(c->models.items[1], "b");
    cr_assert_str_eq(c->models.items[2], "c");
    cr_assert_str_eq(c->models.items[3], "d");
    cr_assert_eq(c->urls.count, 3);
    cr_assert_str_eq(c->urls.items[2], "http://h3:1");
    cr_assert_eq(c->header_count, 3);
    cr_assert_str_eq(c->headers[0].name, "X-A");
    cr_assert_str_eq(c->headers[0].value, "1");
    cr_assert_str_eq(c->headers[1].name, "X-B");
    cr_assert_str_eq(c->headers[1].value, "two words");
    cr_assert_str_eq(c->headers[2].name, "X-C");
    cr_assert_str_eq(c->headers[2].value, "");
}

static void check_last_wins(const struct profile_config *c)
{
    cr_assert_eq(c->concurrency, 2);
    cr_assert_str_eq(c->api_key, "second");
    cr_assert_eq(c->endpoint_type, CONFIG_ENDPOINT_EMBEDDINGS);
    cr_assert_not(c->streaming, "embeddings cannot stream");
    cr_assert(c->streaming_requested);
}

static void check_verbose(const struct profile_config *c)
{
    cr_assert_eq(c->log_level, CONFIG_LOG_TRACE, "-vv beats --log-level");
    cr_assert(c->verbose);
    cr_assert(c->extra_verbose);
}

static void check_log_level(const struct profile_config *c)
{
    cr_assert_eq(c->log_level, CONFIG_LOG_WARNING);
}

static void check_json_forms(const struct profile_config *c)
{
    cr_assert_eq(c->header_count, 2);
    cr_assert_str_eq(c->headers[0].name, "X-A");
    cr_assert_str_eq(c->headers[1].value, "b");
    cr_assert_eq(c->extra_inputs.count, 1);
    cr_assert_str_eq(c->extra_inputs.items[0], "{\"temperature\": 0.7, \"ignore_eos\": true}");
}

static void check_duration(const struct profile_config *c)
{
    cr_assert_float_eq(c->benchmark_duration_seconds, 300.0, 1e-12);
    cr_assert(isinf(c->benchmark_grace_period_seconds));
    cr_assert(c->benchmark_grace_period_set);
}

static void check_misc(const struct profile_config *c)
{
    cr_assert(c->random_seed_set);
    cr_assert_eq(c->random_seed, 0);
    cr_assert_str_eq(c->tokenizer, "gpt2");
    cr_assert(c->use_legacy_max_tokens);
    cr_assert_eq(c->endpoint_type, CONFIG_ENDPOINT_NIM_RANKINGS, "old name rankings");
    cr_assert_eq(c->ui_type, CONFIG_UI_NONE);
    cr_assert_eq(c->realtime_priority, 99, "the highest SCHED_FIFO priority");
    cr_assert(c->no_server_metrics);
    cr_assert(c->no_gpu_telemetry);
}

static void check_hf_generate(const struct profile_config *c)
{
    cr_assert_eq(c->endpoint_type, CONFIG_ENDPOINT_HUGGINGFACE_GENERATE);
    cr_assert(c->streaming);
}

static void check_reuse_never(const struct profile_config *c)
{
    cr_assert_eq(c->connection_reuse, CONFIG_REUSE_NEVER);
}

static void check_reuse_sticky(const struct profile_config *c)
{
    cr_assert_eq(c->connection_reuse, CONFIG_REUSE_STICKY);
    cr_assert_eq(c->header_count, 1, "a header other than Connection is fine");
}

static void check_reuse_default(const struct profile_config *c)
{
    cr_assert_eq(c->connection_reuse, CONFIG_REUSE_POOLED);
    cr_assert_eq(c->wait_for_model_seconds, 0, "no readiness wait unless asked");
    cr_assert_eq(c->wait_for_model_mode, CONFIG_WAIT_INFERENCE);
    cr_assert_eq(c->wait_for_model_interval_seconds, 5);
}

static void check_hooks(const struct profile_config *c)
{
    cr_assert(c->reset_kv_cache, "a --reset-kv-cache-* flag turns the reset on");
    cr_assert_str_eq(c->reset_kv_cache_path, "/flush_cache");
    cr_assert_eq(c->reset_kv_cache_timeout_seconds, 30);
    cr_assert(c->server_profiler, "a --server-profiler-* flag turns the profiler hooks on");
    cr_assert_eq(c->server_profiler_timeout_seconds, 5);
    cr_assert_null(c->server_profiler_start_path);
}

static void check_wait_for_model(const struct profile_config *c)
{
    cr_assert_eq(c->wait_for_model_seconds, 300);
    cr_assert_eq(c->wait_for_model_mode, CONFIG_WAIT_BOTH);
    cr_assert_eq(c->wait_for_model_interval_seconds, 0.5);
}

static const struct valid_case valid_cases[] = {
    /* seed 000 (Responses API) examples that use only supported flags */
    {"seed000 synthetic",
     W("--model", "Qwen/Qwen3-0.6B", "--endpoint-type", "responses", "--endpoint", "/v1/responses",
       "--streaming", "--synthetic-input-tokens-mean", "100", "--synthetic-input-tokens-stddev",
       "0", "--output-tokens-mean", "200", "--output-tokens-stddev", "0", "--url", "localhost:8000",
       "--request-count", "20"),
     check_seed_responses_synthetic},
    {"seed000 non-streaming",
     W("--model", "Qwen/Qwen3-0.6B", "--endpoint-type", "responses", "--endpoint", "/v1/responses",
       "--synthetic-input-tokens-mean", "100", "--output-tokens-mean", "200", "--url",
       "localhost:8000", "--request-count", "20"),
     check_seed_responses_nonstreaming},
    {"seed000 concurrency",
     W("--model", "Qwen/Qwen3-0.6B", "--endpoint-type", "responses", "--endpoint", "/v1/responses",
       "--streaming", "--concurrency", "10", "--url", "localhost:8000", "--request-count", "100"),
     check_seed_concurrency},
    {"seed000 request rate",
     W("--model", "Qwen/Qwen3-0.6B", "--endpoint-type", "responses", "--endpoint", "/v1/responses",
       "--streaming", "--request-rate", "5", "--url", "localhost:8000", "--request-count", "100"),
     check_seed_request_rate},
    {"seed000 server token count",
     W("--model", "Qwen/Qwen3-0.6B", "--endpoint-type", "responses", "--endpoint", "/v1/responses",
       "--streaming", "--use-server-token-count", "--url", "localhost:8000", "--request-count",
       "20"),
     check_seed_server_tokens},
    {"seed000 extra inputs",
     W("--model", "Qwen/Qwen3-0.6B", "--endpoint-type", "responses", "--endpoint", "/v1/responses",
       "--streaming", "--extra-inputs", "temperature:0.7", "--extra-inputs", "top_p:0.9", "--url",
       "localhost:8000", "--request-count", "20"),
     check_seed_extra_inputs},
    /* seed 001 (chat and completions) */
    {"seed001 chat synthetic",
     W("--model", "Qwen/Qwen3-0.6B", "--endpoint-type", "chat", "--endpoint",
       "/v1/chat/completions", "--streaming", "--synthetic-input-tokens-mean", "100",
       "--synthetic-input-tokens-stddev", "0", "--output-tokens-mean", "200",
       "--output-tokens-stddev", "0", "--url", "localhost:8000", "--request-count", "20"),
     check_seed_chat},
    {"seed001 completions synthetic",
     W("--model", "Qwen/Qwen3-0.6B", "--endpoint-type", "completions", "--endpoint",
       "/v1/completions", "--synthetic-input-tokens-mean", "64", "--synthetic-input-tokens-stddev",
       "4", "--output-tokens-mean", "128", "--output-tokens-stddev", "4", "--url", "localhost:8000",
       "--request-count", "32"),
     check_seed_completions},
    /* seed 002 (inputs.json replay): the run against server A */
    {"seed002 server A",
     W("--model", "Qwen/Qwen3-0.6B", "--endpoint-type", "chat", "--url", "server-a:8000",
       "--concurrency", "4"),
     check_seed_cross_server},
    /* AIPerf's own help examples */
    {"help example streaming",
     W("--model", "Qwen/Qwen3-0.6B", "--url", "localhost:8000", "--endpoint-type", "chat",
       "--streaming"),
     NULL},
    {"help example duration",
     W("--model", "your_model", "--url", "localhost:8000", "--benchmark-duration", "300",
       "--benchmark-grace-period", "inf"),
     check_duration},
    {"defaults", W("-m", "x"), check_defaults},
    {"aliases",
     W("--model-names", "a", "-m", "b", "-u", "h1:1", "--url", "h2:2", "--custom-endpoint", "/x",
       "--num-requests", "7", "--prompt-input-tokens-mean", "11", "--isl-stddev", "1.5",
       "--prompt-output-tokens-mean", "12", "--osl-stddev", "2.5", "--output-artifact-dir", "out",
       "--profile-export-file", "pfx", "--max-workers", "3", "--ui", "simple", "-H", "X-A:1"),
     check_aliases},
    {"equals form",
     W("--model=m=1", "--concurrency=8", "--endpoint=", "--request-timeout-seconds=2.5",
       "--streaming=false"),
     check_equals_form},
    {"lists consume several values",
     W("-m", "a,b", "c", "--model", " d ", "--url", "h1:1", "h2:2", "http://h3:1", "-H", "X-A:1",
       "X-B:  two words ", "X-C:"),
     check_lists},
    {"last value wins",
     W("-m", "x", "--concurrency", "1", "--concurrency", "2", "--api-key", "first", "--api-key",
       "second", "--endpoint-type", "chat", "--endpoint-type", "EMBEDDINGS", "--streaming"),
     check_last_wins},
    {"verbosity", W("-m", "x", "--log-level", "ERROR", "-v", "-vv"), check_verbose},
    {"log level case-insensitive", W("-m", "x", "--log-level", "warning"), check_log_level},
    {"json headers and extra inputs",
     W("-m", "x", "-H", "{\"X-A\": \"a\", \"X-B\": \"b\"}", "--extra-inputs",
       "{\"temperature\": 0.7, \"ignore_eos\": true}"),
     check_json_forms},
    {"misc",
     W("-m", "x", "--random-seed", "0", "--tokenizer", "gpt2", "--use-legacy-max-tokens",
       "--endpoint-type", "rankings", "--ui-type", "none", "--url-strategy", "round_robin",
       "--transport", "http", "--realtime-priority", "99", "--no-server-metrics",
       "--no-gpu-telemetry"),
     check_misc},
    {"hyphenated choice", W("-m", "x", "--endpoint-type", "huggingface-generate", "--streaming"),
     check_hf_generate},
    {"negative-looking value", W("-m", "-", "--custom-endpoint", "-"), NULL},
    {"connection reuse never", W("-m", "x", "--connection-reuse-strategy", "never"),
     check_reuse_never},
    {"connection reuse sticky, either spelling",
     W("-m", "x", "--connection-reuse-strategy", "STICKY_USER_SESSIONS", "-H", "X-A:1"),
     check_reuse_sticky},
    {"connection reuse pooled by default, Connection header allowed",
     W("-m", "x", "-H", "Connection: keep-alive"), check_reuse_default},
    {"control hooks",
     W("-m", "x", "--reset-kv-cache-path", "/flush_cache", "--server-profiler-timeout-seconds",
       "5"),
     check_hooks},
    {"wait for model",
     W("-m", "x", "--wait-for-model-timeout", "300", "--wait-for-model-mode", "both",
       "--wait-for-model-interval", "0.5"),
     check_wait_for_model},
};

Test(config_parse, accepts_valid_command_lines)
{
    for (size_t i = 0; i < sizeof(valid_cases) / sizeof(valid_cases[0]); i++) {
        const struct valid_case *vc = &valid_cases[i];
        struct profile_config cfg;
        char err[512];
        int rc = parse(vc->words, &cfg, err, sizeof(err));
        cr_assert_eq(rc, 0, "%s: rc=%d (%s)", vc->name, rc, err);
        cr_assert_not_null(cfg.cli_command, "%s", vc->name);
        if (vc->check != NULL) {
            vc->check(&cfg);
        }
        config_free(&cfg);
    }
}

/* -------------------------------------------------------------- invalid lines */

struct invalid_case {
    const char *const *words;
    const char *expect; /* substring of the message */
};

static const struct invalid_case invalid_cases[] = {
    {W("--model", "m", "--concurrency", "0"),
     "--concurrency: '0' must be a whole number of at least 1 (e.g. --concurrency 64)"},
    {W("--model", "m", "--concurency", "3"),
     "unknown flag --concurency; did you mean --concurrency?"},
    {W("--model", "m", "--request-rate-series", "rates.csv"),
     "--request-rate-series: this AIPerf flag is recognised but not supported by "
     "ringperf yet"},
    {W("--model", "m", "--concurrency-ramp-duration", "0"), "--concurrency-ramp-duration"},
    {W("--model", "m", "--prefill-concurrency", "5"), "--prefill-concurrency needs --streaming"},
    {W("--model", "m", "--streaming", "--concurrency", "4", "--prefill-concurrency", "5"),
     "--prefill-concurrency (5) cannot exceed --concurrency (4)"},
    {W("--model", "m", "--failed-request-threshold", "1.5"), "--failed-request-threshold"},
    {W("--model", "m", "--system-prompt", "be terse", "--shared-system-prompt-length", "9"),
     "--system-prompt and --shared-system-prompt-length both set the system prompt"},
    {W("--model", "m", "--num-dataset-entries", "0"), "--num-dataset-entries"},
    {W("--model", "m", "--arrival-pattern", "bursty"),
     "--arrival-pattern: unknown value 'bursty'; valid values: poisson, constant, gamma, "
     "concurrency_burst"},
    {W("--model", "m", "--arrival-smoothness", "2", "--arrival-pattern", "constant"),
     "--arrival-smoothness applies only to --arrival-pattern gamma"},
    {W("--model", "m", "--request-cancellation-rate", "101"), "--request-cancellation-rate"},
    {W("--model", "m", "--public-dataset", "aimo"),
     "--public-dataset aimo is not supported; supported: sharegpt"},
    {W("--model", "m", "--prompt-corpus", "coding"), "--prompt-corpus: this AIPerf flag is recog"},
    {W("--model", "m", "--prefix-prompt-length", "9"),
     "--prefix-prompt-length and --num-prefix-prompts go together"},
    {W("--model", "m", "--num-prefix-prompts", "2", "--prefix-prompt-length", "9",
       "--shared-system-prompt-length", "5"),
     "--num-prefix-prompts cannot be combined with --shared-system-prompt-length or "
     "--user-context-prompt-length"},
    {W("--model", "m", "--user-context-prompt-length", "9"),
     "--user-context-prompt-length needs --num-dataset-entries"},
    {W("--model", "m", "-b", "4"), "--prompt-batch-size applies to --endpoint-type embeddings"},
    {W("--model", "m", "--input-file", "x.jsonl", "--num-prefix-prompts", "2",
       "--prefix-prompt-length", "9"),
     "--num-prefix-prompts applies to synthetic prompts, not to --input-file"},
    {W("--model", "m", "--zmq-host", "h"), "--zmq-host: this AIPerf flag is recognised"},
    {W("--model", "m", "--api-port", "65536"), "--api-port"},
    {W("--url", "localhost:8000"), "--model is required (e.g. --model Qwen/Qwen3-0.6B)"},
    {W("--model"), "--model: missing value (e.g. --model Qwen/Qwen3-0.6B)"},
    {W("--model", "--streaming"), "--model: missing value"},
    {W("-m", "x", "--concurrency"), "--concurrency: missing value (e.g. --concurrency 64)"},
    {W("-m", "x", "--concurrency", "--streaming"), "--concurrency: missing value"},
    {W("-m", "x", "--concurrency", "ten"), "--concurrency: 'ten' must be a whole number"},
    {W("-m", "x", "--concurrency", "1.5"), "must be a whole number of at least 1"},
    {W("-m", "x", "--request-count", "10,20"), "take a comma list (a sweep)"},
    {W("-m", "x", "--concurrency", "99999999999999999999999"), "must be a whole number"},
    {W("-m", "x", "--concurrency", "2000000"), "must be a whole number of at most 1000000"},
    {W("-m", "x", "--num-requests", "0"),
     "--num-requests: '0' must be a whole number of at least 1"},
    {W("-m", "x", "--request-timeout-seconds", "0"), "must be a number greater than 0"},
    {W("-m", "x", "--slice-duration", "1e-10"),
     "--slice-duration: '1e-10' must be a number of at least 1e-09"},
    {W("-m", "x", "--request-timeout-seconds", "nan"), "must be a number greater than 0"},
    {W("-m", "x", "--request-timeout-seconds", "inf"), "must be a number greater than 0"},
    {W("-m", "x", "--request-timeout-seconds", "0x10"), "must be a number greater than 0"},
    {W("-m", "x", "--request-timeout-seconds", " 5"), "must be a number greater than 0"},
    {W("-m", "x", "--request-rate", "-1"), "--request-rate: '-1' must be a number greater than 0"},
    {W("-m", "x", "--benchmark-grace-period", "-1"), "a number of at least 0 (or inf)"},
    {W("-m", "x", "--benchmark-grace-period", "10"), "only applies together with --benchmark-dur"},
    {W("-m", "x", "--random-seed", "-1"), "--random-seed: '-1' must be a whole number of at least"},
    {W("-m", "x", "--isl", "abc"), "--isl: 'abc' must be a whole number of at least 0 (e.g. --isl"},
    {W("-m", "x", "--workers-max", "0"), "--workers-max: '0' must be a whole number of at least 1"},
    {W("-m", "x", "--realtime-priority", "0"),
     "--realtime-priority: '0' must be a whole number of at least 1 (e.g. --realtime-priority 10)"},
    {W("-m", "x", "--realtime-priority", "100"), "--realtime-priority: '100' must be a whole "
                                                 "number of at most 99"},
    {W("-m", "x", "--realtime-priority", "-5"), "--realtime-priority: '-5' must be a whole number"},
    {W("-m", "x", "--realtime-priority", "high"), "--realtime-priority: 'high' must be a whole"},
    {W("-m", "x", "--realtime-priority", "1.5"), "--realtime-priority: '1.5' must be a whole"},
    {W("-m", "x", "--realtime-priority"), "--realtime-priority: missing value (e.g. "
                                          "--realtime-priority 10)"},
    {W("-m", "x", "--endpoint-type", "chatt"),
     "--endpoint-type: unknown value 'chatt' (did you mean chat?); valid values: chat, "
     "completions"},
    {W("-m", "x", "--ui-type", "fancy"), "valid values: dashboard, simple, none"},
    {W("-m", "x", "--log-level", "LOUD"), "--log-level: unknown value 'LOUD'"},
    {W("-m", "x", "--url-strategy", "random"), "valid values: round_robin"},
    {W("-m", "x", "--streaming", "true"), "unexpected argument 'true': --streaming is a switch"},
    {W("-m", "x", "--streaming=maybe"), "--streaming: 'maybe' is not a switch value"},
    {W("-m", "x", "--concurrency", "4", "8"), "unexpected argument '8'"},
    {W("-m", "x", "--"), "unexpected argument '--'"},
    {W("stray", "-m", "x"), "unexpected argument 'stray'"},
    {W("-m", "x", "--bogus-flag-name-that-is-far-from-anything"), "run 'ringperf profile --help'"},
    {W("-model", "x"), "unknown flag -model; did you mean --model?"},
    {W("-m", "x", "--api-key", ""), "--api-key: the value is empty"},
    {W("-m", ""), "-m: empty value in list"},
    {W("-m", "a,,b"), "-m: empty value in list"},
    {W("-m", "x", "-H", "NoColon"), "-H: a value of 7 characters (not shown: it may be a "
                                    "credential) has no ':'; it must be Name:Value"},
    {W("-m", "x", "-H", "Bad Name:v"), "header name 'Bad Name' may only contain"},
    {W("-m", "x", "-H", ":v"), "the header name is empty"},
    {W("-m", "x", "--header", "X-A:a\r\nX-Injected: 1"), "contains a control character (CR and LF"},
    {W("-m", "x", "-H", "{\"X-A\": 1}"), "the JSON value of a header must be a string"},
    {W("-m", "x", "-H", "{not json"), "-H: invalid JSON at line 1"},
    {W("-m", "x", "-H", "[1,2]"), "must be Name:Value"},
    {W("-m", "x", "--extra-inputs", "novalue"), "--extra-inputs: 'novalue' must be key:value"},
    {W("-m", "x", "--extra-inputs", ":v"), "must be key:value or a JSON object"},
    {W("-m", "x", "--extra-inputs", "{\"a\": }"), "--extra-inputs: invalid JSON at line 1"},
    {W("-m", "x", "--extra-inputs", "{", "}"), "--extra-inputs: invalid JSON"},
    {W("-m", "x", "--api-key", "a\nb"), "--api-key: the value contains a control character"},
    {W("-m", "x", "--url", "ftp://host"), "--url 'ftp://host': scheme 'ftp' is not supported"},
    {W("-m", "x", "--url", "https://"), "missing or invalid host name"},
    {W("-m", "x", "--url", "http://"), "missing or invalid host name"},
    {W("-m", "x", "--url", "localhost:0"), "the port must be a number from 1 to 65535"},
    {W("-m", "x", "--url", "localhost:65536"), "the port must be a number from 1 to 65535"},
    {W("-m", "x", "--url", "localhost:80a"), "the port must be a number"},
    {W("-m", "x", "--url", "[::1"), "missing or invalid host name"},
    {W("-m", "x", "--url", "[::1]x"), "missing or invalid host name"},
    {W("-m", "x", "--url", "http://user:secret@:80"), "--url 'http://<redacted>@:80'"},
    {W("-m", "x", "--url", "localhost/a b"), "may not contain spaces"},
    {W("-m", "x", "--endpoint", "/a b"), "--endpoint: the path may not contain spaces"},
    {W("-m", "x", "--warmup-concurrency", "4"),
     "the --warmup-* load flags shape a warmup, and there is none: add --warmup-request-count"},
    {W("-m", "x", "--warmup-request-count", "5", "--warmup-grace-period", "3"),
     "--warmup-grace-period only applies together with --warmup-duration"},
    {W("-m", "x", "--streaming", "--prefill-concurrency-ramp-duration", "5"),
     "--prefill-concurrency-ramp-duration ramps --prefill-concurrency up: give "
     "--prefill-concurrency N too"},
    {W("-m", "x", "--warmup-duration", "5", "--warmup-prefill-concurrency", "3"),
     "--warmup-prefill-concurrency limits requests waiting for their first token"},
    {W("-m", "x", "--endpoint-type", "completions", "--cache-bust", "system_prefix"),
     "--cache-bust: the completions endpoint has no system prompt to mark"},
    {W("-m", "x", "--endpoint-type", "embeddings", "--cache-bust", "first_turn_suffix"),
     "--cache-bust: the embeddings endpoint has no prompt to mark"},
    {W("-m", "x", "--session-header", "X Session"),
     "--session-header: 'X Session' is not a header name"},
    {W("-m", "x", "--session-header", "x-request-id"),
     "--session-header: X-Request-ID is a header ringperf sends for another purpose"},
    {W("-m", "x", "--per-chunk-usage", "--streaming"),
     "--per-chunk-usage reads the usage a chat stream reports on every chunk: it needs "
     "--endpoint-type chat, --streaming and --use-server-token-count"},
    {W("-m", "x", "--reset-kv-cache-path", "http://h/reset"),
     "--reset-kv-cache-path: 'http://h/reset' must be a path on the server, starting with /"},
    {W("-m", "x", "--server-profiler-stop-path", "/a b"),
     "--server-profiler-stop-path: the path may not contain spaces"},
    {W("-m", "x", "--reset-kv-cache-timeout-seconds", "0"), "must be a number greater than 0"},
    {W("-m", "x", "--wait-for-model-timeout", "-1"),
     "--wait-for-model-timeout: '-1' must be a number of at least 0"},
    {W("-m", "x", "--wait-for-model-interval", "0"),
     "--wait-for-model-interval: '0' must be a number greater than 0"},
    {W("-m", "x", "--wait-for-model-mode", "health"),
     "--wait-for-model-mode: unknown value 'health'; valid values: inference, models, both"},
    {W("-m", "x", "--connection-reuse-strategy", "nevr"),
     "--connection-reuse-strategy: unknown value 'nevr' (did you mean never?); valid values: "
     "pooled, never, sticky-user-sessions"},
    {W("-m", "x", "--connection-reuse-strategy", "never", "-H", "connection: keep-alive"),
     "-H/--header: a Connection header cannot be combined with --connection-reuse-strategy "
     "never"},
    {W("-m", "x", "--server-metrics-formats", "json,parquet"),
     "--server-metrics-formats: 'parquet' is not one ringperf writes: give json, csv or jsonl"},
    {W("-m", "x", "--server-metrics-formats", "xml"),
     "--server-metrics-formats: 'xml' is not one ringperf writes"},
    {W("-m", "x", "--server-metrics", "localhost:9100", "--no-server-metrics"),
     "--server-metrics and --no-server-metrics contradict each other: drop one"},
    {W("-m", "x", "--server-metrics", "ftp://host/metrics"), "--server-metrics"},
    {W("-m", "x", "--gpu-telemetry", "amdsmi"),
     "--gpu-telemetry amdsmi is not supported by ringperf yet: give DCGM exporter URLs or pynvml"},
    {W("-m", "x", "--gpu-telemetry", "localhost:9400", "--no-gpu-telemetry"),
     "--gpu-telemetry and --no-gpu-telemetry contradict each other: drop one"},
    {W("-m", "x", "--gpu-telemetry", "ftp://dcgm"), "--gpu-telemetry"},
};

Test(config_parse, server_metrics_urls_gain_their_metrics_path)
{
    static const struct {
        const char *in, *host, *path;
        uint16_t port;
    } cases[] = {
        {"localhost:9100", "localhost", "/metrics", 9100},
        {"http://h:8000/", "h", "/metrics", 8000},
        {"https://h/metrics", "h", "/metrics", 443},
        {"http://h:1/prometheus/metrics?x=1", "h", "/prometheus/metrics?x=1", 1},
        {"http://h:1/stats?x=1", "h", "/stats/metrics?x=1", 1},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct config_target t;
        char err[256];
        cr_assert_eq(
            config_resolve_metrics_url(cases[i].in, "--server-metrics", &t, err, sizeof(err)), 0,
            "%s", err);
        cr_assert_str_eq(t.host, cases[i].host);
        cr_assert_str_eq(t.path, cases[i].path, "%s", cases[i].in);
        cr_assert_eq(t.port, cases[i].port);
    }
}

Test(config_parse, rejects_invalid_command_lines_with_a_clear_message)
{
    for (size_t i = 0; i < sizeof(invalid_cases) / sizeof(invalid_cases[0]); i++) {
        const struct invalid_case *ic = &invalid_cases[i];
        struct profile_config cfg;
        char err[512] = "unset";
        int rc = parse(ic->words, &cfg, err, sizeof(err));
        cr_assert(rc < 0, "case %zu (%s) should fail", i, ic->expect);
        cr_assert_not_null(strstr(err, ic->expect), "case %zu: got '%s', want '%s'", i, err,
                           ic->expect);
        cr_assert_null(cfg.models.items, "case %zu: nothing left allocated", i);
        cr_assert_null(cfg.cli_command);
        config_free(&cfg);
    }
}

Test(config_parse, never_echoes_secrets_in_errors)
{
    struct profile_config cfg;
    char err[512];
    int rc =
        parse(W("-m", "x", "--url", "http://alice:hunter2@host:99999"), &cfg, err, sizeof(err));
    cr_assert_eq(rc, -EINVAL);
    cr_assert_null(strstr(err, "hunter2"), "%s", err);
    rc = parse(W("-m", "x", "-H", "Authorization: Bearer tok\n"), &cfg, err, sizeof(err));
    cr_assert_eq(rc, -EINVAL);
    cr_assert_null(strstr(err, "Bearer"), "%s", err);
    rc = parse(W("-m", "x", "-H", "sk-live-0123456789"), &cfg, err, sizeof(err));
    cr_assert_eq(rc, -EINVAL);
    cr_assert_null(strstr(err, "sk-live"), "a bare token is not echoed: %s", err);
    rc = parse(W("-m", "x", "--header", "Bearer sk-live-0123456789"), &cfg, err, sizeof(err));
    cr_assert_eq(rc, -EINVAL);
    cr_assert_null(strstr(err, "sk-live"), "%s", err);
}

Test(config_parse, help_returns_the_help_code_before_checking_anything)
{
    struct profile_config cfg;
    char err[64];
    cr_assert_eq(parse(W("--help"), &cfg, err, sizeof(err)), CONFIG_PARSE_HELP);
    config_free(&cfg);
    cr_assert_eq(parse(W("--concurrency", "0", "-h"), &cfg, err, sizeof(err)), CONFIG_PARSE_HELP);
    cr_assert_null(cfg.models.items);
    config_free(&cfg);
}

Test(config_parse, small_or_missing_error_buffers_are_safe)
{
    struct profile_config cfg;
    char tiny[8];
    cr_assert_eq(parse(W("--concurrency", "0"), &cfg, tiny, sizeof(tiny)), -EINVAL);
    cr_assert_eq(strlen(tiny), 7);
    cr_assert_eq(parse(W("--concurrency", "0"), &cfg, NULL, 0), -EINVAL);
    cr_assert_eq(config_parse_profile(1, NULL, &cfg, NULL, 0), -EINVAL);
    cr_assert_eq(config_parse_profile(0, NULL, NULL, NULL, 0), -EINVAL);
}

Test(config_parse, free_is_idempotent_and_accepts_null)
{
    struct profile_config cfg;
    char err[128];
    cr_assert_eq(parse(W("-m", "x", "-H", "A:b", "--api-key", "k"), &cfg, err, sizeof(err)), 0);
    config_free(&cfg);
    config_free(&cfg);
    config_free(NULL);
}

Test(config_parse, enforces_list_and_argument_limits)
{
    static char *argv[CONFIG_ARGS_MAX + 2];
    static char buf[CONFIG_ARGS_MAX + 2][16];
    struct profile_config cfg;
    char err[256];
    argv[0] = "-m";
    for (int i = 1; i <= CONFIG_LIST_MAX + 1; i++) {
        snprintf(buf[i], sizeof(buf[i]), "m%d", i);
        argv[i] = buf[i];
    }
    cr_assert_eq(config_parse_profile(CONFIG_LIST_MAX + 2, argv, &cfg, err, sizeof(err)), -EINVAL);
    cr_assert_not_null(strstr(err, "more than 256 values"), "%s", err);

    argv[0] = "-H";
    for (int i = 1; i <= CONFIG_HEADERS_MAX + 1; i++) {
        snprintf(buf[i], sizeof(buf[i]), "X-%d:v", i);
        argv[i] = buf[i];
    }
    cr_assert_eq(config_parse_profile(CONFIG_HEADERS_MAX + 2, argv, &cfg, err, sizeof(err)),
                 -EINVAL);
    cr_assert_not_null(strstr(err, "more than 64 headers"), "%s", err);

    for (int i = 0; i < CONFIG_ARGS_MAX + 1; i++) {
        argv[i] = "-v";
    }
    cr_assert_eq(config_parse_profile(CONFIG_ARGS_MAX + 1, argv, &cfg, err, sizeof(err)), -EINVAL);
    cr_assert_not_null(strstr(err, "too many arguments"), "%s", err);

    char *long_arg = malloc(CONFIG_ARG_BYTES_MAX + 2);
    cr_assert_not_null(long_arg);
    memset(long_arg, 'a', CONFIG_ARG_BYTES_MAX + 1);
    long_arg[CONFIG_ARG_BYTES_MAX + 1] = '\0';
    char *two[] = {"-m", long_arg, NULL};
    cr_assert_eq(config_parse_profile(2, two, &cfg, err, sizeof(err)), -EINVAL);
    cr_assert_not_null(strstr(err, "longer than 65536 bytes"), "%s", err);
    free(long_arg);
}
