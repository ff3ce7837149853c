/*
 * test_e2e.c - `ringperf profile --url https://...` as a user runs it: real processes on
 * loopback (`ringperf mock-server`, nginx terminating TLS in front of it with certificates
 * generated at test time, and ringperf itself), checked through the files the run leaves.
 * Skips when nginx is not installed.
 */
#include "profile_run.h"

#define MOCK_TTFT_MS 30
#define MOCK_ITL_MS 5
#define OSL_TOKENS 8

static struct pr_front front;

static void setup(void)
{
    char ttft[16];
    char itl[16];
    snprintf(ttft, sizeof(ttft), "%d", MOCK_TTFT_MS);
    snprintf(itl, sizeof(itl), "%d", MOCK_ITL_MS);
    pr_front_start(&front, (char *const[]){"--ttft-ms", ttft, "--itl-ms", itl, NULL});
}

static void teardown(void)
{
    pr_front_stop(&front);
}

TestSuite(tls_e2e, .init = setup, .fini = teardown, .timeout = 120);

static void require_nginx(void)
{
    if (front.nginx_path == NULL) {
        cr_skip_test("nginx is not installed (apt-get install nginx-light)");
    }
}

static double metric(json_t *record, const char *name)
{
    json_t *value =
        json_object_get(json_object_get(json_object_get(record, "metrics"), name), "value");
    cr_assert(json_is_number(value), "metric %s is present", name);
    return json_number_value(value);
}

Test(tls_e2e, streaming_run_succeeds_with_sane_token_timing)
{
    require_nginx();
    char url[64];
    pr_https_url(url, sizeof(url), &front, "localhost", NP_VALID);
    struct pr_run r;
    pr_run_profile(&r, front.dir, "ok", NULL,
                   (const char *const[]){"--url", url, "--tls-ca", front.ca, "--streaming",
                                         "--request-count", "24", "--concurrency", "4", "--osl",
                                         "8", NULL});
    pr_assert_all_succeeded(&r, 24);
    cr_assert_null(strstr(r.output, "WARNING"), "verification stays on: %s", r.output);
    for (size_t i = 0; i < 24; i++) {
        json_t *rec = json_array_get(r.records, i);
        /* The server waits TTFT after the request arrives and ITL between tokens, so no
         * client can see them sooner; nginx in between only adds delay. */
        cr_assert_geq(metric(rec, "time_to_first_token"), MOCK_TTFT_MS * 0.999);
        cr_assert_geq(metric(rec, "request_latency"),
                      (MOCK_TTFT_MS + (OSL_TOKENS - 1) * MOCK_ITL_MS) * 0.999);
        /* ITL runs from the first token's read to the last's, so it is 0 only when every
         * token came in one read: a loaded machine can hold the client back that long
         * whatever the server's spacing, and the record must then say so. */
        json_int_t shared = json_integer_value(
            json_object_get(json_object_get(rec, "metadata"), "shared_read_events"));
        if (shared < OSL_TOKENS - 1) {
            cr_assert_gt(metric(rec, "inter_token_latency"), 0, "%lld shared reads",
                         (long long)shared);
        } else {
            cr_assert_eq(metric(rec, "inter_token_latency"), 0);
        }
        cr_assert_eq((int)metric(rec, "output_sequence_length"), OSL_TOKENS);
        cr_assert_eq(
            json_integer_value(json_object_get(json_object_get(rec, "metadata"), "http_status")),
            200);
    }
    char summary[TP_PATH_BYTES];
    char *json = test_read_path(tp_path(summary, front.dir, "ok/profile_export_aiperf.json"));
    cr_assert_not_null(json, "the summary export was written");
    free(json);
    /* The server's /metrics was scraped over TLS too, through the same front. */
    json_t *sm =
        json_load_file(tp_path(summary, front.dir, "ok/server_metrics_export.json"), 0, NULL);
    cr_assert_not_null(sm, "server_metrics_export.json was written");
    const char *ep = json_string_value(
        json_array_get(json_object_get(json_object_get(sm, "summary"), "endpoints_successful"), 0));
    cr_assert_not_null(ep, "the https /metrics was scraped");
    cr_assert_eq(strncmp(ep, "https://localhost:", 18), 0, "%s", ep);
    json_t *gen = json_object_get(json_object_get(sm, "metrics"), "vllm:generation_tokens");
    json_t *stats = json_object_get(json_array_get(json_object_get(gen, "series"), 0), "stats");
    cr_assert_eq(json_number_value(json_object_get(stats, "total")), 24 * OSL_TOKENS);
    json_decref(sm);
    pr_run_free(&r);
}

