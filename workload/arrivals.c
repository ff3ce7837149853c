#include "workload/workload_arrivals.h"

#include <errno.h>
#include <math.h>

#include "config/config.h"

/* AIPerf updates a ramped rate every 0.1 s and starts it at target * 0.1 s / ramp
 * (docs/tutorials/ramping.md): 100 req/s over 60 s starts at about 0.17 req/s. */
#define RAMP_UPDATE_S 0.1

static uint64_t next_u64(struct workload_arrivals *a)
{
    /* splitmix64: tiny, fast and good enough for arrival gaps. */
    uint64_t z = (a->rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* uniform_open returns a uniform draw in (0, 1): never 0, so log() is finite. */
static double uniform_open(struct workload_arrivals *a)
{
    return ((double)(next_u64(a) >> 11) + 0.5) / 9007199254740992.0;
}

static double normal(struct workload_arrivals *a)
{
    return sqrt(-2.0 * log(uniform_open(a))) * cos(2.0 * M_PI * uniform_open(a));
}

double workload_gamma_sample(struct workload_arrivals *a, double shape)
{
    if (shape < 1.0) {
        /* Boost: Gamma(k) = Gamma(k + 1) * U^(1/k). */
        return workload_gamma_sample(a, shape + 1.0) * pow(uniform_open(a), 1.0 / shape);
    }
    double d = shape - 1.0 / 3.0;
    double c = 1.0 / sqrt(9.0 * d);
    for (;;) {
        double x = normal(a);
        double v = 1.0 + c * x;
        if (v <= 0.0) {
            continue;
        }
        v = v * v * v;
        double u = uniform_open(a);
        if (log(u) < 0.5 * x * x + d - d * v + d * log(v)) {
            return d * v;
        }
    }
}

/* next_gap_s draws the next gap at the target rate: the gap in "target time", which
 * ramped_offset_s maps to real time. */
static double next_gap_s(struct workload_arrivals *a)
{
    double rate = a->rate_per_s;
    switch (a->pattern) {
    case WORKLOAD_CONSTANT:
        return 1.0 / rate;
    case WORKLOAD_GAMMA:
        return workload_gamma_sample(a, a->smoothness) / (a->smoothness * rate);
    case WORKLOAD_POISSON:
    default:
        return -log(uniform_open(a)) / rate;
    }
}

/*
 * ramped_offset_s maps an offset in target time (where the rate is the target from the start)
 * to real time under the ramp: the rate climbs linearly from f0 = RAMP_UPDATE_S / ramp of the
 * target to the target over the ramp, so real time t has seen
 *   L(t) = f0 t + (1 - f0) t^2 / (2 T)          for t <= T,
 *   L(t) = T (1 + f0) / 2 + (t - T)               after,
 * target-seconds of arrivals. Request k is due where L(t) reaches its target-time offset. This
 * is the integral of the ramped rate, so every pattern keeps its shape (a Poisson stream stays
 * Poisson with the ramped intensity) and the count sent during the ramp is the ramp's area.
 */
static double ramped_offset_s(const struct workload_arrivals *a, double target_s)
{
    double ramp = a->ramp_s;
    if (ramp <= 0.0) {
        return target_s;
    }
    double f0 = RAMP_UPDATE_S < ramp ? RAMP_UPDATE_S / ramp : 1.0;
    double ramp_area = ramp * (1.0 + f0) / 2.0;
    if (target_s >= ramp_area) {
        return ramp + (target_s - ramp_area);
    }
    /* f0 t + c t^2 = target_s with c = (1 - f0) / (2 T): the positive root, written so
     * that it stays exact when c is tiny. */
    double c = (1.0 - f0) / (2.0 * ramp);
    return 2.0 * target_s / (f0 + sqrt(f0 * f0 + 4.0 * c * target_s));
}

void workload_arrivals_set_ramp(struct workload_arrivals *a, double ramp_s)
{
    a->ramp_s = ramp_s > 0.0 ? ramp_s : 0.0;
}

int workload_arrivals_init(struct workload_arrivals *a, enum workload_arrival_pattern pattern,
                           double rate_per_s, double smoothness, uint64_t seed)
{
    if (!(rate_per_s > 0.0) || !isfinite(rate_per_s) ||
        (pattern == WORKLOAD_GAMMA && !(smoothness > 0.0))) {
        return -EINVAL;
    }
    *a = (struct workload_arrivals){
        .pattern = pattern,
        .rate_per_s = rate_per_s,
        .smoothness = smoothness,
        .rng_state = seed,
    };
    return 0;
}

int64_t workload_arrivals_offset_ns(void *ctx, uint64_t k)
{
    struct workload_arrivals *a = ctx;
    /* Catch up if a caller skipped ahead; the normal caller asks in order. */
    while (a->next_k < k) {
        a->next_offset_s += next_gap_s(a);
        a->next_k++;
    }
    double offset_s = ramped_offset_s(a, a->next_offset_s);
    a->next_offset_s += next_gap_s(a);
    a->next_k++;
    /* config__check_times keeps a run's schedule inside the clock's range; a
     * Poisson tail past it is due at its end, never wrapped. */
    double max_s = CONFIG_TIME_MAX_SECONDS;
    return (int64_t)llround((offset_s < max_s ? offset_s : max_s) * 1e9);
}
