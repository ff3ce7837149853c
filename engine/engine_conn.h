/*
 * engine_conn.h - the request state machine on a pooled connection: connect,
 * send, receive, parse (HTTP, then SSE, then the endpoint's JSON), and finish
 * the record. Internal to engine/.
 */
#ifndef RINGPERF_ENGINE_CONN_H
#define RINGPERF_ENGINE_CONN_H

#include "engine/engine_internal.h"

/* engine__conns_init allocates the shard's connections and their buffers. */
int engine__conns_init(struct engine__shard *shard);

/* engine__conns_destroy frees them. */
void engine__conns_destroy(struct engine__shard *shard);

/* engine__sign_init makes the shard's SigV4 signer and each target's signed headers when the
 * run signs (engine_config.sigv4_credentials), after the head prefixes. 0, -EINVAL (a
 * credential or scope the signer refuses) or -ENOMEM. */
int engine__sign_init(struct engine__shard *shard);

/* engine__sign_destroy frees the signer (the prefixes free their header lists). */
void engine__sign_destroy(struct engine__shard *shard);

/* engine__sign_request signs c's request with payload and appends the signature's headers
 * to c->headers at *count (views into shard->signature, valid until the next request is
 * signed). Returns SIGV4_OK or why the request cannot be signed. */
enum sigv4_status engine__sign_request(struct engine__shard *shard, struct engine__conn *c,
                                       const struct engine_payload *payload, uint32_t *count);

/* engine__conn_complete handles the completion of a connection's operation. */
void engine__conn_complete(struct engine__shard *shard, enum engine__op op, uint32_t conn,
                           uint32_t generation, struct io_uring_cqe *cqe);

/* engine__start_requests starts a request on every free connection for which
 * there is both an ordinal from the coordinator and a free record. */
void engine__start_requests(struct engine__shard *shard);

/* engine__work_pending reports whether the coordinator queued ordinals. */
bool engine__work_pending(struct engine__shard *shard);

/* engine__stamp_sends sets send_start_ns of the requests about to be submitted. */
void engine__stamp_sends(struct engine__shard *shard);

/* engine__check_deadlines fails requests past their timeout. */
void engine__check_deadlines(struct engine__shard *shard);

/* engine__fail_all ends every request in flight with the given outcome. */
void engine__fail_all(struct engine__shard *shard, enum record_outcome outcome, const char *type,
                      const char *message);

/* engine__close_all closes every socket. */
void engine__close_all(struct engine__shard *shard);

/* engine__get_sqe returns a submission entry, flushing a full queue once. */
struct io_uring_sqe *engine__get_sqe(struct engine__shard *shard);

/* engine__submissions_waiting reports whether this loop turn prepared
 * submissions the kernel has not seen yet (no syscall: the ring's indices). */
bool engine__submissions_waiting(struct engine__shard *shard);

/* engine__buffer returns the provided receive buffer with id bid. */
char *engine__buffer(struct engine__shard *shard, uint32_t bid);

/* engine__recycle_buffer gives a receive buffer back to the kernel; the shard
 * publishes recycled buffers once per loop turn. */
void engine__recycle_buffer(struct engine__shard *shard, uint32_t bid);

/* engine__finish ends the connection's request with an outcome; the socket
 * stays open for the next request only when keep_socket is true. */
void engine__finish(struct engine__shard *shard, struct engine__conn *c,
                    enum record_outcome outcome, bool keep_socket);

/* engine__fail ends the connection's request as an error and closes the socket. */
void engine__fail(struct engine__shard *shard, struct engine__conn *c, int code, const char *type,
                  const char *message);

/* engine__conn_sqe returns a submission entry tagged with the connection's op
 * and generation, or fails the connection's request and returns NULL. */
struct io_uring_sqe *engine__conn_sqe(struct engine__shard *shard, struct engine__conn *c,
                                      enum engine__op op);

/* engine__on_eof handles the end of a connection's byte stream (err 0) or a
 * receive error (a positive errno). */
