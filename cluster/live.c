/*
 * cluster_live.c - the live figures of an MPI run on rank 0's API and
 * progress display: at every progress tick (on the coordinator thread,
 * once a second) each other rank posts a snapshot of its counts and live
 * histograms to rank 0 without waiting (cluster_live_post; a tick whose
 * previous snapshot is still in flight is skipped), and rank 0 takes what
 * has arrived (cluster_live_poll) and adds the latest of every rank to its
 * own figures before they are shown. The shards never see any of it.
 *
 * A snapshot is cumulative (every count since the start), so rank 0 keeps
 * only the latest one of each rank; the histograms travel as their
 * non-empty buckets (index, count) with their summaries, which add up
 * exactly (metrics_hist_add_raw): the merged percentiles are those of one
 * histogram fed every rank's values. The ranks run the same binary with the
 * same flags, so the layouts agree; a message that does not fit them is
 * dropped.
 */
#include "cluster/cluster.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LIVE_MAGIC 0x564c5052u /* "RPLV" */
#define POLLS_PER_TICK_PER_RANK 4

/* live_head opens every snapshot; shard rows, then per metric a summary,
 * a bucket count and the buckets follow. */
struct live_head {
    uint32_t magic;
    uint32_t final; /* the rank's last snapshot, after its run */
    uint64_t finished;
    uint64_t success;
    uint64_t errors;
    uint64_t cancelled;
    uint32_t shard_count;
    uint32_t metric_count; /* API_METRIC_COUNT, or 0 before the run has histograms */
};

struct live_bucket {
    uint64_t index;
    uint64_t count;
};

struct cluster_share_live {
    const struct metrics_results *results; /* borrowed: this rank's */
    struct cluster_share_shards view;      /* borrowed: this rank's per-shard counts */
    size_t cap;                            /* bytes of the largest snapshot */
    uint8_t *out;                          /* other ranks: the snapshot in flight */
    uint8_t *in;                           /* rank 0: receive buffer */
    uint8_t **latest;                      /* rank 0: each rank's latest snapshot */
    size_t *latest_len;
    bool *final_seen;
    struct metrics_hist *merged[API_METRIC_COUNT]; /* rank 0: scratch */
    uint64_t *dense;                               /* rank 0: scratch bucket counts */
    size_t dense_len;
};

static const struct metrics_hist *own_hist(const struct metrics_results *results, int m)
{
    if (results == NULL || results->run == NULL) {
        return NULL;
    }
    return metrics_run_record_hist(results->run, api_metric_info_of((enum api_metric)m)->source);
}

/* live_alloc sizes the buffers from this rank's histograms. */
static int live_alloc(struct cluster_share *cc, const struct metrics_results *results)
{
    struct cluster_share_live *l = calloc(1, sizeof(*l));
    if (l == NULL) {
        return -ENOMEM;
    }
    cc->live = l;
    l->results = results;
    l->cap = sizeof(struct live_head) + API_SHARDS_MAX * sizeof(struct api_shard_view);
    for (int m = 0; m < API_METRIC_COUNT; m++) {
        const struct metrics_hist *h = own_hist(results, m);
        size_t len = 0;
        if (h != NULL) {
            metrics_hist_counts(h, &len);
        }
        l->cap += sizeof(struct metrics_hist_summary) + sizeof(uint64_t) +
                  len * sizeof(struct live_bucket);
        l->dense_len = len > l->dense_len ? len : l->dense_len;
    }
    if (cc->index != 0) {
        l->out = malloc(l->cap);
        return l->out != NULL ? 0 : -ENOMEM;
    }
    l->in = malloc(l->cap);
    l->latest = calloc((size_t)cc->count, sizeof(*l->latest));
    l->latest_len = calloc((size_t)cc->count, sizeof(*l->latest_len));
    l->final_seen = calloc((size_t)cc->count, sizeof(*l->final_seen));
    l->dense = calloc(l->dense_len > 0 ? l->dense_len : 1, sizeof(*l->dense));
    if (l->in == NULL || l->latest == NULL || l->latest_len == NULL || l->final_seen == NULL ||
        l->dense == NULL) {
        return -ENOMEM;
    }
    for (int m = 0; m < API_METRIC_COUNT; m++) {
        const struct metrics_hist *h = own_hist(results, m);
        struct metrics_hist_layout layout;
        if (h == NULL) {
            continue;
        }
        metrics_hist_layout(h, &layout);
        if (metrics_hist_new(layout.lowest_trackable, layout.highest_trackable,
                             layout.significant_figures, &l->merged[m]) != 0) {
            return -ENOMEM;
        }
    }
    return 0;
}

