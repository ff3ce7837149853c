/*
 * test_exports.c - the artifact files of `ringperf profile` checked against
 * each other: a real mock server and a real ringperf process, then the
 * JSONL records, the JSON and CSV summaries, the raw records and the log,
 * with the summary statistics recomputed from the per-request records.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/config.h"
#include "export/export.h"
#include "metrics/metrics.h"
#include "tests/support/process.h"
#include "tests/support/read_text.h"

#define SECRET_KEY "sk-SECRET-KEY-4242"
#define SECRET_HEADER "hdr-SECRET-VALUE-777"
#define SAMPLES_MAX 100000

static int finish_child(struct child *c, char **out_text)
{
    char *text = test_read_stream(c->out);
    int status = wait_child(c);
    if (out_text != NULL) {
        *out_text = text;
    } else {
        free(text);
    }
    return status;
}

struct world {
    struct child mock;
    char url[64];
    char dir[64];
};

static void world_start(struct world *w, const char *error_rate)
{
    char *flags[] = {
        "--ttft-ms",        "5", "--itl-ms", "1", "--tokens-per-chunk", "2", "--error-500-rate",
        (char *)error_rate, NULL};
    int port = 0;
    w->mock = start_mock_server(RINGPERF_BINARY, flags, &port);
    snprintf(w->url, sizeof(w->url), "127.0.0.1:%d", port);
    snprintf(w->dir, sizeof(w->dir), "/tmp/ringperf-exports-XXXXXX");
    cr_assert_not_null(mkdtemp(w->dir));
}

static void remove_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d == NULL) {
        remove(path);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            char child[512];
            snprintf(child, sizeof(child), "%s/%s", path, e->d_name);
            remove_tree(child);
        }
    }
    closedir(d);
    rmdir(path);
}

static void world_stop(struct world *w)
{
    kill(w->mock.pid, SIGTERM);
    cr_assert_eq(finish_child(&w->mock, NULL), 0);
    remove_tree(w->dir);
}

/* run_profile runs ringperf profile with the words of `flags` (space
 * separated; a word may not contain spaces) plus --url and --artifact-dir. */
static int run_profile(struct world *w, const char *flags, char **out_text)
{
    char copy[1024];
    snprintf(copy, sizeof(copy), "%s", flags);
    char *argv[64] = {RINGPERF_BINARY, "profile", "--url", w->url, "--artifact-dir", w->dir};
    int argc = 6;
    for (char *p = copy; *p != '\0' && argc < 62;) {
        argv[argc++] = p;
        char *space = strchr(p, ' ');
        if (space == NULL) {
            break;
        }
        *space = '\0';
        p = space + 1;
    }
    argv[argc] = NULL;
    struct child c = spawn_child(argv, true);
    return finish_child(&c, out_text);
}

static char *slurp(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    return test_read_path(path);
}

static bool exists(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    struct stat st;
    return stat(path, &st) == 0;
}

/* samples collects one metric's per-request values (display units) from the
 * JSONL; list metrics (inter_chunk_latency) contribute every element. */
struct samples {
    double v[SAMPLES_MAX];
    size_t n;
};

static void collect(json_t *metrics, const char *tag, struct samples *out)
{
    json_t *value = json_object_get(json_object_get(metrics, tag), "value");
    if (json_is_array(value)) {
        size_t i;
        json_t *x;
        json_array_foreach(value, i, x)
        {
            cr_assert_lt(out->n, SAMPLES_MAX);
            out->v[out->n++] = json_number_value(x);
        }
    } else if (value != NULL) {
        cr_assert_lt(out->n, SAMPLES_MAX);
        out->v[out->n++] = json_number_value(value);
    }
}

/* jsonl_samples reads every line of the records file; returns the line count
 * and counts the lines with an error. */
static size_t jsonl_samples(const char *text, const char *tag, struct samples *out,
                            size_t *out_errors)
{
    size_t lines = 0;
    *out_errors = 0;
    out->n = 0;
    for (const char *line = text; *line != '\0';) {
        const char *end = strchr(line, '\n');
        cr_assert_not_null(end, "every record ends with a newline");
        json_error_t err;
        json_t *obj = json_loadb(line, (size_t)(end - line), 0, &err);
        cr_assert_not_null(obj, "line %zu: %s", lines + 1, err.text);
        *out_errors += !json_is_null(json_object_get(obj, "error"));
        collect(json_object_get(obj, "metrics"), tag, out);
        json_decref(obj);
        lines++;
        line = end + 1;
    }
    return lines;
}

