/*
 * mock_worker.c - one worker thread: its io_uring, the accept/recv/send/timer plumbing and the
 * loop that dispatches completions.
 *
 * The loop is submit-and-wait, then drain the CQ one entry at a time (each entry is copied and
 * marked seen before it is handled, so a handler may submit freely). The current time is read
 * once per turn. A connection is released only when its last operation has completed, which is
 * what lets its buffers be reused without a generation counter.
 */
#include <errno.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "mock/mock_internal.h"
#include "mock/mock_worker.h"

#define SQ_ENTRIES 1024u
#define CQ_ENTRIES_MIN 4096u
#define CQ_ENTRIES_MAX 65536u
#define ACCEPT_RETRY_NS 50000000ull  /* back-off before re-arming accept after EMFILE etc. */
#define LOG_FLUSH_NS 1000000000ull   /* write buffered token-log lines at least this often */
#define TOKENLOG_BYTES (256u * 1024) /* per worker */
#define TX_BYTES_MIN (64u * 1024)    /* fits the largest /v1/models answer */
#define SUBMIT_RETRIES 64
/* Receive room of each connection at start-up: a whole header block and a 48 KiB body (a
 * prompt of several thousand words); a larger request gets room of its own (rx_fit). */
#define RX_SLOT_BYTES (MOCK__HEADER_BYTES_MAX + 48u * 1024)

static uint64_t op_data(enum mock__op op, uint32_t index)
{
    return ((uint64_t)op << 56) | index;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* get_sqe returns a free SQE, submitting the queued ones first when the SQ is full. The kernel
 * consumes every SQE on submit (errors come back as CQEs), so a second failure means the ring
 * is broken and the process cannot continue correctly. */
static struct io_uring_sqe *get_sqe(struct mock__worker *w, uint64_t data)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);
    for (int i = 0; sqe == NULL && i < SUBMIT_RETRIES; i++) {
        io_uring_submit(&w->ring);
        sqe = io_uring_get_sqe(&w->ring);
    }
    if (sqe == NULL) {
        fprintf(stderr, "mock-server: io_uring submission queue stuck; aborting\n");
        abort();
    }
    w->inflight++;
    io_uring_sqe_set_data64(sqe, data);
    return sqe;
}

void mock__conn_send(struct mock__worker *w, struct mock__conn *c)
{
    if (c->send_armed || c->state != MOCK__CONN_OPEN || c->tx_head == c->tx_len) {
        return;
    }
    struct io_uring_sqe *sqe = get_sqe(w, op_data(MOCK__OP_SEND, c->index));
    io_uring_prep_send(sqe, c->fd, c->tx + c->tx_head, c->tx_len - c->tx_head, MSG_NOSIGNAL);
    c->send_armed = true;
    c->ops++;
    if (c->log_count > 0) {
        /* Logged tokens go out now, not at the end of the loop turn: the submit issues the
         * send inline (on loopback the peer's receive timestamp is taken inside it), so the
         * clock read just before it is when the tokens' bytes were handed to the kernel. */
        uint64_t send_ns = mono_ns();
        io_uring_submit(&w->ring);
        mock__conn_log_sent(w, c, send_ns);
    }
}

