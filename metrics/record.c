/*
 * record.c - AIPerf's per-request metrics (spec §2.2) and --goodput SLOs.
 *
 * Units: ns for times, tokens for counts, tokens/sec for the per-user rates.
 * Streaming-only metrics are left out of non-streaming requests, as AIPerf
 * does not compute them there (its TTFT would be the whole body's arrival).
 */
#include "metrics/metrics.h"
#include "metrics/spec_decode.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_S 1e9
#define MS_PER_NS 1e-6

#define STREAM METRICS_F_STREAMING
#define NOCON METRICS_F_NO_CONSOLE
#define LARGER METRICS_F_LARGER_IS_BETTER
#define INT METRICS_F_INTEGER
/* The trace timing group: not in the main table, a table of its own with --show-trace-timing. */
#define HTTP (METRICS_F_HTTP_TRACE | METRICS_F_NO_CONSOLE)
/* AIPerf's "Spec Decode" group: a table of its own after the main one. */
#define SPEC (METRICS_F_SPEC_DECODE | METRICS_F_NO_CONSOLE)
#define USAGE                                                                                      \
    (METRICS_F_USAGE | METRICS_F_NO_CONSOLE | METRICS_F_INTEGER | METRICS_F_LARGER_IS_BETTER)

static const struct metrics_info record_infos[METRICS_ID_COUNT] = {
    [METRICS_TTFT] = {"time_to_first_token", "Time to First Token", "ms", MS_PER_NS, STREAM, 100},
    [METRICS_TTST] = {"time_to_second_token", "Time to Second Token", "ms", MS_PER_NS, STREAM, 200},
    [METRICS_TTFO] = {"time_to_first_output_token", "Time to First Output Token", "ms", MS_PER_NS,
                      STREAM, 250},
    [METRICS_REQUEST_LATENCY] = {"request_latency", "Request Latency", "ms", MS_PER_NS, 0, 300},
    [METRICS_DECODE_DURATION] = {"decode_duration", "Decode Duration", "ms", MS_PER_NS, STREAM,
                                 350},
    [METRICS_ITL] = {"inter_token_latency", "Inter Token Latency", "ms", MS_PER_NS, STREAM, 400},
    [METRICS_ICL] = {"inter_chunk_latency", "Inter Chunk Latency", "ms", MS_PER_NS,
                     STREAM | NOCON | METRICS_F_LIST, 0},
    [METRICS_OTPS_PER_USER] = {"output_token_throughput_per_user",
                               "Output Token Throughput Per User", "tokens/sec/user", 1.0,
                               STREAM | LARGER, 500},
    [METRICS_PREFILL_TPS_PER_USER] = {"prefill_throughput_per_user", "Prefill Throughput Per User",
                                      "tokens/sec/user", 1.0, STREAM | LARGER | NOCON, 0},
    [METRICS_OSL_MISMATCH_DIFF_PCT] = {"osl_mismatch_diff_pct", "OSL Mismatch Diff %", "%", 1.0,
                                       NOCON, 0},
    [METRICS_OSL] = {"output_sequence_length", "Output Sequence Length", "tokens", 1.0,
                     LARGER | INT, 600},
    [METRICS_ISL] = {"input_sequence_length", "Input Sequence Length", "tokens", 1.0, LARGER | INT,
                     700},
    [METRICS_OUTPUT_TOKEN_COUNT] = {"output_token_count", "Output Token Count", "tokens", 1.0,
                                    LARGER | INT | NOCON, 0},
    [METRICS_REASONING_TOKEN_COUNT] = {"reasoning_token_count", "Reasoning Token Count", "tokens",
                                       1.0, LARGER | INT | NOCON, 0},
    /* The usage group's display orders are AIPerf's for the matching totals:
     * the usage table shows each record metric just above its total. */
    [METRICS_USAGE_PROMPT_TOKENS] = {"usage_prompt_tokens", "Usage Prompt Tokens", "tokens", 1.0,
                                     USAGE, 2000},
    [METRICS_USAGE_COMPLETION_TOKENS] = {"usage_completion_tokens", "Usage Completion Tokens",
                                         "tokens", 1.0, USAGE, 2100},
    [METRICS_USAGE_TOTAL_TOKENS] = {"usage_total_tokens", "Usage Total Tokens", "tokens", 1.0,
                                    USAGE, 2200},
    [METRICS_USAGE_REASONING_TOKENS] = {"usage_reasoning_tokens", "Usage Reasoning Tokens",
                                        "tokens", 1.0, USAGE, 2110},
    [METRICS_USAGE_PROMPT_CACHE_READ_TOKENS] = {"usage_prompt_cache_read_tokens",
                                                "Usage Prompt Cache Read Tokens", "tokens", 1.0,
                                                USAGE, 2010},
    [METRICS_USAGE_PROMPT_CACHE_WRITE_TOKENS] = {"usage_prompt_cache_write_tokens",
                                                 "Usage Prompt Cache Write Tokens", "tokens", 1.0,
                                                 USAGE, 2015},
    [METRICS_USAGE_PROMPT_CACHE_MISS_TOKENS] = {"usage_prompt_cache_miss_tokens",
                                                "Usage Prompt Cache Miss Tokens", "tokens", 1.0,
                                                USAGE, 2017},
    [METRICS_USAGE_PROMPT_AUDIO_TOKENS] = {"usage_prompt_audio_tokens", "Usage Prompt Audio Tokens",
                                           "tokens", 1.0, USAGE, 2020},
    [METRICS_USAGE_COMPLETION_AUDIO_TOKENS] = {"usage_completion_audio_tokens",
                                               "Usage Completion Audio Tokens", "tokens", 1.0,
                                               USAGE, 2120},
    [METRICS_USAGE_PROMPT_AUDIO_SECONDS] = {"usage_prompt_audio_seconds",
                                            "Usage Prompt Audio Seconds", "sec", 1.0,
                                            USAGE & ~(unsigned)INT, 2040},
    [METRICS_USAGE_TOOL_USE_PROMPT_TOKENS] = {"usage_tool_use_prompt_tokens",
                                              "Usage Tool Use Prompt Tokens", "tokens", 1.0, USAGE,
                                              2030},
    [METRICS_USAGE_ACCEPTED_PREDICTION_TOKENS] = {"usage_accepted_prediction_tokens",
                                                  "Usage Accepted Prediction Tokens", "tokens", 1.0,
                                                  USAGE, 2130},
    [METRICS_USAGE_REJECTED_PREDICTION_TOKENS] = {"usage_rejected_prediction_tokens",
                                                  "Usage Rejected Prediction Tokens", "tokens", 1.0,
                                                  USAGE, 2140},
    [METRICS_USAGE_PROMPT_TOKENS_DIFF_PCT] = {"usage_prompt_tokens_diff_pct",
                                              "Usage Prompt Tokens Diff %", "%", 1.0, NOCON, 0},
    [METRICS_USAGE_COMPLETION_TOKENS_DIFF_PCT] = {"usage_completion_tokens_diff_pct",
                                                  "Usage Completion Tokens Diff %", "%", 1.0, NOCON,
                                                  0},
    [METRICS_USAGE_REASONING_TOKENS_DIFF_PCT] = {"usage_reasoning_tokens_diff_pct",
                                                 "Usage Reasoning Tokens Diff %", "%", 1.0, NOCON,
                                                 0},
    [METRICS_ERROR_ISL] = {"error_isl", "Error Input Sequence Length", "tokens", 1.0,
                           METRICS_F_ERROR_ONLY | NOCON | INT, 0},
    [METRICS_TTFT_FROM_SCHEDULE] = {"time_to_first_token_from_schedule",
                                    "Time to First Token From Schedule", "ms", MS_PER_NS, STREAM,
                                    150},
    [METRICS_REQUEST_LATENCY_FROM_SCHEDULE] = {"request_latency_from_schedule",
                                               "Request Latency From Schedule", "ms", MS_PER_NS, 0,
                                               320},
    [METRICS_HTTP_BLOCKED] = {"http_req_blocked", "HTTP Blocked", "ms", MS_PER_NS, HTTP, 2000},
    [METRICS_HTTP_DNS_LOOKUP] = {"http_req_dns_lookup", "HTTP DNS Lookup", "ms", MS_PER_NS, HTTP,
                                 2010},
    [METRICS_HTTP_CONNECTING] = {"http_req_connecting", "HTTP Connecting", "ms", MS_PER_NS, HTTP,
                                 2020},
    [METRICS_HTTP_SENDING] = {"http_req_sending", "HTTP Sending", "ms", MS_PER_NS, HTTP, 2030},
    [METRICS_HTTP_WAITING] = {"http_req_waiting", "HTTP Waiting (TTFB)", "ms", MS_PER_NS, HTTP,
                              2040},
    [METRICS_HTTP_RECEIVING] = {"http_req_receiving", "HTTP Receiving", "ms", MS_PER_NS, HTTP,
                                2050},
    [METRICS_HTTP_CONNECTION_REUSED] = {"http_req_connection_reused", "HTTP Connection Reused",
                                        "ratio", 1.0, HTTP, 2060},
    [METRICS_HTTP_DATA_SENT] = {"http_req_data_sent", "HTTP Data Sent", "KB", 1.0 / 1024, HTTP,
                                2070},
    [METRICS_HTTP_CHUNKS_SENT] = {"http_req_chunks_sent", "HTTP Chunks Sent", "count", 1.0,
                                  HTTP | INT, 2080},
    [METRICS_HTTP_DATA_RECEIVED] = {"http_req_data_received", "HTTP Data Received", "KB",
                                    1.0 / 1024, HTTP, 2090},
    [METRICS_HTTP_CHUNKS_RECEIVED] = {"http_req_chunks_received", "HTTP Chunks Received", "count",
                                      1.0, HTTP | INT, 2100},
    [METRICS_HTTP_CONNECTION_OVERHEAD] = {"http_req_connection_overhead",
                                          "HTTP Connection Overhead", "ms", MS_PER_NS, HTTP, 2110},
    [METRICS_HTTP_DURATION] = {"http_req_duration", "HTTP Duration (excl. conn)", "ms", MS_PER_NS,
                               HTTP, 2120},
    [METRICS_HTTP_TOTAL] = {"http_req_total", "HTTP Total Time", "ms", MS_PER_NS, HTTP, 2130},
    [METRICS_E2E_OUTPUT_TPS] = {"e2e_output_token_throughput", "E2E Output Token Throughput",
                                "tokens/sec/user", 1.0, LARGER, 510},
    [METRICS_EFFECTIVE_LATENCY] = {"effective_latency", "Effective Latency", "ms", MS_PER_NS, NOCON,
                                   0},
    [METRICS_CREDIT_TO_START_LATENCY] = {"credit_to_start_latency", "Credit to Start Latency", "ms",
                                         MS_PER_NS, NOCON, 0},
    [METRICS_NET_ADJ_REQUEST_LATENCY] = {"network_adjusted_request_latency",
                                         "Network-Adjusted Request Latency", "ms", MS_PER_NS, 0,
                                         301},
    [METRICS_NET_ADJ_TTFT] = {"network_adjusted_time_to_first_token",
                              "Network-Adjusted Time to First Token", "ms", MS_PER_NS, STREAM, 101},
    [METRICS_NET_ADJ_TTFO] = {"network_adjusted_time_to_first_output_token",
                              "Network-Adjusted Time to First Output Token", "ms", MS_PER_NS,
                              STREAM, 211},
    [METRICS_NUM_IMAGES] = {"num_images", "Number of Images", "images", 1.0, NOCON | INT, 0},
    [METRICS_IMAGE_THROUGHPUT] = {"image_throughput", "Image Throughput", "images/sec", 1.0, 0,
                                  860},
    [METRICS_IMAGE_LATENCY] = {"image_latency", "Image Latency", "ms/image", MS_PER_NS, 0, 861},
    [METRICS_AUDIO_DURATION] = {"audio_duration", "Audio Duration", "sec", 1.0, NOCON, 870},
    [METRICS_RTFX] = {"rtfx", "Inverse Real-Time Factor (RTFx)", "ratio", 1.0, LARGER, 850},
    [METRICS_SPEC_ACCEPTANCE_LENGTH] = {"spec_decode_acceptance_length", "Acceptance Length",
                                        "ratio", 1.0, SPEC | LARGER, 5000},
    [METRICS_SPEC_DRAFT_ACCEPTANCE_RATE] = {"spec_decode_draft_acceptance_rate",
                                            "Draft Acceptance Rate", "%", 1.0, SPEC | LARGER, 5020},
    [METRICS_SPEC_ACCEPTED_PER_VERIFIED] = {"spec_decode_accepted_per_verified",
                                            "Accepted per Verified", "ratio", 1.0, SPEC | LARGER,
                                            5030},
    [METRICS_SPEC_STEPS] = {"spec_decode_steps", "Spec Decode Steps", "count", 1.0, SPEC | INT,
                            5040},
    [METRICS_SPEC_ACCEPTED_DRAFT_TOKENS] = {"spec_decode_accepted_draft_tokens",
                                            "Accepted Draft Tokens", "tokens", 1.0, NOCON | INT,
                                            5050},
    [METRICS_SPEC_DRAFT_TOKENS] = {"spec_decode_draft_tokens", "Draft Tokens", "tokens", 1.0,
                                   NOCON | INT, 5060},
};

