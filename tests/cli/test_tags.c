/*
 * test_tags.c - every metric tag of AIPerf's output-formats appendix (§1.9, the registered tags
 * an export can show), end to end: produced by a run against the mock server (in the summary
 * JSON, and a record metric in profile_export.jsonl), produced on a fixed schedule, produced
 * when the server reports what it counts (tests/metrics covers those), or not produced, with
 * the reason in the README's compatibility section.
 */
#include <criterion/criterion.h>

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"
#include "tests/support/read_text.h"

enum tag_where {
    TAG_RUN,     /* a streaming run with a tokenizer, errors, cached prompts, warmup and goodput */
    TAG_FIXED,   /* a fixed-schedule replay */
    TAG_IMAGES,  /* a run whose requests carry images (image_retrieval) */
    TAG_AUDIO,   /* an audio transcription run */
    TAG_SERVER,  /* only when the server reports it (usage details, reasoning) */
    TAG_SPEC,    /* a run whose server reports speculative-decoding statistics */
    TAG_MISSING, /* not produced: the README says why */
};

struct tag {
    const char *name;
    bool record; /* one value per request: also on profile_export.jsonl lines */
    enum tag_where where;
    const char *why; /* TAG_MISSING: what ringperf lacks */
};

/* The appendix's §1.9 table, less the INTERNAL and EXPERIMENTAL tags no export shows, and the
 * sweep-line tags of §1.10. */
