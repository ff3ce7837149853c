/*
 * results.c - per-request metrics from records, and their accumulation.
 *
 * Formulas follow AIPerf (spec §2.2): "content" events are those that carried
 * output or reasoning text; request latency ends at the last content event, not
 * at stream close. Token counts come from the server's usage report until the
 * tokenizer lands (AIPerf's --use-server-token-count behaviour).
 */
#include "cli/cli_internal.h"

#include <errno.h>
#include <string.h>

#define NS_PER_S 1e9
#define HIST_NS_MAX (3600LL * 1000 * 1000 * 1000) /* one hour */
#define HIST_TOKENS_MAX (100LL * 1000 * 1000)
#define HIST_MILLI_RATE_MAX (1000LL * 1000 * 1000 * 1000)
#define HIST_SIGFIGS 3

static const struct cli_metric_info METRICS[CLI_METRIC_COUNT] = {
    [CLI_METRIC_TTFT] = {"time_to_first_token", "Time to First Token", "ms", 1e-6, true},
    [CLI_METRIC_TTST] = {"time_to_second_token", "Time to Second Token", "ms", 1e-6, true},
    [CLI_METRIC_TTFO] = {"time_to_first_output_token", "Time to First Output Token", "ms", 1e-6,
                         true},
    [CLI_METRIC_REQUEST_LATENCY] = {"request_latency", "Request Latency", "ms", 1e-6, false},
    [CLI_METRIC_ITL] = {"inter_token_latency", "Inter Token Latency", "ms", 1e-6, true},
    [CLI_METRIC_ICL] = {"inter_chunk_latency", "Inter Chunk Latency", "ms", 1e-6, true},
    [CLI_METRIC_OTPS_PER_USER] = {"output_token_throughput_per_user",
                                  "Output Token Throughput Per User", "tokens/sec/user", 1e-3,
                                  true},
    [CLI_METRIC_OSL] = {"output_sequence_length", "Output Sequence Length", "tokens", 1.0, false},
    [CLI_METRIC_ISL] = {"input_sequence_length", "Input Sequence Length", "tokens", 1.0, false},
};

const struct cli_metric_info *cli_metric_infos(void)
{
    return METRICS;
}

static int64_t hist_max(enum cli_metric m)
{
    switch (m) {
    case CLI_METRIC_OSL:
    case CLI_METRIC_ISL:
        return HIST_TOKENS_MAX;
    case CLI_METRIC_OTPS_PER_USER:
        return HIST_MILLI_RATE_MAX;
    default:
        return HIST_NS_MAX;
    }
}

int cli_results_init(struct cli_results *results, bool streaming)
{
    *results = (struct cli_results){.streaming = streaming};
    for (int m = 0; m < CLI_METRIC_COUNT; m++) {
        if (metrics_hist_new(1, hist_max(m), HIST_SIGFIGS, &results->hist[m]) != 0) {
            cli_results_free(results);
            return -ENOMEM;
        }
    }
    return 0;
}

void cli_results_free(struct cli_results *results)
{
    for (int m = 0; m < CLI_METRIC_COUNT; m++) {
        metrics_hist_free(results->hist[m]);
        results->hist[m] = NULL;
    }
}

static bool is_content(const struct engine_event *ev)
{
    return (ev->flags & (ENGINE_EVENT_CONTENT | ENGINE_EVENT_REASONING)) != 0;
}

static void set(struct cli_record_metrics *out, enum cli_metric m, double v)
{
    out->has[m] = true;
    out->value[m] = v;
}