static const struct metrics_info scalar_infos[METRICS_SCALAR_COUNT] = {
    [METRICS_S_OUTPUT_TOKEN_THROUGHPUT] = {"output_token_throughput", "Output Token Throughput",
                                           "tokens/sec", 1.0, LARGER, 800},
    [METRICS_S_REQUEST_THROUGHPUT] = {"request_throughput", "Request Throughput", "requests/sec",
                                      1.0, LARGER, 900},
    [METRICS_S_GOODPUT] = {"goodput", "Goodput", "requests/sec", 1.0, LARGER, 1000},
    [METRICS_S_REQUEST_COUNT] = {"request_count", "Request Count", "requests", 1.0, INT, 1100},
    [METRICS_S_GOOD_REQUEST_COUNT] = {"good_request_count", "Good Request Count", "requests", 1.0,
                                      INT | NOCON, 0},
    [METRICS_S_GOOD_REQUEST_FRACTION] = {"good_request_fraction", "Good Request Fraction", "ratio",
                                         1.0, NOCON, 0},
    [METRICS_S_ERROR_REQUEST_COUNT] = {"error_request_count", "Error Request Count", "requests",
                                       1.0, METRICS_F_ERROR_ONLY | NOCON | INT, 0},
    [METRICS_S_MIN_REQUEST_TIMESTAMP] = {"min_request_timestamp", "Minimum Request Timestamp", "ns",
                                         1.0, NOCON | INT, 0},
    [METRICS_S_MAX_RESPONSE_TIMESTAMP] = {"max_response_timestamp", "Maximum Response Timestamp",
                                          "ns", 1.0, NOCON | INT, 0},
    [METRICS_S_BENCHMARK_DURATION] = {"benchmark_duration", "Benchmark Duration", "sec", 1.0, NOCON,
                                      0},
    [METRICS_S_TOTAL_OUTPUT_TOKENS] = {"total_output_tokens", "Total Output Tokens", "tokens", 1.0,
                                       NOCON | INT, 0},
    [METRICS_S_TOTAL_REASONING_TOKENS] = {"total_reasoning_tokens", "Total Reasoning Tokens",
                                          "tokens", 1.0, NOCON | INT, 0},
    [METRICS_S_TOTAL_ISL] = {"total_isl", "Total Input Sequence Length", "tokens", 1.0, NOCON | INT,
                             0},
    [METRICS_S_TOTAL_OSL] = {"total_osl", "Total Output Sequence Length", "tokens", 1.0,
                             NOCON | INT, 0},
    [METRICS_S_TOTAL_ERROR_ISL] = {"total_error_isl", "Total Error Input Sequence Length", "tokens",
                                   1.0, METRICS_F_ERROR_ONLY | NOCON | INT, 0},
    [METRICS_S_TOTAL_USAGE_PROMPT_TOKENS] = {"total_usage_prompt_tokens",
                                             "Total Usage Prompt Tokens", "tokens", 1.0, USAGE,
                                             2000},
    [METRICS_S_TOTAL_USAGE_COMPLETION_TOKENS] = {"total_usage_completion_tokens",
                                                 "Total Usage Completion Tokens", "tokens", 1.0,
                                                 USAGE, 2100},
    [METRICS_S_TOTAL_USAGE_TOTAL_TOKENS] = {"total_usage_total_tokens", "Total Usage Total Tokens",
                                            "tokens", 1.0, USAGE, 2200},
    [METRICS_S_TOTAL_USAGE_REASONING_TOKENS] = {"total_usage_reasoning_tokens",
                                                "Total Usage Reasoning Tokens", "tokens", 1.0,
                                                USAGE, 2110},
    [METRICS_S_TOTAL_USAGE_PROMPT_CACHE_READ_TOKENS] = {"total_usage_prompt_cache_read_tokens",
                                                        "Total Usage Prompt Cache Read Tokens",
                                                        "tokens", 1.0, USAGE, 2010},
    [METRICS_S_TOTAL_USAGE_PROMPT_CACHE_WRITE_TOKENS] = {"total_usage_prompt_cache_write_tokens",
                                                         "Total Usage Prompt Cache Write Tokens",
                                                         "tokens", 1.0, USAGE, 2015},
    [METRICS_S_TOTAL_USAGE_PROMPT_CACHE_MISS_TOKENS] = {"total_usage_prompt_cache_miss_tokens",
                                                        "Total Usage Prompt Cache Miss Tokens",
                                                        "tokens", 1.0, USAGE, 2017},
    [METRICS_S_TOTAL_USAGE_PROMPT_AUDIO_TOKENS] = {"total_usage_prompt_audio_tokens",
                                                   "Total Usage Prompt Audio Tokens", "tokens", 1.0,
                                                   USAGE, 2020},
    [METRICS_S_TOTAL_USAGE_COMPLETION_AUDIO_TOKENS] = {"total_usage_completion_audio_tokens",
                                                       "Total Usage Completion Audio Tokens",
                                                       "tokens", 1.0, USAGE, 2120},
    [METRICS_S_TOTAL_USAGE_PROMPT_AUDIO_SECONDS] = {"total_usage_prompt_audio_seconds",
                                                    "Total Usage Prompt Audio Seconds", "sec", 1.0,
                                                    USAGE & ~(unsigned)INT, 2040},
    [METRICS_S_TOTAL_USAGE_TOOL_USE_PROMPT_TOKENS] = {"total_usage_tool_use_prompt_tokens",
                                                      "Total Usage Tool Use Prompt Tokens",
                                                      "tokens", 1.0, USAGE, 2030},
    [METRICS_S_TOTAL_USAGE_ACCEPTED_PREDICTION_TOKENS] = {"total_usage_accepted_prediction_tokens",
                                                          "Total Usage Accepted Prediction Tokens",
                                                          "tokens", 1.0, USAGE, 2130},
    [METRICS_S_TOTAL_USAGE_REJECTED_PREDICTION_TOKENS] = {"total_usage_rejected_prediction_tokens",
                                                          "Total Usage Rejected Prediction Tokens",
                                                          "tokens", 1.0, USAGE, 2140},
    [METRICS_S_OVERALL_USAGE_PROMPT_CACHE_READ_PCT] = {"overall_usage_prompt_cache_read_pct",
                                                       "Overall Usage Prompt Cache Read %", "%",
                                                       1.0, USAGE & ~(unsigned)INT, 2012},
    [METRICS_S_OSL_MISMATCH_COUNT] = {"osl_mismatch_count", "OSL Mismatch Count", "requests", 1.0,
                                      INT | NOCON, 0},
    [METRICS_S_USAGE_DISCREPANCY_COUNT] = {"usage_discrepancy_count", "Usage Discrepancy Count",
                                           "requests", 1.0, INT | NOCON, 0},
    [METRICS_S_INPUT_TOKEN_THROUGHPUT] = {"input_token_throughput", "Input Token Throughput",
                                          "tokens/sec", 1.0, LARGER | NOCON, 0},
    [METRICS_S_TOTAL_TOKEN_THROUGHPUT] = {"total_token_throughput", "Total Token Throughput",
                                          "tokens/sec", 1.0, LARGER | NOCON, 0},
    [METRICS_S_COMPLETED_REQUEST_COUNT] = {"completed_request_count", "Completed Request Count",
                                           "requests", 1.0, INT | NOCON, 0},
    [METRICS_S_REQUEST_ERROR_RATE] = {"request_error_rate", "Request Error Rate", "%", 1.0, NOCON,
                                      0},
    [METRICS_S_REPLAY_SCHED_LAG_P50] = {"replay_sched_lag_p50", "Replay Schedule Lag p50", "ms",
                                        1.0, NOCON, 0},
    [METRICS_S_REPLAY_SCHED_LAG_P90] = {"replay_sched_lag_p90", "Replay Schedule Lag p90", "ms",
                                        1.0, NOCON, 0},
    [METRICS_S_REPLAY_SCHED_LAG_P99] = {"replay_sched_lag_p99", "Replay Schedule Lag p99", "ms",
                                        1.0, NOCON, 0},
    [METRICS_S_REPLAY_SCHED_DEGRADED] = {"replay_sched_degraded", "Replay Schedule Degraded", "",
                                         1.0, INT | NOCON, 0},
    [METRICS_S_NETWORK_RTT] = {"network_rtt", "Network RTT", "ms", 1.0, 0, 305},
    [METRICS_S_TOTAL_SPEC_DECODE_STEPS] = {"total_spec_decode_steps", "Total Spec Decode Steps",
                                           "count", 1.0, NOCON | INT, 5140},
    [METRICS_S_TOTAL_ACCEPTED_DRAFT_TOKENS] = {"total_accepted_draft_tokens",
                                               "Total Accepted Draft Tokens", "tokens", 1.0,
                                               NOCON | INT, 5150},
    [METRICS_S_TOTAL_DRAFT_TOKENS] = {"total_draft_tokens", "Total Draft Tokens", "tokens", 1.0,
                                      NOCON | INT, 5160},
    [METRICS_S_SPEC_TOKEN_WEIGHTED_ACCEPTANCE_LENGTH] =
        {"spec_decode_token_weighted_acceptance_length", "Token-Weighted Acceptance Length",
         "ratio", 1.0, SPEC | LARGER, 5010},
    [METRICS_S_SPEC_OVERALL_DRAFT_ACCEPTANCE_RATE] = {"spec_decode_overall_draft_acceptance_rate",
                                                      "Overall Draft Acceptance Rate", "%", 1.0,
                                                      SPEC | LARGER, 5025},
    [METRICS_S_SPEC_ZERO_STEP_REQUESTS] = {"spec_decode_zero_step_requests", "Zero-Step Requests",
                                           "requests", 1.0, SPEC | INT, 5045},
};

