/*
 * input_config.c - the summary JSON's input_config: AIPerf's BenchmarkConfig,
 * config schema 2.0 (spec §1.5), as `aiperf profile` builds it from the same
 * command line.
 *
 * AIPerf dumps the config with exclude_unset, so a key appears only when its
 * flag was given (config_flag_given), when the CLI converter always sets it
 * (models, endpoint.urls, the dataset's name and type, the phases, the
 * artifacts' plot switches, the telemetry sections), or when a converter
 * default fills it (10 requests without a stop condition, the grace period of
 * a duration phase). Keys follow the models' field order. Secrets never
 * appear: the API key and credential-bearing header values read <redacted>,
 * URLs lose their userinfo and credential query parameters.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/export.h"
#include "payload/payload.h"

/* FIXED_SCHEDULE_LINES_MAX bounds the lines counted for a fixed schedule's
 * default request count. */
#define FIXED_SCHEDULE_LINES_MAX 100000000L

/* FIRST_RECORD_BYTES_MAX bounds the first record read for a trace's timestamps;
 * a longer one is not read as timed. */
#define FIRST_RECORD_BYTES_MAX 65536

static bool given(const struct profile_config *c, const char *flag)
{
    return config_flag_given(c, flag);
}

/* real is a JSON number, or null for a non-finite value, as AIPerf's
 * scrub_non_finite writes an infinite grace period. */
