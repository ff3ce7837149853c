/*
 * api.h - the live HTTP API of `ringperf profile --api-port` (AIPerf's
 * in-process FastAPI server): JSON views of the configuration, run identity,
 * live metrics, progress and workers, a Prometheus text exposition at
 * /metrics, the result files, health probes and OpenAPI documentation.
 *
 * Threads. libmicrohttpd answers requests on its own thread. The run's
 * coordinator publishes a struct api_snapshot (a plain value: counts and
 * histogram views already reduced to numbers) about once per progress
 * interval with api_server_publish; that copy, under a mutex only the API
 * thread and the publisher take, is the only contact between the two. The
 * shards never see the API, and a request costs the run nothing but that
 * mutex held for a memcpy.
 *
 * Hardening. Only GET and HEAD are served (405 otherwise); a request with a
 * body, a request line or headers over API_REQUEST_BYTES_MAX get 4xx from
 * the library or from us; at most API_CONNECTIONS_MAX clients at once, each
 * timed out after API_CONNECTION_TIMEOUT_S idle seconds and given
 * API_REQUEST_READ_S seconds in all to send each request head, with the
 * slowest reader dropped whenever a new client would take one of the last
 * API_CONNECTIONS_RESERVED slots (a slowloris cannot lock out /healthz); artifact files are
 * served only by a relative path that api_filename_is_safe accepts, opened
 * beneath the artifact directory without following symbolic links.
 */
#ifndef RINGPERF_API_H
#define RINGPERF_API_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics/metrics.h"
#include "metrics/metrics_record.h"
#include "scrape/scrape.h"

#define API_SHARDS_MAX 256           /* per-worker rows in a snapshot */
#define API_REQUEST_BYTES_MAX 16384  /* request line plus headers */
#define API_CONNECTIONS_MAX 64       /* concurrent clients */
#define API_CONNECTION_TIMEOUT_S 10  /* idle seconds before a client is dropped */
#define API_REQUEST_READ_S 5         /* seconds to send a whole request head */
#define API_CONNECTIONS_RESERVED 4   /* slots a slow reader is dropped to keep free */
#define API_FILENAME_BYTES_MAX 1024  /* relative artifact path */
#define API_LIST_ENTRIES_MAX 4096    /* files listed by /api/results/list */
#define API_LIST_DEPTH_MAX 4         /* directory levels listed */
#define API_DOC_BYTES_MAX (1u << 20) /* /api/config, /api/run and /api/results bodies */
#define API_DEFAULT_HOST "127.0.0.1" /* --api-host default */
#define API_DEFAULT_GRACE_MS 5000    /* AIPERF_API_SERVER_POST_COMPLETE_GRACE default */
#define API_TIMELINE_MAX 300         /* points kept for the charts (one per progress interval) */
#define API_ERROR_ROWS_MAX 16        /* error kinds in a snapshot, most frequent first */
#define API_PHASES_MAX 2             /* warmup, profiling */

/* api_state is the service state the probes report: /readyz is 200 only in
 * API_STATE_RUNNING, /healthz is 503 only in API_STATE_FAILED. */
enum api_state { API_STATE_STARTING, API_STATE_RUNNING, API_STATE_COMPLETE, API_STATE_FAILED };

/* api_state_name returns the lower-case name of state ("running"); static. */
const char *api_state_name(enum api_state state);

/* api_metric lists the record metrics the API exposes. */
enum api_metric {
    API_M_TTFT,            /* time_to_first_token */
    API_M_TTST,            /* time_to_second_token */
    API_M_ITL,             /* inter_token_latency */
    API_M_REQUEST_LATENCY, /* request_latency */
    API_M_OSL,             /* output_sequence_length */
    API_M_ISL,             /* input_sequence_length */
    API_METRIC_COUNT
};

/* api_metric_info names one api_metric: the metrics_id it is read from, whose
 * metrics_info gives AIPerf's tag, header and display unit. Static. */
struct api_metric_info {
    enum metrics_id source;
};

/* api_metric_info_of returns the description of metric m (static). */
const struct api_metric_info *api_metric_info_of(enum api_metric m);

/* api_hist_view is one metric reduced to AIPerf's statistics, in its display
 * unit (ms for latencies, tokens): count, sum, min and max exact, the
 * percentiles within one histogram bucket (metrics_stats_from_hist). Without
 * values, present is false and every number is 0. */
struct api_hist_view {
    bool present;
    uint64_t count;
    double sum;
    double avg, min, max, std;
    double p1, p5, p10, p25, p50, p75, p90, p95, p99;
};

/* api_hist_view_fill reduces histogram h (NULL = empty) of metric m into
 * *out. Walks h's buckets; no allocation. Borrows h for the call. */
void api_hist_view_fill(enum api_metric m, const struct metrics_hist *h, struct api_hist_view *out);

/* API_LABEL_BYTES_MAX bounds one label value kept by the server. */
#define API_LABEL_BYTES_MAX 512

