/*
 * http_request.c - the request-head writer.
 *
 * Everything is validated before a byte is written, then the head is emitted through a
 * bounded cursor that keeps counting past the end of the buffer, so the same code computes
 * the exact size (http_request_head_size) and detects -ENOSPC without a second pass.
 *
 * A client sending many requests with the same fixed headers validates and writes those
 * once (http_request_prefix_write) and per request adds only what changes
 * (http_request_head_finish): at a few hundred thousand requests a second, validating the
 * same header bytes again showed in profiles.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "http/http.h"
#include "http/http_internal.h"

/* Enough for the decimal digits of any size_t. */
#define DECIMAL_MAX 24

struct out {
    char *buf;
    size_t cap;
    size_t len; /* bytes the head needs so far; may exceed cap */
};

static void put(struct out *o, const char *s, size_t n)
{
    if (n > 0 && o->len <= o->cap && n <= o->cap - o->len) {
        memcpy(o->buf + o->len, s, n);
    }
    o->len += n;
}

/* The lengths of the head's NUL-terminated strings, measured once while they
 * are validated and used again when they are written. */
struct lengths {
    size_t method;
    size_t path;
    size_t host;
    size_t user_agent;
    size_t accept;
    size_t authorization;
    size_t content_type;
};

static bool is_token(const char *s, size_t len)
{
    if (len == 0) {
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if (!http__is_tchar((unsigned char)s[i])) {
            return false;
        }
    }
    return true;
}

/* token_length returns the length of a NUL-terminated token, or 0 when it is
 * empty or holds a non-token byte. */
static size_t token_length(const char *s)
{
    size_t n = 0;
    while (s[n] != '\0') {
        if (!http__is_tchar((unsigned char)s[n])) {
            return 0;
        }
        n++;
    }
    return n;
}

/* visible_length: request-target and Host, no SP, no control character, no
 * DEL. Returns the length, or 0 when s is NULL, empty or holds such a byte. */
static size_t visible_length(const char *s)
{
    if (s == NULL) {
        return 0;
    }
    size_t n = 0;
    for (const unsigned char *c = (const unsigned char *)s; *c != '\0'; c++, n++) {
        if (*c <= 0x20 || *c == 0x7f) {
            return 0;
        }
    }
    return n;
}

/* optional_value_ok accepts NULL (absent, length 0) or a NUL-terminated
 * field value, whose length it stores in *out_len. */
static bool optional_value_ok(const char *s, size_t *out_len)
{
    *out_len = 0;
    if (s == NULL) {
        return true;
    }
    size_t n = 0;
    while (s[n] != '\0') {
        if (!http__is_field_char((unsigned char)s[n])) {
            return false;
        }
        n++;
    }
    *out_len = n;
    return true;
}

/* is_framing_name: the fields the writer owns (Host, Content-Length, Transfer-Encoding),
 * which a caller's header may not repeat. Their lengths differ: one comparison at most. */
static bool is_framing_name(const char *name, size_t len)
{
    switch (len) {
    case sizeof("host") - 1:
        return http__equals_ci(name, len, "host");
    case sizeof("content-length") - 1:
        return http__equals_ci(name, len, "content-length");
    case sizeof("transfer-encoding") - 1:
        return http__equals_ci(name, len, "transfer-encoding");
    default:
        return false;
    }
}

static bool extra_header_ok(const struct http_header *h)
{
    if (h->name == NULL || h->value == NULL || !is_token(h->name, h->name_len) ||
        !http__field_value_ok(h->value, h->value_len)) {
        return false;
    }
    return !is_framing_name(h->name, h->name_len);
}

static bool headers_ok(const struct http_header *headers, size_t count)
{
    if (count > 0 && headers == NULL) {
        return false;
    }
    for (size_t i = 0; i < count; i++) {
        if (!extra_header_ok(&headers[i])) {
            return false;
        }
    }
    return true;
}

/* head_ok validates every field before anything is written, and measures the
 * strings on the way. */
static bool head_ok(const struct http_request_head *head, struct lengths *out)
{
    if (head == NULL || head->method == NULL) {
        return false;
    }
    out->method = token_length(head->method);
    out->path = visible_length(head->path);
    out->host = visible_length(head->host);
    if (out->method == 0 || out->path == 0 || out->host == 0) {
        return false;
    }
    if (!optional_value_ok(head->content_type, &out->content_type) ||
        !optional_value_ok(head->accept, &out->accept) ||
        !optional_value_ok(head->user_agent, &out->user_agent) ||
        !optional_value_ok(head->authorization, &out->authorization)) {
        return false;
    }
    return headers_ok(head->extra_headers, head->extra_header_count);
}

/* RFC 9110 8.6: send Content-Length when there is content or the method anticipates it. */
static bool method_wants_content_length(const char *method)
{
    return strcmp(method, "POST") == 0 || strcmp(method, "PUT") == 0 ||
           strcmp(method, "PATCH") == 0;
}

/* put_field writes "name: value\r\n"; name_len counts the ": " that the
 * caller's literal name ends with. */
