/*
 * mock_server.c - the mock server's lifecycle: listeners, worker threads, stop, statistics, and
 * the foreground `ringperf mock-server` command.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "mock/mock.h"
#include "mock/mock_internal.h"
#include "mock/mock_worker.h"

#define LISTEN_BACKLOG 4096

void mock__worker_report(struct mock__worker *w, int result)
{
    struct mock_server *s = w->server;
    pthread_mutex_lock(&s->start_lock);
    if (result != 0 && s->start_error == 0) {
        s->start_error = result;
    }
    s->workers_reported++;
    pthread_cond_broadcast(&s->start_cond);
    pthread_mutex_unlock(&s->start_lock);
}

static int resolve(const char *host, struct sockaddr_storage *out, socklen_t *out_len, char *errbuf,
                   size_t errcap)
{
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    struct addrinfo *res = NULL;
    int gai = getaddrinfo(host, NULL, &hints, &res);
    if (gai != 0 || res == NULL) {
        snprintf(errbuf, errcap,
                 "--host: cannot resolve '%s' (%s); give an address such as "
                 "127.0.0.1, ::1 or 0.0.0.0",
                 host, gai_strerror(gai));
        return -EINVAL;
    }
    memcpy(out, res->ai_addr, res->ai_addrlen);
    *out_len = res->ai_addrlen;
    freeaddrinfo(res);
    return 0;
}

static void set_port(struct sockaddr_storage *addr, uint16_t port)
{
    if (addr->ss_family == AF_INET6) {
        ((struct sockaddr_in6 *)addr)->sin6_port = htons(port);
    } else {
        ((struct sockaddr_in *)addr)->sin_port = htons(port);
    }
}

static uint16_t get_port(const struct sockaddr_storage *addr)
{
    if (addr->ss_family == AF_INET6) {
        return ntohs(((const struct sockaddr_in6 *)addr)->sin6_port);
    }
    return ntohs(((const struct sockaddr_in *)addr)->sin_port);
}

/* open_listener binds a SO_REUSEPORT listener; the first one may take port 0 and tells the
 * others which port the kernel chose. */
static int open_listener(struct sockaddr_storage *addr, socklen_t len, int *out_fd)
{
    int fd = socket(addr->ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -errno;
    }
    int one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) != 0 ||
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof(one)) != 0 ||
        bind(fd, (struct sockaddr *)addr, len) != 0 || listen(fd, LISTEN_BACKLOG) != 0) {
        int err = -errno;
        close(fd);
        return err;
    }
    socklen_t got_len = len;
    if (get_port(addr) == 0 && getsockname(fd, (struct sockaddr *)addr, &got_len) != 0) {
        int err = -errno;
        close(fd);
        return err;
    }
    *out_fd = fd;
    return 0;
}

static int open_listeners(struct mock_server *s, char *errbuf, size_t errcap)
{
    struct sockaddr_storage addr;
    socklen_t len = 0;
    int rc = resolve(s->cfg.host, &addr, &len, errbuf, errcap);
    if (rc != 0) {
        return rc;
    }
    set_port(&addr, s->cfg.port);
    for (uint32_t i = 0; i < s->worker_count; i++) {
        rc = open_listener(&addr, len, &s->listen_fds[i]);
        if (rc != 0) {
            snprintf(errbuf, errcap, "cannot listen on %s port %u: %s%s", s->cfg.host,
                     (unsigned)get_port(&addr), strerror(-rc),
                     rc == -EADDRINUSE ? "; choose another --port (0 picks a free one)" : "");
            return rc;
        }
    }
    s->port = get_port(&addr);
    return 0;
}

