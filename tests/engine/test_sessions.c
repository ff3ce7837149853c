/*
 * Multi-turn sessions in the engine, against the real mock server on
 * loopback: turns run in order on one connection, each turn's body sees the
 * replies to the turns before it, think times separate the turns, and the
 * ordinal limit cuts the run at exactly that many requests.
 */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint/endpoint.h"
#include "engine/engine.h"
#include "mock/mock.h"

#define TURNS 3
#define MAX_RECORDS 64

/* script is the sessions' callbacks' context: every session has TURNS turns.
 * The callbacks run on shard threads, so what they notice goes to atomics. */
struct script {
    int64_t think_ns;
    char body[256];
    _Atomic int bad_replies; /* a turn saw the wrong number of replies, or an empty one */
    _Atomic int bodies;      /* turn bodies built */
};

static uint32_t turn_count(void *ctx, uint64_t session)
{
    (void)ctx;
    (void)session;
    return TURNS;
}

static uint64_t first_ordinal(void *ctx, uint64_t session)
{
    (void)ctx;
    return session * TURNS;
}

static int64_t think_ns(void *ctx, uint64_t session, uint32_t turn)
{
    (void)session;
    (void)turn;
    return ((struct script *)ctx)->think_ns;
}

static int turn_body(void *ctx, uint64_t session, uint32_t turn,
                     const struct engine_turn_reply *replies, struct engine_turn_body *out,
                     char *err, size_t errcap)
{
    struct script *sc = ctx;
    (void)session;
    (void)err;
    (void)errcap;
    for (uint32_t k = 0; k < turn; k++) {
        if (replies == NULL || replies[k].len == 0 || replies[k].text == NULL) {
            atomic_fetch_add(&sc->bad_replies, 1);
        }
    }
    atomic_fetch_add(&sc->bodies, 1);
    *out = (struct engine_turn_body){.body = sc->body, .len = strlen(sc->body), .owned = false};
    return 0;
}

struct seen {
    size_t count;
    uint64_t ordinal[MAX_RECORDS];
    uint64_t session[MAX_RECORDS];
    uint32_t turn[MAX_RECORDS];
    enum record_outcome outcome[MAX_RECORDS];
    int64_t send_start_ns[MAX_RECORDS];
    int64_t end_ns[MAX_RECORDS];
};

static void on_record(void *ctx, const struct record *rec)
{
    struct seen *seen = ctx;
    if (seen->count >= MAX_RECORDS) {
        return;
    }
    size_t i = seen->count++;
    seen->ordinal[i] = rec->ordinal;
    seen->session[i] = rec->in_session ? rec->session : UINT64_MAX;
    seen->turn[i] = rec->turn;
    seen->outcome[i] = rec->outcome;
    seen->send_start_ns[i] = rec->send_start_ns;
    seen->end_ns[i] = rec->end_ns;
}

struct world {
    struct mock_server *server;
    struct engine_target target;
    struct engine_sessions sessions;
    struct engine_config config;
    struct script script;
    struct mock_stats mock_stats; /* the server's counters after the run */
    double mock_ttft_ms;          /* the mock's time to first token (set before setup) */
};

static void setup_world_seeing(struct world *w, int64_t think, const char *session_header);

static void setup_world(struct world *w, int64_t think)
{
    setup_world_seeing(w, think, "X-Correlation-ID");
}

/* setup_world_seeing is setup_world with a mock that counts the turns
 * carrying session_header. */
static void setup_world_seeing(struct world *w, int64_t think, const char *session_header)
{
    char errbuf[256];
    if (engine_probe(errbuf, sizeof(errbuf)) != 0) {
        cr_skip_test("io_uring unavailable: %s", errbuf);
    }
    struct mock_config mc;
    mock_config_init(&mc);
    mc.port = 0;
    mc.session_header = session_header;
    mc.ttft_ms = w->mock_ttft_ms;
    cr_assert_eq(mock_server_start(&mc, &w->server, errbuf, sizeof(errbuf)), 0, "%s", errbuf);
    uint16_t port = mock_server_port(w->server);
    struct sockaddr_in *sin = (struct sockaddr_in *)&w->target.addr;
    sin->sin_family = AF_INET;
    sin->sin_port = htons(port);
    sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    w->target.addr_len = sizeof(*sin);
    snprintf(w->target.host_header, sizeof(w->target.host_header), "127.0.0.1:%u", port);
    snprintf(w->target.path, sizeof(w->target.path), "/v1/chat/completions");
    w->script.think_ns = think;
    snprintf(w->script.body, sizeof(w->script.body), "%s",
             "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],"
             "\"stream\":true,\"max_completion_tokens\":4}");
    w->sessions = (struct engine_sessions){
        .turn_count = turn_count,
        .first_ordinal = first_ordinal,
        .think_ns = think_ns,
        .turn_body = turn_body,
        .ctx = &w->script,
        .keep_replies = true,
    };
    w->config = (struct engine_config){
        .targets = &w->target,
        .target_count = 1,
        .endpoint_type = ENDPOINT_CHAT,
        .streaming = true,
        .sessions = &w->sessions,
        .shard_count = 2,
        .concurrency = 2,
        .request_id_nonce = 7,
    };
}

