/*
 * fuzz_prometheus_parser.c - libFuzzer target for prometheus/.
 *
 * Input layout: bytes 0-1 pick a split point, byte 2 the line buffer size, the rest is the
 * exposition. It is parsed whole, split at the chosen point, and byte by byte for short inputs,
 * each piece in its own exact-size heap copy so ASan sees any over-read. Checked: consumed <=
 * len, every event consumes input, NEED_MORE consumes everything, every view lies inside the
 * piece, the line buffer or the parser, label walks agree with the label count, unescaping
 * never grows a value, and all three ways give the same digest of events and final status.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "prometheus/prometheus.h"
#include "tests/fuzz/fuzz_splits.h"

struct fuzz_run {
    struct prom_parser parser;
    char *line_buf;
    size_t cap;
    const char *piece;
    size_t piece_len;
    uint64_t h;
};

static void digest(struct fuzz_run *r, const void *p, size_t n)
{
    r->h = fuzz_digest(r->h, p, n);
}

static void check_view(const struct fuzz_run *r, const char *v, size_t n)
{
    if (n == 0) {
        return;
    }
    if (!fuzz_inside(v, n, r->piece, r->piece_len) && !fuzz_inside(v, n, r->line_buf, r->cap) &&
        !fuzz_inside(v, n, (const char *)&r->parser, sizeof(r->parser))) {
        abort();
    }
}

static void record_sample(struct fuzz_run *r, const struct prom_sample *s)
{
    check_view(r, s->name, s->name_len);
    check_view(r, s->family, s->family_len);
    check_view(r, s->labels, s->labels_len);
    if (s->name_len == 0 || s->name_len > PROM_NAME_BYTES_MAX || s->label_count > PROM_LABELS_MAX) {
        abort();
    }
    digest(r, s->name, s->name_len);
    digest(r, s->family, s->family_len);
    uint8_t kinds[3] = {(uint8_t)s->type, (uint8_t)s->suffix, s->has_timestamp};
    digest(r, kinds, sizeof(kinds));
    if (s->value == s->value) {
        digest(r, &s->value, sizeof(s->value));
    }
    digest(r, &s->timestamp_ms, sizeof(s->timestamp_ms));
    size_t cursor = 0;
    size_t count = 0;
    struct prom_label label;
    char value[256];
    while (prom_labels_next(s->labels, s->labels_len, &cursor, &label)) {
        check_view(r, label.name, label.name_len);
        check_view(r, label.value, label.value_len);
        size_t n = prom_unescape(label.value, label.value_len, value, sizeof(value));
        if (n > label.value_len) {
            abort();
        }
        digest(r, label.name, label.name_len);
        digest(r, value, n);
        count++;
    }
    if (count != s->label_count) {
        abort();
    }
}

static void record_meta(struct fuzz_run *r, enum prom_status st, const struct prom_meta *m)
{
    check_view(r, m->family, m->family_len);
    check_view(r, m->help, m->help_len);
    digest(r, &st, sizeof(st));
    digest(r, m->family, m->family_len);
    digest(r, m->help, m->help_len);
    digest(r, &m->type, sizeof(m->type));
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
        struct prom_line line;
        enum prom_status st = prom_parser_feed(&r->parser, piece + off, n - off, &used, &line);
        if (used > n - off) {
            abort();
        }
        if (st == PROM_SAMPLE || st == PROM_HELP || st == PROM_TYPE) {
            if (used == 0) {
                abort();
            }
            if (st == PROM_SAMPLE) {
                record_sample(r, &line.sample);
            } else {
                record_meta(r, st, &line.meta);
            }
            off += used;
            continue;
        }
        if (st == PROM_NEED_MORE && used != n - off) {
            abort();
        }
        if (st != PROM_NEED_MORE) {
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
    struct fuzz_run r = {0};
    r.cap = cap;
    r.line_buf = malloc(cap);
    if (!r.line_buf) {
        abort();
    }
    r.h = FUZZ_DIGEST_SEED;
    prom_parser_init(&r.parser, r.line_buf, cap);
    size_t start = 0;
    int failed = 0;
    for (size_t i = 0; i <= ncuts && !failed; i++) {
        size_t stop = i < ncuts ? cuts[i] : len;
        failed = feed(&r, data + start, stop - start);
        start = stop;
    }
    if (!failed) {
        enum prom_status st = prom_parser_finish(&r.parser);
        digest(&r, &st, sizeof(st));
    }
    free(r.line_buf);
    return r.h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_splits(data, size, 4, run);
    return 0;
}
