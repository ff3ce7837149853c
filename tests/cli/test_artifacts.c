/*
 * test_artifacts.c - a run's files in its artifact directory, end to end: a reused directory
 * holds one run's files, never a mix of two; a run refused before it starts leaves the earlier
 * run whole; an interrupted run still writes every record.
 */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <glob.h>
#include <jansson.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "e2e.h"
#include "tests/support/process.h"
#include "tests/support/read_text.h"

/* has_file says whether the world's directory holds `name`. */
static bool has_file(const struct e2e *w, const char *name)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/%s", w->dir, name);
    return access(path, F_OK) == 0;
}

/* partial_files counts the files still under a staging name in the world's directory. */
static size_t partial_files(const struct e2e *w)
{
    char pattern[256];
    snprintf(pattern, sizeof(pattern), "%s/*.partial", w->dir);
    glob_t found;
    size_t n = glob(pattern, 0, NULL, &found) == 0 ? found.gl_pathc : 0;
    globfree(&found);
    return n;
}

/* A second run in the same directory with fewer exports: the first run's raw records,
 * timeslices and outputs are gone, not left beside the second run's summary. */
Test(artifacts, a_reused_directory_holds_only_the_latest_run, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_run_ok(&w, "profile -m m -u URL --request-count 4 --export-level raw --slice-duration 1 "
                   "--artifact-dir DIR");
    cr_assert(has_file(&w, "profile_export_raw.jsonl"));
    cr_assert(has_file(&w, "outputs.json"));
    cr_assert(has_file(&w, "profile_export_aiperf_timeslices.json"));
    e2e_run_ok(&w, "profile -m m -u URL --request-count 3 --artifact-dir DIR");
    cr_assert_not(has_file(&w, "profile_export_raw.jsonl"), "the first run's raw records");
    cr_assert_not(has_file(&w, "outputs.json"), "the first run's outputs");
    cr_assert_not(has_file(&w, "profile_export_aiperf_timeslices.json"));
    cr_assert_not(has_file(&w, "profile_export_aiperf_timeslices.csv"));
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 3);
    cr_assert_eq(partial_files(&w), 0, "every file took its name");
    e2e_finish(&w);
}

/* A run refused at its last check (the API port is taken) writes nothing: the earlier run's
 * records, summary, inputs and interval logs stay byte for byte. */
Test(artifacts, a_refused_run_leaves_the_earlier_run_whole, .timeout = 120)
{
    static const char *const kept[] = {"profile_export.jsonl", "profile_export_aiperf.json",
                                       "profile_export_aiperf.csv", "inputs.json",
                                       "profile_export_request_latency.hlog"};
    enum { KEPT = sizeof(kept) / sizeof(kept[0]) };
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_run_ok(&w, "profile -m m -u URL --request-count 4 --artifact-dir DIR");
    char *before[KEPT];
    for (size_t i = 0; i < KEPT; i++) {
        before[i] = e2e_read_text(&w, kept[i]);
    }
    int taken = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    cr_assert_eq(bind(taken, (struct sockaddr *)&sin, sizeof(sin)), 0);
    cr_assert_eq(listen(taken, 1), 0);
    socklen_t len = sizeof(sin);
    cr_assert_eq(getsockname(taken, (struct sockaddr *)&sin, &len), 0);
    char words[256];
    snprintf(words, sizeof(words),
             "profile -m m -u URL --request-count 9 --api-host 127.0.0.1 --api-port %u "
             "--artifact-dir DIR",
             ntohs(sin.sin_port));
    char *out = NULL;
    cr_assert_eq(run_ringperf(&w, words, true, &out), 1, "%s", out);
    free(out);
    close(taken);
    for (size_t i = 0; i < KEPT; i++) {
        char *after = e2e_read_text(&w, kept[i]);
        cr_assert_str_eq(after, before[i], "%s is the earlier run's, whole", kept[i]);
        free(after);
        free(before[i]);
    }
    e2e_finish(&w);
}

/* Ctrl-C twice: the second cancels the requests in flight at once, and the run still writes
 * every record (none lost to an unflushed buffer), its summary marked cancelled, and exits
 * 130. */
Test(artifacts, a_second_interrupt_cancels_in_flight_and_keeps_every_record, .timeout = 120)
{
    struct e2e w;
    char *const mock_flags[] = {"--ttft-ms", "5", "--itl-ms", "20", NULL};
    e2e_start(&w, mock_flags);
    struct child run = e2e_spawn_running(&w, "profile -m m -u URL --streaming --osl 50 "
                                             "--concurrency 4 --request-count 1000000 "
                                             "--artifact-dir DIR");
    kill(run.pid, SIGINT);
    /* Signals of one kind pending together are one: the second goes once the first is seen. */
    e2e_read_until(&run, "ringperf: stopping");
    kill(run.pid, SIGINT);
    char *rest = test_read_stream(run.out);
    int status = wait_child(&run);
    cr_assert_eq(status, 130, "%s", rest);
    cr_assert_not_null(strstr(rest, "cancelling the requests in flight now"), "%s", rest);
    free(rest);
    size_t errors = 0;
    size_t lines = count_export_lines(&w, &errors);
    cr_assert_gt(lines, errors, "the finished requests' records were kept");
    cr_assert(errors >= 1 && errors <= 4, "%zu cancelled: the ones in flight", errors);
    json_t *root = e2e_load_json(&w, "profile_export_aiperf.json");
    cr_assert(json_is_true(json_object_get(root, "was_cancelled")));
    json_decref(root);
    cr_assert_eq(partial_files(&w), 0);
    e2e_finish(&w);
}
