/*
 * load.h - when requests are due: AIPerf's open-loop arrival patterns.
 *
 * A schedule is absolute: request k is due at the sum of the first k gaps
 * after time zero, whatever happened to earlier requests, so a slow server
 * shows up as lateness instead of silently lowering the offered rate (the
 * coordinated-omission trap). The gaps of a seed are always the same.
 */
#ifndef RINGPERF_LOAD_H
#define RINGPERF_LOAD_H

#include <stdint.h>

/* load_pattern is AIPerf's --arrival-pattern. */
enum load_pattern {
    LOAD_POISSON,  /* exponential gaps with mean 1/rate */
    LOAD_CONSTANT, /* every gap is 1/rate */
    LOAD_GAMMA,    /* gamma gaps: shape k = smoothness, mean 1/rate, CV 1/sqrt(k) */
};

/* load_arrivals generates the due offsets of one stream of requests. Caller-
 * allocated; no allocation. */
struct load_arrivals {
    enum load_pattern pattern;
    double rate_per_s;
    double smoothness;
    uint64_t rng_state;
    double ramp_s;        /* the rate climbs linearly to rate_per_s over this; 0 = none */
    uint64_t next_k;      /* the request whose offset comes next */
    double next_offset_s; /* its offset, in seconds after time zero */
};

/* load_arrivals_init starts a stream. rate_per_s > 0; smoothness > 0 for
 * LOAD_GAMMA (ignored otherwise). Returns 0 or -EINVAL. */
int load_arrivals_init(struct load_arrivals *a, enum load_pattern pattern, double rate_per_s,
                       double smoothness, uint64_t seed);

/* load_arrivals_set_ramp makes the rate climb linearly from rate/100 (AIPerf
 * starts at target * update_interval / duration) to the target over ramp_s
 * seconds (AIPerf's --request-rate-ramp-duration). */
void load_arrivals_set_ramp(struct load_arrivals *a, double ramp_s);

/* load_arrivals_offset_ns returns request k's due offset in nanoseconds (the
 * first request is due at 0). Requests must be asked for in order k = 0, 1, 2,
 * ... (as engine_schedule does); ctx is the struct load_arrivals. */
int64_t load_arrivals_offset_ns(void *ctx, uint64_t k);

/* load_gamma_sample draws from Gamma(shape, 1) using the stream's generator
 * (Marsaglia and Tsang). Exposed for tests. */
double load_gamma_sample(struct load_arrivals *a, double shape);

#endif
