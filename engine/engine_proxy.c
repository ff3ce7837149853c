/*
 * engine_proxy.c - forward proxies, as curl uses them: http:// targets are asked for in
 * absolute form on a connection to the proxy (only the connect address and one header
 * differ from the direct path); https:// targets get a CONNECT tunnel, and TLS then runs
 * through it exactly as over a direct socket.
 *
 * A tunnelled connection goes CONNECTING -> TUNNELLING (CONNECT sent, the proxy's answer
 * read with the http/ parser) -> ACTIVE (TLS handshake, then requests). The tunnel lives as
 * long as the socket, so kept-alive connections pay for CONNECT once.
 */
#include "engine/engine_conn.h"

#include <stdio.h>
#include <string.h>

bool engine__proxy_header(const struct engine_target *target, struct http_header *out)
{
    const struct engine_proxy *proxy = &target->proxy;
    if (proxy->mode != ENGINE_PROXY_FORWARD || proxy->authorization[0] == '\0') {
        return false;
    }
    *out = (struct http_header){
        .name = "Proxy-Authorization",
        .name_len = strlen("Proxy-Authorization"),
        .value = proxy->authorization,
        .value_len = strnlen(proxy->authorization, sizeof(proxy->authorization)),
    };
    return true;
}

const struct sockaddr *engine__connect_addr(const struct engine__conn *c, socklen_t *out_len)
{
    const struct engine_target *t = c->target;
    if (t->proxy.mode != ENGINE_PROXY_NONE) {
        *out_len = t->proxy.addr_len;
        return (const struct sockaddr *)&t->proxy.addr;
    }
    *out_len = t->addr_len;
    return (const struct sockaddr *)&t->addr;
}

void engine__connect_failed(struct engine__shard *shard, struct engine__conn *c, int err)
{
    char message[RECORD_ERROR_MESSAGE_BYTES];
    const struct engine_target *t = c->target;
    if (t->proxy.mode == ENGINE_PROXY_NONE) {
        snprintf(message, sizeof(message), "connect to %s: %s", t->host_header, strerror(err));
    } else {
        snprintf(
            message, sizeof(message),
            "connect to proxy %.160s (for %.160s): %s; check HTTP_PROXY/HTTPS_PROXY, or exempt "
            "the host with NO_PROXY",
            t->proxy.name, t->host_header, strerror(err));
    }
    engine__fail(shard, c, 0, "ConnectionError", message);
}

void engine_target_set_path(struct engine_target *t, const char *path)
{
    if (t->proxy.mode == ENGINE_PROXY_FORWARD) {
        snprintf(t->path, sizeof(t->path), "http://%s%s", t->host_header, path);
    } else {
        snprintf(t->path, sizeof(t->path), "%s", path);
    }
}

/* write_connect writes the CONNECT request into c->head; returns its length, or 0 when it
 * does not fit (it always does: the pieces are bounded far below ENGINE__HEAD_BYTES). */
static size_t write_connect(struct engine__conn *c)
{
    const struct engine_proxy *proxy = &c->target->proxy;
    bool auth = proxy->authorization[0] != '\0';
    int n =
        snprintf(c->head, ENGINE__HEAD_BYTES,
                 "CONNECT %s HTTP/1.1\r\nHost: %s\r\n%s%s%sUser-Agent: ringperf/" RINGPERF_VERSION
                 "\r\nProxy-Connection: Keep-Alive\r\n\r\n",
                 proxy->authority, proxy->authority, auth ? "Proxy-Authorization: " : "",
                 auth ? proxy->authorization : "", auth ? "\r\n" : "");
    return n > 0 && n < ENGINE__HEAD_BYTES ? (size_t)n : 0;
}

/* send_connect sends what is left of the CONNECT request. */
static void send_connect(struct engine__shard *shard, struct engine__conn *c)
{
    struct io_uring_sqe *sqe = engine__conn_sqe(shard, c, ENGINE__OP_SEND);
    if (sqe == NULL) {
        return;
    }
    io_uring_prep_send(sqe, c->fd, c->head + c->proxy_head_sent,
                       c->proxy_head_len - c->proxy_head_sent, MSG_NOSIGNAL);
    engine__sqe_on_socket(c, sqe);
    c->proxy_send_in_flight = true;
}