/* encode writes this rank's snapshot into l->out; returns its length. */
static size_t encode(const struct cluster_share_live *l, bool final)
{
    const struct metrics_results *r = l->results;
    struct live_head head = {
        .magic = LIVE_MAGIC,
        .final = final,
        .finished = r->success_count + r->error_count,
        .success = r->success_count,
        .errors = r->error_count,
        .cancelled = r->cancelled_count,
        .shard_count = l->view.count != NULL ? *l->view.count : 0,
        .metric_count = r->run != NULL ? API_METRIC_COUNT : 0,
    };
    size_t at = sizeof(head);
    memcpy(l->out, &head, sizeof(head));
    if (head.shard_count > 0) {
        memcpy(l->out + at, l->view.rows, head.shard_count * sizeof(l->view.rows[0]));
        at += head.shard_count * sizeof(l->view.rows[0]);
    }
    for (uint32_t m = 0; m < head.metric_count; m++) {
        const struct metrics_hist *h = own_hist(r, (int)m);
        struct metrics_hist_summary sum;
        metrics_hist_summary(h, &sum);
        memcpy(l->out + at, &sum, sizeof(sum));
        at += sizeof(sum);
        size_t len = 0;
        const uint64_t *counts = metrics_hist_counts(h, &len);
        size_t count_at = at;
        at += sizeof(uint64_t);
        uint64_t nonzero = 0;
        for (size_t i = 0; i < len; i++) {
            if (counts[i] != 0) {
                struct live_bucket b = {i, counts[i]};
                memcpy(l->out + at, &b, sizeof(b));
                at += sizeof(b);
                nonzero++;
            }
        }
        memcpy(l->out + count_at, &nonzero, sizeof(nonzero));
    }
    return at;
}

/* store keeps `len` bytes from rank `src` as its latest snapshot. */
static void store(struct cluster_share *cc, int src, const uint8_t *msg, size_t len)
{
    struct cluster_share_live *l = cc->live;
    struct live_head head;
    if (src <= 0 || src >= cc->count || len < sizeof(head)) {
        return;
    }
    memcpy(&head, msg, sizeof(head));
    if (head.magic != LIVE_MAGIC) {
        return;
    }
    uint8_t *copy = realloc(l->latest[src], len);
    if (copy == NULL) {
        return;
    }
    memcpy(copy, msg, len);
    l->latest[src] = copy;
    l->latest_len[src] = len;
    l->final_seen[src] |= head.final != 0;
}

/* add_metric adds metric m of one snapshot (at *at, `end` bytes in all) to
 * l->merged[m]; returns false when the message does not fit. */
static bool add_metric(struct cluster_share_live *l, int m, const uint8_t *msg, size_t *at,
                       size_t end)
{
    struct metrics_hist_summary sum;
    uint64_t nonzero = 0;
    if (end - *at < sizeof(sum) + sizeof(nonzero)) {
        return false;
    }
    memcpy(&sum, msg + *at, sizeof(sum));
    memcpy(&nonzero, msg + *at + sizeof(sum), sizeof(nonzero));
    *at += sizeof(sum) + sizeof(nonzero);
    if (nonzero > (end - *at) / sizeof(struct live_bucket)) {
        return false;
    }
    bool ok = l->merged[m] != NULL;
    for (uint64_t i = 0; i < nonzero; i++) {
        struct live_bucket b;
        memcpy(&b, msg + *at, sizeof(b));
        *at += sizeof(b);
        ok = ok && b.index < l->dense_len;
        if (ok) {
            l->dense[b.index] += b.count;
        }
    }
    if (ok) {
        struct metrics_hist_layout layout;
        metrics_hist_layout(l->merged[m], &layout);
        ok = metrics_hist_add_raw(l->merged[m], &layout, l->dense, layout.counts_len, &sum) == 0;
    }
    memset(l->dense, 0, l->dense_len * sizeof(*l->dense));
    return ok;
}

/* add_rank adds one rank's latest snapshot to snap and the merged
 * histograms. */
static void add_rank(struct cluster_share_live *l, const uint8_t *msg, size_t len,
                     struct api_snapshot *snap)
{
    struct live_head head;
    memcpy(&head, msg, sizeof(head));
    size_t at = sizeof(head);
    size_t rows = (size_t)head.shard_count * sizeof(struct api_shard_view);
    if (head.shard_count > API_SHARDS_MAX || len - at < rows) {
        return;
    }
    snap->finished += head.finished;
    snap->success += head.success;
    snap->errors += head.errors;
    snap->cancelled += head.cancelled;
    for (uint32_t i = 0; i < head.shard_count && snap->shard_count < API_SHARDS_MAX; i++) {
        memcpy(&snap->shards[snap->shard_count++], msg + at + i * sizeof(struct api_shard_view),
               sizeof(struct api_shard_view));
    }
    at += rows;
    for (uint32_t m = 0; m < head.metric_count && m < API_METRIC_COUNT; m++) {
        if (!add_metric(l, (int)m, msg, &at, len)) {
            return;
        }
    }
}

