/*
 * engine_tls.c - HTTPS: the engine's socket operations carry TLS records that tls/ encrypts
 * and decrypts in memory, so io_uring keeps owning every socket operation and the HTTP and SSE
 * parsers see plaintext exactly as they do over plain HTTP.
 *
 * Per connection: connect, then tls_conn_begin() queues the ClientHello; received bytes drive
 * the handshake; once it completes the request's plaintext (head, then body) is encrypted into
 * the connection's send buffer; at most one send of tls_conn_pending() is in flight, and its
 * completion consumes what the kernel took and sends what has been queued since. After the
 * handshake every read is decrypted into the shard's plaintext scratch and handed to the
 * response parser with the arrival time of the network read it came in, so per-token timing
 * means the same as over plain HTTP.
 */
#include "engine/engine_conn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tls/tls.h"

/* One TLS record's plaintext at most; a network read that decrypts to more is handed to the
 * response parser in several pieces, all with the read's arrival time. */
#define TLS_PLAIN_BYTES (16 * 1024)

int engine__tls_conn_init(struct engine__shard *shard, struct engine__conn *c)
{
    if (c->target->tls == NULL) {
        return 0;
    }
    if (shard->tls_plain == NULL) {
        shard->tls_plain = malloc(TLS_PLAIN_BYTES);
        if (shard->tls_plain == NULL) {
            return -ENOMEM;
        }
    }
    return tls_conn_new(c->target->tls, &c->tls);
}

void engine__tls_conns_destroy(struct engine__shard *shard)
{
    for (uint32_t i = 0; i < shard->conn_count; i++) {
        tls_conn_free(shard->conns[i].tls);
        shard->conns[i].tls = NULL;
    }
    free(shard->tls_plain);
    shard->tls_plain = NULL;
}

/* fail_tls ends the connection's request (if any) with the TLS failure st and closes the
 * socket. */
static void fail_tls(struct engine__shard *shard, struct engine__conn *c, enum tls_status st)
{
    if (c->record == NULL) {
        engine__close_socket(shard, c);
        return;
    }
    if (st < TLS_ERR_FIRST) {
        /* Only a handshake whose client certificate chain overflows the send buffer, or a
         * peer that breaks the protocol after it, gets here. */
        engine__fail(shard, c, 0, tls_status_error_type(TLS_ERR_HANDSHAKE),
                     "TLS with the server stalled: the client certificate chain (--tls-cert) "
                     "does not fit the connection's TLS send buffer");
        return;
    }
    engine__fail(shard, c, 0, tls_status_error_type(st), tls_conn_error_message(c->tls));
}

/* flush sends what the TLS connection has queued, unless a send is in flight already (its
 * completion sends the rest). */
static void flush(struct engine__shard *shard, struct engine__conn *c)
{
    const char *data = NULL;
    size_t len = tls_conn_pending(c->tls, &data);
    if (c->tls_send_in_flight || c->fd < 0 || len == 0) {
        return;
    }
    struct io_uring_sqe *sqe = engine__conn_sqe(shard, c, ENGINE__OP_SEND);
    if (sqe == NULL) {
        return;
    }
    /* The view stays put until tls_conn_consume(): later writes only append after it. */
    io_uring_prep_send(sqe, c->fd, data, len, MSG_NOSIGNAL);
    engine__sqe_on_socket(c, sqe);
    c->tls_send_in_flight = true;
}

/* write_request encrypts as much of the request's unwritten plaintext (c->iov: head, then
 * the body's pieces) as the send buffer takes. Returns false when it failed the request. */
static bool write_request(struct engine__shard *shard, struct engine__conn *c)
{
    while (c->tls_written < c->tls_request_len) {
        size_t off = c->tls_written;
        size_t i = 0;
        while (i + 1 < c->msg.msg_iovlen && off >= c->iov[i].iov_len) {
            off -= c->iov[i++].iov_len;
        }
        const char *data = (const char *)c->iov[i].iov_base + off;
        size_t left = c->iov[i].iov_len - off;
        size_t used = 0;
        enum tls_status st = tls_conn_write(c->tls, data, left, &used);
        c->tls_written += used;
        if (st == TLS_WANT_WRITE || (st == TLS_OK && used < left)) {
            return true; /* the send buffer is full: the send completion resumes here */
        }
        if (st != TLS_OK) {
            fail_tls(shard, c, st);
            return false;
        }
    }
    return true;
}

/* check_sent stamps the end of the request's send once all of its plaintext was encrypted
 * and the kernel took every byte queued so far. */
static void check_sent(struct engine__shard *shard, struct engine__conn *c)
{
    const char *data = NULL;
    if (c->record == NULL || c->tls_request_len == 0 || c->tls_written < c->tls_request_len ||
        c->tls_send_in_flight || tls_conn_pending(c->tls, &data) > 0) {
        return;
    }
    c->tls_request_len = 0;
    engine__request_sent(shard, c, engine_now_ns());
}

