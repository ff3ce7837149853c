#include "datasets/datasets.h"

#include <math.h>
#include <string.h>

/* Ordinary words, so prompts read like text to a server that inspects them and
 * contain no control characters or special tokens. */
static const char *const WORDS[] = {
    "the",     "model",   "answer",  "question", "river",   "mountain", "system",  "light",
    "garden",  "reason",  "number",  "window",   "history", "language", "engine",  "measure",
    "simple",  "careful", "distant", "quiet",    "bright",  "open",     "small",   "large",
    "travel",  "write",   "read",    "follow",   "build",   "remember", "explain", "describe",
    "between", "through", "under",   "across",   "before",  "after",    "because", "while",
    "water",   "stone",   "paper",   "market",   "village", "ocean",    "forest",  "winter",
    "summer",  "morning", "evening", "student",  "teacher", "story",    "letter",  "signal",
    "network", "memory",  "pattern", "balance",  "harvest", "journey",  "silver",  "orange",
};
enum { WORD_COUNT = sizeof(WORDS) / sizeof(WORDS[0]) };

void dataset_rng_seed(struct dataset_rng *rng, uint64_t seed)
{
    rng->state = seed;
}

uint64_t dataset_rng_next(struct dataset_rng *rng)
{
    uint64_t z = (rng->state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double uniform_open(struct dataset_rng *rng)
{
    /* 53 random bits mapped into (0, 1): never 0, so log() below is finite. */
    return ((double)(dataset_rng_next(rng) >> 11) + 0.5) / 9007199254740992.0;
}

double dataset_rng_normal(struct dataset_rng *rng, double mean, double stddev)
{
    double u1 = uniform_open(rng);
    double u2 = uniform_open(rng);
    return mean + stddev * sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

uint64_t dataset_sample_length(struct dataset_rng *rng, uint64_t mean, double stddev)
{
    if (stddev <= 0.0) {
        return mean > 0 ? mean : 1;
    }
    double value = round(dataset_rng_normal(rng, (double)mean, stddev));
    /* The lengths and spreads are bounded, but a far tail must still not
     * overflow the conversion. */
    if (!(value < 0x1p62)) {
        value = 0x1p62;
    }
    return value < 1.0 ? 1 : (uint64_t)value;
}

size_t dataset_synthetic_prompt(struct dataset_rng *rng, size_t words, char *out, size_t cap)
{
    size_t len = 0;
    for (size_t i = 0; i < words; i++) {
        const char *word = WORDS[dataset_rng_next(rng) % WORD_COUNT];
        size_t word_len = strlen(word);
        size_t need = word_len + (i > 0 ? 1 : 0);
        if (len + need + 1 > cap) {
            if (cap > 0) {
                out[0] = '\0';
            }
            return 0;
        }
        if (i > 0) {
            out[len++] = ' ';
        }
        memcpy(out + len, word, word_len);
        len += word_len;
    }
    if (cap > 0) {
        out[len] = '\0';
    }
    return len;
}