const struct metrics_info *metrics_info_of(enum metrics_id id)
{
    return &record_infos[id];
}

const struct metrics_info *metrics_scalar_info_of(enum metrics_scalar_id id)
{
    return &scalar_infos[id];
}

static void set(struct metrics_values *out, enum metrics_id id, double v)
{
    out->has[id] = true;
    out->value[id] = v;
}

static void set_count(struct metrics_values *out, enum metrics_id id, int64_t v)
{
    if (v != METRICS_ABSENT && v >= 0) {
        set(out, id, (double)v);
    }
}

static void compute_tokens(const struct metrics_request *req, struct metrics_values *out)
{
    const struct metrics_tokens *t = &req->tokens;
    bool has_output = t->output > 0;
    bool has_reasoning = t->reasoning > 0;
    if (has_output) {
        set(out, METRICS_OUTPUT_TOKEN_COUNT, (double)t->output);
    }
    if (has_reasoning) {
        set(out, METRICS_REASONING_TOKEN_COUNT, (double)t->reasoning);
    }
    if (has_output || has_reasoning) {
        set(out, METRICS_OSL,
            (double)((has_output ? t->output : 0) + (has_reasoning ? t->reasoning : 0)));
    }
    set_count(out, METRICS_ISL, t->input);
}

static void compute_usage(const struct record_usage *u, struct metrics_values *out)
{
    set_count(out, METRICS_USAGE_PROMPT_TOKENS, u->prompt_tokens);
    set_count(out, METRICS_USAGE_COMPLETION_TOKENS, u->completion_tokens);
    set_count(out, METRICS_USAGE_TOTAL_TOKENS, u->total_tokens);
    set_count(out, METRICS_USAGE_REASONING_TOKENS, u->reasoning_tokens);
    set_count(out, METRICS_USAGE_PROMPT_CACHE_READ_TOKENS, u->prompt_cache_read_tokens);
    set_count(out, METRICS_USAGE_PROMPT_CACHE_WRITE_TOKENS, u->prompt_cache_write_tokens);
    set_count(out, METRICS_USAGE_PROMPT_CACHE_MISS_TOKENS, u->prompt_cache_miss_tokens);
    set_count(out, METRICS_USAGE_PROMPT_AUDIO_TOKENS, u->prompt_audio_tokens);
    set_count(out, METRICS_USAGE_COMPLETION_AUDIO_TOKENS, u->completion_audio_tokens);
    set_count(out, METRICS_USAGE_TOOL_USE_PROMPT_TOKENS, u->tool_use_prompt_tokens);
    set_count(out, METRICS_USAGE_ACCEPTED_PREDICTION_TOKENS, u->accepted_prediction_tokens);
    set_count(out, METRICS_USAGE_REJECTED_PREDICTION_TOKENS, u->rejected_prediction_tokens);
    if (u->prompt_audio_seconds >= 0 && isfinite(u->prompt_audio_seconds)) {
        set(out, METRICS_USAGE_PROMPT_AUDIO_SECONDS, u->prompt_audio_seconds);
    }
}

