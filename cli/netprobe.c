/*
 * netprobe.c - --network-latency-automatic glue (see cli_netprobe.h).
 */
#include "cli/cli_netprobe.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "netlatency/netlatency.h"

int cli_netprobe_start(const struct profile_config *cfg, struct netlatency **out, char *err,
                       size_t err_cap)
{
    *out = NULL;
    if (!cfg->network_latency_automatic) {
        return 0;
    }
    struct netlatency_target targets[NETLATENCY_TARGETS_MAX];
    size_t count = 0;
    for (size_t i = 0; i < cfg->urls.count && count < NETLATENCY_TARGETS_MAX; i++) {
        struct config_target t;
        if (config_resolve_url(cfg, i, &t, err, err_cap) != 0) {
            return -EINVAL;
        }
        struct netlatency_target *nt = &targets[count++];
        *nt = (struct netlatency_target){.port = t.port};
        snprintf(nt->host, sizeof(nt->host), "%s", t.host);
        if (!config_redact_url(cfg->urls.items[i], nt->url, sizeof(nt->url))) {
            snprintf(nt->url, sizeof(nt->url), "%s", cfg->urls.items[i]);
        }
    }
    double interval = cfg->network_latency_ping_interval_s > 0
                          ? cfg->network_latency_ping_interval_s
                          : NETLATENCY_DEFAULT_INTERVAL_S;
    return netlatency_start(targets, count, interval, out, err, err_cap);
}

int cli_netprobe_finish(struct netlatency *prober, struct metrics_results *results,
                        const struct export_paths *paths)
{
    if (prober == NULL) {
        return 0;
    }
    netlatency_stop(prober);
    int64_t rtt_ns = 0;
    if (netlatency_mean_rtt_ns(prober, &rtt_ns)) {
        metrics_run_set_network_rtt(results->run, rtt_ns);
    } else {
        fprintf(stderr, "ringperf profile: --network-latency-automatic: no round-trip probe "
                        "succeeded (see the network latency file); no network_rtt\n");
    }
    int ret = export_network_latency_write(paths->network_latency, prober);
    if (ret != 0) {
        fprintf(stderr, "ringperf profile: cannot write %s: %s\n", paths->network_latency,
                strerror(-ret));
    }
    netlatency_free(prober);
    return ret;
}