static void put_field(struct out *o, const char *name, size_t name_len, const char *value,
                      size_t value_len)
{
    put(o, name, name_len);
    put(o, value, value_len);
    put(o, "\r\n", 2);
}

#define PUT_FIELD(o, name, value, value_len)                                                       \
    put_field(o, name ": ", sizeof(name ": ") - 1, value, value_len)

static void put_optional(struct out *o, const char *name, size_t name_len, const char *value,
                         size_t value_len)
{
    if (value != NULL) {
        put_field(o, name, name_len, value, value_len);
    }
}

#define PUT_OPTIONAL(o, name, value, value_len)                                                    \
    put_optional(o, name ": ", sizeof(name ": ") - 1, value, value_len)

static void put_content_length(struct out *o, size_t value)
{
    char digits[DECIMAL_MAX];
    size_t at = sizeof(digits);
    do {
        digits[--at] = (char)('0' + value % 10);
        value /= 10;
    } while (value > 0);
    PUT_FIELD(o, "Content-Length", digits + at, sizeof(digits) - at);
}

static void put_headers(struct out *o, const struct http_header *headers, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        const struct http_header *h = &headers[i];
        put(o, h->name, h->name_len);
        put(o, ": ", 2);
        put(o, h->value, h->value_len);
        put(o, "\r\n", 2);
    }
}

static void emit_prefix(struct out *o, const struct http_request_head *head,
                        const struct lengths *len)
{
    put(o, head->method, len->method);
    put(o, " ", 1);
    put(o, head->path, len->path);
    put(o, " HTTP/1.1\r\n", 11);
    PUT_FIELD(o, "Host", head->host, len->host);
    PUT_OPTIONAL(o, "User-Agent", head->user_agent, len->user_agent);
    PUT_OPTIONAL(o, "Accept", head->accept, len->accept);
    PUT_OPTIONAL(o, "Authorization", head->authorization, len->authorization);
    PUT_OPTIONAL(o, "Content-Type", head->content_type, len->content_type);
    put_headers(o, head->extra_headers, head->extra_header_count);
}

/* emit_rest writes what follows a prefix: Content-Length, the per-request
 * headers and the empty line. */
static void emit_rest(struct out *o, bool wants_content_length, size_t content_length,
                      const struct http_header *headers, size_t count)
{
    if (wants_content_length || content_length > 0) {
        put_content_length(o, content_length);
    }
    put_headers(o, headers, count);
    put(o, "\r\n", 2);
}

/* write_head validates and writes a whole head whose extra headers follow
 * Content-Length; buf may be NULL with cap 0 to measure it. */
static ssize_t write_head(char *buf, size_t cap, const struct http_request_head *head)
{
    struct lengths len;
    if (head == NULL) {
        return -EINVAL;
    }
    struct http_request_head fixed = *head;
    fixed.extra_headers = NULL;
    fixed.extra_header_count = 0;
    if (!head_ok(&fixed, &len) || !headers_ok(head->extra_headers, head->extra_header_count)) {
        return -EINVAL;
    }
    struct out o = {.buf = buf, .cap = buf != NULL ? cap : 0, .len = 0};
    emit_prefix(&o, &fixed, &len);
    emit_rest(&o, method_wants_content_length(head->method), head->content_length,
              head->extra_headers, head->extra_header_count);
    if (o.len > (size_t)SSIZE_MAX) {
        return -EINVAL;
    }
    return (ssize_t)o.len;
}

ssize_t http_request_head_write(char *buf, size_t cap, const struct http_request_head *head)
{
    ssize_t n = write_head(buf, cap, head);
    return n >= 0 && (size_t)n > cap ? -ENOSPC : n;
}

ssize_t http_request_head_size(const struct http_request_head *head)
{
    return write_head(NULL, 0, head);
}

ssize_t http_request_prefix_write(char *buf, size_t cap, const struct http_request_head *head,
                                  struct http_request_prefix *out)
{
    struct lengths len;
    if (!head_ok(head, &len)) {
        return -EINVAL;
    }
    struct out o = {.buf = buf, .cap = buf != NULL ? cap : 0, .len = 0};
    emit_prefix(&o, head, &len);
    if (o.len > o.cap) {
        return -ENOSPC;
    }
    *out = (struct http_request_prefix){
        .bytes = buf,
        .len = o.len,
        .wants_content_length = method_wants_content_length(head->method),
    };
    return (ssize_t)o.len;
}

ssize_t http_request_head_finish(char *buf, size_t cap, const struct http_request_prefix *prefix,
                                 size_t content_length, const struct http_header *headers,
                                 size_t header_count)
{
    if (prefix == NULL || prefix->bytes == NULL || !headers_ok(headers, header_count)) {
        return -EINVAL;
    }
    if (buf == NULL || prefix->len > cap) {
        return -ENOSPC;
    }
    if (buf != prefix->bytes) {
        memcpy(buf, prefix->bytes, prefix->len);
    }
    struct out o = {.buf = buf, .cap = cap, .len = prefix->len};
    emit_rest(&o, prefix->wants_content_length, content_length, headers, header_count);
    return o.len > o.cap ? -ENOSPC : (ssize_t)o.len;
}