/* set_diff sets a usage diff metric when both counts are there and the
 * client's is positive (AIPerf has no value for a zero client count). */
static void set_diff(struct metrics_values *out, enum metrics_id id, enum metrics_id usage_id,
                     double client, bool has_client)
{
    if (!has_client || client <= 0 || !out->has[usage_id]) {
        return;
    }
    set(out, id, fabs((out->value[usage_id] - client) / client) * 100.0);
}

static void compute_usage_diffs(const struct metrics_request *req, struct metrics_values *out)
{
    if (!req->client_tokens) {
        return;
    }
    set_diff(out, METRICS_USAGE_PROMPT_TOKENS_DIFF_PCT, METRICS_USAGE_PROMPT_TOKENS,
             out->value[METRICS_ISL], out->has[METRICS_ISL]);
    set_diff(out, METRICS_USAGE_COMPLETION_TOKENS_DIFF_PCT, METRICS_USAGE_COMPLETION_TOKENS,
             out->value[METRICS_OSL], out->has[METRICS_OSL]);
    set_diff(out, METRICS_USAGE_REASONING_TOKENS_DIFF_PCT, METRICS_USAGE_REASONING_TOKENS,
             out->value[METRICS_REASONING_TOKEN_COUNT], out->has[METRICS_REASONING_TOKEN_COUNT]);
}

