#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "sse/sse.h"
#include "tests/support/guard.h"

/*
 * Every case is run fed whole, byte by byte, split at every point, and (for
 * short inputs) split at every pair of points. Each piece is copied so that it
 * ends right before a PROT_NONE page, and the scratch buffer also ends right
 * before one, so any over-read or over-write crashes the test.
 *
 * A run is summarised as a transcript: one {...} per event, then END or
 * ERR:<status>. Inside an event: d= data, t= event type, i= id, c= comment,
 * r= retry, ct = comment truncated. Bytes outside printable ASCII and the
 * backslash are written as \xHH.
 */

#define TRANSCRIPT_MAX 8192
#define DEFAULT_SCRATCH 256
#define PAIR_SPLIT_MAX_LEN 64

struct transcript {
    char text[TRANSCRIPT_MAX];
    size_t len;
};

static void tr_raw(struct transcript *t, const char *s)
{
    size_t n = strlen(s);
    cr_assert_lt(t->len + n, sizeof(t->text), "transcript overflow");
    memcpy(t->text + t->len, s, n);
    t->len += n;
    t->text[t->len] = '\0';
}

static void tr_bytes(struct transcript *t, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char tmp[8];
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            tmp[0] = (char)c;
            tmp[1] = '\0';
        } else {
            snprintf(tmp, sizeof(tmp), "\\x%02x", c);
        }
        tr_raw(t, tmp);
    }
}

struct run_ctx {
    struct sse_parser parser;
    struct guard_region in;
    struct guard_region scratch;
    const char *piece;
    size_t piece_len;
    size_t cap;
};

static bool within(const char *v, size_t n, const char *base, size_t base_len)
{
    return v >= base && n <= base_len && v <= base + (base_len - n);
}

/* A view must lie in the current piece, in scratch, or inside the parser. */
static void check_view(const struct run_ctx *r, const char *v, size_t n)
{
    if (n == 0) {
        return;
    }
    bool ok = within(v, n, r->piece, r->piece_len) ||
              within(v, n, guard_end(&r->scratch, r->cap), r->cap) ||
              within(v, n, (const char *)&r->parser, sizeof(r->parser));
    cr_assert(ok, "event view out of bounds");
}

static void tr_event(struct transcript *t, const struct run_ctx *r, const struct sse_event *ev)
{
    check_view(r, ev->data, ev->data_len);
    check_view(r, ev->event_type, ev->event_type_len);
    check_view(r, ev->id, ev->id_len);
    check_view(r, ev->comment, ev->comment_len);
    char part[32];
    size_t mark = t->len + 1;
    tr_raw(t, "{");
    if (ev->has_data) {
        tr_raw(t, "d=");
        tr_bytes(t, ev->data, ev->data_len);
    }
    if (ev->has_event_type) {
        tr_raw(t, t->len > mark ? ";t=" : "t=");
        tr_bytes(t, ev->event_type, ev->event_type_len);
    }
    if (ev->has_id) {
        tr_raw(t, t->len > mark ? ";i=" : "i=");
        tr_bytes(t, ev->id, ev->id_len);
    }
    if (ev->has_comment) {
        tr_raw(t, t->len > mark ? ";c=" : "c=");
        tr_bytes(t, ev->comment, ev->comment_len);
    }
    if (ev->comment_truncated) {
        tr_raw(t, ";ct");
    }
    if (ev->has_retry) {
        snprintf(part, sizeof(part), "%sr=%llu", t->len > mark ? ";" : "",
                 (unsigned long long)ev->retry_ms);
        tr_raw(t, part);
    }
    tr_raw(t, "}");
}

/* Feeds one piece; returns false once the parser reported an error. */
static bool feed_piece(struct run_ctx *r, const char *src, size_t n, struct transcript *t)
{
    char *piece = guard_end(&r->in, n);
    memcpy(piece, src, n);
    r->piece = piece;
    r->piece_len = n;
    size_t off = 0;
    for (;;) {
        size_t consumed = SIZE_MAX;
        struct sse_event ev;
        enum sse_status st = sse_parser_feed(&r->parser, piece + off, n - off, &consumed, &ev);
        cr_assert_leq(consumed, n - off);
        if (st == SSE_EVENT) {
            cr_assert_gt(consumed, 0, "an event must consume input");
            tr_event(t, r, &ev);
            off += consumed;
            continue;
        }
        if (st == SSE_NEED_MORE) {
            cr_assert_eq(consumed, n - off);
            return true;
        }
        tr_raw(t, "ERR:");
        tr_raw(t, sse_status_name(st));
        return false;
    }
}

