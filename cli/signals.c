/*
 * signals.c - the signal watcher of a profile run (cli_signals.h).
 */
#include "cli/cli_signals.h"

#include <stdio.h>
#include <unistd.h>

#include "ui/ui.h"

static void *watch(void *arg)
{
    struct cli_signals *s = arg;
    int interrupts = 0;
    for (;;) {
        int sig = 0;
        if (sigwait(&s->set, &sig) != 0 || sig == SIGUSR1) {
            return NULL;
        }
        if (interrupts == 0) {
            if (s->cluster != NULL) {
                cluster_share_stop_notice(s->cluster);
            }
            __atomic_store_n(&s->stop_signal, sig, __ATOMIC_RELEASE);
        }
        interrupts++;
        if (interrupts >= 3) {
            /* The dashboard, if one holds the terminal, gives it back first. */
            ui_terminal_emergency_restore();
            fprintf(stderr, "\nringperf: forced quit; the exports are not finished\n");
            _exit(128 + sig);
        }
        if (interrupts == 2) {
            fprintf(stderr, "\nringperf: cancelling the requests in flight now and writing the "
                            "exports. Press Ctrl+C again to quit without them\n");
            __atomic_store_n(&s->stop->requested, ENGINE_STOP_NOW, __ATOMIC_RELEASE);
            continue;
        }
        fprintf(stderr,
                "\nringperf: stopping: no new requests; those in flight get %lld s "
                "to finish. Press Ctrl+C again to cancel them now\n",
                (long long)(s->grace_ns / 1000000000));
        __atomic_store_n(&s->stop->requested, ENGINE_STOP_GRACEFUL, __ATOMIC_RELEASE);
    }
}

void cli_signals_start(struct cli_signals *s, struct engine_stop *stop,
                       struct cluster_share *cluster, int64_t grace_ns)
{
    *s = (struct cli_signals){.stop = stop, .cluster = cluster, .grace_ns = grace_ns};
    sigemptyset(&s->set);
    sigaddset(&s->set, SIGINT);
    sigaddset(&s->set, SIGTERM);
    sigaddset(&s->set, SIGUSR1); /* cli_signals_end's wake-up */
    pthread_sigmask(SIG_BLOCK, &s->set, &s->old);
    s->watching = pthread_create(&s->thread, NULL, watch, s) == 0;
}

void cli_signals_end(struct cli_signals *s)
{
    if (s->watching) {
        pthread_kill(s->thread, SIGUSR1);
        pthread_join(s->thread, NULL);
        s->watching = false;
    }
    pthread_sigmask(SIG_SETMASK, &s->old, NULL);
}

int cli_signals_exit_status(const struct cli_signals *s, int status)
{
    int sig = __atomic_load_n(&s->stop_signal, __ATOMIC_ACQUIRE);
    return sig != 0 ? 128 + sig : status;
}
