/*
 * wire_fixture.h - one wire reader with its buffers, response reader and the record it fills:
 * what the wire/ unit tests and its fuzz target both feed reads into. Header only, so the fuzz
 * targets (which do not link the Criterion-based support library) can use it too.
 */
#ifndef RINGPERF_TESTS_SUPPORT_WIRE_FIXTURE_H
#define RINGPERF_TESTS_SUPPORT_WIRE_FIXTURE_H

#include <stdlib.h>
#include <string.h>

#include "endpoint/endpoint.h"
#include "record/record.h"
#include "response/response.h"
#include "wire/wire.h"

/* Small on purpose: the limits on events and text are what the tests reach. */
#define WIRE_FIXTURE_EVENTS 16
#define WIRE_FIXTURE_TEXT 256
#define WIRE_FIXTURE_HEAD 4096
#define WIRE_FIXTURE_HEADERS 32

struct wire_fixture {
    struct wire_reader wire;
    struct wire_config cfg;
    struct response_reader reader;
    struct response_scratch *scratch;
    char head[WIRE_FIXTURE_HEAD];
    char *body; /* body_cap bytes, on the heap so that ASan sees an overrun */
    struct record rec;
    struct record_event events[WIRE_FIXTURE_EVENTS];
    char text[WIRE_FIXTURE_TEXT];
    char reasoning[WIRE_FIXTURE_TEXT];
    struct wire_result result;
    bool generated; /* some read said the prefill ended */
};

/* wire_fixture_init readies f for one response of `type` with a body buffer of body_cap bytes.
 * Returns 0, or -1 when the reader or a buffer could not be set up. */
static inline int wire_fixture_init(struct wire_fixture *f, enum endpoint_type type,
                                    size_t body_cap)
{
    memset(f, 0, sizeof(*f));
    f->body = malloc(body_cap > 0 ? body_cap : 1);
    f->scratch = response_scratch_new(body_cap / 2 + 1);
    if (f->body == NULL || f->scratch == NULL ||
        response_reader_init(&f->reader, type, NULL, NULL, 0) != 0) {
        return -1;
    }
    f->cfg = (struct wire_config){
        .reader = &f->reader,
        .limits = {.max_events = WIRE_FIXTURE_EVENTS, .max_text_bytes = WIRE_FIXTURE_TEXT},
    };
    wire_reader_init(&f->wire, f->head, sizeof(f->head), WIRE_FIXTURE_HEADERS, f->body, body_cap,
                     f->scratch);
    wire_reader_reset(&f->wire);
    f->rec.events = f->events;
    f->rec.text = f->text;
    f->rec.reasoning_text = f->reasoning;
    f->rec.usage = RECORD_USAGE_NONE;
    return 0;
}

/* wire_fixture_feed hands data[0..len) to the reader as one read arriving at `at`. Returns false
 * once the request ended. */
static inline bool wire_fixture_feed(struct wire_fixture *f, const char *data, size_t len,
                                     int64_t at)
{
    wire_reader_feed(&f->wire, &f->cfg, data, len, at, &f->rec, &f->result);
    f->generated |= f->result.generated;
    return !f->result.ended;
}

static inline void wire_fixture_free(struct wire_fixture *f)
{
    free(f->body);
    response_scratch_free(f->scratch);
}

#endif
