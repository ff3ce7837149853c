/*
 * fuzz_http_chunked.c - a fixed chunked response head followed by fuzzed body bytes.
 *
 * Input: one split-seed byte, one flags byte (EOF at the end), then the chunked body. The
 * parser's result is checked against a deliberately different, non-incremental reference
 * decoder of the same grammar and limits (see http.h), and parsing whole, at random split
 * points and byte by byte must agree.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http/http.h"
#include "tests/http/http_fuzz_driver.h"

#define HEAD "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
#define MAX_TRAILERS 4

enum ref_result { REF_DONE, REF_INCOMPLETE, REF_ERROR };

struct ref {
    const uint8_t *d;
    size_t n;
    size_t pos;
    uint8_t *body;
    size_t body_len;
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int hexval(uint8_t c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

static bool tchar(uint8_t c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static bool fieldchar(uint8_t c)
{
    return c == '\t' || (c >= 0x20 && c != 0x7f);
}

/* Parses "size [ws] [;ext] CRLF". Returns REF_DONE with *out_size on success. */
static enum ref_result ref_size_line(struct ref *r, uint64_t *out_size)
{
    uint64_t size = 0;
    size_t digits = 0;
    for (; r->pos < r->n && hexval(r->d[r->pos]) >= 0; r->pos++) {
        if (++digits > HTTP_CHUNK_SIZE_DIGITS_MAX) {
            return REF_ERROR;
        }
        size = size * 16 + (uint64_t)hexval(r->d[r->pos]);
    }
    if (r->pos == r->n) {
        return REF_INCOMPLETE;
    }
    if (digits == 0) {
        return REF_ERROR;
    }
    size_t tail_start = r->pos;
    bool ext_started = false;
    for (; r->pos < r->n && r->d[r->pos] != '\r'; r->pos++) {
        uint8_t c = r->d[r->pos];
        if (r->pos - tail_start >= HTTP_CHUNK_EXT_BYTES_MAX) {
            return REF_ERROR;
        }
        if (c == ';') {
            ext_started = true;
        } else if (!ext_started ? (c != ' ' && c != '\t') : !fieldchar(c)) {
            return REF_ERROR;
        }
    }
    if (r->pos == r->n) {
        return REF_INCOMPLETE;
    }
    if (r->pos > tail_start && !ext_started) {
        return REF_ERROR; /* whitespace, then CR */
    }
    if (++r->pos == r->n) {
        return REF_INCOMPLETE;
    }
    if (r->d[r->pos++] != '\n') {
        return REF_ERROR;
    }
    *out_size = size;
    return REF_DONE;
}

static enum ref_result ref_chunks(struct ref *r)
{
    for (;;) {
        uint64_t size = 0;
        enum ref_result res = ref_size_line(r, &size);
        if (res != REF_DONE || size == 0) {
            return res;
        }
        size_t avail = r->n - r->pos;
        size_t take = size < avail ? (size_t)size : avail;
        memcpy(r->body + r->body_len, r->d + r->pos, take);
        r->body_len += take;
        r->pos += take;
        if (take < size || r->pos == r->n) {
            return REF_INCOMPLETE;
        }
        if (r->d[r->pos++] != '\r') {
            return REF_ERROR;
        }
        if (r->pos == r->n) {
            return REF_INCOMPLETE;
        }
        if (r->d[r->pos++] != '\n') {
            return REF_ERROR;
        }
    }
}

/* Reads the next trailer byte into *c, enforcing the trailer size limit first. */
static enum ref_result ref_trailer_byte(struct ref *r, size_t start, uint8_t *c)
{
    if (r->pos == r->n) {
        return REF_INCOMPLETE;
    }
    if (r->pos - start >= HTTP_TRAILER_BYTES_MAX) {
        return REF_ERROR;
    }
    *c = r->d[r->pos++];
    return REF_DONE;
}

#define NEXT(c)                                                                                    \
    do {                                                                                           \
        enum ref_result res_ = ref_trailer_byte(r, start, &(c));                                   \
        if (res_ != REF_DONE) {                                                                    \
            return res_;                                                                           \
        }                                                                                          \
    } while (0)

static enum ref_result ref_trailers(struct ref *r)
{
    size_t start = r->pos;
    size_t count = 0;
    uint8_t c = 0;
    for (;;) {
        NEXT(c);
        if (c == '\n') {
            return REF_DONE;
        }
        if (c == '\r') {
            NEXT(c);
            return c == '\n' ? REF_DONE : REF_ERROR;
        }
        if (!tchar(c) || count++ >= MAX_TRAILERS) {
            return REF_ERROR;
        }
        do {
            NEXT(c);
            if (c != ':' && !tchar(c)) {
                return REF_ERROR;
            }
        } while (c != ':');
        do {
            NEXT(c);
            if (c == '\r') {
                NEXT(c);
                if (c != '\n') {
                    return REF_ERROR;
                }
            } else if (c != '\n' && !fieldchar(c)) {
                return REF_ERROR;
            }
        } while (c != '\n');
    }
}

static void check_against_reference(const struct fuzz_trace *t, const uint8_t *d, size_t n,
                                    bool eof)
{
    uint8_t *body = malloc(n + 1);
    FUZZ_CHECK(body != NULL);
    struct ref r = {.d = d, .n = n, .body = body};
    enum ref_result res = ref_chunks(&r);
    if (res == REF_DONE) {
        res = ref_trailers(&r);
    }
    FUZZ_CHECK(t->n_events >= 1 && t->events[0].status == HTTP_HEADERS_DONE);
    const struct fuzz_event *last = &t->events[t->n_events - 1];
    FUZZ_CHECK(t->body_len == r.body_len && memcmp(t->body, body, r.body_len) == 0);
    switch (res) {
    case REF_DONE:
        FUZZ_CHECK(last->status == HTTP_MESSAGE_DONE);
        FUZZ_CHECK(t->consumed == sizeof(HEAD) - 1 + r.pos);
        break;
    case REF_ERROR:
        FUZZ_CHECK(t->errored && last->status != HTTP_ERR_TRUNCATED);
        break;
    case REF_INCOMPLETE:
        if (eof) {
            FUZZ_CHECK(last->status == HTTP_ERR_TRUNCATED);
        } else {
            FUZZ_CHECK(!t->errored && last->status != HTTP_MESSAGE_DONE);
        }
        break;
    }
    free(body);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) {
        return 0;
    }
    uint64_t seed = ((uint64_t)data[0] + 1) * 0x9E3779B97F4A7C15ull;
    struct fuzz_options opt = {.header_cap = 128,
                               .max_headers = MAX_TRAILERS,
                               .eof = (data[1] & 1) != 0,
                               .max_messages = 1};
    data += 2;
    size -= 2;
    size_t total = sizeof(HEAD) - 1 + size;
    uint8_t *input = malloc(total);
    struct fuzz_trace whole;
    struct fuzz_trace other;
    whole.body = malloc(total + 1);
    other.body = malloc(total + 1);
    FUZZ_CHECK(input != NULL && whole.body != NULL && other.body != NULL);
    memcpy(input, HEAD, sizeof(HEAD) - 1);
    memcpy(input + sizeof(HEAD) - 1, data, size);
    fuzz_run(input, total, &opt, 0, 0, &whole);
    check_against_reference(&whole, data, size, opt.eof);
    fuzz_run(input, total, &opt, 0, seed, &other);
    fuzz_same_trace(&whole, &other);
    if (size <= 512) {
        fuzz_run(input, total, &opt, 1, 0, &other);
        fuzz_same_trace(&whole, &other);
    }
    free(input);
    free(whole.body);
    free(other.body);
    return 0;
}
