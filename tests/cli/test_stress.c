/*
 * `ringperf profile` under stress (issue 21): bad times and rates, failure
 * thresholds, signals, full disks, path tricks and secrets a server echoes.
 * Real processes on loopback, as the user runs them.
 */
#include <criterion/criterion.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* A rate whose gap overflows the clock is refused before anything is sent,
 * instead of leaving every request at once with negative latencies. */
Test(stress_e2e, a_rate_that_overflows_the_clock_is_refused, .timeout = 60)
{
    struct e2e w;
    e2e_start(&w, NULL);
    static const char *const says[] = {"--request-rate 1e-30", "give at least 1e-09", NULL};
    free(run_expect(&w,
                    "profile -m m -u URL --request-rate 1e-30 --request-count 3 --artifact-dir DIR",
                    1, says));
    e2e_finish(&w);
}

/* Epoch microseconds read as a mooncake trace's milliseconds are refused by
 * file and line, with a hint; auto-offset rebases them and the run goes on. */
Test(stress_e2e, epoch_timestamps_in_a_trace_are_refused_with_a_hint, .timeout = 60)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_write(&w, "trace.jsonl",
              "{\"timestamp\": 0, \"input_length\": 10, \"hash_ids\": [1], \"output_length\": 2}\n"
              "{\"timestamp\": 9000000000000000, \"input_length\": 10, \"hash_ids\": [1], "
              "\"output_length\": 2}\n");
    static const char *const says[] = {
        "trace.jsonl:2: \"timestamp\" 9e+15 ms", "looks like epoch microseconds",
        "mooncake timestamps are milliseconds from the trace start", NULL};
    free(run_expect(&w,
                    "profile -m m -u URL --input-file IN/trace.jsonl --isl-block-size 16 "
                    "--artifact-dir DIR",
                    1, says));
    e2e_write(&w, "slow.jsonl",
              "{\"timestamp\": 0, \"input_length\": 10, \"hash_ids\": [1], \"output_length\": 2}\n"
              "{\"timestamp\": 1000, \"input_length\": 10, \"hash_ids\": [1], "
              "\"output_length\": 2}\n");
    static const char *const slowed[] = {"slow.jsonl:2:", "(after --replay-speedup)", NULL};
    free(run_expect(&w,
                    "profile -m m -u URL --input-file IN/slow.jsonl --isl-block-size 16 "
                    "--replay-speedup 1e-18 --artifact-dir DIR",
                    1, slowed));
    e2e_write(&w, "epoch.jsonl",
              "{\"timestamp\": 1700000000000, \"input_length\": 10, \"hash_ids\": [1], "
              "\"output_length\": 2}\n"
              "{\"timestamp\": 1700000000100, \"input_length\": 10, \"hash_ids\": [1], "
              "\"output_length\": 2}\n");
    static const char *const epoch_ms[] = {"looks like epoch milliseconds",
                                           "--fixed-schedule-auto-offset", NULL};
    free(run_expect(&w,
                    "profile -m m -u URL --input-file IN/epoch.jsonl --isl-block-size 16 "
                    "--artifact-dir DIR",
                    1, epoch_ms));
    e2e_run_ok(&w, "profile -m m -u URL --input-file IN/epoch.jsonl --isl-block-size 16 "
                   "--fixed-schedule-auto-offset --artifact-dir DIR");
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 2);
    e2e_finish(&w);
}

/* Flags that would do nothing are refused instead of running a different
 * benchmark than the one asked for; nothing is sent. */
Test(stress_e2e, input_file_flags_without_an_input_file_are_refused, .timeout = 60)
{
    struct e2e w;
    e2e_start(&w, NULL);
    static const char *const schedule[] = {"--fixed-schedule applies to an --input-file", NULL};
    free(run_expect(&w, "profile -m m -u URL --fixed-schedule --request-count 2 --artifact-dir DIR",
                    1, schedule));
    static const char *const type[] = {"--custom-dataset-type applies to an --input-file", NULL};
    free(run_expect(&w,
                    "profile -m m -u URL --custom-dataset-type mooncake_trace --request-count 2 "
                    "--artifact-dir DIR",
                    1, type));
    char *report = e2e_finish_report(&w);
    cr_assert_not_null(strstr(report, "stopped: 0 requests"), "nothing was sent: %s", report);
    free(report);
}

