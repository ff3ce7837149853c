/*
 * test_record.c - AIPerf's per-request formulas and --goodput on hand-made
 * requests: multi-token chunks, reasoning-only chunks, role-only first
 * chunks (which never become content responses), a single-token response,
 * non-streaming bodies and failed requests.
 */
#include "metrics/metrics.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define MS 1000000LL

/* request builds a successful streaming request that started at 1 s. */
static struct metrics_request request(const int64_t *content_ns, uint32_t count,
                                      uint32_t first_output, int64_t output, int64_t reasoning,
                                      int64_t input)
{
    return (struct metrics_request){
        .streaming = true,
        .start_ns = 1000 * MS,
        .start_wall_ns = 1700000000LL * 1000 * MS,
        .content_ns = content_ns,
        .content_count = count,
        .first_output_index = first_output,
        .tokens = {.input = input, .output = output, .reasoning = reasoning},
        .usage = RECORD_USAGE_NONE,
    };
}

static void assert_value(const struct metrics_values *v, enum metrics_id id, double expected)
{
    cr_assert(v->has[id], "%s is present", metrics_info_of(id)->tag);
    cr_assert(fabs(v->value[id] - expected) <= 1e-9 * fabs(expected), "%s: got %.17g, want %.17g",
              metrics_info_of(id)->tag, v->value[id], expected);
}

static void assert_absent(const struct metrics_values *v, enum metrics_id id)
{
    cr_assert(!v->has[id], "%s is absent", metrics_info_of(id)->tag);
}

Test(metrics_record, streaming_multi_token_chunks)
{
    /* Chunks at +50, +60, +80 ms carrying 10 tokens in all. */
    const int64_t t[] = {1050 * MS, 1060 * MS, 1080 * MS};
    struct metrics_request req = request(t, 3, 0, 10, METRICS_ABSENT, 100);
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    assert_value(&v, METRICS_TTFT, 50 * MS);
    assert_value(&v, METRICS_TTST, 10 * MS);
    assert_value(&v, METRICS_TTFO, 50 * MS);
    assert_value(&v, METRICS_REQUEST_LATENCY, 80 * MS);
    /* ITL counts tokens, not chunks: (80 - 50) ms / (10 - 1). */
    assert_value(&v, METRICS_ITL, 30.0 * MS / 9);
    assert_value(&v, METRICS_OTPS_PER_USER, 1e9 / (30.0 * MS / 9));
    assert_value(&v, METRICS_PREFILL_TPS_PER_USER, 100 / 0.050);
    assert_value(&v, METRICS_OSL, 10);
    assert_value(&v, METRICS_ISL, 100);
    assert_value(&v, METRICS_OUTPUT_TOKEN_COUNT, 10);
    assert_absent(&v, METRICS_REASONING_TOKEN_COUNT);
    assert_absent(&v, METRICS_ERROR_ISL);
    cr_assert(v.has[METRICS_ICL]);
    cr_assert_eq(metrics_request_icl_count(&req), 2);
    cr_assert_eq(metrics_request_icl_ns(&req, 0), 10 * MS);
    cr_assert_eq(metrics_request_icl_ns(&req, 1), 20 * MS);
}

Test(metrics_record, reasoning_chunks_count_for_ttft_not_ttfo)
{
    /* Two reasoning-only chunks, then output from the third. */
    const int64_t t[] = {1020 * MS, 1030 * MS, 1070 * MS, 1090 * MS};
    struct metrics_request req = request(t, 4, 2, 5, 6, 40);
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    assert_value(&v, METRICS_TTFT, 20 * MS);
    assert_value(&v, METRICS_TTST, 10 * MS);
    assert_value(&v, METRICS_TTFO, 70 * MS);
    assert_value(&v, METRICS_REQUEST_LATENCY, 90 * MS);
    assert_value(&v, METRICS_OUTPUT_TOKEN_COUNT, 5);
    assert_value(&v, METRICS_REASONING_TOKEN_COUNT, 6);
    assert_value(&v, METRICS_OSL, 11); /* OSL includes reasoning */
    assert_value(&v, METRICS_ITL, 70.0 * MS / 10);
}

