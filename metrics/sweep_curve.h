/*
 * sweep_curve.h - step functions and their time-weighted statistics, private to metrics/ (the
 * sweep-line metrics of metrics_sweep.h are built from them).
 */
#ifndef RINGPERF_METRICS_SWEEP_CURVE_H
#define RINGPERF_METRICS_SWEEP_CURVE_H

#include <stddef.h>
#include <stdint.h>

#include "metrics/metrics_sweep.h"

/* metrics__sweep_event is a change of a step function: +delta from time t on. */
struct metrics__sweep_event {
    int64_t t;
    double delta;
};

/* metrics__sweep_curve is a step function: val[i] from ts[i] to ts[i + 1] (strictly increasing
 * times), 0 before ts[0], val[n - 1] after ts[n - 1]. n == 0 is the empty function. Owns its
 * arrays (metrics__curve_free). */
struct metrics__sweep_curve {
    int64_t *ts;
    double *val;
    size_t n;
};

/* metrics__curve_from_events sorts `ev` (n events; ends before starts at equal times), adds the
 * deltas up, snaps round-off below 1e-9 of the largest magnitude to 0, and keeps the value after
 * the last event at each time. Returns 0 or -ENOMEM (out empty). */
int metrics__curve_from_events(struct metrics__sweep_event *ev, size_t n,
                               struct metrics__sweep_curve *out);

/* metrics__curve_divide sets `out` to num / den on the union of their times, 0 where den is not
 * positive; empty when either is. Returns 0 or -ENOMEM. */
int metrics__curve_divide(const struct metrics__sweep_curve *num,
                          const struct metrics__sweep_curve *den, struct metrics__sweep_curve *out);

/* metrics__curve_free releases the arrays of `c` and empties it. */
void metrics__curve_free(struct metrics__sweep_curve *c);

/* metrics__curve_stats reduces `c` over [ws, we] into `*out`, each value times `scale`: weighted
 * by time over the whole window when `mask` is NULL, else only over the time when `mask` is
 * positive (and by that time). All 0 when `c` is empty, the window is, or nothing is active.
 * Returns 0 or -ENOMEM. */
int metrics__curve_stats(const struct metrics__sweep_curve *c,
                         const struct metrics__sweep_curve *mask, int64_t ws, int64_t we,
                         double scale, struct metrics_sweep_stats *out);

#endif
