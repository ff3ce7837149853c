/*
 * engine.h - the load engine: one pinned io_uring loop per core ("shard") and a
 * coordinator that hands the shards work and takes finished records back.
 *
 * The coordinator runs on the caller's thread inside engine_run(). It gives each
 * shard request ordinals through a lock-free single-producer/single-consumer ring
 * and receives finished records through another, so the request path takes no
 * lock, makes no allocation and issues no syscall of its own: every socket
 * operation is an io_uring submission batched with the rest of its loop turn.
 *
 * Every request that is scheduled ends as exactly one record whose outcome is
 * success, error or cancelled; engine_run() returns only after every record has
 * been handed to the caller's sink.
 */
#ifndef RINGPERF_ENGINE_H
#define RINGPERF_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "endpoint/endpoint.h"
#include "response/response.h"
#include "http/http.h"
#include "record/record.h"

/* Limits applied when a field of engine_config is left zero. */
#define ENGINE_DEFAULT_MAX_EVENTS 4096
#define ENGINE_DEFAULT_MAX_TEXT_BYTES (256 * 1024)
#define ENGINE_DEFAULT_MAX_ERROR_BODY 2048
#define ENGINE_DEFAULT_RECV_BUFFER_BYTES (16 * 1024)
#define ENGINE_DEFAULT_HEADER_BYTES (16 * 1024)
#define ENGINE_DEFAULT_SSE_EVENT_BYTES (256 * 1024)
#define ENGINE_MAX_SHARDS 256

struct tls_context;
struct sigv4_credentials;

/* engine_proxy_mode is how a target is reached through a forward proxy. */
enum engine_proxy_mode {
    ENGINE_PROXY_NONE = 0, /* connect to the target itself */
    ENGINE_PROXY_FORWARD,  /* http:// targets: requests go to the proxy in absolute form
                              (engine_target.path holds "http://host:port/path") */
    ENGINE_PROXY_TUNNEL,   /* https:// targets: CONNECT tunnel, then TLS through it */
};

/* engine_proxy is the forward proxy a target goes through (mode NONE: none). */
struct engine_proxy {
    enum engine_proxy_mode mode;
    struct sockaddr_storage addr; /* resolved proxy address */
    socklen_t addr_len;
    char name[272];      /* "host:port" of the proxy, for error messages: no credentials */
    char authority[272]; /* TUNNEL: the CONNECT target, "host:port" ("[v6]:port") */
    /* "" or "Basic ..." sent as Proxy-Authorization (CONNECT requests, or every request in
     * FORWARD mode). A secret: never printed or exported. */
    char authorization[360];
};

/* engine_target is one server endpoint: where to connect and what to ask for. */
struct engine_target {
    struct sockaddr_storage addr; /* resolved server address (IPv4 or IPv6) */
    socklen_t addr_len;
    char host_header[272]; /* "host:port" as sent in the Host header */
    /* request target, e.g. "/v1/chat/completions?x=1"; through a FORWARD proxy the
     * absolute form "http://host:port/v1/chat/completions?x=1" */
    char path[4400];
    /* https:// targets: the run's TLS context (tls/tls.h; borrowed, it must outlive
     * engine_run) and the server name for SNI and certificate checks (the URL's bare
     * host). tls NULL = plain HTTP. */
    struct tls_context *tls;
    char tls_host[256];
    struct engine_proxy proxy; /* zero: no proxy */
    /* "" or "Basic ..." from the URL's user:password@, sent as Authorization on every
     * request to this target. A secret: never printed or exported. */
    char authorization[360];
};

/* engine_target_set_path sets t's request target to `path` ("/...", with any
 * query): as it is, or in absolute form through a forward proxy, which learns
 * the server from the request line (t's proxy must be set first). A path
 * too long for t->path is cut. */
void engine_target_set_path(struct engine_target *t, const char *path);

/* engine_payload is one request body, prepared before the run: `body`, then, for a multipart
 * body cut around its file, `file` and `tail` (NULL/0: none), sent in that order from where
 * they lie, so that a file's bytes are never copied into a body. */
struct engine_payload {
    const char *body;
    size_t body_len;
    const void *file;
    size_t file_len;
    const char *tail;
    size_t tail_len;
};

/* engine_schedule says when each request of an open-loop run is due.
 * offset_ns(ctx, k) returns the due time of this process's k-th request
 * (k = 0, 1, ...) in nanoseconds after the run's start; offsets never
 * decrease. Called only on the coordinator's thread. */
