/*
 * http_internal.h - helpers shared by the files of the http/ module. Not part of the contract.
 */
#ifndef RINGPERF_HTTP_INTERNAL_H
#define RINGPERF_HTTP_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* http__tchar_table[c] is 1 for RFC 9110's token characters (digits, letters and
 * !#$%&'*+-.^_`|~), 0 for every other byte: one load per byte of every header name. */
extern const unsigned char http__tchar_table[256];

static inline bool http__is_tchar(unsigned char c)
{
    return http__tchar_table[c] != 0;
}

/* http__is_field_char: a byte allowed inside a field value or reason phrase: SP, HTAB,
 * visible ASCII and obs-text. Excludes every other control character and DEL. */
static inline bool http__is_field_char(unsigned char c)
{
    return c == '\t' || (c >= 0x20 && c != 0x7f);
}

/* http__field_value_ok: every byte of s[0..len) is a field character. Eight bytes at a time
 * first: a word holding no byte below 0x20 and no DEL is accepted whole; any other word (a
 * tab, or a byte to refuse) goes to the exact check byte by byte. */
static inline bool http__field_value_ok(const char *s, size_t len)
{
    const uint64_t ones = UINT64_C(0x0101010101010101);
    const uint64_t highs = UINT64_C(0x8080808080808080);
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t x;
        memcpy(&x, s + i, sizeof(x));
        uint64_t below_space = (x - ones * 0x20) & ~x & highs;
        uint64_t del = x ^ (ones * 0x7f);
        if ((below_space | ((del - ones) & ~del & highs)) != 0) {
            break;
        }
    }
    for (; i < len; i++) {
        if (!http__is_field_char((unsigned char)s[i])) {
            return false;
        }
    }
    return true;
}

/* http__lower: ASCII lower-casing, locale-independent. */
static inline unsigned char http__lower(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c + ('a' - 'A')) : c;
}

/* http__equals_ci compares s[0..len) with the NUL-terminated lower-case `lit`,
 * ASCII-case-insensitively. */
bool http__equals_ci(const char *s, size_t len, const char *lit);

/* http__head_line parses the head line p->header_buf[start..end), without its LF, as soon
 * as it is complete: the status line when start is 0, else a field, or the empty line that
 * ends the head. Returns HTTP_NEED_MORE after a status line or field, HTTP_HEADERS_DONE
 * after the empty line (with framing and keep-alive decided), or an error. */
enum http_parse_status http__head_line(struct http_response_parser *p, size_t start, size_t end);

/* http__chunked_feed runs the chunk decoder from one of the CHUNK_ or TRAILER_ states over
 * buf[0..len). Same contract as http_response_feed(), minus the sticky-error bookkeeping. */
enum http_parse_status http__chunked_feed(struct http_response_parser *p, const char *buf,
                                          size_t len, size_t *out_consumed,
                                          struct http_body_span *out_body);

#endif
