/*
 * tls_context.c - the per-run context: options from the environment, trust store, client
 * certificate, protocol settings, and the client session cache.
 */
#include "tls/tls_internal.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/x509.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

/* Where distributions keep the PEM bundle of trusted CAs. BoringSSL's own default paths
 * point at Android's store, so the bundle is looked up here instead. */
static const char *const system_ca_files[] = {
    "/etc/ssl/certs/ca-certificates.crt",                /* Debian, Ubuntu, Alpine, Arch */
    "/etc/pki/tls/certs/ca-bundle.crt",                  /* Fedora, RHEL */
    "/etc/pki/ca-trust/extracted/pem/tls-ca-bundle.pem", /* RHEL 7+ */
    "/etc/ssl/ca-bundle.pem",                            /* openSUSE */
    "/etc/ssl/cert.pem",                                 /* macOS, Alpine */
};

static void set_message(char *errbuf, size_t errcap, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

static void set_message(char *errbuf, size_t errcap, const char *format, ...)
{
    if (errbuf == NULL || errcap == 0) {
        return;
    }
    va_list args;
    va_start(args, format);
    vsnprintf(errbuf, errcap, format, args);
    va_end(args);
}

/* last_error_reason returns the reason text of the first queued BoringSSL error and empties
 * the queue. */
static const char *last_error_reason(void)
{
    uint32_t err = ERR_get_error();
    ERR_clear_error();
    const char *reason = err != 0 ? ERR_reason_error_string(err) : NULL;
    return reason != NULL ? reason : "unknown error";
}

static int parse_bool(const char *value, bool *out)
{
    static const char *const yes[] = {"true", "1", "yes", "on", "t", "y"};
    static const char *const no[] = {"false", "0", "no", "off", "f", "n"};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcasecmp(value, yes[i]) == 0) {
            *out = true;
            return 0;
        }
        if (strcasecmp(value, no[i]) == 0) {
            *out = false;
            return 0;
        }
    }
    return -EINVAL;
}

int tls_options_apply_env(struct tls_options *opts, char *const *envp, char *errbuf, size_t errcap)
{
    static const char cert_key[] = "SSL_CERT_FILE=";
    static const char verify_key[] = "AIPERF_HTTP_SSL_VERIFY=";
    for (size_t i = 0; envp != NULL && envp[i] != NULL; i++) {
        const char *entry = envp[i];
        if (strncmp(entry, cert_key, sizeof(cert_key) - 1) == 0) {
            const char *value = entry + sizeof(cert_key) - 1;
            opts->default_ca_file = value[0] != '\0' ? value : NULL;
        } else if (strncmp(entry, verify_key, sizeof(verify_key) - 1) == 0) {
            const char *value = entry + sizeof(verify_key) - 1;
            bool verify = true;
            if (parse_bool(value, &verify) != 0) {
                set_message(errbuf, errcap,
                            "AIPERF_HTTP_SSL_VERIFY='%s' is not a boolean: use true or false",
                            value);
                return -EINVAL;
            }
            if (!verify) {
                opts->verify_disabled = true;
                opts->verify_disabled_source = "AIPERF_HTTP_SSL_VERIFY=false";
            }
        }
    }
    return 0;
}

static int version_number(enum tls_version version, uint16_t fallback, uint16_t *out)
{
    switch (version) {
    case TLS_VERSION_DEFAULT:
        *out = fallback;
        return 0;
    case TLS_VERSION_1_2:
        *out = TLS1_2_VERSION;
        return 0;
    case TLS_VERSION_1_3:
        *out = TLS1_3_VERSION;
        return 0;
    }
    return -EINVAL;
}

/* readable_file checks path up front so that the message names the file and the errno. */
static int readable_file(const char *what, const char *path, char *errbuf, size_t errcap)
{
    if (access(path, R_OK) != 0) {
        int err = errno;
        set_message(errbuf, errcap, "cannot read %s '%s': %s", what, path, strerror(err));
        return -EINVAL;
    }
    return 0;
}

static int load_trust(struct tls_context *ctx, const struct tls_options *opts, char *errbuf,
                      size_t errcap)
{
    const char *file = opts->ca_file != NULL ? opts->ca_file : opts->default_ca_file;
    const char *what = opts->ca_file != NULL ? "CA file (--tls-ca)" : "CA file (SSL_CERT_FILE)";
    if (file == NULL) {
        for (size_t i = 0; i < sizeof(system_ca_files) / sizeof(system_ca_files[0]); i++) {
            if (access(system_ca_files[i], R_OK) == 0) {
                file = system_ca_files[i];
                what = "system CA bundle";
                break;
            }
        }
    }
    if (file == NULL) {
        set_message(errbuf, errcap,
                    "no system CA bundle found (looked in /etc/ssl/certs/ca-certificates.crt "
                    "and the other usual places): install ca-certificates, or pass --tls-ca "
                    "FILE or set SSL_CERT_FILE");
        return -ENOENT;
    }
    int rc = readable_file(what, file, errbuf, errcap);
    if (rc != 0) {
        return rc;
    }
    if (SSL_CTX_load_verify_locations(ctx->ssl_ctx, file, NULL) != 1) {
        set_message(errbuf, errcap, "cannot load %s '%s': %s (it must hold PEM certificates)", what,
                    file, last_error_reason());
        return -EINVAL;
    }
    return 0;
}

