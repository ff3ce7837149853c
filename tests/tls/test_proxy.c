/*
 * test_proxy.c - `ringperf profile` behind a real forward proxy (Debian's tinyproxy, started
 * here on a loopback port with a generated configuration): http:// targets in absolute form,
 * https:// targets through a CONNECT tunnel to nginx terminating TLS in front of the mock
 * server, NO_PROXY, a proxy that refuses, and one that is not there. Checked through the
 * records each run exports and the proxy's own log. Skips when tinyproxy or nginx is missing.
 */
#include <fcntl.h>
#include <jansson.h>
#include <spawn.h>

#include "nginx_proxy.h"

extern char **environ;

#define SECRET "s3cr3t-pw"

static char dir[TP_PATH_BYTES];
static const char *nginx_path;
static const char *tinyproxy_path;
static pid_t mock_pid = -1;
static pid_t tinyproxy_pid = -1;
static uint16_t mock_port;
static uint16_t proxy_port;
static struct np_nginx tls_front;

static const char *find_tinyproxy(void)
{
    static const char *const places[] = {"/usr/bin/tinyproxy", "/usr/sbin/tinyproxy",
                                         "/usr/local/bin/tinyproxy"};
    for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
        if (access(places[i], X_OK) == 0) {
            return places[i];
        }
    }
    return NULL;
}

/* start_mock starts `ringperf mock-server --port 0` and reads the port it announces. */
static void start_mock(void)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    char *argv[] = {RINGPERF_BINARY, "mock-server", "--port", "0", NULL};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addclose(&actions, fds[0]);
    int ret = posix_spawn(&mock_pid, argv[0], &actions, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    cr_assert_eq(ret, 0, "spawn mock-server: %s", strerror(ret));
    close(fds[1]);
    FILE *out = fdopen(fds[0], "r");
    char line[256];
    cr_assert_not_null(fgets(line, sizeof(line), out), "mock-server printed nothing");
    fclose(out);
    const char *colon = strrchr(line, ':');
    cr_assert_not_null(colon, "unexpected line: %s", line);
    mock_port = (uint16_t)strtol(colon + 1, NULL, 10);
    cr_assert_gt(mock_port, 0, "%s", line);
}

/* try_start_tinyproxy starts tinyproxy in the foreground on a free loopback port, allowing
 * CONNECT only to nginx's NP_VALID port; false when it exited at once. */
static bool try_start_tinyproxy(void)
{
    proxy_port = np_free_port();
    char conf[2048];
    size_t len = 0;
    np_append(conf, sizeof(conf), &len,
              "Port %u\nListen 127.0.0.1\nTimeout 60\nMaxClients 64\nAllow 127.0.0.1\n"
              "ConnectPort %u\nLogLevel Connect\nLogFile \"%s/tinyproxy.log\"\n",
              (unsigned)proxy_port, (unsigned)tls_front.ports[NP_VALID], dir);
    char path[TP_PATH_BYTES];
    FILE *f = fopen(tp_path(path, dir, "tinyproxy.conf"), "w");
    cr_assert_not_null(f);
    cr_assert_eq(fwrite(conf, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
    tinyproxy_pid = fork();
    cr_assert_geq(tinyproxy_pid, 0);
    if (tinyproxy_pid == 0) {
        execl(tinyproxy_path, tinyproxy_path, "-d", "-c", path, (char *)NULL);
        _exit(127);
    }
    for (int tries = 0; tries < 200; tries++) {
        int status = 0;
        if (waitpid(tinyproxy_pid, &status, WNOHANG) == tinyproxy_pid) {
            tinyproxy_pid = -1;
            return false;
        }
        if (np_port_open(proxy_port)) {
            return true;
        }
        usleep(50 * 1000);
    }
    cr_assert_fail("tinyproxy did not open its port within 10 s");
    return false;
}

static void setup(void)
{
    nginx_path = np_find();
    tinyproxy_path = find_tinyproxy();
    if (nginx_path == NULL || tinyproxy_path == NULL) {
        return;
    }
    tp_make_certs(dir, sizeof(dir));
    start_mock();
    np_start(&tls_front, nginx_path, dir, mock_port, 30);
    for (int attempt = 0; attempt < 3; attempt++) {
        if (try_start_tinyproxy()) {
            return;
        }
    }
    cr_assert_fail("tinyproxy exited at start 3 times");
}

static void teardown(void)
{
    if (tinyproxy_pid > 0) {
        kill(tinyproxy_pid, SIGTERM);
        waitpid(tinyproxy_pid, NULL, 0);
        tinyproxy_pid = -1;
    }
    np_stop(&tls_front);
    if (mock_pid > 0) {
        kill(mock_pid, SIGTERM);
        waitpid(mock_pid, NULL, 0);
        mock_pid = -1;
    }
    tp_remove_dir(dir);
}

TestSuite(tls_proxy, .init = setup, .fini = teardown, .timeout = 120);

static void require_tools(void)
{
    if (tinyproxy_path == NULL) {
        cr_skip_test("tinyproxy is not installed (apt-get install tinyproxy)");
    }
    if (nginx_path == NULL) {
        cr_skip_test("nginx is not installed (apt-get install nginx-light)");
    }
}

/* run is one `ringperf profile` process and what it left behind. */
struct run {
    int status;
    char *output;    /* stdout and stderr, owned */
    json_t *records; /* profile_export.jsonl as an array, owned; NULL when not written */
    size_t errors;   /* records with an error */
    char art[TP_PATH_BYTES];
};

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return NULL;
    }
    size_t cap = 1 << 16;
    size_t len = 0;
    char *buf = malloc(cap);
    cr_assert_not_null(buf);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len + 1 == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            cr_assert_not_null(buf);
        }
    }
    buf[len] = '\0';
    fclose(f);
    return buf;
}

