/*
 * workload_phase: how the load flags shape an engine run, here the session
 * cap that --failed-request-threshold waits for.
 */
#include <criterion/criterion.h>

#include "workload/workload_phase.h"

/* configured fills an engine run from cfg as `ringperf profile` does. */
static struct engine_config configured(const struct profile_config *cfg,
                                       struct workload_phase *load)
{
    struct engine_config engine = {0};
    workload_phase_configure(cfg, 1, load, &engine);
    return engine;
}

Test(workload_phase, session_cap_is_the_concurrency_of_a_closed_loop)
{
    struct profile_config cfg = {.concurrency = 64, .request_count = 10};
    struct workload_phase load;
    struct engine_config engine = configured(&cfg, &load);
    cr_assert_eq(workload_phase_session_cap(&cfg, &engine), 64);
    cfg.concurrency = 0;
    engine = configured(&cfg, &load);
    cr_assert_eq(workload_phase_session_cap(&cfg, &engine), 1, "a closed loop sends one at a time");
}

Test(workload_phase, session_cap_of_an_uncapped_open_loop_is_none_not_the_pool)
{
    struct profile_config cfg = {.request_rate_per_second = 50, .request_count = 300};
    struct workload_phase load;
    struct engine_config engine = configured(&cfg, &load);
    cr_assert_eq(engine.concurrency, WORKLOAD_OPEN_LOOP_CONNECTIONS, "the pool is bounded");
    cr_assert_eq(workload_phase_session_cap(&cfg, &engine), 0, "AIPerf has no session limit");
    cfg.concurrency = 20;
    engine = configured(&cfg, &load);
    cr_assert_eq(workload_phase_session_cap(&cfg, &engine), 20, "--concurrency caps the rate");
}

Test(workload_phase, session_cap_of_a_fixed_schedule_without_concurrency_is_none)
{
    static const int64_t offsets[] = {0, 1000, 2000};
    struct profile_config cfg = {.request_count = 10};
    struct workload_phase load;
    struct engine_config engine = configured(&cfg, &load);
    workload_phase_inputs(&cfg, offsets, 3, 3, &load, &engine);
    cr_assert_eq(workload_phase_session_cap(&cfg, &engine), 0);
}
