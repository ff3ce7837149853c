/*
 * scrape_records.c - what the scraper kept, read back after scrape_stop: each endpoint's fetch
 * figures (AIPerf's endpoint_info, and ringperf's words for what went wrong) and each kept
 * fetch's samples, for the JSONL export.
 */
#include "scrape/scrape_internal.h"

#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a;
    int64_t y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static uint64_t record_hash(const struct scrape__store *st, size_t r)
{
    size_t end = r + 1 < st->record_count ? st->record_begin[r + 1] : st->log_len;
    uint64_t h = 14695981039346656037ULL;
    for (size_t i = st->record_begin[r]; i < end; i++) {
        const unsigned char *b = (const unsigned char *)&st->log_value[i];
        for (size_t k = 0; k < sizeof(double); k++) {
            h = (h ^ b[k]) * 1099511628211ULL;
        }
        h = (h ^ st->log_series[i]) * 1099511628211ULL;
    }
    return h;
}

/* update_intervals fills the update figures of info from the fetch times of endpoint ep. */
static void update_intervals(const struct scrape *s, size_t ep, struct scrape_endpoint_info *info)
{
    const struct scrape__store *st = &s->store;
    int64_t *gaps = malloc((st->record_count + 1) * sizeof(*gaps));
    size_t ngaps = 0;
    uint64_t prev = 0;
    bool have_prev = false;
    int64_t last_update = 0;
    for (size_t r = 0; r < st->record_count; r++) {
        if (st->records[r].endpoint != ep) {
            continue;
        }
        uint64_t h = record_hash(st, r);
        if (have_prev && h == prev) {
            continue;
        }
        have_prev = true;
        prev = h;
        int64_t t = st->records[r].timestamp_ns;
        if (info->unique_updates++ == 0) {
            info->first_update_ns = t;
        } else if (gaps != NULL) {
            gaps[ngaps++] = t - last_update;
        }
        last_update = t;
        info->last_update_ns = t;
    }
    if (ngaps > 0) {
        int64_t sum = 0;
        for (size_t i = 0; i < ngaps; i++) {
            sum += gaps[i];
        }
        info->avg_update_interval_ms = (double)sum / (double)ngaps / 1e6;
        qsort(gaps, ngaps, sizeof(*gaps), cmp_i64);
        info->median_update_interval_ms =
            ngaps % 2 ? (double)gaps[ngaps / 2] / 1e6
                      : (double)(gaps[ngaps / 2 - 1] + gaps[ngaps / 2]) / 2e6;
    }
    free(gaps);
}

void scrape_endpoint_info_of(const struct scrape *s, size_t i, struct scrape_endpoint_info *out)
{
    const struct scrape__endpoint_state *e = &s->eps[i];
    const struct scrape__store *st = &s->store;
    memset(out, 0, sizeof(*out));
    out->url = e->url;
    out->failures = e->failures;
    out->disabled = e->disabled;
    out->dropped = e->dropped;
    memcpy(out->last_error, e->last_error, sizeof(out->last_error));
    memcpy(out->disabled_reason, e->disabled_reason, sizeof(out->disabled_reason));
    int64_t latency_ns = 0;
    for (size_t r = 0; r < st->record_count; r++) {
        const struct scrape_record *rec = &st->records[r];
        if (rec->endpoint != i) {
            continue;
        }
        if (out->fetches++ == 0) {
            out->first_fetch_ns = rec->timestamp_ns;
        }
        out->last_fetch_ns = rec->timestamp_ns;
        latency_ns += rec->latency_ns;
    }
    out->fetches += out->dropped;
    if (out->fetches > out->dropped) {
        out->avg_fetch_latency_ms =
            (double)latency_ns / (double)(out->fetches - out->dropped) / 1e6;
    }
    update_intervals(s, i, out);
}

size_t scrape_record_count(const struct scrape *s)
{
    return s->store.record_count;
}

size_t scrape_record_at(const struct scrape *s, size_t i, struct scrape_record *out)
{
    const struct scrape__store *st = &s->store;
    *out = st->records[i];
    size_t end = i + 1 < st->record_count ? st->record_begin[i + 1] : st->log_len;
    return end - st->record_begin[i];
}

void scrape_record_sample(const struct scrape *s, size_t i, size_t j,
                          struct scrape_sample_view *out)
{
    const struct scrape__store *st = &s->store;
    size_t at = st->record_begin[i] + j;
    const struct scrape__series *se = &st->series[st->log_series[at]];
    const struct scrape__family *f = &st->families[se->family];
    *out = (struct scrape_sample_view){
        .family = f->name,
        .type = f->type,
        .suffix = se->suffix,
        .labels = se->labels,
        .label_count = se->label_count,
        .le = se->le,
        .group = se->group,
        .value = st->log_value[at],
    };
}