void engine__on_eof(struct engine__shard *shard, struct engine__conn *c, int err);

/* engine__clock_sync re-samples the offset from CLOCK_REALTIME (kernel
 * timestamps) to CLOCK_MONOTONIC (everything else). */
void engine__clock_sync(struct engine__shard *shard);

/* engine__enable_rx_timestamps asks the kernel to timestamp what fd receives,
 * when the shard uses kernel timestamps. */
void engine__enable_rx_timestamps(struct engine__shard *shard, struct engine__conn *c, int fd);

/* engine__arm_recv starts the connection's multishot receive. */
void engine__arm_recv(struct engine__shard *shard, struct engine__conn *c);

/* engine__on_recv handles a receive completion. */
void engine__on_recv(struct engine__shard *shard, struct engine__conn *c, struct io_uring_cqe *cqe);

/* engine__close_socket closes the connection's socket (a request on it must
 * already be finished). */
void engine__close_socket(struct engine__shard *shard, struct engine__conn *c);

/* engine__sqe_on_socket points a prepared submission entry for c's socket at
 * its slot in the ring's file table when it has one: a registered file skips
 * the kernel's per-operation lookup and reference count of the descriptor,
 * which showed in profiles once per request. */
static inline void engine__sqe_on_socket(const struct engine__conn *c, struct io_uring_sqe *sqe)
{
    if (c->fixed_file) {
        sqe->fd = (int)c->id;
        sqe->flags |= IOSQE_FIXED_FILE;
    }
}

/* engine__response_bytes feeds one network read of the response, all of which
 * arrived at arrival_ns. It may finish the request. */
void engine__response_bytes(struct engine__shard *shard, struct engine__conn *c, const char *data,
                            size_t len, int64_t arrival_ns);

/* engine__response_eof handles the server closing the connection mid-request.
 * Returns true when that completed the response (a body read until close). */
bool engine__response_eof(struct engine__shard *shard, struct engine__conn *c);

/* engine__send_request writes the request head and sends the request in flight on c (over
 * TLS when c->tls is set). It may fail the request. */
void engine__send_request(struct engine__shard *shard, struct engine__conn *c);

/* engine__send_failed handles a failed send: the request is resent once on a fresh socket
 * when a kept-alive one turned out closed, else it fails with err (a positive errno). */
void engine__send_failed(struct engine__shard *shard, struct engine__conn *c, int err);

/* engine__request_sent records that the kernel took the request's last byte by sent_ns and
 * starts a planned cancellation's clock (which may cancel the request at once). */
void engine__request_sent(struct engine__shard *shard, struct engine__conn *c, int64_t sent_ns);

/* HTTPS (engine_tls.c). Every function below needs c->tls set, except
 * engine__tls_conn_init. */

/* engine__tls_conn_init gives a connection to an https target its tls_conn, and the shard
 * its plaintext scratch on first use; does nothing for plain targets. Returns 0 or -ENOMEM. */
int engine__tls_conn_init(struct engine__shard *shard, struct engine__conn *c);

/* engine__tls_conns_destroy frees every connection's tls_conn and the shard's scratch. */
void engine__tls_conns_destroy(struct engine__shard *shard);

/* engine__tls_on_connect starts the handshake on a freshly connected socket (the receive is
 * armed already); the request is sent once the handshake completes. */
void engine__tls_on_connect(struct engine__shard *shard, struct engine__conn *c);

/* engine__tls_send_request encrypts and sends the request that c->iov and c->msg.msg_iovlen
 * describe (head, then body). Returns false when it failed the request. */
bool engine__tls_send_request(struct engine__shard *shard, struct engine__conn *c);

/* engine__tls_on_send handles a send completion (res: bytes the kernel took, or -errno). */
void engine__tls_on_send(struct engine__shard *shard, struct engine__conn *c, int res);

/* engine__tls_on_bytes handles one network read of ciphertext, all of which arrived at
 * arrival_ns: the handshake, then plaintext for the response parser. It may finish the
 * request or close the socket. */
