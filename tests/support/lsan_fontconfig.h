/*
 * lsan_fontconfig.h - for the tests whose ringperf processes draw plots (PLplot's cairo drivers,
 * hence fontconfig): under LeakSanitizer, fontconfig's cache (alive until exit, by design) is not
 * ringperf's leak, so the processes a test starts inherit a suppression of it.
 */
#ifndef RINGPERF_TESTS_SUPPORT_LSAN_FONTCONFIG_H
#define RINGPERF_TESTS_SUPPORT_LSAN_FONTCONFIG_H

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>

/* test_suppress_fontconfig_leaks adds suppressions=<supp_path> (tests/support/
 * lsan_fontconfig.supp) to LSAN_OPTIONS, keeping what it held. */
static inline void test_suppress_fontconfig_leaks(const char *supp_path)
{
    const char *given = getenv("LSAN_OPTIONS");
    char value[1024];
    snprintf(value, sizeof(value), "%s%ssuppressions=%s", given != NULL ? given : "",
             given != NULL && given[0] != '\0' ? ":" : "", supp_path);
    cr_assert_eq(setenv("LSAN_OPTIONS", value, 1), 0);
}

#endif
