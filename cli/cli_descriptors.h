/*
 * cli_descriptors.h - the open-file budget of a profile run (internal to
 * cli/): most shells start with a soft limit of 1,024 descriptors, which a
 * run of a few thousand connections exceeds, and a connection that cannot
 * get a socket would fail as an error record instead of being refused.
 */
#ifndef RINGPERF_CLI_DESCRIPTORS_H
#define RINGPERF_CLI_DESCRIPTORS_H

#include <stdint.h>

#include "config/config.h"
#include "engine/engine.h"

/* CLI_DESCRIPTORS_SLACK is what the budget leaves for the rest of the
 * process: stdio, the tokenizer and dataset files while they load, TLS
 * certificates, readiness probes and control hooks. */
#define CLI_DESCRIPTORS_SLACK 32

/* cli_descriptors_needed returns the descriptors a run of `profiling` and,
 * when there is one, `warmup` (NULL: none) needs at most: the larger
 * engine's, the live API's when --api-port is given, the exports' and the
 * slack. */
uint64_t cli_descriptors_needed(const struct profile_config *cfg,
                                const struct engine_config *profiling,
                                const struct engine_config *warmup);

/* cli_descriptors_reserve raises the soft RLIMIT_NOFILE to the hard limit,
 * as servers do, and checks that `needed` descriptors fit under it. Returns
 * 0, or 1 after printing the limit, what the run needs and how to raise it
 * (before anything is sent or written). */
int cli_descriptors_reserve(uint64_t needed);

#endif