Test(metrics_record, reasoning_only_response_has_no_ttfo)
{
    const int64_t t[] = {1010 * MS, 1020 * MS};
    struct metrics_request req = request(t, 2, 2, METRICS_ABSENT, 4, 7);
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    assert_value(&v, METRICS_TTFT, 10 * MS);
    assert_absent(&v, METRICS_TTFO);
    assert_absent(&v, METRICS_OUTPUT_TOKEN_COUNT);
    assert_value(&v, METRICS_OSL, 4);
}

Test(metrics_record, role_only_first_chunk_is_not_content)
{
    /* The role-only chunk at +5 ms never reaches content_ns: TTFT is the
     * first chunk with text, at +30 ms. */
    const int64_t t[] = {1030 * MS, 1040 * MS};
    struct metrics_request req = request(t, 2, 0, 2, METRICS_ABSENT, 3);
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    assert_value(&v, METRICS_TTFT, 30 * MS);
    assert_value(&v, METRICS_ITL, 10 * MS);
}

Test(metrics_record, single_token_response)
{
    const int64_t t[] = {1025 * MS};
    struct metrics_request req = request(t, 1, 0, 1, METRICS_ABSENT, 9);
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    assert_value(&v, METRICS_TTFT, 25 * MS);
    assert_value(&v, METRICS_REQUEST_LATENCY, 25 * MS);
    assert_value(&v, METRICS_OSL, 1);
    assert_absent(&v, METRICS_TTST);
    assert_absent(&v, METRICS_ITL); /* OSL < 2 */
    assert_absent(&v, METRICS_OTPS_PER_USER);
    assert_absent(&v, METRICS_ICL);
    cr_assert_eq(metrics_request_icl_count(&req), 0);
}

Test(metrics_record, no_content_response_gives_only_token_metrics)
{
    struct metrics_request req = request(NULL, 0, 0, METRICS_ABSENT, METRICS_ABSENT, 12);
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    assert_absent(&v, METRICS_REQUEST_LATENCY);
    assert_absent(&v, METRICS_TTFT);
    assert_absent(&v, METRICS_OSL);
    assert_value(&v, METRICS_ISL, 12);
}

Test(metrics_record, non_streaming_has_latency_but_no_streaming_metrics)
{
    const int64_t t[] = {1200 * MS};
    struct metrics_request req = request(t, 1, 0, 30, METRICS_ABSENT, 20);
    req.streaming = false;
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    assert_value(&v, METRICS_REQUEST_LATENCY, 200 * MS);
    assert_value(&v, METRICS_OSL, 30);
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        if ((metrics_info_of(id)->flags & METRICS_F_STREAMING) != 0) {
            assert_absent(&v, (enum metrics_id)id);
        }
    }
}

Test(metrics_record, zero_output_tokens_are_absent)
{
    const int64_t t[] = {1010 * MS, 1020 * MS};
    struct metrics_request req = request(t, 2, 0, 0, 0, 0);
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    assert_absent(&v, METRICS_OUTPUT_TOKEN_COUNT);
    assert_absent(&v, METRICS_OSL);
    assert_absent(&v, METRICS_ITL);
    assert_value(&v, METRICS_ISL, 0); /* an input count of 0 is a value */
    assert_value(&v, METRICS_PREFILL_TPS_PER_USER, 0);
}

Test(metrics_record, failed_request_has_only_error_isl)
{
    const int64_t t[] = {1010 * MS, 1020 * MS};
    struct metrics_request req = request(t, 2, 0, 5, 1, 33);
    req.failed = true;
    req.usage.prompt_tokens = 33;
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        if (id != METRICS_ERROR_ISL) {
            assert_absent(&v, (enum metrics_id)id);
        }
    }
    assert_value(&v, METRICS_ERROR_ISL, 33);
    cr_assert_eq(metrics_request_icl_count(&req), 0);
}

Test(metrics_record, usage_fields_when_reported)
{
    const int64_t t[] = {1010 * MS};
    struct metrics_request req = request(t, 1, 0, 3, METRICS_ABSENT, 4);
    req.usage = RECORD_USAGE_NONE;
    req.usage.prompt_tokens = 4;
    req.usage.completion_tokens = 3;
    req.usage.total_tokens = 7;
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    assert_value(&v, METRICS_USAGE_PROMPT_TOKENS, 4);
    assert_value(&v, METRICS_USAGE_COMPLETION_TOKENS, 3);
    assert_value(&v, METRICS_USAGE_TOTAL_TOKENS, 7);
    assert_absent(&v, METRICS_USAGE_REASONING_TOKENS);
}

