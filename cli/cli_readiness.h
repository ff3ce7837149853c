/*
 * cli_readiness.h - AIPerf's --wait-for-model-*: before a run, probe the
 * server until it answers (internal to cli/).
 *
 * A benchmark started beside a server that is still loading its model would
 * otherwise record a burst of connection errors and call it the server's
 * performance. The probes are real requests through the engine, so they
 * take the run's own path to the server: its URLs, TLS, proxies, headers
 * and API key.
 */
#ifndef RINGPERF_CLI_READINESS_H
#define RINGPERF_CLI_READINESS_H

#include "config/config.h"
#include "engine/engine.h"

/* cli_readiness_probes is what the probes ask: the run's engine
 * configuration (targets, endpoint, headers; borrowed), and, owned, the
 * targets with their path set to `/v1/models` under each --url (the models
 * mode) and the one-token request body of the inference mode. */
struct cli_readiness_probes {
    const struct engine_config *run;
    struct engine_target *models_targets;
    char *inference_body;
};

/* cli_readiness_prepare builds *p for a run of `run` (borrowed until
 * cli_readiness_free; its targets and payloads set) whose requests are of
 * `type`: the raw endpoint's probe is the first payload, verbatim. Nothing is
 * built when cfg asks for no wait. Returns 0, or -errno after printing why. */
int cli_readiness_prepare(struct cli_readiness_probes *p, const struct profile_config *cfg,
                          const struct engine_config *run, enum endpoint_type type);

/* cli_readiness_free releases what *p owns; safe on a zeroed one. */
void cli_readiness_free(struct cli_readiness_probes *p);

/* cli_wait_for_model probes as cfg's --wait-for-model-* flags say, every
 * interval, until every probe of the mode succeeds (a 2xx answer read whole)
 * or the timeout passes. Prints what it waits for and, on giving up, the last
 * probe's error to stderr. Returns 0 when ready or not asked to wait,
 * -ETIMEDOUT when the time ran out, -ECANCELED when `stop` was requested,
 * or another -errno when a probe could not be run at all (message in errbuf). */
int cli_wait_for_model(const struct profile_config *cfg, const struct cli_readiness_probes *probes,
                       struct engine_stop *stop, char *errbuf, size_t errcap);

#endif