/* merge_into replaces snap's figures with this rank's plus every other
 * rank's latest. */
static void merge_into(struct cluster_share *cc, const struct metrics_results *results,
                       struct api_snapshot *snap)
{
    struct cluster_share_live *l = cc->live;
    for (int m = 0; m < API_METRIC_COUNT; m++) {
        const struct metrics_hist *own = own_hist(results, m);
        if (l->merged[m] != NULL) {
            metrics_hist_reset(l->merged[m]);
            if (own != NULL) {
                metrics_hist_merge(l->merged[m], own);
            }
        }
    }
    for (int r = 1; r < cc->count; r++) {
        if (l->latest[r] != NULL) {
            add_rank(l, l->latest[r], l->latest_len[r], snap);
        }
    }
    for (int m = 0; m < API_METRIC_COUNT; m++) {
        if (l->merged[m] != NULL) {
            api_hist_view_fill((enum api_metric)m, l->merged[m], &snap->hist[m]);
        }
    }
    if (snap->total > 0 || cc->whole_total == 0) {
        snap->total = cc->whole_total;
    }
    double elapsed_s = (double)snap->elapsed_ns / 1e9;
    snap->request_throughput = elapsed_s > 0 ? (double)snap->success / elapsed_s : 0;
    snap->output_token_throughput = elapsed_s > 0 ? snap->hist[API_M_OSL].sum / elapsed_s : 0;
}

void cluster_share_live_snapshot(void *ctx, const struct metrics_results *results,
                                 struct api_snapshot *snap)
{
    struct cluster_share *cc = ctx;
    struct cluster_share_live *l = cc->live;
    if (cc->index != 0) {
        if (!cluster_live_busy(cc->cluster)) {
            size_t len = encode(l, false);
            cluster_live_post(cc->cluster, l->out, len);
        }
        return;
    }
    int src = 0;
    size_t len = 0;
    for (int i = 0; i < POLLS_PER_TICK_PER_RANK * cc->count; i++) {
        int got = cluster_live_poll(cc->cluster, &src, l->in, l->cap, &len);
        if (got == 1) {
            store(cc, src, l->in, len);
        } else if (got != -EMSGSIZE) {
            break; /* none pending, or an error: try again next tick */
        }
    }
    merge_into(cc, results, snap);
}

int cluster_share_live_attach(struct cluster_share *cc, const struct cluster_share_shards *shards,
                              const struct metrics_results *results)
{
    if (!cc->mpi) {
        return 0;
    }
    int ret = live_alloc(cc, results);
    if (ret != 0) {
        fprintf(stderr, "ringperf profile: out of memory\n");
        return ret;
    }
    cc->live->view = *shards;
    return 0;
}

int cluster_share_live_end(struct cluster_share *cc)
{
    struct cluster_share_live *l = cc->live;
    if (!cc->mpi || l == NULL) {
        return 0;
    }
    if (cc->index != 0) {
        int ret = cluster_live_flush(cc->cluster);
        if (ret == 0) {
            size_t len = encode(l, true);
            ret = cluster_live_post(cc->cluster, l->out, len);
        }
        return ret == 0 ? cluster_live_flush(cc->cluster) : ret;
    }
    /* Every rank's snapshots arrive in order: drain them up to its last. */
    for (int r = 1; r < cc->count; r++) {
        while (!l->final_seen[r]) {
            size_t len = 0;
            int ret = cluster_live_recv(cc->cluster, r, l->in, l->cap, &len);
            if (ret == -EMSGSIZE) {
                continue;
            }
            if (ret != 0) {
                return ret;
            }
            store(cc, r, l->in, len);
        }
    }
    return 0;
}

void cluster_share_live_free(struct cluster_share *cc)
{
    struct cluster_share_live *l = cc->live;
    if (l == NULL) {
        return;
    }
    for (int r = 0; l->latest != NULL && r < cc->count; r++) {
        free(l->latest[r]);
    }
    for (int m = 0; m < API_METRIC_COUNT; m++) {
        metrics_hist_free(l->merged[m]);
    }
    free(l->latest);
    free(l->latest_len);
    free(l->final_seen);
    free(l->dense);
    free(l->in);
    free(l->out);
    free(l);
    cc->live = NULL;
}
