/*
 * nginx_proxy.h - test helper: nginx (Debian nginx-light) terminating TLS in front of an
 * upstream plain-HTTP server (the mock server), one loopback port per certificate that
 * tests/tls/gen_certs.sh makes. Responses stream through (proxy_buffering off), upstream
 * connections are kept alive, and the client side keeps connections for keepalive_s seconds.
 */
#ifndef RINGPERF_TESTS_TLS_NGINX_PROXY_H
#define RINGPERF_TESTS_TLS_NGINX_PROXY_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "tls_pair.h"

#define NP_START_ATTEMPTS 3

/* np_port names nginx's TLS ports: the certificate each serves, or client certificates. */
enum np_port {
    NP_VALID,     /* server.crt: localhost, 127.0.0.1, ::1, issued by ca.crt */
    NP_WRONGHOST, /* wronghost.crt: other.example only */
    NP_EXPIRED,   /* expired.crt */
    NP_UNKNOWN,   /* unknown.crt: issued by other-ca.crt */
    NP_MTLS,      /* server.crt, and a client certificate issued by ca.crt is required */
    NP_PORT_COUNT
};

/* np_nginx is one running nginx; dir holds the certificates, its config and logs. */
struct np_nginx {
    const char *dir;
    pid_t pid;
    uint16_t ports[NP_PORT_COUNT];
};

/* np_find returns the nginx binary, or NULL when nginx is not installed. */
static inline const char *np_find(void)
{
    static const char *const places[] = {"/usr/sbin/nginx", "/usr/local/sbin/nginx",
                                         "/usr/bin/nginx", "/usr/local/nginx/sbin/nginx"};
    for (size_t i = 0; i < sizeof(places) / sizeof(places[0]); i++) {
        if (access(places[i], X_OK) == 0) {
            return places[i];
        }
    }
    return NULL;
}

static inline uint16_t np_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    cr_assert_geq(fd, 0);
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(addr);
    cr_assert_eq(bind(fd, (struct sockaddr *)&addr, sizeof(addr)), 0);
    cr_assert_eq(getsockname(fd, (struct sockaddr *)&addr, &len), 0);
    close(fd);
    return ntohs(addr.sin_port);
}

static inline bool np_port_open(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in addr = {
        .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    bool ok = connect(fd, (struct sockaddr *)&addr, sizeof(addr)) == 0;
    close(fd);
    return ok;
}

/* np_append appends one formatted piece of the configuration. */
static inline void np_append(char *buf, size_t cap, size_t *len, const char *format, ...)
    __attribute__((format(printf, 4, 5)));

static inline void np_append(char *buf, size_t cap, size_t *len, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    int n = vsnprintf(buf + *len, cap - *len, format, args);
    va_end(args);
    cr_assert(n > 0 && (size_t)n < cap - *len, "nginx.conf too long");
    *len += (size_t)n;
}

static inline void np_write_config(struct np_nginx *n, uint16_t upstream_port, int keepalive_s)
{
    static const char *const certs[NP_PORT_COUNT] = {"server.crt", "wronghost.crt", "expired.crt",
                                                     "unknown.crt", "server.crt"};
    char conf[8192];
    size_t len = 0;
    const char *d = n->dir;
    np_append(conf, sizeof(conf), &len,
              "daemon off;\nmaster_process off;\nworker_processes 1;\npid %s/nginx.pid;\n"
              "error_log %s/error.log warn;\nevents { worker_connections 512; }\nhttp {\n"
              " access_log off;\n client_body_temp_path %s/tmp;\n proxy_temp_path %s/tmp;\n"
              " fastcgi_temp_path %s/tmp;\n uwsgi_temp_path %s/tmp;\n scgi_temp_path %s/tmp;\n"
              " client_max_body_size 16m;\n keepalive_timeout %ds;\n"
              " ssl_certificate_key %s/server.key;\n ssl_protocols TLSv1.2 TLSv1.3;\n"
              " ssl_session_cache shared:ringperf:1m;\n"
              " upstream mock { server 127.0.0.1:%u; keepalive 64; }\n",
              d, d, d, d, d, d, d, keepalive_s, d, (unsigned)upstream_port);
    char mtls[TP_PATH_BYTES + 64];
    snprintf(mtls, sizeof(mtls), "  ssl_client_certificate %s/ca.crt;\n  ssl_verify_client on;\n",
             d);
    for (int i = 0; i < NP_PORT_COUNT; i++) {
        np_append(conf, sizeof(conf), &len,
                  " server {\n  listen 127.0.0.1:%u ssl;\n  ssl_certificate %s/%s;\n%s"
                  "  location / { proxy_pass http://mock; proxy_http_version 1.1;\n"
                  "   proxy_set_header Connection \"\"; proxy_buffering off; }\n }\n",
                  (unsigned)n->ports[i], d, certs[i], i == NP_MTLS ? mtls : "");
    }
    np_append(conf, sizeof(conf), &len, "}\n");
    char path[TP_PATH_BYTES];
    FILE *f = fopen(tp_path(path, d, "nginx.conf"), "w");
    cr_assert_not_null(f, "%s: %s", path, strerror(errno));
    cr_assert_eq(fwrite(conf, 1, len, f), len);
    cr_assert_eq(fclose(f), 0);
}

/* np_try_start starts nginx; false when it exited at once (a port was taken meanwhile). */
static inline bool np_try_start(struct np_nginx *n, const char *nginx, uint16_t upstream_port,
                                int keepalive_s)
{
    for (int i = 0; i < NP_PORT_COUNT; i++) {
        n->ports[i] = np_free_port();
    }
    np_write_config(n, upstream_port, keepalive_s);
    char conf[TP_PATH_BYTES];
    char prefix[TP_PATH_BYTES];
    char errlog[TP_PATH_BYTES];
    tp_path(conf, n->dir, "nginx.conf");
    tp_path(prefix, n->dir, "");
    tp_path(errlog, n->dir, "error.log");
    n->pid = fork();
    cr_assert_geq(n->pid, 0);
    if (n->pid == 0) {
        execl(nginx, nginx, "-p", prefix, "-c", conf, "-e", errlog, (char *)NULL);
        _exit(127);
    }
    for (int tries = 0; tries < 200; tries++) {
        int status = 0;
        if (waitpid(n->pid, &status, WNOHANG) == n->pid) {
            n->pid = -1;
            return false;
        }
        bool all = true;
        for (int i = 0; i < NP_PORT_COUNT && all; i++) {
            all = np_port_open(n->ports[i]);
        }
        if (all) {
            return true;
        }
        usleep(50 * 1000);
    }
    cr_assert_fail("nginx did not open its ports within 10 s (see %s)", errlog);
    return false;
}

/* np_start starts nginx in front of 127.0.0.1:upstream_port with dir's certificates. */
static inline void np_start(struct np_nginx *n, const char *nginx, const char *dir,
                            uint16_t upstream_port, int keepalive_s)
{
    n->dir = dir;
    n->pid = -1;
    char path[TP_PATH_BYTES];
    mkdir(tp_path(path, dir, "tmp"), 0755);
    for (int attempt = 0; attempt < NP_START_ATTEMPTS; attempt++) {
        if (np_try_start(n, nginx, upstream_port, keepalive_s)) {
            return;
        }
    }
    cr_assert_fail("nginx exited at start %d times (see %s/error.log)", NP_START_ATTEMPTS, dir);
}

/* np_stop stops nginx (if running). */
static inline void np_stop(struct np_nginx *n)
{
    if (n->pid > 0) {
        kill(n->pid, SIGTERM);
        waitpid(n->pid, NULL, 0);
        n->pid = -1;
    }
}

#endif
