/*
 * fuzz_sse_parser.c - libFuzzer target for sse/.
 *
 * Input layout: byte 0-1 pick a split point, byte 2 picks the scratch size,
 * the rest is the stream. The stream is parsed three ways (whole, split at the
 * chosen point, and byte by byte for short inputs), each piece in its own
 * exact-size heap copy so ASan sees any over-read. Checked: consumed <= len,
 * every event consumes input, NEED_MORE consumes everything, every view lies
 * inside the piece, the scratch buffer or the parser, and all three ways give
 * the same digest of events and final status. An odd scratch size also gives
 * the parser a grow function (realloc, up to eight times the size), which must
 * not change that digest between the ways.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sse/sse.h"
#include "tests/fuzz/fuzz_splits.h"

struct digest {
    uint64_t h;
};

static void digest_bytes(struct digest *d, const void *p, size_t n)
{
    d->h = fuzz_digest(d->h, p, n);
}

struct fuzz_run {
    struct sse_parser parser;
    char *scratch;
    size_t cap;
    size_t grow_limit;
    const char *piece;
    size_t piece_len;
    struct digest d;
};

static void check_view(const struct fuzz_run *r, const char *v, size_t n)
{
    if (n == 0) {
        return;
    }
    if (!fuzz_inside(v, n, r->piece, r->piece_len) && !fuzz_inside(v, n, r->scratch, r->cap) &&
        !fuzz_inside(v, n, (const char *)&r->parser, sizeof(r->parser))) {
        abort();
    }
}

static void record(struct fuzz_run *r, const struct sse_event *ev)
{
    check_view(r, ev->data, ev->data_len);
    check_view(r, ev->event_type, ev->event_type_len);
    check_view(r, ev->id, ev->id_len);
    check_view(r, ev->comment, ev->comment_len);
    if (ev->comment_len > SSE_COMMENT_MAX || ev->id_len > SSE_ID_MAX ||
        ev->event_type_len > SSE_EVENT_TYPE_MAX || ev->data_len >= r->cap) {
        abort();
    }
    uint8_t flags[6] = {ev->has_data,    ev->has_event_type,    ev->has_id,
                        ev->has_comment, ev->comment_truncated, ev->has_retry};
    digest_bytes(&r->d, flags, sizeof(flags));
    digest_bytes(&r->d, ev->data, ev->data_len);
    digest_bytes(&r->d, ev->event_type, ev->event_type_len);
    digest_bytes(&r->d, ev->id, ev->id_len);
    digest_bytes(&r->d, ev->comment, ev->comment_len);
    digest_bytes(&r->d, &ev->retry_ms, sizeof(ev->retry_ms));
}

/* grow is the parser's grow function: the scratch reallocated, up to r->grow_limit bytes. */
static bool grow(void *ctx, size_t need, char **scratch, size_t *cap)
{
    struct fuzz_run *r = ctx;
    if (*scratch != r->scratch || *cap != r->cap || need <= r->cap) {
        abort();
    }
    if (need > r->grow_limit) {
        return false;
    }
    char *grown = realloc(r->scratch, need);
    if (grown == NULL) {
        abort();
    }
    r->scratch = grown;
    r->cap = need;
    *scratch = grown;
    *cap = need;
    return true;
}

/* Returns 0 when the stream went on, 1 once the parser reported an error. */
static int feed(struct fuzz_run *r, const uint8_t *src, size_t n)
{
    char *piece = fuzz_piece(src, n);
    r->piece = piece;
    r->piece_len = n;
    size_t off = 0;
    int failed = 0;
    for (;;) {
        size_t used = SIZE_MAX;
        struct sse_event ev;
        enum sse_status st = sse_parser_feed(&r->parser, piece + off, n - off, &used, &ev);
        if (used > n - off) {
            abort();
        }
        if (st == SSE_EVENT) {
            if (used == 0) {
                abort();
            }
            record(r, &ev);
            off += used;
            continue;
        }
        if (st == SSE_NEED_MORE && used != n - off) {
            abort();
        }
        if (st != SSE_NEED_MORE) {
            digest_bytes(&r->d, &st, sizeof(st));
            failed = 1;
        }
        break;
    }
    free(piece);
    r->piece = NULL;
    r->piece_len = 0;
    return failed;
}

static uint64_t run(const uint8_t *data, size_t len, size_t cap, const size_t *cuts, size_t ncuts)
{
    struct fuzz_run r = {0};
    r.cap = cap;
    r.scratch = malloc(cap);
    if (!r.scratch) {
        abort();
    }
    r.d.h = FUZZ_DIGEST_SEED;
    sse_parser_init(&r.parser, r.scratch, cap);
    if (cap & 1) {
        r.grow_limit = 8 * cap;
        sse_parser_set_grow(&r.parser, grow, &r);
    }
    size_t start = 0;
    int failed = 0;
    for (size_t i = 0; i <= ncuts && !failed; i++) {
        size_t stop = i < ncuts ? cuts[i] : len;
        failed = feed(&r, data + start, stop - start);
        start = stop;
    }
    if (!failed) {
        struct sse_event ev;
        enum sse_status st = sse_parser_finish(&r.parser, &ev);
        if (st == SSE_EVENT) {
            record(&r, &ev);
        } else if (st != SSE_NEED_MORE) {
            digest_bytes(&r.d, &st, sizeof(st));
        }
    }
    free(r.scratch);
    return r.d.h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_splits(data, size, 2, run);
    return 0;
}
