/*
 * engine_internal.h - state shared by the files of engine/: the shard, its
 * pooled connections, and the coordinator's view of a shard.
 */
#ifndef RINGPERF_ENGINE_INTERNAL_H
#define RINGPERF_ENGINE_INTERNAL_H

#include <liburing.h>
#include <pthread.h>
#include <string.h>
#include <stdatomic.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

#include "engine/engine.h"
#include "engine/engine_ring.h"
#include "sigv4/sigv4.h"
#include "wire/wire.h"

struct tls_conn;

/* Longest a shard sleeps: deadline checks and newly queued work wait at most
 * this long. */
#define ENGINE__TICK_NS (5 * 1000 * 1000)
/* A shard wakes this long before a request is due and spins the rest: the
 * kernel's timer slack and wake-up latency would make it late otherwise. */
#define ENGINE__SPIN_NS (50 * 1000)
/* Finished records wait at most this long for the coordinator: it is woken per
 * batch of records rather than per loop turn, which on a shared core saves two
 * context switches per wake-up. */
#define ENGINE__WAKE_DELAY_NS (1000 * 1000)
#define ENGINE__HEAD_BYTES 8192

/* Per-request headers: X-Request-ID, then in a session X-Correlation-ID (or
 * engine_config.session_header) and X-Session-Affinity (AIPerf's session
 * headers: routers keep a session on one replica). */
enum {
    ENGINE__HEADER_REQUEST_ID,
    ENGINE__HEADER_CORRELATION_ID,
    ENGINE__HEADER_SESSION_AFFINITY,
    ENGINE__REQUEST_HEADERS_MAX,
};
/* With SigV4, the signature's headers follow: X-Amz-Date, X-Amz-Content-Sha256,
 * X-Amz-Security-Token and Authorization (engine_sign.c). */
#define ENGINE__SIGN_HEADERS 4
/* Refreshed SigV4 credential sets a shard keeps redacting (a long response may echo a set
 * that was replaced while it ran). */
#define ENGINE__REKEY_KEPT 4
/* Per connection: one buffer serves as the SSE parser's scratch on streamed
 * responses and as the body collector otherwise (never both at once). It
 * starts at ENGINE__BODY_BYTES and grows, on the shard, for a longer body or
 * event (base64 images, long outputs), doubling up to ENGINE__BODY_BYTES_MAX;
 * the connection keeps what it grew to for its next responses. */
#define ENGINE__BODY_BYTES (128 * 1024)
#define ENGINE__BODY_BYTES_MAX ((size_t)256 << 20)
#define ENGINE__HEADER_BYTES (16 * 1024)
#define ENGINE__MAX_HEADERS 100

enum engine__conn_state {
    ENGINE__CONN_CLOSED = 0, /* no socket */
    ENGINE__CONN_IDLE,       /* connected, kept alive, no request */
    ENGINE__CONN_CONNECTING,
    ENGINE__CONN_ACTIVE,     /* a request is being sent or received */
    ENGINE__CONN_TUNNELLING, /* CONNECT sent to the proxy, its answer not yet read */
};

/* The kinds of io_uring operation a shard submits; the low byte of user_data. */
enum engine__op {
    ENGINE__OP_CONNECT = 1,
    ENGINE__OP_SEND,
    ENGINE__OP_RECV,
    ENGINE__OP_WAKE, /* eventfd write that wakes the coordinator */
};

/* engine__session is the multi-turn session a connection runs (engine_session.c). */
struct engine__session {
    bool active;
    bool thinking;    /* waiting for next_due_ns to send turn `turn` */
    uint64_t session; /* session number */
    uint64_t first_ordinal;
    uint32_t turn; /* the turn in flight, or the next one while thinking */
    uint32_t turn_count;
    int64_t next_due_ns;          /* thinking: when turn `turn` is due */
    int64_t last_due_ns;          /* user-centric: when this user's previous turn was due */
    char error[256];              /* why the turn's body could not be built */
    char correlation_id[40];      /* X-Correlation-ID of the session (record_correlation_id) */
    struct engine_turn_body body; /* the body of the turn in flight */
    /* keep_replies: the replies so far, texts back to back in reply_text. */
    struct engine_turn_reply *replies;
    uint32_t reply_cap;
    char *reply_text;
    size_t reply_len;
    size_t reply_text_cap;
};

