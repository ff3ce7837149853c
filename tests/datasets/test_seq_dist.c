#include <criterion/criterion.h>

#include <errno.h>
#include <string.h>

#include "datasets/datasets.h"

Test(dataset_seq_dist, parses_pairs_weights_and_deviations)
{
    struct dataset_seq_dist d;
    char err[256];
    cr_assert_eq(dataset_seq_dist_parse("256,128:60;1024|10,512|5.5:40", &d, err, sizeof(err)), 0,
                 "%s", err);
    cr_assert_eq(d.count, 2);
    cr_assert_eq(d.entries[0].isl, 256);
    cr_assert_eq(d.entries[0].osl, 128);
    cr_assert_float_eq(d.entries[0].percent, 60.0, 1e-12);
    cr_assert_eq(d.entries[1].isl, 1024);
    cr_assert_float_eq(d.entries[1].isl_stddev, 10.0, 1e-12);
    cr_assert_eq(d.entries[1].osl, 512);
    cr_assert_float_eq(d.entries[1].osl_stddev, 5.5, 1e-12);
}

Test(dataset_seq_dist, rejects_malformed_mixtures_with_the_flag_named)
{
    static const char *const bad[][2] = {
        {"", "no entries"},
        {"256,128", "ISL,OSL:PERCENT"},
        {"256:128:100", "ISL,OSL:PERCENT"},
        {"256,128:60", "add up to 60"},
        {"256,128:60;512,64:60", "add up to 120"},
        {"0,128:100", "whole token counts"},
        {"2.5,128:100", "whole token counts"},
        {"256,128:100x", "separate entries"},
        {"256,128:-5;1,1:105", "ISL,OSL:PERCENT"},
        {"[[256,128,100]]", "ISL,OSL:PERCENT"},
        {"1e300,128:100", "from 1 to 100000000"},
        {"256,100000001:100", "from 1 to 100000000"},
        {"256|1e300,128:100", "from 1 to 100000000"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct dataset_seq_dist d;
        char err[256] = "";
        cr_assert_eq(dataset_seq_dist_parse(bad[i][0], &d, err, sizeof(err)), -EINVAL, "'%s'",
                     bad[i][0]);
        cr_assert(strstr(err, "--seq-dist") != NULL, "'%s': %s", bad[i][0], err);
        cr_assert(strstr(err, bad[i][1]) != NULL, "'%s': %s", bad[i][0], err);
    }
}

Test(dataset_seq_dist, draws_each_pair_in_proportion)
{
    struct dataset_seq_dist d;
    char err[256];
    cr_assert_eq(dataset_seq_dist_parse("100,10:25;200,20:75", &d, err, sizeof(err)), 0, "%s", err);
    struct dataset_rng rng;
    dataset_rng_seed(&rng, 5);
    size_t first = 0;
    for (int i = 0; i < 40000; i++) {
        uint64_t isl = 0;
        uint64_t osl = 0;
        dataset_seq_dist_sample(&d, &rng, &isl, &osl);
        cr_assert((isl == 100 && osl == 10) || (isl == 200 && osl == 20), "%llu,%llu",
                  (unsigned long long)isl, (unsigned long long)osl);
        first += isl == 100;
    }
    cr_assert(first > 9400 && first < 10600, "25%% of 40000: %zu", first);
}