static void compute_streaming(const struct metrics_request *req, struct metrics_values *out)
{
    const int64_t *t = req->content_ns;
    double ttft = (double)(t[0] - req->start_ns);
    set(out, METRICS_TTFT, ttft);
    if (req->content_count >= 2) {
        set(out, METRICS_TTST, (double)(t[1] - t[0]));
        out->has[METRICS_ICL] = true;
    }
    if (req->first_output_index < req->content_count) {
        set(out, METRICS_TTFO, (double)(t[req->first_output_index] - req->start_ns));
    }
    if (out->has[METRICS_ISL] && ttft > 0) {
        set(out, METRICS_PREFILL_TPS_PER_USER, out->value[METRICS_ISL] / (ttft / NS_PER_S));
    }
    double osl = out->has[METRICS_OSL] ? out->value[METRICS_OSL] : 0;
    double latency = out->value[METRICS_REQUEST_LATENCY];
    if (latency >= ttft) {
        set(out, METRICS_DECODE_DURATION, latency - ttft);
    }
    if (osl >= 2) {
        /* The tokens of the first chunk arrived with the TTFT: with per-chunk
         * usage the server says how many there were. */
        double first = (double)req->first_chunk_tokens;
        double divisor = first > 0 && first < osl ? osl - first : osl - 1;
        double itl = (out->value[METRICS_REQUEST_LATENCY] - ttft) / divisor;
        set(out, METRICS_ITL, itl);
        if (itl > 0) {
            set(out, METRICS_OTPS_PER_USER, NS_PER_S / itl);
        }
    }
}

