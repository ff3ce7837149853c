/*
 * test_sweep.c - the sweep-line metrics (effective_*, active_*, tokens_in_flight) end to end: a
 * closed loop against the mock server with a fixed TTFT and ITL, whose step functions follow
 * from the load, checked in the summary JSON, the CSV and the console copy.
 */
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"

static const char *const SWEEP_TAGS[] = {
    "effective_concurrency",
    "effective_decode_throughput",
    "effective_prefill_throughput",
    "effective_decode_concurrency",
    "effective_prefill_concurrency",
    "effective_total_throughput",
    "effective_decode_throughput_per_user",
    "effective_prefill_throughput_per_user",
    "tokens_in_flight",
    "active_decode_throughput",
    "active_prefill_throughput",
    "active_decode_throughput_per_user",
    "active_prefill_throughput_per_user",
    "active_total_throughput",
};
#define SWEEP_TAG_COUNT (sizeof(SWEEP_TAGS) / sizeof(SWEEP_TAGS[0]))

static double stat_of(json_t *summary, const char *tag, const char *stat)
{
    json_t *block = json_object_get(summary, tag);
    cr_assert(json_is_object(block), "%s in the summary", tag);
    json_t *v = json_object_get(block, stat);
    cr_assert(json_is_number(v), "%s.%s", tag, stat);
    return json_number_value(v);
}

/* check_block requires AIPerf's block of an injected sweep metric: exactly unit, avg, p50,
 * p90, p95, p99, min, max and std, ordered as statistics are. */
static void check_block(json_t *summary, const char *tag)
{
    static const char *const keys[] = {"unit", "avg", "p50", "p90", "p95",
                                       "p99",  "min", "max", "std"};
    json_t *block = json_object_get(summary, tag);
    cr_assert(json_is_object(block), "%s", tag);
    cr_assert_eq(json_object_size(block), sizeof(keys) / sizeof(keys[0]), "%s's keys", tag);
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        cr_assert_not_null(json_object_get(block, keys[i]), "%s.%s", tag, keys[i]);
    }
    double min = stat_of(summary, tag, "min");
    double max = stat_of(summary, tag, "max");
    double avg = stat_of(summary, tag, "avg");
    cr_expect(min >= 0 && min <= avg + 1e-9 && avg <= max + 1e-9, "%s: min <= avg <= max", tag);
    double p50 = stat_of(summary, tag, "p50");
    double p90 = stat_of(summary, tag, "p90");
    double p95 = stat_of(summary, tag, "p95");
    double p99 = stat_of(summary, tag, "p99");
    cr_expect(min <= p50 && p50 <= p90 && p90 <= p95 && p95 <= p99 && p99 <= max,
              "%s: ordered percentiles", tag);
}

static void expect_near(double got, double want, double rel, const char *what)
{
    cr_expect(fabs(got - want) <= rel * fabs(want), "%s: %.6g, expected %.6g within %.1f%%", what,
              got, want, rel * 100);
}

/* check_load checks what the closed loop implies. Every request takes about 20 ms to its first
 * token and 7 x 5 ms more; four are in flight at a time. */
static void check_load(json_t *summary)
{
    double conc = stat_of(summary, "effective_concurrency", "avg");
    double pf = stat_of(summary, "effective_prefill_concurrency", "avg");
    double dec = stat_of(summary, "effective_decode_concurrency", "avg");
    /* Four slots are never more than four, and each is empty only between a reply and the next
     * send (microseconds against 55 ms requests) and while the last round drains: a loaded
     * machine's scheduling jitter stays well inside 20% of that. */
    cr_expect_eq(stat_of(summary, "effective_concurrency", "max"), 4);
    cr_expect(conc > 3.2 && conc <= 4.0, "effective_concurrency %.4f", conc);
    /* A request is in prefill or decode all the time it is in flight but the instant between
     * its last token and the end of the response: the phases add up to the whole. */
    expect_near(pf + dec, conc, 0.02, "prefill + decode concurrency");
    /* 20 ms of prefill and 35 ms of decode: decode holds more of the requests; the mock's
     * timers are accurate to well under the 10 ms that would turn this around. */
    cr_expect(dec > pf, "decode %.3f above prefill %.3f concurrency", dec, pf);

    /* Over the window each rate integrates to its tokens: the average times the window is the
     * total, whatever the timing. The window (first start to last end) is benchmark_duration
     * (first start to last token) plus at most the last response's trailer: 1% covers it. */
    double seconds = stat_of(summary, "benchmark_duration", "avg");
    double requests = stat_of(summary, "request_count", "avg");
    double decoded = stat_of(summary, "total_osl", "avg") - requests;
    double prefilled = stat_of(summary, "total_isl", "avg");
    expect_near(stat_of(summary, "effective_decode_throughput", "avg") * seconds, decoded, 0.01,
                "decoded tokens");
    expect_near(stat_of(summary, "effective_prefill_throughput", "avg") * seconds, prefilled, 0.01,
                "prefilled tokens");
    /* The total uses the uniform decode rate, the decode curve the chunk gaps: the same tokens. */
    expect_near(stat_of(summary, "effective_total_throughput", "avg"),
                stat_of(summary, "effective_decode_throughput", "avg") +
                    stat_of(summary, "effective_prefill_throughput", "avg"),
                1e-6, "total = prefill + decode");
    /* One token every 5 ms per request while it decodes: 200 tokens/s per user. The mock's
     * sleeps overshoot by a fraction of a millisecond, and a chunk read together with the one
     * before it hands its token to the next gap: 25% either way. */
    expect_near(stat_of(summary, "active_decode_throughput_per_user", "avg"), 200, 0.25,
                "decode tokens/s per user");
    cr_expect(stat_of(summary, "active_decode_throughput", "avg") >=
                  stat_of(summary, "effective_decode_throughput", "avg"),
              "active decode at least the effective one");
    double isl = stat_of(summary, "input_sequence_length", "max");
    double osl = stat_of(summary, "output_sequence_length", "max");
    cr_expect(stat_of(summary, "tokens_in_flight", "max") <= 4 * (isl + osl),
              "no more than four requests' tokens in flight");
    cr_expect(stat_of(summary, "tokens_in_flight", "avg") > 0);
}

