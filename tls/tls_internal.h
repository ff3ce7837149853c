/*
 * tls_internal.h - the context and connection layouts shared by the files of tls/, and the
 * BoringSSL-facing helpers. Internal to tls/: nothing outside includes BoringSSL headers.
 */
#ifndef RINGPERF_TLS_INTERNAL_H
#define RINGPERF_TLS_INTERNAL_H

#include <openssl/ssl.h>
#include <pthread.h>

#include "tls/tls.h"

/* One cached session and the server name it was made with. */
struct tls__session {
    SSL_SESSION *session; /* owned reference */
    char host[TLS_HOST_BYTES_MAX];
};

struct tls_context {
    SSL_CTX *ssl_ctx;
    BIO_METHOD *bio_method; /* the buffer BIO every connection's SSL reads and writes */
    bool verify;
    bool have_client_cert;
    bool resumption;
    size_t send_buffer_bytes;
    pthread_mutex_t lock;                                /* guards sessions and session_count */
    struct tls__session sessions[TLS_SESSION_CACHE_MAX]; /* oldest first */
    size_t session_count;
};

struct tls_conn {
    struct tls_context *ctx;
    SSL *ssl; /* NULL until tls_conn_begin() */
    char host[TLS_HOST_BYTES_MAX];

    /* The caller's received ciphertext during one call: BoringSSL reads it through the BIO. */
    const char *in;
    size_t in_len;
    size_t in_used;

    /* The send buffer: [out_start, out_end) waits to be sent. Appends go at out_end; bytes
     * move back to offset 0 only once everything was consumed, so a pending view stays put. */
    char *out;
    size_t out_cap;
    size_t out_start;
    size_t out_end;
    /* Length of an SSL_write that returned WANT_WRITE: BoringSSL wants it retried as is. */
    size_t write_retry_len;

    bool handshake_done;
    bool shutdown_sent;
    bool client_cert_requested; /* the server sent a CertificateRequest */
    enum tls_status failed;     /* TLS_OK, or the sticky TLS_ERR_* value */

    /* The first certificate verification failure, recorded by the verify callback. */
    long verify_error; /* X509_V_OK (0) when none */
    int verify_depth;
    char verify_subject[160];
    char verify_issuer[160];
    char verify_not_after[40];
    char verify_names[200]; /* the subjectAltNames of the failing certificate */

    char message[TLS_ERROR_MESSAGE_BYTES];
};

/* tls__bio_method_new returns the BIO method that connects an SSL to its tls_conn's input
 * view and send buffer (owned by the caller: BIO_meth_free), or NULL. */
BIO_METHOD *tls__bio_method_new(void);

/* tls__verify_callback records the first verification failure on the connection (for the
 * error message) and fails the handshake; installed by tls_context_new(). */
int tls__verify_callback(int preverify_ok, X509_STORE_CTX *store);

/* tls__status_after maps the return value rc of a failed SSL_do_handshake, SSL_read,
 * SSL_write or SSL_shutdown on conn to a status. Errors become sticky with a message; the
 * thread's BoringSSL error queue is left empty. */
enum tls_status tls__status_after(struct tls_conn *conn, int rc);

/* tls__fail makes status the connection's sticky error with a formatted message, and
 * returns status. */
enum tls_status tls__fail(struct tls_conn *conn, enum tls_status status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/* tls__sessions_take returns a cached session for host with a reference the caller owns, or
 * NULL. Single-use (TLS 1.3) sessions leave the cache; others stay for the next connection. */
SSL_SESSION *tls__sessions_take(struct tls_context *ctx, const char *host);

/* tls__sessions_put adds session (taking ownership of the reference) made with host. */
void tls__sessions_put(struct tls_context *ctx, const char *host, SSL_SESSION *session);

#endif
