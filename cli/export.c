/*
 * export.c - artifact files written during and after a run: the per-request
 * records (`profile_export.jsonl`, one line per request in AIPerf's shape) and
 * the exact payloads sent (`inputs.json`). Records are written on the
 * coordinator's thread after the shard has finished with them, with the
 * buffered writer of jsonw.h rather than a DOM: one line per request adds up.
 */
#include "cli/cli_export.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static void put_metric_value(struct cli_jsonw *w, enum cli_metric m, double value)
{
    const struct cli_metric_info *info = &cli_metric_infos()[m];
    cli_jsonw_lit(w, "{\"value\":");
    if (info->display_per_recorded == 1e-6) {
        cli_jsonw_ms_from_ns(w, (int64_t)llround(value)); /* recorded in ns */
    } else if (info->display_per_recorded == 1.0) {
        cli_jsonw_int(w, (int64_t)llround(value));
    } else {
        cli_jsonw_double(w, value * info->display_per_recorded);
    }
    cli_jsonw_lit(w, ",\"unit\":");
    cli_jsonw_string(w, info->unit, strlen(info->unit));
    cli_jsonw_raw(w, "}", 1);
}

static void put_chunk_gaps(struct cli_jsonw *w, bool *first, const struct engine_record *rec)
{
    const struct engine_event *prev = NULL;
    bool first_gap = true;
    for (uint32_t i = 0; i < rec->event_count; i++) {
        const struct engine_event *ev = &rec->events[i];
        if ((ev->flags & (ENGINE_EVENT_CONTENT | ENGINE_EVENT_REASONING)) == 0) {
            continue;
        }
        if (prev != NULL) {
            if (first_gap) {
                cli_jsonw_key(w, first, cli_metric_infos()[CLI_METRIC_ICL].tag);
                cli_jsonw_lit(w, "{\"value\":[");
                first_gap = false;
            } else {
                cli_jsonw_raw(w, ",", 1);
            }
            cli_jsonw_ms_from_ns(w, ev->arrival_ns - prev->arrival_ns);
        }
        prev = ev;
    }
    if (!first_gap) {
        cli_jsonw_lit(w, "],\"unit\":\"ms\"}");
    }
}

static void put_metrics(struct cli_jsonw *w, const struct engine_record *rec,
                        const struct cli_record_metrics *metrics, bool streaming)
{
    bool first = true;
    cli_jsonw_raw(w, "{", 1);
    for (int m = 0; m < CLI_METRIC_COUNT; m++) {
        if (m == CLI_METRIC_ICL || !metrics->has[m]) {
            continue;
        }
        cli_jsonw_key(w, &first, cli_metric_infos()[m].tag);
        put_metric_value(w, (enum cli_metric)m, metrics->value[m]);
    }
    if (streaming && rec->outcome == ENGINE_SUCCESS) {
        put_chunk_gaps(w, &first, rec);
    }
    cli_jsonw_raw(w, "}", 1);
}

static void put_int_or_null(struct cli_jsonw *w, bool *first, const char *key, int64_t v)
{
    cli_jsonw_key(w, first, key);
    if (v != 0) {
        cli_jsonw_int(w, v);
    } else {
        cli_jsonw_raw(w, "null", 4);
    }
}

