/*
 * mock_client.h - a tiny blocking HTTP/1.1 client for the mock server tests: connect, send,
 * read one response (Content-Length, chunked or until close) and split an SSE body into events.
 * Every socket has a receive timeout, so a server bug fails a test instead of hanging it.
 */
#ifndef RINGPERF_TESTS_MOCK_CLIENT_H
#define RINGPERF_TESTS_MOCK_CLIENT_H

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <jansson.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "mock/mock.h"

#define TC_RECV_TIMEOUT_S 20
#define TC_BUF_BYTES (4u * 1024 * 1024)
#define TC_EVENTS_MAX 4096

struct tc_conn {
    int fd;
    char *buf;
    size_t len; /* bytes received */
    size_t pos; /* bytes consumed by earlier responses */
    bool eof;
    bool timed_out;
};

struct tc_resp {
    bool complete; /* a whole response was read */
    int status;
    char head[16384];
    char *body; /* decoded body (chunks joined), NUL-terminated; owned */
    size_t body_len;
    bool chunked;
};

static inline uint64_t tc_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* tc_start starts a server on a free loopback port, or skips the test without io_uring. */
static inline struct mock_server *tc_start(struct mock_config *cfg)
{
    char err[512];
    struct mock_server *s = NULL;
    cfg->port = 0;
    int rc = mock_server_start(cfg, &s, err, sizeof(err));
    if (rc == -ENOSYS || rc == -EPERM) {
        cr_skip_test("io_uring unavailable: %s", err);
    }
    cr_assert_eq(rc, 0, "mock_server_start: %s", err);
    return s;
}

static inline struct mock_config tc_config(void)
{
    struct mock_config cfg;
    mock_config_init(&cfg);
    cfg.max_connections = 64;
    cfg.max_body_bytes = 64 * 1024;
    return cfg;
}

static inline void tc_connect(struct tc_conn *c, uint16_t port)
{
    memset(c, 0, sizeof(*c));
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    cr_assert(c->fd >= 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    cr_assert_eq(connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)), 0, "connect: %s",
                 strerror(errno));
    struct timeval tv = {.tv_sec = TC_RECV_TIMEOUT_S};
    setsockopt(c->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    c->buf = malloc(TC_BUF_BYTES);
    cr_assert_not_null(c->buf);
}

static inline void tc_close(struct tc_conn *c)
{
    if (c->fd >= 0) {
        close(c->fd);
    }
    free(c->buf);
    c->fd = -1;
    c->buf = NULL;
}

static inline void tc_send(struct tc_conn *c, const char *data, size_t len)
{
    size_t off = 0;
    while (off < len) {
        ssize_t n = send(c->fd, data + off, len - off, MSG_NOSIGNAL);
        cr_assert(n > 0, "send: %s", strerror(errno));
        off += (size_t)n;
    }
}

/* tc_post sends a POST with a JSON body and optional extra header lines ("X: y\r\n"). */
static inline void tc_post(struct tc_conn *c, const char *path, const char *body, const char *extra)
{
    char req[65536];
    int n = snprintf(req, sizeof(req),
                     "POST %s HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n"
                     "Content-Length: %zu\r\n%s\r\n%s",
                     path, strlen(body), extra != NULL ? extra : "", body);
    cr_assert(n > 0 && (size_t)n < sizeof(req));
    tc_send(c, req, (size_t)n);
}

static inline void tc_get(struct tc_conn *c, const char *path)
{
    char req[1024];
    int n = snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: test\r\n\r\n", path);
    tc_send(c, req, (size_t)n);
}

/* tc_fill reads more bytes; returns false at end of stream or timeout. */
static inline bool tc_fill(struct tc_conn *c)
{
    if (c->eof || c->timed_out || c->len == TC_BUF_BYTES) {
        return false;
    }
    ssize_t n = recv(c->fd, c->buf + c->len, TC_BUF_BYTES - c->len, 0);
    if (n > 0) {
        c->len += (size_t)n;
        return true;
    }
    if (n == 0 || errno == ECONNRESET) {
        c->eof = true;
    } else {
        c->timed_out = true;
    }
    return false;
}

/* tc_need makes sure `n` unread bytes from pos are buffered. */
static inline bool tc_need(struct tc_conn *c, size_t from, size_t n)
{
    while (c->len - from < n) {
        if (!tc_fill(c)) {
            return false;
        }
    }
    return true;
}

/* tc_line finds the next CRLF at or after `from`; returns its offset or SIZE_MAX. */
static inline size_t tc_line(struct tc_conn *c, size_t from)
{
    for (;;) {
        for (size_t i = from; i + 1 < c->len; i++) {
            if (c->buf[i] == '\r' && c->buf[i + 1] == '\n') {
                return i;
            }
        }
        if (!tc_fill(c)) {
            return SIZE_MAX;
        }
    }
}

