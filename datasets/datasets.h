/*
 * datasets.h - the prompts a run sends.
 *
 * For now: deterministic synthetic prompts. Until the tokenizer lands (its own
 * issue), a prompt's length is counted in words from a fixed English word list,
 * and one word stands in for one token. That approximation is documented in
 * the README and announced at run time; token metrics come from the server's
 * usage reports meanwhile.
 */
#ifndef RINGPERF_DATASETS_H
#define RINGPERF_DATASETS_H

#include <stddef.h>
#include <stdint.h>

/* dataset_rng is a small, fast, seedable generator (splitmix64). Caller-owned,
 * so that every stream of random numbers is explicit and reproducible. */
struct dataset_rng {
    uint64_t state;
};

/* dataset_rng_seed starts a generator; the same seed gives the same sequence. */
void dataset_rng_seed(struct dataset_rng *rng, uint64_t seed);

/* dataset_rng_next returns the next 64 random bits. */
uint64_t dataset_rng_next(struct dataset_rng *rng);

/* dataset_rng_normal returns a normally distributed sample (Box-Muller). */
double dataset_rng_normal(struct dataset_rng *rng, double mean, double stddev);

/* dataset_sample_length draws a length from N(mean, stddev), rounded and
 * clamped to at least 1, as AIPerf samples --isl/--osl. stddev 0 gives mean. */
uint64_t dataset_sample_length(struct dataset_rng *rng, uint64_t mean, double stddev);

/* dataset_synthetic_prompt writes a prompt of exactly `words` words (single
 * spaces, no leading or trailing space) drawn from rng into out, NUL-terminated.
 * Returns the prompt's length in bytes, or 0 when it does not fit in cap (out
 * then holds an empty string). */
size_t dataset_synthetic_prompt(struct dataset_rng *rng, size_t words, char *out, size_t cap);

#endif