struct engine_schedule {
    int64_t (*offset_ns)(void *ctx, uint64_t k);
    void *ctx;
};

/* engine_turn_reply is the assistant's answer to one earlier turn of a
 * session: the output text its record kept (a view, valid during the call it
 * is passed to). Empty when that turn failed or was cancelled. */
struct engine_turn_reply {
    const char *text;
    size_t len;
};

/* engine_turn_body is the body of one turn, as a session's turn_body callback
 * returns it: a view of memory the callback's ctx owns (owned false), or a
 * malloc'd buffer the engine frees once the turn is sent (owned true). */
struct engine_turn_body {
    const char *body;
    size_t len;
    bool owned;
};

/* engine_sessions turns the run into multi-turn sessions. The coordinator
 * hands out session numbers (ordinal_base + k * ordinal_stride, k = 0, 1, ...)
 * where a single-turn run hands out request ordinals; one connection then runs
 * the session's turns in order, each after the previous one ended and its
 * think time passed, so `concurrency` counts sessions in flight (AIPerf:
 * "keeps N sessions in flight"). An open-loop schedule times session starts.
 *
 * The callbacks are called on shard threads, concurrently: ctx must be
 * read-only for the run. */
struct engine_sessions {
    /* turn_count returns how many turns session s has (at least 1). */
    uint32_t (*turn_count)(void *ctx, uint64_t session);
    /* first_ordinal returns the request ordinal of turn 0 of session s; turn t
     * has ordinal first + t. Ordinals of different sessions never overlap. */
    uint64_t (*first_ordinal)(void *ctx, uint64_t session);
    /* think_ns returns the delay between the end of turn t-1 and the start of
     * turn t (t >= 1). */
    int64_t (*think_ns)(void *ctx, uint64_t session, uint32_t turn);
    /* turn_body writes turn t's body into *out, given the replies to turns
     * 0..t-1 (replies[k], t of them). Returns 0, or -1 with a message in err:
     * the turn then ends as an error record. */
    int (*turn_body)(void *ctx, uint64_t session, uint32_t turn,
                     const struct engine_turn_reply *replies, struct engine_turn_body *out,
                     char *err, size_t errcap);
    void *ctx;
    bool keep_replies;      /* turn_body reads the replies (live history) */
    uint64_t ordinal_limit; /* turns with an ordinal at or past this are not sent; 0 = none */
    uint64_t session_limit; /* sessions this process starts at most; 0 = no limit */
    /* User-centric pacing (AIPerf's --user-centric-rate): each connection is a
     * user that sends a turn every user_gap_ns, or at once when the previous
     * reply came later, staggered so the run starts in steady state. Think
     * times are then unused. 0 = off. */
    int64_t user_gap_ns;
};

/* engine_jobs makes every request an asynchronous job (endpoint types that poll:
 * video_generation, OpenAI's and SGLang's /v1/videos). The request's body submits the job
 * (POST), whose answer names it ("id"); the connection that carried it then keeps the record
 * and polls GET <path>/<id> every poll_interval_ns (the first poll at once, as AIPerf does)
 * until the job is "completed" or "failed", and with `download` fetches the video (the job's
 * "url" on the same server, else GET <path>/<id>/content), reading it to its end without
 * keeping it. The polls are follow-up requests of the same record on the same connection,
 * sent by the shard's loop when they are due: between two polls the connection holds no
 * request and the shard sleeps or serves others, so polling blocks nothing and takes no
 * connection from the load (a job is one request in flight, as AIPerf counts it). */
struct engine_jobs {
    int64_t poll_interval_ns; /* AIPERF_HTTP_VIDEO_POLL_INTERVAL; 1 ns .. a day */
    bool download;            /* --download-video-content */
};

/* ENGINE_JOB_ID_BYTES_MAX bounds the id a submission's answer names: a longer one fails its
 * request (VideoGenerationError, saying so) rather than be polled cut short. */
#define ENGINE_JOB_ID_BYTES_MAX 256

/* ENGINE_JOB_POLL_INTERVAL_MAX_NS bounds engine_jobs.poll_interval_ns (a day), so that a poll's
 * due time cannot overflow the clock. engine_run refuses jobs with an interval outside 1 ns ..
 * this, with SigV4 (sigv4_credentials) or with discard_body. */
#define ENGINE_JOB_POLL_INTERVAL_MAX_NS (86400LL * 1000000000LL)

