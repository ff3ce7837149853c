/*
 * fuzz_splits.h - the skeleton shared by the fuzz targets of incremental parsers: an FNV digest
 * of what a parse produced, and a check that the input parsed whole, split at one point chosen
 * by the input, and byte by byte (for short inputs) digests the same.
 *
 * Input layout: bytes 0-1 pick the split point, byte 2 a buffer size (the target's own
 * meaning), the rest is the stream.
 */
#ifndef RINGPERF_TESTS_FUZZ_SPLITS_H
#define RINGPERF_TESTS_FUZZ_SPLITS_H

#include <stdint.h>
#include <stdlib.h>

#define FUZZ_BYTE_BY_BYTE_MAX 2048
#define FUZZ_DIGEST_SEED 14695981039346656037ULL

static inline uint64_t fuzz_digest(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h = (h ^ b[i]) * 1099511628211ULL;
    }
    return (h ^ n) * 1099511628211ULL;
}

/* fuzz_inside reports whether the n-byte view v lies inside base[0..base_len). */
static inline int fuzz_inside(const char *v, size_t n, const char *base, size_t base_len)
{
    return base && v >= base && n <= base_len && v <= base + (base_len - n);
}

/* fuzz_piece returns an exact-size heap copy of src[0..n) (so ASan sees an over-read). */
static inline char *fuzz_piece(const uint8_t *src, size_t n)
{
    char *piece = malloc(n ? n : 1);
    if (!piece) {
        abort();
    }
    for (size_t i = 0; i < n; i++) {
        piece[i] = (char)src[i];
    }
    return piece;
}

/* fuzz_run_fn parses data[0..len) in pieces ending at cuts[0..ncuts) (then len) with a buffer
 * of `size` bytes, and returns the digest of what came out. */
typedef uint64_t (*fuzz_run_fn)(const uint8_t *data, size_t len, size_t size, const size_t *cuts,
                                size_t ncuts);

/* fuzz_splits runs `run` three ways and aborts when they disagree; size_of maps byte 2. */
static inline void fuzz_splits(const uint8_t *data, size_t size, size_t buf_size_per_unit,
                               fuzz_run_fn run)
{
    if (size < 3) {
        return;
    }
    size_t split = (size_t)data[0] | ((size_t)data[1] << 8);
    size_t cap = 1 + (size_t)data[2] * buf_size_per_unit;
    data += 3;
    size -= 3;
    split %= size + 1;
    uint64_t whole = run(data, size, cap, NULL, 0);
    if (run(data, size, cap, &split, 1) != whole) {
        abort();
    }
    if (size <= FUZZ_BYTE_BY_BYTE_MAX && size > 1) {
        size_t *cuts = malloc((size - 1) * sizeof(*cuts));
        if (!cuts) {
            abort();
        }
        for (size_t i = 0; i + 1 < size; i++) {
            cuts[i] = i + 1;
        }
        if (run(data, size, cap, cuts, size - 1) != whole) {
            abort();
        }
        free(cuts);
    }
}

#endif