/* ENGINE__JOB_PATH_BYTES bounds a job's follow-up request target (its poll or download path). */
#define ENGINE__JOB_PATH_BYTES 4608

/* engine__job_phase is where an asynchronous job (engine_jobs, engine_job.c) stands. */
enum engine__job_phase {
    ENGINE__JOB_NONE = 0, /* the run has no jobs, or the connection no request */
    ENGINE__JOB_SUBMIT,   /* the submission (the request's own body) is in flight */
    ENGINE__JOB_POLL,     /* polling the job's status */
    ENGINE__JOB_DOWNLOAD, /* fetching the finished video */
};

/* engine__job is the job a connection's record stands for. */
/* engine__job_paths are a job's request targets. */
struct engine__job_paths {
    char poll[ENGINE__JOB_PATH_BYTES]; /* the submission's path + "/" + id */
    char now[ENGINE__JOB_PATH_BYTES];  /* the follow-up in flight's request target */
};

struct engine__job {
    enum engine__job_phase phase;
    bool waiting;         /* between two polls: no request on the socket */
    int64_t next_poll_ns; /* waiting: when the next poll is due */
    /* Allocated only in runs of jobs (engine_config.jobs): two long paths would otherwise
     * swell every connection, and the loops over all of them, in every run. */
    struct engine__job_paths *paths;
};

/* engine__conn is one pooled connection and the request it carries. */
struct engine__conn {
    uint32_t id;
    uint32_t target_index;
    const struct engine_target *target; /* the server this connection talks to */
    enum engine__conn_state state;
    int fd;
    uint32_t generation;    /* bumped on close: CQEs of an older socket are stale */
    bool recv_armed;        /* a multishot recv is outstanding on fd */
    bool fixed_file;        /* fd is also in the ring's file table, at index id */
    bool kernel_timestamps; /* receives carry SO_TIMESTAMPING arrival times */
    struct msghdr recv_msg; /* multishot recvmsg layout: control space only */
    bool send_pending;
    bool response_started; /* any response byte arrived for this request */
    /* The arrival time of the response's last read: a later read never gets an earlier one
     * (a read without a kernel timestamp takes the reap time, which can be after the next
     * read's kernel time; the real-to-monotonic offset is resynchronised as the run goes). */
    int64_t last_arrival_ns;
    uint32_t requests_on_socket; /* how many requests this socket has carried */
    struct record *record;       /* the request in flight, or NULL */
    int64_t deadline_ns;         /* request timeout, 0 = none */
    int64_t cancel_ns;           /* when to cancel this request, 0 = never */
    bool cancel_planned;         /* cancel cancel_delay after the request is sent */
    bool in_prefill;             /* counted in the shard's prefill_active */

    bool retried; /* this request was resent on a fresh socket */
    /* The request on the socket is a job's poll or download (a GET of job.path), not the
     * record's own body: the record's send times and connection stay the submission's. */
    bool follow_up;
    struct engine__job job;
    struct engine__session session;
    char request_id[40]; /* X-Request-ID of the request in flight */
    /* The headers that change per request (ENGINE__HEADER_*), after the
     * target's fixed head prefix (engine__shard.head_prefixes). */
    /* + Connection: close, + the signature's */
    struct http_header headers[ENGINE__REQUEST_HEADERS_MAX + 1 + ENGINE__SIGN_HEADERS];
    uint32_t header_count;
    bool closes_after; /* the request in flight is the last on its socket (conn_reuse) */
    /* The response's reader (wire/): its head buffer is header_buf, its body buffer `body`. */
    struct wire_reader wire;
    char *header_buf; /* response head bytes, ENGINE__HEADER_BYTES */
    char *body;       /* ENGINE__BODY_BYTES until handed to `wire`, which owns it after */

    char *head;          /* request line and headers, rewritten per request */
    struct iovec iov[4]; /* head, body, and a multipart body's file and tail */
    struct msghdr msg;

    /* HTTPS only (engine_tls.c). */
    struct tls_conn *tls;    /* the TLS session over fd; NULL for plain HTTP targets */
    size_t tls_request_len;  /* plaintext bytes of the request being written; 0 = none */
    size_t tls_written;      /* how many of them tls_conn_write() took */
    bool tls_send_in_flight; /* a send of tls_conn_pending() is outstanding */

