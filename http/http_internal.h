/*
 * http_internal.h - helpers shared by the files of the http/ module. Not part of the contract.
 */
#ifndef RINGPERF_HTTP_INTERNAL_H
#define RINGPERF_HTTP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>

#include "http/http.h"

/* Parser states, stored in http_response_parser.state. */
enum http__state {
    HTTP__HEAD = 0,
    HTTP__BODY_LENGTH,
    HTTP__BODY_UNTIL_CLOSE,
    HTTP__CHUNK_SIZE,
    HTTP__CHUNK_SIZE_WS,
    HTTP__CHUNK_EXT,
    HTTP__CHUNK_SIZE_LF,
    HTTP__CHUNK_DATA,
    HTTP__CHUNK_DATA_CR,
    HTTP__CHUNK_DATA_LF,
    HTTP__TRAILER_LINE_START,
    HTTP__TRAILER_NAME,
    HTTP__TRAILER_VALUE,
    HTTP__TRAILER_LINE_LF,
    HTTP__TRAILER_END_LF,
    HTTP__DONE,
    HTTP__ERROR,
};

/* http__is_tchar: RFC 9110 token character. */
static inline bool http__is_tchar(unsigned char c)
{
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
        return true;
    }
    switch (c) {
    case '!':
    case '#':
    case '$':
    case '%':
    case '&':
    case '\'':
    case '*':
    case '+':
    case '-':
    case '.':
    case '^':
    case '_':
    case '`':
    case '|':
    case '~':
        return true;
    default:
        return false;
    }
}

/* http__is_field_char: a byte allowed inside a field value or reason phrase: SP, HTAB,
 * visible ASCII and obs-text. Excludes every other control character and DEL. */
static inline bool http__is_field_char(unsigned char c)
{
    return c == '\t' || (c >= 0x20 && c != 0x7f);
}

/* http__lower: ASCII lower-casing, locale-independent. */
static inline unsigned char http__lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + ('a' - 'A')) : c;
}

/* http__equals_ci compares s[0..len) with the NUL-terminated lower-case `lit`,
 * ASCII-case-insensitively. */
bool http__equals_ci(const char *s, size_t len, const char *lit);

/* http__head_parse parses the complete head in p->header_buf[0..p->head_len) (status line,
 * fields, final empty line) and fills the head fields of p, including framing and keep-alive.
 * Returns HTTP_HEADERS_DONE or an error. */
enum http_parse_status http__head_parse(struct http_response_parser *p);

/* http__chunked_feed runs the chunk decoder from one of the CHUNK_ or TRAILER_ states over
 * buf[0..len). Same contract as http_response_feed(), minus the sticky-error bookkeeping. */
enum http_parse_status http__chunked_feed(struct http_response_parser *p, const char *buf,
                                          size_t len, size_t *out_consumed,
                                          struct http_body_span *out_body);

#endif
