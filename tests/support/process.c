/*
 * process.c - spawning and reaping the processes of end-to-end tests.
 */
#include "tests/support/process.h"

#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MOCK_ARGS_MAX 32

/* redirect points fd at the pipe's write end, or at /dev/null (in the child, before exec:
 * async-signal-safe calls only). */
static void redirect(int fd, bool to_pipe, int pipe_write)
{
    if (to_pipe) {
        dup2(pipe_write, fd);
        return;
    }
    int null_fd = open("/dev/null", O_WRONLY);
    if (null_fd >= 0) {
        dup2(null_fd, fd);
        close(null_fd);
    }
}

/* spawn_child_env forks and execs argv. The child is tied to the test: PR_SET_PDEATHSIG sends
 * it SIGTERM when the test process ends, so a test that fails midway (Criterion ends its
 * process at the first failed assertion) leaves no mock server or run behind. */
struct child spawn_child_env(char *const argv[], char *const envp[], enum child_output what)
{
    int pipe_fds[2];
    cr_assert_eq(pipe(pipe_fds), 0);
    char *const *env = envp != NULL ? envp : environ;
    pid_t parent = getpid();
    struct child child = {0};
    child.pid = fork();
    cr_assert_geq(child.pid, 0, "fork: %s", strerror(errno));
    if (child.pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGTERM);
        if (getppid() != parent) {
            _exit(127); /* the test ended before the tie was made */
        }
        redirect(STDOUT_FILENO, what != CHILD_STDERR, pipe_fds[1]);
        redirect(STDERR_FILENO, what != CHILD_STDOUT, pipe_fds[1]);
        close(pipe_fds[0]);
        close(pipe_fds[1]);
        execve(argv[0], argv, env);
        _exit(127);
    }
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
