/*
 * engine_rx.c - receiving, and the time each read of response bytes arrived.
 *
 * Where the kernel allows it, the arrival time is the kernel's software
 * receive timestamp (SO_TIMESTAMPING), read through a multishot recvmsg into
 * provided buffers: it is taken when the packet reached the socket, so it does
 * not include the time the shard took to wake up and reach this completion,
 * which on a busy machine is tens to hundreds of microseconds. Otherwise the
 * arrival time is the clock read when the completion is handled.
 *
 * Kernel timestamps are CLOCK_REALTIME; they are moved onto the monotonic
 * timeline with an offset re-sampled every shard tick.
 */
#include "engine/engine_conn.h"

#include <errno.h>
#include <linux/errqueue.h>
#include <linux/net_tstamp.h>
#include <string.h>
#include <time.h>

static int64_t clock_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* A clock pairing whose bracket is wider than this (the thread was preempted
 * between its reads) is not trusted to replace a good one. */
#define CLOCK_SYNC_BRACKET_MAX_NS (20 * 1000)
#define CLOCK_SYNC_TRIES 4

void engine__clock_sync(struct engine__shard *shard)
{
    /* Bracket a realtime read between two monotonic reads: the midpoint pairs
     * them to within half the bracket, tens of nanoseconds, unless the thread
     * was preempted in between, when the error is half the preemption. Keep
     * the tightest of a few tries, and keep the old offset rather than take a
     * wide one: a stamp must never move earlier than the bytes arrived. */
    int64_t best_width = INT64_MAX;
    int64_t best_offset = 0;
    for (int i = 0; i < CLOCK_SYNC_TRIES && best_width > CLOCK_SYNC_BRACKET_MAX_NS / 10; i++) {
        int64_t mono_before = clock_ns(CLOCK_MONOTONIC);
        int64_t real = clock_ns(CLOCK_REALTIME);
        int64_t mono_after = clock_ns(CLOCK_MONOTONIC);
        if (mono_after - mono_before < best_width) {
            best_width = mono_after - mono_before;
            best_offset = mono_before + best_width / 2 - real;
        }
    }
    if (best_width <= CLOCK_SYNC_BRACKET_MAX_NS || !shard->clock_synced) {
        shard->real_to_mono_ns = best_offset;
        shard->clock_synced = true;
    }
}

void engine__enable_rx_timestamps(struct engine__shard *shard, struct engine__conn *c, int fd)
{
    c->kernel_timestamps = false;
    if (!shard->kernel_timestamps) {
        return;
    }
    int flags = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
    c->kernel_timestamps = setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING, &flags, sizeof(flags)) == 0;
    c->recv_msg = (struct msghdr){
        .msg_controllen = CMSG_SPACE(sizeof(struct scm_timestamping)),
    };
}

void engine__arm_recv(struct engine__shard *shard, struct engine__conn *c)
{
    struct io_uring_sqe *sqe = engine__conn_sqe(shard, c, ENGINE__OP_RECV);
    if (sqe == NULL) {
        return;
    }
    if (c->kernel_timestamps) {
        io_uring_prep_recvmsg_multishot(sqe, c->fd, &c->recv_msg, 0);
    } else {
        io_uring_prep_recv_multishot(sqe, c->fd, NULL, 0, 0);
    }
    engine__sqe_on_socket(c, sqe);
    sqe->flags |= IOSQE_BUFFER_SELECT;
    sqe->buf_group = 0;
    c->recv_armed = true;
}

/* kernel_arrival returns the receive timestamp in a recvmsg result, moved to
 * the monotonic clock, or 0 when the kernel attached none. */
static int64_t kernel_arrival(struct engine__shard *shard, struct engine__conn *c,
                              struct io_uring_recvmsg_out *out)
{
    for (struct cmsghdr *cmsg = io_uring_recvmsg_cmsg_firsthdr(out, &c->recv_msg); cmsg != NULL;
         cmsg = io_uring_recvmsg_cmsg_nexthdr(out, &c->recv_msg, cmsg)) {
        if (cmsg->cmsg_level != SOL_SOCKET || cmsg->cmsg_type != SCM_TIMESTAMPING ||
            cmsg->cmsg_len < CMSG_LEN(sizeof(struct scm_timestamping))) {
            continue;
        }
        struct scm_timestamping stamps;
        memcpy(&stamps, CMSG_DATA(cmsg), sizeof(stamps));
        int64_t real = (int64_t)stamps.ts[0].tv_sec * 1000000000 + stamps.ts[0].tv_nsec;
        return real != 0 ? real + shard->real_to_mono_ns : 0;
    }
    return 0;
}

