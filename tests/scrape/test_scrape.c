/*
 * test_scrape.c - the scraper against a scripted /metrics server on loopback (a thread of the
 * test): each fetch gets the next exposition, so the windows' statistics are known exactly.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scrape/scrape.h"
#include "tests/scrape/script_server.h"

static const struct scrape_slicing NO_SLICES = {0};

static const struct scrape_family_stats *family(const struct scrape_report *r, const char *name)
{
    for (size_t i = 0; i < r->family_count; i++) {
        if (strcmp(r->families[i].name, name) == 0) {
            return &r->families[i];
        }
    }
    cr_assert_fail("no family %s", name);
    return NULL;
}

#define HIST(b1, b2, inf, sum)                                                                     \
    "# TYPE h_seconds histogram\nh_seconds_bucket{le=\"0.1\"} " #b1 "\n"                           \
    "h_seconds_bucket{le=\"1\"} " #b2 "\nh_seconds_bucket{le=\"+Inf\"} " #inf "\n"                 \
    "h_seconds_sum " #sum "\nh_seconds_count " #inf "\n"

Test(scrape, windows_give_aiperf_statistics, .timeout = 30)
{
    struct script sc = {.count = 4};
    sc.bodies[0] = "# TYPE c_total counter\nc_total 100\n# TYPE g gauge\ng 5\n" HIST(0, 0, 0, 0);
    sc.bodies[1] = "# TYPE c_total counter\nc_total 110\n# TYPE g gauge\ng 7\n" HIST(0, 0, 0, 0);
    sc.bodies[2] = "# TYPE c_total counter\nc_total 130\n# TYPE g gauge\ng 9\n" HIST(2, 3, 4, 5.5);
    sc.bodies[3] =
        "# TYPE c_total counter\nc_total 10\n# TYPE g gauge\ng 11\n" HIST(12, 23, 24, 25.5);
    script_start(&sc);
    struct scrape_endpoint e;
    endpoint_for(&sc, &e, false);
    struct scrape *s = script_scrape(&e);    /* body 0 */
    scrape_phase(s, SCRAPE_PHASE_WARMUP);    /* body 1: the warmup's reference */
    scrape_phase(s, SCRAPE_PHASE_PROFILING); /* body 2: in the warmup, profiling's reference */
    scrape_stop(s);                          /* body 3: in profiling */
    cr_assert_eq(scrape_record_count(s), 4);

    struct scrape_report prof;
    cr_assert_eq(scrape_reduce(s, scrape_window_of(s, SCRAPE_PHASE_PROFILING), NO_SLICES, &prof),
                 0);
    const struct scrape_family_stats *c = family(&prof, "c");
    cr_assert_eq(c->type, PROM_COUNTER);
    cr_assert_eq(c->series[0].counter.total, 0, "a reset is clamped at zero");
    cr_assert_not(c->series[0].counter.has_rate_stats);
    const struct scrape_family_stats *g = family(&prof, "g");
    cr_assert_eq(g->series[0].gauge.avg, 11);
    cr_assert_eq(g->series[0].gauge.std, 0);
    const struct scrape_family_stats *h = family(&prof, "h_seconds");
    cr_assert_str_eq(h->unit, "seconds");
    const struct scrape_histogram_stats *hs = &h->series[0].histogram;
    cr_assert_eq(hs->count, 20);
    cr_assert_eq(hs->sum, 20);
    cr_assert_eq(hs->avg, 1);
    cr_assert(hs->has_buckets && hs->bucket_count == 3);
    cr_assert_str_eq(hs->bucket_le[2], "+Inf");
    cr_assert_eq(hs->bucket_delta[0], 10);
    cr_assert_eq(hs->bucket_delta[1], 20);
    cr_assert(hs->has_estimates);
    cr_assert_float_eq(hs->p_estimate[4], 0.1, 1e-12, "p50 at the first bucket's bound");
    cr_assert_float_eq(hs->p_estimate[8], 0.982, 1e-12, "p99 interpolated in (0.1, 1]");
    scrape_report_free(&prof);

    struct scrape_report warm;
    cr_assert_eq(scrape_reduce(s, scrape_window_of(s, SCRAPE_PHASE_WARMUP), NO_SLICES, &warm), 0);
    cr_assert_eq(family(&warm, "c")->series[0].counter.total, 20);
    cr_assert_eq(family(&warm, "g")->series[0].gauge.avg, 9);
    cr_assert_eq(family(&warm, "h_seconds")->series[0].histogram.count, 4);
    scrape_report_free(&warm);

    struct scrape_endpoint_info info;
    scrape_endpoint_info_of(s, 0, &info);
    cr_assert_eq(info.fetches, 4);
    cr_assert_eq(info.failures, 0);
    cr_assert_eq(info.unique_updates, 4);
    struct scrape_record rec;
    cr_assert_eq(scrape_record_at(s, 3, &rec), 7, "c, g, 3 buckets, sum, count");
    struct scrape_sample_view v;
    scrape_record_sample(s, 3, 2, &v);
    cr_assert_str_eq(v.family, "h_seconds");
    cr_assert_eq(v.suffix, PROM_SUFFIX_BUCKET);
    cr_assert_str_eq(v.le, "0.1");
    struct scrape_sample_view count;
    scrape_record_sample(s, 3, 6, &count);
    cr_assert_eq(count.group, v.group, "a histogram's parts share a group");
    scrape_free(s);
    script_stop(&sc);
}

