/*
 * engine_fixture.h - test helper for the engine's end-to-end tests: a mock
 * server on loopback, an engine configuration aimed at it, and a sink that
 * captures each record's outcome, text and content-event times.
 */
#ifndef RINGPERF_TESTS_ENGINE_FIXTURE_H
#define RINGPERF_TESTS_ENGINE_FIXTURE_H

#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "endpoint/endpoint.h"
#include "payload/payload.h"
#include "engine/engine.h"
#include "mock/mock.h"

#define MAX_RECORDS 1024

struct captured {
    uint64_t ordinal;
    enum record_outcome outcome;
    int error_code;
    char error_type[RECORD_ERROR_TYPE_BYTES];
    char error_message[RECORD_ERROR_MESSAGE_BYTES];
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

static inline void capture_record(void *ctx, const struct record *rec)
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
        if ((rec->events[i].flags & RECORD_EVENT_CONTENT) != 0 && c->content_events < 64) {
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
static inline struct mock_config loopback_mock(void)
{
    struct mock_config mc;
    mock_config_init(&mc);
    mc.port = 0;
    return mc;
}

static inline void start_mock(struct fixture *fx, struct mock_config *mc)
{
    char errbuf[256];
    cr_assert_eq(mock_server_start(mc, &fx->server, errbuf, sizeof(errbuf)), 0, "%s", errbuf);
}

static inline void prepare(struct fixture *fx, enum endpoint_type type, bool streaming,
                           uint64_t max_tokens, uint16_t port)
{
    struct payload_spec spec = {
        .type = type,
        .model = "test-model",
        .prompt = "tell me about rivers and mountains",
        .max_tokens = max_tokens,
        .streaming = streaming,
    };
    char errbuf[256];
    fx->body = payload_build(&spec, errbuf, sizeof(errbuf));
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

static inline void finish(struct fixture *fx)
{
    if (fx->server != NULL) {
        mock_server_free(fx->server);
    }
    free(fx->body);
}

static inline void capture_stats(void *ctx, const struct engine_run_stats *stats)
{
    struct capture *cap = ctx;
    cap->stats = *stats;
}

static inline void run_engine(struct fixture *fx, struct capture *cap, struct engine_stop *stop)
{
    struct engine_record_sink sink = {
        .on_record = capture_record, .on_finish = capture_stats, .ctx = cap};
    char errbuf[256];
    cr_assert_eq(engine_run(&fx->config, &sink, stop, errbuf, sizeof(errbuf)), 0, "%s", errbuf);
    cr_assert_not(cap->duplicate, "an ordinal was reported twice");
}

static inline void skip_without_io_uring(void)
{
    char errbuf[256];
    if (engine_probe(errbuf, sizeof(errbuf)) != 0) {
        cr_skip_test("io_uring unavailable: %s", errbuf);
    }
}

static inline struct capture *new_capture(void)
{
    struct capture *cap = calloc(1, sizeof(*cap));
    cr_assert_not_null(cap);
    return cap;
}

static inline void assert_every_ordinal_once(const struct capture *cap, uint64_t count)
{
    cr_assert_eq(cap->count, count, "records %zu, scheduled %llu", cap->count,
                 (unsigned long long)count);
    for (uint64_t i = 0; i < count; i++) {
        cr_assert(cap->seen[i], "ordinal %llu has no record", (unsigned long long)i);
    }
}

#endif
