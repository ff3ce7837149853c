/*
 * config_parse.c - config_parse_profile: defaults, the flag loop, the checks
 * that involve more than one flag, and config_free.
 */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "config/config_internal.h"

#define CONFIG__DEFAULT_URL "localhost:8000"
#define CONFIG__DEFAULT_ARTIFACT_DIR "artifacts"

/* init_defaults sets AIPerf's defaults without allocating anything. */
static void init_defaults(struct profile_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->endpoint_type = CONFIG_ENDPOINT_CHAT;
    cfg->request_timeout_seconds = 600.0;
    cfg->wait_for_model_interval_seconds = 5.0;
    cfg->stats_interval_seconds = 1.0;
    cfg->reset_kv_cache_timeout_seconds = 30.0;
    cfg->server_profiler_timeout_seconds = 30.0;
    cfg->isl_tokens_mean = 550;
    cfg->request_count = 10;
    cfg->benchmark_grace_period_seconds = 30.0;
    cfg->ui_type = CONFIG_UI_AUTO;
    cfg->log_level = CONFIG_LOG_INFO;
    cfg->image_batch_size = 1;
    cfg->audio_batch_size = 1;
    cfg->audio_num_channels = 1;
    cfg->prompt_batch_size = 1;
    cfg->rankings_passages_mean = 1;
    cfg->multi_run.num_profile_runs = 1;
    cfg->multi_run.confidence_level = 0.95;
    cfg->multi_run.disable_warmup_after_first = true;
    cfg->multi_run.set_consistent_seed = true;
    cfg->multi_run.convergence_threshold = 0.10;
}

static void strlist_free(struct config_strlist *list)
{
    for (size_t i = 0; i < list->count; i++) {
        free(list->items[i]);
    }
    free(list->items);
    list->items = NULL;
    list->count = 0;
}

static void headers_free(struct profile_config *cfg)
{
    for (size_t i = 0; i < cfg->header_count; i++) {
        free(cfg->headers[i].name);
        free(cfg->headers[i].value);
    }
    free(cfg->headers);
    cfg->headers = NULL;
    cfg->header_count = 0;
}

/* config_free releases what the flag table says each field owns (a string
 * or a list), so that a new flag cannot be forgotten here; then the fields
 * no flag stores. Each release leaves its field empty, so two table entries
 * sharing a field cannot free it twice. */
void config_free(struct profile_config *cfg)
{
    if (cfg == NULL) {
        return;
    }
    size_t count = 0;
    const struct config__flag *flags = config__flags(&count);
    for (size_t i = 0; i < count; i++) {
        const struct config__flag *f = &flags[i];
        if ((f->traits & CONFIG__T_HEADER) != 0) {
            headers_free(cfg); /* -H stores into cfg->headers, not at an offset */
            continue;
        }
        if (f->offset == CONFIG__NO_FIELD) {
            continue;
        }
        char *field = (char *)cfg + f->offset;
        if (f->kind == CONFIG__K_LIST) {
            strlist_free((struct config_strlist *)(void *)field);
        } else if (f->kind == CONFIG__K_STRING) {
            char **text = (char **)(void *)field;
            free(*text);
            *text = NULL;
        }
    }
    free(cfg->cli_command);
    memset(cfg, 0, sizeof(*cfg));
}

static int store_occurrence(struct profile_config *cfg, char **argv,
                            const struct config__occurrence *occ, char *errbuf, size_t errcap)
{
    int rc = 0;
    if (occ->flag->kind == CONFIG__K_SWITCH || occ->inline_value != NULL) {
        rc = config__store_value(cfg, occ, occ->inline_value, errbuf, errcap);
    }
    for (int i = 0; rc == 0 && i < occ->value_count; i++) {
        rc = config__store_value(cfg, occ, argv[occ->value_first + i], errbuf, errcap);
    }
    return rc;
}

static int check_urls(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    struct config_target target;
    for (size_t i = 0; i < cfg->urls.count; i++) {
        int rc = config_resolve_url(cfg, i, &target, errbuf, errcap);
        if (rc != 0) {
            return rc;
        }
    }
    return 0;
}

/* check_hook_path checks a control hook's path: a path under the server's
 * host ("/..."), not a URL, with nothing that would break the request line. */