static json_t *real(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

static void set_real_if(json_t *o, const char *key, bool cond, double v)
{
    if (cond) {
        json_object_set_new(o, key, real(v));
    }
}

static void set_int_if(json_t *o, const char *key, bool cond, int64_t v)
{
    if (cond) {
        json_object_set_new(o, key, json_integer((json_int_t)v));
    }
}

static void set_str_if(json_t *o, const char *key, bool cond, const char *v)
{
    if (cond && v != NULL) {
        json_object_set_new(o, key, json_string(v));
    }
}

static void set_bool_if(json_t *o, const char *key, bool cond, bool v)
{
    if (cond) {
        json_object_set_new(o, key, json_boolean(v));
    }
}

/* set_choice_if writes the spelling of a choice flag's value when it was given. */
static void set_choice_if(json_t *o, const char *key, const struct profile_config *c,
                          const char *flag, int value)
{
    set_str_if(o, key, given(c, flag), config_choice_name(flag, value));
}

/* set_nonempty moves `value` into o[key] when it has members; frees it otherwise. */
static void set_nonempty(json_t *o, const char *key, json_t *value)
{
    if (json_object_size(value) > 0) {
        json_object_set_new(o, key, value);
    } else {
        json_decref(value);
    }
}

/* pair_json is {mean?, stddev?} for the flags of a pair that were given,
 * integers when `integers`. */
static json_t *pair_json(const struct profile_config *c, bool integers, const char *mean_flag,
                         double mean, const char *stddev_flag, double stddev)
{
    json_t *o = json_object();
    const char *keys[] = {"mean", "stddev"};
    const char *flags[] = {mean_flag, stddev_flag};
    const double values[] = {mean, stddev};
    for (size_t i = 0; i < 2; i++) {
        if (given(c, flags[i])) {
            json_object_set_new(o, keys[i],
                                integers ? json_integer((json_int_t)values[i]) : real(values[i]));
        }
    }
    return o;
}

static json_t *models_json(const struct profile_config *c)
{
    json_t *models = json_object();
    set_choice_if(models, "strategy", c, "--model-selection-strategy", (int)c->model_selection);
    json_t *items = json_array();
    for (size_t i = 0; i < c->models.count; i++) {
        json_array_append_new(items, json_pack("{s:s}", "name", c->models.items[i]));
    }
    json_object_set_new(models, "items", items);
    return models;
}

/* urls_json is every --url as AIPerf keeps it: http:// prefixed when the
 * scheme is missing, credentials redacted. */
static json_t *urls_json(const struct profile_config *c)
{
    json_t *urls = json_array();
    for (size_t i = 0; i < c->urls.count; i++) {
        const char *u = c->urls.items[i];
        size_t cap = strlen(u) + 16 + 64 * sizeof(CONFIG_REDACTED);
        char *prefixed = malloc(cap);
        char *redacted = malloc(cap);
        if (prefixed != NULL && redacted != NULL) {
            snprintf(prefixed, cap, "%s%s", strstr(u, "://") != NULL ? "" : "http://", u);
            if (!config_redact_url(prefixed, redacted, cap)) {
                snprintf(redacted, cap, "%s", CONFIG_REDACTED);
            }
            json_array_append_new(urls, json_string(redacted));
        }
        free(prefixed);
        free(redacted);
    }
    return urls;
}

/* headers_json keeps each -H value but those config_header_is_sensitive
 * names, which read <redacted> as AIPerf's redact_headers writes them. */
static json_t *headers_json(const struct profile_config *c)
{
    json_t *headers = json_object();
    for (size_t i = 0; i < c->header_count; i++) {
        const struct config_header *h = &c->headers[i];
        bool secret = config_header_is_sensitive(h->name, strlen(h->name));
        json_object_set_new(headers, h->name, json_string(secret ? CONFIG_REDACTED : h->value));
    }
    return headers;
}

/* extra_json is --extra-inputs as the one object AIPerf builds of them. */
static json_t *extra_json(const struct profile_config *c)
{
    char *text = NULL;
    char errbuf[256];
    if (payload_extra_inputs_parse((const char *const *)c->extra_inputs.items,
                                   c->extra_inputs.count, &text, errbuf, sizeof(errbuf)) != 0) {
        return NULL; /* the run itself refused them */
    }
    json_t *extra = json_loads(text, JSON_DECODE_ANY, NULL);
    free(text);
    return extra;
}

static json_t *endpoint_json(const struct profile_config *c)
{
    json_t *e = json_object();
    json_object_set_new(e, "urls", urls_json(c));
    set_str_if(e, "url_strategy", given(c, "--url-strategy"),
               config_choice_name("--url-strategy", 0));
    set_choice_if(e, "type", c, "--endpoint-type", (int)c->endpoint_type);
    set_str_if(e, "path", given(c, "--custom-endpoint"), c->custom_endpoint);
    set_str_if(e, "api_key", c->api_key != NULL, CONFIG_REDACTED);
    set_real_if(e, "timeout", given(c, "--request-timeout-seconds"), c->request_timeout_seconds);
    set_bool_if(e, "streaming", given(c, "--streaming"), c->streaming_requested);
    set_str_if(e, "transport", given(c, "--transport"), config_choice_name("--transport", 0));
    set_choice_if(e, "connection_reuse", c, "--connection-reuse-strategy",
                  (int)c->connection_reuse);
    set_bool_if(e, "use_legacy_max_tokens", given(c, "--use-legacy-max-tokens"),
                c->use_legacy_max_tokens);
    set_bool_if(e, "use_server_token_count", given(c, "--use-server-token-count"),
                c->use_server_token_count);
    set_bool_if(e, "download_video_content", given(c, "--download-video-content"),
                c->download_video_content);
    if (c->header_count > 0) {
        json_object_set_new(e, "headers", headers_json(c));
    }
    if (c->extra_inputs.count > 0) {
        json_t *extra = extra_json(c);
        if (extra != NULL) {
            json_object_set_new(e, "extra", extra);
        }
    }
    set_str_if(e, "session_header", given(c, "--session-header"), c->session_header);
    /* The AWS settings, never the credentials (they are not flags). */
    set_choice_if(e, "auth_type", c, "--auth-type", (int)c->auth_type);
    set_str_if(e, "aws_region", given(c, "--aws-region"), c->aws_region);
    set_str_if(e, "aws_service", given(c, "--aws-service"), c->aws_service);
    set_str_if(e, "aws_profile", given(c, "--aws-profile"), c->aws_profile);
    set_str_if(e, "sagemaker_endpoint_name", given(c, "--sagemaker-endpoint-name"),
               c->sagemaker_endpoint_name);
    set_str_if(e, "sagemaker_target_model", given(c, "--sagemaker-target-model"),
               c->sagemaker_target_model);
    set_str_if(e, "sagemaker_target_variant", given(c, "--sagemaker-target-variant"),
               c->sagemaker_target_variant);
    set_str_if(e, "sagemaker_inference_component_name",
               given(c, "--sagemaker-inference-component-name"), c->sagemaker_inference_component);
    set_real_if(e, "wait_for_model_timeout", given(c, "--wait-for-model-timeout"),
                c->wait_for_model_seconds);
    set_real_if(e, "wait_for_model_interval", given(c, "--wait-for-model-interval"),
                c->wait_for_model_interval_seconds);
    set_choice_if(e, "wait_for_model_mode", c, "--wait-for-model-mode",
                  (int)c->wait_for_model_mode);
    return e;
}

static json_t *prompts_json(const struct profile_config *c)
{
    json_t *p = json_object();
    /* isl.mean is always there: the converter's stimulus default (550). */
    json_t *isl = json_pack("{s:I}", "mean", (json_int_t)c->isl_tokens_mean);
    set_real_if(isl, "stddev", given(c, "--isl-stddev"), c->isl_tokens_stddev);
    json_object_set_new(p, "isl", isl);
    json_t *osl = json_object();
    set_int_if(osl, "mean", given(c, "--osl"), c->osl_tokens_mean);
    set_real_if(osl, "stddev", given(c, "--osl-stddev"), c->osl_tokens_stddev);
    set_nonempty(p, "osl", osl);
    set_int_if(p, "block_size", given(c, "--isl-block-size") && c->isl_block_size > 0,
               c->isl_block_size);
    set_int_if(p, "batch_size", given(c, "--prompt-batch-size"), c->prompt_batch_size);
    if (given(c, "--cache-bust")) {
        json_object_set_new(
            p, "cache_bust",
            json_pack("{s:s?}", "target", config_choice_name("--cache-bust", (int)c->cache_bust)));
    }
    return p;
}

static json_t *prefix_prompts_json(const struct profile_config *c)
{
    json_t *p = json_object();
    set_int_if(p, "pool_size", given(c, "--num-prefix-prompts"), c->num_prefix_prompts);
    set_int_if(p, "length", given(c, "--prefix-prompt-length"), c->prefix_prompt_length);
    set_int_if(p, "shared_system_length", given(c, "--shared-system-prompt-length"),
               c->shared_system_prompt_length);
    set_int_if(p, "user_context_length", given(c, "--user-context-prompt-length"),
               c->user_context_prompt_length);
    return p;
}

/* set_turns writes turns, turn_delay and turn_delay_ratio: a pair appears
 * whole (the other half at its default) when either of its flags was given. */
static void set_turns(json_t *d, const struct profile_config *c)
{
    if (given(c, "--conversation-turn-mean") || given(c, "--conversation-turn-stddev")) {
        int64_t mean = c->conversation_turn_mean > 0 ? c->conversation_turn_mean : 1;
        json_object_set_new(d, "turns",
                            json_pack("{s:I, s:I}", "mean", (json_int_t)mean, "stddev",
                                      (json_int_t)c->conversation_turn_stddev));
    }
    if (given(c, "--conversation-turn-delay-mean") ||
        given(c, "--conversation-turn-delay-stddev")) {
        json_object_set_new(d, "turn_delay",
                            json_pack("{s:f, s:f}", "mean", c->conversation_turn_delay_mean_ms,
                                      "stddev", c->conversation_turn_delay_stddev_ms));
    }
    set_real_if(d, "turn_delay_ratio", given(c, "--conversation-turn-delay-ratio"),
                c->conversation_turn_delay_ratio);
}

static json_t *images_json(const struct profile_config *c)
{
    json_t *o = json_object();
    set_nonempty(o, "height",
                 pair_json(c, false, "--image-height-mean", c->image_height_mean_px,
                           "--image-height-stddev", c->image_height_stddev_px));
    set_nonempty(o, "width",
                 pair_json(c, false, "--image-width-mean", c->image_width_mean_px,
                           "--image-width-stddev", c->image_width_stddev_px));
    /* AIPerf fills batch_size 1 once any image shape is given. */
    set_int_if(o, "batch_size", json_object_size(o) > 0 || given(c, "--image-batch-size"),
               c->image_batch_size);
    set_choice_if(o, "format", c, "--image-format", (int)c->image_format);
    set_str_if(o, "source", given(c, "--image-source"), c->image_source);
    return o;
}

static json_t *audio_json(const struct profile_config *c)
{
    json_t *o = json_object();
    set_nonempty(o, "length",
                 pair_json(c, false, "--audio-length-mean", c->audio_length_mean_seconds,
                           "--audio-length-stddev", c->audio_length_stddev_seconds));
    set_int_if(o, "batch_size", json_object_size(o) > 0 || given(c, "--audio-batch-size"),
               c->audio_batch_size);
    set_choice_if(o, "format", c, "--audio-format", (int)c->audio_format);
    if (given(c, "--audio-depths")) {
        json_t *depths = json_array();
        for (size_t i = 0; i < c->audio_depths.count; i++) {
            json_array_append_new(depths, json_integer(strtol(c->audio_depths.items[i], NULL, 10)));
        }
        json_object_set_new(o, "depths", depths);
    }
    if (given(c, "--audio-sample-rates")) {
        json_t *rates = json_array();
        for (size_t i = 0; i < c->audio_sample_rates.count; i++) {
            double khz = strtod(c->audio_sample_rates.items[i], NULL);
            json_array_append_new(rates, json_real(khz > 96.0 ? khz / 1000.0 : khz));
        }
        json_object_set_new(o, "sample_rates", rates);
    }
    set_int_if(o, "channels", given(c, "--audio-num-channels"), c->audio_num_channels);
    return o;
}

static json_t *rankings_json(const struct profile_config *c)
{
    json_t *o = json_object();
    set_nonempty(o, "passages",
                 pair_json(c, true, "--rankings-passages-mean", c->rankings_passages_mean,
                           "--rankings-passages-stddev", c->rankings_passages_stddev));
    set_nonempty(
        o, "passage_tokens",
        pair_json(c, true, "--rankings-passages-prompt-token-mean", c->rankings_passage_tokens_mean,
                  "--rankings-passages-prompt-token-stddev", c->rankings_passage_tokens_stddev));
    set_nonempty(o, "query_tokens",
                 pair_json(c, true, "--rankings-query-prompt-token-mean",
                           c->rankings_query_tokens_mean, "--rankings-query-prompt-token-stddev",
                           c->rankings_query_tokens_stddev));
    return o;
}

/* entries is the converter's dataset size: --num-dataset-entries, else
 * --conversation-num, else --request-count; -1 when none was given. */
static int64_t entries(const struct profile_config *c)
{
    if (given(c, "--num-dataset-entries")) {
        return c->num_dataset_entries;
    }
    if (given(c, "--conversation-num")) {
        return c->conversation_num;
    }
    return given(c, "--request-count") ? c->request_count : -1;
}

/* file_fields are a file or public dataset's own: the synthetic subtables do
 * not apply, --osl and --isl-block-size become per-record fallbacks. */
static void file_fields(json_t *d, const struct profile_config *c)
{
    set_str_if(d, "path", c->input_file != NULL, c->input_file);
    set_str_if(d, "dataset", c->public_dataset != NULL, c->public_dataset);
    set_str_if(d, "format", c->custom_dataset_type != NULL, c->custom_dataset_type);
    int64_t n = entries(c);
    set_int_if(d, "entries", n >= 0, n);
    set_str_if(d, "sampling", c->dataset_sampling_strategy != NULL, c->dataset_sampling_strategy);
    set_int_if(d, "block_size", c->input_file != NULL && given(c, "--isl-block-size"),
               c->isl_block_size);
    if (given(c, "--osl")) {
        json_t *osl = json_pack("{s:I}", "mean", (json_int_t)c->osl_tokens_mean);
        set_real_if(osl, "stddev", given(c, "--osl-stddev"), c->osl_tokens_stddev);
        json_object_set_new(d, "osl", osl);
    }
    set_real_if(d, "inter_turn_delay_cap_seconds", given(c, "--inter-turn-delay-cap-seconds"),
                c->inter_turn_delay_cap_seconds);
    set_bool_if(d, "ignore_trace_delays", given(c, "--ignore-trace-delays"),
                c->ignore_trace_delays);
    set_real_if(d, "max_idle_gap_cap_seconds", given(c, "--max-idle-gap-cap-seconds"),
                c->max_idle_gap_cap_seconds);
    set_real_if(d, "replay_speedup", given(c, "--replay-speedup"), c->replay_speedup);
}

static json_t *dataset_json(const struct profile_config *c)
{
    bool public = c->public_dataset != NULL;
    const char *type = public ? "public" : c->input_file != NULL ? "file" : "synthetic";
    json_t *d = json_pack("{s:s, s:s}", "name", "main", "type", type);
    if (public || c->input_file != NULL) {
        file_fields(d, c);
        return d;
    }
    int64_t n = entries(c);
    set_int_if(d, "entries", n >= 0, n);
    set_str_if(d, "sampling", c->dataset_sampling_strategy != NULL, c->dataset_sampling_strategy);
    json_object_set_new(d, "prompts", prompts_json(c));
    set_nonempty(d, "prefix_prompts", prefix_prompts_json(c));
    set_turns(d, c);
    set_nonempty(d, "images", images_json(c));
    set_nonempty(d, "audio", audio_json(c));
    set_nonempty(d, "rankings", rankings_json(c));
    return d;
}

/* dataset_lines counts the non-blank lines of a fixed schedule's input file,
 * AIPerf's default request count for it; -1 when it cannot be read (a
 * directory, say). */
static int64_t dataset_lines(const char *path)
{
    FILE *f = path != NULL ? fopen(path, "r") : NULL;
    if (f == NULL) {
        return -1;
    }
    int64_t lines = 0;
    bool blank = true;
    int ch;
    while ((ch = getc(f)) != EOF && lines < FIXED_SCHEDULE_LINES_MAX) {
        if (ch == '\n') {
            lines += blank ? 0 : 1;
            blank = true;
        } else if (ch != ' ' && ch != '\t' && ch != '\r') {
            blank = false;
        }
    }
    bool failed = ferror(f) != 0;
    fclose(f);
    return failed ? -1 : lines + (blank ? 0 : 1);
}

/* first_record_timed reports whether the first non-blank line of path is a
 * JSON object with a "timestamp", as AIPerf's trace auto-promotion checks. */
static bool first_record_timed(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return false;
    }
    char line[FIRST_RECORD_BYTES_MAX];
    bool timed = false;
    while (fgets(line, sizeof(line), f) != NULL) {
        if (line[strspn(line, " \t\r\n")] == '\0') {
            continue;
        }
        json_t *record = json_loads(line, 0, NULL);
        timed = json_object_get(record, "timestamp") != NULL;
        json_decref(record);
        break;
    }
    fclose(f);
    return timed;
}

