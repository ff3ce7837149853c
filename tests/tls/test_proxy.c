/*
 * test_proxy.c - `ringperf profile` behind a real forward proxy (Debian's tinyproxy, started
 * here on a loopback port with a generated configuration): http:// targets in absolute form,
 * https:// targets through a CONNECT tunnel to nginx terminating TLS in front of the mock
 * server, NO_PROXY, a proxy that refuses, and one that is not there. Checked through the
 * records each run exports and the proxy's own log. Skips when tinyproxy or nginx is missing.
 */
#include "profile_run.h"

#define SECRET "s3cr3t-pw"

static struct pr_front front;
static const char *tinyproxy_path;
static pid_t tinyproxy_pid = -1;
static uint16_t proxy_port;

static const char *find_tinyproxy(void)
{
    static const char *const places[] = {"/usr/bin/tinyproxy", "/usr/sbin/tinyproxy",
                                         "/usr/local/bin/tinyproxy"};
    return lb_find(places, sizeof(places) / sizeof(places[0]));
}

/* try_start_tinyproxy starts tinyproxy in the foreground on a free loopback port, allowing
 * CONNECT only to nginx's NP_VALID port; false when it exited at once. */
static bool try_start_tinyproxy(void)
{
    proxy_port = lb_free_port();
    char conf[2048];
    size_t len = 0;
    char log[TP_PATH_BYTES];
    lb_append(conf, sizeof(conf), &len,
              "Port %u\nListen 127.0.0.1\nTimeout 60\nMaxClients 64\nAllow 127.0.0.1\n"
              "ConnectPort %u\nLogLevel Connect\nLogFile \"%s\"\n",
              (unsigned)proxy_port, (unsigned)front.nginx.ports[NP_VALID],
              tp_path(log, front.dir, "tinyproxy.log"));
    char path[TP_PATH_BYTES];
    lb_write_file(tp_path(path, front.dir, "tinyproxy.conf"), conf, len);
    char *argv[] = {(char *)tinyproxy_path, "-d", "-c", path, NULL};
    tinyproxy_pid = lb_spawn_listening(argv, &proxy_port, 1, log);
    return tinyproxy_pid > 0;
}

static void setup(void)
{
    tinyproxy_path = find_tinyproxy();
    if (tinyproxy_path == NULL) {
        return;
    }
    pr_front_start(&front, NULL);
    if (front.nginx_path == NULL) {
        return;
    }
    for (int attempt = 0; attempt < LB_START_ATTEMPTS; attempt++) {
        if (try_start_tinyproxy()) {
            return;
        }
    }
    cr_assert_fail("tinyproxy exited at start %d times", LB_START_ATTEMPTS);
}

static void teardown(void)
{
    lb_stop(&tinyproxy_pid);
    pr_front_stop(&front);
}

TestSuite(tls_proxy, .init = setup, .fini = teardown, .timeout = 120);

static void require_tools(void)
{
    if (tinyproxy_path == NULL) {
        cr_skip_test("tinyproxy is not installed (apt-get install tinyproxy)");
    }
    if (front.nginx_path == NULL) {
        cr_skip_test("nginx is not installed (apt-get install nginx-light)");
    }
}

/* proxy_log_has reports whether tinyproxy's log mentions needle. */
static bool proxy_log_has(const char *needle)
{
    char path[TP_PATH_BYTES];
    char *log = test_read_path(tp_path(path, front.dir, "tinyproxy.log"));
    bool found = log != NULL && strstr(log, needle) != NULL;
    free(log);
    return found;
}

/* assert_no_secret checks that neither the output nor any export of r shows SECRET. */
static void assert_no_secret(const struct pr_run *r)
{
    cr_assert_null(strstr(r->output, SECRET), "the proxy password is redacted: %s", r->output);
    static const char *const files[] = {"profile_export.jsonl", "profile_export_aiperf.json",
                                        "profile_export_aiperf.csv", "logs/aiperf.log",
                                        "server_metrics_export.json"};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char path[TP_PATH_BYTES + 64];
        snprintf(path, sizeof(path), "%s/%s", r->art, files[i]);
        char *text = test_read_path(path);
        cr_assert(text == NULL || strstr(text, SECRET) == NULL, "%s shows the password", path);
        free(text);
    }
}

/* assert_scraped checks that r's server /metrics was scraped (through the same proxy). */
static void assert_scraped(const struct pr_run *r)
{
    char path[TP_PATH_BYTES + 64];
    snprintf(path, sizeof(path), "%s/server_metrics_export.json", r->art);
    json_t *sm = json_load_file(path, 0, NULL);
    cr_assert_not_null(sm, "%s was written", path);
    json_t *ok = json_object_get(json_object_get(sm, "summary"), "endpoints_successful");
    cr_assert_eq(json_array_size(ok), 1, "the /metrics was scraped through the proxy");
    cr_assert_not_null(json_object_get(json_object_get(sm, "metrics"), "vllm:prompt_tokens"));
    json_decref(sm);
}

Test(tls_proxy, http_target_goes_through_the_proxy_in_absolute_form)
{
    require_tools();
    char url[64];
    char env[128];
    char expect[96];
    snprintf(url, sizeof(url), "http://127.0.0.1:%u", (unsigned)front.mock_port);
    snprintf(env, sizeof(env), "http_proxy=http://user:" SECRET "@127.0.0.1:%u",
             (unsigned)proxy_port);
    struct pr_run r;
    pr_run_profile(&r, front.dir, "http", (char *const[]){env, NULL},
                   (const char *const[]){"--url", url, "--streaming", "--request-count", "6",
                                         "--concurrency", "2", "--osl", "4", NULL});
    pr_assert_all_succeeded(&r, 6);
    cr_assert_not_null(strstr(r.output, "through proxy"), "%s", r.output);
    snprintf(expect, sizeof(expect), "POST http://127.0.0.1:%u/v1/chat/completions",
             (unsigned)front.mock_port);
    cr_assert(proxy_log_has(expect), "tinyproxy saw the absolute-form request %s", expect);
    snprintf(expect, sizeof(expect), "GET http://127.0.0.1:%u/metrics", (unsigned)front.mock_port);
    cr_assert(proxy_log_has(expect), "tinyproxy saw the scrape %s", expect);
    assert_scraped(&r);
    assert_no_secret(&r);
    pr_run_free(&r);
}