/* api_labels are AIPerf's info labels (spec §4.2): on every /metrics sample
 * and at the top of /api/metrics. Strings are borrowed (NULL = ""). */
struct api_labels {
    const char *benchmark_id;
    const char *model;         /* the model names, sorted, comma-joined */
    const char *endpoint_type; /* e.g. "chat" */
    bool streaming;
    uint32_t concurrency; /* 0 = the profiling phase has none */
    double request_rate;  /* requests/sec; 0 = not a rate run */
    const char *version;  /* aiperf_info's version label */
};

/* api_shard_view is one worker (engine shard) as the coordinator saw it:
 * its records, and engine_shard_live's figures over the last interval. */
struct api_shard_view {
    uint64_t requests; /* records finished, errors included */
    uint64_t errors;
    double cpu_fraction;  /* the shard thread's CPU over wall time; -1 = not measured yet */
    uint64_t outstanding; /* requests handed to the shard and not back: queued on its work ring or
                             in flight */
    uint32_t records_waiting;  /* most records the coordinator found waiting at once */
    uint32_t connections_open; /* sockets the shard holds open (connecting or connected) */
    uint64_t shared_reads;     /* content events that shared a read with the previous one */
    double send_lag_p99_us;    /* open loop: send start minus due time, p99; -1 = closed loop */
};

/* api_error_row is one kind of failure: AIPerf's error summary row. */
struct api_error_row {
    int code;
    char type[64];
    char message[160];
    uint64_t count;
};

/* api_phase_row is one phase's progress, kept when the next phase starts. */
struct api_phase_row {
    const char *name; /* static: "warmup" or "profiling"; NULL = unused row */
    uint64_t total;   /* 0 = limited by duration */
    uint64_t finished;
    uint64_t errors;
    double elapsed_s;
    bool complete;
};

/* api_point is one progress interval of the run, for charts over time: rates
 * over that interval, percentiles of the records that finished in it. */
struct api_point {
    double elapsed_s;               /* end of the interval, since the phase started */
    double request_throughput;      /* records per second over the interval */
    double output_token_throughput; /* output tokens per second over the interval */
    double ttft_p50_ms, ttft_p99_ms;
    double itl_p50_ms;
    double latency_p50_ms, latency_p99_ms;
    uint64_t finished;
    uint64_t errors;
};

/* api_snapshot is what the coordinator publishes: a plain value, copied whole. */
struct api_snapshot {
    enum api_state state;
    const char *phase;        /* static string: "warmup" or "profiling" */
    int64_t elapsed_ns;       /* since the phase started */
    double duration_target_s; /* --benchmark-duration, 0 when count-limited */
    uint64_t total;           /* requests the phase will send; 0 = duration-limited */
    uint64_t finished;        /* records received */
    uint64_t success;
    uint64_t errors; /* failures, cancellations included */
    uint64_t cancelled;
    double request_throughput;      /* successful requests per second so far */
    double output_token_throughput; /* output tokens per second so far */
    uint32_t shard_count;
    struct api_shard_view shards[API_SHARDS_MAX];
    struct api_hist_view hist[API_METRIC_COUNT];
    /* The sweep-line metrics (effective_*, active_*, tokens_in_flight), known once the run has
     * ended: present false until then. */
    struct metrics_sweep_summary sweep;
    /* The last interval alone (api_interval_fill): count and p50/p90/p99. */
    struct api_hist_view interval[API_METRIC_COUNT];
    double interval_s;
    bool grace;    /* past --benchmark-duration: no new requests, those in flight finish */
    bool stopping; /* a stop was asked for (Ctrl-C, q, the failure threshold) */
    uint32_t phase_count;
    struct api_phase_row phases[API_PHASES_MAX];
    uint32_t error_row_count;
    uint64_t error_rows_unlisted; /* errors of kinds past API_ERROR_ROWS_MAX */
    struct api_error_row error_rows[API_ERROR_ROWS_MAX];
    uint32_t timeline_count; /* oldest first; the oldest drop out past API_TIMELINE_MAX */
    struct api_point timeline[API_TIMELINE_MAX];
    /* The scrapers' latest pictures (scrape_live_read): the servers' figures and the GPUs'
     * fields; zeroes without a scraper. */
    struct scrape_live server_live;
    struct scrape_live gpu_live;
};

/* api_interval_fill reduces the values histogram `now` gained since `before`
 * (a copy of it taken at the start of the interval, same layout) into *out in
 * metric m's display unit: count, p50, p90 and p99, each within one bucket.
 * Either NULL or no new values: out->present is false. Borrows both. */
void api_interval_fill(enum api_metric m, const struct metrics_hist *now,
                       const struct metrics_hist *before, struct api_hist_view *out);

/* api_timeline_push appends the point of the interval snap describes (its
 * interval fields, elapsed time and counts) to snap->timeline, dropping the
 * oldest point when full. */
void api_timeline_push(struct api_snapshot *snap);

