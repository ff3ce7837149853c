/*
 * ks.c - the two-sample Kolmogorov-Smirnov test AIPerf's distribution convergence runs
 * (scipy.stats.ks_2samp, two-sided): the statistic D, and its p-value exactly while both
 * samples hold at most KS_EXACT_MAX values (scipy's "auto" choice), else from Kolmogorov's
 * limiting distribution.
 *
 * The exact p-value counts the monotone lattice paths from (0, 0) to (n, m) that stay
 * inside |i/n - j/m| < D, as a fraction of all of them: u(i, j) = u(i-1, j) i/(i+j) +
 * u(i, j-1) j/(i+j) is that fraction for paths to (i, j), so nothing overflows. The
 * boundary is compared in integers (i*m - j*n against D*n*m), so ties in D stay exact.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "multirun/multirun_internal.h"

#define KS_EXACT_MAX 10000

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;
    return (x > y) - (x < y);
}

/* statistic is max |F_a - F_b| over the pooled values, as n*m times it (an integer). */
static int64_t statistic_scaled(const double *a, size_t n, const double *b, size_t m)
{
    size_t i = 0;
    size_t j = 0;
    int64_t best = 0;
    while (i < n && j < m) {
        double v = a[i] < b[j] ? a[i] : b[j];
        while (i < n && a[i] == v) {
            i++;
        }
        while (j < m && b[j] == v) {
            j++;
        }
        int64_t diff = (int64_t)i * (int64_t)m - (int64_t)j * (int64_t)n;
        best = llabs(diff) > best ? llabs(diff) : best;
    }
    return best;
}

/* exact_pvalue is P(D >= d) for samples of n and m values, d = scaled / (n m). */
static double exact_pvalue(size_t n, size_t m, int64_t scaled)
{
    double *row = malloc((m + 1) * sizeof(*row));
    if (row == NULL) {
        return NAN;
    }
    for (size_t i = 0; i <= n; i++) {
        for (size_t j = 0; j <= m; j++) {
            int64_t diff = (int64_t)i * (int64_t)m - (int64_t)j * (int64_t)n;
            if (llabs(diff) >= scaled) {
                row[j] = 0.0; /* on or past the boundary: the path is outside */
            } else if (i == 0 && j == 0) {
                row[j] = 1.0;
            } else {
                double up = i > 0 ? row[j] * (double)i : 0.0;
                double left = j > 0 ? row[j - 1] * (double)j : 0.0;
                row[j] = (up + left) / (double)(i + j);
            }
        }
    }
    double inside = row[m];
    free(row);
    double p = 1.0 - inside;
    return p < 0.0 ? 0.0 : (p > 1.0 ? 1.0 : p);
}

/* kolmogorov_sf is P(K > x) for Kolmogorov's limiting distribution. */
static double kolmogorov_sf(double x)
{
    if (x <= 0.0) {
        return 1.0;
    }
    double sum = 0.0;
    for (int k = 1; k <= 100; k++) {
        double term = exp(-2.0 * k * k * x * x);
        sum += (k % 2 == 1 ? 2.0 : -2.0) * term;
        if (term < 1e-18) {
            break;
        }
    }
    return sum < 0.0 ? 0.0 : (sum > 1.0 ? 1.0 : sum);
}

double multirun__ks_pvalue(double *a, size_t n, double *b, size_t m, double *out_d)
{
    if (n == 0 || m == 0) {
        return NAN;
    }
    qsort(a, n, sizeof(*a), cmp_double);
    qsort(b, m, sizeof(*b), cmp_double);
    int64_t scaled = statistic_scaled(a, n, b, m);
    double d = (double)scaled / ((double)n * (double)m);
    if (out_d != NULL) {
        *out_d = d;
    }
    if (scaled == 0) {
        return 1.0;
    }
    if (n <= KS_EXACT_MAX && m <= KS_EXACT_MAX) {
        return exact_pvalue(n, m, scaled);
    }
    double en = (double)n * (double)m / (double)(n + m);
    return kolmogorov_sf(d * sqrt(en));
}
