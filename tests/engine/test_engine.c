/*
 * The engine end to end against the real mock server on loopback: every
 * scheduled request ends as exactly one record, timings agree with the
 * server's own log of when it sent each token, and every fault the server can
 * inject ends as the right error without hanging the run.
 */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "endpoint/endpoint.h"
#include "engine/engine.h"
#include "mock/mock.h"

#define MAX_RECORDS 1024

struct captured {
    uint64_t ordinal;
    enum engine_outcome outcome;
    int error_code;
    char error_type[ENGINE_ERROR_TYPE_BYTES];
    char error_message[ENGINE_ERROR_MESSAGE_BYTES];
    uint32_t content_events;
    int64_t send_start_ns;
    int64_t content_ns[64];
    bool saw_done;
    bool usage_present;
    int64_t total_tokens;
    int64_t completion_tokens;
    size_t text_len;
    char text[512];
};

struct capture {
    struct captured records[MAX_RECORDS];
    struct engine_run_stats stats;
    size_t count;
    bool seen[MAX_RECORDS];
    bool duplicate;
    struct engine_stop *stop_after;
    size_t stop_after_count;
};

static void capture_record(void *ctx, const struct engine_record *rec)
{
    struct capture *cap = ctx;
    cr_assert_lt(cap->count, MAX_RECORDS);
    if (rec->ordinal < MAX_RECORDS) {
        cap->duplicate |= cap->seen[rec->ordinal];
        cap->seen[rec->ordinal] = true;
    }
    struct captured *c = &cap->records[cap->count++];
    *c = (struct captured){
        .ordinal = rec->ordinal,
        .outcome = rec->outcome,
        .error_code = rec->error_code,
        .send_start_ns = rec->send_start_ns,
        .saw_done = rec->saw_done,
        .usage_present = rec->usage.present,
        .total_tokens = rec->usage.total_tokens,
        .completion_tokens = rec->usage.completion_tokens,
        .text_len = rec->text_len,
    };
    memcpy(c->error_type, rec->error_type, sizeof(c->error_type));
    memcpy(c->error_message, rec->error_message, sizeof(c->error_message));
    memcpy(c->text, rec->text, rec->text_len < sizeof(c->text) ? rec->text_len : 0);
    for (uint32_t i = 0; i < rec->event_count; i++) {
        if ((rec->events[i].flags & ENGINE_EVENT_CONTENT) != 0 && c->content_events < 64) {
            c->content_ns[c->content_events++] = rec->events[i].arrival_ns;
        }
    }
    if (cap->stop_after != NULL && cap->count == cap->stop_after_count) {
        __atomic_store_n(&cap->stop_after->requested, 1, __ATOMIC_RELEASE);
    }
}

struct fixture {
    struct mock_server *server;
    struct engine_target target;
    struct engine_config config;
    struct engine_payload payload;
    char *body;
    char token_log[64];
};

/* loopback_mock is the mock server's default configuration on a free port. */
static struct mock_config loopback_mock(void)
{
    struct mock_config mc;
    mock_config_init(&mc);
    mc.port = 0;
    return mc;
}

static void start_mock(struct fixture *fx, struct mock_config *mc)
{
    char errbuf[256];
    cr_assert_eq(mock_server_start(mc, &fx->server, errbuf, sizeof(errbuf)), 0, "%s", errbuf);
}

