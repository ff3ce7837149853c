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

struct metrics__shard {
    alignas(64) _Atomic uint32_t asked;  /* hand-offs the coordinator asked for */
    alignas(64) _Atomic uint32_t handed; /* hand-offs the shard made */
    uint32_t merged;                     /* hand-offs the coordinator merged */
    struct tokenizer_scratch scratch;    /* the shard thread's */
    struct metrics_results half[2];
};

struct metrics_shards {
    uint32_t count;
    size_t content_max; /* events a record can hold: the annex's room */
    struct metrics__shard *shards;
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

void metrics_shards_free(struct metrics_shards *s)
{
    if (s == NULL) {
        return;
    }
    for (uint32_t i = 0; i < s->count; i++) {
        metrics_results_free(&s->shards[i].half[0]);
        metrics_results_free(&s->shards[i].half[1]);
        tokenizer_scratch_free(&s->shards[i].scratch);
    }
    free(s->shards);
    free(s);
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
}

const struct metrics_record *metrics_shards_of(const struct record *rec)
{
    return rec->annex;
}

/* take_handed merges into results the half shard `sh` handed over since the
 * last collect, if any, and empties it. */
static void take_handed(struct metrics__shard *sh, struct metrics_results *results)
{
    uint32_t handed = atomic_load_explicit(&sh->handed, memory_order_acquire);
    if (handed != sh->merged) {
        struct metrics_results *half = &sh->half[sh->merged % 2];
        (void)metrics_results_merge(results, half); /* same options: same layouts */
        metrics_results_reset(half);
        sh->merged = handed;
    }
}

void metrics_shards_collect(struct metrics_shards *s, struct metrics_results *results)
{
    for (uint32_t i = 0; i < s->count; i++) {
        struct metrics__shard *sh = &s->shards[i];
        take_handed(sh, results);
        /* Ask for the next half once this one is merged and emptied: the
         * release orders the emptying before the shard writes there again. */
        if (atomic_load_explicit(&sh->asked, memory_order_relaxed) == sh->merged) {
            atomic_store_explicit(&sh->asked, sh->merged + 1, memory_order_release);
        }
    }
}

void metrics_shards_collect_all(struct metrics_shards *s, struct metrics_results *results)
{
    for (uint32_t i = 0; i < s->count; i++) {
        struct metrics__shard *sh = &s->shards[i];
        take_handed(sh, results);
        struct metrics_results *active = &sh->half[sh->merged % 2];
        (void)metrics_results_merge(results, active);
        metrics_results_reset(active);
    }
}
