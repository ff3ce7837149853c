/* The per-record JSON writer: escaping (with its word-at-a-time scan), keys,
 * integers and the flush boundary, checked against the exact bytes. */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/export_jsonw.h"
#include "tests/support/read_text.h"

struct sink {
    char path[64];
    char *text;
    size_t len;
    struct export_jsonw w;
};

/* sink_open starts a writer on a new temporary file, written as the
 * records are (direct where the filesystem allows it). */
static void sink_open(struct sink *s, size_t cap)
{
    *s = (struct sink){0};
    snprintf(s->path, sizeof(s->path), "/tmp/ringperf-jsonw-XXXXXX");
    int fd = mkstemp(s->path);
    cr_assert_geq(fd, 0);
    close(fd);
    cr_assert_eq(
        export_jsonw_open(&s->w, s->path, cap, EXPORT_OUTFILE_DIRECT, EXPORT_OUTFILE_IN_PLACE), 0);
}

/* sink_close closes the writer and returns the text of the file (caller frees). */
static char *sink_close(struct sink *s)
{
    cr_assert_eq(export_jsonw_close(&s->w), 0);
    s->text = test_read_path(s->path);
    cr_assert_not_null(s->text);
    s->len = strlen(s->text);
    unlink(s->path);
    return s->text;
}

/* next_line returns the next line of the text at *cursor, which must have one. */
static char *next_line(char **cursor)
{
    char *line = test_next_line(cursor);
    cr_assert_not_null(line, "one more line");
    return line;
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

Test(export_jsonw, every_byte_at_every_offset_is_escaped_as_json_requires)
{
    unsigned char text[40];
    char expected[40 * 6 + 2];
    /* One string a line: escaped, none holds a raw line end. */
    struct sink s;
    sink_open(&s, 0);
    for (unsigned byte = 0; byte < 256; byte++) {
        for (size_t at = 0; at < sizeof(text); at++) {
            memset(text, 'a', sizeof(text));
            text[at] = (unsigned char)byte;
            export_jsonw_string(&s.w, (const char *)text, sizeof(text));
            export_jsonw_raw(&s.w, "\n", 1);
        }
    }
    char *got = sink_close(&s);
    char *pos = got;
    for (unsigned byte = 0; byte < 256; byte++) {
        for (size_t at = 0; at < sizeof(text); at++) {
            memset(text, 'a', sizeof(text));
            text[at] = (unsigned char)byte;
            size_t n = reference_escape(text, sizeof(text), expected);
            char *line = next_line(&pos);
            cr_assert_eq(strlen(line), n, "byte 0x%02x at %zu", byte, at);
            cr_assert_eq(memcmp(line, expected, n), 0, "byte 0x%02x at %zu", byte, at);
        }
    }
    cr_assert_eq(pos, got + s.len, "every line was checked");
    free(got);
}

Test(export_jsonw, long_strings_are_written_whole_across_pieces_and_flushes)
{
    enum { LEN = 3 * EXPORT_JSONW_PIECE_MAX + 17 };
    unsigned char *text = malloc(LEN);
    char *expected = malloc(LEN * 6 + 2);
    cr_assert(text != NULL && expected != NULL);
    for (size_t i = 0; i < LEN; i++) {
        text[i] = (unsigned char)(i % 7 == 0 ? '"' : i % 11 == 0 ? '\n' : 'a' + i % 26);
    }
    size_t n = reference_escape(text, LEN, expected);
    struct sink s;
    sink_open(&s, 0); /* the smallest buffer: several flushes on the way */
    export_jsonw_string_long(&s.w, (const char *)text, LEN);
    char *got = sink_close(&s);
    cr_assert_eq(s.len, n);
    cr_assert_eq(memcmp(got, expected, n), 0);
    free(got);
    free(text);
    free(expected);
}

/* A raw piece is written whole whether it fits after what is buffered or
 * needs a flush first; only one longer than a fresh buffer's room is cut. */
Test(export_jsonw, raw_pieces_are_whole_with_or_without_a_flush)
{
    enum { PIECE = EXPORT_JSONW_PIECE_MAX + 100, PIECES = 7 };
    char *piece = malloc(PIECE);
    cr_assert_not_null(piece);
    struct sink s;
    sink_open(&s, 0); /* the smallest buffer: some pieces fit, some follow a flush */
    for (int i = 0; i < PIECES; i++) {
        memset(piece, 'a' + i, PIECE);
        export_jsonw_raw(&s.w, piece, PIECE);
    }
    size_t cap = s.w.cap;
    char *huge = malloc(cap + 10);
    cr_assert_not_null(huge);
    memset(huge, 'z', cap + 10);
    export_jsonw_raw(&s.w, huge, cap + 10);
    /* The piece fills the next buffer, after what a direct write carried
     * over of its last block. */
    cr_assert_eq(s.w.len, cap);
    char *got = sink_close(&s);
    size_t cut = s.len - (size_t)PIECE * PIECES;
    cr_assert(cut > cap - EXPORT_OUTFILE_BLOCK && cut <= cap, "cut to %zu of %zu", cut, cap);
    for (int i = 0; i < PIECES; i++) {
        memset(piece, 'a' + i, PIECE);
        cr_assert_eq(memcmp(got + (size_t)i * PIECE, piece, PIECE), 0, "piece %d", i);
    }
    cr_assert_eq(memcmp(got + (size_t)PIECE * PIECES, huge, cut), 0, "the cut piece");
    free(got);
    free(huge);
    free(piece);
}

Test(export_jsonw, integers_keys_and_literals)
{
    static const int64_t values[] = {
        0, 7, -7, 10, 99, 100, -100, 12345, 1795413729518934704, INT64_MAX, INT64_MIN};
    struct sink s;
    sink_open(&s, 0);
    bool first = true;
    export_jsonw_raw(&s.w, "{", 1);
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        export_jsonw_key(&s.w, &first, "k");
        export_jsonw_int(&s.w, values[i]);
    }
    export_jsonw_lit(&s.w, "}");
    char *got = sink_close(&s);
    cr_assert_str_eq(got, "{\"k\":0,\"k\":7,\"k\":-7,\"k\":10,\"k\":99,\"k\":100,\"k\":-100,"
                          "\"k\":12345,\"k\":1795413729518934704,\"k\":9223372036854775807,"
                          "\"k\":-9223372036854775808}");
    free(got);
}

