/*
 * test_verify.c - certificate verification with certificates generated at test time: a
 * valid one (by name and by address), the wrong host, expired, an unknown CA, self-signed;
 * where trust anchors come from (--tls-ca, SSL_CERT_FILE, the system bundle); turning
 * verification off (loudly); the environment AIPerf honours; and bad context options.
 */
#include "tls_pair.h"

static char certs[TP_PATH_BYTES];

static void make_certs(void)
{
    tp_make_certs(certs, sizeof(certs));
}

static void remove_certs(void)
{
    tp_remove_dir(certs);
}

TestSuite(tls_verify, .init = make_certs, .fini = remove_certs, .timeout = 60);

/* handshake_on runs a handshake of a client on ctx (taking ownership of it) with host, against
 * a server presenting cert_name, and returns the client's status; the message is copied to
 * message. */
static enum tls_status handshake_on(struct tls_context *ctx, const char *cert_name,
                                    const char *host, uint16_t max_version, char *message,
                                    size_t cap)
{
    struct tp_pair p;
    tp_pair_open(&p, ctx, tp_server_ctx(certs, cert_name, max_version, TP_NO_CLIENT_CERT), 4096);
    enum tls_status st = tp_handshake(&p, host);
    snprintf(message, cap, "%s", tls_conn_error_message(p.client));
    tp_pair_free(&p);
    return st;
}

/* connect_to is handshake_on with a client on opts, trusting the test CA unless opts says
 * otherwise. */
static enum tls_status connect_to(struct tls_options *opts, const char *cert_name, const char *host,
                                  uint16_t max_version, char *message, size_t cap)
{
    return handshake_on(tp_client_ctx(certs, opts), cert_name, host, max_version, message, cap);
}

struct verify_case {
    const char *cert;
    const char *host;
    enum tls_status want;
    const char *message_part; /* must appear in the error message */
};

static const struct verify_case verify_cases[] = {
    {"server.crt", "localhost", TLS_OK, ""},
    {"server.crt", "LOCALHOST", TLS_OK, ""},
    {"server.crt", "127.0.0.1", TLS_OK, ""},
    {"server.crt", "[::1]", TLS_OK, ""},
    {"server.crt", "::1", TLS_OK, ""},
    {"wronghost.crt", "localhost", TLS_ERR_CERT_WRONG_HOST, "it covers: other.example)"},
    {"server.crt", "other.example", TLS_ERR_CERT_WRONG_HOST, "localhost, 127.0.0.1, ::1"},
    {"server.crt", "127.0.0.2", TLS_ERR_CERT_WRONG_HOST, "'127.0.0.2'"},
    {"server.crt", "sub.localhost", TLS_ERR_CERT_WRONG_HOST, "sub.localhost"},
    {"expired.crt", "localhost", TLS_ERR_CERT_EXPIRED, "expired on"},
    {"unknown.crt", "localhost", TLS_ERR_CERT_UNKNOWN_ISSUER, "ringperf untrusted CA"},
    {"selfsigned.crt", "localhost", TLS_ERR_CERT_UNKNOWN_ISSUER, "self-signed"},
};

Test(tls_verify, certificates_are_checked_for_issuer_time_and_name)
{
    uint16_t versions[] = {TLS1_3_VERSION, TLS1_2_VERSION};
    for (size_t v = 0; v < 2; v++) {
        for (size_t i = 0; i < sizeof(verify_cases) / sizeof(verify_cases[0]); i++) {
            const struct verify_case *c = &verify_cases[i];
            char message[TLS_ERROR_MESSAGE_BYTES];
            enum tls_status st =
                connect_to(NULL, c->cert, c->host, versions[v], message, sizeof(message));
            cr_assert_eq(st, c->want, "%s as %s: got %s want %s: %s", c->cert, c->host,
                         tls_status_name(st), tls_status_name(c->want), message);
            cr_assert(strstr(message, c->message_part) != NULL, "%s as %s: message '%s'", c->cert,
                      c->host, message);
            cr_log_info("%s as %s: %s", c->cert, c->host, message);
            if (c->want != TLS_OK) {
                cr_assert_str_eq(tls_status_error_type(st), "ClientConnectorCertificateError");
            }
        }
    }
}

