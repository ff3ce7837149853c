/*
 * test_nginx.c - our tls_conn against a real server nobody here wrote: nginx (Debian
 * nginx-light, OpenSSL underneath) started per test on loopback ports with certificates
 * generated at test time, driven over a plain blocking socket. Skips when nginx is not
 * installed.
 */
#include <sys/time.h>

#include "nginx_proxy.h"

#define BIG_BYTES (1u << 20)

static char dir[TP_PATH_BYTES];
static const char *nginx_path;
static pid_t nginx_pid = -1;

/* port names nginx's ports in this test's configuration. */
enum port {
    PORT_TLS,   /* server.crt, no client certificates */
    PORT_MTLS,  /* requires a client certificate issued by ca.crt */
    PORT_PLAIN, /* plain HTTP */
    PORT_COUNT
};

static uint16_t ports[PORT_COUNT];

static void write_file(const char *name, const char *data, size_t len)
{
    char path[TP_PATH_BYTES];
    lb_write_file(tp_path(path, dir, name), data, len);
}

static void write_config(void)
{
    static const char format[] =
        "daemon off;\nmaster_process off;\nworker_processes 1;\npid %1$s/nginx.pid;\n"
        "error_log %1$s/error.log warn;\nevents { worker_connections 64; }\n"
        "http {\n access_log off;\n client_body_temp_path %1$s/tmp;\n"
        " proxy_temp_path %1$s/tmp;\n fastcgi_temp_path %1$s/tmp;\n uwsgi_temp_path %1$s/tmp;\n"
        " scgi_temp_path %1$s/tmp;\n default_type application/octet-stream;\n"
        " ssl_certificate %1$s/server.crt;\n ssl_certificate_key %1$s/server.key;\n"
        " ssl_protocols TLSv1.2 TLSv1.3;\n ssl_session_cache shared:ringperf:1m;\n"
        " server {\n  listen 127.0.0.1:%2$u ssl;\n  server_name localhost;\n  root %1$s/www;\n"
        "  location = /hello { return 200 \"hello over tls\\n\"; }\n }\n"
        " server {\n  listen 127.0.0.1:%3$u ssl;\n  ssl_client_certificate %1$s/ca.crt;\n"
        "  ssl_verify_client on;\n"
        "  location / { return 200 \"client=$ssl_client_s_dn\\n\"; }\n }\n"
        " server {\n  listen 127.0.0.1:%4$u;\n  location / { return 200 \"plain\\n\"; }\n }\n"
        "}\n";
    char config[4096];
    int n = snprintf(config, sizeof(config), format, dir, ports[PORT_TLS], ports[PORT_MTLS],
                     ports[PORT_PLAIN]);
    cr_assert(n > 0 && (size_t)n < sizeof(config));
    write_file("nginx.conf", config, (size_t)n);
}

/* start_nginx starts nginx and waits for its ports; false when it exited (a port taken). */
static bool start_nginx(void)
{
    for (int i = 0; i < PORT_COUNT; i++) {
        ports[i] = lb_free_port();
    }
    write_config();
    nginx_pid = np_spawn(nginx_path, dir, ports, PORT_COUNT);
    return nginx_pid > 0;
}

static void setup(void)
{
    nginx_path = np_find();
    if (nginx_path == NULL) {
        return;
    }
    tp_make_certs(dir, sizeof(dir));
    char path[TP_PATH_BYTES];
    cr_assert_eq(mkdir(tp_path(path, dir, "www"), 0755), 0);
    cr_assert_eq(mkdir(tp_path(path, dir, "tmp"), 0755), 0);
    char *big = malloc(BIG_BYTES);
    cr_assert_not_null(big);
    tp_pattern(big, BIG_BYTES, 3);
    write_file("www/big.bin", big, BIG_BYTES);
    free(big);
    for (int attempt = 0; attempt < LB_START_ATTEMPTS; attempt++) {
        if (start_nginx()) {
            return;
        }
    }
    cr_assert_fail("nginx exited at start %d times (see %s/error.log)", LB_START_ATTEMPTS, dir);
}

static void teardown(void)
{
    lb_stop(&nginx_pid);
    tp_remove_dir(dir);
}

TestSuite(tls_nginx, .init = setup, .fini = teardown, .timeout = 60);

static void require_nginx(void)
{
    if (nginx_path == NULL) {
        cr_skip_test("nginx is not installed (apt-get install nginx-light)");
    }
}

/* https_result is one GET over TLS. */
struct https_result {
    enum tls_status status; /* TLS_OK when a whole response arrived */
    char message[TLS_ERROR_MESSAGE_BYTES];
    int http_status;
    char *response; /* head and body, owned */
    size_t response_len;
    const char *body;
    size_t body_len;
    bool resumed;
    char version[16];
};

static void send_pending(int fd, struct tls_conn *conn)
{
    const char *data = NULL;
    size_t n = tls_conn_pending(conn, &data);
    while (n > 0) {
        ssize_t sent = send(fd, data, n, MSG_NOSIGNAL);
        cr_assert_gt(sent, 0, "send: %s", strerror(errno));
        tls_conn_consume(conn, (size_t)sent);
        n = tls_conn_pending(conn, &data);
    }
}

