/*
 * mock_worker.h - private: the server, its worker threads and their connections.
 *
 * Each worker owns an io_uring, a listener (SO_REUSEPORT, shared port), a fixed table of
 * connections whose receive and send buffers come from two slabs mapped at start-up, a token
 * log buffer and two random generators (faults, jitter). Workers share nothing on the request
 * path except the model-name table, which is locked only when a new name is seen.
 */
#ifndef RINGPERF_MOCK_WORKER_H
#define RINGPERF_MOCK_WORKER_H

#include <liburing.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "mock/mock_internal.h"

/* Kind of operation, stored in the top byte of an SQE's user_data; the low 32 bits hold the
 * connection index for connection operations. */
enum mock__op {
    MOCK__OP_ACCEPT = 1,
    MOCK__OP_ACCEPT_RETRY, /* timer before re-arming accept after an error (e.g. EMFILE) */
    MOCK__OP_STOP,         /* poll on the server's stop eventfd */
    MOCK__OP_CANCEL,       /* cancellation of the accept at stop */
    MOCK__OP_RECV,
    MOCK__OP_SEND,
    MOCK__OP_TIMER,
    MOCK__OP_TIMER_REMOVE,
};

enum mock__fault {
    MOCK__FAULT_NONE = 0,
    MOCK__FAULT_500,
    MOCK__FAULT_429,
    MOCK__FAULT_DROP,
    MOCK__FAULT_STALL,
    MOCK__FAULT_MALFORMED,
};

enum mock__conn_state {
    MOCK__CONN_FREE = 0,
    MOCK__CONN_OPEN,
    MOCK__CONN_CLOSING, /* shut down; released when its last operation completes */
};

/* Where the answer to the current request stands. */
enum mock__phase {
    MOCK__PHASE_IDLE = 0, /* no request being answered */
    MOCK__PHASE_STREAM,   /* SSE events are being produced on schedule */
    MOCK__PHASE_BODY,     /* a non-streaming body is due or being produced */
    MOCK__PHASE_DRAIN,    /* everything is queued; the answer ends when the send buffer drains */
    MOCK__PHASE_STALLED,  /* stall fault: nothing more is sent */
};

/* mock__conn is one accepted connection. rx_len and the rx contents change only while no
 * receive is in flight; the bytes [tx_head, tx_len) are in flight while send_armed is set, and
 * new output is only ever appended after tx_len. */
struct mock__conn {
    int fd;
    uint32_t index;
    uint8_t state; /* enum mock__conn_state */
    uint8_t phase; /* enum mock__phase */
    uint8_t fault; /* enum mock__fault of the current request */
    uint8_t ops;   /* io_uring operations in flight */
    bool recv_armed;
    bool send_armed;
    bool timer_armed;
    bool keep_alive;      /* the current answer leaves the connection open */
    bool close_when_sent; /* close once the send buffer drains (drop fault, error answers) */
    bool peer_eof;        /* the client shut down its side; close after the current answer */
    bool metrics_open;    /* the completion counts as running in /metrics */
    uint64_t started_ns;  /* CLOCK_MONOTONIC: the completion's start, for /metrics */
    uint64_t first_ns;    /* ... and its first token's */
    bool head_sent;       /* non-streaming: status line, headers and body prefix queued */
    bool malformed_sent;
    uint32_t token_next; /* next output token to queue */
    uint32_t token_stop; /* tokens to queue before the fault acts (output_tokens otherwise) */
    uint32_t fault_token;
    /* Token log: tokens [log_first, log_first + log_count) are in tx but not yet handed to the
     * kernel; they are logged when the send carrying them is submitted. */
    uint32_t log_first;
    uint32_t log_count;
    uint64_t due_ns; /* CLOCK_MONOTONIC time the next event (or the body) is due */
    char *rx;        /* the connection's slot of rx_slab, or a mapping of its own (rx_big) */
    size_t rx_cap;   /* bytes rx holds */
    size_t rx_len;   /* bytes received */
    size_t rx_used;  /* bytes of requests already answered or being answered */
    size_t rx_want;  /* the size of the request at rx_used once known to outgrow rx, else 0 */
    bool rx_big;
    char *tx;
    size_t tx_head;              /* bytes of tx already sent */
    size_t tx_len;               /* bytes of tx queued */
    struct __kernel_timespec ts; /* deadline of the pending timer; read by the kernel at submit */
    size_t request_id_len;
    char request_id[MOCK__REQUEST_ID_JSON_BYTES_MAX]; /* JSON-escaped token-log id */
    struct mock__job job;
};

/* mock__worker is one thread's loop and everything it owns. */
struct mock__worker {
    struct mock_server *server;
    const struct mock_config *cfg; /* the server's copy */
    uint32_t index;
    int listen_fd; /* borrowed from the server */
    int stop_fd;   /* borrowed from the server */
    pthread_t thread;
    bool thread_started;
    bool ring_ready;
    struct io_uring ring;

    struct mock__conn *conns;
    uint32_t conn_cap;
    uint32_t *free_slots; /* stack of free connection indexes */
    uint32_t free_count;
    char *rx_slab;
    char *tx_slab;
    size_t rx_slot; /* per connection in rx_slab: a header block and a small body */
    size_t rx_max;  /* the most a connection's rx grows to: header block limit + body limit */
    size_t tx_cap;  /* per connection */
    size_t rx_slab_bytes;
    size_t tx_slab_bytes;
    size_t event_bytes_max;

