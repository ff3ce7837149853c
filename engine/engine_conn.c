/*
 * engine_conn.c - one request on one pooled connection, from connect to the
 * finished record.
 */
#include "engine/engine_conn.h"

#include <assert.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int64_t wall_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int engine__conns_init(struct engine__shard *shard)
{
    const struct engine_config *config = shard->config;
    if (engine__head_prefixes_init(shard) != 0) {
        return -ENOMEM;
    }
    int ret = engine__sign_init(shard);
    if (ret != 0) {
        return ret;
    }
    /* A JSON token takes at least two bytes, so this many always suffice for
     * a body that fits the first body buffer; a larger one with more tokens
     * grows the scratch (response_parse_event). */
    shard->json_scratch = response_scratch_new(ENGINE__BODY_BYTES / 2 + 1);
    shard->conns = calloc(shard->conn_count, sizeof(*shard->conns));
    shard->idle_conns = calloc(shard->conn_count, sizeof(*shard->idle_conns));
    if (shard->json_scratch == NULL || shard->conns == NULL || shard->idle_conns == NULL) {
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < shard->conn_count; i++) {
        struct engine__conn *c = &shard->conns[i];
        c->id = i;
        c->fd = -1;
        /* Interleave across shards so that every target gets its share of the
         * pool however it is split among shards. */
        c->target_index =
            (uint32_t)(((size_t)i * shard->shard_count + shard->id) % config->target_count);
        c->target = &config->targets[c->target_index];
        c->head = malloc(ENGINE__HEAD_BYTES);
        c->body = malloc(ENGINE__BODY_BYTES);
        c->header_buf = malloc(ENGINE__HEADER_BYTES);
        if (c->head == NULL || c->body == NULL || c->header_buf == NULL ||
            engine__tls_conn_init(shard, c) != 0) {
            return -ENOMEM;
        }
        if (engine__session_init(c, config) != 0) {
            return -ENOMEM;
        }
        if (config->jobs != NULL && (c->job.paths = malloc(sizeof(*c->job.paths))) == NULL) {
            return -ENOMEM;
        }
        c->headers[ENGINE__HEADER_REQUEST_ID] = (struct http_header){
            .name = "X-Request-ID",
            .name_len = strlen("X-Request-ID"),
            .value = c->request_id,
        };
        /* Every request carries AIPerf's X-Correlation-ID and X-Session-Affinity: its
         * session's id, or, outside sessions, one of its own (send_request). */
        const char *name =
            config->session_header != NULL ? config->session_header : "X-Correlation-ID";
        c->headers[ENGINE__HEADER_CORRELATION_ID] = (struct http_header){
            .name = name,
            .name_len = strlen(name),
            .value = c->session.correlation_id,
        };
        c->headers[ENGINE__HEADER_SESSION_AFFINITY] = (struct http_header){
            .name = "X-Session-Affinity",
            .name_len = strlen("X-Session-Affinity"),
            .value = c->session.correlation_id,
        };
        c->header_count = 3;
        wire_reader_init(&c->wire, c->header_buf, ENGINE__HEADER_BYTES, ENGINE__MAX_HEADERS,
                         c->body, ENGINE__BODY_BYTES, shard->json_scratch);
        wire_reader_set_body_max(&c->wire, ENGINE__BODY_BYTES_MAX);
        c->body = NULL; /* the reader's now: c->wire.body */
        /* Lowest ids on top of the stack, so a light load reuses few sockets. */
        shard->idle_conns[shard->idle_count++] = shard->conn_count - 1 - i;
    }
    return 0;
}

void engine__conns_destroy(struct engine__shard *shard)
{
    response_scratch_free(shard->json_scratch);
    shard->json_scratch = NULL;
    engine__sign_destroy(shard);
    engine__head_prefixes_destroy(shard);
    if (shard->conns == NULL) {
        return;
    }
    engine__tls_conns_destroy(shard);
    for (uint32_t i = 0; i < shard->conn_count; i++) {
        free(shard->conns[i].head);
        free(shard->conns[i].body);      /* NULL once handed to the reader */
        free(shard->conns[i].wire.body); /* the reader may have grown (moved) it */
        free(shard->conns[i].header_buf);
        free(shard->conns[i].job.paths);
        engine__session_destroy(&shard->conns[i]);
    }
    free(shard->conns);
    free(shard->idle_conns);
    shard->conns = NULL;
}

