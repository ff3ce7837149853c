/*
 * test_multirun.c - --num-profile-runs and sweeps end to end against the mock server: AIPerf's
 * directory layout (spec §5.1), and every number of the aggregate and sweep files recomputed
 * here from the runs' own profile_export_aiperf.json files.
 */
#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "e2e.h"

#define STATS_COUNT 14
static const char *const STATS[STATS_COUNT] = {"avg", "min", "max", "sum", "p1",  "p5",  "p10",
                                               "p25", "p50", "p75", "p90", "p95", "p99", "std"};

static bool exists(const struct e2e *w, const char *rel)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", w->dir, rel);
    struct stat st;
    return stat(path, &st) == 0;
}

static void assert_close(double got, double want, const char *what, const char *key)
{
    double tol = 1e-9 * fmax(1.0, fabs(want));
    cr_assert(fabs(got - want) <= tol, "%s of %s: %.17g, recomputed %.17g", what, key, got, want);
}

/* value_of reads <tag>_<stat> of a run summary: false when it has no number there. */
static bool value_of(json_t *summary, const char *key, double *out)
{
    char tag[160];
    snprintf(tag, sizeof(tag), "%s", key);
    char *sep = strrchr(tag, '_');
    cr_assert_not_null(sep, "%s", key);
    *sep = '\0';
    json_t *v = json_object_get(json_object_get(summary, tag), sep + 1);
    if (!json_is_number(v)) {
        return false;
    }
    *out = json_number_value(v);
    return true;
}

/* check_spread recomputes one aggregate entry from the runs: mean, sample std, extremes,
 * cv, se and mean -/+ t * se with the t quantile given. */
static void check_spread(json_t *entry, const char *key, json_t *const *runs, size_t n, double t)
{
    double v[16];
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        count += value_of(runs[i], key, &v[count]);
    }
    cr_assert_gt(count, 1, "%s is in at least two runs", key);
    double sum = 0, min = INFINITY, max = -INFINITY;
    for (size_t i = 0; i < count; i++) {
        sum += v[i];
        min = fmin(min, v[i]);
        max = fmax(max, v[i]);
    }
    double mean = sum / (double)count;
    double squares = 0;
    for (size_t i = 0; i < count; i++) {
        squares += (v[i] - mean) * (v[i] - mean);
    }
    double std = sqrt(squares / (double)(count - 1));
    double se = std / sqrt((double)count);
    assert_close(json_number_value(json_object_get(entry, "mean")), mean, "mean", key);
    assert_close(json_number_value(json_object_get(entry, "std")), std, "std", key);
    assert_close(json_number_value(json_object_get(entry, "min")), min, "min", key);
    assert_close(json_number_value(json_object_get(entry, "max")), max, "max", key);
    if (mean != 0) {
        assert_close(json_number_value(json_object_get(entry, "cv")), std / mean, "cv", key);
    } else {
        cr_assert(json_is_null(json_object_get(entry, "cv")), "cv of %s: a zero mean", key);
    }
    json_t *se_value = json_object_get(entry, "se");
    if (se_value != NULL) { /* the sweep file's entries carry no se or t */
        assert_close(json_number_value(se_value), se, "se", key);
        assert_close(json_number_value(json_object_get(entry, "t_critical")), t, "t", key);
    }
    assert_close(json_number_value(json_object_get(entry, "ci_low")), mean - t * se, "ci_low", key);
    assert_close(json_number_value(json_object_get(entry, "ci_high")), mean + t * se, "ci_high",
                 key);
}

/* check_aggregate checks a confidence aggregate against its runs: the same keys as the
 * runs' statistics, each one recomputed, and the metadata. */