static inline void tc_body_append(struct tc_resp *r, const char *p, size_t n)
{
    r->body = realloc(r->body, r->body_len + n + 1);
    cr_assert_not_null(r->body);
    memcpy(r->body + r->body_len, p, n);
    r->body_len += n;
    r->body[r->body_len] = '\0';
}

static inline bool tc_read_chunks(struct tc_conn *c, struct tc_resp *r, size_t *pos)
{
    for (;;) {
        size_t eol = tc_line(c, *pos);
        if (eol == SIZE_MAX) {
            return false;
        }
        char *end = NULL;
        unsigned long size = strtoul(c->buf + *pos, &end, 16);
        cr_assert_eq(end, c->buf + eol, "bad chunk size line");
        *pos = eol + 2;
        if (!tc_need(c, *pos, size + 2)) {
            tc_body_append(r, c->buf + *pos, c->len - *pos);
            *pos = c->len;
            return false;
        }
        tc_body_append(r, c->buf + *pos, size);
        cr_assert(c->buf[*pos + size] == '\r' && c->buf[*pos + size + 1] == '\n');
        *pos += size + 2;
        if (size == 0) {
            return true;
        }
    }
}

/* tc_read reads one response. r->complete is false when the server closed (or went silent)
 * before the response ended; what arrived of the body is still in r->body. */
static inline void tc_read(struct tc_conn *c, struct tc_resp *r)
{
    memset(r, 0, sizeof(*r));
    tc_body_append(r, "", 0);
    size_t pos = c->pos;
    size_t end = SIZE_MAX;
    while (end == SIZE_MAX) {
        char *hit = memmem(c->buf + pos, c->len - pos, "\r\n\r\n", 4);
        if (hit != NULL) {
            end = (size_t)(hit - c->buf) + 4;
        } else if (!tc_fill(c)) {
            return;
        }
    }
    size_t head_len = end - pos;
    cr_assert(head_len < sizeof(r->head));
    memcpy(r->head, c->buf + pos, head_len);
    r->head[head_len] = '\0';
    cr_assert_eq(strncmp(r->head, "HTTP/1.1 ", 9), 0, "status line: %s", r->head);
    r->status = (int)strtol(r->head + 9, NULL, 10);
    pos = end;
    r->chunked = strcasestr(r->head, "\r\nTransfer-Encoding: chunked\r\n") != NULL;
    const char *cl = strcasestr(r->head, "\r\nContent-Length: ");
    if (r->chunked) {
        r->complete = tc_read_chunks(c, r, &pos);
    } else {
        cr_assert_not_null(cl, "response without Content-Length: %s", r->head);
        size_t want = (size_t)strtoull(cl + 18, NULL, 10);
        r->complete = tc_need(c, pos, want);
        size_t got = r->complete ? want : c->len - pos;
        tc_body_append(r, c->buf + pos, got);
        pos += got;
    }
    c->pos = pos;
}

static inline void tc_resp_free(struct tc_resp *r)
{
    free(r->body);
    r->body = NULL;
}

/* tc_header returns whether the response head has the exact header line "Name: value". */
static inline bool tc_header(const struct tc_resp *r, const char *line)
{
    char want[512];
    snprintf(want, sizeof(want), "\r\n%s\r\n", line);
    return strcasestr(r->head, want) != NULL;
}

/* tc_events splits an SSE body into the data payloads of its events (views into body, which
 * is modified). Returns the count. */
static inline size_t tc_events(char *body, const char **out, size_t cap)
{
    size_t n = 0;
    char *p = body;
    for (;;) {
        char *sep = strstr(p, "\n\n");
        if (sep == NULL) {
            return n;
        }
        *sep = '\0';
        cr_assert_eq(strncmp(p, "data: ", 6), 0, "event without data: [%s]", p);
        cr_assert(n < cap);
        out[n++] = p + 6;
        p = sep + 2;
    }
}

/* tc_quiet reports whether nothing arrives on the connection for `ms` milliseconds. */
static inline bool tc_quiet(struct tc_conn *c, int ms)
{
    struct pollfd pfd = {.fd = c->fd, .events = POLLIN};
    return poll(&pfd, 1, ms) == 0;
}

/* tc_json parses text as JSON or fails the test. */
static inline json_t *tc_json(const char *text)
{
    json_error_t err;
    json_t *j = json_loads(text, 0, &err);
    cr_assert_not_null(j, "invalid JSON (%s): %s", err.text, text);
    return j;
}

/* tc_closed reports whether the peer has closed the connection: nothing more arrives and the
 * stream has ended (not merely gone quiet until the receive timeout). */
static inline bool tc_closed(struct tc_conn *c)
{
    return !tc_fill(c) && c->eof;
}

/* tc_get_status sends GET path, reads the answer and frees it; returns its status, or 0 when no
 * whole answer came. */