static void close_socket(struct engine__shard *shard, struct engine__conn *c)
{
    if (c->fixed_file) {
        /* The table holds its own reference: without this the socket would
         * outlive close() until the slot is reused. */
        int none = -1;
        io_uring_register_files_update(&shard->ring, c->id, &none, 1);
        c->fixed_file = false;
    }
    if (c->fd >= 0) {
        /* shutdown() ends the outstanding multishot recv with an EOF; its
         * completion then carries the old generation and is ignored. */
        shutdown(c->fd, SHUT_RDWR);
        close(c->fd);
        c->fd = -1;
        engine__sockets_open_add(shard, -1);
    }
    c->generation++;
    c->recv_armed = false;
    c->state = ENGINE__CONN_CLOSED;
    c->requests_on_socket = 0;
}

static void finish_record(struct engine__shard *shard, struct engine__conn *c,
                          enum record_outcome outcome, bool keep_socket)
{
    struct record *rec = c->record;
    if (rec->end_ns == 0) {
        rec->end_ns = engine_now_ns();
    }
    if (rec->send_end_ns == 0 && rec->headers_ns != 0) {
        rec->send_end_ns = rec->headers_ns;
    }
    rec->outcome = outcome;
    /* A server may echo the credentials it was sent: they are never stored. */
    record_redact(rec, shard->config->secrets);
    record_redact(rec, &shard->rekey_secrets); /* refreshed SigV4 credentials, if any */
    const struct engine_record_hook *hook = shard->config->record_hook;
    if (hook != NULL) {
        hook->on_finish(hook->ctx, shard->id, rec);
    }
    engine__prefill_done(shard, c);
    /* The done ring holds every record of the shard's pool, so this cannot fail. */
    bool pushed = engine_ring_push_ptr(&shard->done, rec);
    assert(pushed);
    (void)pushed; /* unused where NDEBUG drops the assert */
    if (shard->unsignalled++ == 0) {
        /* It has waited since it ended; no clock read of its own. */
        shard->first_unsignalled_ns = rec->end_ns;
    }
    c->record = NULL;
    c->deadline_ns = 0;
    c->follow_up = false;
    engine__job_end(shard, c);
    shard->active_count--;
    if (keep_socket && c->fd >= 0 && !c->closes_after) {
        c->state = ENGINE__CONN_IDLE;
    } else {
        close_socket(shard, c);
    }
    engine__session_turn_ended(shard, c, rec);
}

static void fail_record(struct engine__shard *shard, struct engine__conn *c,
                        enum record_outcome outcome, int code, const char *type, const char *format,
                        ...) __attribute__((format(printf, 6, 7)));

static void fail_record(struct engine__shard *shard, struct engine__conn *c,
                        enum record_outcome outcome, int code, const char *type, const char *format,
                        ...)
{
    struct record *rec = c->record;
    rec->error_code = code;
    snprintf(rec->error_type, sizeof(rec->error_type), "%s", type);
    va_list args;
    va_start(args, format);
    vsnprintf(rec->error_message, sizeof(rec->error_message), format, args);
    va_end(args);
    if (outcome == RECORD_CANCELLED) {
        rec->cancel_ns = engine_now_ns();
    }
    finish_record(shard, c, outcome, false);
}

/* conn_sqe returns a submission entry tagged with the connection's op and
 * generation (liburing's prep helpers leave user_data alone), or fails the
 * connection's request and returns NULL. */
struct io_uring_sqe *engine__conn_sqe(struct engine__shard *shard, struct engine__conn *c,
                                      enum engine__op op)
{
    struct io_uring_sqe *sqe = engine__get_sqe(shard);
    if (sqe == NULL) {
        if (c->record != NULL) {
            fail_record(shard, c, RECORD_ERROR, 0, "EngineError", "submission queue exhausted");
        }
        return NULL;
    }
    io_uring_sqe_set_data64(sqe, engine__user_data(op, c->id, c->generation));
    return sqe;
}

