/*
 * http_fuzz_driver.h - shared by tests/fuzz/fuzz_http_*.c: feeds one input to the response
 * parser in fragments, each copied into its own exact-size heap block (so ASan catches any
 * over-read), checks the http_response_feed() contract on every call, and records a trace
 * that must not depend on how the input was split.
 */
#ifndef RINGPERF_TESTS_HTTP_FUZZ_DRIVER_H
#define RINGPERF_TESTS_HTTP_FUZZ_DRIVER_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/http.h"

enum { FUZZ_EVENTS_MAX = 64, FUZZ_MESSAGES_MAX = 16 };

#define FUZZ_CHECK(cond)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);           \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

struct fuzz_event {
    uint8_t status; /* enum http_parse_status; HTTP_BODY runs are merged */
    uint16_t code;
    bool keep_alive;
    bool event_stream;
    uint8_t framing;
};

struct fuzz_options {
    size_t header_cap;
    size_t max_headers;
    bool head_request;
    bool eof;
    int max_messages; /* responses parsed back to back before stopping; 0 means FUZZ_MESSAGES_MAX */
};

struct fuzz_trace {
    struct fuzz_event events[FUZZ_EVENTS_MAX];
    size_t n_events;
    uint8_t *body; /* capacity: the input size, since the body is never longer */
    size_t body_len;
    size_t consumed;
    int messages;
    bool finished;
    bool errored;
};

struct fuzz_state {
    struct http_response_parser p;
    char *header_buf;
    const struct fuzz_options *opt;
    struct fuzz_trace *t;
};

static inline uint64_t fuzz_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static inline void fuzz_add_event(struct fuzz_trace *t, struct fuzz_event e)
{
    FUZZ_CHECK(t->n_events < FUZZ_EVENTS_MAX);
    t->events[t->n_events++] = e;
}

/* Checks what the accessors return after HTTP_HEADERS_DONE. */
static inline void fuzz_check_head(struct fuzz_state *s)
{
    const struct http_response_parser *p = &s->p;
    const char *lo = s->header_buf;
    const char *hi = s->header_buf + s->opt->header_cap;
    int code = http_response_status_code(p);
    FUZZ_CHECK(code >= 200 && code <= 999);
    size_t len = 0;
    const char *reason = http_response_reason(p, &len);
    FUZZ_CHECK(len == 0 || (reason >= lo && reason + len <= hi));
    size_t cursor = 0;
    size_t count = 0;
    struct http_header h;
    while (http_response_header_next(p, &cursor, &h)) {
        FUZZ_CHECK(h.name_len > 0 && h.name >= lo && h.name + h.name_len <= hi);
        FUZZ_CHECK(h.value_len == 0 || (h.value >= lo && h.value + h.value_len <= hi));
        FUZZ_CHECK(memchr(h.value, '\r', h.value_len) == NULL);
        FUZZ_CHECK(memchr(h.value, '\n', h.value_len) == NULL);
        count++;
    }
    FUZZ_CHECK(count <= s->opt->max_headers);
    const char *v = NULL;
    (void)http_response_header(p, "content-type", &v, &len);
    enum http_body_framing f = http_response_framing(p);
    uint64_t cl = 0;
    FUZZ_CHECK(http_response_content_length(p, &cl) == (f == HTTP_FRAMING_LENGTH));
    FUZZ_CHECK(!(f == HTTP_FRAMING_UNTIL_CLOSE && http_response_keep_alive(p)));
    struct fuzz_event e = {HTTP_HEADERS_DONE, (uint16_t)code, http_response_keep_alive(p),
                           http_response_is_event_stream(p), (uint8_t)f};
    fuzz_add_event(s->t, e);
}

static inline void fuzz_expect_sticky(struct fuzz_state *s, enum http_parse_status st)
{
    size_t consumed = 1;
    struct http_body_span body;
    FUZZ_CHECK(http_response_feed(&s->p, "x", 1, &consumed, &body) == st && consumed == 0);
    FUZZ_CHECK(http_response_feed_eof(&s->p) == st);
}

/* Handles one non-body event; returns false when the run is over. */
static inline bool fuzz_event(struct fuzz_state *s, enum http_parse_status st)
{
    struct fuzz_trace *t = s->t;
    struct fuzz_event e = {(uint8_t)st, 0, false, false, 0};
    if (st == HTTP_HEADERS_DONE) {
        fuzz_check_head(s);
        return true;
    }
    fuzz_add_event(t, e);
    if (http_parse_status_is_error(st)) {
        fuzz_expect_sticky(s, st);
        t->errored = true;
        t->finished = true;
        return false;
    }
    /* HTTP_MESSAGE_DONE: pipeline into the next response like a keep-alive connection. */
    int max = s->opt->max_messages > 0 ? s->opt->max_messages : FUZZ_MESSAGES_MAX;
    if (++t->messages >= max) {
        fuzz_expect_sticky(s, HTTP_MESSAGE_DONE);
        t->finished = true;
        return false;
    }
    http_response_parser_reset(&s->p);
    if (s->opt->head_request) {
        http_response_parser_set_head_request(&s->p);
    }
    return true;
}

