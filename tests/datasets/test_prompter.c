/*
 * test_prompter.c - token-exact synthetic prompts with Qwen3's tokenizer (the
 * reference package fetched for tests/tokenizer; skipped with a message when
 * RINGPERF_OFFLINE=1 and it is not cached, a failure otherwise).
 */
#include <criterion/criterion.h>

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
        cr_assert_fail("Qwen3 tokenizer missing at %s (tests/tokenizer/fetch_reference.sh "
                       "fetches it; set RINGPERF_OFFLINE=1 to skip)",
                       path);
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

static void check_plain_text(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        cr_assert(c >= 0x20 && c != 0x7f, "control character 0x%02x at %zu", c, i);
    }
    cr_assert_null(strstr(text, "<|"), "special-token look-alike in the prompt");
    cr_assert_neq(text[0], ' ');
    cr_assert_neq(text[len - 1], ' ');
}

Test(dataset_prompter, prompts_re_encode_to_exactly_the_requested_tokens, .init = setup,
     .fini = teardown, .timeout = 300)
{
    static char buf[1 << 20];
    struct tokenizer_scratch s = {0};
    struct dataset_rng rng;
    dataset_rng_seed(&rng, 42);
    size_t lengths[400];
    size_t n = 0;
    for (size_t len = 1; len <= 300; len++) {
        lengths[n++] = len;
    }
    const size_t big[] = {511, 512, 550, 1000, 1024, 2048, 4096, 8192, 32768};
    for (size_t i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
        lengths[n++] = big[i];
    }
    for (size_t i = 0; i < n; i++) {
        size_t len = dataset_prompter_generate(prompter, &s, &rng, lengths[i], buf, sizeof(buf));
        cr_assert_gt(len, 0, "no prompt for %zu tokens", lengths[i]);
        cr_assert_eq(strlen(buf), len);
        check_plain_text(buf, len);
        const uint32_t *ids;
        size_t count;
        cr_assert_eq(tokenizer_encode(tok, &s, buf, len, &ids, &count), TOKENIZER_OK);
        cr_assert_eq(count, lengths[i], "asked %zu tokens, prompt has %zu", lengths[i], count);
        for (size_t k = 0; k < count; k++) {
            cr_assert_not(tokenizer_is_special(tok, ids[k]));
        }
    }
    tokenizer_scratch_free(&s);
}

Test(dataset_prompter, same_seed_same_prompts_other_seed_differs, .init = setup, .fini = teardown)
{
    static char a[8192];
    static char b[8192];
    static char c[8192];
    struct tokenizer_scratch s = {0};
    struct dataset_rng ra;
    struct dataset_rng rb;
    struct dataset_rng rc;
    dataset_rng_seed(&ra, 7);
    dataset_rng_seed(&rb, 7);
    dataset_rng_seed(&rc, 8);
    for (int i = 0; i < 20; i++) {
        cr_assert_gt(dataset_prompter_generate(prompter, &s, &ra, 100, a, sizeof(a)), 0);
        cr_assert_gt(dataset_prompter_generate(prompter, &s, &rb, 100, b, sizeof(b)), 0);
        cr_assert_gt(dataset_prompter_generate(prompter, &s, &rc, 100, c, sizeof(c)), 0);
        cr_assert_str_eq(a, b);
    }
    cr_assert_str_neq(a, c);
    tokenizer_scratch_free(&s);
}

Test(dataset_prompter, refuses_zero_tokens_and_prompts_that_do_not_fit, .init = setup,
     .fini = teardown)
{
    char small[32];
    struct tokenizer_scratch s = {0};
    struct dataset_rng rng;
    dataset_rng_seed(&rng, 1);
    cr_assert_eq(dataset_prompter_generate(prompter, &s, &rng, 0, small, sizeof(small)), 0);
    cr_assert_eq(dataset_prompter_generate(prompter, &s, &rng, 100, small, sizeof(small)), 0);
    cr_assert_str_eq(small, "");
    cr_assert_eq(dataset_prompter_generate(prompter, &s, &rng, 5, small, 0), 0);
    dataset_prompter_free(NULL);
    tokenizer_scratch_free(&s);
}