static void put_metadata(struct cli_jsonw *w, const struct cli_export *exp,
                         const struct engine_record *rec)
{
    char request_id[40];
    size_t id_len =
        engine_request_id(exp->request_id_nonce, rec->ordinal, request_id, sizeof(request_id));
    char worker[32];
    int worker_len = snprintf(worker, sizeof(worker), "shard_%u", rec->shard_id);
    bool first = true;
    cli_jsonw_raw(w, "{", 1);
    cli_jsonw_key(w, &first, "session_num");
    cli_jsonw_int(w, (int64_t)rec->ordinal);
    cli_jsonw_key(w, &first, "x_request_id");
    cli_jsonw_string(w, request_id, id_len);
    cli_jsonw_key(w, &first, "conversation_id");
    cli_jsonw_string(w, request_id, id_len);
    cli_jsonw_key(w, &first, "turn_index");
    cli_jsonw_int(w, 0);
    put_int_or_null(w, &first, "request_start_ns", rec->wall_start_ns);
    put_int_or_null(w, &first, "request_ack_ns", cli_record_wall_ns(rec, rec->headers_ns));
    put_int_or_null(w, &first, "request_end_ns", cli_record_wall_ns(rec, rec->end_ns));
    cli_jsonw_key(w, &first, "worker_id");
    cli_jsonw_string(w, worker, (size_t)worker_len);
    cli_jsonw_key(w, &first, "benchmark_phase");
    cli_jsonw_lit(w, "\"profiling\"");
    cli_jsonw_key(w, &first, "was_cancelled");
    cli_jsonw_lit(w, rec->outcome == ENGINE_CANCELLED ? "true" : "false");
    put_int_or_null(w, &first, "cancellation_time_ns", cli_record_wall_ns(rec, rec->cancel_ns));
    put_int_or_null(w, &first, "http_status", rec->http_status);
    cli_jsonw_raw(w, "}", 1);
}

static void put_error(struct cli_jsonw *w, const struct engine_record *rec)
{
    if (rec->outcome == ENGINE_SUCCESS) {
        cli_jsonw_raw(w, "null", 4);
        return;
    }
    bool first = true;
    cli_jsonw_raw(w, "{", 1);
    put_int_or_null(w, &first, "code", rec->error_code);
    cli_jsonw_key(w, &first, "type");
    cli_jsonw_string(w, rec->error_type, strlen(rec->error_type));
    cli_jsonw_key(w, &first, "message");
    cli_jsonw_string(w, rec->error_message, strlen(rec->error_message));
    cli_jsonw_raw(w, "}", 1);
}

int cli_export_open(struct cli_export *exp, const char *dir, const char *records_name)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, records_name);
    exp->records = fopen(path, "w");
    if (exp->records == NULL) {
        return -errno;
    }
    return cli_jsonw_init(&exp->writer, exp->records, 1 << 20);
}

int cli_export_record(struct cli_export *exp, const struct engine_record *rec,
                      const struct cli_record_metrics *metrics)
{
    struct cli_jsonw *w = &exp->writer;
    cli_jsonw_lit(w, "{\"metadata\":");
    put_metadata(w, exp, rec);
    cli_jsonw_lit(w, ",\"metrics\":");
    put_metrics(w, rec, metrics, exp->streaming);
    cli_jsonw_lit(w, ",\"error\":");
    put_error(w, rec);
    cli_jsonw_raw(w, "}\n", 2);
    exp->lines++;
    return w->error;
}

int cli_export_close(struct cli_export *exp)
{
    if (exp->records == NULL) {
        return 0;
    }
    int ret = cli_jsonw_flush(&exp->writer);
    cli_jsonw_free(&exp->writer);
    if (fclose(exp->records) != 0 && ret == 0) {
        ret = -errno;
    }
    exp->records = NULL;
    return ret;
}

int cli_export_inputs(const char *dir, const struct engine_payload *payloads, size_t count)
{
    json_t *data = json_array();
    for (size_t i = 0; i < count; i++) {
        json_error_t error;
        json_t *body = json_loadb(payloads[i].body, payloads[i].body_len, 0, &error);
        char session[32];
        snprintf(session, sizeof(session), "session_%zu", i);
        json_array_append_new(data, json_pack("{s:s, s:[o]}", "session_id", session, "payloads",
                                              body != NULL ? body : json_null()));
    }
    json_t *root = json_pack("{s:o}", "data", data);
    char path[4096];
    snprintf(path, sizeof(path), "%s/inputs.json", dir);
    int ret = json_dump_file(root, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    return ret == 0 ? 0 : -EIO;
}
