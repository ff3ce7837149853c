/*
 * response_harness.h - test helper: feeds a response to http_response_feed() whole, byte by
 * byte, at every split point and (for short inputs) at every pair of split points, each
 * fragment placed right before a guard page, and checks that every way of splitting gives the
 * same trace of events, the same body bytes and the same number of unconsumed bytes.
 *
 * A trace is a space-separated list of tokens: "H<code><k|c>" for HTTP_HEADERS_DONE (k when
 * the connection may be kept alive), "B" for one or more consecutive HTTP_BODY events, "M"
 * for HTTP_MESSAGE_DONE and "E:<name>" for an error (names below). After an error the number
 * of consumed bytes is not compared, since it legitimately depends on the split.
 */
#ifndef RINGPERF_TESTS_HTTP_RESPONSE_HARNESS_H
#define RINGPERF_TESTS_HTTP_RESPONSE_HARNESS_H

#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/http.h"
#include "tests/support/guard.h"

enum {
    HARNESS_HEADER_CAP = 256,
    HARNESS_MAX_HEADERS = 8,
    HARNESS_TRACE_CAP = 256,
    HARNESS_BODY_CAP = 16384,
    HARNESS_INPUT_CAP = 16384,
    HARNESS_PAIR_SPLIT_MAX_LEN = 100,
};

static const char *const harness_error_names[HTTP_PARSE_STATUS_COUNT] = {
    [HTTP_ERR_BAD_STATUS_LINE] = "bad_status_line",
    [HTTP_ERR_BAD_VERSION] = "bad_version",
    [HTTP_ERR_BAD_HEADER] = "bad_header",
    [HTTP_ERR_HEADER_FOLDING] = "folding",
    [HTTP_ERR_HEADERS_TOO_LARGE] = "headers_too_large",
    [HTTP_ERR_TOO_MANY_HEADERS] = "too_many_headers",
    [HTTP_ERR_TOO_MANY_INTERIM] = "too_many_interim",
    [HTTP_ERR_UPGRADE] = "upgrade",
    [HTTP_ERR_BAD_CONTENT_LENGTH] = "bad_content_length",
    [HTTP_ERR_CONTENT_LENGTH_CONFLICT] = "content_length_conflict",
    [HTTP_ERR_BAD_TRANSFER_ENCODING] = "bad_transfer_encoding",
    [HTTP_ERR_BAD_CHUNK_SIZE] = "bad_chunk_size",
    [HTTP_ERR_CHUNK_SIZE_TOO_LONG] = "chunk_size_too_long",
    [HTTP_ERR_BAD_CHUNK_EXT] = "bad_chunk_ext",
    [HTTP_ERR_CHUNK_EXT_TOO_LONG] = "chunk_ext_too_long",
    [HTTP_ERR_BAD_CHUNK_END] = "bad_chunk_end",
    [HTTP_ERR_BAD_TRAILER] = "bad_trailer",
    [HTTP_ERR_TRAILER_TOO_LARGE] = "trailer_too_large",
    [HTTP_ERR_EOF_BEFORE_RESPONSE] = "eof_before_response",
    [HTTP_ERR_TRUNCATED] = "truncated",
};

/* response_case: one input and what parsing it must give. */
struct response_case {
    const char *name;
    const char *input;
    size_t len;
    bool eof;          /* call http_response_feed_eof() after the input */
    int messages;      /* responses on the input, reset between them; 0 means 1 */
    const char *trace; /* expected trace */
    const char *body;  /* expected body bytes of all messages, NULL for none */
    size_t leftover;   /* bytes not consumed after the last HTTP_MESSAGE_DONE */
};

#define IN(s) .input = (s), .len = sizeof(s) - 1

struct harness {
    struct guard_region frag;
    struct guard_region head;
    struct http_response_parser p;
    char *header_buf;
    bool head_request;
};

struct run {
    char trace[HARNESS_TRACE_CAP];
    size_t trace_len;
    char body[HARNESS_BODY_CAP];
    size_t body_len;
    size_t consumed;
    int messages_left;
    bool finished;
    bool last_body;
    bool errored;
};

