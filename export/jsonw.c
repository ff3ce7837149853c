#include "export/export_jsonw.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int export_jsonw_open(struct export_jsonw *w, const char *path, size_t cap,
                      enum export_outfile_mode mode, enum export_outfile_naming naming)
{
    *w = (struct export_jsonw){0};
    if (cap < 2 * EXPORT_JSONW_PIECE_MAX) {
        cap = 2 * EXPORT_JSONW_PIECE_MAX;
    }
    int ret = export_outfile_open(&w->file, path, cap, mode, naming);
    if (ret != 0) {
        return ret;
    }
    w->buf = export_outfile_buffer(&w->file);
    w->cap = w->file.cap;
    return 0;
}

int export_jsonw_flush(struct export_jsonw *w)
{
    if (w->buf != NULL) {
        w->error = export_outfile_sync(&w->file, w->buf, &w->len);
    }
    return w->error;
}

int export_jsonw_close(struct export_jsonw *w)
{
    if (w->buf == NULL) {
        return w->error;
    }
    int ret = export_outfile_close(&w->file, w->buf, w->len);
    w->error = w->error != 0 ? w->error : ret;
    w->buf = NULL;
    w->len = 0;
    return w->error;
}

/* hand_off gives the full buffer to the file and takes the next one, which
 * may start with a carried-over part of the last block. */
static void hand_off(struct export_jsonw *w)
{
    w->buf = export_outfile_put(&w->file, w->buf, &w->len);
    w->error = w->file.error;
}

void export_jsonw_raw_after_hand_off(struct export_jsonw *w, const char *text, size_t len)
{
    hand_off(w);
    /* Cut only what cannot fit even in a fresh buffer: a piece that fits is
     * written whole whether or not a hand-off came first. */
    if (len > w->cap - w->len) {
        len = w->cap - w->len;
    }
    memcpy(w->buf + w->len, text, len);
    w->len += len;
}

/* room makes sure n more bytes fit, flushing first when they would not. */
static char *room(struct export_jsonw *w, size_t n)
{
    if (w->len + n > w->cap) {
        hand_off(w);
    }
    return w->buf + w->len;
}

static bool needs_escape(unsigned char ch)
{
    return ch == '"' || ch == '\\' || ch < 0x20;
}

/* plain_run returns how many bytes from s[0] on need no escaping, at most
 * len, looking at eight bytes at a time: in each of the three tests below a
 * byte's top bit is set exactly when some byte of the word is below 0x20, is
 * '"' or is '\\' (the "has a byte less than / equal to" tricks of Bit Twiddling
 * Hacks, exact as yes-or-no answers). */
static size_t plain_run(const char *s, size_t len)
{
    const uint64_t ones = UINT64_C(0x0101010101010101);
    const uint64_t high = ones * 0x80;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t x;
        memcpy(&x, s + i, sizeof(x));
        uint64_t quote = x ^ (ones * '"');
        uint64_t backslash = x ^ (ones * '\\');
        uint64_t hit = ((x - ones * 0x20) & ~x) | ((quote - ones) & ~quote) |
                       ((backslash - ones) & ~backslash);
        if ((hit & high) != 0) {
            break;
        }
    }
    while (i < len && !needs_escape((unsigned char)s[i])) {
        i++;
    }
    return i;
}

/* escape_piece appends the escaped body of a string, at most
 * EXPORT_JSONW_PIECE_MAX / 6 input bytes of it; returns how many it took. */
static size_t escape_piece(struct export_jsonw *w, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    if (len > EXPORT_JSONW_PIECE_MAX / 6) {
        len = EXPORT_JSONW_PIECE_MAX / 6;
    }
    char *p = room(w, len * 6);
    char *start = p;
    size_t i = 0;
    while (i < len) {
        /* Most text needs no escaping: copy each run of plain bytes at once. */
        size_t run = i + plain_run(s + i, len - i);
        memcpy(p, s + i, run - i);
        p += run - i;
        if (run == len) {
            break;
        }
        unsigned char ch = (unsigned char)s[run];
        if (ch == '"' || ch == '\\') {
            *p++ = '\\';
            *p++ = (char)ch;
        } else {
            memcpy(p, "\\u00", 4);
            p[4] = hex[ch >> 4];
            p[5] = hex[ch & 15];
            p += 6;
        }
        i = run + 1;
    }
    w->len += (size_t)(p - start);
    return len;
}

void export_jsonw_string(struct export_jsonw *w, const char *s, size_t len)
{
    if (len > EXPORT_JSONW_PIECE_MAX / 6 - 2) {
        len = EXPORT_JSONW_PIECE_MAX / 6 - 2;
    }
    export_jsonw_raw(w, "\"", 1);
    escape_piece(w, s, len);
    export_jsonw_raw(w, "\"", 1);
}

