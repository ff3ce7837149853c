/*
 * --connection-reuse-strategy in the engine, against the real mock server on
 * loopback: pooled connections are kept alive and reused, `never` opens one
 * connection per request and tells the server to close it, and every
 * request still ends as exactly one record.
 */
#include "tests/engine/engine_fixture.h"

/* run_counting runs `requests` non-streamed requests on `concurrency`
 * connections and returns the server's counters. */
static struct mock_stats run_counting(enum engine_conn_reuse reuse, uint64_t requests,
                                      uint32_t concurrency)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, false, 3, mock_server_port(fx.server));
    fx.config.conn_reuse = reuse;
    fx.config.concurrency = concurrency;
    fx.config.request_count = requests;
    struct capture *cap = new_capture();
    run_engine(&fx, cap, NULL);
    assert_every_ordinal_once(cap, requests);
    for (size_t i = 0; i < cap->count; i++) {
        cr_assert_eq(cap->records[i].outcome, RECORD_SUCCESS, "%s: %s", cap->records[i].error_type,
                     cap->records[i].error_message);
        cr_assert_eq(cap->records[i].completion_tokens, 3);
    }
    free(cap);
    struct mock_stats st;
    cr_assert_eq(mock_server_stop(fx.server), 0);
    mock_server_stats(fx.server, &st);
    finish(&fx);
    return st;
}

Test(engine_conn_reuse, pooled_connections_serve_every_request, .timeout = 60)
{
    struct mock_stats st = run_counting(ENGINE_REUSE_POOLED, 200, 4);
    cr_assert_leq(st.connections_accepted, 4, "%llu connections for 4 slots",
                  (unsigned long long)st.connections_accepted);
    cr_assert_eq(st.completions, 200);
    cr_assert_eq(st.requests_closing, 0, "no request asked to close its connection");
}

Test(engine_conn_reuse, never_opens_a_connection_for_each_request, .timeout = 60)
{
    struct mock_stats st = run_counting(ENGINE_REUSE_NEVER, 150, 4);
    cr_assert_eq(st.connections_accepted, 150);
    cr_assert_eq(st.completions, 150);
    cr_assert_eq(st.requests_closing, 150, "every request said Connection: close");
}

/* Outside a conversation, a request is a conversation of one turn. */
Test(engine_conn_reuse, sticky_sessions_close_after_a_single_turn_request, .timeout = 60)
{
    struct mock_stats st = run_counting(ENGINE_REUSE_STICKY, 40, 2);
    cr_assert_eq(st.connections_accepted, 40);
    cr_assert_eq(st.requests_closing, 40);
}
