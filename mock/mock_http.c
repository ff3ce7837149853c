/*
 * mock_http.c - the mock server's HTTP/1.1 request parser.
 *
 * Stateless and allocation-free: each call re-parses from the start of the request, which is
 * cheap because the header block is capped at MOCK__HEADER_BYTES_MAX and the body is never
 * scanned. Only what the mock needs is understood: the request line, Content-Length,
 * Transfer-Encoding (refused), Connection and X-Request-ID.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mock/mock_internal.h"

/* A Content-Length with more digits than this is over any body limit we accept. */
#define CONTENT_LENGTH_DIGITS_MAX 18

struct line {
    const char *p;
    size_t len;
};

static bool is_tchar(unsigned char ch)
{
    if ((ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')) {
        return true;
    }
    return ch != 0 && strchr("!#$%&'*+-.^_`|~", ch) != NULL;
}

static bool is_value_char(unsigned char ch)
{
    return ch == '\t' || (ch >= 0x20 && ch != 0x7f);
}

static unsigned char lower(unsigned char ch)
{
    return (ch >= 'A' && ch <= 'Z') ? (unsigned char)(ch + ('a' - 'A')) : ch;
}

static bool equals_nocase(const char *a, size_t a_len, const char *b);

/* contains_nocase reports whether `b` occurs in a[0..a_len) (ASCII case-insensitive). */
static bool contains_nocase(const char *a, size_t a_len, const char *b)
{
    size_t b_len = strlen(b);
    for (size_t i = 0; i + b_len <= a_len; i++) {
        if (equals_nocase(a + i, b_len, b)) {
            return true;
        }
    }
    return false;
}

static bool equals_nocase(const char *a, size_t a_len, const char *b)
{
    size_t b_len = strlen(b);
    if (a_len != b_len) {
        return false;
    }
    for (size_t i = 0; i < a_len; i++) {
        if (lower((unsigned char)a[i]) != lower((unsigned char)b[i])) {
            return false;
        }
    }
    return true;
}

/* next_line takes the line starting at *pos (terminated by LF, an optional CR before it
 * dropped). Returns false when no LF is found before `end`. */
static bool next_line(const char *buf, size_t end, size_t *pos, struct line *out)
{
    const char *nl = memchr(buf + *pos, '\n', end - *pos);
    if (nl == NULL) {
        return false;
    }
    size_t stop = (size_t)(nl - buf);
    out->p = buf + *pos;
    out->len = stop - *pos;
    if (out->len > 0 && out->p[out->len - 1] == '\r') {
        out->len--;
    }
    *pos = stop + 1;
    return true;
}

static enum mock__req_status fail(struct mock__request *out, enum mock__req_status status,
                                  const char *why)
{
    out->error = why;
    return status;
}

static enum mock__req_status parse_version(const char *v, size_t len, struct mock__request *out)
{
    if (len != 8 || memcmp(v, "HTTP/", 5) != 0 || v[6] != '.' || v[5] < '0' || v[5] > '9' ||
        v[7] < '0' || v[7] > '9') {
        return fail(out, MOCK__REQ_BAD, "malformed HTTP version in the request line");
    }
    if (v[5] != '1' || (v[7] != '0' && v[7] != '1')) {
        return fail(out, MOCK__REQ_VERSION_NOT_SUPPORTED, "only HTTP/1.0 and HTTP/1.1 are served");
    }
    out->minor_version = v[7] - '0';
    return MOCK__REQ_OK;
}

static enum mock__req_status parse_request_line(struct line l, struct mock__request *out)
{
    size_t i = 0;
    while (i < l.len && is_tchar((unsigned char)l.p[i])) {
        i++;
    }
    if (i == 0 || i > MOCK__METHOD_BYTES_MAX || i >= l.len || l.p[i] != ' ') {
        return fail(out, MOCK__REQ_BAD, "malformed method in the request line");
    }
    out->method = l.p;
    out->method_len = i;
    size_t target = ++i;
    while (i < l.len && (unsigned char)l.p[i] > 0x20 && (unsigned char)l.p[i] != 0x7f) {
        i++;
    }
    if (i == target || i >= l.len || l.p[i] != ' ' || l.p[target] != '/') {
        return fail(out, MOCK__REQ_BAD,
                    "malformed request target (expected a path such as /v1/models)");
    }
    out->path = l.p + target;
    const char *query = memchr(out->path, '?', i - target);
    out->path_len = query != NULL ? (size_t)(query - out->path) : i - target;
    i++;
    return parse_version(l.p + i, l.len - i, out);
}

/* Connection: a comma-separated token list; only close and keep-alive matter. */
static void parse_connection(const char *v, size_t len, bool *saw_close, bool *saw_keep_alive)
{
    size_t i = 0;
    while (i < len) {
        while (i < len && (v[i] == ' ' || v[i] == '\t' || v[i] == ',')) {
            i++;
        }
        size_t start = i;
        while (i < len && v[i] != ',' && v[i] != ' ' && v[i] != '\t') {
            i++;
        }
        if (equals_nocase(v + start, i - start, "close")) {
            *saw_close = true;
        } else if (equals_nocase(v + start, i - start, "keep-alive")) {
            *saw_keep_alive = true;
        }
    }
}

/* parse_content_length stores the value, or UINT64_MAX when it has too many digits. */
static bool parse_content_length(const char *v, size_t len, uint64_t *out)
{
    if (len == 0) {
        return false;
    }
    uint64_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (v[i] < '0' || v[i] > '9') {
            return false;
        }
        n = n * 10 + (uint64_t)(v[i] - '0');
    }
    *out = len > CONTENT_LENGTH_DIGITS_MAX ? UINT64_MAX : n;
    return true;
}

