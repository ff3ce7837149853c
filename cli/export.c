/*
 * export.c - artifact files written during and after a run: the per-request
 * records (`profile_export.jsonl`, one line per request in AIPerf's shape) and
 * the exact payloads sent (`inputs.json`). Not on the request path: the
 * coordinator thread writes a record after the shard has finished with it.
 */
#include "cli/cli_export.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

static json_t *metric_value(double value, const char *unit)
{
    return json_pack("{s:f, s:s}", "value", value, "unit", unit);
}

static json_t *record_metrics(const struct engine_record *rec,
                              const struct cli_record_metrics *metrics, bool streaming)
{
    const struct cli_metric_info *infos = cli_metric_infos();
    json_t *obj = json_object();
    for (int m = 0; m < CLI_METRIC_COUNT; m++) {
        if (m == CLI_METRIC_ICL || !metrics->has[m]) {
            continue;
        }
        json_object_set_new(
            obj, infos[m].tag,
            metric_value(metrics->value[m] * infos[m].display_per_recorded, infos[m].unit));
    }
    if (!streaming || rec->outcome != ENGINE_SUCCESS) {
        return obj;
    }
    json_t *gaps = json_array();
    const struct engine_event *prev = NULL;
    for (uint32_t i = 0; i < rec->event_count; i++) {
        const struct engine_event *ev = &rec->events[i];
        if ((ev->flags & (ENGINE_EVENT_CONTENT | ENGINE_EVENT_REASONING)) == 0) {
            continue;
        }
        if (prev != NULL) {
            json_array_append_new(gaps, json_real((double)(ev->arrival_ns - prev->arrival_ns) *
                                                  infos[CLI_METRIC_ICL].display_per_recorded));
        }
        prev = ev;
    }
    if (json_array_size(gaps) > 0) {
        json_object_set_new(obj, infos[CLI_METRIC_ICL].tag,
                            json_pack("{s:o, s:s}", "value", gaps, "unit", "ms"));
    } else {
        json_decref(gaps);
    }
    return obj;
}

static json_t *record_metadata(const struct cli_export *exp, const struct engine_record *rec)
{
    char request_id[40];
    engine_request_id(exp->request_id_nonce, rec->ordinal, request_id, sizeof(request_id));
    char worker[32];
    snprintf(worker, sizeof(worker), "shard_%u", rec->shard_id);
    json_t *meta = json_pack(
        "{s:I, s:s, s:s, s:I, s:I, s:s, s:s, s:b}", "session_num", (json_int_t)rec->ordinal,
        "x_request_id", request_id, "conversation_id", request_id, "turn_index", (json_int_t)0,
        "request_start_ns", (json_int_t)rec->wall_start_ns, "worker_id", worker, "benchmark_phase",
        "profiling", "was_cancelled", rec->outcome == ENGINE_CANCELLED);
    int64_t ack = cli_record_wall_ns(rec, rec->headers_ns);
    int64_t end = cli_record_wall_ns(rec, rec->end_ns);
    json_object_set_new(meta, "request_ack_ns", ack != 0 ? json_integer(ack) : json_null());
    json_object_set_new(meta, "request_end_ns", end != 0 ? json_integer(end) : json_null());
    int64_t cancel = cli_record_wall_ns(rec, rec->cancel_ns);
    json_object_set_new(meta, "cancellation_time_ns",
                        cancel != 0 ? json_integer(cancel) : json_null());
    json_object_set_new(meta, "http_status",
                        rec->http_status != 0 ? json_integer(rec->http_status) : json_null());
    return meta;
}

static json_t *record_error(const struct engine_record *rec)
{
    if (rec->outcome == ENGINE_SUCCESS) {
        return json_null();
    }
    return json_pack("{s:o, s:s, s:s}", "code",
                     rec->error_code != 0 ? json_integer(rec->error_code) : json_null(), "type",
                     rec->error_type, "message", rec->error_message);
}

int cli_export_open(struct cli_export *exp, const char *dir, const char *records_name)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, records_name);
    exp->records = fopen(path, "w");
    if (exp->records == NULL) {
        return -errno;
    }
    return 0;
}

int cli_export_record(struct cli_export *exp, const struct engine_record *rec,
                      const struct cli_record_metrics *metrics)
{
    json_t *line =
        json_pack("{s:o, s:o, s:o}", "metadata", record_metadata(exp, rec), "metrics",
                  record_metrics(rec, metrics, exp->streaming), "error", record_error(rec));
    if (line == NULL) {
        return -ENOMEM;
    }
    int ret = json_dumpf(line, exp->records, JSON_COMPACT | JSON_ENSURE_ASCII);
    json_decref(line);
    if (ret != 0 || fputc('\n', exp->records) == EOF) {
        return -EIO;
    }
    exp->lines++;
    return 0;
}

int cli_export_close(struct cli_export *exp)
{
    if (exp->records == NULL) {
        return 0;
    }
    int ret = fclose(exp->records) == 0 ? 0 : -errno;
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
