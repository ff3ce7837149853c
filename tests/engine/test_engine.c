/*
 * The engine end to end against the real mock server on loopback: every
 * scheduled request ends as exactly one record, timings agree with the
 * server's own log of when it sent each token, and every fault the server can
 * inject ends as the right error without hanging the run.
 */
#include <jansson.h>

#include "tests/engine/engine_fixture.h"

Test(engine_run, streaming_chat_every_request_succeeds_with_every_token, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    mc.threads = 2;
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, true, 12, mock_server_port(fx.server));
    fx.config.concurrency = 8;
    fx.config.request_count = 300;
    struct capture *cap = new_capture();
    run_engine(&fx, cap, NULL);
    assert_every_ordinal_once(cap, 300);
    for (size_t i = 0; i < cap->count; i++) {
        const struct captured *c = &cap->records[i];
        cr_assert_eq(c->outcome, RECORD_SUCCESS, "%s: %s", c->error_type, c->error_message);
        cr_assert_eq(c->content_events, 12);
        cr_assert(c->saw_done);
        cr_assert(c->usage_present, "stream_options.include_usage was sent");
        cr_assert_eq(c->completion_tokens, 12);
        cr_assert_gt(c->total_tokens, 12, "usage.total_tokens is read");
        cr_assert_gt(c->text_len, 12, "the text of every token was kept");
        cr_assert_gt(c->send_start_ns, 0);
    }
    free(cap);
    finish(&fx);
}

/* AIPerf sends X-Correlation-ID (and X-Session-Affinity) on every request: outside sessions
 * each request is a session of one turn with an id of its own, the x_correlation_id its record
 * exports. */
Test(engine_run, single_turn_requests_carry_a_correlation_id, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, false, 4, mock_server_port(fx.server));
    fx.config.concurrency = 4;
    fx.config.request_count = 40;
    struct capture *cap = new_capture();
    run_engine(&fx, cap, NULL);
    assert_every_ordinal_once(cap, 40);
    cr_assert_eq(mock_server_stop(fx.server), 0);
    struct mock_stats stats;
    mock_server_stats(fx.server, &stats);
    cr_assert_eq(stats.session_requests, 40, "every request named its session");
    free(cap);
    finish(&fx);
}

Test(engine_run, non_streaming_completions_get_one_body_each, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_COMPLETIONS, false, 5, mock_server_port(fx.server));
    fx.config.concurrency = 4;
    fx.config.request_count = 100;
    struct capture *cap = new_capture();
    run_engine(&fx, cap, NULL);
    assert_every_ordinal_once(cap, 100);
    for (size_t i = 0; i < cap->count; i++) {
        cr_assert_eq(cap->records[i].outcome, RECORD_SUCCESS, "%s", cap->records[i].error_message);
        cr_assert_eq(cap->records[i].content_events, 1);
        cr_assert_eq(cap->records[i].completion_tokens, 5);
    }
    free(cap);
    finish(&fx);
}

/* A body longer than one receive buffer reaches the engine in several reads:
 * it is gathered whole before it is parsed, as one that fits in one read is
 * parsed where it lies. */
Test(engine_run, non_streamed_body_across_several_reads_is_read_whole, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, false, 6000, mock_server_port(fx.server));
    fx.config.concurrency = 2;
    fx.config.request_count = 6;
    struct capture *cap = new_capture();
    run_engine(&fx, cap, NULL);
    assert_every_ordinal_once(cap, 6);
    for (size_t i = 0; i < cap->count; i++) {
        cr_assert_eq(cap->records[i].outcome, RECORD_SUCCESS, "%s", cap->records[i].error_message);
        cr_assert_eq(cap->records[i].content_events, 1);
        cr_assert_eq(cap->records[i].completion_tokens, 6000);
        cr_assert_gt(cap->records[i].text_len, ENGINE_DEFAULT_RECV_BUFFER_BYTES);
    }
    free(cap);
    finish(&fx);
}

Test(engine_run, refused_connections_end_as_errors_without_hanging, .timeout = 60)
{
    skip_without_io_uring();
    /* Bind a port and close it again: nothing listens there now. */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    cr_assert_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
    socklen_t len = sizeof(sin);
    getsockname(fd, (struct sockaddr *)&sin, &len);
    close(fd);
    struct fixture fx = {0};
    prepare(&fx, ENDPOINT_CHAT, true, 4, ntohs(sin.sin_port));
    fx.config.concurrency = 4;
    fx.config.request_count = 20;
    struct capture *cap = new_capture();
    run_engine(&fx, cap, NULL);
    assert_every_ordinal_once(cap, 20);
    for (size_t i = 0; i < cap->count; i++) {
        cr_assert_eq(cap->records[i].outcome, RECORD_ERROR);
        cr_assert_str_eq(cap->records[i].error_type, "ConnectionError");
        cr_assert(strstr(cap->records[i].error_message, "refused") != NULL, "%s",
                  cap->records[i].error_message);
    }
    free(cap);
    finish(&fx);
}

