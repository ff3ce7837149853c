/*
 * test_server_metrics.c - end to end: the scraper against the mock's vLLM-shaped /metrics
 * (scraped deltas equal what the client counted), against Debian's prometheus-node-exporter,
 * and against /metrics endpoints that misbehave on purpose (the benchmark runs unchanged and
 * the export says what happened).
 */
#include <criterion/criterion.h>

#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "prometheus/prometheus.h"
#include "scrape/scrape.h"
#include "tests/cli/e2e.h"

#define RUN_FLAGS "--ui none --artifact-dir DIR"

static double stat_of(json_t *family, const char *labels_key, const char *labels_value,
                      const char *stat)
{
    cr_assert_not_null(family, "family missing");
    json_t *series = json_object_get(family, "series");
    size_t i;
    json_t *s;
    json_array_foreach(series, i, s)
    {
        json_t *labels = json_object_get(s, "labels");
        const char *v = json_string_value(json_object_get(labels, labels_key));
        if (labels_value == NULL || (v != NULL && strcmp(v, labels_value) == 0)) {
            json_t *x = json_object_get(json_object_get(s, "stats"), stat);
            cr_assert_not_null(x, "stat %s missing", stat);
            return json_number_value(x);
        }
    }
    cr_assert_fail("no series with %s=%s", labels_key, labels_value ? labels_value : "*");
    return 0;
}

static double summary_avg(json_t *summary, const char *tag)
{
    json_t *m = json_object_get(summary, tag);
    cr_assert_not_null(m, "%s missing from the summary", tag);
    return json_number_value(json_object_get(m, "avg"));
}

Test(server_metrics, vllm_counters_equal_what_the_client_counted, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, (char *const[]){"--ttft-ms", "2", "--itl-ms", "1", NULL});
    char *out = NULL;
    int rc =
        run_ringperf(&w,
                     "profile -m m -u URL --request-count 40 --concurrency 4 --streaming "
                     "--warmup-request-count 6 --server-metrics-formats json,csv,jsonl " RUN_FLAGS,
                     true, &out);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    json_t *summary = e2e_load_json(&w, "profile_export_aiperf.json");
    json_t *sm = e2e_load_json(&w, "server_metrics_export.json");
    cr_assert_str_eq(json_string_value(json_object_get(sm, "schema_version")), "1.1");
    cr_assert_str_eq(json_string_value(json_object_get(sm, "metrics_phase")), "profiling");
    json_t *metrics = json_object_get(sm, "metrics");
    /* Counters over the profiling window: exactly the profiling requests, warmup apart. */
    cr_assert_eq(stat_of(json_object_get(metrics, "vllm:prompt_tokens"), NULL, NULL, "total"),
                 summary_avg(summary, "total_usage_prompt_tokens"));
    cr_assert_eq(stat_of(json_object_get(metrics, "vllm:generation_tokens"), NULL, NULL, "total"),
                 summary_avg(summary, "total_usage_completion_tokens"));
    cr_assert_eq(stat_of(json_object_get(metrics, "vllm:request_success"), "finished_reason",
                         "stop", "total"),
                 summary_avg(summary, "request_count"));
    json_t *ttft = json_object_get(metrics, "vllm:time_to_first_token_seconds");
    cr_assert_str_eq(json_string_value(json_object_get(ttft, "type")), "histogram");
    cr_assert_eq(stat_of(ttft, NULL, NULL, "count"), 40);
    cr_assert_gt(stat_of(ttft, NULL, NULL, "p50_estimate"), 0.001);
    json_t *e2e_hist = json_object_get(metrics, "vllm:e2e_request_latency_seconds");
    json_t *buckets =
        json_object_get(json_array_get(json_object_get(e2e_hist, "series"), 0), "buckets");
    cr_assert_eq(json_integer_value(json_object_get(buckets, "+Inf")), 40);
    cr_assert_str_eq(json_string_value(json_object_get(
                         json_object_get(metrics, "vllm:num_requests_running"), "type")),
                     "gauge");
    /* The warmup's own window holds the warmup's requests. */
    json_t *warm = json_object_get(json_object_get(sm, "warmup_metrics"), "vllm:request_success");
    cr_assert_eq(stat_of(warm, "finished_reason", "stop", "total"), 6);
    json_t *info = json_object_get(json_object_get(sm, "summary"), "endpoint_info");
    json_t *ep = json_object_get(
        info, json_string_value(json_array_get(
                  json_object_get(json_object_get(sm, "summary"), "endpoints_successful"), 0)));
    cr_assert_geq(json_integer_value(json_object_get(ep, "total_fetches")), 3);
    cr_assert_eq(json_integer_value(json_object_get(ep, "failed_fetches")), 0);
    char *jsonl = e2e_read_text(&w, "server_metrics_export.jsonl");
    cr_assert_not_null(strstr(jsonl, "\"vllm:prompt_tokens\":[{\"labels\":{\"model_name\":"));
    cr_assert_not_null(strstr(jsonl, "\"benchmark_phase\":\"profiling\""));
    free(jsonl);
    char *csv = e2e_read_text(&w, "server_metrics_export.csv");
    cr_assert_not_null(strstr(csv, "Endpoint,Type,Metric,Unit,model_name,finished_reason,total,"));
    cr_assert_not_null(strstr(csv, ",counter,vllm:prompt_tokens,tokens,mock,"));
    free(csv);
    json_decref(summary);
    json_decref(sm);
    e2e_finish(&w);
}

