/*
 * trace_time.c - when replayed input-file requests are due: the
 * --fixed-schedule window and time zero, and the replay knobs that reshape a
 * trace's schedule and its delays between turns (see workload_internal.h).
 */
#include "workload/workload_internal.h"

#include <errno.h>
#include <stdio.h>

#include "datasets/datasets.h"

/* TIME_MAX_MS and TIME_MAX_NS are CONFIG_TIME_MAX_SECONDS in the trace's unit and the clock's. */
#define TIME_MAX_MS (CONFIG_TIME_MAX_SECONDS * 1e3)
#define TIME_MAX_NS (CONFIG_TIME_MAX_SECONDS * 1e9)

/* clamp_ns turns a time in ns into the clock's integer, within [0, TIME_MAX_NS]. */
static int64_t clamp_ns(double ns)
{
    return ns > 0 ? (int64_t)(ns < TIME_MAX_NS ? ns : TIME_MAX_NS) : 0;
}

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
    return clamp_ns((timestamp_ms - zero_ms) * 1e6);
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
        offsets[k] = clamp_ns((double)offsets[k] / speedup);
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
    return clamp_ns(cap > 0 && ns > cap ? cap : ns);
}

/* epoch_hint says what a trace time that overflows looks like, if it looks
 * like a Unix time of the years 2001 to 2286 in some unit: "" otherwise. */
static const char *epoch_hint(double ms)
{
    static const struct {
        double min;
        const char *hint;
    } units[] = {
        {1e9, "; it looks like epoch seconds: mooncake timestamps are milliseconds from the trace "
              "start (multiply by 1000 and give --fixed-schedule-auto-offset)"},
        {1e12, "; it looks like epoch milliseconds: mooncake timestamps are milliseconds from the "
               "trace start (give --fixed-schedule-auto-offset to start at the first one)"},
        {1e15, "; it looks like epoch microseconds: mooncake timestamps are milliseconds from the "
               "trace start (divide by 1000 and give --fixed-schedule-auto-offset)"},
        {1e18, "; it looks like epoch nanoseconds: mooncake timestamps are milliseconds from the "
               "trace start (divide by 1000000 and give --fixed-schedule-auto-offset)"},
    };
    for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
        if (ms >= units[i].min && ms < units[i].min * 10) {
            return units[i].hint;
        }
    }
    return "";
}

/* fail_time prints that `field` (value ms) of e replays past the clock's range. */
static int fail_time(const struct profile_config *cfg, const struct dataset_entry *e,
                     const char *field, double value_ms, double replayed_ms, const char *after)
{
    fprintf(stderr,
            "ringperf profile: %s:%llu: \"%s\" %.15g ms replays %.3g s %s%s, past the "
            "" CONFIG_TIME_MAX_TEXT " the clock can schedule%s\n",
            cfg->input_file, (unsigned long long)e->line, field, value_ms, replayed_ms / 1e3, after,
            cfg->replay_speedup > 0 && cfg->replay_speedup != 1 ? " (after --replay-speedup)" : "",
            epoch_hint(value_ms));
    return -EINVAL;
}

/* first_in_window returns the earliest timestamp in the window, or 0 when none is. */
static double first_in_window(const struct profile_config *cfg, const struct dataset_inputs *inputs)
{
    double first = 0;
    bool any = false;
    for (size_t i = 0; i < dataset_inputs_count(inputs); i++) {
        const struct dataset_entry *e = dataset_inputs_entry(inputs, i);
        if (e->has_timestamp && workload__in_window(cfg, e->timestamp_ms) &&
            (!any || e->timestamp_ms < first)) {
            first = e->timestamp_ms;
            any = true;
        }
    }
    return first;
}

int workload__check_trace_times(const struct profile_config *cfg,
                                const struct dataset_inputs *inputs)
{
    bool timed =
        cfg->fixed_schedule || (dataset_inputs_timestamped(inputs) && !cfg->no_fixed_schedule);
    double speedup = cfg->replay_speedup > 0 ? cfg->replay_speedup : 1.0;
    double first_ms = first_in_window(cfg, inputs);
    double zero_ms = workload__schedule_zero_ms(cfg, first_ms);
    /* With --max-idle-gap-cap-seconds only the first due time keeps its distance from zero. */
    bool gaps_capped = cfg->max_idle_gap_cap_seconds > 0;
    for (size_t i = 0; i < dataset_inputs_count(inputs); i++) {
        const struct dataset_entry *e = dataset_inputs_entry(inputs, i);
        double due_ms = (e->timestamp_ms - zero_ms) / speedup;
        bool checked = timed && e->has_timestamp && workload__in_window(cfg, e->timestamp_ms) &&
                       (!gaps_capped || e->timestamp_ms == first_ms);
        if (checked && due_ms > TIME_MAX_MS) {
            return fail_time(cfg, e, "timestamp", e->timestamp_ms, due_ms,
                             "after the schedule's time zero");
        }
        double delay_ms = e->delay_ms / speedup;
        if (e->has_delay && !cfg->ignore_trace_delays && cfg->inter_turn_delay_cap_seconds <= 0 &&
            delay_ms > TIME_MAX_MS) {
            return fail_time(cfg, e, "delay", e->delay_ms, delay_ms, "before its turn");
        }
    }
    return 0;
}
