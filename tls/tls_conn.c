/*
 * tls_conn.c - one TLS connection as a state machine over the caller's byte buffers.
 *
 * The SSL object reads and writes through a custom BIO: reads come straight from the input
 * view the caller passed to the current call (BoringSSL asks for exactly the bytes the record
 * it is assembling still lacks, and keeps a partial record itself), writes land in the
 * connection's send buffer. So received ciphertext is never copied here, and nothing but the
 * send buffer is ours to bound.
 */
#include "tls/tls_internal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <limits.h>
#include <openssl/err.h>
#include <stdlib.h>
#include <string.h>

static int bio_read(BIO *bio, char *out, int len)
{
    struct tls_conn *conn = BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    size_t left = conn->in_len - conn->in_used;
    if (left == 0 || len <= 0) {
        BIO_set_retry_read(bio);
        return -1;
    }
    size_t n = (size_t)len < left ? (size_t)len : left;
    memcpy(out, conn->in + conn->in_used, n);
    conn->in_used += n;
    return (int)n;
}

static int bio_write(BIO *bio, const char *data, int len)
{
    struct tls_conn *conn = BIO_get_data(bio);
    BIO_clear_retry_flags(bio);
    size_t space = conn->out_cap - conn->out_end;
    if (space == 0 || len <= 0) {
        BIO_set_retry_write(bio);
        return -1;
    }
    size_t n = (size_t)len < space ? (size_t)len : space;
    memcpy(conn->out + conn->out_end, data, n);
    conn->out_end += n;
    return (int)n;
}

static long bio_ctrl(BIO *bio, int cmd, long larg, void *parg)
{
    (void)bio;
    (void)larg;
    (void)parg;
    /* BoringSSL flushes after every flight; the bytes are already in the send buffer. */
    return cmd == BIO_CTRL_FLUSH ? 1 : 0;
}

BIO_METHOD *tls__bio_method_new(void)
{
    BIO_METHOD *method = BIO_meth_new(BIO_get_new_index(), "ringperf tls buffers");
    if (method == NULL) {
        return NULL;
    }
    if (BIO_meth_set_read(method, bio_read) != 1 || BIO_meth_set_write(method, bio_write) != 1 ||
        BIO_meth_set_ctrl(method, bio_ctrl) != 1) {
        BIO_meth_free(method);
        return NULL;
    }
    return method;
}

int tls_conn_new(struct tls_context *ctx, struct tls_conn **out_conn)
{
    *out_conn = NULL;
    struct tls_conn *conn = calloc(1, sizeof(*conn));
    if (conn == NULL) {
        return -ENOMEM;
    }
    conn->out = malloc(ctx->send_buffer_bytes);
    if (conn->out == NULL) {
        free(conn);
        return -ENOMEM;
    }
    conn->ctx = ctx;
    conn->out_cap = ctx->send_buffer_bytes;
    conn->failed = TLS_ERR_STATE;
    snprintf(conn->message, sizeof(conn->message), "tls_conn_begin() was not called");
    *out_conn = conn;
    return 0;
}

void tls_conn_free(struct tls_conn *conn)
{
    if (conn == NULL) {
        return;
    }
    SSL_free(conn->ssl);
    free(conn->out);
    free(conn);
}

static void reset(struct tls_conn *conn)
{
    SSL_free(conn->ssl);
    conn->ssl = NULL;
    conn->in = NULL;
    conn->in_len = 0;
    conn->in_used = 0;
    conn->out_start = 0;
    conn->out_end = 0;
    conn->write_retry_len = 0;
    conn->handshake_done = false;
    conn->shutdown_sent = false;
    conn->client_cert_requested = false;
    conn->failed = TLS_OK;
    conn->verify_error = 0;
    conn->verify_depth = 0;
    conn->verify_subject[0] = '\0';
    conn->verify_issuer[0] = '\0';
    conn->verify_not_after[0] = '\0';
    conn->verify_names[0] = '\0';
    conn->message[0] = '\0';
}

/* set_host stores host without IPv6 brackets and reports whether it is an IP literal. */
static bool set_host(struct tls_conn *conn, const char *host, size_t host_len, bool *out_is_ip)
{
    if (host_len >= 2 && host[0] == '[' && host[host_len - 1] == ']') {
        host++;
        host_len -= 2;
    }
    if (host_len == 0 || host_len >= sizeof(conn->host) || memchr(host, '\0', host_len) != NULL) {
        return false;
    }
    memcpy(conn->host, host, host_len);
    conn->host[host_len] = '\0';
    unsigned char addr[16];
    *out_is_ip =
        inet_pton(AF_INET, conn->host, addr) == 1 || inet_pton(AF_INET6, conn->host, addr) == 1;
    return true;
}

