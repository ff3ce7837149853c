/*
 * fuzz_api_names - api_filename_is_safe against an independent statement of
 * its rule, and api_prometheus_render on arbitrary numbers.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api/api.h"

/* has_bad_component is the rule restated: no empty, "." or ".." component. */
static int has_bad_component(const uint8_t *d, size_t n)
{
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || d[i] == '/') {
            size_t len = i - start;
            if (len == 0 || (len == 1 && d[start] == '.') ||
                (len == 2 && d[start] == '.' && d[start + 1] == '.')) {
                return 1;
            }
            start = i + 1;
        }
    }
    return 0;
}

static void check_name(const uint8_t *data, size_t size)
{
    int safe = api_filename_is_safe((const char *)data, size);
    int bad = size == 0 || size > API_FILENAME_BYTES_MAX || has_bad_component(data, size);
    for (size_t i = 0; i < size && !bad; i++) {
        bad = data[i] < 0x20 || data[i] == 0x7f || data[i] == '\\';
    }
    if (safe == bad) {
        abort();
    }
}

static void check_render(const uint8_t *data, size_t size)
{
    struct api_snapshot *snap = calloc(1, sizeof(*snap));
    if (snap == NULL) {
        return;
    }
    snap->phase = "profiling";
    snap->state = size > 0 ? (enum api_state)(data[0] % 4) : API_STATE_RUNNING;
    double values[64] = {0};
    memcpy(values, data, size < sizeof(values) ? size : sizeof(values));
    snap->success = (uint64_t)size * 7;
    snap->errors = (uint64_t)size;
    snap->cancelled = (uint64_t)size / 2;
    snap->shard_count = size % (API_SHARDS_MAX + 8);
    snap->finished = size;
    snap->request_throughput = values[0];
    snap->output_token_throughput = values[1];
    for (int m = 0; m < API_METRIC_COUNT; m++) {
        snap->hist[m].sum = values[2 + m];
        snap->hist[m].count = (uint64_t)m * size;
        snap->hist[m].present = (size & 1) != 0;
        snap->hist[m].p50 = values[8 + m];
        snap->hist[m].std = values[16 + m];
    }
    size_t cap = size < 200000 ? size * 4 : 800000;
    char *buf = malloc(cap + 1);
    if (buf != NULL) {
        struct api_labels labels = {.benchmark_id = "b",
                                    .model = "m\"\\",
                                    .endpoint_type = "chat",
                                    .request_rate = values[3],
                                    .concurrency = (uint32_t)size,
                                    .version = "v"};
        long n = api_prometheus_render(snap, &labels, buf, cap);
        if (n >= 0 && (size_t)n != strlen(buf)) {
            abort();
        }
        free(buf);
    }
    free(snap);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_name(data, size);
    check_render(data, size);
    return 0;
}