Test(tls_e2e, non_streaming_run_with_large_bodies_over_an_ip_literal)
{
    require_nginx();
    char url[64];
    pr_https_url(url, sizeof(url), &front, "127.0.0.1", NP_VALID);
    struct pr_run r;
    /* ~20000 words: each body is several times the TLS send buffer. */
    pr_run_profile(&r, front.dir, "big", NULL,
                   (const char *const[]){"--url", url, "--tls-ca", front.ca, "--request-count", "6",
                                         "--concurrency", "2", "--isl", "20000", "--osl", "4",
                                         NULL});
    pr_assert_all_succeeded(&r, 6);
    pr_run_free(&r);
}

/* A multipart body goes out in pieces (head, fields, the audio file from where it lies, the
 * rest): over TLS each piece is encrypted in turn, and the server gets the whole file. */
Test(tls_e2e, multipart_audio_bodies_arrive_whole)
{
    require_nginx();
    char url[64];
    pr_https_url(url, sizeof(url), &front, "localhost", NP_VALID);
    struct pr_run r;
    pr_run_profile(&r, front.dir, "audio", NULL,
                   (const char *const[]){"--url", url, "--tls-ca", front.ca, "--endpoint-type",
                                         "audio_transcription", "--audio-length-mean", "2",
                                         "--request-count", "4", "--concurrency", "2", NULL});
    pr_assert_all_succeeded(&r, 4);
    for (size_t i = 0; i < 4; i++) {
        json_t *rec = json_array_get(r.records, i);
        cr_assert_float_eq(metric(rec, "audio_duration"), 2.0, 1e-9);
        cr_assert_gt(metric(rec, "rtfx"), 0);
    }
    pr_run_free(&r);
}

Test(tls_e2e, wrong_host_is_an_error_record_naming_the_certificates_names)
{
    require_nginx();
    char url[64];
    pr_https_url(url, sizeof(url), &front, "localhost", NP_WRONGHOST);
    struct pr_run r;
    pr_run_profile(&r, front.dir, "wronghost", NULL,
                   (const char *const[]){"--url", url, "--tls-ca", front.ca, "--request-count", "3",
                                         "--concurrency", "1", NULL});
    pr_assert_all_failed(&r, 3, "ClientConnectorCertificateError", "other.example");
    pr_run_free(&r);
}

Test(tls_e2e, unknown_ca_is_an_error_record_that_says_how_to_fix_it)
{
    require_nginx();
    char url[64];
    char ca[TP_PATH_BYTES];
    pr_https_url(url, sizeof(url), &front, "localhost", NP_VALID);
    struct pr_run r;
    pr_run_profile(&r, front.dir, "unknown", NULL,
                   (const char *const[]){"--url", url, "--tls-ca",
                                         tp_path(ca, front.dir, "other-ca.crt"), "--request-count",
                                         "2", "--concurrency", "2", NULL});
    pr_assert_all_failed(&r, 2, "ClientConnectorCertificateError", "unknown authority");
    pr_assert_all_failed(&r, 2, "ClientConnectorCertificateError", "--tls-ca");
    pr_run_free(&r);
}

Test(tls_e2e, expired_certificate_is_an_error_record)
{
    require_nginx();
    char url[64];
    pr_https_url(url, sizeof(url), &front, "localhost", NP_EXPIRED);
    struct pr_run r;
    pr_run_profile(&r, front.dir, "expired", NULL,
                   (const char *const[]){"--url", url, "--tls-ca", front.ca, "--streaming",
                                         "--request-count", "2", NULL});
    pr_assert_all_failed(&r, 2, "ClientConnectorCertificateError", "expired");
    pr_run_free(&r);
}