static int check_hook_path(const char *flag, const char *path, char *errbuf, size_t errcap)
{
    if (path == NULL) {
        return 0;
    }
    if (path[0] != '/') {
        return config__fail(errbuf, errcap,
                            "%s: '%s' must be a path on the server, starting with / "
                            "(e.g. %s /reset_prefix_cache); the host comes from --url",
                            flag, path, flag);
    }
    if (!config__visible_ascii(path, strlen(path))) {
        return config__fail(errbuf, errcap,
                            "%s: the path may not contain spaces or control characters; "
                            "percent-encode them (e.g. %%20)",
                            flag);
    }
    return 0;
}

/* check_session_header checks --session-header: a field name of the
 * session's own, not one the request writer or the engine already sends. */
static int check_session_header(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    static const char *const taken[] = {
        "Host",         "Content-Length", "Transfer-Encoding", "Connection",
        "Content-Type", "X-Request-ID",   "X-Session-Affinity"};
    const char *name = cfg->session_header;
    if (name == NULL) {
        return 0;
    }
    if (!config__is_header_name(name, strlen(name))) {
        return config__fail(errbuf, errcap,
                            "--session-header: '%s' is not a header name; use letters, digits "
                            "and !#$%%&'*+-.^_`|~ (e.g. --session-header X-Session-ID)",
                            name);
    }
    for (size_t i = 0; i < sizeof(taken) / sizeof(taken[0]); i++) {
        if (strcasecmp(name, taken[i]) == 0) {
            return config__fail(errbuf, errcap,
                                "--session-header: %s is a header ringperf sends for another "
                                "purpose; choose another name (e.g. X-Session-ID)",
                                taken[i]);
        }
    }
    return 0;
}

/* check_connection_header refuses a -H Connection header beside a reuse
 * strategy that closes connections: the requests would carry two Connection
 * headers that disagree. */
static int check_connection_header(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    if (cfg->connection_reuse == CONFIG_REUSE_POOLED) {
        return 0;
    }
    for (size_t i = 0; i < cfg->header_count; i++) {
        if (strcasecmp(cfg->headers[i].name, "Connection") == 0) {
            return config__fail(
                errbuf, errcap,
                "-H/--header: a Connection header cannot be combined with "
                "--connection-reuse-strategy %s, which sends `Connection: close` "
                "itself; drop the header",
                cfg->connection_reuse == CONFIG_REUSE_NEVER ? "never" : "sticky-user-sessions");
        }
    }
    return 0;
}

/* check_dataset_extras checks prefix prompts, user context, prompt batches and
 * --public-dataset against each other, as AIPerf does. */
static int check_dataset_extras(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    if (cfg->num_prefix_prompts > 0 &&
        (cfg->shared_system_prompt_length > 0 || cfg->user_context_prompt_length > 0)) {
        return config__fail(errbuf, errcap,
                            "--num-prefix-prompts cannot be combined with "
                            "--shared-system-prompt-length or --user-context-prompt-length; "
                            "use either prefix prompts or system/user-context prompts");
    }
    if ((cfg->prefix_prompt_length > 0) != (cfg->num_prefix_prompts > 0)) {
        return config__fail(errbuf, errcap,
                            "--prefix-prompt-length and --num-prefix-prompts go together (e.g. "
                            "--num-prefix-prompts 10 --prefix-prompt-length 100)");
    }
    bool file = cfg->input_file != NULL || cfg->public_dataset != NULL;
    if (file && (cfg->num_prefix_prompts > 0 || cfg->user_context_prompt_length > 0)) {
        return config__fail(errbuf, errcap,
                            "%s applies to synthetic prompts, not to --input-file or "
                            "--public-dataset",
                            cfg->num_prefix_prompts > 0 ? "--num-prefix-prompts"
                                                        : "--user-context-prompt-length");
    }
    if (cfg->user_context_prompt_length > 0 && cfg->num_dataset_entries == 0) {
        return config__fail(errbuf, errcap,
                            "--user-context-prompt-length needs --num-dataset-entries (one "
                            "context per entry)");
    }
    enum config_endpoint_type t = cfg->endpoint_type;
    if (cfg->user_context_prompt_length > 0 && t != CONFIG_ENDPOINT_CHAT &&
        t != CONFIG_ENDPOINT_CHAT_EMBEDDINGS && t != CONFIG_ENDPOINT_MESSAGES &&
        t != CONFIG_ENDPOINT_RESPONSES) {
        return config__fail(errbuf, errcap,
                            "--user-context-prompt-length needs an endpoint with messages: "
                            "chat, chat_embeddings, messages or responses");
    }
    bool embeddings = cfg->endpoint_type == CONFIG_ENDPOINT_EMBEDDINGS ||
                      cfg->endpoint_type == CONFIG_ENDPOINT_NIM_EMBEDDINGS;
    if (cfg->prompt_batch_size > 1 && !embeddings) {
        return config__fail(errbuf, errcap,
                            "--prompt-batch-size applies to --endpoint-type embeddings and "
                            "nim_embeddings (rankings: --rankings-passages-mean)");
    }
    if (cfg->public_dataset != NULL && strcmp(cfg->public_dataset, "sharegpt") != 0) {
        return config__fail(errbuf, errcap,
                            "--public-dataset %s is not supported; supported: sharegpt",
                            cfg->public_dataset);
    }
    if (cfg->public_dataset != NULL && cfg->custom_dataset_type != NULL) {
        return config__fail(errbuf, errcap,
                            "--public-dataset and --custom-dataset-type cannot be combined");
    }
    return 0;
}

