/*
 * test_stimulus.c - the load part of AIPerf's default artifact directory name
 * (spec §10), for each load mode.
 */
#include <criterion/criterion.h>

#include "config/config.h"
#include "engine/engine.h"
#include "workload/workload_phase.h"

static void assert_stimulus(const struct profile_config *cfg, const struct engine_config *engine,
                            bool fixed_schedule, const char *want)
{
    char out[96];
    workload_stimulus(cfg, engine, fixed_schedule, out, sizeof(out));
    cr_assert_str_eq(out, want);
}

Test(workload_stimulus, each_load_mode_is_named_as_aiperf_names_it)
{
    static const struct engine_schedule schedule = {0};
    struct profile_config cfg = {0};
    struct engine_config closed = {.concurrency = 10};
    struct engine_config open = {.concurrency = 256, .schedule = &schedule};
    assert_stimulus(&cfg, &closed, false, "concurrency10");
    cfg.request_rate_per_second = 10;
    assert_stimulus(&cfg, &open, false, "request_rate10.0");
    cfg.request_rate_per_second = 2.5;
    assert_stimulus(&cfg, &open, false, "request_rate2.5");
    cfg.request_rate_per_second = 0.125;
    assert_stimulus(&cfg, &open, false, "request_rate0.125");
    cfg.request_rate_per_second = 100000;
    assert_stimulus(&cfg, &open, false, "request_rate100000.0");
    cfg.concurrency = 4;
    open.concurrency = 4;
    cfg.request_rate_per_second = 10;
    assert_stimulus(&cfg, &open, false, "concurrency4-request_rate10.0");
    /* A trace replayed on its timestamps, whatever else was given. */
    assert_stimulus(&cfg, &open, true, "fixed_schedule");
    struct profile_config users = {.user_centric_rate = 2, .num_users = 8};
    struct engine_config user_load = {.concurrency = 8};
    assert_stimulus(&users, &user_load, false, "user_centric-users8-qps2.0");
    users.num_users = 0;
    assert_stimulus(&users, &user_load, false, "user_centric-qps2.0");
}
