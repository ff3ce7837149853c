/*
 * wire.c - one HTTP response's bytes into its request's record (see wire.h): the framing, then
 * SSE events, AWS event-stream lines or a whole body, each handed to response/.
 */
#include "wire/wire.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* read_state is one call's context: the run's settings, the request, the read's arrival time,
 * how many events the read has carried so far (later ones share its read), and the result. */
struct read_state {
    struct wire_reader *w;
    const struct wire_config *cfg;
    struct record *rec;
    int64_t arrival_ns;
    uint32_t events_in_read;
    struct wire_result *out;
};

static void end_request(struct read_state *s, enum record_outcome outcome, bool keep_alive)
{
    s->out->ended = true;
    s->out->outcome = outcome;
    s->out->keep_alive = keep_alive;
}

/* fail ends the request with a failure the record does not hold yet. */
static void fail(struct read_state *s, int code, const char *type, const char *message)
{
    s->out->failed = true;
    s->out->failure.code = code;
    s->out->failure.type = type;
    snprintf(s->out->failure.message, sizeof(s->out->failure.message), "%s", message);
    end_request(s, RECORD_ERROR, false);
}

/* body_grow makes w's body buffer hold `need` bytes, doubling, at most body_max; its contents
 * stay. False (the buffer as it was) when it cannot. */
static bool body_grow(struct wire_reader *w, size_t need)
{
    if (need <= w->body_cap) {
        return true;
    }
    if (need > w->body_max) {
        return false;
    }
    size_t cap = w->body_cap;
    while (cap < need) {
        cap = cap * 2 < w->body_max ? cap * 2 : w->body_max;
    }
    char *grown = realloc(w->body, cap);
    if (grown == NULL) {
        return false;
    }
    w->body = grown;
    w->body_cap = cap;
    return true;
}

/* sse_grow is the SSE parser's grow function over the body buffer it shares with w. */
static bool sse_grow(void *ctx, size_t need, char **scratch, size_t *cap)
{
    struct wire_reader *w = ctx;
    if (!body_grow(w, need)) {
        return false;
    }
    *scratch = w->body;
    *cap = w->body_cap;
    return true;
}

static void append_body(struct wire_reader *w, const char *data, size_t len)
{
    size_t room = w->body_cap - w->body_len;
    if (len > room && body_grow(w, w->body_len + len)) {
        room = w->body_cap - w->body_len;
    }
    if (len > room) {
        len = room;
        w->body_truncated = true;
    }
    memcpy(w->body + w->body_len, data, len);
    w->body_len += len;
}

/* take_step acts on what the response reader made of an event or a body. Returns false when
 * the request ended. */
static bool take_step(struct read_state *s, enum response_step step,
                      const struct response_failure *failure)
{
    if (step == RESPONSE_STEP_FAILED) {
        s->out->failed = true;
        s->out->failure = *failure;
        end_request(s, RECORD_ERROR, false);
        return false;
    }
    if (step == RESPONSE_STEP_GENERATED) {
        s->out->generated = true;
    }
    return true;
}

/* on_event reads one SSE event (or one line of an AWS PayloadPart, which AIPerf reads as the
 * data of one). Returns false when it ended the request. */
static bool on_event(struct read_state *s, const struct sse_event *ev)
{
    struct response_failure failure;
    enum response_step step =
        response_read_event(s->cfg->reader, &s->w->parse_state, &s->cfg->limits, ev, s->arrival_ns,
                            s->events_in_read > 0, s->rec, &failure);
    s->events_in_read++;
    return take_step(s, step, &failure);
}

/* feed_sse returns false when the request ended. */
static bool feed_sse(struct read_state *s, const char *data, size_t len)
{
    size_t pos = 0;
    while (pos < len) {
        size_t used = 0;
        struct sse_event ev;
        enum sse_status st = sse_parser_feed(&s->w->sse, data + pos, len - pos, &used, &ev);
        pos += used;
        if (st == SSE_NEED_MORE) {
            break;
        }
        if (st != SSE_EVENT) {
            char message[128];
            snprintf(message, sizeof(message), "server-sent events: %s", sse_status_name(st));
            fail(s, 502, "SSEParseError", message);
            return false;
        }
        if (!on_event(s, &ev)) {
            return false;
        }
    }
    return true;
}

/* on_evs_line hands one line of a PayloadPart to the response reader as the data of an SSE
 * event, as AIPerf reads SageMaker's lines. Returns false when the request ended. */
