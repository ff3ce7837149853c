/*
 * engine_response.c - reading a response off the wire: HTTP framing, then SSE
 * events (or a whole body), each handed to response/, which folds it into
 * the request's record with AIPerf's stream rules; this file acts on what it
 * says (prefill done, request failed or finished).
 *
 * Every view here points into a receive buffer that is recycled when the read
 * has been handled, so whatever the record keeps (text, usage) is copied out.
 */
#include "engine/engine_conn.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static void append_body(struct engine__conn *c, const char *data, size_t len)
{
    size_t room = c->body_cap - c->body_len;
    if (len > room) {
        len = room;
        c->body_truncated = true;
    }
    memcpy(c->body + c->body_len, data, len);
    c->body_len += len;
}

/* take_step acts on what the response reader made of an event or a body:
 * generated text ends the request's prefill, a failure ends the request.
 * Returns false when the request ended. */
static bool take_step(struct engine__shard *shard, struct engine__conn *c, enum response_step step,
                      const struct response_failure *fail)
{
    if (step == RESPONSE_STEP_FAILED) {
        engine__fail(shard, c, fail->code, fail->type, fail->message);
        return false;
    }
    if (step == RESPONSE_STEP_GENERATED) {
        engine__prefill_done(shard, c);
    }
    return true;
}

static struct response_limits limits_of(const struct engine_config *config)
{
    return (struct response_limits){.max_events = config->max_events_per_request,
                                    .max_text_bytes = config->max_text_bytes};
}

/* on_sse_event returns false when the event ended the request. */
static bool on_sse_event(struct engine__shard *shard, struct engine__conn *c,
                         const struct sse_event *ev, int64_t arrival_ns, bool same_read)
{
    const struct engine_config *config = shard->config;
    struct response_limits limits = limits_of(config);
    struct response_failure fail;
    enum response_step step = response_read_event(config->reader, &c->parse_state, &limits, ev,
                                                  arrival_ns, same_read, c->record, &fail);
    return take_step(shard, c, step, &fail);
}

/* feed_sse returns false when the request ended. */
static bool feed_sse(struct engine__shard *shard, struct engine__conn *c, const char *data,
                     size_t len, int64_t arrival_ns, uint32_t *events_in_read)
{
    size_t pos = 0;
    while (pos < len) {
        size_t used = 0;
        struct sse_event ev;
        enum sse_status st = sse_parser_feed(&c->sse, data + pos, len - pos, &used, &ev);
        pos += used;
        if (st == SSE_NEED_MORE) {
            break;
        }
        if (st != SSE_EVENT) {
            char message[128];
            snprintf(message, sizeof(message), "server-sent events: %s", sse_status_name(st));
            engine__fail(shard, c, 502, "SSEParseError", message);
            return false;
        }
        if (!on_sse_event(shard, c, &ev, arrival_ns, *events_in_read > 0)) {
            return false;
        }
        (*events_in_read)++;
    }
    return true;
}

/* on_evs_line hands one line of a PayloadPart to the response reader as the data of an SSE
 * event, as AIPerf reads SageMaker's lines. Returns false when the request ended. */
static bool on_evs_line(struct engine__shard *shard, struct engine__conn *c, const char *line,
                        size_t len, int64_t arrival_ns, uint32_t *events_in_read)
{
    struct sse_event ev = {.data = "", .event_type = "", .id = "", .comment = ""};
    if (!evs_line_text(line, len, &ev.data, &ev.data_len)) {
        return true; /* a blank line */
    }
    ev.has_data = true;
    if (!on_sse_event(shard, c, &ev, arrival_ns, *events_in_read > 0)) {
        return false;
    }
    (*events_in_read)++;
    return true;
}

static bool header_is(const struct evs_message *m, const char *name, const char *value)
{
    const char *v = NULL;
    size_t n = 0;
    return evs_header_string(m, name, &v, &n) && n == strlen(value) && memcmp(v, value, n) == 0;
}

/* fail_evs_exception ends the request with an error or exception event's label
 * (:exception-type or :error-code) and text (:error-message, else the payload). */
static void fail_evs_exception(struct engine__shard *shard, struct engine__conn *c,
                               const struct evs_message *m)
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
    char type_z[64];
    char message[256];
    snprintf(type_z, sizeof(type_z), "%.*s", (int)type_len, type);
    snprintf(message, sizeof(message), "AWS event stream %.*s: %.*s", (int)type_len, type,
             (int)(text_len < 200 ? text_len : 200), text);
    engine__fail(shard, c, 502, type_z, message);
}

