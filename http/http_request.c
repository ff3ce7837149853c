/*
 * http_request.c - the request-head writer.
 *
 * Everything is validated before a byte is written, then the head is emitted through a
 * bounded cursor that keeps counting past the end of the buffer, so the same code computes
 * the exact size (http_request_head_size) and detects -ENOSPC without a second pass.
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

static void put_str(struct out *o, const char *s)
{
    put(o, s, strlen(s));
}

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

/* Request-target and Host: no SP, no control character, no DEL. */
static bool is_visible(const char *s)
{
    if (s == NULL || s[0] == '\0') {
        return false;
    }
    for (const unsigned char *c = (const unsigned char *)s; *c != '\0'; c++) {
        if (*c <= 0x20 || *c == 0x7f) {
            return false;
        }
    }
    return true;
}

/* A field value may hold SP, HTAB, visible ASCII and obs-text: never CR, LF or NUL. */
static bool is_field_value(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (!http__is_field_char((unsigned char)s[i])) {
            return false;
        }
    }
    return true;
}

static bool optional_value_ok(const char *s)
{
    return s == NULL || is_field_value(s, strlen(s));
}

static bool extra_header_ok(const struct http_header *h)
{
    if (h->name == NULL || h->value == NULL || !is_token(h->name, h->name_len) ||
        !is_field_value(h->value, h->value_len)) {
        return false;
    }
    return !http__equals_ci(h->name, h->name_len, "host") &&
           !http__equals_ci(h->name, h->name_len, "content-length") &&
           !http__equals_ci(h->name, h->name_len, "transfer-encoding");
}

static bool head_ok(const struct http_request_head *head)
{
    if (head == NULL || head->method == NULL || !is_token(head->method, strlen(head->method)) ||
        !is_visible(head->path) || !is_visible(head->host)) {
        return false;
    }
    if (!optional_value_ok(head->content_type) || !optional_value_ok(head->accept) ||
        !optional_value_ok(head->user_agent) || !optional_value_ok(head->authorization)) {
        return false;
    }
    if (head->extra_header_count > 0 && head->extra_headers == NULL) {
        return false;
    }
    for (size_t i = 0; i < head->extra_header_count; i++) {
        if (!extra_header_ok(&head->extra_headers[i])) {
            return false;
        }
    }
    return true;
}

/* RFC 9110 8.6: send Content-Length when there is content or the method anticipates it. */
static bool wants_content_length(const struct http_request_head *head)
{
    return head->content_length > 0 || strcmp(head->method, "POST") == 0 ||
           strcmp(head->method, "PUT") == 0 || strcmp(head->method, "PATCH") == 0;
}

static void put_field(struct out *o, const char *name, const char *value, size_t value_len)
{
    put_str(o, name);
    put(o, ": ", 2);
    put(o, value, value_len);
    put(o, "\r\n", 2);
}

static void put_optional(struct out *o, const char *name, const char *value)
{
    if (value != NULL) {
        put_field(o, name, value, strlen(value));
    }
}

static void put_content_length(struct out *o, size_t value)
{
    char digits[DECIMAL_MAX];
    size_t at = sizeof(digits);
    do {
        digits[--at] = (char)('0' + value % 10);
        value /= 10;
    } while (value > 0);
    put_field(o, "Content-Length", digits + at, sizeof(digits) - at);
}

static void emit(struct out *o, const struct http_request_head *head)
{
    put_str(o, head->method);
    put(o, " ", 1);
    put_str(o, head->path);
    put(o, " HTTP/1.1\r\n", 11);
    put_optional(o, "Host", head->host);
    put_optional(o, "User-Agent", head->user_agent);
    put_optional(o, "Accept", head->accept);
    put_optional(o, "Authorization", head->authorization);
    put_optional(o, "Content-Type", head->content_type);
    if (wants_content_length(head)) {
        put_content_length(o, head->content_length);
    }
    for (size_t i = 0; i < head->extra_header_count; i++) {
        const struct http_header *h = &head->extra_headers[i];
        put(o, h->name, h->name_len);
        put(o, ": ", 2);
        put(o, h->value, h->value_len);
        put(o, "\r\n", 2);
    }
    put(o, "\r\n", 2);
}

ssize_t http_request_head_write(char *buf, size_t cap, const struct http_request_head *head)
{
    if (!head_ok(head)) {
        return -EINVAL;
    }
    struct out o = {.buf = buf, .cap = buf != NULL ? cap : 0, .len = 0};
    emit(&o, head);
    if (o.len > o.cap) {
        return -ENOSPC;
    }
    return (ssize_t)o.len;
}

ssize_t http_request_head_size(const struct http_request_head *head)
{
    if (!head_ok(head)) {
        return -EINVAL;
    }
    struct out o = {.buf = NULL, .cap = 0, .len = 0};
    emit(&o, head);
    if (o.len > (size_t)SSIZE_MAX) {
        return -EINVAL;
    }
    return (ssize_t)o.len;
}
