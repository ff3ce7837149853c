/*
 * trace_time.c - when replayed input-file requests are due: the
 * --fixed-schedule window and time zero, and the replay knobs that reshape a
 * trace's schedule and its delays between turns (see workload_internal.h).
 */
#include "workload/workload_internal.h"

int workload__by_timestamp(const void *a, const void *b)
{
    const struct workload__timed_entry *x = a;
    const struct workload__timed_entry *y = b;
    if (x->timestamp_ms != y->timestamp_ms) {
        return x->timestamp_ms < y->timestamp_ms ? -1 : 1;
    }
    return x->index < y->index ? -1 : x->index > y->index;
}

bool workload__in_window(const struct profile_config *cfg, double timestamp_ms)
{
    return (!cfg->fixed_schedule_start_offset_set ||
            timestamp_ms >= (double)cfg->fixed_schedule_start_offset_ms) &&
           (!cfg->fixed_schedule_end_offset_set ||
            timestamp_ms <= (double)cfg->fixed_schedule_end_offset_ms);
}

double workload__schedule_zero_ms(const struct profile_config *cfg, double first_ms)
{
    return cfg->fixed_schedule_start_offset_set ? (double)cfg->fixed_schedule_start_offset_ms
           : cfg->fixed_schedule_auto_offset    ? first_ms
                                                : 0.0;
}

int64_t workload__offset_ns(double timestamp_ms, double zero_ms)
{
    double ns = (timestamp_ms - zero_ms) * 1e6;
    return ns > 0 ? (int64_t)ns : 0;
}

void workload__shape_schedule(const struct profile_config *cfg, int64_t *offsets, size_t n)
{
    int64_t cap = (int64_t)(cfg->max_idle_gap_cap_seconds * 1e9);
    int64_t previous = n > 0 ? offsets[0] : 0;
    for (size_t k = 1; cap > 0 && k < n; k++) {
        int64_t gap = offsets[k] - previous;
        previous = offsets[k];
        offsets[k] = offsets[k - 1] + (gap < cap ? gap : cap);
    }
    double speedup = cfg->replay_speedup > 0 ? cfg->replay_speedup : 1.0;
    for (size_t k = 0; speedup != 1.0 && k < n; k++) {
        offsets[k] = (int64_t)((double)offsets[k] / speedup);
    }
}

int64_t workload__turn_delay_ns(const struct profile_config *cfg, double delay_ms, bool recorded)
{
    if (recorded && cfg->ignore_trace_delays) {
        return 0;
    }
    double ns = delay_ms > 0 ? delay_ms * 1e6 : 0;
    if (recorded && cfg->replay_speedup > 0) {
        ns /= cfg->replay_speedup;
    }
    double cap = cfg->inter_turn_delay_cap_seconds * 1e9;
    return (int64_t)(cap > 0 && ns > cap ? cap : ns);
}