/* submit_sendmsg sends what c->msg still describes. */
static bool submit_sendmsg(struct engine__shard *shard, struct engine__conn *c)
{
    struct io_uring_sqe *sqe = engine__conn_sqe(shard, c, ENGINE__OP_SEND);
    if (sqe == NULL) {
        return false;
    }
    io_uring_prep_sendmsg(sqe, c->fd, &c->msg, MSG_NOSIGNAL);
    engine__sqe_on_socket(c, sqe);
    return true;
}

/* submit_request sends the request c->iov describes. One that fits in the
 * head buffer is made contiguous there and goes as a plain send: it skips the
 * msghdr and iovec copies of a sendmsg, which showed in profiles at high
 * request rates. A short send continues through submit_sendmsg either way. */
static bool submit_request(struct engine__shard *shard, struct engine__conn *c)
{
    size_t head_len = c->iov[0].iov_len;
    size_t body_len = c->msg.msg_iovlen > 1 ? c->iov[1].iov_len : 0;
    /* A multipart body's file goes out from where it lies, never copied. */
    if (c->msg.msg_iovlen > 2 || body_len > ENGINE__HEAD_BYTES - head_len) {
        return submit_sendmsg(shard, c);
    }
    if (body_len > 0) {
        memcpy(c->head + head_len, c->iov[1].iov_base, body_len);
    }
    c->iov[0].iov_len = head_len + body_len;
    c->msg.msg_iovlen = 1;
    struct io_uring_sqe *sqe = engine__conn_sqe(shard, c, ENGINE__OP_SEND);
    if (sqe == NULL) {
        return false;
    }
    io_uring_prep_send(sqe, c->fd, c->head, head_len + body_len, MSG_NOSIGNAL);
    engine__sqe_on_socket(c, sqe);
    return true;
}

/* closes_after reports whether the request about to be sent is the last its
 * connection carries (engine_conn_reuse). */
static bool closes_after(const struct engine__shard *shard, const struct engine__conn *c)
{
    switch (shard->config->conn_reuse) {
    case ENGINE_REUSE_NEVER:
        return true;
    case ENGINE_REUSE_STICKY:
        return !c->record->in_session || engine__session_last_turn(shard, c);
    case ENGINE_REUSE_POOLED:
    default:
        return false;
    }
}

/* set_iovecs points c's message at the head and the payload's pieces that are not empty. */
static void set_iovecs(struct engine__conn *c, size_t head_len, const struct engine_payload *p)
{
    size_t n = 0;
    c->iov[n++] = (struct iovec){.iov_base = c->head, .iov_len = head_len};
    const struct iovec pieces[] = {{(void *)p->body, p->body_len},
                                   {(void *)p->file, p->file_len},
                                   {(void *)p->tail, p->tail_len}};
    for (size_t i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
        if (pieces[i].iov_len > 0) {
            c->iov[n++] = pieces[i];
        }
    }
    c->msg = (struct msghdr){.msg_iov = c->iov, .msg_iovlen = n};
}