static void prepare(struct fixture *fx, enum endpoint_type type, bool streaming,
                    uint64_t max_tokens, uint16_t port)
{
    struct endpoint_payload_spec spec = {
        .type = type,
        .model = "test-model",
        .prompt = "tell me about rivers and mountains",
        .max_tokens = max_tokens,
        .streaming = streaming,
    };
    char errbuf[256];
    fx->body = endpoint_payload_build(&spec, errbuf, sizeof(errbuf));
    cr_assert_not_null(fx->body, "%s", errbuf);
    fx->payload = (struct engine_payload){.body = fx->body, .body_len = strlen(fx->body)};
    struct engine_config *c = &fx->config;
    *c = (struct engine_config){0};
    struct sockaddr_in *sin = (struct sockaddr_in *)&fx->target.addr;
    sin->sin_family = AF_INET;
    sin->sin_port = htons(port);
    sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    fx->target.addr_len = sizeof(*sin);
    snprintf(fx->target.host_header, sizeof(fx->target.host_header), "127.0.0.1:%u", port);
    snprintf(fx->target.path, sizeof(fx->target.path), "%s",
             type == ENDPOINT_CHAT ? "/v1/chat/completions" : "/v1/completions");
    c->targets = &fx->target;
    c->target_count = 1;
    c->endpoint_type = type;
    c->streaming = streaming;
    c->payloads = &fx->payload;
    c->payload_count = 1;
    c->shard_count = 2;
    c->request_id_nonce = 0x1234567890abcdefULL;
}

static void finish(struct fixture *fx)
{
    if (fx->server != NULL) {
        mock_server_free(fx->server);
    }
    free(fx->body);
}

static void capture_stats(void *ctx, const struct engine_run_stats *stats)
{
    struct capture *cap = ctx;
    cap->stats = *stats;
}

static void run_engine(struct fixture *fx, struct capture *cap, struct engine_stop *stop)
{
    struct engine_record_sink sink = {
        .on_record = capture_record, .on_finish = capture_stats, .ctx = cap};
    char errbuf[256];
    cr_assert_eq(engine_run(&fx->config, &sink, stop, errbuf, sizeof(errbuf)), 0, "%s", errbuf);
    cr_assert_not(cap->duplicate, "an ordinal was reported twice");
}

static void skip_without_io_uring(void)
{
    char errbuf[256];
    if (engine_probe(errbuf, sizeof(errbuf)) != 0) {
        cr_skip_test("io_uring unavailable: %s", errbuf);
    }
}

static struct capture *new_capture(void)
{
    struct capture *cap = calloc(1, sizeof(*cap));
    cr_assert_not_null(cap);
    return cap;
}

