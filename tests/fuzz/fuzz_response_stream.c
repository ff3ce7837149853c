/*
 * fuzz_response_stream.c - libFuzzer target for response_read_event() and
 * response_read_body(): a whole event stream (or body) from the network,
 * folded into a record whose buffers are small, so that the limits on events
 * and text are reached.
 *
 * Input layout: byte 0 picks the endpoint type (mod ENDPOINT_TYPE_COUNT) and,
 * with its top bit, whether the rest is one non-streamed body; the rest is
 * the bytes, fed to the SSE parser whole.
 *
 * Invariants checked (abort on violation): the record never holds more
 * events or text than its limits; once a step fails, the failure names a
 * type and a NUL-terminated message; no event is added after [DONE];
 * a usage count is RECORD_ABSENT or non-negative.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint/endpoint.h"
#include "record/record.h"
#include "response/response.h"
#include "sse/sse.h"
#include "tests/support/response_fixture.h"

#define EVENTS_MAX 4
#define TEXT_MAX RESPONSE_FIXTURE_TEXT
#define SSE_SCRATCH 4096

static void check_record(const struct response_fixture *s)
{
    if (s->rec.event_count > EVENTS_MAX || s->rec.text_len > TEXT_MAX ||
        s->rec.reasoning_len > TEXT_MAX) {
        abort();
    }
#define CHECK_COUNT(name)                                                                          \
    if (s->rec.usage.name != RECORD_ABSENT && s->rec.usage.name < 0) {                             \
        abort();                                                                                   \
    }
    RECORD_USAGE_COUNTS(CHECK_COUNT)
#undef CHECK_COUNT
}

static void check_failure(const struct response_failure *fail)
{
    if (fail->type == NULL || memchr(fail->message, '\0', sizeof(fail->message)) == NULL) {
        abort();
    }
}

static void feed_stream(struct response_fixture *s, const char *data, size_t len)
{
    static char scratch[SSE_SCRATCH];
    struct sse_parser parser;
    sse_parser_init(&parser, scratch, sizeof(scratch));
    size_t pos = 0;
    int64_t now = 1;
    while (pos < len) {
        size_t used = 0;
        struct sse_event ev;
        enum sse_status st = sse_parser_feed(&parser, data + pos, len - pos, &used, &ev);
        pos += used;
        if (st != SSE_EVENT) {
            return; /* need more, or an SSE error the engine reports itself */
        }
        bool was_done = s->rec.saw_done;
        uint32_t events_before = s->rec.event_count;
        struct response_failure fail;
        enum response_step step = response_read_event(&s->reader, &s->state, &s->limits, &ev, now++,
                                                      false, &s->rec, &fail);
        check_record(s);
        if (was_done && s->rec.event_count != events_before) {
            abort();
        }
        if (step == RESPONSE_STEP_FAILED) {
            check_failure(&fail);
            return;
        }
    }
    struct response_failure fail;
    if (!response_stream_ended_well(&s->reader, &s->rec, &fail)) {
        check_failure(&fail);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    enum endpoint_type type = (enum endpoint_type)((data[0] & 0x7f) % ENDPOINT_TYPE_COUNT);
    bool whole_body = (data[0] & 0x80) != 0;
    struct response_fixture s;
    response_fixture_init(&s, type, EVENTS_MAX);
    /* A copy, so that an over-read past the input is ASan's to see. */
    char *copy = malloc(size - 1 > 0 ? size - 1 : 1);
    if (copy == NULL) {
        return 0;
    }
    memcpy(copy, data + 1, size - 1);
    if (whole_body) {
        struct response_failure fail;
        if (response_read_body(&s.reader, &s.state, &s.limits, copy, size - 1, 1, &s.rec, &fail) ==
            RESPONSE_STEP_FAILED) {
            check_failure(&fail);
        }
        check_record(&s);
        char message[64];
        response_error_message(&s.reader, copy, size - 1, message, sizeof(message));
        if (memchr(message, '\0', sizeof(message)) == NULL) {
            abort();
        }
    } else {
        feed_stream(&s, copy, size - 1);
    }
    free(copy);
    return 0;
}