static int open_token_log(struct mock_server *s, char *errbuf, size_t errcap)
{
    if (s->cfg.token_log_path == NULL) {
        return 0;
    }
    s->log_fd =
        open(s->cfg.token_log_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
    if (s->log_fd < 0) {
        int err = -errno;
        snprintf(errbuf, errcap, "--token-log: cannot open '%s': %s", s->cfg.token_log_path,
                 strerror(-err));
        return err;
    }
    return 0;
}

static int start_workers(struct mock_server *s, char *errbuf, size_t errcap)
{
    uint32_t started = 0;
    int rc = 0;
    for (; started < s->worker_count; started++) {
        struct mock__worker *w = &s->workers[started];
        w->server = s;
        w->cfg = &s->cfg;
        w->index = started;
        w->listen_fd = s->listen_fds[started];
        w->stop_fd = s->stop_fd;
        rc = -pthread_create(&w->thread, NULL, mock__worker_main, w);
        if (rc != 0) {
            break;
        }
        w->thread_started = true;
    }
    pthread_mutex_lock(&s->start_lock);
    while (s->workers_reported < started) {
        pthread_cond_wait(&s->start_cond, &s->start_lock);
    }
    if (rc == 0) {
        rc = s->start_error;
    }
    pthread_mutex_unlock(&s->start_lock);
    if (rc != 0) {
        bool no_uring = rc == -ENOSYS || rc == -EPERM;
        snprintf(errbuf, errcap, "cannot start worker threads: %s%s", strerror(-rc),
                 no_uring ? " (io_uring is unavailable or disabled on this system)" : "");
    }
    return rc;
}

static struct mock_server *server_alloc(const struct mock_config *cfg)
{
    struct mock_server *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return NULL;
    }
    s->cfg = *cfg;
    s->worker_count = cfg->threads;
    s->stop_fd = -1;
    s->log_fd = -1;
    pthread_mutex_init(&s->start_lock, NULL);
    pthread_cond_init(&s->start_cond, NULL);
    pthread_mutex_init(&s->models.lock, NULL);
    s->workers = calloc(s->worker_count, sizeof(*s->workers));
    s->listen_fds = calloc(s->worker_count, sizeof(*s->listen_fds));
    if (s->workers == NULL || s->listen_fds == NULL) {
        mock_server_free(s);
        return NULL;
    }
    for (uint32_t i = 0; i < s->worker_count; i++) {
        s->listen_fds[i] = -1;
    }
    s->stop_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (s->stop_fd < 0) {
        mock_server_free(s);
        return NULL;
    }
    return s;
}

int mock_server_start(const struct mock_config *cfg, struct mock_server **out_server, char *errbuf,
                      size_t errcap)
{
    *out_server = NULL;
    int rc = mock_config_validate(cfg, errbuf, errcap);
    if (rc != 0) {
        return rc;
    }
    struct mock_server *s = server_alloc(cfg);
    if (s == NULL) {
        snprintf(errbuf, errcap, "out of memory");
        return -ENOMEM;
    }
    rc = open_listeners(s, errbuf, errcap);
    if (rc == 0) {
        rc = open_token_log(s, errbuf, errcap);
    }
    if (rc == 0) {
        rc = start_workers(s, errbuf, errcap);
    }
    if (rc != 0) {
        mock_server_free(s);
        return rc;
    }
    *out_server = s;
    return 0;
}

uint16_t mock_server_port(const struct mock_server *server)
{
    return server->port;
}

int mock_server_stop(struct mock_server *server)
{
    if (server->stopped) {
        return server->stop_result;
    }
    uint64_t one = 1;
    if (write(server->stop_fd, &one, sizeof(one)) < 0 && errno != EAGAIN) {
        server->stop_result = -errno;
    }
    for (uint32_t i = 0; i < server->worker_count; i++) {
        struct mock__worker *w = &server->workers[i];
        if (w->thread_started) {
            pthread_join(w->thread, NULL);
            w->thread_started = false;
        }
        if (w->result != 0 && server->stop_result == 0) {
            server->stop_result = w->result;
        }
    }
    server->stopped = true;
    return server->stop_result;
}

void mock_server_stats(const struct mock_server *server, struct mock_stats *out)
{
    *out = (struct mock_stats){0};
    if (!server->stopped) {
        return;
    }
    for (uint32_t i = 0; i < server->worker_count; i++) {
        const struct mock_stats *w = &server->workers[i].stats;
        out->connections_accepted += w->connections_accepted;
        out->connections_rejected += w->connections_rejected;
        out->requests += w->requests;
        out->requests_closing += w->requests_closing;
        out->session_requests += w->session_requests;
        out->completions += w->completions;
        out->tokens += w->tokens;
        out->client_errors += w->client_errors;
        out->faults_500 += w->faults_500;
        out->faults_429 += w->faults_429;
        out->faults_drop += w->faults_drop;
        out->faults_stall += w->faults_stall;
        out->faults_malformed += w->faults_malformed;
        out->token_log_lines += w->token_log_lines;
        out->cache_resets += w->cache_resets;
        out->profiler_starts += w->profiler_starts;
        out->profiler_stops += w->profiler_stops;
        out->control_busy += w->control_busy;
        out->sigv4_verified += w->sigv4_verified;
        out->sigv4_rejected += w->sigv4_rejected;
    }
}