struct fault_case {
    const char *name;
    double *rate;
    int expect_code;
    const char *expect_type;
};

static void run_fault(const char *fault, int expect_code, const char *expect_type, bool streaming)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    if (strcmp(fault, "500") == 0) {
        mc.error_500_rate = 100;
    } else if (strcmp(fault, "429") == 0) {
        mc.error_429_rate = 100;
    } else if (strcmp(fault, "drop") == 0) {
        mc.drop_rate = 100;
    } else if (strcmp(fault, "stall") == 0) {
        mc.stall_rate = 100;
    } else if (strcmp(fault, "malformed") == 0) {
        mc.malformed_rate = 100;
    }
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, streaming, 8, mock_server_port(fx.server));
    fx.config.concurrency = 4;
    fx.config.request_count = 12;
    fx.config.request_timeout_ns = 1500ULL * 1000 * 1000;
    struct capture *cap = new_capture();
    run_engine(&fx, cap, NULL);
    assert_every_ordinal_once(cap, 12);
    for (size_t i = 0; i < cap->count; i++) {
        const struct captured *c = &cap->records[i];
        cr_assert_eq(c->outcome, RECORD_ERROR, "fault %s must fail the request", fault);
        cr_assert_eq(c->error_code, expect_code, "fault %s: code %d (%s: %s)", fault, c->error_code,
                     c->error_type, c->error_message);
        cr_assert_str_eq(c->error_type, expect_type, "fault %s: %s", fault, c->error_message);
        cr_assert_gt(strlen(c->error_message), 0);
    }
    free(cap);
    finish(&fx);
}

Test(engine_faults, http_500_is_an_error_with_the_server_message, .timeout = 60)
{
    run_fault("500", 500, "Internal Server Error", true);
}

Test(engine_faults, http_429_is_an_error_with_its_status, .timeout = 60)
{
    run_fault("429", 429, "Too Many Requests", true);
}

Test(engine_faults, connection_dropped_mid_stream_is_a_disconnect_error, .timeout = 60)
{
    run_fault("drop", 0, "ServerDisconnectedError", true);
}

Test(engine_faults, stalled_stream_ends_at_the_request_timeout, .timeout = 60)
{
    run_fault("stall", 0, "TimeoutError", true);
}

Test(engine_faults, malformed_stream_event_is_a_parse_error, .timeout = 60)
{
    run_fault("malformed", 502, "ResponseParseError", true);
}

Test(engine_faults, malformed_non_streamed_body_is_a_parse_error, .timeout = 60)
{
    run_fault("malformed", 502, "ResponseParseError", false);
}

Test(engine_run, stop_cancels_in_flight_requests_and_accounts_for_each, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    mc.ttft_ms = 5;
    mc.itl_ms = 20; /* long enough that requests are in flight when the stop lands */
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, true, 50, mock_server_port(fx.server));
    fx.config.concurrency = 6;
    fx.config.request_count = 1000;
    struct engine_stop stop = {0};
    struct capture *cap = new_capture();
    cap->stop_after = &stop;
    cap->stop_after_count = 6;
    run_engine(&fx, cap, &stop);
    size_t cancelled = 0;
    for (size_t i = 0; i < cap->count; i++) {
        const struct captured *c = &cap->records[i];
        if (c->outcome == RECORD_CANCELLED) {
            cancelled++;
            cr_assert_eq(c->error_code, 499);
            cr_assert_str_eq(c->error_type, "RequestCancellationError");
        }
    }
    cr_assert_lt(cap->count, 1000, "the stop ended the run early");
    cr_assert_gt(cancelled, 0, "requests in flight at the stop were cancelled");
    /* Every started ordinal was reported: they form a prefix-free set with no gaps
     * other than those never started, and none twice (checked in run_engine). */
    free(cap);
    finish(&fx);
}

/* The mock server logs the CLOCK_MONOTONIC instant it queued each token; the
 * engine stamps each event when its bytes arrive, on the same clock. Arrival can
 * never precede sending, and on loopback the delivery delay is small. */