/* fixed_schedule reports whether the profiling phase replays a schedule: with
 * --fixed-schedule, or a mooncake trace whose records carry timestamps (AIPerf
 * promotes it unless --no-fixed-schedule). */
static bool fixed_schedule(const struct profile_config *c)
{
    if (c->fixed_schedule) {
        return true;
    }
    return !c->no_fixed_schedule && c->input_file != NULL && c->custom_dataset_type != NULL &&
           strcmp(c->custom_dataset_type, "mooncake_trace") == 0 &&
           first_record_timed(c->input_file);
}

/* phase_type is the profiling phase's PhaseType, as AIPerf's converter picks it. */
static const char *phase_type(const struct profile_config *c)
{
    if (fixed_schedule(c)) {
        return "fixed_schedule";
    }
    if (c->user_centric_rate > 0) {
        return "user_centric";
    }
    if (c->request_rate_per_second > 0) {
        bool pattern = given(c, "--arrival-pattern");
        if ((!pattern && given(c, "--arrival-smoothness")) ||
            (pattern && c->arrival_pattern == CONFIG_ARRIVAL_GAMMA)) {
            return "gamma";
        }
        if (pattern && c->arrival_pattern == CONFIG_ARRIVAL_CONCURRENCY_BURST) {
            return "concurrency"; /* a closed loop, whatever the rate */
        }
        return pattern && c->arrival_pattern == CONFIG_ARRIVAL_CONSTANT ? "constant" : "poisson";
    }
    return "concurrency";
}

