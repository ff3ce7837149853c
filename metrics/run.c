/*
 * run.c - a run's accumulated record metrics and its aggregates (spec §2.3).
 *
 * Every record metric goes into an HdrHistogram (bounded memory, mergeable)
 * and, up to exact_samples_max values, into a plain array so that the
 * reported statistics are NumPy's to the last bit, as AIPerf's are. The
 * arrays grow by doubling on the coordinator's thread, never on a shard's
 * request path; past the cap the histogram alone answers.
 *
 * A long run's arrays hold tens of megabytes. Grown by realloc they were
 * copied again at each doubling and faulted in 4 KiB at a time: together
 * 1.5% of a non-streamed request's client CPU at 300,000 requests. So an
 * array that outgrows SAMPLES_MAPPED_BYTES moves, once, into a mapping
 * reserved for its whole cap and backed by huge pages where the kernel
 * offers them; small arrays (a timeslice's, a short run's) stay in malloc.
 *
 * Most series need no array at all: token counts are whole numbers below the
 * histogram's exact limit (2048 at three digits), where every value has a
 * bucket of its own, so the histogram is their sorted samples run-length
 * encoded. A series keeps its values in the histogram alone until one does
 * not fit (a latency's first, usually), and only then unpacks them into the
 * array. Six of a non-streamed request's seven series stay that way, which
 * spares faulting in 14 MB at 300,000 requests.
 */
#include "metrics/metrics.h"
#include "metrics/spec_decode.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>

#define NS_PER_S 1e9
#define HIST_NS_MAX (24LL * 3600 * 1000 * 1000 * 1000) /* one day */
#define HIST_TOKENS_MAX (1000LL * 1000 * 1000)
#define HIST_MILLI_RATE_MAX (1000LL * 1000 * 1000 * 1000) /* 1e9 tokens/sec */
#define HIST_SIGFIGS_DEFAULT 3
#define SAMPLES_INITIAL 1024
/* One huge page: arrays past this size move into a reserved mapping. */
#define SAMPLES_MAPPED_BYTES ((size_t)2 << 20)

struct metrics_series {
    struct metrics_hist *hist;
    double *samples;
    size_t len;
    size_t cap;
    size_t mapped_bytes; /* samples is a mapping of this size; 0: from malloc */
    bool lost;           /* some values are only in the histogram */
    /* Every value so far is a whole number below hist_exact_limit, which the
     * histogram holds exactly: `samples` stays empty. */
    bool in_hist;
    int64_t hist_exact_limit;
    int64_t total;  /* exact sum, for integer (token) metrics */
    double total_f; /* sum, for the other metrics that have a total */
};

struct metrics_run {
    bool streaming;
    int64_t network_rtt_ns; /* < 0: no network-adjusted blocks (no --network-latency-mean) */
    bool has_goodput;
    struct metrics_goodput goodput;
    size_t exact_max;
    struct metrics_series series[METRICS_ID_COUNT];
    uint64_t valid_count;
    uint64_t error_count;
    uint64_t good_count;
    uint64_t usage_diff_count;    /* valid requests with at least one usage diff */
    uint64_t discrepancy_count;   /* ... of which one exceeds the threshold */
    uint64_t osl_requested_count; /* valid requests with a requested OSL and an OSL */
    uint64_t osl_mismatch_count;  /* ... whose OSL is off by more than AIPerf's threshold */
    bool has_window;
    int64_t min_request_wall_ns;
    int64_t max_response_wall_ns;
    int64_t window_start_wall_ns; /* both 0 unless metrics_run_set_window */
    int64_t window_end_wall_ns;
    struct metrics__spec_run spec;
};

/* hist_scale is how many histogram units one base unit is: rates, usage
 * diffs and audio seconds are kept in thousandths so that their fractions
 * survive the integer histogram. */