/* map_slab maps `bytes` of lazily backed memory: connections only touch the pages they use. */
static char *map_slab(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

/* rx_to_slot moves the unanswered bytes of a connection's own mapping back to its slot. */
static void rx_to_slot(struct mock__worker *w, struct mock__conn *c)
{
    char *slot = w->rx_slab + (size_t)c->index * w->rx_slot;
    memcpy(slot, c->rx + c->rx_used, c->rx_len - c->rx_used);
    munmap(c->rx, c->rx_cap);
    c->rx = slot;
    c->rx_cap = w->rx_slot;
    c->rx_len -= c->rx_used;
    c->rx_used = 0;
    c->rx_big = false;
}

/* rx_fit makes room in rx for the request at its front, whose size is c->rx_want: a body
 * larger than the slot gets a mapping of its own, sized to the request, for as long as it
 * takes to read and answer it, so that a large --max-body-kb costs memory only while such a
 * request is in. Returns false when the memory is not there. */
static bool rx_fit(struct mock__worker *w, struct mock__conn *c)
{
    if (c->rx_big && c->rx_want <= w->rx_slot && c->rx_len - c->rx_used <= w->rx_slot) {
        rx_to_slot(w, c);
    }
    /* No receive is in flight, so answered requests can be dropped from the front. */
    if (c->rx_used > 0) {
        memmove(c->rx, c->rx + c->rx_used, c->rx_len - c->rx_used);
        c->rx_len -= c->rx_used;
        c->rx_used = 0;
    }
    if (c->rx_want <= c->rx_cap) {
        return true;
    }
    size_t page = 4096;
    size_t cap = (c->rx_want + page - 1) / page * page;
    char *big = map_slab(cap < w->rx_max ? cap : w->rx_max);
    if (big == NULL) {
        return false;
    }
    memcpy(big, c->rx, c->rx_len);
    if (c->rx_big) {
        munmap(c->rx, c->rx_cap);
    }
    c->rx = big;
    c->rx_cap = cap < w->rx_max ? cap : w->rx_max;
    c->rx_big = true;
    return true;
}

void mock__conn_recv(struct mock__worker *w, struct mock__conn *c)
{
    if (c->recv_armed || c->state != MOCK__CONN_OPEN || c->peer_eof) {
        return;
    }
    if (!rx_fit(w, c)) {
        if (!w->rx_nomem_logged) {
            fprintf(stderr,
                    "mock-server: no memory for a %zu-byte request; closing its connection\n",
                    c->rx_want);
            w->rx_nomem_logged = true;
        }
        mock__conn_close(w, c);
        return;
    }
    if (c->rx_len == c->rx_cap) {
        return; /* pipelined requests fill rx; receiving resumes once one is answered */
    }
    struct io_uring_sqe *sqe = get_sqe(w, op_data(MOCK__OP_RECV, c->index));
    io_uring_prep_recv(sqe, c->fd, c->rx + c->rx_len, c->rx_cap - c->rx_len, 0);
    c->recv_armed = true;
    c->ops++;
}

void mock__conn_timer(struct mock__worker *w, struct mock__conn *c, uint64_t due_ns)
{
    if (c->timer_armed || c->state != MOCK__CONN_OPEN) {
        return;
    }
    c->ts.tv_sec = (long long)(due_ns / 1000000000u);
    c->ts.tv_nsec = (long long)(due_ns % 1000000000u);
    struct io_uring_sqe *sqe = get_sqe(w, op_data(MOCK__OP_TIMER, c->index));
    io_uring_prep_timeout(sqe, &c->ts, 0, IORING_TIMEOUT_ABS);
    c->timer_armed = true;
    c->ops++;
}

static void conn_release(struct mock__worker *w, struct mock__conn *c)
{
    if (c->rx_big) {
        c->rx_len = c->rx_used = 0;
        rx_to_slot(w, c);
    }
    close(c->fd);
    c->fd = -1;
    c->state = MOCK__CONN_FREE;
    w->free_slots[w->free_count++] = c->index;
}

void mock__conn_close(struct mock__worker *w, struct mock__conn *c)
{
    if (c->state != MOCK__CONN_OPEN) {
        return;
    }
    c->state = MOCK__CONN_CLOSING;
    /* shutdown() completes a pending receive (with 0) and fails a pending send, so every
     * operation of the connection ends promptly. */
    shutdown(c->fd, SHUT_RDWR);
    if (c->timer_armed) {
        struct io_uring_sqe *sqe = get_sqe(w, op_data(MOCK__OP_TIMER_REMOVE, c->index));
        io_uring_prep_timeout_remove(sqe, op_data(MOCK__OP_TIMER, c->index), 0);
        c->ops++;
    }
    if (c->ops == 0) {
        conn_release(w, c);
    }
}

static void arm_accept(struct mock__worker *w)
{
    struct io_uring_sqe *sqe = get_sqe(w, op_data(MOCK__OP_ACCEPT, 0));
    if (w->accept_multishot) {
        io_uring_prep_multishot_accept(sqe, w->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    } else {
        io_uring_prep_accept(sqe, w->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    }
    w->accept_armed = true;
}

static void arm_accept_retry(struct mock__worker *w)
{
    uint64_t due = mono_ns() + ACCEPT_RETRY_NS;
    w->retry_ts.tv_sec = (long long)(due / 1000000000u);
    w->retry_ts.tv_nsec = (long long)(due % 1000000000u);
    struct io_uring_sqe *sqe = get_sqe(w, op_data(MOCK__OP_ACCEPT_RETRY, 0));
    io_uring_prep_timeout(sqe, &w->retry_ts, 0, IORING_TIMEOUT_ABS);
    w->accept_armed = true; /* the retry stands in for the accept until it fires */
}

static void conn_open(struct mock__worker *w, int fd)
{
    if (w->stopping || w->free_count == 0) {
        if (!w->stopping) {
            w->stats.connections_rejected++;
            if (!w->limit_logged) {
                fprintf(stderr,
                        "mock-server: thread %u reached its limit of %u open connections; "
                        "refusing new ones (raise --max-connections; further refusals are "
                        "only counted)\n",
                        w->index, w->conn_cap);
                w->limit_logged = true;
            }
        }
        close(fd);
        return;
    }
    struct mock__conn *c = &w->conns[w->free_slots[--w->free_count]];
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    c->fd = fd;
    c->state = MOCK__CONN_OPEN;
    c->ops = 0;
    c->recv_armed = c->send_armed = c->timer_armed = false;
    c->keep_alive = true;
    c->peer_eof = false;
    c->rx_len = c->rx_used = c->rx_want = 0;
    c->tx_head = c->tx_len = 0;
    mock__conn_reset(c);
    w->stats.connections_accepted++;
    mock__conn_recv(w, c);
}

static void on_accept(struct mock__worker *w, int res, bool more)
{
    if (!more) {
        w->accept_armed = false;
    }
    if (res >= 0) {
        conn_open(w, res);
    } else if (res == -EINVAL && w->accept_multishot) {
        w->accept_multishot = false; /* kernel without multishot accept */
    } else if (res != -ECANCELED && res != -EINTR && res != -EAGAIN && res != -ECONNABORTED) {
        fprintf(stderr, "mock-server: accept failed: %s; retrying\n", strerror(-res));
        if (!w->stopping && !w->accept_armed) {
            arm_accept_retry(w);
        }
    }
    if (!w->stopping && !w->accept_armed) {
        arm_accept(w);
    }
}

static void on_recv(struct mock__worker *w, struct mock__conn *c, int res)
{
    if (c->state != MOCK__CONN_OPEN) {
        return;
    }
    if (res == -EINTR || res == -EAGAIN) {
        mock__conn_recv(w, c);
        return;
    }
    if (res < 0) {
        mock__conn_close(w, c);
        return;
    }
    if (res == 0) {
        /* The client is done sending. A half-closed client still gets the answer it is waiting
         * for; an idle or stalled connection is simply closed. */
        c->peer_eof = true;
        if (c->phase == MOCK__PHASE_IDLE || c->phase == MOCK__PHASE_STALLED) {
            mock__conn_close(w, c);
        }
        return;
    }
    c->rx_len += (size_t)res;
    if (c->phase == MOCK__PHASE_IDLE) {
        mock__conn_input(w, c);
    } else {
        mock__conn_recv(w, c);
    }
}

static void on_send(struct mock__worker *w, struct mock__conn *c, int res)
{
    if (c->state != MOCK__CONN_OPEN) {
        return;
    }
    if (res == -EINTR || res == -EAGAIN) {
        mock__conn_send(w, c);
        return;
    }
    if (res <= 0) {
        mock__conn_close(w, c);
        return;
    }
    c->tx_head += (size_t)res;
    if (c->tx_head == c->tx_len) {
        c->tx_head = c->tx_len = 0;
    } else {
        memmove(c->tx, c->tx + c->tx_head, c->tx_len - c->tx_head);
        c->tx_len -= c->tx_head;
        c->tx_head = 0;
    }
    mock__conn_progress(w, c);
}

static void on_conn_event(struct mock__worker *w, enum mock__op op, uint32_t index, int res)
{
    if (index >= w->conn_cap) {
        return;
    }
    struct mock__conn *c = &w->conns[index];
    c->ops--;
    switch (op) {
    case MOCK__OP_RECV:
        c->recv_armed = false;
        on_recv(w, c, res);
        break;
    case MOCK__OP_SEND:
        c->send_armed = false;
        on_send(w, c, res);
        break;
    case MOCK__OP_TIMER:
        c->timer_armed = false;
        if (res == -ETIME) {
            mock__conn_progress(w, c);
        }
        break;
    default:
        break;
    }
    if (c->state == MOCK__CONN_CLOSING && c->ops == 0) {
        conn_release(w, c);
    }
}

static void on_stop(struct mock__worker *w)
{
    w->stopping = true;
    if (w->accept_armed) {
        struct io_uring_sqe *sqe = get_sqe(w, op_data(MOCK__OP_CANCEL, 0));
        io_uring_prep_cancel64(sqe, op_data(MOCK__OP_ACCEPT, 0), 0);
        sqe = get_sqe(w, op_data(MOCK__OP_CANCEL, 0));
        io_uring_prep_timeout_remove(sqe, op_data(MOCK__OP_ACCEPT_RETRY, 0), 0);
    }
    for (uint32_t i = 0; i < w->conn_cap; i++) {
        mock__conn_close(w, &w->conns[i]);
    }
}

static void dispatch(struct mock__worker *w, const struct io_uring_cqe *cqe)
{
    enum mock__op op = (enum mock__op)(cqe->user_data >> 56);
    uint32_t index = (uint32_t)cqe->user_data;
    bool more = (cqe->flags & IORING_CQE_F_MORE) != 0;
    if (!more) {
        w->inflight--;
    }
    switch (op) {
    case MOCK__OP_ACCEPT:
        on_accept(w, cqe->res, more);
        break;
    case MOCK__OP_ACCEPT_RETRY:
        w->accept_armed = false;
        if (!w->stopping) {
            arm_accept(w);
        }
        break;
    case MOCK__OP_STOP:
        on_stop(w);
        break;
    case MOCK__OP_CANCEL:
        break;
    default:
        on_conn_event(w, op, index, cqe->res);
        break;
    }
}

static int wait_events(struct mock__worker *w)
{
    struct io_uring_cqe *cqe = NULL;
    if (!mock__tokenlog_pending(&w->log)) {
        return io_uring_submit_and_wait(&w->ring, 1);
    }
    struct __kernel_timespec ts = {.tv_sec = (long long)(LOG_FLUSH_NS / 1000000000u)};
    return io_uring_submit_and_wait_timeout(&w->ring, &cqe, 1, &ts, NULL);
}

static int worker_loop(struct mock__worker *w)
{
    uint64_t last_flush_ns = mono_ns();
    while (!(w->stopping && w->inflight == 0)) {
        int rc = wait_events(w);
        if (rc < 0 && rc != -EINTR && rc != -ETIME && rc != -EAGAIN && rc != -EBUSY) {
            return rc;
        }
        w->now_ns = mono_ns();
        struct io_uring_cqe *cqe = NULL;
        while (io_uring_peek_cqe(&w->ring, &cqe) == 0) {
            struct io_uring_cqe copy = *cqe;
            io_uring_cqe_seen(&w->ring, cqe);
            dispatch(w, &copy);
        }
        bool due = w->now_ns - last_flush_ns >= LOG_FLUSH_NS;
        if (mock__tokenlog_pending(&w->log) && (due || mock__tokenlog_high(&w->log))) {
            mock__tokenlog_flush(&w->log);
            last_flush_ns = w->now_ns;
        }
    }
    return 0;
}

static int alloc_conns(struct mock__worker *w)
{
    const struct mock_config *cfg = w->cfg;
    w->conn_cap = (cfg->max_connections + cfg->threads - 1) / cfg->threads;
    w->event_bytes_max = mock__event_bytes_max(cfg->tokens_per_chunk);
    w->rx_max = MOCK__HEADER_BYTES_MAX + (size_t)cfg->max_body_bytes;
    w->rx_slot = w->rx_max < RX_SLOT_BYTES ? w->rx_max : RX_SLOT_BYTES;
    w->tx_cap = 2 * w->event_bytes_max > TX_BYTES_MIN ? 2 * w->event_bytes_max : TX_BYTES_MIN;
    w->rx_slab_bytes = w->rx_slot * w->conn_cap;
    w->tx_slab_bytes = w->tx_cap * w->conn_cap;
    w->conns = calloc(w->conn_cap, sizeof(*w->conns));
    w->free_slots = calloc(w->conn_cap, sizeof(*w->free_slots));
    w->rx_slab = map_slab(w->rx_slab_bytes);
    w->tx_slab = map_slab(w->tx_slab_bytes);
    if (w->conns == NULL || w->free_slots == NULL || w->rx_slab == NULL || w->tx_slab == NULL) {
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < w->conn_cap; i++) {
        struct mock__conn *c = &w->conns[i];
        c->fd = -1;
        c->index = i;
        c->rx = w->rx_slab + (size_t)i * w->rx_slot;
        c->rx_cap = w->rx_slot;
        c->tx = w->tx_slab + (size_t)i * w->tx_cap;
        w->free_slots[i] = w->conn_cap - 1 - i;
    }
    w->free_count = w->conn_cap;
    return 0;
}

static unsigned cq_entries(const struct mock__worker *w)
{
    /* Up to three operations per connection can complete in one turn. */
    unsigned want = CQ_ENTRIES_MIN;
    while (want < CQ_ENTRIES_MAX && want < 3u * w->conn_cap + 16u) {
        want *= 2;
    }
    return want;
}

/* ring_init prefers a single-issuer ring with deferred task work (less overhead per completion)
 * and falls back for older kernels. Must run on the worker thread that will use the ring. */
static int ring_init(struct mock__worker *w)
{
    const unsigned flag_sets[] = {
        IORING_SETUP_CQSIZE | IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
        IORING_SETUP_CQSIZE,
        0,
    };
    int rc = -EINVAL;
    for (size_t i = 0; i < sizeof(flag_sets) / sizeof(flag_sets[0]) && rc == -EINVAL; i++) {
        struct io_uring_params p = {.flags = flag_sets[i], .cq_entries = cq_entries(w)};
        rc = io_uring_queue_init_params(SQ_ENTRIES, &w->ring, &p);
    }
    return rc;
}

static int worker_setup(struct mock__worker *w)
{
    int rc = alloc_conns(w);
    if (rc != 0) {
        return rc;
    }
    rc = mock__tokenlog_init(&w->log, w->server->log_fd, TOKENLOG_BYTES);
    if (rc != 0) {
        return rc;
    }
    rc = ring_init(w);
    if (rc != 0) {
        return rc;
    }
    w->ring_ready = true;
    w->accept_multishot = true;
    w->now_ns = mono_ns();
    struct io_uring_sqe *sqe = get_sqe(w, op_data(MOCK__OP_STOP, 0));
    io_uring_prep_poll_add(sqe, w->stop_fd, POLLIN);
    arm_accept(w);
    rc = io_uring_submit(&w->ring);
    return rc < 0 ? rc : 0;
}

static void worker_teardown(struct mock__worker *w)
{
    if (w->conns != NULL) {
        for (uint32_t i = 0; i < w->conn_cap; i++) {
            if (w->conns[i].state != MOCK__CONN_FREE) {
                close(w->conns[i].fd);
            }
            if (w->conns[i].rx_big) {
                munmap(w->conns[i].rx, w->conns[i].rx_cap);
            }
        }
    }
    if (w->ring_ready) {
        io_uring_queue_exit(&w->ring);
        w->ring_ready = false;
    }
    mock__tokenlog_destroy(&w->log);
    w->stats.token_log_lines = w->log.lines;
    if (w->rx_slab != NULL) {
        munmap(w->rx_slab, w->rx_slab_bytes);
    }
    if (w->tx_slab != NULL) {
        munmap(w->tx_slab, w->tx_slab_bytes);
    }
    free(w->free_slots);
    free(w->conns);
    w->rx_slab = w->tx_slab = NULL;
    w->free_slots = NULL;
    w->conns = NULL;
}

void *mock__worker_main(void *arg)
{
    struct mock__worker *w = arg;
    const struct mock_config *cfg = w->cfg;
    w->fault_rng = cfg->seed ^ (0x6a09e667f3bcc908ull * (w->index + 1));
    w->control_busy_left = cfg->control_busy;
    w->jitter_rng = cfg->seed ^ (0xbb67ae8584caa73bull * (w->index + 1));
    w->ttft_ns = (uint64_t)(cfg->ttft_ms * 1e6);
    w->itl_ns = (uint64_t)(cfg->itl_ms * 1e6);
    w->ttft_jitter_ns = (uint64_t)(cfg->ttft_jitter_ms * 1e6);
    w->itl_jitter_ns = (uint64_t)(cfg->itl_jitter_ms * 1e6);
    int rc = worker_setup(w);
    mock__worker_report(w, rc);
    if (rc == 0) {
        rc = worker_loop(w);
        if (rc != 0) {
            /* Stop the whole server: connections would queue on this thread's listener. */
            fprintf(stderr, "mock-server: thread %u stopped: %s\n", w->index, strerror(-rc));
            uint64_t one = 1;
            if (write(w->stop_fd, &one, sizeof(one)) < 0) {
                fprintf(stderr, "mock-server: cannot signal stop: %s\n", strerror(errno));
            }
        }
    }
    w->result = rc;
    worker_teardown(w);
    return NULL;
}