static inline void harness_init(struct harness *h)
{
    memset(h, 0, sizeof(*h));
    guard_init(&h->frag, HARNESS_INPUT_CAP);
    guard_init(&h->head, HARNESS_HEADER_CAP);
    h->header_buf = guard_end(&h->head, HARNESS_HEADER_CAP);
}

static inline void harness_free(struct harness *h)
{
    guard_free(&h->frag);
    guard_free(&h->head);
}

static inline void trace_add(struct run *r, const char *tok)
{
    size_t n = strlen(tok);
    cr_assert_lt(r->trace_len + n + 2, sizeof(r->trace), "trace overflow");
    if (r->trace_len > 0) {
        r->trace[r->trace_len++] = ' ';
    }
    memcpy(r->trace + r->trace_len, tok, n + 1);
    r->trace_len += n;
}

/* Records one event and checks the feed contract for it: spans inside the consumed bytes,
 * no span without HTTP_BODY, progress for head and body events. */
static inline void record(struct harness *h, struct run *r, enum http_parse_status st,
                          const char *at, size_t consumed, const struct http_body_span *body)
{
    char tok[32];
    if (st != HTTP_BODY) {
        cr_assert(body->data == NULL && body->len == 0, "span without HTTP_BODY");
    }
    switch (st) {
    case HTTP_NEED_MORE:
        return;
    case HTTP_BODY:
        cr_assert_gt(body->len, 0, "empty HTTP_BODY");
        cr_assert(body->data >= at && body->data + body->len <= at + consumed,
                  "body span outside the consumed bytes");
        cr_assert_leq(r->body_len + body->len, sizeof(r->body));
        memcpy(r->body + r->body_len, body->data, body->len);
        r->body_len += body->len;
        if (!r->last_body) {
            trace_add(r, "B");
        }
        r->last_body = true;
        return;
    case HTTP_HEADERS_DONE:
        cr_assert_gt(consumed, 0);
        snprintf(tok, sizeof(tok), "H%d%c", http_response_status_code(&h->p),
                 http_response_keep_alive(&h->p) ? 'k' : 'c');
        break;
    case HTTP_MESSAGE_DONE:
        snprintf(tok, sizeof(tok), "M");
        break;
    default:
        cr_assert(http_parse_status_is_error(st), "unknown status %d", (int)st);
        snprintf(tok, sizeof(tok), "E:%s", harness_error_names[st]);
        r->errored = true;
        break;
    }
    trace_add(r, tok);
    r->last_body = false;
}

/* Errors are sticky: later calls return them again and consume nothing. */
static inline void expect_sticky(struct harness *h, enum http_parse_status st, const char *buf,
                                 size_t len)
{
    size_t consumed = 99;
    struct http_body_span body;
    cr_assert_eq(http_response_feed(&h->p, buf, len, &consumed, &body), st);
    cr_assert_eq(consumed, 0);
    cr_assert_eq(http_response_feed_eof(&h->p), st);
}

static inline void harness_parser_start(struct harness *h)
{
    http_response_parser_reset(&h->p);
    if (h->head_request) {
        http_response_parser_set_head_request(&h->p);
    }
}

/* After HTTP_MESSAGE_DONE: start the next response, or end the run. */
static inline bool next_message(struct harness *h, struct run *r, const char *rest, size_t n)
{
    if (--r->messages_left > 0) {
        harness_parser_start(h);
        return true;
    }
    expect_sticky(h, HTTP_MESSAGE_DONE, rest, n);
    r->finished = true;
    return false;
}

static inline void run_fragment(struct harness *h, struct run *r, const char *frag, size_t n)
{
    if (r->finished) {
        return;
    }
    const char *buf = guard_place(&h->frag, frag, n);
    size_t off = 0;
    for (size_t spins = 0;; spins++) {
        cr_assert_lt(spins, 4 * n + 16, "parser makes no progress");
        size_t consumed = SIZE_MAX;
        struct http_body_span body = {.data = buf, .len = SIZE_MAX};
        enum http_parse_status st = http_response_feed(&h->p, buf + off, n - off, &consumed, &body);
        cr_assert_leq(consumed, n - off);
        record(h, r, st, buf + off, consumed, &body);
        off += consumed;
        r->consumed += consumed;
        if (st == HTTP_NEED_MORE) {
            cr_assert_eq(off, n, "HTTP_NEED_MORE left bytes unconsumed");
            return;
        }
        if (st == HTTP_MESSAGE_DONE && !next_message(h, r, buf + off, n - off)) {
            return;
        }
        if (http_parse_status_is_error(st)) {
            expect_sticky(h, st, buf + off, n - off);
            r->finished = true;
            return;
        }
    }
}

