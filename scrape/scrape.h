/*
 * scrape.h - the server-metrics scraper: a thread of its own (never a shard) that fetches each
 * Prometheus endpoint about every 333 ms from before the warmup until after profiling, with
 * ringperf's own HTTP codec (http/), TLS (tls/) and the engine's targets (addresses, proxies,
 * Host, credentials), parses every exposition with prometheus/ and keeps the samples; and the
 * reduction of those samples over a phase's window into AIPerf's series statistics.
 *
 * Threads: scrape_start, scrape_phase, scrape_stop and scrape_free run on the caller's thread
 * (the coordinator, between engine runs, never during one); the scrapes run on the scraper's
 * thread. Everything read through the accessors below is stable only after scrape_stop.
 */
#ifndef RINGPERF_SCRAPE_H
#define RINGPERF_SCRAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/engine.h"
#include "http/http.h"
#include "prometheus/prometheus.h"

/* SCRAPE_URL_BYTES bounds an endpoint's URL as exported. */
#define SCRAPE_URL_BYTES 600
/* SCRAPE_ERROR_BYTES bounds the words saying why a fetch failed. */
#define SCRAPE_ERROR_BYTES 256
/* SCRAPE_BODY_BYTES_MAX_DEFAULT is the largest /metrics body kept (bigger ones are refused
 * with a reason, so a runaway exposition cannot eat the client's memory). */
#define SCRAPE_BODY_BYTES_MAX_DEFAULT (8u << 20)
/* SCRAPE_LINE_BYTES_MAX is the longest exposition line. */
#define SCRAPE_LINE_BYTES_MAX 65536
/* SCRAPE_SAMPLES_MAX_DEFAULT bounds the samples a run keeps (12 bytes each); scrapes after it
 * are counted as dropped and said so in the export. */
#define SCRAPE_SAMPLES_MAX_DEFAULT (8u << 20)
/* SCRAPE_PERCENTILES are the percentiles every statistic reports (AIPerf's p1..p99). */
#define SCRAPE_PERCENTILE_COUNT 9
extern const double scrape_percentiles[SCRAPE_PERCENTILE_COUNT];

/* scrape_endpoint is one /metrics URL to scrape, resolved by the caller. */
struct scrape_endpoint {
    char url[SCRAPE_URL_BYTES];  /* as exported: scheme://authority/path, no credentials */
    struct engine_target target; /* where and how to connect; tls borrowed */
    /* The --url's own /metrics: a 404 tries TRT-LLM's /prometheus/metrics instead, and a
     * server without metrics is said once, quietly. */
    bool is_default;
    /* Probed quietly (AIPerf's default DCGM exporters): when the fetch before the run fails,
     * the endpoint is turned off without a word. */
    bool optional;
    /* Local GPUs read through NVML (--gpu-telemetry pynvml) instead of an HTTP fetch: url is
     * "pynvml://localhost", target unused. A library that cannot be loaded turns the endpoint
     * off with one warning. */
    bool nvml;
};

/* scrape_config is what scrape_start needs (borrowed for the scraper's lifetime). */
struct scrape_config {
    const struct scrape_endpoint *endpoints;
    size_t endpoint_count;
    const struct http_header *headers; /* -H headers sent with every scrape */
    size_t header_count;
    int64_t interval_ns;   /* between scrape starts; AIPerf's 333 ms */
    int64_t timeout_ns;    /* one fetch, connect to last byte */
    size_t body_bytes_max; /* 0 = SCRAPE_BODY_BYTES_MAX_DEFAULT */
    size_t samples_max;    /* 0 = SCRAPE_SAMPLES_MAX_DEFAULT */
    bool quiet;            /* no notices on stderr */
    /* The NVML library an nvml endpoint loads with dlopen (borrowed); NULL = SCRAPE_NVML_LIBRARY.
     * Never linked: a machine without NVIDIA's driver runs without it. */
    const char *nvml_library;
};

/* SCRAPE_NVML_LIBRARY is NVIDIA's management library as the driver installs it. */
#define SCRAPE_NVML_LIBRARY "libnvidia-ml.so.1"

/* scrape_phase_kind names the phases the scraper's windows follow. */
enum scrape_phase_kind {
    SCRAPE_PHASE_WARMUP = 0,
    SCRAPE_PHASE_PROFILING,
    SCRAPE_PHASE_COUNT,
};

/* scrape_window is a phase's time range (CLOCK_REALTIME ns); start 0 = the phase never ran. */
struct scrape_window {
    int64_t start_ns;
    int64_t end_ns;
};

struct scrape;

/* scrape_start validates cfg, fetches every endpoint once (before anything is sent, so the
 * window's first reference exists and a server without metrics is known), and starts the
 * scraper's thread. Endpoints that fail keep being tried; one whose body is JSON is turned off.
 * Returns 0 and *out (owned: scrape_free), -EINVAL with a message in errbuf for a bad config,
 * or -errno when the thread cannot start. */
