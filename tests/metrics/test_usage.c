/*
 * test_usage.c - AIPerf's usage metrics on hand-made requests: every usage
 * field becomes its usage_* metric, the diff percentages against the
 * client's token counts, the totals, the token-weighted cache-read share and
 * the discrepancy count (spec §1.7, §2.2, §2.3).
 */
#include "metrics/metrics.h"

#include <criterion/criterion.h>
#include <math.h>

#define MS 1000000LL
#define WALL0 (1700000000LL * 1000 * MS)

static const int64_t content_ns[] = {1010 * MS, 1020 * MS, 1030 * MS};

/* request is a successful streaming request with client-side counts
 * (input, output, reasoning) and no usage. */
static struct metrics_request request(int64_t input, int64_t output, int64_t reasoning)
{
    return (struct metrics_request){
        .streaming = true,
        .start_ns = 1000 * MS,
        .start_wall_ns = WALL0,
        .content_ns = content_ns,
        .content_count = 3,
        .first_output_index = 0,
        .tokens = {.input = input, .output = output, .reasoning = reasoning},
        .usage = RECORD_USAGE_NONE,
        .client_tokens = true,
    };
}

static void assert_value(const struct metrics_values *v, enum metrics_id id, double expected)
{
    cr_assert(v->has[id], "%s is present", metrics_info_of(id)->tag);
    cr_assert(fabs(v->value[id] - expected) <= 1e-9 * fabs(expected), "%s: got %.17g, want %.17g",
              metrics_info_of(id)->tag, v->value[id], expected);
}

static void assert_absent(const struct metrics_values *v, enum metrics_id id)
{
    cr_assert(!v->has[id], "%s is absent", metrics_info_of(id)->tag);
}

static void assert_scalar(const struct metrics_summary *s, enum metrics_scalar_id id,
                          double expected)
{
    cr_assert(s->scalar_present[id], "%s is present", metrics_scalar_info_of(id)->tag);
    cr_assert(fabs(s->scalar[id] - expected) <= 1e-9 * fabs(expected), "%s: got %.17g, want %.17g",
              metrics_scalar_info_of(id)->tag, s->scalar[id], expected);
}

Test(metrics_usage, every_reported_field_is_a_record_metric)
{
    struct metrics_request req = request(100, 40, METRICS_ABSENT);
    req.usage = (struct record_usage){
        .prompt_tokens = 100,
        .completion_tokens = 40,
        .total_tokens = 140,
        .reasoning_tokens = 0,
        .prompt_cache_read_tokens = 64,
        .prompt_cache_write_tokens = 16,
        .prompt_cache_miss_tokens = 20,
        .prompt_audio_tokens = 7,
        .completion_audio_tokens = 3,
        .tool_use_prompt_tokens = 12,
        .accepted_prediction_tokens = 5,
        .rejected_prediction_tokens = 2,
        .prompt_audio_seconds = 2.5,
    };
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    assert_value(&v, METRICS_USAGE_PROMPT_TOKENS, 100);
    assert_value(&v, METRICS_USAGE_COMPLETION_TOKENS, 40);
    assert_value(&v, METRICS_USAGE_TOTAL_TOKENS, 140);
    cr_assert(v.has[METRICS_USAGE_REASONING_TOKENS] && v.value[METRICS_USAGE_REASONING_TOKENS] == 0,
              "a reported 0 is a value");
    assert_value(&v, METRICS_USAGE_PROMPT_CACHE_READ_TOKENS, 64);
    assert_value(&v, METRICS_USAGE_PROMPT_CACHE_WRITE_TOKENS, 16);
    assert_value(&v, METRICS_USAGE_PROMPT_CACHE_MISS_TOKENS, 20);
    assert_value(&v, METRICS_USAGE_PROMPT_AUDIO_TOKENS, 7);
    assert_value(&v, METRICS_USAGE_COMPLETION_AUDIO_TOKENS, 3);
    assert_value(&v, METRICS_USAGE_TOOL_USE_PROMPT_TOKENS, 12);
    assert_value(&v, METRICS_USAGE_ACCEPTED_PREDICTION_TOKENS, 5);
    assert_value(&v, METRICS_USAGE_REJECTED_PREDICTION_TOKENS, 2);
    assert_value(&v, METRICS_USAGE_PROMPT_AUDIO_SECONDS, 2.5);
}

Test(metrics_usage, unreported_fields_are_absent)
{
    struct metrics_request req = request(100, 40, METRICS_ABSENT);
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    for (int id = METRICS_USAGE_PROMPT_TOKENS; id <= METRICS_USAGE_REASONING_TOKENS_DIFF_PCT;
         id++) {
        assert_absent(&v, (enum metrics_id)id);
    }
}