/* Runs `input` cut at the sorted offsets `cuts` and fills `t`. */
static void run_cuts(struct run_ctx *r, const char *input, size_t len, const size_t *cuts,
                     size_t ncuts, struct transcript *t)
{
    t->len = 0;
    t->text[0] = '\0';
    sse_parser_init(&r->parser, guard_end(&r->scratch, r->cap), r->cap);
    size_t start = 0;
    for (size_t i = 0; i <= ncuts; i++) {
        size_t stop = i < ncuts ? cuts[i] : len;
        if (!feed_piece(r, input + start, stop - start, t)) {
            return;
        }
        start = stop;
    }
    r->piece = NULL;
    r->piece_len = 0;
    struct sse_event ev;
    enum sse_status st = sse_parser_finish(&r->parser, &ev);
    if (st == SSE_EVENT) {
        tr_event(t, r, &ev);
        st = sse_parser_finish(&r->parser, &ev);
        cr_assert_eq(st, SSE_NEED_MORE, "a second finish has nothing left");
    }
    if (st == SSE_NEED_MORE) {
        tr_raw(t, "END");
    } else {
        tr_raw(t, "ERR:");
        tr_raw(t, sse_status_name(st));
    }
}

static void expect_cuts(struct run_ctx *r, const char *name, const char *input, size_t len,
                        const size_t *cuts, size_t ncuts, const char *expect)
{
    struct transcript t;
    run_cuts(r, input, len, cuts, ncuts, &t);
    cr_assert_str_eq(t.text, expect, "case %s, %zu cut(s) starting at %zu:\n got %s\nwant %s", name,
                     ncuts, ncuts ? cuts[0] : 0, t.text, expect);
}

/* The full split matrix for one input. */
static void check_case(const char *name, const char *input, size_t len, size_t cap,
                       const char *expect)
{
    struct run_ctx r;
    size_t *cuts = calloc(len + 2, sizeof(*cuts));
    cr_assert_not_null(cuts);
    r.cap = cap ? cap : DEFAULT_SCRATCH;
    guard_init(&r.in, len + 1);
    guard_init(&r.scratch, r.cap);

    expect_cuts(&r, name, input, len, NULL, 0, expect);
    for (size_t i = 1; i < len; i++) {
        cuts[i - 1] = i;
    }
    expect_cuts(&r, name, input, len, cuts, len ? len - 1 : 0, expect);
    for (size_t i = 0; i <= len; i++) {
        cuts[0] = i;
        expect_cuts(&r, name, input, len, cuts, 1, expect);
    }
    if (len <= PAIR_SPLIT_MAX_LEN) {
        for (size_t i = 0; i <= len; i++) {
            for (size_t j = i; j <= len; j++) {
                cuts[0] = i;
                cuts[1] = j;
                expect_cuts(&r, name, input, len, cuts, 2, expect);
            }
        }
    }
    guard_free(&r.scratch);
    guard_free(&r.in);
    free(cuts);
}

struct sse_case {
    const char *name;
    const char *input;
    size_t len; /* 0: strlen(input) */
    size_t cap; /* 0: DEFAULT_SCRATCH */
    const char *expect;
};

#define BOM "\xEF\xBB\xBF"

