/*
 * export.c - artifact files written during and after a run: the per-request
 * records (`profile_export.jsonl`, one line per request in AIPerf's shape;
 * `profile_export_raw.jsonl` with every response chunk at --export-level
 * raw), the exact payloads sent (`inputs.json`), and at the end the summary
 * files, the log and the report. Records are written on the coordinator's
 * thread after the shard has finished with them, with the writer of jsonw.h
 * rather than a DOM (one line per request adds up), into files written in
 * whole blocks around the page cache (outfile.h).
 */
#include "export/export.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define WRITER_BYTES (1u << 20)

static int join(char *out, const char *dir, const char *name, const char *suffix)
{
    int n = snprintf(out, EXPORT_PATH_BYTES, "%s/%s%s", dir, name, suffix);
    return n >= 0 && n < EXPORT_PATH_BYTES ? 0 : -ENAMETOOLONG;
}

int export_paths_init(struct export_paths *out, const char *dir, const char *prefix)
{
    static const char *const known[] = {".jsonl", ".json", ".csv"};
    char base[EXPORT_PATH_BYTES];
    snprintf(base, sizeof(base), "%s", prefix != NULL ? prefix : "");
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        size_t len = strlen(base);
        size_t suffix = strlen(known[i]);
        if (len > suffix && strcmp(base + len - suffix, known[i]) == 0) {
            base[len - suffix] = '\0';
            break;
        }
    }
    bool custom = base[0] != '\0';
    int ret = join(out->records, dir, custom ? base : "profile_export", ".jsonl");
    ret |= join(out->raw, dir, custom ? base : "profile_export", "_raw.jsonl");
    ret |= join(out->outputs, dir, "outputs", ".json");
    ret |= join(out->json, dir, custom ? base : "profile_export_aiperf", ".json");
    ret |= join(out->csv, dir, custom ? base : "profile_export_aiperf", ".csv");
    ret |= join(out->console, dir, custom ? base : "profile_export", "_console.txt");
    ret |= join(out->log_dir, dir, "logs", "");
    ret |= join(out->log, dir, "logs/aiperf.log", "");
    ret |= join(out->timeslices_json, dir, custom ? base : "profile_export_aiperf",
                "_timeslices.json");
    ret |=
        join(out->timeslices_csv, dir, custom ? base : "profile_export_aiperf", "_timeslices.csv");
    ret |= join(out->hlog_base, dir, custom ? base : "profile_export", "");
    return ret != 0 ? -ENAMETOOLONG : 0;
}

int export_run_open(struct export_run *exp, const char *dir, const struct profile_config *cfg)
{
    exp->level = cfg->export_level;
    exp->slice_ns = (int64_t)(cfg->slice_duration_seconds * 1e9);
    if (cfg->goodput != NULL) {
        char errbuf[256];
        /* metrics_results_init already reported a bad --goodput. */
        metrics_goodput_parse(cfg->goodput, &exp->goodput, errbuf, sizeof(errbuf));
    }
    int ret = export_paths_init(&exp->paths, dir, cfg->profile_export_prefix);
    if (ret == 0 && exp->level != CONFIG_EXPORT_SUMMARY) {
        ret = export_jsonw_open(&exp->writer, exp->paths.records, WRITER_BYTES,
                                EXPORT_OUTFILE_DIRECT);
    }
    if (ret == 0 && exp->level == CONFIG_EXPORT_RAW) {
        ret = export_jsonw_open(&exp->raw_writer, exp->paths.raw, WRITER_BYTES,
                                EXPORT_OUTFILE_DIRECT);
    }
    if (ret == 0 && (exp->level == CONFIG_EXPORT_RAW || cfg->export_outputs_json)) {
        ret = export_jsonw_open(&exp->outputs_writer, exp->paths.outputs, WRITER_BYTES,
                                EXPORT_OUTFILE_DIRECT);
        /* AIPerf's schema 1.1, with the warmup array first: warmup requests
         * come first, and this file is written as they come. */
        export_jsonw_lit(&exp->outputs_writer, "{\"schema_version\":\"1.1\",\"warmup\":[");
        exp->outputs_first = true;
    }
    return ret;
}

/* put_value writes a record metric in display units: whole nanoseconds as an
 * exact millisecond decimal, token counts as integers, the rest as floats. */
