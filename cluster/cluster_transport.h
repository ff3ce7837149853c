/*
 * cluster_transport.h - what the ranks of one run shared by several
 * processes under MPI say to each other (internal to cluster/; the shares
 * themselves are in cluster.h): who am I, a common start instant, clock offsets, and moving bytes
 * to rank 0 after the run. Rank 0 coordinates.
 *
 * The MPI library (Open MPI) is optional at build time: without it this
 * module implements the same API for one process (rank 0 of 1; under a
 * launcher with more processes it refuses to run, saying so). A
 * binary built with MPI still runs without a launcher: MPI_Init is called
 * only when the environment shows one (OMPI_COMM_WORLD_SIZE, PMI_SIZE or
 * PMIX_RANK). Every call here except the cluster_live_* ones may block on
 * the other ranks, so none of them belongs on the request path: call them
 * before and after engine_run only. The cluster_live_* calls never wait
 * during a run: each rank posts a small snapshot of its live figures and
 * rank 0 polls for them at the progress interval. Nothing here is
 * thread-safe; use one struct cluster from one thread (the one that called
 * cluster_init: MPI is initialised MPI_THREAD_FUNNELED).
 */
#ifndef RINGPERF_CLUSTER_TRANSPORT_H
#define RINGPERF_CLUSTER_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* CLUSTER_HOST_BYTES bounds a host name, NUL included. */
#define CLUSTER_HOST_BYTES 256

/* CLUSTER_RANKS_MAX bounds the ranks of one run. */
#define CLUSTER_RANKS_MAX 4096

/* CLUSTER_CHUNK_BYTES is the size of one message when a file is streamed
 * to rank 0. */
#define CLUSTER_CHUNK_BYTES (1u << 20)

/* cluster is the process's membership in a run (opaque). */
struct cluster;

/* cluster_clock is one rank's wall clock (CLOCK_REALTIME) against rank 0's:
 * offset_ns = rank clock - rank 0 clock, known to within +-uncertainty_ns
 * (half the best ping-pong round trip). Rank 0's own is {0, 0}. */
struct cluster_clock {
    int64_t offset_ns;
    int64_t uncertainty_ns;
};

/* cluster_launched reports whether the environment `envp` (NULL-terminated,
 * borrowed) shows an MPI launcher: OMPI_COMM_WORLD_SIZE, PMI_SIZE or
 * PMIX_RANK is set. */
bool cluster_launched(char *const *envp);

/* cluster_available reports whether this build has MPI. */
bool cluster_available(void);

/* cluster_init joins the run: under a launcher (cluster_launched(environ))
 * and with MPI built in, it initialises MPI; otherwise the process is rank 0
 * of 1 (a build without MPI refuses, -ENOTSUP, to run as one of several
 * launched processes). Returns 0 and a handle owned by the caller
 * (cluster_free) in `*out`, or -errno with a message in errbuf
 * (NUL-terminated when errcap > 0). */
int cluster_init(struct cluster **out, char *errbuf, size_t errcap);

/* cluster_free leaves the run (MPI_Finalize when MPI was initialised) and
 * frees `c`. cluster_free(NULL) is a no-op. */
void cluster_free(struct cluster *c);

/* cluster_rank returns this process's rank, 0 .. cluster_size - 1. */
int cluster_rank(const struct cluster *c);

/* cluster_size returns the number of ranks (1 without a launcher). */
int cluster_size(const struct cluster *c);

/* cluster_host returns this host's name (a view valid as long as `c`). */
const char *cluster_host(const struct cluster *c);

/* cluster_barrier waits until every rank has called it. Returns 0 or -EIO. */
int cluster_barrier(struct cluster *c);

/* cluster_bcast copies `len` bytes at `buf` from rank 0 to every rank.
 * Returns 0, -EINVAL for len > INT_MAX, or -EIO. */
int cluster_bcast(struct cluster *c, void *buf, size_t len);

