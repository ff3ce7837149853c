/*
 * fuzz_tls_records.c - a client tls_conn mid-handshake fed hostile ciphertext, in two modes:
 * raw bytes as the whole server side, or a genuine server flight (from an in-process BoringSSL
 * server with a certificate made here) with the input XORed into it or spliced over its tail.
 * Whatever arrives, every call must return a defined status with its input accounting in
 * range, errors must be sticky with a message, and the pending view must stay bounded.
 *
 * Input: byte 0 picks the mode, the client context (verifying or not) and the feed step;
 * bytes 1-2 the offset for the genuine-flight modes; the rest is the payload.
 */
#include <openssl/ec_key.h>
#include <openssl/evp.h>
#include <openssl/nid.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tls/tls.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Made once per process: contexts are per-run objects, and making them per input would spend
 * the time in certificate loading instead of in the record layer. */
struct fuzz_state {
    struct tls_context *verifying; /* NULL when there is no system CA bundle */
    struct tls_context *trusting;
    SSL_CTX *server;
};

static SSL_CTX *make_server(void)
{
    EC_KEY *ec = EC_KEY_new_by_curve_name(NID_X9_62_prime256v1);
    EVP_PKEY *key = EVP_PKEY_new();
    X509 *cert = X509_new();
    SSL_CTX *ctx = SSL_CTX_new(TLS_method());
    if (ec == NULL || key == NULL || cert == NULL || ctx == NULL || !EC_KEY_generate_key(ec) ||
        !EVP_PKEY_assign_EC_KEY(key, ec)) {
        abort();
    }
    X509_NAME *name = X509_get_subject_name(cert);
    X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC, (const uint8_t *)"localhost", -1, -1, 0);
    X509_set_version(cert, X509_VERSION_3);
    ASN1_INTEGER_set(X509_get_serialNumber(cert), 1);
    X509_gmtime_adj(X509_getm_notBefore(cert), 0);
    X509_gmtime_adj(X509_getm_notAfter(cert), 86400);
    X509_set_issuer_name(cert, name);
    X509_set_pubkey(cert, key);
    if (!X509_sign(cert, key, EVP_sha256()) || !SSL_CTX_use_certificate(ctx, cert) ||
        !SSL_CTX_use_PrivateKey(ctx, key)) {
        abort();
    }
    X509_free(cert);
    EVP_PKEY_free(key);
    return ctx;
}

static struct fuzz_state *state(void)
{
    static struct fuzz_state s;
    static bool ready;
    if (ready) {
        return &s;
    }
    char err[512];
    struct tls_options verify = {0};
    if (tls_context_new(&verify, &s.verifying, err, sizeof(err)) != 0) {
        s.verifying = NULL;
    }
    FILE *quiet = fopen("/dev/null", "w");
    struct tls_options trust = {.verify_disabled = true, .warning_stream = quiet};
    if (tls_context_new(&trust, &s.trusting, err, sizeof(err)) != 0) {
        abort();
    }
    if (quiet != NULL) {
        fclose(quiet);
    }
    s.server = make_server();
    ready = true;
    return &s;
}

static void check_pending(const struct tls_conn *conn)
{
    const char *view = NULL;
    if (tls_conn_pending(conn, &view) > TLS_SEND_BUFFER_BYTES_DEFAULT || view == NULL) {
        abort();
    }
}

/* feed gives the client len bytes in steps; returns the last status. */
static enum tls_status feed(struct tls_conn *conn, const char *in, size_t len, size_t step)
{
    enum tls_status st = TLS_WANT_READ;
    size_t pos = 0;
    while (pos < len) {
        size_t end = len - pos > step ? pos + step : len;
        while (pos < end) {
            char out[512];
            size_t used = 0;
            size_t n = 0;
            if (!tls_conn_handshake_done(conn)) {
                st = tls_conn_handshake(conn, in + pos, end - pos, &used);
            } else {
                st = tls_conn_read(conn, in + pos, end - pos, &used, out, sizeof(out), &n);
            }
            if (used > end - pos || n > sizeof(out)) {
                abort();
            }
            pos += used;
            check_pending(conn);
            tls_conn_consume(conn, 1u << 20);
            if (st >= TLS_ERR_FIRST) {
                if (tls_conn_error_message(conn)[0] == '\0' || tls_conn_eof(conn) != st) {
                    abort();
                }
                return st;
            }
            if (st == TLS_CLOSED || (st == TLS_WANT_READ && pos < end)) {
                return st;
            }
        }
    }
    return st;
}

/* server_flight returns the genuine server's answer to conn's ClientHello (owned by caller). */
static char *server_flight(struct fuzz_state *s, struct tls_conn *conn, size_t *out_len)
{
    SSL *server = SSL_new(s->server);
    BIO *in = BIO_new(BIO_s_mem());
    BIO *out = BIO_new(BIO_s_mem());
    if (server == NULL || in == NULL || out == NULL) {
        abort();
    }
    SSL_set_bio(server, in, out);
    SSL_set_accept_state(server);
    const char *hello = NULL;
    size_t hello_len = tls_conn_pending(conn, &hello);
    BIO_write(in, hello, (int)hello_len);
    tls_conn_consume(conn, hello_len);
    SSL_do_handshake(server);
    const uint8_t *flight = NULL;
    size_t len = 0;
    BIO_mem_contents(out, &flight, &len);
    char *copy = malloc(len + 1);
    if (copy == NULL) {
        abort();
    }
    memcpy(copy, flight, len);
    *out_len = len;
    SSL_free(server);
    return copy;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3) {
        return 0;
    }
    struct fuzz_state *s = state();
    unsigned mode = data[0] & 3;
    struct tls_context *ctx =
        (data[0] & 4) != 0 && s->verifying != NULL ? s->verifying : s->trusting;
    size_t step = 1 + (data[0] >> 3) * 97;
    size_t offset = (size_t)data[1] << 8 | data[2];
    const char *payload = (const char *)data + 3;
    size_t payload_len = size - 3;

    struct tls_conn *conn = NULL;
    if (tls_conn_new(ctx, &conn) != 0 || tls_conn_begin(conn, "localhost", 9) != TLS_WANT_READ) {
        abort();
    }
    char *bytes = NULL;
    size_t len = 0;
    if (mode == 0) {
        bytes = malloc(payload_len + 1);
        memcpy(bytes, payload, payload_len);
        len = payload_len;
    } else {
        bytes = server_flight(s, conn, &len);
        size_t at = len > 0 ? offset % len : 0;
        if (mode == 1) {
            for (size_t i = 0; i < payload_len && at + i < len; i++) {
                bytes[at + i] ^= payload[i];
            }
        } else {
            bytes = realloc(bytes, at + payload_len + 1);
            memcpy(bytes + at, payload, payload_len);
            len = at + payload_len;
        }
    }
    if (bytes == NULL) {
        abort();
    }
    enum tls_status st = feed(conn, bytes, len, step);
    if (st < TLS_ERR_FIRST) {
        enum tls_status end = tls_conn_eof(conn);
        if (end != TLS_CLOSED && end < TLS_ERR_FIRST) {
            abort();
        }
    }
    free(bytes);
    tls_conn_free(conn);
    return 0;
}
