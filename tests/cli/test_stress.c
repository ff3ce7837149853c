/*
 * `ringperf profile` under stress (issue 21): bad times and rates, failure
 * thresholds, signals, full disks, path tricks and secrets a server echoes.
 * Real processes on loopback, as the user runs them.
 */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e.h"
#include "tests/support/loopback_server.h"

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

/* echo_server is a scripted server on loopback: it answers every request
 * with `status` and a chat completion (200) or an OpenAI-style error (else)
 * that echoes the Authorization header it was sent, as misconfigured
 * proxies and some error pages do, and keeps the last one it saw. */
struct echo_server {
    struct loopback_server server;
    int port;
    int status;
    char auth[512];
};

/* echo_header copies the value of header `name` in head into out ("" if absent). */
static void echo_header(const char *head, const char *name, char *out, size_t cap)
{
    out[0] = '\0';
    size_t n = strlen(name);
    for (const char *line = strstr(head, "\r\n"); line != NULL; line = strstr(line + 2, "\r\n")) {
        if (strncasecmp(line + 2, name, n) == 0 && line[2 + n] == ':') {
            const char *v = line + 3 + n + strspn(line + 3 + n, " ");
            snprintf(out, cap, "%.*s", (int)strcspn(v, "\r"), v);
            return;
        }
    }
}

/* echo_one reads one request from fd and answers it; false when the peer closed. */
static bool echo_one(struct echo_server *srv, int fd)
{
    char req[65536];
    if (!loopback_read_request(fd, req, sizeof(req))) {
        return false;
    }
    echo_header(req, "Authorization", srv->auth, sizeof(srv->auth));
    char body[1024];
    if (srv->status == 200) {
        snprintf(body, sizeof(body),
                 "{\"id\":\"e\",\"object\":\"chat.completion\",\"choices\":[{\"index\":0,"
                 "\"message\":{\"role\":\"assistant\",\"content\":\"you sent %s\"},"
                 "\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":3,"
                 "\"completion_tokens\":4,\"total_tokens\":7}}",
                 srv->auth);
    } else {
        snprintf(body, sizeof(body),
                 "{\"error\":{\"message\":\"Incorrect API key provided: %s\",\"type\":"
                 "\"invalid_request_error\"}}",
                 srv->auth);
    }
    char reply[2048];
    int n = snprintf(reply, sizeof(reply),
                     "HTTP/1.1 %d X\r\nContent-Type: application/json\r\nContent-Length: "
                     "%zu\r\n\r\n%s",
                     srv->status, strlen(body), body);
    return send(fd, reply, (size_t)n, MSG_NOSIGNAL) == n;
}

static void echo_answer(void *ctx, int fd)
{
    while (echo_one(ctx, fd)) {
    }
}

static void echo_start(struct echo_server *srv, int status)
{
    *srv = (struct echo_server){.status = status};
    loopback_server_start(&srv->server, echo_answer, srv);
    srv->port = srv->server.port;
}

static void echo_stop(struct echo_server *srv)
{
    loopback_server_stop(&srv->server);
}

/* check_no_trace requires that no file under dir holds secret. */
static void check_no_trace(const char *dir, const char *secret)
{
    char cmd[512];
    snprintf(cmd, sizeof(cmd), "grep -rqF -- '%s' '%s'", secret, dir);
    cr_assert_neq(system(cmd), 0, "%s is in a file of %s", secret, dir);
}

#define ECHOED_KEY "sk-live-echo-0123456789"

/* A response that echoes the API key has it redacted in every file the run
 * writes and everything it prints: the records, the raw export, outputs.json,
 * the error summary and the log. */
Test(stress_e2e, a_response_echoing_the_api_key_is_redacted, .timeout = 60)
{
    static const int statuses[] = {200, 401};
    for (size_t i = 0; i < 2; i++) {
        struct echo_server srv;
        echo_start(&srv, statuses[i]);
        struct e2e w = {0};
        snprintf(w.url, sizeof(w.url), "127.0.0.1:%d", srv.port);
        snprintf(w.dir, sizeof(w.dir), "/tmp/ringperf-e2e-XXXXXX");
        cr_assert_not_null(mkdtemp(w.dir));
        char *out = NULL;
        int status = run_ringperf(&w,
                                  "profile -m m -u URL --api-key " ECHOED_KEY
                                  " --request-count 2 --export-level raw --export-outputs-json "
                                  "--artifact-dir DIR",
                                  true, &out);
        echo_stop(&srv);
        cr_assert_str_eq(srv.auth, "Bearer " ECHOED_KEY, "the key was sent");
        cr_assert_eq(status, statuses[i] == 200 ? 0 : 1, "%s", out);
        cr_assert_null(strstr(out, ECHOED_KEY), "printed:\n%s", out);
        free(out);
        check_no_trace(w.dir, ECHOED_KEY);
        /* A reply's text is in outputs.json; an error's message in the records. */
        char *kept = e2e_read_text(&w, i == 0 ? "outputs.json" : "profile_export.jsonl");
        cr_assert_not_null(strstr(kept, "<redacted>"), "%s", kept);
        free(kept);
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf %s", w.dir);
        cr_assert_eq(system(cmd), 0);
    }
}