Test(engine_timing, token_arrivals_follow_the_servers_send_times, .timeout = 120)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    snprintf(fx.token_log, sizeof(fx.token_log), "/tmp/ringperf-tokens-%d.jsonl", getpid());
    struct mock_config mc = loopback_mock();
    mc.ttft_ms = 50;
    mc.itl_ms = 5;
    mc.token_log_path = fx.token_log;
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, true, 10, mock_server_port(fx.server));
    fx.config.concurrency = 4;
    fx.config.request_count = 16;
    struct capture *cap = new_capture();
    run_engine(&fx, cap, NULL);
    assert_every_ordinal_once(cap, 16);
    mock_server_stop(fx.server);

    FILE *log = fopen(fx.token_log, "r");
    cr_assert_not_null(log);
    char line[512];
    size_t matched = 0;
    size_t delays_over_10ms = 0;
    while (fgets(line, sizeof(line), log) != NULL) {
        json_error_t err;
        json_t *obj = json_loads(line, 0, &err);
        cr_assert_not_null(obj, "token log line: %s", line);
        const char *id = json_string_value(json_object_get(obj, "request_id"));
        int64_t token = json_integer_value(json_object_get(obj, "token"));
        int64_t send_ns = json_integer_value(json_object_get(obj, "send_ns"));
        for (size_t i = 0; i < cap->count; i++) {
            char expect[40];
            record_request_id(fx.config.request_id_nonce, cap->records[i].ordinal, expect,
                              sizeof(expect));
            if (strcmp(expect, id) != 0 || token >= cap->records[i].content_events) {
                continue;
            }
            int64_t arrival = cap->records[i].content_ns[token];
            cr_assert_geq(arrival, send_ns, "token %lld arrived %lld ns before it was sent",
                          (long long)token, (long long)(send_ns - arrival));
            delays_over_10ms += arrival - send_ns > 10 * 1000 * 1000;
            matched++;
        }
        json_decref(obj);
    }
    fclose(log);
    unlink(fx.token_log);
    cr_assert_eq(matched, 16 * 10, "every token matched its log line");
    cr_assert_gt(cap->stats.kernel_timestamp_reads, 0,
                 "this kernel stamps receives (SO_TIMESTAMPING through multishot recvmsg)");
    /* A busy machine may delay a few deliveries; most must be prompt. */
    cr_assert_lt(delays_over_10ms, matched / 4, "%zu of %zu tokens took over 10 ms",
                 delays_over_10ms, matched);
    for (size_t i = 0; i < cap->count; i++) {
        int64_t ttft = cap->records[i].content_ns[0] - cap->records[i].send_start_ns;
        cr_assert_geq(ttft, 50 * 1000 * 1000, "TTFT %lld ns is below the server's 50 ms",
                      (long long)ttft);
    }
    free(cap);
    finish(&fx);
}

Test(engine_timing, user_space_clock_when_asked, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, true, 4, mock_server_port(fx.server));
    fx.config.concurrency = 2;
    fx.config.request_count = 10;
    fx.config.user_timestamps = true;
    struct capture *cap = new_capture();
    run_engine(&fx, cap, NULL);
    assert_every_ordinal_once(cap, 10);
    cr_assert_eq(cap->stats.kernel_timestamp_reads, 0);
    cr_assert_gt(cap->stats.user_timestamp_reads, 0);
    for (size_t i = 0; i < cap->count; i++) {
        cr_assert_eq(cap->records[i].outcome, RECORD_SUCCESS);
        cr_assert_eq(cap->records[i].content_events, 4);
    }
    free(cap);
    finish(&fx);
}

struct long_capture {
    size_t count;
    bool ok[2];
    uint32_t content_events[2];
    size_t text_len[2];
    char text[2][8192];
    bool events_add_up[2];
    bool times_ordered[2];
};

static void capture_long(void *ctx, const struct record *rec)
{
    struct long_capture *cap = ctx;
    size_t i = rec->ordinal < 2 ? (size_t)rec->ordinal : 1;
    cap->count++;
    cap->ok[i] = rec->outcome == RECORD_SUCCESS;
    cap->text_len[i] = rec->text_len;
    memcpy(cap->text[i], rec->text, rec->text_len < sizeof(cap->text[i]) ? rec->text_len : 0);
    size_t sum = 0;
    cap->times_ordered[i] = true;
    for (uint32_t e = 0; e < rec->event_count; e++) {
        sum += rec->events[e].text_len;
        cap->content_events[i] += (rec->events[e].flags & RECORD_EVENT_CONTENT) != 0;
        cap->times_ordered[i] &=
            e == 0 || rec->events[e].arrival_ns >= rec->events[e - 1].arrival_ns;
    }
    cap->events_add_up[i] = sum == rec->text_len;
}

