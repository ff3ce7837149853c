/*
 * nginx_proxy.h - test helper: nginx (Debian nginx-light) terminating TLS in front of an
 * upstream plain-HTTP server (the mock server), one loopback port per certificate that
 * tests/tls/gen_certs.sh makes. Responses stream through (proxy_buffering off), upstream
 * connections are kept alive, and the client side keeps connections for keepalive_s seconds.
 * np_spawn runs nginx on any configuration a test writes itself (test_nginx.c).
 */
#ifndef RINGPERF_TESTS_TLS_NGINX_PROXY_H
#define RINGPERF_TESTS_TLS_NGINX_PROXY_H

#include <sys/stat.h>

#include "loopback.h"
#include "tls_pair.h"

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
    return lb_find(places, sizeof(places) / sizeof(places[0]));
}

/* np_spawn runs nginx on dir/nginx.conf (with dir as its prefix and dir/error.log as its log)
 * until the count ports accept connections. Returns its pid, or -1 when it exited at once. */
static inline pid_t np_spawn(const char *nginx, const char *dir, const uint16_t *ports,
                             size_t count)
{
    char conf[TP_PATH_BYTES];
    char prefix[TP_PATH_BYTES];
    char errlog[TP_PATH_BYTES];
    tp_path(conf, dir, "nginx.conf");
    tp_path(prefix, dir, "");
    tp_path(errlog, dir, "error.log");
    char *argv[] = {(char *)nginx, "-p", prefix, "-c", conf, "-e", errlog, NULL};
    return lb_spawn_listening(argv, ports, count, errlog);
}

static inline void np_write_config(struct np_nginx *n, uint16_t upstream_port, int keepalive_s)
{
    static const char *const certs[NP_PORT_COUNT] = {"server.crt", "wronghost.crt", "expired.crt",
                                                     "unknown.crt", "server.crt"};
    char conf[8192];
    size_t len = 0;
    const char *d = n->dir;
    lb_append(conf, sizeof(conf), &len,
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
        lb_append(conf, sizeof(conf), &len,
                  " server {\n  listen 127.0.0.1:%u ssl;\n  ssl_certificate %s/%s;\n%s"
                  "  location / { proxy_pass http://mock; proxy_http_version 1.1;\n"
                  "   proxy_set_header Connection \"\"; proxy_buffering off; }\n }\n",
                  (unsigned)n->ports[i], d, certs[i], i == NP_MTLS ? mtls : "");
    }
    lb_append(conf, sizeof(conf), &len, "}\n");
    char path[TP_PATH_BYTES];
    lb_write_file(tp_path(path, d, "nginx.conf"), conf, len);
}

/* np_try_start starts nginx; false when it exited at once (a port was taken meanwhile). */
static inline bool np_try_start(struct np_nginx *n, const char *nginx, uint16_t upstream_port,
                                int keepalive_s)
{
    for (int i = 0; i < NP_PORT_COUNT; i++) {
        n->ports[i] = lb_free_port();
    }
    np_write_config(n, upstream_port, keepalive_s);
    n->pid = np_spawn(nginx, n->dir, n->ports, NP_PORT_COUNT);
    return n->pid > 0;
}

/* np_start starts nginx in front of 127.0.0.1:upstream_port with dir's certificates. */
static inline void np_start(struct np_nginx *n, const char *nginx, const char *dir,
                            uint16_t upstream_port, int keepalive_s)
{
    n->dir = dir;
    n->pid = -1;
    char path[TP_PATH_BYTES];
    mkdir(tp_path(path, dir, "tmp"), 0755);
    for (int attempt = 0; attempt < LB_START_ATTEMPTS; attempt++) {
        if (np_try_start(n, nginx, upstream_port, keepalive_s)) {
            return;
        }
    }
    cr_assert_fail("nginx exited at start %d times (see %s/error.log)", LB_START_ATTEMPTS, dir);
}

/* np_stop stops nginx (if running). */
static inline void np_stop(struct np_nginx *n)
{
    lb_stop(&n->pid);
}

#endif