static const struct tag TAGS[] = {
    {"audio_duration", true, TAG_AUDIO, NULL},
    {"benchmark_duration", false, TAG_RUN, NULL},
    {"completed_request_count", false, TAG_RUN, NULL},
    {"context_overflow_count", false, TAG_MISSING, "agentic"},
    {"decode_duration", true, TAG_RUN, NULL},
    {"e2e_output_token_throughput", true, TAG_RUN, NULL},
    {"error_request_count", false, TAG_RUN, NULL},
    {"good_request_count", false, TAG_RUN, NULL},
    {"good_request_fraction", false, TAG_RUN, NULL},
    {"goodput", false, TAG_RUN, NULL},
    {"http_req_blocked", true, TAG_RUN, NULL},
    {"http_req_chunks_received", true, TAG_RUN, NULL},
    {"http_req_chunks_sent", true, TAG_RUN, NULL},
    {"http_req_connecting", true, TAG_RUN, NULL},
    {"http_req_connection_overhead", true, TAG_RUN, NULL},
    {"http_req_connection_reused", true, TAG_RUN, NULL},
    {"http_req_data_received", true, TAG_RUN, NULL},
    {"http_req_data_sent", true, TAG_RUN, NULL},
    {"http_req_dns_lookup", true, TAG_RUN, NULL},
    {"http_req_duration", true, TAG_RUN, NULL},
    {"http_req_receiving", true, TAG_RUN, NULL},
    {"http_req_sending", true, TAG_RUN, NULL},
    {"http_req_total", true, TAG_RUN, NULL},
    {"http_req_waiting", true, TAG_RUN, NULL},
    {"image_latency", true, TAG_IMAGES, NULL},
    {"image_throughput", true, TAG_IMAGES, NULL},
    {"num_images", true, TAG_IMAGES, NULL},
    {"error_isl", true, TAG_RUN, NULL},
    {"input_sequence_length", true, TAG_RUN, NULL},
    {"total_error_isl", false, TAG_RUN, NULL},
    {"total_isl", false, TAG_RUN, NULL},
    {"input_token_throughput", false, TAG_RUN, NULL},
    {"inter_chunk_latency", true, TAG_RUN, NULL},
    {"inter_token_latency", true, TAG_RUN, NULL},
    {"network_adjusted_request_latency", false, TAG_RUN, NULL},
    {"network_adjusted_time_to_first_output_token", false, TAG_RUN, NULL},
    {"network_adjusted_time_to_first_token", false, TAG_RUN, NULL},
    {"network_rtt", false, TAG_RUN, NULL},
    {"osl_mismatch_count", false, TAG_RUN, NULL},
    {"osl_mismatch_diff_pct", true, TAG_RUN, NULL},
    {"output_sequence_length", true, TAG_RUN, NULL},
    {"total_osl", false, TAG_RUN, NULL},
    {"output_token_count", true, TAG_RUN, NULL},
    {"total_output_tokens", false, TAG_RUN, NULL},
    {"output_token_throughput", false, TAG_RUN, NULL},
    {"output_token_throughput_per_user", true, TAG_RUN, NULL},
    {"amd_average_gpu_power", false, TAG_MISSING, "gpu"},
    {"amd_energy_delay_product", false, TAG_MISSING, "gpu"},
    {"amd_energy_per_output_token", false, TAG_MISSING, "gpu"},
    {"amd_energy_per_request", false, TAG_MISSING, "gpu"},
    {"amd_energy_per_total_token", false, TAG_MISSING, "gpu"},
    {"amd_energy_per_user", false, TAG_MISSING, "gpu"},
    {"amd_goodput_per_watt", false, TAG_MISSING, "gpu"},
    {"amd_output_tokens_per_joule", false, TAG_MISSING, "gpu"},
    {"amd_output_tps_per_watt", false, TAG_MISSING, "gpu"},
    {"amd_performance_per_watt", false, TAG_MISSING, "gpu"},
    {"amd_total_gpu_energy", false, TAG_MISSING, "gpu"},
    {"amd_total_gpu_power", false, TAG_MISSING, "gpu"},
    {"nvidia_average_gpu_power", false, TAG_RUN, NULL},
    {"nvidia_energy_delay_product", false, TAG_RUN, NULL},
    {"nvidia_energy_per_output_token", false, TAG_RUN, NULL},
    {"nvidia_energy_per_request", false, TAG_RUN, NULL},
    {"nvidia_energy_per_total_token", false, TAG_RUN, NULL},
    {"nvidia_energy_per_user", false, TAG_RUN, NULL},
    {"nvidia_goodput_per_watt", false, TAG_RUN, NULL},
    {"nvidia_output_tokens_per_joule", false, TAG_RUN, NULL},
    {"nvidia_output_tps_per_watt", false, TAG_RUN, NULL},
    {"nvidia_performance_per_watt", false, TAG_RUN, NULL},
    {"nvidia_total_gpu_energy", false, TAG_RUN, NULL},
    {"nvidia_total_gpu_power", false, TAG_RUN, NULL},
    {"prefill_throughput_per_user", true, TAG_RUN, NULL},
    {"reasoning_token_count", true, TAG_SERVER, NULL},
    {"total_reasoning_tokens", false, TAG_SERVER, NULL},
    {"replay_sched_degraded", false, TAG_FIXED, NULL},
    {"replay_sched_lag_p50", false, TAG_FIXED, NULL},
    {"replay_sched_lag_p90", false, TAG_FIXED, NULL},
    {"replay_sched_lag_p99", false, TAG_FIXED, NULL},
    {"request_count", false, TAG_RUN, NULL},
    {"request_error_rate", false, TAG_RUN, NULL},
    {"request_latency", true, TAG_RUN, NULL},
    {"request_throughput", false, TAG_RUN, NULL},
    {"rtfx", true, TAG_AUDIO, NULL},
    {"spec_decode_acceptance_length", true, TAG_SPEC, NULL},
    {"spec_decode_accepted_draft_tokens", true, TAG_SPEC, NULL},
    {"spec_decode_accepted_per_verified", true, TAG_SPEC, NULL},
    {"spec_decode_draft_acceptance_rate", true, TAG_SPEC, NULL},
    {"spec_decode_draft_tokens", true, TAG_SPEC, NULL},
    {"spec_decode_overall_draft_acceptance_rate", false, TAG_SPEC, NULL},
    {"spec_decode_steps", true, TAG_SPEC, NULL},
    {"spec_decode_token_weighted_acceptance_length", false, TAG_SPEC, NULL},
    {"total_accepted_draft_tokens", false, TAG_SPEC, NULL},
    {"total_draft_tokens", false, TAG_SPEC, NULL},
    {"total_spec_decode_steps", false, TAG_SPEC, NULL},
    {"time_to_first_output_token", true, TAG_RUN, NULL},
    {"total_token_throughput", false, TAG_RUN, NULL},
    {"time_to_first_token", true, TAG_RUN, NULL},
    {"time_to_second_token", true, TAG_RUN, NULL},
    {"usage_prompt_cache_miss_tokens", true, TAG_SERVER, NULL},
    {"usage_prompt_cache_read_tokens", true, TAG_RUN, NULL},
    {"usage_prompt_cache_write_tokens", true, TAG_SERVER, NULL},
    {"usage_completion_tokens_diff_pct", true, TAG_RUN, NULL},
    {"usage_discrepancy_count", false, TAG_RUN, NULL},
    {"usage_prompt_tokens_diff_pct", true, TAG_RUN, NULL},
    {"usage_reasoning_tokens_diff_pct", true, TAG_SERVER, NULL},
    {"usage_prompt_audio_seconds", true, TAG_SERVER, NULL},
    {"usage_tool_use_prompt_tokens", true, TAG_SERVER, NULL},
    {"usage_accepted_prediction_tokens", true, TAG_SERVER, NULL},
    {"usage_completion_audio_tokens", true, TAG_SERVER, NULL},
    {"usage_completion_tokens", true, TAG_RUN, NULL},
    {"usage_prompt_audio_tokens", true, TAG_SERVER, NULL},
    {"usage_prompt_tokens", true, TAG_RUN, NULL},
    {"usage_reasoning_tokens", true, TAG_SERVER, NULL},
    {"usage_rejected_prediction_tokens", true, TAG_SERVER, NULL},
    {"usage_total_tokens", true, TAG_RUN, NULL},
    {"overall_usage_prompt_cache_read_pct", false, TAG_RUN, NULL},
    {"total_usage_accepted_prediction_tokens", false, TAG_SERVER, NULL},
    {"total_usage_completion_audio_tokens", false, TAG_SERVER, NULL},
    {"total_usage_completion_tokens", false, TAG_RUN, NULL},
    {"total_usage_prompt_audio_seconds", false, TAG_SERVER, NULL},
    {"total_usage_prompt_audio_tokens", false, TAG_SERVER, NULL},
    {"total_usage_prompt_cache_miss_tokens", false, TAG_SERVER, NULL},
    {"total_usage_prompt_cache_read_tokens", false, TAG_RUN, NULL},
    {"total_usage_prompt_cache_write_tokens", false, TAG_SERVER, NULL},
    {"total_usage_prompt_tokens", false, TAG_RUN, NULL},
    {"total_usage_reasoning_tokens", false, TAG_SERVER, NULL},
    {"total_usage_rejected_prediction_tokens", false, TAG_SERVER, NULL},
    {"total_usage_tool_use_prompt_tokens", false, TAG_SERVER, NULL},
    {"total_usage_total_tokens", false, TAG_RUN, NULL},
    {"video_inference_time", true, TAG_MISSING, "video"},
    {"video_peak_memory", true, TAG_MISSING, "video"},
    /* §1.10's injected sweep-line tags (summary only). */
    {"effective_concurrency", false, TAG_RUN, NULL},
    {"effective_decode_concurrency", false, TAG_RUN, NULL},
    {"effective_prefill_concurrency", false, TAG_RUN, NULL},
    {"effective_decode_throughput", false, TAG_RUN, NULL},
    {"effective_prefill_throughput", false, TAG_RUN, NULL},
    {"effective_total_throughput", false, TAG_RUN, NULL},
    {"effective_decode_throughput_per_user", false, TAG_RUN, NULL},
    {"effective_prefill_throughput_per_user", false, TAG_RUN, NULL},
    {"tokens_in_flight", false, TAG_RUN, NULL},
    {"active_decode_throughput", false, TAG_RUN, NULL},
    {"active_prefill_throughput", false, TAG_RUN, NULL},
    {"active_total_throughput", false, TAG_RUN, NULL},
    {"active_decode_throughput_per_user", false, TAG_RUN, NULL},
    {"active_prefill_throughput_per_user", false, TAG_RUN, NULL},
};

