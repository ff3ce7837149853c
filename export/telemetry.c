/*
 * telemetry.c - GPU telemetry read from DCGM exporters: gpu_telemetry_export.jsonl (one line per
 * GPU per fetch), the summary's telemetry_data (spec §1.6) and AIPerf's NVIDIA energy metrics
 * (spec §1.9, power_efficiency_metrics.py), all over the profiling window.
 */
#include "export/export.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export/export_internal.h"

static json_t *number(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

/* display_of is AIPerf's endpoint key: the URL without its scheme and trailing /metrics. */
static void display_of(const char *url, char *out, size_t cap)
{
    const char *p = strstr(url, "://");
    p = p != NULL ? p + 3 : url;
    size_t len = strlen(p);
    const char *tail = "/metrics";
    if (len >= strlen(tail) && strcmp(p + len - strlen(tail), tail) == 0) {
        len -= strlen(tail);
    }
    snprintf(out, cap, "%.*s", (int)len, p);
}

static void put_id(json_t *o, const struct scrape_gpu_id *id)
{
    if (id->pci_bus_id[0] != '\0') {
        json_object_set_new(o, "pci_bus_id", json_string(id->pci_bus_id));
    }
    if (id->device[0] != '\0') {
        json_object_set_new(o, "device", json_string(id->device));
    }
    if (id->hostname[0] != '\0') {
        json_object_set_new(o, "hostname", json_string(id->hostname));
    }
    json_object_set_new(o, "platform", json_string("nvidia"));
}

static json_t *sample_line(const struct scrape_gpu_sample *g, const struct scrape_record *rec,
                           const char *url)
{
    json_t *o = json_object();
    json_object_set_new(o, "gpu_index", json_integer(strtol(g->id.index, NULL, 10)));
    json_object_set_new(o, "gpu_uuid", json_string(g->id.uuid));
    json_object_set_new(o, "gpu_model_name", json_string(g->id.model));
    put_id(o, &g->id);
    json_object_set_new(o, "timestamp_ns", json_integer((json_int_t)rec->timestamp_ns));
    json_object_set_new(o, "telemetry_source_url", json_string(url));
    json_t *data = json_object();
    for (int f = 0; f < SCRAPE_GPU_FIELD_COUNT; f++) {
        if (g->present[f]) {
            json_object_set_new(data, scrape_gpu_field_info_of((enum scrape_gpu_field)f)->name,
                                number(g->value[f]));
        }
    }
    json_object_set_new(o, "telemetry_data", data);
    return o;
}

int export_gpu_telemetry_jsonl(const char *path, const struct scrape *s)
{
    struct export_jsonw w = {0};
    int ret = export_jsonw_open(&w, path, 1u << 20, EXPORT_OUTFILE_BUFFERED, EXPORT_OUTFILE_STAGED);
    struct scrape_gpu_sample *gpus = malloc(SCRAPE_GPUS_MAX * sizeof(*gpus));
    ret = ret != 0 ? ret : gpus == NULL ? -ENOMEM : 0;
    for (size_t r = 0; ret == 0 && r < scrape_record_count(s); r++) {
        struct scrape_record rec;
        scrape_record_at(s, r, &rec);
        struct scrape_endpoint_info info;
        scrape_endpoint_info_of(s, rec.endpoint, &info);
        size_t n = scrape_gpu_samples(s, r, gpus);
        for (size_t g = 0; g < n && ret == 0; g++) {
            json_t *line = sample_line(&gpus[g], &rec, info.url);
            char *text =
                json_dumps(line, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
            json_decref(line);
            ret = text != NULL ? export__jsonw_text(&w, text, strlen(text)) : -ENOMEM;
            export_jsonw_raw(&w, "\n", 1);
            free(text);
        }
    }
    free(gpus);
    int close_ret = export_jsonw_close(&w);
    return ret != 0 ? ret : close_ret;
}

static json_t *field_block(const struct scrape_gpu_stats *g, enum scrape_gpu_field f)
{
    const struct scrape_gpu_field_info *info = scrape_gpu_field_info_of(f);
    json_t *o = json_object();
    json_object_set_new(o, "unit", json_string(info->unit));
    json_object_set_new(o, "avg", number(g->gauge[f].avg));
    if (info->counter) {
        return o; /* a counter reports its window delta alone */
    }
    for (size_t i = 0; i < SCRAPE_PERCENTILE_COUNT; i++) {
        char key[32];
        snprintf(key, sizeof(key), "p%g", scrape_percentiles[i]);
        json_object_set_new(o, key, number(g->gauge[f].p[i]));
    }
    json_object_set_new(o, "min", number(g->gauge[f].min));
    json_object_set_new(o, "max", number(g->gauge[f].max));
    json_object_set_new(o, "std", number(g->gauge[f].std));
    json_object_set_new(o, "count", json_integer((json_int_t)g->count[f]));
    json_object_set_new(o, "sum", number(g->sum[f]));
    return o;
}

static json_t *gpu_json(const struct scrape_gpu_stats *g)
{
    json_t *o = json_object();
    json_object_set_new(o, "gpu_index", json_integer(strtol(g->id.index, NULL, 10)));
    json_object_set_new(o, "gpu_name", json_string(g->id.model));
    json_object_set_new(o, "gpu_uuid", json_string(g->id.uuid));
    json_object_set_new(o, "platform", json_string("nvidia"));
    if (g->id.hostname[0] != '\0') {
        json_object_set_new(o, "hostname", json_string(g->id.hostname));
    }
    json_t *metrics = json_object();
    for (int f = 0; f < SCRAPE_GPU_FIELD_COUNT; f++) {
        if (g->present[f]) {
            json_object_set_new(metrics, scrape_gpu_field_info_of((enum scrape_gpu_field)f)->name,
                                field_block(g, (enum scrape_gpu_field)f));
        }
    }
    json_object_set_new(o, "metrics", metrics);
    return o;
}

static json_t *endpoints_json(const struct scrape *s, const struct scrape_gpu_stats *gpus, size_t n,
                              json_t *configured, json_t *successful)
{
    json_t *endpoints = json_object();
    for (size_t e = 0; e < scrape_endpoint_count(s); e++) {
        struct scrape_endpoint_info info;
        scrape_endpoint_info_of(s, e, &info);
        json_array_append_new(configured, json_string(info.url));
        if (info.fetches == 0) {
            continue;
        }
        json_array_append_new(successful, json_string(info.url));
        char display[SCRAPE_URL_BYTES];
        display_of(info.url, display, sizeof(display));
        json_t *by_gpu = json_object();
        for (size_t g = 0; g < n; g++) {
            if (gpus[g].id.endpoint == e) {
                char key[64];
                snprintf(key, sizeof(key), "gpu_%s", gpus[g].id.index);
                json_object_set_new(by_gpu, key, gpu_json(&gpus[g]));
            }
        }
        json_object_set_new(endpoints, display, json_pack("{s:o}", "gpus", by_gpu));
    }
    return endpoints;
}

json_t *export_telemetry_data(const struct scrape *s)
{
    struct scrape_window w = scrape_window_of(s, SCRAPE_PHASE_PROFILING);
    struct scrape_gpu_stats *gpus = NULL;
    size_t n = 0;
    if (scrape_gpu_reduce(s, w, &gpus, &n) != 0 || n == 0) {
        free(gpus);
        return NULL; /* AIPerf writes telemetry_data only when telemetry produced data */
    }
    json_t *configured = json_array();
    json_t *successful = json_array();
    json_t *endpoints = endpoints_json(s, gpus, n, configured, successful);
    char start[64] = "";
    char end[64] = "";
    export_iso_time(w.start_ns, start, sizeof(start));
    export_iso_time(w.end_ns, end, sizeof(end));
    json_t *summary =
        json_pack("{s:o, s:o, s:s, s:s}", "endpoints_configured", configured,
                  "endpoints_successful", successful, "start_time", start, "end_time", end);
    free(gpus);
    return json_pack("{s:o, s:o, s:[]}", "summary", summary, "endpoints", endpoints,
                     "error_summary");
}

/* energy_totals is the GPUs' energy over the profiling window (J, from the counters; power x
 * time for a GPU with no energy counter), their summed power gauges (W), how many GPUs had a
 * power gauge, and the window's length (s). */
struct energy_totals {
    double energy_j;
    double power_w;
    size_t power_gpus;
    double seconds;
};

static bool energy_totals(const struct scrape *s, struct energy_totals *out)
{
    struct scrape_window w = scrape_window_of(s, SCRAPE_PHASE_PROFILING);
    struct scrape_gpu_stats *gpus = NULL;
    size_t n = 0;
    if (scrape_gpu_reduce(s, w, &gpus, &n) != 0) {
        n = 0;
    }
    *out = (struct energy_totals){.seconds = (double)(w.end_ns - w.start_ns) / 1e9};
    bool any = false;
    for (size_t g = 0; g < n; g++) {
        bool power = gpus[g].present[SCRAPE_GPU_POWER_USAGE];
        double watts = power ? gpus[g].gauge[SCRAPE_GPU_POWER_USAGE].avg : 0;
        if (gpus[g].present[SCRAPE_GPU_ENERGY_CONSUMPTION]) {
            out->energy_j += gpus[g].gauge[SCRAPE_GPU_ENERGY_CONSUMPTION].avg * 1e6;
        } else if (power) {
            out->energy_j += watts * out->seconds;
        }
        any |= power || gpus[g].present[SCRAPE_GPU_ENERGY_CONSUMPTION];
        out->power_w += watts;
        out->power_gpus += power;
    }
    free(gpus);
    return any && out->energy_j > 0;
}

/* ENERGY_ROW is one metric's description: totals in their display unit already (factor 1). */
#define ENERGY_ROW(tag, header, unit)                                                              \
    {                                                                                              \
        tag, header, unit, 1.0, 0, 0                                                               \
    }

static const struct metrics_info ENERGY[EXPORT__ENERGY_COUNT] = {
    [EXPORT__ENERGY_DELAY_PRODUCT] =
        ENERGY_ROW("nvidia_energy_delay_product", "Energy Delay Product", "J*s"),
    [EXPORT__ENERGY_PERFORMANCE_PER_WATT] =
        ENERGY_ROW("nvidia_performance_per_watt", "Performance per Watt", "requests/sec/W"),
    [EXPORT__ENERGY_OUTPUT_TPS_PER_WATT] = ENERGY_ROW(
        "nvidia_output_tps_per_watt", "Output Tokens per Second per Watt", "tokens/sec/W"),
    [EXPORT__ENERGY_GOODPUT_PER_WATT] =
        ENERGY_ROW("nvidia_goodput_per_watt", "Goodput per Watt", "good-req/s/W"),
    [EXPORT__ENERGY_AVERAGE_GPU_POWER] =
        ENERGY_ROW("nvidia_average_gpu_power", "Average GPU Power", "W"),
    [EXPORT__ENERGY_TOTAL_GPU_ENERGY] =
        ENERGY_ROW("nvidia_total_gpu_energy", "Total GPU Energy", "J"),
    [EXPORT__ENERGY_TOTAL_GPU_POWER] = ENERGY_ROW("nvidia_total_gpu_power", "Total GPU Power", "W"),
    [EXPORT__ENERGY_PER_TOTAL_TOKEN] =
        ENERGY_ROW("nvidia_energy_per_total_token", "Energy per Total Token", "mJ/token"),
    [EXPORT__ENERGY_PER_OUTPUT_TOKEN] =
        ENERGY_ROW("nvidia_energy_per_output_token", "Energy per Output Token", "mJ/token"),
    [EXPORT__ENERGY_PER_REQUEST] =
        ENERGY_ROW("nvidia_energy_per_request", "Energy per Request", "joules/request"),
    [EXPORT__ENERGY_OUTPUT_TOKENS_PER_JOULE] =
        ENERGY_ROW("nvidia_output_tokens_per_joule", "Output Tokens per Joule", "tokens/J"),
    [EXPORT__ENERGY_PER_USER] =
        ENERGY_ROW("nvidia_energy_per_user", "Energy per User", "joules/user"),
};
#undef ENERGY_ROW

const struct metrics_info *export__energy_info(enum export__energy id)
{
    return &ENERGY[id];
}

static void put_scalar(json_t *o, enum export__energy id, double v)
{
    if (isfinite(v)) {
        json_object_set_new(o, ENERGY[id].tag,
                            json_pack("{s:s, s:f}", "unit", ENERGY[id].unit, "avg", v));
    }
}

/* put_energy_ratios adds the metrics that divide the energy by the run's counts. */
static void put_energy_ratios(json_t *o, double energy, const struct metrics_summary *summary,
                              int64_t concurrency)
{
    const double *sc = summary->scalar;
    const bool *has = summary->scalar_present;
    if (has[METRICS_S_TOTAL_OUTPUT_TOKENS] && sc[METRICS_S_TOTAL_OUTPUT_TOKENS] > 0) {
        put_scalar(o, EXPORT__ENERGY_OUTPUT_TOKENS_PER_JOULE,
                   sc[METRICS_S_TOTAL_OUTPUT_TOKENS] / energy);
        put_scalar(o, EXPORT__ENERGY_PER_OUTPUT_TOKEN,
                   energy * 1e3 / sc[METRICS_S_TOTAL_OUTPUT_TOKENS]);
    }
    if (has[METRICS_S_TOTAL_ISL] && has[METRICS_S_TOTAL_OSL]) {
        double total = sc[METRICS_S_TOTAL_ISL] + sc[METRICS_S_TOTAL_OSL];
        if (total > 0) {
            put_scalar(o, EXPORT__ENERGY_PER_TOTAL_TOKEN, energy * 1e3 / total);
        }
    }
    if (!has[METRICS_S_REQUEST_COUNT] || sc[METRICS_S_REQUEST_COUNT] <= 0) {
        return;
    }
    double per_request = energy / sc[METRICS_S_REQUEST_COUNT];
    put_scalar(o, EXPORT__ENERGY_PER_REQUEST, per_request);
    if (concurrency > 0) {
        put_scalar(o, EXPORT__ENERGY_PER_USER, energy / (double)concurrency);
    }
    /* The energy of one request times how long one took: the mean latency, in seconds. */
    const struct metrics_stats *latency = &summary->record[METRICS_REQUEST_LATENCY];
    if (summary->record_present[METRICS_REQUEST_LATENCY] && latency->avg > 0) {
        put_scalar(o, EXPORT__ENERGY_DELAY_PRODUCT, per_request * latency->avg / 1e3);
    }
}

json_t *export_energy_metrics(const struct scrape *s, const struct metrics_summary *summary,
                              int64_t concurrency)
{
    struct energy_totals t;
    if (!energy_totals(s, &t)) {
        return NULL;
    }
    const double *sc = summary->scalar;
    const bool *has = summary->scalar_present;
    json_t *o = json_object();
    /* As AIPerf: the GPUs' average power together is the energy over the window, and the
     * per-watt metrics divide by it. */
    double power = t.seconds > 0 ? t.energy_j / t.seconds : 0;
    if (t.power_gpus > 0) {
        put_scalar(o, EXPORT__ENERGY_TOTAL_GPU_POWER, t.power_w);
    }
    if (power > 0) {
        put_scalar(o, EXPORT__ENERGY_AVERAGE_GPU_POWER, power);
    }
    put_scalar(o, EXPORT__ENERGY_TOTAL_GPU_ENERGY, t.energy_j);
    put_energy_ratios(o, t.energy_j, summary, concurrency);
    if (power > 0 && has[METRICS_S_REQUEST_THROUGHPUT]) {
        put_scalar(o, EXPORT__ENERGY_PERFORMANCE_PER_WATT,
                   sc[METRICS_S_REQUEST_THROUGHPUT] / power);
    }
    if (power > 0 && has[METRICS_S_OUTPUT_TOKEN_THROUGHPUT]) {
        put_scalar(o, EXPORT__ENERGY_OUTPUT_TPS_PER_WATT,
                   sc[METRICS_S_OUTPUT_TOKEN_THROUGHPUT] / power);
    }
    if (power > 0 && has[METRICS_S_GOODPUT]) {
        put_scalar(o, EXPORT__ENERGY_GOODPUT_PER_WATT, sc[METRICS_S_GOODPUT] / power);
    }
    return o;
}

/* AIPerf's CSV statistics columns (STAT_KEYS), the record section's own. */
static const char *const CSV_STATS[] = {"avg", "min", "max", "sum", "p1",  "p5",  "p10",
                                        "p25", "p50", "p75", "p90", "p95", "p99", "std"};

/* csv_pass is one walk over every GPU of telemetry_data: the first only looks for a hostname
 * (AIPerf adds the column only when some GPU has one), the second writes the rows. */
struct csv_pass {
    FILE *out; /* NULL: the hostname pass */
    bool hostname;
};

static void put_gpu_rows(FILE *out, const char *display, const json_t *gpu, bool hostname);

static void each_gpu(const json_t *endpoints, struct csv_pass *pass)
{
    const char *display;
    json_t *ep;
    json_object_foreach((json_t *)endpoints, display, ep)
    {
        const char *key;
        json_t *gpu;
        json_object_foreach(json_object_get(ep, "gpus"), key, gpu)
        {
            if (pass->out == NULL) {
                pass->hostname |= json_object_get(gpu, "hostname") != NULL;
            } else {
                put_gpu_rows(pass->out, display, gpu, pass->hostname);
            }
        }
    }
}

/* put_gpu_rows writes one row per field of a GPU, in AIPerf's field order. */
static void put_gpu_rows(FILE *out, const char *display, const json_t *gpu, bool hostname)
{
    const json_t *metrics = json_object_get(gpu, "metrics");
    for (int f = 0; f < SCRAPE_GPU_FIELD_COUNT; f++) {
        const struct scrape_gpu_field_info *info = scrape_gpu_field_info_of(f);
        const json_t *block = json_object_get(metrics, info->name);
        if (block == NULL) {
            continue;
        }
        export_csv_field(out, display);
        fprintf(out, ",%lld,", (long long)json_integer_value(json_object_get(gpu, "gpu_index")));
        export_csv_field(out, json_string_value(json_object_get(gpu, "gpu_name")));
        fputc(',', out);
        export_csv_field(out, json_string_value(json_object_get(gpu, "gpu_uuid")));
        fputc(',', out);
        export_csv_field(out, json_string_value(json_object_get(gpu, "platform")));
        char label[160];
        snprintf(label, sizeof(label), "%s (%s)", info->display, info->unit);
        fputc(',', out);
        export_csv_field(out, label);
        for (size_t s = 0; s < sizeof(CSV_STATS) / sizeof(CSV_STATS[0]); s++) {
            const json_t *v = json_object_get(block, CSV_STATS[s]);
            if (json_is_number(v)) {
                fprintf(out, ",%.2f", json_number_value(v));
            } else {
                fputc(',', out); /* None: a counter reports its delta alone */
            }
        }
        if (hostname) {
            const char *h = json_string_value(json_object_get(gpu, "hostname"));
            fputc(',', out);
            export_csv_field(out, h != NULL ? h : "");
        }
        fputc('\n', out);
    }
}

int export_telemetry_csv(FILE *out, const json_t *telemetry_data)
{
    const json_t *endpoints = json_object_get(telemetry_data, "endpoints");
    if (endpoints == NULL) {
        return 0;
    }
    struct csv_pass pass = {0};
    each_gpu(endpoints, &pass);
    fputs("\n\nEndpoint,GPU_Index,GPU_Name,GPU_UUID,Platform,Metric", out);
    for (size_t s = 0; s < sizeof(CSV_STATS) / sizeof(CSV_STATS[0]); s++) {
        fprintf(out, ",%s", CSV_STATS[s]);
    }
    fputs(pass.hostname ? ",Hostname\n" : "\n", out);
    pass.out = out;
    each_gpu(endpoints, &pass);
    return ferror(out) ? -EIO : 0;
}