static void load_records(struct run *r, const char *path)
{
    char *text = read_file(path);
    if (text == NULL) {
        return;
    }
    r->records = json_array();
    for (char *line = text; *line != '\0';) {
        char *end = strchr(line, '\n');
        cr_assert_not_null(end, "every record ends with a newline");
        *end = '\0';
        json_error_t err;
        json_t *obj = json_loads(line, 0, &err);
        cr_assert_not_null(obj, "a record is JSON: %s", err.text);
        r->errors += !json_is_null(json_object_get(obj, "error"));
        json_array_append_new(r->records, obj);
        line = end + 1;
    }
    free(text);
}

/* is_proxy_variable is true for the variables this test sets itself. */
static bool is_proxy_variable(const char *entry)
{
    static const char *const names[] = {
        "http_proxy=", "HTTP_PROXY=", "https_proxy=", "HTTPS_PROXY=",   "all_proxy=",
        "ALL_PROXY=",  "no_proxy=",   "NO_PROXY=",    "SSL_CERT_FILE=", "AIPERF_HTTP_SSL_VERIFY="};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strncmp(entry, names[i], strlen(names[i])) == 0) {
            return true;
        }
    }
    return false;
}

/* child_env is environ without proxy or TLS variables, plus extra (NULL-ended, at most 4). */
static char **child_env(char *const *extra)
{
    size_t n = 0;
    while (environ[n] != NULL) {
        n++;
    }
    char **env = calloc(n + 8, sizeof(*env));
    cr_assert_not_null(env);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_proxy_variable(environ[i])) {
            env[k++] = environ[i];
        }
    }
    for (size_t i = 0; extra != NULL && extra[i] != NULL && i < 4; i++) {
        env[k++] = extra[i];
    }
    return env;
}

/* run_profile runs `ringperf profile -m test --ui-type none --artifact-dir DIR/NAME ARGS`
 * (args NULL-ended) with the extra environment, and loads its records. */
static void run_profile(struct run *r, const char *name, char *const *env_extra,
                        const char *const *args)
{
    *r = (struct run){0};
    char log[TP_PATH_BYTES + 8];
    char records[TP_PATH_BYTES + 32];
    tp_path(r->art, dir, name);
    snprintf(log, sizeof(log), "%s.out", r->art);
    snprintf(records, sizeof(records), "%s/profile_export.jsonl", r->art);
    char *argv[48] = {RINGPERF_BINARY, "profile",        "-m",  "test", "--ui-type",
                      "none",          "--artifact-dir", r->art};
    int argc = 8;
    for (size_t i = 0; args[i] != NULL; i++) {
        cr_assert_lt(argc, 46);
        argv[argc++] = (char *)args[i];
    }
    argv[argc] = NULL;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log, O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    char **env = child_env(env_extra);
    pid_t pid = -1;
    int ret = posix_spawn(&pid, argv[0], &actions, NULL, argv, env);
    posix_spawn_file_actions_destroy(&actions);
    free(env);
    cr_assert_eq(ret, 0, "spawn ringperf: %s", strerror(ret));
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r->output = read_file(log);
    cr_assert_not_null(r->output);
    load_records(r, records);
}

