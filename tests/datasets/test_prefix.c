/*
 * test_prefix.c - prefix prompts and user context prompts: exact total token
 * counts with Qwen3's tokenizer (the reference package fetched for
 * tests/tokenizer; skipped when RINGPERF_OFFLINE=1 and it is not cached), and
 * the word-count fallback without one.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "datasets/datasets.h"
#include "tokenizer/tokenizer.h"

static struct tokenizer *tok;
static struct dataset_prompter *prompter;

static void setup(void)
{
    const char *path = getenv("RINGPERF_TOKENIZER_QWEN3");
    cr_assert_not_null(path, "RINGPERF_TOKENIZER_QWEN3 is not set (run through ctest)");
    if (access(path, R_OK) != 0) {
        const char *offline = getenv("RINGPERF_OFFLINE");
        if (offline != NULL && strcmp(offline, "1") == 0) {
            cr_skip_test("RINGPERF_OFFLINE=1 and no cached Qwen3 tokenizer at %s: skipping", path);
        }
        cr_assert_fail("Qwen3 tokenizer missing at %s", path);
    }
    char err[TOKENIZER_ERR_CAP];
    cr_assert_eq(tokenizer_load(path, &tok, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(dataset_prompter_new(tok, &prompter, err, sizeof(err)), 0, "%s", err);
}

static void teardown(void)
{
    dataset_prompter_free(prompter);
    tokenizer_free(tok);
}

static size_t count_words(const char *text)
{
    size_t words = text[0] != '\0';
    for (const char *p = text; *p != '\0'; p++) {
        words += *p == ' ';
    }
    return words;
}

Test(dataset_prefix, joined_prompts_encode_to_prefix_plus_body_tokens, .init = setup,
     .fini = teardown, .timeout = 600)
{
    static char buf[1 << 18];
    struct tokenizer_scratch s = {0};
    static const size_t prefix_lengths[] = {1, 2, 3, 5, 8, 13, 50, 100, 257};
    static const size_t body_lengths[] = {1, 2, 3, 4, 7, 10, 31, 64, 128, 550, 1000};
    struct dataset_rng rng;
    dataset_rng_seed(&rng, 7);
    size_t checked = 0;
    for (size_t p = 0; p < sizeof(prefix_lengths) / sizeof(prefix_lengths[0]); p++) {
        struct dataset_prefix_pool *pool = NULL;
        char err[DATASET_ERR_CAP];
        cr_assert_eq(dataset_prefix_pool_new(prompter, &s, 4, prefix_lengths[p], 99 + p, &pool, err,
                                             sizeof(err)),
                     0, "%s", err);
        cr_assert_eq(dataset_prefix_pool_count(pool), 4);
        for (size_t i = 0; i < 4; i++) {
            const char *prefix = dataset_prefix_pool_get(pool, i);
            size_t n = 0;
            cr_assert_eq(tokenizer_count(tok, &s, prefix, strlen(prefix), &n), TOKENIZER_OK);
            cr_assert_eq(n, prefix_lengths[p], "prefix %zu of %zu tokens", i, prefix_lengths[p]);
        }
        for (size_t b = 0; b < sizeof(body_lengths) / sizeof(body_lengths[0]); b++) {
            for (int rep = 0; rep < 4; rep++) {
                size_t index = 99;
                size_t len = dataset_prefix_prompt(pool, tok, prompter, &s, &rng, body_lengths[b],
                                                   buf, sizeof(buf), &index);
                cr_assert_gt(len, 0, "prefix %zu + body %zu", prefix_lengths[p], body_lengths[b]);
                cr_assert_lt(index, 4);
                const char *prefix = dataset_prefix_pool_get(pool, index);
                cr_assert_eq(strncmp(buf, prefix, strlen(prefix)), 0, "starts with its prefix");
                cr_assert_eq(buf[strlen(prefix)], ' ');
                size_t n = 0;
                cr_assert_eq(tokenizer_count(tok, &s, buf, len, &n), TOKENIZER_OK);
                cr_assert_eq(n, prefix_lengths[p] + body_lengths[b], "prefix %zu + body %zu: %s",
                             prefix_lengths[p], body_lengths[b], buf);
                checked++;
            }
        }
        dataset_prefix_pool_free(pool);
    }
    cr_assert_eq(checked, 9 * 11 * 4);
    tokenizer_scratch_free(&s);
}

Test(dataset_prefix, user_context_is_exact_and_unique_per_session, .init = setup, .fini = teardown,
     .timeout = 300)
{
    static char a[1 << 16];
    static char b[1 << 16];
    struct tokenizer_scratch s = {0};
    for (uint64_t session = 0; session < 20; session++) {
        size_t tokens = 1 + session * 13;
        size_t len = dataset_user_context(tok, prompter, &s, 5, session, tokens, a, sizeof(a));
        cr_assert_gt(len, 0);
        size_t n = 0;
        cr_assert_eq(tokenizer_count(tok, &s, a, len, &n), TOKENIZER_OK);
        cr_assert_eq(n, tokens);
        /* Same (seed, session): same text; next session: another text. */
        cr_assert_eq(dataset_user_context(tok, prompter, &s, 5, session, tokens, b, sizeof(b)),
                     len);
        cr_assert_str_eq(a, b);
        dataset_user_context(tok, prompter, &s, 5, session + 1, tokens, b, sizeof(b));
        cr_assert(strcmp(a, b) != 0, "%s", a);
    }
    tokenizer_scratch_free(&s);
}