static void check_aggregate(json_t *agg, json_t *const *runs, size_t n, double t,
                            const char *const *labels)
{
    json_t *meta = json_object_get(agg, "metadata");
    cr_assert_str_eq(json_string_value(json_object_get(agg, "schema_version")), "1.0");
    cr_assert_str_eq(json_string_value(json_object_get(meta, "aggregation_type")), "confidence");
    cr_assert_eq(json_integer_value(json_object_get(meta, "num_profile_runs")), (json_int_t)n);
    cr_assert_eq(json_integer_value(json_object_get(meta, "num_successful_runs")), (json_int_t)n);
    cr_assert_eq(json_array_size(json_object_get(meta, "failed_runs")), 0);
    assert_close(json_real_value(json_object_get(meta, "confidence_level")), 0.95, "level", "meta");
    json_t *got_labels = json_object_get(meta, "run_labels");
    cr_assert_eq(json_array_size(got_labels), n);
    for (size_t i = 0; i < n; i++) {
        cr_assert_str_eq(json_string_value(json_array_get(got_labels, i)), labels[i]);
    }
    cr_assert_not_null(json_object_get(meta, "cooldown_seconds"));
    json_t *metrics = json_object_get(agg, "metrics");
    size_t expected = 0;
    const char *tag;
    json_t *block;
    json_object_foreach(runs[0], tag, block)
    {
        if (!json_is_string(json_object_get(block, "unit"))) {
            continue;
        }
        for (size_t s = 0; s < STATS_COUNT; s++) {
            char key[200];
            snprintf(key, sizeof(key), "%s_%s", tag, STATS[s]);
            double v;
            if (value_of(runs[0], key, &v)) {
                expected++;
                json_t *entry = json_object_get(metrics, key);
                cr_assert_not_null(entry, "the aggregate has %s", key);
                check_spread(entry, key, runs, n, t);
                cr_assert_str_eq(json_string_value(json_object_get(entry, "unit")),
                                 json_string_value(json_object_get(block, "unit")), "%s", key);
            }
        }
    }
    cr_assert_gt(expected, 50);
    cr_assert_eq(json_object_size(metrics), expected, "one entry per statistic of the runs");
}

/* check_aggregate_csv checks the CSV's header, one row per JSON entry, then the metadata. */
static void check_aggregate_csv(const struct e2e *w, const char *rel, json_t *agg)
{
    char *text = e2e_read_text(w, rel);
    const char *header = "metric,mean,std,min,max,cv,se,ci_low,ci_high,t_critical,unit\r\n";
    cr_assert(strncmp(text, header, strlen(header)) == 0, "%s header: %.80s", rel, text);
    size_t rows = 0;
    for (const char *p = text; (p = strstr(p, "\r\n")) != NULL; p += 2) {
        rows++;
    }
    const char *meta = strstr(text, "\r\n\r\nAggregation Type,confidence\r\nTotal Runs,");
    cr_assert_not_null(meta, "%s: the metadata after a blank row", rel);
    cr_assert_not_null(strstr(meta, "\r\nConfidence Level,0.95\r\n"));
    cr_assert_not_null(strstr(meta, "\r\nRun Labels,\"['"));
    size_t metric_rows = 0;
    for (const char *p = text; p < meta; p = strstr(p, "\r\n") + 2) {
        metric_rows++;
    }
    cr_assert_eq(metric_rows, 1 + json_object_size(json_object_get(agg, "metrics")));
    json_t *entry = json_object_get(json_object_get(agg, "metrics"), "request_throughput_avg");
    char row[256];
    snprintf(row, sizeof(row), "\r\nrequest_throughput_avg,%.2f,%.2f,",
             json_number_value(json_object_get(entry, "mean")),
             json_number_value(json_object_get(entry, "std")));
    cr_assert_not_null(strstr(text, row), "%s has %s", rel, row);
    free(text);
}

static double mean_of(json_t *metrics, const char *key)
{
    return json_number_value(json_object_get(json_object_get(metrics, key), "mean"));
}

static const int CONCURRENCIES[3] = {1, 2, 4};

/* check_sweep checks the sweep file's cells against the runs, and recomputes the best
 * configurations and the Pareto set. */
