/*
 * summary_json.c - profile_export_aiperf.json (AIPerf schema 1.5, spec §3.2).
 *
 * Keys come in AIPerf's order: the metrics its exporter declares first, then
 * any other metric, then the provenance. jansson keeps insertion order when
 * dumped with JSON_PRESERVE_ORDER.
 */
#include "export/export.h"
#include "export/export_internal.h"

#include <errno.h>
#include <string.h>
#include <time.h>

struct metric_ref {
    bool scalar;
    int id;
};

/* AIPerf's declared key order ([old] json_exporter). */
static const struct metric_ref declared_order[] = {
    {true, METRICS_S_REQUEST_THROUGHPUT},
    {false, METRICS_REQUEST_LATENCY},
    {true, METRICS_S_REQUEST_COUNT},
    {false, METRICS_TTFT},
    {false, METRICS_TTST},
    {false, METRICS_ITL},
    {true, METRICS_S_OUTPUT_TOKEN_THROUGHPUT},
    {false, METRICS_OTPS_PER_USER},
    {false, METRICS_OSL},
    {false, METRICS_ISL},
    {true, METRICS_S_GOODPUT},
    {true, METRICS_S_GOOD_REQUEST_COUNT},
    {false, METRICS_OUTPUT_TOKEN_COUNT},
    {false, METRICS_REASONING_TOKEN_COUNT},
    {true, METRICS_S_MIN_REQUEST_TIMESTAMP},
    {true, METRICS_S_MAX_RESPONSE_TIMESTAMP},
    {false, METRICS_ICL},
    {true, METRICS_S_TOTAL_OUTPUT_TOKENS},
    {true, METRICS_S_TOTAL_REASONING_TOKENS},
    {true, METRICS_S_BENCHMARK_DURATION},
    {true, METRICS_S_TOTAL_ISL},
    {true, METRICS_S_TOTAL_OSL},
    {true, METRICS_S_ERROR_REQUEST_COUNT},
    {false, METRICS_ERROR_ISL},
    {true, METRICS_S_TOTAL_ERROR_ISL},
};
#define DECLARED_COUNT (sizeof(declared_order) / sizeof(declared_order[0]))

static json_t *record_json(const struct metrics_info *info, const struct metrics_stats *s)
{
    return json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, "
                     "s:I, s:f}",
                     "unit", info->unit, "avg", s->avg, "p1", s->p1, "p5", s->p5, "p10", s->p10,
                     "p25", s->p25, "p50", s->p50, "p75", s->p75, "p90", s->p90, "p95", s->p95,
                     "p99", s->p99, "min", s->min, "max", s->max, "std", s->std, "count",
                     (json_int_t)s->count, "sum", s->sum);
}

static int put_metric(json_t *root, const struct metrics_summary *s, struct metric_ref ref)
{
    if (ref.scalar ? !s->scalar_present[ref.id] : !s->record_present[ref.id]) {
        return 0;
    }
    const struct metrics_info *info =
        ref.scalar ? metrics_scalar_info_of(ref.id) : metrics_info_of(ref.id);
    json_t *value = ref.scalar
                        ? json_pack("{s:s, s:f}", "unit", info->unit, "avg", s->scalar[ref.id])
                        : record_json(info, &s->record[ref.id]);
    return json_object_set_new(root, info->tag, value);
}

static bool is_declared(struct metric_ref ref)
{
    for (size_t i = 0; i < DECLARED_COUNT; i++) {
        if (declared_order[i].scalar == ref.scalar && declared_order[i].id == ref.id) {
            return true;
        }
    }
    return false;
}

/* adj_json is AIPerf's adj_<tag> block: avg, p1..p99, min, max, count, sum, no std; what a
 * failure (+Inf) makes non-finite is null. */
static json_t *adj_json(const struct metrics_info *info, const struct metrics_adj *adj)
{
    static const char *const names[METRICS_ADJ_PERCENTILES] = {"p1",  "p5",  "p10", "p25", "p50",
                                                               "p75", "p90", "p95", "p99"};
    json_t *o = json_pack("{s:s, s:n}", "unit", info->unit, "avg");
    for (int i = 0; o != NULL && i < METRICS_ADJ_PERCENTILES; i++) {
        json_object_set_new(o, names[i],
                            adj->finite[i] ? json_real(adj->percentile[i]) : json_null());
    }
    if (o != NULL) {
        json_object_set_new(o, "min", adj->has_min ? json_real(adj->min) : json_null());
        json_object_set_new(o, "max", json_null());
        json_object_set_new(o, "count", json_integer((json_int_t)adj->count));
        json_object_set_new(o, "sum", json_null());
    }
    return o;
}