Test(server_metrics, no_server_metrics_writes_nothing, .timeout = 60)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char *out = NULL;
    int rc = run_ringperf(
        &w, "profile -m m -u URL --request-count 5 --no-server-metrics " RUN_FLAGS, true, &out);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    char path[128];
    snprintf(path, sizeof(path), "%s/server_metrics_export.json", w.dir);
    cr_assert_neq(access(path, F_OK), 0, "--no-server-metrics still wrote %s", path);
    e2e_finish(&w);
}

/* free_port returns a loopback port nobody listens on now. */
static int free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    cr_assert_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    cr_assert_eq(getsockname(fd, (struct sockaddr *)&a, &len), 0);
    close(fd);
    return ntohs(a.sin_port);
}

/* read_line_with reads the child's output until a line containing marker. */
static void read_line_with(struct child *c, const char *marker, char *line, size_t cap)
{
    while (fgets(line, (int)cap, c->out) != NULL) {
        if (strstr(line, marker) != NULL) {
            return;
        }
    }
    cr_assert_fail("the process ended before saying '%s'", marker);
}

static void stop_child(struct child *c)
{
    kill(c->pid, SIGTERM);
    wait_child(c);
}

Test(server_metrics, node_exporter_counters_and_gauges, .timeout = 120)
{
    const char *bin = "/usr/bin/prometheus-node-exporter";
    if (access(bin, X_OK) != 0) {
        cr_skip_test("%s is not installed (apt-get install prometheus-node-exporter)", bin);
    }
    char listen[64];
    int port = free_port();
    snprintf(listen, sizeof(listen), "--web.listen-address=127.0.0.1:%d", port);
    struct child ne =
        spawn_child_env((char *const[]){(char *)bin, listen, NULL}, NULL, CHILD_STDERR);
    char line[1024];
    read_line_with(&ne, "Listening on", line, sizeof(line));
    struct e2e w;
    e2e_start(&w, NULL);
    char words[512];
    snprintf(words, sizeof(words),
             "profile -m m -u URL --request-count 10 --server-metrics 127.0.0.1:%d " RUN_FLAGS,
             port);
    char *out = NULL;
    int rc = run_ringperf(&w, words, true, &out);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    json_t *sm = e2e_load_json(&w, "server_metrics_export.json");
    json_t *metrics = json_object_get(sm, "metrics");
    json_t *cpu = json_object_get(metrics, "node_cpu_seconds");
    cr_assert_not_null(cpu, "node_cpu_seconds_total is a counter named without _total");
    cr_assert_str_eq(json_string_value(json_object_get(cpu, "type")), "counter");
    cr_assert_str_eq(json_string_value(json_object_get(cpu, "unit")), "seconds");
    cr_assert_geq(stat_of(cpu, "mode", "idle", "total"), 0);
    json_t *load = json_object_get(metrics, "node_load1");
    cr_assert_str_eq(json_string_value(json_object_get(load, "type")), "gauge");
    cr_assert_geq(stat_of(load, NULL, NULL, "max"), stat_of(load, NULL, NULL, "min"));
    /* The gauge and the counter Go exposes under one name stay apart. */
    json_t *alloc = json_object_get(metrics, "go_memstats_alloc_bytes");
    cr_assert_str_eq(json_string_value(json_object_get(alloc, "type")), "gauge");
    json_t *alloc_total = json_object_get(metrics, "go_memstats_alloc_bytes_total");
    cr_assert_str_eq(json_string_value(json_object_get(alloc_total, "type")), "counter");
    char url[64];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", port);
    json_t *ep =
        json_object_get(json_object_get(json_object_get(sm, "summary"), "endpoint_info"), url);
    cr_assert_geq(json_integer_value(json_object_get(ep, "total_fetches")), 3);
    json_decref(sm);
    e2e_finish(&w);
    stop_child(&ne);
}