/* api_error_rows_fill copies the most frequent API_ERROR_ROWS_MAX kinds of
 * the `count` error kinds into snap->error_rows, the rest into
 * error_rows_unlisted (plus `unlisted`, errors already past the caller's own
 * cap). */
void api_error_rows_fill(struct api_snapshot *snap, const struct metrics_error_kind *kinds,
                         size_t count, uint64_t unlisted);

/* api_options configure api_server_start. Strings are borrowed for the call
 * (the server copies them). */
struct api_options {
    const char *host;         /* bind address; NULL = API_DEFAULT_HOST */
    uint16_t port;            /* 0 = an ephemeral port (see api_server_port) */
    const char *artifact_dir; /* served by /api/results/list and /files/ */
    /* The directory whose plots/report.html /report.html serves: NULL = artifact_dir. A run of
     * a session names the session's directory, where --auto-plot draws the session's report. */
    const char *report_dir;
    const char *config_json;  /* body of /api/config: a JSON object without secrets */
    const char *run_json;     /* body of /api/run: a JSON object, cli_command redacted */
    struct api_labels labels; /* copied, each string cut at API_LABEL_BYTES_MAX */
    /* A bearer token every route but /healthz and /readyz asks for (401 without it), or NULL:
     * none (copied). */
    const char *token;
};

/* api_server is an opaque running server. */
struct api_server;

/* api_server_start binds host:port and starts answering on a thread of its
 * own (which blocks every signal), in API_STATE_STARTING. Returns 0 and the server (owned by the
 * caller, stop it with api_server_free) in *out; -EINVAL for an unusable host or option (message in
 * errbuf), -EADDRINUSE / -errno when binding failed, or -ENOMEM. errbuf is always NUL-terminated
 * when errcap > 0. */
int api_server_start(const struct api_options *opts, struct api_server **out, char *errbuf,
                     size_t errcap);

/* api_server_port returns the port the server listens on (the real one when
 * api_options.port was 0). */
uint16_t api_server_port(const struct api_server *server);

/* api_server_publish copies *snap into the server under its mutex. Call from
 * one thread (the coordinator) at the progress interval, never per request.
 * snap->phase must be a static string. */
void api_server_publish(struct api_server *server, const struct api_snapshot *snap);

/* api_server_set_results records the final state and the path of the
 * results document (profile_export_aiperf.json) that /api/results serves
 * from now on; results_path NULL leaves /api/results at 404. The path is
 * copied. Returns 0, or -ENAMETOOLONG. */
int api_server_set_results(struct api_server *server, enum api_state final_state,
                           const char *results_path);

/* api_server_free stops the server: open requests finish or are dropped,
 * the listener closes and everything is released. api_server_free(NULL) is
 * a no-op. */
void api_server_free(struct api_server *server);

/* api_grace_ms_from_env returns AIPERF_API_SERVER_POST_COMPLETE_GRACE (in
 * seconds, a non-negative number up to one day) from envp as milliseconds,
 * or API_DEFAULT_GRACE_MS when unset or malformed. */
int64_t api_grace_ms_from_env(char *const *envp);

/* api_port_from_env reads AIPERF_API_SERVER_PORT from envp: returns true and
 * the port in *out_port when it is set to a number in 0..65535, else false. */
bool api_port_from_env(char *const *envp, uint16_t *out_port);

/* api_filename_is_safe reports whether name (len bytes, not necessarily
 * NUL-terminated) may be looked up under the artifact directory: non-empty,
 * at most API_FILENAME_BYTES_MAX bytes, relative, made of '/'-separated
 * components that are neither empty, "." nor "..", with no NUL, backslash or
 * control byte. Symbolic links are refused separately, when opening. */
bool api_filename_is_safe(const char *name, size_t len);

/* api_prometheus_render writes AIPerf's Prometheus text exposition (format
 * 0.0.4, spec §4.2) of snap into buf (cap bytes): the aiperf_info gauge, then
 * per record metric a summary aiperf_<tag>_<unit> (quantile 0.01 ... 0.99,
 * _sum, _count) and gauges aiperf_<tag>_{avg,min,max,std}_<unit>, and per
 * scalar metric the gauges aiperf_<tag>_{avg,count}_<unit>, per sweep-line metric (once
 * present) a summary of quantiles 0.5, 0.9, 0.95 and 0.99 only and the gauges
 * aiperf_<tag>_{avg,min,max,std}_<unit>, the servers' figures (AIPerf's server snapshot rows,
 * aiperf_<tag>_{avg,current}_<unit>) and each GPU's latest fields (ringperf's own,
 * aiperf_<field>_current_<unit> with gpu_index and gpu_uuid labels), every sample with
 * `labels`, values as Python prints them. Empty before the first record.
 * Returns the length written (buf is NUL-terminated), or -ENOSPC when cap is
 * too small. */
long api_prometheus_render(const struct api_snapshot *snap, const struct api_labels *labels,
                           char *buf, size_t cap);

#endif