static void check_sweep(json_t *sweep, json_t *const cell_runs[3][2], double t)
{
    cr_assert_str_eq(json_string_value(json_object_get(sweep, "aggregation_type")), "sweep");
    cr_assert_eq(json_integer_value(json_object_get(sweep, "num_profile_runs")), 6);
    cr_assert_eq(json_integer_value(json_object_get(sweep, "num_successful_runs")), 6);
    json_t *meta = json_object_get(sweep, "metadata");
    json_t *param = json_array_get(json_object_get(meta, "sweep_parameters"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(param, "name")), "concurrency");
    cr_assert_eq(json_integer_value(json_object_get(meta, "num_combinations")), 3);
    json_t *combos = json_object_get(sweep, "per_combination_metrics");
    cr_assert_eq(json_array_size(combos), 3);
    double tput[3];
    double ttft[3];
    for (size_t c = 0; c < 3; c++) {
        json_t *combo = json_array_get(combos, c);
        json_t *value = json_array_get(json_object_get(param, "values"), c);
        cr_assert_eq(json_integer_value(value), CONCURRENCIES[c]);
        cr_assert_eq(json_integer_value(
                         json_object_get(json_object_get(combo, "parameters"), "concurrency")),
                     CONCURRENCIES[c]);
        json_t *metrics = json_object_get(combo, "metrics");
        const char *keys[] = {"request_throughput_avg", "time_to_first_token_p99",
                              "request_latency_p50", "inter_token_latency_avg"};
        for (size_t k = 0; k < 4; k++) {
            check_spread(json_object_get(metrics, keys[k]), keys[k], cell_runs[c], 2, t);
        }
        tput[c] = mean_of(metrics, "request_throughput_avg");
        ttft[c] = mean_of(metrics, "time_to_first_token_p99");
    }
    size_t top = 0;
    size_t low = 0;
    for (size_t c = 1; c < 3; c++) {
        top = tput[c] > tput[top] ? c : top;
        low = ttft[c] < ttft[low] ? c : low;
    }
    json_t *best = json_object_get(sweep, "best_configurations");
    json_t *bt = json_object_get(best, "best_throughput");
    json_t *bl = json_object_get(best, "best_latency_p99");
    cr_assert_eq(
        json_integer_value(json_object_get(json_object_get(bt, "parameters"), "concurrency")),
        CONCURRENCIES[top]);
    assert_close(json_number_value(json_object_get(bt, "metric")), tput[top], "best", "tput");
    cr_assert_eq(
        json_integer_value(json_object_get(json_object_get(bl, "parameters"), "concurrency")),
        CONCURRENCIES[low]);
    json_t *front = json_object_get(sweep, "pareto_optimal");
    size_t at = 0;
    for (size_t c = 0; c < 3; c++) {
        bool dominated = false;
        for (size_t d = 0; d < 3; d++) {
            bool no_worse = tput[d] >= tput[c] && ttft[d] <= ttft[c];
            dominated |= d != c && no_worse && (tput[d] > tput[c] || ttft[d] < ttft[c]);
        }
        if (!dominated) {
            json_t *p = json_array_get(front, at++);
            cr_assert_eq(json_integer_value(json_object_get(p, "concurrency")), CONCURRENCIES[c]);
        }
    }
    cr_assert_eq(json_array_size(front), at, "the Pareto set, recomputed");
}

