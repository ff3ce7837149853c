/*
 * ringperf profile under `mpirun -np 2` on loopback against the mock server:
 * the ranks split the run, the records come together on rank 0, and the
 * merge is exact. Skipped when mpirun or MPI support is missing.
 */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <jansson.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"
#include "merge_check.h"

#define MPIRUN_FLAGS "-np", "2", "--oversubscribe", "--allow-run-as-root"

/* spawn_mpi starts `mpirun -np 2 [prefix...] ringperf WORDS` (URL and DIR
 * as in run_ringperf) with stderr merged into the child's output. */
static struct child spawn_mpi(const struct e2e *w, char *const prefix[], const char *words)
{
    char *copy = strdup(words);
    char *argv[96] = {RINGPERF_MPIRUN, MPIRUN_FLAGS};
    int argc = 5;
    for (int i = 0; prefix != NULL && prefix[i] != NULL; i++) {
        argv[argc++] = prefix[i];
    }
    argv[argc++] = RINGPERF_BINARY;
    for (char *save = NULL, *word = strtok_r(copy, " ", &save); word != NULL && argc < 95;
         word = strtok_r(NULL, " ", &save)) {
        argv[argc++] = strcmp(word, "URL") == 0   ? (char *)w->url
                       : strcmp(word, "DIR") == 0 ? (char *)w->dir
                                                  : word;
    }
    argv[argc] = NULL;
    /* Open MPI keeps allocations until exit in components it has unloaded by
     * then, which no suppression can name: under mpirun (and only there) the
     * ranks run without LeakSanitizer. `ringperf merge` and the --shard-count
     * runs of tests/cli/test_merge.c keep it. */
    const char *asan = getenv("ASAN_OPTIONS");
    char *saved = asan != NULL ? strdup(asan) : NULL;
    char options[512];
    snprintf(options, sizeof(options), "%s%sdetect_leaks=0", asan != NULL ? asan : "",
             asan != NULL && asan[0] != '\0' ? ":" : "");
    setenv("ASAN_OPTIONS", options, 1);
    struct child run = spawn_child(argv, true);
    if (saved != NULL) {
        setenv("ASAN_OPTIONS", saved, 1);
    } else {
        unsetenv("ASAN_OPTIONS");
    }
    free(saved);
    free(copy);
    return run;
}

/* run_mpi runs spawn_mpi's command to its end and returns its exit status
 * and output (stderr merged). */
static int run_mpi(const struct e2e *w, char *const prefix[], const char *words, char **out)
{
    struct child run = spawn_mpi(w, prefix, words);
    *out = test_read_stream(run.out);
    return wait_child(&run);
}

/* mpi_start starts the world (mock server with mock_flags, or NULL for a
 * fast one) once MPI is known to run here, and skips the test otherwise. */
static void mpi_start(struct e2e *w, char *const mock_flags[])
{
#ifndef RINGPERF_HAVE_MPI
    cr_skip_test("built without MPI (RINGPERF_MPI=OFF)");
#endif
    if (RINGPERF_MPIRUN[0] == '\0' || access(RINGPERF_MPIRUN, X_OK) != 0) {
        cr_skip_test("mpirun is not installed");
    }
    char *const fast[] = {"--ttft-ms", "1", "--itl-ms", "0.2", NULL};
    e2e_start(w, mock_flags != NULL ? mock_flags : fast);
}

/* mpi_start_run is mpi_start with the fast mock server, then run_mpi
 * without a prefix, which must exit 0. The output goes to *out (the caller
 * frees it) unless out is NULL. */
static void mpi_start_run(struct e2e *w, const char *words, char **out)
{
    mpi_start(w, NULL);
    char *text = NULL;
    int status = run_mpi(w, NULL, words, &text);
    cr_assert_eq(status, 0, "mpirun: exit %d\n%s", status, text);
    if (out != NULL) {
        *out = text;
    } else {
        free(text);
    }
}

#define PROFILE "profile --model m --url URL --endpoint-type chat --streaming --osl 8 "

