/*
 * test_reader.c - wire/: a response's bytes into its record, as the engine feeds them: the
 * framings (length, chunked, until close), streams (SSE, AWS event stream), HTTP errors,
 * malformed and oversized responses, and the same record whatever the reads' boundaries.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint/endpoint.h"
#include "evs/evs.h"
#include "record/record.h"
#include "response/response.h"
#include "tests/support/wire_fixture.h"
#include "wire/wire.h"

#define BODY_BYTES 4096

/* fixture is a wire reader and its record. */
struct fixture {
    struct wire_fixture w;
};

static void setup(struct fixture *f, enum endpoint_type type, size_t body_cap)
{
    cr_assert_eq(wire_fixture_init(&f->w, type, body_cap), 0);
}

static void teardown(struct fixture *f)
{
    wire_fixture_free(&f->w);
}

/* feed_at hands bytes [from, to) as one read arriving at `at`; false once the request ended. */
static bool feed_at(struct fixture *f, const char *data, size_t from, size_t to, int64_t at)
{
    return wire_fixture_feed(&f->w, data + from, to - from, at);
}

/* feed_split feeds `data` in reads of `step` bytes, all arriving at 1000 ns. */
static void feed_split(struct fixture *f, const char *data, size_t step)
{
    size_t len = strlen(data);
    for (size_t off = 0; off < len; off += step) {
        size_t end = off + step < len ? off + step : len;
        if (!feed_at(f, data, off, end, 1000)) {
            return;
        }
    }
}

static const char *const CHAT_CHUNKS[] = {
    "data: "
    "{\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":"
    "\"Hel\"}}]}\n\n",
    "data: "
    "{\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"lo\"}"
    ",\"finish_reason\":"
    "\"stop\"}]}\n\n"
    "data: "
    "{\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":5,"
    "\"completion_tokens\":2}}\n\n"
    "data: [DONE]\n\n",
};

/* CHAT_STREAM is a streamed chat reply in two HTTP chunks, the second with three events. */
static char CHAT_STREAM[1024];

static void make_chat_stream(void)
{
    size_t n = (size_t)snprintf(CHAT_STREAM, sizeof(CHAT_STREAM),
                                "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
                                "Transfer-Encoding: chunked\r\n\r\n");
    for (size_t i = 0; i < 2; i++) {
        n += (size_t)snprintf(CHAT_STREAM + n, sizeof(CHAT_STREAM) - n, "%zx\r\n%s\r\n",
                              strlen(CHAT_CHUNKS[i]), CHAT_CHUNKS[i]);
    }
    snprintf(CHAT_STREAM + n, sizeof(CHAT_STREAM) - n, "0\r\n\r\n");
}

Test(wire, chunked_sse_stream_gives_text_usage_and_events, .init = make_chat_stream)
{
    struct fixture f;
    setup(&f, ENDPOINT_CHAT, BODY_BYTES);
    feed_split(&f, CHAT_STREAM, strlen(CHAT_STREAM));
    cr_assert(f.w.result.ended);
    cr_assert(!f.w.result.failed, "%s", f.w.result.failure.message);
    cr_assert_eq(f.w.result.outcome, RECORD_SUCCESS);
    cr_assert(f.w.result.keep_alive);
    cr_assert(f.w.generated);
    cr_assert_eq(f.w.rec.http_status, 200);
    cr_assert_eq(f.w.rec.headers_ns, 1000);
    cr_assert_eq(f.w.rec.end_ns, 1000);
    cr_assert_eq(f.w.rec.text_len, 5);
    cr_assert_arr_eq(f.w.rec.text, "Hello", 5);
    cr_assert_eq(f.w.rec.usage.prompt_tokens, 5);
    cr_assert_eq(f.w.rec.usage.completion_tokens, 2);
    cr_assert(f.w.rec.saw_done);
    cr_assert_eq(f.w.rec.http.reads, 1);
    cr_assert_eq(f.w.rec.http.bytes_received, strlen(CHAT_STREAM));
    teardown(&f);
}

/* The record is the same for every read size, byte by byte included; only which events shared
 * a read changes. */