static double hist_scale(enum metrics_id id)
{
    switch (id) {
    case METRICS_OTPS_PER_USER:
    case METRICS_PREFILL_TPS_PER_USER:
    case METRICS_USAGE_PROMPT_AUDIO_SECONDS:
    case METRICS_USAGE_PROMPT_TOKENS_DIFF_PCT:
    case METRICS_USAGE_COMPLETION_TOKENS_DIFF_PCT:
    case METRICS_USAGE_REASONING_TOKENS_DIFF_PCT:
    case METRICS_OSL_MISMATCH_DIFF_PCT:
    case METRICS_IMAGE_THROUGHPUT:
    case METRICS_AUDIO_DURATION:
    case METRICS_RTFX:
    case METRICS_SPEC_ACCEPTANCE_LENGTH:
    case METRICS_SPEC_DRAFT_ACCEPTANCE_RATE:
    case METRICS_SPEC_ACCEPTED_PER_VERIFIED:
        return 1000.0;
    default:
        return 1.0;
    }
}

static int64_t hist_max(enum metrics_id id)
{
    const struct metrics_info *info = metrics_info_of(id);
    if (hist_scale(id) != 1.0) {
        return HIST_MILLI_RATE_MAX;
    }
    return info->display_per_base != 1.0 ? HIST_NS_MAX : HIST_TOKENS_MAX;
}

int metrics_record_hist_new(enum metrics_id id, int significant_figures, struct metrics_hist **out)
{
    if ((int)id < 0 || id >= METRICS_ID_COUNT) {
        return -EINVAL;
    }
    int sigfigs = significant_figures != 0 ? significant_figures : HIST_SIGFIGS_DEFAULT;
    return metrics_hist_new(1, hist_max(id), sigfigs, out);
}

int64_t metrics_record_hist_value(enum metrics_id id, double value)
{
    double scaled = value * hist_scale(id);
    if (!(scaled >= 0)) {
        return -1;
    }
    if (!(scaled < 9.2e18)) {
        return INT64_MAX;
    }
    /* llround() for 0 <= scaled < 2^63, without the library call that showed
     * in per-record profiles: below 2^53 the fraction is exact, above it
     * every double is whole. */
    int64_t whole = (int64_t)scaled;
    return whole + (scaled - (double)whole >= 0.5);
}

double metrics_record_hist_per_display(enum metrics_id id)
{
    return hist_scale(id) / metrics_info_of(id)->display_per_base;
}

int metrics_run_new(const struct metrics_run_config *config, struct metrics_run **out)
{
    int sigfigs =
        config->significant_figures != 0 ? config->significant_figures : HIST_SIGFIGS_DEFAULT;
    if (sigfigs < METRICS_HIST_SIGFIGS_MIN || sigfigs > METRICS_HIST_SIGFIGS_MAX ||
        (config->goodput != NULL && config->goodput->count > METRICS_SLO_MAX)) {
        return -EINVAL;
    }
    struct metrics_run *run = calloc(1, sizeof(*run));
    if (run == NULL) {
        return -ENOMEM;
    }
    run->streaming = config->streaming;
    run->exact_max =
        config->exact_samples_max != 0 ? config->exact_samples_max : METRICS_RUN_EXACT_DEFAULT;
    run->network_rtt_ns = config->network_rtt_given ? config->network_rtt_ns : -1;
    if (config->goodput != NULL && config->goodput->count > 0) {
        run->has_goodput = true;
        run->goodput = *config->goodput;
    }
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        struct metrics_series *s = &run->series[id];
        int ret = metrics_record_hist_new(id, sigfigs, &s->hist);
        if (ret != 0) {
            metrics_run_free(run);
            return ret;
        }
        if (hist_scale(id) == 1.0) {
            s->hist_exact_limit = metrics_hist_exact_limit(s->hist);
            s->in_hist = s->hist_exact_limit > 0;
        }
    }
    *out = run;
    return 0;
}

static void free_samples(struct metrics_series *s)
{
    if (s->mapped_bytes > 0) {
        munmap(s->samples, s->mapped_bytes);
    } else {
        free(s->samples);
    }
    s->samples = NULL;
    s->mapped_bytes = 0;
    s->len = 0;
    s->cap = 0;
}

/* map_samples moves s's values into a mapping reserved for `cap` values
 * (only touched pages take memory), asking for huge pages. False when the
 * mapping cannot be made; s is then unchanged. */
