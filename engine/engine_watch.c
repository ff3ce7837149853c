/*
 * engine_watch.c - the per-shard figures the coordinator reports with each
 * progress call (engine_shard_live): all taken on the coordinator's side, so
 * that watching a run costs the shards nothing.
 */
#include <time.h>

#include "engine/engine_internal.h"

#define SHARDS_PER_REPORT 64 /* rows handed to the sink per call */

/* thread_cpu_ns reads a shard thread's CPU clock; -1 when the thread has
 * ended (its clock goes with it). */
static int64_t thread_cpu_ns(pthread_t thread)
{
    clockid_t clock;
    struct timespec ts;
    if (pthread_getcpuclockid(thread, &clock) != 0 || clock_gettime(clock, &ts) != 0) {
        return -1;
    }
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static struct engine_shard_live watch_row(struct engine__shard *shard, int64_t now_ns)
{
    struct engine__watch *w = &shard->watch;
    int64_t cpu_ns = thread_cpu_ns(shard->thread);
    int64_t since_ns = w->last_wall_ns != 0 ? w->last_wall_ns : shard->start_ns;
    /* An ended thread's clock is gone: its last interval's share stands. */
    if (cpu_ns >= 0 && now_ns > since_ns) {
        w->cpu_fraction = (double)(cpu_ns - w->last_cpu_ns) / (double)(now_ns - since_ns);
        w->cpu_measured = true;
        w->last_cpu_ns = cpu_ns;
        w->last_wall_ns = now_ns;
    }
    struct engine_shard_live row = {
        .cpu_fraction = w->cpu_measured ? w->cpu_fraction : -1,
        .outstanding = w->handed - w->returned,
        .records_waiting = w->waiting_max,
        .connections_open = atomic_load_explicit(&shard->sockets_open, memory_order_relaxed),
    };
    w->waiting_max = 0;
    return row;
}

void engine__watch_report(struct engine__shard *shards, uint32_t count,
                          const struct engine_record_sink *sink)
{
    if (sink->on_shards == NULL) {
        return;
    }
    int64_t now_ns = engine_now_ns();
    struct engine_shard_live rows[SHARDS_PER_REPORT];
    for (uint32_t first = 0; first < count; first += SHARDS_PER_REPORT) {
        uint32_t n = count - first < SHARDS_PER_REPORT ? count - first : SHARDS_PER_REPORT;
        for (uint32_t i = 0; i < n; i++) {
            rows[i] = watch_row(&shards[first + i], now_ns);
        }
        sink->on_shards(sink->ctx, first, rows, n);
    }
}