static void put_value(struct export_jsonw *w, const struct metrics_info *info, double value)
{
    if (info->display_per_base == 1e-6 && value == floor(value) && fabs(value) < 9e18) {
        export_jsonw_ms_from_ns(w, (int64_t)value);
    } else if ((info->flags & METRICS_F_INTEGER) != 0 && value == floor(value)) {
        export_jsonw_int(w, (int64_t)value);
    } else {
        export_jsonw_double(w, value * info->display_per_base);
    }
}

static void put_metric(struct export_jsonw *w, bool *first, enum metrics_id id, double value)
{
    const struct metrics_info *info = metrics_info_of(id);
    export_jsonw_key(w, first, info->tag);
    export_jsonw_lit(w, "{\"value\":");
    put_value(w, info, value);
    /* Units are metrics/' own constants, with nothing to escape. */
    export_jsonw_lit(w, ",\"unit\":\"");
    export_jsonw_raw(w, info->unit, strlen(info->unit));
    export_jsonw_lit(w, "\"}");
}

static void put_chunk_gaps(struct export_jsonw *w, bool *first, const struct metrics_request *req)
{
    uint32_t gaps = metrics_request_icl_count(req);
    if (gaps == 0) {
        return;
    }
    export_jsonw_key(w, first, metrics_info_of(METRICS_ICL)->tag);
    export_jsonw_lit(w, "{\"value\":[");
    for (uint32_t i = 0; i < gaps; i++) {
        if (i > 0) {
            export_jsonw_raw(w, ",", 1);
        }
        export_jsonw_ms_from_ns(w, metrics_request_icl_ns(req, i));
    }
    export_jsonw_lit(w, "],\"unit\":\"ms\"}");
}

static void put_metrics(struct export_jsonw *w, const struct metrics_record *m)
{
    bool first = true;
    export_jsonw_raw(w, "{", 1);
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        if (id == METRICS_ICL) {
            put_chunk_gaps(w, &first, &m->request);
        } else if (m->values.has[id]) {
            put_metric(w, &first, (enum metrics_id)id, m->values.value[id]);
        }
    }
    export_jsonw_raw(w, "}", 1);
}

static void put_int_or_null(struct export_jsonw *w, bool *first, const char *key, int64_t v)
{
    export_jsonw_key(w, first, key);
    if (v != 0) {
        export_jsonw_int(w, v);
    } else {
        export_jsonw_raw(w, "null", 4);
    }
}

/* put_conversation writes the record's session identity: a single-turn
 * request is a conversation of its own, named by its request id. */
static void put_conversation(struct export_jsonw *w, bool *first, const struct export_run *exp,
                             const struct record *rec, const char *request_id, size_t id_len)
{
    if (!rec->in_session) {
        export_jsonw_key(w, first, "conversation_id");
        export_jsonw_string(w, request_id, id_len);
        export_jsonw_key(w, first, "turn_index");
        export_jsonw_int(w, 0);
        return;
    }
    char correlation[40];
    size_t correlation_len = record_correlation_id(exp->request_id_nonce, rec->session, correlation,
                                                   sizeof(correlation));
    export_jsonw_key(w, first, "x_correlation_id");
    export_jsonw_string(w, correlation, correlation_len);
    /* The dataset's name for the conversation; `ringperf merge` has no
     * dataset, and names it by the session's correlation id. */
    char scratch[sizeof(correlation)];
    size_t name_len = correlation_len;
    const char *name = exp->conversation_name != NULL
                           ? exp->conversation_name(exp->conversation_ctx, rec->session, scratch,
                                                    sizeof(scratch), &name_len)
                           : correlation;
    export_jsonw_key(w, first, "conversation_id");
    export_jsonw_string(w, name, name_len);
    export_jsonw_key(w, first, "turn_index");
    export_jsonw_int(w, rec->turn);
}

/* put_timing_truth writes ringperf's own timing fields: when the request was
 * due to leave (open loop: its schedule; closed loop: when a connection was
 * free for it) and how late it left, and how many of its content events
 * arrived in the same network read as the event before them, and so share
 * that read's arrival time (an inter-token gap of 0 that is not one). */