static bool map_samples(struct metrics_series *s, size_t cap)
{
    size_t bytes = (cap * sizeof(double) + SAMPLES_MAPPED_BYTES - 1) & ~(SAMPLES_MAPPED_BYTES - 1);
    void *map = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (map == MAP_FAILED) {
        return false;
    }
    /* Advice only: without transparent huge pages the mapping still saves
     * the copies of further doublings. */
    (void)madvise(map, bytes, MADV_HUGEPAGE);
    memcpy(map, s->samples, s->len * sizeof(double));
    free(s->samples);
    s->samples = map;
    s->mapped_bytes = bytes;
    s->cap = cap;
    return true;
}

/* grow_samples makes room for one more value. False past the cap or out of
 * memory. */
static bool grow_samples(const struct metrics_run *run, struct metrics_series *s)
{
    size_t cap = s->cap == 0 ? SAMPLES_INITIAL : s->cap * 2;
    if (cap > run->exact_max) {
        cap = run->exact_max;
    }
    if (cap <= s->cap) {
        return false;
    }
    if (cap * sizeof(double) >= SAMPLES_MAPPED_BYTES && s->cap > 0 &&
        map_samples(s, run->exact_max)) {
        return true;
    }
    double *grown = realloc(s->samples, cap * sizeof(*grown));
    if (grown == NULL) {
        return false;
    }
    s->samples = grown;
    s->cap = cap;
    return true;
}

void metrics_run_set_network_rtt(struct metrics_run *run, int64_t rtt_ns)
{
    run->network_rtt_ns = rtt_ns;
}

void metrics_run_free(struct metrics_run *run)
{
    if (run == NULL) {
        return;
    }
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        metrics_hist_free(run->series[id].hist);
        free_samples(&run->series[id]);
    }
    free(run);
}

/* unpack_hist turns a series kept in its histogram alone into samples.
 * False when they do not fit under the cap or in memory. */
static bool unpack_hist(struct metrics_run *run, struct metrics_series *s)
{
    s->in_hist = false;
    uint64_t count = metrics_hist_count(s->hist);
    while (s->cap < count) {
        if (!grow_samples(run, s)) {
            return false;
        }
    }
    struct metrics_hist_iter it;
    metrics_hist_iter_init(&it, s->hist);
    while (metrics_hist_iter_next(&it)) {
        for (uint64_t i = 0; i < it.count; i++) {
            s->samples[s->len++] = (double)it.lowest_value;
        }
    }
    return true;
}

/* keep_sample keeps v for the exact statistics; called before v goes into
 * the histogram, which unpack_hist reads. */
static void keep_sample(struct metrics_run *run, struct metrics_series *s, double v)
{
    if (s->in_hist) {
        if (!signbit(v) && v < (double)s->hist_exact_limit && v == (double)(int64_t)v) {
            return;
        }
        if (!unpack_hist(run, s)) {
            s->lost = true;
            free_samples(s);
            return;
        }
    }
    if (s->lost) {
        return;
    }
    if (s->len == s->cap && !grow_samples(run, s)) {
        /* Over the cap or out of memory: the histogram alone answers. */
        s->lost = true;
        free_samples(s);
        return;
    }
    s->samples[s->len++] = v;
}

/* merge_samples makes dst's samples hold src's values too, before src's
 * histogram is merged into dst's (unpack_hist reads dst's own). */
static void merge_samples(struct metrics_run *run, struct metrics_series *dst,
                          const struct metrics_series *src)
{
    if (dst->lost || (src->in_hist && dst->in_hist)) {
        return;
    }
    if (src->lost || (dst->in_hist && !unpack_hist(run, dst))) {
        dst->lost = true;
        dst->in_hist = false;
        free_samples(dst);
        return;
    }
    struct metrics_hist_iter it;
    metrics_hist_iter_init(&it, src->hist);
    while (src->in_hist && metrics_hist_iter_next(&it)) {
        for (uint64_t i = 0; i < it.count; i++) {
            keep_sample(run, dst, (double)it.lowest_value);
        }
    }
    if (src->in_hist) {
        return;
    }
    while (dst->cap - dst->len < src->len) {
        if (!grow_samples(run, dst)) {
            dst->lost = true; /* over the cap or out of memory: the histogram alone answers */
            free_samples(dst);
            return;
        }
    }
    memcpy(dst->samples + dst->len, src->samples, src->len * sizeof(double));
    dst->len += src->len;
}

