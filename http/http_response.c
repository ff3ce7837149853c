/*
 * http_response.c - the response parser's state machine: head collection, framing dispatch,
 * end of stream, and the small accessors.
 */
#include <string.h>

#include "http/http.h"
#include "http/http_internal.h"

static const char *const status_names[HTTP_PARSE_STATUS_COUNT] = {
    [HTTP_NEED_MORE] = "need more input",
    [HTTP_HEADERS_DONE] = "headers done",
    [HTTP_BODY] = "body",
    [HTTP_MESSAGE_DONE] = "message done",
    [HTTP_ERR_BAD_STATUS_LINE] = "malformed status line",
    [HTTP_ERR_BAD_VERSION] = "unsupported HTTP version",
    [HTTP_ERR_BAD_HEADER] = "malformed header field",
    [HTTP_ERR_HEADER_FOLDING] = "obsolete header line folding",
    [HTTP_ERR_HEADERS_TOO_LARGE] = "response head too large",
    [HTTP_ERR_TOO_MANY_HEADERS] = "too many header fields",
    [HTTP_ERR_TOO_MANY_INTERIM] = "too many 1xx interim responses",
    [HTTP_ERR_UPGRADE] = "unexpected 101 protocol upgrade",
    [HTTP_ERR_BAD_CONTENT_LENGTH] = "malformed Content-Length",
    [HTTP_ERR_CONTENT_LENGTH_CONFLICT] = "conflicting Content-Length values",
    [HTTP_ERR_BAD_TRANSFER_ENCODING] = "malformed Transfer-Encoding",
    [HTTP_ERR_BAD_CHUNK_SIZE] = "malformed chunk size line",
    [HTTP_ERR_CHUNK_SIZE_TOO_LONG] = "chunk size has too many digits",
    [HTTP_ERR_BAD_CHUNK_EXT] = "malformed chunk extension",
    [HTTP_ERR_CHUNK_EXT_TOO_LONG] = "chunk extension too long",
    [HTTP_ERR_BAD_CHUNK_END] = "chunk data not followed by CRLF",
    [HTTP_ERR_BAD_TRAILER] = "malformed trailer field",
    [HTTP_ERR_TRAILER_TOO_LARGE] = "trailer section too large",
    [HTTP_ERR_EOF_BEFORE_RESPONSE] = "connection closed before response",
    [HTTP_ERR_TRUNCATED] = "connection closed mid-response",
};

bool http_parse_status_is_error(enum http_parse_status s)
{
    return s >= HTTP_ERR_FIRST;
}

const char *http_parse_status_name(enum http_parse_status s)
{
    if ((unsigned)s >= HTTP_PARSE_STATUS_COUNT || status_names[s] == NULL) {
        return "unknown HTTP parse status";
    }
    return status_names[s];
}

void http_response_parser_init(struct http_response_parser *p, char *header_buf, size_t header_cap,
                               size_t max_headers)
{
    memset(p, 0, sizeof(*p));
    p->header_buf = header_buf;
    p->header_cap = header_buf != NULL ? header_cap : 0;
    p->max_headers = max_headers;
}

void http_response_parser_reset(struct http_response_parser *p)
{
    http_response_parser_init(p, p->header_buf, p->header_cap, p->max_headers);
}

void http_response_parser_set_head_request(struct http_response_parser *p)
{
    p->head_request = true;
}

/* The status line is checked as it arrives so that a peer speaking something else (TLS, a
 * banner) fails at once rather than after header_cap bytes or a timeout. Checked before the
 * size limit so the error does not depend on how the bytes were split. */
static bool head_prefix_ok(const struct http_response_parser *p, const char *seg, size_t len)
{
    static const char prefix[] = "HTTP/";
    if (p->line_start != 0 || p->head_len >= sizeof(prefix) - 1) {
        return true;
    }
    size_t want = sizeof(prefix) - 1 - p->head_len;
    return memcmp(seg, prefix + p->head_len, len < want ? len : want) == 0;
}

/* Called once the empty line that ends a head has been parsed. Returns HTTP_NEED_MORE after
 * skipping a 1xx interim response, HTTP_HEADERS_DONE after a final one, or an error. */
static enum http_parse_status finish_head(struct http_response_parser *p)
{
    if (p->status_code == 101) {
        return HTTP_ERR_UPGRADE;
    }
    if (p->status_code < 200) {
        if (p->interim_count >= HTTP_INTERIM_RESPONSES_MAX) {
            return HTTP_ERR_TOO_MANY_INTERIM;
        }
        p->interim_count++;
        p->head_len = 0;
        p->line_start = 0;
        return HTTP_NEED_MORE;
    }
    p->head_done = true;
    p->remaining = 0;
    switch (p->framing) {
    case HTTP_FRAMING_LENGTH:
        p->remaining = p->content_length;
        p->state = p->content_length > 0 ? HTTP__BODY_LENGTH : HTTP__DONE;
        break;
    case HTTP_FRAMING_CHUNKED:
        p->state = HTTP__CHUNK_SIZE;
        break;
    case HTTP_FRAMING_UNTIL_CLOSE:
        p->state = HTTP__BODY_UNTIL_CLOSE;
        break;
    default:
        p->state = HTTP__DONE;
        break;
    }
    return HTTP_HEADERS_DONE;
}

