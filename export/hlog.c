/*
 * hlog.c - HdrHistogram interval logs (format 1.3) with the V2 compressed
 * histogram encoding, the form every HdrHistogram implementation reads.
 *
 * Our histogram's bucket layout is HdrHistogram's (same sub-bucket and unit
 * magnitudes, same counts index), so the counts array is written as is: a
 * 40-byte big-endian header, then the counts as ZigZag LEB128 numbers where a
 * negative number -n stands for n zero counts. The compressed form wraps that
 * in a second cookie, a length and a zlib stream.
 */
#include "export/export.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "export/export_outfile.h"

#define V2_ENCODING_COOKIE 0x1c849313u
#define V2_COMPRESSED_COOKIE 0x1c849314u
#define V2_HEADER_BYTES 40
#define COMPRESSED_HEADER_BYTES 8
#define ZIGZAG_BYTES_MAX 9
#define LINE_PREFIX_BYTES 96 /* three "%.3f," numbers */

struct export_hlog {
    FILE *file;
    char *path; /* the final name; the file is written as <path>.partial until closed */
    int64_t base_wall_ns;
    double max_value_divisor;
    uint8_t *plain; /* V2 encoding scratch */
    size_t plain_cap;
    uint8_t *packed; /* compressed encoding scratch */
    size_t packed_cap;
    char *line; /* base64 text scratch */
    size_t line_cap;
};

static void put_u32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static void put_u64(uint8_t *p, uint64_t v)
{
    put_u32(p, (uint32_t)(v >> 32));
    put_u32(p + 4, (uint32_t)v);
}

/* put_zigzag writes HdrHistogram's ZigZag LEB128: seven bits a byte for at
 * most eight bytes, then a ninth byte with the last eight bits. */
