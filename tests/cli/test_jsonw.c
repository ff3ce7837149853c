/* The per-record JSON writer: escaping (with its word-at-a-time scan), keys,
 * integers and the flush boundary, checked against the exact bytes. */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/jsonw.h"

struct sink {
    char *text;
    size_t len;
    FILE *file;
    struct cli_jsonw w;
};

static void sink_open(struct sink *s, size_t cap)
{
    *s = (struct sink){0};
    s->file = open_memstream(&s->text, &s->len);
    cr_assert_not_null(s->file);
    cr_assert_eq(cli_jsonw_init(&s->w, s->file, cap), 0);
}

/* sink_close flushes everything and returns the text written (caller frees). */
static char *sink_close(struct sink *s)
{
    cr_assert_eq(cli_jsonw_flush(&s->w), 0);
    cli_jsonw_free(&s->w);
    cr_assert_eq(fclose(s->file), 0);
    return s->text;
}

/* reference_escape is the byte-by-byte rule the writer must match. */
static size_t reference_escape(const unsigned char *in, size_t len, char *out)
{
    static const char hex[] = "0123456789abcdef";
    size_t n = 0;
    out[n++] = '"';
    for (size_t i = 0; i < len; i++) {
        if (in[i] == '"' || in[i] == '\\') {
            out[n++] = '\\';
            out[n++] = (char)in[i];
        } else if (in[i] < 0x20) {
            memcpy(out + n, "\\u00", 4);
            out[n + 4] = hex[in[i] >> 4];
            out[n + 5] = hex[in[i] & 15];
            n += 6;
        } else {
            out[n++] = (char)in[i];
        }
    }
    out[n++] = '"';
    return n;
}

Test(cli_jsonw, every_byte_at_every_offset_is_escaped_as_json_requires)
{
    unsigned char text[40];
    char expected[40 * 6 + 2];
    for (unsigned byte = 0; byte < 256; byte++) {
        for (size_t at = 0; at < sizeof(text); at++) {
            memset(text, 'a', sizeof(text));
            text[at] = (unsigned char)byte;
            size_t n = reference_escape(text, sizeof(text), expected);
            struct sink s;
            sink_open(&s, 0);
            cli_jsonw_string(&s.w, (const char *)text, sizeof(text));
            char *got = sink_close(&s);
            cr_assert_eq(s.len, n, "byte 0x%02x at %zu", byte, at);
            cr_assert_eq(memcmp(got, expected, n), 0, "byte 0x%02x at %zu", byte, at);
            free(got);
        }
    }
}

Test(cli_jsonw, long_strings_are_written_whole_across_pieces_and_flushes)
{
    enum { LEN = 3 * CLI_JSONW_PIECE_MAX + 17 };
    unsigned char *text = malloc(LEN);
    char *expected = malloc(LEN * 6 + 2);
    cr_assert(text != NULL && expected != NULL);
    for (size_t i = 0; i < LEN; i++) {
        text[i] = (unsigned char)(i % 7 == 0 ? '"' : i % 11 == 0 ? '\n' : 'a' + i % 26);
    }
    size_t n = reference_escape(text, LEN, expected);
    struct sink s;
    sink_open(&s, 0); /* the smallest buffer: several flushes on the way */
    cli_jsonw_string_long(&s.w, (const char *)text, LEN);
    char *got = sink_close(&s);
    cr_assert_eq(s.len, n);
    cr_assert_eq(memcmp(got, expected, n), 0);
    free(got);
    free(text);
    free(expected);
}

/* A raw piece is written whole whether it fits after what is buffered or
 * needs a flush first; only one longer than the whole buffer is cut. */
