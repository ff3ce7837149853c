/*
 * tls.h - TLS for an io_uring engine: BoringSSL driven as a pure state machine over byte
 * buffers, so that the engine keeps owning every socket operation and http/ never sees TLS.
 *
 * The module does no socket I/O. Per connection the caller:
 *   - feeds ciphertext it received to tls_conn_handshake() / tls_conn_read(), which consume
 *     it and (for read) write decrypted plaintext into a caller buffer;
 *   - queues plaintext with tls_conn_write(), which encrypts it at once into the connection's
 *     send buffer;
 *   - sends what tls_conn_pending() shows and reports what the kernel took with
 *     tls_conn_consume().
 * Handshake flights, alerts, session tickets and key updates travel the same way, so after
 * every call that returned anything but an error the caller checks tls_conn_pending().
 *
 * Ciphertext is never buffered here: BoringSSL reads straight from the caller's input view
 * and keeps at most one partial record of its own. Plaintext is decrypted straight into the
 * caller's buffer. The only buffer the module owns is the per-connection send buffer, sized
 * once by tls_conn_new() from tls_options.send_buffer_bytes; nothing is allocated per
 * request (BoringSSL allocates its per-connection state in tls_conn_begin()).
 *
 * Every failure is a value of enum tls_status plus a message (tls_conn_error_message()) that
 * says what failed (expired certificate, wrong host, unknown issuer, handshake failure...) and
 * how to fix it. BoringSSL's 1/0 returns, SSL_get_error() and its error queue stay inside.
 *
 * Threads: a tls_context is created once per run and may then be used by any number of
 * threads at once (its session cache takes a lock when a connection starts or a server sends
 * a ticket, never per request). A tls_conn is used by one thread at a time.
 */
#ifndef RINGPERF_TLS_H
#define RINGPERF_TLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* TLS_HOST_BYTES_MAX bounds a server name (DNS name or IP literal) plus its NUL. */
#define TLS_HOST_BYTES_MAX 256

/* TLS_ERROR_MESSAGE_BYTES is the size of a connection's error message, NUL included. */
#define TLS_ERROR_MESSAGE_BYTES 512

/* TLS_SEND_BUFFER_BYTES_DEFAULT is a connection's send buffer when
 * tls_options.send_buffer_bytes is 0; TLS_SEND_BUFFER_BYTES_MIN (one full record with its
 * overhead) and TLS_SEND_BUFFER_BYTES_MAX bound the option. */
#define TLS_SEND_BUFFER_BYTES_DEFAULT (64 * 1024)
#define TLS_SEND_BUFFER_BYTES_MIN (17 * 1024)
#define TLS_SEND_BUFFER_BYTES_MAX (16 * 1024 * 1024)

/* TLS_SESSION_CACHE_MAX bounds the sessions a context keeps for resumption; the oldest is
 * dropped when a new one arrives. */
#define TLS_SESSION_CACHE_MAX 64

/* tls_version selects a protocol version bound in tls_options. */
enum tls_version {
    TLS_VERSION_DEFAULT = 0, /* TLS 1.2 as the minimum, TLS 1.3 as the maximum */
    TLS_VERSION_1_2,
    TLS_VERSION_1_3,
};

/* tls_status is the result of every tls_conn_* step. Values below TLS_ERR_FIRST are
 * progress; the TLS_ERR_* values are failures after which the connection is unusable (every
 * later call returns the same value) until tls_conn_begin() starts a new one. */
enum tls_status {
    TLS_OK = 0,     /* progress: see each function for what it means */
    TLS_WANT_READ,  /* every input byte was consumed; more ciphertext from the socket is needed */
    TLS_WANT_WRITE, /* the send buffer is full: send tls_conn_pending(), then call again */
    TLS_CLOSED,     /* the peer ended the stream cleanly with close_notify */

    TLS_ERR_FIRST,
    TLS_ERR_CERT_EXPIRED = TLS_ERR_FIRST, /* the server's certificate (or its CA's) expired */
    TLS_ERR_CERT_NOT_YET_VALID,           /* ... is not valid yet: check the clock */
    TLS_ERR_CERT_WRONG_HOST,              /* ... is valid, but not for the host in the URL */
    TLS_ERR_CERT_UNKNOWN_ISSUER,          /* ... chains to no trusted CA (or is self-signed) */
    TLS_ERR_CERT_INVALID,                 /* ... failed verification for another reason */
    TLS_ERR_CLIENT_CERT_REQUIRED,         /* the server wants a client certificate; none set */
    TLS_ERR_CLIENT_CERT_REJECTED,         /* the server refused the client certificate */
    TLS_ERR_HANDSHAKE, /* no common version/cipher, a fatal alert, not a TLS server... */
    TLS_ERR_PROTOCOL,  /* after the handshake: a corrupt record or a fatal alert */
    TLS_ERR_TRUNCATED, /* the peer closed the socket without close_notify */
    TLS_ERR_STATE,     /* API misuse: e.g. write before the handshake completed */
    TLS_ERR_NOMEM,     /* allocation failed */
    TLS_ERR_INTERNAL,  /* anything BoringSSL reports that fits nowhere above */
};

