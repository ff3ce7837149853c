/*
 * cli_targets.h - the servers a profile run sends to (internal to cli/): one engine_target per
 * --url, resolved before the run, and the one TLS context the https:// ones share.
 */
#ifndef RINGPERF_CLI_TARGETS_H
#define RINGPERF_CLI_TARGETS_H

#include <stddef.h>

#include "config/config.h"
#include "engine/engine.h"
#include "scrape/scrape.h"

struct tls_context;

struct cli_targets {
    struct engine_target *targets; /* one per --url, in order */
    size_t count;
    struct tls_context *tls; /* when a --url or a metrics URL is https://; NULL otherwise */
    /* the Prometheus endpoints to scrape (each --url's /metrics, then --server-metrics); none
     * with --no-server-metrics */
    struct scrape_endpoint *metrics;
    size_t metrics_count;
    /* the DCGM exporters (--gpu-telemetry, else localhost:9400 and :9401, optional); none with
     * --no-gpu-telemetry */
    struct scrape_endpoint *gpus;
    size_t gpu_count;
};

/* cli_targets_resolve resolves every --url of cfg into t (addresses, Host headers, paths,
 * proxies from HTTPS_PROXY/HTTP_PROXY/ALL_PROXY and NO_PROXY), and the same way the
 * Prometheus endpoints the scraper reads, and creates the TLS context the https:// ones use,
 * with cfg's --tls-* flags. Prints what failed to stderr. Returns 0 or a
 * negative errno; cli_targets_free releases what was made either way. */
int cli_targets_resolve(struct cli_targets *t, const struct profile_config *cfg);

/* cli_targets_free releases the targets and the TLS context: only after every engine run
 * that connected with them has ended. */
void cli_targets_free(struct cli_targets *t);

#endif
