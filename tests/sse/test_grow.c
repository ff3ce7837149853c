/*
 * test_grow.c - the SSE parser with a grow function: an event longer than the scratch buffer
 * asks for more room (the engine's body buffer grows so) and comes out whole at every split
 * of the input, multi-line and single-line alike; a grow function that says no, or none, leaves
 * the scratch's limit in force; reset keeps the grow function.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "sse/sse.h"

/* grower is a scratch on the heap that grows up to `limit` bytes, counting its growths. */
struct grower {
    char *buf;
    size_t cap;
    size_t limit;
    unsigned grows;
};

static bool grow(void *ctx, size_t need, char **scratch, size_t *cap)
{
    struct grower *g = ctx;
    cr_assert_eq(*scratch, g->buf, "the parser hands back the scratch it has");
    cr_assert_gt(need, *cap, "asked only when the scratch is too small");
    if (need > g->limit) {
        return false;
    }
    size_t grow_to = *cap * 2 > need ? *cap * 2 : need; /* doubling, as the engine's */
    grow_to = grow_to < g->limit ? grow_to : g->limit;
    char *grown = realloc(g->buf, grow_to);
    cr_assert_not_null(grown);
    g->buf = grown;
    g->cap = grow_to;
    g->grows++;
    *scratch = grown;
    *cap = grow_to;
    return true;
}

/* one_mib_event returns "data: <first>\ndata: <second>\n\n" with two lines of 512 KiB. */
static char *one_mib_event(size_t *out_len)
{
    size_t half = 512 * 1024;
    char *in = malloc(2 * half + 64);
    size_t n = 0;
    for (int line = 0; line < 2; line++) {
        memcpy(in + n, "data: ", 6);
        n += 6;
        for (size_t i = 0; i < half; i++) {
            in[n++] = (char)('a' + (i + (size_t)line) % 26);
        }
        in[n++] = '\n';
    }
    in[n++] = '\n';
    *out_len = n;
    return in;
}

Test(sse_grow, a_one_mib_event_grows_the_scratch_at_every_split)
{
    size_t len = 0;
    char *in = one_mib_event(&len);
    static const size_t steps[] = {3, 4096, 65536, 1 << 20, 8 << 20};
    for (size_t s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
        struct grower g = {.buf = malloc(16), .cap = 16, .limit = 4u << 20};
        struct sse_parser p;
        sse_parser_init(&p, g.buf, g.cap);
        sse_parser_set_grow(&p, grow, &g);
        struct sse_event ev;
        size_t events = 0;
        for (size_t off = 0; off < len;) {
            size_t n = len - off < steps[s] ? len - off : steps[s];
            size_t used = 0;
            enum sse_status st = sse_parser_feed(&p, in + off, n, &used, &ev);
            off += used;
            if (st == SSE_EVENT) {
                events++;
                cr_assert_eq(ev.data_len, 2 * 512 * 1024 + 1, "step %zu", steps[s]);
                cr_assert_eq(memcmp(ev.data, in + 6, 512 * 1024), 0);
                cr_assert_eq(ev.data[512 * 1024], '\n');
                cr_assert_eq(
                    memcmp(ev.data + 512 * 1024 + 1, in + 6 + 512 * 1024 + 1 + 6, 512 * 1024), 0);
                continue;
            }
            cr_assert_eq(st, SSE_NEED_MORE, "step %zu: %s", steps[s], sse_status_name(st));
        }
        cr_assert_eq(events, 1, "step %zu", steps[s]);
        cr_assert_gt(g.grows, 0);
        cr_assert_geq(g.cap, 2 * 512 * 1024 + 1);
        free(g.buf);
    }
    free(in);
}

Test(sse_grow, a_refusing_or_missing_grow_function_keeps_the_limit)
{
    size_t len = 0;
    char *in = one_mib_event(&len);
    struct grower g = {.buf = malloc(64), .cap = 64, .limit = 256 * 1024};
    struct sse_parser p;
    struct sse_event ev;
    size_t used = 0;
    sse_parser_init(&p, g.buf, g.cap);
    sse_parser_set_grow(&p, grow, &g);
    cr_assert_eq(sse_parser_feed(&p, in, len, &used, &ev), SSE_ERR_EVENT_TOO_LARGE);
    /* reset keeps the grow function: a smaller event then fits by growing. */
    sse_parser_reset(&p);
    static const char small[] =
        "data: 0123456789012345678901234567890123456789012345678901234567890123456789\n\n";
    cr_assert_eq(sse_parser_feed(&p, small, sizeof(small) - 1, &used, &ev), SSE_EVENT);
    cr_assert_eq(ev.data_len, 70);
    char fixed[64];
    sse_parser_init(&p, fixed, sizeof(fixed)); /* init clears it */
    cr_assert_eq(sse_parser_feed(&p, small, sizeof(small) - 1, &used, &ev),
                 SSE_ERR_EVENT_TOO_LARGE);
    free(g.buf);
    free(in);
}