static void set_ramp_if(json_t *o, const char *key, bool cond, double seconds)
{
    if (cond) {
        json_object_set_new(o, key, json_pack("{s:o}", "duration", real(seconds)));
    }
}

static json_t *profiling_json(const struct profile_config *c)
{
    const char *type = phase_type(c);
    bool fixed = strcmp(type, "fixed_schedule") == 0;
    json_t *p =
        json_pack("{s:s, s:s, s:s}", "name", "profiling", "kind", "profiling", "type", type);
    bool requests = given(c, "--request-count");
    bool duration = given(c, "--benchmark-duration");
    bool sessions = given(c, "--conversation-num");
    int64_t count = c->request_count;
    if (!requests && fixed) {
        count = dataset_lines(c->input_file);
        requests = count >= 0;
    } else if (!requests && !duration && !sessions) {
        requests = true; /* the converter's bound for an unbounded run */
        count = 10;
    }
    set_int_if(p, "requests", requests, count);
    set_real_if(p, "duration", duration, c->benchmark_duration_seconds);
    set_int_if(p, "sessions", sessions, c->conversation_num);
    set_int_if(p, "concurrency", given(c, "--concurrency"), c->concurrency);
    set_int_if(p, "prefill_concurrency", given(c, "--prefill-concurrency"), c->prefill_concurrency);
    set_real_if(p, "grace_period", duration, c->benchmark_grace_period_seconds);
    set_ramp_if(p, "concurrency_ramp", given(c, "--concurrency-ramp-duration"),
                c->concurrency_ramp_seconds);
    set_ramp_if(p, "prefill_ramp", given(c, "--prefill-concurrency-ramp-duration"),
                c->prefill_concurrency_ramp_seconds);
    set_ramp_if(p, "rate_ramp", given(c, "--request-rate-ramp-duration"),
                c->request_rate_ramp_seconds);
    if (c->cancellation_rate_percent > 0) {
        json_t *cancel = json_pack("{s:f}", "rate", c->cancellation_rate_percent);
        set_real_if(cancel, "delay", given(c, "--request-cancellation-delay"),
                    c->cancellation_delay_seconds);
        json_object_set_new(p, "cancellation", cancel);
    }
    set_real_if(p, "rate", c->user_centric_rate > 0, c->user_centric_rate);
    set_real_if(p, "rate",
                c->user_centric_rate <= 0 && given(c, "--request-rate") &&
                    strcmp(type, "concurrency") != 0,
                c->request_rate_per_second);
    set_real_if(p, "smoothness", strcmp(type, "gamma") == 0 && given(c, "--arrival-smoothness"),
                c->arrival_smoothness);
    set_int_if(p, "users", given(c, "--num-users"), c->num_users);
    set_bool_if(p, "auto_offset", fixed && given(c, "--fixed-schedule-auto-offset"),
                c->fixed_schedule_auto_offset);
    set_int_if(p, "start_offset", fixed && c->fixed_schedule_start_offset_set,
               c->fixed_schedule_start_offset_ms);
    set_int_if(p, "end_offset", fixed && c->fixed_schedule_end_offset_set,
               c->fixed_schedule_end_offset_ms);
    set_real_if(p, "failed_request_threshold", given(c, "--failed-request-threshold"),
                c->failed_request_threshold);
    return p;
}

