/*
 * json_scan.h - the byte scanners under response/'s JSON readers: whitespace, strings (eight
 * bytes at a time), numbers and literals. Private to response/ (json.c, walk.c); every
 * function takes the text and an index and returns an index, never reading at or past len.
 */
#ifndef RINGPERF_RESPONSE_JSON_SCAN_H
#define RINGPERF_RESPONSE_JSON_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline bool json__is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static inline size_t json__skip_ws(const char *js, size_t len, size_t i)
{
    while (i < len && json__is_ws(js[i])) {
        i++;
    }
    return i;
}

/* The tokenizer's steps are functions for reading, inlined into one loop for
 * running: the calls cost as much as the scanning (220 against 165 ns for a
 * chat completion body). */
#define JSON__INLINE static inline __attribute__((always_inline))

#define JSON__ONES UINT64_C(0x0101010101010101)
#define JSON__HIGHS (JSON__ONES * 0x80)

/* json__special returns the index of the first quote, backslash or byte
 * below 0x20 at or after i, or len. */
JSON__INLINE size_t json__special(const char *js, size_t len, size_t i)
{
    /* Eight bytes at a time: (v - ones) & ~v & highs has a byte's top bit set
     * where v has a zero byte (exactly for the lowest such byte, which is all
     * this needs), and (x - 0x20 per byte) & ~x the same for bytes below 0x20. */
    while (i + 8 <= len) {
        uint64_t x;
        memcpy(&x, js + i, sizeof(x));
        uint64_t quote = x ^ (JSON__ONES * '"');
        uint64_t slash = x ^ (JSON__ONES * '\\');
        uint64_t hit = ((quote - JSON__ONES) & ~quote) | ((slash - JSON__ONES) & ~slash) |
                       ((x - JSON__ONES * 0x20) & ~x);
        hit &= JSON__HIGHS;
        if (hit != 0) {
            return i + (size_t)__builtin_ctzll(hit) / 8;
        }
        i += 8;
    }
    while (i < len && js[i] != '"' && js[i] != '\\' && (unsigned char)js[i] >= 0x20) {
        i++;
    }
    return i;
}

static inline int json__hex(char h)
{
    if (h >= '0' && h <= '9') {
        return h - '0';
    }
    h = (char)(h | 0x20);
    return h >= 'a' && h <= 'f' ? h - 'a' + 10 : -1;
}

/* json__hex4 returns the four hex digits at i as a number, or -1 (also when they run past
 * len). */
static inline long json__hex4(const char *js, size_t len, size_t i)
{
    long v = 0;
    for (size_t k = 0; k < 4; k++) {
        int d = i + k < len ? json__hex(js[i + k]) : -1;
        if (d < 0) {
            return -1;
        }
        v = v << 4 | d;
    }
    return v;
}

/* How much of a \u escape a string scan checks: RFC 8259's syntax, or also what jansson
 * refuses (a surrogate that is not half of a high-low pair; \u0000 in a member name). */
enum json__escapes {
    JSON__ESCAPES_SYNTAX,
    JSON__ESCAPES_JANSSON_VALUE,
    JSON__ESCAPES_JANSSON_KEY,
};

/* json__u_end checks the \u escape whose 'u' is at i and returns the index after it (after
 * both halves of a surrogate pair when `mode` pairs them), or len when it is refused. */
JSON__INLINE size_t json__u_end(const char *js, size_t len, size_t i, enum json__escapes mode)
{
    long cp = json__hex4(js, len, i + 1);
    if (cp < 0) {
        return len;
    }
    if (mode == JSON__ESCAPES_SYNTAX) {
        return i + 5;
    }
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        bool escape = len - i > 6 && js[i + 5] == '\\' && js[i + 6] == 'u';
        long lo = escape ? json__hex4(js, len, i + 7) : -1;
        return lo >= 0xDC00 && lo <= 0xDFFF ? i + 11 : len;
    }
    bool refused = (cp >= 0xDC00 && cp <= 0xDFFF) || (mode == JSON__ESCAPES_JANSSON_KEY && cp == 0);
    return refused ? len : i + 5;
}

/* json__string_scan returns the index of the quote that closes the string
 * whose contents start at i, or len when the string is malformed: a control
 * byte, a bad escape (as `mode` has it), or no closing quote. */
JSON__INLINE size_t json__string_scan(const char *js, size_t len, size_t i, enum json__escapes mode)
{
    for (;;) {
        i = json__special(js, len, i);
        if (i >= len || js[i] == '"') {
            return i;
        }
        if (js[i] != '\\' || ++i >= len) {
            return len; /* a control byte, or a backslash that ends the text */
        }
        /* One of the escapes RFC 8259 allows. */
        switch (js[i]) {
        case '"':
        case '\\':
        case '/':
        case 'b':
        case 'f':
        case 'n':
        case 'r':
        case 't':
            i++;
            break;
        case 'u':
            i = json__u_end(js, len, i, mode);
            break;
        default:
            return len;
        }
    }
}

/* json__string_end is json__string_scan() checking escapes as RFC 8259 does. */
JSON__INLINE size_t json__string_end(const char *js, size_t len, size_t i)
{
    return json__string_scan(js, len, i, JSON__ESCAPES_SYNTAX);
}

static inline size_t json__digits(const char *js, size_t len, size_t i)
{
    while (i < len && js[i] >= '0' && js[i] <= '9') {
        i++;
    }
    return i;
}

/* json__literal_end returns the end of `word` at i, or i when it is not there. */
static inline size_t json__literal_end(const char *js, size_t len, size_t i, const char *word,
                                       size_t n)
{
    return len - i >= n && memcmp(js + i, word, n) == 0 ? i + n : i;
}

/* json__scalar_end returns the end of the number or literal starting at i,
 * or i when there is none there. */
static inline size_t json__scalar_end(const char *js, size_t len, size_t i)
{
    switch (js[i]) {
    case 't':
        return json__literal_end(js, len, i, "true", 4);
    case 'f':
        return json__literal_end(js, len, i, "false", 5);
    case 'n':
        return json__literal_end(js, len, i, "null", 4);
    default:
        break;
    }
    size_t j = i;
    if (js[j] == '-') {
        j++;
    }
    if (j < len && js[j] == '0') {
        j++;
    } else {
        size_t digits = json__digits(js, len, j);
        if (digits == j) {
            return i;
        }
        j = digits;
    }
    if (j < len && js[j] == '.') {
        size_t digits = json__digits(js, len, j + 1);
        if (digits == j + 1) {
            return i;
        }
        j = digits;
    }
    if (j < len && (js[j] == 'e' || js[j] == 'E')) {
        j++;
        if (j < len && (js[j] == '+' || js[j] == '-')) {
            j++;
        }
        size_t digits = json__digits(js, len, j);
        if (digits == j) {
            return i;
        }
        j = digits;
    }
    return j;
}

#endif