Test(mpi, two_ranks_run_the_requested_count_with_unique_ordinals, .timeout = 180)
{
    struct e2e w;
    char *out = NULL;
    mpi_start_run(&w, PROFILE "--concurrency 4 --request-count 40 --artifact-dir DIR", &out);
    const char *report = strstr(out, "Request Count (requests)");
    cr_assert_not_null(report, "%s", out);
    cr_assert_null(strstr(report + 1, "Request Count (requests)"), "one report, not one per rank");
    free(out);
    assert_unique_ordinals(w.dir, 40, 2);
    assert_percentiles_from_records(w.dir, "request_latency");
    assert_percentiles_from_records(w.dir, "time_to_first_token");
    json_t *summary = e2e_load_json(&w, "profile_export_aiperf.json");
    json_t *info = json_object_get(summary, "run_info");
    json_t *ranks = json_object_get(info, "ranks");
    cr_assert_eq(json_array_size(ranks), 2);
    json_t *second = json_array_get(ranks, 1);
    cr_assert(json_is_integer(json_object_get(second, "clock_offset_ns")));
    cr_assert_gt(json_integer_value(json_object_get(second, "clock_uncertainty_ns")), 0,
                 "a measured clock has an uncertainty");
    cr_assert_eq(
        json_number_value(json_object_get(json_object_get(summary, "request_count"), "avg")), 40.0);

    /* Merging the rank directories again gives the run's own figures. */
    e2e_run_ok(&w, "merge IN/rank_0 IN/rank_1 --artifact-dir IN/again");
    json_t *merged = e2e_load_json(&w, "again/profile_export_aiperf.json");
    assert_same_metrics(summary, merged);
    json_decref(summary);
    json_decref(merged);
    e2e_finish(&w);
}

Test(mpi, inputs_json_is_one_file_identical_to_a_one_machine_run, .timeout = 180)
{
    struct e2e w;
    mpi_start_run(
        &w, PROFILE "--concurrency 2 --request-count 6 --random-seed 5 --artifact-dir DIR", NULL);
    char *mpi_inputs = e2e_read_text(&w, "inputs.json");
    char path[512];
    snprintf(path, sizeof(path), "%s/rank_1/inputs.json", w.dir);
    cr_assert_neq(access(path, R_OK), 0, "rank 1 writes no inputs.json of its own");
    e2e_run_ok(&w,
               PROFILE "--concurrency 2 --request-count 6 --random-seed 5 --artifact-dir IN/one");
    char *one_inputs = e2e_read_text(&w, "one/inputs.json");
    cr_assert_str_eq(mpi_inputs, one_inputs, "the same payloads as one machine sends");
    free(mpi_inputs);
    free(one_inputs);
    e2e_finish(&w);
}

struct span {
    int64_t at;
    int delta;
};

struct spans {
    struct span *items;
    size_t n;
};

static void collect_span(json_t *rec, void *ctx)
{
    struct spans *s = ctx;
    json_t *meta = json_object_get(rec, "metadata");
    s->items = realloc(s->items, (s->n + 2) * sizeof(*s->items));
    s->items[s->n++] =
        (struct span){json_integer_value(json_object_get(meta, "request_start_ns")), 1};
    s->items[s->n++] =
        (struct span){json_integer_value(json_object_get(meta, "request_end_ns")), -1};
}

static int by_time(const void *a, const void *b)
{
    const struct span *x = a;
    const struct span *y = b;
    if (x->at != y->at) {
        return x->at < y->at ? -1 : 1;
    }
    return x->delta - y->delta; /* an end before a start at the same instant */
}

Test(mpi, concurrency_split_never_exceeds_the_total, .timeout = 180)
{
    struct e2e w;
    mpi_start_run(&w, PROFILE "--concurrency 3 --request-count 60 --artifact-dir DIR", NULL);
    struct spans s = {0};
    for_each_record(w.dir, collect_span, &s);
    qsort(s.items, s.n, sizeof(*s.items), by_time);
    int in_flight = 0;
    int most = 0;
    for (size_t i = 0; i < s.n; i++) {
        in_flight += s.items[i].delta;
        most = in_flight > most ? in_flight : most;
    }
    free(s.items);
    cr_assert_leq(most, 3, "%d requests in flight at once; --concurrency 3", most);
    e2e_finish(&w);
}

Test(mpi, concurrency_below_the_rank_count_is_an_error, .timeout = 120)
{
    struct e2e w;
    mpi_start(&w, NULL);
    char *out = NULL;
    int status =
        run_mpi(&w, NULL, PROFILE "--concurrency 1 --request-count 4 --artifact-dir DIR", &out);
    cr_assert_neq(status, 0, "%s", out);
    cr_assert(strstr(out, "--concurrency 1 is less than the 2 MPI ranks") != NULL, "%s", out);
    free(out);
    e2e_finish(&w);
}

