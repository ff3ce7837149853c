/*
 * test_confidence.c - the Student-t quantile against printed tables and closed
 * forms, and the multi-run spread (mean, std, cv, se, interval).
 */
#include "metrics/metrics.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static void assert_near(double actual, double expected, double abs_tol, const char *what, double df,
                        double p)
{
    cr_assert(fabs(actual - expected) <= abs_tol, "%s df=%g p=%g: got %.17g, expected %.17g", what,
              df, p, actual, expected);
}

/* The two-sided critical values of every statistics textbook's t table
 * (three decimals): columns are the confidence levels below, df = inf is the
 * normal's row. */
static const double table_levels[] = {0.80, 0.90, 0.95, 0.98, 0.99, 0.999};
static const struct {
    double df;
    double t[6];
} t_table[] = {
    {1, {3.078, 6.314, 12.706, 31.821, 63.657, 636.619}},
    {2, {1.886, 2.920, 4.303, 6.965, 9.925, 31.599}},
    {3, {1.638, 2.353, 3.182, 4.541, 5.841, 12.924}},
    {4, {1.533, 2.132, 2.776, 3.747, 4.604, 8.610}},
    {5, {1.476, 2.015, 2.571, 3.365, 4.032, 6.869}},
    {6, {1.440, 1.943, 2.447, 3.143, 3.707, 5.959}},
    {7, {1.415, 1.895, 2.365, 2.998, 3.499, 5.408}},
    {8, {1.397, 1.860, 2.306, 2.896, 3.355, 5.041}},
    {9, {1.383, 1.833, 2.262, 2.821, 3.250, 4.781}},
    {10, {1.372, 1.812, 2.228, 2.764, 3.169, 4.587}},
    {15, {1.341, 1.753, 2.131, 2.602, 2.947, 4.073}},
    {20, {1.325, 1.725, 2.086, 2.528, 2.845, 3.850}},
    {30, {1.310, 1.697, 2.042, 2.457, 2.750, 3.646}},
    {60, {1.296, 1.671, 2.000, 2.390, 2.660, 3.460}},
    {120, {1.289, 1.658, 1.980, 2.358, 2.617, 3.373}},
    {INFINITY, {1.282, 1.645, 1.960, 2.326, 2.576, 3.291}},
};

Test(confidence, t_quantile_matches_the_printed_table)
{
    for (size_t i = 0; i < ARRAY_LEN(t_table); i++) {
        for (size_t j = 0; j < ARRAY_LEN(table_levels); j++) {
            double q = (1.0 - table_levels[j]) / 2.0;
            double t = metrics_t_upper_quantile(q, t_table[i].df);
            assert_near(t, t_table[i].t[j], 0.0005 + 1e-12, "table", t_table[i].df,
                        table_levels[j]);
        }
    }
}

/* df = 1 (Cauchy), 2 and 4 have closed forms: exact checks to 1e-13. */
static double closed_df1(double q)
{
    return 1.0 / tan(M_PI * q);
}

static double closed_df2(double q)
{
    return (1.0 - 2.0 * q) / sqrt(2.0 * q * (1.0 - q));
}

static double closed_df4(double q)
{
    double p = 1.0 - q;
    double alpha = 4.0 * p * (1.0 - p);
    double s = sqrt(alpha);
    return 2.0 * sqrt(cos(acos(s) / 3.0) / s - 1.0);
}

Test(confidence, t_quantile_matches_the_closed_forms)
{
    static const double qs[] = {0.4, 0.25, 0.1, 0.05, 0.025, 0.01, 0.005, 0.0025, 0.0005, 1e-6};
    for (size_t i = 0; i < ARRAY_LEN(qs); i++) {
        double q = qs[i];
        double want1 = closed_df1(q);
        double want2 = closed_df2(q);
        double want4 = closed_df4(q);
        assert_near(metrics_t_upper_quantile(q, 1), want1, 1e-12 * want1, "df1", 1, q);
        assert_near(metrics_t_upper_quantile(q, 2), want2, 1e-12 * want2, "df2", 2, q);
        assert_near(metrics_t_upper_quantile(q, 4), want4, 1e-11 * want4, "df4", 4, q);
    }
}

/* The quantile to 20 digits, computed with mpmath at 40 digits (bisection on
 * mpmath.betainc), for the df the closed forms do not cover. */
