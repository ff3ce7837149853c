/*
 * response_fixture.h - one response reader with the record it fills, on the stack: what the
 * response/ unit tests and its fuzz target both feed events and bodies into. Header only, so the
 * fuzz targets (which do not link the Criterion-based support library) can use it too.
 */
#ifndef RINGPERF_TESTS_SUPPORT_RESPONSE_FIXTURE_H
#define RINGPERF_TESTS_SUPPORT_RESPONSE_FIXTURE_H

#include <stddef.h>
#include <string.h>

#include "endpoint/endpoint.h"
#include "record/record.h"
#include "response/response.h"

/* Small on purpose: the limits on events and text are what the tests reach. */
#define RESPONSE_FIXTURE_EVENTS 8
#define RESPONSE_FIXTURE_TEXT 64

struct response_fixture {
    struct response_reader reader;
    struct response_parse_state state;
    struct response_limits limits;
    struct record rec;
    struct record_event events[RESPONSE_FIXTURE_EVENTS];
    char text[RESPONSE_FIXTURE_TEXT];
    char reasoning[RESPONSE_FIXTURE_TEXT];
    struct response_failure fail;
};

/* response_fixture_init readies f for one response of `type`, keeping at most max_events
 * (<= RESPONSE_FIXTURE_EVENTS) events and RESPONSE_FIXTURE_TEXT bytes of text. Returns
 * response_reader_init's result. */
static inline int response_fixture_init(struct response_fixture *f, enum endpoint_type type,
                                        size_t max_events)
{
    memset(f, 0, sizeof(*f));
    int rc = response_reader_init(&f->reader, type, NULL, NULL, 0);
    response_parse_state_reset(&f->state);
    f->limits =
        (struct response_limits){.max_events = max_events, .max_text_bytes = RESPONSE_FIXTURE_TEXT};
    f->rec.events = f->events;
    f->rec.text = f->text;
    f->rec.reasoning_text = f->reasoning;
    f->rec.usage = RECORD_USAGE_NONE;
    return rc;
}

#endif
