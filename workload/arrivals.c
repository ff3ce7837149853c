#include "workload/workload_arrivals.h"

#include <errno.h>
#include <math.h>

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

/* rate_now is the rate in force at the current offset: the target, or a
 * share of it while the ramp runs (never below 1% of the target). */
static double rate_now(const struct workload_arrivals *a)
{
    if (a->ramp_s <= 0.0 || a->next_offset_s >= a->ramp_s) {
        return a->rate_per_s;
    }
    double share = a->next_offset_s / a->ramp_s;
    return a->rate_per_s * (share > 0.01 ? share : 0.01);
}

static double next_gap_s(struct workload_arrivals *a)
{
    double rate = rate_now(a);
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
    double offset_s = a->next_offset_s;
    a->next_offset_s += next_gap_s(a);
    a->next_k++;
    return (int64_t)llround(offset_s * 1e9);
}
