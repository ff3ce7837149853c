/*
 * test_errors.c - the error summary of a run's results: kinds grouped by code, type and message
 * (a quoted response payload left out of the message's kind), and every error counted in a row,
 * the ones past the listed kinds in one.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "metrics/metrics_record.h"

static void add_failure(struct metrics_results *r, int code, const char *type, const char *message)
{
    struct record rec = {.outcome = RECORD_ERROR, .error_code = code, .usage = RECORD_USAGE_NONE};
    snprintf(rec.error_type, sizeof(rec.error_type), "%s", type);
    snprintf(rec.error_message, sizeof(rec.error_message), "%s", message);
    struct metrics_record m;
    metrics_record_compute(r, &rec, &m);
    metrics_results_add(r, &rec, &m);
}

static uint64_t listed(const struct metrics_results *r)
{
    uint64_t sum = r->errors_unlisted;
    for (size_t i = 0; i < r->error_kind_count; i++) {
        sum += r->errors[i].count;
    }
    return sum;
}

Test(metrics_errors, a_quoted_payload_does_not_make_a_kind_of_its_own)
{
    struct metrics_results r;
    char err[128];
    cr_assert_eq(metrics_results_init(&r, &(struct metrics_results_options){.streaming = true}, err,
                                      sizeof(err)),
                 0);
    char message[128];
    for (int i = 0; i < 100; i++) {
        snprintf(message, sizeof(message),
                 "unreadable response payload (bad JSON): {\"choices\":[%d", i);
        add_failure(&r, 502, "ResponseParseError", message);
    }
    add_failure(&r, 500, "HTTPError", "Internal Server Error");
    add_failure(&r, 0, "ConnectionError", "send to h:1: Connection reset by peer");
    add_failure(&r, 0, "ConnectionError", "send to h:1: Broken pipe");
    cr_assert_eq(r.error_kind_count, 4);
    cr_assert_str_eq(r.errors[0].message, "unreadable response payload (bad JSON)");
    cr_assert_eq(r.errors[0].count, 100);
    cr_assert_eq(listed(&r), r.error_count);
    metrics_results_free(&r);
}

Test(metrics_errors, kinds_past_the_listed_ones_are_counted_in_one_row)
{
    struct metrics_results r;
    char err[128];
    cr_assert_eq(metrics_results_init(&r, &(struct metrics_results_options){.streaming = true}, err,
                                      sizeof(err)),
                 0);
    char message[64];
    for (int i = 0; i < METRICS_ERROR_KINDS_MAX + 10; i++) {
        snprintf(message, sizeof(message), "error number %d", i);
        add_failure(&r, 500, "HTTPError", message);
        add_failure(&r, 500, "HTTPError", message);
    }
    cr_assert_eq(r.error_kind_count, METRICS_ERROR_KINDS_MAX);
    cr_assert_eq(r.errors_unlisted, 20);
    cr_assert_eq(listed(&r), r.error_count, "every error is in a row");
    metrics_results_free(&r);
}
