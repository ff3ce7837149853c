/*
 * test_tls_flags.c - the TLS flags (--tls-ca, --tls-cert, --tls-key, --tls-insecure) and
 * https:// URLs on the `ringperf profile` command line.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config_test_util.h"

Test(config_tls_flags, default_to_verified_tls_with_no_files)
{
    struct profile_config cfg;
    char err[256] = "";
    cr_assert_eq(parse(W("-m", "x", "--url", "https://h"), &cfg, err, sizeof(err)), 0, "%s", err);
    cr_assert_null(cfg.tls_ca_file);
    cr_assert_null(cfg.tls_cert_file);
    cr_assert_null(cfg.tls_key_file);
    cr_assert_not(cfg.tls_insecure);
    struct config_target t;
    cr_assert_eq(config_resolve_url(&cfg, 0, &t, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(t.scheme, CONFIG_SCHEME_HTTPS);
    cr_assert_eq(t.port, 443);
    config_free(&cfg);
}

Test(config_tls_flags, store_their_values)
{
    struct profile_config cfg;
    char err[256] = "";
    cr_assert_eq(parse(W("-m", "x", "--url", "https://h:8443", "--tls-ca", "/etc/ca.pem",
                         "--tls-cert=/c.pem", "--tls-key", "/c.key", "--tls-insecure"),
                       &cfg, err, sizeof(err)),
                 0, "%s", err);
    cr_assert_str_eq(cfg.tls_ca_file, "/etc/ca.pem");
    cr_assert_str_eq(cfg.tls_cert_file, "/c.pem");
    cr_assert_str_eq(cfg.tls_key_file, "/c.key");
    cr_assert(cfg.tls_insecure);
    /* File names are not secrets: they stay readable in the recorded command line. */
    cr_assert_not_null(strstr(cfg.cli_command, "--tls-ca '/etc/ca.pem'"), "%s", cfg.cli_command);
    config_free(&cfg);
}

Test(config_tls_flags, last_value_wins_and_switch_takes_a_boolean)
{
    struct profile_config cfg;
    char err[256] = "";
    cr_assert_eq(
        parse(W("-m", "x", "--tls-ca", "a.pem", "--tls-ca", "b.pem", "--tls-insecure=false"), &cfg,
              err, sizeof(err)),
        0, "%s", err);
    cr_assert_str_eq(cfg.tls_ca_file, "b.pem");
    cr_assert_not(cfg.tls_insecure);
    config_free(&cfg);
}

Test(config_tls_flags, need_a_value)
{
    static const char *const flags[] = {"--tls-ca", "--tls-cert", "--tls-key"};
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
        struct profile_config cfg;
        char err[256] = "";
        cr_assert_eq(parse(W("-m", "x", flags[i]), &cfg, err, sizeof(err)), -EINVAL, "%s",
                     flags[i]);
        cr_assert_not_null(strstr(err, flags[i]), "%s", err);
        config_free(&cfg);
    }
}

Test(config_tls_flags, are_listed_as_supported_in_help)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    cr_assert_not_null(out);
    config_print_help(out);
    fclose(out);
    const char *unsupported = strstr(text, "recognised but not supported by ringperf yet");
    cr_assert_not_null(unsupported);
    static const char *const flags[] = {"--tls-ca", "--tls-cert", "--tls-key", "--tls-insecure"};
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
        const char *at = strstr(text, flags[i]);
        cr_assert(at != NULL && at < unsupported, "%s is listed as supported", flags[i]);
    }
    free(text);
}
