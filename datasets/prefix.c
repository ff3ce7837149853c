/*
 * prefix.c - prefix prompts (--num-prefix-prompts, --prefix-prompt-length) and
 * per-session user context prompts (--user-context-prompt-length).
 *
 * A prefixed prompt is "<prefix> <body>". Encoded on its own the body has a
 * first word without a leading space; after the prefix it gains one, and a
 * byte-level BPE may then spend one token more or less on it. So the joined
 * text is counted, the body length corrected by the difference and a new body
 * drawn, until the whole prompt is exactly prefix + body tokens long.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/datasets.h"
#include "tokenizer/tokenizer.h"

enum {
    /* Attempts at a body that joins a prefix to the exact total. One seam
     * moves the count by a token or two; each retry also draws new words. */
    PREFIX_ATTEMPTS_MAX = 32,
};

struct dataset_prefix_pool {
    char **prefixes;
    size_t *lengths; /* bytes */
    size_t count;
    size_t tokens; /* of each prefix */
};

/* generate writes tokens tokens of text (words without a prompter). */
static size_t generate(const struct dataset_prompter *prompter, struct tokenizer_scratch *scratch,
                       struct dataset_rng *rng, size_t tokens, char *out, size_t cap)
{
    return prompter != NULL ? dataset_prompter_generate(prompter, scratch, rng, tokens, out, cap)
                            : dataset_synthetic_prompt(rng, tokens, out, cap);
}

void dataset_prefix_pool_free(struct dataset_prefix_pool *pool)
{
    if (pool == NULL) {
        return;
    }
    for (size_t i = 0; i < pool->count; i++) {
        free(pool->prefixes[i]);
    }
    free(pool->prefixes);
    free(pool->lengths);
    free(pool);
}

int dataset_prefix_pool_new(const struct dataset_prompter *prompter,
                            struct tokenizer_scratch *scratch, size_t count, size_t tokens,
                            uint64_t seed, struct dataset_prefix_pool **out, char *err,
                            size_t err_cap)
{
    *out = NULL;
    if (count == 0 || count > DATASET_PREFIX_POOL_MAX || tokens == 0 ||
        tokens > DATASET_PROMPT_TOKENS_MAX) {
        snprintf(err, err_cap,
                 "prefix prompts: %zu prompts of %zu tokens; expected 1..%zu prompts of "
                 "1..%zu tokens",
                 count, tokens, (size_t)DATASET_PREFIX_POOL_MAX, (size_t)DATASET_PROMPT_TOKENS_MAX);
        return -EINVAL;
    }
    struct dataset_prefix_pool *pool = calloc(1, sizeof(*pool));
    size_t cap = tokens * 32 + 64; /* far above the longest token in bytes */
    char *buf = malloc(cap);
    if (pool == NULL || buf == NULL || (pool->prefixes = calloc(count, sizeof(char *))) == NULL ||
        (pool->lengths = calloc(count, sizeof(size_t))) == NULL) {
        goto fail_nomem;
    }
    pool->tokens = tokens;
    struct dataset_rng rng;
    dataset_rng_seed(&rng, seed);
    for (size_t i = 0; i < count; i++) {
        size_t len = generate(prompter, scratch, &rng, tokens, buf, cap);
        if (len == 0) {
            snprintf(err, err_cap, "prefix prompts: no prompt of %zu tokens could be made", tokens);
            dataset_prefix_pool_free(pool);
            free(buf);
            return -EINVAL;
        }
        pool->prefixes[i] = strndup(buf, len);
        if (pool->prefixes[i] == NULL) {
            goto fail_nomem;
        }
        pool->lengths[i] = len;
        pool->count++;
    }
    free(buf);
    *out = pool;
    return 0;

fail_nomem:
    snprintf(err, err_cap, "prefix prompts: out of memory");
    dataset_prefix_pool_free(pool);
    free(buf);
    return -ENOMEM;
}

size_t dataset_prefix_pool_count(const struct dataset_prefix_pool *pool)
{
    return pool->count;
}

