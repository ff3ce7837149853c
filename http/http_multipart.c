/*
 * http_multipart.c - the framing of a multipart/form-data body (RFC 7578 over RFC 2046): part
 * heads, the closing delimiter, and the checks that keep a name, a file name or a boundary from
 * breaking the framing. Each writer returns the length it needs and writes only when the buffer
 * holds it, so a caller sizes its buffer with a first call of cap 0. A file's bytes are never
 * copied here: the caller sends them between the part's head and what follows it.
 */
#include <errno.h>
#include <string.h>

#include "http/http.h"

/* multipart__put copies s at *len when it fits and always counts it. */
static void multipart__put(char *buf, size_t cap, size_t *len, const char *s, size_t n)
{
    if (*len + n <= cap) {
        memcpy(buf + *len, s, n);
    }
    *len += n;
}

static void multipart__str(char *buf, size_t cap, size_t *len, const char *s)
{
    multipart__put(buf, cap, len, s, strlen(s));
}

/* A name, file name or content type goes inside a quoted header parameter (or a header value):
 * no control characters, no quote, no backslash (RFC 7578 §4.2 leaves escaping undefined). */
static bool multipart__safe(const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        if (*p < 0x20 || *p == 0x7f || *p == '"' || *p == '\\') {
            return false;
        }
    }
    return true;
}

bool http_multipart_boundary_valid(const char *boundary)
{
    size_t n = boundary != NULL ? strlen(boundary) : 0;
    if (n == 0 || n > HTTP_MULTIPART_BOUNDARY_MAX || boundary[n - 1] == ' ') {
        return false;
    }
    /* RFC 2046 §5.1.1 bchars, less space (it would need quoting in Content-Type). */
    static const char extra[] = "'()+_,-./:=?";
    for (size_t i = 0; i < n; i++) {
        char c = boundary[i];
        bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (!alnum && strchr(extra, c) == NULL) {
            return false;
        }
    }
    return true;
}

bool http_multipart_boundary_absent(const char *boundary, const void *data, size_t len)
{
    size_t n = strlen(boundary);
    const char *p = data;
    /* Any "--boundary" inside a part could be read as a delimiter by a lenient server. */
    for (size_t i = 0; i + 2 + n <= len; i++) {
        if (p[i] == '-' && p[i + 1] == '-' && memcmp(p + i + 2, boundary, n) == 0) {
            return false;
        }
    }
    return true;
}

/* multipart__field writes what fits of a field (see multipart__all). */
static size_t multipart__field(char *buf, size_t cap, const char *boundary, const char *name,
                               const char *value, size_t value_len)
{
    size_t len = 0;
    multipart__str(buf, cap, &len, "--");
    multipart__str(buf, cap, &len, boundary);
    multipart__str(buf, cap, &len, "\r\nContent-Disposition: form-data; name=\"");
    multipart__str(buf, cap, &len, name);
    multipart__str(buf, cap, &len, "\"\r\n\r\n");
    multipart__put(buf, cap, &len, value != NULL ? value : "", value_len);
    multipart__str(buf, cap, &len, "\r\n");
    return len;
}

ssize_t http_multipart_field(char *buf, size_t cap, const char *boundary, const char *name,
                             const char *value, size_t value_len)
{
    if (!http_multipart_boundary_valid(boundary) || name == NULL || !multipart__safe(name) ||
        (value == NULL && value_len > 0)) {
        return -EINVAL;
    }
    /* Sized first, so that a piece is written whole or not at all. */
    size_t need = multipart__field(NULL, 0, boundary, name, value, value_len);
    if (need <= cap) {
        multipart__field(buf, cap, boundary, name, value, value_len);
    }
    return (ssize_t)need;
}

static size_t multipart__file_head(char *buf, size_t cap, const char *boundary, const char *name,
                                   const char *filename, const char *content_type)
{
    size_t len = 0;
    multipart__str(buf, cap, &len, "--");
    multipart__str(buf, cap, &len, boundary);
    multipart__str(buf, cap, &len, "\r\nContent-Disposition: form-data; name=\"");
    multipart__str(buf, cap, &len, name);
    multipart__str(buf, cap, &len, "\"; filename=\"");
    multipart__str(buf, cap, &len, filename);
    multipart__str(buf, cap, &len, "\"\r\nContent-Type: ");
    multipart__str(buf, cap, &len, content_type);
    multipart__str(buf, cap, &len, "\r\n\r\n");
    return len;
}

ssize_t http_multipart_file_head(char *buf, size_t cap, const char *boundary, const char *name,
                                 const char *filename, const char *content_type)
{
    if (!http_multipart_boundary_valid(boundary) || name == NULL || filename == NULL ||
        content_type == NULL || !multipart__safe(name) || !multipart__safe(filename) ||
        !multipart__safe(content_type)) {
        return -EINVAL;
    }
    size_t need = multipart__file_head(NULL, 0, boundary, name, filename, content_type);
    if (need <= cap) {
        multipart__file_head(buf, cap, boundary, name, filename, content_type);
    }
    return (ssize_t)need;
}

ssize_t http_multipart_file_end(char *buf, size_t cap)
{
    size_t len = 0;
    multipart__str(buf, cap, &len, "\r\n");
    return (ssize_t)len;
}

ssize_t http_multipart_close(char *buf, size_t cap, const char *boundary)
{
    if (!http_multipart_boundary_valid(boundary)) {
        return -EINVAL;
    }
    size_t need = strlen(boundary) + 6;
    size_t len = 0;
    if (need <= cap) {
        multipart__str(buf, cap, &len, "--");
        multipart__str(buf, cap, &len, boundary);
        multipart__str(buf, cap, &len, "--\r\n");
    }
    return (ssize_t)need;
}
