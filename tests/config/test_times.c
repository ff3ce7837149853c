/*
 * config_times: every rate and time of a run must fit the nanosecond clock
 * (CONFIG_TIME_MAX_SECONDS), and a refusal names the flags and the fix.
 */
#include "config_test_util.h"

Test(config_times, rates_and_times_that_overflow_the_clock_are_refused)
{
    const struct config_case cases[] = {
        {W("-m", "m", "--request-rate", "1e-30"), "give at least 1e-09"},
        {W("-m", "m", "--request-rate", "1e-9", "--request-count", "1"), NULL},
        {W("-m", "m", "--request-rate", "0.001", "--request-count", "1000000000000"),
         "raise --request-rate, lower --request-count, or end the run with --benchmark-duration"},
        /* A duration ends the run, not the count: no schedule to overflow. */
        {W("-m", "m", "--request-rate", "0.001", "--benchmark-duration", "60"), NULL},
        {W("-m", "m", "--request-rate", "1", "--warmup-request-rate", "1e-10",
           "--warmup-request-count", "1"),
         "--warmup-request-rate 1e-10"},
        {W("-m", "m", "--request-rate", "1e-6", "--warmup-request-count", "1000000000"),
         "--request-rate 1e-06 with --warmup-request-count 1000000000"},
        {W("-m", "m", "--user-centric-rate", "1e-9", "--num-users", "16",
           "--conversation-turn-mean", "2"),
         "raise --user-centric-rate or lower --num-users"},
        {W("-m", "m", "--conversation-turn-delay-mean", "1e8", "--conversation-turn-delay-ratio",
           "1e8"),
         "--conversation-turn-delay-ratio 1e+08 gives think times of 1e+13 s"},
        {W("-m", "m", "--conversation-turn-delay-mean", "1e8"), NULL},
        {W("-m", "m", "--benchmark-duration", "2e9"), "at most 1000000000"},
    };
    check_config_cases(cases, sizeof(cases) / sizeof(cases[0]), NULL);
}
