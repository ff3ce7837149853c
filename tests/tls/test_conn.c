/*
 * test_conn.c - our client tls_conn against a BoringSSL server in the same process, with the
 * bytes shuttled by the test: handshakes (both versions, fed whole and byte by byte), ALPN and
 * SNI, resumption, large transfers through a small send buffer, close_notify, truncation,
 * corrupt records, client certificates, and API misuse.
 */
#include <pthread.h>

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

TestSuite(tls_conn, .init = make_certs, .fini = remove_certs, .timeout = 60);

/* open_pair sets p up between a client on opts (trusting the test CA unless opts says
 * otherwise) and a server presenting server.crt over TLS 1.2 up to max_version, fed in steps
 * of step bytes; p owns both contexts. */
static void open_pair(struct tp_pair *p, struct tls_options *opts, uint16_t max_version,
                      size_t step)
{
    tp_pair_open(p, tp_client_ctx(certs, opts),
                 tp_server_ctx(certs, "server.crt", max_version, TP_NO_CLIENT_CERT), step);
}

/* connect_pair opens p as open_pair does, over TLS 1.3 in 4096-byte steps, and completes the
 * handshake with localhost. */
static void connect_pair(struct tp_pair *p, struct tls_options *opts)
{
    open_pair(p, opts, TLS1_3_VERSION, 4096);
    enum tls_status st = tp_handshake(p, "localhost");
    cr_assert_eq(st, TLS_OK, "handshake: %s: %s", tls_status_name(st),
                 tls_conn_error_message(p->client));
}

static void check_handshake(uint16_t max_version, size_t step, const char *want_version)
{
    struct tp_pair p;
    open_pair(&p, NULL, max_version, step);
    enum tls_status st = tp_handshake(&p, "localhost");
    cr_assert_eq(st, TLS_OK, "handshake: %s: %s", tls_status_name(st),
                 tls_conn_error_message(p.client));
    cr_assert_str_eq(tls_conn_version(p.client), want_version);
    cr_assert_str_eq(tls_conn_alpn(p.client), "http/1.1");
    cr_assert_str_neq(tls_conn_cipher(p.client), "none");
    cr_assert_not(tls_conn_resumed(p.client));
    const char *sni = SSL_get_servername(p.server, TLSEXT_NAMETYPE_host_name);
    cr_assert_not_null(sni);
    cr_assert_str_eq(sni, "localhost");
    cr_assert_str_eq(tls_conn_error_message(p.client), "");
    tp_pair_free(&p);
}

Test(tls_conn, handshake_completes_over_tls13)
{
    check_handshake(TLS1_3_VERSION, 1 << 20, "TLSv1.3");
}

Test(tls_conn, handshake_completes_over_tls12)
{
    check_handshake(TLS1_2_VERSION, 1 << 20, "TLSv1.2");
}

Test(tls_conn, handshake_fed_byte_by_byte)
{
    check_handshake(TLS1_3_VERSION, 1, "TLSv1.3");
    check_handshake(TLS1_2_VERSION, 1, "TLSv1.2");
}

Test(tls_conn, handshake_fed_at_odd_steps)
{
    static const size_t steps[] = {2, 3, 5, 7, 100, 517, 1400};
    for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
        check_handshake(TLS1_3_VERSION, steps[i], "TLSv1.3");
    }
}

Test(tls_conn, sni_is_not_sent_for_an_ip_literal)
{
    struct tp_pair p;
    open_pair(&p, NULL, TLS1_3_VERSION, 4096);
    cr_assert_eq(tp_handshake(&p, "127.0.0.1"), TLS_OK, "%s", tls_conn_error_message(p.client));
    cr_assert_null(SSL_get_servername(p.server, TLSEXT_NAMETYPE_host_name));
    tp_pair_free(&p);
}