/* The README names a family of missing tags by its prefix and a star. */
static const char *const FAMILIES[] = {"amd_"};

static bool readme_lists(const char *readme, const char *tag)
{
    char quoted[160];
    snprintf(quoted, sizeof(quoted), "`%s`", tag);
    if (strstr(readme, quoted) != NULL) {
        return true;
    }
    for (size_t i = 0; i < sizeof(FAMILIES) / sizeof(FAMILIES[0]); i++) {
        snprintf(quoted, sizeof(quoted), "`%s*`", FAMILIES[i]);
        if (strncmp(tag, FAMILIES[i], strlen(FAMILIES[i])) == 0 && strstr(readme, quoted) != NULL) {
            return true;
        }
    }
    return false;
}

/* record_tags collects the metric tags of every profile_export.jsonl line into one object. */
static json_t *record_tags(const struct e2e *w)
{
    json_t *seen = json_object();
    char *text = e2e_read_text(w, "profile_export.jsonl");
    char *cursor = text;
    for (char *line = test_next_line(&cursor); line != NULL; line = test_next_line(&cursor)) {
        json_t *rec = json_loads(line, 0, NULL);
        cr_assert_not_null(rec);
        json_object_update(seen, json_object_get(rec, "metrics"));
        json_decref(rec);
    }
    free(text);
    return seen;
}

