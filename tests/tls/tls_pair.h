/*
 * tls_pair.h - test helpers for tls/: certificates generated at test time with the openssl
 * CLI (tests/tls/gen_certs.sh), and an in-memory pair of our client tls_conn and a BoringSSL
 * server SSL whose bytes the test shuttles, fed to the client in steps of any size.
 */
#ifndef RINGPERF_TESTS_TLS_PAIR_H
#define RINGPERF_TESTS_TLS_PAIR_H

#include <criterion/criterion.h>
#include <errno.h>
#include <ftw.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tls/tls.h"

#define TP_PATH_BYTES 512

/* tp_path writes dir/name into out. */
static inline const char *tp_path(char *out, const char *dir, const char *name)
{
    int n = snprintf(out, TP_PATH_BYTES, "%s/%s", dir, name);
    cr_assert(n > 0 && n < TP_PATH_BYTES, "path too long");
    return out;
}

/* tp_run runs argv (argv[0] searched in PATH) and returns its exit status, -1 if it could
 * not run. */
static inline int tp_run(char *const argv[])
{
    pid_t pid = fork();
    if (pid == 0) {
        execvp(argv[0], argv);
        _exit(127);
    }
    if (pid < 0) {
        return -1;
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status)) {
        return -1;
    }
    return WEXITSTATUS(status);
}

/* tp_make_certs creates a temporary directory holding the certificates gen_certs.sh makes. */
static inline void tp_make_certs(char *dir, size_t cap)
{
    snprintf(dir, cap, "/tmp/ringperf-tls-XXXXXX");
    cr_assert_not_null(mkdtemp(dir), "mkdtemp: %s", strerror(errno));
    char *argv[] = {"sh", TLS_TEST_SOURCE_DIR "/gen_certs.sh", dir, NULL};
    cr_assert_eq(tp_run(argv), 0, "gen_certs.sh failed (is the openssl CLI installed?)");
}

static int tp_remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