int metrics_run_merge(struct metrics_run *dst, const struct metrics_run *src)
{
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        if (!metrics_hist_same_layout(dst->series[id].hist, src->series[id].hist)) {
            return -EINVAL;
        }
    }
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        struct metrics_series *d = &dst->series[id];
        const struct metrics_series *s = &src->series[id];
        if (metrics_hist_count(s->hist) == 0) {
            continue;
        }
        merge_samples(dst, d, s);
        metrics_hist_merge(d->hist, s->hist);
        d->total += s->total;
        d->total_f += s->total_f;
    }
    dst->valid_count += src->valid_count;
    dst->error_count += src->error_count;
    dst->good_count += src->good_count;
    dst->usage_diff_count += src->usage_diff_count;
    dst->discrepancy_count += src->discrepancy_count;
    dst->osl_requested_count += src->osl_requested_count;
    dst->osl_mismatch_count += src->osl_mismatch_count;
    metrics__spec_merge(&dst->spec, &src->spec);
    if (src->has_window) {
        if (!dst->has_window || src->min_request_wall_ns < dst->min_request_wall_ns) {
            dst->min_request_wall_ns = src->min_request_wall_ns;
        }
        if (!dst->has_window || src->max_response_wall_ns > dst->max_response_wall_ns) {
            dst->max_response_wall_ns = src->max_response_wall_ns;
        }
        dst->has_window = true;
    }
    return 0;
}

void metrics_run_reset(struct metrics_run *run)
{
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        struct metrics_series *s = &run->series[id];
        metrics_hist_reset(s->hist);
        s->len = 0; /* the array's memory stays for the next values */
        s->lost = false;
        s->in_hist = s->hist_exact_limit > 0;
        s->total = 0;
        s->total_f = 0;
    }
    run->valid_count = 0;
    run->error_count = 0;
    run->good_count = 0;
    run->usage_diff_count = 0;
    run->discrepancy_count = 0;
    run->osl_requested_count = 0;
    run->osl_mismatch_count = 0;
    run->spec = (struct metrics__spec_run){0};
    run->has_window = false;
    run->min_request_wall_ns = 0;
    run->max_response_wall_ns = 0;
}

static void add_value(struct metrics_run *run, enum metrics_id id, double v)
{
    struct metrics_series *s = &run->series[id];
    keep_sample(run, s, v);
    metrics_hist_record(s->hist, metrics_record_hist_value(id, v));
    if ((metrics_info_of(id)->flags & METRICS_F_INTEGER) != 0) {
        s->total += (int64_t)v;
    }
    s->total_f += v;
}

static bool is_usage_diff(int id)
{
    return id == METRICS_USAGE_PROMPT_TOKENS_DIFF_PCT ||
           id == METRICS_USAGE_COMPLETION_TOKENS_DIFF_PCT ||
           id == METRICS_USAGE_REASONING_TOKENS_DIFF_PCT;
}

/* add_discrepancy counts a valid request with usage diffs, and whether any
 * of them is over AIPerf's threshold. */
static void add_discrepancy(struct metrics_run *run, const struct metrics_values *v)
{
    bool any = false;
    bool over = false;
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        if (is_usage_diff(id) && v->has[id]) {
            any = true;
            over |= v->value[id] > METRICS_USAGE_DIFF_PCT_THRESHOLD;
        }
    }
    run->usage_diff_count += any;
    run->discrepancy_count += over;
}

/* add_osl_mismatch counts a valid request that asked for an output length,
 * and whether its OSL missed it by more than AIPerf's threshold. */
static void add_osl_mismatch(struct metrics_run *run, const struct metrics_request *req,
                             const struct metrics_values *v)
{
    if (!v->has[METRICS_OSL_MISMATCH_DIFF_PCT]) {
        return;
    }
    double requested = (double)req->requested_osl;
    double threshold = requested * METRICS_OSL_MISMATCH_PCT_THRESHOLD / 100.0;
    threshold =
        threshold < METRICS_OSL_MISMATCH_TOKENS_MAX ? threshold : METRICS_OSL_MISMATCH_TOKENS_MAX;
    run->osl_requested_count++;
    run->osl_mismatch_count += fabs(v->value[METRICS_OSL] - requested) > threshold;
}

