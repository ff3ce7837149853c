/*
 * scrape_fetch.c - one GET of a /metrics URL on the scraper's thread: a blocking socket with a
 * deadline (poll), the engine's target (address, Host, credentials, forward proxy or CONNECT
 * tunnel), TLS through tls/ over memory buffers, the response framed by http/ and its body
 * parsed by prometheus/ as it arrives, so no body is ever held whole.
 */
#include "scrape/scrape_internal.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "tls/tls.h"

#define HEADER_BYTES 16384
#define HEADERS_MAX 64
#define CIPHER_BYTES 16384
/* The -H headers sent with a scrape, at most. */
#define EXTRA_HEADERS_MAX 64

struct io {
    struct scrape *s;
    int fd;
    struct tls_conn *tls;
    int64_t deadline_ns;
    char cipher[CIPHER_BYTES];
    size_t cipher_len, cipher_off;
    struct scrape__fetch_result *out;
};

int64_t scrape__now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int fail(struct io *io, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(io->out->error, sizeof(io->out->error), fmt, ap);
    va_end(ap);
    return -1;
}

/* wait_fd waits for `events` on the socket until the deadline. */
static int wait_fd(struct io *io, short events)
{
    for (;;) {
        int64_t left_ns = io->deadline_ns - scrape__now_ns();
        if (left_ns <= 0) {
            return fail(io, "timed out");
        }
        struct pollfd pfd = {.fd = io->fd, .events = events};
        int n = poll(&pfd, 1, (int)(left_ns / 1000000 + 1));
        if (n > 0) {
            return 0;
        }
        if (n < 0 && errno != EINTR) {
            return fail(io, "poll: %s", strerror(errno));
        }
    }
}

static int raw_send(struct io *io, const char *p, size_t len)
{
    while (len > 0) {
        ssize_t n = send(io->fd, p, len, MSG_NOSIGNAL);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
        } else if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            if (wait_fd(io, POLLOUT) != 0) {
                return -1;
            }
        } else {
            return fail(io, "send: %s", strerror(errno));
        }
    }
    return 0;
}

/* raw_recv reads what is there (waiting until the deadline): bytes, 0 at EOF, -1 on error. */
static ssize_t raw_recv(struct io *io, char *buf, size_t cap)
{
    for (;;) {
        ssize_t n = recv(io->fd, buf, cap, 0);
        if (n >= 0) {
            return n;
        }
        if (errno != EAGAIN && errno != EINTR) {
            return fail(io, "recv: %s", strerror(errno));
        }
        if (wait_fd(io, POLLIN) != 0) {
            return -1;
        }
    }
}

static int tls_flush(struct io *io)
{
    const char *p;
    size_t n = tls_conn_pending(io->tls, &p);
    if (n > 0 && raw_send(io, p, n) != 0) {
        return -1;
    }
    tls_conn_consume(io->tls, n);
    return 0;
}

static int tls_failed(struct io *io, enum tls_status st)
{
    const char *why = tls_conn_error_message(io->tls);
    return fail(io, "TLS: %s", why[0] != '\0' ? why : tls_status_name(st));
}

/* cipher_more reads more ciphertext; 1 at EOF. */
static int cipher_more(struct io *io)
{
    ssize_t n = raw_recv(io, io->cipher, sizeof(io->cipher));
    if (n < 0) {
        return -1;
    }
    io->cipher_len = (size_t)n;
    io->cipher_off = 0;
    return n == 0 ? 1 : 0;
}

static int tls_begin(struct io *io, const char *host)
{
    enum tls_status st = tls_conn_begin(io->tls, host, strlen(host));
    while (st == TLS_WANT_READ || st == TLS_WANT_WRITE) {
        if (tls_flush(io) != 0) {
            return -1;
        }
        if (st == TLS_WANT_READ && io->cipher_off == io->cipher_len) {
            int r = cipher_more(io);
            if (r != 0) {
                return r < 0 ? -1 : fail(io, "TLS: the server closed during the handshake");
            }
        }
        size_t used = 0;
        st = tls_conn_handshake(io->tls, io->cipher + io->cipher_off,
                                io->cipher_len - io->cipher_off, &used);
        io->cipher_off += used;
    }
    if (st != TLS_OK) {
        return tls_failed(io, st);
    }
    return tls_flush(io);
}