static void put_timing_truth(struct export_jsonw *w, bool *first, const struct record *rec,
                             const struct metrics_record *metrics)
{
    put_int_or_null(w, first, "request_scheduled_ns",
                    metrics_record_wall_ns(rec, rec->scheduled_ns));
    export_jsonw_key(w, first, "send_lag_ns");
    if (rec->send_start_ns != 0 && rec->scheduled_ns != 0) {
        export_jsonw_int(w, rec->send_start_ns - rec->scheduled_ns);
    } else {
        export_jsonw_raw(w, "null", 4);
    }
    export_jsonw_key(w, first, "shared_read_events");
    export_jsonw_int(w, metrics->shared_reads);
}

static void put_metadata(struct export_jsonw *w, const struct export_run *exp,
                         const struct record *rec, const struct metrics_record *metrics)
{
    char request_id[40];
    size_t id_len =
        record_request_id(exp->request_id_nonce, rec->ordinal, request_id, sizeof(request_id));
    bool first = true;
    export_jsonw_raw(w, "{", 1);
    export_jsonw_key(w, &first, "session_num");
    export_jsonw_int(w, (int64_t)(rec->in_session ? rec->session : rec->ordinal));
    export_jsonw_key(w, &first, "x_request_id");
    export_jsonw_string(w, request_id, id_len);
    put_conversation(w, &first, exp, rec, request_id, id_len);
    put_int_or_null(w, &first, "request_start_ns", rec->wall_start_ns);
    put_int_or_null(w, &first, "request_ack_ns", metrics_record_wall_ns(rec, rec->headers_ns));
    put_int_or_null(w, &first, "request_end_ns", metrics_record_wall_ns(rec, rec->end_ns));
    export_jsonw_key(w, &first, "worker_id");
    export_jsonw_lit(w, "\"shard_");
    export_jsonw_int(w, rec->shard_id);
    export_jsonw_raw(w, "\"", 1);
    if (exp->record_host != NULL) {
        export_jsonw_key(w, &first, "rank");
        export_jsonw_int(w, exp->record_rank);
        export_jsonw_key(w, &first, "host");
        export_jsonw_string(w, exp->record_host, strlen(exp->record_host));
    }
    export_jsonw_key(w, &first, "benchmark_phase");
    export_jsonw_lit(w, "\"profiling\"");
    export_jsonw_key(w, &first, "was_cancelled");
    export_jsonw_lit(w, rec->outcome == RECORD_CANCELLED ? "true" : "false");
    put_int_or_null(w, &first, "cancellation_time_ns", metrics_record_wall_ns(rec, rec->cancel_ns));
    put_int_or_null(w, &first, "http_status", rec->http_status);
    put_timing_truth(w, &first, rec, metrics);
    export_jsonw_raw(w, "}", 1);
}

void export_record_error(struct export_jsonw *w, const struct record *rec)
{
    if (rec->outcome == RECORD_SUCCESS) {
        export_jsonw_raw(w, "null", 4);
        return;
    }
    bool first = true;
    export_jsonw_raw(w, "{", 1);
    put_int_or_null(w, &first, "code", rec->error_code);
    export_jsonw_key(w, &first, "type");
    export_jsonw_string(w, rec->error_type, strlen(rec->error_type));
    export_jsonw_key(w, &first, "message");
    export_jsonw_string(w, rec->error_message, strlen(rec->error_message));
    export_jsonw_raw(w, "}", 1);
}

static void put_responses(struct export_jsonw *w, const struct record *rec)
{
    export_jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; i < rec->event_count; i++) {
        const struct record_event *ev = &rec->events[i];
        bool first = true;
        export_jsonw_raw(w, i == 0 ? "{" : ",{", i == 0 ? 1 : 2);
        put_int_or_null(w, &first, "timestamp_ns", metrics_record_wall_ns(rec, ev->arrival_ns));
        put_int_or_null(w, &first, "perf_ns", ev->arrival_ns);
        export_jsonw_key(w, &first, "content");
        export_jsonw_lit(w, (ev->flags & RECORD_EVENT_CONTENT) != 0 ? "true" : "false");
        export_jsonw_key(w, &first, "reasoning");
        export_jsonw_lit(w, (ev->flags & RECORD_EVENT_REASONING) != 0 ? "true" : "false");
        export_jsonw_key(w, &first, "usage");
        export_jsonw_lit(w, (ev->flags & RECORD_EVENT_USAGE) != 0 ? "true" : "false");
        export_jsonw_key(w, &first, "text_bytes");
        export_jsonw_int(w, ev->text_len);
        export_jsonw_raw(w, "}", 1);
    }
    export_jsonw_raw(w, "]", 1);
}