static const struct sse_case cases[] = {
    {"single data line", "data: hello\n\n", 0, 0, "{d=hello}END"},
    {"no space after colon", "data:hello\n\n", 0, 0, "{d=hello}END"},
    {"only one space stripped", "data:  hello \n\n", 0, 0, "{d= hello }END"},
    {"colon inside value", "data: a:b: c\n\n", 0, 0, "{d=a:b: c}END"},
    {"multi-line data joined", "data: a\ndata: b\ndata:\n\n", 0, 0, "{d=a\\x0ab\\x0a}END"},
    {"empty data", "data:\n\n", 0, 0, "{d=}END"},
    {"field without colon", "data\n\n", 0, 0, "{d=}END"},
    {"two fields without colon", "data\ndata\n\n", 0, 0, "{d=\\x0a}END"},
    {"crlf endings", "data: a\r\n\r\ndata: b\r\n\r\n", 0, 0, "{d=a}{d=b}END"},
    {"cr endings", "data: a\r\rdata: b\r\r", 0, 0, "{d=a}{d=b}END"},
    {"mixed endings", "data: a\r\ndata: b\rdata: c\n\r\n", 0, 0, "{d=a\\x0ab\\x0ac}END"},
    {"cr then crlf", "data: a\r\r\ndata: b\n\n", 0, 0, "{d=a}{d=b}END"},
    {"lf then crlf", "data: a\n\r\n", 0, 0, "{d=a}END"},
    {"crlf split pending", "data: a\r\n\n", 0, 0, "{d=a}END"},
    {"extra blank lines", "\n\r\n\rdata: a\n\n\n\ndata: b\n\n\n", 0, 0, "{d=a}{d=b}END"},
    {"bom skipped", BOM "data: a\n\n", 0, 0, "{d=a}END"},
    {"bom then comment", BOM ": hi\n\n", 0, 0, "{c=hi}END"},
    {"second bom is content", BOM BOM "data: a\n\ndata: b\n\n", 0, 0, "{d=b}END"},
    {"partial bom is content",
     "\xEF\xBB"
     "data: a\n\ndata: b\n\n",
     0, 0, "{d=b}END"},
    {"bom only", BOM, 0, 0, "END"},
    {"partial bom only", "\xEF\xBB", 0, 0, "END"},
    {"bom not at start is content", "data: " BOM "\n\n", 0, 0, "{d=\\xef\\xbb\\xbf}END"},
    {"done marker", "data: {\"x\":1}\n\ndata: [DONE]\n\n", 0, 0, "{d={\"x\":1}}{d=[DONE]}END"},
    {"event type and data", "event: message\ndata: x\n\n", 0, 0, "{d=x;t=message}END"},
    {"last event type wins", "event: a\nevent: b\ndata: x\n\n", 0, 0, "{d=x;t=b}END"},
    {"error event with comment", "event: error\n: boom happened\n\n", 0, 0,
     "{t=error;c=boom happened}END"},
    {"comment only block", ": ping\n\n", 0, 0, "{c=ping}END"},
    {"empty comment", ":\n\n", 0, 0, "{c=}END"},
    {"comment keeps second space", ":  x\n\n", 0, 0, "{c= x}END"},
    {"first comment wins", ": a\n: b\ndata: x\n\n", 0, 0, "{d=x;c=a}END"},
    {"comment and data then plain", ": k\ndata: x\n\ndata: y\n\n", 0, 0, "{d=x;c=k}{d=y}END"},
    {"id persists", "id: 7\ndata: a\n\ndata: b\n\n", 0, 0, "{d=a;i=7}{d=b;i=7}END"},
    {"id only block not dispatched", "id: 5\n\ndata: a\n\n", 0, 0, "{d=a;i=5}END"},
    {"empty id", "id\ndata: a\n\n", 0, 0, "{d=a;i=}END"},
    {"id with nul ignored", "id: a\0b\ndata: x\n\n", 17, 0, "{d=x}END"},
    {"retry digits", "retry: 1500\ndata: a\n\n", 0, 0, "{d=a;r=1500}END"},
    {"retry non digits ignored", "retry: 15x\ndata: a\n\n", 0, 0, "{d=a}END"},
    {"retry signed ignored", "retry: -5\ndata: a\n\n", 0, 0, "{d=a}END"},
    {"retry empty ignored", "retry:\ndata: a\n\n", 0, 0, "{d=a}END"},
    {"retry overflow ignored", "retry: 99999999999999999999\ndata: a\n\n", 0, 0, "{d=a}END"},
    {"retry max", "retry: 18446744073709551615\ndata: a\n\n", 0, 0,
     "{d=a;r=18446744073709551615}END"},
    {"retry persists", "retry: 1\ndata: a\n\nretry: x\ndata: b\n\n", 0, 0, "{d=a;r=1}{d=b;r=1}END"},
    {"retry only block", "retry: 10\n\n", 0, 0, "END"},
    {"unknown field ignored", "foo: bar\ndata: a\n\n", 0, 0, "{d=a}END"},
    {"field names are case sensitive", "Data: x\nEVENT: y\n\n", 0, 0, "END"},
    {"unknown only block", "foo: bar\n\n", 0, 0, "END"},
    {"blank lines only", "\n\n\r\n\r", 0, 0, "END"},
    {"empty stream", "", 0, 0, "END"},
    {"trailing block without blank line", "data: a\n\ndata: b", 0, 0, "{d=a}{d=b}END"},
    {"trailing line with lf", "data: b\n", 0, 0, "{d=b}END"},
    {"trailing line with cr", "data: b\r", 0, 0, "{d=b}END"},
    {"trailing comment", ": bye", 0, 0, "{c=bye}END"},
    {"nul in data", "data: a\0b\n\n", 11, 0, "{d=a\\x00b}END"},
    {"utf8 data", "data: h\xC3\xA9llo \xF0\x9F\x98\x80\n\n", 0, 0,
     "{d=h\\xc3\\xa9llo \\xf0\\x9f\\x98\\x80}END"},
    {"chat stream",
     "data: {\"object\":\"chat.completion.chunk\",\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}"
     "\n\n: keep-alive\n\ndata: [DONE]\n\n",
     0, 0,
     "{d={\"object\":\"chat.completion.chunk\",\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}}"
     "{c=keep-alive}{d=[DONE]}END"},
    /* Limit: data_len + 1 + line_len <= cap. */
    {"line exactly fits", "data: 012345678\n\n", 0, 16, "{d=012345678}END"},
    {"line one byte too long", "data: 0123456789\n\n", 0, 16,
     "ERR:SSE event larger than the parser's scratch buffer"},
    {"joined data fits", "data: 0123\ndata: 0123\n\n", 0, 16, "{d=0123\\x0a0123}END"},
    {"joined data too large", "data: 0123\ndata: 0123\ndata: 0123\n\n", 0, 16,
     "ERR:SSE event larger than the parser's scratch buffer"},
    {"events before the error survive", "data: a\n\ndata: 0123456789abcdef\n\n", 0, 16,
     "{d=a}ERR:SSE event larger than the parser's scratch buffer"},
    {"long comment counts too", ": 0123456789abcdef\n\n", 0, 16,
     "ERR:SSE event larger than the parser's scratch buffer"},
    {"unterminated long line", "data: 0123456789abcdef", 0, 16,
     "ERR:SSE event larger than the parser's scratch buffer"},
    {"tiny scratch", "data: a\n\n", 0, 1, "ERR:SSE event larger than the parser's scratch buffer"},
    {"tiny scratch blank lines ok", "\n\n", 0, 1, "END"},
};

