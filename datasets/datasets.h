/*
 * datasets.h - the prompts a run sends.
 *
 * Deterministic synthetic prompts. With a tokenizer (tokenizer/tokenizer.h), a
 * struct dataset_prompter makes prompts that re-encode to exactly the requested
 * number of tokens. Without one, dataset_synthetic_prompt counts words from a
 * fixed English word list, one word standing in for one token: the documented
 * approximation, with token metrics then taken from the server's usage reports.
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

/* DATASET_PROMPT_TOKENS_MAX bounds one token-exact prompt. */
#define DATASET_PROMPT_TOKENS_MAX ((size_t)1 << 22)

struct tokenizer;
struct tokenizer_scratch;

/* struct dataset_prompter makes token-exact prompts for one tokenizer. Opaque,
 * read-only once built: threads may share it, each with its own scratch. */
struct dataset_prompter;

/* dataset_prompter_new measures the built-in prose with tok (borrowed: it must
 * outlive the prompter). Returns 0 and a new prompter in *out (free with
 * dataset_prompter_free), or -1 with a message in err. */
int dataset_prompter_new(const struct tokenizer *tok, struct dataset_prompter **out, char *err,
                         size_t err_cap);

/* dataset_prompter_free releases a prompter; NULL is a no-op. */
void dataset_prompter_free(struct dataset_prompter *p);

/* dataset_prompter_generate writes into out (NUL-terminated) a prompt of plain
 * English prose that the prompter's tokenizer encodes (add_special_tokens=False)
 * to exactly `tokens` tokens, drawn from rng (same seed, same prompts). scratch
 * is the caller's per-thread tokenizer scratch. Returns the prompt's length in
 * bytes, or 0 (out then holds "") when tokens is 0 or above
 * DATASET_PROMPT_TOKENS_MAX, the prompt does not fit in cap, or no exact prompt
 * was found. Allocates a temporary array of tokens + 65 offsets. */
size_t dataset_prompter_generate(const struct dataset_prompter *p,
                                 struct tokenizer_scratch *scratch, struct dataset_rng *rng,
                                 size_t tokens, char *out, size_t cap);

#endif
