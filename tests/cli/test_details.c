/*
 * test_details.c - AIPerf's smaller contracts, as a user meets them (real
 * processes on loopback): how the error summary groups cancellations.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

#define PROFILE "profile -m m -u URL --osl 4 "

/* Cancellations are one kind of error: AIPerf groups errors by (code, type, message), and its
 * message names the configured delay, not each request's measured one (spec §1.7). */
Test(details_e2e, cancellations_are_one_row_of_the_error_summary, .timeout = 120)
{
    struct e2e w;
    char *mock_flags[] = {"--ttft-ms", "30", NULL};
    e2e_start(&w, mock_flags);
    e2e_run_ok(&w, PROFILE "--streaming --request-count 40 --concurrency 8 "
                           "--request-cancellation-rate 50 --request-cancellation-delay 0.005 "
                           "--random-seed 7 --artifact-dir DIR");
    json_t *doc = e2e_load_json(&w, "profile_export_aiperf.json");
    json_t *rows = json_object_get(doc, "error_summary");
    cr_assert_eq(json_array_size(rows), 1, "%s", json_dumps(rows, 0));
    json_t *details = json_object_get(json_array_get(rows, 0), "error_details");
    cr_assert_eq(json_integer_value(json_object_get(details, "code")), 499);
    cr_assert_str_eq(json_string_value(json_object_get(details, "type")),
                     "RequestCancellationError");
    cr_assert_str_eq(json_string_value(json_object_get(details, "message")),
                     "Request was cancelled after 0.005 seconds");
    size_t errors = 0;
    count_export_lines(&w, &errors);
    cr_assert_eq(json_integer_value(json_object_get(json_array_get(rows, 0), "count")),
                 (json_int_t)errors);
    json_decref(doc);
    e2e_finish(&w);
}
