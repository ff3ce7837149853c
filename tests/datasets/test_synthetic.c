#include <criterion/criterion.h>

#include <ctype.h>
#include <string.h>

#include "datasets/datasets.h"

static size_t count_words(const char *text)
{
    size_t words = 0;
    bool in_word = false;
    for (const char *p = text; *p != '\0'; p++) {
        if (*p == ' ') {
            in_word = false;
        } else if (!in_word) {
            in_word = true;
            words++;
        }
    }
    return words;
}

Test(dataset_synthetic, prompt_has_exactly_the_requested_words)
{
    static char buf[65536];
    struct dataset_rng rng;
    dataset_rng_seed(&rng, 42);
    const size_t lengths[] = {1, 2, 3, 10, 100, 550, 2000};
    for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
        size_t len = dataset_synthetic_prompt(&rng, lengths[i], buf, sizeof(buf));
        cr_assert_gt(len, 0);
        cr_assert_eq(strlen(buf), len);
        cr_assert_eq(count_words(buf), lengths[i], "asked %zu words", lengths[i]);
        cr_assert_neq(buf[0], ' ');
        cr_assert_neq(buf[len - 1], ' ');
        for (size_t j = 0; j < len; j++) {
            cr_assert(buf[j] == ' ' || islower((unsigned char)buf[j]), "plain text only");
        }
    }
}

Test(dataset_synthetic, same_seed_gives_same_prompts_and_other_seeds_differ)
{
    char a[4096];
    char b[4096];
    char c[4096];
    struct dataset_rng ra;
    struct dataset_rng rb;
    struct dataset_rng rc;
    dataset_rng_seed(&ra, 7);
    dataset_rng_seed(&rb, 7);
    dataset_rng_seed(&rc, 8);
    dataset_synthetic_prompt(&ra, 50, a, sizeof(a));
    dataset_synthetic_prompt(&rb, 50, b, sizeof(b));
    dataset_synthetic_prompt(&rc, 50, c, sizeof(c));
    cr_assert_str_eq(a, b);
    cr_assert_str_neq(a, c);
}

Test(dataset_synthetic, prompt_that_does_not_fit_is_refused_not_truncated)
{
    char buf[16];
    struct dataset_rng rng;
    dataset_rng_seed(&rng, 1);
    cr_assert_eq(dataset_synthetic_prompt(&rng, 100, buf, sizeof(buf)), 0);
    cr_assert_str_eq(buf, "");
}

Test(dataset_synthetic, sampled_lengths_are_at_least_one_and_centred_on_the_mean)
{
    struct dataset_rng rng;
    dataset_rng_seed(&rng, 3);
    cr_assert_eq(dataset_sample_length(&rng, 128, 0.0), 128);
    double sum = 0;
    for (int i = 0; i < 10000; i++) {
        uint64_t v = dataset_sample_length(&rng, 100, 30.0);
        cr_assert_geq(v, 1);
        sum += (double)v;
    }
    double mean = sum / 10000.0;
    cr_assert(mean > 97.0 && mean < 103.0, "mean %f", mean);
    for (int i = 0; i < 1000; i++) {
        cr_assert_geq(dataset_sample_length(&rng, 1, 50.0), 1);
    }
}