static void assert_every_ordinal_once(const struct capture *cap, uint64_t count)
{
    cr_assert_eq(cap->count, count, "records %zu, scheduled %llu", cap->count,
                 (unsigned long long)count);
    for (uint64_t i = 0; i < count; i++) {
        cr_assert(cap->seen[i], "ordinal %llu has no record", (unsigned long long)i);
    }
}

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
        cr_assert_eq(c->outcome, ENGINE_SUCCESS, "%s: %s", c->error_type, c->error_message);
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
        cr_assert_eq(cap->records[i].outcome, ENGINE_SUCCESS, "%s", cap->records[i].error_message);
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
        cr_assert_eq(cap->records[i].outcome, ENGINE_SUCCESS, "%s", cap->records[i].error_message);
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
        cr_assert_eq(cap->records[i].outcome, ENGINE_ERROR);
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
        cr_assert_eq(c->outcome, ENGINE_ERROR, "fault %s must fail the request", fault);
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
        if (c->outcome == ENGINE_CANCELLED) {
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
            engine_request_id(fx.config.request_id_nonce, cap->records[i].ordinal, expect,
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

static int compare_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a;
    int64_t y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t every_two_ms(void *ctx, uint64_t k)
{
    (void)ctx;
    return (int64_t)k * 2000000;
}

struct timed_capture {
    struct capture base;
    int64_t scheduled[MAX_RECORDS];
    int64_t sent[MAX_RECORDS];
};

static void capture_timed(void *ctx, const struct engine_record *rec)
{
    struct timed_capture *cap = ctx;
    if (rec->ordinal < MAX_RECORDS) {
        cap->scheduled[rec->ordinal] = rec->scheduled_ns;
        cap->sent[rec->ordinal] = rec->send_start_ns;
    }
    capture_record(&cap->base, rec);
}

Test(engine_open_loop, requests_leave_on_their_schedule, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, true, 4, mock_server_port(fx.server));
    struct engine_schedule schedule = {.offset_ns = every_two_ms};
    fx.config.schedule = &schedule;
    fx.config.concurrency = 16;
    fx.config.request_count = 200;
    struct timed_capture *cap = calloc(1, sizeof(*cap));
    struct engine_record_sink sink = {.on_record = capture_timed, .ctx = cap};
    char errbuf[256];
    cr_assert_eq(engine_run(&fx.config, &sink, NULL, errbuf, sizeof(errbuf)), 0, "%s", errbuf);
    assert_every_ordinal_once(&cap->base, 200);
    int64_t lateness[200];
    for (uint64_t k = 0; k < 200; k++) {
        if (k > 0) {
            cr_assert_eq(cap->scheduled[k] - cap->scheduled[k - 1], 2000000,
                         "request %llu is due 2 ms after the one before", (unsigned long long)k);
        }
        cr_assert_geq(cap->sent[k], cap->scheduled[k], "never sent before it is due");
        lateness[k] = cap->sent[k] - cap->scheduled[k];
    }
    /* A loaded machine (or a sanitizer build) delays some sends; the typical
     * one must still leave within a millisecond of its due time. */
    qsort(lateness, 200, sizeof(lateness[0]), compare_i64);
    cr_assert_lt(lateness[100], 1000000, "median lateness %lld ns", (long long)lateness[100]);
    free(cap);
    finish(&fx);
}

Test(engine_duration, closed_loop_stops_starting_requests_at_the_duration, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    mc.ttft_ms = 5; /* at most ~240 requests in 300 ms on 4 connections */
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, true, 2, mock_server_port(fx.server));
    fx.config.concurrency = 4;
    fx.config.request_count = 0; /* the duration alone ends the run */
    fx.config.duration_ns = 300 * 1000 * 1000;
    fx.config.grace_ns = -1;
    struct timed_capture *cap = calloc(1, sizeof(*cap));
    struct engine_record_sink sink = {.on_record = capture_timed, .ctx = cap};
    char errbuf[256];
    int64_t before = engine_now_ns();
    cr_assert_eq(engine_run(&fx.config, &sink, NULL, errbuf, sizeof(errbuf)), 0, "%s", errbuf);
    cr_assert_gt(cap->base.count, 4, "requests ran during the duration");
    for (size_t i = 0; i < cap->base.count; i++) {
        const struct captured *c = &cap->base.records[i];
        cr_assert_eq(c->outcome, ENGINE_SUCCESS, "%s", c->error_message);
        cr_assert_lt(cap->scheduled[c->ordinal] - before, 300 * 1000 * 1000 + 20 * 1000 * 1000,
                     "no request starts after the duration");
    }
    free(cap);
    finish(&fx);
}

Test(engine_duration, requests_still_running_when_the_grace_period_ends_are_cancelled,
     .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    mc.stall_rate = 100;
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, true, 8, mock_server_port(fx.server));
    fx.config.concurrency = 3;
    fx.config.request_count = 0;
    fx.config.duration_ns = 100 * 1000 * 1000;
    fx.config.grace_ns = 200 * 1000 * 1000;
    struct capture *cap = new_capture();
    run_engine(&fx, cap, NULL);
    cr_assert_eq(cap->count, 3, "the three stalled requests, and no others");
    for (size_t i = 0; i < cap->count; i++) {
        cr_assert_eq(cap->records[i].outcome, ENGINE_CANCELLED);
        cr_assert_eq(cap->records[i].error_code, 499);
        cr_assert(strstr(cap->records[i].error_message, "grace period") != NULL, "%s",
                  cap->records[i].error_message);
    }
    free(cap);
    finish(&fx);
}