Test(tls_conn, request_and_response_round_trip)
{
    struct tp_pair p;
    connect_pair(&p, NULL);
    static const char request[] = "GET / HTTP/1.1\r\nHost: localhost\r\n\r\n";
    size_t used = 0;
    cr_assert_eq(tls_conn_write(p.client, request, strlen(request), &used), TLS_OK);
    cr_assert_eq(used, strlen(request));
    tp_to_server(&p);
    char got[256];
    size_t got_len = 0;
    cr_assert_eq(tp_server_read(&p, got, sizeof(got), &got_len), SSL_ERROR_WANT_READ);
    cr_assert_eq(got_len, strlen(request));
    cr_assert_eq(memcmp(got, request, got_len), 0);
    static const char response[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    tp_server_write(&p, response, strlen(response));
    cr_assert_eq(tp_from_server(&p), TLS_WANT_READ);
    cr_assert_eq(p.plain_len, strlen(response));
    cr_assert_eq(memcmp(p.plain, response, p.plain_len), 0);
    tp_pair_free(&p);
}

/* exchange has the server send a few bytes (with them, TLS 1.3 session tickets) and the
 * client read them. */
static void exchange(struct tp_pair *p)
{
    tp_server_write(p, "hi", 2);
    cr_assert_eq(tp_from_server(p), TLS_WANT_READ, "%s", tls_conn_error_message(p->client));
    cr_assert_eq(p->plain_len, 2);
}

static void check_resumption(uint16_t max_version, bool disabled, bool want_resumed)
{
    struct tls_options opts = {.resumption_disabled = disabled};
    struct tp_pair p;
    open_pair(&p, &opts, max_version, 4096);
    cr_assert_eq(tp_handshake(&p, "localhost"), TLS_OK);
    exchange(&p);
    cr_assert_eq(tls_context_cached_sessions(p.ctx) > 0, !disabled);
    /* The same tls_conn starts over on a "new socket", as the engine's pool does. */
    tp_pair_server(&p);
    cr_assert_eq(tp_handshake(&p, "localhost"), TLS_OK, "%s", tls_conn_error_message(p.client));
    cr_assert_eq(tls_conn_resumed(p.client), want_resumed, "resumed=%d over %s",
                 tls_conn_resumed(p.client), tls_conn_version(p.client));
    cr_assert_eq(SSL_session_reused(p.server), want_resumed);
    exchange(&p);
    tp_pair_free(&p);
}

Test(tls_conn, next_connection_resumes_over_tls13)
{
    check_resumption(TLS1_3_VERSION, false, true);
}

Test(tls_conn, next_connection_resumes_over_tls12)
{
    check_resumption(TLS1_2_VERSION, false, true);
}

Test(tls_conn, resumption_disabled_never_resumes)
{
    check_resumption(TLS1_3_VERSION, true, false);
    check_resumption(TLS1_2_VERSION, true, false);
}

Test(tls_conn, session_is_not_offered_to_another_host)
{
    struct tp_pair p;
    connect_pair(&p, NULL);
    exchange(&p);
    tp_pair_server(&p);
    cr_assert_eq(tp_handshake(&p, "127.0.0.1"), TLS_OK, "%s", tls_conn_error_message(p.client));
    cr_assert_not(tls_conn_resumed(p.client));
    tp_pair_free(&p);
}

Test(tls_conn, many_connections_share_the_session_cache)
{
    struct tp_pair a;
    struct tp_pair b;
    connect_pair(&a, NULL);
    tp_pair_init(&b, a.ctx, a.server_ctx, 4096); /* b borrows a's contexts */
    exchange(&a);
    cr_assert_eq(tp_handshake(&b, "localhost"), TLS_OK);
    cr_assert(tls_conn_resumed(b.client), "a second pooled connection resumes the first's session");
    tp_pair_free(&b);
    tp_pair_free(&a);
}

static void check_large_upload(struct tp_pair *p, size_t total)
{
    char *data = malloc(total);
    char *got = malloc(total);
    cr_assert(data != NULL && got != NULL);
    tp_pattern(data, total, 7);
    size_t sent = 0;
    size_t got_len = 0;
    unsigned want_writes = 0;
    while (sent < total) {
        size_t used = 0;
        enum tls_status st = tls_conn_write(p->client, data + sent, total - sent, &used);
        cr_assert(st == TLS_OK || st == TLS_WANT_WRITE, "write: %s", tls_status_name(st));
        want_writes += st == TLS_WANT_WRITE;
        sent += used;
        const char *pending = NULL;
        cr_assert_leq(tls_conn_pending(p->client, &pending), TLS_SEND_BUFFER_BYTES_MIN);
        /* Send in two parts, as a short send would. */
        size_t n = tls_conn_pending(p->client, &pending);
        cr_assert_eq(BIO_write(p->server_in, pending, (int)(n / 2)), (int)(n / 2));
        tls_conn_consume(p->client, n / 2);
        tp_to_server(p);
        tp_server_read(p, got, total, &got_len);
    }
    cr_assert_eq(got_len, total);
    cr_assert_eq(memcmp(got, data, total), 0);
    cr_assert_gt(want_writes + 1, 0);
    free(data);
    free(got);
}

Test(tls_conn, large_transfers_through_a_small_send_buffer)
{
    struct tls_options opts = {.send_buffer_bytes = TLS_SEND_BUFFER_BYTES_MIN};
    struct tp_pair p;
    open_pair(&p, &opts, TLS1_3_VERSION, 1777);
    p.read_cap = 1000; /* smaller than a record: plaintext comes out in pieces */
    cr_assert_eq(tp_handshake(&p, "localhost"), TLS_OK);
    check_large_upload(&p, 3u << 20);

    size_t total = 3u << 20;
    char *data = malloc(total);
    cr_assert_not_null(data);
    tp_pattern(data, total, 11);
    for (size_t off = 0; off < total; off += 256 * 1024) {
        tp_server_write(&p, data + off, 256 * 1024);
        cr_assert_eq(tp_from_server(&p), TLS_WANT_READ);
    }
    cr_assert_eq(p.plain_len, total);
    cr_assert_eq(memcmp(p.plain, data, total), 0);
    free(data);
    tp_pair_free(&p);
}

Test(tls_conn, write_reports_a_full_send_buffer)
{
    struct tls_options opts = {.send_buffer_bytes = TLS_SEND_BUFFER_BYTES_MIN};
    struct tp_pair p;
    connect_pair(&p, &opts);
    static char data[64 * 1024];
    size_t used = 0;
    cr_assert_eq(tls_conn_write(p.client, data, sizeof(data), &used), TLS_OK);
    cr_assert_gt(used, 0);
    cr_assert_lt(used, sizeof(data));
    size_t more = 0;
    cr_assert_eq(tls_conn_write(p.client, data + used, sizeof(data) - used, &more), TLS_WANT_WRITE);
    cr_assert_eq(more, 0);
    tp_to_server(&p);
    cr_assert_eq(tls_conn_write(p.client, data + used, sizeof(data) - used, &more), TLS_OK);
    cr_assert_gt(more, 0);
    tp_pair_free(&p);
}

Test(tls_conn, pending_view_stays_put_while_more_is_queued)
{
    struct tp_pair p;
    connect_pair(&p, NULL);
    size_t used = 0;
    cr_assert_eq(tls_conn_write(p.client, "first", 5, &used), TLS_OK);
    const char *view = NULL;
    size_t n1 = tls_conn_pending(p.client, &view);
    cr_assert_gt(n1, 5);
    char copy[256];
    memcpy(copy, view, n1);
    /* A send of view is "in flight": more records queue behind it without moving it. */
    cr_assert_eq(tls_conn_write(p.client, "second", 6, &used), TLS_OK);
    const char *view2 = NULL;
    size_t n2 = tls_conn_pending(p.client, &view2);
    cr_assert_eq(view2, view);
    cr_assert_gt(n2, n1);
    cr_assert_eq(memcmp(view, copy, n1), 0);
    tls_conn_consume(p.client, 3);
    cr_assert_eq(tls_conn_pending(p.client, &view2), n2 - 3);
    cr_assert_eq(view2, view + 3);
    tls_conn_consume(p.client, 1 << 20); /* clamped */
    cr_assert_eq(tls_conn_pending(p.client, &view2), 0);
    tp_pair_free(&p);
}

Test(tls_conn, close_notify_from_server_ends_the_stream)
{
    struct tp_pair p;
    connect_pair(&p, NULL);
    tp_server_write(&p, "last words", 10);
    SSL_shutdown(p.server);
    cr_assert_eq(tp_from_server(&p), TLS_CLOSED);
    cr_assert_eq(p.plain_len, 10);
    cr_assert_eq(tls_conn_eof(p.client), TLS_CLOSED);
    size_t used = 0;
    size_t n = 0;
    char out[16];
    cr_assert_eq(tls_conn_read(p.client, NULL, 0, &used, out, sizeof(out), &n), TLS_CLOSED);
    tp_pair_free(&p);
}

Test(tls_conn, client_shutdown_sends_close_notify)
{
    struct tp_pair p;
    connect_pair(&p, NULL);
    cr_assert_eq(tls_conn_shutdown(p.client), TLS_OK);
    cr_assert_gt(tp_to_server(&p), 0);
    char got[16];
    size_t got_len = 0;
    cr_assert_eq(tp_server_read(&p, got, sizeof(got), &got_len), SSL_ERROR_ZERO_RETURN);
    size_t used = 0;
    cr_assert_eq(tls_conn_write(p.client, "x", 1, &used), TLS_ERR_STATE);
    tp_pair_free(&p);
}

Test(tls_conn, eof_without_close_notify_is_truncation)
{
    struct tp_pair p;
    connect_pair(&p, NULL);
    exchange(&p);
    cr_assert_eq(tls_conn_eof(p.client), TLS_ERR_TRUNCATED);
    cr_assert(strstr(tls_conn_error_message(p.client), "close_notify") != NULL);
    cr_assert_str_eq(tls_status_error_type(TLS_ERR_TRUNCATED), "ServerDisconnectedError");
    tp_pair_free(&p);
}

Test(tls_conn, eof_inside_a_record_is_truncation)
{
    struct tp_pair p;
    connect_pair(&p, NULL);
    exchange(&p);
    tp_server_write(&p, "a whole record that arrives in part", 35);
    const uint8_t *data = NULL;
    size_t len = 0;
    BIO_mem_contents(p.server_out, &data, &len);
    cr_assert_eq(tp_feed(&p, (const char *)data, len / 2), TLS_WANT_READ);
    cr_assert_eq(p.plain_len, 2, "no plaintext from half a record");
    cr_assert_eq(tls_conn_eof(p.client), TLS_ERR_TRUNCATED);
    tp_pair_free(&p);
}

Test(tls_conn, eof_during_handshake_is_a_handshake_error)
{
    struct tls_context *ctx = tp_client_ctx(certs, NULL);
    struct tls_conn *conn = NULL;
    cr_assert_eq(tls_conn_new(ctx, &conn), 0);
    cr_assert_eq(tls_conn_begin(conn, "localhost", 9), TLS_WANT_READ);
    const char *hello = NULL;
    cr_assert_gt(tls_conn_pending(conn, &hello), 0);
    cr_assert_eq(hello[0], 0x16, "a handshake record");
    cr_assert_eq(tls_conn_eof(conn), TLS_ERR_HANDSHAKE);
    cr_assert(strstr(tls_conn_error_message(conn), "during the TLS handshake") != NULL);
    cr_assert_eq(tls_conn_eof(conn), TLS_ERR_HANDSHAKE, "errors are sticky");
    tls_conn_free(conn);
    tls_context_free(ctx);
}

Test(tls_conn, corrupt_record_is_a_protocol_error)
{
    struct tp_pair p;
    connect_pair(&p, NULL);
    exchange(&p);
    tp_server_write(&p, "tampered with", 13);
    const uint8_t *data = NULL;
    size_t len = 0;
    BIO_mem_contents(p.server_out, &data, &len);
    char copy[256];
    cr_assert_leq(len, sizeof(copy));
    memcpy(copy, data, len);
    copy[len - 3] ^= 0x40;
    enum tls_status st = tp_feed(&p, copy, len);
    cr_assert_eq(st, TLS_ERR_PROTOCOL, "got %s", tls_status_name(st));
    cr_assert_str_eq(tls_status_error_type(st), "ClientSSLError");
    cr_assert(strstr(tls_conn_error_message(p.client), "localhost") != NULL);
    size_t used = 0;
    cr_assert_eq(tls_conn_write(p.client, "x", 1, &used), TLS_ERR_PROTOCOL, "errors are sticky");
    tp_pair_free(&p);
}

Test(tls_conn, plain_http_answer_is_a_handshake_error)
{
    struct tls_context *ctx = tp_client_ctx(certs, NULL);
    struct tls_conn *conn = NULL;
    cr_assert_eq(tls_conn_new(ctx, &conn), 0);
    cr_assert_eq(tls_conn_begin(conn, "localhost", 9), TLS_WANT_READ);
    static const char answer[] = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
    size_t used = 0;
    enum tls_status st = tls_conn_handshake(conn, answer, strlen(answer), &used);
    cr_assert_eq(st, TLS_ERR_HANDSHAKE, "got %s", tls_status_name(st));
    cr_assert(strstr(tls_conn_error_message(conn), "http://") != NULL, "%s",
              tls_conn_error_message(conn));
    tls_conn_free(conn);
    tls_context_free(ctx);
}

Test(tls_conn, version_mismatch_is_a_handshake_error)
{
    struct tls_options opts = {.min_version = TLS_VERSION_1_3};
    struct tp_pair p;
    open_pair(&p, &opts, TLS1_2_VERSION, 4096);
    enum tls_status st = tp_handshake(&p, "localhost");
    cr_assert_eq(st, TLS_ERR_HANDSHAKE, "got %s", tls_status_name(st));
    cr_assert(strstr(tls_conn_error_message(p.client), "TLS 1.2 and 1.3") != NULL, "%s",
              tls_conn_error_message(p.client));
    tp_pair_free(&p);
}

static void check_client_cert(uint16_t max_version, const char *cert, const char *key,
                              enum tls_status want)
{
    char cert_path[TP_PATH_BYTES];
    char key_path[TP_PATH_BYTES];
    struct tls_options opts = {0};
    if (cert != NULL) {
        opts.cert_file = tp_path(cert_path, certs, cert);
        opts.key_file = tp_path(key_path, certs, key);
    }
    struct tp_pair p;
    tp_pair_open(&p, tp_client_ctx(certs, &opts),
                 tp_server_ctx(certs, "server.crt", max_version, TP_REQUIRE_CLIENT_CERT), 4096);
    enum tls_status st = tp_handshake(&p, "localhost");
    if (st == TLS_OK) {
        /* TLS 1.3: the server's verdict on our certificate arrives after our Finished. */
        tp_server_write(&p, "hi", 2);
        st = tp_from_server(&p);
        st = st == TLS_WANT_READ ? TLS_OK : st;
    }
    cr_assert_eq(st, want, "got %s, want %s: %s", tls_status_name(st), tls_status_name(want),
                 tls_conn_error_message(p.client));
    if (want == TLS_OK) {
        X509 *peer = SSL_get_peer_certificate(p.server);
        cr_assert_not_null(peer, "the server saw our client certificate");
        X509_free(peer);
    } else {
        cr_assert(strstr(tls_conn_error_message(p.client), "--tls-cert") != NULL, "%s",
                  tls_conn_error_message(p.client));
        cr_assert_str_eq(tls_status_error_type(st), "ClientConnectorSSLError");
    }
    tp_pair_free(&p);
}

Test(tls_conn, missing_client_certificate_is_reported)
{
    check_client_cert(TLS1_3_VERSION, NULL, NULL, TLS_ERR_CLIENT_CERT_REQUIRED);
    check_client_cert(TLS1_2_VERSION, NULL, NULL, TLS_ERR_CLIENT_CERT_REQUIRED);
}

Test(tls_conn, client_certificate_is_presented_when_asked)
{
    check_client_cert(TLS1_3_VERSION, "client.crt", "client.key", TLS_OK);
    check_client_cert(TLS1_2_VERSION, "client.crt", "client.key", TLS_OK);
}

Test(tls_conn, untrusted_client_certificate_is_reported_as_rejected)
{
    check_client_cert(TLS1_3_VERSION, "client-other.crt", "client-other.key",
                      TLS_ERR_CLIENT_CERT_REJECTED);
    check_client_cert(TLS1_2_VERSION, "client-other.crt", "client-other.key",
                      TLS_ERR_CLIENT_CERT_REJECTED);
}

Test(tls_conn, misuse_is_a_state_error)
{
    struct tls_context *ctx = tp_client_ctx(certs, NULL);
    struct tls_conn *conn = NULL;
    cr_assert_eq(tls_conn_new(ctx, &conn), 0);
    size_t used = 0;
    size_t n = 0;
    char out[16];
    cr_assert_eq(tls_conn_read(conn, NULL, 0, &used, out, sizeof(out), &n), TLS_ERR_STATE,
                 "read before begin");
    cr_assert_eq(tls_conn_begin(conn, "", 0), TLS_ERR_STATE);
    char long_host[TLS_HOST_BYTES_MAX + 1];
    memset(long_host, 'a', sizeof(long_host));
    cr_assert_eq(tls_conn_begin(conn, long_host, sizeof(long_host)), TLS_ERR_STATE);
    cr_assert_eq(tls_conn_begin(conn, "local\0host", 10), TLS_ERR_STATE);
    cr_assert_eq(tls_conn_begin(conn, "localhost", 9), TLS_WANT_READ);
    cr_assert_eq(tls_conn_write(conn, "x", 1, &used), TLS_ERR_STATE, "write before handshake");
    cr_assert(strstr(tls_conn_error_message(conn), "before the handshake") != NULL);
    cr_assert_eq(tls_conn_begin(conn, "[::1]", 5), TLS_WANT_READ, "begin starts over");
    cr_assert_eq(tls_conn_shutdown(conn), TLS_ERR_STATE, "shutdown before handshake");
    tls_conn_free(conn);
    tls_conn_free(NULL);
    tls_context_free(ctx);
    tls_context_free(NULL);
}

Test(tls_conn, every_status_has_a_name_and_an_error_type)
{
    for (int s = TLS_OK; s <= TLS_ERR_INTERNAL; s++) {
        cr_assert_str_neq(tls_status_name((enum tls_status)s), "unknown");
        cr_assert_not_null(tls_status_error_type((enum tls_status)s));
    }
    cr_assert_str_eq(tls_status_name(TLS_ERR_CERT_EXPIRED), "cert_expired");
    cr_assert_str_eq(tls_status_error_type(TLS_ERR_CERT_WRONG_HOST),
                     "ClientConnectorCertificateError");
    cr_assert_str_eq(tls_status_error_type(TLS_ERR_HANDSHAKE), "ClientConnectorSSLError");
}

struct handshake_thread {
    struct tls_context *ctx;
    SSL_CTX *sctx;
    int resumed;
};

static void *run_handshakes(void *arg)
{
    struct handshake_thread *t = arg;
    struct tp_pair p;
    tp_pair_init(&p, t->ctx, t->sctx, 4096);
    for (int i = 0; i < 20; i++) {
        tp_pair_server(&p);
        if (tp_handshake(&p, "localhost") != TLS_OK) {
            break;
        }
        t->resumed += tls_conn_resumed(p.client);
        exchange(&p);
    }
    tp_pair_free(&p);
    return NULL;
}

Test(tls_conn, threads_share_one_context)
{
    struct tls_context *ctx = tp_client_ctx(certs, NULL);
    SSL_CTX *sctx = tp_server_ctx(certs, "server.crt", TLS1_3_VERSION, TP_NO_CLIENT_CERT);
    struct handshake_thread threads[4];
    pthread_t ids[4];
    for (int i = 0; i < 4; i++) {
        threads[i] = (struct handshake_thread){.ctx = ctx, .sctx = sctx};
        cr_assert_eq(pthread_create(&ids[i], NULL, run_handshakes, &threads[i]), 0);
    }
    int resumed = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(ids[i], NULL);
        resumed += threads[i].resumed;
    }
    /* Each thread's first handshake may be full; every later one finds a ticket. */
    cr_assert_geq(resumed, 4 * 19, "resumed %d of 80", resumed);
    cr_assert_leq(tls_context_cached_sessions(ctx), TLS_SESSION_CACHE_MAX);
    SSL_CTX_free(sctx);
    tls_context_free(ctx);
}