/* warmup_load is the warmup's type and load: its own flags, else the
 * profiling ones that were given, as AIPerf's build_warmup reads them. */
struct warmup_load {
    const char *type;
    bool concurrency;
    int64_t concurrency_value;
    bool rate;
    double rate_value;
    bool smoothness;
};

static struct warmup_load warmup_load(const struct profile_config *c)
{
    bool own_rate = given(c, "--warmup-request-rate");
    bool own_pattern = given(c, "--warmup-arrival-pattern");
    enum config_arrival_pattern pattern = own_pattern ? c->warmup_arrival_pattern
                                          : given(c, "--arrival-pattern") ? c->arrival_pattern
                                                                          : CONFIG_ARRIVAL_POISSON;
    bool own_concurrency = given(c, "--warmup-concurrency");
    struct warmup_load load = {
        .type = "concurrency",
        .concurrency = own_concurrency || given(c, "--concurrency"),
        .concurrency_value = own_concurrency ? c->warmup_concurrency : c->concurrency,
        .rate = own_rate || given(c, "--request-rate"),
        .rate_value = own_rate ? c->warmup_request_rate : c->request_rate_per_second,
    };
    /* concurrency_burst is a closed loop whatever the rate: a concurrency phase. */
    if (pattern == CONFIG_ARRIVAL_CONCURRENCY_BURST) {
        load.rate = false;
    }
    if (!load.rate) {
        /* A concurrency phase needs one: the converter's 1. */
        load.concurrency_value = load.concurrency ? load.concurrency_value : 1;
        load.concurrency = true;
        return load;
    }
    load.type = pattern == CONFIG_ARRIVAL_GAMMA      ? "gamma"
                : pattern == CONFIG_ARRIVAL_CONSTANT ? "constant"
                                                     : "poisson";
    load.smoothness = pattern == CONFIG_ARRIVAL_GAMMA && c->arrival_smoothness_set;
    return load;
}

