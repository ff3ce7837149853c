/*
 * netlatency: the round-trip prober against real sockets on loopback: a
 * listening port gives successful handshakes with positive round trips, a
 * closed one failed samples that say why, duplicates are probed once, and
 * stopping tops a short run up to NETLATENCY_MIN_SAMPLES successes.
 */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "netlatency/netlatency.h"

/* listen_loopback opens a listening socket on an ephemeral loopback port. */
static int listen_loopback(uint16_t *out_port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    cr_assert_eq(listen(fd, 64), 0);
    socklen_t len = sizeof(sa);
    cr_assert_eq(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
    *out_port = ntohs(sa.sin_port);
    return fd;
}

static struct netlatency_target target(uint16_t port)
{
    struct netlatency_target t = {.port = port};
    snprintf(t.host, sizeof(t.host), "127.0.0.1");
    snprintf(t.url, sizeof(t.url), "http://127.0.0.1:%u", (unsigned)port);
    return t;
}

Test(netlatency, open_and_closed_servers, .timeout = 30)
{
    uint16_t open_port = 0;
    int listener = listen_loopback(&open_port);
    uint16_t closed_port = 0;
    int closed = listen_loopback(&closed_port);
    close(closed); /* nothing listens there any more: connections are refused */
    const struct netlatency_target targets[] = {target(open_port), target(closed_port),
                                                target(open_port)};
    struct netlatency *p = NULL;
    char err[256] = "";
    /* A long interval: the first round of probes, then the top-up when stopped. */
    cr_assert_eq(netlatency_start(targets, 3, 60.0, &p, err, sizeof(err)), 0, "%s", err);
    netlatency_stop(p);
    size_t n = 0;
    const struct netlatency_sample *s = netlatency_samples(p, &n);
    size_t ok = 0;
    size_t refused = 0;
    for (size_t i = 0; i < n; i++) {
        const struct netlatency_target *t = netlatency_target_of(p, s[i].target);
        cr_assert_lt(s[i].target, 2, "the duplicate target is probed once");
        cr_assert_gt(s[i].timestamp_ns, 0);
        if (t->port == open_port) {
            cr_assert(s[i].success, "sample %zu: error %d", i, s[i].error);
            cr_assert_gt(s[i].rtt_ns, 0);
            ok++;
        } else {
            cr_assert_not(s[i].success);
            cr_assert_eq(s[i].error, ECONNREFUSED);
            refused++;
        }
    }
    cr_assert_eq(ok, NETLATENCY_MIN_SAMPLES, "topped up to the floor, no more");
    cr_assert_eq(refused, 2 * NETLATENCY_MIN_SAMPLES + 1,
                 "the first probe, then twice the floor in tries");
    int64_t mean = 0;
    cr_assert(netlatency_mean_rtt_ns(p, &mean));
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += s[i].success ? s[i].rtt_ns : 0;
    }
    cr_assert_leq(mean * (int64_t)ok - sum, (int64_t)ok, "the mean of the successes");
    cr_assert_geq(mean * (int64_t)ok - sum, -(int64_t)ok);
    netlatency_free(p);
    close(listener);
}

Test(netlatency, probes_follow_the_interval_until_stopped, .timeout = 30)
{
    uint16_t port = 0;
    int listener = listen_loopback(&port);
    const struct netlatency_target t = target(port);
    struct netlatency *p = NULL;
    char err[256] = "";
    cr_assert_eq(netlatency_start(&t, 1, 0.01, &p, err, sizeof(err)), 0, "%s", err);
    /* Wait, without a fixed sleep, until the thread has probed on its own several times:
     * accept each handshake it makes (the backlog holds them otherwise). */
    for (int accepted = 0; accepted < 8; accepted++) {
        int c = accept(listener, NULL, NULL);
        cr_assert_geq(c, 0);
        close(c);
    }
    netlatency_stop(p);
    size_t n = 0;
    const struct netlatency_sample *s = netlatency_samples(p, &n);
    cr_assert_geq(n, 8, "at least the handshakes accepted");
    for (size_t i = 1; i < n; i++) {
        cr_assert_geq(s[i].timestamp_ns, s[i - 1].timestamp_ns, "in the order taken");
    }
    netlatency_free(p);
    close(listener);
}

Test(netlatency, bad_options_are_refused_with_the_flag)
{
    const struct netlatency_target t = target(1);
    struct netlatency *p = NULL;
    char err[256] = "";
    cr_assert_eq(netlatency_start(&t, 1, 0, &p, err, sizeof(err)), -EINVAL);
    cr_assert_not_null(strstr(err, "--network-latency-automatic"), "%s", err);
    cr_assert_eq(netlatency_start(&t, 0, 1, &p, err, sizeof(err)), -EINVAL);
}
