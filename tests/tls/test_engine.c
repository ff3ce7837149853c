/*
 * test_engine.c - the engine over HTTPS: the in-process mock server behind nginx terminating
 * TLS (certificates generated at test time). Every request ends as one record, token arrival
 * times still follow the server's own log of when it sent each token, kept-alive TLS
 * connections are reused and survive the server closing them while idle, and handshakes
 * that fail or never finish end as error records. Skips without nginx or io_uring.
 */
#include <jansson.h>

#include "endpoint/endpoint.h"
#include "payload/payload.h"
#include "engine/engine.h"
#include "mock/mock.h"
#include "nginx_proxy.h"

#define MAX_RECORDS 256
#define MAX_TOKENS 32

struct captured {
    uint64_t ordinal;
    enum record_outcome outcome;
    int error_code;
    char error_type[RECORD_ERROR_TYPE_BYTES];
    char error_message[RECORD_ERROR_MESSAGE_BYTES];
    bool reused;
    int http_status;
    int64_t send_start_ns;
    int64_t send_end_ns;
    uint32_t content_events;
    int64_t content_ns[MAX_TOKENS];
};

struct capture {
    struct captured records[MAX_RECORDS];
    size_t count;
    struct engine_run_stats stats;
};

static void capture_record(void *ctx, const struct record *rec)
{
    struct capture *cap = ctx;
    cr_assert_lt(cap->count, MAX_RECORDS);
    struct captured *c = &cap->records[cap->count++];
    *c = (struct captured){
        .ordinal = rec->ordinal,
        .outcome = rec->outcome,
        .error_code = rec->error_code,
        .reused = rec->reused_connection,
        .http_status = rec->http_status,
        .send_start_ns = rec->send_start_ns,
        .send_end_ns = rec->send_end_ns,
    };
    memcpy(c->error_type, rec->error_type, sizeof(c->error_type));
    memcpy(c->error_message, rec->error_message, sizeof(c->error_message));
    for (uint32_t i = 0; i < rec->event_count; i++) {
        if ((rec->events[i].flags & RECORD_EVENT_CONTENT) != 0 && c->content_events < MAX_TOKENS) {
            c->content_ns[c->content_events++] = rec->events[i].arrival_ns;
        }
    }
}

static void capture_stats(void *ctx, const struct engine_run_stats *stats)
{
    struct capture *cap = ctx;
    cap->stats = *stats;
}

static char dir[TP_PATH_BYTES];
static char token_log[TP_PATH_BYTES];
static const char *nginx_path;
static struct mock_server *mock;
static struct np_nginx proxy;

/* world is one test's client side: a TLS context, the target and the engine config. */
struct world {
    struct tls_context *tls;
    struct engine_target target;
    struct engine_payload payload;
    char *body;
    struct engine_config config;
};

static void start_world(int keepalive_s)
{
    nginx_path = np_find();
    char errbuf[256];
    if (nginx_path == NULL || engine_probe(errbuf, sizeof(errbuf)) != 0) {
        nginx_path = NULL;
        return;
    }
    tp_make_certs(dir, sizeof(dir));
    struct mock_config mc;
    mock_config_init(&mc);
    mc.port = 0;
    mc.threads = 2;
    mc.ttft_ms = 40;
    mc.itl_ms = 4;
    tp_path(token_log, dir, "tokens.jsonl");
    mc.token_log_path = token_log;
    cr_assert_eq(mock_server_start(&mc, &mock, errbuf, sizeof(errbuf)), 0, "%s", errbuf);
    np_start(&proxy, nginx_path, dir, mock_server_port(mock), keepalive_s);
}

static void setup(void)
{
    start_world(30);
}

/* nginx closes idle client connections after 1 s. */
static void setup_short_keepalive(void)
{
    start_world(1);
}

static void teardown(void)
{
    np_stop(&proxy);
    if (mock != NULL) {
        mock_server_free(mock);
        mock = NULL;
    }
    tp_remove_dir(dir);
}

TestSuite(engine_tls, .init = setup, .fini = teardown, .timeout = 120);
TestSuite(engine_tls_idle, .init = setup_short_keepalive, .fini = teardown, .timeout = 120);