Test(tls_proxy, https_target_goes_through_a_connect_tunnel)
{
    require_tools();
    char url[64];
    char env[128];
    char expect[96];
    pr_https_url(url, sizeof(url), &front, "localhost", NP_VALID);
    snprintf(env, sizeof(env), "HTTPS_PROXY=127.0.0.1:%u", (unsigned)proxy_port);
    struct pr_run r;
    pr_run_profile(&r, front.dir, "https", (char *const[]){env, NULL},
                   (const char *const[]){"--url", url, "--tls-ca", front.ca, "--streaming",
                                         "--request-count", "8", "--concurrency", "2", "--osl", "4",
                                         NULL});
    pr_assert_all_succeeded(&r, 8);
    snprintf(expect, sizeof(expect), "CONNECT localhost:%u", (unsigned)front.nginx.ports[NP_VALID]);
    cr_assert(proxy_log_has(expect), "tinyproxy saw %s", expect);
    assert_scraped(&r);
    pr_run_free(&r);
}

Test(tls_proxy, no_proxy_sends_listed_hosts_directly)
{
    require_tools();
    char url[64];
    snprintf(url, sizeof(url), "http://127.0.0.1:%u", (unsigned)front.mock_port);
    /* The proxy is unreachable: only a direct connection can succeed. */
    struct pr_run r;
    pr_run_profile(
        &r, front.dir, "noproxy",
        (char *const[]){"http_proxy=http://127.0.0.1:1", "NO_PROXY=example.com, 127.0.0.1", NULL},
        (const char *const[]){"--url", url, "--request-count", "3", NULL});
    pr_assert_all_succeeded(&r, 3);
    cr_assert_null(strstr(r.output, "through proxy"), "%s", r.output);
    pr_run_free(&r);
}

Test(tls_proxy, loopback_is_proxied_unless_listed)
{
    require_tools();
    char url[64];
    snprintf(url, sizeof(url), "http://127.0.0.1:%u", (unsigned)front.mock_port);
    struct pr_run r;
    pr_run_profile(&r, front.dir, "loopback",
                   (char *const[]){"http_proxy=http://127.0.0.1:1", "no_proxy=localhost", NULL},
                   (const char *const[]){"--url", url, "--request-count", "2", NULL});
    pr_assert_all_failed(&r, 2, "ConnectionError", "connect to proxy 127.0.0.1:1");
    pr_run_free(&r);
}

Test(tls_proxy, refused_connect_is_an_error_record_naming_the_proxy_and_status)
{
    require_tools();
    char url[64];
    char env[128];
    char needle[96];
    /* tinyproxy allows CONNECT only to the NP_VALID port. */
    pr_https_url(url, sizeof(url), &front, "localhost", NP_WRONGHOST);
    snprintf(env, sizeof(env), "https_proxy=http://127.0.0.1:%u", (unsigned)proxy_port);
    struct pr_run r;
    pr_run_profile(&r, front.dir, "refused", (char *const[]){env, NULL},
                   (const char *const[]){"--url", url, "--tls-ca", front.ca, "--request-count", "3",
                                         "--concurrency", "1", NULL});
    snprintf(needle, sizeof(needle), "proxy 127.0.0.1:%u refused CONNECT localhost:%u: 403",
             (unsigned)proxy_port, (unsigned)front.nginx.ports[NP_WRONGHOST]);
    pr_assert_all_failed(&r, 3, "ProxyError", needle);
    json_t *error = json_object_get(json_array_get(r.records, 0), "error");
    cr_assert_eq(json_integer_value(json_object_get(error, "code")), 403);
    pr_run_free(&r);
}

Test(tls_proxy, unreachable_proxy_is_an_error_record_without_the_password)
{
    require_tools();
    char url[64];
    char env[128];
    uint16_t closed = lb_free_port();
    pr_https_url(url, sizeof(url), &front, "localhost", NP_VALID);
    snprintf(env, sizeof(env), "HTTPS_PROXY=http://user:" SECRET "@127.0.0.1:%u", (unsigned)closed);
    struct pr_run r;
    pr_run_profile(&r, front.dir, "unreachable", (char *const[]){env, NULL},
                   (const char *const[]){"--url", url, "--tls-ca", front.ca, "--request-count", "2",
                                         "--concurrency", "1", NULL});
    char needle[64];
    snprintf(needle, sizeof(needle), "connect to proxy 127.0.0.1:%u", (unsigned)closed);
    pr_assert_all_failed(&r, 2, "ConnectionError", needle);
    assert_no_secret(&r);
    pr_run_free(&r);
}

Test(tls_proxy, unsupported_proxy_scheme_is_a_start_up_error)
{
    require_tools();
    struct pr_run r;
    pr_run_profile(
        &r, front.dir, "socks", (char *const[]){"ALL_PROXY=socks5://user:" SECRET "@h:1", NULL},
        (const char *const[]){"--url", "http://127.0.0.1:9", "--request-count", "1", NULL});
    cr_assert_eq(r.status, 1, "%s", r.output);
    cr_assert_not_null(strstr(r.output, "ALL_PROXY"), "%s", r.output);
    assert_no_secret(&r);
    pr_run_free(&r);
}