Test(mpi, the_warmup_is_split_too, .timeout = 180)
{
    struct e2e w;
    char *out = NULL;
    mpi_start_run(&w,
                  PROFILE "--concurrency 4 --request-count 10 --warmup-request-count 7 "
                          "--artifact-dir DIR",
                  &out);
    long warmup = 0;
    int lines = 0;
    /* Each rank's summary line; its progress lines ("Warmup: 3/3 requests, ...") are not. */
    for (const char *p = strstr(out, "Warmup: "); p != NULL; p = strstr(p + 1, "Warmup: ")) {
        const char *end = strchr(p, '\n');
        const char *summary = strstr(p, "(excluded from the results)");
        if (summary != NULL && (end == NULL || summary < end)) {
            warmup += strtol(p + strlen("Warmup: "), NULL, 10);
            lines++;
        }
    }
    cr_assert_eq(lines, 2, "one warmup per rank:\n%s", out);
    cr_assert_eq(warmup, 7, "the ranks' warmups add up to --warmup-request-count:\n%s", out);
    free(out);
    assert_unique_ordinals(w.dir, 10, 2);
    e2e_finish(&w);
}

Test(mpi, a_rate_split_keeps_the_aggregate_rate, .timeout = 180)
{
    struct e2e w;
    mpi_start_run(&w,
                  PROFILE "--request-rate 50 --request-count 50 --concurrency 8 "
                          "--artifact-dir DIR",
                  NULL);
    assert_unique_ordinals(w.dir, 50, 2);
    json_t *summary = e2e_load_json(&w, "profile_export_aiperf.json");
    double rate =
        json_number_value(json_object_get(json_object_get(summary, "request_throughput"), "avg"));
    /* Each rank at the full rate would give about 100/s; a loaded machine only
     * makes it slower, so only the upper bound is a check. */
    cr_assert_lt(rate, 75.0, "aggregate %.1f requests/s for --request-rate 50", rate);
    cr_assert_gt(rate, 0.0);
    json_decref(summary);
    e2e_finish(&w);
}

/* starts holds when requests were sent (request_start_ns), of every record
 * or of sessions' first turns only. */
struct starts {
    int64_t ns[64];
    size_t n;
    bool first_turns_only;
};

static void collect_start(json_t *rec, void *ctx)
{
    struct starts *s = ctx;
    json_t *meta = json_object_get(rec, "metadata");
    bool first_turn = json_integer_value(json_object_get(meta, "turn_index")) == 0;
    if (s->n < 64 && (first_turn || !s->first_turns_only)) {
        s->ns[s->n++] = json_integer_value(json_object_get(meta, "request_start_ns"));
    }
}

static int by_int64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a;
    int64_t y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* sorted_starts collects when dir's requests were sent (of sessions' first
 * turns only, when first_turns_only), earliest first. */
static struct starts sorted_starts(const char *dir, bool first_turns_only)
{
    struct starts s = {.n = 0, .first_turns_only = first_turns_only};
    for_each_record(dir, collect_start, &s);
    qsort(s.ns, s.n, sizeof(s.ns[0]), by_int64);
    return s;
}

Test(mpi, constant_rate_ranks_interleave_on_one_timeline, .timeout = 180)
{
    struct e2e w;
    mpi_start_run(&w,
                  PROFILE "--request-rate 20 --arrival-pattern constant --request-count 30 "
                          "--concurrency 4 --artifact-dir DIR",
                  NULL);
    struct starts s = sorted_starts(w.dir, false);
    cr_assert_eq(s.n, 30);
    int64_t gaps[63];
    for (size_t i = 1; i < s.n; i++) {
        gaps[i - 1] = s.ns[i] - s.ns[i - 1];
    }
    qsort(gaps, s.n - 1, sizeof(gaps[0]), by_int64);
    /* Rank 1 runs 1/R after rank 0: sends every 50 ms in all. Two unshifted
     * ranks would send in pairs, and the median gap would be near 0. */
    int64_t median_ms = gaps[(s.n - 1) / 2] / 1000000;
    cr_assert(median_ms >= 25 && median_ms <= 75, "median gap %lld ms, 50 expected",
              (long long)median_ms);
    e2e_finish(&w);
}