/* hostile runs a benchmark against the mock with a misbehaving --server-metrics endpoint and
 * returns the export's endpoint_info for it. */
static json_t *hostile(struct e2e *w, const char *mode, json_t **out_root)
{
    char port_line[64] = "";
    struct child h = {0};
    int port;
    if (strcmp(mode, "refused") == 0) {
        port = free_port();
    } else {
        h = spawn_child_env((char *const[]){"/usr/bin/python3",
                                            RINGPERF_SOURCE_DIR "/tests/cli/hostile_metrics.py",
                                            (char *)mode, NULL},
                            NULL, CHILD_STDOUT);
        read_line_with(&h, "port ", port_line, sizeof(port_line));
        port = (int)strtol(port_line + 5, NULL, 10);
    }
    char words[512];
    snprintf(words, sizeof(words),
             "profile -m m -u URL --request-count 12 --concurrency 2 --server-metrics "
             "127.0.0.1:%d " RUN_FLAGS,
             port);
    char *out = NULL;
    int rc = run_ringperf(w, words, true, &out);
    cr_assert_eq(rc, 0, "%s: %s", mode, out);
    free(out);
    size_t errors = 0;
    cr_assert_eq(count_export_lines(w, &errors), 12, "%s: the benchmark ran unchanged", mode);
    cr_assert_eq(errors, 0);
    if (h.pid > 0) {
        stop_child(&h);
    }
    *out_root = e2e_load_json(w, "server_metrics_export.json");
    char url[64];
    snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", port);
    json_t *info = json_object_get(json_object_get(*out_root, "summary"), "endpoint_info");
    json_t *ep = json_object_get(info, url);
    cr_assert_not_null(ep, "%s: no endpoint_info for %s", mode, url);
    /* The mock's own /metrics was scraped all along. */
    cr_assert_not_null(
        json_object_get(json_object_get(*out_root, "metrics"), "vllm:prompt_tokens"));
    return ep;
}

static void expect_error(const char *mode, const char *words)
{
    struct e2e w;
    e2e_start(&w, NULL);
    json_t *root;
    json_t *ep = hostile(&w, mode, &root);
    const char *err = json_string_value(json_object_get(ep, "last_error"));
    cr_assert_not_null(err, "%s: no last_error", mode);
    cr_assert_not_null(strstr(err, words), "%s: last_error '%s' lacks '%s'", mode, err, words);
    cr_assert_eq(json_integer_value(json_object_get(ep, "total_fetches")), 0);
    cr_assert_geq(json_integer_value(json_object_get(ep, "failed_fetches")), 3);
    json_decref(root);
    e2e_finish(&w);
}

Test(server_metrics, hostile_garbage, .timeout = 120)
{
    expect_error("garbage", "exposition: control byte");
}

Test(server_metrics, hostile_ten_megabytes, .timeout = 120)
{
    expect_error("huge", "larger than");
}

Test(server_metrics, hostile_cut_mid_line, .timeout = 120)
{
    expect_error("cut", "cut off mid-line");
}

Test(server_metrics, hostile_refused, .timeout = 120)
{
    expect_error("refused", "Connection refused");
}

Test(server_metrics, hostile_json_turns_collection_off, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    json_t *root;
    json_t *ep = hostile(&w, "json", &root);
    const char *why = json_string_value(json_object_get(ep, "disabled_reason"));
    cr_assert_not_null(why);
    cr_assert_not_null(strstr(why, "JSON"));
    /* Turned off at the first answer: never asked again. */
    cr_assert_eq(json_integer_value(json_object_get(ep, "failed_fetches")), 1);
    json_decref(root);
    e2e_finish(&w);
}

Test(server_metrics, hostile_slow_is_waited_for, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    json_t *root;
    json_t *ep = hostile(&w, "slow", &root);
    cr_assert_geq(json_integer_value(json_object_get(ep, "total_fetches")), 3);
    cr_assert_geq(json_number_value(json_object_get(ep, "avg_fetch_latency_ms")), 1000.0);
    json_t *up = json_object_get(json_object_get(root, "metrics"), "hostile_up");
    cr_assert_eq(stat_of(up, NULL, NULL, "avg"), 1);
    json_decref(root);
    e2e_finish(&w);
}