static inline int tc_get_status(struct tc_conn *c, const char *path)
{
    struct tc_resp r;
    tc_get(c, path);
    tc_read(c, &r);
    int status = r.complete ? r.status : 0;
    tc_resp_free(&r);
    return status;
}

/* tc_check_error checks that r is an OpenAI error answer: the status, and a body whose error has
 * a message, a type (equal to `type` unless it is NULL) and code == status. */
static inline void tc_check_error(const struct tc_resp *r, int status, const char *type)
{
    cr_assert_eq(r->status, status, "status %d, want %d: %s", r->status, status, r->body);
    json_t *j = tc_json(r->body);
    json_t *e = json_object_get(j, "error");
    cr_assert(json_is_string(json_object_get(e, "message")), "%d: %s", status, r->body);
    cr_assert(json_is_string(json_object_get(e, "type")), "%d: %s", status, r->body);
    if (type != NULL) {
        cr_assert_str_eq(json_string_value(json_object_get(e, "type")), type);
    }
    cr_assert_eq(json_integer_value(json_object_get(e, "code")), status, "%s", r->body);
    json_decref(j);
}

/* tc_session is a test's server and one client connection to it, with the last answer read
 * on that connection (owned; freed by the next tc_ask or tc_next, or by tc_finish). */
struct tc_session {
    struct mock_server *server;
    struct tc_conn conn;
    struct tc_resp resp;
};

/* tc_open starts a server with cfg as tc_start does (skipping without io_uring) and connects. */
static inline void tc_open(struct tc_session *t, struct mock_config *cfg)
{
    memset(t, 0, sizeof(*t));
    t->server = tc_start(cfg);
    tc_connect(&t->conn, mock_server_port(t->server));
}

/* tc_next reads the next answer on the session's connection into t->resp and returns it. */
static inline struct tc_resp *tc_next(struct tc_session *t)
{
    tc_resp_free(&t->resp);
    tc_read(&t->conn, &t->resp);
    return &t->resp;
}

/* tc_ask POSTs the JSON body to path (or GETs path when body is NULL) and returns the answer as
 * tc_next does. */
static inline struct tc_resp *tc_ask(struct tc_session *t, const char *path, const char *body)
{
    if (body != NULL) {
        tc_post(&t->conn, path, body, NULL);
    } else {
        tc_get(&t->conn, path);
    }
    return tc_next(t);
}

/* tc_ask_as is tc_ask for a POST that carries the request ID `id` (X-Request-ID). */
static inline struct tc_resp *tc_ask_as(struct tc_session *t, const char *path, const char *body,
                                        const char *id)
{
    char header[256];
    int n = snprintf(header, sizeof(header), "X-Request-ID: %s\r\n", id);
    cr_assert(n > 0 && (size_t)n < sizeof(header));
    tc_post(&t->conn, path, body, header);
    return tc_next(t);
}

/* tc_finish frees the last answer, closes the connection and frees the server. */
static inline void tc_finish(struct tc_session *t)
{
    tc_resp_free(&t->resp);
    tc_close(&t->conn);
    mock_server_free(t->server);
}

/* tc_stop stops the server, which must succeed, and reads its final counters into *out. */
static inline void tc_stop(struct mock_server *s, struct mock_stats *out)
{
    cr_assert_eq(mock_server_stop(s), 0);
    mock_server_stats(s, out);
}

/* tc_open_token_log opens a session whose server, paced by ttft_ms and itl_ms, logs every token
 * it sends to a new empty file made from the mkstemp template in path (rewritten in place; the
 * caller unlinks it). */
static inline void tc_open_token_log(struct tc_session *t, char *path, double ttft_ms,
                                     double itl_ms)
{
    int fd = mkstemp(path);
    cr_assert(fd >= 0, "mkstemp %s: %s", path, strerror(errno));
    close(fd);
    struct mock_config cfg = tc_config();
    cfg.ttft_ms = ttft_ms;
    cfg.itl_ms = itl_ms;
    cfg.token_log_path = path;
    tc_open(t, &cfg);
}

/* tc_log_stamps reads the token log at path and stores the send_ns of request id's lines into
 * out_ns (at most cap of them), checking that their token indexes count up from 0. Returns how
 * many lines the request has. */
static inline size_t tc_log_stamps(const char *path, const char *id, uint64_t *out_ns, size_t cap)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    char line[2048];
    size_t seen = 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        json_t *j = tc_json(line);
        if (strcmp(json_string_value(json_object_get(j, "request_id")), id) == 0) {
            cr_assert_lt(seen, cap, "request %s: more than %zu log lines", id, cap);
            cr_assert_eq(json_integer_value(json_object_get(j, "token")), (json_int_t)seen);
            out_ns[seen++] = (uint64_t)json_integer_value(json_object_get(j, "send_ns"));
        }
        json_decref(j);
    }
    fclose(f);
    return seen;
}

#endif
