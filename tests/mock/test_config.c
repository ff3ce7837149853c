/*
 * test_config.c - `ringperf mock-server` flag parsing: defaults, every flag, both spellings,
 * and error messages that name the flag and show a valid use.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mock/mock.h"

#define ARGC(a) ((int)(sizeof(a) / sizeof((a)[0])))

static int parse(int argc, char **argv, struct mock_config *cfg, char *err)
{
    return mock_config_parse(argc, argv, cfg, err, 512);
}

Test(mock_config, defaults)
{
    struct mock_config cfg;
    char err[512];
    char *argv[] = {"mock-server"};
    cr_assert_eq(parse(ARGC(argv), argv, &cfg, err), 0);
    cr_assert_str_eq(cfg.host, "127.0.0.1");
    cr_assert_eq(cfg.port, 8000);
    cr_assert_eq(cfg.threads, 1);
    cr_assert_eq(cfg.tokens_per_chunk, 1);
    cr_assert_eq(cfg.output_tokens, 16);
    cr_assert_eq(cfg.ttft_ms, 0);
    cr_assert_eq(cfg.itl_ms, 0);
    cr_assert_eq(cfg.error_500_rate + cfg.error_429_rate + cfg.drop_rate + cfg.stall_rate +
                     cfg.malformed_rate,
                 0);
    cr_assert_null(cfg.token_log_path);
    cr_assert_eq(cfg.max_body_bytes, 64 * 1024 * 1024);
    cr_assert_eq(mock_config_validate(&cfg, err, sizeof(err)), 0);
}

Test(mock_config, every_flag_sets_its_field)
{
    struct mock_config cfg;
    char err[512];
    char *argv[] = {"mock-server",
                    "--host",
                    "0.0.0.0",
                    "--port",
                    "0",
                    "--threads",
                    "4",
                    "--ttft-ms",
                    "0.5",
                    "--itl-ms=2.25",
                    "--ttft-jitter-ms",
                    "1",
                    "--itl-jitter-ms",
                    "0.1",
                    "--tokens-per-chunk",
                    "3",
                    "--output-tokens",
                    "99",
                    "--error-500-rate",
                    "1",
                    "--error-429-rate=2",
                    "--drop-rate",
                    "3",
                    "--stall-rate",
                    "4",
                    "--malformed-rate",
                    "5.5",
                    "--seed",
                    "18446744073709551615",
                    "--token-log",
                    "/tmp/t.jsonl",
                    "--max-connections",
                    "100",
                    "--max-body-kb",
                    "8",
                    "--spec-decode-tokens",
                    "5"};
    cr_assert_eq(parse(ARGC(argv), argv, &cfg, err), 0, "%s", err);
    cr_assert_str_eq(cfg.host, "0.0.0.0");
    cr_assert_eq(cfg.port, 0);
    cr_assert_eq(cfg.threads, 4);
    cr_assert_float_eq(cfg.ttft_ms, 0.5, 1e-12);
    cr_assert_float_eq(cfg.itl_ms, 2.25, 1e-12);
    cr_assert_float_eq(cfg.ttft_jitter_ms, 1, 1e-12);
    cr_assert_float_eq(cfg.itl_jitter_ms, 0.1, 1e-12);
    cr_assert_eq(cfg.tokens_per_chunk, 3);
    cr_assert_eq(cfg.output_tokens, 99);
    cr_assert_float_eq(cfg.error_500_rate, 1, 1e-12);
    cr_assert_float_eq(cfg.error_429_rate, 2, 1e-12);
    cr_assert_float_eq(cfg.drop_rate, 3, 1e-12);
    cr_assert_float_eq(cfg.stall_rate, 4, 1e-12);
    cr_assert_float_eq(cfg.malformed_rate, 5.5, 1e-12);
    cr_assert_eq(cfg.seed, UINT64_MAX);
    cr_assert_str_eq(cfg.token_log_path, "/tmp/t.jsonl");
    cr_assert_eq(cfg.max_connections, 100);
    cr_assert_eq(cfg.max_body_bytes, 8 * 1024);
    cr_assert_eq(cfg.spec_decode_tokens, 5);
}

Test(mock_config, help_returns_one)
{
    struct mock_config cfg;
    char err[512];
    char *argv[] = {"mock-server", "--port", "1", "--help"};
    cr_assert_eq(parse(ARGC(argv), argv, &cfg, err), 1);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    mock_usage(f);
    fclose(f);
    cr_assert_not_null(strstr(text, "--ttft-ms"));
    cr_assert_not_null(strstr(text, "--token-log"));
    cr_assert_not_null(strstr(text, "(default 8000)"));
    free(text);
}

struct bad_case {
    const char *flag;
    const char *value; /* NULL = flag given without a value */
    const char *expect[2];
};