Test(scrape, gauge_percentiles_are_numpy_linear, .timeout = 30)
{
    struct script sc = {.count = 5};
    sc.bodies[0] = "g 0\n";
    sc.bodies[1] = "g 1\n";
    sc.bodies[2] = "g 2\n";
    sc.bodies[3] = "g 3\n";
    sc.bodies[4] = "g 10\n";
    script_start(&sc);
    struct scrape_endpoint e;
    endpoint_for(&sc, &e, false);
    struct scrape *s = script_scrape(&e);
    scrape_phase(s, SCRAPE_PHASE_PROFILING); /* 1 */
    scrape_phase(s, SCRAPE_PHASE_WARMUP);    /* 2: ends profiling's window */
    scrape_stop(s);
    struct scrape_report r;
    /* The profiling window [after 1, before 2]: its one sample is 2. */
    cr_assert_eq(scrape_reduce(s, scrape_window_of(s, SCRAPE_PHASE_PROFILING), NO_SLICES, &r), 0);
    cr_assert_eq(family(&r, "g")->type, PROM_UNTYPED);
    cr_assert_eq(family(&r, "g")->series[0].gauge.avg, 2);
    scrape_report_free(&r);
    struct scrape_window all = {.start_ns = 1, .end_ns = INT64_MAX};
    cr_assert_eq(scrape_reduce(s, all, NO_SLICES, &r), 0);
    const struct scrape_gauge_stats *g = &family(&r, "g")->series[0].gauge;
    cr_assert_eq(g->min, 0);
    cr_assert_eq(g->max, 3);
    cr_assert_float_eq(g->avg, 1.5, 1e-12);
    cr_assert_float_eq(g->std, sqrt(5.0 / 3.0), 1e-12, "sample standard deviation");
    cr_assert_float_eq(g->p[3], 0.75, 1e-12, "p25 = 0 + 0.75 * (1 - 0)");
    cr_assert_float_eq(g->p[8], 2.97, 1e-12);
    scrape_report_free(&r);
    scrape_free(s);
    script_stop(&sc);
}

Test(scrape, the_default_endpoint_falls_back_to_trt_llm, .timeout = 30)
{
    struct script sc = {.count = 1, .not_found_path = "/metrics"};
    sc.bodies[0] = "# TYPE up gauge\nup 1\n";
    script_start(&sc);
    struct scrape_endpoint e;
    endpoint_for(&sc, &e, true);
    struct scrape *s = script_scrape(&e);
    scrape_stop(s);
    struct scrape_endpoint_info info;
    scrape_endpoint_info_of(s, 0, &info);
    cr_assert_eq(info.fetches, 2);
    cr_assert_eq(info.failures, 0);
    cr_assert_not_null(strstr(info.url, "/prometheus/metrics"), "%s", info.url);
    scrape_free(s);
    script_stop(&sc);
}

Test(scrape, a_bad_exposition_keeps_nothing_and_says_why, .timeout = 30)
{
    struct script sc = {.count = 2};
    sc.bodies[0] = "ok 1\nbad{ 2\n";
    sc.bodies[1] = "ok 3\n";
    script_start(&sc);
    struct scrape_endpoint e;
    endpoint_for(&sc, &e, false);
    struct scrape *s = script_scrape(&e);
    scrape_stop(s);
    struct scrape_endpoint_info info;
    scrape_endpoint_info_of(s, 0, &info);
    cr_assert_eq(info.failures, 1);
    cr_assert_eq(info.fetches, 1);
    cr_assert_str_eq(info.last_error, "exposition: malformed labels");
    struct scrape_record rec;
    cr_assert_eq(scrape_record_at(s, 0, &rec), 1, "the failed fetch left no sample behind");
    struct scrape_sample_view v;
    scrape_record_sample(s, 0, 0, &v);
    cr_assert_eq(v.value, 3);
    scrape_free(s);
    script_stop(&sc);
}

/* The figures of one slice the tests compare: a gauge's, a counter's and a histogram's. */
struct slice_figures {
    struct scrape_window w;
    size_t families;
    double g_avg, g_min, g_max, c_total, c_rate, h_count, h_sum;
};