    struct mock__tokenlog log;
    uint64_t fault_rng;
    uint64_t jitter_rng;
    uint64_t seq;               /* requests seen, for ids */
    uint32_t control_busy_left; /* control requests still to answer 503 (--control-busy) */
    uint64_t now_ns;            /* CLOCK_MONOTONIC, refreshed once per loop turn */
    uint64_t ttft_ns, itl_ns, ttft_jitter_ns, itl_jitter_ns;
    uint32_t inflight; /* every operation whose final completion is still to come */
    bool stopping;
    bool accept_multishot;
    bool accept_armed;
    bool limit_logged;
    bool rx_nomem_logged; /* a request that found no memory for its body was logged */
    struct __kernel_timespec retry_ts;
    int result; /* 0 or the -errno the loop ended with */
    struct mock_stats stats;
    uint32_t models_seen_count; /* names this worker already put in the shared table */
    size_t models_seen_len[MOCK__MODELS_MAX];
    char models_seen[MOCK__MODELS_MAX][MOCK__MODEL_BYTES_MAX + 1];
};

struct mock__models {
    pthread_mutex_t lock;
    uint32_t count;
    size_t len[MOCK__MODELS_MAX];
    char name[MOCK__MODELS_MAX][MOCK__MODEL_BYTES_MAX + 1];
    char json[MOCK__MODELS_MAX][MOCK__MODEL_JSON_BYTES_MAX];
    size_t json_len[MOCK__MODELS_MAX];
};

/* MOCK__METRICS_BUCKETS is the finite buckets of each /metrics histogram (+Inf is the count). */
#define MOCK__METRICS_BUCKETS 12

struct mock__metrics_hist {
    uint64_t buckets[MOCK__METRICS_BUCKETS]; /* cumulative, as Prometheus exposes them */
    uint64_t count;
    uint64_t sum_ns;
};

/* mock__metrics is what GET /metrics exposes, shared by every worker (relaxed atomics). */
struct mock__metrics {
    uint64_t running; /* completions started and not finished (as int64 when read) */
    uint64_t prompt_tokens;
    uint64_t generation_tokens;
    uint64_t prefix_cache_hits; /* the prompt tokens it reported cached (--cache-hit-rate) */
    uint64_t finished_stop;
    uint64_t finished_length;
    struct mock__metrics_hist ttft;
    struct mock__metrics_hist e2e;
};

/* mock__metrics_started counts a completion that began answering. */
void mock__metrics_started(struct mock__metrics *m);

/* mock__metrics_finished ends one: served is true when its whole answer was queued (its tokens
 * and times are then counted); ttft_ns and e2e_ns are from its start. */
void mock__metrics_finished(struct mock__metrics *m, const struct mock__job *job, bool served,
                            uint64_t ttft_ns, uint64_t e2e_ns);

/* mock__metrics_fmt appends the Prometheus text exposition of m. */
void mock__metrics_fmt(const struct mock__metrics *m, struct mock__buf *b);

/* mock__metrics_fmt_dcgm appends a DCGM exporter's exposition of two pretend GPUs drawing a
 * constant 250 W and 150 W: their energy counters (mJ) grow by watts x 1000 per second of
 * CLOCK_MONOTONIC now_ns. */
void mock__metrics_fmt_dcgm(struct mock__buf *b, uint64_t now_ns);

struct mock_server {
    struct mock_config cfg;
    uint16_t port;
    uint32_t worker_count;
    struct mock__worker *workers;
    int *listen_fds;
    int stop_fd;
    int log_fd;
    struct mock__models models;
    struct mock__metrics metrics;
    pthread_mutex_t start_lock;
    pthread_cond_t start_cond;
    uint32_t workers_reported;
    int start_error;
    bool stopped;
    int stop_result;
};

/* mock__worker_report tells mock_server_start() that a worker is accepting (result 0) or failed
 * to start (negative errno). */
void mock__worker_report(struct mock__worker *w, int result);

/* ---- Connection operations (mock_worker.c), used by the request logic in mock_conn.c ----- */

/* mock__conn_send starts a send of the queued bytes unless one is in flight or none wait. */
void mock__conn_send(struct mock__worker *w, struct mock__conn *c);

/* mock__conn_recv arms a receive into the free part of rx unless one is armed or rx is full.
 * Before that it drops answered requests from rx, gives rx a mapping of its own when the next
 * request (rx_want) outgrows it, and returns to the slot once requests fit there again. A
 * connection whose request cannot get the memory is closed. */
void mock__conn_recv(struct mock__worker *w, struct mock__conn *c);

/* mock__conn_timer arms the connection's timer to fire at absolute `due_ns`. */
void mock__conn_timer(struct mock__worker *w, struct mock__conn *c, uint64_t due_ns);

/* mock__conn_close shuts the connection down; its slot is released after its last operation. */
void mock__conn_close(struct mock__worker *w, struct mock__conn *c);

/* ---- Request logic (mock_conn.c) -------------------------------------------------------- */

/* mock__conn_input parses and answers the requests waiting in rx, one at a time. */
void mock__conn_input(struct mock__worker *w, struct mock__conn *c);

/* mock__conn_progress produces whatever the current answer has due, starts the send, and ends
 * the answer when it is fully sent. Called on timer expiry and send completion. */
void mock__conn_progress(struct mock__worker *w, struct mock__conn *c);

/* mock__conn_log_sent writes the token-log lines of the tokens waiting in the connection's
 * send buffer (log_first, log_count), stamped `send_ns`, and clears them. Called right after
 * the send carrying them was submitted. */
void mock__conn_log_sent(struct mock__worker *w, struct mock__conn *c, uint64_t send_ns);

/* mock__conn_reset clears the per-request state of a connection. */
void mock__conn_reset(struct mock__conn *c);

#endif