static bool configure_ssl(struct tls_conn *conn, bool is_ip)
{
    SSL *ssl = conn->ssl;
    BIO *bio = BIO_new(conn->ctx->bio_method);
    if (bio == NULL) {
        return false;
    }
    BIO_set_data(bio, conn);
    BIO_set_init(bio, 1);
    /* The same BIO both ways: SSL_set_bio then takes our one reference. */
    SSL_set_bio(ssl, bio, bio);
    SSL_set_app_data(ssl, conn);
    SSL_set_connect_state(ssl);
    /* RFC 6066: SNI carries DNS names only, never address literals. */
    if (!is_ip && SSL_set_tlsext_host_name(ssl, conn->host) != 1) {
        return false;
    }
    if (conn->ctx->verify) {
        int ok = is_ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), conn->host)
                       : SSL_set1_host(ssl, conn->host);
        if (ok != 1) {
            return false;
        }
    }
    if (conn->ctx->resumption) {
        SSL_SESSION *session = tls__sessions_take(conn->ctx, conn->host);
        if (session != NULL) {
            SSL_set_session(ssl, session);
            SSL_SESSION_free(session);
        }
    }
    return true;
}

static void set_input(struct tls_conn *conn, const char *in, size_t in_len)
{
    conn->in = in;
    conn->in_len = in != NULL ? in_len : 0;
    conn->in_used = 0;
    ERR_clear_error();
}

/* take_input ends a call's input view and returns how much of it BoringSSL consumed. */
static size_t take_input(struct tls_conn *conn)
{
    size_t used = conn->in_used;
    conn->in = NULL;
    conn->in_len = 0;
    conn->in_used = 0;
    return used;
}

enum tls_status tls_conn_handshake(struct tls_conn *conn, const char *in, size_t in_len,
                                   size_t *out_used)
{
    *out_used = 0;
    if (conn->failed != TLS_OK) {
        return conn->failed;
    }
    if (conn->handshake_done) {
        return TLS_OK;
    }
    set_input(conn, in, in_len);
    int rc = SSL_do_handshake(conn->ssl);
    *out_used = take_input(conn);
    if (rc == 1) {
        conn->handshake_done = true;
        return TLS_OK;
    }
    return tls__status_after(conn, rc);
}

enum tls_status tls_conn_begin(struct tls_conn *conn, const char *host, size_t host_len)
{
    reset(conn);
    bool is_ip = false;
    if (host == NULL || !set_host(conn, host, host_len, &is_ip)) {
        return tls__fail(conn, TLS_ERR_STATE,
                         "invalid TLS server name: it must be 1 to %d bytes without NUL",
                         TLS_HOST_BYTES_MAX - 1);
    }
    conn->ssl = SSL_new(conn->ctx->ssl_ctx);
    if (conn->ssl == NULL || !configure_ssl(conn, is_ip)) {
        ERR_clear_error();
        return tls__fail(conn, TLS_ERR_NOMEM, "out of memory starting TLS with %s", conn->host);
    }
    size_t used = 0;
    enum tls_status status = tls_conn_handshake(conn, NULL, 0, &used);
    /* The send buffer holds at least one record, so the ClientHello always fits. */
    return status == TLS_WANT_WRITE ? TLS_WANT_READ : status;
}

enum tls_status tls_conn_read(struct tls_conn *conn, const char *in, size_t in_len,
                              size_t *out_used, char *out, size_t out_cap, size_t *out_len)
{
    *out_used = 0;
    *out_len = 0;
    if (conn->failed != TLS_OK) {
        return conn->failed;
    }
    if (out_cap == 0) {
        return tls__fail(conn, TLS_ERR_STATE, "tls_conn_read needs an output buffer");
    }
    set_input(conn, in, in_len);
    int rc = SSL_read(conn->ssl, out, out_cap > INT_MAX ? INT_MAX : (int)out_cap);
    *out_used = take_input(conn);
    if (!conn->handshake_done && !SSL_in_init(conn->ssl)) {
        conn->handshake_done = true;
    }
    if (rc > 0) {
        *out_len = (size_t)rc;
        return TLS_OK;
    }
    return tls__status_after(conn, rc);
}

/* Application data leaves this much of the send buffer free, so that what BoringSSL writes on
 * its own while reading (alerts, KeyUpdate acknowledgements) always fits, and a read never has
 * to stop with input left over for want of send space. */
#define CONTROL_HEADROOM_BYTES 1024

/* write_chunk returns how many plaintext bytes the next SSL_write may take so that its record
 * fits the send buffer whole, or 0 when the buffer is too full for any. */
static size_t write_chunk(const struct tls_conn *conn, size_t left)
{
    if (conn->write_retry_len > 0) {
        return conn->write_retry_len;
    }
    size_t overhead = SSL_max_seal_overhead(conn->ssl) + CONTROL_HEADROOM_BYTES;
    size_t space = conn->out_cap - conn->out_end;
    if (space <= overhead) {
        return 0;
    }
    size_t chunk = space - overhead;
    if (chunk > SSL3_RT_MAX_PLAIN_LENGTH) {
        chunk = SSL3_RT_MAX_PLAIN_LENGTH;
    }
    return chunk < left ? chunk : left;
}