bool engine__tls_send_request(struct engine__shard *shard, struct engine__conn *c)
{
    c->tls_written = 0;
    c->tls_request_len = 0;
    for (size_t i = 0; i < c->msg.msg_iovlen; i++) {
        c->tls_request_len += c->iov[i].iov_len;
    }
    if (!write_request(shard, c)) {
        return false;
    }
    flush(shard, c);
    return c->record != NULL;
}

void engine__tls_on_connect(struct engine__shard *shard, struct engine__conn *c)
{
    c->tls_send_in_flight = false;
    c->tls_request_len = 0;
    c->tls_written = 0;
    if (c->fd < 0 || c->record == NULL) {
        return;
    }
    const char *host = c->target->tls_host;
    enum tls_status st = tls_conn_begin(c->tls, host, strnlen(host, sizeof(c->target->tls_host)));
    if (st != TLS_WANT_READ) {
        fail_tls(shard, c, st);
        return;
    }
    flush(shard, c); /* the ClientHello; the request waits for the handshake */
}

void engine__tls_on_send(struct engine__shard *shard, struct engine__conn *c, int res)
{
    c->tls_send_in_flight = false;
    if (res < 0) {
        if (c->record == NULL) {
            engine__close_socket(shard, c);
        } else {
            engine__send_failed(shard, c, -res);
        }
        return;
    }
    tls_conn_consume(c->tls, (size_t)res);
    if (c->record != NULL && c->tls_written < c->tls_request_len && !write_request(shard, c)) {
        return;
    }
    flush(shard, c);
    check_sent(shard, c);
}

/* deliver_plain hands decrypted response bytes to the parser, or drops a connection that
 * sent plaintext nobody asked for. */
static void deliver_plain(struct engine__shard *shard, struct engine__conn *c, const char *data,
                          size_t len, int64_t arrival_ns)
{
    if (c->record == NULL) {
        engine__close_socket(shard, c);
        return;
    }
    engine__response_bytes(shard, c, data, len, arrival_ns);
}

/* read_plaintext decrypts one read's ciphertext after the handshake. Idle kept-alive
 * connections come through here too: session tickets and close_notify are not errors. */
static void read_plaintext(struct engine__shard *shard, struct engine__conn *c, const char *in,
                           size_t in_len, int64_t arrival_ns)
{
    uint32_t generation = c->generation;
    char *plain = shard->tls_plain;
    size_t filled = 0;
    for (;;) {
        size_t used = 0;
        size_t n = 0;
        enum tls_status st =
            tls_conn_read(c->tls, in, in_len, &used, plain + filled, TLS_PLAIN_BYTES - filled, &n);
        in += used;
        in_len -= used;
        filled += n;
        /* Gather the whole read into one parser call where it fits, so that events in one
         * network read are seen as such whichever records carried them. */
        if (filled > 0 && (st != TLS_OK || filled == TLS_PLAIN_BYTES)) {
            deliver_plain(shard, c, plain, filled, arrival_ns);
            filled = 0;
            if (c->generation != generation) {
                return; /* the request ended and took the socket with it */
            }
        }
        if (st == TLS_OK) {
            continue;
        }
        if (st == TLS_CLOSED) {
            engine__on_eof(shard, c, 0);
        } else if (st != TLS_WANT_READ) {
            fail_tls(shard, c, st);
        }
        return;
    }
}

void engine__tls_on_bytes(struct engine__shard *shard, struct engine__conn *c, const char *data,
                          size_t len, int64_t arrival_ns)
{
    uint32_t generation = c->generation;
    size_t pos = 0;
    if (!tls_conn_handshake_done(c->tls)) {
        enum tls_status st = tls_conn_handshake(c->tls, data, len, &pos);
        if (st == TLS_WANT_READ) {
            flush(shard, c);
            return;
        }
        if (st != TLS_OK) {
            fail_tls(shard, c, st);
            return;
        }
        if (c->record == NULL) {
            engine__close_socket(shard, c);
            return;
        }
        engine__send_request(shard, c);
        if (c->generation != generation) {
            return;
        }
    }
    if (pos < len) {
        read_plaintext(shard, c, data + pos, len - pos, arrival_ns);
    }
    if (c->generation == generation && c->fd >= 0) {
        flush(shard, c);
    }
}

bool engine__tls_eof_failed(struct engine__shard *shard, struct engine__conn *c)
{
    enum tls_status st = tls_conn_eof(c->tls);
    if (st == TLS_CLOSED) {
        return false;
    }
    fail_tls(shard, c, st);
    return true;
}