/* engine_conn_reuse says when a connection is closed (AIPerf's
 * --connection-reuse-strategy). The request a connection carries last says
 * `Connection: close`, so that the server closes its side too rather than
 * keep an idle connection; the client closes its own as soon as the
 * response is complete. */
enum engine_conn_reuse {
    ENGINE_REUSE_POOLED, /* kept alive for any later request (the default) */
    ENGINE_REUSE_NEVER,  /* one request per connection */
    ENGINE_REUSE_STICKY, /* one conversation per connection, closed after its last turn (a
                            request outside a session is a conversation of one turn) */
};

/* engine_record_hook is work the shards do on each record as it finishes, on
 * their own threads and before the coordinator sees it (ringperf turns it into
 * metrics there, so that the coordinator only writes the per-request files).
 * on_finish(ctx, shard, record) runs on the thread of shard `shard` (0 ..
 * engine_shard_count() - 1), at the same time as other shards' calls: ctx keeps
 * what it changes per shard. It must not block. Every record carries
 * annex_bytes of memory of its own in record.annex (allocated with the pool
 * before the run, 64-byte aligned), which on_finish may fill for the sink's
 * on_record to read; it keeps what was written there until the record's next
 * use. */
struct engine_record_hook {
    void (*on_finish)(void *ctx, uint32_t shard, struct record *record);
    void *ctx;
    size_t annex_bytes;
};

/* engine_config describes a run. Without a schedule it is a closed loop:
 * `concurrency` requests in flight, the next one sent as soon as one ends.
 * With a schedule, requests leave at their due times on up to `concurrency`
 * connections (a request due while all are busy waits, and its lateness is
 * recorded). All pointers are borrowed for the duration of engine_run(). */
struct engine_config {
    /* Servers, e.g. one per --url. Connection i of the pool always talks to
     * targets[i % target_count], so requests spread round-robin over them. */
    const struct engine_target *targets;
    size_t target_count;
    enum endpoint_type endpoint_type; /* how response bodies and stream events are read */
    /* The run's response reader (response_reader_init); NULL = a plain reader
     * for endpoint_type. */
    const struct response_reader *reader;
    bool streaming; /* ask for text/event-stream (Accept header) */
    /* The Accept header instead of the one `streaming` picks (SageMaker's operations take
     * application/json even when they stream); NULL = by streaming. */
    const char *accept;
    const char *method; /* request method; NULL = POST */
    /* The Content-Type of a POST body; NULL = application/json (e.g. "multipart/form-data;
     * boundary=..."). */
    const char *content_type;
    /* Read each response to its end without parsing its body: for control
     * requests and probes, whose answers are not benchmark data (a 2xx
     * status is a success whatever the body holds). */
    bool discard_body;
    /* Request ordinal i sends payloads[i % payload_count] (an empty body:
     * none, e.g. for GET). */
    const struct engine_payload *payloads;
    size_t payload_count;
    /* Every request is an asynchronous job (engine_jobs), or NULL. Not with SigV4 or
     * discard_body (engine_run refuses them). */
    const struct engine_jobs *jobs;
    /* Multi-turn sessions (payloads then unused), or NULL. */
    const struct engine_sessions *sessions;
    const char *authorization; /* full Authorization header value, or NULL */
    /* The header carrying a session's correlation id (AIPerf's
     * --session-header); NULL = X-Correlation-ID. */
    const char *session_header;
    const struct http_header *extra_headers;
    size_t extra_header_count;
    /* The credentials those headers carry (borrowed), redacted from every
     * response before its record leaves the shard; NULL: none. */
    const struct record_secrets *secrets;
    /* AWS SigV4: when set, every request is signed on its shard as it is sent, with these
     * credentials (borrowed; a secret) in scope sigv4_region/sigv4_service, and carries
     * X-Amz-Date, X-Amz-Content-Sha256, X-Amz-Security-Token (with a session token) and the
     * signature as Authorization (authorization and URL user:password are then not sent).
     * NULL = unsigned. */
    const struct sigv4_credentials *sigv4_credentials;
    const char *sigv4_region;
    const char *sigv4_service;
    /* With SigV4, sigv4_refresh (may be NULL) is asked on the coordinator every
     * sigv4_refresh_interval_ns (0: one second) for newer credentials: it returns true after
     * writing them into *out (the files they came from changed). Every shard takes them before
     * its next signature, and redacts them, and the ones before, from responses. The hook
     * returns only sets sigv4_credentials_check takes, and says why it refuses one (the engine
     * cannot print): a set that check refuses is not handed over, and the run signs on with
     * the one before. */
    bool (*sigv4_refresh)(void *ctx, struct sigv4_credentials *out);
    void *sigv4_refresh_ctx;
    int64_t sigv4_refresh_interval_ns;

