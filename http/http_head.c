/*
 * http_head.c - parsing a response head line by line as it is collected into the parser's
 * header buffer, and the header accessors that rescan it.
 *
 * http_response.c copies each complete line into the header buffer and hands it here at
 * once, so the head is read in one pass and every line is contiguous. Headers are not
 * indexed: the few lookups a benchmark makes per response rescan the head instead of
 * needing a caller-sized array of views.
 */
#include <stdint.h>
#include <string.h>

#include "http/http.h"
#include "http/http_internal.h"

/* Rows of 32 bytes, 0x00 to 0x7f; every byte from 0x80 on is 0. */
const unsigned char http__tchar_table[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 1, 0, 1, 1, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0,
    0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 0, 1, 0,
};

/* Internal success value of the field helpers below. */
#define HEAD_OK HTTP_HEADERS_DONE

#define EVENT_STREAM "text/event-stream"

bool http__equals_ci(const char *s, size_t len, const char *lit)
{
    size_t i = 0;
    for (; i < len; i++) {
        if (lit[i] == '\0' || http__lower((unsigned char)s[i]) != (unsigned char)lit[i]) {
            return false;
        }
    }
    return lit[i] == '\0';
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool is_ows(char c)
{
    return c == ' ' || c == '\t';
}

/* Returns the line at *pos without its LF and one CR before it, and moves *pos past the LF.
 * A complete head always ends in LF; a missing one just ends the line at len. */
static void next_line(const char *buf, size_t len, size_t *pos, const char **out_line,
                      size_t *out_len)
{
    const char *start = buf + *pos;
    size_t avail = len - *pos;
    const char *nl = avail > 0 ? memchr(start, '\n', avail) : NULL;
    size_t n = nl != NULL ? (size_t)(nl - start) : avail;
    *pos += nl != NULL ? n + 1 : n;
    if (n > 0 && start[n - 1] == '\r') {
        n--;
    }
    *out_line = start;
    *out_len = n;
}

static enum http_parse_status parse_status_line(struct http_response_parser *p, const char *line,
                                                size_t n)
{
    if (n < 5 || memcmp(line, "HTTP/", 5) != 0) {
        return HTTP_ERR_BAD_STATUS_LINE;
    }
    if (n < 8 || line[5] != '1' || line[6] != '.' || !is_digit(line[7]) ||
        (n > 8 && is_digit(line[8]))) {
        return HTTP_ERR_BAD_VERSION;
    }
    if (n < 12 || line[8] != ' ' || line[9] < '1' || line[9] > '9' || !is_digit(line[10]) ||
        !is_digit(line[11]) || (n > 12 && line[12] != ' ')) {
        return HTTP_ERR_BAD_STATUS_LINE;
    }
    if (n > 13 && !http__field_value_ok(line + 13, n - 13)) {
        return HTTP_ERR_BAD_STATUS_LINE;
    }
    p->version_minor = (uint8_t)(line[7] - '0');
    p->status_code = (uint16_t)((line[9] - '0') * 100 + (line[10] - '0') * 10 + (line[11] - '0'));
    p->reason_off = n > 13 ? (size_t)(line + 13 - p->header_buf) : 0;
    p->reason_len = n > 13 ? n - 13 : 0;
    return HEAD_OK;
}

/* Splits one field line (without its line ending) into a name and a trimmed value. */
static enum http_parse_status parse_field(const char *line, size_t n, struct http_header *out)
{
    if (n > 0 && is_ows(line[0])) {
        return HTTP_ERR_HEADER_FOLDING;
    }
    size_t colon = 0;
    while (colon < n && http__is_tchar((unsigned char)line[colon])) {
        colon++;
    }
    if (colon == 0 || colon == n || line[colon] != ':') {
        return HTTP_ERR_BAD_HEADER;
    }
    size_t start = colon + 1;
    size_t end = n;
    while (start < end && is_ows(line[start])) {
        start++;
    }
    while (end > start && is_ows(line[end - 1])) {
        end--;
    }
    if (!http__field_value_ok(line + start, end - start)) {
        return HTTP_ERR_BAD_HEADER;
    }
    out->name = line;
    out->name_len = colon;
    out->value = line + start;
    out->value_len = end - start;
    return HEAD_OK;
}

/* Walks a comma-separated list: returns the next non-empty element, OWS-trimmed. */
static bool next_element(const char *s, size_t len, size_t *pos, const char **out, size_t *out_len)
{
    while (*pos < len) {
        size_t start = *pos;
        while (*pos < len && s[*pos] != ',') {
            (*pos)++;
        }
        size_t end = *pos;
        if (*pos < len) {
            (*pos)++;
        }
        while (start < end && is_ows(s[start])) {
            start++;
        }
        while (end > start && is_ows(s[end - 1])) {
            end--;
        }
        if (end > start) {
            *out = s + start;
            *out_len = end - start;
            return true;
        }
    }
    return false;
}

static enum http_parse_status apply_content_length(struct http_response_parser *p, const char *v,
                                                   size_t len)
{
    uint64_t value = 0;
    if (len == 0) {
        return HTTP_ERR_BAD_CONTENT_LENGTH;
    }
    for (size_t i = 0; i < len; i++) {
        if (!is_digit(v[i])) {
            return HTTP_ERR_BAD_CONTENT_LENGTH;
        }
        uint64_t digit = (uint64_t)(v[i] - '0');
        if (value > (UINT64_MAX - digit) / 10) {
            return HTTP_ERR_BAD_CONTENT_LENGTH;
        }
        value = value * 10 + digit;
    }
    if (p->cl_seen && p->content_length != value) {
        return HTTP_ERR_CONTENT_LENGTH_CONFLICT;
    }
    p->cl_seen = true;
    p->content_length = value;
    return HEAD_OK;
}

/* Each element is a coding token, optionally followed by OWS and ';' parameters. "chunked"
 * must be the last coding of all Transfer-Encoding fields together, and appear once. */
static enum http_parse_status apply_transfer_encoding(struct http_response_parser *p, const char *v,
                                                      size_t len)
{
    size_t pos = 0;
    const char *el = NULL;
    size_t el_len = 0;
    bool any = false;
    while (next_element(v, len, &pos, &el, &el_len)) {
        size_t tok = 0;
        while (tok < el_len && http__is_tchar((unsigned char)el[tok])) {
            tok++;
        }
        size_t rest = tok;
        while (rest < el_len && is_ows(el[rest])) {
            rest++;
        }
        if (p->te_chunked || tok == 0 || (rest < el_len && el[rest] != ';')) {
            return HTTP_ERR_BAD_TRANSFER_ENCODING;
        }
        p->te_chunked = http__equals_ci(el, tok, "chunked");
        any = true;
    }
    if (!any) {
        return HTTP_ERR_BAD_TRANSFER_ENCODING;
    }
    p->te_seen = true;
    return HEAD_OK;
}

static void apply_connection(struct http_response_parser *p, const char *v, size_t len)
{
    size_t pos = 0;
    const char *el = NULL;
    size_t el_len = 0;
    while (next_element(v, len, &pos, &el, &el_len)) {
        if (http__equals_ci(el, el_len, "close")) {
            p->conn_close = true;
        } else if (http__equals_ci(el, el_len, "keep-alive")) {
            p->conn_keep_alive = true;
        }
    }
}

static bool media_type_is_event_stream(const char *v, size_t len)
{
    size_t n = sizeof(EVENT_STREAM) - 1;
    if (len < n || !http__equals_ci(v, n, EVENT_STREAM)) {
        return false;
    }
    return len == n || v[n] == ';' || is_ows(v[n]);
}

/* name_is compares a field name with a lower-case literal of the same length, at least eight
 * bytes, made of letters and '-': two eight-byte words (the first and the last, overlapping)
 * with every byte's 0x20 bit set. That folds an upper-case letter onto its lower case, and
 * nothing else onto a letter or '-' except CR onto '-', which a name never holds (parse_field
 * accepted only token characters). */
#define NAME_IS(h, lit) name_is((h)->name, lit, sizeof(lit) - 1)
static bool name_is(const char *name, const char *lit, size_t len)
{
    _Static_assert(sizeof(uint64_t) == 8, "eight-byte words");
    const uint64_t fold = UINT64_C(0x2020202020202020);
    uint64_t head;
    uint64_t tail;
    uint64_t want_head;
    uint64_t want_tail;
    memcpy(&head, name, 8);
    memcpy(&tail, name + len - 8, 8);
    memcpy(&want_head, lit, 8);
    memcpy(&want_tail, lit + len - 8, 8);
    return (head | fold) == want_head && (tail | fold) == want_tail;
}

static enum http_parse_status apply_field(struct http_response_parser *p,
                                          const struct http_header *h)
{
    /* The four names that matter differ in length: one comparison each. */
    switch (h->name_len) {
    case sizeof("content-length") - 1:
        if (NAME_IS(h, "content-length")) {
            return apply_content_length(p, h->value, h->value_len);
        }
        break;
    case sizeof("transfer-encoding") - 1:
        if (NAME_IS(h, "transfer-encoding")) {
            return apply_transfer_encoding(p, h->value, h->value_len);
        }
        break;
    case sizeof("connection") - 1:
        if (NAME_IS(h, "connection")) {
            apply_connection(p, h->value, h->value_len);
        }
        break;
    case sizeof("content-type") - 1:
        if (!p->content_type_seen && NAME_IS(h, "content-type")) {
            p->content_type_seen = true;
            p->event_stream = media_type_is_event_stream(h->value, h->value_len);
        }
        break;
    default:
        break;
    }
    return HEAD_OK;
}

/* RFC 9112 section 6.3, in order; keep-alive per section 9.3, refusing reuse whenever the
 * framing was ambiguous (Transfer-Encoding with Content-Length, or in HTTP/1.0). */
static void decide_framing(struct http_response_parser *p)
{
    unsigned code = p->status_code;
    if (p->head_request || code < 200 || code == 204 || code == 304) {
        p->framing = HTTP_FRAMING_NONE;
    } else if (p->te_seen) {
        p->framing = p->te_chunked ? HTTP_FRAMING_CHUNKED : HTTP_FRAMING_UNTIL_CLOSE;
    } else if (p->cl_seen) {
        p->framing = HTTP_FRAMING_LENGTH;
    } else {
        p->framing = HTTP_FRAMING_UNTIL_CLOSE;
    }
    bool keep = p->version_minor >= 1 ? !p->conn_close : p->conn_keep_alive && !p->conn_close;
    if (p->framing == HTTP_FRAMING_UNTIL_CLOSE ||
        (p->te_seen && (p->cl_seen || p->version_minor == 0))) {
        keep = false;
    }
    p->keep_alive = keep;
}

static void clear_head_fields(struct http_response_parser *p)
{
    p->status_code = 0;
    p->version_minor = 0;
    p->reason_off = 0;
    p->reason_len = 0;
    p->header_count = 0;
    p->cl_seen = false;
    p->content_length = 0;
    p->te_seen = false;
    p->te_chunked = false;
    p->conn_close = false;
    p->conn_keep_alive = false;
    p->content_type_seen = false;
    p->event_stream = false;
    p->keep_alive = false;
    p->framing = HTTP_FRAMING_NONE;
}

enum http_parse_status http__head_line(struct http_response_parser *p, size_t start, size_t end)
{
    const char *line = p->header_buf + start;
    size_t n = end - start;
    if (n > 0 && line[n - 1] == '\r') {
        n--;
    }
    if (start == 0) {
        clear_head_fields(p);
        enum http_parse_status st = parse_status_line(p, line, n);
        return st == HEAD_OK ? HTTP_NEED_MORE : st;
    }
    if (n == 0) {
        decide_framing(p);
        return HTTP_HEADERS_DONE;
    }
    if (p->header_count >= p->max_headers) {
        return HTTP_ERR_TOO_MANY_HEADERS;
    }
    p->header_count++;
    struct http_header h;
    enum http_parse_status st = parse_field(line, n, &h);
    if (st == HEAD_OK) {
        st = apply_field(p, &h);
    }
    return st == HEAD_OK ? HTTP_NEED_MORE : st;
}

bool http_response_header_next(const struct http_response_parser *p, size_t *cursor,
                               struct http_header *out)
{
    if (!p->head_done) {
        return false;
    }
    size_t pos = *cursor;
    const char *line = NULL;
    size_t n = 0;
    if (pos == 0) {
        next_line(p->header_buf, p->head_len, &pos, &line, &n);
    }
    if (pos >= p->head_len) {
        return false;
    }
    next_line(p->header_buf, p->head_len, &pos, &line, &n);
    if (n == 0 || parse_field(line, n, out) != HEAD_OK) {
        *cursor = p->head_len;
        return false;
    }
    *cursor = pos;
    return true;
}

/* ASCII-only case folding: strncasecmp would follow the locale. */
static bool same_ci(const char *a, const char *b, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (http__lower((unsigned char)a[i]) != http__lower((unsigned char)b[i])) {
            return false;
        }
    }
    return true;
}

bool http_response_header(const struct http_response_parser *p, const char *name,
                          const char **out_value, size_t *out_len)
{
    size_t name_len = strlen(name);
    size_t cursor = 0;
    struct http_header h;
    while (http_response_header_next(p, &cursor, &h)) {
        if (h.name_len == name_len && same_ci(h.name, name, name_len)) {
            *out_value = h.value;
            *out_len = h.value_len;
            return true;
        }
    }
    return false;
}
