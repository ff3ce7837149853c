/*
 * config_context: flags that do nothing where they are given are refused,
 * and --profile-export-prefix stays a file name.
 */
#include "config_test_util.h"

struct context_case {
    const char *const *words;
    const char *says; /* NULL: accepted */
};

Test(config_context, flags_without_their_context_are_refused_by_name)
{
    const struct context_case cases[] = {
        {W("-m", "m", "--custom-dataset-type", "mooncake_trace"),
         "--custom-dataset-type applies to an --input-file, and there is none"},
        {W("-m", "m", "--fixed-schedule"), "--fixed-schedule applies to an --input-file"},
        {W("-m", "m", "--fixed-schedule-auto-offset"), "drop --fixed-schedule-auto-offset"},
        {W("-m", "m", "--fixed-schedule-end-offset", "100"), "--fixed-schedule-end-offset"},
        {W("-m", "m", "--fixed-schedule", "--input-file", "t.jsonl"), NULL},
        {W("-m", "m", "--profile-export-prefix", "../../etc/x"),
         "--profile-export-prefix is a file name inside --artifact-dir, and '../../etc/x' has a "
         "'/'"},
        {W("-m", "m", "--profile-export-prefix", "/tmp/x"), "has a '/'"},
        {W("-m", "m", "--profile-export-prefix", "my_run.jsonl"), NULL},
        {W("-m", "m", "--profile-export-prefix", ".."), NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct profile_config cfg;
        char err[512] = "";
        int rc = parse(cases[i].words, &cfg, err, sizeof(err));
        if (cases[i].says == NULL) {
            cr_assert_eq(rc, 0, "case %zu: %s", i, err);
        } else {
            cr_assert_neq(rc, 0, "case %zu is refused", i);
            cr_assert(strstr(err, cases[i].says) != NULL, "case %zu: [%s] lacks [%s]", i, err,
                      cases[i].says);
        }
        config_free(&cfg);
    }
}
