#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "evs/evs.h"
#include "tests/support/guard.h"

/*
 * A stream is fed whole, at every split point and byte by byte, each piece placed right
 * before a PROT_NONE page (and the scratch buffer too), so that an over-read crashes. A run is
 * summarised as a transcript: one "[event-type|payload]" per message, then END or ERR:<name>.
 */

#define STREAM_MAX 4096
#define SCRATCH 512
#define TRANSCRIPT_MAX 8192

struct stream {
    uint8_t bytes[STREAM_MAX];
    size_t len;
};

static void add_message(struct stream *s, const char *event_type, const char *payload)
{
    struct evs_string_header h[] = {
        {":event-type", event_type, strlen(event_type)},
        {":content-type", "application/json", 16},
        {":message-type", "event", 5},
    };
    size_t n = evs_message_write(s->bytes + s->len, sizeof(s->bytes) - s->len, h, 3, payload,
                                 strlen(payload));
    cr_assert_gt(n, 0);
    cr_assert_eq(n, evs_message_size(h, 3, strlen(payload)));
    s->len += n;
}

static void append(char *t, const char *piece)
{
    size_t have = strlen(t);
    cr_assert_lt(have + strlen(piece), TRANSCRIPT_MAX);
    memcpy(t + have, piece, strlen(piece) + 1);
}

static void record_message(char *t, const struct evs_message *m)
{
    const char *type = NULL;
    size_t type_len = 0;
    if (!evs_header_string(m, ":event-type", &type, &type_len)) {
        type = "-";
        type_len = 1;
    }
    char piece[SCRATCH + 80];
    snprintf(piece, sizeof(piece), "[%.*s|%.*s]", (int)type_len, type, (int)m->payload_len,
             (const char *)m->payload);
    append(t, piece);
}

/* run feeds the stream in pieces cut at the offsets cuts[0..ncuts) and returns the
 * transcript (static). */
static const char *run(const struct stream *s, const size_t *cuts, size_t ncuts, size_t scratch)
{
    static char t[TRANSCRIPT_MAX];
    t[0] = '\0';
    struct guard_region scratch_region = {0}, piece_region = {0};
    guard_init(&scratch_region, scratch);
    struct evs_parser p;
    evs_parser_init(&p, guard_end(&scratch_region, scratch), scratch);
    size_t from = 0;
    enum evs_status st = EVS_NEED_MORE;
    for (size_t c = 0; c <= ncuts && st < EVS_ERR_FIRST; c++) {
        size_t to = c < ncuts ? cuts[c] : s->len;
        const uint8_t *piece =
            (const uint8_t *)guard_copy(&piece_region, s->bytes + from, to - from);
        size_t pos = 0;
        for (;;) {
            size_t used = 0;
            struct evs_message m;
            st = evs_parser_feed(&p, piece + pos, to - from - pos, &used, &m);
            cr_assert_leq(used, to - from - pos);
            pos += used;
            if (st != EVS_MESSAGE) {
                break;
            }
            record_message(t, &m);
        }
        if (st == EVS_NEED_MORE) {
            cr_assert_eq(pos, to - from, "NEED_MORE consumes everything");
        }
        from = to;
    }
    if (st < EVS_ERR_FIRST) {
        st = evs_parser_finish(&p);
    }
    append(t, st < EVS_ERR_FIRST ? "END" : "ERR:");
    if (st >= EVS_ERR_FIRST) {
        append(t, evs_status_name(st));
    }
    guard_free(&piece_region);
    guard_free(&scratch_region);
    return t;
}

/* expect_everywhere checks the transcript of s fed whole, cut at every point, and byte by
 * byte. */
static void expect_everywhere(const struct stream *s, const char *expected)
{
    cr_assert_str_eq(run(s, NULL, 0, SCRATCH), expected, "whole");
    for (size_t cut = 0; cut <= s->len; cut++) {
        cr_assert_str_eq(run(s, &cut, 1, SCRATCH), expected, "cut at %zu", cut);
    }
    static size_t all[STREAM_MAX];
    for (size_t i = 0; i < s->len; i++) {
        all[i] = i;
    }
    cr_assert_str_eq(run(s, all, s->len, SCRATCH), expected, "byte by byte");
}

