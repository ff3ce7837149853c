/*
 * e2e.c - the end-to-end harness shared by the tests in tests/cli (see e2e.h).
 */
#include "e2e.h"

#include <criterion/criterion.h>

#include <fcntl.h>

#include <jansson.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

struct child spawn_child(char *const argv[], bool capture_stderr)
{
    int pipe_fds[2];
    cr_assert_eq(pipe(pipe_fds), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    if (capture_stderr) {
        posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
    } else {
        /* Never hand a child the test's own stderr: a mock server orphaned by a
         * failed assertion would keep ctest's pipe open, and ctest would wait
         * for it until the test's timeout instead of reporting the failure. */
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    }
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
    struct child child = {0};
    int ret = posix_spawn(&child.pid, argv[0], &actions, NULL, argv, environ);
    cr_assert_eq(ret, 0, "spawn %s: %s", argv[0], strerror(ret));
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_fds[1]);
    child.out = fdopen(pipe_fds[0], "r");
    return child;
}

int wait_child(struct child *child)
{
    int status = 0;
    cr_assert_eq(waitpid(child->pid, &status, 0), child->pid);
    fclose(child->out);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* start_mock starts `ringperf mock-server --port 0` and reads the port it
 * announces on its first line. */
struct child start_mock(int *out_port, char *const extra[])
{
    char *argv[32] = {RINGPERF_BINARY, "mock-server", "--port", "0"};
    int argc = 4;
    for (int i = 0; extra != NULL && extra[i] != NULL; i++) {
        argv[argc++] = extra[i];
    }
    argv[argc] = NULL;
    struct child mock = spawn_child(argv, false);
    char line[256];
    cr_assert_not_null(fgets(line, sizeof(line), mock.out), "mock-server printed nothing");
    const char *colon = strrchr(line, ':');
    cr_assert_not_null(colon, "unexpected line: %s", line);
    *out_port = (int)strtol(colon + 1, NULL, 10);
    cr_assert_gt(*out_port, 0, "%s", line);
    return mock;
}

char *stop_mock_report(struct child *mock)
{
    kill(mock->pid, SIGTERM);
    char *report = test_read_stream(mock->out);
    cr_assert_eq(wait_child(mock), 0, "mock-server exits cleanly on SIGTERM");
    return report;
}

void stop_mock(struct child *mock)
{
    free(stop_mock_report(mock));
}

size_t count_lines(const char *path, size_t *out_errors)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s exists", path);
    char *text = test_read_stream(f);
    fclose(f);
    size_t lines = 0;
    *out_errors = 0;
    for (char *line = text; *line != '\0';) {
        char *end = strchr(line, '\n');
        cr_assert_not_null(end, "every record ends with a newline");
        *end = '\0';
        json_error_t err;
        json_t *obj = json_loads(line, 0, &err);
        cr_assert_not_null(obj, "line %zu is JSON: %s", lines + 1, err.text);
        cr_assert(json_is_object(json_object_get(obj, "metadata")));
        cr_assert(json_is_object(json_object_get(obj, "metrics")));
        *out_errors += !json_is_null(json_object_get(obj, "error"));
        json_decref(obj);
        lines++;
        line = end + 1;
    }
    free(text);
    return lines;
}

void e2e_start(struct e2e *w, char *const mock_flags[])
{
    int port = 0;
    w->mock = start_mock(&port, mock_flags);
    snprintf(w->url, sizeof(w->url), "127.0.0.1:%d", port);
    snprintf(w->dir, sizeof(w->dir), "/tmp/ringperf-e2e-XXXXXX");
    cr_assert_not_null(mkdtemp(w->dir));
}

/* run_ringperf runs `ringperf WORDS...` (words separated by single spaces; the
 * tokens URL and DIR are replaced by the world's) and returns its exit status
 * and its output (stdout, plus stderr when merge_stderr). */
int run_ringperf(const struct e2e *w, const char *words, bool merge_stderr, char **out)
{
    char *copy = strdup(words);
    char *argv[64] = {RINGPERF_BINARY};
    char *expanded[64] = {NULL};
    int argc = 1;
    for (char *save = NULL, *word = strtok_r(copy, " ", &save); word != NULL && argc < 63;
         word = strtok_r(NULL, " ", &save)) {
        if (w != NULL && strcmp(word, "URL") == 0) {
            argv[argc++] = (char *)w->url;
        } else if (w != NULL && strcmp(word, "DIR") == 0) {
            argv[argc++] = (char *)w->dir;
        } else if (w != NULL && strncmp(word, "IN/", 3) == 0) {
            size_t len = strlen(w->dir) + strlen(word);
            expanded[argc] = malloc(len);
            cr_assert_not_null(expanded[argc]);
            snprintf(expanded[argc], len, "%s/%s", w->dir, word + 3);
            argv[argc] = expanded[argc];
            argc++;
        } else {
            argv[argc++] = word;
        }
    }
    argv[argc] = NULL;
    struct child run = spawn_child(argv, merge_stderr);
    *out = test_read_stream(run.out);
    int status = wait_child(&run);
    for (int i = 0; i < argc; i++) {
        free(expanded[i]);
    }
    free(copy);
    return status;
}

size_t count_export_lines(const struct e2e *w, size_t *out_errors)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/profile_export.jsonl", w->dir);
    return count_lines(path, out_errors);
}

void e2e_write(const struct e2e *w, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", w->dir, name);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "%s", path);
    fputs(text, f);
    cr_assert_eq(fclose(f), 0, "%s", path);
}

char *e2e_finish_report(struct e2e *w)
{
    char *report = stop_mock_report(&w->mock);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", w->dir);
    cr_assert_eq(system(cmd), 0);
    return report;
}

void e2e_finish(struct e2e *w)
{
    free(e2e_finish_report(w));
}

json_t *e2e_load_json(const struct e2e *w, const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", w->dir, name);
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    cr_assert_not_null(root, "%s: %s", path, err.text);
    return root;
}

char *e2e_read_text(const struct e2e *w, const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", w->dir, name);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s exists", path);
    char *text = test_read_stream(f);
    fclose(f);
    return text;
}

void e2e_run_ok(const struct e2e *w, const char *words)
{
    char *out = NULL;
    int status = run_ringperf(w, words, true, &out);
    cr_assert_eq(status, 0, "%s\nexit %d:\n%s", words, status, out);
    free(out);
}
