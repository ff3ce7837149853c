/*
 * script_server.h - a scripted /metrics server on loopback for the scraper's tests (a thread
 * of the test): each fetch gets the next exposition, so the windows' statistics are known
 * exactly.
 */
#ifndef RINGPERF_TESTS_SCRAPE_SCRIPT_SERVER_H
#define RINGPERF_TESTS_SCRAPE_SCRIPT_SERVER_H

#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "scrape/scrape.h"
#include "tests/support/loopback_server.h"

#define SCRIPT_BODIES_MAX 16

struct script {
    struct loopback_server server;
    int port;
    const char *bodies[SCRIPT_BODIES_MAX]; /* answered in turn; the last one repeats */
    size_t count;
    size_t served;
    const char *not_found_path; /* answered 404 */
};

static inline void script_answer(void *ctx, int c)
{
    struct script *s = ctx;
    char req[4096];
    if (!loopback_read_request(c, req, sizeof(req))) {
        return;
    }
    char head[256];
    if (s->not_found_path != NULL &&
        strncmp(req + 4, s->not_found_path, strlen(s->not_found_path)) == 0 &&
        req[4 + strlen(s->not_found_path)] == ' ') {
        snprintf(head, sizeof(head), "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
        send(c, head, strlen(head), MSG_NOSIGNAL);
        return;
    }
    size_t i = s->served < s->count ? s->served : s->count - 1;
    s->served++;
    loopback_reply(c, "text/plain; version=0.0.4", s->bodies[i]);
}

static inline void script_start(struct script *s)
{
    loopback_server_start(&s->server, script_answer, s);
    s->port = s->server.port;
}

static inline void script_stop(struct script *s)
{
    loopback_server_stop(&s->server);
}

static inline void endpoint_for(const struct script *s, struct scrape_endpoint *e, bool is_default)
{
    memset(e, 0, sizeof(*e));
    struct sockaddr_in *a = (struct sockaddr_in *)&e->target.addr;
    a->sin_family = AF_INET;
    a->sin_port = htons((uint16_t)s->port);
    a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    e->target.addr_len = sizeof(*a);
    snprintf(e->target.host_header, sizeof(e->target.host_header), "127.0.0.1:%d", s->port);
    engine_target_set_path(&e->target, "/metrics");
    snprintf(e->url, sizeof(e->url), "http://127.0.0.1:%d/metrics", s->port);
    e->is_default = is_default;
}

/* script_scrape starts a scraper of endpoint e that fetches only when asked (a long interval). */
static inline struct scrape *script_scrape(const struct scrape_endpoint *e)
{
    struct scrape_config cfg = {.endpoints = e,
                                .endpoint_count = 1,
                                .interval_ns = 3600LL * 1000000000LL,
                                .timeout_ns = 5LL * 1000000000LL,
                                .quiet = true};
    char err[256];
    struct scrape *s = NULL;
    cr_assert_eq(scrape_start(&cfg, &s, err, sizeof(err)), 0, "%s", err);
    return s;
}

#endif