int scrape_start(const struct scrape_config *cfg, struct scrape **out, char *errbuf, size_t errcap);

/* scrape_phase marks the start of `phase` (and the end of the one before): it asks for a scrape
 * now and waits for it (at most the fetch timeout), so that the phase's counters start from a
 * sample taken after the previous phase's last response. */
void scrape_phase(struct scrape *s, enum scrape_phase_kind phase);

/* scrape_stop ends the current phase with one last scrape, after the last response, and stops
 * the thread. Idempotent. */
void scrape_stop(struct scrape *s);

/* scrape_free stops the scraper if needed and frees it. scrape_free(NULL) is a no-op. */
void scrape_free(struct scrape *s);

/* scrape_window_of returns the window of `phase` (zeroes when it never ran). */
struct scrape_window scrape_window_of(const struct scrape *s, enum scrape_phase_kind phase);

/* scrape_endpoint_info is what happened to one endpoint over the run. */
struct scrape_endpoint_info {
    const char *url;   /* the URL finally scraped (the fallback when it was used) */
    uint64_t fetches;  /* successful fetches */
    uint64_t failures; /* fetches that failed */
    int64_t first_fetch_ns, last_fetch_ns; /* CLOCK_REALTIME, of successful fetches */
    double avg_fetch_latency_ms;
    uint64_t unique_updates; /* successful fetches whose samples differed from the one before */
    int64_t first_update_ns, last_update_ns;
    double avg_update_interval_ms, median_update_interval_ms;
    bool disabled;    /* collection turned off (JSON body) */
    uint64_t dropped; /* successful fetches not kept: the sample limit was reached */
    char last_error[SCRAPE_ERROR_BYTES]; /* "" or why the last failed fetch failed */
    char disabled_reason[SCRAPE_ERROR_BYTES];
};

/* scrape_endpoint_count returns how many endpoints the scraper has. */
size_t scrape_endpoint_count(const struct scrape *s);

/* scrape_endpoint_info_of fills *out for endpoint i (views valid until scrape_free). */
void scrape_endpoint_info_of(const struct scrape *s, size_t i, struct scrape_endpoint_info *out);

/* scrape_label is one label of a series, unescaped, NUL-terminated (owned by the scraper). */
struct scrape_label {
    const char *name;
    const char *value;
};

/* scrape_gauge_stats, scrape_counter_stats and scrape_histogram_stats are AIPerf's series
 * statistics (spec §6.2). */
struct scrape_gauge_stats {
    double avg, min, max, std;
    double p[SCRAPE_PERCENTILE_COUNT];
};

struct scrape_counter_stats {
    double total, rate;
    bool has_rate_stats; /* with slices: rate_avg/min/max/std over the complete ones */
    double rate_avg, rate_min, rate_max, rate_std;
};

struct scrape_histogram_stats {
    double count, sum, avg;
    bool has_rates; /* count_rate and sum_rate need a non-empty duration */
    double count_rate, sum_rate;
    bool has_estimates; /* p*_estimate need bucket deltas */
    double p_estimate[SCRAPE_PERCENTILE_COUNT];
    bool has_buckets;       /* false when a bucket went backwards (a reset) */
    size_t bucket_count;    /* buckets below, in ascending le order */
    const char **bucket_le; /* the le label as exposed ("0.1", "+Inf") */
    double *bucket_delta;
};

/* scrape_series_stats is one series' statistics in a window. */
struct scrape_series_stats {
    size_t endpoint;
    const struct scrape_label *labels; /* without a histogram's le */
    size_t label_count;
    enum prom_type type; /* PROM_UNTYPED and PROM_SUMMARY report gauge statistics */
    struct scrape_gauge_stats gauge;
    struct scrape_counter_stats counter;
    struct scrape_histogram_stats histogram;
};

/* scrape_family_stats is one metric family: its series with samples in the window. */
struct scrape_family_stats {
    const char *name;
    enum prom_type type;
    const char *help; /* unescaped; "" without a HELP line */
    const char *unit; /* inferred from the name's suffix; NULL when none */
    struct scrape_series_stats *series;
    size_t series_count;
};

/* scrape_report is every family with data in one window, in first-seen order. */
struct scrape_report {
    struct scrape_family_stats *families;
    size_t family_count;
};

/* scrape_slicing cuts a window into slices of slice_ns from its start (0 = no slices), of
 * which only the first slices_max count: the caller's bound, since a tiny slice over a long run
 * would otherwise make millions of them. */
struct scrape_slicing {
    int64_t slice_ns;
    size_t slices_max;
};