/* Copies head bytes line by line (memchr for LF) so nothing past the empty line that ends the
 * head is consumed: those bytes are body and stay in the caller's buffer. Each line is parsed
 * as soon as its LF arrives, so a head is read in one pass. */
static enum http_parse_status feed_head(struct http_response_parser *p, const char *buf, size_t len,
                                        size_t *out_consumed)
{
    size_t pos = 0;
    enum http_parse_status st = HTTP_NEED_MORE;
    while (pos < len && st == HTTP_NEED_MORE) {
        const char *start = buf + pos;
        const char *nl = memchr(start, '\n', len - pos);
        size_t seg = nl != NULL ? (size_t)(nl - start) + 1 : len - pos;
        if (!head_prefix_ok(p, start, seg)) {
            st = HTTP_ERR_BAD_STATUS_LINE;
            break;
        }
        if (seg > p->header_cap - p->head_len) {
            st = HTTP_ERR_HEADERS_TOO_LARGE;
            break;
        }
        memcpy(p->header_buf + p->head_len, start, seg);
        p->head_len += seg;
        pos += seg;
        if (nl == NULL) {
            break;
        }
        st = http__head_line(p, p->line_start, p->head_len - 1);
        if (st == HTTP_HEADERS_DONE) {
            st = finish_head(p);
        } else {
            p->line_start = p->head_len;
        }
    }
    *out_consumed = pos;
    return st;
}

static enum http_parse_status feed_body(struct http_response_parser *p, const char *buf, size_t len,
                                        size_t *out_consumed, struct http_body_span *out_body)
{
    if (len == 0) {
        *out_consumed = 0;
        return HTTP_NEED_MORE;
    }
    size_t n = len;
    if (p->state == HTTP__BODY_LENGTH) {
        if (p->remaining < n) {
            n = (size_t)p->remaining;
        }
        p->remaining -= n;
        if (p->remaining == 0) {
            p->state = HTTP__DONE;
        }
    }
    out_body->data = buf;
    out_body->len = n;
    *out_consumed = n;
    return HTTP_BODY;
}

enum http_parse_status http_response_feed(struct http_response_parser *p, const char *buf,
                                          size_t len, size_t *out_consumed,
                                          struct http_body_span *out_body)
{
    enum http_parse_status st;
    *out_consumed = 0;
    out_body->data = NULL;
    out_body->len = 0;
    switch (p->state) {
    case HTTP__HEAD:
        st = feed_head(p, buf, len, out_consumed);
        break;
    case HTTP__BODY_LENGTH:
    case HTTP__BODY_UNTIL_CLOSE:
        st = feed_body(p, buf, len, out_consumed, out_body);
        break;
    case HTTP__DONE:
        return HTTP_MESSAGE_DONE;
    case HTTP__ERROR:
        return (enum http_parse_status)p->error;
    default:
        st = http__chunked_feed(p, buf, len, out_consumed, out_body);
        break;
    }
    if (http_parse_status_is_error(st)) {
        p->state = HTTP__ERROR;
        p->error = (uint8_t)st;
    }
    return st;
}

enum http_parse_status http_response_feed_eof(struct http_response_parser *p)
{
    enum http_parse_status st;
    switch (p->state) {
    case HTTP__HEAD:
        st = (p->head_len == 0 && p->interim_count == 0) ? HTTP_ERR_EOF_BEFORE_RESPONSE
                                                         : HTTP_ERR_TRUNCATED;
        break;
    case HTTP__BODY_UNTIL_CLOSE:
        p->state = HTTP__DONE;
        return HTTP_MESSAGE_DONE;
    case HTTP__DONE:
        return HTTP_MESSAGE_DONE;
    case HTTP__ERROR:
        return (enum http_parse_status)p->error;
    default:
        st = HTTP_ERR_TRUNCATED;
        break;
    }
    p->state = HTTP__ERROR;
    p->error = (uint8_t)st;
    return st;
}

int http_response_status_code(const struct http_response_parser *p)
{
    return p->head_done ? p->status_code : 0;
}

const char *http_response_reason(const struct http_response_parser *p, size_t *out_len)
{
    if (!p->head_done || p->reason_len == 0) {
        *out_len = 0;
        return "";
    }
    *out_len = p->reason_len;
    return p->header_buf + p->reason_off;
}

bool http_response_keep_alive(const struct http_response_parser *p)
{
    return p->head_done && p->keep_alive;
}

bool http_response_is_event_stream(const struct http_response_parser *p)
{
    return p->head_done && p->event_stream;
}

enum http_body_framing http_response_framing(const struct http_response_parser *p)
{
    return p->head_done ? (enum http_body_framing)p->framing : HTTP_FRAMING_NONE;
}

bool http_response_content_length(const struct http_response_parser *p, uint64_t *out_len)
{
    if (!p->head_done || p->framing != HTTP_FRAMING_LENGTH) {
        return false;
    }
    *out_len = p->content_length;
    return true;
}