static void keep(struct https_result *r, const char *data, size_t n)
{
    r->response = realloc(r->response, r->response_len + n + 1);
    cr_assert_not_null(r->response);
    memcpy(r->response + r->response_len, data, n);
    r->response_len += n;
    r->response[r->response_len] = '\0';
}

/* complete reports whether r holds a whole Content-Length response. */
static bool complete(struct https_result *r)
{
    const char *end = r->response != NULL ? strstr(r->response, "\r\n\r\n") : NULL;
    if (end == NULL) {
        return false;
    }
    r->http_status = (int)strtol(r->response + strlen("HTTP/1.1 "), NULL, 10);
    const char *cl = strcasestr(r->response, "\r\nContent-Length:");
    cr_assert(cl != NULL && cl < end, "response without Content-Length");
    size_t want = (size_t)strtoull(cl + strlen("\r\nContent-Length:"), NULL, 10);
    r->body = end + 4;
    r->body_len = r->response_len - (size_t)(r->body - r->response);
    return r->body_len >= want;
}

/* feed runs received bytes through the connection, sending the request once the handshake
 * is done. Returns TLS_WANT_READ, TLS_CLOSED or an error. */
static enum tls_status feed(int fd, struct tls_conn *conn, const char *in, size_t len,
                            const char *request, bool *sent, struct https_result *r)
{
    size_t pos = 0;
    for (;;) {
        char plain[4096];
        size_t used = 0;
        size_t n = 0;
        enum tls_status st;
        if (!tls_conn_handshake_done(conn)) {
            st = tls_conn_handshake(conn, in + pos, len - pos, &used);
        } else {
            st = tls_conn_read(conn, in + pos, len - pos, &used, plain, sizeof(plain), &n);
            keep(r, plain, n);
        }
        pos += used;
        if (tls_conn_handshake_done(conn) && !*sent) {
            size_t off = 0;
            while (off < strlen(request)) {
                size_t took = 0;
                enum tls_status wst =
                    tls_conn_write(conn, request + off, strlen(request) - off, &took);
                cr_assert(wst == TLS_OK || wst == TLS_WANT_WRITE);
                off += took;
                send_pending(fd, conn);
            }
            *sent = true;
        }
        send_pending(fd, conn);
        if (st != TLS_OK && st != TLS_WANT_WRITE) {
            return st;
        }
    }
}

