/*
 * fuzz_evs_parser.c - libFuzzer target for evs/ (AWS event-stream framing and its lines).
 *
 * Input layout (fuzz_splits.h): bytes 0-1 pick a split point; byte 2 picks the scratch size,
 * and its low bit asks for the CRCs to be made right (so that the fuzzer reaches the headers
 * and payloads, which random CRCs never let it); the rest is the stream. The stream is parsed
 * whole, split at the chosen point and byte by byte, each piece in its own exact-size heap copy so
 * ASan sees any over-read. Checked: consumed <= len, a message consumes input, NEED_MORE
 * consumes everything, every view lies inside the piece or the scratch buffer, every header
 * walks inside the headers, and all three ways give the same digest of messages, lines and
 * final status. Each message's payload also goes through evs_lines as a PayloadPart would.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "evs/evs.h"
#include "tests/fuzz/fuzz_splits.h"

#define LINE_CAP 64

struct fuzz_run {
    struct evs_parser parser;
    uint8_t *scratch;
    size_t cap;
    struct evs_lines lines;
    char line_buf[LINE_CAP];
    const uint8_t *piece;
    size_t piece_len;
    uint64_t h;
};

static void digest(struct fuzz_run *r, const void *p, size_t n)
{
    r->h = fuzz_digest(r->h, p, n);
}

static int inside(const void *v, size_t n, const void *base, size_t base_len)
{
    return fuzz_inside(v, n, base, base_len);
}

static void check_view(const struct fuzz_run *r, const void *v, size_t n)
{
    if (n > 0 && !inside(v, n, r->piece, r->piece_len) && !inside(v, n, r->scratch, r->cap)) {
        abort();
    }
}

static void take_lines(struct fuzz_run *r, const struct evs_message *m)
{
    size_t pos = 0;
    for (;;) {
        const char *line = NULL;
        size_t len = 0;
        enum evs_line_status st =
            evs_lines_next(&r->lines, m->payload, m->payload_len, &pos, &line, &len);
        if (pos > m->payload_len) {
            abort();
        }
        if (st != EVS_LINE) {
            digest(r, &st, sizeof(st));
            if (st == EVS_LINE_TOO_LONG) {
                evs_lines_init(&r->lines, r->line_buf, sizeof(r->line_buf));
            }
            return;
        }
        if (!inside(line, len, m->payload, m->payload_len) &&
            !inside(line, len, r->line_buf, sizeof(r->line_buf)) && len > 0) {
            abort();
        }
        const char *text = NULL;
        size_t text_len = 0;
        if (evs_line_text(line, len, &text, &text_len)) {
            digest(r, text, text_len);
        }
    }
}

static void record(struct fuzz_run *r, const struct evs_message *m)
{
    check_view(r, m->headers, m->headers_len);
    check_view(r, m->payload, m->payload_len);
    size_t cursor = 0;
    struct evs_header h;
    while (evs_header_next(m, &cursor, &h)) {
        if (!inside(h.name, h.name_len, m->headers, m->headers_len) ||
            (h.value_len > 0 && !inside(h.value, h.value_len, m->headers, m->headers_len))) {
            abort();
        }
        digest(r, h.name, h.name_len);
        digest(r, h.value, h.value_len);
    }
    if (cursor != m->headers_len) {
        abort(); /* the parser let through headers that do not walk to their end */
    }
    digest(r, m->payload, m->payload_len);
    take_lines(r, m);
}

/* Returns 1 once the parser reported an error. */
static int feed(struct fuzz_run *r, const uint8_t *src, size_t n)
{
    uint8_t *piece = malloc(n ? n : 1);
    if (piece == NULL) {
        abort();
    }
    memcpy(piece, src, n);
    r->piece = piece;
    r->piece_len = n;
    size_t off = 0;
    int failed = 0;
    for (;;) {
        size_t used = SIZE_MAX;
        struct evs_message m;
        enum evs_status st = evs_parser_feed(&r->parser, piece + off, n - off, &used, &m);
        if (used > n - off) {
            abort();
        }
        if (st == EVS_MESSAGE) {
            if (used == 0) {
                abort();
            }
            record(r, &m);
            off += used;
            continue;
        }
        if (st == EVS_NEED_MORE && used != n - off) {
            abort();
        }
        if (st != EVS_NEED_MORE) {
            digest(r, &st, sizeof(st));
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
    /* The scratch must hold a message's prelude and CRC at least. */
    cap += EVS_MESSAGE_MIN_BYTES;
    struct fuzz_run *r = calloc(1, sizeof(*r));
    if (r == NULL || (r->scratch = malloc(cap)) == NULL) {
        abort();
    }
    r->cap = cap;
    r->h = FUZZ_DIGEST_SEED;
    evs_parser_init(&r->parser, r->scratch, cap);
    evs_lines_init(&r->lines, r->line_buf, sizeof(r->line_buf));
    size_t start = 0;
    int failed = 0;
    for (size_t i = 0; i <= ncuts && !failed; i++) {
        size_t stop = i < ncuts ? cuts[i] : len;
        failed = feed(r, data + start, stop - start);
        start = stop;
    }
    if (!failed) {
        enum evs_status st = evs_parser_finish(&r->parser);
        digest(r, &st, sizeof(st));
    }
    uint64_t h = r->h;
    free(r->scratch);
    free(r);
    return h;
}

static uint32_t be32(const uint8_t *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static void put_be32(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)(v >> 24);
    b[1] = (uint8_t)(v >> 16);
    b[2] = (uint8_t)(v >> 8);
    b[3] = (uint8_t)v;
}

/* fix_crcs walks the messages the lengths describe and writes their CRCs right. */
static void fix_crcs(uint8_t *s, size_t len)
{
    size_t at = 0;
    while (len - at >= EVS_PRELUDE_BYTES) {
        put_be32(s + at + 8, (uint32_t)crc32(0, s + at, 8));
        uint32_t total = be32(s + at);
        if (total < EVS_MESSAGE_MIN_BYTES || total > len - at) {
            return;
        }
        put_be32(s + at + total - 4, (uint32_t)crc32(0, s + at, total - 4));
        at += total;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3) {
        return 0;
    }
    uint8_t *input = malloc(size);
    if (input == NULL) {
        abort();
    }
    memcpy(input, data, size);
    if (input[2] & 1) {
        fix_crcs(input + 3, size - 3);
    }
    fuzz_splits(input, size, 4, run);
    free(input);
    return 0;
}
