/*
 * test_nvml.c - end to end: `--gpu-telemetry pynvml` against the mock server. Where NVML cannot
 * be loaded (this machine has no GPU; RINGPERF_NVML_LIBRARY names a missing file to make sure)
 * the run warns once and goes on without GPU telemetry; with a stand-in library of fixed readings
 * (tests/scrape/fake_nvml.c) its figures reach telemetry_data, the CSV, the JSONL and the energy
 * metrics as a DCGM exporter's do.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/cli/e2e.h"

#define RUN_WORDS                                                                                  \
    "profile -m m -u URL --request-count 40 --concurrency 2 --streaming "                          \
    "--gpu-telemetry pynvml --ui none --artifact-dir DIR"

static double avg_of(json_t *metrics, const char *field)
{
    json_t *v = json_object_get(json_object_get(metrics, field), "avg");
    cr_assert(json_is_number(v), "%s has an avg", field);
    return json_number_value(v);
}

Test(nvml, absent_library_warns_once_and_the_run_goes_on, .timeout = 60)
{
    cr_assert_eq(setenv("RINGPERF_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1), 0);
    struct e2e w;
    e2e_start(&w, NULL);
    char *out = NULL;
    int rc = run_ringperf(&w, RUN_WORDS, true, &out);
    cr_assert_eq(rc, 0, "%s", out);
    const char *warning = "ringperf profile: GPU telemetry: pynvml://localhost: NVML: cannot load "
                          "/nonexistent/libnvidia-ml.so.1";
    const char *first = strstr(out, warning);
    cr_assert_not_null(first, "%s", out);
    cr_assert_null(strstr(first + 1, warning), "warned once: %s", out);
    cr_assert_not_null(strstr(first, "the run goes on without them"), "%s", out);
    free(out);
    json_t *summary = e2e_load_json(&w, "profile_export_aiperf.json");
    cr_assert_eq(
        json_number_value(json_object_get(json_object_get(summary, "request_count"), "avg")), 40.0);
    cr_assert_null(json_object_get(summary, "telemetry_data"));
    cr_assert_null(json_object_get(summary, "nvidia_total_gpu_energy"));
    json_decref(summary);
    char path[160];
    snprintf(path, sizeof(path), "%s/gpu_telemetry_export.jsonl", w.dir);
    cr_assert_neq(access(path, F_OK), 0, "no GPU telemetry file");
    e2e_finish(&w);
}

Test(nvml, stand_in_library_gives_its_fixed_readings, .timeout = 60)
{
    cr_assert_eq(setenv("RINGPERF_NVML_LIBRARY", FAKE_NVML_LIBRARY, 1), 0);
    struct e2e w;
    e2e_start(&w, NULL);
    char *out = NULL;
    int rc = run_ringperf(&w, RUN_WORDS, true, &out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_null(strstr(out, "NVML:"), "%s", out);
    cr_assert_not_null(strstr(out, "localhost | GPU 1 | Fake GPU B"), "%s", out);
    free(out);
    json_t *summary = e2e_load_json(&w, "profile_export_aiperf.json");
    json_t *td = json_object_get(summary, "telemetry_data");
    cr_assert_not_null(td);
    cr_assert_str_eq(
        json_string_value(json_array_get(
            json_object_get(json_object_get(td, "summary"), "endpoints_configured"), 0)),
        "pynvml://localhost");
    json_t *gpus =
        json_object_get(json_object_get(json_object_get(td, "endpoints"), "localhost"), "gpus");
    json_t *g0 = json_object_get(gpus, "gpu_0");
    json_t *g1 = json_object_get(gpus, "gpu_1");
    cr_assert_str_eq(json_string_value(json_object_get(g0, "gpu_uuid")), "GPU-fake-0");
    cr_assert_str_eq(json_string_value(json_object_get(g1, "gpu_name")), "Fake GPU B");
    json_t *m0 = json_object_get(g0, "metrics");
    json_t *m1 = json_object_get(g1, "metrics");
    cr_assert_eq(avg_of(m0, "nvidia_power_usage"), 300.0, "mW / 1000");
    cr_assert_eq(avg_of(m1, "nvidia_power_usage"), 100.0);
    cr_assert_eq(avg_of(m0, "nvidia_gpu_utilization"), 40.0);
    cr_assert_eq(avg_of(m0, "nvidia_memory_utilization"), 20.0);
    cr_assert_eq(avg_of(m1, "nvidia_memory_used"), 2.0, "bytes / 1e9");
    cr_assert_eq(avg_of(m0, "nvidia_temperature"), 65.0);
    /* Both counters are read in the same fetches: their deltas stand as their powers. */
    double e0 = avg_of(m0, "nvidia_energy_consumption");
    double e1 = avg_of(m1, "nvidia_energy_consumption");
    cr_assert_gt(e1, 0);
    cr_assert_float_eq(e0 / e1, 3.0, 0.01, "%g / %g", e0, e1);
    json_t *energy = json_object_get(summary, "nvidia_total_gpu_energy");
    cr_assert_float_eq(json_number_value(json_object_get(energy, "avg")), (e0 + e1) * 1e6,
                       1e-6 * (e0 + e1) * 1e6);
    json_decref(summary);
    char *csv = e2e_read_text(&w, "profile_export_aiperf.csv");
    cr_assert_not_null(strstr(csv, "\nlocalhost,0,Fake GPU A,GPU-fake-0,nvidia,NVIDIA GPU "
                                   "Temperature (°C),65.00,65.00,65.00,"),
                       "%s", csv);
    free(csv);
    char *jsonl = e2e_read_text(&w, "gpu_telemetry_export.jsonl");
    cr_assert_not_null(strstr(jsonl, "\"telemetry_source_url\":\"pynvml://localhost\""));
    free(jsonl);
    e2e_finish(&w);
}
