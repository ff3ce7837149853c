/*
 * test_spec_decode.c - AIPerf's speculative-decoding metrics on hand-made requests: the
 * per-request values as the server reported them, the totals and run-level ratios, the pooled
 * accepted-draft histogram, the zero-step count, and the same results from merged halves as from
 * one run (shards compute their records' metrics apart).
 */
#include "metrics/metrics.h"

#include <criterion/criterion.h>
#include <math.h>

#define MS 1000000LL

static const int64_t content_ns[] = {1010 * MS, 1020 * MS};

static struct metrics_request request(const struct record_spec_decode *s)
{
    return (struct metrics_request){
        .start_ns = 1000 * MS,
        .start_wall_ns = 1700000000LL * 1000 * MS,
        .content_ns = content_ns,
        .content_count = 2,
        .tokens = {.input = 10, .output = 8, .reasoning = METRICS_ABSENT},
        .usage = RECORD_USAGE_NONE,
        .spec_decode = s,
    };
}

/* stats builds valid statistics of a dense histogram with k + 1 buckets, k drafts a step. */
static struct record_spec_decode stats(uint32_t k, const int64_t *histogram)
{
    struct record_spec_decode s = {.payloads = 1, .valid = true, .spec_tokens = k};
    s.bucket_count = k + 1;
    for (uint32_t j = 0; j <= k; j++) {
        s.histogram[j] = histogram[j];
        s.steps += histogram[j];
        s.accepted_draft_tokens += (int64_t)j * histogram[j];
    }
    s.draft_tokens = s.steps * k;
    s.mean_acceptance_length = s.steps > 0 ? 1.0 + (double)s.accepted_draft_tokens / s.steps : 1.0;
    s.draft_acceptance_rate =
        s.draft_tokens > 0 ? (double)s.accepted_draft_tokens / s.draft_tokens : 0.0;
    return s;
}

static void assert_near(double got, double want, const char *what)
{
    cr_assert(fabs(got - want) <= 1e-9 * fabs(want) + 1e-12, "%s: got %.17g, want %.17g", what, got,
              want);
}

Test(metrics_spec_decode, a_request_reports_its_server_statistics)
{
    const int64_t h[] = {2, 1, 1, 0};
    struct record_spec_decode s = stats(3, h);
    s.mean_acceptance_length = 1.7; /* as reported, not recomputed */
    struct metrics_request req = request(&s);
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    assert_near(v.value[METRICS_SPEC_ACCEPTANCE_LENGTH], 1.7, "acceptance length");
    assert_near(v.value[METRICS_SPEC_DRAFT_ACCEPTANCE_RATE], 25.0, "rate in percent");
    assert_near(v.value[METRICS_SPEC_ACCEPTED_PER_VERIFIED], (3.0 + 4.0) / (12.0 + 4.0),
                "accepted per verified");
    assert_near(v.value[METRICS_SPEC_STEPS], 4, "steps");
    assert_near(v.value[METRICS_SPEC_ACCEPTED_DRAFT_TOKENS], 3, "accepted");
    assert_near(v.value[METRICS_SPEC_DRAFT_TOKENS], 12, "drafted");
}

Test(metrics_spec_decode, no_statistics_no_metrics)
{
    const int64_t zero[] = {0, 0, 0, 0};
    struct record_spec_decode zero_step = stats(3, zero);
    const int64_t h[] = {2, 1, 1, 0};
    struct record_spec_decode twice = stats(3, h);
    twice.payloads = 2;
    struct record_spec_decode invalid = stats(3, h);
    invalid.valid = false;
    const struct record_spec_decode *cases[] = {NULL, &zero_step, &twice, &invalid};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct metrics_request req = request(cases[i]);
        struct metrics_values v;
        metrics_request_compute(&req, &v);
        for (int id = METRICS_SPEC_ACCEPTANCE_LENGTH; id <= METRICS_SPEC_DRAFT_TOKENS; id++) {
            cr_assert_not(v.has[id], "case %zu: %s", i, metrics_info_of(id)->tag);
        }
    }
}

/* add_all adds requests with statistics `s[0..n)` to run. */
static void add_all(struct metrics_run *run, const struct record_spec_decode *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        struct metrics_request req = request(&s[i]);
        struct metrics_values v;
        metrics_request_compute(&req, &v);
        metrics_run_add(run, &req, &v);
    }
}