Test(mpi, a_killed_rank_ends_the_job_and_its_records_survive, .timeout = 180)
{
    struct e2e w;
    char *const slow[] = {"--ttft-ms", "50", "--itl-ms", "20", NULL};
    mpi_start(&w, slow);
    /* Rank 1 is killed once its records file holds a record (header line
     * plus one), polled for at most two minutes: a fixed delay left it no
     * records when start-up was slow (an ASan build on a slow machine). The
     * shell execs ringperf, so $$ is ringperf. */
    char *const killer[] = {
        "/bin/sh", "-c",
        "if [ \"$OMPI_COMM_WORLD_RANK\" = 1 ]; then"
        "  prev=; for a in \"$@\"; do [ \"$prev\" = --artifact-dir ] && dir=$a; prev=$a; done;"
        "  f=\"$dir/rank_1/ringperf_records.jsonl\";"
        "  (i=0; while [ $i -lt 2400 ] && [ \"$(cat \"$f\" 2>/dev/null | wc -l)\" -lt 2 ]; do"
        "     sleep 0.05; i=$((i + 1)); done; kill -9 $$) & "
        "fi; exec \"$0\" \"$@\"",
        NULL};
    char *out = NULL;
    int status =
        run_mpi(&w, killer, PROFILE "--concurrency 2 --request-count 200 --artifact-dir DIR", &out);
    cr_assert_neq(status, 0, "the job fails\n%s", out);
    cr_assert(strstr(out, "ringperf: rank 1 on ") != NULL &&
                  strstr(out, "stopped before the end of the run") != NULL &&
                  strstr(out, "/rank_1; run `ringperf merge ") != NULL,
              "ringperf's own message names the rank, its host and its records:\n%s", out);
    free(out);
    status = run_ringperf(&w, "merge DIR", true, &out);
    cr_assert_eq(status, 0, "merge: exit %d\n%s", status, out);
    cr_assert(strstr(out, "did not finish") != NULL, "%s", out);
    free(out);
    json_t *summary = e2e_load_json(&w, "profile_export_aiperf.json");
    json_t *info = json_object_get(summary, "run_info");
    cr_assert(json_is_true(json_object_get(info, "incomplete")));
    json_t *rank1 = json_array_get(json_object_get(info, "ranks"), 1);
    cr_assert(json_is_false(json_object_get(rank1, "complete")));
    cr_assert_gt(json_integer_value(json_object_get(rank1, "records")), 0,
                 "rank 1's records up to its death survive");
    json_decref(summary);
    e2e_finish(&w);
}

/* session_ranks records which rank ran each session, and whether a session
 * ever showed up on two ranks. */
struct session_ranks {
    int rank[64];
    bool split;
    size_t turns;
};

static void collect_session(json_t *rec, void *ctx)
{
    struct session_ranks *s = ctx;
    json_t *meta = json_object_get(rec, "metadata");
    json_int_t session = json_integer_value(json_object_get(meta, "session_num"));
    int rank = (int)json_integer_value(json_object_get(meta, "rank"));
    cr_assert(session >= 0 && session < 64);
    cr_assert_not_null(json_object_get(meta, "x_correlation_id"), "a session's record");
    s->split |= s->rank[session] >= 0 && s->rank[session] != rank;
    s->rank[session] = rank;
    s->turns++;
}

Test(mpi, multi_turn_sessions_stay_whole_on_one_rank, .timeout = 180)
{
    struct e2e w;
    mpi_start_run(&w,
                  PROFILE "--concurrency 4 --request-count 18 --conversation-turn-mean 3 "
                          "--random-seed 5 --artifact-dir DIR",
                  NULL);
    struct session_ranks s;
    memset(s.rank, 0xff, sizeof(s.rank));
    s.split = false;
    s.turns = 0;
    for_each_record(w.dir, collect_session, &s);
    cr_assert_eq(s.turns, 18, "exactly --request-count turns over both ranks");
    cr_assert_not(s.split, "every turn of a session ran on the rank that started it");
    e2e_finish(&w);
}

/* http_get fetches http://127.0.0.1:port/target; returns the status (0 when
 * nothing answers) and the body in *out_body (owned by the caller). */