const char *dataset_prefix_pool_get(const struct dataset_prefix_pool *pool, size_t i)
{
    return pool->prefixes[i];
}

/* exact_join writes head, a space and a body into out such that the whole
 * encodes to exactly head_tokens + body_tokens tokens (words without tok). */
static size_t exact_join(const struct tokenizer *tok, const struct dataset_prompter *prompter,
                         struct tokenizer_scratch *scratch, struct dataset_rng *rng,
                         const char *head, size_t head_len, size_t head_tokens, size_t body_tokens,
                         char *out, size_t cap)
{
    if (head_len + 2 >= cap) {
        return 0;
    }
    memcpy(out, head, head_len);
    out[head_len] = ' ';
    size_t want = head_tokens + body_tokens;
    size_t try_tokens = body_tokens;
    for (int attempt = 0; attempt < PREFIX_ATTEMPTS_MAX; attempt++) {
        size_t blen =
            generate(prompter, scratch, rng, try_tokens, out + head_len + 1, cap - head_len - 1);
        size_t len = head_len + 1 + blen;
        size_t got = 0;
        if (blen == 0) {
            break;
        }
        if (tok == NULL) {
            return len; /* words: the join adds exactly one separator */
        }
        if (tokenizer_count(tok, scratch, out, len, &got) != TOKENIZER_OK) {
            break;
        }
        if (got == want) {
            return len;
        }
        /* Correct the body by the seam's difference, keeping it at least 1. */
        long long next = (long long)try_tokens + (long long)want - (long long)got;
        try_tokens = next >= 1 ? (size_t)next : 1;
    }
    out[0] = '\0';
    return 0;
}

size_t dataset_prefix_prompt(const struct dataset_prefix_pool *pool, const struct tokenizer *tok,
                             const struct dataset_prompter *prompter,
                             struct tokenizer_scratch *scratch, struct dataset_rng *rng,
                             size_t body_tokens, char *out, size_t cap, size_t *out_index)
{
    if (cap > 0) {
        out[0] = '\0';
    }
    if (body_tokens == 0 || cap == 0 || (prompter == NULL) != (tok == NULL)) {
        return 0;
    }
    size_t index = (size_t)(dataset_rng_next(rng) % pool->count);
    *out_index = index;
    return exact_join(tok, prompter, scratch, rng, pool->prefixes[index], pool->lengths[index],
                      pool->tokens, body_tokens, out, cap);
}

size_t dataset_user_context(const struct tokenizer *tok, const struct dataset_prompter *prompter,
                            struct tokenizer_scratch *scratch, uint64_t seed, uint64_t session,
                            size_t tokens, char *out, size_t cap)
{
    /* Each session's stream depends only on (seed, session): contexts are the
     * same whatever order the sessions are built in. */
    struct dataset_rng hash;
    dataset_rng_seed(&hash, session ^ 0x75736572637478ULL);
    struct dataset_rng rng;
    dataset_rng_seed(&rng, seed ^ dataset_rng_next(&hash));
    if (cap > 0) {
        out[0] = '\0';
    }
    if (tokens == 0 || tokens > DATASET_PROMPT_TOKENS_MAX || (prompter == NULL) != (tok == NULL)) {
        return 0;
    }
    /* The prose has a few thousand start points, so two sessions could draw
     * the same text; a leading "Session N." makes each one unique whenever
     * there is room for it and a word after it. */
    char head[48];
    int head_len = snprintf(head, sizeof(head), "Session %llu.", (unsigned long long)session);
    size_t head_tokens = 2;
    if (tok != NULL &&
        tokenizer_count(tok, scratch, head, (size_t)head_len, &head_tokens) != TOKENIZER_OK) {
        return 0;
    }
    if (head_tokens + 1 > tokens) {
        return generate(prompter, scratch, &rng, tokens, out, cap);
    }
    return exact_join(tok, prompter, scratch, &rng, head, (size_t)head_len, head_tokens,
                      tokens - head_tokens, out, cap);
}
