/*
 * config_test_util.h - helpers shared by the config/ test files.
 */
#ifndef RINGPERF_TESTS_CONFIG_TEST_UTIL_H
#define RINGPERF_TESTS_CONFIG_TEST_UTIL_H

#include <criterion/criterion.h>

#include <stdbool.h>
#include <string.h>

#include "config/config.h"

#define WORDS_MAX 48

/* parse runs config_parse_profile on a NULL-terminated word list. */
static inline int parse(const char *const *words, struct profile_config *cfg, char *err, size_t cap)
{
    char *argv[WORDS_MAX];
    int argc = 0;
    while (words[argc] != NULL) {
        cr_assert_lt(argc, WORDS_MAX - 1);
        argv[argc] = (char *)words[argc];
        argc++;
    }
    argv[argc] = NULL;
    return config_parse_profile(argc, argv, cfg, err, cap);
}

#define W(...)                                                                                     \
    (const char *const[])                                                                          \
    {                                                                                              \
        __VA_ARGS__, NULL                                                                          \
    }

/* config_case is a command line and the phrase its refusal must contain
 * (NULL: it is accepted). */
struct config_case {
    const char *const *words;
    const char *says;
};

/* check_config_cases parses each case and checks that it is accepted, or
 * refused with its phrase and without `hidden` (a secret; NULL: none) in the
 * message. */
static inline void check_config_cases(const struct config_case *cases, size_t n, const char *hidden)
{
    for (size_t i = 0; i < n; i++) {
        struct profile_config cfg;
        char err[512] = "";
        int rc = parse(cases[i].words, &cfg, err, sizeof(err));
        if (cases[i].says == NULL) {
            cr_assert_eq(rc, 0, "case %zu: %s", i, err);
        } else {
            cr_assert_neq(rc, 0, "case %zu is refused", i);
            cr_assert(strstr(err, cases[i].says) != NULL, "case %zu: [%s] lacks [%s]", i, err,
                      cases[i].says);
            cr_assert(hidden == NULL || strstr(err, hidden) == NULL, "case %zu shows a secret: %s",
                      i, err);
        }
        config_free(&cfg);
    }
}

/* next_name copies the next space-separated spelling of a table entry. */
static inline bool next_name(const char **cursor, char *out, size_t cap)
{
    const char *p = *cursor + strspn(*cursor, " ");
    size_t len = strcspn(p, " ");
    if (len == 0 || len >= cap) {
        return false;
    }
    memcpy(out, p, len);
    out[len] = '\0';
    *cursor = p + len;
    return true;
}

#endif