/* warmup_ramps writes the warmup's ramps: its own flag, else the profiling one. */
static void warmup_ramps(json_t *w, const struct profile_config *c)
{
    static const char *const flags[][3] = {
        {"concurrency_ramp", "--warmup-concurrency-ramp-duration", "--concurrency-ramp-duration"},
        {"prefill_ramp", "--warmup-prefill-concurrency-ramp-duration",
         "--prefill-concurrency-ramp-duration"},
        {"rate_ramp", "--warmup-request-rate-ramp-duration", "--request-rate-ramp-duration"},
    };
    const double own[] = {c->warmup_concurrency_ramp_seconds,
                          c->warmup_prefill_concurrency_ramp_seconds,
                          c->warmup_request_rate_ramp_seconds};
    const double profiling[] = {c->concurrency_ramp_seconds, c->prefill_concurrency_ramp_seconds,
                                c->request_rate_ramp_seconds};
    for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
        bool mine = given(c, flags[i][1]);
        set_ramp_if(w, flags[i][0], mine || given(c, flags[i][2]), mine ? own[i] : profiling[i]);
    }
}

/* warmup_json is the warmup phase, or NULL when neither --warmup-request-count
 * nor --warmup-duration was given. */
static json_t *warmup_json(const struct profile_config *c)
{
    bool requests = given(c, "--warmup-request-count");
    bool duration = !requests && given(c, "--warmup-duration");
    if (!requests && !duration) {
        return NULL;
    }
    struct warmup_load load = warmup_load(c);
    json_t *w = json_pack("{s:s, s:s, s:s, s:b}", "name", "warmup", "kind", "warmup", "type",
                          load.type, "exclude_from_results", 1);
    set_int_if(w, "requests", requests, c->warmup_request_count);
    set_real_if(w, "duration", duration, c->warmup_duration_seconds);
    set_int_if(w, "concurrency", load.concurrency, load.concurrency_value);
    bool own_prefill = given(c, "--warmup-prefill-concurrency");
    set_int_if(w, "prefill_concurrency", own_prefill || given(c, "--prefill-concurrency"),
               own_prefill ? c->warmup_prefill_concurrency : c->prefill_concurrency);
    set_real_if(w, "grace_period", given(c, "--warmup-grace-period"),
                c->warmup_grace_period_seconds);
    warmup_ramps(w, c);
    set_real_if(w, "rate", load.rate, load.rate_value);
    set_real_if(w, "smoothness", load.smoothness, c->arrival_smoothness);
    return w;
}

