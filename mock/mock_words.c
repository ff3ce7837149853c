/*
 * mock_words.c - counting the whitespace-separated words of a prompt string as it sits in the
 * request body, escapes and all.
 *
 * The prompt is most of a request's bytes, so this runs eight bytes at a time: a word starts
 * at each byte that is not a space and follows one (or the string's start), and the masks
 * of both are exact per byte, so their AND counts the starts. Eight bytes that hold a
 * backslash go a byte at a time; each escape is one character, a space when it decodes to
 * one.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "mock/mock_internal.h"

#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "run_words reads the string's first byte as the low byte of a word"
#endif

#define ONES UINT64_C(0x0101010101010101)
#define LOW7 (ONES * 0x7F)
#define HIGHS (ONES * 0x80)

static bool is_space(unsigned c)
{
    return c == ' ' || (c >= '\t' && c <= '\r'); /* \t \n \v \f \r */
}

/* space_mask returns 0x80 in each byte of x that is a space, 0 in the others. The adds stay
 * inside their byte (at most 0x7F + 0x7F), so no byte's result borrows from its neighbour. */
static uint64_t space_mask(uint64_t x)
{
    uint64_t low = x & LOW7;
    uint64_t y = x ^ (ONES * ' ');
    uint64_t blank = ~(((y & LOW7) + LOW7) | y) & HIGHS;   /* y == 0: the byte is ' ' */
    uint64_t ge_tab = low + ONES * (0x80 - '\t');          /* >= 0x09 in the low seven bits */
    uint64_t ge_after_cr = low + ONES * (0x80 - '\r' - 1); /* >= 0x0E */
    uint64_t control = ge_tab & ~ge_after_cr & ~x & HIGHS;
    return blank | control;
}

/* step_words counts the words starting in the first n (1 to 8) bytes of x; *carry is 0x80
 * when the byte before them was a space (or they start the string) and becomes the same for
 * their last byte. */
static uint64_t step_words(uint64_t x, size_t n, uint64_t *carry)
{
    uint64_t space = space_mask(x);
    uint64_t starts = ~space & HIGHS & (space << 8 | *carry);
    if (n < 8) {
        starts &= (UINT64_C(1) << (8 * n)) - 1;
    }
    *carry = space >> (8 * (n - 1)) & 0x80;
    return ((starts >> 7) * ONES) >> 56; /* bytes are 0 or 1: the multiply sums them */
}

/* first_backslash returns the index of the first backslash among the eight bytes of x, or 8.
 * The borrow trick flags the lowest zero byte of y exactly, which is all this needs. */
static size_t first_backslash(uint64_t x)
{
    uint64_t y = x ^ (ONES * '\\');
    uint64_t hit = (y - ONES) & ~y & HIGHS;
    return hit == 0 ? 8 : (size_t)__builtin_ctzll(hit) / 8;
}

static unsigned hex4(const char *s)
{
    unsigned v = 0;
    for (int k = 0; k < 4; k++) {
        char c = s[k];
        v = v << 4 | (c <= '9' ? (unsigned)(c - '0') : (unsigned)((c | 0x20) - 'a' + 10));
    }
    return v;
}

uint64_t mock__prompt_words(const char *raw, size_t len)
{
    uint64_t words = 0;
    uint64_t carry = 0x80; /* the string's start counts as a space before it */
    size_t i = 0;
    while (i < len) {
        size_t plain = 0; /* bytes before the next backslash, within eight */
        if (len - i >= 8) {
            uint64_t x;
            memcpy(&x, raw + i, sizeof(x));
            plain = first_backslash(x);
            if (plain > 0) {
                words += step_words(x, plain, &carry);
                i += plain;
            }
            if (plain == 8) {
                continue;
            }
        }
        /* One escape, or one byte of the last few. One escape is one character: \uXXXX of a
         * surrogate pair is one of two halves, both not spaces, so counting each half alone
         * gives the same words. */
        bool space;
        if (raw[i] == '\\') {
            char e = raw[i + 1];
            space = e == 'n' || e == 't' || e == 'r' || e == 'f' ||
                    (e == 'u' && is_space(hex4(raw + i + 2)));
            i += e == 'u' ? 6 : 2;
        } else {
            space = is_space((unsigned char)raw[i]);
            i++;
        }
        words += !space && carry != 0;
        carry = space ? 0x80 : 0;
    }
    return words;
}
