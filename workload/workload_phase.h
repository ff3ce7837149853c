/*
 * workload_phase.h - turning AIPerf's load flags into engine runs:
 * closed loop, open-loop arrival patterns, duration and grace, cancellation,
 * and the warmup phase.
 */
#ifndef RINGPERF_WORKLOAD_PHASE_H
#define RINGPERF_WORKLOAD_PHASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "engine/engine.h"
#include "workload/workload_arrivals.h"

/* Connections for an open-loop run without --concurrency: AIPerf places no
 * session limit there; this bounds the pool allocated at start-up. */
#define WORKLOAD_OPEN_LOOP_CONNECTIONS 1024

/* workload_phase holds what an engine_config borrows for its schedule. */
struct workload_phase {
    struct workload_arrivals arrivals;
    struct engine_schedule schedule;
    const int64_t *trace_offsets_ns; /* fixed schedule: due time of each request */
    size_t trace_count;
    struct engine_sessions sessions; /* multi-turn runs: this phase's copy */
};

/* workload_phase_sessions makes *engine a multi-turn run of `sessions` (borrowed
 * callbacks; copied into load): the request count becomes an ordinal limit,
 * so the phase ends after exactly that many turns, and --user-centric-rate
 * sets --num-users connections, each a user pacing its own turns. In the
 * profiling phase (`profiling`), a --conversation-num given without
 * --request-count or --benchmark-duration is AIPerf's --num-sessions: the
 * phase ends after that many whole sessions. */
void workload_phase_sessions(const struct profile_config *cfg,
                             const struct engine_sessions *sessions, bool profiling,
                             struct workload_phase *load, struct engine_config *engine);

/* workload_phase_configure fills the load fields of *engine (concurrency, schedule,
 * count, duration, grace, cancellation) from cfg; *load must outlive the run.
 * seed is the run's random seed. */
void workload_phase_configure(const struct profile_config *cfg, uint64_t seed,
                              struct workload_phase *load, struct engine_config *engine);

/* workload_phase_warmup derives the warmup run from the profiling run, as AIPerf
 * does: the --warmup-* load settings where given, else the profiling ones;
 * its own count or duration and grace period; no cancellation. Its schedule
 * lives in *load. Returns false when the command line asks for no warmup. */
bool workload_phase_warmup(const struct profile_config *cfg, uint64_t seed,
                           const struct engine_config *profiling, struct workload_phase *load,
                           struct engine_config *out);

/* workload_phase_inputs adjusts *engine for an --input-file run of request_total
 * requests: with offsets_ns (offset_count of them, borrowed; they outlive the
 * run) the requests, or the sessions when the trace has sessions, leave at
 * those due times on a fixed schedule, as many requests as the trace has (or
 * --request-count if smaller); without, and without --request-count or
 * --benchmark-duration, the file is sent once. */
void workload_phase_inputs(const struct profile_config *cfg, const int64_t *offsets_ns,
                           size_t offset_count, size_t request_total, struct workload_phase *load,
                           struct engine_config *engine);

/* workload_phase_session_cap returns how many requests *engine (configured
 * from cfg) lets be in flight as AIPerf counts them: its concurrency, or 0
 * for an open loop without --concurrency, where AIPerf has no session limit
 * (WORKLOAD_OPEN_LOOP_CONNECTIONS bounds ringperf's pool, not the load). */
uint32_t workload_phase_session_cap(const struct profile_config *cfg,
                                    const struct engine_config *engine);

/* workload_stimulus writes AIPerf's stimulus part of the artifact directory
 * name (spec §10): fixed_schedule for a trace replayed on its timestamps,
 * user_centric-users<U>-qps<R> for --user-centric-rate, else concurrency<N>,
 * request_rate<R> or concurrency<N>-request_rate<R>, the rates written as
 * Python writes a float (10.0). */
void workload_stimulus(const struct profile_config *cfg, const struct engine_config *engine,
                       bool fixed_schedule, char *out, size_t cap);

#endif