Test(dataset_prefix, words_without_a_tokenizer)
{
    char buf[4096];
    struct dataset_prefix_pool *pool = NULL;
    char err[DATASET_ERR_CAP];
    cr_assert_eq(dataset_prefix_pool_new(NULL, NULL, 3, 5, 1, &pool, err, sizeof(err)), 0);
    struct dataset_rng rng;
    dataset_rng_seed(&rng, 3);
    bool seen[3] = {false, false, false};
    for (int i = 0; i < 60; i++) {
        size_t index = 0;
        size_t len =
            dataset_prefix_prompt(pool, NULL, NULL, NULL, &rng, 7, buf, sizeof(buf), &index);
        cr_assert_gt(len, 0);
        cr_assert_eq(count_words(buf), 12);
        seen[index] = true;
    }
    cr_assert(seen[0] && seen[1] && seen[2], "every prefix is picked");
    /* Session contexts: word counts, distinct across sessions. */
    char other[4096];
    cr_assert_gt(dataset_user_context(NULL, NULL, NULL, 1, 0, 9, buf, sizeof(buf)), 0);
    cr_assert_eq(count_words(buf), 9);
    dataset_user_context(NULL, NULL, NULL, 1, 1, 9, other, sizeof(other));
    cr_assert(strcmp(buf, other) != 0, "%s", buf);
    dataset_prefix_pool_free(pool);
}

Test(dataset_prefix, invalid_sizes_and_small_buffers_fail)
{
    char err[DATASET_ERR_CAP];
    struct dataset_prefix_pool *pool = NULL;
    cr_assert_eq(dataset_prefix_pool_new(NULL, NULL, 0, 5, 1, &pool, err, sizeof(err)), -EINVAL);
    cr_assert_null(pool);
    cr_assert_not_null(strstr(err, "expected 1.."));
    cr_assert_eq(dataset_prefix_pool_new(NULL, NULL, 2, 0, 1, &pool, err, sizeof(err)), -EINVAL);
    cr_assert_eq(
        dataset_prefix_pool_new(NULL, NULL, DATASET_PREFIX_POOL_MAX + 1, 5, 1, &pool, err, 64),
        -EINVAL);
    cr_assert_eq(dataset_prefix_pool_new(NULL, NULL, 2, 50, 1, &pool, err, sizeof(err)), 0);
    char small[64];
    struct dataset_rng rng;
    dataset_rng_seed(&rng, 1);
    size_t index = 0;
    cr_assert_eq(
        dataset_prefix_prompt(pool, NULL, NULL, NULL, &rng, 5, small, sizeof(small), &index), 0);
    cr_assert_str_eq(small, "");
    char buf[4096];
    cr_assert_eq(dataset_prefix_prompt(pool, NULL, NULL, NULL, &rng, 0, buf, sizeof(buf), &index),
                 0);
    cr_assert_eq(dataset_user_context(NULL, NULL, NULL, 1, 0, 0, buf, sizeof(buf)), 0);
    dataset_prefix_pool_free(pool);
}

Test(dataset_prefix, every_short_prefix_and_body_length_is_exact, .init = setup, .fini = teardown,
     .timeout = 600)
{
    static char buf[1 << 14];
    struct tokenizer_scratch s = {0};
    struct dataset_rng rng;
    dataset_rng_seed(&rng, 11);
    for (size_t prefix = 1; prefix <= 24; prefix++) {
        struct dataset_prefix_pool *pool = NULL;
        char err[DATASET_ERR_CAP];
        cr_assert_eq(
            dataset_prefix_pool_new(prompter, &s, 3, prefix, prefix, &pool, err, sizeof(err)), 0,
            "%s", err);
        for (size_t body = 1; body <= 40; body++) {
            size_t index = 0;
            size_t len = dataset_prefix_prompt(pool, tok, prompter, &s, &rng, body, buf,
                                               sizeof(buf), &index);
            cr_assert_gt(len, 0, "prefix %zu + body %zu", prefix, body);
            size_t n = 0;
            cr_assert_eq(tokenizer_count(tok, &s, buf, len, &n), TOKENIZER_OK);
            cr_assert_eq(n, prefix + body, "prefix %zu + body %zu: %s", prefix, body, buf);
        }
        dataset_prefix_pool_free(pool);
    }
    tokenizer_scratch_free(&s);
}
