#include <criterion/criterion.h>

#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "config/config.h"
#include "workload/workload_arrivals.h"

enum { SAMPLES = 200000 };

/* gap_stats draws SAMPLES gaps and returns their mean and coefficient of variation. */
static void gap_stats(enum workload_arrival_pattern pattern, double rate, double smoothness,
                      double *out_mean, double *out_cv)
{
    struct workload_arrivals a;
    cr_assert_eq(workload_arrivals_init(&a, pattern, rate, smoothness, 42), 0);
    int64_t prev = workload_arrivals_offset_ns(&a, 0);
    cr_assert_eq(prev, 0, "the first request is due at time zero");
    double sum = 0;
    double sum_sq = 0;
    for (uint64_t k = 1; k <= SAMPLES; k++) {
        int64_t offset = workload_arrivals_offset_ns(&a, k);
        cr_assert_geq(offset, prev, "offsets never decrease");
        double gap = (double)(offset - prev) / 1e9;
        sum += gap;
        sum_sq += gap * gap;
        prev = offset;
    }
    double mean = sum / SAMPLES;
    *out_mean = mean;
    *out_cv = sqrt(sum_sq / SAMPLES - mean * mean) / mean;
}

Test(workload_arrivals, constant_gaps_are_exactly_one_over_the_rate)
{
    struct workload_arrivals a;
    cr_assert_eq(workload_arrivals_init(&a, WORKLOAD_CONSTANT, 4.0, 0, 1), 0);
    for (uint64_t k = 0; k < 100; k++) {
        cr_assert_eq(workload_arrivals_offset_ns(&a, k), (int64_t)k * 250000000);
    }
}

Test(workload_arrivals, poisson_gaps_have_the_rate_and_unit_variation)
{
    double mean = 0;
    double cv = 0;
    gap_stats(WORKLOAD_POISSON, 1000.0, 0, &mean, &cv);
    cr_assert(fabs(mean - 1e-3) < 2e-5, "mean gap %g s", mean);
    cr_assert(fabs(cv - 1.0) < 0.02, "coefficient of variation %g", cv);
}

Test(workload_arrivals, gamma_gaps_have_the_rate_and_cv_one_over_root_k)
{
    const double shapes[] = {0.5, 1.0, 4.0};
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
        double mean = 0;
        double cv = 0;
        gap_stats(WORKLOAD_GAMMA, 500.0, shapes[i], &mean, &cv);
        cr_assert(fabs(mean - 2e-3) < 4e-5, "k=%g: mean gap %g s", shapes[i], mean);
        cr_assert(fabs(cv - 1.0 / sqrt(shapes[i])) < 0.03, "k=%g: cv %g", shapes[i], cv);
    }
}

Test(workload_arrivals, same_seed_same_schedule)
{
    struct workload_arrivals a;
    struct workload_arrivals b;
    workload_arrivals_init(&a, WORKLOAD_POISSON, 10.0, 0, 7);
    workload_arrivals_init(&b, WORKLOAD_POISSON, 10.0, 0, 7);
    for (uint64_t k = 0; k < 1000; k++) {
        cr_assert_eq(workload_arrivals_offset_ns(&a, k), workload_arrivals_offset_ns(&b, k));
    }
}

Test(workload_arrivals, invalid_rates_and_shapes_are_refused)
{
    struct workload_arrivals a;
    cr_assert_eq(workload_arrivals_init(&a, WORKLOAD_POISSON, 0.0, 0, 1), -EINVAL);
    cr_assert_eq(workload_arrivals_init(&a, WORKLOAD_CONSTANT, -1.0, 0, 1), -EINVAL);
    cr_assert_eq(workload_arrivals_init(&a, WORKLOAD_GAMMA, 1.0, 0.0, 1), -EINVAL);
    cr_assert_eq(workload_arrivals_init(&a, WORKLOAD_CONSTANT, INFINITY, 0, 1), -EINVAL);
}

/* --request-rate 40 --request-rate-ramp-duration 1, constant: the rate starts at 40 * 0.1 / 1 =
 * 4 req/s and climbs linearly to 40 at 1 s. Request k is due where the ramped rate's integral
 * L(t) = 0.1 t + 0.45 t^2 (t <= 1), 0.55 + (t - 1) (after) reaches k / 40. */