/* compute_from_schedule adds the coordinated-omission aware latencies: the
 * time a request waited past its due time (for a free connection, or a busy
 * client) is part of what its user saw. */
static void compute_from_schedule(const struct metrics_request *req, struct metrics_values *out)
{
    if (req->scheduled_ns == 0) {
        return;
    }
    double lag =
        req->start_ns > req->scheduled_ns ? (double)(req->start_ns - req->scheduled_ns) : 0;
    set(out, METRICS_REQUEST_LATENCY_FROM_SCHEDULE, out->value[METRICS_REQUEST_LATENCY] + lag);
    if (out->has[METRICS_TTFT]) {
        set(out, METRICS_TTFT_FROM_SCHEDULE, out->value[METRICS_TTFT] + lag);
    }
}

/* compute_from_credit sets AIPerf's effective_latency (issued to the response's end) and
 * credit_to_start_latency (issued to sent). */
static void compute_from_credit(const struct metrics_request *req, struct metrics_values *out)
{
    int64_t credit = req->credit_issued_ns;
    if (credit == 0) {
        return;
    }
    if (req->http.end_ns >= credit && req->http.end_ns != 0) {
        set(out, METRICS_EFFECTIVE_LATENCY, (double)(req->http.end_ns - credit));
    }
    if (req->start_ns >= credit && req->start_ns != 0) {
        set(out, METRICS_CREDIT_TO_START_LATENCY, (double)(req->start_ns - credit));
    }
}