static void assert_close(double got, double want, double rel, const char *what)
{
    cr_assert(fabs(got - want) <= rel * fabs(want) + 1e-9, "%s: %.12g vs %.12g", what, got, want);
}

/* check_metric recomputes a metric's statistics from the JSONL and compares
 * them with the JSON summary's. */
static void check_metric(const char *records, json_t *summary, const char *tag)
{
    static struct samples s;
    size_t errors;
    jsonl_samples(records, tag, &s, &errors);
    json_t *m = json_object_get(summary, tag);
    if (s.n == 0) {
        cr_assert_null(m, "%s: no samples, no summary entry", tag);
        return;
    }
    cr_assert_not_null(m, "%s is in the JSON summary", tag);
    struct metrics_stats want;
    cr_assert_eq(metrics_stats_exact(s.v, s.n, &want), 0);
    cr_assert_eq(json_integer_value(json_object_get(m, "count")), (json_int_t)s.n, "%s count", tag);
    const char *keys[] = {"avg", "min", "max", "p1",  "p5",  "p10", "p25",
                          "p50", "p75", "p90", "p95", "p99", "std", "sum"};
    const double values[] = {want.avg, want.min, want.max, want.p1,  want.p5,  want.p10, want.p25,
                             want.p50, want.p75, want.p90, want.p95, want.p99, want.std, want.sum};
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        char what[96];
        snprintf(what, sizeof(what), "%s.%s", tag, keys[i]);
        /* JSONL holds 15 significant digits (exact ms for whole ns): the
         * summary was computed from the unrounded values. */
        assert_close(json_number_value(json_object_get(m, keys[i])), values[i], 1e-9, what);
    }
}

/* csv_row finds the CSV row whose name is `label` and parses its numbers. */
static int csv_row(const char *csv, const char *label, double *out, int max)
{
    char needle[192];
    snprintf(needle, sizeof(needle), "\n%s,", label);
    const char *p = strstr(csv, needle);
    if (p == NULL) {
        return -1;
    }
    p += strlen(needle);
    int n = 0;
    while (n < max) {
        char *end = NULL;
        out[n++] = strtod(p, &end);
        if (*end != ',') {
            break;
        }
        p = end + 1;
    }
    return n;
}

static void check_csv_against_json(const char *csv, json_t *summary)
{
    const char *keys[] = {"avg", "min", "max", "sum", "p1",  "p5",  "p10",
                          "p25", "p50", "p75", "p90", "p95", "p99", "std"};
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        const struct metrics_info *info = metrics_info_of(id);
        json_t *m = json_object_get(summary, info->tag);
        char label[160];
        export_metric_label(info, label, sizeof(label));
        double row[16];
        int n = csv_row(csv, label, row, 16);
        cr_assert_eq(n >= 0, m != NULL, "%s: in the CSV iff in the JSON", info->tag);
        for (int i = 0; m != NULL && i < 14; i++) {
            double want = json_number_value(json_object_get(m, keys[i]));
            cr_assert(fabs(row[i] - want) <= 0.0051 + 1e-12 * fabs(want),
                      "%s %s: csv %.2f json %.6f", info->tag, keys[i], row[i], want);
        }
    }
    for (int id = 0; id < METRICS_SCALAR_COUNT; id++) {
        const struct metrics_info *info = metrics_scalar_info_of(id);
        json_t *m = json_object_get(summary, info->tag);
        char label[160];
        export_metric_label(info, label, sizeof(label));
        double value = NAN;
        int n = csv_row(csv, label, &value, 1);
        cr_assert_eq(n >= 0, m != NULL, "%s: in the CSV iff in the JSON", info->tag);
        if (m != NULL) {
            double want = json_number_value(json_object_get(m, "avg"));
            cr_assert(fabs(value - want) <= 0.0051 + 1e-12 * fabs(want), "%s: %f vs %f", info->tag,
                      value, want);
        }
    }
}