static int load_client_cert(struct tls_context *ctx, const struct tls_options *opts, char *errbuf,
                            size_t errcap)
{
    if (opts->cert_file == NULL) {
        if (opts->key_file != NULL) {
            set_message(errbuf, errcap, "--tls-key needs --tls-cert");
            return -EINVAL;
        }
        return 0;
    }
    const char *key = opts->key_file != NULL ? opts->key_file : opts->cert_file;
    int rc = readable_file("client certificate (--tls-cert)", opts->cert_file, errbuf, errcap);
    if (rc == 0) {
        rc = readable_file("client key (--tls-key)", key, errbuf, errcap);
    }
    if (rc != 0) {
        return rc;
    }
    if (SSL_CTX_use_certificate_chain_file(ctx->ssl_ctx, opts->cert_file) != 1) {
        set_message(errbuf, errcap, "cannot load client certificate '%s': %s (expected PEM)",
                    opts->cert_file, last_error_reason());
        return -EINVAL;
    }
    if (SSL_CTX_use_PrivateKey_file(ctx->ssl_ctx, key, SSL_FILETYPE_PEM) != 1 &&
        ERR_GET_REASON(ERR_peek_error()) != X509_R_KEY_VALUES_MISMATCH) {
        set_message(errbuf, errcap,
                    "cannot load client key '%s': %s (expected an unencrypted PEM key)", key,
                    last_error_reason());
        return -EINVAL;
    }
    if (ERR_peek_error() != 0 || SSL_CTX_check_private_key(ctx->ssl_ctx) != 1) {
        set_message(errbuf, errcap, "client key '%s' does not belong to certificate '%s': %s", key,
                    opts->cert_file, last_error_reason());
        return -EINVAL;
    }
    ctx->have_client_cert = true;
    return 0;
}

/* new_session stores tickets and sessions servers hand out, for the pool's next
 * connections. Returning 1 tells BoringSSL the cache took the reference. */
static int new_session(SSL *ssl, SSL_SESSION *session)
{
    struct tls_conn *conn = SSL_get_app_data(ssl);
    if (conn == NULL || !conn->ctx->resumption) {
        return 0;
    }
    tls__sessions_put(conn->ctx, conn->host, session);
    return 1;
}

/* note_cert_request runs only when the server asks for a client certificate; knowing that
 * turns the server's later alert into "client certificate required". */
static int note_cert_request(SSL *ssl, void *arg)
{
    (void)arg;
    struct tls_conn *conn = SSL_get_app_data(ssl);
    if (conn != NULL) {
        conn->client_cert_requested = true;
    }
    return 1;
}

