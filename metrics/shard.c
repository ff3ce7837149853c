/*
 * shard.c - a run's records turned into metrics on the shards that ran them.
 *
 * Each shard computes its records' metrics on its own thread, with its own
 * tokenizer scratch, into the record's annex (which the coordinator's export
 * then reads), and adds them to results of its own: no lock, no atomic per
 * value, no allocation once its arrays have grown to one interval's values.
 *
 * Two halves per shard take turns, so that the coordinator can merge a
 * consistent part of the run while the shard goes on: the coordinator asks
 * (asked = handed + 1), the shard answers at its next record by switching
 * halves (handed = asked), and the coordinator's next collect merges the half
 * handed over, empties it and asks again. The half a shard writes is always
 * half[handed % 2]; the other belongs to the coordinator from the hand-off
 * until it asks again, and the release/acquire pairs on the two counters
 * order every write to a half before the other side's reads.
 */
#include "metrics/metrics_record.h"

#include <errno.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* metrics__slice is one timeslice a half's records started in, and their metrics. */
struct metrics__slice {
    uint64_t index;
    struct metrics_run *run;
};

/* metrics__slices is a half's timeslices (--slice-duration), and the emptied runs the
 * coordinator gave back for the shard to reuse: after the first few slices the shard
 * allocates nothing. */
struct metrics__slices {
    struct metrics__slice *open;
    size_t count;
    size_t cap;
    struct metrics_run **spare;
    size_t spare_count;
    size_t spare_cap;
    uint64_t dropped; /* records past the last slice, or whose slice could not be made */
};

struct metrics__shard {
    alignas(64) _Atomic uint32_t asked;  /* hand-offs the coordinator asked for */
    alignas(64) _Atomic uint32_t handed; /* hand-offs the shard made */
    uint32_t merged;                     /* hand-offs the coordinator merged */
    struct tokenizer_scratch scratch;    /* the shard thread's */
    struct metrics_results half[2];
    struct metrics__slices slices[2]; /* each half's */
};

struct metrics_shards {
    uint32_t count;
    size_t content_max; /* events a record can hold: the annex's room */
    struct metrics__shard *shards;
    /* --slice-duration (metrics_shards_slices): the run's timeslices, NULL = none. */
    struct metrics_slices *slices;
    int slice_error; /* the first slice the coordinator could not make: -ENOMEM */
};

size_t metrics_shards_annex_bytes(size_t max_events)
{
    return sizeof(struct metrics_record) + max_events * sizeof(int64_t);
}

/* init_half makes one half with the run's options and the way the run computes a record's
 * metrics (config's tokenizer, payload lengths, images and audio, endpoint metadata, borrowed). */
static int init_half(struct metrics_results *half, const struct metrics_results *config,
                     const struct metrics_results_options *opts)
{
    char err[256];
    int ret = metrics_results_init(half, opts, err, sizeof(err));
    half->tokenizer = config->tokenizer;
    half->payload_isl = config->payload_isl;
    half->payload_osl = config->payload_osl;
    half->payload_images = config->payload_images;
    half->payload_audio_seconds = config->payload_audio_seconds;
    half->produces_tokens = config->produces_tokens;
    half->tokenizes_input = config->tokenizes_input;
    half->produces_video = config->produces_video;
    half->output_token_ids = config->output_token_ids;
    half->open_loop = config->open_loop;
    half->fixed_schedule = config->fixed_schedule;
    /* A multi-turn run's history: the callback keeps each shard's sessions apart. */
    half->session_input_tokens = config->session_input_tokens;
    half->session_ctx = config->session_ctx;
    /* The sweep-line collection is the coordinator's alone (metrics_shards_record says why):
     * a half keeps none, and metrics_results_add leaves it out. */
    metrics_sweep_free(half->sweep);
    half->sweep = NULL;
    return ret;
}

/* warm_scratch lets the tokenizer size its scratch before the run, not on the
 * shard's first record. */
static void warm_scratch(const struct tokenizer *tok, struct tokenizer_scratch *scratch)
{
    static const char sample[] = "Warm up: the scratch grows here, before the run.";
    size_t count;
    if (tok != NULL) {
        (void)tokenizer_count(tok, scratch, sample, sizeof(sample) - 1, &count);
    }
}