struct slices_seen {
    struct slice_figures list[64];
    size_t count;
};

static const struct scrape_family_stats *maybe_family(const struct scrape_report *r,
                                                      const char *name)
{
    for (size_t i = 0; i < r->family_count; i++) {
        if (strcmp(r->families[i].name, name) == 0) {
            return &r->families[i];
        }
    }
    return NULL;
}

static void add_figures(struct slices_seen *seen, struct scrape_window w,
                        const struct scrape_report *r)
{
    cr_assert_lt(seen->count, sizeof(seen->list) / sizeof(seen->list[0]));
    struct slice_figures *f = &seen->list[seen->count++];
    *f = (struct slice_figures){.w = w, .families = r->family_count, .g_avg = NAN, .c_total = NAN};
    const struct scrape_family_stats *g = maybe_family(r, "g");
    if (g != NULL) {
        f->g_avg = g->series[0].gauge.avg;
        f->g_min = g->series[0].gauge.min;
        f->g_max = g->series[0].gauge.max;
    }
    const struct scrape_family_stats *c = maybe_family(r, "c");
    if (c != NULL) {
        f->c_total = c->series[0].counter.total;
        f->c_rate = c->series[0].counter.rate;
    }
    const struct scrape_family_stats *h = maybe_family(r, "h_seconds");
    if (h != NULL) {
        f->h_count = h->series[0].histogram.count;
        f->h_sum = h->series[0].histogram.sum;
    }
}

static bool same(double a, double b)
{
    return (isnan(a) && isnan(b)) || a == b;
}

static int collect(void *ctx, struct scrape_window w, const struct scrape_report *r)
{
    add_figures(ctx, w, r);
    return 0;
}

/* reference_slice reduces slice k of w alone, with scrape_reduce, into seen. */
static void reference_slice(const struct scrape *s, struct scrape_window w, int64_t slice_ns,
                            uint64_t k, struct slices_seen *seen)
{
    struct scrape_window slice = {w.start_ns + (int64_t)k * slice_ns,
                                  w.start_ns + (int64_t)(k + 1) * slice_ns};
    slice.end_ns = slice.end_ns < w.end_ns ? slice.end_ns : w.end_ns;
    struct scrape_report r;
    cr_assert_eq(scrape_reduce(s, slice, NO_SLICES, &r), 0);
    cr_assert_gt(r.family_count, 0, "slice %llu holds a record", (unsigned long long)k);
    add_figures(seen, slice, &r);
    scrape_report_free(&r);
}

/* expect_slices checks the one pass of scrape_reduce_slices over w against scrape_reduce of each
 * slice alone, for the slices (below max) that a record falls in: a record on a boundary is the
 * end of one slice and the start of the next. */
static void expect_slices(const struct scrape *s, struct scrape_window w, int64_t slice_ns,
                          size_t max)
{
    uint64_t span = (uint64_t)(w.end_ns - w.start_ns);
    uint64_t count = span / (uint64_t)slice_ns + (span % (uint64_t)slice_ns != 0);
    struct slices_seen *want = calloc(1, sizeof(*want));
    struct slices_seen *got = calloc(1, sizeof(*got));
    uint64_t next = 0; /* the first slice not yet reduced */
    for (size_t i = 0; i < scrape_record_count(s); i++) {
        struct scrape_record rec;
        scrape_record_at(s, i, &rec);
        if (rec.timestamp_ns < w.start_ns || rec.timestamp_ns > w.end_ns) {
            continue;
        }
        uint64_t d = (uint64_t)(rec.timestamp_ns - w.start_ns);
        uint64_t k = d / (uint64_t)slice_ns;
        for (uint64_t c = d % (uint64_t)slice_ns == 0 && k > 0 ? k - 1 : k; c <= k; c++) {
            if (c >= next && c < count && c < max) {
                reference_slice(s, w, slice_ns, c, want);
                next = c + 1;
            }
        }
    }
    struct scrape_slicing sl = {.slice_ns = slice_ns, .slices_max = max};
    cr_assert_eq(scrape_reduce_slices(s, w, sl, collect, got), 0);
    cr_assert_eq(got->count, want->count, "slices of %lld ns: %zu, alone %zu", (long long)slice_ns,
                 got->count, want->count);
    for (size_t i = 0; i < want->count; i++) {
        const struct slice_figures *a = &got->list[i];
        const struct slice_figures *b = &want->list[i];
        cr_assert(a->w.start_ns == b->w.start_ns && a->w.end_ns == b->w.end_ns, "slice %zu", i);
        cr_assert_eq(a->families, b->families, "slice %zu", i);
        cr_assert(same(a->g_avg, b->g_avg) && same(a->g_min, b->g_min) &&
                      same(a->g_max, b->g_max) && same(a->c_total, b->c_total) &&
                      same(a->c_rate, b->c_rate) && same(a->h_count, b->h_count) &&
                      same(a->h_sum, b->h_sum),
                  "slice %zu of %lld ns: the same figures as alone", i, (long long)slice_ns);
    }
    free(want);
    free(got);
}

