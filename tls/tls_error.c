/*
 * tls_error.c - BoringSSL's failures turned into a stable status and a message that says what
 * failed and how to fix it.
 */
#include "tls/tls_internal.h"

#include <openssl/err.h>
#include <arpa/inet.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum tls_status tls__fail(struct tls_conn *conn, enum tls_status status, const char *format, ...)
{
    va_list args;
    va_start(args, format);
    vsnprintf(conn->message, sizeof(conn->message), format, args);
    va_end(args);
    conn->failed = status;
    return status;
}

static void describe_time(const ASN1_TIME *time, char *out, size_t cap)
{
    out[0] = '\0';
    BIO *bio = BIO_new(BIO_s_mem());
    if (bio == NULL) {
        return;
    }
    const uint8_t *data = NULL;
    size_t len = 0;
    if (ASN1_TIME_print(bio, time) == 1 && BIO_mem_contents(bio, &data, &len) == 1) {
        snprintf(out, cap, "%.*s", (int)(len < cap ? len : cap - 1), (const char *)data);
    }
    BIO_free(bio);
}

/* append_name appends ", name" to out (length *len), printable ASCII only: the names come
 * from the peer and end up in logs. */
static void append_name(char *out, size_t cap, size_t *len, const char *name, size_t name_len)
{
    const char *sep = *len > 0 ? ", " : "";
    for (size_t i = 0; sep[i] != '\0' && *len + 1 < cap; i++) {
        out[(*len)++] = sep[i];
    }
    for (size_t i = 0; i < name_len && *len + 1 < cap; i++) {
        char c = name[i];
        out[(*len)++] = c >= 0x20 && c < 0x7f ? c : '?';
    }
    out[*len] = '\0';
}

/* describe_names lists the DNS and IP subjectAltNames of cert into out. */
static void describe_names(X509 *cert, char *out, size_t cap)
{
    out[0] = '\0';
    GENERAL_NAMES *names = X509_get_ext_d2i(cert, NID_subject_alt_name, NULL, NULL);
    if (names == NULL) {
        return;
    }
    size_t len = 0;
    for (size_t i = 0; i < sk_GENERAL_NAME_num(names); i++) {
        const GENERAL_NAME *name = sk_GENERAL_NAME_value(names, i);
        if (name->type == GEN_DNS) {
            append_name(out, cap, &len, (const char *)ASN1_STRING_get0_data(name->d.dNSName),
                        (size_t)ASN1_STRING_length(name->d.dNSName));
        } else if (name->type == GEN_IPADD) {
            char text[INET6_ADDRSTRLEN] = "?";
            int ip_len = ASN1_STRING_length(name->d.iPAddress);
            int family = ip_len == 4 ? AF_INET : ip_len == 16 ? AF_INET6 : 0;
            if (family != 0) {
                inet_ntop(family, ASN1_STRING_get0_data(name->d.iPAddress), text, sizeof(text));
            }
            append_name(out, cap, &len, text, strlen(text));
        }
    }
    sk_GENERAL_NAME_pop_free(names, GENERAL_NAME_free);
}

int tls__verify_callback(int preverify_ok, X509_STORE_CTX *store)
{
    if (preverify_ok) {
        return 1;
    }
    SSL *ssl = X509_STORE_CTX_get_ex_data(store, SSL_get_ex_data_X509_STORE_CTX_idx());
    struct tls_conn *conn = ssl != NULL ? SSL_get_app_data(ssl) : NULL;
    if (conn == NULL || conn->verify_error != X509_V_OK) {
        return 0;
    }
    conn->verify_error = X509_STORE_CTX_get_error(store);
    conn->verify_depth = X509_STORE_CTX_get_error_depth(store);
    X509 *cert = X509_STORE_CTX_get_current_cert(store);
    if (cert != NULL) {
        X509_NAME_oneline(X509_get_subject_name(cert), conn->verify_subject,
                          (int)sizeof(conn->verify_subject));
        X509_NAME_oneline(X509_get_issuer_name(cert), conn->verify_issuer,
                          (int)sizeof(conn->verify_issuer));
        describe_time(X509_get0_notAfter(cert), conn->verify_not_after,
                      sizeof(conn->verify_not_after));
        describe_names(cert, conn->verify_names, sizeof(conn->verify_names));
    }
    return 0;
}

static const char *which_cert(const struct tls_conn *conn)
{
    return conn->verify_depth == 0 ? "certificate" : "CA certificate in the chain";
}