/* put_raw writes one profile_export_raw.jsonl line: the metadata, every
 * response event with its arrival time, the texts and the usage. */
static int64_t count_or_zero(int64_t count)
{
    return count != RECORD_ABSENT ? count : 0;
}

static void put_raw(struct export_run *exp, const struct record *rec,
                    const struct metrics_record *metrics)
{
    struct export_jsonw *w = &exp->raw_writer;
    bool first = true;
    export_jsonw_lit(w, "{\"metadata\":");
    put_metadata(w, exp, rec, metrics);
    first = false;
    put_int_or_null(w, &first, "request_send_end_ns",
                    metrics_record_wall_ns(rec, rec->send_end_ns));
    export_jsonw_lit(w, ",\"responses\":");
    put_responses(w, rec);
    export_jsonw_lit(w, ",\"events_dropped\":");
    export_jsonw_int(w, rec->events_dropped);
    export_jsonw_lit(w, ",\"output_text\":");
    export_jsonw_string_long(w, rec->text != NULL ? rec->text : "", rec->text_len);
    export_jsonw_lit(w, ",\"reasoning_text\":");
    export_jsonw_string_long(w, rec->reasoning_text != NULL ? rec->reasoning_text : "",
                             rec->reasoning_len);
    export_jsonw_lit(w, rec->text_truncated ? ",\"text_truncated\":true"
                                            : ",\"text_truncated\":false");
    export_jsonw_lit(w, ",\"usage\":");
    if (rec->usage.present) {
        first = true;
        export_jsonw_raw(w, "{", 1);
        /* The raw export has always written 0 for a count not reported. */
        export_jsonw_key(w, &first, "prompt_tokens");
        export_jsonw_int(w, count_or_zero(rec->usage.prompt_tokens));
        export_jsonw_key(w, &first, "completion_tokens");
        export_jsonw_int(w, count_or_zero(rec->usage.completion_tokens));
        put_int_or_null(w, &first, "reasoning_tokens", count_or_zero(rec->usage.reasoning_tokens));
        export_jsonw_raw(w, "}", 1);
    } else {
        export_jsonw_raw(w, "null", 4);
    }
    export_jsonw_lit(w, ",\"error\":");
    export_record_error(w, rec);
    export_jsonw_raw(w, "}\n", 2);
}

int64_t export_wall_now_ns(void)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    return (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec;
}

static int record_intervals(struct export_run *exp, const struct record *rec,
                            const struct metrics_record *metrics)
{
    if (!exp->intervals.enabled && exp->intervals.error == 0) {
        int64_t start = exp->start_wall_ns != 0 ? exp->start_wall_ns : rec->wall_start_ns;
        int ret = export_intervals_open(&exp->intervals, start, exp->slice_ns);
        if (ret != 0) {
            exp->intervals.error = ret;
            return ret;
        }
    }
    return export_intervals_add(&exp->intervals, exp->paths.hlog_base, rec, metrics, exp->streaming,
                                &exp->goodput);
}

/* put_output writes one outputs.json entry: the request's identity and
 * times, its metrics as in profile_export.jsonl, and the text it got. */
static void put_output(struct export_run *exp, const struct record *rec,
                       const struct metrics_record *metrics, uint64_t request_id_nonce,
                       const char *phase)
{
    struct export_jsonw *w = &exp->outputs_writer;
    char request_id[40];
    size_t id_len =
        record_request_id(request_id_nonce, rec->ordinal, request_id, sizeof(request_id));
    bool first = true;
    export_jsonw_raw(w, exp->outputs_first ? "{" : ",{", exp->outputs_first ? 1 : 2);
    exp->outputs_first = false;
    export_jsonw_key(w, &first, "session_num");
    export_jsonw_int(w, (int64_t)(rec->in_session ? rec->session : rec->ordinal));
    put_conversation(w, &first, exp, rec, request_id, id_len);
    export_jsonw_key(w, &first, "x_request_id");
    export_jsonw_string(w, request_id, id_len);
    export_jsonw_key(w, &first, "benchmark_phase");
    export_jsonw_string(w, phase, strlen(phase));
    put_int_or_null(w, &first, "request_start_ns", rec->wall_start_ns);
    put_int_or_null(w, &first, "request_end_ns", metrics_record_wall_ns(rec, rec->end_ns));
    export_jsonw_lit(w, ",\"metrics\":");
    put_metrics(w, metrics);
    export_jsonw_lit(w, ",\"response_text\":");
    export_jsonw_string_long(w, rec->text != NULL ? rec->text : "", rec->text_len);
    export_jsonw_raw(w, "}", 1);
}

