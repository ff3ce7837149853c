/*
 * seq_dist.c - AIPerf's --seq-dist: a mixture of (ISL, OSL) pairs, each drawn
 * with its probability, optionally with a standard deviation per length:
 * "ISL,OSL:PCT;ISL|STD,OSL|STD:PCT;...", percentages summing to 100.
 */
#include "datasets/datasets.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(char *err, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *err, size_t cap, const char *fmt, ...)
{
    if (cap > 0) {
        va_list args;
        va_start(args, fmt);
        vsnprintf(err, cap, fmt, args);
        va_end(args);
    }
    return -EINVAL;
}

/* parse_number reads a non-negative number at *p and advances past it. */
static bool parse_number(const char **p, double *out)
{
    char *end = NULL;
    errno = 0;
    double v = strtod(*p, &end);
    if (end == *p || errno != 0 || !isfinite(v) || v < 0) {
        return false;
    }
    *out = v;
    *p = end;
    return true;
}

/* parse_length reads "N" or "N|STD". */
static bool parse_length(const char **p, double *out_mean, double *out_std)
{
    *out_std = 0;
    if (!parse_number(p, out_mean) || *out_mean < 1 || *out_mean != floor(*out_mean) ||
        *out_mean > DATASET_SEQ_TOKENS_MAX) {
        return false;
    }
    if (**p == '|') {
        (*p)++;
        return parse_number(p, out_std) && *out_std <= DATASET_SEQ_TOKENS_MAX;
    }
    return true;
}

static int parse_entry(const char **p, struct dataset_seq_entry *e, char *err, size_t cap)
{
    double isl = 0;
    double osl = 0;
    const char *start = *p;
    if (!parse_length(p, &isl, &e->isl_stddev) || **p != ',' ||
        (++*p, !parse_length(p, &osl, &e->osl_stddev)) || **p != ':' ||
        (++*p, !parse_number(p, &e->percent)) || e->percent <= 0) {
        return fail(
            err, cap,
            "--seq-dist: cannot read '%.40s': each entry is ISL,OSL:PERCENT with whole "
            "token counts from 1 to 100000000, optionally ISL|STDDEV,OSL|STDDEV:PERCENT (e.g. "
            "'256,128:60;1024,512:40')",
            start);
    }
    e->isl = (uint64_t)isl;
    e->osl = (uint64_t)osl;
    return 0;
}

int dataset_seq_dist_parse(const char *text, struct dataset_seq_dist *out, char *err, size_t cap)
{
    *out = (struct dataset_seq_dist){0};
    const char *p = text;
    double total = 0;
    while (*p != '\0') {
        if (out->count == DATASET_SEQ_DIST_MAX) {
            return fail(err, cap, "--seq-dist: more than %d entries", DATASET_SEQ_DIST_MAX);
        }
        struct dataset_seq_entry *e = &out->entries[out->count];
        int ret = parse_entry(&p, e, err, cap);
        if (ret != 0) {
            return ret;
        }
        total += e->percent;
        out->count++;
        if (*p == ';') {
            p++;
        } else if (*p != '\0') {
            return fail(err, cap,
                        "--seq-dist: unexpected '%c' after entry %zu; separate entries "
                        "with ';'",
                        *p, out->count);
        }
    }
    if (out->count == 0) {
        return fail(err, cap, "--seq-dist: no entries (e.g. '256,128:60;1024,512:40')");
    }
    if (fabs(total - 100.0) > 1e-6) {
        return fail(err, cap, "--seq-dist: the percentages add up to %g, not 100", total);
    }
    return 0;
}

void dataset_seq_dist_sample(const struct dataset_seq_dist *dist, struct dataset_rng *rng,
                             uint64_t *out_isl, uint64_t *out_osl)
{
    double draw = (double)(dataset_rng_next(rng) >> 11) / 9007199254740992.0 * 100.0;
    const struct dataset_seq_entry *e = &dist->entries[dist->count - 1];
    double cumulative = 0;
    for (size_t i = 0; i < dist->count; i++) {
        cumulative += dist->entries[i].percent;
        if (draw < cumulative) {
            e = &dist->entries[i];
            break;
        }
    }
    *out_isl = dataset_sample_length(rng, e->isl, e->isl_stddev);
    *out_osl = dataset_sample_length(rng, e->osl, e->osl_stddev);
}