Test(wire, every_split_gives_the_same_record, .init = make_chat_stream)
{
    struct fixture whole;
    setup(&whole, ENDPOINT_CHAT, BODY_BYTES);
    feed_split(&whole, CHAT_STREAM, strlen(CHAT_STREAM));
    for (size_t step = 1; step < strlen(CHAT_STREAM); step++) {
        struct fixture f;
        setup(&f, ENDPOINT_CHAT, BODY_BYTES);
        feed_split(&f, CHAT_STREAM, step);
        cr_assert(f.w.result.ended && !f.w.result.failed && f.w.result.keep_alive, "step %zu",
                  step);
        cr_assert_eq(f.w.rec.text_len, whole.w.rec.text_len, "step %zu", step);
        cr_assert_arr_eq(f.w.rec.text, whole.w.rec.text, whole.w.rec.text_len);
        cr_assert_eq(f.w.rec.event_count, whole.w.rec.event_count, "step %zu", step);
        for (uint32_t i = 0; i < f.w.rec.event_count; i++) {
            cr_assert_eq(f.w.events[i].flags & ~(uint32_t)RECORD_EVENT_SAME_READ,
                         whole.w.events[i].flags & ~(uint32_t)RECORD_EVENT_SAME_READ);
            cr_assert_eq(f.w.events[i].text_len, whole.w.events[i].text_len);
        }
        cr_assert_eq(f.w.rec.usage.completion_tokens, 2);
        cr_assert_eq(f.w.rec.http.bytes_received, whole.w.rec.http.bytes_received);
        teardown(&f);
    }
    teardown(&whole);
}

/* Events take the arrival time of the read that completed them, and the later events of one
 * read are marked as sharing it. */
Test(wire, events_take_their_reads_arrival_and_share_flags, .init = make_chat_stream)
{
    struct fixture f;
    setup(&f, ENDPOINT_CHAT, BODY_BYTES);
    const char *cut = strstr(CHAT_STREAM, "\r\n\r\n") + 4 + 4 + strlen(CHAT_CHUNKS[0]) + 2;
    size_t at = (size_t)(cut - CHAT_STREAM);
    cr_assert(feed_at(&f, CHAT_STREAM, 0, at, 100));
    cr_assert(f.w.result.generated, "the first content ends the prefill in its read");
    cr_assert(!feed_at(&f, CHAT_STREAM, at, strlen(CHAT_STREAM), 200));
    cr_assert_eq(f.w.events[0].arrival_ns, 100);
    cr_assert_eq(f.w.events[0].flags & RECORD_EVENT_SAME_READ, 0);
    cr_assert_eq(f.w.events[1].arrival_ns, 200);
    cr_assert_eq(f.w.events[1].flags & RECORD_EVENT_SAME_READ, 0);
    cr_assert_eq(f.w.events[2].flags & RECORD_EVENT_SAME_READ, RECORD_EVENT_SAME_READ);
    cr_assert_eq(f.w.rec.end_ns, 200);
    cr_assert_eq(f.w.rec.http.first_byte_ns, 100);
    cr_assert_eq(f.w.rec.http.reads, 2);
    teardown(&f);
}

Test(wire, http_error_status_keeps_code_reason_and_message)
{
    static const char resp[] =
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
        "Content-Length: 51\r\n\r\n{\"error\":{\"message\":\"model overloaded\",\"code\":503}}";
    for (size_t step = 1; step <= sizeof(resp); step += 7) {
        struct fixture f;
        setup(&f, ENDPOINT_CHAT, BODY_BYTES);
        feed_split(&f, resp, step);
        cr_assert(f.w.result.ended);
        cr_assert(!f.w.result.failed, "an HTTP error is the record's, not a failure");
        cr_assert_eq(f.w.result.outcome, RECORD_ERROR);
        cr_assert(f.w.result.keep_alive);
        cr_assert_eq(f.w.rec.error_code, 503);
        cr_assert_str_eq(f.w.rec.error_type, "Service Unavailable");
        cr_assert(strstr(f.w.rec.error_message, "model overloaded") != NULL, "%s",
                  f.w.rec.error_message);
        teardown(&f);
    }
}

Test(wire, malformed_head_fails_the_request)
{
    struct fixture f;
    setup(&f, ENDPOINT_CHAT, BODY_BYTES);
    feed_split(&f, "HTTP/1.1 2x0 OK\r\n\r\n", 64);
    cr_assert(f.w.result.ended && f.w.result.failed);
    cr_assert_eq(f.w.result.outcome, RECORD_ERROR);
    cr_assert_str_eq(f.w.result.failure.type, "HTTPResponseError");
    cr_assert(strstr(f.w.result.failure.message, "malformed HTTP response") != NULL);
    cr_assert(!f.w.result.keep_alive);
    teardown(&f);
}

