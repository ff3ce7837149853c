/*
 * The shard loop's wake-up protocol (engine__shard_wake_ns): when the loop may
 * poll instead of waiting for completions. With DEFER_TASKRUN a shard that
 * polls reads no completions, so polling for due work it cannot start (no idle
 * connection, no free record, no prefill room) spins until the coordinator
 * acts, and at SCHED_FIFO it keeps that coordinator off a shared CPU: the run
 * never ends. Each case builds the shard state directly; no thread, no timing.
 */
#include <criterion/criterion.h>

#include <stdint.h>

#include "engine/engine_internal.h"

#define NOW ((int64_t)1000 * 1000 * 1000 * 1000)
#define MS ((int64_t)1000 * 1000)

struct wake_fixture {
    struct engine_config config;
    struct engine__shard shard;
};

/* due_work_ready: a shard with one connection idle, one record free and a
 * request that was due a millisecond ago, which it can start now. */
static void due_work_ready(struct wake_fixture *fx)
{
    *fx = (struct wake_fixture){0};
    struct engine__shard *s = &fx->shard;
    s->config = &fx->config;
    atomic_init(&s->cancel, false);
    atomic_init(&s->draining, false);
    s->start_ns = NOW - 10 * MS;
    s->conn_count = 2;
    s->idle_count = 1;
    s->active_count = 1;
    s->record_count = 4;
    s->free_record_count = 1;
    s->has_next_work = true;
    s->next_work = (struct engine_work){.ordinal = 7, .due_ns = NOW - MS};
}

static bool polls(struct engine__shard *shard)
{
    return engine__shard_wake_ns(shard, NOW) <= NOW;
}

Test(engine_wake, due_work_it_can_start_makes_the_loop_poll)
{
    struct wake_fixture fx;
    due_work_ready(&fx);
    cr_assert(polls(&fx.shard));
}

Test(engine_wake, due_work_waiting_for_a_record_sleeps_until_a_completion_or_the_tick)
{
    struct wake_fixture fx;
    due_work_ready(&fx);
    fx.shard.free_record_count = 0;
    cr_assert_eq(engine__shard_wake_ns(&fx.shard, NOW), NOW + ENGINE__TICK_NS);
}

Test(engine_wake, due_work_waiting_for_a_connection_sleeps)
{
    struct wake_fixture fx;
    due_work_ready(&fx);
    fx.shard.idle_count = 0;
    fx.shard.active_count = 2;
    cr_assert_not(polls(&fx.shard));
}

Test(engine_wake, due_work_waiting_for_prefill_room_sleeps)
{
    struct wake_fixture fx;
    due_work_ready(&fx);
    fx.shard.prefill_limit = 1;
    fx.shard.prefill_active = 1;
    cr_assert_not(polls(&fx.shard));
    fx.shard.prefill_active = 0;
    cr_assert(polls(&fx.shard));
}

Test(engine_wake, due_work_held_by_the_concurrency_ramp_sleeps)
{
    struct wake_fixture fx;
    due_work_ready(&fx);
    /* 10 ms into a 1 s ramp of 2 connections: one may run, and one does. */
    fx.config.concurrency_ramp_ns = 1000 * MS;
    cr_assert_not(polls(&fx.shard));
}

Test(engine_wake, a_late_coordinator_wake_up_polls_only_when_the_shard_can_send_one)
{
    struct wake_fixture fx;
    due_work_ready(&fx);
    fx.shard.has_next_work = false;
    fx.shard.unsignalled = 1;
    fx.shard.first_unsignalled_ns = NOW - 2 * MS;
    cr_assert(polls(&fx.shard), "records waited past the delay: signal them now");
    /* One in flight: its completion, read by waiting, lets the next one go. */
    fx.shard.wake_in_flight = true;
    cr_assert_not(polls(&fx.shard));
}

Test(engine_wake, a_stopping_shard_waits_for_its_replies)
{
    struct wake_fixture fx;
    due_work_ready(&fx);
    atomic_store(&fx.shard.draining, true);
    cr_assert_not(polls(&fx.shard));
}
