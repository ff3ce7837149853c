/*
 * report.c - what a profile run says about itself after its tables: how late open-loop
 * requests left, --per-chunk-usage fallbacks, a client short of CPU; and its title.
 */
#include <stdio.h>

#include "cli/cli_profile.h"

/* print_send_lag reports how late open-loop requests left, and warns when the
 * client, not the server, was the limit. */
void cli_report_send_lag(const struct profile_run *run)
{
    if (run->engine.schedule == NULL || metrics_hist_count(run->send_lag) == 0) {
        return;
    }
    double p50_us = (double)metrics_hist_value_at_percentile(run->send_lag, 50) / 1e3;
    double p99_us = (double)metrics_hist_value_at_percentile(run->send_lag, 99) / 1e3;
    double max_us = (double)metrics_hist_max(run->send_lag) / 1e3;
    printf("Send Lag (send start - due time): p50 %.1f us, p99 %.1f us, max %.1f us\n", p50_us,
           p99_us, max_us);
    if (p99_us > 1000.0) {
        printf("Warning: 1%% of requests left over %.1f ms late. Either every connection was busy "
               "(raise --concurrency) or the client was saturated (raise --workers-max).\n",
               p99_us / 1e3);
    }
}

/* print_itl_fallbacks says, once, how many requests --per-chunk-usage could
 * not apply to. */
void cli_report_itl_fallbacks(const struct profile_run *run)
{
    uint64_t n = run->results.itl_first_chunk_fallbacks;
    if (n > 0) {
        printf("Warning: --per-chunk-usage: %llu streamed request%s reported no usage with the "
               "first content chunk (or as many tokens as the whole output); their ITL divides "
               "by OSL - 1. Check that the server honours stream_options.continuous_usage_stats.\n",
               (unsigned long long)n, n == 1 ? "" : "s");
    }
}

/* CLIENT_BUSY_WARN is the share of a shard's CPU above which the client, not
 * the server, may have set the pace. */
#define CLIENT_BUSY_WARN 0.9

/* print_client_load warns when a shard had no CPU to spare, and says when
 * receive times did not all come from the kernel. */
void cli_report_client_load(const struct profile_run *run)
{
    const struct engine_run_stats *st = &run->engine_stats;
    if (st->user_timestamp_reads > 0) {
        printf("Notice: %llu of %llu reads were timed in user space, not by the kernel "
               "(SO_TIMESTAMPING was unavailable%s): their arrival times include the client's "
               "wake-up delay.\n",
               (unsigned long long)st->user_timestamp_reads,
               (unsigned long long)(st->user_timestamp_reads + st->kernel_timestamp_reads),
               run->engine.user_timestamps ? ", or RINGPERF_USER_TIMESTAMPS=1 asked for it" : "");
    }
    if (st->busiest_shard_cpu_fraction < CLIENT_BUSY_WARN) {
        return;
    }
    printf("Warning: shard %u was busy %.0f%% of the run (pacing spins left out): the client may "
           "have limited the load and its timings. Raise --workers-max, give ringperf more "
           "cores, or spread the run over machines.\n",
           st->busiest_shard, st->busiest_shard_cpu_fraction * 100.0);
}

/* report_title is AIPerf's console title for the endpoint's metrics. */
const char *cli_report_title(const struct profile_run *run, char *buf, size_t cap)
{
    snprintf(buf, cap, "ringperf | %s", endpoint_type_metrics_title(run->requests.type));
    return buf;
}