Test(sse_parser, table_cases_identical_at_every_split)
{
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct sse_case *c = &cases[i];
        size_t len = c->len ? c->len : strlen(c->input);
        check_case(c->name, c->input, len, c->cap, c->expect);
    }
}

/* Builds "<prefix><n x fill>\n\n" into buf. */
static size_t build_line(char *buf, size_t cap, const char *prefix, size_t n, char fill)
{
    size_t plen = strlen(prefix);
    cr_assert_lt(plen + n + 2, cap);
    memcpy(buf, prefix, plen);
    memset(buf + plen, fill, n);
    buf[plen + n] = '\n';
    buf[plen + n + 1] = '\n';
    return plen + n + 2;
}

Test(sse_parser, event_type_and_id_limits)
{
    char in[512];
    char expect[512];
    size_t n = build_line(in, sizeof(in), "event: ", SSE_EVENT_TYPE_MAX, 'e');
    snprintf(expect, sizeof(expect), "{t=%.*s}END", SSE_EVENT_TYPE_MAX, in + 7);
    check_case("event type at limit", in, n, 512, expect);
    n = build_line(in, sizeof(in), "event: ", SSE_EVENT_TYPE_MAX + 1, 'e');
    check_case("event type over limit", in, n, 512,
               "ERR:SSE event or id field longer than its limit");
    n = build_line(in, sizeof(in), "id: ", SSE_ID_MAX + 1, '1');
    check_case("id over limit", in, n, 512, "ERR:SSE event or id field longer than its limit");
}

Test(sse_parser, long_comment_is_truncated_not_an_error)
{
    char in[512];
    char expect[512];
    size_t n = build_line(in, sizeof(in), ": ", SSE_COMMENT_MAX + 40, 'c');
    snprintf(expect, sizeof(expect), "{c=%.*s;ct}END", SSE_COMMENT_MAX, in + 2);
    check_case("long comment", in, n, 512, expect);
}

Test(sse_parser, large_event_within_scratch)
{
    static char in[8192];
    static char expect[8192];
    size_t n = build_line(in, sizeof(in), "data: ", 4000, 'x');
    snprintf(expect, sizeof(expect), "{d=%.*s}END", 4000, in + 6);
    check_case("4000-byte event", in, n, 4007, expect);
    check_case("4000-byte event, one byte short", in, n, 4006,
               "ERR:SSE event larger than the parser's scratch buffer");
}

Test(sse_parser, single_line_event_is_zero_copy)
{
    char scratch[64];
    struct sse_parser p;
    struct sse_event ev;
    size_t used;
    const char buf[] = "data: hello\n\ndata: a\ndata: b\n\n";
    sse_parser_init(&p, scratch, sizeof(scratch));
    cr_assert_eq(sse_parser_feed(&p, buf, sizeof(buf) - 1, &used, &ev), SSE_EVENT);
    cr_assert_eq(used, 13);
    cr_assert_eq(ev.data, buf + 6, "single-line data points into the fed buffer");
    cr_assert_eq(ev.data_len, 5);
    cr_assert_eq(sse_parser_feed(&p, buf + used, sizeof(buf) - 1 - used, &used, &ev), SSE_EVENT);
    cr_assert_eq(ev.data, scratch, "multi-line data is joined in scratch");
    cr_assert_eq(ev.data_len, 3);
    cr_assert_eq(memcmp(ev.data, "a\nb", 3), 0);
}

