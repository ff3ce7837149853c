/*
 * process.h - test helper: the processes end-to-end tests start (ringperf,
 * its mock server, mpirun), with their output on a pipe the test reads.
 */
#ifndef RINGPERF_TESTS_SUPPORT_PROCESS_H
#define RINGPERF_TESTS_SUPPORT_PROCESS_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

/* child is a spawned process and the read end of its output. */
struct child {
    pid_t pid;
    FILE *out;
};

/* child_output says which of a child's streams go to child.out. The other
 * one goes to /dev/null: never the test's own, since a child orphaned by a
 * failed assertion would keep ctest's pipe open and ctest would wait for it
 * until the test's timeout instead of reporting the failure. */
enum child_output {
    CHILD_STDOUT,
    CHILD_STDOUT_AND_STDERR,
    CHILD_STDERR,
};

/* spawn_child_env starts argv[0] with argv and envp (NULL: the test's
 * environment), its `what` on child.out. Asserts that it started. */
struct child spawn_child_env(char *const argv[], char *const envp[], enum child_output what);

/* spawn_child starts argv[0] with argv in the test's environment: stdout on
 * child.out, and stderr merged in when capture_stderr. */
struct child spawn_child(char *const argv[], bool capture_stderr);

/* wait_child waits for the child, closes its output and returns its exit
 * status (128 + signal when a signal ended it). */
int wait_child(struct child *child);

/* start_mock_server starts `RINGPERF mock-server --port 0 EXTRA...` (extra
 * NULL-ended, or NULL) and reads the port it announces on its first line
 * into *out_port. Asserts both. The mock's stdout stays on child.out. */
struct child start_mock_server(const char *ringperf, char *const extra[], int *out_port);

#endif
