/*
 * http_chunked.c - the chunked transfer-coding decoder and trailer skipper.
 *
 * Framing bytes (size lines, CRLFs, trailers) go through a byte-at-a-time state machine;
 * chunk data is handed out as spans of the caller's buffer without copying. Nothing is
 * buffered, so a size line or trailer split across reads needs no storage.
 */
#include "http/http.h"
#include "http/http_internal.h"

static int hex_value(unsigned char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    c = http__lower(c);
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    return -1;
}

static enum http_parse_status size_digit_or_end(struct http_response_parser *p, unsigned char c)
{
    int digit = hex_value(c);
    if (digit >= 0) {
        if (p->chunk_digits >= HTTP_CHUNK_SIZE_DIGITS_MAX) {
            return HTTP_ERR_CHUNK_SIZE_TOO_LONG;
        }
        p->chunk_digits++;
        p->remaining = (p->remaining << 4) | (uint64_t)digit;
        return HTTP_NEED_MORE;
    }
    if (p->chunk_digits == 0) {
        return HTTP_ERR_BAD_CHUNK_SIZE;
    }
    if (c == '\r') {
        p->state = HTTP__CHUNK_SIZE_LF;
        return HTTP_NEED_MORE;
    }
    if (c == ';') {
        p->state = HTTP__CHUNK_EXT;
    } else if (c == ' ' || c == '\t') {
        p->state = HTTP__CHUNK_SIZE_WS;
    } else {
        return HTTP_ERR_BAD_CHUNK_SIZE;
    }
    p->chunk_ext_bytes = 1;
    return HTTP_NEED_MORE;
}

/* Whitespace between the size and ';' and the extensions themselves count against one limit,
 * so a peer cannot stall the parser with an endless size line. */
static enum http_parse_status size_line_tail(struct http_response_parser *p, unsigned char c)
{
    if (c == '\r') {
        if (p->state == HTTP__CHUNK_SIZE_WS) {
            return HTTP_ERR_BAD_CHUNK_SIZE;
        }
        p->state = HTTP__CHUNK_SIZE_LF;
        return HTTP_NEED_MORE;
    }
    if (p->chunk_ext_bytes >= HTTP_CHUNK_EXT_BYTES_MAX) {
        return HTTP_ERR_CHUNK_EXT_TOO_LONG;
    }
    p->chunk_ext_bytes++;
    if (p->state == HTTP__CHUNK_SIZE_WS) {
        if (c == ';') {
            p->state = HTTP__CHUNK_EXT;
        } else if (c != ' ' && c != '\t') {
            return HTTP_ERR_BAD_CHUNK_SIZE;
        }
        return HTTP_NEED_MORE;
    }
    return http__is_field_char(c) ? HTTP_NEED_MORE : HTTP_ERR_BAD_CHUNK_EXT;
}

static enum http_parse_status size_line_lf(struct http_response_parser *p, unsigned char c)
{
    if (c != '\n') {
        return HTTP_ERR_BAD_CHUNK_SIZE;
    }
    p->state = p->remaining == 0 ? HTTP__TRAILER_LINE_START : HTTP__CHUNK_DATA;
    return HTTP_NEED_MORE;
}

static enum http_parse_status data_end(struct http_response_parser *p, unsigned char c)
{
    if (p->state == HTTP__CHUNK_DATA_CR) {
        if (c != '\r') {
            return HTTP_ERR_BAD_CHUNK_END;
        }
        p->state = HTTP__CHUNK_DATA_LF;
        return HTTP_NEED_MORE;
    }
    if (c != '\n') {
        return HTTP_ERR_BAD_CHUNK_END;
    }
    p->state = HTTP__CHUNK_SIZE;
    p->chunk_digits = 0;
    p->chunk_ext_bytes = 0;
    p->remaining = 0;
    return HTTP_NEED_MORE;
}

