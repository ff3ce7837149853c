/*
 * loopback.h - test helpers for servers the tls tests start as processes on loopback (nginx,
 * tinyproxy, the mock server): finding an installed binary, picking a free port, starting a
 * server and waiting until it listens, and stopping it.
 */
#ifndef RINGPERF_TESTS_TLS_LOOPBACK_H
#define RINGPERF_TESTS_TLS_LOOPBACK_H

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <netinet/in.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* A server gets this long (in steps of LB_WAIT_STEP_US) to open its ports. */
#define LB_WAIT_STEPS 200
#define LB_WAIT_STEP_US (50 * 1000)
/* A server that exits at start (a port taken meanwhile) is started again on new ports. */
#define LB_START_ATTEMPTS 3

/* lb_find returns the first of the count places that is an executable file, or NULL when
 * none is (the tool is not installed). */
static inline const char *lb_find(const char *const places[], size_t count)
{
    for (size_t i = 0; i < count; i++) {
        if (access(places[i], X_OK) == 0) {
            return places[i];
        }
    }
    return NULL;
}

/* lb_free_port returns a loopback TCP port that was free a moment ago: a server started on it
 * may still find it taken, which lb_spawn_listening reports. */
static inline uint16_t lb_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(addr);
    cr_assert_eq(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
    cr_assert_eq(getsockname(fd, (struct sockaddr *)&addr, &len), 0);
    close(fd);
    return ntohs(addr.sin_port);
}

/* lb_port_open reports whether something accepts connections on 127.0.0.1:port. */
static inline bool lb_port_open(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {
        .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    bool ok = connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0;
    close(fd);
    return ok;
}

/* lb_append appends one formatted piece of a server's configuration to buf (capacity cap,
 * length *len); fails the test when it does not fit. */
static inline void lb_append(char *buf, size_t cap, size_t *len, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

static inline void lb_append(char *buf, size_t cap, size_t *len, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int n = vsnprintf(buf + *len, cap - *len, format, args);
    va_end(args);
    cr_assert(n > 0 && (size_t)n < cap - *len, "configuration too long");
    *len += (size_t)n;
}

/* lb_write_file writes len bytes of data to path (created or truncated). */
static inline void lb_write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    cr_assert_eq(fwrite(data, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

/* lb_stop stops the process *pid with SIGTERM and waits for it, then sets *pid to -1; does
 * nothing when *pid is not positive (never started or already stopped). */
static inline void lb_stop(pid_t *pid)
{
    if (*pid > 0) {
        kill(*pid, SIGTERM);
        waitpid(*pid, NULL, 0);
        *pid = -1;
    }
}

/* lb_spawn_listening runs argv (argv[0] a path) and waits until each of the count ports
 * accepts connections. Returns the server's pid, or -1 when it exited first (a port was taken
 * meanwhile: pick new ones and try again); fails the test, pointing at log, when the ports
 * stay closed. */
static inline pid_t lb_spawn_listening(char *const argv[], const uint16_t *ports, size_t count,
                                       const char *log)
{
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        execv(argv[0], argv);
        _exit(127);
    }
    for (int tries = 0; tries < LB_WAIT_STEPS; tries++) {
        int status = 0;
        if (waitpid(pid, &status, WNOHANG) == pid) {
            return -1;
        }
        bool all = true;
        for (size_t i = 0; i < count && all; i++) {
            all = lb_port_open(ports[i]);
        }
        if (all) {
            return pid;
        }
        usleep(LB_WAIT_STEP_US);
    }
    lb_stop(&pid);
    cr_assert_fail("%s did not open its ports within 10 s (see %s)", argv[0], log);
    return -1;
}

#endif