void cli_record_compute(const struct engine_record *rec, bool streaming,
                        struct cli_record_metrics *out)
{
    *out = (struct cli_record_metrics){0};
    if (rec->outcome != ENGINE_SUCCESS) {
        return;
    }
    const struct engine_event *first = NULL;
    const struct engine_event *second = NULL;
    const struct engine_event *last = NULL;
    const struct engine_event *first_output = NULL;
    for (uint32_t i = 0; i < rec->event_count; i++) {
        const struct engine_event *ev = &rec->events[i];
        if (!is_content(ev)) {
            continue;
        }
        if (first == NULL) {
            first = ev;
        } else if (second == NULL) {
            second = ev;
        }
        if (first_output == NULL && (ev->flags & ENGINE_EVENT_CONTENT) != 0) {
            first_output = ev;
        }
        last = ev;
    }
    if (rec->usage.present && rec->usage.completion_tokens > 0) {
        set(out, CLI_METRIC_OSL, (double)rec->usage.completion_tokens);
    }
    if (rec->usage.present && rec->usage.prompt_tokens > 0) {
        set(out, CLI_METRIC_ISL, (double)rec->usage.prompt_tokens);
    }
    if (last == NULL) {
        return; /* no content: AIPerf computes no latency metrics for it */
    }
    double latency = (double)(last->arrival_ns - rec->send_start_ns);
    set(out, CLI_METRIC_REQUEST_LATENCY, latency);
    if (!streaming) {
        return;
    }
    double ttft = (double)(first->arrival_ns - rec->send_start_ns);
    set(out, CLI_METRIC_TTFT, ttft);
    if (second != NULL) {
        set(out, CLI_METRIC_TTST, (double)(second->arrival_ns - first->arrival_ns));
    }
    if (first_output != NULL) {
        set(out, CLI_METRIC_TTFO, (double)(first_output->arrival_ns - rec->send_start_ns));
    }
    if (out->has[CLI_METRIC_OSL] && out->value[CLI_METRIC_OSL] >= 2) {
        double itl = (latency - ttft) / (out->value[CLI_METRIC_OSL] - 1);
        set(out, CLI_METRIC_ITL, itl);
        if (itl > 0) {
            set(out, CLI_METRIC_OTPS_PER_USER, 1000.0 * NS_PER_S / itl);
        }
    }
}

int64_t cli_record_wall_ns(const struct engine_record *rec, int64_t monotonic_ns)
{
    if (monotonic_ns == 0 || rec->send_start_ns == 0) {
        return 0;
    }
    return rec->wall_start_ns + (monotonic_ns - rec->send_start_ns);
}

static void add_error(struct cli_results *results, const struct engine_record *rec)
{
    for (size_t i = 0; i < results->error_kind_count; i++) {
        struct cli_error_kind *kind = &results->errors[i];
        if (kind->code == rec->error_code && strcmp(kind->type, rec->error_type) == 0 &&
            strcmp(kind->message, rec->error_message) == 0) {
            kind->count++;
            return;
        }
    }
    if (results->error_kind_count == CLI_ERROR_KINDS_MAX) {
        results->errors_unlisted++;
        return;
    }
    struct cli_error_kind *kind = &results->errors[results->error_kind_count++];
    kind->code = rec->error_code;
    memcpy(kind->type, rec->error_type, sizeof(kind->type));
    memcpy(kind->message, rec->error_message, sizeof(kind->message));
    kind->count = 1;
}

static void record_value(struct metrics_hist *h, double v)
{
    /* Histograms hold integers >= 1: a zero gap (two events in one read) is
     * kept as 0 so it counts, and the summary's min shows it. */
    metrics_hist_record(h, v < 0 ? 0 : (int64_t)(v + 0.5));
}

void cli_results_add(struct cli_results *results, const struct engine_record *rec,
                     const struct cli_record_metrics *metrics)
{
    if (rec->outcome == ENGINE_SUCCESS) {
        results->success_count++;
    } else {
        if (rec->outcome == ENGINE_CANCELLED) {
            results->cancelled_count++;
        }
        results->error_count++;
        add_error(results, rec);
    }
    int64_t start_wall = rec->wall_start_ns;
    int64_t end_wall = cli_record_wall_ns(rec, rec->end_ns);
    if (start_wall != 0 &&
        (results->min_request_wall_ns == 0 || start_wall < results->min_request_wall_ns)) {
        results->min_request_wall_ns = start_wall;
    }
    if (end_wall > results->max_response_wall_ns) {
        results->max_response_wall_ns = end_wall;
    }
    if (rec->outcome != ENGINE_SUCCESS) {
        return;
    }
    for (int m = 0; m < CLI_METRIC_COUNT; m++) {
        if (metrics->has[m] && m != CLI_METRIC_ICL) {
            record_value(results->hist[m], metrics->value[m]);
        }
    }
    results->total_osl +=
        metrics->has[CLI_METRIC_OSL] ? (uint64_t)metrics->value[CLI_METRIC_OSL] : 0;
    results->total_isl +=
        metrics->has[CLI_METRIC_ISL] ? (uint64_t)metrics->value[CLI_METRIC_ISL] : 0;
    if (!results->streaming) {
        return;
    }
    const struct engine_event *prev = NULL;
    for (uint32_t i = 0; i < rec->event_count; i++) {
        const struct engine_event *ev = &rec->events[i];
        if (!is_content(ev)) {
            continue;
        }
        if (prev != NULL) {
            record_value(results->hist[CLI_METRIC_ICL],
                         (double)(ev->arrival_ns - prev->arrival_ns));
            results->same_read_events += (ev->flags & ENGINE_EVENT_SAME_READ) != 0;
        }
        prev = ev;
    }
}
