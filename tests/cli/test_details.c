/*
 * test_details.c - AIPerf's smaller contracts, as a user meets them (real
 * processes on loopback): how the error summary groups cancellations, the
 * default artifact directory of each load mode, and the console's warning
 * panels.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

/* run_in_dir runs `ringperf WORDS` with the world's directory as the working directory, so
 * that the default ./artifacts lands there, and requires exit status 0. */
static void run_in_dir(const struct e2e *w, const char *words)
{
    char cwd[4096];
    cr_assert_not_null(getcwd(cwd, sizeof(cwd)));
    cr_assert_eq(chdir(w->dir), 0);
    e2e_run_ok(w, words);
    cr_assert_eq(chdir(cwd), 0);
}

static void assert_dir(const struct e2e *w, const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/artifacts/%s/profile_export_aiperf.json", w->dir, name);
    struct stat st;
    cr_assert_eq(stat(path, &st), 0, "no %s", path);
}

/* Without --artifact-dir, the directory is named for the load as AIPerf names it (spec §10). */
Test(details_e2e, default_artifact_directories_are_named_for_the_load, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_write(&w, "trace.jsonl",
              "{\"timestamp\": 0, \"input_length\": 10, \"output_length\": 4}\n"
              "{\"timestamp\": 20, \"input_length\": 10, \"output_length\": 4}\n");
    run_in_dir(&w, PROFILE "--input-file IN/trace.jsonl --custom-dataset-type mooncake_trace");
    assert_dir(&w, "m-openai-chat-fixed_schedule");
    run_in_dir(&w, PROFILE "--request-count 8 --conversation-turn-mean 2 --user-centric-rate 200 "
                           "--num-users 4");
    assert_dir(&w, "m-openai-chat-user_centric-users4-qps200.0");
    run_in_dir(&w, PROFILE "--request-count 4 --request-rate 50");
    assert_dir(&w, "m-openai-chat-request_rate50.0");
    run_in_dir(&w, PROFILE "--request-count 2 --concurrency 2");
    assert_dir(&w, "m-openai-chat-concurrency2");
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "rm -rf %s/artifacts", w.dir);
    cr_assert_eq(system(cmd), 0);
    e2e_finish(&w);
}

/* A server that stops short of the requested length (here told so by an --extra-inputs override
 * of max_completion_tokens) draws AIPerf's OSL-mismatch panel on the console and in its copy;
 * a run that gets what it asked for draws none. */
Test(details_e2e, a_short_output_draws_the_osl_mismatch_panel, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m m -u URL --osl 20 --request-count 4 --extra-inputs "
                              "max_completion_tokens:5 --artifact-dir DIR",
                              false, &out);
    cr_assert_eq(status, 0, "%s", out);
    const char *want[] = {
        " Output Sequence Length Mismatch Warning ",
        "│  4 of 4 requests (100.0%) have output length differing from requested by more than "
        "the threshold.  │\n",
        "│  Average mismatch: -75.0%",
    };
    char *copy = e2e_read_text(&w, "profile_export_console.txt");
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        cr_assert_not_null(strstr(out, want[i]), "missing %s in:\n%s", want[i], out);
        cr_assert_not_null(strstr(copy, want[i]), "missing %s in:\n%s", want[i], copy);
    }
    free(copy);
    free(out);
    json_t *doc = e2e_load_json(&w, "profile_export_aiperf.json");
    json_t *count = json_object_get(json_object_get(doc, "osl_mismatch_count"), "avg");
    cr_assert_float_eq(json_number_value(count), 4.0, 1e-9);
    json_decref(doc);
    e2e_finish(&w);

    e2e_start(&w, NULL);
    status = run_ringperf(&w, PROFILE "--request-count 2 --artifact-dir DIR", false, &out);
    cr_assert_eq(status, 0, "%s", out);
    cr_assert_null(strstr(out, "Warning"), "%s", out);
    free(out);
    e2e_finish(&w);
}