/* tls_options configures a tls_context. Zero-initialise, then set what is needed; strings
 * are borrowed for the duration of tls_context_new() only. */
struct tls_options {
    /* verify_disabled skips certificate and host name verification. tls_context_new() then
     * prints a warning naming verify_disabled_source (e.g. "--tls-insecure"; NULL reads as
     * "the configuration") to warning_stream. */
    bool verify_disabled;
    const char *verify_disabled_source;
    FILE *warning_stream; /* NULL = stderr */
    /* ca_file holds PEM trust anchors that replace the system bundle (--tls-ca). When NULL,
     * default_ca_file is used (SSL_CERT_FILE, see tls_options_apply_env()), and when that is
     * NULL too, the system bundle (/etc/ssl/certs/ca-certificates.crt and the other usual
     * places). */
    const char *ca_file;
    const char *default_ca_file;
    /* cert_file (PEM chain, leaf first) and key_file (PEM private key) are the client
     * certificate offered when a server asks for one (--tls-cert, --tls-key). Both or
     * neither; key_file NULL means the key is in cert_file. */
    const char *cert_file;
    const char *key_file;
    enum tls_version min_version;
    enum tls_version max_version;
    bool resumption_disabled; /* never resume sessions (for handshake benchmarks) */
    size_t send_buffer_bytes; /* per connection; 0 = TLS_SEND_BUFFER_BYTES_DEFAULT */
};

/* tls_options_apply_env applies the environment AIPerf honours to opts: SSL_CERT_FILE sets
 * default_ca_file (a view into envp, which must outlive opts' use), and
 * AIPERF_HTTP_SSL_VERIFY set to false/0/no/off (any case) sets verify_disabled with its
 * source. envp is an environ-style NULL-terminated array (pass `environ`). Returns 0, or
 * -EINVAL with a message in errbuf when AIPERF_HTTP_SSL_VERIFY is not a boolean. */
int tls_options_apply_env(struct tls_options *opts, char *const *envp, char *errbuf, size_t errcap);

/* tls_context is the per-run TLS configuration: BoringSSL's SSL_CTX with the trust store,
 * client certificate, versions, ALPN "http/1.1" and the client session cache. Opaque. */
struct tls_context;

/* tls_context_new validates opts, loads the trust anchors and client certificate, and
 * stores a new context in *out_ctx (owned by the caller: free with tls_context_free() after
 * every tls_conn made from it). Prints the warning described at tls_options when
 * verification is off. Returns 0, or -EINVAL (bad option, unreadable or invalid CA,
 * certificate or key file; errbuf says which and why), -ENOENT (no system CA bundle found
 * and no CA file given), or -ENOMEM. */
int tls_context_new(const struct tls_options *opts, struct tls_context **out_ctx, char *errbuf,
                    size_t errcap);

/* tls_context_free frees ctx and its cached sessions. tls_context_free(NULL) is a no-op. */
void tls_context_free(struct tls_context *ctx);

/* tls_context_verifies returns true unless certificate verification is disabled. */
bool tls_context_verifies(const struct tls_context *ctx);

/* tls_context_cached_sessions returns how many sessions ctx holds for resumption. */
size_t tls_context_cached_sessions(struct tls_context *ctx);

/* tls_conn is one TLS connection over one socket at a time. Opaque. */
struct tls_conn;

/* tls_conn_new allocates a connection bound to ctx (borrowed: ctx must outlive it) with its
 * send buffer, and stores it in *out_conn (owned by the caller: tls_conn_free()). Call once
 * per pooled connection at start-up. Returns 0 or -ENOMEM. */
int tls_conn_new(struct tls_context *ctx, struct tls_conn **out_conn);

/* tls_conn_free frees conn. tls_conn_free(NULL) is a no-op. */
void tls_conn_free(struct tls_conn *conn);

/* tls_conn_begin starts a TLS session for a freshly connected socket to host (a DNS name,
 * or an IPv4/IPv6 literal with or without brackets, host_len bytes, no port), dropping any
 * previous session state and pending bytes. It sets SNI (DNS names only) and the name the
 * certificate must match, offers a cached session for host when there is one, and queues
 * the ClientHello. Returns TLS_WANT_READ (send tls_conn_pending(), then feed what arrives to
 * tls_conn_handshake()), TLS_ERR_STATE for an empty or too long host, or TLS_ERR_NOMEM. */
enum tls_status tls_conn_begin(struct tls_conn *conn, const char *host, size_t host_len);

/* tls_conn_handshake advances the handshake with in_len received bytes at in (borrowed for
 * the call; may be 0 bytes) and sets *out_used to how many it consumed. Returns TLS_OK when
 * the handshake is complete (bytes left in the input belong to tls_conn_read(); once complete
 * it returns TLS_OK at once), TLS_WANT_READ (all input consumed), TLS_WANT_WRITE (send
 * tls_conn_pending(), then call again with the unconsumed input, which the caller must keep;
 * only happens when the client's handshake flight, i.e. its certificate chain, does not fit the
 * send buffer) or a TLS_ERR_* value with tls_conn_error_message() set. Check
 * tls_conn_pending() after every call. */
