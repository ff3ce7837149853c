/*
 * sampling.c - --dataset-sampling-strategy, and compact copies of JSON text.
 */
#include <string.h>

#include "datasets/datasets.h"

int dataset_sampling_parse(const char *name, enum dataset_sampling *out)
{
    static const struct {
        const char *name;
        enum dataset_sampling value;
    } names[] = {
        {"sequential", DATASET_SAMPLING_SEQUENTIAL},
        {"random", DATASET_SAMPLING_RANDOM},
        {"shuffle", DATASET_SAMPLING_SHUFFLE},
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(name, names[i].name) == 0) {
            *out = names[i].value;
            return 0;
        }
    }
    return -1;
}

enum dataset_sampling dataset_sampling_default(enum dataset_input_type type)
{
    return type == DATASET_INPUT_RANDOM_POOL ? DATASET_SAMPLING_SHUFFLE
                                             : DATASET_SAMPLING_SEQUENTIAL;
}

/* below returns a uniform index in [0, n) (n > 0). */
static size_t below(struct dataset_rng *rng, size_t n)
{
    return (size_t)(((unsigned __int128)dataset_rng_next(rng) * n) >> 64);
}

void dataset_sample_order(enum dataset_sampling sampling, size_t entry_count,
                          struct dataset_rng *rng, size_t *out_order, size_t order_count)
{
    for (size_t i = 0; i < order_count; i++) {
        out_order[i] =
            sampling == DATASET_SAMPLING_RANDOM ? below(rng, entry_count) : i % entry_count;
    }
    if (sampling != DATASET_SAMPLING_SHUFFLE) {
        return;
    }
    /* Each pass over the entries is its own Fisher-Yates permutation. */
    for (size_t pass = 0; pass < order_count; pass += entry_count) {
        size_t n = order_count - pass < entry_count ? order_count - pass : entry_count;
        size_t *block = out_order + pass;
        /* A last, partial pass picks its n entries from all of them (Knuth's
         * selection sampling) before shuffling them. */
        for (size_t i = 0, picked = 0; n < entry_count && picked < n; i++) {
            if (below(rng, entry_count - i) < n - picked) {
                block[picked++] = i;
            }
        }
        for (size_t i = n; i > 1; i--) {
            size_t j = below(rng, i);
            size_t tmp = block[i - 1];
            block[i - 1] = block[j];
            block[j] = tmp;
        }
    }
}

size_t dataset_compact_json(const char *in, size_t len, char *out)
{
    size_t n = 0;
    bool in_string = false;
    bool escaped = false;
    for (size_t i = 0; i < len; i++) {
        char c = in[i];
        if (in_string) {
            in_string = escaped || c != '"';
            escaped = !escaped && c == '\\';
        } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            continue;
        } else {
            in_string = c == '"';
        }
        out[n++] = c;
    }
    out[n] = '\0';
    return n;
}