/* set_span sets a trace interval from `from` to `to` when both happened and it is not
 * negative (AIPerf drops a negative one). */
static void set_span(struct metrics_values *out, enum metrics_id id, int64_t from, int64_t to)
{
    if (from != 0 && to != 0 && to >= from) {
        set(out, id, (double)(to - from));
    }
}

/* compute_http sets AIPerf's http_req_* metrics (spec §3.1). DNS is 0: every address is
 * resolved before the run, AIPerf's cache hit. Missing phases count as 0 in the sums. */
static void compute_http(const struct metrics_http *h, struct metrics_values *out)
{
    if (!h->present) {
        return;
    }
    double blocked = h->blocked_ns > 0 ? (double)h->blocked_ns : 0.0;
    double connecting = h->reused ? 0.0 : (double)h->connect_ns;
    set(out, METRICS_HTTP_BLOCKED, blocked);
    set(out, METRICS_HTTP_DNS_LOOKUP, 0.0);
    set(out, METRICS_HTTP_CONNECTING, connecting);
    set_span(out, METRICS_HTTP_SENDING, h->send_start_ns, h->send_end_ns);
    set_span(out, METRICS_HTTP_WAITING, h->send_end_ns, h->first_byte_ns);
    if (h->reads == 1) {
        set(out, METRICS_HTTP_RECEIVING, 0.0);
    } else if (h->reads > 1) {
        set_span(out, METRICS_HTTP_RECEIVING, h->first_byte_ns, h->end_ns);
    }
    set(out, METRICS_HTTP_CONNECTION_REUSED, h->reused ? 1.0 : 0.0);
    set(out, METRICS_HTTP_DATA_SENT, (double)h->bytes_sent);
    set(out, METRICS_HTTP_CHUNKS_SENT, (double)h->sends);
    set(out, METRICS_HTTP_DATA_RECEIVED, (double)h->bytes_received);
    set(out, METRICS_HTTP_CHUNKS_RECEIVED, (double)h->reads);
    set(out, METRICS_HTTP_CONNECTION_OVERHEAD, blocked + connecting);
    set_span(out, METRICS_HTTP_DURATION, h->send_start_ns, h->end_ns);
    double total = blocked + connecting;
    static const enum metrics_id phases[] = {METRICS_HTTP_SENDING, METRICS_HTTP_WAITING,
                                             METRICS_HTTP_RECEIVING};
    for (size_t i = 0; i < sizeof(phases) / sizeof(phases[0]); i++) {
        total += out->has[phases[i]] ? out->value[phases[i]] : 0.0;
    }
    set(out, METRICS_HTTP_TOTAL, total);
}

/* compute_images sets AIPerf's image metrics (image_metrics.py) of a request that carried
 * `images` input images and took `latency_ns`. */
static void compute_images(int64_t images, double latency_ns, struct metrics_values *out)
{
    if (images <= 0) {
        return;
    }
    set(out, METRICS_NUM_IMAGES, (double)images);
    if (latency_ns > 0) {
        set(out, METRICS_IMAGE_THROUGHPUT, (double)images / (latency_ns / NS_PER_S));
    }
    set(out, METRICS_IMAGE_LATENCY, latency_ns / (double)images);
}

void metrics_request_compute(const struct metrics_request *req, struct metrics_values *out)
{
    *out = (struct metrics_values){0};
    if (req->failed) {
        set_count(out, METRICS_ERROR_ISL, req->tokens.input);
        return;
    }
    compute_http(&req->http, out);
    compute_from_credit(req, out);
    compute_tokens(req, out);
    compute_usage(&req->usage, out);
    compute_usage_diffs(req, out);
    if (req->audio_seconds > 0) {
        set(out, METRICS_AUDIO_DURATION, req->audio_seconds);
    }
    metrics__spec_compute(req->spec_decode, out);
    if (req->requested_osl > 0 && out->has[METRICS_OSL]) {
        double requested = (double)req->requested_osl;
        set(out, METRICS_OSL_MISMATCH_DIFF_PCT,
            100.0 * (out->value[METRICS_OSL] - requested) / requested);
    }
    if (req->content_count == 0 || req->content_ns == NULL) {
        return; /* no content response: AIPerf computes no latency metric */
    }
    double latency = (double)(req->content_ns[req->content_count - 1] - req->start_ns);
    set(out, METRICS_REQUEST_LATENCY, latency);
    compute_images(req->images, latency, out);
    if (req->audio_seconds > 0 && latency > 0) {
        set(out, METRICS_RTFX, req->audio_seconds / (latency / NS_PER_S));
    }
    if (out->has[METRICS_OSL] && latency > 0) {
        set(out, METRICS_E2E_OUTPUT_TPS, out->value[METRICS_OSL] / (latency / NS_PER_S));
    }
    if (req->streaming) {
        compute_streaming(req, out);
    }
    compute_from_schedule(req, out);
}