/* check_conversations fills the multi-turn defaults and checks
 * --user-centric-rate against the other load modes. */
static int check_conversations(struct profile_config *cfg, char *errbuf, size_t errcap)
{
    if (!cfg->conversation_turn_delay_ratio_set) {
        cfg->conversation_turn_delay_ratio = 1.0;
    }
    if ((cfg->user_centric_rate > 0) != (cfg->num_users > 0)) {
        return config__fail(errbuf, errcap,
                            "--user-centric-rate and --num-users go together (e.g. "
                            "--user-centric-rate 10 --num-users 16)");
    }
    if (cfg->user_centric_rate <= 0) {
        return 0;
    }
    if (cfg->request_rate_per_second > 0 || cfg->fixed_schedule) {
        return config__fail(errbuf, errcap,
                            "--user-centric-rate cannot be combined with %s; give one load mode",
                            cfg->fixed_schedule ? "--fixed-schedule" : "--request-rate");
    }
    /* AIPerf takes --concurrency as a cap on the requests in flight across users. A ringperf
     * user holds a connection and at most one request, so a cap of --num-users or more is
     * met already; a lower one would need users sharing connections. */
    if (cfg->concurrency > 0 && cfg->concurrency < cfg->num_users) {
        return config__fail(errbuf, errcap,
                            "--concurrency %lld is below --num-users %lld: each user holds a "
                            "connection with at most one request in flight, so ringperf cannot "
                            "cap them lower; give --concurrency %lld or more, or leave it out",
                            (long long)cfg->concurrency, (long long)cfg->num_users,
                            (long long)cfg->num_users);
    }
    if (cfg->input_file == NULL && cfg->conversation_turn_mean < 2) {
        return config__fail(errbuf, errcap,
                            "--user-centric-rate needs multi-turn conversations: add "
                            "--conversation-turn-mean 2 (or more)");
    }
    return 0;
}

/* check_realtime checks --realtime-priority against this kernel: the table
 * allows Linux's 1..99, and a kernel may offer fewer. */
/* check_server_metrics checks the --server-metrics URLs and formats. */
static int check_server_metrics(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    if (cfg->no_server_metrics && cfg->server_metrics.count > 0) {
        return config__fail(errbuf, errcap,
                            "--server-metrics and --no-server-metrics contradict each other: "
                            "drop one");
    }
    struct config_target target;
    for (size_t i = 0; i < cfg->server_metrics.count; i++) {
        int rc = config_resolve_metrics_url(cfg->server_metrics.items[i], "--server-metrics",
                                            &target, errbuf, errcap);
        if (rc != 0) {
            return rc;
        }
    }
    for (size_t i = 0; i < cfg->server_metrics_formats.count; i++) {
        const char *f = cfg->server_metrics_formats.items[i];
        if (strcmp(f, "json") != 0 && strcmp(f, "csv") != 0 && strcmp(f, "jsonl") != 0) {
            return config__fail(
                errbuf, errcap,
                "--server-metrics-formats: '%s' is not one ringperf writes: give "
                "json, csv or jsonl (e.g. --server-metrics-formats json,csv,jsonl)%s",
                f, strcmp(f, "parquet") == 0 ? "; parquet is not supported" : "");
        }
    }
    return 0;
}