Test(evs_parser, messages_at_every_split)
{
    struct stream s = {0};
    add_message(&s, "PayloadPart", "data: {\"a\":1}\n\n");
    add_message(&s, "PayloadPart", "");
    add_message(&s, "PayloadPart", "{\"choices\":[]}\n");
    expect_everywhere(
        &s, "[PayloadPart|data: {\"a\":1}\n\n][PayloadPart|][PayloadPart|{\"choices\":[]}\n]END");
}

Test(evs_parser, an_empty_stream_ends_cleanly)
{
    struct stream s = {0};
    cr_assert_str_eq(run(&s, NULL, 0, SCRATCH), "END");
}

/* A scratch smaller than a prelude (the run's buffer split in two, and small): every message is
 * too large, at every split, and nothing is written past the scratch (run() guards it). */
Test(evs_parser, a_scratch_smaller_than_a_prelude_refuses_every_message)
{
    struct stream s = {0};
    add_message(&s, "PayloadPart", "x");
    for (size_t scratch = 0; scratch < EVS_MESSAGE_MIN_BYTES; scratch++) {
        cr_assert_str_eq(run(&s, NULL, 0, scratch),
                         "ERR:event-stream message larger than the buffer");
        for (size_t cut = 1; cut < s.len; cut++) {
            cr_assert_str_eq(run(&s, &cut, 1, scratch),
                             "ERR:event-stream message larger than the buffer", "cut at %zu", cut);
        }
    }
}

Test(evs_parser, a_cut_message_is_truncated)
{
    struct stream s = {0};
    add_message(&s, "PayloadPart", "hello");
    size_t full = s.len;
    for (s.len = 1; s.len < full; s.len++) {
        expect_everywhere(&s, "ERR:event stream ended inside a message");
    }
}

/* every byte flipped: an error (never a crash, never a message with other bytes). */
Test(evs_parser, every_corruption_is_caught)
{
    struct stream s = {0};
    add_message(&s, "PayloadPart", "data: x\n");
    struct stream bad;
    for (size_t i = 0; i < s.len; i++) {
        for (int bit = 0; bit < 8; bit++) {
            bad = s;
            bad.bytes[i] ^= (uint8_t)(1u << bit);
            const char *t = run(&bad, NULL, 0, SCRATCH);
            /* CRC32 catches every single-bit error: no message comes out, only the error. */
            cr_assert_eq(strncmp(t, "ERR:", 4), 0, "byte %zu bit %d: %s", i, bit, t);
        }
    }
}

static void put_be32(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)(v >> 24);
    b[1] = (uint8_t)(v >> 16);
    b[2] = (uint8_t)(v >> 8);
    b[3] = (uint8_t)v;
}

/* raw builds a message from a prelude's two lengths and body bytes, with valid CRCs. */
static struct stream raw(uint32_t total, uint32_t headers, const uint8_t *body, size_t body_len)
{
    struct stream s = {0};
    put_be32(s.bytes, total);
    put_be32(s.bytes + 4, headers);
    put_be32(s.bytes + 8, (uint32_t)crc32(0, s.bytes, 8));
    if (body_len > 0) {
        memcpy(s.bytes + 12, body, body_len);
    }
    s.len = 12 + body_len;
    put_be32(s.bytes + s.len, (uint32_t)crc32(0, s.bytes, (uInt)s.len));
    s.len += 4;
    return s;
}

Test(evs_parser, refuses_bad_lengths_and_headers)
{
    struct stream s = raw(15, 0, NULL, 0);
    expect_everywhere(&s, "ERR:event-stream message length out of range");
    s = raw(16, 1, NULL, 0);
    expect_everywhere(&s, "ERR:event-stream message length out of range");
    s = raw(SCRATCH + 1, 0, NULL, 0);
    expect_everywhere(&s, "ERR:event-stream message larger than the buffer");
    /* A header whose value runs past the headers; an unknown type; a zero-length name. */
    const uint8_t past[] = {1, 'a', EVS_STRING, 0, 9, 'x'};
    s = raw(16 + sizeof(past), sizeof(past), past, sizeof(past));
    expect_everywhere(&s, "ERR:malformed event-stream header");
    const uint8_t unknown[] = {1, 'a', 10};
    s = raw(16 + sizeof(unknown), sizeof(unknown), unknown, sizeof(unknown));
    expect_everywhere(&s, "ERR:malformed event-stream header");
    const uint8_t unnamed[] = {0, EVS_TRUE};
    s = raw(16 + sizeof(unnamed), sizeof(unnamed), unnamed, sizeof(unnamed));
    expect_everywhere(&s, "ERR:malformed event-stream header");
}