static void run(struct world *w, struct seen *seen)
{
    struct engine_record_sink sink = {.on_record = on_record, .ctx = seen};
    char errbuf[256];
    cr_assert_eq(engine_run(&w->config, &sink, NULL, errbuf, sizeof(errbuf)), 0, "%s", errbuf);
    cr_assert_eq(mock_server_stop(w->server), 0);
    mock_server_stats(w->server, &w->mock_stats);
    mock_server_free(w->server);
}

Test(engine_sessions, turns_run_in_order_with_the_replies_before_them, .timeout = 60)
{
    struct world w = {0};
    setup_world(&w, 20 * 1000 * 1000);
    w.sessions.session_limit = 4;
    struct seen *seen = calloc(1, sizeof(*seen));
    run(&w, seen);
    cr_assert_eq(seen->count, 4 * TURNS);
    cr_assert_eq(atomic_load(&w.script.bad_replies), 0, "a turn's history lacked a reply");
    cr_assert_eq(atomic_load(&w.script.bodies), 4 * TURNS);
    for (size_t i = 0; i < seen->count; i++) {
        cr_assert_eq(seen->outcome[i], RECORD_SUCCESS);
        cr_assert_lt(seen->session[i], 4);
        cr_assert_eq(seen->ordinal[i], seen->session[i] * TURNS + seen->turn[i]);
        if (seen->turn[i] == 0) {
            continue;
        }
        /* The previous turn of the same session came earlier, and this one
         * left at least the think time after it ended. */
        bool found = false;
        for (size_t j = 0; j < i; j++) {
            if (seen->session[j] == seen->session[i] && seen->turn[j] + 1 == seen->turn[i]) {
                found = true;
                cr_assert_geq(seen->send_start_ns[i] - seen->end_ns[j], 20 * 1000 * 1000,
                              "turn %u left %lld ns after turn %u ended", seen->turn[i],
                              (long long)(seen->send_start_ns[i] - seen->end_ns[j]), seen->turn[j]);
            }
        }
        cr_assert(found, "session %llu turn %u arrived before its previous turn",
                  (unsigned long long)seen->session[i], seen->turn[i]);
    }
    free(seen);
}

Test(engine_sessions, the_ordinal_limit_ends_the_run_at_exactly_that_many_requests, .timeout = 60)
{
    struct world w = {0};
    setup_world(&w, 0);
    w.sessions.ordinal_limit = 7;
    struct seen *seen = calloc(1, sizeof(*seen));
    run(&w, seen);
    cr_assert_eq(seen->count, 7);
    bool ordinal_seen[7] = {false};
    for (size_t i = 0; i < seen->count; i++) {
        cr_assert_lt(seen->ordinal[i], 7);
        cr_assert_not(ordinal_seen[seen->ordinal[i]], "ordinal %llu twice",
                      (unsigned long long)seen->ordinal[i]);
        ordinal_seen[seen->ordinal[i]] = true;
    }
    free(seen);
}

Test(engine_sessions, turns_due_after_the_duration_are_never_sent, .timeout = 60)
{
    struct world w = {0};
    /* A think time far longer than the run: only first turns are ever due,
     * and the run must end at its duration all the same. */
    setup_world(&w, (int64_t)3600 * 1000 * 1000 * 1000);
    w.sessions.session_limit = 2;
    w.config.duration_ns = 500 * 1000 * 1000;
    struct seen *seen = calloc(1, sizeof(*seen));
    run(&w, seen);
    cr_assert_eq(seen->count, 2, "only the two first turns were ever due");
    for (size_t i = 0; i < seen->count; i++) {
        cr_assert_eq(seen->turn[i], 0);
        cr_assert_eq(seen->outcome[i], RECORD_SUCCESS);
    }
    free(seen);
}

/* --connection-reuse-strategy sticky-user-sessions: each conversation has a
 * connection of its own for all its turns, and its last turn asks the server
 * to close it; pooled, conversations take turns on the same connections. */
