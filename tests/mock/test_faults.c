/*
 * test_faults.c - fault injection at 100% for each kind, seeded determinism, the token log, and
 * the foreground mock_server_run() (listening line, SIGTERM).
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mock/mock.h"
#include "mock_client.h"

#define CHAT "/v1/chat/completions"
#define STREAM_8 "{\"stream\":true,\"max_tokens\":8,\"messages\":[]}"
#define BODY_8 "{\"max_tokens\":8,\"messages\":[]}"

/* count_tokens counts the data events that are token chunks (valid JSON with content). */
static size_t count_tokens(char *body, size_t *out_invalid, bool *out_done)
{
    const char *events[TC_EVENTS_MAX];
    size_t n = tc_events(body, events, TC_EVENTS_MAX);
    size_t tokens = 0;
    *out_invalid = 0;
    *out_done = false;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(events[i], "[DONE]") == 0) {
            *out_done = true;
            continue;
        }
        json_t *j = json_loads(events[i], 0, NULL);
        if (j == NULL) {
            (*out_invalid)++;
            continue;
        }
        json_t *delta = json_object_get(json_array_get(json_object_get(j, "choices"), 0), "delta");
        if (json_is_string(json_object_get(delta, "content"))) {
            tokens++;
        }
        json_decref(j);
    }
    return tokens;
}

Test(mock_faults, error_500_answers_every_completion, .timeout = 30)
{
    struct mock_config cfg = tc_config();
    cfg.error_500_rate = 100;
    struct tc_session t;
    tc_open(&t, &cfg);
    for (int i = 0; i < 3; i++) {
        tc_check_error(tc_ask(&t, CHAT, i == 0 ? STREAM_8 : BODY_8), 500, "server_error");
    }
    /* Faults apply to completions only. */
    cr_assert_eq(tc_ask(&t, "/health", NULL)->status, 200);
    tc_close(&t.conn);
    struct mock_stats st;
    tc_stop(t.server, &st);
    cr_assert_eq(st.faults_500, 3);
    tc_finish(&t);
}

Test(mock_faults, error_429_carries_retry_after, .timeout = 30)
{
    struct mock_config cfg = tc_config();
    cfg.error_429_rate = 100;
    struct tc_session t;
    tc_open(&t, &cfg);
    struct tc_resp *r = tc_ask(&t, CHAT, STREAM_8);
    tc_check_error(r, 429, NULL);
    cr_assert(tc_header(r, "Retry-After: 1"));
    tc_finish(&t);
}

/* ask_dropped sends body with every request dropped: the answer starts (200) but the server
 * closes the connection before it ends. */
static struct tc_resp *ask_dropped(struct tc_session *t, const char *body)
{
    struct tc_resp *r = tc_ask(t, CHAT, body);
    cr_assert_eq(r->status, 200);
    cr_assert_not(r->complete, "the answer is cut short");
    cr_assert(t->conn.eof, "connection closed by the server");
    return r;
}

Test(mock_faults, drop_closes_stream_after_half_the_tokens, .timeout = 30)
{
    struct mock_config cfg = tc_config();
    cfg.drop_rate = 100;
    struct tc_session t;
    tc_open(&t, &cfg);
    struct tc_resp *r = ask_dropped(&t, STREAM_8);
    size_t invalid = 0;
    bool done = false;
    cr_assert_eq(count_tokens(r->body, &invalid, &done), 4);
    cr_assert_not(done);
    tc_finish(&t);
}

Test(mock_faults, drop_cuts_non_streaming_body, .timeout = 30)
{
    struct mock_config cfg = tc_config();
    cfg.drop_rate = 100;
    struct tc_session t;
    tc_open(&t, &cfg);
    struct tc_resp *r = ask_dropped(&t, BODY_8);
    cr_assert_not_null(strstr(r->body, "\"content\":\" the of and to"));
    cr_assert_null(strstr(r->body, " in"), "cut after 4 of 8 words");
    tc_finish(&t);
}

Test(mock_faults, stall_holds_connection_open_without_data, .timeout = 30)
{
    struct mock_config cfg = tc_config();
    cfg.stall_rate = 100;
    struct mock_server *s = tc_start(&cfg);
    struct tc_conn c;
    tc_connect(&c, mock_server_port(s));
    tc_post(&c, CHAT, STREAM_8, NULL);
    /* Wait for the four token events, then check that nothing more comes. */
    size_t tokens = 0;
    while (tokens < 4) {
        cr_assert(tc_fill(&c), "stream ended before 4 tokens");
        char *copy = strndup(c.buf, c.len);
        char *body = strstr(copy, "\r\n\r\n");
        cr_assert_not_null(body);
        tokens = 0;
        for (char *p = body; (p = strstr(p, "\"content\":")) != NULL; p++) {
            tokens++;
        }
        free(copy);
    }
    cr_assert_eq(tokens, 4);
    cr_assert(tc_quiet(&c, 300), "a stalled stream sends nothing more");
    cr_assert_not(c.eof);
    /* Stopping the server while a stalled connection is open must not hang. */
    struct mock_stats st;
    tc_stop(s, &st);
    cr_assert_eq(st.faults_stall, 1);
    cr_assert(tc_closed(&c), "stop closes the stalled connection");
    tc_close(&c);
    mock_server_free(s);
}