/* A 600-token stream keeps every event and every byte of its text (more
 * than 2 KiB): the same text a non-streamed response of 600 tokens carries. */
Test(engine_run, long_responses_keep_every_event_and_byte, .timeout = 60)
{
    skip_without_io_uring();
    enum { TOKENS = 600 };
    struct long_capture *cap[2] = {calloc(1, sizeof(struct long_capture)),
                                   calloc(1, sizeof(struct long_capture))};
    cr_assert(cap[0] != NULL && cap[1] != NULL);
    for (int streaming = 0; streaming < 2; streaming++) {
        struct fixture fx = {0};
        struct mock_config mc = loopback_mock();
        start_mock(&fx, &mc);
        prepare(&fx, ENDPOINT_CHAT, streaming, TOKENS, mock_server_port(fx.server));
        fx.config.concurrency = 2;
        fx.config.request_count = 2;
        struct engine_record_sink sink = {.on_record = capture_long, .ctx = cap[streaming]};
        char errbuf[256];
        cr_assert_eq(engine_run(&fx.config, &sink, NULL, errbuf, sizeof(errbuf)), 0, "%s", errbuf);
        cr_assert_eq(cap[streaming]->count, 2);
        finish(&fx);
    }
    for (int i = 0; i < 2; i++) {
        cr_assert(cap[0]->ok[i] && cap[1]->ok[i]);
        cr_assert_gt(cap[1]->text_len[i], 2048);
        cr_assert_lt(cap[1]->text_len[i], sizeof(cap[1]->text[i]));
        cr_assert_eq(cap[1]->content_events[i], TOKENS, "every token's event is kept");
        cr_assert(cap[1]->events_add_up[i], "the events' text lengths add up to the text");
        cr_assert(cap[1]->times_ordered[i]);
        cr_assert_eq(cap[1]->text_len[i], cap[0]->text_len[i]);
        cr_assert_eq(memcmp(cap[1]->text[i], cap[0]->text[i], cap[0]->text_len[i]), 0,
                     "streamed and whole texts are the same");
    }
    free(cap[0]);
    free(cap[1]);
}

/* Responses past the connection's first body buffer (128 KiB) grow it: a whole body of about
 * 1 MiB and streamed events of about 200 KiB each, taking turns on one connection, so that the
 * stream after a grown (moved) body buffer parses into the buffer as it is now. */
Test(engine_run, responses_past_the_body_buffer_grow_it, .timeout = 120)
{
    skip_without_io_uring();
    enum { WHOLE = 200000, STREAMED = 100000, PER_EVENT = 40000 };
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    mc.tokens_per_chunk = PER_EVENT;
    mc.max_connections = 8;
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, true, STREAMED, mock_server_port(fx.server));
    struct payload_spec whole = {.type = ENDPOINT_CHAT,
                                 .model = "test-model",
                                 .prompt = "tell me everything",
                                 .max_tokens = WHOLE};
    char errbuf[256];
    char *whole_body = payload_build(&whole, errbuf, sizeof(errbuf));
    cr_assert_not_null(whole_body, "%s", errbuf);
    struct engine_payload payloads[2] = {
        {.body = whole_body, .body_len = strlen(whole_body)},
        fx.payload,
    };
    fx.config.payloads = payloads;
    fx.config.payload_count = 2;
    fx.config.shard_count = 1;
    fx.config.concurrency = 1;
    fx.config.request_count = 4;
    struct capture *cap = new_capture();
    run_engine(&fx, cap, NULL);
    assert_every_ordinal_once(cap, 4);
    size_t whole_seen = 0;
    for (size_t i = 0; i < cap->count; i++) {
        const struct captured *r = &cap->records[i];
        cr_assert_eq(r->outcome, RECORD_SUCCESS, "%s: %s", r->error_type, r->error_message);
        bool streamed = r->content_events > 1;
        whole_seen += !streamed;
        cr_assert_eq(r->completion_tokens, streamed ? STREAMED : WHOLE);
        if (streamed) {
            cr_assert_eq(r->content_events, (STREAMED + PER_EVENT - 1) / PER_EVENT);
        }
    }
    cr_assert_eq(whole_seen, 2);
    free(cap);
    free(whole_body);
    finish(&fx);
}