static int http_get(int port, const char *target, char **out_body)
{
    *out_body = NULL;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        if (fd >= 0) {
            close(fd);
        }
        return 0;
    }
    char req[256];
    int n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                     target);
    send(fd, req, (size_t)n, MSG_NOSIGNAL);
    /* Connection: close, so the response ends where the stream does. */
    FILE *response = fdopen(fd, "r");
    cr_assert_not_null(response);
    char *buf = test_read_stream(response);
    fclose(response);
    int status = strncmp(buf, "HTTP/1.1 ", 9) == 0 ? (int)strtol(buf + 9, NULL, 10) : 0;
    char *body = strstr(buf, "\r\n\r\n");
    *out_body = strdup(body != NULL ? body + 4 : "");
    free(buf);
    return status;
}

/* api_port reads the run's output up to the API's address line. */
static int api_port(FILE *out)
{
    char line[4096];
    while (fgets(line, sizeof(line), out) != NULL) {
        const char *at = strstr(line, "API server listening on http://127.0.0.1:");
        if (at != NULL) {
            return (int)strtol(strrchr(at, ':') + 1, NULL, 10);
        }
    }
    cr_assert_fail("rank 0 never announced its API");
    return 0;
}

/* progress_counts reads /api/progress: completed and total requests of the
 * profiling phase (-1 when it does not answer). */
static void progress_counts(int port, json_int_t *completed, json_int_t *total)
{
    *completed = -1;
    *total = -1;
    char *body = NULL;
    if (http_get(port, "/api/progress", &body) == 200) {
        json_t *doc = json_loads(body, 0, NULL);
        json_t *phase = json_object_get(json_object_get(doc, "phases"), "profiling");
        if (phase != NULL) {
            *completed = json_integer_value(json_object_get(phase, "requests_completed"));
            *total = json_integer_value(json_object_get(phase, "requests_total"));
        }
        json_decref(doc);
    }
    free(body);
}

Test(mpi, rank_0s_live_api_shows_the_whole_run, .timeout = 240)
{
    struct e2e w;
    char *const slow[] = {"--ttft-ms", "20", "--itl-ms", "5", NULL};
    mpi_start(&w, slow);
    /* The API stays up after the run long enough for the last poll. */
    setenv("AIPERF_API_SERVER_POST_COMPLETE_GRACE", "8", 1);
    struct child run = spawn_mpi(&w, NULL,
                                 PROFILE "--concurrency 2 --request-count 60 --api-port 0 "
                                         "--artifact-dir DIR");
    unsetenv("AIPERF_API_SERVER_POST_COMPLETE_GRACE");
    int port = api_port(run.out);
    json_int_t completed = -1;
    json_int_t total = -1;
    json_int_t most = -1;
    for (int i = 0; i < 1200 && completed < 60; i++) {
        progress_counts(port, &completed, &total);
        most = completed > most ? completed : most;
        struct timespec pause = {0, 100 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    cr_assert_eq(completed, 60, "the merged count reaches the requested total (saw %lld)",
                 (long long)most);
    cr_assert_eq(total, 60, "the whole run's total, not rank 0's share");
    char *metrics = NULL;
    cr_assert_eq(http_get(port, "/metrics", &metrics), 200);
    const char *count = strstr(metrics, "aiperf_request_latency_ms_count{");
    const char *eol = count != NULL ? strchr(count, '\n') : NULL;
    cr_assert(eol != NULL && eol - count > 4 && strncmp(eol - 4, "} 60", 4) == 0,
              "the histograms hold both ranks' requests:\n%s", metrics);
    free(metrics);
    char *rest = test_read_stream(run.out);
    int status = wait_child(&run);
    cr_assert_eq(status, 0, "mpirun: exit %d\n%s", status, rest);
    free(rest);
    e2e_finish(&w);
}

Test(mpi, user_centric_users_of_different_ranks_are_staggered, .timeout = 180)
{
    struct e2e w;
    /* 4 users, one turn a second each: their first turns 250 ms apart, over both ranks. */
    mpi_start_run(&w,
                  PROFILE "--conversation-turn-mean 2 --user-centric-rate 4 --num-users 4 "
                          "--request-count 8 --random-seed 5 --artifact-dir DIR",
                  NULL);
    struct starts t = sorted_starts(w.dir, true);
    cr_assert_geq(t.n, 4, "a first turn per user");
    for (size_t i = 1; i < 4; i++) { /* the users' first sessions */
        /* In phase, two users (one per rank) would start together. */
        cr_assert_gt(t.ns[i] - t.ns[i - 1], 100LL * 1000 * 1000,
                     "first turns %zu and %zu are %lld ns apart", i - 1, i,
                     (long long)(t.ns[i] - t.ns[i - 1]));
    }
    e2e_finish(&w);
}
