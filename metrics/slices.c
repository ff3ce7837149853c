/*
 * slices.c - a run's records grouped by request start time into AIPerf's timeslices
 * (--slice-duration): the rule that gives a record its slice, and the table of slices the
 * exports summarise, filled record by record on the coordinator or merged from the shards'
 * groups (shard.c).
 */
#include "metrics/metrics_record.h"

#include <errno.h>
#include <stdlib.h>

int metrics_slices_init(struct metrics_slices *sl, int64_t base_wall_ns, int64_t slice_ns,
                        uint64_t count_max, const struct metrics_run_config *config)
{
    *sl = (struct metrics_slices){0};
    if (slice_ns <= 0 || count_max == 0) {
        return -EINVAL;
    }
    sl->runs = calloc(count_max, sizeof(*sl->runs));
    if (sl->runs == NULL) {
        return -ENOMEM;
    }
    sl->base_wall_ns = base_wall_ns;
    sl->slice_ns = slice_ns;
    sl->count_max = count_max;
    sl->config = *config;
    return 0;
}

void metrics_slices_free(struct metrics_slices *sl)
{
    for (uint64_t i = 0; sl->runs != NULL && i < sl->count; i++) {
        metrics_run_free(sl->runs[i]);
    }
    free(sl->runs);
    *sl = (struct metrics_slices){0};
}

enum metrics_slice_of metrics_slices_index(const struct metrics_slices *sl, int64_t wall_start_ns,
                                           uint64_t *out_index)
{
    if (wall_start_ns == 0 || wall_start_ns < sl->base_wall_ns) {
        return METRICS_SLICE_NONE; /* never sent, or sent before profiling began: no window */
    }
    *out_index = (uint64_t)(wall_start_ns - sl->base_wall_ns) / (uint64_t)sl->slice_ns;
    return *out_index < sl->count_max ? METRICS_SLICE_IN : METRICS_SLICE_PAST_LAST;
}

/* slice_at returns in *out slice `index` (< count_max), made with its window when it has
 * none yet. Returns 0 or -ENOMEM. */
static int slice_at(struct metrics_slices *sl, uint64_t index, struct metrics_run **out)
{
    if (sl->runs[index] == NULL) {
        int ret = metrics_run_new(&sl->config, &sl->runs[index]);
        if (ret != 0) {
            return ret;
        }
        int64_t start = sl->base_wall_ns + (int64_t)index * sl->slice_ns;
        metrics_run_set_window(sl->runs[index], start, start + sl->slice_ns);
    }
    if (index + 1 > sl->count) {
        sl->count = index + 1;
    }
    *out = sl->runs[index];
    return 0;
}

int metrics_slices_add(struct metrics_slices *sl, const struct record *rec,
                       const struct metrics_record *m)
{
    uint64_t index = 0;
    switch (metrics_slices_index(sl, rec->wall_start_ns, &index)) {
    case METRICS_SLICE_NONE:
        return 0;
    case METRICS_SLICE_PAST_LAST:
        sl->dropped++;
        return 0;
    case METRICS_SLICE_IN:
        break;
    }
    struct metrics_run *run = NULL;
    int ret = slice_at(sl, index, &run);
    if (ret == 0) {
        metrics_run_add(run, &m->request, &m->values);
    }
    return ret;
}

int metrics_slices_merge(struct metrics_slices *sl, uint64_t index, const struct metrics_run *part)
{
    if (sl->runs == NULL || index >= sl->count_max) {
        return -EINVAL;
    }
    struct metrics_run *run = NULL;
    int ret = slice_at(sl, index, &run);
    return ret != 0 ? ret : metrics_run_merge(run, part);
}