int export_run_warmup_record(struct export_run *exp, const struct record *rec,
                             const struct metrics_record *metrics, uint64_t request_id_nonce)
{
    if (!export_jsonw_is_open(&exp->outputs_writer) || exp->outputs_in_data) {
        return 0;
    }
    put_output(exp, rec, metrics, request_id_nonce, "warmup");
    return exp->outputs_writer.error;
}

/* outputs_to_data closes outputs.json's warmup array and opens "data". */
static void outputs_to_data(struct export_run *exp)
{
    if (export_jsonw_is_open(&exp->outputs_writer) && !exp->outputs_in_data) {
        export_jsonw_lit(&exp->outputs_writer, "],\"data\":[");
        exp->outputs_in_data = true;
        exp->outputs_first = true;
    }
}

int export_run_record(struct export_run *exp, const struct record *rec,
                      const struct metrics_record *metrics)
{
    int ret = record_intervals(exp, rec, metrics);
    if (ret != 0) {
        return ret;
    }
    if (export_jsonw_is_open(&exp->outputs_writer)) {
        outputs_to_data(exp);
        put_output(exp, rec, metrics, exp->request_id_nonce, "profiling");
        if (exp->outputs_writer.error != 0) {
            return exp->outputs_writer.error;
        }
    }
    if (!export_jsonw_is_open(&exp->writer)) {
        return 0;
    }
    struct export_jsonw *w = &exp->writer;
    export_jsonw_lit(w, "{\"metadata\":");
    put_metadata(w, exp, rec, metrics);
    export_jsonw_lit(w, ",\"metrics\":");
    put_metrics(w, metrics);
    export_jsonw_lit(w, ",\"error\":");
    export_record_error(w, rec);
    export_jsonw_raw(w, "}\n", 2);
    exp->lines++;
    if (export_jsonw_is_open(&exp->raw_writer)) {
        put_raw(exp, rec, metrics);
        if (exp->raw_writer.error != 0) {
            return exp->raw_writer.error;
        }
    }
    return w->error;
}

int export_run_close(struct export_run *exp)
{
    int ret = export_jsonw_close(&exp->writer);
    int raw_ret = export_jsonw_close(&exp->raw_writer);
    if (export_jsonw_is_open(&exp->outputs_writer)) {
        outputs_to_data(exp);
        export_jsonw_lit(&exp->outputs_writer, "]}\n");
    }
    int outputs_ret = export_jsonw_close(&exp->outputs_writer);
    raw_ret = raw_ret != 0 ? raw_ret : outputs_ret;
    int hlog_ret = export_intervals_close(&exp->intervals, exp->paths.hlog_base);
    ret = ret != 0 ? ret : raw_ret;
    return ret != 0 ? ret : hlog_ret;
}

static json_t *redacted_headers(const struct profile_config *cfg)
{
    json_t *headers = json_object();
    for (size_t i = 0; headers != NULL && i < cfg->header_count; i++) {
        /* Header values often carry credentials; which ones cannot be known. */
        json_object_set_new(headers, cfg->headers[i].name, json_string(CONFIG_REDACTED));
    }
    return headers;
}

static json_t *string_list(const struct config_strlist *list)
{
    json_t *array = json_array();
    for (size_t i = 0; array != NULL && i < list->count; i++) {
        json_array_append_new(array, json_string(list->items[i]));
    }
    return array;
}

/* resolved_urls lists every --url as resolved, without user info or query
 * string, which may hold credentials. */
