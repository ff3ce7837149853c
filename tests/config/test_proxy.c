/*
 * test_proxy.c - which proxy a target goes through: NO_PROXY matching and the choice of
 * variable, with curl's rules, and the Proxy-Authorization value.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>

#include "config/config.h"

struct no_proxy_case {
    const char *list;
    const char *host;
    bool exempt;
};

Test(config_proxy, no_proxy_matches_hosts_domains_addresses_and_ranges)
{
    static const struct no_proxy_case cases[] = {
        {"*", "anything.example", true},
        {"example.com", "example.com", true},
        {"example.com", "api.example.com", true},
        {".example.com", "api.example.com", true},
        {".example.com", "example.com", true},
        {"example.com", "badexample.com", false},
        {"example.com", "example.com.evil", false},
        {"EXAMPLE.com.", "api.Example.COM.", true},
        {" a.test , b.test ", "b.test", true},
        {"a.test,,b.test", "c.test", false},
        {"localhost", "127.0.0.1", false},
        {"127.0.0.1", "127.0.0.1", true},
        {"127.0.0.1", "127.0.0.10", false},
        {"0.0.1", "127.0.0.1", false},
        {"10.0.0.0/8", "10.200.3.4", true},
        {"10.0.0.0/8", "11.0.0.1", false},
        {"192.168.1.0/25", "192.168.1.127", true},
        {"192.168.1.0/25", "192.168.1.128", false},
        {"[::1]", "::1", true},
        {"::1", "::1", true},
        {"fd00::/8", "fd12::3", true},
        {"fd00::/8", "fe80::1", false},
        {"10.0.0.0/99", "10.0.0.1", false},
        {"10.0.0.0/8", "ten.example", false},
        {"", "example.com", false},
        {",", "example.com", false},
        {"[", "example.com", false},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cr_assert_eq(config_no_proxy_match(cases[i].list, cases[i].host), cases[i].exempt,
                     "NO_PROXY '%s', host '%s'", cases[i].list, cases[i].host);
    }
    cr_assert(!config_no_proxy_match(NULL, "example.com"));
}

static struct config_target target(enum config_scheme scheme, const char *host)
{
    struct config_target t = {.scheme = scheme, .port = scheme == CONFIG_SCHEME_HTTPS ? 443 : 80};
    snprintf(t.host, sizeof(t.host), "%s", host);
    return t;
}

Test(config_proxy, the_variable_follows_the_scheme_and_lower_case_wins)
{
    char *env[] = {"HTTPS_PROXY=http://upper:1", "https_proxy=lower:2", "http_proxy=plain:3",
                   "ALL_PROXY=all:4", NULL};
    char err[256];
    struct config_proxy p;
    struct config_target https = target(CONFIG_SCHEME_HTTPS, "api.test");
    cr_assert_eq(config_proxy_for(env, &https, &p, err, sizeof(err)), 0, "%s", err);
    cr_assert(p.used);
    cr_assert_str_eq(p.host, "lower");
    cr_assert_eq(p.port, 2);
    cr_assert_str_eq(p.variable, "https_proxy");
    cr_assert_str_eq(p.authority, "lower:2");
    cr_assert_str_eq(p.authorization, "");
    struct config_target http = target(CONFIG_SCHEME_HTTP, "api.test");
    cr_assert_eq(config_proxy_for(env, &http, &p, err, sizeof(err)), 0, "%s", err);
    cr_assert_str_eq(p.host, "plain");
    char *only_all[] = {"ALL_PROXY=all", "https_proxy=", NULL};
    cr_assert_eq(config_proxy_for(only_all, &https, &p, err, sizeof(err)), 0, "%s", err);
    cr_assert_str_eq(p.variable, "ALL_PROXY");
    cr_assert_eq(p.port, 1080, "curl's default proxy port");
    char *none[] = {"PATH=/bin", NULL};
    cr_assert_eq(config_proxy_for(none, &https, &p, err, sizeof(err)), 0);
    cr_assert(!p.used);
}

Test(config_proxy, no_proxy_exempts_and_lower_case_wins)
{
    char *env[] = {"http_proxy=p:1", "no_proxy=.internal", "NO_PROXY=*", NULL};
    char err[256];
    struct config_proxy p;
    struct config_target in = target(CONFIG_SCHEME_HTTP, "llm.internal");
    struct config_target out = target(CONFIG_SCHEME_HTTP, "llm.example");
    cr_assert_eq(config_proxy_for(env, &in, &p, err, sizeof(err)), 0);
    cr_assert(!p.used);
    cr_assert_eq(config_proxy_for(env, &out, &p, err, sizeof(err)), 0);
    cr_assert(p.used);
}

Test(config_proxy, credentials_become_basic_authorization_and_stay_out_of_messages)
{
    char *env[] = {"https_proxy=http://Aladdin:open%20sesame@[::1]:3128/", NULL};
    char err[256];
    struct config_proxy p;
    struct config_target t = target(CONFIG_SCHEME_HTTPS, "api.test");
    cr_assert_eq(config_proxy_for(env, &t, &p, err, sizeof(err)), 0, "%s", err);
    cr_assert_str_eq(p.authorization, "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
    cr_assert_str_eq(p.host, "::1");
    cr_assert_str_eq(p.authority, "[::1]:3128");
    cr_assert_null(strstr(p.authority, "Aladdin"));
}

Test(config_proxy, bad_proxy_urls_are_errors_naming_the_variable_not_the_password)
{
    static const char *const bad[] = {
        "https_proxy=https://u:hunter2@proxy:443", "https_proxy=socks5://u:hunter2@proxy",
        "https_proxy=http://u:hunter2@proxy:0",    "https_proxy=http://u:hunter2@proxy:99999",
        "https_proxy=http://u:hunter2@/",          "https_proxy=http://u:hunter2@proxy/path",
        "https_proxy=http://u:hun/ter2@proxy",
    };
    struct config_target t = target(CONFIG_SCHEME_HTTPS, "api.test");
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *env[] = {(char *)bad[i], NULL};
        char err[512];
        struct config_proxy p;
        cr_assert_eq(config_proxy_for(env, &t, &p, err, sizeof(err)), -EINVAL, "%s", bad[i]);
        cr_assert(!p.used);
        cr_assert_not_null(strstr(err, "https_proxy"), "%s", err);
        cr_assert_null(strstr(err, "hunter2"), "%s", err);
        cr_assert_null(strstr(err, "ter2"), "%s", err);
    }
}