static double num_at(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    cr_assert(json_is_number(v), "%s is a number", key);
    return json_number_value(v);
}

/* check_slices: a series' timeslices are slices of the profiling window [start, end] on the grid
 * of slice_ns from its start, in order, the last one partial and marked so; a slice in which the
 * scraper fetched nothing (a slow machine, a fetch slower than a slice) has no entry. Returns
 * them. */
static json_t *check_slices(json_t *series, int64_t start, int64_t end, int64_t slice_ns)
{
    json_t *slices = json_object_get(series, "timeslices");
    size_t n = json_array_size(slices);
    size_t grid = (size_t)((end - start + slice_ns - 1) / slice_ns);
    cr_assert(n >= 2 && n <= grid, "%zu slices of at most %zu", n, grid);
    int64_t previous = -1;
    for (size_t i = 0; i < n; i++) {
        json_t *e = json_array_get(slices, i);
        int64_t s0 = json_integer_value(json_object_get(e, "start_ns"));
        int64_t s1 = json_integer_value(json_object_get(e, "end_ns"));
        cr_assert_eq((s0 - start) % slice_ns, 0, "on the grid");
        int64_t k = (s0 - start) / slice_ns;
        cr_assert(k > previous && (size_t)k < grid, "in order, inside the window");
        previous = k;
        cr_assert_eq(s1, s0 + slice_ns < end ? s0 + slice_ns : end);
        json_t *complete = json_object_get(e, "is_complete");
        cr_assert(s1 - s0 == slice_ns ? complete == NULL : json_is_false(complete),
                  "is_complete only on a partial slice, false");
    }
    return slices;
}

static double sum_of(json_t *slices, const char *key)
{
    double sum = 0;
    size_t i;
    json_t *e;
    json_array_foreach(slices, i, e)
    {
        sum += json_number_value(json_object_get(e, key));
    }
    return sum;
}

/* With --slice-duration every series has AIPerf's timeslices (spec §6.2): slices of the
 * profiling window whose counter totals and histogram counts add up to the window's. */
Test(server_metrics, timeslices_partition_the_profiling_window, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, (char *const[]){"--ttft-ms", "2", "--itl-ms", "1", NULL});
    char *out = NULL;
    int rc = run_ringperf(&w,
                          "profile -m m -u URL --streaming --concurrency 2 --benchmark-duration 2 "
                          "--slice-duration 0.4 " RUN_FLAGS,
                          true, &out);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    json_t *sm = e2e_load_json(&w, "server_metrics_export.json");
    json_t *range = json_object_get(
        json_object_get(json_object_get(sm, "summary"), "phase_time_ranges"), "profiling");
    int64_t start = json_integer_value(json_object_get(range, "start_ns"));
    int64_t end = json_integer_value(json_object_get(range, "end_ns"));
    int64_t slice = 400 * 1000 * 1000;
    json_t *metrics = json_object_get(sm, "metrics");
    json_t *prompt = json_array_get(
        json_object_get(json_object_get(metrics, "vllm:prompt_tokens"), "series"), 0);
    json_t *slices = check_slices(prompt, start, end, slice);
    double total = json_number_value(json_object_get(json_object_get(prompt, "stats"), "total"));
    cr_assert_gt(total, 0);
    cr_assert_float_eq(sum_of(slices, "total"), total, 1e-9 * total, "the slices add up");
    json_t *e2e_hist = json_array_get(
        json_object_get(json_object_get(metrics, "vllm:e2e_request_latency_seconds"), "series"), 0);
    slices = check_slices(e2e_hist, start, end, slice);
    cr_assert_eq(sum_of(slices, "count"),
                 json_number_value(json_object_get(json_object_get(e2e_hist, "stats"), "count")));
    cr_assert_not_null(json_object_get(json_array_get(slices, 0), "buckets"));
    json_t *running = json_array_get(
        json_object_get(json_object_get(metrics, "vllm:num_requests_running"), "series"), 0);
    size_t i;
    json_t *e;
    json_array_foreach(json_object_get(running, "timeslices"), i, e)
    {
        double avg = json_number_value(json_object_get(e, "avg"));
        cr_assert(json_number_value(json_object_get(e, "min")) <= avg &&
                  avg <= json_number_value(json_object_get(e, "max")));
    }
    cr_assert_gt(i, 2, "a gauge's slices, where it was sampled");
    json_decref(sm);
    e2e_finish(&w);
}

/* check_console_tables: AIPerf's "GPU Telemetry Summary", its source line and one table per GPU
 * with the mock's constant power in every statistic. */