void engine__proxy_on_connect(struct engine__shard *shard, struct engine__conn *c)
{
    if (c->fd < 0 || c->record == NULL) {
        return;
    }
    c->proxy_head_len = write_connect(c);
    c->proxy_head_sent = 0;
    c->proxy_send_in_flight = false; /* a send on a socket closed since is stale */
    if (c->proxy_head_len == 0) {
        engine__fail(shard, c, 0, "ProxyError", "the CONNECT request does not fit its buffer");
        return;
    }
    /* The answer to CONNECT is read with the response parser, reset again once the tunnel
     * is up for the response to the request itself. */
    http_response_parser_reset(&c->wire.http);
    c->state = ENGINE__CONN_TUNNELLING;
    send_connect(shard, c);
}

void engine__proxy_on_send(struct engine__shard *shard, struct engine__conn *c, int res)
{
    c->proxy_send_in_flight = false;
    /* The proxy's answer can be reaped before this completion when both land in one batch:
     * the tunnel is then up already, and TLS owns the sends from here on. */
    if (c->record == NULL || c->state != ENGINE__CONN_TUNNELLING) {
        return;
    }
    if (res < 0) {
        char message[RECORD_ERROR_MESSAGE_BYTES];
        snprintf(message, sizeof(message), "send CONNECT to proxy %s: %s", c->target->proxy.name,
                 strerror(-res));
        engine__fail(shard, c, 0, "ConnectionError", message);
        return;
    }
    c->proxy_head_sent += (size_t)res;
    if (c->proxy_head_sent < c->proxy_head_len) {
        send_connect(shard, c);
    }
}

/* refused fails the request the proxy would not tunnel, saying why and what to do. */
static void refused(struct engine__shard *shard, struct engine__conn *c, int status)
{
    size_t reason_len = 0;
    const char *reason = http_response_reason(&c->wire.http, &reason_len);
    if (reason_len > 64) {
        reason_len = 64;
    }
    const char *hint = status == 407   ? ": give the proxy's credentials in the proxy URL "
                                         "(http://user:password@host:port)"
                       : status == 403 ? ": the proxy does not allow this host or port"
                                       : "";
    char message[RECORD_ERROR_MESSAGE_BYTES];
    snprintf(message, sizeof(message), "proxy %.160s refused CONNECT %.160s: %d %.*s%s",
             c->target->proxy.name, c->target->proxy.authority, status, (int)reason_len, reason,
             hint);
    engine__fail(shard, c, status, "ProxyError", message);
}

void engine__proxy_on_bytes(struct engine__shard *shard, struct engine__conn *c, const char *data,
                            size_t len, int64_t arrival_ns)
{
    if (c->record == NULL) {
        engine__close_socket(shard, c);
        return;
    }
    size_t used = 0;
    struct http_body_span body;
    enum http_parse_status st = http_response_feed(&c->wire.http, data, len, &used, &body);
    if (st == HTTP_NEED_MORE) {
        return;
    }
    if (st != HTTP_HEADERS_DONE) {
        char message[RECORD_ERROR_MESSAGE_BYTES];
        snprintf(message, sizeof(message), "proxy %s sent a malformed answer to CONNECT: %s",
                 c->target->proxy.name, http_parse_status_name(st));
        engine__fail(shard, c, 0, "ProxyError", message);
        return;
    }
    int status = http_response_status_code(&c->wire.http);
    if (status < 200 || status > 299) {
        refused(shard, c, status);
        return;
    }
    /* A 2xx to CONNECT has no body: what follows its head is the server's TLS. */
    uint32_t generation = c->generation;
    http_response_parser_reset(&c->wire.http);
    c->state = ENGINE__CONN_ACTIVE;
    engine__tls_on_connect(shard, c);
    if (c->generation == generation && used < len) {
        engine__tls_on_bytes(shard, c, data + used, len - used, arrival_ns);
    }
}

void engine__proxy_on_eof(struct engine__shard *shard, struct engine__conn *c, int err)
{
    char message[RECORD_ERROR_MESSAGE_BYTES];
    snprintf(message, sizeof(message),
             "proxy %s closed the connection before answering CONNECT%s%s", c->target->proxy.name,
             err != 0 ? ": " : "", err != 0 ? strerror(err) : "");
    engine__fail(shard, c, 0, "ProxyError", message);
}