/* cluster_gather_hosts gives rank 0 every rank's host name: `out` holds
 * cluster_size() * CLUSTER_HOST_BYTES bytes on rank 0 (rank r's name at
 * r * CLUSTER_HOST_BYTES) and is unused elsewhere (may be NULL). Returns 0
 * or -EIO. */
int cluster_gather_hosts(struct cluster *c, char *out);

/* cluster_gather_i64 gives rank 0 one number from every rank (`mine`):
 * `out_all` holds cluster_size() entries on rank 0 (rank r's at r) and is
 * unused elsewhere (may be NULL). Returns 0 or -EIO. */
int cluster_gather_i64(struct cluster *c, int64_t mine, int64_t *out_all);

/* cluster_clock_sync estimates every rank's clock against rank 0's by
 * `rounds` ping-pongs per rank (the round with the shortest round trip
 * wins). Every rank gets its own estimate in `*out_mine`; rank 0 also gets
 * all of them in `out_all` (cluster_size() entries; NULL elsewhere).
 * Returns 0 or -EIO. */
int cluster_clock_sync(struct cluster *c, int rounds, struct cluster_clock *out_all,
                       struct cluster_clock *out_mine);

/* cluster_send sends `len` bytes (borrowed) to rank `dest` as one message.
 * Returns 0, -EINVAL or -EIO. */
int cluster_send(struct cluster *c, int dest, const void *buf, size_t len);

/* cluster_recv receives one message from rank `src` into `buf` (`cap`
 * bytes) and stores its length in `*out_len`. Returns 0, -EMSGSIZE when it
 * does not fit, or -EIO. */
int cluster_recv(struct cluster *c, int src, void *buf, size_t cap, size_t *out_len);

/* cluster_live_post starts a non-blocking send of `len` bytes at `buf` to
 * rank 0 as a live-figures message (a tag of its own, apart from
 * cluster_send's). `buf` stays borrowed until the send completed: until
 * cluster_live_busy returns false or cluster_live_flush returned. At most
 * one such send is in flight: returns 0, -EBUSY (the previous one has not
 * completed: nothing is sent), -EINVAL (no MPI, or len > INT_MAX) or -EIO.
 * Never waits on another rank, so it may be called while requests are in
 * flight (from the thread that initialised MPI). */
int cluster_live_post(struct cluster *c, const void *buf, size_t len);

/* cluster_live_busy reports whether the last cluster_live_post is still in
 * flight (it tests the send without waiting). */
bool cluster_live_busy(struct cluster *c);

/* cluster_live_flush waits until the last cluster_live_post completed (rank
 * 0 received it). Returns 0 or -EIO. Blocks: call it after the run. */
int cluster_live_flush(struct cluster *c);

/* cluster_live_poll, on rank 0, receives one live-figures message that has
 * already arrived from any rank, without waiting for one: returns 1 with
 * the sender in *out_src and the message in `buf` (`cap` bytes, length in
 * *out_len), 0 when none is pending, -EMSGSIZE (the message is dropped)
 * or -EIO. */
int cluster_live_poll(struct cluster *c, int *out_src, void *buf, size_t cap, size_t *out_len);

/* cluster_live_recv, on rank 0, waits for the next live-figures message
 * from rank `src` (messages from one rank arrive in the order posted).
 * Returns 0, -EMSGSIZE (dropped) or -EIO. Blocks: call it after the run. */
int cluster_live_recv(struct cluster *c, int src, void *buf, size_t cap, size_t *out_len);

/* cluster_abort ends every rank of the run with exit code `code`, after
 * `message` (may be NULL) is written to stderr. Does not return. */
_Noreturn void cluster_abort(struct cluster *c, int code, const char *message);

/* cluster_wall_now_ns returns CLOCK_REALTIME in ns. */
int64_t cluster_wall_now_ns(void);

/* cluster_sleep_until_wall_ns sleeps until CLOCK_REALTIME reaches
 * `wall_ns` (returns at once when it already has). */
void cluster_sleep_until_wall_ns(int64_t wall_ns);

#endif
