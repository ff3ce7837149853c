/*
 * netlatency.c - TCP-handshake round-trip probes (see netlatency.h).
 */
#include "netlatency/netlatency.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define NS_PER_S 1000000000LL

struct netlatency {
    struct netlatency_target targets[NETLATENCY_TARGETS_MAX];
    struct sockaddr_storage addr[NETLATENCY_TARGETS_MAX];
    socklen_t addr_len[NETLATENCY_TARGETS_MAX]; /* 0: not resolved, resolve at each probe */
    uint32_t successes[NETLATENCY_TARGETS_MAX];
    size_t target_count;
    int64_t interval_ns;
    struct netlatency_sample *samples;
    size_t sample_count;
    pthread_mutex_t lock; /* guards stop */
    pthread_cond_t wake;  /* CLOCK_MONOTONIC; signalled by netlatency_stop */
    pthread_t thread;
    bool thread_running;
    bool stop;
};

static int64_t clock_ns(clockid_t clock)
{
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (int64_t)ts.tv_sec * NS_PER_S + ts.tv_nsec;
}

static void port_text(uint16_t port, char *out, size_t cap)
{
    snprintf(out, cap, "%u", (unsigned)port);
}

/* resolve fills addr with the first address of host:port. Returns 0 or -errno-like. */
static int resolve(const char *host, uint16_t port, struct sockaddr_storage *addr,
                   socklen_t *out_len)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM};
    struct addrinfo *found = NULL;
    char service[8];
    port_text(port, service, sizeof(service));
    if (getaddrinfo(host, service, &hints, &found) != 0 || found == NULL) {
        return -EHOSTUNREACH;
    }
    memcpy(addr, found->ai_addr, found->ai_addrlen);
    *out_len = found->ai_addrlen;
    freeaddrinfo(found);
    return 0;
}

/* await_connect waits up to the connect timeout for fd's handshake. Returns 0 or -errno. */
static int await_connect(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    int ready = poll(&p, 1, (int)(NETLATENCY_CONNECT_TIMEOUT_NS / 1000000));
    if (ready == 0) {
        return -ETIMEDOUT;
    }
    if (ready < 0) {
        return -errno;
    }
    int so_error = 0;
    socklen_t len = sizeof(so_error);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &so_error, &len) != 0) {
        return -errno;
    }
    return -so_error;
}

/* handshake times one TCP connect to addr. Returns 0 with the round trip, or -errno. */
static int handshake(const struct sockaddr_storage *addr, socklen_t addr_len, int64_t *out_rtt)
{
    int fd = socket(addr->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        return -errno;
    }
    int64_t start = clock_ns(CLOCK_MONOTONIC);
    int ret = connect(fd, (const struct sockaddr *)addr, addr_len) == 0 ? 0 : -errno;
    if (ret == -EINPROGRESS) {
        ret = await_connect(fd);
    }
    *out_rtt = clock_ns(CLOCK_MONOTONIC) - start;
    close(fd);
    return ret;
}

/* probe_once probes target t and keeps the sample. */
static void probe_once(struct netlatency *p, uint32_t t)
{
    struct netlatency_sample s = {.timestamp_ns = clock_ns(CLOCK_REALTIME), .target = t};
    struct sockaddr_storage addr;
    socklen_t addr_len = p->addr_len[t];
    int ret = 0;
    if (addr_len != 0) {
        addr = p->addr[t];
    } else {
        ret = resolve(p->targets[t].host, p->targets[t].port, &addr, &addr_len);
    }
    if (ret == 0) {
        ret = handshake(&addr, addr_len, &s.rtt_ns);
    }
    s.success = ret == 0;
    s.error = -ret;
    if (!s.success) {
        s.rtt_ns = 0;
    }
    p->successes[t] += s.success;
    if (p->sample_count < NETLATENCY_SAMPLES_MAX) {
        p->samples[p->sample_count++] = s;
    }
}

/* wait_until sleeps on the prober's condition until deadline (CLOCK_MONOTONIC
 * ns) or a stop. Returns false when stopped. */
static bool wait_until(struct netlatency *p, int64_t deadline)
{
    struct timespec at = {.tv_sec = deadline / NS_PER_S, .tv_nsec = deadline % NS_PER_S};
    pthread_mutex_lock(&p->lock);
    while (!p->stop && clock_ns(CLOCK_MONOTONIC) < deadline) {
        pthread_cond_timedwait(&p->wake, &p->lock, &at);
    }
    bool go_on = !p->stop;
    pthread_mutex_unlock(&p->lock);
    return go_on;
}