static void add_window(struct metrics_run *run, const struct metrics_request *req,
                       const struct metrics_values *v)
{
    if (!v->has[METRICS_REQUEST_LATENCY] || req->start_wall_ns == 0) {
        return;
    }
    int64_t end = req->start_wall_ns + (int64_t)v->value[METRICS_REQUEST_LATENCY];
    if (!run->has_window || req->start_wall_ns < run->min_request_wall_ns) {
        run->min_request_wall_ns = req->start_wall_ns;
    }
    if (!run->has_window || end > run->max_response_wall_ns) {
        run->max_response_wall_ns = end;
    }
    run->has_window = true;
}

void metrics_run_add(struct metrics_run *run, const struct metrics_request *req,
                     const struct metrics_values *values)
{
    if (req->failed) {
        run->error_count++;
    } else {
        run->valid_count++;
        run->good_count += run->has_goodput && metrics_goodput_is_good(&run->goodput, values);
        add_window(run, req, values);
        add_discrepancy(run, values);
        add_osl_mismatch(run, req, values);
        metrics__spec_add(&run->spec, req->spec_decode);
    }
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        if (id != METRICS_ICL && values->has[id]) {
            add_value(run, (enum metrics_id)id, values->value[id]);
        }
    }
    uint32_t gaps = metrics_request_icl_count(req);
    for (uint32_t i = 0; i < gaps; i++) {
        add_value(run, METRICS_ICL, (double)metrics_request_icl_ns(req, i));
    }
}

const struct metrics_hist *metrics_run_record_hist(const struct metrics_run *run,
                                                   enum metrics_id id)
{
    return run->series[id].hist;
}

/* series_stats fills `*out` in display units; false for an empty series. */
static bool series_stats(struct metrics_series *s, enum metrics_id id, struct metrics_stats *out,
                         bool *exact)
{
    if (metrics_hist_count(s->hist) == 0) {
        return false;
    }
    double display = metrics_info_of(id)->display_per_base;
    if (s->in_hist ? metrics_stats_exact_hist(s->hist, out) == 0
                   : !s->lost && metrics_stats_exact(s->samples, s->len, out) == 0) {
        metrics_stats_scale(out, display);
        return true;
    }
    *exact = false;
    if (metrics_stats_from_hist(s->hist, out) != 0) {
        return false;
    }
    metrics_stats_scale(out, display / hist_scale(id));
    return true;
}

static void put(struct metrics_summary *out, enum metrics_scalar_id id, double v)
{
    out->scalar_present[id] = true;
    out->scalar[id] = v;
}

static void put_total(struct metrics_summary *out, const struct metrics_run *run,
                      enum metrics_scalar_id sid, enum metrics_id id)
{
    const struct metrics_series *s = &run->series[id];
    if (metrics_hist_count(s->hist) > 0) {
        bool integer = (metrics_info_of(id)->flags & METRICS_F_INTEGER) != 0;
        put(out, sid, integer ? (double)s->total : s->total_f);
    }
}

/* summarize_usage adds the usage totals beyond the four basic ones, the
 * token-weighted cache-read share, the discrepancy count and the OSL
 * mismatch count. */
