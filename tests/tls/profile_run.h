/*
 * profile_run.h - test helper for the tls tests that run ringperf as a user does: the mock
 * server (`ringperf mock-server`) behind nginx terminating TLS (nginx_proxy.h), and
 * `ringperf profile` runs checked through the records they export. Needs RINGPERF_BINARY and
 * jansson.
 */
#ifndef RINGPERF_TESTS_TLS_PROFILE_RUN_H
#define RINGPERF_TESTS_TLS_PROFILE_RUN_H

#include <fcntl.h>
#include <jansson.h>
#include <spawn.h>

#include "nginx_proxy.h"
#include "tests/support/process.h"
#include "tests/support/read_text.h"

extern char **environ;

#define PR_ARGS_MAX 48
#define PR_EXTRA_ENV_MAX 4

/* pr_front is the mock server behind nginx; dir holds the certificates, configs and runs. A
 * zero pr_front is a stopped one. */
struct pr_front {
    char dir[TP_PATH_BYTES];
    char ca[TP_PATH_BYTES]; /* dir/ca.crt, the CA that issued the valid certificates */
    const char *nginx_path; /* NULL when nginx is not installed: nothing was started */
    pid_t mock_pid;
    uint16_t mock_port;
    struct np_nginx nginx;
};

/* pr_start_mock starts `ringperf mock-server --port 0 FLAGS...` (flags NULL-ended, or NULL)
 * and reads the port it announces; the mock's output is not read after that. */
static inline void pr_start_mock(struct pr_front *f, char *const flags[])
{
    int port = 0;
    struct child mock = start_mock_server(RINGPERF_BINARY, flags, &port);
    fclose(mock.out);
    f->mock_pid = mock.pid;
    f->mock_port = (uint16_t)port;
}

/* pr_front_start makes the certificates, starts the mock server (with mock_flags, NULL-ended,
 * or NULL) and nginx in front of it. Starts nothing and leaves nginx_path NULL when nginx is
 * not installed. */
static inline void pr_front_start(struct pr_front *f, char *const mock_flags[])
{
    *f = (struct pr_front){.mock_pid = -1, .nginx = {.pid = -1}};
    f->nginx_path = np_find();
    if (f->nginx_path == NULL) {
        return;
    }
    tp_make_certs(f->dir, sizeof(f->dir));
    tp_path(f->ca, f->dir, "ca.crt");
    pr_start_mock(f, mock_flags);
    np_start(&f->nginx, f->nginx_path, f->dir, f->mock_port, 30);
}

/* pr_front_stop stops what pr_front_start started and removes dir. */
static inline void pr_front_stop(struct pr_front *f)
{
    np_stop(&f->nginx);
    lb_stop(&f->mock_pid);
    tp_remove_dir(f->dir);
}

/* pr_https_url writes the https:// URL of nginx's port as host names it. */
static inline void pr_https_url(char *out, size_t cap, const struct pr_front *f, const char *host,
                                enum np_port port)
{
    snprintf(out, cap, "https://%s:%u", host, (unsigned)f->nginx.ports[port]);
}

/* pr_run is one `ringperf profile` process and what it left behind. */
struct pr_run {
    int status;              /* exit status; 128 + the signal when killed */
    char *output;            /* stdout and stderr, owned */
    json_t *records;         /* profile_export.jsonl as an array, owned; NULL when not written */
    size_t errors;           /* records with an error */
    char art[TP_PATH_BYTES]; /* the artifact directory */
};

/* pr_load_records parses the JSONL export at path into r; nothing when it was not written. */
static inline void pr_load_records(struct pr_run *r, const char *path)
{
    char *text = test_read_path(path);
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

/* pr_is_network_variable is true for the variables that change how ringperf connects (proxies
 * and TLS trust): a run sees only those its test sets. */
static inline bool pr_is_network_variable(const char *entry)
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

/* pr_child_env is environ without the network variables, plus extra (NULL-ended, at most
 * PR_EXTRA_ENV_MAX); the array is the caller's to free, its strings are borrowed. */
static inline char **pr_child_env(char *const *extra)
{
    size_t n = 0;
    while (environ[n] != NULL) {
        n++;
    }
    char **env = calloc(n + PR_EXTRA_ENV_MAX + 1, sizeof(*env));
    cr_assert_not_null(env);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (!pr_is_network_variable(environ[i])) {
            env[k++] = environ[i];
        }
    }
    for (size_t i = 0; extra != NULL && extra[i] != NULL && i < PR_EXTRA_ENV_MAX; i++) {
        env[k++] = extra[i];
    }
    return env;
}

/* pr_run_profile runs `ringperf profile -m test --ui-type none --artifact-dir DIR/NAME ARGS`
 * (args NULL-ended) with the extra environment (NULL-ended, or NULL), waits for it and loads
 * its records. Free r with pr_run_free. */
static inline void pr_run_profile(struct pr_run *r, const char *dir, const char *name,
                                  char *const *env_extra, const char *const *args)
{
    *r = (struct pr_run){0};
    char log[TP_PATH_BYTES + 8];
    char records[TP_PATH_BYTES + 32];
    tp_path(r->art, dir, name);
    snprintf(log, sizeof(log), "%s.out", r->art);
    snprintf(records, sizeof(records), "%s/profile_export.jsonl", r->art);
    char *argv[PR_ARGS_MAX] = {RINGPERF_BINARY, "profile",        "-m",  "test", "--ui-type",
                               "none",          "--artifact-dir", r->art};
    int argc = 8;
    for (size_t i = 0; args[i] != NULL; i++) {
        cr_assert_lt(argc, PR_ARGS_MAX - 2);
        argv[argc++] = (char *)args[i];
    }
    argv[argc] = NULL;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log, O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    char **env = pr_child_env(env_extra);
    pid_t pid = -1;
    int ret = posix_spawn(&pid, argv[0], &actions, NULL, argv, env);
    posix_spawn_file_actions_destroy(&actions);
    free(env);
    cr_assert_eq(ret, 0, "spawn ringperf: %s", strerror(ret));
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    r->output = test_read_path(log);
    cr_assert_not_null(r->output);
    pr_load_records(r, records);
}

/* pr_run_free frees what pr_run_profile loaded into r. */
static inline void pr_run_free(struct pr_run *r)
{
    free(r->output);
    json_decref(r->records);
}

/* pr_assert_all_succeeded checks that r exited 0 and wrote count records, none an error. */
static inline void pr_assert_all_succeeded(const struct pr_run *r, size_t count)
{
    cr_assert_eq(r->status, 0, "%s", r->output);
    cr_assert_not_null(r->records, "the records were written:\n%s", r->output);
    cr_assert_eq(json_array_size(r->records), count, "%s", r->output);
    cr_assert_eq(r->errors, 0, "%s", r->output);
}

/* pr_assert_all_failed checks that every one of count records is an error of type whose
 * message contains needle. */
static inline void pr_assert_all_failed(const struct pr_run *r, size_t count, const char *type,
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

#endif