static void check_console_tables(const char *out, const char *url)
{
    /* AIPerf's platform panel, then its power-efficiency table (avg alone), then the GPUs. */
    const char *platform = strstr(out, " GPU Telemetry Platform ");
    cr_assert_not_null(platform, "%s", out);
    cr_assert_not_null(strstr(platform, "│  Platform: nvidia "), "%s", out);
    cr_assert_not_null(strstr(platform, "│  Metric semantics are platform-specific; cross-platform "
                                        "comparisons require workload and collector validation."),
                       "%s", out);
    const char *eff = strstr(platform, "GPU Power Efficiency (NVIDIA)\n");
    cr_assert_not_null(eff, "%s", out);
    const char *eff_end = strstr(eff, "└");
    cr_assert_not_null(eff_end);
    cr_assert_not_null(strstr(eff, " Metric ┃    avg ┃\n"), "%s", out);
    const char *p99 = strstr(eff, "p99");
    cr_assert(p99 == NULL || p99 > eff_end, "avg is the only column\n%s", out);
    const char *power = strstr(eff, " Total GPU Power (W) │");
    cr_assert(power != NULL && power < eff_end, "%s", out);
    cr_assert_not_null(strstr(power, " 400.00 │\n"), "%s", out);
    const char *energy = strstr(eff, " Total GPU Energy (J) │");
    cr_assert(energy != NULL && energy < eff_end, "%s", out);
    const char *tpj = strstr(eff, " Output Tokens per Joule (tokens/J) │");
    cr_assert(tpj != NULL && tpj < eff_end && energy < power && power < tpj,
              "AIPerf's display order\n%s", out);
    const char *head =
        strstr(eff_end, "ringperf | GPU Telemetry Summary\n1/1 telemetry sources reachable\n");
    cr_assert_not_null(head, "%s", out);
    char line[256];
    snprintf(line, sizeof(line), "\xe2\x80\xa2 http://%s/dcgm/metrics \xe2\x9c\x94\n", url);
    cr_assert_not_null(strstr(head, line), "%s", out);
    snprintf(line, sizeof(line), "%s/dcgm | GPU 1 | Mock GPU", url);
    const char *gpu1 = strstr(head, line);
    cr_assert_not_null(gpu1, "%s", out);
    const char *row = strstr(gpu1, "NVIDIA GPU Power Usage (W)");
    cr_assert_not_null(row, "%s", out);
    cr_assert_not_null(strstr(row, "150.00 │ 150.00 │ 150.00 │ 150.00 │ 150.00 │ 150.00 │ 0.00 │"),
                       "%s", out);
    row = strstr(gpu1, "NVIDIA Energy Consumption (MJ)");
    cr_assert_not_null(row, "%s", out);
    cr_assert_not_null(strstr(row, "│    N/A │    N/A │    N/A │    N/A │    N/A │  N/A │"),
                       "a counter: its delta alone\n%s", out);
}

/* check_csv_section: the CSV's telemetry section after two blank rows, the Hostname column last. */
static void check_csv_section(struct e2e *w)
{
    char *csv = e2e_read_text(w, "profile_export_aiperf.csv");
    const char *head = strstr(csv, "\n\n\nEndpoint,GPU_Index,GPU_Name,GPU_UUID,Platform,Metric,avg,"
                                   "min,max,sum,p1,p5,p10,p25,p50,p75,p90,p95,p99,std,Hostname\n");
    cr_assert_not_null(head, "%s", csv);
    char row[256];
    snprintf(row, sizeof(row),
             "\n%s/dcgm,0,Mock GPU,GPU-mock-0,nvidia,NVIDIA GPU Power Usage (W),250.00,250.00,"
             "250.00,",
             w->url);
    const char *power = strstr(head, row);
    cr_assert_not_null(power, "%s", csv);
    cr_assert_not_null(strstr(power, ",250.00,250.00,250.00,250.00,250.00,250.00,250.00,250.00,"
                                     "250.00,0.00,mock\n"),
                       "%s", csv);
    snprintf(row, sizeof(row),
             "\n%s/dcgm,1,Mock GPU,GPU-mock-1,nvidia,NVIDIA Energy Consumption (MJ),", w->url);
    const char *energy = strstr(head, row);
    cr_assert_not_null(energy, "%s", csv);
    cr_assert_not_null(strstr(energy, ",,,,,,,,,,,,,,mock\n"), "a counter's row: avg alone");
    free(csv);
}