static void send_request(struct engine__shard *shard, struct engine__conn *c)
{
    const struct engine_config *config = shard->config;
    struct record *rec = c->record;
    struct engine_payload session_payload;
    const struct engine_payload *payload = &session_payload;
    if (c->follow_up) {
        session_payload = (struct engine_payload){0}; /* a job's poll or download: a GET */
    } else if (!rec->in_session) {
        payload = &config->payloads[rec->payload_index];
    } else if (c->session.body.body != NULL) {
        session_payload =
            (struct engine_payload){.body = c->session.body.body, .body_len = c->session.body.len};
    } else {
        fail_record(shard, c, RECORD_ERROR, 0, "PayloadError", "%s", c->session.error);
        return;
    }
    c->headers[ENGINE__HEADER_REQUEST_ID].value_len = record_request_id(
        config->request_id_nonce, rec->ordinal, c->request_id, sizeof(c->request_id));
    if (!rec->in_session) {
        /* A request outside sessions is a session of one turn, as each of AIPerf's
         * single-turn credits has a correlation id of its own. */
        size_t id_len =
            record_correlation_id(config->request_id_nonce, rec->ordinal, c->session.correlation_id,
                                  sizeof(c->session.correlation_id));
        c->headers[ENGINE__HEADER_CORRELATION_ID].value_len = id_len;
        c->headers[ENGINE__HEADER_SESSION_AFFINITY].value_len = id_len;
    }
    uint32_t header_count = c->header_count;
    c->closes_after = closes_after(shard, c);
    if (c->closes_after) {
        c->headers[header_count++] = (struct http_header){.name = "Connection",
                                                          .name_len = strlen("Connection"),
                                                          .value = "close",
                                                          .value_len = 5};
    }
    if (shard->signer != NULL) {
        enum sigv4_status st = engine__sign_request(shard, c, payload, &header_count);
        if (st != SIGV4_OK) {
            fail_record(shard, c, RECORD_ERROR, 0, "RequestError",
                        "cannot sign the request with SigV4: %s", sigv4_status_name(st));
            return;
        }
    }
    const struct engine__head_prefix *prefix = &shard->head_prefixes[c->target_index];
    struct http_request_prefix follow_prefix;
    const struct http_request_prefix *head_prefix = &prefix->prefix;
    ssize_t head_len = prefix->status;
    if (c->follow_up) {
        /* Written in place: a follow-up's path is the job's own. */
        head_len = engine__head_prefix_write(shard, c->target, "GET", c->job.paths->now, c->head,
                                             ENGINE__HEAD_BYTES, &follow_prefix);
        head_prefix = &follow_prefix;
    }
    size_t content_len = payload->body_len + payload->file_len + payload->tail_len;
    if (head_len >= 0) {
        head_len = http_request_head_finish(c->head, ENGINE__HEAD_BYTES, head_prefix, content_len,
                                            c->headers, header_count);
    }
    if (head_len < 0) {
        fail_record(shard, c, RECORD_ERROR, 0, "RequestError",
                    "cannot write the request head (%s): check --header values and lengths",
                    strerror((int)-head_len));
        return;
    }
    if (rec->http.connect_start_ns != 0 && rec->http.connect_end_ns == 0) {
        /* Sent from the completion that made the new connection ready (TCP connect, or the
         * last step of the TLS handshake), reaped at reaped_ns. */
        rec->http.connect_end_ns = shard->reaped_ns;
    }
    if (c->follow_up) {
        /* The job's exchange is every request it took. */
        rec->http.bytes_sent += (uint64_t)head_len + content_len;
        rec->http.sends++;
    } else {
        rec->http.bytes_sent = (uint64_t)head_len + content_len;
        rec->http.sends = 1;
    }
    set_iovecs(c, (size_t)head_len, payload);
    if (c->tls != NULL) {
        if (!engine__tls_send_request(shard, c)) {
            return;
        }
    } else if (!submit_request(shard, c)) {
        return;
    }
    c->requests_on_socket++;
    if (!c->follow_up) {
        rec->reused_connection = c->requests_on_socket > 1;
        shard->send_stamps[shard->send_stamp_count++] = c->id;
    }
}

static void open_and_connect(struct engine__shard *shard, struct engine__conn *c)
{
    int fd = socket(c->target->addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        fail_record(shard, c, RECORD_ERROR, 0, "ConnectionError", "socket: %s (raise ulimit -n?)",
                    strerror(errno));
        return;
    }
    int one = 1;
    /* Small request writes must leave at once, not wait for Nagle. */
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    engine__enable_rx_timestamps(shard, c, fd);
    c->fd = fd;
    engine__sockets_open_add(shard, 1);
    if (c->record != NULL && !c->follow_up) {
        c->record->http.connect_start_ns = engine_now_ns();
        c->record->http.connect_end_ns = 0;
    }
    c->fixed_file =
        shard->fixed_files && io_uring_register_files_update(&shard->ring, c->id, &fd, 1) == 1;
    c->state = ENGINE__CONN_CONNECTING;
    struct io_uring_sqe *sqe = engine__conn_sqe(shard, c, ENGINE__OP_CONNECT);
    if (sqe == NULL) {
        return;
    }
    socklen_t addr_len = 0;
    const struct sockaddr *addr = engine__connect_addr(c, &addr_len);
    io_uring_prep_connect(sqe, fd, addr, addr_len);
    engine__sqe_on_socket(c, sqe);
}

