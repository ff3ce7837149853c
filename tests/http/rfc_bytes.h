/*
 * rfc_bytes.h - test helper: RFC 9110's byte classes, spelled out apart from the http module's
 * own tables, for the tests that classify every byte value.
 */
#ifndef RINGPERF_TESTS_HTTP_RFC_BYTES_H
#define RINGPERF_TESTS_HTTP_RFC_BYTES_H

#include <stdbool.h>
#include <string.h>

/* rfc_tchar: a token character (field names, methods). */
static inline bool rfc_tchar(int c)
{
    return c > 0 && c < 128 &&
           ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
            strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/* rfc_field_char: a byte of a field value or reason phrase: SP, HTAB, visible ASCII and
 * obs-text. */
static inline bool rfc_field_char(int c)
{
    return c == '\t' || (c >= 0x20 && c != 0x7f);
}

#endif