Test(export_jsonw, milliseconds_from_nanoseconds_are_exact)
{
    struct sink s;
    sink_open(&s, 0);
    export_jsonw_ms_from_ns(&s.w, 911153);
    export_jsonw_raw(&s.w, " ", 1);
    export_jsonw_ms_from_ns(&s.w, 5000000);
    export_jsonw_raw(&s.w, " ", 1);
    export_jsonw_ms_from_ns(&s.w, -1500000);
    char *got = sink_close(&s);
    cr_assert_str_eq(got, "0.911153 5 -1.5");
    free(got);
}

Test(export_jsonw, random_integers_of_every_length_match_printf)
{
    /* xorshift64, shifted right by a varying amount so that every length
     * from one digit to nineteen comes up often. */
    enum { COUNT = 20000 };
    int64_t *values = malloc(COUNT * sizeof(values[0]));
    cr_assert_not_null(values);
    uint64_t x = 0x9e3779b97f4a7c15u;
    struct sink s;
    sink_open(&s, 0);
    for (int i = 0; i < COUNT; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        int64_t v = (int64_t)(x >> (i % 64));
        values[i] = (i & 64) != 0 ? -v : v;
        export_jsonw_int(&s.w, values[i]);
        export_jsonw_raw(&s.w, "\n", 1);
    }
    char *got = sink_close(&s);
    char *pos = got;
    for (int i = 0; i < COUNT; i++) {
        char want[32];
        snprintf(want, sizeof(want), "%lld", (long long)values[i]);
        cr_assert_str_eq(next_line(&pos), want);
    }
    free(got);
    free(values);
}

Test(export_jsonw, integers_match_printf_at_every_digit_count)
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
    struct sink s;
    sink_open(&s, 0);
    for (size_t i = 0; i < count; i++) {
        export_jsonw_int(&s.w, values[i]);
        export_jsonw_raw(&s.w, "\n", 1);
    }
    char *got = sink_close(&s);
    char *pos = got;
    for (size_t i = 0; i < count; i++) {
        char want[32];
        snprintf(want, sizeof(want), "%lld", (long long)values[i]);
        cr_assert_str_eq(next_line(&pos), want);
    }
    free(got);
}