static bool on_evs_line(struct read_state *s, const char *line, size_t len)
{
    struct sse_event ev = {.data = "", .event_type = "", .id = "", .comment = ""};
    if (!evs_line_text(line, len, &ev.data, &ev.data_len)) {
        return true; /* a blank line */
    }
    ev.has_data = true;
    return on_event(s, &ev);
}

static bool header_is(const struct evs_message *m, const char *name, const char *value)
{
    const char *v = NULL;
    size_t n = 0;
    return evs_header_string(m, name, &v, &n) && n == strlen(value) && memcmp(v, value, n) == 0;
}

/* fail_evs_exception ends the request with an error or exception event's label
 * (:exception-type or :error-code) and text (:error-message, else the payload). */
static void fail_evs_exception(struct read_state *s, const struct evs_message *m)
{
    const char *type = "AwsEventStreamError";
    size_t type_len = strlen(type);
    const char *text = (const char *)m->payload;
    size_t text_len = m->payload_len;
    if (!evs_header_string(m, ":exception-type", &type, &type_len)) {
        evs_header_string(m, ":error-code", &type, &type_len);
    }
    evs_header_string(m, ":error-message", &text, &text_len);
    while (text_len > 0 && (text[text_len - 1] == '\n' || text[text_len - 1] == '\r')) {
        text_len--;
    }
    char message[256];
    snprintf(message, sizeof(message), "AWS event stream %.*s: %.*s", (int)type_len, type,
             (int)(text_len < 200 ? text_len : 200), text);
    /* The label is the server's, in the read: the result keeps its own copy. */
    snprintf(s->out->failure_type, sizeof(s->out->failure_type), "%.*s", (int)type_len, type);
    fail(s, 502, s->out->failure_type, message);
}

/* on_evs_message returns false when the message ended the request. */
static bool on_evs_message(struct read_state *s, const struct evs_message *m)
{
    if (header_is(m, ":message-type", "exception") || header_is(m, ":message-type", "error")) {
        fail_evs_exception(s, m);
        return false;
    }
    if (!header_is(m, ":event-type", "PayloadPart")) {
        return true; /* other events carry no output */
    }
    for (size_t pos = 0;;) {
        const char *line = NULL;
        size_t len = 0;
        enum evs_line_status st =
            evs_lines_next(&s->w->evs_lines, m->payload, m->payload_len, &pos, &line, &len);
        if (st == EVS_LINE_NEED_MORE) {
            return true;
        }
        if (st == EVS_LINE_TOO_LONG) {
            fail(s, 502, "AwsEventStreamError",
                 "AWS event stream: a line of the payload outgrew the buffer");
            return false;
        }
        if (!on_evs_line(s, line, len)) {
            return false;
        }
    }
}

/* feed_evs returns false when the request ended. */
static bool feed_evs(struct read_state *s, const char *data, size_t len)
{
    size_t pos = 0;
    while (pos < len) {
        size_t used = 0;
        struct evs_message m;
        enum evs_status st = evs_parser_feed(&s->w->evs, data + pos, len - pos, &used, &m);
        pos += used;
        if (st == EVS_NEED_MORE) {
            break;
        }
        if (st != EVS_MESSAGE) {
            fail(s, 502, "AwsEventStreamError", evs_status_name(st));
            return false;
        }
        if (!on_evs_message(s, &m)) {
            return false;
        }
    }
    return true;
}

/* finish_evs reads what the end of an event stream leaves: a truncated message is an error,
 * a last line without its '\n' an event. Returns false when the request ended. */
static bool finish_evs(struct read_state *s)
{
    enum evs_status st = evs_parser_finish(&s->w->evs);
    if (st != EVS_NEED_MORE) {
        fail(s, 502, "AwsEventStreamError", evs_status_name(st));
        return false;
    }
    const char *line = NULL;
    size_t len = 0;
    return !evs_lines_finish(&s->w->evs_lines, &line, &len) || on_evs_line(s, line, len);
}

/* finish_stream ends an event stream: its last event (one without a closing blank line), then
 * AIPerf's checks on how the stream ended. */
static void finish_stream(struct read_state *s, bool keep_alive)
{
    struct wire_reader *w = s->w;
    struct sse_event ev;
    if (w->body_is_evs ? !finish_evs(s)
                       : sse_parser_finish(&w->sse, &ev) == SSE_EVENT && !on_event(s, &ev)) {
        return;
    }
    struct response_failure failure;
    if (!response_stream_ended_well(s->cfg->reader, s->rec, &failure)) {
        take_step(s, RESPONSE_STEP_FAILED, &failure);
        return;
    }
    end_request(s, RECORD_SUCCESS, keep_alive);
}