static const struct {
    double df;
    double t[3]; /* upper tails 0.05, 0.025, 0.005 */
} exact_table[] = {
    {3, {2.3533634348018238777, 3.1824463052837095927, 5.8409093097333572607}},
    {5, {2.0150483733330242378, 2.5705818356363155147, 4.0321429835552280784}},
    {9, {1.8331129326562371687, 2.2621571627982055426, 3.2498355415921262756}},
    {30, {1.6972608865939578486, 2.04227245630123831, 2.7499956535672253324}},
    {100, {1.6602343260853395555, 1.9839715185235522866, 2.6258905214380179306}},
    {10000, {1.6450060180692429644, 1.9602012398906262578, 2.5763210466685288926}},
    {100000, {1.644868864784969734, 1.9599877075346096386, 2.5758784699083753035}},
    {1000000, {1.6448551507220404926, 1.9599663568141070353, 2.5758342201053341543}},
};

Test(confidence, t_quantile_matches_high_precision_values)
{
    static const double tails[] = {0.05, 0.025, 0.005};
    for (size_t i = 0; i < ARRAY_LEN(exact_table); i++) {
        for (size_t j = 0; j < ARRAY_LEN(tails); j++) {
            double want = exact_table[i].t[j];
            assert_near(metrics_t_upper_quantile(tails[j], exact_table[i].df), want, 1e-13 * want,
                        "mpmath", exact_table[i].df, 1.0 - tails[j]);
        }
    }
}

/* scipy.stats.t.ppf and norm.ppf to all their printed digits. */
Test(confidence, t_quantile_matches_scipy)
{
    assert_near(metrics_t_upper_quantile(0.025, 1), 12.706204736174698, 1e-11, "scipy", 1, 0.025);
    assert_near(metrics_t_upper_quantile(0.025, INFINITY), 1.959963984540054, 1e-13, "scipy",
                INFINITY, 0.025);
    assert_near(metrics_t_upper_quantile(0.005, INFINITY), 2.5758293035489004, 1e-13, "scipy",
                INFINITY, 0.005);
}

Test(confidence, t_quantile_inverts_the_cdf_for_many_df)
{
    static const double dfs[] = {0.5, 1, 1.5, 2, 3, 7, 9, 29, 30, 31, 100, 1000, 9999};
    static const double ps[] = {0.55, 0.6, 0.75, 0.9, 0.95, 0.975, 0.99, 0.995, 0.9995};
    for (size_t i = 0; i < ARRAY_LEN(dfs); i++) {
        for (size_t j = 0; j < ARRAY_LEN(ps); j++) {
            double t = metrics_t_upper_quantile(1.0 - ps[j], dfs[i]);
            assert_near(metrics_t_cdf(t, dfs[i]), ps[j], 1e-13, "cdf(ppf)", dfs[i], ps[j]);
            assert_near(metrics_t_cdf(-t, dfs[i]), 1.0 - ps[j], 1e-13, "symmetry", dfs[i], ps[j]);
        }
    }
}

Test(confidence, t_quantile_approaches_the_normal_for_large_df)
{
    double z = metrics_t_upper_quantile(0.025, INFINITY);
    /* Around the switch to the series the two methods agree. */
    double below = metrics_t_upper_quantile(0.025, 1e4);
    double above = metrics_t_upper_quantile(0.025, 1e4 * (1 + 1e-12));
    assert_near(below, above, 1e-13, "switch", 1e4, 0.975);
    /* t = z + (z^3 + z) / (4 df) + O(df^-2) */
    assert_near(metrics_t_upper_quantile(0.025, 1e9), z + (z * z * z + z) / 4e9, 1e-15, "1e9", 1e9,
                0.975);
    assert_near(metrics_t_upper_quantile(0.025, 1e300), z, 1e-15, "1e300", 1e300, 0.975);
    /* Monotone in df: more freedom, a narrower interval. */
    double prev = INFINITY;
    for (double df = 1; df < 1e8; df *= 1.7) {
        double t = metrics_t_upper_quantile(0.025, df);
        cr_assert(t < prev, "df=%g: %.17g not below %.17g", df, t, prev);
        prev = t;
    }
}