    /* Through a proxy (engine_proxy.c). */
    size_t proxy_head_len;     /* bytes of the CONNECT request in head */
    size_t proxy_head_sent;    /* how many of them the kernel took */
    bool proxy_send_in_flight; /* a send of the CONNECT request is outstanding */
};

/* engine__head_prefix is one target's fixed request-head bytes; status is the
 * prefix's length or the -errno http_request_prefix_write() returned, which
 * fails every request to the target with its reason. */
struct engine__head_prefix {
    char *buf;
    struct http_request_prefix prefix;
    ssize_t status;
    /* With SigV4: the target's fixed headers the signature covers (engine_sign.c). */
    struct http_header *sign_headers;
    size_t sign_header_count;
};

/* engine__shard is one io_uring loop on one thread. Everything here is touched
 * only by the shard's thread, except the rings and the atomics. */
/* engine__watch is what the coordinator alone keeps about a shard for
 * engine_shard_live: the shard's thread never reads or writes it. */
struct engine__watch {
    uint64_t handed;      /* ordinals pushed onto the work ring */
    uint64_t returned;    /* records popped from the done ring */
    uint32_t waiting_max; /* most records one drain popped since the last report */
    int64_t last_cpu_ns;  /* the thread's CPU clock at the last report */
    int64_t last_wall_ns; /* the monotonic clock then */
    double cpu_fraction;  /* the last interval's CPU share, once cpu_measured */
    bool cpu_measured;
};

struct engine__shard {
    uint32_t id;
    uint32_t shard_count; /* shards in the run */
    const struct engine_config *config;
    struct wire_config config_wire; /* how config says responses are read */
    pthread_t thread;
    int cpu;       /* -1 = not pinned */
    bool realtime; /* the thread runs at a real-time policy (SCHED_FIFO or SCHED_RR) */

    struct engine_ring work;      /* coordinator -> shard: request ordinals (+1) */
    struct engine_ring done;      /* shard -> coordinator: finished records */
    struct engine_ring free;      /* coordinator -> shard: records to reuse */
    _Atomic bool no_more_work;    /* coordinator will push no more ordinals */
    _Atomic bool cancel;          /* end what is in flight as cancelled, start nothing */
    _Atomic bool draining;        /* start nothing more; let what is in flight finish */
    _Atomic bool ready;           /* init_status is set (0 or -errno) */
    _Atomic bool started;         /* the coordinator set the run's time zero */
    int64_t start_ns;             /* the run's time zero (set before started) */
    int64_t end_ns;               /* no request starts after this (set before started) */
    int64_t grace_end_ns;         /* requests still in flight then are cancelled */
    struct engine_work next_work; /* popped, not yet started (has_next_work) */
    bool has_next_work;
    /* Since when the run's limits (concurrency, its ramp, prefill concurrency) have been full,
     * as the last round of starts left them; 0 while they have room. Work that fell due since
     * then waits for a slot, as AIPerf's credits wait for one, and is not started once the
     * run's duration is over (engine_conn.c, work_expired). */
    int64_t limits_full_since_ns;
    int64_t next_deadline_check_ns;
    /* When the completions being handled were reaped: the time the shard saw
     * them, read once per batch rather than per completion. */
    int64_t reaped_ns;
    _Atomic bool exited;  /* shard loop has ended; all its records are in done */
    int64_t loop_wall_ns; /* how long the loop ran (set before exited) */
    int64_t loop_cpu_ns;  /* the thread's CPU time meanwhile */
    int64_t spin_ns;      /* of which spent spinning out the last microseconds before sends */
    int wake_fd;          /* coordinator's eventfd, written through io_uring */
    uint64_t wake_value;

    struct io_uring ring;
    bool ring_ready;
    struct io_uring_buf_ring *buf_ring;
    size_t buf_ring_bytes;
    char *buffers;
    uint32_t buffer_count;
    uint32_t buffer_bytes;
    uint32_t buffers_to_publish; /* recycled this turn, published once per turn */