static void reset_request_state(struct engine__conn *c)
{
    wire_reader_reset(&c->wire);
    /* A job's submission and polls are read by engine_job.c, its download only counted. */
    c->wire.body_mode = c->job.phase == ENGINE__JOB_NONE       ? WIRE_BODY_READ
                        : c->job.phase == ENGINE__JOB_DOWNLOAD ? WIRE_BODY_DISCARD
                                                               : WIRE_BODY_HAND_OVER;
    c->response_started = false;
    c->last_arrival_ns = 0;
}

void engine__send_follow_up(struct engine__shard *shard, struct engine__conn *c)
{
    c->follow_up = true;
    c->retried = false;
    reset_request_state(c);
    if (c->fd >= 0) {
        c->state = ENGINE__CONN_ACTIVE;
        send_request(shard, c);
    } else {
        open_and_connect(shard, c);
    }
}

void engine__start_request(struct engine__shard *shard, struct engine__conn *c, int64_t now,
                           const struct engine_work *work, struct record *rec)
{
    const struct engine_config *config = shard->config;
    struct record_event *events = rec->events;
    char *text = rec->text;
    char *reasoning = rec->reasoning_text;
    void *annex = rec->annex;
    *rec = (struct record){0};
    rec->events = events;
    rec->text = text;
    rec->reasoning_text = reasoning;
    rec->annex = annex;
    rec->usage = RECORD_USAGE_NONE;
    rec->video_inference_s = RECORD_ABSENT;
    rec->video_peak_memory_mb = RECORD_ABSENT;
    rec->ordinal = work->ordinal;
    rec->shard_id = shard->id;
    rec->connection_id = c->id;
    rec->target_index = c->target_index;
    if (c->session.active) {
        rec->in_session = true;
        rec->session = c->session.session;
        rec->turn = c->session.turn;
    } else {
        rec->payload_index = (size_t)(work->ordinal % config->payload_count);
    }
    rec->scheduled_ns = work->due_ns != 0 ? work->due_ns : now;
    rec->http.dispatch_ns = now;
    c->record = rec;
    c->retried = false;
    c->follow_up = false;
    c->job.phase = config->jobs != NULL ? ENGINE__JOB_SUBMIT : ENGINE__JOB_NONE;
    c->cancel_ns = 0;
    c->in_prefill = true;
    shard->prefill_active++;
    c->cancel_planned =
        engine_should_cancel(config->cancel_fraction, config->cancel_seed, work->ordinal);
    c->deadline_ns = config->request_timeout_ns > 0 ? now + (int64_t)config->request_timeout_ns : 0;
    shard->active_count++;
    reset_request_state(c);
    if (c->state == ENGINE__CONN_IDLE) {
        c->state = ENGINE__CONN_ACTIVE;
        send_request(shard, c);
    } else {
        open_and_connect(shard, c);
    }
}

/* retry_on_fresh_socket resends a request whose kept-alive socket the server
 * had already closed: the request never reached it, so this is not a retry of
 * a failure the user should see. Done at most once per request. */
static bool retry_on_fresh_socket(struct engine__shard *shard, struct engine__conn *c)
{
    /* A follow-up's socket carried an earlier request when it carried more than this one. */
    bool reused = c->follow_up ? c->requests_on_socket > 1 : c->record->reused_connection;
    if (c->retried || c->response_started || !reused) {
        return false;
    }
    c->retried = true;
    close_socket(shard, c);
    if (!c->follow_up) {
        c->record->send_start_ns = 0;
        c->record->send_end_ns = 0;
        c->record->http.bytes_sent = 0;
        c->record->http.sends = 0;
    }
    reset_request_state(c);
    open_and_connect(shard, c);
    return true;
}