static const struct bad_case BAD[] = {
    {"--ttft-ms", "abc", {"--ttft-ms: 'abc' is not a number", "e.g. --ttft-ms 50 or 0.5"}},
    {"--ttft-ms", "-1", {"--ttft-ms: '-1' is out of range", "milliseconds"}},
    {"--itl-ms", "nan", {"--itl-ms: 'nan' is not a number", "--itl-ms 10"}},
    {"--itl-ms", " 5", {"--itl-ms", "not a number"}},
    {"--itl-jitter-ms", "1e10", {"--itl-jitter-ms", "out of range"}},
    {"--port", "65536", {"--port: '65536' is out of range", "0 picks a free port"}},
    {"--port", "-1", {"--port: '-1' is not a whole number", "--port 8000"}},
    {"--threads", "0", {"--threads: '0' is out of range", "1 to 256"}},
    {"--threads", "2.5", {"--threads", "not a whole number"}},
    {"--tokens-per-chunk", "99999", {"--tokens-per-chunk", "out of range"}},
    {"--output-tokens", "", {"--output-tokens", "not a whole number"}},
    {"--drop-rate", "101", {"--drop-rate: '101' is out of range", "percentage from 0 to 100"}},
    {"--stall-rate", "x", {"--stall-rate", "not a number"}},
    {"--seed", "18446744073709551616", {"--seed", "not a whole number"}},
    {"--max-body-kb", "0", {"--max-body-kb", "out of range"}},
    {"--spec-decode-tokens",
     "17",
     {"--spec-decode-tokens: '17' is out of range", "from 0 to 16, e.g. --spec-decode-tokens 3"}},
    {"--host", "", {"--host", "empty value"}},
    {"--token-log", NULL, {"--token-log: missing value", "--token-log tokens.jsonl"}},
};

Test(mock_config, bad_values_name_the_flag_and_the_fix)
{
    for (size_t i = 0; i < sizeof(BAD) / sizeof(BAD[0]); i++) {
        struct mock_config cfg;
        char err[512];
        char *argv[3] = {"mock-server", (char *)BAD[i].flag, (char *)BAD[i].value};
        int argc = BAD[i].value != NULL ? 3 : 2;
        cr_assert_eq(parse(argc, argv, &cfg, err), -EINVAL, "%s %s", BAD[i].flag,
                     BAD[i].value ? BAD[i].value : "");
        for (int k = 0; k < 2; k++) {
            cr_assert_not_null(strstr(err, BAD[i].expect[k]), "message [%s] lacks [%s]", err,
                               BAD[i].expect[k]);
        }
    }
}

Test(mock_config, unknown_flags_and_positionals_are_refused)
{
    struct mock_config cfg;
    char err[512];
    char *a1[] = {"mock-server", "--nope=1"};
    cr_assert_eq(parse(ARGC(a1), a1, &cfg, err), -EINVAL);
    cr_assert_not_null(strstr(err, "unknown flag '--nope'"));
    char *a2[] = {"mock-server", "extra"};
    cr_assert_eq(parse(ARGC(a2), a2, &cfg, err), -EINVAL);
    cr_assert_not_null(strstr(err, "unexpected argument 'extra'"));
}

Test(mock_config, fault_rates_must_total_at_most_100)
{
    struct mock_config cfg;
    char err[512];
    char *ok[] = {"mock-server", "--drop-rate", "50", "--stall-rate", "50"};
    cr_assert_eq(parse(ARGC(ok), ok, &cfg, err), 0, "%s", err);
    char *bad[] = {"mock-server", "--drop-rate",      "50", "--stall-rate",
                   "50",          "--error-500-rate", "0.5"};
    cr_assert_eq(parse(ARGC(bad), bad, &cfg, err), -EINVAL);
    cr_assert_not_null(strstr(err, "add up to 100.5%"), "%s", err);
}

Test(mock_config, validate_checks_configs_built_in_code)
{
    struct mock_config cfg;
    char err[512];
    mock_config_init(&cfg);
    cfg.threads = 0;
    cr_assert_eq(mock_config_validate(&cfg, err, sizeof(err)), -EINVAL);
    cr_assert_not_null(strstr(err, "--threads"));
    mock_config_init(&cfg);
    cfg.itl_ms = -0.5;
    cr_assert_eq(mock_config_validate(&cfg, err, sizeof(err)), -EINVAL);
    cr_assert_not_null(strstr(err, "--itl-ms"));
    mock_config_init(&cfg);
    cfg.host = NULL;
    cr_assert_eq(mock_config_validate(&cfg, err, sizeof(err)), -EINVAL);
    mock_config_init(&cfg);
    cfg.threads = 8;
    cfg.max_connections = 4;
    cr_assert_eq(mock_config_validate(&cfg, err, sizeof(err)), -EINVAL);
    cr_assert_not_null(strstr(err, "--max-connections"));
}