Test(multirun, sweep_of_three_concurrencies_twice, .timeout = 300)
{
    struct e2e w;
    e2e_start(&w, (char *const[]){"--ttft-ms", "2", "--itl-ms", "1", NULL});
    e2e_run_ok(&w, "profile -m m -u URL --streaming --concurrency 1,2,4 --num-profile-runs 2 "
                   "--request-count 12 --osl 8 --ui-type none --artifact-dir DIR");
    /* df = 1: t = tan(pi (0.975 - 1/2)) */
    double t = 1.0 / tan(M_PI * 0.025);
    json_t *runs[3][2];
    for (size_t c = 0; c < 3; c++) {
        for (size_t r = 0; r < 2; r++) {
            char rel[256];
            snprintf(rel, sizeof(rel),
                     "profile_runs/trial_%04zu/concurrency_%d/"
                     "profile_export_aiperf.json",
                     r + 1, CONCURRENCIES[c]);
            runs[c][r] = e2e_load_json(&w, rel);
            json_t *given = json_object_get(json_object_get(runs[c][r], "input_config"), "phases");
            cr_assert_not_null(given, "%s has its input_config", rel);
            snprintf(rel, sizeof(rel),
                     "profile_runs/trial_%04zu/concurrency_%d/"
                     "profile_export.jsonl",
                     r + 1, CONCURRENCIES[c]);
            cr_assert(exists(&w, rel), "%s: each run is a complete artifact set", rel);
        }
        char rel[256];
        snprintf(rel, sizeof(rel), "aggregate/concurrency_%d/profile_export_aiperf_aggregate.json",
                 CONCURRENCIES[c]);
        json_t *agg = e2e_load_json(&w, rel);
        const char *labels[] = {"trial_0001", "trial_0002"};
        check_aggregate(agg, runs[c], 2, t, labels);
        snprintf(rel, sizeof(rel), "aggregate/concurrency_%d/profile_export_aiperf_aggregate.csv",
                 CONCURRENCIES[c]);
        check_aggregate_csv(&w, rel, agg);
        json_decref(agg);
    }
    json_t *sweep = e2e_load_json(&w, "aggregate/sweep_aggregate/profile_export_aiperf_sweep.json");
    check_sweep(sweep, runs, t);
    char *csv = e2e_read_text(&w, "aggregate/sweep_aggregate/profile_export_aiperf_sweep.csv");
    cr_assert(strncmp(csv, "concurrency,", 12) == 0, "%.60s", csv);
    cr_assert_not_null(strstr(csv, "\r\n\r\nBest Configurations\r\nConfiguration,concurrency,"
                                   "Metric,Unit\r\nBest Throughput,"));
    cr_assert_not_null(strstr(csv, "\r\n\r\nPareto Optimal Points\r\nconcurrency\r\n"));
    cr_assert_not_null(strstr(csv, "\r\nNumber of Profile Runs,6\r\n"));
    free(csv);
    json_decref(sweep);
    for (size_t c = 0; c < 3; c++) {
        json_decref(runs[c][0]);
        json_decref(runs[c][1]);
    }
    e2e_finish(&w);
}

Test(multirun, repeated_runs_share_a_seed_and_warm_up_once, .timeout = 300)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_run_ok(&w, "profile -m m -u URL --num-profile-runs 3 --request-count 6 "
                   "--warmup-request-count 2 --ui-type none --artifact-dir DIR");
    json_t *runs[3];
    const char *labels[] = {"run_0001", "run_0002", "run_0003"};
    char *inputs[3];
    for (size_t r = 0; r < 3; r++) {
        char rel[128];
        snprintf(rel, sizeof(rel), "profile_runs/%s/profile_export_aiperf.json", labels[r]);
        runs[r] = e2e_load_json(&w, rel);
        json_t *info = json_object_get(runs[r], "run_info");
        cr_assert_eq(json_integer_value(json_object_get(info, "random_seed")), 42,
                     "AIPerf's consistent seed");
        cr_assert_eq(json_integer_value(json_object_get(info, "trial")), (json_int_t)r);
        cr_assert_str_eq(json_string_value(json_object_get(info, "run_label")), labels[r]);
        cr_assert_eq(json_object_get(runs[r], "warmup_metrics") != NULL, r == 0,
                     "only the first run warms up");
        snprintf(rel, sizeof(rel), "profile_runs/%s/inputs.json", labels[r]);
        inputs[r] = e2e_read_text(&w, rel);
    }
    cr_assert_str_eq(inputs[0], inputs[1], "one seed, the same requests");
    cr_assert_str_eq(inputs[0], inputs[2]);
    json_t *agg = e2e_load_json(&w, "aggregate/profile_export_aiperf_aggregate.json");
    /* df = 2: t = (1 - 2q) / sqrt(2q(1 - q)) at q = 0.025 */
    check_aggregate(agg, runs, 3, 0.95 / sqrt(0.05 * 0.975), labels);
    check_aggregate_csv(&w, "aggregate/profile_export_aiperf_aggregate.csv", agg);
    cr_assert(!exists(&w, "aggregate/profile_export_aiperf_collated.json"),
              "collated only when trials stop on convergence");
    cr_assert(!exists(&w, "profile_export_aiperf.json"), "no run writes into the base");
    json_decref(agg);
    for (size_t r = 0; r < 3; r++) {
        json_decref(runs[r]);
        free(inputs[r]);
    }
    e2e_finish(&w);
}