static int io_send(struct io *io, const char *p, size_t len)
{
    if (io->tls == NULL) {
        return raw_send(io, p, len);
    }
    while (len > 0) {
        size_t used = 0;
        enum tls_status st = tls_conn_write(io->tls, p, len, &used);
        if (st != TLS_OK && st != TLS_WANT_WRITE) {
            return tls_failed(io, st);
        }
        p += used;
        len -= used;
        if (tls_flush(io) != 0) {
            return -1;
        }
    }
    return 0;
}

/* io_recv returns plaintext bytes read into buf, 0 at a clean end, -1 on error. */
static ssize_t io_recv(struct io *io, char *buf, size_t cap)
{
    if (io->tls == NULL) {
        return raw_recv(io, buf, cap);
    }
    for (;;) {
        size_t used = 0;
        size_t n = 0;
        enum tls_status st = tls_conn_read(io->tls, io->cipher + io->cipher_off,
                                           io->cipher_len - io->cipher_off, &used, buf, cap, &n);
        io->cipher_off += used;
        if (tls_flush(io) != 0) {
            return -1;
        }
        if (st == TLS_OK && n > 0) {
            return (ssize_t)n;
        }
        if (st == TLS_CLOSED) {
            return 0;
        }
        if (st != TLS_OK && st != TLS_WANT_READ && st != TLS_WANT_WRITE) {
            return tls_failed(io, st);
        }
        if (io->cipher_off == io->cipher_len) {
            int r = cipher_more(io);
            if (r < 0) {
                return -1;
            }
            if (r > 0) {
                st = tls_conn_eof(io->tls);
                return st == TLS_CLOSED ? 0 : tls_failed(io, st);
            }
        }
    }
}