static void require_world(void)
{
    if (nginx_path == NULL) {
        cr_skip_test("needs nginx (apt-get install nginx-light) and io_uring");
    }
}

/* prepare fills w for streamed chat requests of max_tokens to 127.0.0.1:port over TLS with
 * the server name host, trusting ca (a file in dir). */
static void prepare(struct world *w, uint16_t port, const char *host, const char *ca,
                    uint64_t max_tokens)
{
    *w = (struct world){0};
    char ca_path[TP_PATH_BYTES];
    struct tls_options opts = {.ca_file = tp_path(ca_path, dir, ca)};
    w->tls = tp_client_ctx(dir, &opts);
    struct payload_spec spec = {
        .type = ENDPOINT_CHAT,
        .model = "test-model",
        .prompt = "tell me about rivers and mountains",
        .max_tokens = max_tokens,
        .streaming = true,
    };
    char errbuf[256];
    w->body = payload_build(&spec, errbuf, sizeof(errbuf));
    cr_assert_not_null(w->body, "%s", errbuf);
    w->payload = (struct engine_payload){.body = w->body, .body_len = strlen(w->body)};
    struct sockaddr_in *sin = (struct sockaddr_in *)&w->target.addr;
    sin->sin_family = AF_INET;
    sin->sin_port = htons(port);
    sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    w->target.addr_len = sizeof(*sin);
    snprintf(w->target.host_header, sizeof(w->target.host_header), "%s:%u", host, port);
    snprintf(w->target.path, sizeof(w->target.path), "/v1/chat/completions");
    w->target.tls = w->tls;
    snprintf(w->target.tls_host, sizeof(w->target.tls_host), "%s", host);
    w->config = (struct engine_config){
        .targets = &w->target,
        .target_count = 1,
        .endpoint_type = ENDPOINT_CHAT,
        .streaming = true,
        .payloads = &w->payload,
        .payload_count = 1,
        .shard_count = 2,
        .concurrency = 4,
        .request_id_nonce = 0x7153000000000001ULL,
    };
}

static void finish_world(struct world *w)
{
    free(w->body);
    tls_context_free(w->tls);
}

static struct capture *run(struct world *w)
{
    struct capture *cap = calloc(1, sizeof(*cap));
    cr_assert_not_null(cap);
    struct engine_record_sink sink = {
        .on_record = capture_record, .on_finish = capture_stats, .ctx = cap};
    char errbuf[256];
    cr_assert_eq(engine_run(&w->config, &sink, NULL, errbuf, sizeof(errbuf)), 0, "%s", errbuf);
    cr_assert_eq(cap->count, w->config.request_count, "one record per request");
    return cap;
}

static void assert_all_succeeded(const struct capture *cap, uint32_t tokens)
{
    for (size_t i = 0; i < cap->count; i++) {
        const struct captured *c = &cap->records[i];
        cr_assert_eq(c->outcome, RECORD_SUCCESS, "%s: %s", c->error_type, c->error_message);
        cr_assert_eq(c->http_status, 200);
        cr_assert_eq(c->content_events, tokens);
        cr_assert(c->send_start_ns > 0 && c->send_end_ns >= c->send_start_ns);
    }
}

/* check_token_log matches every token the server logged to its arrival at the client. */
static void check_token_log(const struct world *w, const struct capture *cap, size_t want)
{
    FILE *log = fopen(token_log, "r");
    cr_assert_not_null(log);
    char line[512];
    size_t matched = 0;
    size_t late = 0;
    while (fgets(line, sizeof(line), log) != NULL) {
        json_error_t err;
        json_t *obj = json_loads(line, 0, &err);
        cr_assert_not_null(obj, "token log line: %s", line);
        const char *id = json_string_value(json_object_get(obj, "request_id"));
        int64_t token = json_integer_value(json_object_get(obj, "token"));
        int64_t send_ns = json_integer_value(json_object_get(obj, "send_ns"));
        for (size_t i = 0; i < cap->count; i++) {
            char expect[40];
            record_request_id(w->config.request_id_nonce, cap->records[i].ordinal, expect,
                              sizeof(expect));
            if (strcmp(expect, id) != 0 || token >= cap->records[i].content_events) {
                continue;
            }
            int64_t arrival = cap->records[i].content_ns[token];
            cr_assert_geq(arrival, send_ns, "token %lld arrived before the server sent it",
                          (long long)token);
            late += arrival - send_ns > 20 * 1000 * 1000;
            matched++;
        }
        json_decref(obj);
    }
    fclose(log);
    cr_assert_eq(matched, want, "every token matched its log line");
    /* nginx relays every token; a busy machine may delay a few, most must be prompt. */
    cr_assert_lt(late, matched / 4, "%zu of %zu tokens took over 20 ms", late, matched);
}

