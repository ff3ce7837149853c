/*
 * cli_realtime.h - `--realtime-priority N` (internal to cli/): the precision
 * mode. The shards run at SCHED_FIFO priority N, so that a completed read
 * wakes its shard at once instead of after whatever else shares the core;
 * the coordinator and every other thread run on CPUs no shard is pinned to;
 * memory is locked, so that no page fault lands between a read and its
 * timestamp. Without the privilege the run goes ahead at normal priority,
 * after one warning that names what failed and how to grant it.
 */
#ifndef RINGPERF_CLI_REALTIME_H
#define RINGPERF_CLI_REALTIME_H

#include <stdbool.h>

#include <jansson.h>

#include "config/config.h"
#include "engine/engine.h"

/* cli_realtime is what the mode asked for and what the kernel granted. */
struct cli_realtime {
    int priority;       /* --realtime-priority; 0 = not given */
    bool sched_fifo;    /* the kernel allows the shards SCHED_FIFO at that priority */
    bool lock_memory;   /* mlockall(MCL_CURRENT | MCL_FUTURE) may be asked for */
    bool memory_locked; /* and succeeded (cli_realtime_start) */
    bool threads_apart; /* the caller's threads run on CPUs no shard is pinned to */
};

/* cli_realtime_prepare checks, for --realtime-priority, that this process may
 * run threads at SCHED_FIFO (trying it on the calling thread, then restoring
 * its policy) and lock its memory (CAP_IPC_LOCK, or an RLIMIT_MEMLOCK whose
 * soft limit it raises to an unlimited hard one). Where SCHED_FIFO is allowed
 * it sets engine->realtime_priority and, when --workers-max is not given,
 * engine->shard_count to one less than the online CPUs (at least 1), which
 * leaves a CPU to the coordinator. Prints one warning for what is missing.
 * Writes *out; does nothing else without --realtime-priority. */
void cli_realtime_prepare(const struct profile_config *cfg, struct engine_config *engine,
                          struct cli_realtime *out);

/* cli_realtime_start, called once everything is allocated and before the
 * run's other threads start (the live API, the signal watcher), moves the
 * calling thread onto the CPUs engine's shards are not pinned to, where there
 * are any (threads started later inherit them), and locks memory. Prints a
 * warning if mlockall fails. Does nothing unless rt->sched_fifo. */
void cli_realtime_start(struct cli_realtime *rt, const struct engine_config *engine);

/* cli_realtime_json returns run_info.ringperf_timing's "precision" member (a
 * new reference, NULL when out of memory): the mode ("realtime" when every
 * shard of the profiling phase ran at SCHED_FIFO, else "normal"), the
 * priority asked for, how many shards got it, and whether memory was locked
 * and the other threads were kept apart. */
json_t *cli_realtime_json(const struct cli_realtime *rt, const struct engine_run_stats *stats);

#endif
