/*
 * cluster_mpi.c - cluster/ over MPI (Open MPI). MPI is initialised only
 * under a launcher, so the same binary runs alone as rank 0 of 1.
 */
#include "cluster/cluster_transport.h"

#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define TAG_CLOCK 7101
#define TAG_CLOCK_RESULT 7102
#define TAG_DATA 7103
#define TAG_LIVE 7104

struct cluster {
    bool mpi; /* MPI_Init was called */
    int rank;
    int size;
    char host[CLUSTER_HOST_BYTES];
    MPI_Request live; /* the live-figures send in flight, or MPI_REQUEST_NULL */
};

bool cluster_available(void)
{
    return true;
}

int cluster_init(struct cluster **out, char *errbuf, size_t errcap)
{
    struct cluster *c = calloc(1, sizeof(*c));
    if (c == NULL) {
        snprintf(errbuf, errcap, "out of memory");
        return -ENOMEM;
    }
    c->size = 1;
    c->live = MPI_REQUEST_NULL;
    if (gethostname(c->host, sizeof(c->host) - 1) != 0) {
        snprintf(c->host, sizeof(c->host), "localhost");
    }
    if (cluster_launched(environ)) {
        int provided = 0;
        /* The threads MPI starts inherit this mask: SIGINT and SIGTERM (which
         * mpirun sends when a rank dies) then reach the process's own signal
         * handling rather than killing it from one of them. */
        sigset_t block;
        sigset_t old;
        sigemptyset(&block);
        sigaddset(&block, SIGINT);
        sigaddset(&block, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &block, &old);
        int init = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        if (init != MPI_SUCCESS) {
            snprintf(errbuf, errcap, "MPI_Init failed");
            free(c);
            return -EIO;
        }
        c->mpi = true;
        MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
        MPI_Comm_size(MPI_COMM_WORLD, &c->size);
        if (c->size > CLUSTER_RANKS_MAX) {
            snprintf(errbuf, errcap, "%d ranks, more than the %d supported", c->size,
                     CLUSTER_RANKS_MAX);
            cluster_free(c);
            return -EINVAL;
        }
    }
    *out = c;
    return 0;
}

void cluster_free(struct cluster *c)
{
    if (c == NULL) {
        return;
    }
    if (c->mpi) {
        if (c->live != MPI_REQUEST_NULL) {
            /* A rank that stops early: rank 0 may never take this one. */
            MPI_Cancel(&c->live);
            MPI_Request_free(&c->live);
        }
        MPI_Finalize();
    }
    free(c);
}

int cluster_rank(const struct cluster *c)
{
    return c->rank;
}

int cluster_size(const struct cluster *c)
{
    return c->size;
}

const char *cluster_host(const struct cluster *c)
{
    return c->host;
}

