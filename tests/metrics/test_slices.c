/*
 * test_slices.c - a run's timeslices (metrics_slices): the one rule that gives a request its
 * slice, the records added and the parts merged into them, and what is counted as dropped.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdlib.h>

#include "metrics/metrics_record.h"

#define BASE 1000
#define SLICE 100
#define SLICES 3

static void make_table(struct metrics_slices *sl)
{
    struct metrics_run_config config = {.streaming = false};
    cr_assert_eq(metrics_slices_init(sl, BASE, SLICE, SLICES, &config), 0);
}

Test(metrics_slices, a_request_falls_in_the_slice_it_started_in)
{
    static const struct {
        int64_t wall_start_ns;
        enum metrics_slice_of of;
        uint64_t index;
    } cases[] = {
        {0, METRICS_SLICE_NONE, 0},              /* never sent */
        {BASE - 1, METRICS_SLICE_NONE, 0},       /* before profiling began */
        {BASE, METRICS_SLICE_IN, 0},             /* the first slice's first nanosecond */
        {BASE + SLICE - 1, METRICS_SLICE_IN, 0}, /* its last */
        {BASE + SLICE, METRICS_SLICE_IN, 1},
        {BASE + SLICES * SLICE - 1, METRICS_SLICE_IN, SLICES - 1},
        {BASE + SLICES * SLICE, METRICS_SLICE_PAST_LAST, SLICES},
        {INT64_MAX, METRICS_SLICE_PAST_LAST, (uint64_t)(INT64_MAX - BASE) / SLICE},
    };
    struct metrics_slices sl;
    make_table(&sl);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        uint64_t index = 12345;
        cr_assert_eq(metrics_slices_index(&sl, cases[i].wall_start_ns, &index), cases[i].of,
                     "case %zu", i);
        if (cases[i].of != METRICS_SLICE_NONE) {
            cr_assert_eq(index, cases[i].index, "case %zu", i);
        }
    }
    metrics_slices_free(&sl);
}

/* add adds a successful request started at wall_start_ns with a latency of 5 ms. */
static int add(struct metrics_slices *sl, int64_t wall_start_ns)
{
    struct record rec = {.wall_start_ns = wall_start_ns, .outcome = RECORD_SUCCESS};
    struct metrics_record m = {0};
    m.request.start_wall_ns = wall_start_ns;
    m.values.has[METRICS_REQUEST_LATENCY] = true;
    m.values.value[METRICS_REQUEST_LATENCY] = 5.0;
    return metrics_slices_add(sl, &rec, &m);
}

static double request_count(struct metrics_run *run)
{
    struct metrics_summary *sum = calloc(1, sizeof(*sum));
    cr_assert_not_null(sum);
    cr_assert_eq(metrics_run_summarize(run, sum), 0);
    double count =
        sum->scalar_present[METRICS_S_REQUEST_COUNT] ? sum->scalar[METRICS_S_REQUEST_COUNT] : 0;
    free(sum);
    return count;
}

Test(metrics_slices, records_and_parts_land_in_their_slices_and_the_rest_is_dropped)
{
    struct metrics_slices sl;
    make_table(&sl);
    static const int64_t starts[] = {
        0, BASE - 1, BASE, BASE + 5, BASE + 2 * SLICE, BASE + SLICES * SLICE, BASE + 40 * SLICE};
    for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++) {
        cr_assert_eq(add(&sl, starts[i]), 0);
    }
    cr_assert_eq(sl.count, 3, "slices 0 and 2 made, 1 left empty");
    cr_assert_not_null(sl.runs[0]);
    cr_assert_null(sl.runs[1]);
    cr_assert_not_null(sl.runs[2]);
    cr_assert_eq(sl.dropped, 2, "the two past the last slice");
    cr_assert_eq(request_count(sl.runs[0]), 2);
    cr_assert_eq(request_count(sl.runs[2]), 1);

    struct metrics_slices part;
    make_table(&part);
    cr_assert_eq(add(&part, BASE + SLICE), 0);
    cr_assert_eq(add(&part, BASE + SLICE + 1), 0);
    cr_assert_eq(metrics_slices_merge(&sl, 1, part.runs[1]), 0);
    cr_assert_eq(metrics_slices_merge(&sl, 0, part.runs[1]), 0);
    cr_assert_eq(request_count(sl.runs[1]), 2);
    cr_assert_eq(request_count(sl.runs[0]), 4);
    cr_assert_eq(metrics_slices_merge(&sl, SLICES, part.runs[1]), -EINVAL, "past the last");
    struct metrics_slices none = {0};
    cr_assert_eq(metrics_slices_merge(&none, 0, part.runs[1]), -EINVAL, "no table");
    metrics_slices_free(&none);
    metrics_slices_free(&part);
    metrics_slices_free(&sl);
    cr_assert_null(sl.runs);
    cr_assert_eq(sl.count, 0);
}

Test(metrics_slices, a_table_needs_a_duration_and_a_size)
{
    struct metrics_run_config config = {0};
    struct metrics_slices sl;
    cr_assert_eq(metrics_slices_init(&sl, BASE, 0, SLICES, &config), -EINVAL);
    cr_assert_eq(metrics_slices_init(&sl, BASE, -SLICE, SLICES, &config), -EINVAL);
    cr_assert_eq(metrics_slices_init(&sl, BASE, SLICE, 0, &config), -EINVAL);
    cr_assert_null(sl.runs);
    metrics_slices_free(&sl);
}