static enum tls_status verify_failure(struct tls_conn *conn)
{
    long err =
        conn->verify_error != X509_V_OK ? conn->verify_error : SSL_get_verify_result(conn->ssl);
    const char *host = conn->host;
    switch (err) {
    case X509_V_ERR_CERT_HAS_EXPIRED:
        return tls__fail(conn, TLS_ERR_CERT_EXPIRED,
                         "the %s of %s (%s) expired on %s: renew it on the server, or check "
                         "this machine's clock",
                         which_cert(conn), host, conn->verify_subject, conn->verify_not_after);
    case X509_V_ERR_CERT_NOT_YET_VALID:
        return tls__fail(conn, TLS_ERR_CERT_NOT_YET_VALID,
                         "the %s of %s (%s) is not valid yet: check this machine's clock",
                         which_cert(conn), host, conn->verify_subject);
    case X509_V_ERR_HOSTNAME_MISMATCH:
    case X509_V_ERR_IP_ADDRESS_MISMATCH:
        return tls__fail(conn, TLS_ERR_CERT_WRONG_HOST,
                         "the certificate of %s is not valid for that name (it covers: %s): use "
                         "one of those names in --url, or reissue the certificate with '%s' in "
                         "its subjectAltName",
                         host, conn->verify_names[0] != '\0' ? conn->verify_names : "no names",
                         host);
    case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT:
        return tls__fail(conn, TLS_ERR_CERT_UNKNOWN_ISSUER,
                         "the certificate of %s (%s) is self-signed and not trusted: pass it with "
                         "--tls-ca FILE or SSL_CERT_FILE, or (insecure) set "
                         "AIPERF_HTTP_SSL_VERIFY=false",
                         host, conn->verify_subject);
    case X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT:
    case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY:
    case X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
    case X509_V_ERR_CERT_UNTRUSTED:
        return tls__fail(conn, TLS_ERR_CERT_UNKNOWN_ISSUER,
                         "the certificate of %s (%s) was issued by an unknown authority (%s): "
                         "pass that CA with --tls-ca FILE or SSL_CERT_FILE, or (insecure) set "
                         "AIPERF_HTTP_SSL_VERIFY=false",
                         host, conn->verify_subject, conn->verify_issuer);
    default:
        return tls__fail(conn, TLS_ERR_CERT_INVALID, "the %s of %s (%s) failed verification: %s",
                         which_cert(conn), host, conn->verify_subject,
                         X509_verify_cert_error_string(err));
    }
}

static bool alert_blames_client_cert(int alert)
{
    switch (alert) {
    case SSL_AD_BAD_CERTIFICATE:
    case SSL_AD_UNSUPPORTED_CERTIFICATE:
    case SSL_AD_CERTIFICATE_REVOKED:
    case SSL_AD_CERTIFICATE_EXPIRED:
    case SSL_AD_CERTIFICATE_UNKNOWN:
    case SSL_AD_UNKNOWN_CA:
    case SSL_AD_ACCESS_DENIED:
    case SSL_AD_DECRYPT_ERROR:
        return true;
    default:
        return false;
    }
}

/* alert_failure handles a fatal alert the server sent. */
static enum tls_status alert_failure(struct tls_conn *conn, int alert)
{
    const char *host = conn->host;
    const char *name = SSL_alert_desc_string_long(alert);
    bool cert_asked = conn->client_cert_requested;
    bool have_cert = conn->ctx->have_client_cert;
    if (alert == SSL_AD_CERTIFICATE_REQUIRED ||
        (cert_asked && !have_cert && alert == SSL_AD_HANDSHAKE_FAILURE)) {
        return tls__fail(conn, TLS_ERR_CLIENT_CERT_REQUIRED,
                         "%s requires a client certificate (alert '%s'): pass --tls-cert FILE "
                         "and --tls-key FILE",
                         host, name);
    }
    if (cert_asked && have_cert && alert_blames_client_cert(alert)) {
        return tls__fail(conn, TLS_ERR_CLIENT_CERT_REJECTED,
                         "%s rejected the client certificate (alert '%s'): check that "
                         "--tls-cert is valid, unexpired and issued by a CA the server trusts",
                         host, name);
    }
    if (alert == SSL_AD_PROTOCOL_VERSION) {
        return tls__fail(conn, TLS_ERR_HANDSHAKE,
                         "%s supports no TLS version ringperf allows (TLS 1.2 and 1.3): "
                         "upgrade the server's TLS configuration",
                         host);
    }
    return tls__fail(conn, conn->handshake_done ? TLS_ERR_PROTOCOL : TLS_ERR_HANDSHAKE,
                     "%s sent the fatal TLS alert '%s' %s", host, name,
                     conn->handshake_done ? "after the handshake"
                                          : "during the handshake: check the server's TLS "
                                            "settings and its error log");
}

