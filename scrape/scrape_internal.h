/*
 * scrape_internal.h - the scraper's own structures, shared by its files (internal to scrape/).
 */
#ifndef RINGPERF_SCRAPE_INTERNAL_H
#define RINGPERF_SCRAPE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include "scrape/scrape.h"

/* scrape__index is an open-addressing hash index of uint32 item numbers. */
struct scrape__index {
    uint32_t *slots; /* item + 1; 0 = empty */
    size_t cap;      /* power of two */
    size_t used;
};

struct scrape__family {
    char *name;
    enum prom_type type;
    char *help;
};

/* scrape__series is one exposed series (one bucket of a histogram is one series). */
struct scrape__series {
    uint32_t endpoint;
    uint32_t family;
    enum prom_suffix suffix;
    uint64_t hash;
    char *key; /* sample name, '\0', the raw label text as exposed: the lookup key */
    size_t key_len;
    struct scrape_label *labels; /* unescaped, without le */
    size_t label_count;
    char *le; /* a bucket's le as exposed, else NULL */
    double le_value;
    size_t group;
};

/* scrape__store holds every kept sample of a run: a log of (series, value) in fetch order,
 * each fetch a slice of it. Written only by the thread that fetches. */
struct scrape__store {
    struct scrape__family *families;
    size_t family_count, family_cap;
    struct scrape__index family_index;
    struct scrape__series *series;
    size_t series_count, series_cap;
    struct scrape__index series_index;
    char **group_keys; /* histogram groups: endpoint, family, labels without le */
    uint64_t *group_hashes;
    size_t group_count, group_cap;
    struct scrape__index group_index;
    uint32_t *log_series;
    double *log_value;
    size_t log_len, log_cap, log_max;
    struct scrape_record *records;
    size_t *record_begin; /* where record i's samples start in the log */
    size_t record_count, record_cap;
    /* the fetch being read, committed when it ends well */
    uint32_t *stage_series;
    double *stage_value;
    size_t stage_len, stage_cap;
};

/* scrape__live_counter is a server counter the live figures are derived from. */
enum scrape__live_counter {
    SCRAPE__LC_PREFIX_HITS, /* vLLM's prefix cache */
    SCRAPE__LC_PREFIX_QUERIES,
    SCRAPE__LC_SGLANG_CACHED, /* SGLang's cached prompt tokens, of its prompt tokens */
    SCRAPE__LC_SGLANG_PROMPT,
    SCRAPE__LC_EXTERNAL_HITS,
    SCRAPE__LC_EXTERNAL_QUERIES,
    SCRAPE__LC_PREEMPTIONS,
    SCRAPE__LC_PROMPT_TOKENS,
    SCRAPE__LC_GENERATION_TOKENS,
    SCRAPE__LC_COUNT,
};

/* scrape__live_counters are one endpoint's counters in one fetch, summed over their series. */
struct scrape__live_counters {
    bool has[SCRAPE__LC_COUNT];
    double value[SCRAPE__LC_COUNT];
    int64_t timestamp_ns;
    bool valid; /* a fetch was read */
};

/* scrape__endpoint_state is the scraper's view of one endpoint over the run. */
struct scrape__endpoint_state {
    struct engine_target target; /* a copy: the fallback changes its path */
    char url[SCRAPE_URL_BYTES];
    bool fallback_tried;
    bool disabled;
    bool announced; /* a failure was said on stderr once */
    bool tried;     /* fetched at least once */
    uint64_t last_hash;
    bool have_hash;
    bool live_has[SCRAPE_LIVE_FIGURE_COUNT]; /* this endpoint's server figures, latest fetch */
    double live_value[SCRAPE_LIVE_FIGURE_COUNT];
    /* The counters of its latest fetch, and of the fetch the current phase is measured from:
     * the last one before the phase began (the boundary fetch). */
    struct scrape__live_counters live_latest, live_base;
    int live_phase; /* the phase live_base belongs to (-1: none yet) */
    uint64_t failures, dropped;
    char last_error[SCRAPE_ERROR_BYTES];
    char disabled_reason[SCRAPE_ERROR_BYTES];
};

