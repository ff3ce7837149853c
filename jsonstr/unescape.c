/*
 * unescape.c - bounded JSON string unescaping into UTF-8, and comparing
 * escaped bytes with decoded ones through the same decoder.
 *
 * Every escape decodes to no more bytes than it occupies (\n 2->1, \uXXXX
 * 6->at most 3, a surrogate pair 12->4, U+FFFD for a lone surrogate 6->3) and
 * invalid escapes are copied through, so the output never outgrows the input.
 */
#include <string.h>

#include "jsonstr/jsonstr.h"

static int unescape__hex4(const char *s, size_t n, unsigned *out)
{
    unsigned v = 0;
    if (n < 4) {
        return -1;
    }
    for (int i = 0; i < 4; i++) {
        char c = s[i];
        unsigned d;
        if (c >= '0' && c <= '9') {
            d = (unsigned)(c - '0');
        } else if (c >= 'a' && c <= 'f') {
            d = (unsigned)(c - 'a' + 10);
        } else if (c >= 'A' && c <= 'F') {
            d = (unsigned)(c - 'A' + 10);
        } else {
            return -1;
        }
        v = v << 4 | d;
    }
    *out = v;
    return 0;
}

static size_t unescape__utf8(unsigned cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Decodes a \u escape at s (s[0] == '\\', s[1] == 'u'); *adv gets the input
 * bytes used, the return value the output bytes written to tmp. */
static size_t unescape__u(const char *s, size_t n, char *tmp, size_t *adv)
{
    unsigned cp;
    unsigned lo;
    if (unescape__hex4(s + 2, n - 2, &cp) < 0) {
        tmp[0] = '\\';
        *adv = 1;
        return 1;
    }
    *adv = 6;
    if (cp >= 0xD800 && cp <= 0xDBFF && n >= 12 && s[6] == '\\' && s[7] == 'u' &&
        unescape__hex4(s + 8, n - 8, &lo) == 0 && lo >= 0xDC00 && lo <= 0xDFFF) {
        *adv = 12;
        return unescape__utf8(0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00), tmp);
    }
    if (cp >= 0xD800 && cp <= 0xDFFF) {
        cp = 0xFFFD;
    }
    return unescape__utf8(cp, tmp);
}

/* Decodes the escape at s (s[0] == '\\') into tmp. */
static size_t unescape__escape(const char *s, size_t n, char *tmp, size_t *adv)
{
    static const char from[] = "\"\\/bfnrt";
    static const char to[] = "\"\\/\b\f\n\r\t";
    if (n >= 2 && s[1] == 'u') {
        return unescape__u(s, n, tmp, adv);
    }
    const char *hit = n >= 2 && s[1] != '\0' ? strchr(from, s[1]) : NULL;
    if (!hit) {
        tmp[0] = '\\';
        *adv = 1;
        return 1;
    }
    tmp[0] = to[hit - from];
    *adv = 2;
    return 1;
}

/* Copies up to `cap` bytes of a run of plain bytes without splitting a UTF-8
 * sequence; returns the bytes copied. */
static size_t unescape__run(const char *src, size_t n, char *out, size_t cap)
{
    if (n > cap) {
        n = cap;
        while (n > 0 && ((unsigned char)src[n] & 0xC0) == 0x80) {
            n--;
        }
    }
    if (n > 0) {
        memcpy(out, src, n);
    }
    return n;
}

size_t jsonstr_unescape(const char *esc, size_t len, char *out, size_t cap, bool *out_truncated)
{
    size_t i = 0;
    size_t o = 0;
    bool truncated = false;
    while (i < len) {
        const char *bs = memchr(esc + i, '\\', len - i);
        size_t run = bs ? (size_t)(bs - (esc + i)) : len - i;
        size_t copied = unescape__run(esc + i, run, out + o, cap - o);
        o += copied;
        i += copied;
        if (copied < run) {
            truncated = true;
            break;
        }
        if (!bs) {
            break;
        }
        char tmp[4];
        size_t adv;
        size_t n = unescape__escape(esc + i, len - i, tmp, &adv);
        if (n > cap - o) {
            truncated = true;
            break;
        }
        memcpy(out + o, tmp, n);
        o += n;
        i += adv;
    }
    if (out_truncated) {
        *out_truncated = truncated;
    }
    return o;
}

bool jsonstr_equal(const char *esc, size_t len, const char *want, size_t n)
{
    /* No escape decodes to more bytes than it occupies. */
    if (n > len) {
        return false;
    }
    size_t i = 0;
    size_t o = 0;
    while (i < len) {
        const char *bs = memchr(esc + i, '\\', len - i);
        size_t run = bs ? (size_t)(bs - (esc + i)) : len - i;
        if (run > n - o || memcmp(esc + i, want + o, run) != 0) {
            return false;
        }
        i += run;
        o += run;
        if (!bs) {
            break;
        }
        char tmp[4];
        size_t adv;
        size_t k = unescape__escape(esc + i, len - i, tmp, &adv);
        if (k > n - o || memcmp(tmp, want + o, k) != 0) {
            return false;
        }
        o += k;
        i += adv;
    }
    return o == n;
}