static inline void run_cuts(struct harness *h, const struct response_case *c, const size_t *cuts,
                            size_t ncuts, struct run *r)
{
    memset(r, 0, sizeof(*r));
    r->messages_left = c->messages > 0 ? c->messages : 1;
    http_response_parser_init(&h->p, h->header_buf, HARNESS_HEADER_CAP, HARNESS_MAX_HEADERS);
    harness_parser_start(h);
    size_t start = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t end = i < ncuts ? cuts[i] : c->len;
        if (end > start) {
            run_fragment(h, r, c->input + start, end - start);
        }
        start = end;
    }
    if (!r->finished && c->eof) {
        struct http_body_span none = {0};
        enum http_parse_status st = http_response_feed_eof(&h->p);
        record(h, r, st, NULL, 0, &none);
        if (http_parse_status_is_error(st)) {
            expect_sticky(h, st, NULL, 0);
        }
    }
}

static inline void expect_run(const struct response_case *c, const struct run *r, const char *how)
{
    const char *body = c->body != NULL ? c->body : "";
    size_t body_len = strlen(body);
    cr_assert_str_eq(r->trace, c->trace, "%s (%s): trace \"%s\", expected \"%s\"", c->name, how,
                     r->trace, c->trace);
    cr_assert(r->body_len == body_len && memcmp(r->body, body, body_len) == 0,
              "%s (%s): body \"%.*s\", expected \"%s\"", c->name, how, (int)r->body_len, r->body,
              body);
    /* How far the parser got before an error depends on the split: only logs use it. */
    if (!r->errored) {
        cr_assert_eq(c->len - r->consumed, c->leftover, "%s (%s): %zu bytes left, expected %zu",
                     c->name, how, c->len - r->consumed, c->leftover);
    }
}

/* check_case runs c whole, byte by byte, at every split point and, when short, at every pair
 * of split points. */
static inline void check_case_with(struct harness *h, const struct response_case *c)
{
    struct run *r = malloc(sizeof(*r));
    size_t *cuts = malloc((c->len + 1) * sizeof(*cuts));
    char how[64];
    cr_assert(r != NULL && cuts != NULL);
    cr_assert_leq(c->len, HARNESS_INPUT_CAP);
    run_cuts(h, c, NULL, 0, r);
    expect_run(c, r, "whole");
    for (size_t i = 1; i < c->len; i++) {
        cuts[i - 1] = i;
    }
    run_cuts(h, c, cuts, c->len > 0 ? c->len - 1 : 0, r);
    expect_run(c, r, "byte by byte");
    for (size_t i = 1; i < c->len; i++) {
        cuts[0] = i;
        run_cuts(h, c, cuts, 1, r);
        snprintf(how, sizeof(how), "split at %zu", i);
        expect_run(c, r, how);
        for (size_t j = i + 1; c->len <= HARNESS_PAIR_SPLIT_MAX_LEN && j < c->len; j++) {
            cuts[1] = j;
            run_cuts(h, c, cuts, 2, r);
            snprintf(how, sizeof(how), "split at %zu and %zu", i, j);
            expect_run(c, r, how);
        }
    }
    free(cuts);
    free(r);
}

static inline void check_case(const struct response_case *c)
{
    struct harness h;
    harness_init(&h);
    check_case_with(&h, c);
    harness_free(&h);
}

static inline void check_cases(const struct response_case *cases, size_t n)
{
    struct harness h;
    harness_init(&h);
    for (size_t i = 0; i < n; i++) {
        check_case_with(&h, &cases[i]);
    }
    harness_free(&h);
}

#endif