/* check_gpu_telemetry checks the --gpu-telemetry sources: DCGM exporter URLs and pynvml. */
static int check_gpu_telemetry(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    if (cfg->no_gpu_telemetry && cfg->gpu_telemetry.count > 0) {
        return config__fail(errbuf, errcap,
                            "--gpu-telemetry and --no-gpu-telemetry contradict each other: "
                            "drop one");
    }
    static const char *const local[] = {"amdsmi", "dashboard"};
    struct config_target target;
    for (size_t i = 0; i < cfg->gpu_telemetry.count; i++) {
        const char *v = cfg->gpu_telemetry.items[i];
        if (strcmp(v, "pynvml") == 0) {
            continue; /* local GPUs through NVML */
        }
        for (size_t k = 0; k < sizeof(local) / sizeof(local[0]); k++) {
            if (strcmp(v, local[k]) == 0) {
                return config__fail(
                    errbuf, errcap,
                    "--gpu-telemetry %s is not supported by ringperf yet: give "
                    "DCGM exporter URLs or pynvml (e.g. --gpu-telemetry localhost:9400)",
                    v);
            }
        }
        int rc = config_resolve_metrics_url(v, "--gpu-telemetry", &target, errbuf, errcap);
        if (rc != 0) {
            return rc;
        }
    }
    return 0;
}

static int check_realtime(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    int rt_max = sched_get_priority_max(SCHED_FIFO);
    if (cfg->realtime_priority > 0 && rt_max > 0 && cfg->realtime_priority > rt_max) {
        return config__fail(errbuf, errcap,
                            "--realtime-priority %lld is above this kernel's highest SCHED_FIFO "
                            "priority, %d: give 1 to %d (e.g. --realtime-priority 10)",
                            (long long)cfg->realtime_priority, rt_max, rt_max);
    }
    return 0;
}

/* check_network_latency refuses two sources of the round trip, and an interval without
 * probes, as AIPerf does. */
static int check_network_latency(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    if (cfg->network_latency_automatic && config_flag_given(cfg, "--network-latency-mean")) {
        return config__fail(errbuf, errcap,
                            "--network-latency-automatic and --network-latency-mean cannot be "
                            "combined: probe the round trip, or give it");
    }
    if (!cfg->network_latency_automatic &&
        config_flag_given(cfg, "--network-latency-ping-interval")) {
        return config__fail(errbuf, errcap,
                            "--network-latency-ping-interval applies to "
                            "--network-latency-automatic; add it, or drop the interval");
    }
    return 0;
}