Test(engine_tls, token_arrivals_follow_the_servers_send_times)
{
    require_world();
    struct world w;
    prepare(&w, proxy.ports[NP_VALID], "localhost", "ca.crt", 10);
    w.config.request_count = 24;
    struct capture *cap = run(&w);
    assert_all_succeeded(cap, 10);
    mock_server_stop(mock);
    check_token_log(&w, cap, 24 * 10);
    cr_assert_gt(cap->stats.kernel_timestamp_reads, 0,
                 "TLS reads keep the kernel's receive timestamps");
    size_t reused = 0;
    for (size_t i = 0; i < cap->count; i++) {
        reused += cap->records[i].reused;
        /* TTFT counts from the request, after the handshake: never below the server's. */
        cr_assert_geq(cap->records[i].content_ns[0] - cap->records[i].send_start_ns,
                      40 * 1000 * 1000);
    }
    cr_assert_geq(reused, 24 - 4, "only each connection's first request needs a handshake");
    cr_assert_gt(tls_context_cached_sessions(w.tls), 0, "sessions are kept for resumption");
    free(cap);
    finish_world(&w);
}

Test(engine_tls, large_request_bodies_are_written_across_many_records)
{
    require_world();
    struct world w;
    prepare(&w, proxy.ports[NP_VALID], "127.0.0.1", "ca.crt", 3);
    /* A JSON body several times the 64 KiB TLS send buffer. */
    size_t len = 300 * 1024;
    char *body = malloc(len + 1);
    cr_assert_not_null(body);
    static const char head[] = "{\"model\":\"m\",\"max_tokens\":3,\"stream\":true,\"messages\":"
                               "[{\"role\":\"user\",\"content\":\"";
    static const char tail[] = "\"}]}";
    memcpy(body, head, sizeof(head) - 1);
    for (size_t i = sizeof(head) - 1; i < len - (sizeof(tail) - 1); i++) {
        body[i] = i % 6 == 0 ? ' ' : 'a' + (char)(i % 26);
    }
    memcpy(body + len - (sizeof(tail) - 1), tail, sizeof(tail) - 1);
    body[len] = '\0';
    w.payload = (struct engine_payload){.body = body, .body_len = len};
    w.config.request_count = 8;
    struct capture *cap = run(&w);
    assert_all_succeeded(cap, 3);
    free(cap);
    free(body);
    finish_world(&w);
}

Test(engine_tls, certificate_failures_are_error_records_that_say_what_failed)
{
    require_world();
    static const struct {
        enum np_port port;
        const char *host;
        const char *ca;
        const char *needle;
    } cases[] = {
        {NP_WRONGHOST, "localhost", "ca.crt", "not valid for that name"},
        {NP_EXPIRED, "localhost", "ca.crt", "expired"},
        {NP_UNKNOWN, "localhost", "ca.crt", "unknown authority"},
        {NP_VALID, "localhost", "other-ca.crt", "unknown authority"},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        struct world w;
        prepare(&w, proxy.ports[cases[k].port], cases[k].host, cases[k].ca, 4);
        w.config.request_count = 6;
        struct capture *cap = run(&w);
        for (size_t i = 0; i < cap->count; i++) {
            const struct captured *c = &cap->records[i];
            cr_assert_eq(c->outcome, RECORD_ERROR, "case %zu", k);
            cr_assert_eq(c->error_code, 0);
            cr_assert_str_eq(c->error_type, "ClientConnectorCertificateError", "case %zu: %s", k,
                             c->error_message);
            cr_assert(strstr(c->error_message, cases[k].needle) != NULL, "case %zu: %s", k,
                      c->error_message);
            cr_assert_eq(c->send_start_ns, 0, "no request left before the handshake failed");
        }
        free(cap);
        finish_world(&w);
    }
}