/* A --url user:password@ is sent as Basic auth, as AIPerf's aiohttp sends
 * it; a reply that echoes it has it redacted. */
Test(stress_e2e, url_credentials_are_sent_as_basic_auth, .timeout = 60)
{
    struct echo_server srv;
    echo_start(&srv, 200);
    struct e2e w = {0};
    snprintf(w.url, sizeof(w.url), "http://user:pa%%73s@127.0.0.1:%d", srv.port);
    snprintf(w.dir, sizeof(w.dir), "/tmp/ringperf-e2e-XXXXXX");
    cr_assert_not_null(mkdtemp(w.dir));
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m m -u URL --request-count 1 --export-outputs-json "
                              "--artifact-dir DIR",
                              true, &out);
    echo_stop(&srv);
    cr_assert_eq(status, 0, "%s", out);
    cr_assert_str_eq(srv.auth, "Basic dXNlcjpwYXNz", "base64 of user:pass");
    free(out);
    check_no_trace(w.dir, "dXNlcjpwYXNz");
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", w.dir);
    cr_assert_eq(system(cmd), 0);
}

/* mock_requests reads how many requests the mock server's report counted. */
static unsigned long mock_requests(const char *report)
{
    const char *at = strstr(report, "stopped: ");
    cr_assert_not_null(at, "%s", report);
    return strtoul(at + strlen("stopped: "), NULL, 10);
}

/* A full disk is reported when it happens, with the errno text, the file and
 * the records kept, and the run stops sending instead of running on for
 * nothing. A real ENOSPC needs a small tmpfs, so root. */
Test(stress_e2e, a_full_disk_is_reported_at_once_and_stops_the_run, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char full[128];
    snprintf(full, sizeof(full), "%s/full", w.dir);
    cr_assert_eq(mkdir(full, 0755), 0);
    if (mount("tmpfs", full, "tmpfs", 0, "size=512k") != 0) {
        e2e_finish(&w);
        cr_skip_test("mounting a small tmpfs needs root (CAP_SYS_ADMIN)");
    }
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m m -u URL --concurrency 4 --request-count 200000 "
                              "--num-dataset-entries 5 --artifact-dir IN/full/run",
                              true, &out);
    int unmounted = umount(full); /* before any assertion, so that none leaves it mounted */
    cr_assert_eq(unmounted, 0);
    cr_assert_eq(status, 1, "%s", out);
    cr_assert_not_null(
        strstr(out, "profile_export.jsonl failed: No space left on device; stopping the run"), "%s",
        out);
    cr_assert_not_null(strstr(out, "complete records kept in"), "%s", out);
    free(out);
    char *report = e2e_finish_report(&w);
    cr_assert_lt(mock_requests(report), 100000, "the run stopped sending: %s", report);
    free(report);
}

/* When a summary file cannot be written, the message names that file, not
 * the log directory or a records file --export-level summary never writes.
 * A 4 KiB file size limit (SIGXFSZ ignored, so writes fail with EFBIG) lets
 * the small files through and stops the summary JSON, which is larger. */
Test(stress_e2e, a_summary_that_cannot_be_written_is_named, .timeout = 60)
{
    if (access("/usr/bin/prlimit", X_OK) != 0) {
        cr_skip_test("needs prlimit (util-linux)");
    }
    struct e2e w;
    e2e_start(&w, NULL);
    char *argv[] = {"/usr/bin/prlimit",
                    "--fsize=4096",
                    RINGPERF_BINARY,
                    "profile",
                    "-m",
                    "m",
                    "-u",
                    w.url,
                    "--request-count",
                    "2",
                    "--num-dataset-entries",
                    "1",
                    "--isl",
                    "10",
                    "--osl",
                    "5",
                    "--export-level",
                    "summary",
                    "--artifact-dir",
                    w.dir,
                    NULL};
    signal(SIGXFSZ, SIG_IGN); /* inherited: the limit fails writes instead of killing */
    struct child run = spawn_child(argv, true);
    char *out = test_read_stream(run.out);
    int status = wait_child(&run);
    signal(SIGXFSZ, SIG_DFL);
    cr_assert_eq(status, 1, "%s", out);
    cr_assert_not_null(strstr(out, "profile_export_aiperf.json failed: File too large"), "%s", out);
    cr_assert_null(strstr(out, "profile_export.jsonl"), "%s", out);
    free(out);
    e2e_finish(&w);
}