void engine__stamp_sends(struct engine__shard *shard)
{
    if (shard->send_stamp_count == 0) {
        return;
    }
    /* One clock read for every request leaving in this submission batch: they
     * all reach the kernel in the same io_uring_enter. */
    int64_t now = engine_now_ns();
    int64_t wall = wall_now_ns();
    for (uint32_t i = 0; i < shard->send_stamp_count; i++) {
        struct record *rec = shard->conns[shard->send_stamps[i]].record;
        if (rec != NULL && rec->send_start_ns == 0) {
            rec->send_start_ns = now;
            rec->wall_start_ns = wall;
        }
    }
    shard->send_stamp_count = 0;
}

/* cancel_request names the configured delay, not the measured one, as AIPerf
 * does: the error summary groups errors by their message, and one run's
 * cancellations are one kind of error. */
static void cancel_request(struct engine__shard *shard, struct engine__conn *c)
{
    double after_s = (double)shard->config->cancel_delay_ns / 1e9;
    fail_record(shard, c, RECORD_CANCELLED, 499, "RequestCancellationError",
                "Request was cancelled after %.3f seconds", after_s);
}

static void on_connect(struct engine__shard *shard, struct engine__conn *c, int res)
{
    if (res < 0) {
        engine__connect_failed(shard, c, -res);
        return;
    }
    c->state = ENGINE__CONN_ACTIVE;
    engine__arm_recv(shard, c);
    if (c->target->proxy.mode == ENGINE_PROXY_TUNNEL) {
        engine__proxy_on_connect(shard, c);
    } else if (c->tls != NULL) {
        engine__tls_on_connect(shard, c);
    } else if (c->record != NULL) {
        send_request(shard, c);
    }
}

static void on_send(struct engine__shard *shard, struct engine__conn *c, int res)
{
    if (c->record == NULL) {
        return;
    }
    if (res < 0) {
        engine__send_failed(shard, c, -res);
        return;
    }
    size_t sent = (size_t)res;
    size_t total = 0;
    for (size_t i = 0; i < c->msg.msg_iovlen; i++) {
        total += c->iov[i].iov_len;
    }
    if (sent < total) {
        /* A short send: move the iovecs past what went out and send the rest. */
        while (sent > 0 && c->msg.msg_iovlen > 0) {
            size_t step = sent < c->msg.msg_iov[0].iov_len ? sent : c->msg.msg_iov[0].iov_len;
            c->msg.msg_iov[0].iov_base = (char *)c->msg.msg_iov[0].iov_base + step;
            c->msg.msg_iov[0].iov_len -= step;
            sent -= step;
            if (c->msg.msg_iov[0].iov_len == 0) {
                c->msg.msg_iov++;
                c->msg.msg_iovlen--;
            }
        }
        c->record->http.sends++;
        submit_sendmsg(shard, c);
        return;
    }
    engine__request_sent(shard, c, shard->reaped_ns);
}

void engine__send_failed(struct engine__shard *shard, struct engine__conn *c, int err)
{
    if (retry_on_fresh_socket(shard, c)) {
        return;
    }
    fail_record(shard, c, RECORD_ERROR, 0, "ConnectionError", "send to %s: %s",
                c->target->host_header, strerror(err));
}

void engine__request_sent(struct engine__shard *shard, struct engine__conn *c, int64_t sent_ns)
{
    if (c->follow_up) {
        return; /* the record's send is its submission's */
    }
    c->record->send_end_ns = sent_ns;
    if (c->cancel_planned) {
        /* AIPerf's cancellation clock starts once the request is fully sent. */
        c->cancel_ns = c->record->send_end_ns + shard->config->cancel_delay_ns;
        if (shard->config->cancel_delay_ns <= 0) {
            cancel_request(shard, c);
        }
    }
}

void engine__on_eof(struct engine__shard *shard, struct engine__conn *c, int err)
{
    if (c->record == NULL || c->job.waiting) {
        /* The server closed an idle kept-alive connection (a job's next poll reconnects). */
        close_socket(shard, c);
        return;
    }
    if (c->state == ENGINE__CONN_TUNNELLING) {
        engine__proxy_on_eof(shard, c, err);
        return;
    }
    if (retry_on_fresh_socket(shard, c)) {
        return;
    }
    if (c->tls != NULL && err == 0 && engine__tls_eof_failed(shard, c)) {
        return;
    }
    if (err == 0 && engine__response_eof(shard, c)) {
        close_socket(shard, c);
        return;
    }
    fail_record(shard, c, RECORD_ERROR, 0, "ServerDisconnectedError",
                "connection closed by %s before the response was complete%s%s",
                c->target->host_header, err != 0 ? ": " : "", err != 0 ? strerror(err) : "");
}

