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

/* record_facts are what the records say the step functions must integrate to. */
struct record_facts {
    double in_flight_ns;   /* sum of (end - start) */
    double prefill_ns;     /* sum of TTFT */
    double window_ns;      /* last end - first start */
    double timed_decoded;  /* output tokens - 1 of requests with an inter-chunk gap above 0 */
    double spread_decoded; /* output tokens - 1 of requests whose end came after the first token */
    double latency_ms_max; /* the slowest request */
};

static double metric_value(json_t *metrics, const char *tag)
{
    return json_number_value(json_object_get(json_object_get(metrics, tag), "value"));
}

static void add_record(struct record_facts *f, json_t *rec, int64_t *first, int64_t *last)
{
    json_t *meta = json_object_get(rec, "metadata");
    json_t *metrics = json_object_get(rec, "metrics");
    int64_t start = json_integer_value(json_object_get(meta, "request_start_ns"));
    int64_t end = json_integer_value(json_object_get(meta, "request_end_ns"));
    *first = *first == 0 || start < *first ? start : *first;
    *last = end > *last ? end : *last;
    f->in_flight_ns += (double)(end - start);
    double ttft_ns = metric_value(metrics, "time_to_first_token") * 1e6;
    f->prefill_ns += ttft_ns;
    double latency = metric_value(metrics, "request_latency");
    f->latency_ms_max = latency > f->latency_ms_max ? latency : f->latency_ms_max;
    json_t *gaps = json_object_get(json_object_get(metrics, "inter_chunk_latency"), "value");
    bool timed = false;
    for (size_t i = 0; i < json_array_size(gaps); i++) {
        timed |= json_number_value(json_array_get(gaps, i)) > 0;
    }
    double decoded = metric_value(metrics, "output_sequence_length") - 1;
    f->timed_decoded += timed ? decoded : 0;
    f->spread_decoded += (double)(end - start) - ttft_ns > 0.5 ? decoded : 0;
}

static struct record_facts read_facts(const struct e2e *w)
{
    struct record_facts f = {0};
    int64_t first = 0, last = 0;
    char *text = e2e_read_text(w, "profile_export.jsonl");
    char *cursor = text;
    for (char *line = test_next_line(&cursor); line != NULL; line = test_next_line(&cursor)) {
        json_t *rec = json_loads(line, 0, NULL);
        cr_assert_not_null(rec);
        add_record(&f, rec, &first, &last);
        json_decref(rec);
    }
    free(text);
    f.window_ns = (double)(last - first);
    return f;
}

/* check_load checks what the closed loop implies. Every request takes about 20 ms to its first
 * token and 7 x 5 ms more; four are in flight at a time. */
static void check_load(json_t *summary, const struct record_facts *f)
{
    double conc = stat_of(summary, "effective_concurrency", "avg");
    double pf = stat_of(summary, "effective_prefill_concurrency", "avg");
    double dec = stat_of(summary, "effective_decode_concurrency", "avg");
    /* Time-weighted concurrency is the requests' time in flight over the window, exactly (the
     * records give the same ns; 1e-6 is float round-off); prefill's is the TTFTs'. */
    expect_near(conc, f->in_flight_ns / f->window_ns, 1e-6, "effective_concurrency");
    expect_near(pf, f->prefill_ns / f->window_ns, 1e-6, "effective_prefill_concurrency");
    /* A request is in prefill or decode all the time it is in flight but the instant between
     * its last token and the end of the response: the phases add up to the whole. */
    expect_near(pf + dec, conc, 0.02, "prefill + decode concurrency");
    /* The first four leave together: four in flight, never more. */
    cr_expect_eq(stat_of(summary, "effective_concurrency", "max"), 4);

    /* Over the window each rate integrates to its tokens: the average times the window is the
     * total. The chunk-aware decode curve has the tokens of the requests with a timed gap, the
     * total's uniform one those whose end came after their first token: a response read whole
     * in one read has neither, as in AIPerf. */
    double seconds = f->window_ns / 1e9;
    double prefilled = stat_of(summary, "total_isl", "avg");
    expect_near(stat_of(summary, "effective_decode_throughput", "avg") * seconds, f->timed_decoded,
                1e-6, "decoded tokens");
    expect_near(stat_of(summary, "effective_prefill_throughput", "avg") * seconds, prefilled, 1e-6,
                "prefilled tokens");
    expect_near(stat_of(summary, "effective_total_throughput", "avg") * seconds,
                prefilled + f->spread_decoded, 1e-6, "prefilled and decoded tokens");
    cr_expect(stat_of(summary, "active_decode_throughput", "avg") >=
                  stat_of(summary, "effective_decode_throughput", "avg"),
              "active decode at least the effective one");
    double isl = stat_of(summary, "input_sequence_length", "max");
    double osl = stat_of(summary, "output_sequence_length", "max");
    cr_expect(stat_of(summary, "tokens_in_flight", "max") <= 4 * (isl + osl),
              "no more than four requests' tokens in flight");
    cr_expect(stat_of(summary, "tokens_in_flight", "avg") > 0);

    /* The mock's pace shows only when the client kept up with it: every request within 45% of
     * its 55 ms, and the run within 20% of ten rounds of 55 ms (a starved test machine can hold
     * a request, or the next send, back for far longer). The slots are then empty only between
     * a reply and the next send and while the last round drains, and each request decodes one
     * token per 5 ms: 200 tokens/s per user, within the mock's sleep overshoot and chunks read
     * together (25%). */
    if (f->latency_ms_max > 80 || f->window_ns > 1.2 * 10 * 55e6) {
        /* Not cr_log_warn: Criterion 2.4 makes a warning fail the run's exit status. */
        fprintf(stderr, "a request took %.1f ms, the run %.1f ms: the pace is not checked\n",
                f->latency_ms_max, f->window_ns / 1e6);
        return;
    }
    cr_expect(conc > 3.2, "effective_concurrency %.4f near 4", conc);
    cr_expect(dec > pf, "decode %.3f above prefill %.3f concurrency", dec, pf);
    expect_near(stat_of(summary, "active_decode_throughput_per_user", "avg"), 200, 0.25,
                "decode tokens/s per user");
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
    struct record_facts facts = read_facts(&w);
    check_load(summary, &facts);
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
    cr_expect_gt(stat_of(summary, "effective_concurrency", "avg"), 0);
    cr_expect_eq(stat_of(summary, "effective_concurrency", "max"), 2);
    for (size_t i = 1; i < SWEEP_TAG_COUNT; i++) {
        cr_expect_eq(stat_of(summary, SWEEP_TAGS[i], "max"), 0, "%s", SWEEP_TAGS[i]);
    }
    json_decref(summary);
    e2e_finish(&w);
}
