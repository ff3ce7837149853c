/*
 * test_format.c - figures as AIPerf prints them (metrics_format_grouped): Python's
 * f"{v:,.2f}" in the console tables and f"{int(round(v)):,}" in the live UI.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <string.h>

#include "metrics/metrics.h"

Test(metrics_format, groups_digits_as_python_does)
{
    static const struct {
        double v;
        int decimals;
        const char *want;
    } cases[] = {
        {0, 2, "0.00"},
        {999.994, 2, "999.99"},
        {999.996, 2, "1,000.00"},
        {1234567.891, 2, "1,234,567.89"},
        {-1234567.891, 2, "-1,234,567.89"},
        {-0.001, 2, "-0.00"}, /* Python keeps the sign of a tiny negative */
        {-0.0, 2, "0.00"},
        {100, 0, "100"},
        {123456, 0, "123,456"},
        {1e15, 0, "1,000,000,000,000,000"},
        {0.5, 1, "0.5"},
        {12.5, -3, "12"},                     /* decimals below 0 read as 0 (half to even) */
        {1.0 / 3, 40, "0.33333333333333331"}, /* above the most read as the most */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char out[64];
        metrics_format_grouped(out, sizeof(out), cases[i].v, cases[i].decimals);
        cr_assert_str_eq(out, cases[i].want, "case %zu", i);
    }
}

Test(metrics_format, whole_numbers_round_half_to_even_as_python_round)
{
    static const struct {
        double v;
        const char *want;
    } cases[] = {
        {2.5, "2"}, {3.5, "4"}, {98765.4, "98,765"}, {-0.4, "0"}, {-0.5, "0"}, {-1.5, "-2"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char out[32];
        metrics_format_grouped(out, sizeof(out), nearbyint(cases[i].v), 0);
        cr_assert_str_eq(out, cases[i].want, "case %zu", i);
    }
}

Test(metrics_format, a_small_buffer_is_cut_short_and_terminated)
{
    char out[6];
    memset(out, 'x', sizeof(out));
    metrics_format_grouped(out, 4, 123456, 0);
    cr_assert_eq(strlen(out), 3);
    cr_assert_eq(strncmp(out, "123", 3), 0);
    metrics_format_grouped(out, 1, 5, 2);
    cr_assert_str_eq(out, "");
    metrics_format_grouped(out, 0, 5, 2); /* writes nothing */
    cr_assert_str_eq(out, "");
}
