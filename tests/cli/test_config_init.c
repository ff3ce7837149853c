/*
 * `ringperf config init` as a user runs it: every template it writes passes `config validate`,
 * the minimal one runs against the mock server with --model and --url in place, and --list,
 * --search, --category and the refusals.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

#define TEMPLATE_COUNT 7
static const char *const TEMPLATES[TEMPLATE_COUNT] = {
    "minimal",         "warmup_profiling",    "latency_test",     "goodput_slo",
    "time_based_soak", "sweep_distributions", "concurrency_sweep"};

Test(config_init, every_template_is_a_valid_config, .timeout = 60)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char *out = NULL;
    cr_assert_eq(run_ringperf(&w, "config init --list", false, &out), 0, "%s", out);
    size_t listed = 0;
    for (const char *p = out; (p = strstr(p, "\n  ")) != NULL; p++) {
        listed++;
    }
    cr_assert_eq(listed, TEMPLATE_COUNT, "--list shows every template: %s", out);
    for (size_t i = 0; i < TEMPLATE_COUNT; i++) {
        char name[64];
        snprintf(name, sizeof(name), "\n  %s ", TEMPLATES[i]);
        cr_assert_not_null(strstr(out, name), "%s is listed: %s", TEMPLATES[i], out);
    }
    free(out);
    for (size_t i = 0; i < TEMPLATE_COUNT; i++) {
        char words[256];
        snprintf(words, sizeof(words), "config init -t %s --output IN/%s.yaml", TEMPLATES[i],
                 TEMPLATES[i]);
        cr_assert_eq(run_ringperf(&w, words, true, &out), 0, "%s", out);
        free(out);
        snprintf(words, sizeof(words), "config validate IN/%s.yaml", TEMPLATES[i]);
        cr_assert_eq(run_ringperf(&w, words, true, &out), 0, "%s: %s", TEMPLATES[i], out);
        cr_assert_not_null(strstr(out, ": valid ("), "%s", out);
        free(out);
    }
    char rel[64];
    snprintf(rel, sizeof(rel), "sweep_distributions.yaml");
    char *text = e2e_read_text(&w, rel);
    cr_assert(strncmp(text, "# @template\n# title: Grid Sweep + Multi-Run\n", 44) == 0, "%s", text);
    free(text);
    e2e_finish(&w);
}

Test(config_init, minimal_template_runs_against_the_server, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char *out = NULL;
    cr_assert_eq(run_ringperf(&w, "config init --model mock-model --url URL", false, &out), 0, "%s",
                 out);
    cr_assert_not_null(strstr(out, "# title: Minimal Configuration\n"), "stdout by default");
    e2e_write(&w, "mine.yaml", out);
    free(out);
    e2e_run_ok(&w, "profile -f IN/mine.yaml --request-count 4 --ui-type none --artifact-dir DIR");
    json_t *summary = e2e_load_json(&w, "profile_export_aiperf.json");
    json_t *config = json_object_get(summary, "input_config");
    json_t *model = json_array_get(json_object_get(json_object_get(config, "models"), "items"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(model, "name")), "mock-model");
    char url[128];
    snprintf(url, sizeof(url), "http://%s", w.url);
    cr_assert_str_eq(json_string_value(json_array_get(
                         json_object_get(json_object_get(config, "endpoint"), "urls"), 0)),
                     url);
    json_t *phase = json_array_get(json_object_get(config, "phases"), 0);
    cr_assert_eq(json_integer_value(json_object_get(phase, "concurrency")), 8, "the template's");
    cr_assert_eq(json_integer_value(json_object_get(phase, "requests")), 4, "the flag's");
    cr_assert_eq(
        json_number_value(json_object_get(json_object_get(summary, "request_count"), "avg")), 4.0);
    json_decref(summary);
    e2e_finish(&w);
}

Test(config_init, search_category_and_refusals, .timeout = 60)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char *out = NULL;
    cr_assert_eq(run_ringperf(&w, "config init --search SWEEP", false, &out), 0, "%s", out);
    cr_assert_not_null(strstr(out, "Sweep & Multi-Run\n  sweep_distributions "), "%s", out);
    cr_assert_not_null(strstr(out, "  concurrency_sweep "), "%s", out);
    cr_assert_null(strstr(out, "minimal"), "%s", out);
    free(out);
    cr_assert_eq(run_ringperf(&w, "config init --list --category load-testing", false, &out), 0,
                 "%s", out);
    cr_assert(strncmp(out, "Load Testing\n  latency_test ", 28) == 0, "%s", out);
    cr_assert_null(strstr(out, "Getting Started"), "%s", out);
    free(out);
    cr_assert_eq(run_ringperf(&w, "config init -c Getting_Started", false, &out), 0, "%s", out);
    cr_assert_not_null(strstr(out, "  warmup_profiling "), "%s", out);
    free(out);
    cr_assert_eq(run_ringperf(&w, "config init --category=getting", true, &out), 1, "%s", out);
    cr_assert_not_null(strstr(out, "no template matches --category getting"), "%s", out);
    free(out);
    cr_assert_eq(run_ringperf(&w, "config init -c sweep-multi-run --search goodput", true, &out), 1,
                 "%s", out);
    free(out);
    cr_assert_eq(run_ringperf(&w, "config init -t nope", true, &out), 1, "%s", out);
    cr_assert_not_null(strstr(out, "--template: no template 'nope'"), "%s", out);
    free(out);
    cr_assert_eq(run_ringperf(&w, "config init --model #x", true, &out), 1, "%s", out);
    cr_assert_not_null(strstr(out, "--model and --url must be plain YAML words"), "%s", out);
    free(out);
    cr_assert_eq(run_ringperf(&w, "config init --url", true, &out), 1, "%s", out);
    cr_assert_not_null(strstr(out, "--url needs a value"), "%s", out);
    free(out);
    cr_assert_eq(run_ringperf(&w, "config init --force", true, &out), 1, "%s", out);
    cr_assert_not_null(strstr(out, "unknown argument '--force'"), "%s", out);
    free(out);
    cr_assert_eq(run_ringperf(&w, "config init -o IN/no/such/dir.yaml", true, &out), 1, "%s", out);
    cr_assert_not_null(strstr(out, "--output: cannot write"), "%s", out);
    free(out);
    e2e_finish(&w);
}