Test(multirun, single_trial_sweep_has_one_directory_per_cell, .timeout = 300)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_run_ok(&w, "profile -m m -u URL --request-rate 200,400 --request-count 6 --ui-type none "
                   "--random-seed 5 --artifact-dir DIR");
    json_t *run = e2e_load_json(&w, "request_rate_200.0/profile_export_aiperf.json");
    json_t *second = e2e_load_json(&w, "request_rate_400.0/profile_export_aiperf.json");
    /* AIPerf's seed derivation: cell i gets --random-seed + i. */
    cr_assert_eq(
        json_integer_value(json_object_get(json_object_get(run, "run_info"), "random_seed")), 5);
    cr_assert_eq(
        json_integer_value(json_object_get(json_object_get(second, "run_info"), "random_seed")), 6);
    json_decref(second);
    cr_assert(!exists(&w, "aggregate"), "one trial: no confidence aggregate");
    json_t *info = json_object_get(run, "run_info");
    cr_assert_str_eq(json_string_value(json_object_get(info, "variation_label")),
                     "request_rate_200.0");
    json_t *sweep = e2e_load_json(&w, "sweep_aggregate/profile_export_aiperf_sweep.json");
    json_t *metrics = json_object_get(
        json_array_get(json_object_get(sweep, "per_combination_metrics"), 0), "metrics");
    double tput =
        json_number_value(json_object_get(json_object_get(run, "request_throughput"), "avg"));
    json_t *flat = json_object_get(metrics, "request_throughput_avg");
    assert_close(json_number_value(json_object_get(flat, "mean")), tput, "mean", "single");
    cr_assert_eq(json_number_value(json_object_get(flat, "std")), 0.0);
    json_t *nested = json_object_get(metrics, "request_throughput");
    assert_close(json_number_value(json_object_get(nested, "avg")), tput, "avg", "nested");
    json_t *rate = json_object_get(
        json_object_get(json_array_get(json_object_get(sweep, "per_combination_metrics"), 1),
                        "parameters"),
        "request_rate");
    cr_assert(json_is_real(rate) && json_real_value(rate) == 400.0);
    json_decref(sweep);
    json_decref(run);
    e2e_finish(&w);
}

Test(multirun, independent_sweep_runs_each_cell_to_the_end, .timeout = 300)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m m -u URL --concurrency 1,2 --num-profile-runs 2 "
                              "--parameter-sweep-mode independent --request-count 4 "
                              "--ui-type none --artifact-dir DIR",
                              true, &out);
    cr_assert_eq(status, 0, "%s", out);
    /* Every trial of concurrency 1 before any of concurrency 2. */
    const char *a = strstr(out, "concurrency_1/profile_runs/trial_0002");
    const char *b = strstr(out, "concurrency_2/profile_runs/trial_0001");
    cr_assert(a != NULL && b != NULL && a < b, "%s", out);
    cr_assert(exists(&w, "concurrency_2/profile_runs/trial_0002/profile_export_aiperf.json"));
    cr_assert(exists(&w, "concurrency_1/aggregate/profile_export_aiperf_aggregate.json"));
    cr_assert(exists(&w, "concurrency_2/aggregate/profile_export_aiperf_aggregate.csv"));
    cr_assert(exists(&w, "sweep_aggregate/profile_export_aiperf_sweep.json"));
    free(out);
    e2e_finish(&w);
}

Test(multirun, convergence_stops_after_three_stable_runs, .timeout = 300)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_run_ok(&w, "profile -m m -u URL --num-profile-runs 6 --request-count 4 "
                   "--convergence-metric request_count --convergence-mode cv --ui-type none "
                   "--artifact-dir DIR");
    cr_assert(exists(&w, "profile_runs/run_0003/profile_export_aiperf.json"));
    cr_assert(!exists(&w, "profile_runs/run_0004"), "request_count never varies: stable at 3");
    json_t *agg = e2e_load_json(&w, "aggregate/profile_export_aiperf_aggregate.json");
    cr_assert_eq(
        json_integer_value(json_object_get(json_object_get(agg, "metadata"), "num_profile_runs")),
        3);
    json_decref(agg);
    /* distribution: the third run's request latencies against the first two's (a KS test);
     * any p-value above 1e-300 is stable. */
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m m -u URL --num-profile-runs 5 --request-count 20 "
                              "--convergence-metric request_latency --convergence-mode "
                              "distribution --convergence-threshold 1e-300 --ui-type none "
                              "--artifact-dir IN/ks",
                              true, &out);
    cr_assert_eq(status, 0, "%s", out);
    cr_assert_not_null(strstr(out, "request_latency converged after 3 runs (ks p-value"), "%s",
                       out);
    cr_assert(exists(&w, "ks/profile_runs/run_0003/profile_export_aiperf.json"));
    cr_assert(!exists(&w, "ks/profile_runs/run_0004"));
    free(out);
    e2e_finish(&w);
}

