/*
 * test_format.c - multirun/'s pure parts: numbers and values as Python prints them, cell
 * names, and the confidence aggregate of hand-made summaries.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#include "multirun/multirun_internal.h"

Test(multirun_format, floats_as_python_repr)
{
    static const struct {
        double v;
        const char *text;
    } cases[] = {
        {0.95, "0.95"},
        {200.0, "200.0"},
        {5.0, "5.0"},
        {0.1, "0.1"},
        {1.0 / 3.0, "0.3333333333333333"},
        {1e16, "1e+16"},
        {1.5e16, "1.5e+16"},
        {1e15, "1000000000000000.0"},
        {1.5e-05, "1.5e-05"},
        {0.0001, "0.0001"},
        {-2.5, "-2.5"},
        {0.0, "0.0"},
        {INFINITY, "inf"},
        {-INFINITY, "-inf"},
        {NAN, "nan"},
        {123456.789, "123456.789"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char out[40];
        multirun_py_float(cases[i].v, out, sizeof(out));
        cr_assert_str_eq(out, cases[i].text, "%.17g", cases[i].v);
    }
}

Test(multirun_format, values_as_python_str)
{
    json_t *v = json_pack("{s:[s,s], s:i, s:f, s:b, s:n}", "labels", "run_0001", "run_0002", "c",
                          10, "rate", 5.0, "ok", 1, "none");
    char out[256];
    multirun__py_repr(v, out, sizeof(out));
    cr_assert_str_eq(out, "{'labels': ['run_0001', 'run_0002'], 'c': 10, 'rate': 5.0, 'ok': True, "
                          "'none': None}");
    multirun__py_repr(json_object_get(v, "labels"), out, 10);
    cr_assert_eq(strlen(out), 9, "cut at the cap");
    json_decref(v);
    char title[64];
    multirun__title("best_latency_p99", title, sizeof(title));
    cr_assert_str_eq(title, "Best Latency P99");
    multirun__title("cooldown_seconds", title, sizeof(title));
    cr_assert_str_eq(title, "Cooldown Seconds");
}

Test(multirun_format, cell_names_join_the_parameters)
{
    struct profile_config cfg = {0};
    cfg.sweep.dim_count = 2;
    cfg.sweep.dims[0] = (struct config_sweep_dim){CONFIG_SWEEP_CONCURRENCY, 2, {10, 20}};
    cfg.sweep.dims[1] = (struct config_sweep_dim){CONFIG_SWEEP_REQUEST_RATE, 2, {5, 7.5}};
    char name[128];
    cr_assert(multirun_cell_name(&cfg, 1, name, sizeof(name)));
    cr_assert_str_eq(name, "concurrency_10__request_rate_7.5");
    cr_assert(multirun_cell_name(&cfg, 2, name, sizeof(name)));
    cr_assert_str_eq(name, "concurrency_20__request_rate_5.0");
    cr_assert(!multirun_cell_name(&cfg, 4, name, sizeof(name)));
    cr_assert(!multirun_cell_name(&cfg, 0, name, 8), "does not fit");
}

Test(multirun_format, confidence_of_hand_made_summaries)
{
    json_t *a = json_pack("{s:s, s:{s:s, s:f, s:f}, s:{s:s, s:n}, s:{}}", "schema_version", "1.5",
                          "ttft", "unit", "ms", "avg", 10.0, "p99", 20.0, "tput", "unit", "req/s",
                          "avg", "input_config");
    json_t *b = json_pack("{s:{s:s, s:f, s:f}, s:{s:s, s:f}}", "ttft", "unit", "ms", "avg", 14.0,
                          "p99", 20.0, "tput", "unit", "req/s", "avg", 3.0);
    json_t *runs[2] = {a, b};
    json_t *m = multirun_confidence_json(runs, 2, 0.95);
    cr_assert_not_null(m);
    cr_assert_eq(json_object_size(m), 3, "ttft_avg, ttft_p99, tput_avg");
    json_t *avg = json_object_get(m, "ttft_avg");
    cr_assert_eq(json_real_value(json_object_get(avg, "mean")), 12.0);
    cr_assert_float_eq(json_real_value(json_object_get(avg, "std")), sqrt(8.0), 1e-12);
    cr_assert_str_eq(json_string_value(json_object_get(avg, "unit")), "ms");
    json_t *p99 = json_object_get(m, "ttft_p99");
    cr_assert_eq(json_real_value(json_object_get(p99, "std")), 0.0);
    cr_assert_eq(json_real_value(json_object_get(p99, "cv")), 0.0);
    json_t *tput = json_object_get(m, "tput_avg");
    cr_assert_eq(json_real_value(json_object_get(tput, "mean")), 3.0, "one finite value");
    cr_assert(json_is_null(json_object_get(tput, "t_critical")), "NaN is written as null");
    cr_assert_null(multirun_confidence_json(runs, 2, 1.0));
    json_decref(m);
    json_decref(a);
    json_decref(b);
}

static double ks(const double *a0, size_t n, const double *b0, size_t m, double *d)
{
    double a[8];
    double b[8];
    memcpy(a, a0, n * sizeof(*a));
    memcpy(b, b0, m * sizeof(*b));
    return multirun__ks_pvalue(a, n, b, m, d);
}

/* Exact p-values by counting paths: C(n+m, n) in all, the separated ones outside. */
Test(multirun_ks, exact_pvalues_of_small_samples)
{
    double d;
    const double low[] = {1, 2, 3, 4, 5};
    const double high[] = {6, 7, 8, 9, 10};
    cr_assert_float_eq(ks(low, 3, high, 3, &d), 2.0 / 20.0, 1e-15);
    cr_assert_eq(d, 1.0);
    cr_assert_float_eq(ks(low, 5, high, 5, &d), 2.0 / 252.0, 1e-15);
    cr_assert_float_eq(ks(low, 2, high, 3, &d), 2.0 / 10.0, 1e-15, "unequal sizes");
    const double shifted[] = {2, 3, 4, 5, 6};
    cr_assert_float_eq(ks(low, 5, shifted, 5, &d), 1.0, 1e-15, "D = 1/5 is the least there is");
    cr_assert_float_eq(d, 0.2, 1e-15);
    cr_assert_eq(ks(low, 5, low, 5, &d), 1.0, "the same sample");
    cr_assert_eq(d, 0.0);
    cr_assert(isnan(ks(low, 0, high, 3, &d)));
}

Test(multirun_ks, large_samples_use_the_limiting_distribution)
{
    size_t n = 20000;
    double *a = malloc(n * sizeof(*a));
    double *b = malloc(n * sizeof(*b));
    for (size_t i = 0; i < n; i++) {
        a[i] = (double)i;
        b[i] = (double)i + 2000.0; /* D = 0.1, sqrt(n/2) D = 10 */
    }
    double d;
    double p = multirun__ks_pvalue(a, n, b, n, &d);
    cr_assert_float_eq(d, 0.1, 1e-12);
    cr_assert(p >= 0 && p < 1e-80, "p = %g", p);
    for (size_t i = 0; i < n; i++) {
        b[i] = (double)i + 10.5; /* D = 0.00055: indistinguishable */
    }
    p = multirun__ks_pvalue(a, n, b, n, &d);
    cr_assert(p > 0.99 && p <= 1.0, "p = %g", p);
    free(a);
    free(b);
}
