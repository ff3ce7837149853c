/*
 * test_cmdline.c - the redacted cli_command and the generated help.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/config_internal.h"
#include "config_test_util.h"

/* ----------------------------------------------------------------- redaction */

struct redaction_case {
    const char *const *words;
    const char *cli_command;
};

static const struct redaction_case redaction_cases[] = {
    /* seed 003's example */
    {W("--model", "my-model", "--url", "http://localhost:8000", "--api-key", "sk-secret-12345",
       "--api-port", "9097", "--request-count", "1000"),
     "ringperf profile --model 'my-model' --url 'http://localhost:8000' --api-key '<redacted>' "
     "--api-port 9097 --request-count 1000"},
    {W("--model", "my-model", "--url", "http://localhost:8000", "--api-key", "sk-secret-12345",
       "--request-count", "1000"),
     "ringperf profile --model 'my-model' --url 'http://localhost:8000' --api-key '<redacted>' "
     "--request-count 1000"},
    {W("-m", "x", "--api-key=sk-1"), "ringperf profile -m 'x' --api-key='<redacted>'"},
    {W("-m", "x", "-H", "Authorization: Bearer sk-2", "-H", "X-Trace:1"),
     "ringperf profile -m 'x' -H 'Authorization: <redacted>' -H 'X-Trace:1'"},
    {W("-m", "x", "--header", "x-api-key:abc", "api-key:def", "Cookie: s=1",
       "proxy-authorization:z"),
     "ringperf profile -m 'x' --header 'x-api-key:<redacted>' 'api-key:<redacted>' "
     "'Cookie: <redacted>' 'proxy-authorization:<redacted>'"},
    {W("-m", "x", "-H", "X-Auth-Token: t"),
     "ringperf profile -m 'x' -H 'X-Auth-Token: <redacted>'"},
    {W("-m", "x", "-H", "{\"Authorization\": \"Bearer s\"}"),
     "ringperf profile -m 'x' -H '<redacted>'"},
    {W("-m", "x", "-H", "{\"X-A\": \"1\"}"), "ringperf profile -m 'x' -H '{\"X-A\": \"1\"}'"},
    {W("-m", "x", "-u", "http://bob:pw@h:1/v1", "user:pass@h2:2", "h3:3"),
     "ringperf profile -m 'x' -u 'http://<redacted>@h:1/v1' '<redacted>@h2:2' 'h3:3'"},
    {W("-m", "x", "--url", "http://h:1/v1?api_key=s&x=1&token=t&keyword=k"),
     "ringperf profile -m 'x' --url 'http://h:1/v1?api_key=<redacted>&x=1&token=<redacted>&"
     "keyword=k'"},
    {W("-m", "it's", "--extra-inputs", "stop:[\"a b\"]", "--concurrency=4", "--streaming",
       "--request-timeout-seconds", "1.5e2", "--endpoint", ""),
     "ringperf profile -m 'it'\\''s' --extra-inputs 'stop:[\"a b\"]' --concurrency=4 --streaming "
     "--request-timeout-seconds 1.5e2 --endpoint ''"},
    {W("-m", "x", "-vv", "--random-seed", "-0"), "ringperf profile -m 'x' -vv --random-seed -0"},
};

Test(config_cmdline, rejoins_with_quoting_and_redacts_secrets)
{
    for (size_t i = 0; i < sizeof(redaction_cases) / sizeof(redaction_cases[0]); i++) {
        struct profile_config cfg;
        char err[256];
        int rc = parse(redaction_cases[i].words, &cfg, err, sizeof(err));
        cr_assert_eq(rc, 0, "case %zu: %s", i, err);
        cr_assert_str_eq(cfg.cli_command, redaction_cases[i].cli_command, "case %zu", i);
        config_free(&cfg);
    }
}

/* A command line past CONFIG_CLI_COMMAND_BYTES_MAX is cut where a piece no longer fits, and says
 * so at its end. */
Test(config_cmdline, a_command_past_its_cap_is_cut_and_marked)
{
    size_t n = 300 * 1000;
    char *model = malloc(n + 1);
    cr_assert_not_null(model);
    memset(model, 'm', n);
    model[n] = '\0';
    char *argv[] = {"-m", model, "-m", model, "-m", model, "-m", model, NULL};
    char *line = config__build_cli_command(8, argv);
    cr_assert_not_null(line);
    size_t len = strlen(line);
    cr_assert_lt(len, CONFIG_CLI_COMMAND_BYTES_MAX);
    cr_assert_gt(len, 3 * n, "the pieces that fit are kept");
    cr_assert_str_eq(line + len - strlen(" [truncated]"), " [truncated]");
    free(line);
    free(model);
}

Test(config_cmdline, keeps_the_real_secrets_in_the_config)
{
    struct profile_config cfg;
    char err[256];
    cr_assert_eq(parse(W("-m", "x", "--api-key", "sk-9", "-H", "Authorization: Bearer t"), &cfg,
                       err, sizeof(err)),
                 0);
    cr_assert_str_eq(cfg.api_key, "sk-9");
    cr_assert_str_eq(cfg.headers[0].name, "Authorization");
    cr_assert_str_eq(cfg.headers[0].value, "Bearer t");
    cr_assert_null(strstr(cfg.cli_command, "sk-9"));
    cr_assert_null(strstr(cfg.cli_command, "Bearer"));
    config_free(&cfg);
}

/* ---------------------------------------------------------------------- help */

Test(config_help, lists_every_flag_grouped_with_unsupported_ones_apart)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    cr_assert_not_null(out);
    config_print_help(out);
    fclose(out);
    const char *unsupported = strstr(text, "recognised but not supported by ringperf yet");
    cr_assert_not_null(unsupported);
    cr_assert_not_null(strstr(text, "Usage: ringperf profile"));
    cr_assert_not_null(strstr(text, "\nEndpoint:\n  --model, -m, --model-names <list>"));
    cr_assert_not_null(strstr(text, "Default: chat."));
    cr_assert_not_null(strstr(text, "\nLoad Generator:\n"));
    cr_assert_not_null(strstr(text, "  --request-count, --num-requests <int>"));
    cr_assert_not_null(strstr(text, "Default: localhost:8000."));
    const char *public_dataset = strstr(text, "  --prompt-corpus <str>");
    cr_assert(public_dataset != NULL && public_dataset > unsupported,
              "unsupported flags come last");
    cr_assert_not_null(strstr(text, "(not supported yet):"));
    size_t count = 0;
    const struct config__flag *flags = config__flags(&count);
    for (size_t i = 0; i < count; i++) {
        const char *cursor = flags[i].names;
        char name[128];
        cr_assert(next_name(&cursor, name, sizeof(name)));
        cr_assert_not_null(strstr(text, name), "%s is in the help", name);
    }
    for (const char *line = text; *line != '\0';) {
        size_t line_len = strcspn(line, "\n");
        cr_assert_leq(line_len, 100, "help lines fit in 100 columns");
        line += line_len + (line[line_len] == '\n');
    }
    free(text);
}
