/*
 * confidence.c - the spread of one statistic over repeated runs: mean, sample
 * std, CV, standard error and the Student-t confidence interval AIPerf's
 * multi-run aggregate reports (spec §5.3), with the t quantile computed, not
 * looked up.
 *
 * The t quantile inverts the upper tail P(T > t) = I_x(df/2, 1/2) / 2,
 * x = df / (df + t^2), where I is the regularized incomplete beta function,
 * evaluated by its continued fraction (modified Lentz) on whichever side of
 * the symmetry I_x(a, b) = 1 - I_{1-x}(b, a) converges. Both x and 1 - x are
 * formed from t directly, so neither loses digits to a subtraction. Beyond
 * CONFIDENCE_NORMAL_DF the continued fraction needs thousands of terms and
 * its rounding adds up; there the Cornish-Fisher expansion around the normal
 * quantile is used, whose first omitted term is below 1e-15 (at the 1e-6 tail
 * and df = 1e4; less elsewhere).
 */
#include "metrics/metrics.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>

/* Above this many degrees of freedom the Cornish-Fisher series takes over. */
#define CONFIDENCE_NORMAL_DF 1e4
#define BETA_CF_TERMS_MAX 100000
#define SOLVE_STEPS_MAX 400
#define BETA_CF_EPS 1e-16
#define BETA_CF_TINY 1e-300

/* log_gamma_ratio_half is ln(Gamma(a + 1/2) / Gamma(a)). lgamma's two large
 * values would cancel to a few digits for large a; there the asymptotic
 * series (whose next term is below 1e-15 at a >= 1000) is exact enough. */
static double log_gamma_ratio_half(double a)
{
    if (a < 1000.0) {
        return lgamma(a + 0.5) - lgamma(a);
    }
    return 0.5 * log(a) - 1.0 / (8.0 * a) + 1.0 / (192.0 * a * a * a);
}

/* beta_cf is the continued fraction of I_x(a, b) without its prefactor
 * (Numerical Recipes' betacf, modified Lentz). Converges fast for
 * x < (a + 1) / (a + b + 2). */
static double beta_cf(double a, double b, double x)
{
    double c = 1.0;
    double d = 1.0 - (a + b) * x / (a + 1.0);
    d = fabs(d) < BETA_CF_TINY ? BETA_CF_TINY : d;
    d = 1.0 / d;
    double h = d;
    for (int m = 1; m <= BETA_CF_TERMS_MAX; m++) {
        double m2 = 2.0 * m;
        for (int half = 0; half < 2; half++) {
            double num = half == 0 ? m * (b - m) * x / ((a + m2 - 1.0) * (a + m2))
                                   : -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
            d = 1.0 + num * d;
            d = fabs(d) < BETA_CF_TINY ? BETA_CF_TINY : d;
            c = 1.0 + num / c;
            c = fabs(c) < BETA_CF_TINY ? BETA_CF_TINY : c;
            d = 1.0 / d;
            double delta = d * c;
            h *= delta;
            if (half == 1 && fabs(delta - 1.0) < BETA_CF_EPS) {
                return h;
            }
        }
    }
    return h;
}

/* t_upper_tail is P(T > t) for t >= 0 and df degrees of freedom. */
static double t_upper_tail(double t, double df)
{
    if (t == 0.0) {
        return 0.5;
    }
    double a = df / 2.0;
    double t2 = t * t;
    double x = df / (df + t2); /* I_x(a, 1/2) is twice the tail */
    double y = t2 / (df + t2); /* 1 - x, formed without cancellation */
    double log_x = -log1p(t2 / df);
    double log_y = log(y);
    /* ln B(a, 1/2) = ln Gamma(a) + ln Gamma(1/2) - ln Gamma(a + 1/2) */
    double log_beta = 0.5 * log(M_PI) - log_gamma_ratio_half(a);
    double front = exp(a * log_x + 0.5 * log_y - log_beta);
    if (x < (a + 1.0) / (a + 2.5)) {
        return 0.5 * front * beta_cf(a, 0.5, x) / a;
    }
    return 0.5 * (1.0 - front * beta_cf(0.5, a, y) / 0.5);
}

/* t_density is the Student-t density at t. */
static double t_density(double t, double df)
{
    double log_norm = log_gamma_ratio_half(df / 2.0) - 0.5 * log(df * M_PI);
    return exp(log_norm - (df + 1.0) / 2.0 * log1p(t * t / df));
}

static double normal_upper_tail(double z, double df)
{
    (void)df;
    return 0.5 * erfc(z / M_SQRT2);
}

static double normal_density(double z, double df)
{
    (void)df;
    return exp(-0.5 * z * z) / sqrt(2.0 * M_PI);
}