static int connect_loopback(uint16_t port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    cr_assert_geq(fd, 0);
    struct timeval tv = {.tv_sec = 20};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    struct sockaddr_in addr = {
        .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    cr_assert_eq(connect(fd, (struct sockaddr *)&addr, sizeof(addr)), 0, "connect: %s",
                 strerror(errno));
    return fd;
}

static void https_get(struct tls_context *ctx, uint16_t port, const char *host, const char *path,
                      struct https_result *r)
{
    *r = (struct https_result){.status = TLS_WANT_READ};
    char request[512];
    snprintf(request, sizeof(request), "GET %s HTTP/1.1\r\nHost: localhost\r\n\r\n", path);
    int fd = connect_loopback(port);
    struct tls_conn *conn = NULL;
    cr_assert_eq(tls_conn_new(ctx, &conn), 0);
    enum tls_status st = tls_conn_begin(conn, host, strlen(host));
    cr_assert_eq(st, TLS_WANT_READ);
    send_pending(fd, conn);
    bool sent = false;
    while (st == TLS_WANT_READ && !complete(r)) {
        char rx[16384];
        ssize_t n = recv(fd, rx, sizeof(rx), 0);
        cr_assert_geq(n, 0, "recv: %s", strerror(errno));
        st = n == 0 ? tls_conn_eof(conn) : feed(fd, conn, rx, (size_t)n, request, &sent, r);
    }
    r->status = complete(r) ? TLS_OK : st;
    snprintf(r->message, sizeof(r->message), "%s", tls_conn_error_message(conn));
    r->resumed = tls_conn_resumed(conn);
    snprintf(r->version, sizeof(r->version), "%s", tls_conn_version(conn));
    if (r->status == TLS_OK) {
        tls_conn_shutdown(conn);
        send_pending(fd, conn);
    }
    tls_conn_free(conn);
    close(fd);
}

static struct tls_context *client_ctx(enum tls_version max_version, bool with_client_cert)
{
    char cert[TP_PATH_BYTES];
    char key[TP_PATH_BYTES];
    struct tls_options opts = {.max_version = max_version};
    if (with_client_cert) {
        opts.cert_file = tp_path(cert, dir, "client.crt");
        opts.key_file = tp_path(key, dir, "client.key");
    }
    return tp_client_ctx(dir, &opts);
}

/* get_once makes one GET of path from nginx's port, with host as the server name, on a client
 * context of its own (up to max_version, with or without the client certificate). */
static void get_once(enum tls_version max_version, bool with_client_cert, enum port port,
                     const char *host, const char *path, struct https_result *r)
{
    struct tls_context *ctx = client_ctx(max_version, with_client_cert);
    https_get(ctx, ports[port], host, path, r);
    tls_context_free(ctx);
}

/* assert_status checks how the GET ended, showing the client's message when not as wanted. */
static void assert_status(const struct https_result *r, enum tls_status want)
{
    cr_assert_eq(r->status, want, "%s: %s", tls_status_name(r->status), r->message);
}

/* assert_page checks that a whole response arrived, with http_status and a body that contains
 * body_part. */
static void assert_page(const struct https_result *r, int http_status, const char *body_part)
{
    assert_status(r, TLS_OK);
    cr_assert_eq(r->http_status, http_status);
    cr_assert(strstr(r->body, body_part) != NULL, "%s", r->body);
}

Test(tls_nginx, page_arrives_over_tls13_and_tls12)
{
    require_nginx();
    static const enum tls_version versions[] = {TLS_VERSION_1_3, TLS_VERSION_1_2};
    static const char *const names[] = {"TLSv1.3", "TLSv1.2"};
    for (size_t i = 0; i < 2; i++) {
        struct https_result r;
        get_once(versions[i], false, PORT_TLS, "localhost", "/hello", &r);
        assert_status(&r, TLS_OK);
        cr_assert_eq(r.http_status, 200);
        cr_assert_eq(r.body_len, strlen("hello over tls\n"));
        cr_assert_eq(memcmp(r.body, "hello over tls\n", r.body_len), 0);
        cr_assert_str_eq(r.version, names[i]);
        free(r.response);
    }
}

Test(tls_nginx, large_file_arrives_intact)
{
    require_nginx();
    struct https_result r;
    get_once(TLS_VERSION_DEFAULT, false, PORT_TLS, "localhost", "/big.bin", &r);
    assert_status(&r, TLS_OK);
    cr_assert_eq(r.http_status, 200);
    cr_assert_eq(r.body_len, BIG_BYTES);
    char *want = malloc(BIG_BYTES);
    cr_assert_not_null(want);
    tp_pattern(want, BIG_BYTES, 3);
    cr_assert_eq(memcmp(r.body, want, BIG_BYTES), 0);
    free(want);
    free(r.response);
}

Test(tls_nginx, next_connection_resumes_the_session)
{
    require_nginx();
    static const enum tls_version versions[] = {TLS_VERSION_1_3, TLS_VERSION_1_2};
    for (size_t i = 0; i < 2; i++) {
        struct tls_context *ctx = client_ctx(versions[i], false);
        struct https_result r;
        https_get(ctx, ports[PORT_TLS], "localhost", "/hello", &r);
        assert_status(&r, TLS_OK);
        cr_assert_not(r.resumed);
        free(r.response);
        https_get(ctx, ports[PORT_TLS], "localhost", "/hello", &r);
        assert_status(&r, TLS_OK);
        cr_assert(r.resumed, "second connection over %s did not resume", r.version);
        free(r.response);
        tls_context_free(ctx);
    }
}

Test(tls_nginx, wrong_host_is_refused)
{
    require_nginx();
    struct https_result r;
    get_once(TLS_VERSION_DEFAULT, false, PORT_TLS, "other.example", "/hello", &r);
    assert_status(&r, TLS_ERR_CERT_WRONG_HOST);
    free(r.response);
}

Test(tls_nginx, system_bundle_refuses_the_test_ca)
{
    require_nginx();
    struct tls_context *ctx = tp_system_ctx();
    struct https_result r;
    https_get(ctx, ports[PORT_TLS], "localhost", "/hello", &r);
    assert_status(&r, TLS_ERR_CERT_UNKNOWN_ISSUER);
    cr_assert(strstr(r.message, "ringperf test CA") != NULL, "%s", r.message);
    free(r.response);
    tls_context_free(ctx);
}

Test(tls_nginx, client_certificate_reaches_the_server)
{
    require_nginx();
    struct https_result r;
    get_once(TLS_VERSION_DEFAULT, true, PORT_MTLS, "localhost", "/", &r);
    assert_page(&r, 200, "ringperf test client");
    free(r.response);
}

Test(tls_nginx, missing_client_certificate_gets_nginx_400)
{
    require_nginx();
    /* nginx completes the handshake and refuses at the HTTP level. */
    struct https_result r;
    get_once(TLS_VERSION_DEFAULT, false, PORT_MTLS, "localhost", "/", &r);
    assert_page(&r, 400, "No required SSL certificate");
    free(r.response);
}

Test(tls_nginx, plain_http_port_is_a_handshake_error)
{
    require_nginx();
    struct https_result r;
    get_once(TLS_VERSION_DEFAULT, false, PORT_PLAIN, "localhost", "/", &r);
    assert_status(&r, TLS_ERR_HANDSHAKE);
    cr_assert(strstr(r.message, "http://") != NULL, "%s", r.message);
    free(r.response);
}
