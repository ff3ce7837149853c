/*
 * netlatency.h - AIPerf's automatic network latency calibration
 * (--network-latency-automatic): while the profiling phase runs, a thread of
 * its own opens a fresh TCP connection to each of the run's servers every
 * ping interval and times the handshake (one network round trip; no TLS, no
 * proxy, the address resolved once so that DNS is not timed). When it stops
 * it tops up to NETLATENCY_MIN_SAMPLES successful probes per server, within
 * NETLATENCY_TOPUP_BUDGET_NS, as AIPerf does for short runs. The mean of the
 * successful round trips is the run's network_rtt.
 *
 * Threads. The prober's thread only connects and closes sockets of its own
 * and appends to its sample array; nothing reads the samples until
 * netlatency_stop has joined it. It never touches a shard's core or state:
 * its only cost to the measurement is one SYN a second per server.
 */
#ifndef RINGPERF_NETLATENCY_H
#define RINGPERF_NETLATENCY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define NETLATENCY_TARGETS_MAX 16                  /* unique host:port pairs probed */
#define NETLATENCY_SAMPLES_MAX (1u << 16)          /* kept (18 h at 1 Hz); later ones are dropped */
#define NETLATENCY_MIN_SAMPLES 5                   /* AIPERF_NETWORK_LATENCY_MIN_SAMPLES */
#define NETLATENCY_CONNECT_TIMEOUT_NS 5000000000LL /* ..._CONNECT_TIMEOUT (5 s) */
#define NETLATENCY_TOPUP_BUDGET_NS 3000000000LL    /* ..._COMPLETE_TOPUP_TIMEOUT (3 s) */
#define NETLATENCY_DEFAULT_INTERVAL_S 1.0          /* --network-latency-ping-interval */
#define NETLATENCY_HOST_BYTES 256
#define NETLATENCY_URL_BYTES 512

/* netlatency_target is one server: where to connect, and how to name it. */
struct netlatency_target {
    char url[NETLATENCY_URL_BYTES];   /* the endpoint URL it came from, credentials redacted */
    char host[NETLATENCY_HOST_BYTES]; /* as given in the URL */
    uint16_t port;
};

/* netlatency_sample is one probe (AIPerf's NetworkLatencySample). */
struct netlatency_sample {
    int64_t timestamp_ns; /* CLOCK_REALTIME when the probe began */
    int64_t rtt_ns;       /* the handshake; valid when success */
    uint32_t target;      /* index into the prober's targets */
    int error;            /* errno of a failed probe (ETIMEDOUT, ECONNREFUSED, ...) */
    bool success;
};

struct netlatency;

/* netlatency_start resolves each of the `count` targets (copied; duplicates
 * of host and port are probed once) and starts probing every interval_s
 * seconds. A target that does not resolve is probed by name each time, as
 * AIPerf falls back. Returns 0 and the prober in *out (stop and free it with
 * netlatency_stop and netlatency_free), -EINVAL (no target, more than
 * NETLATENCY_TARGETS_MAX, or an interval that is not positive) or -errno
 * with a message in err. */
int netlatency_start(const struct netlatency_target *targets, size_t count, double interval_s,
                     struct netlatency **out, char *err, size_t err_cap);

/* netlatency_stop stops the probing thread, then probes each server that has
 * fewer than NETLATENCY_MIN_SAMPLES successful samples until it has them, at
 * most twice that many tries, within NETLATENCY_TOPUP_BUDGET_NS in all.
 * Idempotent. */
void netlatency_stop(struct netlatency *prober);

/* netlatency_samples returns the samples in the order they were taken
 * (valid until netlatency_free; call after netlatency_stop). */
const struct netlatency_sample *netlatency_samples(const struct netlatency *prober,
                                                   size_t *out_count);

/* netlatency_target_of returns target `index` of the prober's (deduplicated) targets. */
const struct netlatency_target *netlatency_target_of(const struct netlatency *prober,
                                                     uint32_t index);

/* netlatency_mean_rtt_ns gives the mean round trip over every successful
 * sample of every server (AIPerf's flat, unweighted mean). Returns false when
 * no probe succeeded. */
bool netlatency_mean_rtt_ns(const struct netlatency *prober, int64_t *out_ns);

/* netlatency_free releases the prober (stopping it first if needed); NULL is a no-op. */
void netlatency_free(struct netlatency *prober);

#endif
