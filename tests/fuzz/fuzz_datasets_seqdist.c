/*
 * fuzz_datasets_seqdist.c - dataset_seq_dist_parse (--seq-dist) on arbitrary
 * text, then draws from what it accepted.
 *
 * Invariants checked (abort on violation): a refusal has a message naming
 * --seq-dist; an accepted distribution has 1..DATASET_SEQ_DIST_MAX entries
 * with lengths and spreads within DATASET_SEQ_TOKENS_MAX and percentages
 * adding up to 100; every draw gives lengths of at least 1 that one entry can
 * give (a zero spread gives its length exactly). UBSan checks the
 * conversions of far-tail draws.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/datasets.h"

#define TEXT_BYTES_MAX 4096
#define DRAWS 16

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_entries(const struct dataset_seq_dist *dist)
{
    if (dist->count == 0 || dist->count > DATASET_SEQ_DIST_MAX) {
        abort();
    }
    double total = 0;
    for (size_t i = 0; i < dist->count; i++) {
        const struct dataset_seq_entry *e = &dist->entries[i];
        if (!isfinite(e->percent) || e->percent <= 0 || e->isl < 1 ||
            e->isl > DATASET_SEQ_TOKENS_MAX || e->osl < 1 || e->osl > DATASET_SEQ_TOKENS_MAX ||
            !(e->isl_stddev >= 0 && e->isl_stddev <= DATASET_SEQ_TOKENS_MAX) ||
            !(e->osl_stddev >= 0 && e->osl_stddev <= DATASET_SEQ_TOKENS_MAX)) {
            abort();
        }
        total += e->percent;
    }
    if (fabs(total - 100.0) > 1e-6) {
        abort();
    }
}

/* drawn_from says whether (isl, osl) can come from one of the entries. */
static int drawn_from(const struct dataset_seq_dist *dist, uint64_t isl, uint64_t osl)
{
    for (size_t i = 0; i < dist->count; i++) {
        const struct dataset_seq_entry *e = &dist->entries[i];
        int isl_ok = isl >= 1 && (e->isl_stddev > 0 || isl == e->isl);
        int osl_ok = osl >= 1 && (e->osl_stddev > 0 || osl == e->osl);
        if (isl_ok && osl_ok) {
            return 1;
        }
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > TEXT_BYTES_MAX) {
        return 0;
    }
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    struct dataset_seq_dist dist;
    char err[256] = "";
    int ret = dataset_seq_dist_parse(text, &dist, err, sizeof(err));
    free(text);
    if (ret != 0) {
        if (strstr(err, "--seq-dist") == NULL) {
            abort();
        }
        return 0;
    }
    check_entries(&dist);
    struct dataset_rng rng;
    dataset_rng_seed(&rng, size);
    for (int i = 0; i < DRAWS; i++) {
        uint64_t isl = 0;
        uint64_t osl = 0;
        dataset_seq_dist_sample(&dist, &rng, &isl, &osl);
        if (!drawn_from(&dist, isl, osl)) {
            abort();
        }
    }
    return 0;
}
