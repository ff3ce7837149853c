#include "workload/workload_phase.h"

#include <math.h>
#include <stdio.h>

#include "metrics/metrics.h"
#include "workload/workload_internal.h"

/* load_shape is what shapes one phase's load: the profiling phase's flags,
 * or the warmup's, each of which falls back to the profiling one. */
struct load_shape {
    int64_t concurrency; /* 0 = not given */
    int64_t prefill_concurrency;
    double rate; /* requests/s; 0 = closed loop */
    enum config_arrival_pattern pattern;
    double smoothness;
    double concurrency_ramp_seconds;
    double prefill_ramp_seconds;
    double rate_ramp_seconds;
};

static struct load_shape profiling_shape(const struct profile_config *cfg)
{
    return (struct load_shape){
        .concurrency = cfg->concurrency,
        .prefill_concurrency = cfg->prefill_concurrency,
        .rate = cfg->request_rate_per_second,
        .pattern = cfg->arrival_pattern,
        .smoothness = cfg->arrival_smoothness,
        .concurrency_ramp_seconds = cfg->concurrency_ramp_seconds,
        .prefill_ramp_seconds = cfg->prefill_concurrency_ramp_seconds,
        .rate_ramp_seconds = cfg->request_rate_ramp_seconds,
    };
}

static struct load_shape warmup_shape(const struct profile_config *cfg)
{
    struct load_shape s = profiling_shape(cfg);
    s.concurrency = cfg->warmup_concurrency > 0 ? cfg->warmup_concurrency : s.concurrency;
    s.prefill_concurrency = cfg->warmup_prefill_concurrency > 0 ? cfg->warmup_prefill_concurrency
                                                                : s.prefill_concurrency;
    s.rate = cfg->warmup_request_rate > 0 ? cfg->warmup_request_rate : s.rate;
    s.pattern = cfg->warmup_arrival_pattern_set ? cfg->warmup_arrival_pattern : s.pattern;
    s.concurrency_ramp_seconds = cfg->warmup_concurrency_ramp_seconds > 0
                                     ? cfg->warmup_concurrency_ramp_seconds
                                     : s.concurrency_ramp_seconds;
    s.prefill_ramp_seconds = cfg->warmup_prefill_concurrency_ramp_seconds > 0
                                 ? cfg->warmup_prefill_concurrency_ramp_seconds
                                 : s.prefill_ramp_seconds;
    s.rate_ramp_seconds = cfg->warmup_request_rate_ramp_seconds > 0
                              ? cfg->warmup_request_rate_ramp_seconds
                              : s.rate_ramp_seconds;
    return s;
}

static bool open_loop(const struct load_shape *s)
{
    return config_load_is_paced(s->rate, s->pattern);
}

static enum workload_arrival_pattern load_pattern_of(enum config_arrival_pattern pattern)
{
    switch (pattern) {
    case CONFIG_ARRIVAL_CONSTANT:
        return WORKLOAD_CONSTANT;
    case CONFIG_ARRIVAL_GAMMA:
        return WORKLOAD_GAMMA;
    default:
        return WORKLOAD_POISSON;
    }
}

/* configure_shape fills the fields of *engine that shape s's load:
 * connections, the open-loop schedule (in *load), prefill limit, ramp. */
static void configure_shape(const struct load_shape *s, uint64_t seed, struct workload_phase *load,
                            struct engine_config *engine)
{
    engine->concurrency = s->concurrency > 0 ? (uint32_t)s->concurrency : 1;
    engine->schedule = NULL;
    engine->prefill_limit = (uint32_t)s->prefill_concurrency;
    engine->concurrency_ramp_ns = (int64_t)(s->concurrency_ramp_seconds * 1e9);
    engine->prefill_ramp_ns = (int64_t)(s->prefill_ramp_seconds * 1e9);
    if (open_loop(s)) {
        workload_arrivals_init(&load->arrivals, load_pattern_of(s->pattern), s->rate, s->smoothness,
                               seed);
        load->schedule = (struct engine_schedule){
            .offset_ns = workload_arrivals_offset_ns,
            .ctx = &load->arrivals,
        };
        workload_arrivals_set_ramp(&load->arrivals, s->rate_ramp_seconds);
        engine->schedule = &load->schedule;
        if (s->concurrency == 0) {
            engine->concurrency = WORKLOAD_OPEN_LOOP_CONNECTIONS;
        }
    }
}

bool workload__sessions_end_run(const struct profile_config *cfg)
{
    return cfg->conversation_num > 0 && !cfg->request_count_set &&
           cfg->benchmark_duration_seconds <= 0;
}

void workload_phase_configure(const struct profile_config *cfg, uint64_t seed,
                              struct workload_phase *load, struct engine_config *engine)
{
    struct load_shape shape = profiling_shape(cfg);
    configure_shape(&shape, seed, load, engine);
    /* With a duration and no explicit count, the duration alone ends the run. */
    bool count_limited = cfg->request_count_set || cfg->benchmark_duration_seconds <= 0;
    engine->request_count = count_limited ? (uint64_t)cfg->request_count : 0;
    if (workload__sessions_end_run(cfg)) {
        /* One turn a session; workload_phase_sessions counts the turns of
         * multi-turn ones. */
        engine->request_count = (uint64_t)cfg->conversation_num;
    }
    engine->duration_ns = (int64_t)(cfg->benchmark_duration_seconds * 1e9);
    engine->grace_ns = isinf(cfg->benchmark_grace_period_seconds)
                           ? -1
                           : (int64_t)(cfg->benchmark_grace_period_seconds * 1e9);
    engine->cancel_fraction = cfg->cancellation_rate_percent / 100.0;
    engine->cancel_delay_ns = (int64_t)(cfg->cancellation_delay_seconds * 1e9);
    engine->cancel_seed = seed ^ 0x63616e63656cULL;
}