void engine__tls_on_bytes(struct engine__shard *shard, struct engine__conn *c, const char *data,
                          size_t len, int64_t arrival_ns);

/* engine__tls_eof_failed is asked when the server closed the socket mid-request: it returns
 * false after a clean close_notify (the caller goes on as over plain HTTP), else fails the
 * request (truncated stream, handshake refused) and returns true. */
bool engine__tls_eof_failed(struct engine__shard *shard, struct engine__conn *c);

/* Forward proxies (engine_proxy.c). */

/* engine__proxy_header sets *out to the Proxy-Authorization header of a target that goes
 * through a FORWARD proxy with credentials, and returns whether it has one. */
bool engine__proxy_header(const struct engine_target *target, struct http_header *out);

/* engine__connect_addr returns where c's socket connects: the proxy, if any, else the
 * target; *out_len is the address length. */
const struct sockaddr *engine__connect_addr(const struct engine__conn *c, socklen_t *out_len);

/* engine__connect_failed fails c's request after its connect failed with err (a positive
 * errno), naming the proxy when there is one. */
void engine__connect_failed(struct engine__shard *shard, struct engine__conn *c, int err);

/* engine__proxy_on_connect sends the CONNECT request on a freshly connected socket to the
 * proxy (the receive is armed already) and moves c to ENGINE__CONN_TUNNELLING. */
void engine__proxy_on_connect(struct engine__shard *shard, struct engine__conn *c);

/* engine__proxy_on_send handles the completion of a send of the CONNECT request (the first
 * send completion while c->proxy_send_in_flight). */
void engine__proxy_on_send(struct engine__shard *shard, struct engine__conn *c, int res);

/* engine__proxy_on_bytes reads the proxy's answer to CONNECT: a 2xx starts TLS through the
 * tunnel and hands it any bytes after the answer's head; anything else fails the request
 * with an error naming the proxy and its status. */
void engine__proxy_on_bytes(struct engine__shard *shard, struct engine__conn *c, const char *data,
                            size_t len, int64_t arrival_ns);

/* engine__proxy_on_eof fails the request of a connection whose proxy closed it (err 0) or
 * failed (a positive errno) before answering CONNECT. */
void engine__proxy_on_eof(struct engine__shard *shard, struct engine__conn *c, int err);

/* engine__start_request starts `work` on free connection c with record rec
 * (taken from the shard's free records): sends it, connecting first when the
 * connection has no socket. */
void engine__start_request(struct engine__shard *shard, struct engine__conn *c, int64_t now,
                           const struct engine_work *work, struct record *rec);

/* ---- Multi-turn sessions (engine_session.c) ---- */

/* engine__session_init allocates a connection's session state when the run
 * has sessions. Returns 0 or -1 (out of memory). */
int engine__session_init(struct engine__conn *c, const struct engine_config *config);

/* engine__session_destroy frees it. */
void engine__session_destroy(struct engine__conn *c);

/* engine__session_begin starts session work->ordinal on free connection c:
 * its first turn now (or at the work's due time), or, user-centric, when the
 * user's next turn is due. Needs a free record. */
void engine__session_begin(struct engine__shard *shard, struct engine__conn *c,
                           const struct engine_work *work);

/* engine__session_turn_ended takes connection c back after its request (rec)
 * ended: it waits to send the session's next turn, or returns to the idle
 * connections when the session is over (or was never one). */
void engine__session_turn_ended(struct engine__shard *shard, struct engine__conn *c,
                                const struct record *rec);

/* engine__session_last_turn reports whether the turn connection c's session
 * is on is its last: the session has no more turns, or the ordinal limit
 * stops it there. */
bool engine__session_last_turn(const struct engine__shard *shard, const struct engine__conn *c);

/* engine__sessions_resume sends the turns whose think time is over. */
void engine__sessions_resume(struct engine__shard *shard);

#endif