    uint32_t shard_count; /* 0 = one per online CPU */
    bool pin_shards;      /* pin shard i to CPU i (mod CPU count) */
    /* Run each shard thread at SCHED_FIFO with this priority (1..99); 0 = the
     * default policy. A shard the kernel refuses runs at the policy it
     * inherited (engine_run_stats.realtime_shards counts those at a real-time one). */
    int realtime_priority;
    uint32_t concurrency; /* connections, and so requests in flight, across all shards */
    enum engine_conn_reuse conn_reuse;
    const struct engine_schedule *schedule; /* NULL = closed loop */
    /* At most this many requests may be waiting for their first content event
     * (AIPerf's --prefill-concurrency); 0 = no limit. */
    uint32_t prefill_limit;
    /* Closed loop: requests in flight grow linearly from one per shard to
     * `concurrency` over this long (AIPerf's --concurrency-ramp-duration). */
    int64_t concurrency_ramp_ns;
    /* The prefill limit grows the same way, from one per shard to
     * prefill_limit, over this long (--prefill-concurrency-ramp-duration). */
    int64_t prefill_ramp_ns;
    /* After engine_stop is requested, nothing new starts and requests in
     * flight may finish for this long before they are cancelled (0 = cancel
     * them at once). */
    int64_t stop_grace_ns;
    uint64_t request_count; /* 0 = no count limit (duration_ns must be set) */
    int64_t duration_ns;    /* 0 = none; no request starts after it */
    int64_t grace_ns;       /* after duration_ns: in-flight requests are cancelled
                               when this runs out; < 0 = wait for them forever */
    double cancel_fraction; /* 0..1: requests cancelled cancel_delay_ns after sending */
    int64_t cancel_delay_ns;
    uint64_t cancel_seed;        /* which requests are cancelled is a function of this and the
                                    ordinal, so every process of a run agrees */
    uint64_t request_timeout_ns; /* whole request, send to last byte; 0 = none */
    /* This process runs ordinals ordinal_base + k * ordinal_stride, so that
     * ordinals stay unique when several processes share one run. */
    uint64_t ordinal_base;
    uint64_t ordinal_stride; /* 0 is taken as 1 */
    /* Open-loop runs: the CLOCK_MONOTONIC instant the schedule's offsets count
     * from, when it is later than the moment the shards are ready, so that the
     * processes of one run start their schedules together; 0 = that moment. */
    int64_t schedule_start_ns;
    /* User-centric pacing (engine_sessions.user_gap_ns) when several
     * processes share the run: this process's user k (0 .. concurrency - 1)
     * is user user_offset + user_stride * k of user_total, and the users'
     * first turns are staggered over the gap by that global index, so the
     * users of different processes do not fire in phase. user_total 0 =
     * this process's users are all of them (offset 0, stride 1). */
    uint64_t user_offset;
    uint64_t user_stride;
    uint64_t user_total;
    /* Mixed into every X-Request-ID (see record_request_id). */
    uint64_t request_id_nonce;

    /* Stamp arrivals with the clock when completions are handled, instead of
     * the kernel's receive timestamps (the default where the kernel has them). */
    bool user_timestamps;

    size_t max_events_per_request; /* 0 = ENGINE_DEFAULT_MAX_EVENTS */
    size_t max_text_bytes;         /* per request, output text kept for token counts */
    size_t max_error_body;         /* bytes of a non-2xx body kept for the message */
    /* Per-record work on the shards' threads; NULL = none (borrowed). */
    const struct engine_record_hook *record_hook;
};

/* engine_shard_count returns how many shards engine_run(config) starts:
 * config->shard_count, or one per online CPU when 0, never more than the
 * concurrency, the prefill limit or ENGINE_MAX_SHARDS. */
uint32_t engine_shard_count(const struct engine_config *config);

/* engine_should_cancel reports whether the request with this ordinal is one
 * of the cancel_fraction that a run with cancel_seed cancels. */
bool engine_should_cancel(double cancel_fraction, uint64_t cancel_seed, uint64_t ordinal);