Test(mock_faults, stall_connection_is_released_when_client_closes, .timeout = 30)
{
    struct mock_config cfg = tc_config();
    cfg.stall_rate = 100;
    cfg.max_connections = 1;
    struct mock_server *s = tc_start(&cfg);
    struct tc_conn c;
    tc_connect(&c, mock_server_port(s));
    tc_post(&c, CHAT, BODY_8, NULL);
    cr_assert(tc_fill(&c));
    tc_close(&c);
    /* The single slot frees up once the server sees the close; retry until it does. */
    bool served = false;
    for (int attempt = 0; attempt < 1000 && !served; attempt++) {
        tc_connect(&c, mock_server_port(s));
        served = tc_get_status(&c, "/health") == 200;
        tc_close(&c);
        if (!served) {
            usleep(10000);
        }
    }
    cr_assert(served);
    mock_server_free(s);
}

Test(mock_faults, malformed_adds_one_invalid_event_and_keeps_every_token, .timeout = 30)
{
    struct mock_config cfg = tc_config();
    cfg.malformed_rate = 100;
    struct tc_session t;
    tc_open(&t, &cfg);
    struct tc_resp *r = tc_ask(&t, CHAT, STREAM_8);
    cr_assert(r->complete);
    size_t invalid = 0;
    bool done = false;
    cr_assert_eq(count_tokens(r->body, &invalid, &done), 8);
    cr_assert_eq(invalid, 1);
    cr_assert(done);

    r = tc_ask(&t, CHAT, BODY_8);
    cr_assert(r->complete, "Content-Length matches the cut body");
    cr_assert_eq(r->status, 200);
    cr_assert_null(json_loads(r->body, 0, NULL), "non-streaming body is invalid JSON");
    tc_finish(&t);
}

Test(mock_faults, seed_makes_fault_sequence_repeatable, .timeout = 60)
{
    int statuses[2][24];
    for (int run = 0; run < 2; run++) {
        struct mock_config cfg = tc_config();
        cfg.error_500_rate = 30;
        cfg.error_429_rate = 30;
        cfg.seed = 1234;
        struct tc_session t;
        tc_open(&t, &cfg);
        for (int i = 0; i < 24; i++) {
            statuses[run][i] = tc_ask(&t, CHAT, BODY_8)->status;
        }
        tc_finish(&t);
    }
    int distinct = 0;
    for (int i = 0; i < 24; i++) {
        cr_assert_eq(statuses[0][i], statuses[1][i], "request %d differs between runs", i);
        distinct |= statuses[0][i] == 200 ? 1 : statuses[0][i] == 500 ? 2 : 4;
    }
    cr_assert_eq(distinct, 7, "24 draws at 30/30/40 should show all three outcomes");
}

/* check_log checks the count of request `id`'s log lines, and that their times are in order and
 * none is before not_before_ns. */
static void check_log(const char *path, const char *id, size_t tokens, uint64_t not_before_ns)
{
    uint64_t stamps[64];
    size_t seen = tc_log_stamps(path, id, stamps, 64);
    cr_assert_eq(seen, tokens, "request %s: %zu log lines, want %zu", id, seen, tokens);
    for (size_t i = 0; i < seen; i++) {
        cr_assert_geq(stamps[i], i > 0 ? stamps[i - 1] : 0);
        cr_assert_geq(stamps[i], not_before_ns);
    }
}

Test(mock_faults, token_log_records_every_sent_token, .timeout = 30)
{
    char path[] = "/tmp/ringperf-mock-tokens-XXXXXX";
    struct tc_session t;
    tc_open_token_log(&t, path, 1, 1);
    uint64_t before_ns = tc_now_ns();
    cr_assert(tc_ask_as(&t, CHAT, "{\"stream\":true,\"max_tokens\":5,\"messages\":[]}", "req-a")
                  ->complete);
    cr_assert(tc_ask_as(&t, "/v1/completions", "{\"prompt\":\"p\",\"max_tokens\":3}", "req\"b")
                  ->complete);
    tc_close(&t.conn);
    struct mock_stats st;
    tc_stop(t.server, &st);
    cr_assert_eq(st.token_log_lines, 8);
    /* Token i of a paced stream cannot leave before ttft + i * itl after the request. */
    check_log(path, "req-a", 5, before_ns + 1000000);
    check_log(path, "req\"b", 3, before_ns);
    tc_finish(&t);
    unlink(path);
}

Test(mock_faults, run_prints_listening_line_and_stops_on_sigterm, .timeout = 30)
{
    struct mock_config probe = tc_config();
    mock_server_free(tc_start(&probe)); /* skips the test where io_uring is unavailable */
    int pipefd[2];
    cr_assert_eq(pipe(pipefd), 0);
    pid_t pid = fork();
    cr_assert(pid >= 0);
    if (pid == 0) {
        close(pipefd[0]);
        FILE *out = fdopen(pipefd[1], "w");
        struct mock_config cfg = tc_config();
        cfg.port = 0;
        _exit(mock_server_run(&cfg, out) == 0 ? 0 : 3);
    }
    close(pipefd[1]);
    FILE *in = fdopen(pipefd[0], "r");
    char line[256];
    cr_assert_not_null(fgets(line, sizeof(line), in));
    const char *prefix = "mock-server listening on http://127.0.0.1:";
    cr_assert_eq(strncmp(line, prefix, strlen(prefix)), 0, "line: %s", line);
    long port = strtol(line + strlen(prefix), NULL, 10);
    cr_assert(port > 0 && port < 65536);
    struct tc_conn c;
    tc_connect(&c, (uint16_t)port);
    cr_assert_eq(tc_get_status(&c, "/health"), 200);
    tc_close(&c);
    cr_assert_eq(kill(pid, SIGTERM), 0);
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
    fclose(in);
}