Test(metrics_record, info_tables_are_complete)
{
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        const struct metrics_info *info = metrics_info_of(id);
        cr_assert_not_null(info->tag, "record metric %d has a tag", id);
        cr_assert_not_null(info->header);
        cr_assert_not_null(info->unit);
        cr_assert_gt(info->display_per_base, 0);
    }
    for (int id = 0; id < METRICS_SCALAR_COUNT; id++) {
        const struct metrics_info *info = metrics_scalar_info_of(id);
        cr_assert_not_null(info->tag, "scalar metric %d has a tag", id);
        cr_assert_eq(info->display_per_base, 1.0);
    }
}

Test(metrics_goodput, parses_display_units_into_base_units)
{
    struct metrics_goodput g;
    char err[256];
    int ret = metrics_goodput_parse(
        "time_to_first_token:100 inter_token_latency:3.4 output_token_throughput_per_user:600", &g,
        err, sizeof(err));
    cr_assert_eq(ret, 0, "%s", err);
    cr_assert_eq(g.count, 3);
    cr_assert_eq(g.id[0], METRICS_TTFT);
    cr_assert_float_eq(g.threshold_base[0], 100e6, 1e-3);
    cr_assert_eq(g.id[1], METRICS_ITL);
    cr_assert_float_eq(g.threshold_base[1], 3.4e6, 1e-3);
    cr_assert_eq(g.id[2], METRICS_OTPS_PER_USER);
    cr_assert_float_eq(g.threshold_base[2], 600, 1e-9);
}

Test(metrics_goodput, rejects_bad_input)
{
    static const char *const bad[] = {
        "",
        "   ",
        "time_to_first_token",
        "time_to_first_token:",
        "time_to_first_token:abc",
        "time_to_first_token:-1",
        "time_to_first_token:nan",
        "time_to_first_token:inf",
        "time_to_first_token:1e999",
        "no_such_metric:1",
        "inter_chunk_latency:1",
        "error_isl:1",
        "time_to_first_token:1 time_to_first_token:2",
        ":5",
        "time_to_first_token:5x",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct metrics_goodput g = {.count = 99};
        char err[256] = "";
        cr_assert_eq(metrics_goodput_parse(bad[i], &g, err, sizeof(err)), -EINVAL, "'%s'", bad[i]);
        cr_assert_eq(g.count, 99, "output untouched for '%s'", bad[i]);
        cr_assert(strncmp(err, "--goodput:", 10) == 0, "message for '%s': %s", bad[i], err);
    }
}

Test(metrics_goodput, limits_the_number_of_thresholds)
{
    char text[2048] = "";
    size_t len = 0;
    /* 17 distinct tags do not exist, so repeat is caught first; build the
     * limit check from the table instead: every single-valued metric once. */
    int usable = 0;
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        unsigned flags = metrics_info_of(id)->flags;
        if ((flags & (METRICS_F_LIST | METRICS_F_ERROR_ONLY)) == 0) {
            len +=
                (size_t)snprintf(text + len, sizeof(text) - len, "%s:1 ", metrics_info_of(id)->tag);
            usable++;
        }
    }
    struct metrics_goodput g;
    char err[256];
    int ret = metrics_goodput_parse(text, &g, err, sizeof(err));
    if (usable > METRICS_SLO_MAX) {
        cr_assert_eq(ret, -EINVAL);
    } else {
        cr_assert_eq(ret, 0, "%s", err);
        cr_assert_eq(g.count, (size_t)usable);
    }
}