struct headers {
    const char *session_header; /* the name to look for, or NULL */
    bool has_length;
    bool has_transfer_encoding;
    bool saw_close;
    bool saw_keep_alive;
    uint64_t content_length;
};

static enum mock__req_status parse_header(struct line l, struct headers *h,
                                          struct mock__request *out)
{
    size_t i = 0;
    while (i < l.len && is_tchar((unsigned char)l.p[i])) {
        i++;
    }
    if (i == 0 || i >= l.len || l.p[i] != ':') {
        return fail(out, MOCK__REQ_BAD, "malformed header line");
    }
    size_t name_len = i++;
    while (i < l.len && (l.p[i] == ' ' || l.p[i] == '\t')) {
        i++;
    }
    size_t end = l.len;
    while (end > i && (l.p[end - 1] == ' ' || l.p[end - 1] == '\t')) {
        end--;
    }
    for (size_t k = i; k < end; k++) {
        if (!is_value_char((unsigned char)l.p[k])) {
            return fail(out, MOCK__REQ_BAD, "control character in a header value");
        }
    }
    const char *v = l.p + i;
    size_t v_len = end - i;
    if (equals_nocase(l.p, name_len, "content-length")) {
        uint64_t n = 0;
        if (!parse_content_length(v, v_len, &n) || (h->has_length && n != h->content_length)) {
            return fail(out, MOCK__REQ_BAD, "invalid Content-Length");
        }
        h->has_length = true;
        h->content_length = n;
    } else if (equals_nocase(l.p, name_len, "transfer-encoding")) {
        h->has_transfer_encoding = true;
    } else if (equals_nocase(l.p, name_len, "content-type")) {
        out->content_type = v;
        out->content_type_len = v_len;
    } else if (equals_nocase(l.p, name_len, "accept")) {
        out->accepts_event_stream = contains_nocase(v, v_len, "text/event-stream");
    } else if (equals_nocase(l.p, name_len, "connection")) {
        parse_connection(v, v_len, &h->saw_close, &h->saw_keep_alive);
    } else if (equals_nocase(l.p, name_len, "x-request-id")) {
        if (v_len > MOCK__REQUEST_ID_BYTES_MAX) {
            return fail(out, MOCK__REQ_HEADERS_TOO_LARGE, "X-Request-ID longer than 256 bytes");
        }
        out->request_id = v;
        out->request_id_len = v_len;
    }
    if (h->session_header != NULL && equals_nocase(l.p, name_len, h->session_header)) {
        out->has_session_header = true;
    }
    return MOCK__REQ_OK;
}