Test(multirun, fewer_than_two_successes_exit_1, .timeout = 300)
{
    struct e2e w;
    e2e_start(&w, (char *const[]){"--error-500-rate", "100", NULL});
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m m -u URL --num-profile-runs 2 --request-count 3 "
                              "--ui-type none --artifact-dir DIR",
                              true, &out);
    cr_assert_eq(status, 1, "%s", out);
    cr_assert_not_null(strstr(out, "no run succeeded"), "%s", out);
    cr_assert(exists(&w, "profile_runs/run_0002"), "both runs were made");
    cr_assert(!exists(&w, "aggregate"));
    free(out);
    e2e_finish(&w);
}

Test(multirun, ctrl_c_keeps_the_finished_runs, .timeout = 300)
{
    struct e2e w;
    e2e_start(&w, (char *const[]){"--ttft-ms", "5", NULL});
    struct child run = e2e_spawn_running(&w, "profile -m m -u URL --num-profile-runs 3 "
                                             "--request-count 300 --ui-type none "
                                             "--artifact-dir DIR");
    e2e_read_until(&run, "run_0002");
    e2e_read_until(&run, "Profiling:"); /* the second run is sending */
    cr_assert_eq(kill(run.pid, SIGINT), 0);
    int status = wait_child(&run);
    cr_assert_eq(status, 130, "interrupted: 128 + SIGINT");
    cr_assert(exists(&w, "profile_runs/run_0001/profile_export_aiperf.json"));
    cr_assert(exists(&w, "profile_runs/run_0002/profile_export_aiperf.json"),
              "the interrupted run's exports are written");
    cr_assert(!exists(&w, "profile_runs/run_0003"), "no run starts after Ctrl-C");
    json_t *agg = e2e_load_json(&w, "aggregate/profile_export_aiperf_aggregate.json");
    json_t *meta = json_object_get(agg, "metadata");
    cr_assert_eq(json_integer_value(json_object_get(meta, "num_successful_runs")), 1);
    cr_assert(json_is_true(json_object_get(meta, "single_run")));
    json_t *failed = json_array_get(json_object_get(meta, "failed_runs"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(failed, "label")), "run_0002");
    cr_assert_not_null(strstr(json_string_value(json_object_get(failed, "error")), "interrupted"));
    json_t *entry = json_object_get(json_object_get(agg, "metrics"), "request_count_avg");
    cr_assert(json_is_null(json_object_get(entry, "t_critical")), "one run: no t");
    json_decref(agg);
    e2e_finish(&w);
}

/* np_percentile is numpy's default (linear) percentile of the sorted values a[0..n). */
static double np_percentile(const double *a, size_t n, double q)
{
    double idx = q / 100.0 * (double)(n - 1);
    size_t lo = (size_t)floor(idx);
    size_t hi = lo + 1 < n ? lo + 1 : lo;
    return a[lo] + (a[hi] - a[lo]) * (idx - (double)lo);
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;
    return (x > y) - (x < y);
}

/* latencies appends run_dir's request_latency values of profiling records without an error
 * to a, and counts the records with one. */
