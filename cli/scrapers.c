/*
 * scrapers.c - wiring the run's scrapers (scrape/) to its targets, phases and exports.
 */
#include "cli/cli_scrapers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* AIPerf's collection interval (server metrics and GPU telemetry alike), and the most one
 * fetch may take. */
#define SCRAPE_INTERVAL_NS (333LL * 1000 * 1000)
#define SCRAPE_TIMEOUT_NS (5LL * 1000 * 1000 * 1000)

/* start_one starts a scraper of `count` endpoints into *out; what names it in a failure. */
static void start_one(const struct scrape_endpoint *endpoints, size_t count,
                      const struct http_header *headers, size_t header_count, struct scrape **out,
                      const char *what)
{
    bool quiet = true;
    for (size_t i = 0; i < count; i++) {
        quiet &= endpoints[i].optional;
    }
    struct scrape_config cfg = {
        .endpoints = endpoints,
        .endpoint_count = count,
        .headers = headers,
        .header_count = header_count,
        .interval_ns = SCRAPE_INTERVAL_NS,
        .timeout_ns = SCRAPE_TIMEOUT_NS,
        .quiet = quiet,
        /* Tests point this at a stand-in library; a machine with GPUs uses the driver's. */
        .nvml_library = getenv("RINGPERF_NVML_LIBRARY"),
    };
    char errbuf[512];
    if (scrape_start(&cfg, out, errbuf, sizeof(errbuf)) != 0) {
        fprintf(stderr, "ringperf profile: %s; the run goes on without %s\n", errbuf, what);
    }
}

void cli_scrapers_start(struct cli_scrapers *sc, const struct cli_targets *t,
                        const struct http_header *headers, size_t header_count)
{
    if (t->metrics_count > 0) {
        start_one(t->metrics, t->metrics_count, headers, header_count, &sc->metrics,
                  "server metrics");
    }
    if (t->gpu_count > 0) {
        start_one(t->gpus, t->gpu_count, NULL, 0, &sc->gpus, "GPU telemetry");
    }
}

void cli_scrapers_phase(struct cli_scrapers *sc, enum scrape_phase_kind phase)
{
    scrape_phase(sc->metrics, phase);
    scrape_phase(sc->gpus, phase);
}

void cli_scrapers_stop(struct cli_scrapers *sc)
{
    scrape_stop(sc->metrics);
    scrape_stop(sc->gpus);
}

static int write_metrics(const struct scrape *s, const struct export_run *exp,
                         const struct profile_config *cfg)
{
    char benchmark_id[32];
    export_benchmark_id(exp->request_id_nonce, benchmark_id, sizeof(benchmark_id));
    struct export_server_metrics in = {
        .scrape = s,
        .cfg = cfg,
        .artifact_dir = exp->paths.dir,
        .benchmark_id = benchmark_id,
        .slice_ns = (int64_t)(cfg->slice_duration_seconds * 1e9),
    };
    const char *failed = NULL;
    int ret = export_server_metrics_write(&exp->paths, &in, &failed);
    if (ret != 0) {
        fprintf(stderr, "ringperf profile: writing %s failed: %s\n", failed, strerror(-ret));
    }
    uint64_t left_out = export_server_metrics_slices_left_out(&in);
    if (ret == 0 && left_out > 0) {
        printf("Warning: the server metrics' timeslices and counter rate statistics cover the "
               "first %d windows of --slice-duration %g s; %llu more are left out. A longer "
               "--slice-duration covers the whole run.\n",
               EXPORT_SLICES_MAX, cfg->slice_duration_seconds, (unsigned long long)left_out);
    }
    return ret;
}

int cli_scrapers_write(const struct cli_scrapers *sc, const struct export_run *exp,
                       const struct profile_config *cfg)
{
    int ret = sc->metrics != NULL ? write_metrics(sc->metrics, exp, cfg) : 0;
    if (ret == 0 && sc->gpus != NULL && scrape_record_count(sc->gpus) > 0) {
        ret = export_gpu_telemetry_jsonl(exp->paths.gpu_telemetry_jsonl, sc->gpus);
        if (ret != 0) {
            fprintf(stderr, "ringperf profile: writing %s failed: %s\n",
                    exp->paths.gpu_telemetry_jsonl, strerror(-ret));
        }
    }
    return ret;
}

void cli_scrapers_free(struct cli_scrapers *sc)
{
    scrape_free(sc->metrics);
    scrape_free(sc->gpus);
    *sc = (struct cli_scrapers){0};
}
