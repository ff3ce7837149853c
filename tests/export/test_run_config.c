/*
 * test_run_config.c - what a run of a multi-run or sweep says of itself: run_info's trial and
 * variation (export_run_point_info) and run_config.json's envelope (export_run_config_write),
 * whose variation is the same cell, named alike.
 */
#include "export/export.h"
#include "tests/config/config_test_util.h"
#include "tests/support/read_text.h"

#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void parse_ok(const char *const *words, struct profile_config *cfg)
{
    char err[512];
    cr_assert_eq(parse(words, cfg, err, sizeof(err)), 0, "%s", err);
}

/* assert_json compares `actual` dumped compact, keys in their order, with `expected`. */
static void assert_json(const json_t *actual, const char *expected)
{
    char *text = json_dumps(actual, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_ENCODE_ANY);
    cr_assert_not_null(text);
    cr_assert_str_eq(text, expected);
    free(text);
}

Test(export_run_config, point_info_names_the_trial_and_the_cell)
{
    struct profile_config cfg;
    parse_ok(W("--model", "m", "--concurrency", "1,2", "--request-rate", "2.5,5"), &cfg);
    static const double values[2] = {2, 5};
    struct export_run_point point = {.sweep_id = "0f6c",
                                     .trial = 1,
                                     .label = "trial_0002",
                                     .cell = 3,
                                     .cell_name = "concurrency_2__request_rate_5",
                                     .values = values};
    json_t *info = export_run_point_info(&cfg, &point);
    assert_json(info, "{\"sweep_id\":\"0f6c\",\"trial\":1,\"run_label\":\"trial_0002\","
                      "\"variation_label\":\"concurrency_2__request_rate_5\","
                      "\"variation_index\":3,"
                      "\"variation_values\":{\"concurrency\":2,\"request_rate\":5.0}}");
    json_decref(info);
    config_free(&cfg);
}

Test(export_run_config, a_repeat_without_a_sweep_is_the_base_variation)
{
    struct profile_config cfg;
    parse_ok(W("--model", "m", "--num-profile-runs", "3"), &cfg);
    struct export_run_point point = {
        .sweep_id = "0f6c", .trial = 2, .label = "run_0003", .cell_name = "", .values = NULL};
    json_t *info = export_run_point_info(&cfg, &point);
    assert_json(info, "{\"sweep_id\":\"0f6c\",\"trial\":2,\"run_label\":\"run_0003\","
                      "\"variation_label\":\"base\",\"variation_index\":0,"
                      "\"variation_values\":{}}");
    json_decref(info);
    config_free(&cfg);
}

Test(export_run_config, run_config_carries_the_point_as_the_orchestrator_does)
{
    struct profile_config cfg;
    parse_ok(W("--model", "m", "--concurrency", "1,4"), &cfg);
    char dir[] = "/tmp/ringperf_test_run_config_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    static const double values[1] = {4};
    struct export_run_point point = {.sweep_id = "0f6c",
                                     .trial = 0,
                                     .label = "trial_0001",
                                     .cell = 1,
                                     .cell_name = "concurrency_4",
                                     .values = values};
    struct export_run_envelope env = {
        .cfg = &cfg, .dir = dir, .benchmark_id = "00000000000000aa", .point = &point};
    cr_assert_eq(export_run_config_write(&env), 0);
    char path[128];
    snprintf(path, sizeof(path), "%s/run_config.json", dir);
    char *text = test_read_path(path);
    cr_assert_not_null(text);
    json_error_t jerr;
    json_t *doc = json_loads(text, 0, &jerr);
    cr_assert_not_null(doc, "%s", jerr.text);
    char keys[512] = "";
    const char *key;
    json_t *value;
    json_object_foreach(doc, key, value)
    {
        (void)value;
        strncat(keys, keys[0] != '\0' ? " " : "", sizeof(keys) - strlen(keys) - 1);
        strncat(keys, key, sizeof(keys) - strlen(keys) - 1);
    }
    cr_assert_str_eq(keys, "benchmark_id sweep_id cfg variation trial artifact_dir label "
                           "cli_command variables resolved");
    assert_json(json_object_get(doc, "variation"),
                "{\"index\":1,\"label\":\"concurrency_4\",\"values\":{\"concurrency\":4}}");
    cr_assert_str_eq(json_string_value(json_object_get(doc, "sweep_id")), "0f6c");
    cr_assert_eq(json_integer_value(json_object_get(doc, "trial")), 0);
    cr_assert_str_eq(json_string_value(json_object_get(doc, "label")), "trial_0001");
    cr_assert_str_eq(json_string_value(json_object_get(doc, "artifact_dir")), dir);
    json_decref(doc);
    free(text);
    cr_assert_eq(remove(path), 0);
    cr_assert_eq(rmdir(dir), 0);
    config_free(&cfg);
}
