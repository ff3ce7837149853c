/*
 * loopback_server.h - test helper for scripted HTTP servers: a socket listening on 127.0.0.1
 * (a free port) and a thread that hands each connection, one at a time, to the test's answer
 * callback and closes it after.
 */
#ifndef RINGPERF_TESTS_SUPPORT_LOOPBACK_SERVER_H
#define RINGPERF_TESTS_SUPPORT_LOOPBACK_SERVER_H

#include <criterion/criterion.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

struct loopback_server {
    int fd;
    uint16_t port;
    pthread_t thread;
    void (*answer)(void *ctx, int conn); /* on the server's thread; conn is closed after */
    void *ctx;
};

static inline void *loopback_server_loop(void *arg)
{
    struct loopback_server *s = arg;
    for (;;) {
        int c = accept(s->fd, NULL, NULL);
        if (c < 0) {
            return NULL;
        }
        s->answer(s->ctx, c);
        close(c);
    }
}

/* loopback_server_start listens on a free loopback port (s->port) and serves with answer. */
static inline void loopback_server_start(struct loopback_server *s,
                                         void (*answer)(void *ctx, int conn), void *ctx)
{
    *s = (struct loopback_server){.answer = answer, .ctx = ctx};
    s->fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    cr_assert_eq(bind(s->fd, (struct sockaddr *)&a, sizeof(a)), 0);
    cr_assert_eq(listen(s->fd, 16), 0);
    cr_assert_eq(getsockname(s->fd, (struct sockaddr *)&a, &len), 0);
    s->port = ntohs(a.sin_port);
    cr_assert_eq(pthread_create(&s->thread, NULL, loopback_server_loop, s), 0);
}

/* loopback_server_stop stops accepting and joins the thread, then closes the socket: closed
 * first, its number could be reused under an accept still to come. */
static inline void loopback_server_stop(struct loopback_server *s)
{
    shutdown(s->fd, SHUT_RDWR);
    pthread_join(s->thread, NULL);
    close(s->fd);
}

/* loopback_read_request reads one request from conn into buf (cap bytes, NUL-terminated): its
 * head and the Content-Length bytes of body after it. False when the peer closes first. */
static inline bool loopback_read_request(int conn, char *buf, size_t cap)
{
    size_t len = 0;
    size_t want = SIZE_MAX;
    while (len < want && len < cap - 1) {
        ssize_t n = recv(conn, buf + len, cap - 1 - len, 0);
        if (n <= 0) {
            return false;
        }
        len += (size_t)n;
        buf[len] = '\0';
        const char *head_end = strstr(buf, "\r\n\r\n");
        if (want == SIZE_MAX && head_end != NULL) {
            const char *cl = strcasestr(buf, "content-length:");
            size_t body =
                cl != NULL && cl < head_end ? strtoul(cl + strlen("content-length:"), NULL, 10) : 0;
            want = (size_t)(head_end + 4 - buf) + body;
        }
    }
    return true;
}

/* loopback_reply answers 200 with body, of content_type, and says the connection closes. */
static inline void loopback_reply(int conn, const char *content_type, const char *body)
{
    char head[256];
    snprintf(head, sizeof(head),
             "HTTP/1.1 200 OK\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: "
             "close\r\n\r\n",
             content_type, strlen(body));
    send(conn, head, strlen(head), MSG_NOSIGNAL);
    send(conn, body, strlen(body), MSG_NOSIGNAL);
}

#endif