static void check_summary(const struct metrics_summary *s)
{
    /* Steps 4 + 3, accepted 3 + 4, drafted 12 + 6; one zero-step request. */
    assert_near(s->scalar[METRICS_S_TOTAL_SPEC_DECODE_STEPS], 7, "total steps");
    assert_near(s->scalar[METRICS_S_TOTAL_ACCEPTED_DRAFT_TOKENS], 7, "total accepted");
    assert_near(s->scalar[METRICS_S_TOTAL_DRAFT_TOKENS], 18, "total drafted");
    assert_near(s->scalar[METRICS_S_SPEC_TOKEN_WEIGHTED_ACCEPTANCE_LENGTH], 2.0, "weighted");
    assert_near(s->scalar[METRICS_S_SPEC_OVERALL_DRAFT_ACCEPTANCE_RATE], 700.0 / 18, "overall");
    assert_near(s->scalar[METRICS_S_SPEC_ZERO_STEP_REQUESTS], 1, "zero-step requests");
    cr_assert(s->record_present[METRICS_SPEC_ACCEPTANCE_LENGTH]);
    cr_assert_eq(s->record[METRICS_SPEC_ACCEPTANCE_LENGTH].count, 2, "the zero-step one is out");
    assert_near(s->record[METRICS_SPEC_ACCEPTANCE_LENGTH].avg, (1.75 + 1 + 4.0 / 3) / 2,
                "per-request mean");
    cr_assert(s->spec_present);
    cr_assert_eq(s->spec_bucket_count, 4);
    const uint64_t pooled[] = {2 + 1, 1, 1 + 2, 0};
    for (int j = 0; j < 4; j++) {
        cr_assert_eq(s->spec_steps[j], pooled[j], "pooled bucket %d", j);
    }
}

Test(metrics_spec_decode, the_run_pools_totals_and_histograms)
{
    const int64_t a[] = {2, 1, 1, 0};
    const int64_t b[] = {1, 0, 2};
    const int64_t zero[] = {0, 0};
    struct record_spec_decode s[] = {stats(3, a), stats(2, b), stats(1, zero)};
    struct metrics_run_config cfg = {.streaming = false};
    struct metrics_run *run = NULL;
    cr_assert_eq(metrics_run_new(&cfg, &run), 0);
    add_all(run, s, 3);
    struct metrics_summary sum;
    metrics_run_summarize(run, &sum);
    check_summary(&sum);

    /* Shards: two halves merged give the same. */
    struct metrics_run *left = NULL;
    struct metrics_run *right = NULL;
    cr_assert_eq(metrics_run_new(&cfg, &left), 0);
    cr_assert_eq(metrics_run_new(&cfg, &right), 0);
    add_all(left, s, 1);
    add_all(right, s + 1, 2);
    cr_assert_eq(metrics_run_merge(left, right), 0);
    metrics_run_summarize(left, &sum);
    check_summary(&sum);

    metrics_run_reset(left);
    metrics_run_summarize(left, &sum);
    cr_assert_not(sum.spec_present);
    cr_assert_not(sum.scalar_present[METRICS_S_SPEC_ZERO_STEP_REQUESTS]);
    metrics_run_free(left);
    metrics_run_free(right);
    metrics_run_free(run);
}

Test(metrics_spec_decode, a_run_without_statistics_has_none_of_them)
{
    struct metrics_run_config cfg = {.streaming = false};
    struct metrics_run *run = NULL;
    cr_assert_eq(metrics_run_new(&cfg, &run), 0);
    add_all(run, NULL, 0);
    struct metrics_request req = request(NULL);
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    metrics_run_add(run, &req, &v);
    struct metrics_summary sum;
    metrics_run_summarize(run, &sum);
    cr_assert_not(sum.spec_present);
    for (int id = 0; id < METRICS_SCALAR_COUNT; id++) {
        const char *tag = metrics_scalar_info_of(id)->tag;
        bool spec = (metrics_scalar_info_of(id)->flags & METRICS_F_SPEC_DECODE) != 0 ||
                    id == METRICS_S_TOTAL_SPEC_DECODE_STEPS ||
                    id == METRICS_S_TOTAL_ACCEPTED_DRAFT_TOKENS ||
                    id == METRICS_S_TOTAL_DRAFT_TOKENS;
        cr_assert(!spec || !sum.scalar_present[id], "%s", tag);
    }
    metrics_run_free(run);
}