/* scrape_reduce computes the statistics of window w (counters from the last sample at or
 * before its start; gauges over the samples inside it); a slicing adds counter rate statistics
 * over its complete slices (the first slices_max). _created series are left out. Returns 0 or
 * -ENOMEM; *out is freed with scrape_report_free either way. */
int scrape_reduce(const struct scrape *s, struct scrape_window w, struct scrape_slicing sl,
                  struct scrape_report *out);

/* scrape_reduce_slices reduces each slice of window w (sl: the last slice ends at w.end_ns,
 * partial) as scrape_reduce(s, slice, no slicing) would, in one pass over the samples: it calls
 * on_slice(ctx, slice, report) for each of the first sl.slices_max slices that has a sample, in
 * time order (report valid during the call). Later slices are left out. Returns 0, -ENOMEM, or
 * the first non-zero return of on_slice, which stops the pass. */
int scrape_reduce_slices(const struct scrape *s, struct scrape_window w, struct scrape_slicing sl,
                         int (*on_slice)(void *ctx, struct scrape_window slice,
                                         const struct scrape_report *r),
                         void *ctx);

/* scrape_report_free frees what scrape_reduce made. */
void scrape_report_free(struct scrape_report *r);

/* scrape_record is one successful fetch, in time order. */
struct scrape_record {
    size_t endpoint;
    int64_t timestamp_ns;    /* CLOCK_REALTIME when the body was read */
    int64_t request_sent_ns; /* CLOCK_REALTIME */
    int64_t first_byte_ns;   /* CLOCK_REALTIME */
    int64_t latency_ns;      /* request sent to last byte */
};

/* scrape_sample_view is one kept sample of a record. */
struct scrape_sample_view {
    const char *family;
    enum prom_type type;
    enum prom_suffix suffix;
    const struct scrape_label *labels; /* without a histogram's le */
    size_t label_count;
    const char *le; /* a bucket's le, else NULL */
    size_t group;   /* same value for a histogram's buckets, sum and count of one series */
    double value;
};

/* scrape_record_count returns how many fetches were kept. */
size_t scrape_record_count(const struct scrape *s);

/* scrape_record_at fills *out with record i and returns how many samples it has. */
size_t scrape_record_at(const struct scrape *s, size_t i, struct scrape_record *out);

/* scrape_record_sample fills *out with sample j of record i. */
void scrape_record_sample(const struct scrape *s, size_t i, size_t j,
                          struct scrape_sample_view *out);

/* scrape_gpu_field is one of AIPerf's GPU telemetry fields (spec §6.3), in its order. */
enum scrape_gpu_field {
    SCRAPE_GPU_POWER_USAGE = 0,
    SCRAPE_GPU_ENERGY_CONSUMPTION,
    SCRAPE_GPU_UTILIZATION,
    SCRAPE_GPU_MEMORY_UTILIZATION,
    SCRAPE_GPU_MEMORY_USED,
    SCRAPE_GPU_TEMPERATURE,
    SCRAPE_GPU_ENCODER_UTILIZATION,
    SCRAPE_GPU_DECODER_UTILIZATION,
    SCRAPE_GPU_SM_UTILIZATION,
    SCRAPE_GPU_XID_ERRORS,
    SCRAPE_GPU_POWER_VIOLATION,
    SCRAPE_GPU_FIELD_COUNT,
};

/* scrape_gpu_field_info is a field's AIPerf name ("nvidia_power_usage"), display name ("NVIDIA
 * GPU Power Usage", the CSV's and console's), unit ("W") and kind (a counter reports its window
 * delta, a gauge its statistics). */
struct scrape_gpu_field_info {
    const char *name;
    const char *display;
    const char *unit;
    bool counter;
};

/* scrape_gpu_field_info_of returns the static description of field f. */
const struct scrape_gpu_field_info *scrape_gpu_field_info_of(enum scrape_gpu_field f);

/* scrape_gpu_id is one GPU of a DCGM exporter, from its labels (views owned by the scraper;
 * "" when the exporter did not label it). */
struct scrape_gpu_id {
    size_t endpoint;
    const char *index;    /* label gpu */
    const char *uuid;     /* UUID */
    const char *model;    /* modelName */
    const char *hostname; /* Hostname */
    const char *pci_bus_id;
    const char *device;
};

/* scrape_gpu_sample is one GPU's fields in one fetch, scaled to AIPerf's units. */
struct scrape_gpu_sample {
    struct scrape_gpu_id id;
    bool present[SCRAPE_GPU_FIELD_COUNT];
    double value[SCRAPE_GPU_FIELD_COUNT];
};

/* SCRAPE_GPUS_MAX bounds the GPUs read from one fetch. */
#define SCRAPE_GPUS_MAX 64