int config__finalize(struct profile_config *cfg, char *errbuf, size_t errcap)
{
    if (cfg->models.count == 0) {
        return config__fail(errbuf, errcap, "--model is required (e.g. --model Qwen/Qwen3-0.6B)");
    }
    char sagemaker_url[128];
    const char *default_url =
        config__sagemaker_default_url(cfg, sagemaker_url, sizeof(sagemaker_url))
            ? sagemaker_url
            : CONFIG__DEFAULT_URL;
    if (cfg->urls.count == 0 &&
        config__strlist_push(&cfg->urls, default_url, strlen(default_url)) != 0) {
        return -ENOMEM;
    }
    if (cfg->artifact_dir == NULL) {
        cfg->artifact_dir = strdup(CONFIG__DEFAULT_ARTIFACT_DIR);
        if (cfg->artifact_dir == NULL) {
            return -ENOMEM;
        }
    }
    /* AIPerf turns --streaming off silently for endpoints that cannot stream. */
    cfg->streaming =
        cfg->streaming_requested && config_endpoint_supports_streaming(cfg->endpoint_type);
    if (cfg->extra_verbose) {
        cfg->log_level = CONFIG_LOG_TRACE;
    } else if (cfg->verbose) {
        cfg->log_level = CONFIG_LOG_DEBUG;
    }
    bool warmup_shaped = cfg->warmup_concurrency > 0 || cfg->warmup_prefill_concurrency > 0 ||
                         cfg->warmup_request_rate > 0 || cfg->warmup_arrival_pattern_set ||
                         cfg->warmup_concurrency_ramp_seconds > 0 ||
                         cfg->warmup_prefill_concurrency_ramp_seconds > 0 ||
                         cfg->warmup_request_rate_ramp_seconds > 0 || cfg->warmup_grace_period_set;
    if (warmup_shaped && cfg->warmup_request_count <= 0 && cfg->warmup_duration_seconds <= 0) {
        return config__fail(errbuf, errcap,
                            "the --warmup-* load flags shape a warmup, and there is none: add "
                            "--warmup-request-count N or --warmup-duration SECONDS");
    }
    if (cfg->warmup_grace_period_set && cfg->warmup_duration_seconds <= 0) {
        return config__fail(errbuf, errcap,
                            "--warmup-grace-period only applies together with --warmup-duration "
                            "(e.g. --warmup-duration 30 --warmup-grace-period 10)");
    }
    if (cfg->prefill_concurrency_ramp_seconds > 0 && cfg->prefill_concurrency <= 0) {
        return config__fail(errbuf, errcap,
                            "--prefill-concurrency-ramp-duration ramps --prefill-concurrency up: "
                            "give --prefill-concurrency N too");
    }
    if (cfg->warmup_prefill_concurrency_ramp_seconds > 0 && cfg->prefill_concurrency <= 0 &&
        cfg->warmup_prefill_concurrency <= 0) {
        return config__fail(errbuf, errcap,
                            "--warmup-prefill-concurrency-ramp-duration ramps the warmup's prefill "
                            "limit up: give --warmup-prefill-concurrency N (or "
                            "--prefill-concurrency N)");
    }
    if (cfg->warmup_prefill_concurrency > 0 && !cfg->streaming) {
        return config__fail(errbuf, errcap,
                            "--warmup-prefill-concurrency limits requests waiting for their "
                            "first token, which only a stream has: add --streaming");
    }
    if (cfg->cache_bust != CONFIG_CACHE_BUST_NONE) {
        bool system = cfg->cache_bust == CONFIG_CACHE_BUST_SYSTEM_PREFIX ||
                      cfg->cache_bust == CONFIG_CACHE_BUST_SYSTEM_SUFFIX;
        enum config_endpoint_type t = cfg->endpoint_type;
        bool chatty = t == CONFIG_ENDPOINT_CHAT || t == CONFIG_ENDPOINT_RESPONSES ||
                      t == CONFIG_ENDPOINT_MESSAGES;
        if (!chatty && !(t == CONFIG_ENDPOINT_COMPLETIONS && !system)) {
            return config__fail(errbuf, errcap,
                                "--cache-bust: the %s endpoint has no %s to mark; use chat, "
                                "responses or messages%s",
                                config_endpoint_type_name(t), system ? "system prompt" : "prompt",
                                system ? "" : " (or completions)");
        }
    }
    if (cfg->per_chunk_usage && (cfg->endpoint_type != CONFIG_ENDPOINT_CHAT ||
                                 !cfg->streaming_requested || !cfg->use_server_token_count)) {
        return config__fail(errbuf, errcap,
                            "--per-chunk-usage reads the usage a chat stream reports on every "
                            "chunk: it needs --endpoint-type chat, --streaming and "
                            "--use-server-token-count");
    }
    if (cfg->system_prompt != NULL && cfg->system_prompt_file != NULL) {
        return config__fail(errbuf, errcap,
                            "--system-prompt and --system-prompt-file both set the system "
                            "prompt; give one of them");
    }
    if ((cfg->system_prompt != NULL || cfg->system_prompt_file != NULL) &&
        cfg->shared_system_prompt_length > 0) {
        return config__fail(errbuf, errcap,
                            "%s and --shared-system-prompt-length both set the system prompt; "
                            "give one of them",
                            cfg->system_prompt != NULL ? "--system-prompt"
                                                       : "--system-prompt-file");
    }
    if (cfg->prefill_concurrency > 0 && !cfg->streaming) {
        return config__fail(errbuf, errcap,
                            "--prefill-concurrency needs --streaming: without a stream there "
                            "is no first token to wait for");
    }
    if (cfg->prefill_concurrency > 0 && cfg->concurrency > 0 &&
        cfg->prefill_concurrency > cfg->concurrency) {
        return config__fail(errbuf, errcap,
                            "--prefill-concurrency (%lld) cannot exceed --concurrency (%lld); "
                            "lower it",
                            (long long)cfg->prefill_concurrency, (long long)cfg->concurrency);
    }
    /* AIPerf: a smoothness given without a pattern means gamma. */
    if (cfg->arrival_smoothness_set && !cfg->arrival_pattern_set) {
        cfg->arrival_pattern = CONFIG_ARRIVAL_GAMMA;
    }
    if (cfg->arrival_smoothness_set && cfg->arrival_pattern != CONFIG_ARRIVAL_GAMMA) {
        return config__fail(errbuf, errcap,
                            "--arrival-smoothness applies only to --arrival-pattern gamma; drop "
                            "one of the two");
    }
    if (cfg->benchmark_grace_period_set && cfg->benchmark_duration_seconds == 0.0) {
        return config__fail(errbuf, errcap,
                            "--benchmark-grace-period only applies together with "
                            "--benchmark-duration (e.g. --benchmark-duration 60 "
                            "--benchmark-grace-period 10)");
    }
    if (cfg->dataset_sampling_strategy != NULL && cfg->fixed_schedule) {
        return config__fail(errbuf, errcap,
                            "--dataset-sampling-strategy cannot be combined with "
                            "--fixed-schedule, which replays the file in timestamp order");
    }
    int rc = check_dataset_extras(cfg, errbuf, errcap);
    rc = rc != 0 ? rc : check_realtime(cfg, errbuf, errcap);
    rc = rc != 0 ? rc : check_network_latency(cfg, errbuf, errcap);
    rc = rc != 0 ? rc : check_server_metrics(cfg, errbuf, errcap);
    rc = rc != 0 ? rc : check_gpu_telemetry(cfg, errbuf, errcap);
    rc = rc != 0 ? rc : check_connection_header(cfg, errbuf, errcap);
    rc = rc != 0 ? rc : check_session_header(cfg, errbuf, errcap);
    rc = rc != 0 ? rc : config__check_aws(cfg, errbuf, errcap);
    rc = rc != 0
             ? rc
             : check_hook_path("--reset-kv-cache-path", cfg->reset_kv_cache_path, errbuf, errcap);
    rc = rc != 0 ? rc
                 : check_hook_path("--server-profiler-start-path", cfg->server_profiler_start_path,
                                   errbuf, errcap);
    rc = rc != 0 ? rc
                 : check_hook_path("--server-profiler-stop-path", cfg->server_profiler_stop_path,
                                   errbuf, errcap);
    rc = rc != 0 ? rc : config__check_media(cfg, errbuf, errcap);
    rc = rc != 0 ? rc : config__check_video(cfg, errbuf, errcap);
    if (rc == 0) {
        rc = check_conversations(cfg, errbuf, errcap);
    }
    rc = rc != 0 ? rc : config__check_times(cfg, errbuf, errcap);
    rc = rc != 0 ? rc : config__check_context(cfg, errbuf, errcap);
    rc = rc != 0 ? rc : config__check_multi_run(cfg, errbuf, errcap);
    return rc != 0 ? rc : check_urls(cfg, errbuf, errcap);
}