/* --profile-export-prefix cannot write outside the artifact directory. */
Test(stress_e2e, export_prefix_cannot_leave_the_artifact_directory, .timeout = 60)
{
    struct e2e w;
    e2e_start(&w, NULL);
    static const char *const says[] = {"has a '/'", NULL};
    free(run_expect(&w,
                    "profile -m m -u URL --request-count 1 --profile-export-prefix ../escaped "
                    "--artifact-dir IN/sub",
                    1, says));
    char path[512];
    snprintf(path, sizeof(path), "%s/escaped.jsonl", w.dir);
    cr_assert_neq(access(path, F_OK), 0, "nothing was written above the artifact directory");
    e2e_finish(&w);
}

/* A -H value without a colon may be a bare token: the error does not show it. */
Test(stress_e2e, a_header_without_a_colon_is_not_echoed, .timeout = 60)
{
    static const char *const says[] = {"not shown: it may be a credential", NULL};
    char *out = run_expect(NULL, "profile -m m -H sk-live-abcdef0123456789", 1, says);
    cr_assert_null(strstr(out, "sk-live"), "%s", out);
    free(out);
}

/* One SIGTERM (as a scheduler or `timeout` sends) stops the run: it exits
 * 143, as shells expect, with every export written and marked cancelled. */
Test(stress_e2e, sigterm_exits_143_with_complete_exports, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, (char *const[]){"--ttft-ms", "5", "--itl-ms", "5", NULL});
    char *argv[] = {RINGPERF_BINARY,
                    "profile",
                    "-m",
                    "m",
                    "-u",
                    w.url,
                    "--streaming",
                    "--concurrency",
                    "4",
                    "--request-count",
                    "1000000",
                    "--artifact-dir",
                    w.dir,
                    NULL};
    struct child run = spawn_child(argv, true);
    char line[512];
    bool running = false;
    while (!running && fgets(line, sizeof(line), run.out) != NULL) {
        running = strstr(line, "Profiling:") != NULL;
    }
    cr_assert(running, "the run reported progress");
    kill(run.pid, SIGTERM);
    char *rest = test_read_stream(run.out);
    cr_assert_eq(wait_child(&run), 143, "128 + SIGTERM:\n%s", rest);
    free(rest);
    json_t *root = e2e_load_json(&w, "profile_export_aiperf.json");
    cr_assert(json_is_true(json_object_get(root, "was_cancelled")));
    json_decref(root);
    free(e2e_read_text(&w, "profile_export_aiperf.csv"));
    size_t errors = 0;
    cr_assert_gt(count_export_lines(&w, &errors), 0);
    e2e_finish(&w);
}

/* "cannot write inputs.json" says why: on a full disk, "No space left on
 * device", not a generic I/O error. A real ENOSPC needs a small tmpfs, so root. */
Test(stress_e2e, an_unwritable_inputs_json_gives_its_reason, .timeout = 60)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char full[128];
    snprintf(full, sizeof(full), "%s/full", w.dir);
    cr_assert_eq(mkdir(full, 0755), 0);
    if (mount("tmpfs", full, "tmpfs", 0, "size=16k") != 0) {
        e2e_finish(&w);
        cr_skip_test("mounting a small tmpfs needs root (CAP_SYS_ADMIN)");
    }
    char *out = NULL;
    int status = run_ringperf(
        &w, "profile -m m -u URL --request-count 10 --isl 2000 --artifact-dir IN/full", true, &out);
    int unmounted = umount(full); /* before any assertion, so that none leaves it mounted */
    cr_assert_eq(unmounted, 0);
    cr_assert_eq(status, 1, "%s", out);
    cr_assert_not_null(strstr(out, "inputs.json: No space left on device"), "%s", out);
    free(out);
    e2e_finish(&w);
}
