/*
 * b64_decode.h - a strict base64 decoder for the media tests (test code only).
 */
#ifndef RINGPERF_TESTS_MEDIA_B64_DECODE_H
#define RINGPERF_TESTS_MEDIA_B64_DECODE_H

#include <criterion/criterion.h>

#include <stdint.h>
#include <stdlib.h>

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* Decodes padded base64 (malloc'd bytes in *out); asserts it is well formed. */
static size_t b64_decode(const char *s, size_t len, uint8_t **out)
{
    cr_assert_eq(len % 4, 0, "base64 length %zu is not a multiple of 4", len);
    uint8_t *buf = malloc(len / 4 * 3 + 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i += 4) {
        int v[4];
        for (int k = 0; k < 4; k++) {
            v[k] = s[i + k] == '=' ? 0 : b64_value(s[i + k]);
            cr_assert_geq(v[k], 0, "bad base64 byte at %zu", i + k);
        }
        uint32_t w =
            (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | (uint32_t)v[3];
        buf[n++] = (uint8_t)(w >> 16);
        if (s[i + 2] != '=') {
            buf[n++] = (uint8_t)(w >> 8);
        }
        if (s[i + 3] != '=') {
            buf[n++] = (uint8_t)w;
        }
    }
    *out = buf;
    return n;
}

#endif
