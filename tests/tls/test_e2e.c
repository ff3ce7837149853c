/*
 * test_e2e.c - `ringperf profile --url https://...` as a user runs it: real processes on
 * loopback (`ringperf mock-server`, nginx terminating TLS in front of it with certificates
 * generated at test time, and ringperf itself), checked through the files the run leaves.
 * Skips when nginx is not installed.
 */
#include <fcntl.h>
#include <jansson.h>
#include <spawn.h>

#include "nginx_proxy.h"

extern char **environ;

#define MOCK_TTFT_MS 30
#define MOCK_ITL_MS 5
#define OSL_TOKENS 8

static char dir[TP_PATH_BYTES];
static const char *nginx_path;
static pid_t mock_pid = -1;
static uint16_t mock_port;
static struct np_nginx proxy;

/* start_mock starts `ringperf mock-server --port 0` and reads the port it announces. */
static void start_mock(void)
{
    int fds[2];
    cr_assert_eq(pipe(fds), 0);
    char ttft[16];
    char itl[16];
    snprintf(ttft, sizeof(ttft), "%d", MOCK_TTFT_MS);
    snprintf(itl, sizeof(itl), "%d", MOCK_ITL_MS);
    char *argv[] = {RINGPERF_BINARY, "mock-server", "--port", "0", "--ttft-ms", ttft,
                    "--itl-ms",      itl,           NULL};
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

static void setup(void)
{
    nginx_path = np_find();
    if (nginx_path == NULL) {
        return;
    }
    tp_make_certs(dir, sizeof(dir));
    start_mock();
    np_start(&proxy, nginx_path, dir, mock_port, 30);
}

static void teardown(void)
{
    np_stop(&proxy);
    if (mock_pid > 0) {
        kill(mock_pid, SIGTERM);
        waitpid(mock_pid, NULL, 0);
        mock_pid = -1;
    }
    tp_remove_dir(dir);
}

TestSuite(tls_e2e, .init = setup, .fini = teardown, .timeout = 120);

static void require_nginx(void)
{
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

/* child_env is environ without the variables that change TLS, plus extra (NULL-ended). */
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
        if (strncmp(environ[i], "SSL_CERT_FILE=", 14) != 0 &&
            strncmp(environ[i], "AIPERF_HTTP_SSL_VERIFY=", 23) != 0) {
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
    char art[TP_PATH_BYTES];
    char log[TP_PATH_BYTES + 8];
    char records[TP_PATH_BYTES + 32];
    tp_path(art, dir, name);
    snprintf(log, sizeof(log), "%s.out", art);
    snprintf(records, sizeof(records), "%s/profile_export.jsonl", art);
    char *argv[48] = {RINGPERF_BINARY, "profile",        "-m", "test", "--ui-type",
                      "none",          "--artifact-dir", art};
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

static double metric(json_t *record, const char *name)
{
    json_t *value =
        json_object_get(json_object_get(json_object_get(record, "metrics"), name), "value");
    cr_assert(json_is_number(value), "metric %s is present", name);
    return json_number_value(value);
}

static void url_of(char *out, size_t cap, const char *host, enum np_port port)
{
    snprintf(out, cap, "https://%s:%u", host, (unsigned)proxy.ports[port]);
}

/* assert_all_failed checks that every one of count records is an error of type with a
 * message containing needle. */
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

Test(tls_e2e, streaming_run_succeeds_with_sane_token_timing)
{
    require_nginx();
    char url[64];
    char ca[TP_PATH_BYTES];
    url_of(url, sizeof(url), "localhost", NP_VALID);
    struct run r;
    run_profile(&r, "ok", NULL,
                (const char *const[]){"--url", url, "--tls-ca", tp_path(ca, dir, "ca.crt"),
                                      "--streaming", "--request-count", "24", "--concurrency", "4",
                                      "--osl", "8", NULL});
    cr_assert_eq(r.status, 0, "%s", r.output);
    cr_assert_not_null(r.records);
    cr_assert_eq(json_array_size(r.records), 24);
    cr_assert_eq(r.errors, 0, "%s", r.output);
    cr_assert_null(strstr(r.output, "WARNING"), "verification stays on: %s", r.output);
    for (size_t i = 0; i < 24; i++) {
        json_t *rec = json_array_get(r.records, i);
        /* The server waits TTFT after the request arrives and ITL between tokens, so no
         * client can see them sooner; nginx in between only adds delay. */
        cr_assert_geq(metric(rec, "time_to_first_token"), MOCK_TTFT_MS * 0.999);
        cr_assert_geq(metric(rec, "request_latency"),
                      (MOCK_TTFT_MS + (OSL_TOKENS - 1) * MOCK_ITL_MS) * 0.999);
        cr_assert_gt(metric(rec, "inter_token_latency"), 0);
        cr_assert_eq((int)metric(rec, "output_sequence_length"), OSL_TOKENS);
        cr_assert_eq(
            json_integer_value(json_object_get(json_object_get(rec, "metadata"), "http_status")),
            200);
    }
    char summary[TP_PATH_BYTES];
    char *json = read_file(tp_path(summary, dir, "ok/profile_export_aiperf.json"));
    cr_assert_not_null(json, "the summary export was written");
    free(json);
    run_free(&r);
}

Test(tls_e2e, non_streaming_run_with_large_bodies_over_an_ip_literal)
{
    require_nginx();
    char url[64];
    char ca[TP_PATH_BYTES];
    url_of(url, sizeof(url), "127.0.0.1", NP_VALID);
    struct run r;
    /* ~20000 words: each body is several times the TLS send buffer. */
    run_profile(&r, "big", NULL,
                (const char *const[]){"--url", url, "--tls-ca", tp_path(ca, dir, "ca.crt"),
                                      "--request-count", "6", "--concurrency", "2", "--isl",
                                      "20000", "--osl", "4", NULL});
    cr_assert_eq(r.status, 0, "%s", r.output);
    cr_assert_eq(json_array_size(r.records), 6);
    cr_assert_eq(r.errors, 0, "%s", r.output);
    run_free(&r);
}

Test(tls_e2e, wrong_host_is_an_error_record_naming_the_certificates_names)
{
    require_nginx();
    char url[64];
    char ca[TP_PATH_BYTES];
    url_of(url, sizeof(url), "localhost", NP_WRONGHOST);
    struct run r;
    run_profile(&r, "wronghost", NULL,
                (const char *const[]){"--url", url, "--tls-ca", tp_path(ca, dir, "ca.crt"),
                                      "--request-count", "3", "--concurrency", "1", NULL});
    assert_all_failed(&r, 3, "ClientConnectorCertificateError", "other.example");
    run_free(&r);
}

Test(tls_e2e, unknown_ca_is_an_error_record_that_says_how_to_fix_it)
{
    require_nginx();
    char url[64];
    char ca[TP_PATH_BYTES];
    url_of(url, sizeof(url), "localhost", NP_VALID);
    struct run r;
    run_profile(&r, "unknown", NULL,
                (const char *const[]){"--url", url, "--tls-ca", tp_path(ca, dir, "other-ca.crt"),
                                      "--request-count", "2", "--concurrency", "2", NULL});
    assert_all_failed(&r, 2, "ClientConnectorCertificateError", "unknown authority");
    assert_all_failed(&r, 2, "ClientConnectorCertificateError", "--tls-ca");
    run_free(&r);
}

Test(tls_e2e, expired_certificate_is_an_error_record)
{
    require_nginx();
    char url[64];
    char ca[TP_PATH_BYTES];
    url_of(url, sizeof(url), "localhost", NP_EXPIRED);
    struct run r;
    run_profile(&r, "expired", NULL,
                (const char *const[]){"--url", url, "--tls-ca", tp_path(ca, dir, "ca.crt"),
                                      "--streaming", "--request-count", "2", NULL});
    assert_all_failed(&r, 2, "ClientConnectorCertificateError", "expired");
    run_free(&r);
}

Test(tls_e2e, tls_insecure_accepts_a_bad_certificate_and_warns)
{
    require_nginx();
    char url[64];
    url_of(url, sizeof(url), "localhost", NP_EXPIRED);
    struct run r;
    run_profile(&r, "insecure", NULL,
                (const char *const[]){"--url", url, "--tls-insecure", "--streaming",
                                      "--request-count", "4", "--concurrency", "2", NULL});
    cr_assert_eq(r.status, 0, "%s", r.output);
    cr_assert_eq(r.errors, 0, "%s", r.output);
    cr_assert_not_null(strstr(r.output, "verification is DISABLED (--tls-insecure)"), "%s",
                       r.output);
    run_free(&r);
}

Test(tls_e2e, aiperf_environment_variables_are_honoured)
{
    require_nginx();
    char url[64];
    url_of(url, sizeof(url), "localhost", NP_UNKNOWN);
    struct run r;
    run_profile(&r, "env-verify", (char *const[]){"AIPERF_HTTP_SSL_VERIFY=false", NULL},
                (const char *const[]){"--url", url, "--request-count", "2", NULL});
    cr_assert_eq(r.status, 0, "%s", r.output);
    cr_assert_eq(r.errors, 0, "%s", r.output);
    cr_assert_not_null(strstr(r.output, "DISABLED (AIPERF_HTTP_SSL_VERIFY=false)"), "%s", r.output);
    run_free(&r);

    char cert_file[TP_PATH_BYTES + 16];
    char ca[TP_PATH_BYTES];
    snprintf(cert_file, sizeof(cert_file), "SSL_CERT_FILE=%s", tp_path(ca, dir, "ca.crt"));
    url_of(url, sizeof(url), "localhost", NP_VALID);
    run_profile(&r, "env-ca", (char *const[]){cert_file, NULL},
                (const char *const[]){"--url", url, "--request-count", "2", NULL});
    cr_assert_eq(r.status, 0, "%s", r.output);
    cr_assert_eq(r.errors, 0, "%s", r.output);
    run_free(&r);
}

Test(tls_e2e, client_certificate_is_offered_when_the_server_requires_one)
{
    require_nginx();
    char url[64];
    char ca[TP_PATH_BYTES];
    char cert[TP_PATH_BYTES];
    char key[TP_PATH_BYTES];
    url_of(url, sizeof(url), "localhost", NP_MTLS);
    tp_path(ca, dir, "ca.crt");
    struct run r;
    run_profile(&r, "mtls", NULL,
                (const char *const[]){
                    "--url", url, "--tls-ca", ca, "--tls-cert", tp_path(cert, dir, "client.crt"),
                    "--tls-key", tp_path(key, dir, "client.key"), "--request-count", "3", NULL});
    cr_assert_eq(r.status, 0, "%s", r.output);
    cr_assert_eq(r.errors, 0, "%s", r.output);
    run_free(&r);
    /* nginx completes the handshake without one and refuses at the HTTP level. */
    run_profile(&r, "mtls-none", NULL,
                (const char *const[]){"--url", url, "--tls-ca", ca, "--request-count", "2", NULL});
    cr_assert_neq(r.status, 0);
    cr_assert_eq(r.errors, 2, "%s", r.output);
    json_t *error = json_object_get(json_array_get(r.records, 0), "error");
    cr_assert_eq(json_integer_value(json_object_get(error, "code")), 400);
    run_free(&r);
}

Test(tls_e2e, plain_http_port_is_a_handshake_error_record)
{
    require_nginx();
    char url[64];
    snprintf(url, sizeof(url), "https://localhost:%u", (unsigned)mock_port);
    struct run r;
    run_profile(
        &r, "plain", NULL,
        (const char *const[]){"--url", url, "--tls-insecure", "--request-count", "2", NULL});
    assert_all_failed(&r, 2, "ClientConnectorSSLError", "http://");
    run_free(&r);
}

Test(tls_e2e, unreadable_ca_file_stops_the_run_before_it_starts)
{
    require_nginx();
    char url[64];
    url_of(url, sizeof(url), "localhost", NP_VALID);
    struct run r;
    run_profile(&r, "noca", NULL,
                (const char *const[]){"--url", url, "--tls-ca", "/nonexistent/ca.pem",
                                      "--request-count", "2", NULL});
    cr_assert_eq(r.status, 2, "%s", r.output);
    cr_assert_not_null(strstr(r.output, "/nonexistent/ca.pem"), "%s", r.output);
    cr_assert_null(r.records, "no run, no records");
    run_free(&r);
}

Test(tls_e2e, tls_flags_without_an_https_url_are_reported_as_unused)
{
    require_nginx();
    char url[64];
    snprintf(url, sizeof(url), "http://127.0.0.1:%u", (unsigned)mock_port);
    struct run r;
    run_profile(
        &r, "plainurl", NULL,
        (const char *const[]){"--url", url, "--tls-insecure", "--request-count", "2", NULL});
    cr_assert_eq(r.status, 0, "%s", r.output);
    cr_assert_eq(r.errors, 0);
    cr_assert_not_null(strstr(r.output, "no --url is https://"), "%s", r.output);
    cr_assert_null(strstr(r.output, "DISABLED"), "no TLS, no TLS warning: %s", r.output);
    run_free(&r);
}

Test(tls_e2e, http_and_https_urls_share_one_run)
{
    require_nginx();
    char plain[64];
    char https[64];
    char ca[TP_PATH_BYTES];
    snprintf(plain, sizeof(plain), "http://127.0.0.1:%u", (unsigned)mock_port);
    url_of(https, sizeof(https), "localhost", NP_VALID);
    struct run r;
    run_profile(&r, "mixed", NULL,
                (const char *const[]){"--url", plain, "--url", https, "--tls-ca",
                                      tp_path(ca, dir, "ca.crt"), "--streaming", "--request-count",
                                      "16", "--concurrency", "4", NULL});
    cr_assert_eq(r.status, 0, "%s", r.output);
    cr_assert_eq(json_array_size(r.records), 16);
    cr_assert_eq(r.errors, 0, "%s", r.output);
    run_free(&r);
}