/* solve_upper_tail finds t >= 0 with tail(t) = q (0 < q < 1/2): Newton's
 * method kept inside a bracket that bisection shrinks whenever a step would
 * leave it, so it converges for every df however heavy the tail. */
static double solve_upper_tail(double q, double df, double (*tail)(double, double),
                               double (*density)(double, double))
{
    double lo = 0.0;
    double hi = 1.0;
    while (tail(hi, df) > q && hi < 1e300) {
        lo = hi;
        hi *= 2.0;
    }
    double t = 0.5 * (lo + hi);
    for (int i = 0; i < SOLVE_STEPS_MAX; i++) {
        double f = tail(t, df) - q;
        if (f == 0.0) {
            return t;
        }
        if (f > 0.0) {
            lo = t; /* the tail falls as t grows: the root lies above */
        } else {
            hi = t;
        }
        double next = t + f / density(t, df);
        if (!(next > lo && next < hi)) {
            next = 0.5 * (lo + hi);
        }
        if (fabs(next - t) <= 4e-16 * next || hi - lo <= 4e-16 * hi) {
            return next;
        }
        t = next;
    }
    return t;
}

/* cornish_fisher is the t quantile for large df from the normal quantile z
 * (Abramowitz and Stegun 26.7.5, four correction terms). */
static double cornish_fisher(double z, double df)
{
    double z2 = z * z;
    double g1 = (z2 + 1.0) * z / 4.0;
    double g2 = ((5.0 * z2 + 16.0) * z2 + 3.0) * z / 96.0;
    double g3 = (((3.0 * z2 + 19.0) * z2 + 17.0) * z2 - 15.0) * z / 384.0;
    double g4 = ((((79.0 * z2 + 776.0) * z2 + 1482.0) * z2 - 1920.0) * z2 - 945.0) * z / 92160.0;
    double inv = 1.0 / df;
    return z + inv * (g1 + inv * (g2 + inv * (g3 + inv * g4)));
}

double metrics_t_upper_quantile(double q, double df)
{
    if (!(q > 0.0 && q < 1.0) || !(df > 0.0) || isnan(df)) {
        return NAN;
    }
    if (q == 0.5) {
        return 0.0;
    }
    if (q > 0.5) {
        return -metrics_t_upper_quantile(1.0 - q, df);
    }
    if (df > CONFIDENCE_NORMAL_DF) {
        double z = solve_upper_tail(q, df, normal_upper_tail, normal_density);
        return isinf(df) ? z : cornish_fisher(z, df);
    }
    return solve_upper_tail(q, df, t_upper_tail, t_density);
}

double metrics_t_cdf(double t, double df)
{
    if (isnan(t) || !(df > 0.0) || isnan(df)) {
        return NAN;
    }
    /* The continued fraction stays within about 1e-11 of the tail up to df = 1e7; past it
     * the normal's tail is within 1e-7 of the t's and far cheaper. */
    double upper = df > 1e7 ? normal_upper_tail(fabs(t), df) : t_upper_tail(fabs(t), df);
    return t >= 0.0 ? 1.0 - upper : upper;
}

/* single_value is AIPerf's degraded shape for one observation: no spread, the
 * interval collapsed onto the value, no t quantile. */
static void single_value(double v, struct metrics_confidence *out)
{
    *out = (struct metrics_confidence){
        .n = 1, .mean = v, .min = v, .max = v, .ci_low = v, .ci_high = v, .t_critical = NAN};
}

int metrics_confidence_compute(const double *values, size_t n, double level,
                               struct metrics_confidence *out)
{
    if (!(level > 0.0 && level < 1.0)) {
        return -EINVAL;
    }
    long double sum = 0;
    size_t used = 0;
    double min = INFINITY;
    double max = -INFINITY;
    for (size_t i = 0; i < n; i++) {
        if (isfinite(values[i])) {
            sum += values[i];
            min = fmin(min, values[i]);
            max = fmax(max, values[i]);
            used++;
        }
    }
    if (used == 0) {
        return -ENODATA;
    }
    double mean = (double)(sum / (long double)used);
    if (used == 1) {
        single_value(mean, out);
        return 0;
    }
    long double squares = 0;
    for (size_t i = 0; i < n; i++) {
        if (isfinite(values[i])) {
            long double d = (long double)values[i] - mean;
            squares += d * d;
        }
    }
    double std = sqrt((double)(squares / (long double)(used - 1)));
    double se = std / sqrt((double)used);
    double t = metrics_t_upper_quantile((1.0 - level) / 2.0, (double)(used - 1));
    *out = (struct metrics_confidence){
        .n = used,
        .mean = mean,
        .std = std,
        .min = min,
        .max = max,
        .cv = mean != 0.0 ? std / mean : INFINITY,
        .se = se,
        .ci_low = mean - t * se,
        .ci_high = mean + t * se,
        .t_critical = t,
    };
    return 0;
}