static void run_free(struct run *r)
{
    free(r->output);
    json_decref(r->records);
}

static void assert_all_succeeded(const struct run *r, size_t count)
{
    cr_assert_eq(r->status, 0, "%s", r->output);
    cr_assert_not_null(r->records, "the records were written:\n%s", r->output);
    cr_assert_eq(json_array_size(r->records), count, "%s", r->output);
    cr_assert_eq(r->errors, 0, "%s", r->output);
}

/* assert_all_failed checks that every one of count records is an error of type whose
 * message contains needle. */
static void assert_all_failed(const struct run *r, size_t count, const char *type,
                              const char *needle)
{
    cr_assert_neq(r->status, 0, "a run where every request failed exits non-zero");
    cr_assert_not_null(r->records, "the records were written:\n%s", r->output);
    cr_assert_eq(json_array_size(r->records), count, "%s", r->output);
    cr_assert_eq(r->errors, count);
    for (size_t i = 0; i < count; i++) {
        json_t *error = json_object_get(json_array_get(r->records, i), "error");
        const char *got_type = json_string_value(json_object_get(error, "type"));
        const char *message = json_string_value(json_object_get(error, "message"));
        cr_assert(got_type != NULL && message != NULL, "error has a type and a message");
        cr_assert_str_eq(got_type, type, "%s", message);
        cr_assert(strstr(message, needle) != NULL, "'%s' says '%s'", message, needle);
    }
}

/* proxy_log_has reports whether tinyproxy's log mentions needle. */
static bool proxy_log_has(const char *needle)
{
    char path[TP_PATH_BYTES];
    char *log = read_file(tp_path(path, dir, "tinyproxy.log"));
    bool found = log != NULL && strstr(log, needle) != NULL;
    free(log);
    return found;
}

/* assert_no_secret checks that neither the output nor any export of r shows SECRET. */
static void assert_no_secret(const struct run *r)
{
    cr_assert_null(strstr(r->output, SECRET), "the proxy password is redacted: %s", r->output);
    static const char *const files[] = {"profile_export.jsonl", "profile_export_aiperf.json",
                                        "profile_export_aiperf.csv", "logs/aiperf.log"};
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        char path[TP_PATH_BYTES + 64];
        snprintf(path, sizeof(path), "%s/%s", r->art, files[i]);
        char *text = read_file(path);
        cr_assert(text == NULL || strstr(text, SECRET) == NULL, "%s shows the password", path);
        free(text);
    }
}

Test(tls_proxy, http_target_goes_through_the_proxy_in_absolute_form)
{
    require_tools();
    char url[64];
    char env[128];
    char expect[96];
    snprintf(url, sizeof(url), "http://127.0.0.1:%u", (unsigned)mock_port);
    snprintf(env, sizeof(env), "http_proxy=http://user:" SECRET "@127.0.0.1:%u",
             (unsigned)proxy_port);
    struct run r;
    run_profile(&r, "http", (char *const[]){env, NULL},
                (const char *const[]){"--url", url, "--streaming", "--request-count", "6",
                                      "--concurrency", "2", "--osl", "4", NULL});
    assert_all_succeeded(&r, 6);
    cr_assert_not_null(strstr(r.output, "through proxy"), "%s", r.output);
    snprintf(expect, sizeof(expect), "POST http://127.0.0.1:%u/v1/chat/completions",
             (unsigned)mock_port);
    cr_assert(proxy_log_has(expect), "tinyproxy saw the absolute-form request %s", expect);
    assert_no_secret(&r);
    run_free(&r);
}

Test(tls_proxy, https_target_goes_through_a_connect_tunnel)
{
    require_tools();
    char url[64];
    char env[128];
    char ca[TP_PATH_BYTES];
    char expect[96];
    snprintf(url, sizeof(url), "https://localhost:%u", (unsigned)tls_front.ports[NP_VALID]);
    snprintf(env, sizeof(env), "HTTPS_PROXY=127.0.0.1:%u", (unsigned)proxy_port);
    struct run r;
    run_profile(&r, "https", (char *const[]){env, NULL},
                (const char *const[]){"--url", url, "--tls-ca", tp_path(ca, dir, "ca.crt"),
                                      "--streaming", "--request-count", "8", "--concurrency", "2",
                                      "--osl", "4", NULL});
    assert_all_succeeded(&r, 8);
    snprintf(expect, sizeof(expect), "CONNECT localhost:%u", (unsigned)tls_front.ports[NP_VALID]);
    cr_assert(proxy_log_has(expect), "tinyproxy saw %s", expect);
    run_free(&r);
}