static int configure_protocol(struct tls_context *ctx, const struct tls_options *opts, char *errbuf,
                              size_t errcap)
{
    static const uint8_t alpn[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
    uint16_t min_version = 0;
    uint16_t max_version = 0;
    if (version_number(opts->min_version, TLS1_2_VERSION, &min_version) != 0 ||
        version_number(opts->max_version, TLS1_3_VERSION, &max_version) != 0 ||
        min_version > max_version) {
        set_message(errbuf, errcap, "invalid TLS version range: the minimum exceeds the maximum");
        return -EINVAL;
    }
    SSL_CTX_set_min_proto_version(ctx->ssl_ctx, min_version);
    SSL_CTX_set_max_proto_version(ctx->ssl_ctx, max_version);
    /* SSL_CTX_set_alpn_protos returns 0 on success, unlike the rest of the API. */
    if (SSL_CTX_set_alpn_protos(ctx->ssl_ctx, alpn, sizeof(alpn)) != 0) {
        return -ENOMEM;
    }
    SSL_CTX_set_mode(ctx->ssl_ctx, SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    SSL_CTX_set_session_cache_mode(ctx->ssl_ctx, SSL_SESS_CACHE_CLIENT);
    SSL_CTX_sess_set_new_cb(ctx->ssl_ctx, new_session);
    SSL_CTX_set_cert_cb(ctx->ssl_ctx, note_cert_request, NULL);
    if (ctx->verify) {
        SSL_CTX_set_verify(ctx->ssl_ctx, SSL_VERIFY_PEER, tls__verify_callback);
    } else {
        SSL_CTX_set_verify(ctx->ssl_ctx, SSL_VERIFY_NONE, NULL);
    }
    return 0;
}

static int check_options(const struct tls_options *opts, size_t *out_send_bytes, char *errbuf,
                         size_t errcap)
{
    size_t send_bytes = opts->send_buffer_bytes;
    if (send_bytes == 0) {
        send_bytes = TLS_SEND_BUFFER_BYTES_DEFAULT;
    }
    if (send_bytes < TLS_SEND_BUFFER_BYTES_MIN || send_bytes > TLS_SEND_BUFFER_BYTES_MAX) {
        set_message(errbuf, errcap, "TLS send buffer of %zu bytes is outside %d..%d", send_bytes,
                    TLS_SEND_BUFFER_BYTES_MIN, TLS_SEND_BUFFER_BYTES_MAX);
        return -EINVAL;
    }
    *out_send_bytes = send_bytes;
    return 0;
}

static void warn_verify_disabled(const struct tls_options *opts)
{
    FILE *stream = opts->warning_stream != NULL ? opts->warning_stream : stderr;
    const char *source =
        opts->verify_disabled_source != NULL ? opts->verify_disabled_source : "the configuration";
    fprintf(stream,
            "WARNING: SSL certificate verification is DISABLED (%s). The server's identity is "
            "not checked: anyone on the network path can read and alter the traffic. Use "
            "--tls-ca FILE for private CAs instead.\n",
            source);
    fflush(stream);
}

int tls_context_new(const struct tls_options *opts, struct tls_context **out_ctx, char *errbuf,
                    size_t errcap)
{
    *out_ctx = NULL;
    size_t send_bytes = 0;
    int rc = check_options(opts, &send_bytes, errbuf, errcap);
    if (rc != 0) {
        return rc;
    }
    struct tls_context *ctx = calloc(1, sizeof(*ctx));
    if (ctx == NULL) {
        set_message(errbuf, errcap, "out of memory creating the TLS context");
        return -ENOMEM;
    }
    ctx->verify = !opts->verify_disabled;
    ctx->resumption = !opts->resumption_disabled;
    ctx->send_buffer_bytes = send_bytes;
    pthread_mutex_init(&ctx->lock, NULL);
    ctx->ssl_ctx = SSL_CTX_new(TLS_method());
    ctx->bio_method = tls__bio_method_new();
    rc = -ENOMEM;
    if (ctx->ssl_ctx == NULL || ctx->bio_method == NULL) {
        set_message(errbuf, errcap, "out of memory creating the TLS context");
        goto free_ctx;
    }
    rc = configure_protocol(ctx, opts, errbuf, errcap);
    if (rc == 0 && ctx->verify) {
        rc = load_trust(ctx, opts, errbuf, errcap);
    }
    if (rc == 0) {
        rc = load_client_cert(ctx, opts, errbuf, errcap);
    }
    if (rc != 0) {
        goto free_ctx;
    }
    if (!ctx->verify) {
        warn_verify_disabled(opts);
    }
    *out_ctx = ctx;
    return 0;

free_ctx:
    ERR_clear_error();
    tls_context_free(ctx);
    return rc;
}

void tls_context_free(struct tls_context *ctx)
{
    if (ctx == NULL) {
        return;
    }
    for (size_t i = 0; i < ctx->session_count; i++) {
        SSL_SESSION_free(ctx->sessions[i].session);
    }
    SSL_CTX_free(ctx->ssl_ctx);
    if (ctx->bio_method != NULL) {
        BIO_meth_free(ctx->bio_method);
    }
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
}

bool tls_context_verifies(const struct tls_context *ctx)
{
    return ctx->verify;
}

size_t tls_context_cached_sessions(struct tls_context *ctx)
{
    pthread_mutex_lock(&ctx->lock);
    size_t count = ctx->session_count;
    pthread_mutex_unlock(&ctx->lock);
    return count;
}

SSL_SESSION *tls__sessions_take(struct tls_context *ctx, const char *host)
{
    SSL_SESSION *found = NULL;
    pthread_mutex_lock(&ctx->lock);
    /* Newest first: the freshest ticket is the likeliest to be accepted. */
    for (size_t i = ctx->session_count; i-- > 0;) {
        struct tls__session *entry = &ctx->sessions[i];
        if (strcmp(entry->host, host) != 0) {
            continue;
        }
        found = entry->session;
        if (SSL_SESSION_should_be_single_use(found)) {
            memmove(entry, entry + 1, (ctx->session_count - i - 1) * sizeof(*entry));
            ctx->session_count--;
        } else {
            SSL_SESSION_up_ref(found);
        }
        break;
    }
    pthread_mutex_unlock(&ctx->lock);
    return found;
}

void tls__sessions_put(struct tls_context *ctx, const char *host, SSL_SESSION *session)
{
    SSL_SESSION *dropped = NULL;
    pthread_mutex_lock(&ctx->lock);
    if (ctx->session_count == TLS_SESSION_CACHE_MAX) {
        dropped = ctx->sessions[0].session;
        memmove(&ctx->sessions[0], &ctx->sessions[1],
                (TLS_SESSION_CACHE_MAX - 1) * sizeof(ctx->sessions[0]));
        ctx->session_count--;
    }
    struct tls__session *entry = &ctx->sessions[ctx->session_count++];
    entry->session = session;
    snprintf(entry->host, sizeof(entry->host), "%s", host);
    pthread_mutex_unlock(&ctx->lock);
    SSL_SESSION_free(dropped);
}
