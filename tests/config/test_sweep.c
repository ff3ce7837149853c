/*
 * test_sweep.c - --num-profile-runs and its companions, and comma lists as sweeps: what is
 * accepted, what each cell holds, and what is refused with which words.
 */
#include "tests/config/config_test_util.h"

#include <math.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

Test(config_sweep, defaults_are_aiperfs)
{
    struct profile_config cfg;
    char err[512];
    cr_assert_eq(parse(W("-m", "m"), &cfg, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(cfg.multi_run.num_profile_runs, 1);
    cr_assert_eq(cfg.multi_run.confidence_level, 0.95);
    cr_assert(cfg.multi_run.disable_warmup_after_first);
    cr_assert(cfg.multi_run.set_consistent_seed);
    cr_assert_eq(cfg.multi_run.convergence_threshold, 0.10);
    cr_assert_eq(cfg.sweep.dim_count, 0);
    cr_assert(!config_is_multi_run(&cfg));
    cr_assert_eq(config_sweep_cells(&cfg), 1);
    config_free(&cfg);
}

Test(config_sweep, repeated_run_flags)
{
    struct profile_config cfg;
    char err[512];
    cr_assert_eq(parse(W("-m", "m", "--num-profile-runs", "5", "--confidence-level", "0.99",
                         "--profile-run-cooldown-seconds", "2.5",
                         "--no-profile-run-disable-warmup-after-first", "--no-set-consistent-seed",
                         "--convergence-metric", "time_to_first_token", "--convergence-stat", "p99",
                         "--convergence-mode", "cv", "--convergence-threshold", "0.05"),
                       &cfg, err, sizeof(err)),
                 0, "%s", err);
    cr_assert_eq(cfg.multi_run.num_profile_runs, 5);
    cr_assert_eq(cfg.multi_run.confidence_level, 0.99);
    cr_assert_eq(cfg.multi_run.cooldown_seconds, 2.5);
    cr_assert(!cfg.multi_run.disable_warmup_after_first);
    cr_assert(!cfg.multi_run.set_consistent_seed);
    cr_assert_str_eq(cfg.multi_run.convergence_metric, "time_to_first_token");
    cr_assert_str_eq(cfg.multi_run.convergence_stat, "p99");
    cr_assert_eq(cfg.multi_run.convergence_mode, CONFIG_CONVERGENCE_CV);
    cr_assert_eq(cfg.multi_run.convergence_threshold, 0.05);
    cr_assert(config_is_multi_run(&cfg));
    config_free(&cfg);
}

Test(config_sweep, grid_cells_vary_the_last_list_fastest)
{
    struct profile_config cfg;
    char err[512];
    cr_assert_eq(parse(W("-m", "m", "--concurrency", "1,4", "--request-rate", "2.5,5,10"), &cfg,
                       err, sizeof(err)),
                 0, "%s", err);
    cr_assert_eq(cfg.sweep.dim_count, 2);
    cr_assert_eq(cfg.sweep.dims[0].param, CONFIG_SWEEP_CONCURRENCY);
    cr_assert_eq(cfg.sweep.dims[1].param, CONFIG_SWEEP_REQUEST_RATE);
    cr_assert_eq(cfg.concurrency, 1, "the field holds the first value");
    cr_assert_eq(cfg.request_rate_per_second, 2.5);
    cr_assert_eq(config_sweep_cells(&cfg), 6);
    static const double want[6][2] = {{1, 2.5}, {1, 5}, {1, 10}, {4, 2.5}, {4, 5}, {4, 10}};
    for (size_t cell = 0; cell < 6; cell++) {
        double v[CONFIG_SWEEP_PARAM_COUNT];
        cr_assert(config_sweep_cell_values(&cfg, cell, v));
        cr_assert(v[0] == want[cell][0] && v[1] == want[cell][1], "cell %zu: %g %g", cell, v[0],
                  v[1]);
    }
    double v[CONFIG_SWEEP_PARAM_COUNT];
    cr_assert(!config_sweep_cell_values(&cfg, 6, v));
    config_sweep_apply(&cfg, CONFIG_SWEEP_CONCURRENCY, 4);
    cr_assert_eq(cfg.concurrency, 4);
    cr_assert_str_eq(config_sweep_param_name(CONFIG_SWEEP_REQUEST_RATE), "request_rate");
    cr_assert(!config_sweep_param_is_integer(CONFIG_SWEEP_REQUEST_RATE));
    cr_assert(config_sweep_param_is_integer(CONFIG_SWEEP_ISL));
    cr_assert_str_eq(config_sweep_param_flag(CONFIG_SWEEP_BENCHMARK_DURATION),
                     "--benchmark-duration");
    cr_assert_str_eq(config_sweep_param_flag(CONFIG_SWEEP_PARAM_COUNT), "unknown");
    config_free(&cfg);
}

Test(config_sweep, zip_cells_pair_the_lists)
{
    struct profile_config cfg;
    char err[512];
    cr_assert_eq(parse(W("-m", "m", "--isl", "100,200,300", "--osl", "10,20,30", "--sweep-type",
                         "zip", "--parameter-sweep-same-seed", "--random-seed", "7"),
                       &cfg, err, sizeof(err)),
                 0, "%s", err);
    cr_assert_eq(config_sweep_cells(&cfg), 3);
    cr_assert(cfg.sweep.same_seed);
    double v[CONFIG_SWEEP_PARAM_COUNT];
    cr_assert(config_sweep_cell_values(&cfg, 2, v));
    cr_assert(v[0] == 300 && v[1] == 30);
    config_free(&cfg);
}

Test(config_sweep, a_later_single_value_ends_the_sweep)
{
    struct profile_config cfg;
    char err[512];
    cr_assert_eq(
        parse(W("-m", "m", "--concurrency", "1,2", "--concurrency", "8"), &cfg, err, sizeof(err)),
        0, "%s", err);
    cr_assert_eq(cfg.sweep.dim_count, 0);
    cr_assert_eq(cfg.concurrency, 8);
    config_free(&cfg);
}

Test(config_sweep, refusals_name_the_flag)
{
    const struct config_case cases[] = {
        {W("-m", "m", "--num-profile-runs", "0"), "--num-profile-runs"},
        {W("-m", "m", "--num-profile-runs", "11"), "at most 10"},
        {W("-m", "m", "--confidence-level", "1"), "--confidence-level: must be below 1"},
        {W("-m", "m", "--confidence-level", "0"), "--confidence-level"},
        {W("-m", "m", "--profile-run-cooldown-seconds", "-1"), "--profile-run-cooldown-seconds"},
        {W("-m", "m", "--convergence-stat", "p99"),
         "--convergence-stat needs --convergence-metric"},
        {W("-m", "m", "--num-profile-runs", "2", "--convergence-metric", "x"), "at least 3 runs"},
        {W("-m", "m", "--num-profile-runs", "3", "--convergence-metric", "x", "--convergence-stat",
           "p42"),
         "--convergence-stat: 'p42'"},
        {W("-m", "m", "--num-profile-runs", "3", "--convergence-metric", "x", "--convergence-mode",
           "distribution", "--export-level", "summary"),
         "--export-level summary does not write"},
        {W("-m", "m", "--num-profile-runs", "3", "--convergence-metric", "x", "--convergence-mode",
           "distribution"),
         NULL},
        {W("-m", "m", "--num-profile-runs", "3", "--convergence-metric", "x", "--concurrency",
           "1,2"),
         "--parameter-sweep-mode independent"},
        {W("-m", "m", "--convergence-mode", "wide"), "--convergence-mode: unknown value 'wide'"},
        {W("-m", "m", "--sweep-type", "zip"), "--sweep-type shapes a parameter sweep"},
        {W("-m", "m", "--parameter-sweep-mode", "independent"), "--parameter-sweep-mode shapes"},
        {W("-m", "m", "--concurrency", "1,2", "--isl", "5,6,7", "--sweep-type", "zip"),
         "--concurrency has 2 values and --isl 3"},
        {W("-m", "m", "--concurrency", "1,1"), "--concurrency: 1 appears twice"},
        {W("-m", "m", "--concurrency", "1,,2"), "a number between every two commas"},
        {W("-m", "m", "--concurrency", "1,0"), "--concurrency: '0' must be"},
        {W("-m", "m", "--request-rate", "5,x"), "--request-rate: 'x' must be"},
        {W("-m", "m", "--request-count", "5,6"), "take a comma list"},
        {W("-m", "m", "--concurrency", "4,1", "--num-users", "2", "--user-centric-rate", "1",
           "--conversation-turn-mean", "2"),
         "cell with --concurrency 1: --concurrency 1 is below --num-users 2"},
        {W("-m", "m", "--num-profile-runs", "2", "--shard-count", "2", "--shard-index", "0",
           "--random-seed", "1"),
         "--shard-count"},
        {W("-m", "m", "--concurrency", "1,2", "--parameter-sweep-same-seed"),
         "--parameter-sweep-same-seed gives every cell --random-seed"},
        {W("-m", "m", "--concurrency", "1,2", "--ui-type", "dashboard"), "--ui-type dashboard"},
        {W("-m", "m", "--concurrency", "1,2", "--num-profile-runs", "3"), NULL},
    };
    check_config_cases(cases, ARRAY_LEN(cases), NULL);
}

/* The profiling concurrency as AIPerf resolves it (nvidia_energy_per_user divides by it):
 * --concurrency, else 1 when nothing paces the load, concurrency_burst included (a rate with
 * it is as fast as the concurrency allows), else none. */
Test(config_sweep, the_profiling_concurrency_is_aiperfs)
{
    const struct {
        const char *const *words;
        int64_t want;
        bool paced;
    } cases[] = {
        {W("-m", "m"), 1, false},
        {W("-m", "m", "--concurrency", "8"), 8, false},
        {W("-m", "m", "--request-rate", "5"), 0, true},
        {W("-m", "m", "--request-rate", "5", "--concurrency", "3"), 3, true},
        {W("-m", "m", "--request-rate", "5", "--arrival-pattern", "concurrency_burst"), 1, false},
    };
    for (size_t i = 0; i < ARRAY_LEN(cases); i++) {
        struct profile_config cfg;
        char err[512];
        cr_assert_eq(parse(cases[i].words, &cfg, err, sizeof(err)), 0, "case %zu: %s", i, err);
        cr_assert_eq(config_profiling_concurrency(&cfg), cases[i].want, "case %zu", i);
        cr_assert_eq(config_load_is_paced(cfg.request_rate_per_second, cfg.arrival_pattern),
                     cases[i].paced, "case %zu", i);
        config_free(&cfg);
    }
}