void engine__conn_complete(struct engine__shard *shard, enum engine__op op, uint32_t conn,
                           uint32_t generation, struct io_uring_cqe *cqe)
{
    struct engine__conn *c = &shard->conns[conn];
    if (generation != c->generation) {
        /* A completion of a socket that was closed since: recycle its buffer. */
        if (op == ENGINE__OP_RECV && (cqe->flags & IORING_CQE_F_BUFFER) != 0) {
            engine__recycle_buffer(shard, cqe->flags >> IORING_CQE_BUFFER_SHIFT);
        }
        return;
    }
    switch (op) {
    case ENGINE__OP_CONNECT:
        if (c->record != NULL) {
            on_connect(shard, c, cqe->res);
        }
        break;
    case ENGINE__OP_SEND:
        if (c->proxy_send_in_flight) {
            engine__proxy_on_send(shard, c, cqe->res);
        } else if (c->tls != NULL) {
            engine__tls_on_send(shard, c, cqe->res);
        } else {
            on_send(shard, c, cqe->res);
        }
        break;
    case ENGINE__OP_RECV:
        engine__on_recv(shard, c, cqe);
        break;
    default:
        break;
    }
}

void engine__check_deadlines(struct engine__shard *shard)
{
    int64_t now = engine_now_ns();
    for (uint32_t i = 0; i < shard->conn_count; i++) {
        struct engine__conn *c = &shard->conns[i];
        if (c->record == NULL) {
            continue;
        }
        if (c->cancel_ns != 0 && now >= c->cancel_ns) {
            cancel_request(shard, c);
        } else if (now >= shard->grace_end_ns) {
            fail_record(shard, c, RECORD_CANCELLED, 499, "RequestCancellationError",
                        "Request was cancelled: still running when the benchmark duration and "
                        "grace period ended");
        } else if (c->deadline_ns != 0 && now >= c->deadline_ns && c->job.phase != 0) {
            /* AIPerf's own words and code for a job that outlived the request timeout. */
            fail_record(shard, c, RECORD_ERROR, 504, "TimeoutError",
                        "Video generation timed out after %.3f s (--request-timeout-seconds)",
                        (double)shard->config->request_timeout_ns / 1e9);
        } else if (c->deadline_ns != 0 && now >= c->deadline_ns) {
            fail_record(shard, c, RECORD_ERROR, 0, "TimeoutError",
                        "no complete response within %.3f s (--request-timeout-seconds)",
                        (double)shard->config->request_timeout_ns / 1e9);
        }
    }
}

void engine__fail_all(struct engine__shard *shard, enum record_outcome outcome, const char *type,
                      const char *message)
{
    for (uint32_t i = 0; i < shard->conn_count; i++) {
        struct engine__conn *c = &shard->conns[i];
        if (c->record != NULL) {
            fail_record(shard, c, outcome, outcome == RECORD_CANCELLED ? 499 : 0, type, "%s",
                        message);
        }
    }
}

void engine__close_all(struct engine__shard *shard)
{
    for (uint32_t i = 0; i < shard->conn_count; i++) {
        close_socket(shard, &shard->conns[i]);
    }
}

void engine__finish(struct engine__shard *shard, struct engine__conn *c,
                    enum record_outcome outcome, bool keep_socket)
{
    finish_record(shard, c, outcome, keep_socket);
}

void engine__fail(struct engine__shard *shard, struct engine__conn *c, int code, const char *type,
                  const char *message)
{
    fail_record(shard, c, RECORD_ERROR, code, type, "%s", message);
}

void engine__close_socket(struct engine__shard *shard, struct engine__conn *c)
{
    close_socket(shard, c);
}

void engine__send_request(struct engine__shard *shard, struct engine__conn *c)
{
    send_request(shard, c);
}