static enum http_parse_status trailer_line_start(struct http_response_parser *p, unsigned char c)
{
    if (c == '\r') {
        p->state = HTTP__TRAILER_END_LF;
        return HTTP_NEED_MORE;
    }
    if (c == '\n') {
        p->state = HTTP__DONE;
        return HTTP_MESSAGE_DONE;
    }
    if ((c == ' ' || c == '\t') && p->trailer_count > 0) {
        return HTTP_ERR_HEADER_FOLDING;
    }
    if (!http__is_tchar(c)) {
        return HTTP_ERR_BAD_TRAILER;
    }
    if (p->trailer_count >= p->max_headers) {
        return HTTP_ERR_TOO_MANY_HEADERS;
    }
    p->trailer_count++;
    p->state = HTTP__TRAILER_NAME;
    return HTTP_NEED_MORE;
}

/* Trailer fields are validated like header fields (token name directly followed by ':', no
 * control characters in the value, CRLF or LF line endings) and then discarded. */
static enum http_parse_status trailer_byte(struct http_response_parser *p, unsigned char c)
{
    if (p->trailer_bytes >= HTTP_TRAILER_BYTES_MAX) {
        return HTTP_ERR_TRAILER_TOO_LARGE;
    }
    p->trailer_bytes++;
    switch (p->state) {
    case HTTP__TRAILER_LINE_START:
        return trailer_line_start(p, c);
    case HTTP__TRAILER_NAME:
        if (c == ':') {
            p->state = HTTP__TRAILER_VALUE;
        } else if (!http__is_tchar(c)) {
            return HTTP_ERR_BAD_TRAILER;
        }
        return HTTP_NEED_MORE;
    case HTTP__TRAILER_VALUE:
        if (c == '\r') {
            p->state = HTTP__TRAILER_LINE_LF;
        } else if (c == '\n') {
            p->state = HTTP__TRAILER_LINE_START;
        } else if (!http__is_field_char(c)) {
            return HTTP_ERR_BAD_TRAILER;
        }
        return HTTP_NEED_MORE;
    case HTTP__TRAILER_LINE_LF:
        if (c != '\n') {
            return HTTP_ERR_BAD_TRAILER;
        }
        p->state = HTTP__TRAILER_LINE_START;
        return HTTP_NEED_MORE;
    default: /* HTTP__TRAILER_END_LF */
        if (c != '\n') {
            return HTTP_ERR_BAD_TRAILER;
        }
        p->state = HTTP__DONE;
        return HTTP_MESSAGE_DONE;
    }
}

/* One framing byte. Returns HTTP_NEED_MORE to go on, HTTP_MESSAGE_DONE, or an error. */
static enum http_parse_status framing_byte(struct http_response_parser *p, unsigned char c)
{
    switch (p->state) {
    case HTTP__CHUNK_SIZE:
        return size_digit_or_end(p, c);
    case HTTP__CHUNK_SIZE_WS:
    case HTTP__CHUNK_EXT:
        return size_line_tail(p, c);
    case HTTP__CHUNK_SIZE_LF:
        return size_line_lf(p, c);
    case HTTP__CHUNK_DATA_CR:
    case HTTP__CHUNK_DATA_LF:
        return data_end(p, c);
    default:
        return trailer_byte(p, c);
    }
}

enum http_parse_status http__chunked_feed(struct http_response_parser *p, const char *buf,
                                          size_t len, size_t *out_consumed,
                                          struct http_body_span *out_body)
{
    size_t pos = 0;
    while (pos < len) {
        if (p->state == HTTP__CHUNK_DATA) {
            size_t n = len - pos;
            if (p->remaining < n) {
                n = (size_t)p->remaining;
            }
            out_body->data = buf + pos;
            out_body->len = n;
            p->remaining -= n;
            if (p->remaining == 0) {
                p->state = HTTP__CHUNK_DATA_CR;
            }
            *out_consumed = pos + n;
            return HTTP_BODY;
        }
        enum http_parse_status st = framing_byte(p, (unsigned char)buf[pos]);
        pos++;
        if (st != HTTP_NEED_MORE) {
            *out_consumed = pos;
            return st;
        }
    }
    *out_consumed = pos;
    return HTTP_NEED_MORE;
}