Test(metrics_goodput, smaller_and_larger_is_better)
{
    struct metrics_goodput g;
    char err[256];
    cr_assert_eq(metrics_goodput_parse("request_latency:100 output_token_throughput_per_user:50",
                                       &g, err, sizeof(err)),
                 0);
    struct metrics_values v = {0};
    v.has[METRICS_REQUEST_LATENCY] = true;
    v.value[METRICS_REQUEST_LATENCY] = 100 * MS; /* equal passes */
    v.has[METRICS_OTPS_PER_USER] = true;
    v.value[METRICS_OTPS_PER_USER] = 50;
    cr_assert(metrics_goodput_is_good(&g, &v));
    v.value[METRICS_REQUEST_LATENCY] = 100 * MS + 1;
    cr_assert(!metrics_goodput_is_good(&g, &v));
    v.value[METRICS_REQUEST_LATENCY] = 10 * MS;
    v.value[METRICS_OTPS_PER_USER] = 49.9;
    cr_assert(!metrics_goodput_is_good(&g, &v));
    v.value[METRICS_OTPS_PER_USER] = 51;
    cr_assert(metrics_goodput_is_good(&g, &v));
    v.has[METRICS_OTPS_PER_USER] = false; /* a missing metric fails */
    cr_assert(!metrics_goodput_is_good(&g, &v));
    struct metrics_goodput none = {0};
    cr_assert(metrics_goodput_is_good(&none, &v));
}

Test(metrics_record, decode_duration_is_latency_after_the_first_token)
{
    const int64_t t[] = {1050 * MS, 1060 * MS, 1080 * MS};
    struct metrics_request req = request(t, 3, 0, 10, METRICS_ABSENT, 100);
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    assert_value(&v, METRICS_DECODE_DURATION, 30 * MS);
    req.streaming = false;
    metrics_request_compute(&req, &v);
    assert_absent(&v, METRICS_DECODE_DURATION);
}

Test(metrics_record, from_schedule_adds_the_wait_past_the_due_time)
{
    const int64_t t[] = {1050 * MS, 1080 * MS};
    struct metrics_request req = request(t, 2, 0, 4, METRICS_ABSENT, 100);
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    assert_absent(&v, METRICS_REQUEST_LATENCY_FROM_SCHEDULE); /* closed loop */
    assert_absent(&v, METRICS_TTFT_FROM_SCHEDULE);
    req.scheduled_ns = 1000 * MS - 7 * MS; /* left 7 ms late */
    metrics_request_compute(&req, &v);
    assert_value(&v, METRICS_REQUEST_LATENCY, 80 * MS);
    assert_value(&v, METRICS_REQUEST_LATENCY_FROM_SCHEDULE, 87 * MS);
    assert_value(&v, METRICS_TTFT_FROM_SCHEDULE, 57 * MS);
    req.scheduled_ns = 1000 * MS + 3 * MS; /* early: never below the plain value */
    metrics_request_compute(&req, &v);
    assert_value(&v, METRICS_REQUEST_LATENCY_FROM_SCHEDULE, 80 * MS);
    req.streaming = false;
    metrics_request_compute(&req, &v);
    assert_value(&v, METRICS_REQUEST_LATENCY_FROM_SCHEDULE, 80 * MS);
    assert_absent(&v, METRICS_TTFT_FROM_SCHEDULE);
    req.failed = true;
    metrics_request_compute(&req, &v);
    assert_absent(&v, METRICS_REQUEST_LATENCY_FROM_SCHEDULE);
}

/* --per-chunk-usage: the tokens the server says came with the first chunk
 * arrived with the TTFT, so ITL divides the rest of the time by the tokens
 * after them; a count of 0 or of the whole output falls back to OSL - 1. */
Test(metrics_record, per_chunk_usage_leaves_the_first_chunk_tokens_out_of_itl)
{
    /* Chunks at +50, +60, +80 ms carrying 10 tokens, 4 of them in the first. */
    const int64_t t[] = {1050 * MS, 1060 * MS, 1080 * MS};
    struct metrics_request req = request(t, 3, 0, 10, METRICS_ABSENT, 100);
    req.first_chunk_tokens = 4;
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    assert_value(&v, METRICS_ITL, 30.0 * MS / 6);
    assert_value(&v, METRICS_OTPS_PER_USER, 1e9 / (30.0 * MS / 6));
    static const int64_t unusable[] = {0, 10, 12};
    for (size_t i = 0; i < sizeof(unusable) / sizeof(unusable[0]); i++) {
        req.first_chunk_tokens = unusable[i];
        metrics_request_compute(&req, &v);
        assert_value(&v, METRICS_ITL, 30.0 * MS / 9);
    }
}

/* The http_req_* metrics (AIPerf §3.1) of a request on a new connection that waited 2 ms for
 * it, took 3 ms to connect, 1 ms to send, got its first byte 40 ms later and its last after
 * three reads, 10 ms after that. */