/* check_produced requires every tag of `where` in the summary JSON, and the record ones on the
 * records too. */
static void check_produced(const struct e2e *w, enum tag_where where)
{
    json_t *summary = e2e_load_json(w, "profile_export_aiperf.json");
    json_t *records = record_tags(w);
    for (size_t i = 0; i < sizeof(TAGS) / sizeof(TAGS[0]); i++) {
        const struct tag *t = &TAGS[i];
        if (t->where != where) {
            continue;
        }
        cr_assert_not_null(json_object_get(summary, t->name), "%s in the summary JSON", t->name);
        if (t->record) {
            cr_assert_not_null(json_object_get(records, t->name), "%s on the records", t->name);
        }
    }
    json_decref(records);
    json_decref(summary);
}

/* check_adj_csv_row finds adj_request_latency's CSV row: sorted by its tag (before
 * request_latency), the parent's header marked error-adjusted, the JSON's finite values, and
 * empty cells where the JSON has null (avg, max, sum, the failure percentiles) and no std. */
static void check_adj_csv_row(const struct e2e *w, json_t *block)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/profile_export_aiperf.csv", w->dir);
    char *text = test_read_path(path);
    cr_assert_not_null(text);
    const char *adj = strstr(text, "\nRequest Latency (error-adjusted) (ms),");
    const char *plain = strstr(text, "\nRequest Latency (ms),");
    cr_assert(adj != NULL && plain != NULL && adj < plain, "%s", text);
    static const char *const stats[] = {"avg", "min", "max", "sum", "p1",  "p5",  "p10",
                                        "p25", "p50", "p75", "p90", "p95", "p99", "std"};
    const char *cell = strchr(adj + 1, ',') + 1;
    for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++) {
        size_t len = strcspn(cell, ",\n");
        json_t *v = json_object_get(block, stats[i]);
        if (json_is_number(v)) {
            char want[64];
            snprintf(want, sizeof(want), "%.2f", json_number_value(v));
            cr_assert(len == strlen(want) && strncmp(cell, want, len) == 0, "%s: %.*s vs %s",
                      stats[i], (int)len, cell, want);
        } else {
            cr_assert_eq(len, 0, "%s: %.*s should be empty", stats[i], (int)len, cell);
        }
        cell += len + 1;
    }
    free(text);
}