/* The mock's /dcgm/metrics: two GPUs at a constant 250 W and 150 W, whose energy counters grow
 * by exactly watts x 1000 mJ per second. */
Test(gpu_telemetry, dcgm_energy_follows_the_known_power_curve, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, (char *const[]){"--ttft-ms", "2", "--itl-ms", "2", NULL});
    char words[512];
    snprintf(words, sizeof(words),
             "profile -m m -u URL --request-count 60 --concurrency 2 --streaming "
             "--gpu-telemetry %s/dcgm " RUN_FLAGS,
             w.url);
    char *out = NULL;
    int rc = run_ringperf(&w, words, true, &out);
    cr_assert_eq(rc, 0, "%s", out);
    check_console_tables(out, w.url);
    free(out);
    check_csv_section(&w);
    json_t *summary = e2e_load_json(&w, "profile_export_aiperf.json");
    json_t *td = json_object_get(summary, "telemetry_data");
    cr_assert_not_null(td, "telemetry_data is in the summary");
    char display[160];
    snprintf(display, sizeof(display), "%s/dcgm", w.url); /* w.url has no scheme */
    json_t *gpus =
        json_object_get(json_object_get(json_object_get(td, "endpoints"), display), "gpus");
    json_t *m0 = json_object_get(json_object_get(gpus, "gpu_0"), "metrics");
    json_t *m1 = json_object_get(json_object_get(gpus, "gpu_1"), "metrics");
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(gpus, "gpu_0"), "gpu_uuid")),
                     "GPU-mock-0");
    cr_assert_eq(num_at(json_object_get(m0, "nvidia_power_usage"), "avg"), 250);
    cr_assert_eq(num_at(json_object_get(m1, "nvidia_power_usage"), "avg"), 150);
    cr_assert_float_eq(num_at(json_object_get(m0, "nvidia_memory_used"), "avg"), 2.147483648, 1e-12,
                       "2048 MiB in decimal GB");
    cr_assert_eq(num_at(json_object_get(m0, "nvidia_sm_utilization"), "avg"), 50, "ratio x 100");
    double e0 = num_at(json_object_get(m0, "nvidia_energy_consumption"), "avg");
    double e1 = num_at(json_object_get(m1, "nvidia_energy_consumption"), "avg");
    cr_assert_str_eq(json_string_value(
                         json_object_get(json_object_get(m0, "nvidia_energy_consumption"), "unit")),
                     "MJ");
    /* Both counters are read in the same fetches: their deltas stand as their powers. */
    cr_assert_float_eq(e0 / e1, 250.0 / 150.0, 1e-6);
    double energy_j = num_at(json_object_get(summary, "nvidia_total_gpu_energy"), "avg");
    cr_assert_float_eq(energy_j, (e0 + e1) * 1e6, 1e-6 * energy_j);
    /* 400 W over the profiling window, which holds the benchmark and its boundary fetches. */
    double duration = num_at(json_object_get(summary, "benchmark_duration"), "avg");
    cr_assert_geq(energy_j / 400.0, duration * 0.95, "%f J over %f s", energy_j, duration);
    cr_assert_leq(energy_j / 400.0, duration + 1.0, "%f J over %f s", energy_j, duration);
    double tokens = num_at(json_object_get(summary, "total_output_tokens"), "avg");
    cr_assert_float_eq(num_at(json_object_get(summary, "nvidia_output_tokens_per_joule"), "avg"),
                       tokens / energy_j, 1e-9);
    cr_assert_float_eq(num_at(json_object_get(summary, "nvidia_energy_per_request"), "avg"),
                       energy_j / 60, 1e-9);
    cr_assert_eq(num_at(json_object_get(summary, "nvidia_total_gpu_power"), "avg"), 400);
    /* AIPerf's average power is the energy over the window: the counters grow at 400 W. */
    double average = num_at(json_object_get(summary, "nvidia_average_gpu_power"), "avg");
    cr_assert(average > 380 && average < 420, "%f W", average);
    cr_assert_float_eq(num_at(json_object_get(summary, "nvidia_performance_per_watt"), "avg"),
                       num_at(json_object_get(summary, "request_throughput"), "avg") / average,
                       1e-9);
    cr_assert_float_eq(num_at(json_object_get(summary, "nvidia_energy_per_user"), "avg"),
                       energy_j / 2, 1e-9, "the energy per --concurrency user");
    double latency_ms = num_at(json_object_get(summary, "request_latency"), "avg");
    cr_assert_float_eq(num_at(json_object_get(summary, "nvidia_energy_delay_product"), "avg"),
                       energy_j / 60 * latency_ms / 1e3, 1e-9,
                       "energy per request x mean latency in seconds");
    char *jsonl = e2e_read_text(&w, "gpu_telemetry_export.jsonl");
    cr_assert_not_null(
        strstr(jsonl, "\"gpu_uuid\":\"GPU-mock-1\",\"gpu_model_name\":\"Mock GPU\""));
    cr_assert_not_null(strstr(jsonl, "\"telemetry_data\":{\"nvidia_power_usage\":150.0,"));
    free(jsonl);
    json_decref(summary);
    e2e_finish(&w);
}