static inline void fuzz_fragment(struct fuzz_state *s, const uint8_t *data, size_t n)
{
    struct fuzz_trace *t = s->t;
    char *buf = malloc(n);
    FUZZ_CHECK(buf != NULL);
    memcpy(buf, data, n);
    size_t off = 0;
    for (size_t spins = 0; !t->finished; spins++) {
        FUZZ_CHECK(spins <= 2 * n + 2 * FUZZ_MESSAGES_MAX + 4);
        size_t consumed = SIZE_MAX;
        struct http_body_span body = {buf, SIZE_MAX};
        enum http_parse_status st = http_response_feed(&s->p, buf + off, n - off, &consumed, &body);
        FUZZ_CHECK(consumed <= n - off);
        FUZZ_CHECK(st == HTTP_BODY || (body.data == NULL && body.len == 0));
        if (st == HTTP_BODY) {
            FUZZ_CHECK(body.len > 0 && body.data >= buf + off);
            FUZZ_CHECK(body.data + body.len <= buf + off + consumed);
            memcpy(t->body + t->body_len, body.data, body.len);
            t->body_len += body.len;
            if (t->n_events == 0 || t->events[t->n_events - 1].status != HTTP_BODY) {
                struct fuzz_event e = {HTTP_BODY, 0, false, false, 0};
                fuzz_add_event(t, e);
            }
        }
        FUZZ_CHECK(st != HTTP_HEADERS_DONE || consumed > 0);
        off += consumed;
        t->consumed += consumed;
        if (st == HTTP_NEED_MORE) {
            FUZZ_CHECK(off == n);
            break;
        }
        if (st != HTTP_BODY && !fuzz_event(s, st)) {
            break;
        }
    }
    free(buf);
}

/* fuzz_run parses data[0..size) cut into fragments: of `piece` bytes when piece > 0, else at
 * pseudo-random points drawn from seed when seed > 0, else whole. t->body must have room for
 * size bytes. */
static inline void fuzz_run(const uint8_t *data, size_t size, const struct fuzz_options *opt,
                            size_t piece, uint64_t seed, struct fuzz_trace *t)
{
    static const size_t spans[] = {1, 2, 7, 64, 1024};
    uint8_t *body = t->body;
    memset(t, 0, sizeof(*t));
    t->body = body;
    struct fuzz_state s = {.opt = opt, .t = t};
    s.header_buf = malloc(opt->header_cap > 0 ? opt->header_cap : 1);
    FUZZ_CHECK(s.header_buf != NULL);
    http_response_parser_init(&s.p, s.header_buf, opt->header_cap, opt->max_headers);
    if (opt->head_request) {
        http_response_parser_set_head_request(&s.p);
    }
    size_t pos = 0;
    while (pos < size && !t->finished) {
        size_t n = size - pos;
        if (piece > 0) {
            n = piece < n ? piece : n;
        } else if (seed != 0) {
            size_t span = spans[fuzz_rand(&seed) % (sizeof(spans) / sizeof(spans[0]))];
            size_t pick = 1 + (size_t)(fuzz_rand(&seed) % span);
            n = pick < n ? pick : n;
        }
        fuzz_fragment(&s, data + pos, n);
        pos += n;
    }
    if (!t->finished && opt->eof) {
        enum http_parse_status st = http_response_feed_eof(&s.p);
        FUZZ_CHECK(st == HTTP_MESSAGE_DONE || http_parse_status_is_error(st));
        struct fuzz_event e = {(uint8_t)st, 0, false, false, 0};
        fuzz_add_event(t, e);
        if (http_parse_status_is_error(st)) {
            t->errored = true;
            fuzz_expect_sticky(&s, st);
        }
    }
    free(s.header_buf);
}

/* fuzz_same_trace aborts unless two runs of one input saw the same events and body bytes,
 * and (without an error) consumed the same number of bytes. */
static inline void fuzz_same_trace(const struct fuzz_trace *a, const struct fuzz_trace *b)
{
    FUZZ_CHECK(a->n_events == b->n_events);
    for (size_t i = 0; i < a->n_events; i++) {
        const struct fuzz_event *x = &a->events[i];
        const struct fuzz_event *y = &b->events[i];
        FUZZ_CHECK(x->status == y->status && x->code == y->code);
        FUZZ_CHECK(x->keep_alive == y->keep_alive && x->event_stream == y->event_stream);
        FUZZ_CHECK(x->framing == y->framing);
    }
    FUZZ_CHECK(a->body_len == b->body_len && memcmp(a->body, b->body, a->body_len) == 0);
    FUZZ_CHECK(a->errored == b->errored);
    FUZZ_CHECK(a->errored || a->consumed == b->consumed);
}

#endif