static void finish_error_status(struct read_state *s, const char *body, size_t body_len,
                                bool keep_alive)
{
    struct record *rec = s->rec;
    size_t reason_len = 0;
    const char *reason = http_response_reason(&s->w->http, &reason_len);
    rec->error_code = rec->http_status;
    snprintf(rec->error_type, sizeof(rec->error_type), "%.*s", (int)reason_len, reason);
    response_error_message(s->cfg->reader, body, body_len, rec->error_message,
                           sizeof(rec->error_message));
    end_request(s, RECORD_ERROR, keep_alive);
}

/* discards reports whether a 2xx body is counted but not kept: a probe's (discard_body) or a
 * download's (WIRE_BODY_DISCARD). */
static bool discards(const struct read_state *s)
{
    return s->w->status_ok && (s->cfg->discard_body || s->w->body_mode == WIRE_BODY_DISCARD);
}

/* on_message_done ends the response. A body that is not an event stream is `body` when it came
 * whole in the read being handled (a view into the read, not copied), else NULL and in w->body. */
static void on_message_done(struct read_state *s, const char *body, size_t body_len)
{
    struct wire_reader *w = s->w;
    bool keep_alive = http_response_keep_alive(&w->http);
    s->rec->end_ns = s->arrival_ns;
    if (body != NULL && body_len > w->body_max) {
        append_body(w, body, body_len); /* the same truncation as a body in pieces */
        body = NULL;
    }
    if (body == NULL) {
        body = w->body;
        body_len = w->body_len;
    }
    if (!w->status_ok) {
        finish_error_status(s, body, body_len, keep_alive);
    } else if (discards(s)) {
        end_request(s, RECORD_SUCCESS, keep_alive);
    } else if (w->body_is_sse || w->body_is_evs) {
        finish_stream(s, keep_alive);
    } else if (w->body_truncated) {
        char message[128];
        snprintf(message, sizeof(message), "response body larger than %zu bytes", w->body_max);
        fail(s, 502, "ResponseTooLarge", message);
    } else if (w->body_mode == WIRE_BODY_HAND_OVER) {
        s->out->body = body;
        s->out->body_len = body_len;
        end_request(s, RECORD_SUCCESS, keep_alive);
    } else {
        struct response_failure failure;
        enum response_step step =
            response_read_body(s->cfg->reader, &w->parse_state, &s->cfg->limits, body, body_len,
                               s->arrival_ns, s->rec, &failure);
        if (take_step(s, step, &failure)) {
            end_request(s, RECORD_SUCCESS, keep_alive);
        }
    }
}

/* is_aws_event_stream: Content-Type application/vnd.amazon.eventstream (case-insensitive,
 * parameters allowed), SageMaker's and Bedrock's streamed replies. */
static bool is_aws_event_stream(const struct http_response_parser *http)
{
    static const char type[] = "application/vnd.amazon.eventstream";
    const char *v = NULL;
    size_t n = 0;
    if (!http_response_header(http, "content-type", &v, &n) || n < sizeof(type) - 1 ||
        strncasecmp(v, type, sizeof(type) - 1) != 0) {
        return false;
    }
    return n == sizeof(type) - 1 || v[sizeof(type) - 1] == ';' || v[sizeof(type) - 1] == ' ';
}

static void on_headers(struct read_state *s)
{
    struct wire_reader *w = s->w;
    s->rec->headers_ns = s->arrival_ns;
    s->rec->http_status = http_response_status_code(&w->http);
    w->status_ok = s->rec->http_status >= 200 && s->rec->http_status < 300;
    bool streams = w->status_ok && !discards(s) && w->body_mode == WIRE_BODY_READ;
    w->body_is_sse = streams && http_response_is_event_stream(&w->http);
    if (w->body_is_sse) {
        /* Set up here rather than per request: most non-streamed requests never touch it.
         * Afresh over the body buffer as it is now: a whole body may have grown (moved) it. */
        sse_parser_init(&w->sse, w->body, w->body_cap);
        sse_parser_set_grow(&w->sse, w->body_max > w->body_cap ? sse_grow : NULL, w);
    }
    w->body_is_evs = streams && is_aws_event_stream(&w->http);
    if (w->body_is_evs) {
        /* The body buffer is free for a stream: half gathers split frames, half lines. */
        evs_parser_init(&w->evs, w->body, w->body_cap / 2);
        evs_lines_init(&w->evs_lines, w->body + w->body_cap / 2, w->body_cap / 2);
    }
}