static void summarize_usage(const struct metrics_run *run, struct metrics_summary *out)
{
    static const struct {
        enum metrics_scalar_id sid;
        enum metrics_id id;
    } totals[] = {
        {METRICS_S_TOTAL_USAGE_PROMPT_CACHE_READ_TOKENS, METRICS_USAGE_PROMPT_CACHE_READ_TOKENS},
        {METRICS_S_TOTAL_USAGE_PROMPT_CACHE_WRITE_TOKENS, METRICS_USAGE_PROMPT_CACHE_WRITE_TOKENS},
        {METRICS_S_TOTAL_USAGE_PROMPT_CACHE_MISS_TOKENS, METRICS_USAGE_PROMPT_CACHE_MISS_TOKENS},
        {METRICS_S_TOTAL_USAGE_PROMPT_AUDIO_TOKENS, METRICS_USAGE_PROMPT_AUDIO_TOKENS},
        {METRICS_S_TOTAL_USAGE_COMPLETION_AUDIO_TOKENS, METRICS_USAGE_COMPLETION_AUDIO_TOKENS},
        {METRICS_S_TOTAL_USAGE_PROMPT_AUDIO_SECONDS, METRICS_USAGE_PROMPT_AUDIO_SECONDS},
        {METRICS_S_TOTAL_USAGE_TOOL_USE_PROMPT_TOKENS, METRICS_USAGE_TOOL_USE_PROMPT_TOKENS},
        {METRICS_S_TOTAL_USAGE_ACCEPTED_PREDICTION_TOKENS,
         METRICS_USAGE_ACCEPTED_PREDICTION_TOKENS},
        {METRICS_S_TOTAL_USAGE_REJECTED_PREDICTION_TOKENS,
         METRICS_USAGE_REJECTED_PREDICTION_TOKENS},
    };
    for (size_t i = 0; i < sizeof(totals) / sizeof(totals[0]); i++) {
        put_total(out, run, totals[i].sid, totals[i].id);
    }
    enum metrics_scalar_id read = METRICS_S_TOTAL_USAGE_PROMPT_CACHE_READ_TOKENS;
    enum metrics_scalar_id prompt = METRICS_S_TOTAL_USAGE_PROMPT_TOKENS;
    if (out->scalar_present[read] && out->scalar_present[prompt] && out->scalar[prompt] > 0) {
        put(out, METRICS_S_OVERALL_USAGE_PROMPT_CACHE_READ_PCT,
            out->scalar[read] / out->scalar[prompt] * 100.0);
    }
    if (run->usage_diff_count > 0) {
        put(out, METRICS_S_USAGE_DISCREPANCY_COUNT, (double)run->discrepancy_count);
    }
    if (run->osl_requested_count > 0) {
        put(out, METRICS_S_OSL_MISMATCH_COUNT, (double)run->osl_mismatch_count);
    }
}

static void summarize_totals(const struct metrics_run *run, struct metrics_summary *out)
{
    put_total(out, run, METRICS_S_TOTAL_OUTPUT_TOKENS, METRICS_OUTPUT_TOKEN_COUNT);
    put_total(out, run, METRICS_S_TOTAL_REASONING_TOKENS, METRICS_REASONING_TOKEN_COUNT);
    put_total(out, run, METRICS_S_TOTAL_ISL, METRICS_ISL);
    put_total(out, run, METRICS_S_TOTAL_OSL, METRICS_OSL);
    put_total(out, run, METRICS_S_TOTAL_ERROR_ISL, METRICS_ERROR_ISL);
    put_total(out, run, METRICS_S_TOTAL_USAGE_PROMPT_TOKENS, METRICS_USAGE_PROMPT_TOKENS);
    put_total(out, run, METRICS_S_TOTAL_USAGE_COMPLETION_TOKENS, METRICS_USAGE_COMPLETION_TOKENS);
    put_total(out, run, METRICS_S_TOTAL_USAGE_TOTAL_TOKENS, METRICS_USAGE_TOTAL_TOKENS);
    put_total(out, run, METRICS_S_TOTAL_USAGE_REASONING_TOKENS, METRICS_USAGE_REASONING_TOKENS);
    put_total(out, run, METRICS_S_TOTAL_SPEC_DECODE_STEPS, METRICS_SPEC_STEPS);
    put_total(out, run, METRICS_S_TOTAL_ACCEPTED_DRAFT_TOKENS, METRICS_SPEC_ACCEPTED_DRAFT_TOKENS);
    put_total(out, run, METRICS_S_TOTAL_DRAFT_TOKENS, METRICS_SPEC_DRAFT_TOKENS);
}

void metrics_run_set_window(struct metrics_run *run, int64_t start_wall_ns, int64_t end_wall_ns)
{
    if (end_wall_ns > start_wall_ns) {
        run->window_start_wall_ns = start_wall_ns;
        run->window_end_wall_ns = end_wall_ns;
    }
}

