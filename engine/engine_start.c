/*
 * engine_start.c - when a shard starts new work: the next due request taken from the
 * coordinator's ring (spinning out the last microseconds), what past the run's end never
 * starts, and the count of starts that wait for a record alone.
 */
#include "engine/engine_conn.h"

#include <assert.h>

bool engine__work_pending(struct engine__shard *shard)
{
    return !engine_ring_is_empty(&shard->work);
}

/* work_expired reports whether work popped at `now` is past the run's end and must not start.
 * Closed-loop work (no due time) is a slot that opened: after the end it starts nothing. Work
 * with a due time was scheduled inside the run (the coordinator pushes nothing due later). If
 * it fell due while the run's limits were full, it waited for a slot that freed only after the
 * end, and AIPerf, whose credits wait for a slot, never issues it. Otherwise its credit counts
 * as issued at its due time, as AIPerf's timing manager issues it: the shard reached it late
 * (descheduled, or busy), sends it late by what its send lag says, and the grace period ends it
 * like any other request, so it is never silently lost. */
static bool work_expired(const struct engine__shard *shard, const struct engine_work *work,
                         int64_t now)
{
    bool held = shard->limits_full_since_ns != 0 && work->due_ns >= shard->limits_full_since_ns;
    return now >= shard->end_ns && (work->due_ns == 0 || held);
}

/* take_due_work returns the next request if it is due now (spinning out the
 * last few microseconds before its due time), false if there is none yet, or
 * if it is not due yet while this turn's submissions wait: a spin holds back
 * the sends started before it until the loop submits them, and at 10,000
 * Poisson arrivals a second, where 4 gaps in 10 are under the spin margin,
 * chains of spins made 1 send in 100 leave 150 us late. The loop submits them
 * and comes back without sleeping (engine__shard_wake_ns).
 * *now is the time this round of starts began: a request without a due time
 * (closed loop) starts then, one with a due time reads the clock, and *now
 * becomes the time it starts. */
static bool take_due_work(struct engine__shard *shard, struct engine_work *out, int64_t *now)
{
    for (;;) {
        if (!shard->has_next_work) {
            union engine_ring_item item;
            if (!engine_ring_pop(&shard->work, &item)) {
                return false;
            }
            shard->next_work = item.work;
            shard->has_next_work = true;
        }
        int64_t due = shard->next_work.due_ns;
        if (due != 0) {
            *now = engine_now_ns();
        }
        if (work_expired(shard, &shard->next_work, *now)) {
            shard->has_next_work = false; /* a slot that opened after the run: never started */
            continue;
        }
        if (due > *now + ENGINE__SPIN_NS || (due > *now && engine__submissions_waiting(shard))) {
            return false;
        }
        int64_t spin_from = *now;
        while (due > *now) {
            *now = engine_now_ns();
        }
        shard->spin_ns += *now - spin_from;
        *out = shard->next_work;
        shard->has_next_work = false;
        return true;
    }
}

/* work_due reports whether new work is due to start now. It only looks at the
 * work ring: work taken out of it (has_next_work) that is due makes the loop
 * poll without sleeping, which is right when a connection can take it and a
 * busy spin when the shard waits for a record. */
static bool work_due(struct engine__shard *shard, int64_t now)
{
    union engine_ring_item item = {.work = shard->next_work};
    if (!shard->has_next_work && !engine_ring_peek(&shard->work, &item)) {
        return false;
    }
    return !work_expired(shard, &item.work, now) && item.work.due_ns <= now + ENGINE__SPIN_NS;
}

/* note_record_wait counts a start that waits for a record alone: a connection
 * is idle and under the limits and work is due, but the coordinator holds
 * every record of the pool. */
static void note_record_wait(struct engine__shard *shard, int64_t now)
{
    uint32_t limit = engine__ramped(shard->conn_count, shard->config->concurrency_ramp_ns,
                                    now - shard->start_ns);
    bool waiting = shard->free_record_count == 0 && shard->idle_count > 0 &&
                   shard->active_count < limit && engine__prefill_room(shard, now) &&
                   work_due(shard, now);
    engine__record_wait(shard, &shard->record_waiting_work, waiting);
}

void engine__start_requests(struct engine__shard *shard)
{
    void *item = NULL;
    while (engine_ring_pop_ptr(&shard->free, &item)) {
        /* Only the pool's own records come back, each once. */
        assert(shard->free_record_count < shard->record_count);
        shard->free_records[shard->free_record_count++] = item;
    }
    /* Jobs' polls first, stopping or not: each is a request in flight. */
    engine__jobs_resume(shard);
    /* Sessions' next turns first: they are already late by their think time. */
    engine__sessions_resume(shard);
    if (atomic_load_explicit(&shard->cancel, memory_order_acquire) ||
        atomic_load_explicit(&shard->draining, memory_order_acquire)) {
        return;
    }
    int64_t now = engine_now_ns();
    struct engine_work work;
    while (engine__can_start(shard, now) && take_due_work(shard, &work, &now)) {
        struct engine__conn *c = &shard->conns[shard->idle_conns[--shard->idle_count]];
        if (shard->config->sessions != NULL) {
            engine__session_begin(shard, c, &work);
            continue;
        }
        struct record *rec = shard->free_records[--shard->free_record_count];
        engine__start_request(shard, c, now, &work, rec);
    }
    if (engine__limits_allow(shard, now)) {
        shard->limits_full_since_ns = 0;
    } else if (shard->limits_full_since_ns == 0) {
        shard->limits_full_since_ns = now;
    }
    note_record_wait(shard, now);
}
