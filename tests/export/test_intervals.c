/*
 * test_intervals.c - the timeslice files (--slice-duration) of a run whose shards grouped its
 * records (export_run_group_slices: metrics_shards, merged while they run and at the end) are
 * byte for byte those of the coordinator's path, which adds each record as it arrives
 * (export_run_record).
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "export/export.h"
#include "tests/support/read_text.h"

#define SHARDS 2
#define RECORDS 600
#define MAX_EVENTS 8
#define SLICE_NS 10000000LL                /* 10 ms */
#define BASE_WALL_NS 1700000000000000000LL /* the profiling phase's start */

struct fake {
    struct record rec;
    struct record_event events[MAX_EVENTS];
};

/* make_record fills record i: started about 3 ms after the one before (the first before the
 * profiling phase, the last ones past the last timeslice), streamed, mostly successes with
 * usage, some errors. */
static void make_record(struct fake *f, uint64_t i)
{
    struct record *r = &f->rec;
    *r = (struct record){.ordinal = i, .shard_id = (uint32_t)(i % SHARDS)};
    r->usage = RECORD_USAGE_NONE;
    r->events = f->events;
    r->outcome = i % 13 == 5 ? RECORD_ERROR : RECORD_SUCCESS;
    int64_t offset = (int64_t)i * 3000017 - 20000000;
    if (i >= RECORDS - 3) {
        offset = (EXPORT_SLICES_MAX + 2) * SLICE_NS;
    }
    r->wall_start_ns = BASE_WALL_NS + offset;
    r->send_start_ns = 5000000000LL + offset;
    r->scheduled_ns = r->send_start_ns;
    r->send_end_ns = r->send_start_ns + 20000;
    int64_t t = r->send_end_ns + 1000000 + (int64_t)(i % 17) * 70001;
    r->event_count = 1 + (uint32_t)(i % (MAX_EVENTS - 1));
    for (uint32_t e = 0; e < r->event_count; e++) {
        t += 150000 + (int64_t)((i * 7 + e) % 11) * 9973;
        f->events[e] = (struct record_event){.arrival_ns = t, .flags = RECORD_EVENT_CONTENT};
    }
    r->end_ns = t + 1000;
    if (r->outcome != RECORD_SUCCESS) {
        r->error_code = 500;
        snprintf(r->error_type, sizeof(r->error_type), "%s", "HTTPError");
        snprintf(r->error_message, sizeof(r->error_message), "%s", "failure");
        return;
    }
    r->usage.present = true;
    r->usage.prompt_tokens = 30 + (int64_t)(i % 11);
    r->usage.completion_tokens = (int64_t)r->event_count + (int64_t)(i % 3);
    r->usage.total_tokens = r->usage.prompt_tokens + r->usage.completion_tokens;
}

static void init_results(struct metrics_results *r, const struct metrics_results_options *opts)
{
    char err[256];
    cr_assert_eq(metrics_results_init(r, opts, err, sizeof(err)), 0, "%s", err);
    r->open_loop = true;
}

static void set_paths(struct export_paths *paths, const char *dir, const char *name)
{
    memset(paths, 0, sizeof(*paths));
    snprintf(paths->dir, sizeof(paths->dir), "%s", dir);
    snprintf(paths->timeslices_json, sizeof(paths->timeslices_json), "%s/%s.json", dir, name);
    snprintf(paths->timeslices_csv, sizeof(paths->timeslices_csv), "%s/%s.csv", dir, name);
    snprintf(paths->hlog_base, sizeof(paths->hlog_base), "%s/%s", dir, name);
}

/* new_run returns a run's export with none of its files open but the timeslices, grouped
 * from BASE_WALL_NS by SLICE_NS. */
static struct export_run *new_run(const struct metrics_goodput *goodput,
                                  const struct export_paths *paths)
{
    struct export_run *exp = calloc(1, sizeof(*exp));
    cr_assert_not_null(exp);
    exp->paths = *paths;
    exp->streaming = true;
    exp->start_wall_ns = BASE_WALL_NS;
    exp->slice_ns = SLICE_NS;
    exp->goodput = *goodput;
    return exp;
}

static void write_and_free_run(struct export_run *exp, json_t *input_config)
{
    cr_assert_eq(export_run_close(exp), 0);
    cr_assert_eq(exp->intervals.slices.dropped, 3);
    cr_assert_eq(export_intervals_write_timeslices(&exp->intervals, &exp->paths, input_config, 0),
                 0);
    export_intervals_free(&exp->intervals);
    free(exp);
}

/* coordinator_slices writes the timeslices as the coordinator groups them, record by record. */
static void coordinator_slices(struct fake *records, const struct metrics_goodput *goodput,
                               const struct export_paths *paths, json_t *input_config)
{
    struct metrics_results_options opts = {.streaming = true};
    struct metrics_results results;
    init_results(&results, &opts);
    struct export_run *exp = new_run(goodput, paths);
    for (uint64_t i = 0; i < RECORDS; i++) {
        struct metrics_record m;
        metrics_record_compute(&results, &records[i].rec, &m);
        cr_assert_eq(export_run_record(exp, &records[i].rec, &m), 0);
    }
    write_and_free_run(exp, input_config);
    metrics_results_free(&results);
}