uint32_t metrics_request_icl_count(const struct metrics_request *req)
{
    if (req->failed || !req->streaming || req->content_ns == NULL || req->content_count < 2) {
        return 0;
    }
    return req->content_count - 1;
}

int64_t metrics_request_icl_ns(const struct metrics_request *req, uint32_t i)
{
    return req->content_ns[i + 1] - req->content_ns[i];
}

static bool goodput_tag_ok(enum metrics_id id)
{
    unsigned flags = record_infos[id].flags;
    return (flags & (METRICS_F_LIST | METRICS_F_ERROR_ONLY)) == 0;
}

static int goodput_lookup(const char *tag, size_t len, enum metrics_id *out)
{
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        const char *name = record_infos[id].tag;
        if (strlen(name) == len && memcmp(name, tag, len) == 0 && goodput_tag_ok(id)) {
            *out = (enum metrics_id)id;
            return 0;
        }
    }
    return -EINVAL;
}

/* goodput_value parses a display-unit number that ends at `end`. */
static int goodput_value(const char *start, const char *end, double *out)
{
    char text[64];
    size_t len = (size_t)(end - start);
    if (len == 0 || len >= sizeof(text)) {
        return -EINVAL;
    }
    memcpy(text, start, len);
    text[len] = '\0';
    char *stop = NULL;
    errno = 0;
    double v = strtod(text, &stop);
    if (errno != 0 || stop != text + len || !isfinite(v) || v < 0) {
        return -EINVAL;
    }
    *out = v;
    return 0;
}

static int goodput_fail(char *errbuf, size_t errcap, const char *what, const char *item, size_t len)
{
    if (errcap > 0) {
        snprintf(errbuf, errcap, "--goodput: %s '%.*s'", what, (int)(len > 200 ? 200 : len), item);
    }
    return -EINVAL;
}

static int goodput_item(const char *item, size_t len, struct metrics_goodput *out, char *errbuf,
                        size_t errcap)
{
    const char *colon = memchr(item, ':', len);
    if (colon == NULL) {
        return goodput_fail(errbuf, errcap, "expected tag:value, got", item, len);
    }
    enum metrics_id id;
    if (goodput_lookup(item, (size_t)(colon - item), &id) != 0) {
        return goodput_fail(errbuf, errcap, "unknown metric tag in", item, len);
    }
    double display = 0;
    if (goodput_value(colon + 1, item + len, &display) != 0) {
        return goodput_fail(errbuf, errcap, "the threshold is not a non-negative number in", item,
                            len);
    }
    for (size_t i = 0; i < out->count; i++) {
        if (out->id[i] == id) {
            return goodput_fail(errbuf, errcap, "metric given twice in", item, len);
        }
    }
    if (out->count == METRICS_SLO_MAX) {
        return goodput_fail(errbuf, errcap, "too many thresholds (the limit is 16) at", item, len);
    }
    out->id[out->count] = id;
    out->threshold_base[out->count] = display / record_infos[id].display_per_base;
    out->count++;
    return 0;
}

int metrics_goodput_parse(const char *text, struct metrics_goodput *out, char *errbuf,
                          size_t errcap)
{
    struct metrics_goodput parsed = {0};
    const char *p = text;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == ',') {
            p++;
        }
        if (*p == '\0') {
            break;
        }
        const char *end = p;
        while (*end != '\0' && *end != ' ' && *end != '\t' && *end != '\n' && *end != ',') {
            end++;
        }
        int ret = goodput_item(p, (size_t)(end - p), &parsed, errbuf, errcap);
        if (ret != 0) {
            return ret;
        }
        p = end;
    }
    if (parsed.count == 0) {
        return goodput_fail(errbuf, errcap, "no tag:value thresholds in", text, strlen(text));
    }
    *out = parsed;
    return 0;
}

bool metrics_goodput_is_good(const struct metrics_goodput *g, const struct metrics_values *v)
{
    for (size_t i = 0; i < g->count; i++) {
        enum metrics_id id = g->id[i];
        if (!v->has[id]) {
            return false;
        }
        bool larger = (record_infos[id].flags & METRICS_F_LARGER_IS_BETTER) != 0;
        double value = v->value[id];
        if (larger ? value < g->threshold_base[i] : value > g->threshold_base[i]) {
            return false;
        }
    }
    return true;
}