static size_t latencies(const struct e2e *w, const char *run_dir, double *a, size_t at, size_t cap,
                        size_t *out_errors)
{
    char rel[256];
    snprintf(rel, sizeof(rel), "%s/profile_export.jsonl", run_dir);
    char *text = e2e_read_text(w, rel);
    for (char *line = text; *line != '\0';) {
        char *end = strchr(line, '\n');
        json_t *rec = json_loadb(line, end != NULL ? (size_t)(end - line) : strlen(line), 0, NULL);
        line = end != NULL ? end + 1 : line + strlen(line);
        cr_assert_not_null(rec);
        const char *phase =
            json_string_value(json_object_get(json_object_get(rec, "metadata"), "benchmark_phase"));
        json_t *error = json_object_get(rec, "error");
        json_t *v = json_object_get(
            json_object_get(json_object_get(rec, "metrics"), "request_latency"), "value");
        cr_assert_str_eq(phase, "profiling");
        if (error != NULL && !json_is_null(error)) {
            *out_errors += 1;
        } else if (json_is_number(v) && at < cap) {
            a[at++] = json_number_value(v);
        }
        json_decref(rec);
    }
    free(text);
    return at;
}

Test(multirun, convergence_writes_the_collated_requests, .timeout = 300)
{
    struct e2e w;
    e2e_start(&w, (char *const[]){"--error-500-rate", "40", NULL});
    e2e_run_ok(&w, "profile -m m -u URL --num-profile-runs 3 --request-count 10 "
                   "--convergence-metric request_latency --convergence-mode cv --ui-type none "
                   "--artifact-dir DIR");
    json_t *doc = e2e_load_json(&w, "aggregate/profile_export_aiperf_collated.json");
    cr_assert_str_eq(json_string_value(json_object_get(doc, "schema_version")), "1.0.0");
    cr_assert_not_null(strstr(json_string_value(json_object_get(doc, "description")),
                              "Collated per-request metrics across all runs."));
    json_t *meta = json_object_get(doc, "metadata");
    cr_assert_str_eq(json_string_value(json_object_get(meta, "aggregation_type")), "detailed");
    cr_assert_eq(json_integer_value(json_object_get(meta, "num_profile_runs")), 3);
    cr_assert_eq(json_integer_value(json_object_get(meta, "num_successful_runs")), 3);
    cr_assert_eq(json_array_size(json_object_get(meta, "run_labels")), 3);
    cr_assert_eq(json_array_size(json_object_get(meta, "failed_runs")), 0);
    cr_assert(json_is_number(json_object_get(meta, "cooldown_seconds")));
    /* Recomputed from the three runs' records: the failed requests are not pooled. */
    double all[64];
    size_t n = 0;
    size_t errors = 0;
    json_t *latency = json_object_get(json_object_get(doc, "metrics"), "request_latency");
    json_t *per_run = json_object_get(latency, "per_run");
    cr_assert_eq(json_array_size(per_run), 3);
    for (size_t r = 0; r < 3; r++) {
        char dir[64];
        snprintf(dir, sizeof(dir), "profile_runs/run_%04zu", r + 1);
        size_t from = n;
        n = latencies(&w, dir, all, n, 64, &errors);
        double sum = 0;
        for (size_t i = from; i < n; i++) {
            sum += all[i];
        }
        json_t *entry = json_array_get(per_run, r);
        cr_assert_str_eq(json_string_value(json_object_get(entry, "label")), dir + 13);
        cr_assert_eq(json_integer_value(json_object_get(entry, "count")), (json_int_t)(n - from));
        assert_close(json_number_value(json_object_get(entry, "mean")), sum / (double)(n - from),
                     "mean", dir);
    }
    cr_assert_gt(errors, 0, "the mock failed some requests");
    cr_assert_eq(n + errors, 30);
    double sum = 0;
    for (size_t i = 0; i < n; i++) {
        sum += all[i];
    }
    double mean = sum / (double)n;
    double squares = 0;
    for (size_t i = 0; i < n; i++) {
        squares += (all[i] - mean) * (all[i] - mean);
    }
    qsort(all, n, sizeof(all[0]), by_value);
    json_t *c = json_object_get(latency, "combined");
    cr_assert_eq(json_integer_value(json_object_get(c, "count")), (json_int_t)n);
    assert_close(json_number_value(json_object_get(c, "mean")), mean, "mean", "combined");
    assert_close(json_number_value(json_object_get(c, "std")), sqrt(squares / (double)(n - 1)),
                 "std", "combined");
    const double qs[] = {50, 90, 95, 99};
    const char *keys[] = {"p50", "p90", "p95", "p99"};
    for (size_t k = 0; k < 4; k++) {
        assert_close(json_number_value(json_object_get(c, keys[k])), np_percentile(all, n, qs[k]),
                     keys[k], "combined");
    }
    json_decref(doc);
    e2e_finish(&w);
}