Test(tls_verify, unknown_issuer_message_says_how_to_fix_it)
{
    char message[TLS_ERROR_MESSAGE_BYTES];
    cr_assert_eq(
        connect_to(NULL, "unknown.crt", "localhost", TLS1_3_VERSION, message, sizeof(message)),
        TLS_ERR_CERT_UNKNOWN_ISSUER);
    cr_assert(strstr(message, "--tls-ca") != NULL, "%s", message);
    cr_assert(strstr(message, "SSL_CERT_FILE") != NULL, "%s", message);
}

Test(tls_verify, disabled_verification_accepts_anything_and_warns)
{
    static const char *const bad[] = {"expired.crt", "unknown.crt", "selfsigned.crt",
                                      "wronghost.crt"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *warning = NULL;
        size_t warning_len = 0;
        FILE *stream = open_memstream(&warning, &warning_len);
        cr_assert_not_null(stream);
        struct tls_options opts = {
            .verify_disabled = true,
            .verify_disabled_source = "AIPERF_HTTP_SSL_VERIFY=false",
            .warning_stream = stream,
        };
        char message[TLS_ERROR_MESSAGE_BYTES];
        enum tls_status st =
            connect_to(&opts, bad[i], "localhost", TLS1_3_VERSION, message, sizeof(message));
        cr_assert_eq(st, TLS_OK, "%s: %s", bad[i], message);
        fclose(stream);
        cr_assert(strstr(warning, "SSL certificate verification is DISABLED") != NULL, "%s",
                  warning);
        cr_assert(strstr(warning, "AIPERF_HTTP_SSL_VERIFY=false") != NULL, "%s", warning);
        free(warning);
    }
}

Test(tls_verify, verification_stays_on_by_default)
{
    struct tls_context *ctx = tp_client_ctx(certs, NULL);
    cr_assert(tls_context_verifies(ctx));
    tls_context_free(ctx);
}

Test(tls_verify, ssl_cert_file_is_used_when_no_ca_is_given)
{
    char ca[TP_PATH_BYTES];
    struct tls_options opts = {.default_ca_file = tp_path(ca, certs, "ca.crt")};
    /* tp_client_ctx fills ca_file only when unset; keep it unset with a placeholder. */
    struct tls_context *ctx = NULL;
    char err[512] = "";
    cr_assert_eq(tls_context_new(&opts, &ctx, err, sizeof(err)), 0, "%s", err);
    char message[TLS_ERROR_MESSAGE_BYTES];
    cr_assert_eq(
        handshake_on(ctx, "server.crt", "localhost", TLS1_3_VERSION, message, sizeof(message)),
        TLS_OK, "%s", message);
}

Test(tls_verify, tls_ca_wins_over_ssl_cert_file)
{
    char ca[TP_PATH_BYTES];
    char other[TP_PATH_BYTES];
    struct tls_options opts = {
        .ca_file = tp_path(other, certs, "other-ca.crt"),
        .default_ca_file = tp_path(ca, certs, "ca.crt"),
    };
    char message[TLS_ERROR_MESSAGE_BYTES];
    cr_assert_eq(
        connect_to(&opts, "server.crt", "localhost", TLS1_3_VERSION, message, sizeof(message)),
        TLS_ERR_CERT_UNKNOWN_ISSUER, "%s", message);
    opts.ca_file = tp_path(other, certs, "ca.crt");
    cr_assert_eq(
        connect_to(&opts, "server.crt", "localhost", TLS1_3_VERSION, message, sizeof(message)),
        TLS_OK, "%s", message);
}

Test(tls_verify, system_bundle_does_not_trust_the_test_ca)
{
    char message[TLS_ERROR_MESSAGE_BYTES];
    cr_assert_eq(handshake_on(tp_system_ctx(), "server.crt", "localhost", TLS1_3_VERSION, message,
                              sizeof(message)),
                 TLS_ERR_CERT_UNKNOWN_ISSUER, "%s", message);
}