/* engine_run_stats describes a finished run as a whole. */
struct engine_run_stats {
    uint64_t kernel_timestamp_reads; /* reads whose arrival time came from the kernel */
    uint64_t user_timestamp_reads;   /* reads stamped by the clock when handled */
    uint32_t shard_count;
    /* The busiest shard: CPU time its thread used (user and kernel, io_uring
     * work included, the spins that pace open-loop sends left out) over the
     * time its loop ran. Near 1, the client, not the server, limited the load. */
    double busiest_shard_cpu_fraction;
    uint32_t busiest_shard;
    /* Shards that ran at a real-time policy: engine_config.realtime_priority,
     * or one the process was started with (`chrt -f`). */
    uint32_t realtime_shards;
    /* The coordinator ran on CPUs no shard was pinned to. */
    bool coordinator_apart;
    /* Times a shard had a request to start and a connection free for it, but
     * no free record: the coordinator still held every one of its pool (2 x
     * connections + 8), so the load waited on the client. One count per wait. */
    uint64_t record_waits;
    /* CPU time (user and kernel) of the shards' loops, all together, and of the
     * coordinator's thread over the same run, its sink's work included: the
     * coordinator's share of the client's work is the second over the sum. */
    int64_t shards_cpu_ns;
    int64_t coordinator_cpu_ns;
};

/* engine_shard_live is one shard as the coordinator sees it between two
 * progress calls, measured on the coordinator's side only (the shard's
 * thread CPU clock, the rings' far ends it owns, its own counts): nothing a
 * shard does changes for it. */
struct engine_shard_live {
    double cpu_fraction;      /* the shard thread's CPU time over wall time, pacing spins included;
                                 -1 before it could be read */
    uint64_t outstanding;     /* ordinals handed to the shard whose record is not back: queued or in
                                 flight */
    uint32_t records_waiting; /* most records one drain found waiting on the shard's done ring */
    uint32_t connections_open; /* sockets the shard holds open now (connecting or connected) */
};

/* engine_record_sink receives each finished record on the coordinator's thread.
 * The record is borrowed: it is reused after the sink returns. */
struct engine_record_sink {
    void (*on_record)(void *ctx, const struct record *record);
    /* Called about every progress_interval_ns, and once after the last
     * record, with the number of finished records (may be NULL). */
    void (*on_progress)(void *ctx, uint64_t finished, uint64_t total);
    /* Called just before each on_progress with the figures since the
     * previous call of shards first .. first + count - 1, in one or more
     * calls (may be NULL). rows is borrowed for the call. */
    void (*on_shards)(void *ctx, uint32_t first, const struct engine_shard_live *rows,
                      uint32_t count);
    /* Called once after the last record (may be NULL). */
    void (*on_finish)(void *ctx, const struct engine_run_stats *stats);
    void *ctx;
    int64_t progress_interval_ns;
};

/* engine_stop is a flag another thread (or a signal handler) sets to cancel the
 * run: requests in flight end as RECORD_CANCELLED and no new ones start. */
struct engine_stop {
    volatile int requested; /* an ENGINE_STOP_* level; written with __atomic builtins */
};

/* The levels of engine_stop.requested: 0 runs on; ENGINE_STOP_GRACEFUL sends nothing more and
 * gives the requests in flight engine_config.stop_grace_ns to finish; ENGINE_STOP_NOW cancels
 * them at once (a second Ctrl-C), so the run still ends with a record for each. */
#define ENGINE_STOP_GRACEFUL 1
#define ENGINE_STOP_NOW 2

/* engine_descriptors returns how many file descriptors engine_run(config)
 * holds open at most: every connection's socket, every shard's io_uring and
 * the coordinator's own. */
uint64_t engine_descriptors(const struct engine_config *config);

/* engine_probe checks that io_uring is usable here. Returns 0, or -errno with a
 * message in errbuf saying what failed and what to check. */
int engine_probe(char *errbuf, size_t errcap);

/* engine_run runs the whole load and returns when every scheduled request has
 * ended and reached the sink. Returns 0, or -errno with errbuf set when the run
 * could not start (bad config, io_uring unavailable, out of memory). Request
 * failures are records, not return values. stop may be NULL. */
int engine_run(const struct engine_config *config, const struct engine_record_sink *sink,
               struct engine_stop *stop, char *errbuf, size_t errcap);

/* engine_now_ns returns CLOCK_MONOTONIC in nanoseconds. */
int64_t engine_now_ns(void);

#endif