Test(wire, bytes_after_the_response_are_trailing)
{
    struct fixture f;
    setup(&f, ENDPOINT_RAW, BODY_BYTES);
    feed_split(&f, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}HTTP/1.1 200", 200);
    cr_assert(f.w.result.ended && !f.w.result.failed);
    cr_assert(f.w.result.trailing);
    cr_assert(!f.w.result.keep_alive, "the connection is not reused");
    teardown(&f);
}

Test(wire, body_until_close_ends_at_eof)
{
    static const char resp[] =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        "Connection: "
        "close\r\n\r\n{\"object\":\"chat.completion\",\"choices\":[{\"message\":{\"content\":"
        "\"abc\"},\"finish_reason\":\"stop\"}]}";
    struct fixture f;
    setup(&f, ENDPOINT_CHAT, BODY_BYTES);
    feed_split(&f, resp, 20);
    cr_assert(!f.w.result.ended, "no length: the body lasts until the close");
    cr_assert(wire_reader_eof(&f.w.wire, &f.w.cfg, 5000, &f.w.rec, &f.w.result));
    cr_assert(f.w.result.ended && !f.w.result.failed);
    cr_assert_eq(f.w.result.outcome, RECORD_SUCCESS);
    cr_assert(!f.w.result.keep_alive);
    cr_assert_eq(f.w.rec.end_ns, 5000);
    cr_assert_eq(f.w.rec.text_len, 3, "%.*s", (int)f.w.rec.text_len, f.w.rec.text);
    cr_assert_arr_eq(f.w.rec.text, "abc", 3);
    teardown(&f);
}