/* put_declared writes AIPerf's 25 declared metric slots, in their order. */
static int put_declared(json_t *root, const struct metrics_summary *s)
{
    int ret = 0;
    for (size_t i = 0; i < DECLARED_COUNT; i++) {
        ret |= put_metric(root, s, declared_order[i]);
    }
    return ret;
}

/* sweep_json is a sweep-line metric's block: AIPerf keeps avg, p50, p90, p95, p99, min, max and
 * std of those (no count, no sum). */
static json_t *sweep_json(const struct metrics_info *info, const struct metrics_sweep_stats *st)
{
    return json_pack("{s:s, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "unit", info->unit, "avg",
                     st->avg, "p50", st->p50, "p90", st->p90, "p95", st->p95, "p99", st->p99, "min",
                     st->min, "max", st->max, "std", st->std);
}

/* put_sweep writes the sweep-line metrics, which AIPerf injects after the adj_* blocks. */
static int put_sweep(json_t *root, const struct metrics_summary *s)
{
    int ret = 0;
    for (int id = 0; s->sweep.present && id < METRICS_SWEEP_COUNT; id++) {
        const struct metrics_info *info = metrics_sweep_info_of((enum metrics_sweep_id)id);
        ret |= json_object_set_new(root, info->tag, sweep_json(info, &s->sweep.stat[id]));
    }
    return ret;
}

/* put_extras writes every other metric (AIPerf's "extra" keys), then the adj_* blocks and the
 * sweep-line metrics. */
static int put_extras(json_t *root, const struct metrics_summary *s)
{
    int ret = 0;
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        struct metric_ref ref = {false, id};
        ret |= is_declared(ref) ? 0 : put_metric(root, s, ref);
    }
    for (int id = 0; id < METRICS_SCALAR_COUNT; id++) {
        struct metric_ref ref = {true, id};
        ret |= is_declared(ref) ? 0 : put_metric(root, s, ref);
    }
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        if (s->adj_present[id]) {
            const struct metrics_info *info = metrics_info_of((enum metrics_id)id);
            char key[96];
            snprintf(key, sizeof(key), "adj_%s", info->tag);
            ret |= json_object_set_new(root, key, adj_json(info, &s->adj[id]));
        }
    }
    return ret | put_sweep(root, s);
}

static int put_metrics(json_t *root, const struct metrics_summary *s)
{
    return put_declared(root, s) | put_extras(root, s);
}

int export_iso_time(int64_t wall_ns, char *out, size_t cap)
{
    time_t secs = (time_t)(wall_ns / 1000000000LL);
    long micros = (long)((wall_ns % 1000000000LL) / 1000);
    struct tm tm;
    if (wall_ns < 0 || cap < 27 || localtime_r(&secs, &tm) == NULL) {
        return -EINVAL;
    }
    size_t n = strftime(out, cap, "%Y-%m-%dT%H:%M:%S", &tm);
    if (n == 0 || n + 8 > cap) {
        return -EINVAL;
    }
    snprintf(out + n, cap - n, ".%06ld", micros);
    return 0;
}

static json_t *time_json(int64_t wall_ns)
{
    char text[64];
    if (wall_ns == 0 || export_iso_time(wall_ns, text, sizeof(text)) != 0) {
        return json_null();
    }
    return json_string(text);
}

static json_t *string_or_null(const char *s)
{
    return s != NULL ? json_string(s) : json_null();
}

static json_t *run_info_json(const struct export_run_info *info)
{
    json_t *run_info =
        json_pack("{s:o, s:n, s:o, s:i, s:s, s:s, s:i, s:{}, s:o}", "benchmark_id",
                  string_or_null(info->benchmark_id), "sweep_id", "random_seed",
                  info->random_seed_set ? json_integer(info->random_seed) : json_null(), "trial", 0,
                  "run_label", "run_0001", "variation_label", "base", "variation_index", 0,
                  "variation_values", "cli_command", string_or_null(info->cli_command));
    if (run_info != NULL && info->extra != NULL && json_object_update(run_info, info->extra) != 0) {
        json_decref(run_info);
        return NULL;
    }
    return run_info;
}