/* deliver hands one read's bytes to the response parser, or closes a
 * connection that received bytes nobody asked for. */
static void deliver(struct engine__shard *shard, struct engine__conn *c, const char *data,
                    size_t len, int64_t arrival_ns)
{
    if (arrival_ns < c->last_arrival_ns) {
        arrival_ns = c->last_arrival_ns;
    }
    c->last_arrival_ns = arrival_ns;
    if (c->state == ENGINE__CONN_TUNNELLING) {
        engine__proxy_on_bytes(shard, c, data, len, arrival_ns);
        return;
    }
    if (c->tls != NULL) {
        /* Ciphertext: the plaintext decrypted from it arrived when it did. */
        engine__tls_on_bytes(shard, c, data, len, arrival_ns);
        return;
    }
    if (c->record == NULL || c->job.waiting) {
        engine__close_socket(shard, c); /* unsolicited bytes: the connection is unusable */
        return;
    }
    engine__response_bytes(shard, c, data, len, arrival_ns);
}

/* on_data handles a completion that carries a buffer. Returns false when it
 * was the end of the stream. */
static bool on_data(struct engine__shard *shard, struct engine__conn *c, struct io_uring_cqe *cqe)
{
    uint32_t bid = cqe->flags >> IORING_CQE_BUFFER_SHIFT;
    char *buf = engine__buffer(shard, bid);
    /* Every byte of this batch arrived before it was reaped: that is when
     * the shard saw it, and the latest its arrival can be. */
    int64_t handled_ns = shard->reaped_ns;
    bool open = true;
    if (!c->kernel_timestamps) {
        shard->user_timestamp_reads++;
        deliver(shard, c, buf, (size_t)cqe->res, handled_ns);
    } else {
        struct io_uring_recvmsg_out *out = io_uring_recvmsg_validate(buf, cqe->res, &c->recv_msg);
        size_t len = out != NULL ? io_uring_recvmsg_payload_length(out, cqe->res, &c->recv_msg) : 0;
        /* A multishot recvmsg reports the end of the stream as an empty
         * payload, not as a result of 0. */
        open = len > 0;
        if (open) {
            int64_t arrival_ns = kernel_arrival(shard, c, out);
            /* Never later than when we saw it: guards against a clock step. */
            if (arrival_ns == 0 || arrival_ns > handled_ns) {
                arrival_ns = handled_ns;
                shard->user_timestamp_reads++;
            } else {
                shard->kernel_timestamp_reads++;
            }
            deliver(shard, c, io_uring_recvmsg_payload(out, &c->recv_msg), len, arrival_ns);
        }
    }
    engine__recycle_buffer(shard, bid);
    return open;
}

void engine__on_recv(struct engine__shard *shard, struct engine__conn *c, struct io_uring_cqe *cqe)
{
    bool more = (cqe->flags & IORING_CQE_F_MORE) != 0;
    if (!more) {
        c->recv_armed = false;
    }
    uint32_t generation = c->generation;
    if (cqe->res > 0 && (cqe->flags & IORING_CQE_F_BUFFER) != 0) {
        if (!on_data(shard, c, cqe)) {
            engine__on_eof(shard, c, 0);
        } else if (!more && c->generation == generation && c->fd >= 0) {
            engine__arm_recv(shard, c);
        }
    } else if (cqe->res == -ENOBUFS) {
        /* Every provided buffer is in use; they are published again at the end
         * of this loop turn, so re-arming now is safe. */
        if (!more && c->fd >= 0) {
            engine__arm_recv(shard, c);
        }
    } else if (cqe->res == -EINVAL && c->kernel_timestamps) {
        /* This kernel has no multishot recvmsg: use plain receives from now on. */
        shard->kernel_timestamps = false;
        c->kernel_timestamps = false;
        if (!more && c->fd >= 0) {
            engine__arm_recv(shard, c);
        }
    } else {
        engine__on_eof(shard, c, cqe->res == 0 ? 0 : -cqe->res);
    }
}
