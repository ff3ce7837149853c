/*
 * e2e.c - the end-to-end harness shared by the tests in tests/cli (see e2e.h).
 */
#include "e2e.h"

#include <criterion/criterion.h>

#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct child start_mock(int *out_port, char *const extra[])
{
    return start_mock_server(RINGPERF_BINARY, extra, out_port);
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
/* spawn_words starts `ringperf WORDS` as run_ringperf describes, its output on the child's
 * pipe (stderr merged in when merge_stderr). */
static struct child spawn_words(const struct e2e *w, const char *words, bool merge_stderr)
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
    for (int i = 0; i < argc; i++) {
        free(expanded[i]);
    }
    free(copy);
    return run;
}

int run_ringperf(const struct e2e *w, const char *words, bool merge_stderr, char **out)
{
    struct child run = spawn_words(w, words, merge_stderr);
    *out = test_read_stream(run.out);
    return wait_child(&run);
}

void e2e_read_until(struct child *run, const char *marker)
{
    char line[1024];
    bool seen = false;
    while (!seen && fgets(line, sizeof(line), run->out) != NULL) {
        seen = strstr(line, marker) != NULL;
    }
    cr_assert(seen, "the output said \"%s\"", marker);
}

struct child e2e_spawn_running(const struct e2e *w, const char *words)
{
    struct child run = spawn_words(w, words, true);
    /* Progress lines appear once requests are finishing. */
    e2e_read_until(&run, "Profiling:");
    return run;
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

int64_t e2e_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void e2e_pause_ms(int ms)
{
    struct timespec ts = {.tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}