Test(cli_jsonw, raw_pieces_are_whole_with_or_without_a_flush)
{
    enum { PIECE = CLI_JSONW_PIECE_MAX + 100, PIECES = 7 };
    char *piece = malloc(PIECE);
    cr_assert_not_null(piece);
    struct sink s;
    sink_open(&s, 0); /* the smallest buffer: some pieces fit, some follow a flush */
    for (int i = 0; i < PIECES; i++) {
        memset(piece, 'a' + i, PIECE);
        cli_jsonw_raw(&s.w, piece, PIECE);
    }
    size_t cap = s.w.cap;
    char *huge = malloc(cap + 10);
    cr_assert_not_null(huge);
    memset(huge, 'z', cap + 10);
    cli_jsonw_raw(&s.w, huge, cap + 10);
    char *got = sink_close(&s);
    cr_assert_eq(s.len, (size_t)PIECE * PIECES + cap);
    for (int i = 0; i < PIECES; i++) {
        memset(piece, 'a' + i, PIECE);
        cr_assert_eq(memcmp(got + (size_t)i * PIECE, piece, PIECE), 0, "piece %d", i);
    }
    cr_assert_eq(memcmp(got + (size_t)PIECE * PIECES, huge, cap), 0, "the cut piece");
    free(got);
    free(huge);
    free(piece);
}

Test(cli_jsonw, integers_keys_and_literals)
{
    static const int64_t values[] = {
        0, 7, -7, 10, 99, 100, -100, 12345, 1795413729518934704, INT64_MAX, INT64_MIN};
    struct sink s;
    sink_open(&s, 0);
    bool first = true;
    cli_jsonw_raw(&s.w, "{", 1);
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        cli_jsonw_key(&s.w, &first, "k");
        cli_jsonw_int(&s.w, values[i]);
    }
    cli_jsonw_lit(&s.w, "}");
    char *got = sink_close(&s);
    cr_assert_str_eq(got, "{\"k\":0,\"k\":7,\"k\":-7,\"k\":10,\"k\":99,\"k\":100,\"k\":-100,"
                          "\"k\":12345,\"k\":1795413729518934704,\"k\":9223372036854775807,"
                          "\"k\":-9223372036854775808}");
    free(got);
}

Test(cli_jsonw, milliseconds_from_nanoseconds_are_exact)
{
    struct sink s;
    sink_open(&s, 0);
    cli_jsonw_ms_from_ns(&s.w, 911153);
    cli_jsonw_raw(&s.w, " ", 1);
    cli_jsonw_ms_from_ns(&s.w, 5000000);
    cli_jsonw_raw(&s.w, " ", 1);
    cli_jsonw_ms_from_ns(&s.w, -1500000);
    char *got = sink_close(&s);
    cr_assert_str_eq(got, "0.911153 5 -1.5");
    free(got);
}

Test(cli_jsonw, random_integers_of_every_length_match_printf)
{
    /* xorshift64, shifted right by a varying amount so that every length
     * from one digit to nineteen comes up often. */
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int64_t v = (int64_t)(x >> (i % 64));
        v = (i & 64) != 0 ? -v : v;
        struct sink s;
        sink_open(&s, 0);
        cli_jsonw_int(&s.w, v);
        char *got = sink_close(&s);
        char want[32];
        snprintf(want, sizeof(want), "%lld", (long long)v);
        cr_assert_str_eq(got, want);
        free(got);
    }
}

Test(cli_jsonw, integers_match_printf_at_every_digit_count)
{
    int64_t values[64 * 3 + 2];
    size_t count = 0;
    int64_t power = 1;
    for (int digits = 1; digits <= 19; digits++) {
        values[count++] = power - 1;
        values[count++] = power;
        values[count++] = -(power + 1);
        power = digits < 19 ? power * 10 : power;
    }
    values[count++] = INT64_MAX;
    values[count++] = INT64_MIN;
    for (size_t i = 0; i < count; i++) {
        struct sink s;
        sink_open(&s, 0);
        cli_jsonw_int(&s.w, values[i]);
        char *got = sink_close(&s);
        char want[32];
        snprintf(want, sizeof(want), "%lld", (long long)values[i]);
        cr_assert_str_eq(got, want);
        free(got);
    }
}