/* scrape_gpu_samples maps the DCGM fields of record i (DCGM_FI_* names, AIPerf's nvidia_* names
 * and their legacy aliases) into out[0..SCRAPE_GPUS_MAX), one per GPU, and returns how many. */
size_t scrape_gpu_samples(const struct scrape *s, size_t i, struct scrape_gpu_sample *out);

/* scrape_gpu_stats is one GPU over a window: gauges' statistics and counters' deltas (negative
 * clamped to 0) in gauge[f].avg, as AIPerf's telemetry_data reports them. */
struct scrape_gpu_stats {
    struct scrape_gpu_id id;
    bool present[SCRAPE_GPU_FIELD_COUNT];
    struct scrape_gauge_stats gauge[SCRAPE_GPU_FIELD_COUNT];
    size_t count[SCRAPE_GPU_FIELD_COUNT];
    double sum[SCRAPE_GPU_FIELD_COUNT];
};

/* scrape_gpu_reduce computes every GPU's statistics over window w into *out (malloc'd, *out_count
 * entries; free() it). Returns 0 or -ENOMEM. */
int scrape_gpu_reduce(const struct scrape *s, struct scrape_window w, struct scrape_gpu_stats **out,
                      size_t *out_count);

/* scrape_live_figure names the server figures the live views show while the run goes, AIPerf's
 * server snapshot rows (spec §4.2): requests running and waiting and KV-cache usage (gauges, as
 * last read), and from the servers' counters since the current phase began (warmup apart, as
 * AIPerf's realtime rows), the prefix-cache hit rates, the tokens that missed the cache,
 * preemptions, and the input and output token rates. */
enum scrape_live_figure {
    SCRAPE_LIVE_NUM_RUNNING = 0,
    SCRAPE_LIVE_NUM_WAITING,
    SCRAPE_LIVE_KV_CACHE_USAGE,
    SCRAPE_LIVE_CPU_KV_CACHE_USAGE,
    SCRAPE_LIVE_PREFIX_CACHE_HIT_RATE,
    SCRAPE_LIVE_EXTERNAL_PREFIX_CACHE_HIT_RATE,
    SCRAPE_LIVE_UNIQUE_INPUT_TOKENS,
    SCRAPE_LIVE_NUM_PREEMPTIONS,
    SCRAPE_LIVE_INPUT_TOKEN_THROUGHPUT,
    SCRAPE_LIVE_OUTPUT_TOKEN_THROUGHPUT,
    SCRAPE_LIVE_FIGURE_COUNT,
};

/* SCRAPE_LIVE_GAUGES is how many of the figures, first in the list, are gauges: their avg is
 * the mean of every value published. The others are already over the phase: avg = current. */
#define SCRAPE_LIVE_GAUGES (SCRAPE_LIVE_CPU_KV_CACHE_USAGE + 1)

/* scrape_live_figure_info is a figure's AIPerf tag ("num_running"), header and unit. */
struct scrape_live_figure_info {
    const char *tag;
    const char *header;
    const char *unit;
};

/* scrape_live_figure_info_of returns the static description of figure f. */
const struct scrape_live_figure_info *scrape_live_figure_info_of(enum scrape_live_figure f);

/* SCRAPE_LIVE_GPUS_MAX bounds the GPUs a live view shows; SCRAPE_LIVE_ID_BYTES an identity. */
#define SCRAPE_LIVE_GPUS_MAX 16
#define SCRAPE_LIVE_ID_BYTES 96

/* scrape_live_gpu is one GPU's fields in its latest fetch, in AIPerf's units. */
struct scrape_live_gpu {
    size_t endpoint;
    char index[16];
    char uuid[SCRAPE_LIVE_ID_BYTES];
    char model[SCRAPE_LIVE_ID_BYTES];
    bool present[SCRAPE_GPU_FIELD_COUNT];
    double value[SCRAPE_GPU_FIELD_COUNT];
};

/* scrape_live is the latest picture the scraper's thread publishes after every successful
 * fetch: the server figures (current = summed over endpoints, KV-cache usage averaged; avg =
 * the mean of every published current) and each GPU's latest fields. A plain value. */
struct scrape_live {
    uint64_t fetches; /* successful fetches so far */
    bool present[SCRAPE_LIVE_FIGURE_COUNT];
    double current[SCRAPE_LIVE_FIGURE_COUNT];
    double avg[SCRAPE_LIVE_FIGURE_COUNT];
    size_t gpu_count;
    struct scrape_live_gpu gpus[SCRAPE_LIVE_GPUS_MAX];
};

/* scrape_live_read copies the latest picture into *out (zeroes for s NULL). Takes a mutex the
 * scraper's thread holds only to copy its picture in, never across a fetch, so the coordinator
 * can call it at every progress interval. */
void scrape_live_read(struct scrape *s, struct scrape_live *out);

#endif