static bool wants_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            return true;
        }
    }
    return false;
}

static int check_argv(int argc, char **argv, char *errbuf, size_t errcap)
{
    if (argc < 0 || (argc > 0 && argv == NULL)) {
        return config__fail(errbuf, errcap, "internal error: bad argument vector");
    }
    if (argc > CONFIG_ARGS_MAX) {
        return config__fail(errbuf, errcap, "too many arguments (%d; the limit is %d)", argc,
                            CONFIG_ARGS_MAX);
    }
    for (int i = 0; i < argc; i++) {
        if (argv[i] == NULL) {
            return config__fail(errbuf, errcap, "internal error: argument %d is NULL", i + 1);
        }
        if (strnlen(argv[i], CONFIG_ARG_BYTES_MAX + 1) > CONFIG_ARG_BYTES_MAX) {
            return config__fail(errbuf, errcap, "argument %d is longer than %d bytes", i + 1,
                                CONFIG_ARG_BYTES_MAX);
        }
    }
    return 0;
}

/* cli_flags marks the flags of argv in given, and finds the last -f/--config value. */
static int cli_flags(int argc, char **argv, uint64_t *given, const char **out_config, char *errbuf,
                     size_t errcap)
{
    size_t count = 0;
    const struct config__flag *base = config__flags(&count);
    struct config__occurrence occ;
    int pos = 0;
    int rc;
    while ((rc = config__next_occurrence(argc, argv, &pos, &occ, errbuf, errcap)) == 1) {
        size_t index = (size_t)(occ.flag - base);
        given[index / 64] |= UINT64_C(1) << (index % 64);
        if (occ.flag->offset == offsetof(struct profile_config, config_file)) {
            *out_config = occ.inline_value != NULL ? occ.inline_value : argv[occ.value_first];
        }
    }
    return rc;
}