Test(metrics_record, http_trace_phases_of_a_new_connection)
{
    int64_t content[] = {1041 * MS, 1051 * MS};
    struct metrics_request req = request(content, 2, 0, 2, METRICS_ABSENT, 5);
    req.http = (struct metrics_http){
        .present = true,
        .blocked_ns = 2 * MS,
        .connect_ns = 3 * MS,
        .send_start_ns = 1000 * MS,
        .send_end_ns = 1001 * MS,
        .first_byte_ns = 1041 * MS,
        .end_ns = 1051 * MS,
        .bytes_sent = 2048,
        .bytes_received = 512,
        .sends = 1,
        .reads = 3,
    };
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    const struct {
        enum metrics_id id;
        double want;
    } cases[] = {
        {METRICS_HTTP_BLOCKED, 2 * MS},      {METRICS_HTTP_DNS_LOOKUP, 0},
        {METRICS_HTTP_CONNECTING, 3 * MS},   {METRICS_HTTP_SENDING, 1 * MS},
        {METRICS_HTTP_WAITING, 40 * MS},     {METRICS_HTTP_RECEIVING, 10 * MS},
        {METRICS_HTTP_CONNECTION_REUSED, 0}, {METRICS_HTTP_DATA_SENT, 2048},
        {METRICS_HTTP_CHUNKS_SENT, 1},       {METRICS_HTTP_DATA_RECEIVED, 512},
        {METRICS_HTTP_CHUNKS_RECEIVED, 3},   {METRICS_HTTP_CONNECTION_OVERHEAD, 5 * MS},
        {METRICS_HTTP_DURATION, 51 * MS},    {METRICS_HTTP_TOTAL, 56 * MS},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const struct metrics_info *info = metrics_info_of(cases[i].id);
        cr_assert(v.has[cases[i].id], "%s", info->tag);
        cr_assert_float_eq(v.value[cases[i].id], cases[i].want, 1e-6, "%s: %g", info->tag,
                           v.value[cases[i].id]);
        cr_assert((info->flags & METRICS_F_HTTP_TRACE) != 0, "%s", info->tag);
    }
    cr_assert_float_eq(metrics_info_of(METRICS_HTTP_DATA_SENT)->display_per_base, 1.0 / 1024, 1e-12,
                       "KB, as AIPerf divides by 1024");
}

/* A reused connection connects in 0; one read receives in 0; a request without trace data
 * (a merged share that predates it) has none of the metrics. */
Test(metrics_record, http_trace_of_a_reused_connection_and_of_none)
{
    int64_t content[] = {1010 * MS};
    struct metrics_request req = request(content, 1, 0, 1, METRICS_ABSENT, 5);
    req.http = (struct metrics_http){.present = true,
                                     .reused = true,
                                     .connect_ns = 7 * MS,
                                     .send_start_ns = 1000 * MS,
                                     .send_end_ns = 1000 * MS,
                                     .first_byte_ns = 1010 * MS,
                                     .end_ns = 1010 * MS,
                                     .reads = 1};
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    cr_assert_float_eq(v.value[METRICS_HTTP_CONNECTING], 0, 1e-9);
    cr_assert_float_eq(v.value[METRICS_HTTP_CONNECTION_REUSED], 1, 1e-9);
    cr_assert(v.has[METRICS_HTTP_RECEIVING]);
    cr_assert_float_eq(v.value[METRICS_HTTP_RECEIVING], 0, 1e-9);
    cr_assert_float_eq(v.value[METRICS_HTTP_TOTAL], 10 * MS, 1e-6);
    req.http.present = false;
    metrics_request_compute(&req, &v);
    for (int id = METRICS_HTTP_BLOCKED; id <= METRICS_HTTP_TOTAL; id++) {
        cr_assert_not(v.has[id], "%s", metrics_info_of(id)->tag);
    }
}

/* e2e_output_token_throughput is OSL over the request latency; effective_latency and
 * credit_to_start_latency run from when the request was issued, and a fixed schedule (no
 * credit) has neither. */