static json_t *resolved_urls(const struct profile_config *cfg)
{
    json_t *urls = json_array();
    for (size_t i = 0; urls != NULL && i < cfg->urls.count; i++) {
        struct config_target t;
        char errbuf[256];
        if (config_resolve_url(cfg, i, &t, errbuf, sizeof(errbuf)) != 0) {
            continue;
        }
        char url[CONFIG_HOST_BYTES_MAX + CONFIG_PATH_BYTES_MAX + 32];
        size_t path_len = strcspn(t.path, "?");
        snprintf(url, sizeof(url), "%s://%s%.*s",
                 t.scheme == CONFIG_SCHEME_HTTPS ? "https" : "http", t.authority, (int)path_len,
                 t.path);
        json_array_append_new(urls, json_string(url));
    }
    return urls;
}

static const char *export_level_name(enum config_export_level level)
{
    return level == CONFIG_EXPORT_SUMMARY ? "summary"
           : level == CONFIG_EXPORT_RAW   ? "raw"
                                          : "records";
}

json_t *export_input_config(const struct profile_config *c)
{
    json_t *seed = c->random_seed_set ? json_integer(c->random_seed) : json_null();
    json_t *osl = c->osl_set ? json_integer(c->osl_tokens_mean) : json_null();
    return json_pack(
        "{s:{s:o, s:s, s:b, s:o, s:f, s:b, s:b}, s:{s:o, s:o, s:o, s:{s:{s:I, s:f}, s:{s:o, "
        "s:f}}}, s:{s:I, s:I, s:f, s:f}, s:{s:s, s:s?, s:s}, s:{s:s?}, s:s?}",
        "endpoint", "model_names", string_list(&c->models), "type",
        config_endpoint_type_name(c->endpoint_type), "streaming", c->streaming, "urls",
        resolved_urls(c), "timeout_seconds", c->request_timeout_seconds, "use_legacy_max_tokens",
        c->use_legacy_max_tokens, "use_server_token_count", c->use_server_token_count, "input",
        "headers", redacted_headers(c), "extra", string_list(&c->extra_inputs), "random_seed", seed,
        "prompt", "input_tokens", "mean", (json_int_t)c->isl_tokens_mean, "stddev",
        c->isl_tokens_stddev, "output_tokens", "mean", osl, "stddev", c->osl_tokens_stddev,
        "loadgen", "concurrency", (json_int_t)c->concurrency, "request_count",
        (json_int_t)c->request_count, "request_rate", c->request_rate_per_second,
        "benchmark_duration", c->benchmark_duration_seconds, "output", "artifact_directory",
        c->artifact_dir != NULL ? c->artifact_dir : "", "profile_export_prefix",
        c->profile_export_prefix, "export_level", export_level_name(c->export_level), "tokenizer",
        "name", c->tokenizer, "goodput", c->goodput);
}

static void log_line(FILE *log, const char *level, const char *message)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    char when[64] = "";
    export_iso_time((int64_t)now.tv_sec * 1000000000LL + now.tv_nsec, when, sizeof(when));
    fprintf(log, "%s %-7s %s\n", when, level, message);
}

static int write_log(const struct export_run *exp, const struct metrics_results *results,
                     const struct export_finish_info *info, int file_error)
{
    if (mkdir(exp->paths.log_dir, 0755) != 0 && errno != EEXIST) {
        return -errno;
    }
    FILE *log = fopen(exp->paths.log, "w");
    if (log == NULL) {
        return -errno;
    }
    char line[1024];
    log_line(log, "INFO", info->cfg->cli_command != NULL ? info->cfg->cli_command : "");
    snprintf(line, sizeof(line), "%llu requests succeeded, %llu failed (%llu cancelled)%s",
             (unsigned long long)results->success_count, (unsigned long long)results->error_count,
             (unsigned long long)results->cancelled_count,
             info->was_cancelled ? "; the run was cancelled early" : "");
    log_line(log, "INFO", line);
    for (size_t i = 0; i < results->error_kind_count; i++) {
        const struct metrics_error_kind *kind = &results->errors[i];
        snprintf(line, sizeof(line), "%llu x error %d %s: %.600s", (unsigned long long)kind->count,
                 kind->code, kind->type, kind->message);
        log_line(log, "WARNING", line);
    }
    snprintf(line, sizeof(line), "exports written to %.900s", exp->paths.json);
    log_line(log, file_error == 0 ? "INFO" : "ERROR",
             file_error == 0 ? line : "some export files could not be written");
    return fclose(log) == 0 ? 0 : -errno;
}