static json_t *phases_json(const struct profile_config *c)
{
    json_t *phases = json_array();
    json_t *warmup = warmup_json(c);
    if (warmup != NULL) {
        json_array_append_new(phases, warmup);
    }
    json_array_append_new(phases, profiling_json(c));
    return phases;
}

static json_t *artifacts_json(const struct profile_config *c, const char *artifact_dir)
{
    json_t *a = json_object();
    set_str_if(a, "dir", artifact_dir != NULL, artifact_dir);
    set_str_if(a, "prefix", c->profile_export_prefix != NULL && c->profile_export_prefix[0] != '\0',
               c->profile_export_prefix);
    bool level = given(c, "--export-level");
    if (c->export_level != CONFIG_EXPORT_SUMMARY) {
        json_object_set_new(a, "records", json_pack("[s]", "jsonl"));
    } else if (level) {
        json_object_set_new(a, "records", json_false());
    }
    set_bool_if(a, "raw", level || c->export_level == CONFIG_EXPORT_RAW,
                c->export_level == CONFIG_EXPORT_RAW);
    set_real_if(a, "slice_duration", given(c, "--slice-duration"), c->slice_duration_seconds);
    json_object_set_new(a, "auto_plot", json_boolean(c->auto_plot && !c->no_auto_plot));
    json_object_set_new(a, "plot_required", json_boolean(c->plot_required));
    set_bool_if(a, "export_outputs_json", given(c, "--export-outputs-json"),
                c->export_outputs_json);
    return a;
}

/* runtime_json is AIPerf's build_logging_runtime half for the runtime: the
 * flags given, and the UI it derives (simple with -v/-vv, none when stdout is
 * not a terminal and no UI was asked for). */
