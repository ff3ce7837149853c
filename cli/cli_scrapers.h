/*
 * cli_scrapers.h - a profile run's two scrapers (internal to cli/): the servers' Prometheus
 * /metrics and the DCGM exporters' GPU telemetry, started before the warmup, told the phase
 * boundaries, stopped after the last response, and their files written at the end.
 */
#ifndef RINGPERF_CLI_SCRAPERS_H
#define RINGPERF_CLI_SCRAPERS_H

#include "cli/cli_targets.h"
#include "config/config.h"
#include "export/export.h"
#include "scrape/scrape.h"

/* cli_scrapers holds the run's scrapers; NULL where off or not started. Zero-initialised. */
struct cli_scrapers {
    struct scrape *metrics;
    struct scrape *gpus;
};

/* cli_scrapers_start starts a scraper for t's metrics endpoints (with the run's -H headers,
 * borrowed) and one for its DCGM exporters. A scraper that cannot start is said on stderr and
 * left out: neither ever refuses the run. */
void cli_scrapers_start(struct cli_scrapers *sc, const struct cli_targets *t,
                        const struct http_header *headers, size_t header_count);

/* cli_scrapers_phase marks the start of a phase for both (between engine runs only). */
void cli_scrapers_phase(struct cli_scrapers *sc, enum scrape_phase_kind phase);

/* cli_scrapers_stop ends both after the last response. Idempotent. */
void cli_scrapers_stop(struct cli_scrapers *sc);

/* cli_scrapers_write writes server_metrics_export.* and gpu_telemetry_export.jsonl into the
 * run's directory. Returns 0, or -errno after saying which file failed. */
int cli_scrapers_write(const struct cli_scrapers *sc, const struct export_run *exp,
                       const struct profile_config *cfg);

/* cli_scrapers_free stops and frees both. */
void cli_scrapers_free(struct cli_scrapers *sc);

#endif