static int write_summaries(const struct export_run *exp, const struct metrics_summary *summary,
                           const struct metrics_results *results,
                           const struct export_finish_info *info)
{
    struct export_error_row rows[METRICS_ERROR_KINDS_MAX];
    for (size_t i = 0; i < results->error_kind_count; i++) {
        const struct metrics_error_kind *k = &results->errors[i];
        rows[i] = (struct export_error_row){k->code, k->type, k->message, k->count};
    }
    struct metrics_summary warmup;
    struct metrics_results *warm = info->warmup;
    bool has_warmup = warm != NULL && warm->success_count + warm->error_count > 0;
    if (has_warmup) {
        metrics_run_summarize(warm->run, &warmup);
    }
    char benchmark_id[32];
    snprintf(benchmark_id, sizeof(benchmark_id), "%016llx",
             (unsigned long long)exp->request_id_nonce);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct export_run_info run_info = {
        .cli_command = info->cfg->cli_command,
        .benchmark_id = benchmark_id,
        .input_config = export_input_config(info->cfg),
        .was_cancelled = info->was_cancelled,
        .start_wall_ns = results->first_wall_ns,
        .end_wall_ns = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec,
        .random_seed_set = info->cfg->random_seed_set,
        .random_seed = info->cfg->random_seed,
        .errors = rows,
        .error_count = results->error_kind_count,
        .extra = info->run_info_extra,
        .warmup_metrics = has_warmup ? &warmup : NULL,
    };
    int ret = run_info.input_config != NULL ? 0 : -ENOMEM;
    if (ret == 0) {
        ret = export_summary_json_write(exp->paths.json, summary, &run_info);
    }
    if (ret == 0) {
        int64_t end = summary->scalar_present[METRICS_S_MAX_RESPONSE_TIMESTAMP]
                          ? (int64_t)summary->scalar[METRICS_S_MAX_RESPONSE_TIMESTAMP]
                          : run_info.end_wall_ns;
        ret = export_intervals_write_timeslices(&exp->intervals, &exp->paths, run_info.input_config,
                                                end);
    }
    json_decref(run_info.input_config);
    int csv_ret = export_summary_csv_write(exp->paths.csv, summary);
    return ret != 0 ? ret : csv_ret;
}

static void print_footer(FILE *out, const struct export_run *exp,
                         const struct metrics_summary *summary,
                         const struct export_finish_info *info)
{
    fprintf(out, "\nCLI Command: %s\n",
            info->cfg->cli_command != NULL ? info->cfg->cli_command : "");
    double duration_s = summary->scalar_present[METRICS_S_BENCHMARK_DURATION]
                            ? summary->scalar[METRICS_S_BENCHMARK_DURATION]
                            : 0.0;
    fprintf(out, "Benchmark Duration: %.2f sec%s\n", duration_s,
            info->was_cancelled ? " (cancelled early)" : "");
    fprintf(out, "CSV Export: %s\n", exp->paths.csv);
    fprintf(out, "JSON Export: %s\n", exp->paths.json);
    if (exp->level != CONFIG_EXPORT_SUMMARY) {
        fprintf(out, "Records Export: %s\n", exp->paths.records);
    }
    if (exp->level == CONFIG_EXPORT_RAW) {
        fprintf(out, "Raw Records Export: %s\n", exp->paths.raw);
    }
    if (exp->slice_ns > 0) {
        fprintf(out, "Timeslices Export: %s\n", exp->paths.timeslices_csv);
    }
    if (exp->intervals.enabled) {
        fprintf(out, "HdrHistogram Logs: %s_<metric>.hlog\n", exp->paths.hlog_base);
    }
    fprintf(out, "Log File: %s\n", exp->paths.log);
    if (info->was_cancelled) {
        fprintf(out, "The profile run was cancelled early. Results shown may be incomplete or "
                     "inaccurate.\n");
    }
}

static int write_console_copy(const struct export_run *exp, const struct metrics_summary *summary,
                              const struct metrics_results *results,
                              const struct export_finish_info *info)
{
    FILE *copy = fopen(exp->paths.console, "w");
    if (copy == NULL) {
        return -errno;
    }
    struct export_console_options plain = {.title = info->title, .color = false};
    export_console_print(copy, summary, results, &plain);
    print_footer(copy, exp, summary, info);
    return fclose(copy) == 0 ? 0 : -errno;
}