Test(workload_arrivals, a_ramp_follows_the_integral_of_the_ramped_rate)
{
    struct workload_arrivals a;
    cr_assert_eq(workload_arrivals_init(&a, WORKLOAD_CONSTANT, 40.0, 0, 1), 0);
    workload_arrivals_set_ramp(&a, 1.0);
    cr_assert_eq(workload_arrivals_offset_ns(&a, 0), 0);
    for (uint64_t k = 1; k < 80; k++) {
        double y = (double)k / 40.0;
        double t = y >= 0.55 ? 1.0 + (y - 0.55) : (-0.1 + sqrt(0.01 + 1.8 * y)) / 0.9;
        int64_t offset = workload_arrivals_offset_ns(&a, k);
        cr_assert(llabs(offset - (int64_t)llround(t * 1e9)) <= 2,
                  "request %llu: %lld ns, want %.9f s", (unsigned long long)k, (long long)offset,
                  t);
    }
    /* The old rule (the rate at the current offset, floored at 1%) put request 1 at 2.5 s. */
    struct workload_arrivals b;
    workload_arrivals_init(&b, WORKLOAD_CONSTANT, 40.0, 0, 1);
    workload_arrivals_set_ramp(&b, 1.0);
    workload_arrivals_offset_ns(&b, 0);
    cr_assert_lt(workload_arrivals_offset_ns(&b, 1), 200LL * 1000 * 1000);
}

/* A ramped Poisson stream sends the ramp's area: over a 2 s ramp to 1,000 req/s, 1,050
 * requests are expected in the first 2 s (sd 32) and 287.5 in the first second. */
Test(workload_arrivals, a_ramped_poisson_stream_sends_the_ramps_area)
{
    struct workload_arrivals a;
    cr_assert_eq(workload_arrivals_init(&a, WORKLOAD_POISSON, 1000.0, 0, 11), 0);
    workload_arrivals_set_ramp(&a, 2.0);
    size_t first_second = 0;
    size_t ramp = 0;
    for (uint64_t k = 0;; k++) {
        int64_t offset = workload_arrivals_offset_ns(&a, k);
        if (offset >= 2000000000LL) {
            break;
        }
        ramp++;
        first_second += offset < 1000000000LL;
    }
    cr_assert(ramp > 1050 - 5 * 32 && ramp < 1050 + 5 * 32, "%zu requests in the ramp", ramp);
    cr_assert(first_second > 287 - 5 * 17 && first_second < 287 + 5 * 17,
              "%zu requests in the first second", first_second);
}

Test(workload_arrivals, a_ramp_climbs_to_the_target_rate)
{
    struct workload_arrivals a;
    cr_assert_eq(workload_arrivals_init(&a, WORKLOAD_CONSTANT, 100.0, 0, 1), 0);
    workload_arrivals_set_ramp(&a, 2.0);
    int64_t prev = workload_arrivals_offset_ns(&a, 0);
    double early_gap = 0;
    double late_gap = 0;
    for (uint64_t k = 1; k < 1000; k++) {
        int64_t offset = workload_arrivals_offset_ns(&a, k);
        double gap = (double)(offset - prev) / 1e9;
        if (k == 1) {
            early_gap = gap;
        }
        if ((double)offset / 1e9 > 2.5) {
            late_gap = gap;
            break;
        }
        prev = offset;
    }
    cr_assert_gt(early_gap, 0.05, "slow at the start of the ramp: %g s", early_gap);
    cr_assert_float_eq(late_gap, 0.01, 1e-9, "the target rate after the ramp");
}

Test(workload_arrivals, offsets_past_the_clock_range_stay_at_its_end)
{
    struct workload_arrivals a;
    cr_assert_eq(workload_arrivals_init(&a, WORKLOAD_POISSON, 1e-30, 0, 42), 0);
    cr_assert_eq(workload_arrivals_offset_ns(&a, 0), 0);
    int64_t max_ns = (int64_t)(CONFIG_TIME_MAX_SECONDS * 1e9);
    cr_assert_eq(workload_arrivals_offset_ns(&a, 1), max_ns, "never wrapped negative");
    cr_assert_eq(workload_arrivals_offset_ns(&a, 2), max_ns);
}