static void summarize_counts(const struct metrics_run *run, struct metrics_summary *out)
{
    uint64_t all = run->valid_count + run->error_count;
    if (run->valid_count > 0) {
        put(out, METRICS_S_REQUEST_COUNT, (double)run->valid_count);
    }
    if (run->error_count > 0) {
        put(out, METRICS_S_ERROR_REQUEST_COUNT, (double)run->error_count);
    }
    /* As AIPerf: a run where every request failed reports no error rate. */
    if (all > 0) {
        put(out, METRICS_S_COMPLETED_REQUEST_COUNT, (double)all);
    }
    if (run->valid_count > 0) {
        put(out, METRICS_S_REQUEST_ERROR_RATE, 100.0 * (double)run->error_count / (double)all);
    }
}

static double run_duration_s(const struct metrics_run *run)
{
    if (run->window_end_wall_ns > run->window_start_wall_ns) {
        return (double)(run->window_end_wall_ns - run->window_start_wall_ns) / NS_PER_S;
    }
    if (run->has_window && run->max_response_wall_ns > run->min_request_wall_ns) {
        return (double)(run->max_response_wall_ns - run->min_request_wall_ns) / NS_PER_S;
    }
    return 0;
}

static void summarize_rates(const struct metrics_run *run, struct metrics_summary *out)
{
    if (run->has_window) {
        put(out, METRICS_S_MIN_REQUEST_TIMESTAMP, (double)run->min_request_wall_ns);
        put(out, METRICS_S_MAX_RESPONSE_TIMESTAMP, (double)run->max_response_wall_ns);
    }
    double duration_s = run_duration_s(run);
    if (duration_s > 0) {
        put(out, METRICS_S_BENCHMARK_DURATION, duration_s);
    }
    if (run->has_goodput) {
        uint64_t all = run->valid_count + run->error_count;
        put(out, METRICS_S_GOOD_REQUEST_COUNT, (double)run->good_count);
        put(out, METRICS_S_GOOD_REQUEST_FRACTION,
            all > 0 ? (double)run->good_count / (double)all : 0.0);
    }
    if (duration_s <= 0) {
        return;
    }
    put(out, METRICS_S_REQUEST_THROUGHPUT, (double)run->valid_count / duration_s);
    bool has_isl = out->scalar_present[METRICS_S_TOTAL_ISL];
    bool has_osl = out->scalar_present[METRICS_S_TOTAL_OSL];
    double isl = has_isl ? out->scalar[METRICS_S_TOTAL_ISL] : 0;
    double osl = has_osl ? out->scalar[METRICS_S_TOTAL_OSL] : 0;
    if (has_osl) {
        put(out, METRICS_S_OUTPUT_TOKEN_THROUGHPUT, osl / duration_s);
    }
    if (has_isl) {
        put(out, METRICS_S_INPUT_TOKEN_THROUGHPUT, isl / duration_s);
    }
    if (has_isl || has_osl) {
        put(out, METRICS_S_TOTAL_TOKEN_THROUGHPUT, (isl + osl) / duration_s);
    }
    if (run->has_goodput) {
        put(out, METRICS_S_GOODPUT, (double)run->good_count / duration_s);
    }
}

/* series_value_at returns the value of rank k (0-based, ascending) of a series whose stats
 * were just computed, in display units: its sorted samples, or its histogram's buckets. */
static double series_value_at(const struct metrics_series *s, enum metrics_id id, uint64_t k)
{
    double display = metrics_info_of(id)->display_per_base;
    if (!s->in_hist && !s->lost) {
        return s->samples[k] * display; /* sorted by metrics_stats_exact */
    }
    struct metrics_hist_iter it;
    metrics_hist_iter_init(&it, s->hist);
    while (metrics_hist_iter_next(&it)) {
        if (it.seen > k) {
            return (double)it.lowest_value * display / hist_scale(id);
        }
    }
    return (double)metrics_hist_max(s->hist) * display / hist_scale(id);
}

/* nearest_rank is NumPy's percentile(method="nearest") index of q in n values: q/100 * (n-1)
 * rounded half to even. */