/* on_body takes one span of the body. A body that arrives whole in this read is read where it
 * lies (*whole); it is copied to w->body only when it continues in a later read. Returns false
 * when the request ended. */
static bool on_body(struct read_state *s, const struct http_body_span *span, const char **whole,
                    size_t *whole_len)
{
    struct wire_reader *w = s->w;
    if (w->body_is_sse) {
        return feed_sse(s, span->data, span->len);
    }
    if (w->body_is_evs) {
        return feed_evs(s, span->data, span->len);
    }
    if (discards(s)) {
        return true; /* counted in the record's bytes, not kept */
    }
    if (*whole == NULL && w->body_len == 0) {
        *whole = span->data;
        *whole_len = span->len;
        return true;
    }
    if (*whole != NULL) {
        append_body(w, *whole, *whole_len);
        *whole = NULL;
    }
    append_body(w, span->data, span->len);
    return true;
}

void wire_reader_init(struct wire_reader *w, char *head, size_t head_cap, size_t max_headers,
                      char *body, size_t body_cap, struct response_scratch *scratch)
{
    memset(w, 0, sizeof(*w));
    http_response_parser_init(&w->http, head, head_cap, max_headers);
    sse_parser_init(&w->sse, body, body_cap);
    w->parse_state.scratch = scratch;
    w->body = body;
    w->body_cap = body_cap;
    w->body_max = body_cap;
}

void wire_reader_set_body_max(struct wire_reader *w, size_t body_max)
{
    w->body_max = body_max > w->body_cap ? body_max : w->body_cap;
    sse_parser_set_grow(&w->sse, w->body_max > w->body_cap ? sse_grow : NULL, w);
}

void wire_reader_reset(struct wire_reader *w)
{
    response_parse_state_reset(&w->parse_state);
    http_response_parser_reset(&w->http);
    w->body_len = 0;
    w->body_truncated = false;
    w->body_is_sse = false;
    w->body_is_evs = false;
    w->status_ok = false;
    w->body_mode = WIRE_BODY_READ;
}

void wire_reader_feed(struct wire_reader *w, const struct wire_config *cfg, const char *data,
                      size_t len, int64_t arrival_ns, struct record *rec, struct wire_result *out)
{
    memset(out, 0, offsetof(struct wire_result, failure));
    struct read_state s = {.w = w, .cfg = cfg, .rec = rec, .arrival_ns = arrival_ns, .out = out};
    if (rec->http.first_byte_ns == 0) {
        rec->http.first_byte_ns = arrival_ns;
    }
    rec->http.bytes_received += len;
    rec->http.reads++;
    const char *whole = NULL;
    size_t whole_len = 0;
    /* Call again after every event, even with nothing left: a response that ends exactly at a
     * body boundary reports its end on that call. */
    for (size_t off = 0;;) {
        size_t used = 0;
        struct http_body_span span = {0};
        enum http_parse_status st =
            http_response_feed(&w->http, data + off, len - off, &used, &span);
        off += used;
        if (st == HTTP_NEED_MORE) {
            if (whole != NULL) {
                append_body(w, whole, whole_len);
            }
            return;
        }
        if (st == HTTP_HEADERS_DONE) {
            on_headers(&s);
        } else if (st == HTTP_BODY) {
            if (!on_body(&s, &span, &whole, &whole_len)) {
                return;
            }
        } else if (st == HTTP_MESSAGE_DONE) {
            on_message_done(&s, whole, whole_len);
            /* We never pipeline: bytes after a response are a broken server's, and the
             * connection is not to be reused. */
            out->trailing = off < len;
            out->keep_alive &= !out->trailing;
            return;
        } else {
            char message[128];
            snprintf(message, sizeof(message), "malformed HTTP response: %s",
                     http_parse_status_name(st));
            fail(&s, 502, "HTTPResponseError", message);
            return;
        }
    }
}

bool wire_reader_eof(struct wire_reader *w, const struct wire_config *cfg, int64_t now_ns,
                     struct record *rec, struct wire_result *out)
{
    memset(out, 0, offsetof(struct wire_result, failure));
    if (http_response_feed_eof(&w->http) != HTTP_MESSAGE_DONE) {
        return false;
    }
    /* The close is not a read of its own: a last event it completes shares the last read. */
    struct read_state s = {
        .w = w, .cfg = cfg, .rec = rec, .arrival_ns = now_ns, .events_in_read = 1, .out = out};
    on_message_done(&s, NULL, 0);
    return true;
}