enum tls_status tls_conn_write(struct tls_conn *conn, const char *data, size_t len,
                               size_t *out_used)
{
    *out_used = 0;
    if (conn->failed != TLS_OK) {
        return conn->failed;
    }
    if (!conn->handshake_done || conn->shutdown_sent) {
        return tls__fail(conn, TLS_ERR_STATE, "tls_conn_write %s",
                         conn->shutdown_sent ? "after tls_conn_shutdown"
                                             : "before the handshake completed");
    }
    size_t used = 0;
    while (used < len) {
        size_t chunk = write_chunk(conn, len - used);
        if (chunk == 0) {
            break;
        }
        if (chunk > len - used) {
            return tls__fail(conn, TLS_ERR_STATE,
                             "tls_conn_write retried with fewer bytes than it refused");
        }
        set_input(conn, NULL, 0);
        int rc = SSL_write(conn->ssl, data + used, (int)chunk);
        if (rc > 0) {
            used += (size_t)rc;
            conn->write_retry_len = 0;
            continue;
        }
        enum tls_status status = tls__status_after(conn, rc);
        if (status != TLS_WANT_WRITE) {
            return status == TLS_WANT_READ
                       ? tls__fail(conn, TLS_ERR_PROTOCOL, "%s asked to renegotiate", conn->host)
                       : status;
        }
        conn->write_retry_len = chunk;
        break;
    }
    *out_used = used;
    return used > 0 || len == 0 ? TLS_OK : TLS_WANT_WRITE;
}

size_t tls_conn_pending(const struct tls_conn *conn, const char **out_data)
{
    *out_data = conn->out + conn->out_start;
    return conn->out_end - conn->out_start;
}

void tls_conn_consume(struct tls_conn *conn, size_t len)
{
    size_t pending = conn->out_end - conn->out_start;
    conn->out_start += len < pending ? len : pending;
    if (conn->out_start == conn->out_end) {
        conn->out_start = 0;
        conn->out_end = 0;
    }
}

enum tls_status tls_conn_shutdown(struct tls_conn *conn)
{
    if (conn->failed != TLS_OK) {
        return conn->failed;
    }
    if (!conn->handshake_done) {
        return tls__fail(conn, TLS_ERR_STATE, "tls_conn_shutdown before the handshake completed");
    }
    conn->shutdown_sent = true;
    set_input(conn, NULL, 0);
    int rc = SSL_shutdown(conn->ssl);
    if (rc >= 0) {
        return TLS_OK;
    }
    return tls__status_after(conn, rc);
}

enum tls_status tls_conn_eof(struct tls_conn *conn)
{
    if (conn->failed != TLS_OK) {
        return conn->failed;
    }
    if ((SSL_get_shutdown(conn->ssl) & SSL_RECEIVED_SHUTDOWN) != 0) {
        return TLS_CLOSED;
    }
    if (conn->handshake_done) {
        return tls__fail(conn, TLS_ERR_TRUNCATED,
                         "%s closed the connection without a TLS close_notify: the response may "
                         "be truncated",
                         conn->host);
    }
    if (conn->client_cert_requested && !conn->ctx->have_client_cert) {
        return tls__fail(conn, TLS_ERR_CLIENT_CERT_REQUIRED,
                         "%s asked for a client certificate and closed the connection: pass "
                         "--tls-cert FILE and --tls-key FILE",
                         conn->host);
    }
    return tls__fail(conn, TLS_ERR_HANDSHAKE,
                     "%s closed the connection during the TLS handshake: check that the port "
                     "serves TLS and accepts TLS 1.2 or 1.3",
                     conn->host);
}

bool tls_conn_handshake_done(const struct tls_conn *conn)
{
    return conn->handshake_done;
}

bool tls_conn_resumed(const struct tls_conn *conn)
{
    return conn->handshake_done && SSL_session_reused(conn->ssl) == 1;
}

const char *tls_conn_version(const struct tls_conn *conn)
{
    return conn->handshake_done ? SSL_get_version(conn->ssl) : "unknown";
}

const char *tls_conn_cipher(const struct tls_conn *conn)
{
    const SSL_CIPHER *cipher = conn->handshake_done ? SSL_get_current_cipher(conn->ssl) : NULL;
    return cipher != NULL ? SSL_CIPHER_standard_name(cipher) : "none";
}

const char *tls_conn_alpn(const struct tls_conn *conn)
{
    const uint8_t *proto = NULL;
    unsigned len = 0;
    if (conn->ssl != NULL) {
        SSL_get0_alpn_selected(conn->ssl, &proto, &len);
    }
    if (len == 8 && memcmp(proto, "http/1.1", 8) == 0) {
        return "http/1.1";
    }
    return "";
}

const char *tls_conn_error_message(const struct tls_conn *conn)
{
    return conn->failed != TLS_OK ? conn->message : "";
}
