/*
 * cli_signals.h - Ctrl-C and SIGTERM during a profile run (internal to cli/): one thread takes
 * them, so the engine's threads never do, and turns them into the engine's stop levels.
 */
#ifndef RINGPERF_CLI_SIGNALS_H
#define RINGPERF_CLI_SIGNALS_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "cluster/cluster.h"
#include "engine/engine.h"

/* cli_signals is the watcher of one run. Caller-allocated; fields are its own. */
struct cli_signals {
    pthread_t thread;
    bool watching;
    sigset_t set;
    sigset_t old;
    struct engine_stop *stop;
    struct cluster_share *cluster; /* told about the stop (MPI: a rank may have died) */
    int64_t grace_ns; /* what the first stop gives requests in flight, for its message */
    int stop_signal;  /* the first signal taken; written atomically */
};

/* cli_signals_start blocks SIGINT and SIGTERM in the calling thread (and the threads it starts
 * later) and starts the watcher: the first signal sets `stop` to ENGINE_STOP_GRACEFUL, the
 * second to ENGINE_STOP_NOW (requests in flight cancelled, the exports still written), the
 * third exits 128 + the signal at once. */
void cli_signals_start(struct cli_signals *s, struct engine_stop *stop,
                       struct cluster_share *cluster, int64_t grace_ns);

/* cli_signals_end stops the watcher and restores the signal mask. */
void cli_signals_end(struct cli_signals *s);

/* cli_signals_exit_status returns 128 + the first signal taken (130, 143: what shells expect of
 * an interrupted program), or `status` when none came. */
int cli_signals_exit_status(const struct cli_signals *s, int status);

#endif