void mock_server_free(struct mock_server *server)
{
    if (server == NULL) {
        return;
    }
    if (server->stop_fd >= 0) {
        mock_server_stop(server);
        close(server->stop_fd);
    }
    for (uint32_t i = 0; server->listen_fds != NULL && i < server->worker_count; i++) {
        if (server->listen_fds[i] >= 0) {
            close(server->listen_fds[i]);
        }
    }
    if (server->log_fd >= 0) {
        close(server->log_fd);
    }
    pthread_mutex_destroy(&server->models.lock);
    pthread_cond_destroy(&server->start_cond);
    pthread_mutex_destroy(&server->start_lock);
    free(server->listen_fds);
    free(server->workers);
    free(server);
}

/* wait_stop blocks until SIGINT/SIGTERM arrives on `sig_fd` or a worker stopped the server. */
static int wait_stop(int sig_fd, int stop_fd)
{
    struct pollfd fds[2] = {{.fd = sig_fd, .events = POLLIN}, {.fd = stop_fd, .events = POLLIN}};
    for (;;) {
        if (poll(fds, 2, -1) < 0) {
            if (errno == EINTR) {
                continue;
            }
            return -errno;
        }
        if (fds[0].revents & POLLIN) {
            struct signalfd_siginfo info;
            if (read(sig_fd, &info, sizeof(info)) < 0 && errno != EAGAIN) {
                return -errno;
            }
            return 0;
        }
        if (fds[1].revents & POLLIN) {
            return 0;
        }
    }
}

static int run_started(const struct mock_config *cfg, int sig_fd, FILE *out)
{
    char err[512];
    struct mock_server *s = NULL;
    int rc = mock_server_start(cfg, &s, err, sizeof(err));
    if (rc != 0) {
        fprintf(stderr, "mock-server: %s\n", err);
        return rc;
    }
    bool v6 = strchr(cfg->host, ':') != NULL;
    fprintf(out, "mock-server listening on http://%s%s%s:%u\n", v6 ? "[" : "", cfg->host,
            v6 ? "]" : "", (unsigned)mock_server_port(s));
    fflush(out);
    rc = wait_stop(sig_fd, s->stop_fd);
    int stop_rc = mock_server_stop(s);
    struct mock_stats st;
    mock_server_stats(s, &st);
    fprintf(out,
            "mock-server stopped: %llu requests, %llu connections, %llu cache resets, %llu "
            "profiler starts, %llu profiler stops, %llu control requests answered busy, %llu "
            "signatures verified, %llu rejected\n",
            (unsigned long long)st.requests, (unsigned long long)st.connections_accepted,
            (unsigned long long)st.cache_resets, (unsigned long long)st.profiler_starts,
            (unsigned long long)st.profiler_stops, (unsigned long long)st.control_busy,
            (unsigned long long)st.sigv4_verified, (unsigned long long)st.sigv4_rejected);
    fflush(out);
    mock_server_free(s);
    return rc != 0 ? rc : stop_rc;
}

int mock_server_run(const struct mock_config *cfg, FILE *out)
{
    sigset_t mask;
    sigset_t old;
    sigemptyset(&mask);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    int rc = -pthread_sigmask(SIG_BLOCK, &mask, &old);
    if (rc != 0) {
        return rc;
    }
    int sig_fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sig_fd < 0) {
        rc = -errno;
        fprintf(stderr, "mock-server: signalfd: %s\n", strerror(-rc));
        goto restore_mask;
    }
    rc = run_started(cfg, sig_fd, out);
    close(sig_fd);
restore_mask:
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

int mock_main(int argc, char **argv)
{
    struct mock_config cfg;
    char err[512];
    int rc = mock_config_parse(argc, argv, &cfg, err, sizeof(err));
    if (rc == 1) {
        mock_usage(stdout);
        return 0;
    }
    if (rc != 0) {
        fprintf(stderr, "ringperf mock-server: %s\n", err);
        return 2;
    }
    return mock_server_run(&cfg, stdout) == 0 ? 0 : 1;
}