int metrics_shards_new(const struct metrics_results *config,
                       const struct metrics_results_options *opts, uint32_t count,
                       size_t max_events, struct metrics_shards **out)
{
    if (count == 0) {
        return -EINVAL;
    }
    struct metrics_shards *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return -ENOMEM;
    }
    s->count = count;
    s->content_max = max_events;
    s->shards = aligned_alloc(64, count * sizeof(*s->shards));
    if (s->shards == NULL) {
        free(s);
        return -ENOMEM;
    }
    memset(s->shards, 0, count * sizeof(*s->shards));
    int ret = 0;
    for (uint32_t i = 0; i < count && ret == 0; i++) {
        struct metrics__shard *sh = &s->shards[i];
        atomic_init(&sh->asked, 0);
        atomic_init(&sh->handed, 0);
        ret = init_half(&sh->half[0], config, opts);
        ret = ret != 0 ? ret : init_half(&sh->half[1], config, opts);
        warm_scratch(config->tokenizer, &sh->scratch);
    }
    if (ret != 0) {
        metrics_shards_free(s);
        return ret;
    }
    *out = s;
    return 0;
}

static void slices_free(struct metrics__slices *sl)
{
    for (size_t i = 0; i < sl->count; i++) {
        metrics_run_free(sl->open[i].run);
    }
    for (size_t i = 0; i < sl->spare_count; i++) {
        metrics_run_free(sl->spare[i]);
    }
    free(sl->open);
    free(sl->spare);
    *sl = (struct metrics__slices){0};
}

void metrics_shards_free(struct metrics_shards *s)
{
    if (s == NULL) {
        return;
    }
    for (uint32_t i = 0; i < s->count; i++) {
        metrics_results_free(&s->shards[i].half[0]);
        metrics_results_free(&s->shards[i].half[1]);
        slices_free(&s->shards[i].slices[0]);
        slices_free(&s->shards[i].slices[1]);
        tokenizer_scratch_free(&s->shards[i].scratch);
    }
    free(s->shards);
    free(s);
}

int metrics_shards_slices(struct metrics_shards *s, struct metrics_slices *into)
{
    if (into == NULL || into->slice_ns <= 0 || s->slices != NULL) {
        return -EINVAL;
    }
    s->slices = into;
    /* Room for a few open slices per half before the run: a half holds the slices its
     * records started in since the last hand-off, rarely more than two. */
    for (uint32_t i = 0; i < s->count; i++) {
        for (int h = 0; h < 2; h++) {
            struct metrics__slices *sl = &s->shards[i].slices[h];
            sl->cap = 8;
            sl->open = calloc(sl->cap, sizeof(*sl->open));
            if (sl->open == NULL) {
                return -ENOMEM;
            }
        }
    }
    return 0;
}

/* slice_run returns the run of slice `index` in sl: the one open, a spare, or a new one
 * (NULL when out of memory). On the shard's thread. */
static struct metrics_run *slice_run(struct metrics_shards *s, struct metrics__slices *sl,
                                     uint64_t index)
{
    for (size_t i = sl->count; i > 0; i--) { /* the latest slices last */
        if (sl->open[i - 1].index == index) {
            return sl->open[i - 1].run;
        }
    }
    if (sl->count == sl->cap) {
        size_t cap = sl->cap * 2;
        struct metrics__slice *open = realloc(sl->open, cap * sizeof(*open));
        if (open == NULL) {
            return NULL;
        }
        sl->open = open;
        sl->cap = cap;
    }
    struct metrics_run *run = NULL;
    if (sl->spare_count > 0) {
        run = sl->spare[--sl->spare_count];
    } else if (metrics_run_new(&s->slices->config, &run) != 0) {
        return NULL;
    }
    sl->open[sl->count++] = (struct metrics__slice){.index = index, .run = run};
    return run;
}

/* slice_add adds a record to the timeslice its request started in, as metrics_slices_add
 * does on the coordinator. */
static void slice_add(struct metrics_shards *s, struct metrics__slices *sl,
                      const struct record *rec, const struct metrics_record *m)
{
    uint64_t index = 0;
    enum metrics_slice_of of = metrics_slices_index(s->slices, rec->wall_start_ns, &index);
    if (of == METRICS_SLICE_NONE) {
        return;
    }
    struct metrics_run *run = of == METRICS_SLICE_IN ? slice_run(s, sl, index) : NULL;
    if (run == NULL) {
        sl->dropped++;
        return;
    }
    metrics_run_add(run, &m->request, &m->values);
}