Test(evs_parser, walks_headers_of_every_type)
{
    const uint8_t headers[] = {
        1,        't', EVS_TRUE,   1,   'f',      EVS_FALSE, 1,   'b',     EVS_BYTE, 7,
        1,        's', EVS_SHORT,  0,   1,        1,         'i', EVS_INT, 0,        0,
        0,        2,   1,          'l', EVS_LONG, 0,         0,   0,       0,        0,
        0,        0,   3,          1,   'y',      EVS_BYTES, 0,   2,       0xff,     0,
        1,        'S', EVS_STRING, 0,   2,        'o',       'k', 1,       'T',      EVS_TIMESTAMP,
        0,        0,   0,          0,   0,        0,         0,   4,       1,        'u',
        EVS_UUID, 1,   2,          3,   4,        5,         6,   7,       8,        9,
        10,       11,  12,         13,  14,       15,        16,
    };
    struct stream s = raw(16 + sizeof(headers), sizeof(headers), headers, sizeof(headers));
    struct evs_parser p;
    static uint8_t scratch[SCRATCH];
    evs_parser_init(&p, scratch, sizeof(scratch));
    size_t used = 0;
    struct evs_message m;
    cr_assert_eq(evs_parser_feed(&p, s.bytes, s.len, &used, &m), EVS_MESSAGE);
    const char names[] = "tfbsilySTu";
    const size_t lens[] = {0, 0, 1, 2, 4, 8, 2, 2, 8, 16};
    size_t cursor = 0;
    struct evs_header h;
    for (size_t i = 0; i < 10; i++) {
        cr_assert(evs_header_next(&m, &cursor, &h));
        cr_assert_eq(h.name[0], names[i]);
        cr_assert_eq(h.type, (enum evs_header_type)i);
        cr_assert_eq(h.value_len, lens[i], "header %c", names[i]);
    }
    cr_assert_not(evs_header_next(&m, &cursor, &h));
    const char *v = NULL;
    size_t n = 0;
    cr_assert(evs_header_string(&m, "S", &v, &n));
    cr_assert_eq(n, 2);
    cr_assert_eq(memcmp(v, "ok", 2), 0);
    cr_assert_not(evs_header_string(&m, "y", &v, &n), "bytes are not a string");
    cr_assert_eq(m.payload_len, 0);
}

Test(evs_parser, errors_are_sticky_until_reset)
{
    struct stream s = raw(15, 0, NULL, 0);
    struct evs_parser p;
    static uint8_t scratch[SCRATCH];
    evs_parser_init(&p, scratch, sizeof(scratch));
    size_t used = 0;
    struct evs_message m;
    cr_assert_eq(evs_parser_feed(&p, s.bytes, s.len, &used, &m), EVS_ERR_BAD_LENGTH);
    cr_assert_eq(evs_parser_feed(&p, s.bytes, s.len, &used, &m), EVS_ERR_BAD_LENGTH);
    cr_assert_eq(used, 0);
    cr_assert_eq(evs_parser_finish(&p), EVS_ERR_BAD_LENGTH);
    evs_parser_reset(&p);
    struct stream good = {0};
    add_message(&good, "PayloadPart", "x");
    cr_assert_eq(evs_parser_feed(&p, good.bytes, good.len, &used, &m), EVS_MESSAGE);
    cr_assert_eq(used, good.len);
    cr_assert_str_eq(evs_status_name(EVS_STATUS_COUNT), "unknown event-stream status");
}

Test(evs_writer, refuses_what_it_cannot_frame)
{
    uint8_t out[64];
    struct evs_string_header h = {":event-type", "PayloadPart", 11};
    cr_assert_eq(evs_message_write(out, sizeof(out), &h, 1, "payload that is too long for 64", 31),
                 0);
    struct evs_string_header unnamed = {"", "v", 1};
    cr_assert_eq(evs_message_write(out, sizeof(out), &unnamed, 1, "", 0), 0);
}

/* The lines of a stream of payloads, transcribed: each line as <text> after evs_line_text,
 * blank ones skipped. */
