#include <criterion/criterion.h>

#include <errno.h>
#include <math.h>

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