/* put_schedule_lag adds AIPerf's replay_sched_lag_* metrics of a fixed-schedule
 * replay: how far behind the trace requests left, relative to the least late. */
static void put_schedule_lag(struct metrics_summary *summary, const struct metrics_hist *lag)
{
    if (lag == NULL || metrics_hist_count(lag) == 0) {
        return;
    }
    static const struct {
        enum metrics_scalar_id id;
        double percentile;
    } points[] = {{METRICS_S_REPLAY_SCHED_LAG_P50, 50},
                  {METRICS_S_REPLAY_SCHED_LAG_P90, 90},
                  {METRICS_S_REPLAY_SCHED_LAG_P99, 99}};
    int64_t least = metrics_hist_min(lag);
    int64_t most = metrics_hist_max(lag);
    for (size_t i = 0; i < sizeof(points) / sizeof(points[0]); i++) {
        int64_t at = metrics_hist_value_at_percentile(lag, points[i].percentile);
        at = at < most ? at : most; /* a bucket's top can pass the exact maximum */
        summary->scalar[points[i].id] = (double)(at - least) / 1e6;
        summary->scalar_present[points[i].id] = true;
    }
    summary->scalar[METRICS_S_REPLAY_SCHED_DEGRADED] =
        summary->scalar[METRICS_S_REPLAY_SCHED_LAG_P99] > 500.0 ? 1.0 : 0.0;
    summary->scalar_present[METRICS_S_REPLAY_SCHED_DEGRADED] = true;
}

/* print_exit_errors says why a run with no successful request has no summary: AIPerf's
 * "AIPerf System Exit Errors" panel, one line per kind of error, then the log's path. */
static void print_exit_errors(FILE *out, const struct export_run *exp,
                              const struct metrics_results *results)
{
    uint64_t failed = results->error_count;
    fprintf(out, "\nringperf profile: exit errors\n");
    if (failed == 0) {
        fprintf(out, "  No profile results: no request finished.\n");
    } else {
        fprintf(out, "  All %llu inference request(s) failed; no summary was written.\n",
                (unsigned long long)failed);
    }
    for (size_t i = 0; i < results->error_kind_count; i++) {
        const struct metrics_error_kind *kind = &results->errors[i];
        fprintf(out, "  %llu x %d %s: %.600s\n", (unsigned long long)kind->count, kind->code,
                kind->type, kind->message);
    }
    fprintf(out, "Log File: %s\n", exp->paths.log);
}

/* export_run_finish_failed ends a run without a successful request as AIPerf does: no summary
 * JSON or CSV, no timeslices and no console tables (the per-request files stay), the log, the
 * errors on stderr, exit status 1. */
static int export_run_finish_failed(const struct export_run *exp,
                                    const struct metrics_results *results,
                                    const struct export_finish_info *info)
{
    int log_ret = write_log(exp, results, info, 0);
    print_exit_errors(stderr, exp, results);
    if (log_ret != 0) {
        fprintf(stderr, "ringperf profile: writing %s failed: %s\n", exp->paths.log,
                strerror(-log_ret));
    }
    return 1;
}

int export_run_finish(const struct export_run *exp, struct metrics_results *results,
                      const struct export_finish_info *info)
{
    if (results->success_count == 0) {
        return export_run_finish_failed(exp, results, info);
    }
    struct metrics_summary summary;
    metrics_run_summarize(results->run, &summary);
    put_schedule_lag(&summary, info->schedule_lag);
    const char *no_color = getenv("NO_COLOR");
    struct export_console_options opts = {
        .title = info->title,
        .color = isatty(STDOUT_FILENO) == 1 && (no_color == NULL || no_color[0] == '\0'),
    };
    export_console_print(stdout, &summary, results, &opts);
    int ret = write_summaries(exp, &summary, results, info);
    if (ret == 0) {
        ret = write_console_copy(exp, &summary, results, info);
    }
    int log_ret = write_log(exp, results, info, ret);
    print_footer(stdout, exp, &summary, info);
    fflush(stdout);
    if (ret != 0 || log_ret != 0) {
        fprintf(stderr, "ringperf profile: writing the exports in %s failed: %s\n",
                exp->paths.log_dir, strerror(-(ret != 0 ? ret : log_ret)));
        return 1;
    }
    return 0;
}