/* Without --gpu-telemetry the default exporters (localhost:9400, :9401) are probed quietly:
 * nothing answers here, and nothing is said or written. */
/* listening reports whether something accepts connections on loopback port `port`. */
static bool listening(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    bool up = connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
    close(fd);
    return up;
}

Test(gpu_telemetry, default_exporters_are_probed_quietly, .timeout = 60)
{
    if (listening(9400) || listening(9401)) {
        cr_skip_test("something (a DCGM exporter?) listens on localhost:9400 or :9401 here");
    }
    struct e2e w;
    e2e_start(&w, NULL);
    char *out = NULL;
    int rc = run_ringperf(&w, "profile -m m -u URL --request-count 5 " RUN_FLAGS, true, &out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_null(strstr(out, "9400"), "%s", out);
    free(out);
    json_t *summary = e2e_load_json(&w, "profile_export_aiperf.json");
    cr_assert_null(json_object_get(summary, "telemetry_data"));
    cr_assert_null(json_object_get(summary, "nvidia_total_gpu_energy"));
    json_decref(summary);
    char path[128];
    snprintf(path, sizeof(path), "%s/gpu_telemetry_export.jsonl", w.dir);
    cr_assert_neq(access(path, F_OK), 0);
    e2e_finish(&w);
}

/* A parsed sample as one comparable line: family, type, name, sorted labels, value. */
struct lines {
    char **items;
    size_t count, cap;
};

static void add_line(struct lines *l, const char *text)
{
    if (l->count == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 256;
        l->items = realloc(l->items, l->cap * sizeof(*l->items));
        cr_assert_not_null(l->items);
    }
    l->items[l->count++] = strdup(text);
}

static int cmp_label(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void sample_line(const struct prom_sample *s, char *out, size_t cap)
{
    char labels[PROM_LABELS_MAX][512];
    char *sorted[PROM_LABELS_MAX];
    size_t n = 0;
    size_t cursor = 0;
    struct prom_label l;
    while (n < PROM_LABELS_MAX && prom_labels_next(s->labels, s->labels_len, &cursor, &l)) {
        char value[400];
        size_t len = prom_unescape(l.value, l.value_len, value, sizeof(value) - 1);
        snprintf(labels[n], sizeof(labels[n]), "%.*s=%.*s", (int)l.name_len, l.name, (int)len,
                 value);
        sorted[n] = labels[n];
        n++;
    }
    qsort(sorted, n, sizeof(*sorted), cmp_label);
    /* prometheus_client names a counter's bare sample name_total (DCGM exposes them bare); the
     * family and the value are what matter. */
    bool bare_counter = s->type == PROM_COUNTER && s->suffix == PROM_SUFFIX_NONE;
    size_t at = (size_t)snprintf(out, cap, "%.*s\t%s\t%.*s%s\t", (int)s->family_len, s->family,
                                 prom_type_name(s->type), (int)s->name_len, s->name,
                                 bare_counter ? "_total" : "");
    for (size_t i = 0; i < n && at < cap; i++) {
        at += (size_t)snprintf(out + at, cap - at, "%s%s", i ? "," : "", sorted[i]);
    }
    snprintf(out + at, at < cap ? cap - at : 0, "\t%.17g", s->value);
}

static void parse_ours(const char *body, struct lines *out)
{
    static char line_buf[SCRAPE_LINE_BYTES_MAX];
    struct prom_parser p;
    prom_parser_init(&p, line_buf, sizeof(line_buf));
    size_t len = strlen(body);
    size_t off = 0;
    for (;;) {
        size_t used = 0;
        struct prom_line line;
        enum prom_status st = prom_parser_feed(&p, body + off, len - off, &used, &line);
        off += used;
        if (st == PROM_NEED_MORE) {
            break;
        }
        cr_assert_lt(st, PROM_ERR_FIRST, "our parser refused it: %s", prom_status_name(st));
        if (st == PROM_SAMPLE) {
            char text[4096];
            sample_line(&line.sample, text, sizeof(text));
            add_line(out, text);
        }
    }
    cr_assert_eq(prom_parser_finish(&p), PROM_END);
}

/* parse_reference reads reference_parse.py's lines, their values reprinted as ours are. */
static void parse_reference(char *text, struct lines *out)
{
    char *cursor = text;
    for (char *line = test_next_line(&cursor); line != NULL; line = test_next_line(&cursor)) {
        char *tab = strrchr(line, '\t');
        cr_assert_not_null(tab);
        *tab = '\0';
        char buf[4096];
        snprintf(buf, sizeof(buf), "%s\t%.17g", line, strtod(tab + 1, NULL));
        add_line(out, buf);
    }
}

/* same_as_prometheus_client parses url's exposition with prometheus_client (the parser AIPerf
 * uses) and with ours, and requires the same samples, family names and types included. */
static void same_as_prometheus_client(const struct e2e *w, const char *url)
{
    char body[160];
    char parsed[160];
    snprintf(body, sizeof(body), "%s/reference_body.txt", w->dir);
    snprintf(parsed, sizeof(parsed), "%s/reference_parsed.txt", w->dir);
    struct child py = spawn_child_env(
        (char *const[]){"/usr/bin/python3", RINGPERF_SOURCE_DIR "/tests/cli/reference_parse.py",
                        (char *)url, body, parsed, NULL},
        NULL, CHILD_STDERR);
    char err[4096];
    size_t n = fread(err, 1, sizeof(err) - 1, py.out);
    err[n] = '\0';
    cr_assert_eq(wait_child(&py), 0, "reference_parse.py %s: %s", url, err);
    struct lines ours = {0};
    struct lines theirs = {0};
    char *text = test_read_path(body);
    parse_ours(text, &ours);
    free(text);
    text = test_read_path(parsed);
    parse_reference(text, &theirs);
    free(text);
    qsort(ours.items, ours.count, sizeof(char *), cmp_label);
    qsort(theirs.items, theirs.count, sizeof(char *), cmp_label);
    cr_assert_gt(theirs.count, 0);
    for (size_t i = 0; i < ours.count && i < theirs.count; i++) {
        cr_assert_str_eq(ours.items[i], theirs.items[i], "%s: sample %zu differs", url, i);
    }
    cr_assert_eq(ours.count, theirs.count, "%s: as many samples", url);
    for (size_t i = 0; i < ours.count; i++) {
        free(ours.items[i]);
    }
    for (size_t i = 0; i < theirs.count; i++) {
        free(theirs.items[i]);
    }
    free(ours.items);
    free(theirs.items);
}

static bool have_prometheus_client(void)
{
    struct child py =
        spawn_child_env((char *const[]){"/usr/bin/python3", "-c", "import prometheus_client", NULL},
                        NULL, CHILD_STDERR);
    return wait_child(&py) == 0;
}

Test(server_metrics, parser_agrees_with_prometheus_client, .timeout = 120)
{
    if (access("/usr/bin/python3", X_OK) != 0 || !have_prometheus_client()) {
        cr_skip_test("python3-prometheus-client is not installed (apt-get install "
                     "python3-prometheus-client)");
    }
    struct e2e w;
    e2e_start(&w, NULL);
    char *out = NULL;
    int rc = run_ringperf(&w, "profile -m m -u URL --request-count 5 " RUN_FLAGS, true, &out);
    cr_assert_eq(rc, 0, "%s", out);
    free(out);
    char url[160];
    snprintf(url, sizeof(url), "http://%s/metrics", w.url);
    same_as_prometheus_client(&w, url);
    snprintf(url, sizeof(url), "http://%s/dcgm/metrics", w.url);
    same_as_prometheus_client(&w, url);
    const char *bin = "/usr/bin/prometheus-node-exporter";
    if (access(bin, X_OK) == 0) {
        char listen[64];
        int port = free_port();
        snprintf(listen, sizeof(listen), "--web.listen-address=127.0.0.1:%d", port);
        struct child ne =
            spawn_child_env((char *const[]){(char *)bin, listen, NULL}, NULL, CHILD_STDERR);
        char line[1024];
        read_line_with(&ne, "Listening on", line, sizeof(line));
        snprintf(url, sizeof(url), "http://127.0.0.1:%d/metrics", port);
        same_as_prometheus_client(&w, url);
        stop_child(&ne);
    }
    e2e_finish(&w);
}