    struct response_scratch *json_scratch; /* JSON tokens for large bodies, shared by conns */
    /* Per target, the request head's fixed part, validated and written once:
     * request line, Host, the config's headers, Proxy-Authorization. */
    struct engine__head_prefix *head_prefixes;
    struct sigv4_signer *signer;      /* NULL unless the run signs with SigV4 */
    struct sigv4_signature signature; /* the request being sent's, copied into its head */
    /* Refreshed SigV4 credentials handed over by the coordinator (engine_sign.c): it writes
     * `rekey` only while rekey_ready is false and sets it (release); the shard reads `rekey`
     * only once it sees it set (acquire), then clears it. rekey_delivered is the coordinator's
     * own count of what it handed this shard. The last ENGINE__REKEY_KEPT sets taken stay in
     * `kept`, redacted from responses through rekey_secrets (the run's first set is in the
     * config's secrets). */
    _Atomic bool rekey_ready;
    uint64_t rekey_delivered;
    struct sigv4_credentials rekey;
    struct sigv4_credentials kept[ENGINE__REKEY_KEPT];
    uint32_t kept_count;
    struct record_secrets rekey_secrets;
    struct engine__conn *conns;
    uint32_t conn_count;
    uint32_t active_count;
    uint32_t prefill_limit;  /* this shard's share of engine_config.prefill_limit; 0 = none */
    uint32_t prefill_active; /* requests started that have no content event yet */
    uint32_t *idle_conns;    /* stack of connections without a request */
    uint32_t idle_count;
    uint32_t thinking_count;    /* connections waiting to send a session's next turn */
    int64_t next_think_ns;      /* earliest next_due_ns among them (INT64_MAX: none) */
    bool think_blocked;         /* a due turn waits for a record or a prefill slot */
    uint32_t job_waiting_count; /* connections waiting to poll a job */
    int64_t next_job_ns;        /* earliest next_poll_ns among them (INT64_MAX: none) */
    /* The config's extra headers and room for a proxy's, for the heads of job follow-ups. */
    struct http_header *fixed_headers;

    struct record *records; /* pool */
    struct record **free_records;
    uint32_t free_record_count;
    uint32_t record_count;
    uint64_t record_waits;    /* engine_run_stats.record_waits, this shard's */
    bool record_waiting_work; /* new work is waiting for a record now */
    bool record_waiting_turn; /* a session's due turn is waiting for a record now */
    char *record_memory;
    char *tls_plain; /* decrypted bytes of one read; NULL when no target is https */

    bool kernel_timestamps;          /* try SO_TIMESTAMPING on new sockets */
    bool fixed_files;                /* the ring has a file table, one slot per conn */
    int64_t real_to_mono_ns;         /* CLOCK_MONOTONIC minus CLOCK_REALTIME, re-sampled */
    bool clock_synced;               /* real_to_mono_ns has been set once */
    uint64_t kernel_timestamp_reads; /* reads stamped by the kernel */
    uint64_t user_timestamp_reads;   /* reads stamped when their completion was handled */
    uint32_t *send_stamps;           /* conns whose send_start_ns is taken at submit */
    uint32_t send_stamp_count;
    uint32_t unsignalled;         /* records pushed since the coordinator was last woken */
    int64_t first_unsignalled_ns; /* when the oldest of them was pushed */
    uint32_t wake_batch;          /* wake the coordinator once this many records wait */
    bool wake_in_flight;
    char init_error[256];
    int init_status;
    struct engine__watch watch; /* the coordinator's alone */
    /* Sockets this shard holds open now, for the live views: the shard alone writes it (a
     * relaxed store, no lock), the coordinator reads it at each progress report. */
    _Atomic uint32_t sockets_open;
};

/* engine__sockets_open_add counts a socket opened (+1) or closed (-1) on the shard's thread. */
static inline void engine__sockets_open_add(struct engine__shard *shard, int delta)
{
    uint32_t n = atomic_load_explicit(&shard->sockets_open, memory_order_relaxed);
    atomic_store_explicit(&shard->sockets_open, n + (uint32_t)delta, memory_order_relaxed);
}

/* engine__content_type is the Content-Type of the run's requests, or NULL: a GET (a
 * readiness probe) sends no body to describe. */
static inline const char *engine__content_type(const struct engine_config *config)
{
    if (config->method != NULL && strcmp(config->method, "POST") != 0) {
        return NULL;
    }
    return config->content_type != NULL ? config->content_type : "application/json";
}

