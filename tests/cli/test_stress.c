/*
 * `ringperf profile` under stress (issue 21): bad times and rates, failure
 * thresholds, signals, full disks, path tricks and secrets a server echoes.
 * Real processes on loopback, as the user runs them.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "e2e.h"

/* run_expect runs `ringperf WORDS` in w (NULL: no world), requires exit status
 * `status` and each of the NULL-ended phrases in its output (stderr merged),
 * and returns the output (malloc'd). */
static char *run_expect(const struct e2e *w, const char *words, int status,
                        const char *const says[])
{
    char *out = NULL;
    int got = run_ringperf(w, words, true, &out);
    cr_assert_eq(got, status, "%s\nexit %d, want %d:\n%s", words, got, status, out);
    for (size_t i = 0; says != NULL && says[i] != NULL; i++) {
        cr_assert(strstr(out, says[i]) != NULL, "%s\noutput lacks [%s]:\n%s", words, says[i], out);
    }
    return out;
}

/* An uncapped open loop judges --failed-request-threshold after 10 records,
 * as AIPerf does without --concurrency, not after its 1,024-connection pool. */
Test(stress_e2e, failure_threshold_applies_to_an_uncapped_open_loop, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, (char *const[]){"--error-500-rate", "40", NULL});
    static const char *const says[] = {"over --failed-request-threshold", NULL};
    free(run_expect(&w,
                    "profile -m m -u URL --request-rate 100 --request-count 300 "
                    "--failed-request-threshold 0.1 --random-seed 7 --artifact-dir DIR",
                    1, says));
    size_t errors = 0;
    size_t lines = count_export_lines(&w, &errors);
    cr_assert_lt(lines, 300, "the run stopped early: %zu records", lines);
    e2e_finish(&w);
}
