/*
 * config_context: flags that do nothing where they are given are refused,
 * and --profile-export-prefix stays a file name.
 */
#include "config_test_util.h"

Test(config_context, flags_without_their_context_are_refused_by_name)
{
    const struct config_case cases[] = {
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
        {W("-m", "m", "-u", "http://user:hunter2@host:8000", "--api-key", "sk-1"),
         "--url 'http://<redacted>@host:8000': its user:password would be sent as Basic auth, "
         "and --api-key sends an Authorization header already"},
        {W("-m", "m", "-u", "http://user:hunter2@host:8000", "-H", "authorization: Bearer t"),
         "-H Authorization sends an Authorization header already"},
        {W("-m", "m", "-u", "http://user:hunter2@host:8000"), NULL},
        {W("-m", "m", "-u", "http://user:hunter2@host:8000", "--endpoint-type", "messages",
           "--api-key", "sk-1"),
         NULL},
        {W("-m", "m", "--network-latency-automatic", "--network-latency-mean", "0.5"),
         "--network-latency-automatic and --network-latency-mean cannot be combined"},
        {W("-m", "m", "--network-latency-ping-interval", "0.5"),
         "--network-latency-ping-interval applies to --network-latency-automatic"},
        {W("-m", "m", "--network-latency-automatic", "--network-latency-ping-interval", "0"),
         "--network-latency-ping-interval"},
        {W("-m", "m", "--network-latency-automatic", "--network-latency-ping-interval", "0.25"),
         NULL},
    };
    check_config_cases(cases, sizeof(cases) / sizeof(cases[0]), "hunter2");
}

Test(config_context, url_credentials_become_a_basic_authorization)
{
    char out[CONFIG_PROXY_AUTHORIZATION_BYTES];
    cr_assert(config_basic_authorization("user:pa%73s", out, sizeof(out)));
    cr_assert_str_eq(out, "Basic dXNlcjpwYXNz", "base64 of the percent-decoded user:pass");
    cr_assert(config_basic_authorization("", out, sizeof(out)));
    cr_assert_str_eq(out, "");
    cr_assert_not(config_basic_authorization("user:pass", out, 8), "too small a buffer");
}