/* engine__watch_report fills one engine_shard_live per shard from their
 * watches and hands them to sink->on_shards (if any), then starts the next
 * interval. Coordinator thread only. */
void engine__watch_report(struct engine__shard *shards, uint32_t count,
                          const struct engine_record_sink *sink);

/* engine__shard_init allocates a shard's pools and rings (not its io_uring,
 * which its own thread creates). Returns 0 or -ENOMEM. */
int engine__shard_init(struct engine__shard *shard, uint32_t id, uint32_t shard_count,
                       uint32_t conn_count, const struct engine_config *config, int wake_fd);

/* engine__shard_destroy frees what engine__shard_init allocated. */
void engine__shard_destroy(struct engine__shard *shard);

/* engine__shard_main is the shard thread's body. */
void *engine__shard_main(void *arg);

/* engine__ramped is `full` while no ramp runs, else the share of it that
 * `elapsed` of `ramp_ns` has reached, at least 1: the ramps of
 * --concurrency-ramp-duration and --prefill-concurrency-ramp-duration. */
static inline uint32_t engine__ramped(uint32_t full, int64_t ramp_ns, int64_t elapsed)
{
    if (ramp_ns <= 0 || elapsed >= ramp_ns) {
        return full;
    }
    uint32_t limit = (uint32_t)((double)full * (double)elapsed / (double)ramp_ns + 1.0);
    return limit < full ? limit : full;
}

/* engine__prefill_room reports whether one more request may wait for its
 * first token now: under the shard's prefill limit, as ramped. */
static inline bool engine__prefill_room(const struct engine__shard *shard, int64_t now)
{
    return shard->prefill_limit == 0 ||
           shard->prefill_active < engine__ramped(shard->prefill_limit,
                                                  shard->config->prefill_ramp_ns,
                                                  now - shard->start_ns);
}

/* engine__limits_allow reports whether the run's limits let one more request start now: an
 * idle connection, room under the (ramped) concurrency and prefill limits. */
static inline bool engine__limits_allow(const struct engine__shard *shard, int64_t now)
{
    return shard->idle_count > 0 &&
           shard->active_count < engine__ramped(shard->conn_count,
                                                shard->config->concurrency_ramp_ns,
                                                now - shard->start_ns) &&
           engine__prefill_room(shard, now);
}

/* engine__can_start reports whether the shard has what one more new request
 * needs now: the limits' room and a free record. Only then is due work a reason not to sleep:
 * what it waits for comes back by a completion or from the coordinator. */
static inline bool engine__can_start(const struct engine__shard *shard, int64_t now)
{
    return shard->free_record_count > 0 && engine__limits_allow(shard, now);
}

/* engine__shard_wake_ns is when the shard loop must next look up, at `now`:
 * the tick, a due coordinator wake-up, or a request or turn it can start
 * (less the spin margin). A time not after `now` means: poll, do not wait.
 * With DEFER_TASKRUN a polling shard reads no completions, so it polls only
 * for what it can act on without one. */
int64_t engine__shard_wake_ns(struct engine__shard *shard, int64_t now);

/* engine__prefill_done takes a request out of the shard's prefill count once
 * its first content arrives (or it ends). */
static inline void engine__prefill_done(struct engine__shard *shard, struct engine__conn *c)
{
    if (c->in_prefill) {
        c->in_prefill = false;
        shard->prefill_active--;
    }
}

/* engine__record_wait notes whether a request that could start now waits for
 * a free record (*waiting_now: the flag of one kind of start), counting each
 * wait once, when it begins. */
static inline void engine__record_wait(struct engine__shard *shard, bool *waiting_now, bool waiting)
{
    shard->record_waits += waiting && !*waiting_now;
    *waiting_now = waiting;
}

/* engine__thread_cpu_ns returns the calling thread's CPU time (user and
 * kernel) in ns. */
static inline int64_t engine__thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* engine__user_data packs an op kind, a connection index and its generation. */
static inline uint64_t engine__user_data(enum engine__op op, uint32_t conn, uint32_t generation)
{
    return (uint64_t)op | ((uint64_t)(conn & 0xffffffu) << 8) | ((uint64_t)generation << 32);
}

#endif