/* parse_layers fills out from file (may be NULL), then argv on top, then checks the whole. */
static int parse_layers(const struct config_file *file, size_t variation, int argc, char **argv,
                        const uint64_t *cli_given, struct profile_config *out, char *errbuf,
                        size_t errcap)
{
    int rc = file != NULL ? config__store_file(out, file, variation, cli_given, errbuf, errcap) : 0;
    struct config__occurrence occ;
    int pos = 0;
    while (rc == 0 && (rc = config__next_occurrence(argc, argv, &pos, &occ, errbuf, errcap)) == 1) {
        rc = store_occurrence(out, argv, &occ, errbuf, errcap);
    }
    if (rc == 0) {
        rc = config__finalize(out, errbuf, errcap);
    }
    if (rc == 0) {
        rc = config__check_sweep_cells(out, errbuf, errcap);
    }
    if (rc == 0) {
        out->cli_command = config__build_cli_command(argc, argv);
        rc = out->cli_command != NULL ? 0 : -ENOMEM;
    }
    if (rc == -ENOMEM) {
        config__fail(errbuf, errcap, "out of memory while parsing the command line");
    }
    if (rc != 0) {
        config_free(out);
    }
    return rc;
}

/* start_parse clears errbuf, fills defaults and checks argv; 1 = help was asked. */
static int start_parse(int argc, char **argv, struct profile_config *out, char *errbuf,
                       size_t errcap)
{
    if (errbuf != NULL && errcap > 0) {
        errbuf[0] = '\0';
    }
    if (out == NULL) {
        return config__fail(errbuf, errcap, "internal error: no output config");
    }
    init_defaults(out);
    int rc = check_argv(argc, argv, errbuf, errcap);
    if (rc == 0 && wants_help(argc, argv)) {
        return CONFIG_PARSE_HELP;
    }
    return rc;
}

/* parse_with parses argv over file (NULL: the file argv names with -f, if any) for
 * variation. */
static int parse_with(const struct config_file *file, size_t variation, int argc, char **argv,
                      struct profile_config *out, char *errbuf, size_t errcap)
{
    int rc = start_parse(argc, argv, out, errbuf, errcap);
    if (rc != 0) {
        return rc;
    }
    uint64_t cli_given[CONFIG_FLAGS_MAX / 64] = {0};
    const char *path = NULL;
    rc = cli_flags(argc, argv, cli_given, &path, errbuf, errcap);
    struct config_file *named = NULL;
    if (rc == 0 && file == NULL && path != NULL) {
        /* ${VAR} in the file reads this process's environment, as AIPerf's loader does. */
        rc = config_file_load(path, environ, &named, errbuf, errcap);
        file = named;
    }
    if (rc == 0 && file != NULL && variation != CONFIG_FILE_WHOLE_SWEEP &&
        variation >= config_file_variation_count(file)) {
        rc = config__fail(errbuf, errcap, "internal error: no variation %zu", variation);
    }
    if (rc == 0) {
        rc = parse_layers(file, variation, argc, argv, cli_given, out, errbuf, errcap);
    }
    config_file_free(named);
    return rc;
}

int config_parse_profile(int argc, char **argv, struct profile_config *out, char *errbuf,
                         size_t errcap)
{
    return parse_with(NULL, CONFIG_FILE_WHOLE_SWEEP, argc, argv, out, errbuf, errcap);
}

int config_parse_file(const struct config_file *file, size_t variation, int argc, char **argv,
                      struct profile_config *out, char *errbuf, size_t errcap)
{
    if (file == NULL) {
        if (out != NULL) {
            memset(out, 0, sizeof(*out));
        }
        return config__fail(errbuf, errcap, "internal error: no config file");
    }
    return parse_with(file, variation, argc, argv, out, errbuf, errcap);
}
