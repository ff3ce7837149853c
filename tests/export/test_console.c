/*
 * test_console.c - the console report's warning panels (spec §8.1, exporters 13 and 14): when
 * they show, their title and text.
 */
#include "export/export.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *report(const struct metrics_summary *s)
{
    struct metrics_results results = {0};
    struct export_console_options opts = {.title = "ringperf | LLM Metrics", .color = false};
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    cr_assert_not_null(out);
    export_console_print(out, s, &results, &opts);
    fclose(out);
    return text;
}

/* assert_has requires each of the `n` texts in `want` in `text`. */
static void assert_has(const char *text, const char *const *want, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        cr_assert_not_null(strstr(text, want[i]), "missing:\n%s\nin:\n%s", want[i], text);
    }
}

static void set_scalar(struct metrics_summary *s, enum metrics_scalar_id id, double v)
{
    s->scalar_present[id] = true;
    s->scalar[id] = v;
}

/* summary_with is a summary of `requests` requests with scalar `id` at `count` (calloc'd). */
static struct metrics_summary *summary_with(double requests, enum metrics_scalar_id id,
                                            double count)
{
    struct metrics_summary *s = calloc(1, sizeof(*s));
    cr_assert_not_null(s);
    set_scalar(s, METRICS_S_REQUEST_COUNT, requests);
    set_scalar(s, id, count);
    return s;
}

Test(console_panels, none_without_a_discrepancy_or_mismatch)
{
    struct metrics_summary *s = summary_with(4, METRICS_S_USAGE_DISCREPANCY_COUNT, 0);
    set_scalar(s, METRICS_S_OSL_MISMATCH_COUNT, 0);
    set_scalar(s, METRICS_S_OSL_MISMATCH_COUNT, 0);
    char *text = report(s);
    cr_assert_null(strstr(text, "Warning"), "%s", text);
    free(text);
    free(s);
}

Test(console_panels, token_count_discrepancy_warning)
{
    struct metrics_summary *s = summary_with(3000, METRICS_S_USAGE_DISCREPANCY_COUNT, 1500);
    char *text = report(s);
    const char *want[] = {
        "\n╭───────────────────── Token Count Discrepancy Warning ──────────────────────╮\n"
        "│  1,500 of 3,000 requests (50.0%) show a difference exceeding 10% between:  │\n"
        "│    • API-reported usage tokens (from 'usage' field)                        │\n",
        "│    1. Review profile_export.jsonl for per-request usage_*_diff_pct values  │\n"
        "│    2. Verify client tokenizer matches the model's tokenizer                │\n"
        "│    4. Adjust threshold: AIPERF_METRICS_USAGE_PCT_DIFF_THRESHOLD=10         │\n"
        "╰────────────────────────────────────────────────────────────────────────────╯\n",
    };
    assert_has(text, want, sizeof(want) / sizeof(want[0]));
    cr_assert_null(strstr(text, "Output Sequence Length Mismatch"));
    free(text);
    free(s);
}

Test(console_panels, output_sequence_length_mismatch_warning)
{
    struct metrics_summary *s = summary_with(30, METRICS_S_OSL_MISMATCH_COUNT, 20);
    s->record_present[METRICS_OSL_MISMATCH_DIFF_PCT] = true;
    s->record[METRICS_OSL_MISMATCH_DIFF_PCT].avg = -49.63;
    char *text = report(s);
    /* AIPerf's panel for the same figures, as Rich draws it. */
    const char *want[] = {
        "╭────────────────────────────── Output Sequence Length Mismatch Warning "
        "──────────────────────────────╮\n"
        "│  20 of 30 requests (66.7%) have output length differing from requested by more than "
        "the threshold.  │\n"
        "│  Threshold (tokens): min(requested x 5%, 50)                                          "
        "              │\n"
        "│  Average mismatch: -49.6%                                                             "
        "              │\n",
        "│    - --extra-inputs ignore_eos:true - Generate until max_tokens (vLLM, TensorRT-LLM)",
        "│    - Adjust: AIPERF_METRICS_OSL_MISMATCH_MAX_TOKEN_THRESHOLD=50",
    };
    assert_has(text, want, sizeof(want) / sizeof(want[0]));
    free(text);
    free(s);
}