static void assert_no_secret_in_tree(const char *path)
{
    DIR *d = opendir(path);
    if (d == NULL) {
        FILE *f = fopen(path, "r");
        cr_assert_not_null(f, "%s", path);
        char *text = test_read_stream(f);
        fclose(f);
        cr_assert_null(strstr(text, "SECRET"), "a secret leaked into %s", path);
        free(text);
        return;
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            char child[512];
            snprintf(child, sizeof(child), "%s/%s", path, e->d_name);
            assert_no_secret_in_tree(child);
        }
    }
    closedir(d);
}

/* Two shards turn the records into metrics and the coordinator merges them: the summary's
 * statistics must be those of the records it wrote, exactly (issue 20's golden check end to
 * end). */
Test(cli_exports, every_file_agrees_and_no_secret_leaks, .timeout = 120)
{
    struct world w;
    world_start(&w, "20");
    char *out = NULL;
    int rc = run_profile(&w,
                         "--model m --streaming --concurrency 4 --request-count 60 --osl 12 "
                         "--workers-max 2 --random-seed 3 --api-key " SECRET_KEY
                         " -H X-Token:" SECRET_HEADER
                         " --goodput time_to_first_token:1000 --export-level raw",
                         &out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_not_null(strstr(out, "ringperf | LLM Metrics"), "%s", out);
    cr_assert_not_null(strstr(out, "ringperf | Error Summary"), "%s", out);
    cr_assert_not_null(strstr(out, "CSV Export: "), "%s", out);
    cr_assert_null(strstr(out, "\033["), "no colour when stdout is not a terminal");
    char *records = slurp(w.dir, "profile_export.jsonl");
    char *json_text = slurp(w.dir, "profile_export_aiperf.json");
    char *csv = slurp(w.dir, "profile_export_aiperf.csv");
    cr_assert_not_null(records);
    cr_assert_not_null(json_text);
    cr_assert_not_null(csv);
    json_error_t err;
    json_t *summary = json_loads(json_text, 0, &err);
    cr_assert_not_null(summary, "%s", err.text);
    static struct samples s;
    size_t errors = 0;
    size_t lines = jsonl_samples(records, "request_latency", &s, &errors);
    cr_assert_eq(lines, 60, "one line per request");
    double count =
        json_number_value(json_object_get(json_object_get(summary, "request_count"), "avg"));
    cr_assert_eq((size_t)count, lines - errors);
    cr_assert_gt(errors, 0, "the mock's 20%% error rate shows");
    double error_count =
        json_number_value(json_object_get(json_object_get(summary, "error_request_count"), "avg"));
    cr_assert_eq((size_t)error_count, errors);
    const char *tags[] = {"request_latency",
                          "time_to_first_token",
                          "time_to_second_token",
                          "time_to_first_output_token",
                          "inter_token_latency",
                          "inter_chunk_latency",
                          "output_token_throughput_per_user",
                          "output_sequence_length",
                          "input_sequence_length"};
    for (size_t i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
        check_metric(records, summary, tags[i]);
    }
    double good =
        json_number_value(json_object_get(json_object_get(summary, "good_request_count"), "avg"));
    cr_assert_eq(good, count, "every request meets a 1 s TTFT");
    check_csv_against_json(csv, summary);
    char *raw = slurp(w.dir, "profile_export_raw.jsonl");
    cr_assert_not_null(raw);
    size_t raw_lines = 0;
    for (const char *p = raw; (p = strchr(p, '\n')) != NULL; p++) {
        raw_lines++;
    }
    cr_assert_eq(raw_lines, 60);
    cr_assert(exists(w.dir, "logs/aiperf.log"));
    cr_assert(exists(w.dir, "profile_export_console.txt"));
    cr_assert(exists(w.dir, "inputs.json"));
    assert_no_secret_in_tree(w.dir);
    cr_assert_null(strstr(out, "SECRET"), "no secret on the console");
    json_decref(summary);
    free(raw);
    free(records);
    free(json_text);
    free(csv);
    free(out);
    world_stop(&w);
}

Test(cli_exports, summary_level_and_prefix, .timeout = 60)
{
    struct world w;
    world_start(&w, "0");
    int rc = run_profile(&w,
                         "--model m --streaming --request-count 5 --export-level summary "
                         "--profile-export-prefix my_run.json",
                         NULL);
    cr_assert_eq(rc, 0);
    cr_assert(exists(w.dir, "my_run.json"));
    cr_assert(exists(w.dir, "my_run.csv"));
    cr_assert(exists(w.dir, "my_run_console.txt"));
    cr_assert(!exists(w.dir, "my_run.jsonl"), "summary level writes no records");
    cr_assert(!exists(w.dir, "profile_export.jsonl"));
    cr_assert(!exists(w.dir, "profile_export_aiperf.json"));
    cr_assert(!exists(w.dir, "outputs.json"), "only with --export-outputs-json or raw");
    world_stop(&w);
}

/* load_input_config runs ringperf with flags and returns the input_config of its
 * profile_export_aiperf.json (a new reference). */
static json_t *load_input_config(struct world *w, const char *flags)
{
    char *out = NULL;
    int rc = run_profile(w, flags, &out);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    char *text = slurp(w->dir, "profile_export_aiperf.json");
    cr_assert_not_null(text);
    json_t *root = json_loads(text, 0, NULL);
    free(text);
    cr_assert_not_null(root);
    json_t *config = json_incref(json_object_get(root, "input_config"));
    json_decref(root);
    return config;
}

/* input_config is AIPerf's BenchmarkConfig (schema 2.0): a default run has one
 * profiling phase of type concurrency with the converter's 10 requests and no
 * concurrency of 0 (AIPerf leaves an unset concurrency out: the phase's own
 * default, 1, applies); --concurrency 1 reads 1; a warmup comes first. */
Test(cli_exports, input_config_is_the_schema_2_benchmark_config, .timeout = 60)
{
    struct world w;
    world_start(&w, "0");
    json_t *config = load_input_config(&w, "--model m");
    json_t *phases = json_object_get(config, "phases");
    cr_assert_eq(json_array_size(phases), 1);
    json_t *profiling = json_array_get(phases, 0);
    cr_assert_str_eq(json_string_value(json_object_get(profiling, "name")), "profiling");
    cr_assert_str_eq(json_string_value(json_object_get(profiling, "kind")), "profiling");
    cr_assert_str_eq(json_string_value(json_object_get(profiling, "type")), "concurrency");
    cr_assert_eq(json_integer_value(json_object_get(profiling, "requests")), 10);
    cr_assert_null(json_object_get(profiling, "concurrency"), "unset, as AIPerf dumps it");
    char url[96];
    snprintf(url, sizeof(url), "http://%s", w.url);
    json_t *urls = json_object_get(json_object_get(config, "endpoint"), "urls");
    cr_assert_str_eq(json_string_value(json_array_get(urls, 0)), url);
    json_t *models = json_object_get(json_object_get(config, "models"), "items");
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(models, 0), "name")), "m");
    const char *sections[] = {"models",    "endpoint",      "datasets",       "phases",
                              "artifacts", "gpu_telemetry", "server_metrics", "network_latency",
                              "otel",      "mlflow",        "wandb"};
    for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
        cr_assert_not_null(json_object_get(config, sections[i]), "%s", sections[i]);
    }
    cr_assert_str_eq(
        json_string_value(json_object_get(json_object_get(config, "artifacts"), "dir")), w.dir);
    json_decref(config);
    config = load_input_config(&w, "--model m --concurrency 1 --warmup-request-count 2");
    phases = json_object_get(config, "phases");
    cr_assert_eq(json_array_size(phases), 2);
    json_t *warmup = json_array_get(phases, 0);
    cr_assert_str_eq(json_string_value(json_object_get(warmup, "kind")), "warmup");
    cr_assert(json_is_true(json_object_get(warmup, "exclude_from_results")));
    cr_assert_eq(json_integer_value(json_object_get(warmup, "requests")), 2);
    cr_assert_eq(json_integer_value(json_object_get(warmup, "concurrency")), 1);
    profiling = json_array_get(phases, 1);
    cr_assert_eq(json_integer_value(json_object_get(profiling, "concurrency")), 1);
    json_decref(config);
    world_stop(&w);
}