Test(tls_e2e, tls_insecure_accepts_a_bad_certificate_and_warns)
{
    require_nginx();
    char url[64];
    pr_https_url(url, sizeof(url), &front, "localhost", NP_EXPIRED);
    struct pr_run r;
    pr_run_profile(&r, front.dir, "insecure", NULL,
                   (const char *const[]){"--url", url, "--tls-insecure", "--streaming",
                                         "--request-count", "4", "--concurrency", "2", NULL});
    cr_assert_eq(r.status, 0, "%s", r.output);
    cr_assert_eq(r.errors, 0, "%s", r.output);
    cr_assert_not_null(strstr(r.output, "verification is DISABLED (--tls-insecure)"), "%s",
                       r.output);
    pr_run_free(&r);
}

Test(tls_e2e, aiperf_environment_variables_are_honoured)
{
    require_nginx();
    char url[64];
    pr_https_url(url, sizeof(url), &front, "localhost", NP_UNKNOWN);
    struct pr_run r;
    pr_run_profile(&r, front.dir, "env-verify",
                   (char *const[]){"AIPERF_HTTP_SSL_VERIFY=false", NULL},
                   (const char *const[]){"--url", url, "--request-count", "2", NULL});
    cr_assert_eq(r.status, 0, "%s", r.output);
    cr_assert_eq(r.errors, 0, "%s", r.output);
    cr_assert_not_null(strstr(r.output, "DISABLED (AIPERF_HTTP_SSL_VERIFY=false)"), "%s", r.output);
    pr_run_free(&r);

    char cert_file[TP_PATH_BYTES + 16];
    snprintf(cert_file, sizeof(cert_file), "SSL_CERT_FILE=%s", front.ca);
    pr_https_url(url, sizeof(url), &front, "localhost", NP_VALID);
    pr_run_profile(&r, front.dir, "env-ca", (char *const[]){cert_file, NULL},
                   (const char *const[]){"--url", url, "--request-count", "2", NULL});
    cr_assert_eq(r.status, 0, "%s", r.output);
    cr_assert_eq(r.errors, 0, "%s", r.output);
    pr_run_free(&r);
}

Test(tls_e2e, client_certificate_is_offered_when_the_server_requires_one)
{
    require_nginx();
    char url[64];
    char cert[TP_PATH_BYTES];
    char key[TP_PATH_BYTES];
    pr_https_url(url, sizeof(url), &front, "localhost", NP_MTLS);
    struct pr_run r;
    pr_run_profile(&r, front.dir, "mtls", NULL,
                   (const char *const[]){"--url", url, "--tls-ca", front.ca, "--tls-cert",
                                         tp_path(cert, front.dir, "client.crt"), "--tls-key",
                                         tp_path(key, front.dir, "client.key"), "--request-count",
                                         "3", NULL});
    cr_assert_eq(r.status, 0, "%s", r.output);
    cr_assert_eq(r.errors, 0, "%s", r.output);
    pr_run_free(&r);
    /* nginx completes the handshake without one and refuses at the HTTP level. */
    pr_run_profile(
        &r, front.dir, "mtls-none", NULL,
        (const char *const[]){"--url", url, "--tls-ca", front.ca, "--request-count", "2", NULL});
    cr_assert_neq(r.status, 0);
    cr_assert_eq(r.errors, 2, "%s", r.output);
    json_t *error = json_object_get(json_array_get(r.records, 0), "error");
    cr_assert_eq(json_integer_value(json_object_get(error, "code")), 400);
    pr_run_free(&r);
}

Test(tls_e2e, plain_http_port_is_a_handshake_error_record)
{
    require_nginx();
    char url[64];
    snprintf(url, sizeof(url), "https://localhost:%u", (unsigned)front.mock_port);
    struct pr_run r;
    pr_run_profile(
        &r, front.dir, "plain", NULL,
        (const char *const[]){"--url", url, "--tls-insecure", "--request-count", "2", NULL});
    pr_assert_all_failed(&r, 2, "ClientConnectorSSLError", "http://");
    pr_run_free(&r);
}