/* tp_remove_dir deletes dir and everything in it. */
static inline void tp_remove_dir(const char *dir)
{
    if (dir[0] != '\0') {
        nftw(dir, tp_remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    }
}

/* tp_client_ctx makes a client context trusting dir/ca.crt (unless opts says otherwise). */
static inline struct tls_context *tp_client_ctx(const char *dir, struct tls_options *opts)
{
    struct tls_options defaults = {0};
    char ca[TP_PATH_BYTES];
    if (opts == NULL) {
        opts = &defaults;
    }
    if (opts->ca_file == NULL && !opts->verify_disabled) {
        opts->ca_file = tp_path(ca, dir, "ca.crt");
    }
    struct tls_context *ctx = NULL;
    char err[512] = "";
    int rc = tls_context_new(opts, &ctx, err, sizeof(err));
    cr_assert_eq(rc, 0, "tls_context_new: %s", err);
    return ctx;
}

/* tp_system_ctx makes a client context with no options: it trusts the system CA bundle. Skips
 * the test when the system has none. */
static inline struct tls_context *tp_system_ctx(void)
{
    struct tls_options opts = {0};
    struct tls_context *ctx = NULL;
    char err[512] = "";
    int rc = tls_context_new(&opts, &ctx, err, sizeof(err));
    if (rc == -ENOENT) {
        cr_skip_test("no system CA bundle here: %s", err);
    }
    cr_assert_eq(rc, 0, "%s", err);
    return ctx;
}

static int tp_select_alpn(SSL *ssl, const uint8_t **out, uint8_t *out_len, const uint8_t *in,
                          unsigned in_len, void *arg)
{
    (void)ssl;
    (void)arg;
    static const uint8_t ours[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    uint8_t *selected = NULL;
    if (SSL_select_next_proto(&selected, out_len, in, in_len, ours, sizeof(ours)) !=
        OPENSSL_NPN_NEGOTIATED) {
        return SSL_TLSEXT_ERR_NOACK;
    }
    *out = selected;
    return SSL_TLSEXT_ERR_OK;
}

enum tp_client_cert { TP_NO_CLIENT_CERT, TP_REQUEST_CLIENT_CERT, TP_REQUIRE_CLIENT_CERT };

/* tp_server_ctx makes a BoringSSL server context serving dir/<cert_name> with server.key, at
 * most max_version, asking for client certificates issued by dir/ca.crt as mode says. */
static inline SSL_CTX *tp_server_ctx(const char *dir, const char *cert_name, uint16_t max_version,
                                     enum tp_client_cert mode)
{
    char path[TP_PATH_BYTES];
    SSL_CTX *ctx = SSL_CTX_new(TLS_method());
    cr_assert_not_null(ctx);
    cr_assert_eq(SSL_CTX_use_certificate_chain_file(ctx, tp_path(path, dir, cert_name)), 1);
    cr_assert_eq(
        SSL_CTX_use_PrivateKey_file(ctx, tp_path(path, dir, "server.key"), SSL_FILETYPE_PEM), 1);
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_max_proto_version(ctx, max_version);
    SSL_CTX_set_alpn_select_cb(ctx, tp_select_alpn, NULL);
    static const uint8_t sid_ctx[] = "ringperf-test";
    SSL_CTX_set_session_id_context(ctx, sid_ctx, sizeof(sid_ctx));
    if (mode != TP_NO_CLIENT_CERT) {
        cr_assert_eq(SSL_CTX_load_verify_locations(ctx, tp_path(path, dir, "ca.crt"), NULL), 1);
        int verify = SSL_VERIFY_PEER;
        if (mode == TP_REQUIRE_CLIENT_CERT) {
            verify |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
        }
        SSL_CTX_set_verify(ctx, verify, NULL);
    }
    return ctx;
}

/* tp_pair is our client and a BoringSSL server connected through memory. */
struct tp_pair {
    struct tls_context *ctx; /* the client's context */
    SSL_CTX *server_ctx;     /* the server's context */
    bool owns_contexts;      /* tp_pair_free frees ctx and server_ctx (tp_pair_open) */
    struct tls_conn *client;
    SSL *server;
    BIO *server_in;  /* the client's ciphertext, which the server reads */
    BIO *server_out; /* the server's ciphertext, which the test feeds to the client */
    size_t step;     /* feed the client at most this many bytes per call */
    char *plain;     /* plaintext the client decrypted, in order */
    size_t plain_len;
    size_t plain_cap;
    size_t read_cap; /* out_cap passed to tls_conn_read */
};

/* tp_pair_server gives the pair a fresh server SSL on server_ctx, as if the client had
 * connected again on a new socket. */
static inline void tp_pair_server(struct tp_pair *p)
{
    SSL_free(p->server);
    p->server = SSL_new(p->server_ctx);
    p->server_in = BIO_new(BIO_s_mem());
    p->server_out = BIO_new(BIO_s_mem());
    cr_assert(p->server != NULL && p->server_in != NULL && p->server_out != NULL);
    BIO_set_mem_eof_return(p->server_in, -1);
    BIO_set_mem_eof_return(p->server_out, -1);
    SSL_set_bio(p->server, p->server_in, p->server_out);
    SSL_set_accept_state(p->server);
    p->plain_len = 0;
}

/* tp_pair_init creates the client conn on ctx and a fresh server SSL on server_ctx; both
 * contexts are borrowed and must outlive the pair. */
static inline void tp_pair_init(struct tp_pair *p, struct tls_context *ctx, SSL_CTX *server_ctx,
                                size_t step)
{
    *p = (struct tp_pair){.ctx = ctx, .server_ctx = server_ctx, .step = step, .read_cap = 16384};
    cr_assert_eq(tls_conn_new(ctx, &p->client), 0);
    tp_pair_server(p);
}

/* tp_pair_open is tp_pair_init, but the pair takes ownership of both contexts. */
static inline void tp_pair_open(struct tp_pair *p, struct tls_context *ctx, SSL_CTX *server_ctx,
                                size_t step)
{
    tp_pair_init(p, ctx, server_ctx, step);
    p->owns_contexts = true;
}

/* tp_pair_free frees the pair, and its contexts when it owns them. */
static inline void tp_pair_free(struct tp_pair *p)
{
    tls_conn_free(p->client);
    SSL_free(p->server);
    free(p->plain);
    if (p->owns_contexts) {
        SSL_CTX_free(p->server_ctx);
        tls_context_free(p->ctx);
    }
    *p = (struct tp_pair){0};
}

/* tp_to_server moves every pending client byte to the server. */
static inline size_t tp_to_server(struct tp_pair *p)
{
    const char *data = NULL;
    size_t n = tls_conn_pending(p->client, &data);
    if (n > 0) {
        cr_assert_eq(BIO_write(p->server_in, data, (int)n), (int)n);
        tls_conn_consume(p->client, n);
    }
    return n;
}

static inline void tp_keep_plain(struct tp_pair *p, const char *data, size_t n)
{
    if (n == 0) {
        return;
    }
    if (p->plain_len + n > p->plain_cap) {
        p->plain_cap = (p->plain_len + n) * 2;
        p->plain = realloc(p->plain, p->plain_cap);
        cr_assert_not_null(p->plain);
    }
    memcpy(p->plain + p->plain_len, data, n);
    p->plain_len += n;
}

/* tp_feed_chunk feeds one chunk to the client until it is consumed or the client stops. */
static inline enum tls_status tp_feed_chunk(struct tp_pair *p, const char *chunk, size_t len)
{
    char out[16384];
    size_t pos = 0;
    cr_assert(p->read_cap <= sizeof(out));
    for (;;) {
        size_t used = 0;
        size_t n = 0;
        enum tls_status st;
        if (!tls_conn_handshake_done(p->client)) {
            st = tls_conn_handshake(p->client, chunk + pos, len - pos, &used);
        } else {
            st = tls_conn_read(p->client, chunk + pos, len - pos, &used, out, p->read_cap, &n);
            tp_keep_plain(p, out, n);
        }
        cr_assert_leq(used, len - pos);
        pos += used;
        if (st == TLS_OK) {
            continue;
        }
        if (st == TLS_WANT_WRITE) {
            cr_assert_gt(tp_to_server(p), 0, "WANT_WRITE with nothing pending");
            continue;
        }
        if (st == TLS_WANT_READ) {
            cr_assert_eq(pos, len, "WANT_READ left %zu input bytes", len - pos);
        }
        return st;
    }
}

/* tp_feed feeds len bytes to the client in steps of p->step. Returns TLS_WANT_READ when all
 * were consumed, or the status that stopped the client. */
static inline enum tls_status tp_feed(struct tp_pair *p, const char *data, size_t len)
{
    enum tls_status st = TLS_WANT_READ;
    for (size_t off = 0; off < len; off += p->step) {
        size_t k = len - off < p->step ? len - off : p->step;
        st = tp_feed_chunk(p, data + off, k);
        if (st != TLS_WANT_READ) {
            return st;
        }
    }
    return st;
}

/* tp_from_server feeds everything the server wrote to the client. */
static inline enum tls_status tp_from_server(struct tp_pair *p)
{
    const uint8_t *data = NULL;
    size_t len = 0;
    cr_assert_eq(BIO_mem_contents(p->server_out, &data, &len), 1);
    char *copy = malloc(len + 1);
    cr_assert_not_null(copy);
    memcpy(copy, data, len);
    BIO_reset(p->server_out);
    enum tls_status st = tp_feed(p, copy, len);
    free(copy);
    return st;
}

/* tp_handshake runs both handshakes to completion with host as the client's server name.
 * Returns TLS_OK, or the client's failure status (after the server's alert reached it). */
static inline enum tls_status tp_handshake(struct tp_pair *p, const char *host)
{
    enum tls_status st = tls_conn_begin(p->client, host, strlen(host));
    if (st != TLS_WANT_READ) {
        return st;
    }
    for (int round = 0; round < 16; round++) {
        tp_to_server(p);
        int rc = SSL_do_handshake(p->server);
        bool server_failed = rc <= 0 && SSL_get_error(p->server, rc) != SSL_ERROR_WANT_READ;
        ERR_clear_error();
        st = tp_from_server(p);
        if (st >= TLS_ERR_FIRST || st == TLS_CLOSED) {
            return st;
        }
        if (server_failed) {
            /* The server's alert reached the client without failing it: report via eof. */
            return tls_conn_eof(p->client);
        }
        if (rc == 1 && tls_conn_handshake_done(p->client)) {
            tp_to_server(p);
            return TLS_OK;
        }
    }
    cr_assert_fail("handshake did not finish in 16 rounds");
    return TLS_ERR_INTERNAL;
}

/* tp_server_write has the server send len bytes. */
static inline void tp_server_write(struct tp_pair *p, const char *data, size_t len)
{
    size_t off = 0;
    while (off < len) {
        size_t n = len - off > 16384 ? 16384 : len - off;
        int rc = SSL_write(p->server, data + off, (int)n);
        cr_assert_gt(rc, 0, "server SSL_write failed");
        off += (size_t)rc;
    }
}

/* tp_server_read appends to buf (capacity cap, length *len) whatever the server can read now,
 * and returns SSL_get_error's verdict on the last read. */
static inline int tp_server_read(struct tp_pair *p, char *buf, size_t cap, size_t *len)
{
    for (;;) {
        size_t room = cap - *len;
        int rc = SSL_read(p->server, buf + *len, room > 16384 ? 16384 : (int)room);
        if (rc <= 0) {
            int kind = SSL_get_error(p->server, rc);
            ERR_clear_error();
            return kind;
        }
        *len += (size_t)rc;
        if (*len == cap) {
            return SSL_ERROR_NONE;
        }
    }
}

/* tp_pattern fills buf with bytes that differ with position and seed. */
static inline void tp_pattern(char *buf, size_t len, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 1;
    for (size_t i = 0; i < len; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        buf[i] = (char)(x & 0xff);
    }
}

#endif