static const char *lines_of(const char *const *payloads, size_t count, size_t cap)
{
    static char t[TRANSCRIPT_MAX];
    t[0] = '\0';
    char *buf = malloc(cap);
    struct evs_lines l;
    evs_lines_init(&l, buf, cap);
    for (size_t i = 0; i < count; i++) {
        size_t pos = 0;
        size_t len = strlen(payloads[i]);
        for (;;) {
            const char *line = NULL;
            size_t line_len = 0;
            enum evs_line_status st =
                evs_lines_next(&l, (const uint8_t *)payloads[i], len, &pos, &line, &line_len);
            if (st == EVS_LINE_TOO_LONG) {
                append(t, "TOO_LONG");
                free(buf);
                return t;
            }
            if (st == EVS_LINE_NEED_MORE) {
                cr_assert_eq(pos, len);
                break;
            }
            const char *text = NULL;
            size_t text_len = 0;
            if (evs_line_text(line, line_len, &text, &text_len)) {
                char piece[256];
                snprintf(piece, sizeof(piece), "<%.*s>", (int)text_len, text);
                append(t, piece);
            }
        }
    }
    const char *line = NULL;
    size_t line_len = 0;
    const char *text = NULL;
    size_t text_len = 0;
    if (evs_lines_finish(&l, &line, &line_len) && evs_line_text(line, line_len, &text, &text_len)) {
        char piece[256];
        snprintf(piece, sizeof(piece), "<%.*s>!", (int)text_len, text);
        append(t, piece);
    }
    free(buf);
    return t;
}

Test(evs_lines, lines_span_payloads_and_lose_their_data_prefix)
{
    const char *const whole[] = {"data: {\"a\":1}\n\ndata: [DONE]\n\n"};
    cr_assert_str_eq(lines_of(whole, 1, 64), "<{\"a\":1}><[DONE]>");
    const char *const split[] = {"data: {\"a\"", ":1}", "\n  \r\n{\"b\":2}\r", "\nda", "ta:x"};
    cr_assert_str_eq(lines_of(split, 5, 64), "<{\"a\":1}><{\"b\":2}><x>!");
    const char *const blank[] = {"\n", "  \n", "data:\n"};
    cr_assert_str_eq(lines_of(blank, 3, 64), "");
    const char *const long_line[] = {"0123456789", "0123456789", "\n"};
    cr_assert_str_eq(lines_of(long_line, 3, 16), "TOO_LONG");
    cr_assert_str_eq(lines_of(long_line, 3, 20), "<01234567890123456789>");
}

/* botocore's EventStreamBuffer is the oracle for the framing the writer (and so the mock
 * server) produces: it checks both CRCs and decodes the headers. */
Test(evs_writer, botocore_decodes_what_it_writes, .timeout = 60)
{
    if (system("/usr/bin/python3 -c 'import botocore.eventstream' 2>/dev/null") != 0) {
        cr_skip_test("python3-botocore is not installed (scripts/install-deps.sh)");
    }
    struct stream s = {0};
    add_message(&s, "PayloadPart", "data: {\"a\":1}\n\n");
    add_message(&s, "PayloadPart", "");
    add_message(&s, "PayloadPart", "{\"b\":\"\xc3\xa9\"}\n");
    char path[] = "/tmp/ringperf-evs-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, s.bytes, s.len), (ssize_t)s.len);
    close(fd);
    char command[512];
    snprintf(command, sizeof(command),
             "/usr/bin/python3 -c 'import sys\n"
             "from botocore.eventstream import EventStreamBuffer\n"
             "b = EventStreamBuffer()\n"
             "b.add_data(open(sys.argv[1], \"rb\").read())\n"
             "for m in b:\n"
             "    print(m.headers[\":event-type\"], m.headers[\":message-type\"], "
             "m.headers[\":content-type\"], repr(m.payload))' %s",
             path);
    FILE *out = popen(command, "r");
    cr_assert_not_null(out);
    char text[1024] = {0};
    size_t n = fread(text, 1, sizeof(text) - 1, out);
    text[n] = '\0';
    cr_assert_eq(pclose(out), 0, "%s", text);
    unlink(path);
    cr_assert_str_eq(text, "PayloadPart event application/json b'data: {\"a\":1}\\n\\n'\n"
                           "PayloadPart event application/json b''\n"
                           "PayloadPart event application/json b'{\"b\":\"\\xc3\\xa9\"}\\n'\n");
}