Test(metrics_usage, diff_pct_is_abs_relative_difference_to_the_client)
{
    /* client: ISL 100, output 30 + reasoning 10 = OSL 40. */
    struct metrics_request req = request(100, 30, 10);
    req.usage.prompt_tokens = 112;    /* +12 % */
    req.usage.completion_tokens = 38; /* -5 % of the OSL */
    req.usage.reasoning_tokens = 10;  /* exact */
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    assert_value(&v, METRICS_USAGE_PROMPT_TOKENS_DIFF_PCT, 12.0);
    assert_value(&v, METRICS_USAGE_COMPLETION_TOKENS_DIFF_PCT, 5.0);
    cr_assert(v.has[METRICS_USAGE_REASONING_TOKENS_DIFF_PCT]);
    cr_assert_eq(v.value[METRICS_USAGE_REASONING_TOKENS_DIFF_PCT], 0.0);
}

Test(metrics_usage, no_diff_without_both_sides_or_client_counts)
{
    struct metrics_request req = request(0, 30, METRICS_ABSENT);
    req.usage.prompt_tokens = 5;      /* client ISL 0: no ratio */
    req.usage.completion_tokens = 30; /* client OSL 30: a diff of 0 */
    req.usage.reasoning_tokens = 4;   /* client reasoning absent */
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    assert_absent(&v, METRICS_USAGE_PROMPT_TOKENS_DIFF_PCT);
    cr_assert(v.has[METRICS_USAGE_COMPLETION_TOKENS_DIFF_PCT]);
    assert_absent(&v, METRICS_USAGE_REASONING_TOKENS_DIFF_PCT);

    req.client_tokens = false; /* counts taken from usage: nothing to compare */
    metrics_request_compute(&req, &v);
    assert_absent(&v, METRICS_USAGE_COMPLETION_TOKENS_DIFF_PCT);
    assert_value(&v, METRICS_USAGE_COMPLETION_TOKENS, 30);
}

Test(metrics_usage, failed_requests_have_no_usage_metrics)
{
    struct metrics_request req = request(100, 30, METRICS_ABSENT);
    req.failed = true;
    req.usage.prompt_tokens = 100;
    req.usage.prompt_cache_read_tokens = 50;
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    assert_absent(&v, METRICS_USAGE_PROMPT_TOKENS);
    assert_absent(&v, METRICS_USAGE_PROMPT_CACHE_READ_TOKENS);
    assert_value(&v, METRICS_ERROR_ISL, 100);
}

static void add(struct metrics_run *run, const struct metrics_request *req)
{
    struct metrics_values v;
    metrics_request_compute(req, &v);
    metrics_run_add(run, req, &v);
}

static struct metrics_run *new_run(void)
{
    struct metrics_run_config cfg = {.streaming = true};
    struct metrics_run *run = NULL;
    cr_assert_eq(metrics_run_new(&cfg, &run), 0);
    return run;
}

Test(metrics_usage, totals_overall_cache_read_and_discrepancies)
{
    struct metrics_run *run = new_run();
    struct metrics_request a = request(100, 20, METRICS_ABSENT);
    a.usage.prompt_tokens = 100;
    a.usage.completion_tokens = 20;
    a.usage.prompt_cache_read_tokens = 80;
    a.usage.prompt_audio_seconds = 1.25;
    add(run, &a); /* diffs 0, 0: no discrepancy */
    struct metrics_request b = request(300, 20, METRICS_ABSENT);
    b.usage.prompt_tokens = 300;
    b.usage.completion_tokens = 23; /* 15 % over */
    b.usage.prompt_cache_read_tokens = 0;
    b.usage.prompt_audio_seconds = 0.5;
    add(run, &b);
    struct metrics_request c = request(200, 20, METRICS_ABSENT);
    c.usage.prompt_tokens = 220; /* exactly 10 %: not over the threshold */
    add(run, &c);
    struct metrics_request failed = request(50, METRICS_ABSENT, METRICS_ABSENT);
    failed.failed = true;
    failed.usage.prompt_tokens = 1000;
    failed.usage.prompt_cache_read_tokens = 1000;
    add(run, &failed);

    struct metrics_summary s;
    cr_assert_eq(metrics_run_summarize(run, &s), 0);
    assert_scalar(&s, METRICS_S_TOTAL_USAGE_PROMPT_TOKENS, 620);
    assert_scalar(&s, METRICS_S_TOTAL_USAGE_COMPLETION_TOKENS, 43);
    assert_scalar(&s, METRICS_S_TOTAL_USAGE_PROMPT_CACHE_READ_TOKENS, 80);
    assert_scalar(&s, METRICS_S_TOTAL_USAGE_PROMPT_AUDIO_SECONDS, 1.75);
    /* token-weighted, not the mean of per-request shares (80 % and 0 %) */
    assert_scalar(&s, METRICS_S_OVERALL_USAGE_PROMPT_CACHE_READ_PCT, 80.0 / 620.0 * 100.0);
    cr_assert(s.scalar_present[METRICS_S_USAGE_DISCREPANCY_COUNT]);
    cr_assert_eq(s.scalar[METRICS_S_USAGE_DISCREPANCY_COUNT], 1.0);
    cr_assert_not(s.scalar_present[METRICS_S_TOTAL_USAGE_PROMPT_CACHE_WRITE_TOKENS]);
    cr_assert(s.record_present[METRICS_USAGE_PROMPT_CACHE_READ_TOKENS]);
    cr_assert_eq(s.record[METRICS_USAGE_PROMPT_CACHE_READ_TOKENS].count, 2);
    cr_assert_float_eq(s.record[METRICS_USAGE_PROMPT_CACHE_READ_TOKENS].avg, 40.0, 1e-9);
    cr_assert(s.record_present[METRICS_USAGE_COMPLETION_TOKENS_DIFF_PCT]);
    cr_assert_float_eq(s.record[METRICS_USAGE_COMPLETION_TOKENS_DIFF_PCT].max, 15.0, 1e-9);
    cr_assert_float_eq(s.record[METRICS_USAGE_PROMPT_AUDIO_SECONDS].sum, 1.75, 1e-12);
    metrics_run_free(run);
}