static enum tls_status library_failure(struct tls_conn *conn, uint32_t err)
{
    int reason = ERR_GET_REASON(err);
    const char *host = conn->host;
    if (ERR_GET_LIB(err) == ERR_LIB_SSL) {
        if (reason == SSL_R_CERTIFICATE_VERIFY_FAILED) {
            return verify_failure(conn);
        }
        if (reason >= SSL_AD_REASON_OFFSET && reason < SSL_AD_REASON_OFFSET + 256) {
            return alert_failure(conn, reason - SSL_AD_REASON_OFFSET);
        }
        if (!conn->handshake_done &&
            (reason == SSL_R_WRONG_VERSION_NUMBER || reason == SSL_R_UNEXPECTED_RECORD ||
             reason == SSL_R_HTTP_REQUEST || reason == SSL_R_HTTPS_PROXY_REQUEST)) {
            return tls__fail(conn, TLS_ERR_HANDSHAKE,
                             "%s did not answer with TLS (%s): is it a plain HTTP port? Use "
                             "http:// in --url, or the port that serves TLS",
                             host, ERR_reason_error_string(err));
        }
        if (reason == SSL_R_UNSUPPORTED_PROTOCOL) {
            return tls__fail(conn, TLS_ERR_HANDSHAKE,
                             "%s chose a TLS version ringperf does not allow (only TLS 1.2 and "
                             "1.3): upgrade the server's TLS configuration",
                             host);
        }
    }
    const char *text = ERR_reason_error_string(err);
    return tls__fail(conn, conn->handshake_done ? TLS_ERR_PROTOCOL : TLS_ERR_HANDSHAKE,
                     "TLS %s with %s failed: %s", conn->handshake_done ? "connection" : "handshake",
                     host, text != NULL ? text : "unknown error");
}

enum tls_status tls__status_after(struct tls_conn *conn, int rc)
{
    int kind = SSL_get_error(conn->ssl, rc);
    enum tls_status status = TLS_ERR_INTERNAL;
    switch (kind) {
    case SSL_ERROR_WANT_READ:
        status = TLS_WANT_READ;
        break;
    case SSL_ERROR_WANT_WRITE:
        status = TLS_WANT_WRITE;
        break;
    case SSL_ERROR_ZERO_RETURN:
        status = TLS_CLOSED;
        break;
    case SSL_ERROR_SSL:
        status = library_failure(conn, ERR_peek_error());
        break;
    case SSL_ERROR_WANT_X509_LOOKUP:
        /* note_cert_request returns 1, so the handshake never pauses; be explicit anyway. */
        status = tls__fail(conn, TLS_ERR_INTERNAL, "TLS handshake with %s paused unexpectedly",
                           conn->host);
        break;
    default:
        status = tls__fail(conn, TLS_ERR_INTERNAL, "TLS with %s failed (SSL error kind %d)",
                           conn->host, kind);
        break;
    }
    ERR_clear_error();
    return status;
}

const char *tls_status_name(enum tls_status status)
{
    switch (status) {
    case TLS_OK:
        return "ok";
    case TLS_WANT_READ:
        return "want_read";
    case TLS_WANT_WRITE:
        return "want_write";
    case TLS_CLOSED:
        return "closed";
    case TLS_ERR_CERT_EXPIRED:
        return "cert_expired";
    case TLS_ERR_CERT_NOT_YET_VALID:
        return "cert_not_yet_valid";
    case TLS_ERR_CERT_WRONG_HOST:
        return "cert_wrong_host";
    case TLS_ERR_CERT_UNKNOWN_ISSUER:
        return "cert_unknown_issuer";
    case TLS_ERR_CERT_INVALID:
        return "cert_invalid";
    case TLS_ERR_CLIENT_CERT_REQUIRED:
        return "client_cert_required";
    case TLS_ERR_CLIENT_CERT_REJECTED:
        return "client_cert_rejected";
    case TLS_ERR_HANDSHAKE:
        return "handshake";
    case TLS_ERR_PROTOCOL:
        return "protocol";
    case TLS_ERR_TRUNCATED:
        return "truncated";
    case TLS_ERR_STATE:
        return "state";
    case TLS_ERR_NOMEM:
        return "nomem";
    case TLS_ERR_INTERNAL:
        return "internal";
    }
    return "unknown";
}

const char *tls_status_error_type(enum tls_status status)
{
    switch (status) {
    case TLS_ERR_CERT_EXPIRED:
    case TLS_ERR_CERT_NOT_YET_VALID:
    case TLS_ERR_CERT_WRONG_HOST:
    case TLS_ERR_CERT_UNKNOWN_ISSUER:
    case TLS_ERR_CERT_INVALID:
        return "ClientConnectorCertificateError";
    case TLS_ERR_CLIENT_CERT_REQUIRED:
    case TLS_ERR_CLIENT_CERT_REJECTED:
    case TLS_ERR_HANDSHAKE:
        return "ClientConnectorSSLError";
    case TLS_ERR_TRUNCATED:
        return "ServerDisconnectedError";
    default:
        return "ClientSSLError";
    }
}
