/*
 * process.c - spawning and reaping the processes of end-to-end tests.
 */
#include "tests/support/process.h"

#include <criterion/criterion.h>

#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MOCK_ARGS_MAX 32

struct child spawn_child_env(char *const argv[], char *const envp[], enum child_output what)
{
    int pipe_fds[2];
    cr_assert_eq(pipe(pipe_fds), 0);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (what != CHILD_STDERR) {
        posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
    } else {
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    }
    if (what != CHILD_STDOUT) {
        posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
    } else {
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    }
    posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
    struct child child = {0};
    int ret = posix_spawn(&child.pid, argv[0], &actions, NULL, argv, envp != NULL ? envp : environ);
    cr_assert_eq(ret, 0, "spawn %s: %s", argv[0], strerror(ret));
    posix_spawn_file_actions_destroy(&actions);
    close(pipe_fds[1]);
    child.out = fdopen(pipe_fds[0], "r");
    cr_assert_not_null(child.out);
    return child;
}

struct child spawn_child(char *const argv[], bool capture_stderr)
{
    return spawn_child_env(argv, NULL, capture_stderr ? CHILD_STDOUT_AND_STDERR : CHILD_STDOUT);
}

int wait_child(struct child *child)
{
    int status = 0;
    cr_assert_eq(waitpid(child->pid, &status, 0), child->pid);
    fclose(child->out);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct child start_mock_server(const char *ringperf, char *const extra[], int *out_port)
{
    char *argv[MOCK_ARGS_MAX] = {(char *)ringperf, "mock-server", "--port", "0"};
    int argc = 4;
    for (int i = 0; extra != NULL && extra[i] != NULL; i++) {
        cr_assert_lt(argc, MOCK_ARGS_MAX - 1, "too many mock-server flags");
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
