/*
 * blocks.c - prompts of hash-id traces: one block of text per hash id. A
 * block's text is a function of (seed, hash id, length) alone, so the same id
 * gives the same text in every record, as prefix caching needs, without a
 * cache of blocks.
 */
#include <stdlib.h>

#include "datasets/datasets.h"

struct dataset_blocks {
    const struct dataset_prompter *prompter;
    size_t block_tokens;
    uint64_t seed;
};

int dataset_blocks_new(const struct dataset_prompter *prompter, size_t block_tokens, uint64_t seed,
                       struct dataset_blocks **out)
{
    *out = NULL;
    if (block_tokens == 0 || block_tokens > DATASET_PROMPT_TOKENS_MAX) {
        return -1;
    }
    struct dataset_blocks *b = calloc(1, sizeof(*b));
    if (b == NULL) {
        return -1;
    }
    *b = (struct dataset_blocks){.prompter = prompter, .block_tokens = block_tokens, .seed = seed};
    *out = b;
    return 0;
}

void dataset_blocks_free(struct dataset_blocks *blocks)
{
    free(blocks);
}

/* one_block writes the block of hash id `id`, `tokens` long, at out. */
static size_t one_block(const struct dataset_blocks *b, struct tokenizer_scratch *scratch,
                        uint64_t id, size_t tokens, char *out, size_t cap)
{
    struct dataset_rng rng;
    dataset_rng_seed(&rng, b->seed ^ (id * 0x9e3779b97f4a7c15ULL));
    dataset_rng_next(&rng);
    if (b->prompter != NULL) {
        return dataset_prompter_generate(b->prompter, scratch, &rng, tokens, out, cap);
    }
    return dataset_synthetic_prompt(&rng, tokens, out, cap);
}

size_t dataset_blocks_prompt(struct dataset_blocks *blocks, struct tokenizer_scratch *scratch,
                             const uint64_t *hash_ids, size_t hash_id_count, uint64_t input_length,
                             char *out, size_t cap)
{
    if (cap > 0) {
        out[0] = '\0';
    }
    uint64_t full = (uint64_t)(hash_id_count > 0 ? hash_id_count - 1 : 0) * blocks->block_tokens;
    if (hash_id_count == 0 || cap == 0 || input_length <= full ||
        input_length - full > DATASET_PROMPT_TOKENS_MAX) {
        return 0;
    }
    size_t len = 0;
    for (size_t i = 0; i < hash_id_count; i++) {
        size_t tokens =
            i + 1 < hash_id_count ? blocks->block_tokens : (size_t)(input_length - full);
        if (i > 0) {
            if (len + 2 > cap) {
                out[0] = '\0';
                return 0;
            }
            out[len++] = ' ';
        }
        size_t n = one_block(blocks, scratch, hash_ids[i], tokens, out + len, cap - len);
        if (n == 0) {
            out[0] = '\0';
            return 0;
        }
        len += n;
    }
    return len;
}
