/*
 * test_words.c - prompt word counting on raw JSON string bytes: the same count as the jansson
 * reader's count of the decoded string (split on the six ASCII spaces), for every escape, for words
 * across the eight-byte steps, and for every length and offset of a generated string.
 */
#include <criterion/criterion.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "mock/mock_internal.h"
#include "tests/mock/api_jansson.h"

struct words_case {
    const char *raw;
    uint64_t words;
};

static const struct words_case WORDS[] = {
    {"", 0},
    {" ", 0},
    {"a", 1},
    {" a ", 1},
    {"one two  three", 3},
    {"\t\v\f\r\n", 0},
    {"a\x0b"
     "b",
     2},
    {"a\\nb", 2},
    {"a\\tb\\rc\\fd", 4},
    {"a\\bb", 1},   /* backspace is not a space */
    {"a\\/b", 1},   /* nor a slash */
    {"a\\\"b", 1},  /* nor a quote */
    {"a\\\\nb", 1}, /* an escaped backslash, then the letter n */
    {"a\\u0020b", 2},
    {"a\\u0009b\\u000Bc\\u000dd", 4},
    {"a\\u00a0b", 1}, /* no-break space is not ASCII whitespace */
    {"a\\u0000b", 1},
    {"\\ud83d\\ude00 \\ud83d\\ude00", 2},
    {"\\n\\n", 0},
    {"x\\n", 1},
    {"\\nx", 1},
    {"caf\xc3\xa9 ol\xc3\xa9", 2},
    {"aaaaaaa bbbbbbbb ccccccccc", 3},        /* words across the eight-byte steps */
    {"       a        b       c        ", 3}, /* spaces across them */
    {"\x80\x81\xff \xa0\x85", 2},             /* bytes >= 0x80 are never spaces */
    {"!\"#$%&'()*+,-./09:;<=>?@AZ[]^_`az{|}~\x7f\x08\x1f\x0e", 1},
};

Test(mock_words, table)
{
    for (size_t i = 0; i < sizeof(WORDS) / sizeof(WORDS[0]); i++) {
        const struct words_case *c = &WORDS[i];
        cr_expect_eq(mock__prompt_words(c->raw, strlen(c->raw)), c->words, "case %zu: \"%s\"", i,
                     c->raw);
    }
}

/* Every byte value, alone and beside words, at every offset from an eight-byte step. */
Test(mock_words, every_byte_at_every_offset)
{
    char buf[64];
    for (unsigned b = 1; b < 256; b++) {
        if (b == '\\') {
            continue; /* only in escapes, tested above */
        }
        for (size_t off = 0; off < 17; off++) {
            memset(buf, 'w', sizeof(buf));
            buf[off] = (char)b;
            buf[off + 2] = ' ';
            size_t n = off + 3 + (b % 7);
            cr_assert_eq(mock__prompt_words(buf, n), mock_ref_count_words(buf, n),
                         "byte 0x%02x at %zu", b, off);
        }
    }
}

/* Random strings of spaces, letters and escapes against the decoded count. */
Test(mock_words, random_strings_match_the_decoded_count)
{
    static const char *pieces[] = {" ",       "\t",   "\n",       "\v",  "\f",  "\r",
                                   "a",       "bc",   "\xc3\xa9", "\\n", "\\t", "\\u0020",
                                   "\\u0041", "\\\\", "\\\"",     "\\b"};
    static const char *decoded[] = {" ",        "\t", "\n", "\v", "\f", "\r", "a",  "bc",
                                    "\xc3\xa9", "\n", "\t", " ",  "A",  "\\", "\"", "\b"};
    unsigned seed = 7;
    for (int round = 0; round < 2000; round++) {
        char raw[512];
        char dec[512];
        size_t rn = 0;
        size_t dn = 0;
        int count = rand_r(&seed) % 60;
        for (int k = 0; k < count; k++) {
            size_t p = (size_t)rand_r(&seed) % (sizeof(pieces) / sizeof(pieces[0]));
            memcpy(raw + rn, pieces[p], strlen(pieces[p]));
            rn += strlen(pieces[p]);
            memcpy(dec + dn, decoded[p], strlen(decoded[p]));
            dn += strlen(decoded[p]);
        }
        cr_assert_eq(mock__prompt_words(raw, rn), mock_ref_count_words(dec, dn), "round %d: %.*s",
                     round, (int)rn, raw);
    }
}