static json_t *runtime_json(const struct profile_config *c)
{
    json_t *r = json_object();
    const char *ui =
        given(c, "--ui-type") ? config_choice_name("--ui-type", (int)c->ui_type) : NULL;
    bool tty = isatty(STDOUT_FILENO) == 1;
    if (c->verbose || c->extra_verbose) {
        ui = "simple";
    } else if (ui == NULL && !tty) {
        ui = "none";
    }
    if (ui != NULL && strcmp(ui, "dashboard") == 0 && !tty) {
        ui = "simple";
    }
    set_str_if(r, "ui", ui != NULL, ui);
    set_int_if(r, "workers", given(c, "--workers-max"), c->workers_max);
    set_int_if(r, "api_port", given(c, "--api-port"), c->api_port);
    set_str_if(r, "api_host", given(c, "--api-host"), c->api_host);
    set_real_if(r, "stats_interval", given(c, "--stats-interval"), c->stats_interval_seconds);
    return r;
}

static json_t *logging_json(const struct profile_config *c)
{
    json_t *l = json_object();
    bool level = given(c, "--log-level") || c->verbose || c->extra_verbose;
    set_str_if(l, "level", level, config_choice_name("--log-level", (int)c->log_level));
    return l;
}

static json_t *tokenizer_json(const struct profile_config *c)
{
    json_t *t = json_object();
    set_str_if(t, "name", given(c, "--tokenizer"), c->tokenizer);
    set_str_if(t, "revision", given(c, "--tokenizer-revision"), c->tokenizer_revision);
    return t;
}

/* slos_json is --goodput as AIPerf's dict of tag -> threshold (display units). */
static json_t *slos_json(const struct profile_config *c)
{
    json_t *slos = json_object();
    const char *p = c->goodput != NULL ? c->goodput : "";
    static const char seps[] = " \t\n,";
    while (*(p += strspn(p, seps)) != '\0') {
        size_t len = strcspn(p, seps);
        const char *colon = memchr(p, ':', len);
        if (colon != NULL && (size_t)(colon - p) < 128) {
            char tag[128];
            memcpy(tag, p, (size_t)(colon - p));
            tag[colon - p] = '\0';
            json_object_set_new(slos, tag, real(strtod(colon + 1, NULL)));
        }
        p += len;
    }
    return slos;
}

/* telemetry_sections are what AIPerf's converter writes for the sections a
 * CLI run always sets, when none of their flags is given. */
static void telemetry_sections(json_t *root, const struct profile_config *c)
{
    bool no_gpu = given(c, "--no-gpu-telemetry");
    json_object_set_new(root, "gpu_telemetry", json_pack("{s:b}", "enabled", !no_gpu));
    json_t *server = json_pack("{s:b}", "enabled", !given(c, "--no-server-metrics"));
    if (!given(c, "--no-server-metrics")) {
        json_t *urls = json_array();
        for (size_t i = 0; i < c->server_metrics.count; i++) {
            char redacted[1024];
            const char *url = c->server_metrics.items[i];
            bool ok = config_redact_url(url, redacted, sizeof(redacted));
            json_array_append_new(urls, json_string(ok ? redacted : CONFIG_REDACTED));
        }
        json_object_set_new(server, "urls", urls);
    }
    json_object_set_new(root, "server_metrics", server);
    json_t *latency = json_pack("{s:b}", "enabled",
                                given(c, "--network-latency-mean") || c->network_latency_automatic);
    if (given(c, "--network-latency-ping-interval")) {
        json_object_set_new(latency, "ping_interval",
                            json_real(c->network_latency_ping_interval_s));
    }
    if (given(c, "--network-latency-mean")) {
        json_object_set_new(latency, "mean_ms", json_real(c->network_latency_mean_ms));
    }
    json_object_set_new(root, "network_latency", latency);
    json_object_set_new(root, "otel", json_object());
    json_object_set_new(root, "mlflow", json_object());
    json_object_set_new(root, "wandb", json_object());
}

json_t *export_input_config(const struct profile_config *c, const char *artifact_dir)
{
    json_t *root = json_object();
    if (root == NULL) {
        return NULL;
    }
    json_object_set_new(root, "models", models_json(c));
    json_object_set_new(root, "endpoint", endpoint_json(c));
    json_object_set_new(root, "datasets", json_pack("[o]", dataset_json(c)));
    json_object_set_new(root, "phases", phases_json(c));
    json_object_set_new(root, "artifacts", artifacts_json(c, artifact_dir));
    telemetry_sections(root, c);
    set_nonempty(root, "runtime", runtime_json(c));
    set_nonempty(root, "logging", logging_json(c));
    set_nonempty(root, "tokenizer", tokenizer_json(c));
    set_nonempty(root, "slos", slos_json(c));
    return root;
}