/* shard_slices writes the timeslices as the shards group them (export_run_group_slices): each
 * record on its shard, the coordinator collecting every 40 records and all at the end. */
static void shard_slices(struct fake *records, const struct metrics_goodput *goodput,
                         const struct export_paths *paths, json_t *input_config)
{
    struct metrics_results_options opts = {.streaming = true};
    struct metrics_results results;
    struct metrics_results part;
    init_results(&results, &opts);
    init_results(&part, &opts);
    size_t annex_bytes = metrics_shards_annex_bytes(MAX_EVENTS);
    char *annexes = calloc(RECORDS, annex_bytes);
    cr_assert_not_null(annexes);
    struct metrics_shards *shards = NULL;
    cr_assert_eq(metrics_shards_new(&results, &opts, SHARDS, MAX_EVENTS, &shards), 0);
    struct export_run *exp = new_run(goodput, paths);
    exp->intervals_from_parts = true;
    cr_assert_eq(export_run_group_slices(exp, shards), 0);
    cr_assert(exp->intervals.enabled, "open from the profiling phase's start");
    cr_assert_eq(exp->intervals.base_wall_ns, BASE_WALL_NS);
    cr_assert_eq(export_run_group_slices(exp, shards), -EINVAL, "only once");
    for (uint64_t i = 0; i < RECORDS; i++) {
        records[i].rec.annex = annexes + i * annex_bytes;
        metrics_shards_record(shards, records[i].rec.shard_id, &records[i].rec);
        if (i % 40 == 39) {
            cr_assert_eq(metrics_shards_collect(shards, &part), 0);
        }
        /* What the coordinator does with the record: nothing for the timeslices. */
        cr_assert_eq(export_run_record(exp, &records[i].rec, metrics_shards_of(&records[i].rec)),
                     0);
    }
    cr_assert_eq(metrics_shards_collect_all(shards, &part), 0);
    write_and_free_run(exp, input_config);
    metrics_shards_free(shards);
    metrics_results_free(&part);
    metrics_results_free(&results);
    free(annexes);
}

static void assert_same_file(const char *a, const char *b)
{
    char *x = test_read_path(a);
    char *y = test_read_path(b);
    cr_assert(x != NULL && y != NULL, "%s, %s", a, b);
    cr_assert_gt(strlen(x), 1000, "%s holds timeslices", a);
    cr_assert_str_eq(x, y, "%s vs %s", a, b);
    free(x);
    free(y);
}

Test(export_intervals, timeslices_from_the_shards_are_the_coordinators_byte_for_byte, .timeout = 60)
{
    char dir[] = "/tmp/ringperf_test_intervals_XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    struct fake *records = calloc(RECORDS, sizeof(*records));
    cr_assert_not_null(records);
    for (uint64_t i = 0; i < RECORDS; i++) {
        make_record(&records[i], i);
    }
    struct metrics_goodput goodput = {0};
    cr_assert_eq(metrics_goodput_parse("time_to_first_token:1.5", &goodput, NULL, 0), 0);
    json_t *input_config = json_object();
    struct export_paths coord;
    struct export_paths sharded;
    set_paths(&coord, dir, "coordinator");
    set_paths(&sharded, dir, "shards");
    coordinator_slices(records, &goodput, &coord, input_config);
    shard_slices(records, &goodput, &sharded, input_config);
    assert_same_file(coord.timeslices_json, sharded.timeslices_json);
    assert_same_file(coord.timeslices_csv, sharded.timeslices_csv);
    json_decref(input_config);
    free(records);
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(export_intervals, without_slice_duration_the_shards_group_nothing)
{
    struct metrics_results_options opts = {.streaming = true};
    struct metrics_results results;
    init_results(&results, &opts);
    struct metrics_shards *shards = NULL;
    cr_assert_eq(metrics_shards_new(&results, &opts, SHARDS, MAX_EVENTS, &shards), 0);
    struct export_run *exp = calloc(1, sizeof(*exp));
    cr_assert_not_null(exp);
    exp->start_wall_ns = BASE_WALL_NS;
    cr_assert_eq(export_run_group_slices(exp, shards), 0);
    cr_assert(!exp->intervals.enabled, "nothing opened");
    struct metrics_slices elsewhere;
    struct metrics_run_config config = {0};
    cr_assert_eq(metrics_slices_init(&elsewhere, BASE_WALL_NS, SLICE_NS, 4, &config), 0);
    cr_assert_eq(metrics_shards_slices(shards, &elsewhere), 0, "the shards were given none");
    metrics_shards_free(shards);
    metrics_slices_free(&elsewhere);
    free(exp);
    metrics_results_free(&results);
}