bool workload_phase_warmup(const struct profile_config *cfg, uint64_t seed,
                           const struct engine_config *profiling, struct workload_phase *load,
                           struct engine_config *out)
{
    if (cfg->warmup_request_count <= 0 && cfg->warmup_duration_seconds <= 0) {
        return false;
    }
    *out = *profiling;
    struct load_shape shape = warmup_shape(cfg);
    configure_shape(&shape, seed + 1, load, out);
    out->request_count = (uint64_t)(cfg->warmup_request_count > 0 ? cfg->warmup_request_count : 0);
    out->duration_ns = (int64_t)(cfg->warmup_duration_seconds * 1e9);
    /* AIPerf's warmup grace period is infinite unless given: warmup requests finish. */
    out->grace_ns = !cfg->warmup_grace_period_set || isinf(cfg->warmup_grace_period_seconds)
                        ? -1
                        : (int64_t)(cfg->warmup_grace_period_seconds * 1e9);
    out->cancel_fraction = 0;
    return true;
}

void workload_phase_sessions(const struct profile_config *cfg,
                             const struct engine_sessions *sessions, bool profiling,
                             struct workload_phase *load, struct engine_config *engine)
{
    load->sessions = *sessions;
    load->sessions.ordinal_limit = engine->request_count;
    if (profiling && workload__sessions_end_run(cfg)) {
        /* The ordinals of sessions 0..N-1 are the first ones, densely, so the
         * run ends after exactly --conversation-num sessions. */
        uint64_t turns = 0;
        for (int64_t s = 0; s < cfg->conversation_num; s++) {
            turns += sessions->turn_count(sessions->ctx, (uint64_t)s);
        }
        load->sessions.ordinal_limit = turns;
    }
    engine->request_count = 0;
    engine->sessions = &load->sessions;
    if (cfg->user_centric_rate > 0) {
        /* Users share the rate: each one sends every num_users / rate seconds. */
        load->sessions.user_gap_ns =
            (int64_t)((double)cfg->num_users / cfg->user_centric_rate * 1e9);
        engine->concurrency = (uint32_t)cfg->num_users;
        engine->schedule = NULL;
    }
}

static int64_t trace_offset_ns(void *ctx, uint64_t k)
{
    const struct workload_phase *load = ctx;
    return load->trace_offsets_ns[k < load->trace_count ? k : load->trace_count - 1];
}

void workload_phase_inputs(const struct profile_config *cfg, const int64_t *offsets_ns,
                           size_t offset_count, size_t request_total, struct workload_phase *load,
                           struct engine_config *engine)
{
    if (offsets_ns == NULL) {
        if (!cfg->request_count_set && cfg->benchmark_duration_seconds <= 0) {
            engine->request_count = request_total;
        }
        return;
    }
    load->trace_offsets_ns = offsets_ns;
    load->trace_count = offset_count;
    load->schedule = (struct engine_schedule){.offset_ns = trace_offset_ns, .ctx = load};
    engine->schedule = &load->schedule;
    engine->concurrency =
        cfg->concurrency > 0 ? (uint32_t)cfg->concurrency : WORKLOAD_OPEN_LOOP_CONNECTIONS;
    bool fewer = cfg->request_count_set && (uint64_t)cfg->request_count < request_total;
    engine->request_count = fewer ? (uint64_t)cfg->request_count : request_total;
}

uint32_t workload_phase_session_cap(const struct profile_config *cfg,
                                    const struct engine_config *engine)
{
    return engine->schedule != NULL && cfg->concurrency <= 0 ? 0 : engine->concurrency;
}

void workload_stimulus(const struct profile_config *cfg, const struct engine_config *engine,
                       bool fixed_schedule, char *out, size_t cap)
{
    char rate[64];
    metrics_python_float(cfg->user_centric_rate > 0 ? cfg->user_centric_rate
                                                    : cfg->request_rate_per_second,
                         rate, sizeof(rate));
    if (fixed_schedule) {
        snprintf(out, cap, "fixed_schedule");
    } else if (cfg->user_centric_rate > 0 && cfg->num_users > 0) {
        snprintf(out, cap, "user_centric-users%lld-qps%s", (long long)cfg->num_users, rate);
    } else if (cfg->user_centric_rate > 0) {
        snprintf(out, cap, "user_centric-qps%s", rate);
    } else if (engine->schedule == NULL) {
        snprintf(out, cap, "concurrency%u", engine->concurrency);
    } else if (cfg->concurrency > 0) {
        snprintf(out, cap, "concurrency%u-request_rate%s", engine->concurrency, rate);
    } else {
        snprintf(out, cap, "request_rate%s", rate);
    }
}