Test(metrics_record, e2e_throughput_and_the_latencies_from_the_credit)
{
    int64_t content[] = {1100 * MS, 1500 * MS};
    struct metrics_request req = request(content, 2, 0, 10, METRICS_ABSENT, 5);
    req.credit_issued_ns = 990 * MS;
    req.http = (struct metrics_http){.present = true, .end_ns = 1510 * MS};
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    cr_assert_float_eq(v.value[METRICS_E2E_OUTPUT_TPS], 10 / 0.5, 1e-9, "10 tokens in 500 ms");
    cr_assert_float_eq(v.value[METRICS_EFFECTIVE_LATENCY], 520 * MS, 1e-3);
    cr_assert_float_eq(v.value[METRICS_CREDIT_TO_START_LATENCY], 10 * MS, 1e-3);
    req.credit_issued_ns = 0;
    metrics_request_compute(&req, &v);
    cr_assert_not(v.has[METRICS_EFFECTIVE_LATENCY]);
    cr_assert_not(v.has[METRICS_CREDIT_TO_START_LATENCY]);
    cr_assert(v.has[METRICS_E2E_OUTPUT_TPS]);
}

/* The per-user rates' units are AIPerf's (spec §1.9: stored and exported in tokens/sec/user;
 * the older reference's "tokens/sec" is [old] prefill_throughput's). */
Test(metrics_record, per_user_rates_are_in_tokens_per_sec_per_user)
{
    const struct metrics_info *prefill = metrics_info_of(METRICS_PREFILL_TPS_PER_USER);
    cr_assert_str_eq(prefill->tag, "prefill_throughput_per_user");
    cr_assert_str_eq(prefill->unit, "tokens/sec/user");
    cr_assert_str_eq(metrics_info_of(METRICS_OTPS_PER_USER)->unit, "tokens/sec/user");
}

/* AIPerf's image metrics: the input images, images / latency (s) and latency (ms) / images;
 * none without images, and a failed request has none. */
Test(metrics_record, image_metrics_divide_the_latency_by_the_input_images)
{
    const int64_t t[] = {1250 * MS};
    struct metrics_request req = request(t, 1, 0, METRICS_ABSENT, METRICS_ABSENT, METRICS_ABSENT);
    req.streaming = false;
    req.images = 4;
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    assert_value(&v, METRICS_NUM_IMAGES, 4);
    assert_value(&v, METRICS_IMAGE_THROUGHPUT, 4 / 0.250);
    assert_value(&v, METRICS_IMAGE_LATENCY, 250.0 * MS / 4);
    cr_assert_float_eq(v.value[METRICS_IMAGE_LATENCY] *
                           metrics_info_of(METRICS_IMAGE_LATENCY)->display_per_base,
                       62.5, 1e-9, "shown in ms/image");
    cr_assert_str_eq(metrics_info_of(METRICS_IMAGE_THROUGHPUT)->unit, "images/sec");
    req.images = 0;
    metrics_request_compute(&req, &v);
    assert_absent(&v, METRICS_NUM_IMAGES);
    assert_absent(&v, METRICS_IMAGE_LATENCY);
    req.images = 2;
    req.failed = true;
    metrics_request_compute(&req, &v);
    assert_absent(&v, METRICS_IMAGE_THROUGHPUT);
}

/* AIPerf's audio metrics: the input audio's length, and rtfx = that length / latency (s). */
Test(metrics_record, audio_metrics_compare_the_audio_length_with_the_latency)
{
    const int64_t t[] = {1500 * MS};
    struct metrics_request req = request(t, 1, 0, METRICS_ABSENT, METRICS_ABSENT, METRICS_ABSENT);
    req.streaming = false;
    req.audio_seconds = 10.0;
    struct metrics_values v;
    metrics_request_compute(&req, &v);
    assert_value(&v, METRICS_AUDIO_DURATION, 10.0);
    assert_value(&v, METRICS_RTFX, 10.0 / 0.5);
    cr_assert_str_eq(metrics_info_of(METRICS_RTFX)->header, "Inverse Real-Time Factor (RTFx)");
    cr_assert_eq(metrics_record_hist_value(METRICS_AUDIO_DURATION, 1.2345), 1235,
                 "kept in milliseconds");
    req.audio_seconds = 0;
    metrics_request_compute(&req, &v);
    assert_absent(&v, METRICS_AUDIO_DURATION);
    assert_absent(&v, METRICS_RTFX);
}
