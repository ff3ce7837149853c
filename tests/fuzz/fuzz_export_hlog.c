/*
 * fuzz_export_hlog.c - HdrHistogram V2 encoding round trip: histograms with
 * fuzzed layouts and values are encoded, decoded back (ZigZag LEB128 and
 * zero runs) and compared count by count; the compressed form must inflate
 * to the same bytes, and base64 must fill exactly its computed length.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export/export.h"
#include "metrics/metrics.h"

static uint64_t get_be(const uint8_t *p, int bytes)
{
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) {
        v = v << 8 | p[i];
    }
    return v;
}

static size_t get_zigzag(const uint8_t *p, size_t len, int64_t *out)
{
    uint64_t v = 0;
    size_t n = 0;
    for (int shift = 0; n < len; shift += 7) {
        uint8_t b = p[n++];
        if (shift == 56) {
            v |= (uint64_t)b << 56;
            break;
        }
        v |= (uint64_t)(b & 0x7f) << shift;
        if ((b & 0x80) == 0) {
            break;
        }
    }
    *out = (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
    return n;
}

static void check_decode(const struct metrics_hist *h, const uint8_t *enc, size_t len)
{
    size_t counts_len = 0;
    const uint64_t *counts = metrics_hist_counts(h, &counts_len);
    if (len < 40 || get_be(enc, 4) != 0x1c849313u || get_be(enc + 4, 4) != len - 40) {
        abort();
    }
    size_t at = 40;
    size_t index = 0;
    while (at < len) {
        int64_t v = 0;
        at += get_zigzag(enc + at, len - at, &v);
        if (v < 0) {
            for (int64_t z = 0; z < -v; z++) {
                if (index >= counts_len || counts[index++] != 0) {
                    abort();
                }
            }
        } else if (index >= counts_len || counts[index++] != (uint64_t)v) {
            abort();
        }
    }
    for (; index < counts_len; index++) {
        if (counts[index] != 0) {
            abort();
        }
    }
}

static void check_compressed(const uint8_t *enc, size_t len)
{
    size_t cap = 8 + compressBound(len);
    uint8_t *packed = malloc(cap);
    uint8_t *back = malloc(len + 1);
    size_t packed_len = 0;
    if (export_hist_compress(enc, len, packed, cap, &packed_len) != 0 ||
        get_be(packed, 4) != 0x1c849314u || get_be(packed + 4, 4) != packed_len - 8) {
        abort();
    }
    uLongf back_len = len + 1;
    if (uncompress(back, &back_len, packed + 8, packed_len - 8) != Z_OK || back_len != len ||
        memcmp(back, enc, len) != 0) {
        abort();
    }
    size_t text_cap = (packed_len + 2) / 3 * 4 + 1;
    char *text = malloc(text_cap);
    if (export_base64(packed, packed_len, text, text_cap) != text_cap - 1 ||
        export_base64(packed, packed_len, text, text_cap - 1) != 0) {
        abort();
    }
    free(text);
    free(back);
    free(packed);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3) {
        return 0;
    }
    int sigfigs = 1 + data[0] % 3;
    int64_t lowest = (int64_t)1 << (data[1] % 20);
    int64_t highest = lowest * 2 + ((int64_t)1 << (data[2] % 40));
    struct metrics_hist *h = NULL;
    if (metrics_hist_new(lowest, highest, sigfigs, &h) != 0) {
        return 0;
    }
    for (size_t i = 3; i + 5 <= size; i += 5) {
        int64_t v = (int64_t)get_be(data + i, 4) << (data[i + 4] % 24);
        metrics_hist_record_n(h, (data[i + 4] & 0x80) != 0 ? -v : v, 1 + data[i + 4] % 3);
    }
    size_t cap = export_hist_encode_bound(h);
    uint8_t *enc = malloc(cap);
    size_t len = 0;
    if (export_hist_encode(h, enc, cap, &len) != 0) {
        abort();
    }
    check_decode(h, enc, len);
    check_compressed(enc, len);
    free(enc);
    metrics_hist_free(h);
    return 0;
}