Test(engine_cancel, the_chosen_fraction_is_cancelled_after_sending, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    mc.ttft_ms = 20;
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, true, 4, mock_server_port(fx.server));
    fx.config.concurrency = 8;
    fx.config.request_count = 200;
    fx.config.cancel_fraction = 0.5;
    fx.config.cancel_delay_ns = 5 * 1000 * 1000; /* well before the 20 ms first token */
    fx.config.cancel_seed = 99;
    struct capture *cap = new_capture();
    run_engine(&fx, cap, NULL);
    assert_every_ordinal_once(cap, 200);
    size_t cancelled = 0;
    for (size_t i = 0; i < cap->count; i++) {
        const struct captured *c = &cap->records[i];
        bool chosen = engine_should_cancel(0.5, 99, c->ordinal);
        cr_assert_eq(c->outcome, chosen ? ENGINE_CANCELLED : ENGINE_SUCCESS, "ordinal %llu: %s",
                     (unsigned long long)c->ordinal, c->error_message);
        if (chosen) {
            cancelled++;
            cr_assert_eq(c->error_code, 499);
            cr_assert_str_eq(c->error_type, "RequestCancellationError");
        }
    }
    cr_assert(cancelled > 60 && cancelled < 140, "about half: %zu", cancelled);
    free(cap);
    finish(&fx);
}

struct prefill_capture {
    struct capture base;
    int64_t sent[MAX_RECORDS];
    int64_t first_content[MAX_RECORDS];
};

static void capture_prefill(void *ctx, const struct engine_record *rec)
{
    struct prefill_capture *cap = ctx;
    cap->sent[cap->base.count] = rec->send_start_ns;
    cap->first_content[cap->base.count] = rec->event_count > 0 ? rec->events[0].arrival_ns : 0;
    capture_record(&cap->base, rec);
}

Test(engine_prefill, one_request_at_a_time_waits_for_its_first_token, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    mc.ttft_ms = 10;
    mc.itl_ms = 5;
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, true, 6, mock_server_port(fx.server));
    fx.config.concurrency = 4;
    fx.config.prefill_limit = 1;
    fx.config.request_count = 12;
    struct prefill_capture *cap = calloc(1, sizeof(*cap));
    struct engine_record_sink sink = {.on_record = capture_prefill, .ctx = cap};
    char errbuf[256];
    cr_assert_eq(engine_run(&fx.config, &sink, NULL, errbuf, sizeof(errbuf)), 0, "%s", errbuf);
    assert_every_ordinal_once(&cap->base, 12);
    /* With one prefill slot, each request is sent only after every earlier one
     * has its first token: the prefill intervals never overlap. */
    for (size_t i = 0; i < 12; i++) {
        cr_assert_eq(cap->base.records[i].outcome, ENGINE_SUCCESS);
        for (size_t j = 0; j < 12; j++) {
            if (j != i && cap->sent[j] < cap->sent[i]) {
                cr_assert_leq(cap->first_content[j], cap->sent[i],
                              "request %zu sent at %lld while %zu (sent %lld) had no first token "
                              "until %lld",
                              i, (long long)cap->sent[i], j, (long long)cap->sent[j],
                              (long long)cap->first_content[j]);
            }
        }
    }
    /* And yet several streams ran at once: the decode phases overlapped. */
    bool overlapped = false;
    for (size_t i = 1; i < 12; i++) {
        overlapped |= cap->sent[i] < cap->first_content[i - 1] + 25 * 1000 * 1000;
    }
    cr_assert(overlapped, "decode phases overlap under the concurrency of 4");
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
        cr_assert_eq(cap->records[i].outcome, ENGINE_SUCCESS);
        cr_assert_eq(cap->records[i].content_events, 4);
    }
    free(cap);
    finish(&fx);
}

struct interval_capture {
    struct capture base;
    int64_t start[MAX_RECORDS];
    int64_t end[MAX_RECORDS];
};

static void capture_interval(void *ctx, const struct engine_record *rec)
{
    struct interval_capture *cap = ctx;
    cap->start[cap->base.count] = rec->send_start_ns;
    cap->end[cap->base.count] = rec->end_ns;
    capture_record(&cap->base, rec);
}

