/*
 * cluster_stub.c - cluster/ without MPI: every process is rank 0 of 1.
 */
#include "cluster/cluster_transport.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct cluster {
    char host[CLUSTER_HOST_BYTES];
};

bool cluster_available(void)
{
    return false;
}

/* launched_size is the process count a launcher announced, or 1. */
static long launched_size(void)
{
    static const char *const names[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        const char *v = getenv(names[i]);
        if (v != NULL) {
            return strtol(v, NULL, 10);
        }
    }
    return 1;
}

int cluster_init(struct cluster **out, char *errbuf, size_t errcap)
{
    long size = launched_size();
    if (size > 1) {
        /* Every process would run the whole benchmark into the same files. */
        snprintf(errbuf, errcap,
                 "started as one of %ld MPI processes, but this ringperf was built without MPI "
                 "(install libopenmpi-dev and rebuild, or leave RINGPERF_MPI on)",
                 size);
        return -ENOTSUP;
    }
    struct cluster *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        snprintf(errbuf, errcap, "out of memory");
        return -ENOMEM;
    }
    if (gethostname(c->host, sizeof(c->host) - 1) != 0) {
        snprintf(c->host, sizeof(c->host), "localhost");
    }
    *out = c;
    return 0;
}

void cluster_free(struct cluster *c)
{
    free(c);
}

int cluster_rank(const struct cluster *c)
{
    (void)c;
    return 0;
}

int cluster_size(const struct cluster *c)
{
    (void)c;
    return 1;
}

const char *cluster_host(const struct cluster *c)
{
    return c->host;
}

int cluster_barrier(struct cluster *c)
{
    (void)c;
    return 0;
}

int cluster_bcast(struct cluster *c, void *buf, size_t len)
{
    (void)c;
    (void)buf;
    return len > INT_MAX ? -EINVAL : 0;
}

int cluster_gather_hosts(struct cluster *c, char *out)
{
    if (out != NULL) {
        memcpy(out, c->host, CLUSTER_HOST_BYTES);
    }
    return 0;
}

int cluster_gather_i64(struct cluster *c, int64_t mine, int64_t *out_all)
{
    (void)c;
    if (out_all != NULL) {
        out_all[0] = mine;
    }
    return 0;
}

int cluster_clock_sync(struct cluster *c, int rounds, struct cluster_clock *out_all,
                       struct cluster_clock *out_mine)
{
    (void)c;
    (void)rounds;
    *out_mine = (struct cluster_clock){0, 0};
    if (out_all != NULL) {
        out_all[0] = *out_mine;
    }
    return 0;
}

int cluster_send(struct cluster *c, int dest, const void *buf, size_t len)
{
    (void)c;
    (void)dest;
    (void)buf;
    (void)len;
    return -EINVAL;
}

int cluster_recv(struct cluster *c, int src, void *buf, size_t cap, size_t *out_len)
{
    (void)c;
    (void)src;
    (void)buf;
    (void)cap;
    (void)out_len;
    return -EINVAL;
}

int cluster_live_post(struct cluster *c, const void *buf, size_t len)
{
    (void)c;
    (void)buf;
    (void)len;
    return -EINVAL;
}

bool cluster_live_busy(struct cluster *c)
{
    (void)c;
    return false;
}

int cluster_live_flush(struct cluster *c)
{
    (void)c;
    return 0;
}

int cluster_live_poll(struct cluster *c, int *out_src, void *buf, size_t cap, size_t *out_len)
{
    (void)c;
    (void)out_src;
    (void)buf;
    (void)cap;
    (void)out_len;
    return 0;
}

int cluster_live_recv(struct cluster *c, int src, void *buf, size_t cap, size_t *out_len)
{
    (void)c;
    (void)src;
    (void)buf;
    (void)cap;
    (void)out_len;
    return -EINVAL;
}

_Noreturn void cluster_abort(struct cluster *c, int code, const char *message)
{
    (void)c;
    if (message != NULL) {
        fprintf(stderr, "%s\n", message);
    }
    exit(code);
}