/* id_of returns the X-Request-ID of an outputs.json entry or of a record's
 * metadata (malloc'd). */
static char *id_of(json_t *entry)
{
    json_t *meta = json_object_get(entry, "metadata");
    json_t *id = json_object_get(meta != NULL ? meta : entry, "x_request_id");
    cr_assert(json_is_string(id));
    return strdup(json_string_value(id));
}

static int compare_strings(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* outputs.json (--export-outputs-json, and always at --export-level raw):
 * AIPerf's schema 1.1, its warmup requests apart, and one entry per request
 * of profile_export.jsonl, with the same ids and metrics and the text. */
Test(cli_exports, outputs_json_holds_every_request_and_its_text, .timeout = 120)
{
    static const char *const runs[] = {
        "--model m --streaming --request-count 7 --osl 5 --warmup-request-count 3 "
        "--export-outputs-json",
        "--model m --request-count 4 --osl 3 --export-level raw"};
    static const size_t data_count[] = {7, 4};
    static const size_t warmup_count[] = {3, 0};
    for (size_t r = 0; r < 2; r++) {
        struct world w;
        world_start(&w, "0");
        cr_assert_eq(run_profile(&w, runs[r], NULL), 0);
        char *text = slurp(w.dir, "outputs.json");
        json_error_t err;
        json_t *root = json_loads(text, 0, &err);
        cr_assert_not_null(root, "outputs.json: %s", err.text);
        cr_assert_str_eq(json_string_value(json_object_get(root, "schema_version")), "1.1");
        json_t *data = json_object_get(root, "data");
        json_t *warmup = json_object_get(root, "warmup");
        cr_assert_eq(json_array_size(data), data_count[r]);
        cr_assert_eq(json_array_size(warmup), warmup_count[r]);
        char *records = slurp(w.dir, "profile_export.jsonl");
        char *ids[2][8];
        size_t n = 0;
        char *cursor = records;
        for (char *line = test_next_line(&cursor); line != NULL; line = test_next_line(&cursor)) {
            json_t *rec = json_loads(line, 0, NULL);
            cr_assert_lt(n, 8);
            ids[0][n] = id_of(rec);
            ids[1][n] = id_of(json_array_get(data, n));
            n++;
            json_decref(rec);
        }
        cr_assert_eq(n, data_count[r]);
        qsort(ids[0], n, sizeof(char *), compare_strings);
        qsort(ids[1], n, sizeof(char *), compare_strings);
        for (size_t i = 0; i < n; i++) {
            cr_assert_str_eq(ids[0][i], ids[1][i], "the same requests in both files");
            free(ids[0][i]);
            free(ids[1][i]);
        }
        for (size_t i = 0; i < json_array_size(data); i++) {
            json_t *e = json_array_get(data, i);
            cr_assert_str_eq(json_string_value(json_object_get(e, "benchmark_phase")), "profiling");
            cr_assert_gt(strlen(json_string_value(json_object_get(e, "response_text"))), 0);
            cr_assert(
                json_is_object(json_object_get(json_object_get(e, "metrics"), "request_latency")));
            cr_assert(json_integer_value(json_object_get(e, "request_end_ns")) >
                      json_integer_value(json_object_get(e, "request_start_ns")));
        }
        for (size_t i = 0; i < json_array_size(warmup); i++) {
            json_t *e = json_array_get(warmup, i);
            cr_assert_str_eq(json_string_value(json_object_get(e, "benchmark_phase")), "warmup");
            cr_assert_gt(strlen(json_string_value(json_object_get(e, "response_text"))), 0);
        }
        json_decref(root);
        free(records);
        free(text);
        world_stop(&w);
    }
}

Test(cli_exports, non_streaming_has_no_streaming_metrics, .timeout = 60)
{
    struct world w;
    world_start(&w, "0");
    int rc = run_profile(&w, "--model m --request-count 6", NULL);
    cr_assert_eq(rc, 0);
    char *json_text = slurp(w.dir, "profile_export_aiperf.json");
    json_t *summary = json_loads(json_text, 0, NULL);
    cr_assert_not_null(summary);
    cr_assert_not_null(json_object_get(summary, "request_latency"));
    cr_assert_not_null(json_object_get(summary, "output_sequence_length"));
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        const struct metrics_info *info = metrics_info_of(id);
        if ((info->flags & METRICS_F_STREAMING) != 0) {
            cr_assert_null(json_object_get(summary, info->tag), "%s", info->tag);
        }
    }
    char *records = slurp(w.dir, "profile_export.jsonl");
    check_metric(records, summary, "request_latency");
    json_decref(summary);
    free(records);
    free(json_text);
    world_stop(&w);
}