static void *prober_main(void *arg)
{
    struct netlatency *p = arg;
    int64_t next = clock_ns(CLOCK_MONOTONIC);
    do {
        for (uint32_t t = 0; t < p->target_count; t++) {
            probe_once(p, t);
        }
        /* A probe that took longer than the interval delays the next, rather than a burst. */
        int64_t now = clock_ns(CLOCK_MONOTONIC);
        next = next + p->interval_ns > now ? next + p->interval_ns : now;
    } while (wait_until(p, next));
    return NULL;
}

/* add_target copies t unless its host and port are there already. */
static void add_target(struct netlatency *p, const struct netlatency_target *t)
{
    for (size_t i = 0; i < p->target_count; i++) {
        if (p->targets[i].port == t->port && strcmp(p->targets[i].host, t->host) == 0) {
            return;
        }
    }
    size_t i = p->target_count++;
    p->targets[i] = *t;
    p->targets[i].host[NETLATENCY_HOST_BYTES - 1] = '\0';
    p->targets[i].url[NETLATENCY_URL_BYTES - 1] = '\0';
    if (resolve(t->host, t->port, &p->addr[i], &p->addr_len[i]) != 0) {
        p->addr_len[i] = 0;
    }
}

static int start_thread(struct netlatency *p)
{
    /* The prober must never take the run's SIGINT or SIGTERM: block them all while it is
     * created, so that it inherits the mask. */
    sigset_t all;
    sigset_t old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int ret = pthread_create(&p->thread, NULL, prober_main, p);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    p->thread_running = ret == 0;
    return -ret;
}

int netlatency_start(const struct netlatency_target *targets, size_t count, double interval_s,
                     struct netlatency **out, char *err, size_t err_cap)
{
    if (count == 0 || count > NETLATENCY_TARGETS_MAX || !(interval_s > 0) || interval_s > 86400) {
        snprintf(err, err_cap,
                 "--network-latency-automatic: needs 1 to %d servers and a ping interval "
                 "above 0 and at most 86400 s",
                 NETLATENCY_TARGETS_MAX);
        return -EINVAL;
    }
    struct netlatency *p = calloc(1, sizeof(*p));
    if (p == NULL || (p->samples = calloc(NETLATENCY_SAMPLES_MAX, sizeof(*p->samples))) == NULL) {
        free(p);
        snprintf(err, err_cap, "--network-latency-automatic: out of memory");
        return -ENOMEM;
    }
    p->interval_ns = (int64_t)(interval_s * 1e9);
    for (size_t i = 0; i < count; i++) {
        add_target(p, &targets[i]);
    }
    pthread_mutex_init(&p->lock, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&p->wake, &attr);
    pthread_condattr_destroy(&attr);
    int ret = start_thread(p);
    if (ret != 0) {
        snprintf(err, err_cap, "--network-latency-automatic: cannot start the prober: %s",
                 strerror(-ret));
        netlatency_free(p);
        return ret;
    }
    *out = p;
    return 0;
}

/* top_up probes the servers short of NETLATENCY_MIN_SAMPLES successes, as AIPerf does when
 * the profiling phase completes. */
static void top_up(struct netlatency *p)
{
    int64_t deadline = clock_ns(CLOCK_MONOTONIC) + NETLATENCY_TOPUP_BUDGET_NS;
    for (uint32_t t = 0; t < p->target_count; t++) {
        for (int tries = 0;
             p->successes[t] < NETLATENCY_MIN_SAMPLES && tries < 2 * NETLATENCY_MIN_SAMPLES &&
             clock_ns(CLOCK_MONOTONIC) < deadline;
             tries++) {
            probe_once(p, t);
        }
    }
}

void netlatency_stop(struct netlatency *p)
{
    if (p == NULL || !p->thread_running) {
        return;
    }
    pthread_mutex_lock(&p->lock);
    p->stop = true;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    p->thread_running = false;
    top_up(p);
}

const struct netlatency_sample *netlatency_samples(const struct netlatency *p, size_t *out_count)
{
    *out_count = p->sample_count;
    return p->samples;
}

const struct netlatency_target *netlatency_target_of(const struct netlatency *p, uint32_t index)
{
    return &p->targets[index];
}

bool netlatency_mean_rtt_ns(const struct netlatency *p, int64_t *out_ns)
{
    double sum = 0;
    size_t n = 0;
    for (size_t i = 0; i < p->sample_count; i++) {
        if (p->samples[i].success) {
            sum += (double)p->samples[i].rtt_ns;
            n++;
        }
    }
    if (n == 0) {
        return false;
    }
    *out_ns = (int64_t)(sum / (double)n + 0.5);
    return true;
}

void netlatency_free(struct netlatency *p)
{
    if (p == NULL) {
        return;
    }
    if (p->thread_running) {
        pthread_mutex_lock(&p->lock);
        p->stop = true;
        pthread_cond_signal(&p->wake);
        pthread_mutex_unlock(&p->lock);
        pthread_join(p->thread, NULL);
    }
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    free(p->samples);
    free(p);
}
