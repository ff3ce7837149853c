/*
 * e2e.h - the end-to-end test harness of tests/cli: real `ringperf` and
 * `ringperf mock-server` processes on loopback, and the files a run leaves.
 * Compiled into each end-to-end test; failures are Criterion assertions.
 */
#ifndef RINGPERF_TESTS_CLI_E2E_H
#define RINGPERF_TESTS_CLI_E2E_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <jansson.h>

#include "tests/support/process.h"
#include "tests/support/read_text.h"

/* start_mock starts `ringperf mock-server --port 0 EXTRA...` and reads the
 * port from its first line. */
struct child start_mock(int *out_port, char *const extra[]);

/* stop_mock sends SIGTERM and requires a clean exit. */
void stop_mock(struct child *mock);

/* stop_mock_report is stop_mock, and returns what the mock printed after its
 * first line: its "mock-server stopped: ..." counts (malloc'd). */
char *stop_mock_report(struct child *mock);

/* count_lines checks that every line of a JSONL export is a record and
 * returns how many there are, with the number of error records. */
size_t count_lines(const char *path, size_t *out_errors);

/* e2e is one test's world: a mock server, its URL, and an artifact directory. */
struct e2e {
    struct child mock;
    char url[64];
    char dir[64];
};

/* e2e_start starts the mock server (with extra flags, or NULL) and makes a
 * temporary artifact directory. */
void e2e_start(struct e2e *w, char *const mock_flags[]);

/* run_ringperf runs `ringperf WORDS...` (words separated by single spaces; the
 * tokens URL and DIR are replaced by the world's, and a word IN/name by the
 * path of name in the world's directory) and returns its exit status and its
 * output (stdout, plus stderr when merge_stderr). w may be NULL. */
int run_ringperf(const struct e2e *w, const char *words, bool merge_stderr, char **out);

/* e2e_spawn_running starts `ringperf WORDS` as run_ringperf does, stderr merged, and returns
 * once it reports progress (requests are finishing); the caller reads the rest of child.out and
 * waits for it. */
struct child e2e_spawn_running(const struct e2e *w, const char *words);

/* e2e_read_until reads run's output up to a line containing marker, and fails the test when
 * the output ends first. */
void e2e_read_until(struct child *run, const char *marker);

/* count_export_lines is count_lines for the world's profile_export.jsonl. */
size_t count_export_lines(const struct e2e *w, size_t *out_errors);

/* e2e_write writes text into the file `name` of the world's directory. */
void e2e_write(const struct e2e *w, const char *name, const char *text);

/* e2e_finish stops the mock server (requiring a clean exit) and removes the
 * world's directory. */
void e2e_finish(struct e2e *w);

/* e2e_finish_report is e2e_finish, and returns stop_mock_report's text. */
char *e2e_finish_report(struct e2e *w);

/* e2e_load_json parses the file `name` of the world's directory (e.g.
 * "inputs.json"): a new reference the caller frees. */
json_t *e2e_load_json(const struct e2e *w, const char *name);

/* e2e_read_text returns the text of the file `name` of the world's directory
 * (malloc'd), and fails the test when it cannot be read. */
char *e2e_read_text(const struct e2e *w, const char *name);

/* e2e_now_ms returns CLOCK_MONOTONIC in milliseconds, for a poll's deadline. */
int64_t e2e_now_ms(void);

/* e2e_pause_ms spaces the polls of a condition that has its own deadline; never a way to wait
 * for something to happen. */
void e2e_pause_ms(int ms);

/* e2e_run_ok runs `ringperf WORDS` as run_ringperf does and requires exit
 * status 0 (the output is shown when it is not). */
void e2e_run_ok(const struct e2e *w, const char *words);

#endif
