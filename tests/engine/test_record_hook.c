/*
 * The record hook end to end against the mock server: every record passes
 * through it on its own shard's thread, before the sink sees it, with an annex
 * of its own that reaches the sink as the hook left it; and a coordinator too
 * slow to give records back makes the shards wait, which the run counts.
 */
#include <pthread.h>

#include "tests/engine/engine_fixture.h"

#define HOOK_SHARDS 2

struct hook_annex {
    uint64_t ordinal;
    uint32_t shard;
    uint32_t seq; /* this shard's count of hook calls, when it ran */
    bool off_coordinator;
};

struct hook_state {
    pthread_t coordinator;
    uint32_t calls[HOOK_SHARDS]; /* each written by its shard alone */
    uint64_t seen;
    bool annex_mismatch;
    int64_t sink_spin_ns; /* the sink's work per record */
};

static void hook_finish(void *ctx, uint32_t shard, struct record *rec)
{
    struct hook_state *st = ctx;
    cr_assert_lt(shard, HOOK_SHARDS);
    struct hook_annex *annex = rec->annex;
    *annex = (struct hook_annex){
        .ordinal = rec->ordinal,
        .shard = shard,
        .seq = ++st->calls[shard],
        .off_coordinator = !pthread_equal(pthread_self(), st->coordinator),
    };
}

static void hook_sink(void *ctx, const struct record *rec)
{
    struct hook_state *st = ctx;
    const struct hook_annex *annex = rec->annex;
    st->annex_mismatch |= annex == NULL || annex->ordinal != rec->ordinal ||
                          annex->shard != rec->shard_id || !annex->off_coordinator ||
                          annex->seq == 0;
    st->seen++;
    int64_t until = engine_now_ns() + st->sink_spin_ns;
    while (st->sink_spin_ns > 0 && engine_now_ns() < until) {
    }
}

struct hook_run {
    struct hook_state st; /* first: the sink's ctx is both */
    struct engine_run_stats stats;
};

static void hook_stats(void *ctx, const struct engine_run_stats *stats)
{
    ((struct hook_run *)ctx)->stats = *stats;
}

static void run_with_hook(struct fixture *fx, struct hook_run *hr)
{
    struct engine_record_hook hook = {
        .on_finish = hook_finish, .ctx = &hr->st, .annex_bytes = sizeof(struct hook_annex)};
    fx->config.record_hook = &hook;
    hr->st.coordinator = pthread_self();
    struct engine_record_sink sink = {
        .on_record = hook_sink, .on_finish = hook_stats, .ctx = &hr->st};
    char errbuf[256];
    cr_assert_eq(engine_run(&fx->config, &sink, NULL, errbuf, sizeof(errbuf)), 0, "%s", errbuf);
}

Test(engine_record_hook, every_record_passes_its_shard_with_an_annex_of_its_own, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, true, 8, mock_server_port(fx.server));
    fx.config.shard_count = HOOK_SHARDS;
    fx.config.concurrency = 8;
    fx.config.request_count = 400;
    cr_assert_eq(engine_shard_count(&fx.config), HOOK_SHARDS);
    struct hook_run hr = {0};
    run_with_hook(&fx, &hr);
    cr_assert_eq(hr.st.seen, 400);
    cr_assert_eq(hr.st.calls[0] + hr.st.calls[1], 400, "one hook call per record");
    cr_assert_gt(hr.st.calls[0], 0);
    cr_assert_gt(hr.st.calls[1], 0);
    cr_assert_not(hr.st.annex_mismatch, "an annex reached the sink other than its shard left it");
    finish(&fx);
}

/* One shard, two connections: its pool is 12 records. A sink that spends 2 ms
 * on each record holds them all while the server answers at once, so the
 * shard has a free connection and due work but no record. */
Test(engine_record_hook, a_slow_coordinator_makes_the_shard_wait_and_is_counted, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, false, 1, mock_server_port(fx.server));
    fx.config.shard_count = 1;
    fx.config.concurrency = 2;
    fx.config.request_count = 60;
    struct hook_run hr = {.st.sink_spin_ns = 2 * 1000 * 1000};
    run_with_hook(&fx, &hr);
    cr_assert_eq(hr.st.seen, 60);
    cr_assert_gt(hr.stats.record_waits, 0, "the shard waited for records and none was counted");
    /* Waiting, it sleeps: a shard that spun until records came back would take the CPU the
     * coordinator needs to give them back (with both at SCHED_FIFO on one core, for ever). */
    cr_assert_lt(hr.stats.busiest_shard_cpu_fraction, 0.5, "the waiting shard was busy %.2f",
                 hr.stats.busiest_shard_cpu_fraction);
    finish(&fx);
}

Test(engine_record_hook, shard_count_follows_the_run_limits)
{
    struct engine_config c = {.shard_count = 8, .concurrency = 3};
    cr_assert_eq(engine_shard_count(&c), 3);
    c = (struct engine_config){.shard_count = 8, .concurrency = 100, .prefill_limit = 2};
    cr_assert_eq(engine_shard_count(&c), 2);
    c = (struct engine_config){.shard_count = 1000, .concurrency = 100000};
    cr_assert_eq(engine_shard_count(&c), ENGINE_MAX_SHARDS);
    c = (struct engine_config){.concurrency = 100000};
    cr_assert_gt(engine_shard_count(&c), 0);
}