enum tls_status tls_conn_handshake(struct tls_conn *conn, const char *in, size_t in_len,
                                   size_t *out_used);

/* tls_conn_read consumes received ciphertext (in, in_len, borrowed for the call; may be 0
 * bytes) and decrypts at most out_cap bytes of plaintext into out. Sets *out_used (input
 * consumed) and *out_len (plaintext written). Returns TLS_OK when *out_len > 0 (call again:
 * more input or decrypted bytes may remain), TLS_WANT_READ when all input was consumed and
 * nothing is left to return, TLS_CLOSED after the peer's close_notify, TLS_WANT_WRITE (send
 * tls_conn_pending() first and call again with the unconsumed input; tls_conn_write() leaves
 * room for the alerts and acknowledgements a read may queue, so after the handshake this does
 * not happen), or a TLS_ERR_* value. Completes the handshake itself if it was
 * not complete. Post-handshake messages (tickets, key updates) are handled here and may queue
 * bytes to send: check tls_conn_pending() afterwards. */
enum tls_status tls_conn_read(struct tls_conn *conn, const char *in, size_t in_len,
                              size_t *out_used, char *out, size_t out_cap, size_t *out_len);

/* tls_conn_write encrypts up to len bytes of data (borrowed for the call) into the send
 * buffer and sets *out_used to how many it took. Returns TLS_OK (maybe *out_used < len when
 * the send buffer filled: send tls_conn_pending(), consume, and write the rest),
 * TLS_WANT_WRITE when nothing fit, TLS_ERR_STATE before the handshake completed or after
 * tls_conn_shutdown(), or a TLS_ERR_* value. */
enum tls_status tls_conn_write(struct tls_conn *conn, const char *data, size_t len,
                               size_t *out_used);

/* tls_conn_pending sets *out_data to the ciphertext waiting to be sent and returns its
 * length (0 when nothing waits). The view belongs to conn; its bytes neither move nor change
 * until tls_conn_consume(), tls_conn_begin() or tls_conn_free(): later calls only append
 * after it, so a send of the view may be in flight while conn is used. */
size_t tls_conn_pending(const struct tls_conn *conn, const char **out_data);

/* tls_conn_consume drops the first len pending bytes (what the kernel accepted). len larger
 * than what is pending is clamped. */
void tls_conn_consume(struct tls_conn *conn, size_t len);

/* tls_conn_shutdown queues a close_notify alert (send tls_conn_pending() afterwards; the
 * socket may be closed once it left). Returns TLS_OK, TLS_WANT_WRITE when the send buffer is
 * full, or the connection's error. */
enum tls_status tls_conn_shutdown(struct tls_conn *conn);

/* tls_conn_eof tells conn that the peer closed the socket (recv returned 0) after every
 * received byte was fed. Returns TLS_CLOSED when a close_notify had arrived, otherwise
 * TLS_ERR_TRUNCATED (or TLS_ERR_HANDSHAKE during the handshake) with the message set. */
enum tls_status tls_conn_eof(struct tls_conn *conn);

/* tls_conn_handshake_done returns true once the handshake completed. */
bool tls_conn_handshake_done(const struct tls_conn *conn);

/* tls_conn_resumed returns true when the completed handshake resumed a cached session. */
bool tls_conn_resumed(const struct tls_conn *conn);

/* tls_conn_version returns the negotiated version ("TLSv1.2", "TLSv1.3"), a static string;
 * "unknown" before the handshake. */
const char *tls_conn_version(const struct tls_conn *conn);

/* tls_conn_cipher returns the negotiated cipher suite's standard name (static string), or
 * "none" before the handshake. */
const char *tls_conn_cipher(const struct tls_conn *conn);

/* tls_conn_alpn returns the protocol the server chose by ALPN ("http/1.1") as a static
 * string, or "" when it chose none. */
const char *tls_conn_alpn(const struct tls_conn *conn);

/* tls_conn_error_message returns what the connection's last TLS_ERR_* status means and how
 * to fix it, NUL-terminated and owned by conn (valid until the next call on conn); "" when no
 * error occurred. */
const char *tls_conn_error_message(const struct tls_conn *conn);

/* tls_status_name returns a stable snake_case name for status ("cert_expired"), a static
 * string. */
const char *tls_status_name(enum tls_status status);

/* tls_status_error_type returns the error type to record for a TLS_ERR_* status, named like
 * the exceptions AIPerf's HTTP client raises ("ClientConnectorCertificateError" for
 * certificate failures, "ClientConnectorSSLError" for other handshake failures,
 * "ClientSSLError" after the handshake, "ServerDisconnectedError" for truncation), a static
 * string. */
const char *tls_status_error_type(enum tls_status status);

#endif