void export_jsonw_string_long(struct export_jsonw *w, const char *s, size_t len)
{
    export_jsonw_raw(w, "\"", 1);
    /* Escaping is byte by byte, so pieces may split a UTF-8 sequence. */
    for (size_t done = 0; done < len;) {
        done += escape_piece(w, s + done, len - done);
    }
    export_jsonw_raw(w, "\"", 1);
}

/* decimal_length returns how many digits u has: its bit length times
 * log10(2) (1233 / 4096) gives it to within one, and a table settles it. */
static size_t decimal_length(uint64_t u)
{
    static const uint64_t powers[20] = {1,
                                        10,
                                        100,
                                        1000,
                                        10000,
                                        100000,
                                        1000000,
                                        10000000,
                                        100000000,
                                        1000000000,
                                        10000000000,
                                        100000000000,
                                        1000000000000,
                                        10000000000000,
                                        100000000000000,
                                        1000000000000000,
                                        10000000000000000,
                                        100000000000000000,
                                        1000000000000000000,
                                        10000000000000000000u};
    unsigned bits = 64 - (unsigned)__builtin_clzll(u | 1);
    unsigned guess = (bits * 1233) >> 12; /* floor(log10(u)), or one more */
    return guess + 1 - (u < powers[guess]) + (u == 0);
}

/* eight_digits returns the eight decimal digits of v < 10^8, leading zeros
 * included, as ASCII bytes in little-endian memory order: the halves, then
 * quarters, then single digits are split in every lane of the word at once,
 * each division a multiplication by a reciprocal exact for the lane's range
 * (x / 100 = x * 10486 >> 20 below 43,699; x / 10 = x * 103 >> 10 below 179). */
static uint64_t eight_digits(uint32_t v)
{
    uint64_t x = (uint64_t)(v / 10000) | (uint64_t)(v % 10000) << 32;
    uint64_t q = ((x * 10486) >> 20) & UINT64_C(0x0000007f0000007f);
    x = q | (x - q * 100) << 16;
    q = ((x * 103) >> 10) & UINT64_C(0x000f000f000f000f);
    x = q | (x - q * 10) << 8;
    return x | UINT64_C(0x3030303030303030);
}

/* The decimal digits of 0..99, two by two. */
static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324"
                                  "25262728293031323334353637383940414243444546474849"
                                  "50515253545556575859606162636465666768697071727374"
                                  "75767778798081828384858687888990919293949596979899";

void export_jsonw_int(struct export_jsonw *w, int64_t v)
{
    /* The digits go straight into the buffer from the end: eight at a time
     * while more than eight remain (timestamps have nineteen, and a record
     * line holds a dozen of them), then two per division. */
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    size_t n = decimal_length(u);
    char *p = room(w, n + 1);
    if (v < 0) {
        *p++ = '-';
        w->len++;
    }
    w->len += n;
    char *end = p + n;
    while (u >= 100000000) {
        uint64_t digits = eight_digits((uint32_t)(u % 100000000));
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        digits = __builtin_bswap64(digits);
#endif
        end -= 8;
        memcpy(end, &digits, 8);
        u /= 100000000;
    }
    while (u >= 100) {
        end -= 2;
        memcpy(end, digit_pairs + 2 * (u % 100), 2);
        u /= 100;
    }
    if (u >= 10) {
        memcpy(end - 2, digit_pairs + 2 * u, 2);
    } else {
        end[-1] = (char)('0' + u);
    }
}

void export_jsonw_ms_from_ns(struct export_jsonw *w, int64_t ns)
{
    int64_t whole = ns / 1000000;
    int64_t frac = ns % 1000000;
    if (ns < 0 && frac != 0) {
        export_jsonw_raw(w, "-", 1);
        whole = -whole;
        frac = -frac;
    }
    export_jsonw_int(w, whole);
    if (frac == 0) {
        return;
    }
    char digits[8] = {'.'};
    for (int i = 6; i >= 1; i--) {
        digits[i] = (char)('0' + frac % 10);
        frac /= 10;
    }
    size_t len = 7;
    while (digits[len - 1] == '0') {
        len--;
    }
    export_jsonw_raw(w, digits, len);
}

void export_jsonw_double(struct export_jsonw *w, double v)
{
    if (!isfinite(v)) {
        export_jsonw_raw(w, "null", 4);
        return;
    }
    char text[32];
    int n = snprintf(text, sizeof(text), "%.15g", v);
    /* A bare integer would read back as an int; keep the value a float. */
    bool has_point = strpbrk(text, ".eEn") != NULL;
    export_jsonw_raw(w, text, (size_t)n);
    if (!has_point) {
        export_jsonw_raw(w, ".0", 2);
    }
}
