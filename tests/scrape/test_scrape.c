/*
 * test_scrape.c - the scraper against a scripted /metrics server on loopback (a thread of the
 * test): each fetch gets the next exposition, so the windows' statistics are known exactly.
 */
#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "scrape/scrape.h"

#define BODIES_MAX 8

struct script {
    int fd;
    int port;
    const char *bodies[BODIES_MAX]; /* answered in turn; the last one repeats */
    size_t count;
    size_t served;
    const char *not_found_path; /* answered 404 */
    pthread_t thread;
};

static void answer(struct script *s, int c)
{
    char req[4096];
    size_t len = 0;
    while (len < sizeof(req) - 1) {
        ssize_t n = recv(c, req + len, sizeof(req) - 1 - len, 0);
        if (n <= 0) {
            return;
        }
        len += (size_t)n;
        req[len] = '\0';
        if (strstr(req, "\r\n\r\n") != NULL) {
            break;
        }
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
    const char *body = s->bodies[i];
    snprintf(head, sizeof(head),
             "HTTP/1.1 200 OK\r\nContent-Type: text/plain; version=0.0.4\r\nContent-Length: "
             "%zu\r\nConnection: close\r\n\r\n",
             strlen(body));
    send(c, head, strlen(head), MSG_NOSIGNAL);
    send(c, body, strlen(body), MSG_NOSIGNAL);
}

static void *serve(void *arg)
{
    struct script *s = arg;
    for (;;) {
        int c = accept(s->fd, NULL, NULL);
        if (c < 0) {
            return NULL;
        }
        answer(s, c);
        close(c);
    }
}

static void script_start(struct script *s)
{
    s->fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    cr_assert_eq(bind(s->fd, (struct sockaddr *)&a, sizeof(a)), 0);
    cr_assert_eq(listen(s->fd, 16), 0);
    cr_assert_eq(getsockname(s->fd, (struct sockaddr *)&a, &len), 0);
    s->port = ntohs(a.sin_port);
    cr_assert_eq(pthread_create(&s->thread, NULL, serve, s), 0);
}

static void script_stop(struct script *s)
{
    shutdown(s->fd, SHUT_RDWR);
    close(s->fd);
    pthread_join(s->thread, NULL);
}

static void endpoint_for(const struct script *s, struct scrape_endpoint *e, bool is_default)
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

static struct scrape *start(const struct scrape_endpoint *e)
{
    /* A long interval: only the fetches the test asks for happen. */
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

static const struct scrape_family_stats *family(const struct scrape_report *r, const char *name)
{
    for (size_t i = 0; i < r->family_count; i++) {
        if (strcmp(r->families[i].name, name) == 0) {
            return &r->families[i];
        }
    }
    cr_assert_fail("no family %s", name);
    return NULL;
}

#define HIST(b1, b2, inf, sum)                                                                     \
    "# TYPE h_seconds histogram\nh_seconds_bucket{le=\"0.1\"} " #b1 "\n"                           \
    "h_seconds_bucket{le=\"1\"} " #b2 "\nh_seconds_bucket{le=\"+Inf\"} " #inf "\n"                 \
    "h_seconds_sum " #sum "\nh_seconds_count " #inf "\n"

Test(scrape, windows_give_aiperf_statistics, .timeout = 30)
{
    struct script sc = {.count = 4};
    sc.bodies[0] = "# TYPE c_total counter\nc_total 100\n# TYPE g gauge\ng 5\n" HIST(0, 0, 0, 0);
    sc.bodies[1] = "# TYPE c_total counter\nc_total 110\n# TYPE g gauge\ng 7\n" HIST(0, 0, 0, 0);
    sc.bodies[2] = "# TYPE c_total counter\nc_total 130\n# TYPE g gauge\ng 9\n" HIST(2, 3, 4, 5.5);
    sc.bodies[3] =
        "# TYPE c_total counter\nc_total 10\n# TYPE g gauge\ng 11\n" HIST(12, 23, 24, 25.5);
    script_start(&sc);
    struct scrape_endpoint e;
    endpoint_for(&sc, &e, false);
    struct scrape *s = start(&e);            /* body 0 */
    scrape_phase(s, SCRAPE_PHASE_WARMUP);    /* body 1: the warmup's reference */
    scrape_phase(s, SCRAPE_PHASE_PROFILING); /* body 2: in the warmup, profiling's reference */
    scrape_stop(s);                          /* body 3: in profiling */
    cr_assert_eq(scrape_record_count(s), 4);

    struct scrape_report prof;
    cr_assert_eq(scrape_reduce(s, scrape_window_of(s, SCRAPE_PHASE_PROFILING), 0, &prof), 0);
    const struct scrape_family_stats *c = family(&prof, "c");
    cr_assert_eq(c->type, PROM_COUNTER);
    cr_assert_eq(c->series[0].counter.total, 0, "a reset is clamped at zero");
    cr_assert_not(c->series[0].counter.has_rate_stats);
    const struct scrape_family_stats *g = family(&prof, "g");
    cr_assert_eq(g->series[0].gauge.avg, 11);
    cr_assert_eq(g->series[0].gauge.std, 0);
    const struct scrape_family_stats *h = family(&prof, "h_seconds");
    cr_assert_str_eq(h->unit, "seconds");
    const struct scrape_histogram_stats *hs = &h->series[0].histogram;
    cr_assert_eq(hs->count, 20);
    cr_assert_eq(hs->sum, 20);
    cr_assert_eq(hs->avg, 1);
    cr_assert(hs->has_buckets && hs->bucket_count == 3);
    cr_assert_str_eq(hs->bucket_le[2], "+Inf");
    cr_assert_eq(hs->bucket_delta[0], 10);
    cr_assert_eq(hs->bucket_delta[1], 20);
    cr_assert(hs->has_estimates);
    cr_assert_float_eq(hs->p_estimate[4], 0.1, 1e-12, "p50 at the first bucket's bound");
    cr_assert_float_eq(hs->p_estimate[8], 0.982, 1e-12, "p99 interpolated in (0.1, 1]");
    scrape_report_free(&prof);

    struct scrape_report warm;
    cr_assert_eq(scrape_reduce(s, scrape_window_of(s, SCRAPE_PHASE_WARMUP), 0, &warm), 0);
    cr_assert_eq(family(&warm, "c")->series[0].counter.total, 20);
    cr_assert_eq(family(&warm, "g")->series[0].gauge.avg, 9);
    cr_assert_eq(family(&warm, "h_seconds")->series[0].histogram.count, 4);
    scrape_report_free(&warm);

    struct scrape_endpoint_info info;
    scrape_endpoint_info_of(s, 0, &info);
    cr_assert_eq(info.fetches, 4);
    cr_assert_eq(info.failures, 0);
    cr_assert_eq(info.unique_updates, 4);
    struct scrape_record rec;
    cr_assert_eq(scrape_record_at(s, 3, &rec), 7, "c, g, 3 buckets, sum, count");
    struct scrape_sample_view v;
    scrape_record_sample(s, 3, 2, &v);
    cr_assert_str_eq(v.family, "h_seconds");
    cr_assert_eq(v.suffix, PROM_SUFFIX_BUCKET);
    cr_assert_str_eq(v.le, "0.1");
    struct scrape_sample_view count;
    scrape_record_sample(s, 3, 6, &count);
    cr_assert_eq(count.group, v.group, "a histogram's parts share a group");
    scrape_free(s);
    script_stop(&sc);
}

Test(scrape, gauge_percentiles_are_numpy_linear, .timeout = 30)
{
    struct script sc = {.count = 5};
    sc.bodies[0] = "g 0\n";
    sc.bodies[1] = "g 1\n";
    sc.bodies[2] = "g 2\n";
    sc.bodies[3] = "g 3\n";
    sc.bodies[4] = "g 10\n";
    script_start(&sc);
    struct scrape_endpoint e;
    endpoint_for(&sc, &e, false);
    struct scrape *s = start(&e);
    scrape_phase(s, SCRAPE_PHASE_PROFILING); /* 1 */
    scrape_phase(s, SCRAPE_PHASE_WARMUP);    /* 2: ends profiling's window */
    scrape_stop(s);
    struct scrape_report r;
    /* The profiling window [after 1, before 2]: its one sample is 2. */
    cr_assert_eq(scrape_reduce(s, scrape_window_of(s, SCRAPE_PHASE_PROFILING), 0, &r), 0);
    cr_assert_eq(family(&r, "g")->type, PROM_UNTYPED);
    cr_assert_eq(family(&r, "g")->series[0].gauge.avg, 2);
    scrape_report_free(&r);
    struct scrape_window all = {.start_ns = 1, .end_ns = INT64_MAX};
    cr_assert_eq(scrape_reduce(s, all, 0, &r), 0);
    const struct scrape_gauge_stats *g = &family(&r, "g")->series[0].gauge;
    cr_assert_eq(g->min, 0);
    cr_assert_eq(g->max, 3);
    cr_assert_float_eq(g->avg, 1.5, 1e-12);
    cr_assert_float_eq(g->std, sqrt(5.0 / 3.0), 1e-12, "sample standard deviation");
    cr_assert_float_eq(g->p[3], 0.75, 1e-12, "p25 = 0 + 0.75 * (1 - 0)");
    cr_assert_float_eq(g->p[8], 2.97, 1e-12);
    scrape_report_free(&r);
    scrape_free(s);
    script_stop(&sc);
}

Test(scrape, the_default_endpoint_falls_back_to_trt_llm, .timeout = 30)
{
    struct script sc = {.count = 1, .not_found_path = "/metrics"};
    sc.bodies[0] = "# TYPE up gauge\nup 1\n";
    script_start(&sc);
    struct scrape_endpoint e;
    endpoint_for(&sc, &e, true);
    struct scrape *s = start(&e);
    scrape_stop(s);
    struct scrape_endpoint_info info;
    scrape_endpoint_info_of(s, 0, &info);
    cr_assert_eq(info.fetches, 2);
    cr_assert_eq(info.failures, 0);
    cr_assert_not_null(strstr(info.url, "/prometheus/metrics"), "%s", info.url);
    scrape_free(s);
    script_stop(&sc);
}

Test(scrape, a_bad_exposition_keeps_nothing_and_says_why, .timeout = 30)
{
    struct script sc = {.count = 2};
    sc.bodies[0] = "ok 1\nbad{ 2\n";
    sc.bodies[1] = "ok 3\n";
    script_start(&sc);
    struct scrape_endpoint e;
    endpoint_for(&sc, &e, false);
    struct scrape *s = start(&e);
    scrape_stop(s);
    struct scrape_endpoint_info info;
    scrape_endpoint_info_of(s, 0, &info);
    cr_assert_eq(info.failures, 1);
    cr_assert_eq(info.fetches, 1);
    cr_assert_str_eq(info.last_error, "exposition: malformed labels");
    struct scrape_record rec;
    cr_assert_eq(scrape_record_at(s, 0, &rec), 1, "the failed fetch left no sample behind");
    struct scrape_sample_view v;
    scrape_record_sample(s, 0, 0, &v);
    cr_assert_eq(v.value, 3);
    scrape_free(s);
    script_stop(&sc);
}