static size_t put_zigzag(uint8_t *p, int64_t value)
{
    uint64_t v = ((uint64_t)value << 1) ^ (uint64_t)(value >> 63);
    size_t n = 0;
    while (n < ZIGZAG_BYTES_MAX - 1) {
        if ((v >> 7) == 0) {
            p[n++] = (uint8_t)v;
            return n;
        }
        p[n++] = (uint8_t)((v & 0x7f) | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

size_t export_hist_encode_bound(const struct metrics_hist *h)
{
    struct metrics_hist_layout layout;
    metrics_hist_layout(h, &layout);
    return V2_HEADER_BYTES + layout.counts_len * ZIGZAG_BYTES_MAX;
}

int export_hist_encode(const struct metrics_hist *h, uint8_t *out, size_t cap, size_t *out_len)
{
    struct metrics_hist_layout layout;
    metrics_hist_layout(h, &layout);
    size_t len = 0;
    const uint64_t *counts = metrics_hist_counts(h, &len);
    while (len > 0 && counts[len - 1] == 0) {
        len--;
    }
    if (cap < V2_HEADER_BYTES + len * ZIGZAG_BYTES_MAX) {
        return -ENOSPC;
    }
    size_t at = V2_HEADER_BYTES;
    for (size_t i = 0; i < len;) {
        if (counts[i] > (uint64_t)INT64_MAX) {
            return -EOVERFLOW;
        }
        size_t zeros = 0;
        while (i + zeros < len && counts[i + zeros] == 0) {
            zeros++;
        }
        if (zeros > 1) {
            at += put_zigzag(out + at, -(int64_t)zeros);
            i += zeros;
        } else {
            at += put_zigzag(out + at, (int64_t)counts[i]);
            i++;
        }
    }
    double ratio = 1.0;
    uint64_t ratio_bits;
    memcpy(&ratio_bits, &ratio, sizeof(ratio_bits));
    put_u32(out, V2_ENCODING_COOKIE);
    put_u32(out + 4, (uint32_t)(at - V2_HEADER_BYTES));
    put_u32(out + 8, 0); /* normalizing index offset */
    put_u32(out + 12, (uint32_t)layout.significant_figures);
    put_u64(out + 16, (uint64_t)layout.lowest_trackable);
    put_u64(out + 24, (uint64_t)layout.highest_trackable);
    put_u64(out + 32, ratio_bits);
    *out_len = at;
    return 0;
}

int export_hist_compress(const uint8_t *encoded, size_t len, uint8_t *out, size_t cap,
                         size_t *out_len)
{
    if (len > UINT32_MAX || cap < COMPRESSED_HEADER_BYTES) {
        return -ENOSPC;
    }
    uLongf packed = (uLongf)(cap - COMPRESSED_HEADER_BYTES);
    int zret = compress2(out + COMPRESSED_HEADER_BYTES, &packed, encoded, (uLong)len,
                         Z_DEFAULT_COMPRESSION);
    if (zret != Z_OK) {
        return zret == Z_MEM_ERROR ? -ENOMEM : -ENOSPC;
    }
    put_u32(out, V2_COMPRESSED_COOKIE);
    put_u32(out + 4, (uint32_t)packed);
    *out_len = COMPRESSED_HEADER_BYTES + (size_t)packed;
    return 0;
}

size_t export_base64(const uint8_t *in, size_t len, char *out, size_t cap)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t need = (len + 2) / 3 * 4;
    if (cap <= need) {
        return 0;
    }
    size_t at = 0;
    for (size_t i = 0; i < len; i += 3) {
        uint32_t b = (uint32_t)in[i] << 16;
        b |= i + 1 < len ? (uint32_t)in[i + 1] << 8 : 0;
        b |= i + 2 < len ? (uint32_t)in[i + 2] : 0;
        out[at++] = alphabet[(b >> 18) & 63];
        out[at++] = alphabet[(b >> 12) & 63];
        out[at++] = i + 1 < len ? alphabet[(b >> 6) & 63] : '=';
        out[at++] = i + 2 < len ? alphabet[b & 63] : '=';
    }
    out[at] = '\0';
    return at;
}

/* ensure grows a scratch buffer to at least `need` bytes. */
static int ensure(void **buf, size_t *cap, size_t need)
{
    if (*cap >= need) {
        return 0;
    }
    void *grown = realloc(*buf, need);
    if (grown == NULL) {
        return -ENOMEM;
    }
    *buf = grown;
    *cap = need;
    return 0;
}

static void write_header(FILE *f, const struct export_hlog_options *opts)
{
    if (opts->comment != NULL) {
        fprintf(f, "#%s\n", opts->comment);
    }
    fputs("#[Histogram log format version 1.3]\n", f);
    double start_s = (double)opts->start_wall_ns / 1e9;
    time_t secs = (time_t)(opts->start_wall_ns / 1000000000LL);
    struct tm tm;
    char when[64] = "";
    if (gmtime_r(&secs, &tm) != NULL) {
        strftime(when, sizeof(when), "%a %b %d %H:%M:%S UTC %Y", &tm);
    }
    fprintf(f, "#[StartTime: %.3f (seconds since epoch), %s]\n", start_s, when);
    fprintf(f, "#[BaseTime: %.3f (seconds since epoch)]\n", start_s);
    fputs("\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
          "\"Interval_Compressed_Histogram\"\n",
          f);
}

int export_hlog_open(const char *path, const struct export_hlog_options *opts,
                     struct export_hlog **out)
{
    if (opts->start_wall_ns < 0 || !(opts->max_value_divisor > 0)) {
        return -EINVAL;
    }
    struct export_hlog *log = calloc(1, sizeof(*log));
    if (log == NULL) {
        return -ENOMEM;
    }
    char partial[EXPORT_OUTFILE_PATH_BYTES];
    int n = snprintf(partial, sizeof(partial), "%s%s", path, EXPORT_OUTFILE_PARTIAL);
    log->path = strdup(path);
    log->file =
        n >= 0 && (size_t)n < sizeof(partial) && log->path != NULL ? fopen(partial, "w") : NULL;
    if (log->file == NULL) {
        int ret = log->path == NULL ? -ENOMEM : errno != 0 ? -errno : -ENAMETOOLONG;
        free(log->path);
        free(log);
        return ret;
    }
    log->base_wall_ns = opts->start_wall_ns;
    log->max_value_divisor = opts->max_value_divisor;
    write_header(log->file, opts);
    *out = log;
    return 0;
}

/* encode_line fills log->line with the base64 compressed encoding of h. */
static int encode_line(struct export_hlog *log, const struct metrics_hist *h)
{
    size_t bound = export_hist_encode_bound(h);
    size_t packed_bound = COMPRESSED_HEADER_BYTES + (size_t)compressBound((uLong)bound);
    int ret = ensure((void **)&log->plain, &log->plain_cap, bound);
    if (ret == 0) {
        ret = ensure((void **)&log->packed, &log->packed_cap, packed_bound);
    }
    if (ret == 0) {
        ret = ensure((void **)&log->line, &log->line_cap, (packed_bound + 2) / 3 * 4 + 1);
    }
    size_t plain_len = 0;
    size_t packed_len = 0;
    if (ret == 0) {
        ret = export_hist_encode(h, log->plain, log->plain_cap, &plain_len);
    }
    if (ret == 0) {
        ret =
            export_hist_compress(log->plain, plain_len, log->packed, log->packed_cap, &packed_len);
    }
    if (ret == 0 && export_base64(log->packed, packed_len, log->line, log->line_cap) == 0) {
        ret = -ENOSPC;
    }
    return ret;
}

int export_hlog_write(struct export_hlog *log, int64_t start_wall_ns, int64_t length_ns,
                      const struct metrics_hist *h)
{
    int ret = encode_line(log, h);
    if (ret != 0) {
        return ret;
    }
    double start_s = (double)(start_wall_ns - log->base_wall_ns) / 1e9;
    double max = (double)metrics_hist_max(h) / log->max_value_divisor;
    if (fprintf(log->file, "%.3f,%.3f,%.3f,%s\n", start_s, (double)length_ns / 1e9, max,
                log->line) < 0) {
        return -EIO;
    }
    return 0;
}

int export_hlog_close(struct export_hlog *log)
{
    if (log == NULL) {
        return 0;
    }
    int ret = fclose(log->file) == 0 ? 0 : -EIO;
    char partial[EXPORT_OUTFILE_PATH_BYTES];
    snprintf(partial, sizeof(partial), "%s%s", log->path, EXPORT_OUTFILE_PARTIAL);
    if (rename(partial, log->path) != 0 && ret == 0) {
        ret = -errno;
    }
    free(log->path);
    free(log->plain);
    free(log->packed);
    free(log->line);
    free(log);
    return ret;
}
