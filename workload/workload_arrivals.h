/*
 * workload_arrivals.h - when requests are due: AIPerf's open-loop arrival patterns.
 *
 * A schedule is absolute: request k is due at the sum of the first k gaps
 * after time zero, whatever happened to earlier requests, so a slow server
 * shows up as lateness instead of silently lowering the offered rate (the
 * coordinated-omission trap). The gaps of a seed are always the same.
 */
#ifndef RINGPERF_WORKLOAD_ARRIVALS_H
#define RINGPERF_WORKLOAD_ARRIVALS_H

#include <stdint.h>

/* workload_arrival_pattern is AIPerf's --arrival-pattern. */
enum workload_arrival_pattern {
    WORKLOAD_POISSON,  /* exponential gaps with mean 1/rate */
    WORKLOAD_CONSTANT, /* every gap is 1/rate */
    WORKLOAD_GAMMA,    /* gamma gaps: shape k = smoothness, mean 1/rate, CV 1/sqrt(k) */
};

/* workload_arrivals generates the due offsets of one stream of requests. Caller-
 * allocated; no allocation. */
struct workload_arrivals {
    enum workload_arrival_pattern pattern;
    double rate_per_s;
    double smoothness;
    uint64_t rng_state;
    double ramp_s;        /* the rate climbs linearly to rate_per_s over this; 0 = none */
    uint64_t next_k;      /* the request whose offset comes next */
    double next_offset_s; /* its offset in target time: seconds as if there were no ramp */
};

/* workload_arrivals_init starts a stream. rate_per_s > 0; smoothness > 0 for
 * WORKLOAD_GAMMA (ignored otherwise). Returns 0 or -EINVAL. */
int workload_arrivals_init(struct workload_arrivals *a, enum workload_arrival_pattern pattern,
                           double rate_per_s, double smoothness, uint64_t seed);

/* workload_arrivals_set_ramp makes the rate climb linearly from target * 0.1 s / ramp_s
 * (AIPerf's start: target * update_interval / duration) to the target over ramp_s seconds
 * (--request-rate-ramp-duration). Arrivals follow the integral of that rate, whatever the
 * pattern. */
void workload_arrivals_set_ramp(struct workload_arrivals *a, double ramp_s);

/* workload_arrivals_offset_ns returns request k's due offset in nanoseconds (the
 * first request is due at 0). Requests must be asked for in order k = 0, 1, 2,
 * ... (as engine_schedule does); ctx is the struct workload_arrivals. */
int64_t workload_arrivals_offset_ns(void *ctx, uint64_t k);

/* workload_gamma_sample draws from Gamma(shape, 1) using the stream's generator
 * (Marsaglia and Tsang). Exposed for tests. */
double workload_gamma_sample(struct workload_arrivals *a, double shape);

#endif