/* on_evs_message returns false when the message ended the request. */
static bool on_evs_message(struct engine__shard *shard, struct engine__conn *c,
                           const struct evs_message *m, int64_t arrival_ns,
                           uint32_t *events_in_read)
{
    if (header_is(m, ":message-type", "exception") || header_is(m, ":message-type", "error")) {
        fail_evs_exception(shard, c, m);
        return false;
    }
    if (!header_is(m, ":event-type", "PayloadPart")) {
        return true; /* other events carry no output */
    }
    for (size_t pos = 0;;) {
        const char *line = NULL;
        size_t len = 0;
        enum evs_line_status st =
            evs_lines_next(&c->evs_lines, m->payload, m->payload_len, &pos, &line, &len);
        if (st == EVS_LINE_NEED_MORE) {
            return true;
        }
        if (st == EVS_LINE_TOO_LONG) {
            engine__fail(shard, c, 502, "AwsEventStreamError",
                         "AWS event stream: a line of the payload outgrew the buffer");
            return false;
        }
        if (!on_evs_line(shard, c, line, len, arrival_ns, events_in_read)) {
            return false;
        }
    }
}

/* feed_evs returns false when the request ended. */
static bool feed_evs(struct engine__shard *shard, struct engine__conn *c, const char *data,
                     size_t len, int64_t arrival_ns, uint32_t *events_in_read)
{
    size_t pos = 0;
    while (pos < len) {
        size_t used = 0;
        struct evs_message m;
        enum evs_status st = evs_parser_feed(&c->evs, data + pos, len - pos, &used, &m);
        pos += used;
        if (st == EVS_NEED_MORE) {
            break;
        }
        if (st != EVS_MESSAGE) {
            engine__fail(shard, c, 502, "AwsEventStreamError", evs_status_name(st));
            return false;
        }
        if (!on_evs_message(shard, c, &m, arrival_ns, events_in_read)) {
            return false;
        }
    }
    return true;
}

/* finish_evs reads what the end of an event stream leaves: a truncated message is an error,
 * a last line without its '\n' an event. Returns false when the request ended. */
static bool finish_evs(struct engine__shard *shard, struct engine__conn *c, int64_t arrival_ns,
                       uint32_t *events_in_read)
{
    enum evs_status st = evs_parser_finish(&c->evs);
    if (st != EVS_NEED_MORE) {
        engine__fail(shard, c, 502, "AwsEventStreamError", evs_status_name(st));
        return false;
    }
    const char *line = NULL;
    size_t len = 0;
    return !evs_lines_finish(&c->evs_lines, &line, &len) ||
           on_evs_line(shard, c, line, len, arrival_ns, events_in_read);
}

static void finish_error_status(struct engine__shard *shard, struct engine__conn *c,
                                const char *body, size_t body_len)
{
    struct record *rec = c->record;
    size_t reason_len = 0;
    const char *reason = http_response_reason(&c->http, &reason_len);
    rec->error_code = rec->http_status;
    snprintf(rec->error_type, sizeof(rec->error_type), "%.*s", (int)reason_len, reason);
    response_error_message(shard->config->reader, body, body_len, rec->error_message,
                           sizeof(rec->error_message));
    engine__finish(shard, c, RECORD_ERROR, http_response_keep_alive(&c->http));
}

/* on_message_done ends the response. A body that is not an event stream is
 * `body` when it came whole in the read being handled (a view into the
 * receive buffer, not copied), else NULL and in c->body. */