int cluster_barrier(struct cluster *c)
{
    if (!c->mpi) {
        return 0;
    }
    return MPI_Barrier(MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -EIO;
}

int cluster_bcast(struct cluster *c, void *buf, size_t len)
{
    if (len > INT_MAX) {
        return -EINVAL;
    }
    if (!c->mpi) {
        return 0;
    }
    return MPI_Bcast(buf, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD) == MPI_SUCCESS ? 0 : -EIO;
}

int cluster_gather_hosts(struct cluster *c, char *out)
{
    if (!c->mpi) {
        if (out != NULL) {
            memcpy(out, c->host, CLUSTER_HOST_BYTES);
        }
        return 0;
    }
    int ret = MPI_Gather(c->host, CLUSTER_HOST_BYTES, MPI_CHAR, out, CLUSTER_HOST_BYTES, MPI_CHAR,
                         0, MPI_COMM_WORLD);
    return ret == MPI_SUCCESS ? 0 : -EIO;
}

int cluster_gather_i64(struct cluster *c, int64_t mine, int64_t *out_all)
{
    if (!c->mpi) {
        if (out_all != NULL) {
            out_all[0] = mine;
        }
        return 0;
    }
    int ret = MPI_Gather(&mine, 1, MPI_INT64_T, out_all, 1, MPI_INT64_T, 0, MPI_COMM_WORLD);
    return ret == MPI_SUCCESS ? 0 : -EIO;
}

/* sync_one runs the ping-pongs with rank `peer` on rank 0 and returns the
 * estimate of the round with the shortest round trip. */
static int sync_one(int peer, int rounds, struct cluster_clock *out)
{
    int64_t best_rtt = INT64_MAX;
    for (int i = 0; i < rounds; i++) {
        int64_t t0 = cluster_wall_now_ns();
        int64_t remote = 0;
        if (MPI_Send(&t0, 1, MPI_INT64_T, peer, TAG_CLOCK, MPI_COMM_WORLD) != MPI_SUCCESS ||
            MPI_Recv(&remote, 1, MPI_INT64_T, peer, TAG_CLOCK, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
                MPI_SUCCESS) {
            return -EIO;
        }
        int64_t t1 = cluster_wall_now_ns();
        if (t1 - t0 < best_rtt) {
            best_rtt = t1 - t0;
            out->offset_ns = remote - (t0 + (t1 - t0) / 2);
            out->uncertainty_ns = (t1 - t0 + 1) / 2;
        }
    }
    int64_t result[2] = {out->offset_ns, out->uncertainty_ns};
    return MPI_Send(result, 2, MPI_INT64_T, peer, TAG_CLOCK_RESULT, MPI_COMM_WORLD) == MPI_SUCCESS
               ? 0
               : -EIO;
}

/* answer_pings is the other side of sync_one. */
static int answer_pings(int rounds, struct cluster_clock *out)
{
    for (int i = 0; i < rounds; i++) {
        int64_t t0 = 0;
        if (MPI_Recv(&t0, 1, MPI_INT64_T, 0, TAG_CLOCK, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
            MPI_SUCCESS) {
            return -EIO;
        }
        int64_t now = cluster_wall_now_ns();
        if (MPI_Send(&now, 1, MPI_INT64_T, 0, TAG_CLOCK, MPI_COMM_WORLD) != MPI_SUCCESS) {
            return -EIO;
        }
    }
    int64_t result[2];
    if (MPI_Recv(result, 2, MPI_INT64_T, 0, TAG_CLOCK_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
        MPI_SUCCESS) {
        return -EIO;
    }
    *out = (struct cluster_clock){result[0], result[1]};
    return 0;
}

int cluster_clock_sync(struct cluster *c, int rounds, struct cluster_clock *out_all,
                       struct cluster_clock *out_mine)
{
    *out_mine = (struct cluster_clock){0, 0};
    if (c->rank == 0 && out_all != NULL) {
        out_all[0] = *out_mine;
    }
    if (!c->mpi || c->size == 1) {
        return 0;
    }
    rounds = rounds > 0 ? rounds : 1;
    if (c->rank != 0) {
        return answer_pings(rounds, out_mine);
    }
    for (int peer = 1; peer < c->size; peer++) {
        struct cluster_clock est = {0, 0};
        int ret = sync_one(peer, rounds, &est);
        if (ret != 0) {
            return ret;
        }
        if (out_all != NULL) {
            out_all[peer] = est;
        }
    }
    return 0;
}

int cluster_send(struct cluster *c, int dest, const void *buf, size_t len)
{
    if (!c->mpi || len > INT_MAX) {
        return -EINVAL;
    }
    return MPI_Send(buf, (int)len, MPI_BYTE, dest, TAG_DATA, MPI_COMM_WORLD) == MPI_SUCCESS ? 0
                                                                                            : -EIO;
}

int cluster_recv(struct cluster *c, int src, void *buf, size_t cap, size_t *out_len)
{
    if (!c->mpi) {
        return -EINVAL;
    }
    MPI_Status status;
    if (MPI_Probe(src, TAG_DATA, MPI_COMM_WORLD, &status) != MPI_SUCCESS) {
        return -EIO;
    }
    int count = 0;
    MPI_Get_count(&status, MPI_BYTE, &count);
    if (count < 0 || (size_t)count > cap || cap > INT_MAX) {
        return -EMSGSIZE;
    }
    if (MPI_Recv(buf, (int)cap, MPI_BYTE, src, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
        MPI_SUCCESS) {
        return -EIO;
    }
    *out_len = (size_t)count;
    return 0;
}

bool cluster_live_busy(struct cluster *c)
{
    if (!c->mpi || c->live == MPI_REQUEST_NULL) {
        return false;
    }
    int done = 0;
    if (MPI_Test(&c->live, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        return true;
    }
    return done == 0;
}

int cluster_live_post(struct cluster *c, const void *buf, size_t len)
{
    if (!c->mpi || len > INT_MAX) {
        return -EINVAL;
    }
    if (cluster_live_busy(c)) {
        return -EBUSY;
    }
    return MPI_Isend(buf, (int)len, MPI_BYTE, 0, TAG_LIVE, MPI_COMM_WORLD, &c->live) == MPI_SUCCESS
               ? 0
               : -EIO;
}

int cluster_live_flush(struct cluster *c)
{
    if (!c->mpi || c->live == MPI_REQUEST_NULL) {
        return 0;
    }
    return MPI_Wait(&c->live, MPI_STATUS_IGNORE) == MPI_SUCCESS ? 0 : -EIO;
}

/* receive_live takes the message `status` announced (probed) into buf. */
static int receive_live(const MPI_Status *status, void *buf, size_t cap, size_t *out_len)
{
    int count = 0;
    MPI_Get_count(status, MPI_BYTE, &count);
    if (count < 0 || (size_t)count > cap || cap > INT_MAX) {
        /* Take it anyway, so that the next one can come. */
        void *drop = count > 0 ? malloc((size_t)count) : NULL;
        if (drop != NULL) {
            MPI_Recv(drop, count, MPI_BYTE, status->MPI_SOURCE, TAG_LIVE, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
            free(drop);
        }
        return drop != NULL ? -EMSGSIZE : -ENOMEM;
    }
    if (MPI_Recv(buf, count, MPI_BYTE, status->MPI_SOURCE, TAG_LIVE, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        return -EIO;
    }
    *out_len = (size_t)count;
    return 0;
}

int cluster_live_poll(struct cluster *c, int *out_src, void *buf, size_t cap, size_t *out_len)
{
    if (!c->mpi) {
        return 0;
    }
    int flag = 0;
    MPI_Status status;
    if (MPI_Iprobe(MPI_ANY_SOURCE, TAG_LIVE, MPI_COMM_WORLD, &flag, &status) != MPI_SUCCESS) {
        return -EIO;
    }
    if (!flag) {
        return 0;
    }
    *out_src = status.MPI_SOURCE;
    int ret = receive_live(&status, buf, cap, out_len);
    return ret == 0 ? 1 : ret;
}

int cluster_live_recv(struct cluster *c, int src, void *buf, size_t cap, size_t *out_len)
{
    if (!c->mpi) {
        return -EINVAL;
    }
    MPI_Status status;
    if (MPI_Probe(src, TAG_LIVE, MPI_COMM_WORLD, &status) != MPI_SUCCESS) {
        return -EIO;
    }
    return receive_live(&status, buf, cap, out_len);
}

_Noreturn void cluster_abort(struct cluster *c, int code, const char *message)
{
    if (message != NULL) {
        fprintf(stderr, "%s\n", message);
        fflush(stderr);
    }
    if (c != NULL && c->mpi) {
        MPI_Abort(MPI_COMM_WORLD, code);
    }
    exit(code);
}