Test(cli_exports, bad_goodput_is_a_usage_error, .timeout = 60)
{
    struct world w;
    world_start(&w, "0");
    char *out = NULL;
    int rc = run_profile(&w, "--model m --request-count 2 --goodput no_such_metric:5", &out);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert_not_null(strstr(out, "--goodput: unknown metric tag"), "%s", out);
    free(out);
    world_stop(&w);
}

static int parse(const char *const *args, int n, struct profile_config *cfg, char *err, size_t cap)
{
    char *argv[16];
    for (int i = 0; i < n; i++) {
        argv[i] = (char *)args[i];
    }
    return config_parse_profile(n, argv, cfg, err, cap);
}

Test(cli_export_flags, export_level_and_goodput_parse)
{
    struct profile_config cfg;
    char err[512];
    const char *defaults[] = {"--model", "m"};
    cr_assert_eq(parse(defaults, 2, &cfg, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(cfg.export_level, CONFIG_EXPORT_RECORDS);
    cr_assert_null(cfg.goodput);
    config_free(&cfg);
    const char *raw[] = {"--model", "m",         "--export-level",
                         "raw",     "--goodput", "time_to_first_token:100 inter_token_latency:3.4"};
    cr_assert_eq(parse(raw, 6, &cfg, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(cfg.export_level, CONFIG_EXPORT_RAW);
    cr_assert_str_eq(cfg.goodput, "time_to_first_token:100 inter_token_latency:3.4");
    config_free(&cfg);
    const char *alias[] = {"--model", "m", "--profile-export-level=summary"};
    cr_assert_eq(parse(alias, 3, &cfg, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(cfg.export_level, CONFIG_EXPORT_SUMMARY);
    config_free(&cfg);
    const char *bad[] = {"--model", "m", "--export-level", "everything"};
    cr_assert_neq(parse(bad, 4, &cfg, err, sizeof(err)), 0);
    cr_assert_not_null(strstr(err, "--export-level"), "%s", err);
    config_free(&cfg);
}

#define HDR_JAR "/usr/share/java/hdrhistogram.jar"

static double json_avg(json_t *root, const char *tag)
{
    json_t *m = json_object_get(root, tag);
    cr_assert_not_null(m, "%s missing", tag);
    return json_number_value(json_object_get(m, "avg"));
}

/* hlog_total_count decodes an .hlog with HdrHistogram's Java library and
 * returns the count of all its intervals, or -1 when java is not installed. */
static long long hlog_total_count(const char *dir, const char *hlog)
{
    if (access(HDR_JAR, R_OK) != 0 || system("javac -version >/dev/null 2>&1") != 0) {
        return -1;
    }
    char path[512];
    snprintf(path, sizeof(path), "%s/Count.java", dir);
    FILE *src = fopen(path, "w");
    cr_assert_not_null(src);
    fputs(
        "import org.HdrHistogram.*;\n"
        "public class Count { public static void main(String[] a) throws Exception {\n"
        "  HistogramLogReader r = new HistogramLogReader(new java.io.File(a[0]));\n"
        "  long n = 0; EncodableHistogram e;\n"
        "  while ((e = r.nextIntervalHistogram()) != null) n += ((Histogram) e).getTotalCount();\n"
        "  System.out.println(n); } }\n",
        src);
    fclose(src);
    char cmd[2048];
    snprintf(cmd, sizeof(cmd), "javac -cp %s -d %s %s && java -cp %s:%s Count %s/%s", HDR_JAR, dir,
             path, HDR_JAR, dir, dir, hlog);
    FILE *p = popen(cmd, "r");
    char out[64] = "";
    cr_assert_not_null(fgets(out, sizeof(out), p));
    cr_assert_eq(pclose(p), 0);
    remove(path);
    snprintf(path, sizeof(path), "%s/Count.class", dir);
    remove(path);
    return strtoll(out, NULL, 10);
}

static void check_timeslices(const char *dir, double request_count)
{
    char *text = slurp(dir, "profile_export_aiperf_timeslices.json");
    cr_assert_not_null(text, "no timeslices JSON");
    json_t *root = json_loads(text, 0, NULL);
    cr_assert_not_null(root);
    json_t *slices = json_object_get(root, "timeslices");
    cr_assert_geq(json_array_size(slices), 2, "0.25 s slices over a ~1 s run");
    double sum = 0;
    long long last = -1;
    for (size_t i = 0; i < json_array_size(slices); i++) {
        json_t *slice = json_array_get(slices, i);
        long long index = json_integer_value(json_object_get(slice, "timeslice_index"));
        cr_assert_gt(index, last, "slices in increasing order");
        last = index;
        sum += json_avg(slice, "request_count");
        json_t *lat = json_object_get(slice, "request_latency");
        cr_assert_not_null(json_object_get(lat, "p95"));
        cr_assert_null(json_object_get(lat, "p1"));
    }
    cr_assert_float_eq(sum, request_count, 1e-9, "every request is in exactly one slice");
    cr_assert_not_null(json_object_get(root, "input_config"));
    json_decref(root);
    free(text);
    char *csv = slurp(dir, "profile_export_aiperf_timeslices.csv");
    cr_assert_not_null(csv);
    cr_assert_eq(strncmp(csv, "Timeslice,Metric,Unit,Stat,Value\n", 33), 0);
    cr_assert_not_null(strstr(csv, ",Request Latency,ms,p99,"));
    free(csv);
}

Test(cli_exports, open_loop_adds_schedule_latencies_timeslices_and_hlogs, .timeout = 180)
{
    struct world w;
    world_start(&w, "0");
    int rc = run_profile(&w,
                         "--model m --streaming --request-rate 40 --request-count 40 "
                         "--slice-duration 0.25",
                         NULL);
    cr_assert_eq(rc, 0);
    char *json_text = slurp(w.dir, "profile_export_aiperf.json");
    json_t *summary = json_loads(json_text, 0, NULL);
    cr_assert_not_null(summary);
    cr_assert_str_eq(json_string_value(json_object_get(summary, "aiperf_version")),
                     EXPORT_AIPERF_VERSION);
    double count = json_avg(summary, "request_count");
    cr_assert_float_eq(count, 40, 1e-9);
    json_t *plain = json_object_get(summary, "request_latency");
    json_t *sched = json_object_get(summary, "request_latency_from_schedule");
    cr_assert_not_null(sched);
    cr_assert_eq(json_integer_value(json_object_get(sched, "count")), 40);
    for (const char *const *stat = (const char *const[]){"min", "p50", "p99", "max", NULL};
         *stat != NULL; stat++) {
        cr_assert_geq(json_number_value(json_object_get(sched, *stat)),
                      json_number_value(json_object_get(plain, *stat)), "%s", *stat);
    }
    cr_assert_not_null(json_object_get(summary, "time_to_first_token_from_schedule"));
    cr_assert_not_null(json_object_get(summary, "decode_duration"));
    cr_assert_float_eq(json_avg(summary, "request_error_rate"), 0.0, 1e-12);
    double isl_rate = json_avg(summary, "input_token_throughput");
    double osl_rate = json_avg(summary, "output_token_throughput");
    cr_assert_float_eq(json_avg(summary, "total_token_throughput"), isl_rate + osl_rate,
                       1e-6 * (isl_rate + osl_rate));
    char *records = slurp(w.dir, "profile_export.jsonl");
    check_metric(records, summary, "request_latency_from_schedule");
    check_metric(records, summary, "decode_duration");
    check_timeslices(w.dir, count);
    char *hlog = slurp(w.dir, "profile_export_request_latency.hlog");
    cr_assert_not_null(hlog);
    cr_assert_not_null(strstr(hlog, "\n#[Histogram log format version 1.3]\n"));
    cr_assert_not_null(strstr(hlog, ",HISTF"));
    long long decoded = hlog_total_count(w.dir, "profile_export_request_latency.hlog");
    if (decoded >= 0) {
        cr_assert_eq(decoded, 40, "HdrHistogram (Java) reads every request back");
    }
    cr_assert(exists(w.dir, "profile_export_request_latency_from_schedule.hlog"));
    free(hlog);
    free(records);
    json_decref(summary);
    free(json_text);
    world_stop(&w);
}

/* The shards group the records into the timeslices (by start time) and the .hlog intervals:
 * on one shard or three, every request is in exactly one slice and one interval. */
Test(cli_exports, timeslices_from_one_or_three_shards_hold_every_request, .timeout = 180)
{
    static const char *const runs[] = {
        "--model m --streaming --request-rate 40 --request-count 40 --slice-duration 0.25 "
        "--workers-max 1",
        "--model m --streaming --request-rate 40 --request-count 40 --slice-duration 0.25 "
        "--workers-max 3"};
    for (size_t r = 0; r < 2; r++) {
        struct world w;
        world_start(&w, "0");
        cr_assert_eq(run_profile(&w, runs[r], NULL), 0, "%s", runs[r]);
        check_timeslices(w.dir, 40);
        long long decoded = hlog_total_count(w.dir, "profile_export_request_latency.hlog");
        if (decoded >= 0) {
            cr_assert_eq(decoded, 40, "HdrHistogram (Java) reads every request back");
        }
        world_stop(&w);
    }
}

Test(cli_exports, closed_loop_has_no_schedule_metrics_or_timeslices, .timeout = 60)
{
    struct world w;
    world_start(&w, "0");
    int rc = run_profile(&w, "--model m --streaming --request-count 6 --concurrency 2", NULL);
    cr_assert_eq(rc, 0);
    char *json_text = slurp(w.dir, "profile_export_aiperf.json");
    json_t *summary = json_loads(json_text, 0, NULL);
    cr_assert_not_null(summary);
    cr_assert_null(json_object_get(summary, "request_latency_from_schedule"));
    cr_assert_null(json_object_get(summary, "time_to_first_token_from_schedule"));
    cr_assert(!exists(w.dir, "profile_export_aiperf_timeslices.json"));
    cr_assert(!exists(w.dir, "profile_export_request_latency_from_schedule.hlog"));
    cr_assert(exists(w.dir, "profile_export_time_to_first_token.hlog"));
    char *console = slurp(w.dir, "profile_export_console.txt");
    cr_assert_null(strstr(console, "From Schedule"));
    free(console);
    json_decref(summary);
    free(json_text);
    world_stop(&w);
}

/* Without --slice-duration the shards' results give the .hlog logs their intervals, one per
 * progress interval: together they hold every record, as each record's own values did. The run
 * lasts about 2.6 s (400 streams of 16 tokens, 2 at a time, 13 ms each at the mock's pace), so
 * the logs have several intervals. */
Test(cli_exports, interval_logs_from_the_shards_hold_every_record, .timeout = 120)
{
    struct world w;
    world_start(&w, "0");
    int rc = run_profile(
        &w, "--model m --streaming --request-count 400 --concurrency 2 --workers-max 2 --osl 16",
        NULL);
    cr_assert_eq(rc, 0);
    char *hlog = slurp(w.dir, "profile_export_time_to_first_token.hlog");
    cr_assert_not_null(hlog);
    int intervals = 0;
    for (const char *p = strstr(hlog, ",HISTF"); p != NULL; p = strstr(p + 1, ",HISTF")) {
        intervals++;
    }
    cr_assert_geq(intervals, 2, "a run of several seconds has several intervals:\n%s", hlog);
    long long decoded = hlog_total_count(w.dir, "profile_export_time_to_first_token.hlog");
    if (decoded >= 0) {
        cr_assert_eq(decoded, 400, "HdrHistogram (Java) reads every request back");
    }
    decoded = hlog_total_count(w.dir, "profile_export_inter_chunk_latency.hlog");
    if (decoded >= 0) {
        cr_assert_eq(decoded, 400 * 7, "every gap between a stream's 8 chunks");
    }
    free(hlog);
    world_stop(&w);
}