/* Twelve fetches of a counter, a gauge and a histogram that change every time. */
static struct scrape *twelve_fetches(struct script *sc, int64_t *t)
{
#define CG(c, g) "# TYPE c_total counter\nc_total " #c "\n# TYPE g gauge\ng " #g "\n"
    static const char *const bodies[] = {
        CG(1, 1) HIST(1, 1, 1, 1),      CG(3, 4) HIST(1, 2, 3, 4),
        CG(6, 2) HIST(2, 3, 4, 6),      CG(10, 8) HIST(2, 4, 6, 9),
        CG(15, 5) HIST(3, 5, 7, 11),    CG(21, 7) HIST(3, 6, 9, 14),
        CG(28, 3) HIST(4, 7, 10, 18),   CG(36, 9) HIST(5, 8, 12, 21),
        CG(45, 6) HIST(6, 9, 13, 25),   CG(55, 12) HIST(6, 10, 15, 28),
        CG(66, 10) HIST(7, 11, 17, 30), CG(78, 11) HIST(8, 12, 19, 33),
    };
#undef CG
    *sc = (struct script){.count = 12};
    for (size_t i = 0; i < 12; i++) {
        sc->bodies[i] = bodies[i];
    }
    script_start(sc);
    static struct scrape_endpoint e;
    endpoint_for(sc, &e, false);
    struct scrape *s = script_scrape(&e);
    for (int i = 0; i < 10; i++) {
        scrape_phase(s, SCRAPE_PHASE_PROFILING);
    }
    scrape_stop(s);
    cr_assert_eq(scrape_record_count(s), 12);
    for (size_t i = 0; i < 12; i++) {
        struct scrape_record rec;
        scrape_record_at(s, i, &rec);
        t[i] = rec.timestamp_ns;
    }
    return s;
}

Test(scrape_slices, one_pass_gives_each_slice_as_reduced_alone, .timeout = 60)
{
    struct script sc;
    int64_t t[12];
    struct scrape *s = twelve_fetches(&sc, t);
    struct scrape_window w = {t[1], t[10]};
    /* t[4] ends slice 0 and starts slice 1; t[10] ends the window. */
    expect_slices(s, w, t[4] - t[1], SIZE_MAX);
    /* One-nanosecond slices: a million or so, every record on a boundary. */
    expect_slices(s, w, 1, SIZE_MAX);
    expect_slices(s, w, (t[10] - t[1]) / 7 + 3, SIZE_MAX);
    /* One slice whose end is the last record: no slice after it. */
    expect_slices(s, (struct scrape_window){t[1], t[5]}, t[5] - t[1], SIZE_MAX);
    expect_slices(s, (struct scrape_window){t[0] + 1, t[11] - 1}, (t[11] - t[0]) / 5, SIZE_MAX);
    scrape_free(s);
    script_stop(&sc);
}

Test(scrape_slices, only_the_first_slices_max_count, .timeout = 60)
{
    struct script sc;
    int64_t t[12];
    struct scrape *s = twelve_fetches(&sc, t);
    struct scrape_window w = {t[1], t[10]};
    int64_t slice_ns = (t[10] - t[1]) / 9 + 1;
    expect_slices(s, w, slice_ns, 3);
    expect_slices(s, w, 1, 1);
    struct slices_seen *got = calloc(1, sizeof(*got));
    struct scrape_slicing sl = {.slice_ns = 1, .slices_max = 4096};
    cr_assert_eq(scrape_reduce_slices(s, w, sl, collect, got), 0);
    cr_assert_eq(got->count, 1, "of a million slices, t[1] alone falls in the first 4096");
    cr_assert_eq(got->list[0].w.start_ns, t[1]);
    free(got);

    /* Counters' rate statistics over the kept slices only: none of the first four
     * one-nanosecond slices sees the counter move; over all of them, some do. */
    struct scrape_report r;
    cr_assert_eq(scrape_reduce(s, w, (struct scrape_slicing){1, 4}, &r), 0);
    const struct scrape_counter_stats *c = &family(&r, "c")->series[0].counter;
    cr_assert(c->has_rate_stats);
    cr_assert_eq(c->rate_max, 0);
    scrape_report_free(&r);
    cr_assert_eq(scrape_reduce(s, w, (struct scrape_slicing){1, SIZE_MAX}, &r), 0);
    cr_assert_gt(family(&r, "c")->series[0].counter.rate_max, 0);
    scrape_report_free(&r);
    scrape_free(s);
    script_stop(&sc);
}