/* take_slices merges a half's timeslices into the run's, on the coordinator, and keeps their
 * emptied runs as the half's spares. */
static int take_slices(struct metrics_shards *s, struct metrics__slices *sl)
{
    for (size_t i = 0; i < sl->count; i++) {
        struct metrics__slice *slice = &sl->open[i];
        int ret = metrics_slices_merge(s->slices, slice->index, slice->run);
        s->slice_error = s->slice_error != 0 ? s->slice_error : ret;
        metrics_run_reset(slice->run);
        bool kept = sl->spare_count < sl->spare_cap;
        if (!kept) {
            size_t cap = sl->spare_cap > 0 ? sl->spare_cap * 2 : 8;
            struct metrics_run **spare = realloc(sl->spare, cap * sizeof(*spare));
            if (spare != NULL) {
                sl->spare = spare;
                sl->spare_cap = cap;
                kept = true;
            }
        }
        if (kept) {
            sl->spare[sl->spare_count++] = slice->run;
        } else {
            metrics_run_free(slice->run);
        }
    }
    sl->count = 0;
    s->slices->dropped += sl->dropped;
    sl->dropped = 0;
    return s->slice_error;
}

void metrics_shards_record(struct metrics_shards *s, uint32_t shard, const struct record *rec)
{
    struct metrics__shard *sh = &s->shards[shard];
    uint32_t handed = atomic_load_explicit(&sh->handed, memory_order_relaxed);
    if (atomic_load_explicit(&sh->asked, memory_order_acquire) != handed) {
        handed++;
        atomic_store_explicit(&sh->handed, handed, memory_order_release);
    }
    struct metrics_results *half = &sh->half[handed % 2];
    struct metrics_record *m = rec->annex;
    int64_t *content = rec->event_count <= s->content_max ? (int64_t *)(m + 1) : NULL;
    metrics_record_compute_in(half, &sh->scratch, content, rec, m);
    metrics_results_add(half, rec, m);
    if (s->slices != NULL) {
        slice_add(s, &sh->slices[handed % 2], rec, m);
    }
}

const struct metrics_record *metrics_shards_of(const struct record *rec)
{
    return rec->annex;
}

/* take_half merges half h of shard `sh` into results (and its timeslices into the run's) and
 * empties it. */
static int take_half(struct metrics_shards *s, struct metrics__shard *sh, uint32_t h,
                     struct metrics_results *results)
{
    (void)metrics_results_merge(results, &sh->half[h]); /* same options: same layouts */
    metrics_results_reset(&sh->half[h]);
    return s->slices != NULL ? take_slices(s, &sh->slices[h]) : 0;
}

/* take_handed merges into results the half shard `sh` handed over since the
 * last collect, if any, and empties it. */
static int take_handed(struct metrics_shards *s, struct metrics__shard *sh,
                       struct metrics_results *results)
{
    uint32_t handed = atomic_load_explicit(&sh->handed, memory_order_acquire);
    int ret = 0;
    if (handed != sh->merged) {
        ret = take_half(s, sh, sh->merged % 2, results);
        sh->merged = handed;
    }
    return ret;
}

int metrics_shards_collect(struct metrics_shards *s, struct metrics_results *results)
{
    int ret = 0;
    for (uint32_t i = 0; i < s->count; i++) {
        struct metrics__shard *sh = &s->shards[i];
        int taken = take_handed(s, sh, results);
        ret = ret != 0 ? ret : taken;
        /* Ask for the next half once this one is merged and emptied: the
         * release orders the emptying before the shard writes there again. */
        if (atomic_load_explicit(&sh->asked, memory_order_relaxed) == sh->merged) {
            atomic_store_explicit(&sh->asked, sh->merged + 1, memory_order_release);
        }
    }
    return ret;
}

int metrics_shards_collect_all(struct metrics_shards *s, struct metrics_results *results)
{
    int ret = 0;
    for (uint32_t i = 0; i < s->count; i++) {
        struct metrics__shard *sh = &s->shards[i];
        int taken = take_handed(s, sh, results);
        ret = ret != 0 ? ret : taken;
        taken = take_half(s, sh, sh->merged % 2, results);
        ret = ret != 0 ? ret : taken;
    }
    return ret;
}