static void on_message_done(struct engine__shard *shard, struct engine__conn *c, int64_t arrival_ns,
                            uint32_t *events_in_read, const char *body, size_t body_len)
{
    struct record *rec = c->record;
    bool keep = http_response_keep_alive(&c->http);
    rec->end_ns = arrival_ns;
    if (body != NULL && body_len > c->body_cap) {
        append_body(c, body, body_len); /* the same truncation as a body in pieces */
        body = NULL;
    }
    if (body == NULL) {
        body = c->body;
        body_len = c->body_len;
    }
    if (!c->status_ok) {
        finish_error_status(shard, c, body, body_len);
        return;
    }
    if (shard->config->discard_body) {
        engine__finish(shard, c, RECORD_SUCCESS, keep);
        return;
    }
    if (c->job.phase != ENGINE__JOB_NONE) {
        engine__job_answer(shard, c, body, body_len, arrival_ns, keep);
        return;
    }
    if (c->body_is_sse || c->body_is_evs) {
        struct sse_event ev;
        if (c->body_is_evs ? !finish_evs(shard, c, arrival_ns, events_in_read)
                           : sse_parser_finish(&c->sse, &ev) == SSE_EVENT &&
                                 !on_sse_event(shard, c, &ev, arrival_ns, *events_in_read > 0)) {
            return;
        }
        struct response_failure fail;
        if (!response_stream_ended_well(shard->config->reader, rec, &fail)) {
            engine__fail(shard, c, fail.code, fail.type, fail.message);
            return;
        }
        engine__finish(shard, c, RECORD_SUCCESS, keep);
        return;
    }
    if (c->body_truncated) {
        char message[128];
        snprintf(message, sizeof(message), "response body larger than %zu bytes", c->body_cap);
        engine__fail(shard, c, 502, "ResponseTooLarge", message);
        return;
    }
    struct response_limits limits = limits_of(shard->config);
    struct response_failure fail;
    enum response_step step = response_read_body(shard->config->reader, &c->parse_state, &limits,
                                                 body, body_len, arrival_ns, rec, &fail);
    if (!take_step(shard, c, step, &fail)) {
        return;
    }
    engine__finish(shard, c, RECORD_SUCCESS, keep);
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

static void on_headers(struct engine__shard *shard, struct engine__conn *c, int64_t arrival_ns)
{
    struct record *rec = c->record;
    rec->headers_ns = arrival_ns;
    rec->http_status = http_response_status_code(&c->http);
    c->status_ok = rec->http_status >= 200 && rec->http_status < 300;
    c->body_is_sse =
        c->status_ok && !shard->config->discard_body && http_response_is_event_stream(&c->http);
    if (c->body_is_sse) {
        /* Reset here rather than per request: most non-streamed requests never
         * touch the SSE parser. */
        sse_parser_reset(&c->sse);
    }
    c->body_is_evs = c->status_ok && !shard->config->discard_body && is_aws_event_stream(&c->http);
    if (c->body_is_evs) {
        /* The body buffer is free for a stream: half gathers split frames, half lines. */
        evs_parser_init(&c->evs, c->body, c->body_cap / 2);
        evs_lines_init(&c->evs_lines, c->body + c->body_cap / 2, c->body_cap / 2);
    }
}

void engine__response_bytes(struct engine__shard *shard, struct engine__conn *c, const char *data,
                            size_t len, int64_t arrival_ns)
{
    uint32_t events_in_read = 0;
    size_t off = 0;
    /* A body that arrives whole in this read is parsed where it lies; it is
     * copied to c->body only when it continues in a later read. */
    const char *body = NULL;
    size_t body_len = 0;
    c->response_started = true;
    struct record_http *http = &c->record->http;
    if (http->first_byte_ns == 0) {
        http->first_byte_ns = arrival_ns;
    }
    http->bytes_received += len;
    http->reads++;
    /* Call again after every event, even with nothing left: a response that
     * ends exactly at a body boundary reports its end on that call. */
    for (;;) {
        size_t used = 0;
        struct http_body_span span = {0};
        enum http_parse_status st =
            http_response_feed(&c->http, data + off, len - off, &used, &span);
        off += used;
        switch (st) {
        case HTTP_NEED_MORE:
            if (body != NULL) {
                append_body(c, body, body_len);
            }
            return;
        case HTTP_HEADERS_DONE:
            on_headers(shard, c, arrival_ns);
            break;
        case HTTP_BODY:
            if (c->body_is_sse || c->body_is_evs) {
                bool going =
                    c->body_is_evs
                        ? feed_evs(shard, c, span.data, span.len, arrival_ns, &events_in_read)
                        : feed_sse(shard, c, span.data, span.len, arrival_ns, &events_in_read);
                if (!going) {
                    return;
                }
            } else if (c->job.phase == ENGINE__JOB_DOWNLOAD) {
                /* The video itself: counted in bytes_received, not kept. */
            } else if (body == NULL && c->body_len == 0) {
                body = span.data;
                body_len = span.len;
            } else {
                if (body != NULL) {
                    append_body(c, body, body_len);
                    body = NULL;
                }
                append_body(c, span.data, span.len);
            }
            break;
        case HTTP_MESSAGE_DONE:
            on_message_done(shard, c, arrival_ns, &events_in_read, body, body_len);
            if (off < len && (c->record == NULL || c->job.waiting) && c->fd >= 0) {
                /* We never pipeline, so bytes after a response are a broken
                 * server: drop the connection rather than misread them. */
                engine__close_socket(shard, c);
            }
            return;
        default: {
            char message[128];
            snprintf(message, sizeof(message), "malformed HTTP response: %s",
                     http_parse_status_name(st));
            engine__fail(shard, c, 502, "HTTPResponseError", message);
            return;
        }
        }
    }
}

bool engine__response_eof(struct engine__shard *shard, struct engine__conn *c)
{
    enum http_parse_status st = http_response_feed_eof(&c->http);
    if (st != HTTP_MESSAGE_DONE) {
        return false;
    }
    uint32_t events_in_read = 1;
    on_message_done(shard, c, engine_now_ns(), &events_in_read, NULL, 0);
    return true;
}