static bool method_needs_body(const struct mock__request *r)
{
    return equals_nocase(r->method, r->method_len, "post") ||
           equals_nocase(r->method, r->method_len, "put") ||
           equals_nocase(r->method, r->method_len, "patch");
}

static enum mock__req_status incomplete(size_t len, struct mock__request *out)
{
    if (len >= MOCK__HEADER_BYTES_MAX) {
        return fail(out, MOCK__REQ_HEADERS_TOO_LARGE, "header block larger than 16 KiB");
    }
    return MOCK__REQ_NEED_MORE;
}

/* parse_head parses the request line and headers; *pos ends after the blank line. */
static enum mock__req_status parse_head(const char *buf, size_t len, size_t *pos, struct headers *h,
                                        struct mock__request *out)
{
    size_t scan_end = len < MOCK__HEADER_BYTES_MAX ? len : MOCK__HEADER_BYTES_MAX;
    struct line l;
    /* Clients may send a stray CRLF after a body; RFC 9112 lets a server skip it. */
    while (*pos < scan_end && (buf[*pos] == '\r' || buf[*pos] == '\n')) {
        (*pos)++;
    }
    if (!next_line(buf, scan_end, pos, &l)) {
        return incomplete(len, out);
    }
    enum mock__req_status st = parse_request_line(l, out);
    if (st != MOCK__REQ_OK) {
        return st;
    }
    for (uint32_t count = 0;; count++) {
        if (!next_line(buf, scan_end, pos, &l)) {
            return incomplete(len, out);
        }
        if (l.len == 0) {
            return MOCK__REQ_OK;
        }
        if (count == MOCK__HEADERS_MAX) {
            return fail(out, MOCK__REQ_HEADERS_TOO_LARGE, "more than 64 header fields");
        }
        if (l.p[0] == ' ' || l.p[0] == '\t') {
            return fail(out, MOCK__REQ_BAD, "obsolete header line folding");
        }
        st = parse_header(l, h, out);
        if (st != MOCK__REQ_OK) {
            return st;
        }
    }
}

enum mock__req_status mock__request_parse(const char *buf, size_t len, size_t body_max_bytes,
                                          const char *session_header, struct mock__request *out,
                                          size_t *out_consumed)
{
    memset(out, 0, sizeof(*out));
    *out_consumed = 0;
    struct headers h = {.session_header = session_header};
    size_t pos = 0;
    enum mock__req_status st = parse_head(buf, len, &pos, &h, out);
    if (st != MOCK__REQ_OK) {
        return st;
    }
    if (h.has_transfer_encoding) {
        return fail(out, MOCK__REQ_LENGTH_REQUIRED,
                    "chunked request bodies are not supported; send Content-Length");
    }
    if (!h.has_length && method_needs_body(out)) {
        return fail(out, MOCK__REQ_LENGTH_REQUIRED, "a request body needs Content-Length");
    }
    if (h.content_length > body_max_bytes) {
        return fail(out, MOCK__REQ_BODY_TOO_LARGE,
                    "request body larger than the server's limit (--max-body-kb)");
    }
    if (len - pos < h.content_length) {
        out->size_needed = pos + (size_t)h.content_length;
        return MOCK__REQ_NEED_MORE;
    }
    out->keep_alive = out->minor_version == 1 ? !h.saw_close : (h.saw_keep_alive && !h.saw_close);
    out->head = buf;
    out->head_len = pos;
    out->body = buf + pos;
    out->body_len = (size_t)h.content_length;
    *out_consumed = pos + (size_t)h.content_length;
    return MOCK__REQ_OK;
}

int mock__req_status_code(enum mock__req_status status)
{
    switch (status) {
    case MOCK__REQ_BAD:
        return 400;
    case MOCK__REQ_LENGTH_REQUIRED:
        return 411;
    case MOCK__REQ_BODY_TOO_LARGE:
        return 413;
    case MOCK__REQ_HEADERS_TOO_LARGE:
        return 431;
    case MOCK__REQ_VERSION_NOT_SUPPORTED:
        return 505;
    case MOCK__REQ_OK:
    case MOCK__REQ_NEED_MORE:
        break;
    }
    return 0;
}
