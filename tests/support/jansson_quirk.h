/*
 * jansson_quirk.h - the one text jansson loads that RFC 8259, and response_walk_check(),
 * refuse, for the fuzz targets that compare readers with jansson.
 */
#ifndef RINGPERF_TESTS_SUPPORT_JANSSON_QUIRK_H
#define RINGPERF_TESTS_SUPPORT_JANSSON_QUIRK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* jansson_drops_nul reports whether the text holds a NUL byte right after a digit or a letter:
 * jansson 2.14's one-byte unget loses such a NUL after a number or literal and loads the text
 * anyway ("[1\0]"). */
static inline bool jansson_drops_nul(const uint8_t *p, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint8_t c = p[i - 1];
        if (p[i] == 0 && ((c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'))) {
            return true;
        }
    }
    return false;
}

#endif