/* check_run_config compares a run's run_config.json with what its summary says of it. */
static void check_run_config(const struct e2e *w, const char *run_dir, const char *label,
                             json_int_t trial, json_int_t cell, const char *sweep_id)
{
    char rel[256];
    snprintf(rel, sizeof(rel), "%s/run_config.json", run_dir);
    char *text = e2e_read_text(w, rel);
    cr_assert_null(strstr(text, "s3cr3t-key"), "the API key is redacted: %s", text);
    free(text);
    json_t *env = e2e_load_json(w, rel);
    snprintf(rel, sizeof(rel), "%s/profile_export_aiperf.json", run_dir);
    json_t *summary = e2e_load_json(w, rel);
    json_t *info = json_object_get(summary, "run_info");
    const char *keys[] = {"benchmark_id", "sweep_id",     "cfg",     "variation",
                          "trial",        "artifact_dir", "label",   "cli_command",
                          "random_seed",  "variables",    "resolved"};
    size_t k = 0;
    const char *key;
    json_t *value;
    json_object_foreach(env, key, value)
    {
        cr_assert(k < 11 && strcmp(key, keys[k]) == 0, "%s: key %zu is %s", run_dir, k, key);
        k++;
    }
    cr_assert_eq(k, 11);
    cr_assert(
        json_equal(json_object_get(env, "benchmark_id"), json_object_get(info, "benchmark_id")));
    cr_assert_str_eq(json_string_value(json_object_get(env, "sweep_id")), sweep_id);
    cr_assert(json_equal(json_object_get(env, "cfg"), json_object_get(summary, "input_config")),
              "cfg is the run's input_config");
    json_t *variation = json_object_get(env, "variation");
    cr_assert_eq(json_integer_value(json_object_get(variation, "index")), cell);
    cr_assert(
        json_equal(json_object_get(variation, "label"), json_object_get(info, "variation_label")));
    cr_assert(json_equal(json_object_get(variation, "values"),
                         json_object_get(info, "variation_values")));
    cr_assert_eq(json_integer_value(json_object_get(env, "trial")), trial);
    cr_assert_str_eq(json_string_value(json_object_get(env, "label")), label);
    char dir[512];
    snprintf(dir, sizeof(dir), "%s/%s", w->dir, run_dir);
    cr_assert_str_eq(json_string_value(json_object_get(env, "artifact_dir")), dir);
    cr_assert(
        json_equal(json_object_get(env, "random_seed"), json_object_get(info, "random_seed")));
    cr_assert_str_eq(
        json_string_value(json_object_get(json_object_get(env, "resolved"), "gpu_telemetry_mode")),
        "summary");
    json_decref(summary);
    json_decref(env);
}

Test(multirun, every_run_leaves_its_run_config, .timeout = 300)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_run_ok(&w, "profile -m m -u URL --concurrency 1,2 --num-profile-runs 2 "
                   "--request-count 3 --random-seed 9 --api-key s3cr3t-key --ui-type none "
                   "--artifact-dir DIR");
    json_t *first = e2e_load_json(&w, "profile_runs/trial_0001/concurrency_1/"
                                      "profile_export_aiperf.json");
    const char *sweep_id =
        json_string_value(json_object_get(json_object_get(first, "run_info"), "sweep_id"));
    cr_assert(sweep_id != NULL && strlen(sweep_id) == 36 && sweep_id[14] == '4',
              "a UUID4 shared by the session's runs");
    for (json_int_t trial = 0; trial < 2; trial++) {
        for (json_int_t cell = 0; cell < 2; cell++) {
            char dir[128];
            char label[32];
            snprintf(label, sizeof(label), "trial_%04lld", (long long)trial + 1);
            snprintf(dir, sizeof(dir), "profile_runs/%s/concurrency_%d", label, cell == 0 ? 1 : 2);
            check_run_config(&w, dir, label, trial, cell, sweep_id);
        }
    }
    cr_assert(!exists(&w, "run_config.json"), "only orchestrated run directories have one");
    json_decref(first);
    e2e_finish(&w);
}