Test(tls_verify, environment_sets_verification_and_ca_file)
{
    char *env_off[] = {"PATH=/bin", "AIPERF_HTTP_SSL_VERIFY=False", "SSL_CERT_FILE=/x/ca.pem",
                       NULL};
    struct tls_options opts = {0};
    char err[256] = "";
    cr_assert_eq(tls_options_apply_env(&opts, env_off, err, sizeof(err)), 0);
    cr_assert(opts.verify_disabled);
    cr_assert_str_eq(opts.verify_disabled_source, "AIPERF_HTTP_SSL_VERIFY=false");
    cr_assert_str_eq(opts.default_ca_file, "/x/ca.pem");

    static const char *const on_values[] = {"true", "1", "YES", "on"};
    for (size_t i = 0; i < 4; i++) {
        char entry[64];
        snprintf(entry, sizeof(entry), "AIPERF_HTTP_SSL_VERIFY=%s", on_values[i]);
        char *env_on[] = {entry, NULL};
        struct tls_options on = {0};
        cr_assert_eq(tls_options_apply_env(&on, env_on, err, sizeof(err)), 0);
        cr_assert_not(on.verify_disabled, "%s", entry);
    }

    char *env_bad[] = {"AIPERF_HTTP_SSL_VERIFY=maybe", NULL};
    struct tls_options bad = {0};
    cr_assert_eq(tls_options_apply_env(&bad, env_bad, err, sizeof(err)), -EINVAL);
    cr_assert(strstr(err, "maybe") != NULL, "%s", err);

    char *env_empty[] = {"SSL_CERT_FILE=", "AIPERF_HTTP_SSL_VERIFYX=false", NULL};
    struct tls_options empty = {0};
    cr_assert_eq(tls_options_apply_env(&empty, env_empty, err, sizeof(err)), 0);
    cr_assert_null(empty.default_ca_file);
    cr_assert_not(empty.verify_disabled);
    cr_assert_eq(tls_options_apply_env(&empty, NULL, err, sizeof(err)), 0);
}

struct option_case {
    const char *ca;   /* file name in certs, or an absolute path */
    const char *cert; /* client certificate */
    const char *key;
    size_t send_buffer_bytes;
    enum tls_version min_version;
    enum tls_version max_version;
    int want_rc;
    const char *message_part;
};

static const struct option_case option_cases[] = {
    {"/nonexistent/ca.pem", NULL, NULL, 0, 0, 0, -EINVAL, "/nonexistent/ca.pem"},
    {"ca.srl", NULL, NULL, 0, 0, 0, -EINVAL, "PEM"},
    {"ca.crt", "client.crt", "server.key", 0, 0, 0, -EINVAL, "does not belong"},
    {"ca.crt", "client.crt", "/nonexistent/key.pem", 0, 0, 0, -EINVAL, "--tls-key"},
    {"ca.crt", "/nonexistent/cert.pem", "client.key", 0, 0, 0, -EINVAL, "--tls-cert"},
    {"ca.crt", "ca.srl", "client.key", 0, 0, 0, -EINVAL, "client certificate"},
    {"ca.crt", NULL, "client.key", 0, 0, 0, -EINVAL, "--tls-key needs --tls-cert"},
    {"ca.crt", NULL, NULL, 1024, 0, 0, -EINVAL, "send buffer"},
    {"ca.crt", NULL, NULL, (size_t)1 << 40, 0, 0, -EINVAL, "send buffer"},
    {"ca.crt", NULL, NULL, 0, TLS_VERSION_1_3, TLS_VERSION_1_2, -EINVAL, "version"},
    {"ca.crt", NULL, NULL, 0, 42, 0, -EINVAL, "version"},
    {"ca.crt", "client.crt", "client.key", TLS_SEND_BUFFER_BYTES_MIN, TLS_VERSION_1_2,
     TLS_VERSION_1_3, 0, ""},
};

static const char *case_path(char *out, const char *name)
{
    if (name == NULL || name[0] == '/') {
        return name;
    }
    return tp_path(out, certs, name);
}

Test(tls_verify, bad_options_fail_with_a_message)
{
    for (size_t i = 0; i < sizeof(option_cases) / sizeof(option_cases[0]); i++) {
        const struct option_case *c = &option_cases[i];
        char ca[TP_PATH_BYTES];
        char cert[TP_PATH_BYTES];
        char key[TP_PATH_BYTES];
        struct tls_options opts = {
            .ca_file = case_path(ca, c->ca),
            .cert_file = case_path(cert, c->cert),
            .key_file = case_path(key, c->key),
            .send_buffer_bytes = c->send_buffer_bytes,
            .min_version = c->min_version,
            .max_version = c->max_version,
        };
        struct tls_context *ctx = NULL;
        char err[512] = "";
        int rc = tls_context_new(&opts, &ctx, err, sizeof(err));
        cr_assert_eq(rc, c->want_rc, "case %zu: rc %d: %s", i, rc, err);
        cr_assert(strstr(err, c->message_part) != NULL, "case %zu: '%s'", i, err);
        cr_assert_eq(ctx == NULL, rc != 0);
        tls_context_free(ctx);
    }
}