Test(metrics_usage, no_cache_share_or_discrepancy_count_without_their_inputs)
{
    struct metrics_run *run = new_run();
    struct metrics_request a = request(100, 20, METRICS_ABSENT);
    a.client_tokens = false;
    a.usage.prompt_tokens = 0;
    a.usage.prompt_cache_read_tokens = 0;
    add(run, &a);
    struct metrics_summary s;
    cr_assert_eq(metrics_run_summarize(run, &s), 0);
    assert_scalar(&s, METRICS_S_TOTAL_USAGE_PROMPT_CACHE_READ_TOKENS, 0);
    cr_assert_not(s.scalar_present[METRICS_S_OVERALL_USAGE_PROMPT_CACHE_READ_PCT],
                  "zero prompt tokens: no share");
    cr_assert_not(s.scalar_present[METRICS_S_USAGE_DISCREPANCY_COUNT]);
    metrics_run_free(run);
}

Test(metrics_usage, fractional_values_survive_the_histograms)
{
    cr_assert_eq(metrics_record_hist_value(METRICS_USAGE_PROMPT_AUDIO_SECONDS, 2.5), 2500);
    cr_assert_eq(metrics_record_hist_value(METRICS_USAGE_PROMPT_TOKENS_DIFF_PCT, 12.345), 12345);
    cr_assert_float_eq(metrics_record_hist_per_display(METRICS_USAGE_PROMPT_TOKENS_DIFF_PCT),
                       1000.0, 1e-12);
    cr_assert_eq(metrics_record_hist_value(METRICS_USAGE_PROMPT_CACHE_READ_TOKENS, 64), 64);
}

Test(metrics_usage, usage_group_metadata)
{
    const struct metrics_info *read = metrics_info_of(METRICS_USAGE_PROMPT_CACHE_READ_TOKENS);
    cr_assert_str_eq(read->tag, "usage_prompt_cache_read_tokens");
    cr_assert((read->flags & METRICS_F_USAGE) != 0);
    const struct metrics_info *pct =
        metrics_scalar_info_of(METRICS_S_OVERALL_USAGE_PROMPT_CACHE_READ_PCT);
    cr_assert_str_eq(pct->tag, "overall_usage_prompt_cache_read_pct");
    cr_assert_str_eq(pct->unit, "%");
    cr_assert((pct->flags & METRICS_F_INTEGER) == 0);
    cr_assert_str_eq(metrics_info_of(METRICS_USAGE_REASONING_TOKENS_DIFF_PCT)->tag,
                     "usage_reasoning_tokens_diff_pct");
    cr_assert_str_eq(metrics_scalar_info_of(METRICS_S_USAGE_DISCREPANCY_COUNT)->tag,
                     "usage_discrepancy_count");
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        cr_assert_not_null(metrics_info_of(id)->tag, "record metric %d has a tag", id);
    }
    for (int id = 0; id < METRICS_SCALAR_COUNT; id++) {
        cr_assert_not_null(metrics_scalar_info_of(id)->tag, "scalar metric %d has a tag", id);
    }
}