Test(confidence, t_quantile_refuses_what_has_none)
{
    cr_assert(isnan(metrics_t_upper_quantile(0.0, 5)));
    cr_assert(isnan(metrics_t_upper_quantile(1.0, 5)));
    cr_assert(isnan(metrics_t_upper_quantile(0.05, 0)));
    cr_assert(isnan(metrics_t_upper_quantile(0.05, -1)));
    cr_assert(isnan(metrics_t_upper_quantile(NAN, 3)));
    cr_assert(isnan(metrics_t_upper_quantile(0.05, NAN)));
    cr_assert_eq(metrics_t_upper_quantile(0.5, 3), 0.0);
    assert_near(metrics_t_upper_quantile(0.975, 9), -metrics_t_upper_quantile(0.025, 9), 1e-15,
                "lower", 9, 0.025);
}

Test(confidence, spread_of_three_runs)
{
    const double values[] = {100.0, 110.0, 105.0};
    struct metrics_confidence c;
    cr_assert_eq(metrics_confidence_compute(values, 3, 0.95, &c), 0);
    cr_assert_eq(c.n, 3);
    assert_near(c.mean, 105.0, 1e-12, "mean", 2, 0.95);
    assert_near(c.std, 5.0, 1e-12, "std", 2, 0.95);
    assert_near(c.min, 100.0, 0, "min", 2, 0.95);
    assert_near(c.max, 110.0, 0, "max", 2, 0.95);
    assert_near(c.cv, 5.0 / 105.0, 1e-15, "cv", 2, 0.95);
    assert_near(c.se, 5.0 / sqrt(3.0), 1e-13, "se", 2, 0.95);
    double t = closed_df2(0.025);
    assert_near(c.t_critical, t, 1e-12, "t", 2, 0.95);
    assert_near(c.ci_low, 105.0 - t * 5.0 / sqrt(3.0), 1e-11, "ci_low", 2, 0.95);
    assert_near(c.ci_high, 105.0 + t * 5.0 / sqrt(3.0), 1e-11, "ci_high", 2, 0.95);
}

Test(confidence, non_finite_values_are_skipped)
{
    const double values[] = {NAN, 2.0, INFINITY, 4.0, -INFINITY};
    struct metrics_confidence c;
    cr_assert_eq(metrics_confidence_compute(values, 5, 0.90, &c), 0);
    cr_assert_eq(c.n, 2);
    assert_near(c.mean, 3.0, 0, "mean", 1, 0.9);
    assert_near(c.std, sqrt(2.0), 1e-15, "std", 1, 0.9);
    assert_near(c.t_critical, closed_df1(0.05), 1e-12, "t", 1, 0.9);
}

Test(confidence, one_value_collapses_the_interval)
{
    const double values[] = {NAN, 7.5};
    struct metrics_confidence c;
    cr_assert_eq(metrics_confidence_compute(values, 2, 0.95, &c), 0);
    cr_assert_eq(c.n, 1);
    cr_assert(c.mean == 7.5 && c.min == 7.5 && c.max == 7.5);
    cr_assert(c.std == 0 && c.cv == 0 && c.se == 0);
    cr_assert(c.ci_low == 7.5 && c.ci_high == 7.5);
    cr_assert(isnan(c.t_critical));
}

Test(confidence, zero_mean_has_infinite_cv)
{
    const double values[] = {-1.0, 1.0};
    struct metrics_confidence c;
    cr_assert_eq(metrics_confidence_compute(values, 2, 0.95, &c), 0);
    cr_assert(isinf(c.cv) && c.cv > 0);
}

Test(confidence, bad_inputs_are_refused)
{
    const double values[] = {1.0, 2.0};
    const double none[] = {NAN, INFINITY};
    struct metrics_confidence c = {.mean = 42};
    cr_assert_eq(metrics_confidence_compute(values, 2, 0.0, &c), -EINVAL);
    cr_assert_eq(metrics_confidence_compute(values, 2, 1.0, &c), -EINVAL);
    cr_assert_eq(metrics_confidence_compute(values, 2, NAN, &c), -EINVAL);
    cr_assert_eq(metrics_confidence_compute(none, 2, 0.95, &c), -ENODATA);
    cr_assert_eq(metrics_confidence_compute(values, 0, 0.95, &c), -ENODATA);
    cr_assert_eq(c.mean, 42);
}