Test(engine_tls, plain_http_server_is_a_handshake_error)
{
    require_world();
    struct world w;
    prepare(&w, mock_server_port(mock), "localhost", "ca.crt", 4);
    w.config.request_count = 4;
    struct capture *cap = run(&w);
    for (size_t i = 0; i < cap->count; i++) {
        cr_assert_eq(cap->records[i].outcome, RECORD_ERROR);
        cr_assert_str_eq(cap->records[i].error_type, "ClientConnectorSSLError", "%s",
                         cap->records[i].error_message);
    }
    free(cap);
    finish_world(&w);
}

Test(engine_tls, handshake_that_never_completes_ends_at_the_request_timeout)
{
    require_world();
    /* Listening, never accepting: connects complete, nothing answers the ClientHello. */
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sin = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    cr_assert_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
    cr_assert_eq(listen(fd, 16), 0);
    socklen_t len = sizeof(sin);
    getsockname(fd, (struct sockaddr *)&sin, &len);
    struct world w;
    prepare(&w, ntohs(sin.sin_port), "localhost", "ca.crt", 4);
    w.config.request_count = 4;
    w.config.request_timeout_ns = 300ULL * 1000 * 1000;
    struct capture *cap = run(&w);
    for (size_t i = 0; i < cap->count; i++) {
        cr_assert_eq(cap->records[i].outcome, RECORD_ERROR);
        cr_assert_str_eq(cap->records[i].error_type, "TimeoutError");
    }
    close(fd);
    free(cap);
    finish_world(&w);
}

/* --connection-reuse-strategy never over TLS: a connection, and so a
 * handshake, for every request, and none on a kept-alive connection. */
Test(engine_tls, a_connection_per_request_handshakes_each_time)
{
    require_world();
    struct world w;
    prepare(&w, proxy.ports[NP_VALID], "localhost", "ca.crt", 3);
    w.config.request_count = 12;
    w.config.concurrency = 2;
    w.config.conn_reuse = ENGINE_REUSE_NEVER;
    struct capture *cap = run(&w);
    assert_all_succeeded(cap, 3);
    for (size_t i = 0; i < cap->count; i++) {
        cr_assert_not(cap->records[i].reused, "request %zu reused a connection", i);
    }
    free(cap);
    finish_world(&w);
}

Test(engine_tls, cancelled_requests_end_as_cancelled)
{
    require_world();
    struct world w;
    prepare(&w, proxy.ports[NP_VALID], "localhost", "ca.crt", 20);
    w.config.request_count = 8;
    w.config.cancel_fraction = 1.0;
    w.config.cancel_delay_ns = 10 * 1000 * 1000; /* well before the 40 ms TTFT */
    struct capture *cap = run(&w);
    for (size_t i = 0; i < cap->count; i++) {
        cr_assert_eq(cap->records[i].outcome, RECORD_CANCELLED, "%s",
                     cap->records[i].error_message);
        cr_assert_eq(cap->records[i].error_code, 499);
        cr_assert_gt(cap->records[i].send_end_ns, 0, "the clock starts once the request left");
    }
    free(cap);
    finish_world(&w);
}

static int64_t every_1500ms(void *ctx, uint64_t k)
{
    (void)ctx;
    return (int64_t)k * 1500 * 1000 * 1000;
}

Test(engine_tls_idle, server_closing_an_idle_connection_is_not_an_error)
{
    require_world();
    struct world w;
    prepare(&w, proxy.ports[NP_VALID], "localhost", "ca.crt", 3);
    /* nginx closes idle connections after 1 s (with close_notify); the next request comes
     * 1.5 s after the previous one and needs a new connection, resumed. */
    struct engine_schedule schedule = {.offset_ns = every_1500ms};
    w.config.schedule = &schedule;
    w.config.concurrency = 1;
    w.config.shard_count = 1;
    w.config.request_count = 3;
    struct capture *cap = run(&w);
    assert_all_succeeded(cap, 3);
    for (size_t i = 0; i < cap->count; i++) {
        cr_assert_not(cap->records[i].reused, "request %zu had to reconnect", i);
    }
    free(cap);
    finish_world(&w);
}