Test(wire, close_mid_body_is_not_a_response)
{
    struct fixture f;
    setup(&f, ENDPOINT_CHAT, BODY_BYTES);
    feed_split(&f, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n{\"cho", 64);
    cr_assert(!f.w.result.ended);
    cr_assert(!wire_reader_eof(&f.w.wire, &f.w.cfg, 5000, &f.w.rec, &f.w.result));
    teardown(&f);
}

Test(wire, body_larger_than_the_buffer_fails_alike_whole_or_split)
{
    char resp[1024];
    int n = snprintf(resp, sizeof(resp), "HTTP/1.1 200 OK\r\nContent-Length: 300\r\n\r\n");
    memset(resp + n, 'x', 300);
    resp[n + 300] = '\0';
    size_t steps[] = {sizeof(resp), 17};
    for (size_t i = 0; i < 2; i++) {
        struct fixture f;
        setup(&f, ENDPOINT_RAW, 256);
        feed_split(&f, resp, steps[i]);
        cr_assert(f.w.result.ended && f.w.result.failed);
        cr_assert_str_eq(f.w.result.failure.type, "ResponseTooLarge");
        cr_assert_str_eq(f.w.result.failure.message, "response body larger than 256 bytes");
        teardown(&f);
    }
}

/* A reader allowed to grow reads a body or an SSE event past its first buffer whole, split or
 * not, and still refuses one past its maximum. */
Test(wire, a_growing_reader_reads_past_its_first_buffer)
{
    static char resp[8192];
    static char text[3001];
    memset(text, 'y', 3000);
    size_t steps[] = {sizeof(resp), 17};
    for (size_t i = 0; i < 2; i++) {
        static char body[4096];
        snprintf(body, sizeof(body),
                 "{\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":"
                 "{\"content\":\"%s\"},"
                 "\"finish_reason\":\"stop\"}]}",
                 text);
        snprintf(resp, sizeof(resp),
                 "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: "
                 "%zu\r\n\r\n%s",
                 strlen(body), body);
        struct fixture f;
        setup(&f, ENDPOINT_CHAT, 256);
        wire_reader_set_body_max(&f.w.wire, 65536);
        feed_split(&f, resp, steps[i]);
        cr_assert(f.w.result.ended && !f.w.result.failed, "%s", f.w.result.failure.message);
        cr_assert_eq(f.w.rec.text_len, WIRE_FIXTURE_TEXT, "kept %zu of it", f.w.rec.text_len);
        cr_assert(f.w.rec.text_truncated);
        cr_assert_geq(f.w.wire.body_cap, 256);
        /* Then a streamed event of 3 KB on the same reader, its buffer perhaps moved. */
        wire_reader_reset(&f.w.wire);
        f.w.rec.text_len = 0;
        f.w.result = (struct wire_result){0};
        snprintf(resp, sizeof(resp),
                 "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n"
                 "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                 "\"delta\":{\"content\":\"%s\"},\"finish_reason\":\"stop\"}]}\n\ndata: "
                 "[DONE]\n\n",
                 text);
        feed_split(&f, resp, steps[i]);
        cr_assert(!wire_reader_eof(&f.w.wire, &f.w.cfg, 5000, &f.w.rec, &f.w.result) ||
                      !f.w.result.failed,
                  "%s", f.w.result.failure.message);
        cr_assert_eq(f.w.rec.text_len, WIRE_FIXTURE_TEXT, "step %zu", steps[i]);
        cr_assert(f.w.rec.saw_done);
        cr_assert_gt(f.w.wire.body_cap, 256);
        teardown(&f);
    }
    struct fixture f;
    setup(&f, ENDPOINT_RAW, 256);
    wire_reader_set_body_max(&f.w.wire, 1024);
    int n = snprintf(resp, sizeof(resp), "HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n");
    memset(resp + n, 'x', 2000);
    resp[n + 2000] = '\0';
    feed_split(&f, resp, 17);
    cr_assert(f.w.result.ended && f.w.result.failed);
    cr_assert_str_eq(f.w.result.failure.message, "response body larger than 1024 bytes");
    teardown(&f);
}

Test(wire, discarding_reader_takes_any_2xx_as_success)
{
    struct fixture f;
    setup(&f, ENDPOINT_CHAT, BODY_BYTES);
    f.w.cfg.discard_body = true;
    feed_split(&f,
               "HTTP/1.1 204 No Content\r\nContent-Type: text/event-stream\r\n"
               "Content-Length: 9\r\n\r\nnot json!",
               5);
    cr_assert(f.w.result.ended && !f.w.result.failed);
    cr_assert_eq(f.w.result.outcome, RECORD_SUCCESS);
    cr_assert_eq(f.w.rec.event_count, 0);
    teardown(&f);
}

/* A probe's body is counted, never kept: it does not grow the buffer it could grow into. */
Test(wire, discarding_reader_keeps_no_byte_of_a_large_body)
{
    struct fixture f;
    setup(&f, ENDPOINT_CHAT, 256);
    f.w.cfg.discard_body = true;
    wire_reader_set_body_max(&f.w.wire, 1 << 20);
    char resp[4096];
    int n = snprintf(resp, sizeof(resp), "HTTP/1.1 200 OK\r\nContent-Length: 2000\r\n\r\n");
    memset(resp + n, 'x', 2000);
    resp[n + 2000] = '\0';
    feed_split(&f, resp, 100);
    cr_assert(f.w.result.ended && !f.w.result.failed);
    cr_assert_eq(f.w.result.outcome, RECORD_SUCCESS);
    cr_assert_eq(f.w.wire.body_cap, 256, "grew to %zu", f.w.wire.body_cap);
    cr_assert_eq(f.w.wire.body_len, 0);
    cr_assert_eq(f.w.rec.http.bytes_received, (uint64_t)n + 2000);
    teardown(&f);
}

/* evs_frame writes one AWS event-stream message with string headers into out. */
static size_t evs_frame(char *out, size_t cap, const struct evs_string_header *headers,
                        size_t count, const char *payload)
{
    size_t n = evs_message_write((uint8_t *)out, cap, headers, count, payload, strlen(payload));
    cr_assert_gt(n, 0);
    return n;
}

#define HEADER(n, v)                                                                               \
    {                                                                                              \
        .name = (n), .value = (v), .value_len = sizeof(v) - 1                                      \
    }

Test(wire, aws_event_stream_lines_are_events_and_exceptions_fail)
{
    static const struct evs_string_header part[] = {HEADER(":message-type", "event"),
                                                    HEADER(":event-type", "PayloadPart")};
    static const struct evs_string_header exc[] = {HEADER(":message-type", "exception"),
                                                   HEADER(":exception-type", "ModelStreamError")};
    char frames[2048];
    size_t len =
        evs_frame(frames, sizeof(frames), part, 2,
                  "data: "
                  "{\"object\":\"chat.completion.chunk\",\"choices\":[{\"delta\":{\"content\":"
                  "\"Hi\"}}]}\n\ndata: {\"object\":\"chat.completion.chunk\",\"ch");
    len += evs_frame(frames + len, sizeof(frames) - len, part, 2,
                     "oices\":[{\"delta\":{\"content\":\"!\"},\"finish_reason\":\"stop\"}]}\n\n");
    size_t ok_len = len;
    len += evs_frame(frames + len, sizeof(frames) - len, exc, 2, "{\"message\":\"bad\"}\n");
    char resp[4096];
    for (int with_exception = 0; with_exception < 2; with_exception++) {
        size_t body_len = with_exception ? len : ok_len;
        int n = snprintf(resp, sizeof(resp),
                         "HTTP/1.1 200 OK\r\nContent-Type: application/vnd.amazon.eventstream\r\n"
                         "Content-Length: %zu\r\n\r\n",
                         body_len);
        memcpy(resp + n, frames, body_len);
        struct fixture f;
        setup(&f, ENDPOINT_CHAT, BODY_BYTES);
        for (size_t off = 0, total = (size_t)n + body_len; off < total; off += 11) {
            if (!feed_at(&f, resp, off, off + 11 < total ? off + 11 : total, 1000)) {
                break;
            }
        }
        cr_assert(f.w.result.ended);
        cr_assert_arr_eq(f.w.rec.text, "Hi!", 3);
        if (with_exception) {
            cr_assert(f.w.result.failed);
            cr_assert_str_eq(f.w.result.failure.type, "ModelStreamError");
            cr_assert(strstr(f.w.result.failure.message, "bad") != NULL);
        } else {
            cr_assert(!f.w.result.failed, "%s", f.w.result.failure.message);
            cr_assert_eq(f.w.result.outcome, RECORD_SUCCESS);
        }
        teardown(&f);
    }
}

/* A job's answers (WIRE_BODY_HAND_OVER) come back unread, whole, however the reads cut them; a
 * download (WIRE_BODY_DISCARD) far larger than the body buffer is counted, kept nowhere, and a
 * success; an HTTP error is one in either mode. */
Test(wire_reader, body_modes_hand_over_and_discard)
{
    static const char job[] =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
        "Content-Length: 36\r\n\r\n{\"id\":\"video_1\",\"status\":\"queued\"}\r\n";
    for (size_t step = 1; step <= sizeof(job); step++) {
        struct fixture f;
        setup(&f, ENDPOINT_VIDEO_GENERATION, BODY_BYTES);
        f.w.wire.body_mode = WIRE_BODY_HAND_OVER;
        feed_split(&f, job, step);
        cr_assert(f.w.result.ended && !f.w.result.failed, "step %zu", step);
        cr_assert_eq(f.w.result.outcome, RECORD_SUCCESS);
        cr_assert_eq(f.w.result.body_len, 36, "step %zu", step);
        cr_assert(memcmp(f.w.result.body, "{\"id\":\"video_1\",\"status\":\"queued\"}\r\n", 36) ==
                  0);
        cr_assert_eq(f.w.rec.event_count, 0, "the endpoint's reader did not see it");
        teardown(&f);
    }
    size_t video = BODY_BYTES * 8;
    char *download = malloc(video + 128);
    int head = snprintf(download, 128, "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n", video);
    memset(download + head, 'v', video);
    download[head + (int)video] = '\0';
    struct fixture f;
    setup(&f, ENDPOINT_VIDEO_GENERATION, BODY_BYTES);
    f.w.wire.body_mode = WIRE_BODY_DISCARD;
    feed_split(&f, download, 1000);
    cr_assert(f.w.result.ended && !f.w.result.failed);
    cr_assert_eq(f.w.result.outcome, RECORD_SUCCESS);
    cr_assert_eq(f.w.wire.body_len, 0, "nothing kept");
    cr_assert_eq(f.w.rec.http.bytes_received, (uint64_t)head + video);
    teardown(&f);
    free(download);
    setup(&f, ENDPOINT_VIDEO_GENERATION, BODY_BYTES);
    f.w.wire.body_mode = WIRE_BODY_HAND_OVER;
    feed_split(&f, "HTTP/1.1 404 Not Found\r\nContent-Length: 2\r\n\r\nno", 7);
    cr_assert(f.w.result.ended);
    cr_assert_eq(f.w.result.outcome, RECORD_ERROR);
    cr_assert_eq(f.w.rec.error_code, 404);
    teardown(&f);
    wire_reader_reset(&f.w.wire);
    cr_assert_eq(f.w.wire.body_mode, WIRE_BODY_READ, "each request starts reading");
}