Test(sse_parser, event_split_across_feeds_lands_in_scratch)
{
    char scratch[64];
    struct sse_parser p;
    struct sse_event ev;
    size_t used;
    sse_parser_init(&p, scratch, sizeof(scratch));
    cr_assert_eq(sse_parser_feed(&p, "data: hel", 9, &used, &ev), SSE_NEED_MORE);
    cr_assert_eq(used, 9);
    cr_assert_eq(sse_parser_feed(&p, "lo\r", 3, &used, &ev), SSE_NEED_MORE);
    cr_assert_eq(sse_parser_feed(&p, "\n\r\n", 3, &used, &ev), SSE_EVENT);
    cr_assert_eq(used, 2, "the LF after the blank line's CR is left for the next feed");
    cr_assert_eq(ev.data, scratch);
    cr_assert_eq(ev.data_len, 5);
    cr_assert_eq(memcmp(ev.data, "hello", 5), 0);
    cr_assert_eq(sse_parser_feed(&p, "\n", 1, &used, &ev), SSE_NEED_MORE);
    cr_assert_eq(sse_parser_finish(&p, &ev), SSE_NEED_MORE, "that LF was half of a CRLF");
}

Test(sse_parser, error_is_sticky_until_reset)
{
    char scratch[8];
    struct sse_parser p;
    struct sse_event ev;
    size_t used;
    sse_parser_init(&p, scratch, sizeof(scratch));
    cr_assert_eq(sse_parser_feed(&p, "data: 0123456789\n\n", 18, &used, &ev),
                 SSE_ERR_EVENT_TOO_LARGE);
    cr_assert_leq(used, 18);
    cr_assert_eq(sse_parser_feed(&p, "data: a\n\n", 9, &used, &ev), SSE_ERR_EVENT_TOO_LARGE);
    cr_assert_eq(used, 0);
    cr_assert_eq(sse_parser_finish(&p, &ev), SSE_ERR_EVENT_TOO_LARGE);
    sse_parser_reset(&p);
    cr_assert_eq(sse_parser_feed(&p, "data: a\n\n", 9, &used, &ev), SSE_EVENT);
    cr_assert_eq(ev.data_len, 1);
}

Test(sse_parser, reset_forgets_id_retry_and_partial_line)
{
    char scratch[64];
    struct sse_parser p;
    struct sse_event ev;
    size_t used;
    sse_parser_init(&p, scratch, sizeof(scratch));
    cr_assert_eq(sse_parser_feed(&p, "id: 1\nretry: 5\ndata: par", 24, &used, &ev), SSE_NEED_MORE);
    sse_parser_reset(&p);
    cr_assert_eq(sse_parser_feed(&p, BOM "data: b\n\n", 12, &used, &ev), SSE_EVENT);
    cr_assert_not(ev.has_id);
    cr_assert_not(ev.has_retry);
    cr_assert_eq(ev.data_len, 1);
    cr_assert_eq(ev.data[0], 'b');
}

Test(sse_parser, empty_feed_with_null_buffer)
{
    char scratch[16];
    struct sse_parser p;
    struct sse_event ev;
    size_t used = 99;
    sse_parser_init(&p, scratch, sizeof(scratch));
    cr_assert_eq(sse_parser_feed(&p, NULL, 0, &used, &ev), SSE_NEED_MORE);
    cr_assert_eq(used, 0);
    cr_assert_eq(sse_parser_finish(&p, &ev), SSE_NEED_MORE);
}

Test(sse_parser, status_names_are_stable)
{
    cr_assert_str_eq(sse_status_name(SSE_NEED_MORE), "need more input");
    cr_assert_str_eq(sse_status_name(SSE_EVENT), "event");
    cr_assert_str_eq(sse_status_name(SSE_ERR_EVENT_TOO_LARGE),
                     "SSE event larger than the parser's scratch buffer");
    cr_assert_str_eq(sse_status_name(SSE_ERR_FIELD_TOO_LONG),
                     "SSE event or id field longer than its limit");
    cr_assert_str_eq(sse_status_name((enum sse_status)99), "unknown SSE status");
}