static int connect_to(struct io *io, const struct engine_target *t)
{
    const struct sockaddr_storage *addr = &t->addr;
    socklen_t len = t->addr_len;
    if (t->proxy.mode != ENGINE_PROXY_NONE) {
        addr = &t->proxy.addr;
        len = t->proxy.addr_len;
    }
    io->fd = socket(addr->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (io->fd < 0) {
        return fail(io, "socket: %s", strerror(errno));
    }
    if (connect(io->fd, (const struct sockaddr *)addr, len) != 0 && errno != EINPROGRESS) {
        return fail(io, "connect: %s", strerror(errno));
    }
    if (wait_fd(io, POLLOUT) != 0) {
        return -1;
    }
    int err = 0;
    socklen_t err_len = sizeof(err);
    getsockopt(io->fd, SOL_SOCKET, SO_ERROR, &err, &err_len);
    if (err != 0) {
        return fail(io, "connect: %s", strerror(err));
    }
    return 0;
}

/* read_head reads a response head with parser p, bytes after it left in io->s->recv_buf at
 * [*out_off, *out_len). */
static int read_head(struct io *io, struct http_response_parser *p, size_t *out_off,
                     size_t *out_len)
{
    for (;;) {
        ssize_t n = io_recv(io, io->s->recv_buf, io->s->recv_cap);
        if (n < 0) {
            return -1;
        }
        if (io->out->first_byte_ns == 0) {
            io->out->first_byte_ns = scrape__now_ns();
        }
        size_t used = 0;
        struct http_body_span body;
        enum http_parse_status st =
            n == 0 ? http_response_feed_eof(p)
                   : http_response_feed(p, io->s->recv_buf, (size_t)n, &used, &body);
        if (st == HTTP_HEADERS_DONE) {
            *out_off = used;
            *out_len = (size_t)n;
            return 0;
        }
        if (st != HTTP_NEED_MORE || n == 0) {
            return fail(io, "HTTP: %s", http_parse_status_name(st));
        }
    }
}

static int tunnel(struct io *io, const struct engine_target *t)
{
    struct http_header auth = {"Proxy-Authorization", 19, t->proxy.authorization,
                               strlen(t->proxy.authorization)};
    struct http_request_head head = {.method = "CONNECT",
                                     .path = t->proxy.authority,
                                     .host = t->proxy.authority,
                                     .extra_headers = &auth,
                                     .extra_header_count = auth.value_len > 0};
    char buf[2048];
    ssize_t n = http_request_head_write(buf, sizeof(buf), &head);
    if (n < 0 || raw_send(io, buf, (size_t)n) != 0) {
        return n < 0 ? fail(io, "proxy CONNECT request does not fit") : -1;
    }
    struct http_response_parser p;
    http_response_parser_init(&p, io->s->header_buf, HEADER_BYTES, HEADERS_MAX);
    http_response_parser_set_head_request(&p);
    /* TLS starts right after the proxy's head, so read it alone (no TLS bytes come before). */
    struct io plain = *io;
    plain.tls = NULL;
    size_t off, len;
    if (read_head(&plain, &p, &off, &len) != 0) {
        return -1;
    }
    int status = http_response_status_code(&p);
    if (status < 200 || status > 299) {
        return fail(io, "proxy %s refused CONNECT: HTTP %d", t->proxy.name, status);
    }
    io->out->first_byte_ns = 0;
    return 0;
}

/* send_request sends the GET. The run's -H headers go only to the --url's own /metrics: they
 * may carry credentials meant for that server, not for an exporter elsewhere. */
static int send_request(struct io *io, const struct engine_target *t, bool is_default)
{
    const struct scrape_config *cfg = &io->s->cfg;
    struct http_header extra[EXTRA_HEADERS_MAX + 2];
    size_t n = 0;
    for (size_t i = 0; is_default && i < cfg->header_count && n < EXTRA_HEADERS_MAX; i++) {
        extra[n++] = cfg->headers[i];
    }
    if (t->proxy.mode == ENGINE_PROXY_FORWARD && t->proxy.authorization[0] != '\0') {
        extra[n++] = (struct http_header){"Proxy-Authorization", 19, t->proxy.authorization,
                                          strlen(t->proxy.authorization)};
    }
    extra[n++] = (struct http_header){"Connection", 10, "close", 5};
    struct http_request_head head = {
        .method = "GET",
        .path = t->path,
        .host = t->host_header,
        .accept = "text/plain;version=0.0.4;q=1,*/*;q=0.1",
        .user_agent = "ringperf/" RINGPERF_VERSION,
        .authorization = t->authorization[0] != '\0' ? t->authorization : NULL,
        .extra_headers = extra,
        .extra_header_count = n,
    };
    char buf[HEADER_BYTES];
    ssize_t len = http_request_head_write(buf, sizeof(buf), &head);
    if (len < 0) {
        return fail(io, "the request head is invalid or too long");
    }
    if (io_send(io, buf, (size_t)len) != 0) {
        return -1;
    }
    io->out->sent_ns = scrape__now_ns();
    return 0;
}

static bool is_json(const struct http_response_parser *p)
{
    const char *v;
    size_t len;
    if (!http_response_header(p, "Content-Type", &v, &len)) {
        return false;
    }
    for (size_t i = 0; i + 4 <= len; i++) {
        if (strncasecmp(v + i, "json", 4) == 0) {
            return true;
        }
    }
    return false;
}

/* check_head turns a non-2xx or JSON answer into the fetch's result. */
static int check_head(struct io *io, const struct http_response_parser *p)
{
    int status = http_response_status_code(p);
    io->out->http_status = status;
    if (status == 404) {
        io->out->not_found = true;
        return fail(io, "HTTP 404 Not Found");
    }
    if (status < 200 || status > 299) {
        return fail(io, "HTTP %d", status);
    }
    if (is_json(p)) {
        io->out->json = true;
        return fail(io, "the server answers JSON, not the Prometheus text format");
    }
    return 0;
}

/* exposition feeds one body span to the exposition parser and stages its samples. */
static int exposition(struct io *io, size_t ep, struct prom_parser *pp, const char *data,
                      size_t len)
{
    while (len > 0) {
        size_t used = 0;
        struct prom_line line;
        enum prom_status st = prom_parser_feed(pp, data, len, &used, &line);
        data += used;
        len -= used;
        int ret = 0;
        if (st == PROM_SAMPLE) {
            ret = scrape__store_stage(&io->s->store, (uint32_t)ep, &line.sample);
        } else if (st == PROM_HELP || st == PROM_TYPE) {
            ret = scrape__store_meta(&io->s->store, st, &line.meta);
        } else if (st != PROM_NEED_MORE) {
            return fail(io, "exposition: %s", prom_status_name(st));
        }
        if (ret != 0) {
            return fail(io, "exposition: %s",
                        ret == -E2BIG ? "too many samples in one scrape" : "out of memory");
        }
    }
    return 0;
}

/* read_body reads the body after the head, bytes [off, len) of recv_buf first. */
static int read_body(struct io *io, size_t ep, struct http_response_parser *p, size_t off,
                     size_t len)
{
    struct prom_parser pp;
    prom_parser_init(&pp, io->s->line_buf, SCRAPE_LINE_BYTES_MAX);
    size_t body_bytes = 0;
    size_t max = io->s->cfg.body_bytes_max;
    bool eof = false;
    for (;;) {
        size_t used = 0;
        struct http_body_span body = {0};
        enum http_parse_status st =
            eof ? http_response_feed_eof(p)
                : http_response_feed(p, io->s->recv_buf + off, len - off, &used, &body);
        off += used;
        if (st == HTTP_MESSAGE_DONE) {
            enum prom_status end = prom_parser_finish(&pp);
            return end == PROM_END ? 0 : fail(io, "exposition: %s", prom_status_name(end));
        }
        if (http_parse_status_is_error(st)) {
            return fail(io, "HTTP: %s", http_parse_status_name(st));
        }
        if (st == HTTP_BODY) {
            body_bytes += body.len;
            if (body_bytes > max) {
                return fail(io, "the body is larger than %zu bytes", max);
            }
            if (exposition(io, ep, &pp, body.data, body.len) != 0) {
                return -1;
            }
            continue;
        }
        ssize_t n = io_recv(io, io->s->recv_buf, io->s->recv_cap);
        if (n < 0) {
            return -1;
        }
        eof = n == 0;
        off = 0;
        len = (size_t)n;
    }
}

static int exchange(struct io *io, size_t ep, const struct engine_target *t)
{
    if (connect_to(io, t) != 0) {
        return -1;
    }
    if (t->proxy.mode == ENGINE_PROXY_TUNNEL && tunnel(io, t) != 0) {
        return -1;
    }
    if (t->tls != NULL) {
        if (tls_conn_new(t->tls, &io->tls) != 0) {
            return fail(io, "out of memory");
        }
        if (tls_begin(io, t->tls_host) != 0) {
            return -1;
        }
    }
    if (send_request(io, t, io->s->cfg.endpoints[ep].is_default) != 0) {
        return -1;
    }
    struct http_response_parser p;
    http_response_parser_init(&p, io->s->header_buf, HEADER_BYTES, HEADERS_MAX);
    size_t off, len;
    if (read_head(io, &p, &off, &len) != 0 || check_head(io, &p) != 0) {
        return -1;
    }
    return read_body(io, ep, &p, off, len);
}

void scrape__fetch(struct scrape *s, size_t ep, struct scrape__fetch_result *out)
{
    *out = (struct scrape__fetch_result){0};
    if (s->cfg.endpoints[ep].nvml) {
        scrape__nvml_fetch(s, ep, out);
        return;
    }
    struct io *io = malloc(sizeof(*io));
    if (io == NULL) {
        snprintf(out->error, sizeof(out->error), "out of memory");
        return;
    }
    *io = (struct io){.s = s, .fd = -1, .out = out};
    io->deadline_ns = scrape__now_ns() + s->cfg.timeout_ns;
    const struct engine_target *t = &s->eps[ep].target;
    out->ok = exchange(io, ep, t) == 0;
    out->done_ns = scrape__now_ns();
    if (!out->ok) {
        scrape__store_drop(&s->store);
    }
    tls_conn_free(io->tls);
    if (io->fd >= 0) {
        close(io->fd);
    }
    free(io);
}