Test(engine_sessions, sticky_sessions_get_a_connection_each, .timeout = 60)
{
    for (int sticky = 0; sticky <= 1; sticky++) {
        struct world w = {0};
        setup_world(&w, 0);
        w.sessions.session_limit = 6;
        w.config.conn_reuse = sticky ? ENGINE_REUSE_STICKY : ENGINE_REUSE_POOLED;
        struct seen *seen = calloc(1, sizeof(*seen));
        run(&w, seen);
        cr_assert_eq(seen->count, 6 * TURNS);
        for (size_t i = 0; i < seen->count; i++) {
            cr_assert_eq(seen->outcome[i], RECORD_SUCCESS);
        }
        if (sticky) {
            cr_assert_eq(w.mock_stats.connections_accepted, 6);
            cr_assert_eq(w.mock_stats.requests_closing, 6, "the last turn of each");
        } else {
            cr_assert_leq(w.mock_stats.connections_accepted, 2, "the two pooled connections");
            cr_assert_eq(w.mock_stats.requests_closing, 0);
        }
        free(seen);
    }
}

/* A conversation cut short by the ordinal limit still gives its connection
 * up: its last turn sent is the last the limit allows. */
Test(engine_sessions, sticky_sessions_cut_by_the_ordinal_limit_close_too, .timeout = 60)
{
    struct world w = {0};
    setup_world(&w, 0);
    w.sessions.ordinal_limit = 7; /* sessions 0 and 1 whole, session 2 one turn */
    w.config.conn_reuse = ENGINE_REUSE_STICKY;
    struct seen *seen = calloc(1, sizeof(*seen));
    run(&w, seen);
    cr_assert_eq(seen->count, 7);
    cr_assert_eq(w.mock_stats.connections_accepted, 3);
    cr_assert_eq(w.mock_stats.requests_closing, 3);
    free(seen);
}

/* --session-header: every turn carries the conversation's id under the
 * name given, and no longer under X-Correlation-ID. */
Test(engine_sessions, the_session_header_can_be_renamed, .timeout = 60)
{
    static const char *const seen_as[] = {"X-Session-ID", "X-Correlation-ID"};
    for (size_t i = 0; i < 2; i++) {
        struct world w = {0};
        setup_world_seeing(&w, 0, seen_as[i]);
        w.sessions.session_limit = 3;
        w.config.session_header = "X-Session-ID";
        struct seen *seen = calloc(1, sizeof(*seen));
        run(&w, seen);
        cr_assert_eq(seen->count, 3 * TURNS);
        cr_assert_eq(w.mock_stats.session_requests, i == 0 ? 3 * TURNS : 0, "seen as %s",
                     seen_as[i]);
        free(seen);
    }
    struct world w = {0};
    setup_world(&w, 0);
    w.sessions.session_limit = 2;
    struct seen *seen = calloc(1, sizeof(*seen));
    run(&w, seen);
    cr_assert_eq(w.mock_stats.session_requests, 2 * TURNS, "X-Correlation-ID by default");
    free(seen);
}

static int64_t every_50_ms(void *ctx, uint64_t k)
{
    (void)ctx;
    return (int64_t)k * 50 * 1000 * 1000;
}

/* Open-loop sessions under a prefill limit of 1: the shard takes the next session's first turn
 * off its ring ahead of its due time, then a turn of a running session takes the one prefill
 * slot, and the new session falls due while that turn waits 20 ms for its first token. The
 * shard must wait for that token's completion, not poll: with DEFER_TASKRUN a polling loop
 * reads no completions, so before engine__can_start set the wake-up the run never ended
 * (about half the runs; tests/engine/test_wake.c checks the rule itself). */
Test(engine_sessions, a_due_session_blocked_on_prefill_room_waits_for_the_completion, .timeout = 60)
{
    struct world w = {.mock_ttft_ms = 20};
    setup_world(&w, 10 * 1000 * 1000);
    struct engine_schedule schedule = {.offset_ns = every_50_ms};
    w.config.schedule = &schedule;
    w.config.shard_count = 1;
    w.config.concurrency = 8;
    w.config.prefill_limit = 1;
    w.sessions.session_limit = 12;
    struct seen *seen = calloc(1, sizeof(*seen));
    run(&w, seen);
    cr_assert_eq(seen->count, 12 * TURNS);
    for (size_t i = 0; i < seen->count; i++) {
        cr_assert_eq(seen->outcome[i], RECORD_SUCCESS);
    }
    free(seen);
}