/* max_in_flight returns how many requests overlapped at most at any start
 * time up to `until` (ns). */
static size_t max_in_flight(const struct interval_capture *cap, int64_t until)
{
    size_t best = 0;
    for (size_t i = 0; i < cap->base.count; i++) {
        if (cap->start[i] > until) {
            continue;
        }
        size_t n = 0;
        for (size_t j = 0; j < cap->base.count; j++) {
            n += cap->start[j] <= cap->start[i] && cap->end[j] > cap->start[i];
        }
        best = n > best ? n : best;
    }
    return best;
}

Test(engine_ramp, concurrency_climbs_from_one_to_the_target, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    mc.ttft_ms = 20;
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, true, 2, mock_server_port(fx.server));
    fx.config.shard_count = 1;
    fx.config.concurrency = 8;
    fx.config.concurrency_ramp_ns = 400 * 1000 * 1000;
    fx.config.request_count = 200;
    struct interval_capture *cap = calloc(1, sizeof(*cap));
    struct engine_record_sink sink = {.on_record = capture_interval, .ctx = cap};
    char errbuf[256];
    int64_t t0 = engine_now_ns();
    cr_assert_eq(engine_run(&fx.config, &sink, NULL, errbuf, sizeof(errbuf)), 0, "%s", errbuf);
    assert_every_ordinal_once(&cap->base, 200);
    /* In the first 100 ms at most 1 + 8 * 100 / 400 = 3 requests run at once... */
    size_t early = max_in_flight(cap, t0 + 100 * 1000 * 1000);
    cr_assert_leq(early, 3, "%zu requests in flight in the first 100 ms", early);
    /* ...and all 8 once the ramp is over. */
    cr_assert_eq(max_in_flight(cap, INT64_MAX), 8);
    free(cap);
    finish(&fx);
}

Test(engine_run, a_stop_with_grace_lets_requests_in_flight_finish, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    mc.ttft_ms = 5;
    mc.itl_ms = 5;
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, true, 20, mock_server_port(fx.server));
    fx.config.concurrency = 4;
    fx.config.request_count = 1000;
    fx.config.stop_grace_ns = 10LL * 1000 * 1000 * 1000;
    struct engine_stop stop = {0};
    struct capture *cap = new_capture();
    cap->stop_after = &stop;
    cap->stop_after_count = 4;
    run_engine(&fx, cap, &stop);
    cr_assert_lt(cap->count, 1000, "nothing new started after the stop");
    for (size_t i = 0; i < cap->count; i++) {
        cr_assert_eq(cap->records[i].outcome, ENGINE_SUCCESS,
                     "requests in flight at the stop finished normally: %s",
                     cap->records[i].error_message);
    }
    free(cap);
    finish(&fx);
}

/* A long response's whole text and its events' bookkeeping, checked while the
 * record is still the engine's. */
struct long_capture {
    size_t count;
    bool ok[2];
    uint32_t content_events[2];
    size_t text_len[2];
    char text[2][8192];
    bool events_add_up[2];
    bool times_ordered[2];
};

static void capture_long(void *ctx, const struct engine_record *rec)
{
    struct long_capture *cap = ctx;
    size_t i = rec->ordinal < 2 ? (size_t)rec->ordinal : 1;
    cap->count++;
    cap->ok[i] = rec->outcome == ENGINE_SUCCESS;
    cap->text_len[i] = rec->text_len;
    memcpy(cap->text[i], rec->text, rec->text_len < sizeof(cap->text[i]) ? rec->text_len : 0);
    size_t sum = 0;
    cap->times_ordered[i] = true;
    for (uint32_t e = 0; e < rec->event_count; e++) {
        sum += rec->events[e].text_len;
        cap->content_events[i] += (rec->events[e].flags & ENGINE_EVENT_CONTENT) != 0;
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