static json_t *errors_json(const struct export_run_info *info)
{
    json_t *list = json_array();
    for (size_t i = 0; list != NULL && i < info->error_count; i++) {
        const struct export_error_row *e = &info->errors[i];
        json_t *row = json_pack("{s:{s:o, s:s?, s:s?}, s:I}", "error_details", "code",
                                e->code != 0 ? json_integer(e->code) : json_null(), "type", e->type,
                                "message", e->message, "count", (json_int_t)e->count);
        if (json_array_append_new(list, row) != 0) {
            json_decref(list);
            return NULL;
        }
    }
    /* The counts add up to error_request_count: kinds past the listed ones in one row. */
    if (list != NULL && info->errors_unlisted > 0 &&
        json_array_append_new(list, json_pack("{s:{s:n, s:s, s:s}, s:I}", "error_details", "code",
                                              "type", "Other", "message",
                                              "errors of further kinds than the summary lists",
                                              "count", (json_int_t)info->errors_unlisted)) != 0) {
        json_decref(list);
        return NULL;
    }
    return list;
}

static int put_provenance(json_t *root, const struct export_run_info *info)
{
    json_t *config = info->input_config != NULL ? json_incref(info->input_config) : json_object();
    int ret = json_object_set_new(root, "input_config", config);
    ret |= json_object_set_new(root, "run_info", run_info_json(info));
    ret |= json_object_set_new(root, "was_cancelled", json_boolean(info->was_cancelled));
    ret |= json_object_set_new(root, "error_summary", errors_json(info));
    ret |= json_object_set_new(root, "start_time", time_json(info->start_wall_ns));
    ret |= json_object_set_new(root, "end_time", time_json(info->end_wall_ns));
    if (info->warmup_metrics != NULL) {
        json_t *warmup = json_object();
        ret |= warmup != NULL ? put_metrics(warmup, info->warmup_metrics) : -1;
        ret |= json_object_set_new(root, "warmup_metrics", warmup);
    }
    return ret;
}

/* put_spec_histogram writes AIPerf's pooled_spec_decode_acceptance_histogram, a declared field
 * after warmup_metrics, when the run had speculative-decoding statistics. */
static int put_spec_histogram(json_t *root, const struct metrics_summary *s)
{
    json_t *histogram = export__spec_histogram_json(s);
    if (histogram == NULL) {
        return s->spec_present ? -1 : 0;
    }
    return json_object_set_new(root, "pooled_spec_decode_acceptance_histogram", histogram);
}

json_t *export_summary_json(const struct metrics_summary *summary,
                            const struct export_run_info *info)
{
    json_t *root = json_object();
    if (root == NULL) {
        return NULL;
    }
    int ret = json_object_set_new(root, "schema_version", json_string(EXPORT_SCHEMA_VERSION));
    ret |= json_object_set_new(root, "aiperf_version", json_string(EXPORT_AIPERF_VERSION));
    ret |= json_object_set_new(root, "benchmark_id", string_or_null(info->benchmark_id));
    /* Pydantic's order: the declared fields (metric slots, then the provenance), then the
     * extra keys, every other metric among them (spec §1.2). */
    ret |= put_declared(root, summary);
    if (info->telemetry_data != NULL) {
        ret |= json_object_set(root, "telemetry_data", info->telemetry_data);
    }
    ret |= put_provenance(root, info);
    ret |= put_spec_histogram(root, summary);
    ret |= put_extras(root, summary);
    if (info->extra_metrics != NULL) {
        ret |= json_object_update(root, info->extra_metrics);
    }
    if (ret != 0) {
        json_decref(root);
        return NULL;
    }
    return root;
}

int export_summary_json_write(const char *path, const struct metrics_summary *summary,
                              const struct export_run_info *info)
{
    json_t *root = export_summary_json(summary, info);
    if (root == NULL) {
        return -ENOMEM;
    }
    errno = 0;
    int ret =
        json_dump_file(root, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    /* jansson keeps the errno of the open, write or close that failed: the reason to show. */
    int err = ret == 0 ? 0 : errno != 0 ? errno : EIO;
    json_decref(root);
    return -err;
}
