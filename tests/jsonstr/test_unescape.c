/*
 * test_unescape.c - JSON string escapes: decoding (valid escapes, invalid ones passed through,
 * truncation at a whole character) and comparing escaped bytes with decoded ones, which must
 * agree with decoding on every case.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "jsonstr/jsonstr.h"

struct unescape_case {
    const char *esc;
    const char *want;
    size_t want_len; /* 0: strlen(want) */
};

static const struct unescape_case UNESCAPE_CASES[] = {
    {"plain", "plain", 0},
    {"\\\"\\\\\\/\\b\\f\\n\\r\\t", "\"\\/\b\f\n\r\t", 0},
    {"\\u0041\\u00e9\\u20AC", "A\xC3\xA9\xE2\x82\xAC", 0},
    {"\\ud83d\\ude00", "\xF0\x9F\x98\x80", 0},
    {"\\ud800x", "\xEF\xBF\xBDx", 0},
    {"\\udc00", "\xEF\xBF\xBD", 0},
    {"\\ud800\\u0041",
     "\xEF\xBF\xBD"
     "A",
     0},
    {"\\ud800\\ud800\\udc00", "\xEF\xBF\xBD\xF0\x90\x80\x80", 0},
    {"\\q", "\\q", 0},
    {"\\u12", "\\u12", 0},
    {"\\u12G4", "\\u12G4", 0},
    {"ab\\", "ab\\", 0},
    {"a\\u0000b", "a\0b", 3},
    {"h\xC3\xA9llo", "h\xC3\xA9llo", 0},
};

Test(jsonstr_unescape, escapes_decode_and_invalid_ones_pass_through)
{
    for (size_t i = 0; i < sizeof(UNESCAPE_CASES) / sizeof(UNESCAPE_CASES[0]); i++) {
        const struct unescape_case *uc = &UNESCAPE_CASES[i];
        size_t len = strlen(uc->esc);
        size_t want_len = uc->want_len ? uc->want_len : strlen(uc->want);
        char *out = malloc(len ? len : 1);
        bool truncated = true;
        size_t n = jsonstr_unescape(uc->esc, len, out, len, &truncated);
        cr_assert_not(truncated, "case %s", uc->esc);
        cr_assert_eq(n, want_len, "case %s", uc->esc);
        cr_assert_eq(memcmp(out, uc->want, n), 0, "case %s", uc->esc);
        free(out);
    }
}

Test(jsonstr_unescape, truncation_stops_at_a_whole_character)
{
    char out[8];
    bool truncated = false;
    cr_assert_eq(jsonstr_unescape("h\xC3\xA9llo", 6, out, 2, &truncated), 1);
    cr_assert(truncated);
    cr_assert_eq(jsonstr_unescape("\\u20ac", 6, out, 2, &truncated), 0);
    cr_assert(truncated);
    cr_assert_eq(jsonstr_unescape("ab\\n", 4, out, 3, &truncated), 3);
    cr_assert_not(truncated, "exact fit is not truncation");
    cr_assert_eq(jsonstr_unescape("ab\\n", 4, out, 2, &truncated), 2);
    cr_assert(truncated);
    cr_assert_eq(jsonstr_unescape("abc", 3, out, 0, NULL), 0);
}

/* jsonstr_equal agrees with decoding then comparing, on every decode case and its neighbours:
 * the decoded bytes with one byte changed, one dropped and one added never match. */
Test(jsonstr_equal, agrees_with_unescape_then_compare)
{
    for (size_t i = 0; i < sizeof(UNESCAPE_CASES) / sizeof(UNESCAPE_CASES[0]); i++) {
        const struct unescape_case *uc = &UNESCAPE_CASES[i];
        size_t len = strlen(uc->esc);
        size_t want_len = uc->want_len ? uc->want_len : strlen(uc->want);
        cr_assert(jsonstr_equal(uc->esc, len, uc->want, want_len), "case %s", uc->esc);
        char other[64];
        cr_assert_lt(want_len + 1, sizeof(other));
        memcpy(other, uc->want, want_len);
        other[want_len] = 'z';
        cr_assert_not(jsonstr_equal(uc->esc, len, other, want_len + 1), "longer, case %s", uc->esc);
        if (want_len > 0) {
            cr_assert_not(jsonstr_equal(uc->esc, len, other, want_len - 1), "shorter, case %s",
                          uc->esc);
            other[want_len - 1] ^= 0x01;
            cr_assert_not(jsonstr_equal(uc->esc, len, other, want_len), "changed, case %s",
                          uc->esc);
        }
    }
}

/* The names a quoted JMESPath identifier and a response's JSON may spell differently. */
Test(jsonstr_equal, escaped_and_plain_spellings_of_a_name_match)
{
    cr_assert(jsonstr_equal("caf\\u00e9", 9, "caf\xC3\xA9", 5));
    cr_assert(jsonstr_equal("caf\xC3\xA9", 5, "caf\xC3\xA9", 5));
    cr_assert(jsonstr_equal("a\\\"b", 4, "a\"b", 3));
    cr_assert(jsonstr_equal("tab\\t", 5, "tab\t", 4));
    /* An escaped backslash is one byte once decoded: the bytes as written do not match. */
    cr_assert_not(jsonstr_equal("a\\\\b", 4, "a\\\\b", 4));
    cr_assert(jsonstr_equal("a\\\\b", 4, "a\\b", 3));
    cr_assert(jsonstr_equal("", 0, "", 0));
    cr_assert_not(jsonstr_equal("", 0, "a", 1));
    cr_assert_not(jsonstr_equal("a", 1, "", 0));
}