struct scrape {
    struct scrape_config cfg;
    struct scrape__store store;
    struct scrape__endpoint_state *eps;
    char *line_buf;
    char *recv_buf;
    size_t recv_cap;
    char *header_buf;
    char *tls_plain;
    pthread_t thread;
    bool thread_started;
    bool stopped;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    pthread_cond_t done;
    bool stop_requested;    /* under lock */
    uint64_t scrapes_asked; /* under lock: scrapes the coordinator asked for */
    uint64_t scrapes_done;  /* under lock */
    int64_t mono_to_wall_ns;
    struct scrape_window windows[SCRAPE_PHASE_COUNT];
    int current_phase;         /* -1 before the first */
    struct scrape__nvml *nvml; /* loaded at the first NVML fetch; NULL = not (yet) */
    /* The live picture: built by whichever thread fetches (one at a time), copied in and out
     * under live_lock alone. */
    pthread_mutex_t live_lock;
    struct scrape_live live;       /* under live_lock */
    struct scrape_live live_build; /* the fetching thread's own */
    double live_sum[SCRAPE_LIVE_FIGURE_COUNT];
    /* The phase the coordinator last entered (scrape_phase stores it after the boundary fetch;
     * the fetching thread reads it), for the counters' baselines. */
    _Atomic int live_phase;
    uint64_t live_count[SCRAPE_LIVE_FIGURE_COUNT];
};

/* scrape__live_update folds the record just kept for endpoint ep into the live picture and
 * publishes it (scrape_live.c). */
void scrape__live_update(struct scrape *s, size_t ep);

/* scrape__fetch_result is how one fetch ended. */
struct scrape__fetch_result {
    bool ok;
    int http_status;
    bool not_found;   /* 404: the default endpoint then tries the fallback */
    bool json;        /* a JSON body: collection is turned off */
    bool unavailable; /* NVML cannot be loaded or started: collection is turned off */
    int64_t sent_ns, first_byte_ns, done_ns; /* CLOCK_MONOTONIC */
    char error[SCRAPE_ERROR_BYTES];
};

/* scrape__nvml_fetch reads the local GPUs through NVML into the store's stage, as the exposition
 * of AIPerf's nvidia_* fields (scrape_nvml.c); out->unavailable when the library cannot be used. */
void scrape__nvml_fetch(struct scrape *s, size_t ep, struct scrape__fetch_result *out);

/* scrape__nvml_free unloads the library. */
void scrape__nvml_free(struct scrape *s);

/* scrape__fetch fetches endpoint ep once, feeding its exposition into the store's stage. */
void scrape__fetch(struct scrape *s, size_t ep, struct scrape__fetch_result *out);

/* scrape__gauge_stats fills g with AIPerf's gauge statistics of v[0..n) (n > 0): mean, sample
 * std (ddof=1), min, max and numpy's linear percentiles. Sorts v in place. */
void scrape__gauge_stats(double *v, size_t n, struct scrape_gauge_stats *g);

/* scrape__now_ns returns CLOCK_MONOTONIC in ns. */
int64_t scrape__now_ns(void);

/* Store (scrape_store.c). */
int scrape__store_init(struct scrape__store *st, size_t log_max);
void scrape__store_free(struct scrape__store *st);
/* scrape__store_meta records a HELP or TYPE line. Returns 0 or -ENOMEM. */
int scrape__store_meta(struct scrape__store *st, enum prom_status kind, const struct prom_meta *m);
/* scrape__store_stage stages one sample of endpoint ep. Returns 0, -ENOMEM or -E2BIG. */
int scrape__store_stage(struct scrape__store *st, uint32_t ep, const struct prom_sample *sample);
/* scrape__store_commit keeps the staged samples as record *rec; returns 0, or -ENOSPC when the
 * sample limit is reached (nothing kept), or -ENOMEM. *out_hash is the staged samples' digest. */
int scrape__store_commit(struct scrape__store *st, const struct scrape_record *rec,
                         uint64_t *out_hash);
/* scrape__store_drop forgets the staged samples. */
void scrape__store_drop(struct scrape__store *st);
/* scrape__stage_hash digests the staged samples. */
uint64_t scrape__stage_hash(const struct scrape__store *st);

#endif