Test(tls_e2e, unreadable_ca_file_stops_the_run_before_it_starts)
{
    require_nginx();
    char url[64];
    pr_https_url(url, sizeof(url), &front, "localhost", NP_VALID);
    struct pr_run r;
    pr_run_profile(&r, front.dir, "noca", NULL,
                   (const char *const[]){"--url", url, "--tls-ca", "/nonexistent/ca.pem",
                                         "--request-count", "2", NULL});
    cr_assert_eq(r.status, 1, "%s", r.output);
    cr_assert_not_null(strstr(r.output, "/nonexistent/ca.pem"), "%s", r.output);
    cr_assert_null(r.records, "no run, no records");
    pr_run_free(&r);
}

Test(tls_e2e, tls_flags_without_an_https_url_are_reported_as_unused)
{
    require_nginx();
    char url[64];
    snprintf(url, sizeof(url), "http://127.0.0.1:%u", (unsigned)front.mock_port);
    struct pr_run r;
    pr_run_profile(
        &r, front.dir, "plainurl", NULL,
        (const char *const[]){"--url", url, "--tls-insecure", "--request-count", "2", NULL});
    cr_assert_eq(r.status, 0, "%s", r.output);
    cr_assert_eq(r.errors, 0);
    cr_assert_not_null(strstr(r.output, "no --url is https://"), "%s", r.output);
    cr_assert_null(strstr(r.output, "DISABLED"), "no TLS, no TLS warning: %s", r.output);
    pr_run_free(&r);
}

Test(tls_e2e, http_and_https_urls_share_one_run)
{
    require_nginx();
    char plain[64];
    char https[64];
    snprintf(plain, sizeof(plain), "http://127.0.0.1:%u", (unsigned)front.mock_port);
    pr_https_url(https, sizeof(https), &front, "localhost", NP_VALID);
    struct pr_run r;
    pr_run_profile(&r, front.dir, "mixed", NULL,
                   (const char *const[]){"--url", plain, "--url", https, "--tls-ca", front.ca,
                                         "--streaming", "--request-count", "16", "--concurrency",
                                         "4", NULL});
    pr_assert_all_succeeded(&r, 16);
    pr_run_free(&r);
}

/* A mock without pacing, whose stream events carry 40000 words (about 200 KiB) each. */
static void setup_big(void)
{
    pr_front_start(&front,
                   (char *const[]){"--tokens-per-chunk", "40000", "--max-connections", "64", NULL});
}

TestSuite(tls_e2e_big, .init = setup_big, .fini = teardown, .timeout = 180);

/* check_usage requires every record of r to report `prompt` and `completion` usage tokens: the
 * server read each whole prompt, and the client each whole answer. */
static void check_usage(const struct pr_run *r, double prompt, double completion)
{
    for (size_t i = 0; i < json_array_size(r->records); i++) {
        json_t *rec = json_array_get(r->records, i);
        cr_assert_float_eq(metric(rec, "usage_prompt_tokens"), prompt, 1e-9);
        cr_assert_float_eq(metric(rec, "usage_completion_tokens"), completion, 1e-9);
    }
}

/* Over TLS, a 1 MiB request body is encrypted and sent in records as the socket takes them,
 * and a 1 MiB answer, or streamed events of 200 KiB, grow the body buffer past its 128 KiB. */
Test(tls_e2e_big, megabyte_bodies_both_ways)
{
    require_nginx();
    char url[64];
    pr_https_url(url, sizeof(url), &front, "localhost", NP_VALID);
    struct pr_run r;
    pr_run_profile(&r, front.dir, "megabyte", NULL,
                   (const char *const[]){"--url", url, "--tls-ca", front.ca, "--request-count", "4",
                                         "--concurrency", "2", "--isl", "200000", "--osl", "200000",
                                         NULL});
    pr_assert_all_succeeded(&r, 4);
    check_usage(&r, 200000, 200000);
    for (size_t i = 0; i < 4; i++) {
        cr_assert_gt(metric(json_array_get(r.records, i), "http_req_data_sent"), 1024.0);
    }
    pr_run_free(&r);
    pr_run_profile(&r, front.dir, "events", NULL,
                   (const char *const[]){"--url", url, "--tls-ca", front.ca, "--streaming",
                                         "--request-count", "4", "--concurrency", "2", "--isl",
                                         "10", "--osl", "120000", NULL});
    pr_assert_all_succeeded(&r, 4);
    check_usage(&r, 10, 120000);
    pr_run_free(&r);
}