static void check_csv(const struct e2e *w)
{
    char *csv = e2e_read_text(w, "profile_export_aiperf.csv");
    /* Requests carry no unit in AIPerf's CSV; sum, p1..p25 and p75 are empty cells. */
    cr_expect_not_null(strstr(csv, "\nEffective Concurrency,"), "%s", csv);
    cr_expect_not_null(strstr(csv, "\nActive Decode Throughput (tokens/sec),"), "%s", csv);
    cr_expect_not_null(strstr(csv, "\nTokens In Flight (tokens),"), "%s", csv);
    const char *row = strstr(csv, "\nEffective Decode Concurrency,");
    cr_assert_not_null(row);
    int commas = 0;
    int empty = 0;
    for (const char *p = row + 1; *p != '\n' && *p != '\0'; p++) {
        commas += *p == ',';
        empty += *p == ',' && p[1] == ',';
    }
    cr_expect_eq(commas, 14, "15 cells");
    cr_expect_eq(empty, 6, "sum, p1, p5, p10, p25 and p75 empty");
    /* The sweep rows sort by tag among the record metrics of the first section. */
    const char *scalars = strstr(csv, "\n\nMetric,Value");
    cr_assert_not_null(scalars);
    cr_expect(strstr(csv, "\nTokens In Flight") < scalars, "in the first section");
    cr_expect(strstr(csv, "\nEffective Total Throughput") < strstr(csv, "\nTokens In Flight"));
    free(csv);
    char *console = e2e_read_text(w, "profile_export_console.txt");
    cr_expect_not_null(strstr(console, ": Effective"), "%s", console);
    cr_expect_not_null(strstr(console, ": Active"), "%s", console);
    cr_expect_not_null(strstr(console, "Effective Decode Throughput Per User"), "%s", console);
    free(console);
}

Test(cli_sweep, closed_loop_effective_and_active_metrics, .timeout = 240)
{
    if (access(RINGPERF_TOKENIZER_QWEN3, R_OK) != 0) {
        cr_skip_test("no Qwen3 tokenizer at %s", RINGPERF_TOKENIZER_QWEN3);
    }
    char *const mock_flags[] = {"--ttft-ms", "20", "--itl-ms", "5", NULL};
    struct e2e w;
    e2e_start(&w, mock_flags);
    char words[1024];
    snprintf(words, sizeof(words),
             "profile -m m -u URL --tokenizer %s --streaming --concurrency 4 --request-count 40 "
             "--warmup-request-count 4 --isl 64 --osl 8 --random-seed 7 --artifact-dir DIR",
             RINGPERF_TOKENIZER_QWEN3);
    e2e_run_ok(&w, words);
    json_t *summary = e2e_load_json(&w, "profile_export_aiperf.json");
    for (size_t i = 0; i < SWEEP_TAG_COUNT; i++) {
        check_block(summary, SWEEP_TAGS[i]);
    }
    cr_expect_str_eq(json_string_value(json_object_get(
                         json_object_get(summary, "effective_concurrency"), "unit")),
                     "requests");
    check_load(summary);
    /* The warmup's own requests get their own sweep, in warmup_metrics. */
    json_t *warmup = json_object_get(summary, "warmup_metrics");
    cr_expect(stat_of(warmup, "effective_concurrency", "max") <= 4);
    json_decref(summary);
    check_csv(&w);
    e2e_finish(&w);
}

Test(cli_sweep, non_streaming_has_concurrency_and_empty_phases, .timeout = 120)
{
    char *const mock_flags[] = {"--ttft-ms", "5", "--itl-ms", "1", NULL};
    struct e2e w;
    e2e_start(&w, mock_flags);
    e2e_run_ok(&w, "profile -m m -u URL --concurrency 2 --request-count 10 --osl 4 "
                   "--artifact-dir DIR");
    json_t *summary = e2e_load_json(&w, "profile_export_aiperf.json");
    /* Without streaming there is no first token: AIPerf's phase curves are empty, all 0. */
    cr_expect_gt(stat_of(summary, "effective_concurrency", "avg"), 1.0);
    cr_expect_eq(stat_of(summary, "effective_concurrency", "max"), 2);
    for (size_t i = 1; i < SWEEP_TAG_COUNT; i++) {
        cr_expect_eq(stat_of(summary, SWEEP_TAGS[i], "max"), 0, "%s", SWEEP_TAGS[i]);
    }
    json_decref(summary);
    e2e_finish(&w);
}