static uint64_t nearest_rank(double q, uint64_t n)
{
    double at = q / 100.0 * (double)(n - 1);
    double floor_at = floor(at);
    double frac = at - floor_at;
    uint64_t low = (uint64_t)floor_at;
    if (frac > 0.5 || (frac == 0.5 && low % 2 == 1)) {
        return low + 1;
    }
    return low;
}

/* summarize_adj fills AIPerf's adj_* block of `id` when the run had failures. */
static void summarize_adj(const struct metrics_run *run, enum metrics_id id,
                          struct metrics_summary *out)
{
    static const double qs[METRICS_ADJ_PERCENTILES] = {1, 5, 10, 25, 50, 75, 90, 95, 99};
    const struct metrics_series *s = &run->series[id];
    uint64_t valid = metrics_hist_count(s->hist);
    uint64_t n = valid + run->error_count;
    struct metrics_adj *adj = &out->adj[id];
    *adj = (struct metrics_adj){.count = n, .has_min = valid > 0};
    if (valid > 0) {
        adj->min = out->record[id].min;
    }
    for (int i = 0; i < METRICS_ADJ_PERCENTILES; i++) {
        uint64_t k = nearest_rank(qs[i], n);
        adj->finite[i] = k < valid;
        adj->percentile[i] = adj->finite[i] ? series_value_at(s, id, k) : 0.0;
    }
    out->adj_present[id] = true;
}

/* summarize_network adds AIPerf's network_rtt and network-adjusted blocks: every statistic of
 * request latency, TTFT and TTFO less the round trip, at least 0 (the sum less one round trip a
 * request; count and std as they are). */
static void summarize_network(const struct metrics_run *run, struct metrics_summary *out)
{
    if (run->network_rtt_ns < 0) {
        return;
    }
    double rtt_ms = (double)run->network_rtt_ns / 1e6;
    put(out, METRICS_S_NETWORK_RTT, rtt_ms);
    static const enum metrics_id pairs[][2] = {
        {METRICS_REQUEST_LATENCY, METRICS_NET_ADJ_REQUEST_LATENCY},
        {METRICS_TTFT, METRICS_NET_ADJ_TTFT},
        {METRICS_TTFO, METRICS_NET_ADJ_TTFO},
    };
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
        if (!out->record_present[pairs[i][0]]) {
            continue;
        }
        struct metrics_stats st = out->record[pairs[i][0]];
        double *values[] = {&st.avg, &st.min, &st.max, &st.p1,  &st.p5,  &st.p10,
                            &st.p25, &st.p50, &st.p75, &st.p90, &st.p95, &st.p99};
        for (size_t v = 0; v < sizeof(values) / sizeof(values[0]); v++) {
            *values[v] = *values[v] > rtt_ms ? *values[v] - rtt_ms : 0.0;
        }
        double less = rtt_ms * (double)st.count;
        st.sum = st.sum > less ? st.sum - less : 0.0;
        out->record[pairs[i][1]] = st;
        out->record_present[pairs[i][1]] = true;
    }
}

int metrics_run_summarize(struct metrics_run *run, struct metrics_summary *out)
{
    *out = (struct metrics_summary){.streaming = run->streaming, .exact = true};
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        out->record_present[id] =
            series_stats(&run->series[id], (enum metrics_id)id, &out->record[id], &out->exact);
    }
    /* AIPerf's PERCENTILE_INCLUDES_FAILED_REQUESTS metrics: adj_* blocks once a request failed. */
    static const enum metrics_id with_failures[] = {METRICS_REQUEST_LATENCY, METRICS_TTFT,
                                                    METRICS_ITL, METRICS_DECODE_DURATION};
    for (size_t i = 0; run->error_count > 0 && i < sizeof(with_failures) / sizeof(with_failures[0]);
         i++) {
        if (out->record_present[with_failures[i]]) {
            summarize_adj(run, with_failures[i], out);
        }
    }
    summarize_network(run, out);
    summarize_counts(run, out);
    summarize_totals(run, out);
    summarize_usage(run, out);
    metrics__spec_summarize(&run->spec, out);
    summarize_rates(run, out);
    return 0;
}