Test(tls_proxy, no_proxy_sends_listed_hosts_directly)
{
    require_tools();
    char url[64];
    snprintf(url, sizeof(url), "http://127.0.0.1:%u", (unsigned)mock_port);
    /* The proxy is unreachable: only a direct connection can succeed. */
    struct run r;
    run_profile(
        &r, "noproxy",
        (char *const[]){"http_proxy=http://127.0.0.1:1", "NO_PROXY=example.com, 127.0.0.1", NULL},
        (const char *const[]){"--url", url, "--request-count", "3", NULL});
    assert_all_succeeded(&r, 3);
    cr_assert_null(strstr(r.output, "through proxy"), "%s", r.output);
    run_free(&r);
}

Test(tls_proxy, loopback_is_proxied_unless_listed)
{
    require_tools();
    char url[64];
    snprintf(url, sizeof(url), "http://127.0.0.1:%u", (unsigned)mock_port);
    struct run r;
    run_profile(&r, "loopback",
                (char *const[]){"http_proxy=http://127.0.0.1:1", "no_proxy=localhost", NULL},
                (const char *const[]){"--url", url, "--request-count", "2", NULL});
    assert_all_failed(&r, 2, "ConnectionError", "connect to proxy 127.0.0.1:1");
    run_free(&r);
}

Test(tls_proxy, refused_connect_is_an_error_record_naming_the_proxy_and_status)
{
    require_tools();
    char url[64];
    char env[128];
    char ca[TP_PATH_BYTES];
    char needle[96];
    /* tinyproxy allows CONNECT only to the NP_VALID port. */
    snprintf(url, sizeof(url), "https://localhost:%u", (unsigned)tls_front.ports[NP_WRONGHOST]);
    snprintf(env, sizeof(env), "https_proxy=http://127.0.0.1:%u", (unsigned)proxy_port);
    struct run r;
    run_profile(&r, "refused", (char *const[]){env, NULL},
                (const char *const[]){"--url", url, "--tls-ca", tp_path(ca, dir, "ca.crt"),
                                      "--request-count", "3", "--concurrency", "1", NULL});
    snprintf(needle, sizeof(needle), "proxy 127.0.0.1:%u refused CONNECT localhost:%u: 403",
             (unsigned)proxy_port, (unsigned)tls_front.ports[NP_WRONGHOST]);
    assert_all_failed(&r, 3, "ProxyError", needle);
    json_t *error = json_object_get(json_array_get(r.records, 0), "error");
    cr_assert_eq(json_integer_value(json_object_get(error, "code")), 403);
    run_free(&r);
}

Test(tls_proxy, unreachable_proxy_is_an_error_record_without_the_password)
{
    require_tools();
    char url[64];
    char env[128];
    char ca[TP_PATH_BYTES];
    uint16_t closed = np_free_port();
    snprintf(url, sizeof(url), "https://localhost:%u", (unsigned)tls_front.ports[NP_VALID]);
    snprintf(env, sizeof(env), "HTTPS_PROXY=http://user:" SECRET "@127.0.0.1:%u", (unsigned)closed);
    struct run r;
    run_profile(&r, "unreachable", (char *const[]){env, NULL},
                (const char *const[]){"--url", url, "--tls-ca", tp_path(ca, dir, "ca.crt"),
                                      "--request-count", "2", "--concurrency", "1", NULL});
    char needle[64];
    snprintf(needle, sizeof(needle), "connect to proxy 127.0.0.1:%u", (unsigned)closed);
    assert_all_failed(&r, 2, "ConnectionError", needle);
    assert_no_secret(&r);
    run_free(&r);
}

Test(tls_proxy, unsupported_proxy_scheme_is_a_start_up_error)
{
    require_tools();
    struct run r;
    run_profile(&r, "socks", (char *const[]){"ALL_PROXY=socks5://user:" SECRET "@h:1", NULL},
                (const char *const[]){"--url", "http://127.0.0.1:9", "--request-count", "1", NULL});
    cr_assert_eq(r.status, 2, "%s", r.output);
    cr_assert_not_null(strstr(r.output, "ALL_PROXY"), "%s", r.output);
    assert_no_secret(&r);
    run_free(&r);
}
