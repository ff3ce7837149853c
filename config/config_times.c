/*
 * config_times.c - every rate and time of a run against the range the
 * nanosecond clock can hold (CONFIG_TIME_MAX_SECONDS). Each flag's table range
 * bounds it alone; these are the combinations: a rate's gap between requests,
 * the last due time of a count-limited schedule, a user's turn gap, and a
 * think time scaled by its ratio. Trace timestamps and delays are checked
 * where the trace is read (workload/trace_time.c).
 */
#include "config/config_internal.h"

/* check_rate checks that one gap at `rate` per second, and `count` of them
 * (0: the run is not count-limited), fit in CONFIG_TIME_MAX_SECONDS. */
static int check_rate(const char *flag, double rate, const char *count_flag, int64_t count,
                      char *errbuf, size_t errcap)
{
    if (rate <= 0) {
        return 0;
    }
    if (1.0 / rate > CONFIG_TIME_MAX_SECONDS) {
        return config__fail(errbuf, errcap,
                            "%s %g: one request every %.3g s is past the " CONFIG_TIME_MAX_TEXT " "
                            "a schedule can span; give at least %g requests per second",
                            flag, rate, 1.0 / rate, 1.0 / CONFIG_TIME_MAX_SECONDS);
    }
    double span_s = (double)count / rate;
    if (count > 0 && span_s > CONFIG_TIME_MAX_SECONDS) {
        return config__fail(errbuf, errcap,
                            "%s %g with %s %lld: the last request would be due after about "
                            "%.3g s, past the " CONFIG_TIME_MAX_TEXT " a schedule can span; raise "
                            "%s, lower %s, or end the run with --benchmark-duration",
                            flag, rate, count_flag, (long long)count, span_s, flag, count_flag);
    }
    return 0;
}

int config__check_times(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    bool count_limited = cfg->request_count_set || cfg->benchmark_duration_seconds <= 0;
    int rc = check_rate("--request-rate", cfg->request_rate_per_second, "--request-count",
                        count_limited ? cfg->request_count : 0, errbuf, errcap);
    if (rc == 0 && cfg->warmup_request_rate > 0) {
        rc = check_rate("--warmup-request-rate", cfg->warmup_request_rate, "--warmup-request-count",
                        cfg->warmup_request_count, errbuf, errcap);
    } else if (rc == 0 && cfg->request_rate_per_second > 0) {
        /* The warmup inherits --request-rate. */
        rc = check_rate("--request-rate", cfg->request_rate_per_second, "--warmup-request-count",
                        cfg->warmup_request_count, errbuf, errcap);
    }
    double user_gap_s =
        cfg->user_centric_rate > 0 ? (double)cfg->num_users / cfg->user_centric_rate : 0;
    if (rc == 0 && user_gap_s > CONFIG_TIME_MAX_SECONDS) {
        rc = config__fail(errbuf, errcap,
                          "--user-centric-rate %g with --num-users %lld: each user would wait "
                          "%.3g s between turns, past the " CONFIG_TIME_MAX_TEXT " a schedule can "
                          "span; raise --user-centric-rate or lower --num-users",
                          cfg->user_centric_rate, (long long)cfg->num_users, user_gap_s);
    }
    /* check_conversations gave the ratio its default. */
    double ratio = cfg->conversation_turn_delay_ratio;
    double think_s =
        (cfg->conversation_turn_delay_mean_ms + cfg->conversation_turn_delay_stddev_ms) * ratio /
        1e3;
    if (rc == 0 && think_s > CONFIG_TIME_MAX_SECONDS) {
        rc = config__fail(errbuf, errcap,
                          "--conversation-turn-delay-mean %g ms (stddev %g) scaled by "
                          "--conversation-turn-delay-ratio %g gives think times of %.3g s, past "
                          "the " CONFIG_TIME_MAX_TEXT " a delay can span; lower one of them",
                          cfg->conversation_turn_delay_mean_ms,
                          cfg->conversation_turn_delay_stddev_ms, ratio, think_s);
    }
    return rc;
}
