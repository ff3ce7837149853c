/*
 * cli_netprobe.h - --network-latency-automatic for `ringperf profile`
 * (internal to cli/): the round-trip prober of netlatency/ started on the
 * run's servers when the profiling phase starts, stopped when it ends, its
 * mean given to the summary and its samples written beside the other files.
 */
#ifndef RINGPERF_CLI_NETPROBE_H
#define RINGPERF_CLI_NETPROBE_H

#include <stddef.h>

#include "config/config.h"
#include "export/export.h"
#include "metrics/metrics_record.h"

struct netlatency;

/* cli_netprobe_start starts probing the servers of cfg's --url values when
 * --network-latency-automatic was given; *out is NULL otherwise. Returns 0, or
 * -errno with a message in err. */
int cli_netprobe_start(const struct profile_config *cfg, struct netlatency **out, char *err,
                       size_t err_cap);

/* cli_netprobe_finish stops `prober` (NULL: nothing to do), hands the mean
 * round trip to results' summary and writes the samples to paths'
 * network_latency file. A run in which no probe succeeded says so on stderr
 * and has no network_rtt. Returns 0, or -errno when the file could not be
 * written. The prober is freed. */
int cli_netprobe_finish(struct netlatency *prober, struct metrics_results *results,
                        const struct export_paths *paths);

#endif
