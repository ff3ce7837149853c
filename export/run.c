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

#include "export/export_internal.h"
#include "export/export_outfile.h"

#define WRITER_BYTES (1u << 20)

int export_run_open(struct export_run *exp, const char *dir, const struct profile_config *cfg)
{
    exp->level = cfg->export_level;
    exp->slice_ns = (int64_t)(cfg->slice_duration_seconds * 1e9);
    exp->profiling_phase_index =
        cfg->warmup_request_count > 0 || cfg->warmup_duration_seconds > 0 ? 1 : 0;
    exp->http_trace = cfg->export_http_trace;
    if (cfg->goodput != NULL) {
        char errbuf[256];
        /* metrics_results_init already reported a bad --goodput. */
        metrics_goodput_parse(cfg->goodput, &exp->goodput, errbuf, sizeof(errbuf));
    }
    int ret = export_paths_init(&exp->paths, dir, cfg->profile_export_prefix);
    if (ret == 0 && exp->level != CONFIG_EXPORT_SUMMARY) {
        ret = export_jsonw_open(&exp->writer, exp->paths.records, WRITER_BYTES,
                                EXPORT_OUTFILE_DIRECT, EXPORT_OUTFILE_STAGED);
    }
    if (ret == 0 && exp->level == CONFIG_EXPORT_RAW) {
        ret = export_jsonw_open(&exp->raw_writer, exp->paths.raw, WRITER_BYTES,
                                EXPORT_OUTFILE_DIRECT, EXPORT_OUTFILE_STAGED);
    }
    if (ret == 0 && (exp->level == CONFIG_EXPORT_RAW || cfg->export_outputs_json)) {
        ret = export_jsonw_open(&exp->outputs_writer, exp->paths.outputs, WRITER_BYTES,
                                EXPORT_OUTFILE_DIRECT, EXPORT_OUTFILE_STAGED);
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

const char *export_run_conversation_name(const struct export_run *exp, const struct record *rec,
                                         char scratch[EXPORT_CONVERSATION_NAME_BYTES],
                                         size_t *out_len)
{
    if (exp->conversation_name != NULL) {
        return exp->conversation_name(exp->conversation_ctx, rec, scratch,
                                      EXPORT_CONVERSATION_NAME_BYTES, out_len);
    }
    *out_len =
        record_correlation_id(exp->request_id_nonce, rec->in_session ? rec->session : rec->ordinal,
                              scratch, EXPORT_CONVERSATION_NAME_BYTES);
    return scratch;
}

void export__put_int_if_known(struct export_jsonw *w, bool *first, const char *key, int64_t v)
{
    if (v != 0) {
        export_jsonw_key(w, first, key);
        export_jsonw_int(w, v);
    }
}

/* put_conversation writes the record's session identity, AIPerf's join key with inputs.json:
 * x_correlation_id (the session's, or for a single-turn request one of its own, as sent in
 * X-Correlation-ID), conversation_id (the dataset's name of what it sent, inputs.json's
 * session_id) and turn_index (the index into that entry's payloads). `ringperf merge` has no
 * dataset of its own and takes the name from the shares' records files. */
static void put_conversation(struct export_jsonw *w, bool *first, const struct export_run *exp,
                             const struct record *rec, uint64_t request_id_nonce)
{
    char correlation[40];
    size_t correlation_len =
        record_correlation_id(request_id_nonce, rec->in_session ? rec->session : rec->ordinal,
                              correlation, sizeof(correlation));
    export_jsonw_key(w, first, "x_correlation_id");
    export_jsonw_string(w, correlation, correlation_len);
    char scratch[EXPORT_CONVERSATION_NAME_BYTES];
    size_t name_len = 0;
    const char *name = export_run_conversation_name(exp, rec, scratch, &name_len);
    export_jsonw_key(w, first, "conversation_id");
    export_jsonw_string(w, name, name_len);
    export_jsonw_key(w, first, "turn_index");
    export_jsonw_int(w, rec->in_session ? rec->turn : 0);
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
    put_conversation(w, &first, exp, rec, exp->request_id_nonce);
    /* AIPerf's keys in its order, a None left out; ringperf's own after them. The credit is
     * the request's release by the scheduler; a fixed schedule issues none (0 here). */
    export__put_int_if_known(w, &first, "credit_issued_ns",
                             metrics->request.credit_issued_ns != 0
                                 ? metrics_record_wall_ns(rec, metrics->request.credit_issued_ns)
                                 : 0);
    export__put_int_if_known(w, &first, "request_start_ns", rec->wall_start_ns);
    export__put_int_if_known(w, &first, "request_ack_ns",
                             metrics_record_wall_ns(rec, rec->headers_ns));
    export__put_int_if_known(w, &first, "request_end_ns", metrics_record_wall_ns(rec, rec->end_ns));
    export_jsonw_key(w, &first, "worker_id");
    export_jsonw_lit(w, "\"shard_");
    export_jsonw_int(w, rec->shard_id);
    export_jsonw_raw(w, "\"", 1);
    /* Records become metrics on the coordinator of the process (or rank) that ran them. */
    export_jsonw_key(w, &first, "record_processor_id");
    export_jsonw_lit(w, "\"record_processor_");
    export_jsonw_int(w, exp->record_host != NULL ? exp->record_rank : 0);
    export_jsonw_raw(w, "\"", 1);
    export_jsonw_key(w, &first, "benchmark_phase");
    export_jsonw_lit(w, "\"profiling\"");
    export_jsonw_key(w, &first, "phase_index");
    export_jsonw_int(w, exp->profiling_phase_index);
    export_jsonw_lit(w, ",\"profiling_index\":0,\"phase_name\":\"profiling\","
                        "\"phase_kind\":\"profiling\"");
    export_jsonw_key(w, &first, "was_cancelled");
    export_jsonw_lit(w, rec->outcome == RECORD_CANCELLED ? "true" : "false");
    if (rec->outcome == RECORD_CANCELLED) {
        export__put_int_if_known(w, &first, "cancellation_time_ns",
                                 metrics_record_wall_ns(rec, rec->cancel_ns));
    }
    export_jsonw_lit(w, ",\"context_overflow_skip\":false,\"agent_depth\":0");
    if (exp->record_host != NULL) {
        export_jsonw_key(w, &first, "rank");
        export_jsonw_int(w, exp->record_rank);
        export_jsonw_key(w, &first, "host");
        export_jsonw_string(w, exp->record_host, strlen(exp->record_host));
    }
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

/* open_intervals opens the interval logs at the profiling phase's start (else `first_wall_ns`,
 * the first record's) when they are not open yet. */
static int open_intervals(struct export_run *exp, int64_t first_wall_ns)
{
    if (!exp->intervals.enabled && exp->intervals.error == 0) {
        int64_t start = exp->start_wall_ns != 0 ? exp->start_wall_ns : first_wall_ns;
        int ret = export_intervals_open(&exp->intervals, start, exp->slice_ns, exp->streaming,
                                        &exp->goodput);
        if (ret != 0) {
            exp->intervals.error = ret;
        }
    }
    return exp->intervals.error;
}

static int record_intervals(struct export_run *exp, const struct record *rec,
                            const struct metrics_record *metrics)
{
    if (exp->intervals_from_parts) {
        return 0;
    }
    int ret = open_intervals(exp, rec->wall_start_ns);
    if (ret != 0) {
        return ret;
    }
    return export_intervals_add(&exp->intervals, exp->paths.hlog_base, rec, metrics);
}

int export_run_interval_part(struct export_run *exp, const struct metrics_run *part,
                             int64_t start_wall_ns, int64_t end_wall_ns)
{
    int ret = open_intervals(exp, start_wall_ns);
    if (ret != 0) {
        return ret;
    }
    return export_intervals_add_part(&exp->intervals, exp->paths.hlog_base, part, start_wall_ns,
                                     end_wall_ns);
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
    put_conversation(w, &first, exp, rec, request_id_nonce);
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

int export_run_group_slices(struct export_run *exp, struct metrics_shards *shards)
{
    if (exp->slice_ns <= 0) {
        return 0;
    }
    int ret = open_intervals(exp, exp->start_wall_ns);
    return ret != 0 ? ret : metrics_shards_slices(shards, &exp->intervals.slices);
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
    /* AIPerf's order (MetricRecordInfo): trace_data and spec_decode_acceptance before error. */
    if (exp->http_trace) {
        export_jsonw_lit(w, ",\"trace_data\":");
        export__trace_data(w, rec, &metrics->request.http);
    }
    export__spec_decode(w, &metrics->request);
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

void export_run_failed_file(const struct export_run *exp, char *out, size_t cap)
{
    const char *path = exp->writer.error != 0           ? exp->paths.records
                       : exp->raw_writer.error != 0     ? exp->paths.raw
                       : exp->outputs_writer.error != 0 ? exp->paths.outputs
                                                        : NULL;
    if (path != NULL) {
        snprintf(out, cap, "%s", path);
    } else if (exp->intervals.error != 0) {
        snprintf(out, cap, "%s_*.hlog", exp->paths.hlog_base);
    } else {
        snprintf(out, cap, "%s", "");
    }
}

long export_run_records_kept(const struct export_run *exp)
{
    FILE *f = exp->level != CONFIG_EXPORT_SUMMARY ? fopen(exp->paths.records, "r") : NULL;
    if (f == NULL) {
        return -1;
    }
    long lines = 0;
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
        for (const char *p = buf; (p = memchr(p, '\n', (size_t)(buf + n - p))) != NULL; p++) {
            lines++;
        }
    }
    bool failed = ferror(f) != 0;
    fclose(f);
    return failed ? -1 : lines;
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
    if (results->sweep != NULL && metrics_sweep_truncated(results->sweep)) {
        snprintf(line, sizeof(line),
                 "more than %zu requests: the sweep-line metrics (effective_*, active_*, "
                 "tokens_in_flight) are left out",
                 metrics_sweep_count(results->sweep));
        log_line(log, "WARNING", line);
    }
    snprintf(line, sizeof(line), "exports written to %.900s", exp->paths.json);
    log_line(log, file_error == 0 ? "INFO" : "ERROR",
             file_error == 0 ? line : "some export files could not be written");
    return fclose(log) == 0 ? 0 : -errno;
}

/* gpu_json is the run's GPU figures, reduced once for the JSON, the CSV and both consoles. */
struct gpu_json {
    json_t *telemetry_data; /* NULL: no GPU telemetry */
    json_t *energy;         /* export_energy_metrics; NULL: none */
};

static int write_summaries(const struct export_run *exp, const struct metrics_summary *summary,
                           const struct metrics_results *results,
                           const struct export_finish_info *info, const struct gpu_json *gpu,
                           const char **out_failed)
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
        metrics_results_summarize(warm, &warmup);
    }
    char benchmark_id[32];
    export_benchmark_id(exp->request_id_nonce, benchmark_id, sizeof(benchmark_id));
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct export_run_info run_info = {
        .cli_command = info->cfg->cli_command,
        .benchmark_id = benchmark_id,
        .input_config = export_input_config(info->cfg, exp->paths.dir),
        .was_cancelled = info->was_cancelled,
        .start_wall_ns = results->first_wall_ns,
        .end_wall_ns = (int64_t)now.tv_sec * 1000000000LL + now.tv_nsec,
        .random_seed_set = info->cfg->random_seed_set,
        .random_seed = info->cfg->random_seed,
        .errors = rows,
        .error_count = results->error_kind_count,
        .errors_unlisted = results->errors_unlisted,
        .extra = info->run_info_extra,
        .warmup_metrics = has_warmup ? &warmup : NULL,
        .telemetry_data = gpu->telemetry_data,
        .extra_metrics = gpu->energy,
    };
    int ret = run_info.input_config != NULL ? 0 : -ENOMEM;
    *out_failed = exp->paths.json;
    if (ret == 0) {
        ret = export_summary_json_write(exp->paths.json, summary, &run_info);
    }
    if (ret == 0) {
        int64_t end = summary->scalar_present[METRICS_S_MAX_RESPONSE_TIMESTAMP]
                          ? (int64_t)summary->scalar[METRICS_S_MAX_RESPONSE_TIMESTAMP]
                          : run_info.end_wall_ns;
        ret = export_intervals_write_timeslices(&exp->intervals, &exp->paths, run_info.input_config,
                                                end);
        *out_failed = exp->paths.timeslices_json;
    }
    json_decref(run_info.input_config);
    int csv_ret = export_summary_csv_write(exp->paths.csv, summary, gpu->telemetry_data);
    if (ret == 0) {
        *out_failed = exp->paths.csv;
    }
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
                              const struct export_finish_info *info, const struct gpu_json *gpu)
{
    FILE *copy = fopen(exp->paths.console, "w");
    if (copy == NULL) {
        return -errno;
    }
    struct export_console_options plain = {
        .title = info->title,
        .color = false,
        .show_trace_timing = info->cfg->show_trace_timing,
        .telemetry_data = gpu->telemetry_data,
        .energy_metrics = gpu->energy,
    };
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
    metrics_results_summarize(results, &summary);
    put_schedule_lag(&summary, info->schedule_lag);
    const char *no_color = getenv("NO_COLOR");
    /* One reduction of the GPUs' samples feeds the JSON, the CSV and both consoles. */
    struct gpu_json gpu = {0};
    if (info->gpu_telemetry != NULL) {
        gpu.telemetry_data = export_telemetry_data(info->gpu_telemetry);
        gpu.energy = export_energy_metrics(info->gpu_telemetry, &summary,
                                           config_profiling_concurrency(info->cfg));
    }
    struct export_console_options opts = {
        .title = info->title,
        .color = isatty(STDOUT_FILENO) == 1 && (no_color == NULL || no_color[0] == '\0'),
        .show_trace_timing = info->cfg->show_trace_timing,
        .telemetry_data = gpu.telemetry_data,
        .energy_metrics = gpu.energy,
    };
    export_console_print(stdout, &summary, results, &opts);
    const char *failed = NULL;
    int ret = write_summaries(exp, &summary, results, info, &gpu, &failed);
    if (ret == 0) {
        ret = write_console_copy(exp, &summary, results, info, &gpu);
        failed = exp->paths.console;
    }
    json_decref(gpu.telemetry_data);
    json_decref(gpu.energy);
    int log_ret = write_log(exp, results, info, ret);
    print_footer(stdout, exp, &summary, info);
    fflush(stdout);
    if (ret != 0 || log_ret != 0) {
        fprintf(stderr, "ringperf profile: writing %s failed: %s\n",
                ret != 0 ? failed : exp->paths.log, strerror(-(ret != 0 ? ret : log_ret)));
        return 1;
    }
    return 0;
}