Test(tags, every_tag_is_produced_or_its_absence_explained, .timeout = 300)
{
    if (access(RINGPERF_TOKENIZER_QWEN3, R_OK) != 0) {
        cr_skip_test("no Qwen3 tokenizer at %s", RINGPERF_TOKENIZER_QWEN3);
    }
    char *readme = test_read_path(RINGPERF_README);
    cr_assert_not_null(readme);
    for (size_t i = 0; i < sizeof(TAGS) / sizeof(TAGS[0]); i++) {
        if (TAGS[i].where == TAG_MISSING) {
            cr_assert(readme_lists(readme, TAGS[i].name), "the README says why %s (%s) is missing",
                      TAGS[i].name, TAGS[i].why);
        }
    }
    free(readme);

    char *const mock_flags[] = {"--error-500-rate",
                                "10",
                                "--cache-hit-rate",
                                "50",
                                "--ttft-ms",
                                "2",
                                "--itl-ms",
                                "1",
                                NULL};
    struct e2e w;
    e2e_start(&w, mock_flags);
    char words[1024];
    snprintf(words, sizeof(words),
             "profile -m m -u URL --tokenizer %s --streaming --concurrency 4 --request-count 60 "
             "--warmup-request-count 4 --goodput time_to_first_token:100 --osl 8 --random-seed 1 "
             "--network-latency-mean 0.5 --gpu-telemetry %s/dcgm --artifact-dir DIR",
             RINGPERF_TOKENIZER_QWEN3, w.url);
    e2e_run_ok(&w, words);
    check_produced(&w, TAG_RUN);
    /* The run had errors: AIPerf's error-adjusted blocks, every request counted. */
    json_t *summary = e2e_load_json(&w, "profile_export_aiperf.json");
    static const char *const adj[] = {"adj_request_latency", "adj_time_to_first_token",
                                      "adj_inter_token_latency", "adj_decode_duration"};
    double requests =
        json_number_value(json_object_get(json_object_get(summary, "request_count"), "avg"));
    double errors =
        json_number_value(json_object_get(json_object_get(summary, "error_request_count"), "avg"));
    cr_assert_gt(errors, 0, "the mock failed some requests");
    for (size_t i = 0; i < sizeof(adj) / sizeof(adj[0]); i++) {
        json_t *block = json_object_get(summary, adj[i]);
        cr_assert(json_is_object(block), "%s", adj[i]);
        cr_assert(json_is_null(json_object_get(block, "avg")), "%s: +Inf is null", adj[i]);
        cr_assert_null(json_object_get(block, "std"), "%s", adj[i]);
        cr_assert_eq(json_integer_value(json_object_get(block, "count")),
                     (json_int_t)(requests + errors), "%s", adj[i]);
    }
    check_adj_csv_row(&w, json_object_get(summary, "adj_request_latency"));
    json_decref(summary);
    e2e_finish(&w);

    e2e_start(&w, NULL);
    e2e_write(&w, "trace.jsonl",
              "{\"timestamp\": 0, \"input_length\": 20, \"output_length\": 4}\n"
              "{\"timestamp\": 10, \"input_length\": 20, \"output_length\": 4}\n"
              "{\"timestamp\": 20, \"input_length\": 20, \"output_length\": 4}\n");
    snprintf(words, sizeof(words),
             "profile -m m -u URL --tokenizer %s --streaming --input-file IN/trace.jsonl "
             "--custom-dataset-type mooncake_trace --fixed-schedule --artifact-dir DIR",
             RINGPERF_TOKENIZER_QWEN3);
    e2e_run_ok(&w, words);
    check_produced(&w, TAG_FIXED);
    e2e_run_ok(&w, "profile -m m -u URL --endpoint-type image_retrieval --image-width-mean 8 "
                   "--image-height-mean 8 --image-batch-size 2 --request-count 4 "
                   "--artifact-dir DIR");
    check_produced(&w, TAG_IMAGES);
    e2e_run_ok(&w, "profile -m m -u URL --endpoint-type audio_transcription "
                   "--audio-length-mean 0.5 --request-count 4 --artifact-dir DIR");
    check_produced(&w, TAG_AUDIO);
    e2e_finish(&w);

    char *const spec_flags[] = {"--spec-decode-tokens", "3", NULL};
    e2e_start(&w, spec_flags);
    e2e_run_ok(&w, "profile -m m -u URL --streaming --request-count 8 --osl 12 --artifact-dir DIR");
    check_produced(&w, TAG_SPEC);
    e2e_finish(&w);
}
