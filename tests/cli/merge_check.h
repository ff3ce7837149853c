/*
 * merge_check.h - checks shared by the merge and MPI end-to-end tests
 * (tests/cli/test_merge.c, tests/cluster/test_mpi.c): the records of a merged
 * run, and its summary against another run's or against the records.
 */
#ifndef RINGPERF_TESTS_CLI_MERGE_CHECK_H
#define RINGPERF_TESTS_CLI_MERGE_CHECK_H

#include <criterion/criterion.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *load_json(const char *dir, const char *name)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    cr_assert_not_null(root, "%s: %s", path, err.text);
    return root;
}

/* for_each_record calls fn on every line of dir/profile_export.jsonl and
 * returns the line count. */
static size_t for_each_record(const char *dir, void (*fn)(json_t *rec, void *ctx), void *ctx)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/profile_export.jsonl", dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s exists", path);
    char *line = NULL;
    size_t cap = 0;
    size_t n = 0;
    while (getline(&line, &cap, f) > 0) {
        json_error_t err;
        json_t *rec = json_loads(line, 0, &err);
        cr_assert_not_null(rec, "line %zu: %s", n + 1, err.text);
        fn(rec, ctx);
        json_decref(rec);
        n++;
    }
    free(line);
    fclose(f);
    return n;
}

struct ordinal_check {
    unsigned char *seen;
    size_t total;
    int rank_count;
    size_t ranks[8];
};

static void check_ordinal(json_t *rec, void *ctx)
{
    struct ordinal_check *c = ctx;
    json_t *meta = json_object_get(rec, "metadata");
    json_int_t ordinal = json_integer_value(json_object_get(meta, "session_num"));
    cr_assert(ordinal >= 0 && (size_t)ordinal < c->total, "ordinal %lld in range",
              (long long)ordinal);
    cr_assert_eq(c->seen[ordinal], 0, "ordinal %lld appears once", (long long)ordinal);
    c->seen[ordinal] = 1;
    json_t *rank = json_object_get(meta, "rank");
    cr_assert(json_is_integer(rank), "every merged record names its rank");
    cr_assert(json_is_string(json_object_get(meta, "host")), "and its host");
    json_int_t r = json_integer_value(rank);
    if (r >= 0 && r < 8) {
        c->ranks[r]++;
        cr_assert_eq(ordinal % c->rank_count, r, "ordinal %lld belongs to rank %lld",
                     (long long)ordinal, (long long)(ordinal % c->rank_count));
    }
}

/* assert_unique_ordinals checks dir's records: exactly `total`, ordinals
 * 0..total-1 once each, each with a rank, and ordinal i from rank i mod
 * `ranks`. */
static void assert_unique_ordinals(const char *dir, size_t total, int ranks)
{
    struct ordinal_check c = {.seen = calloc(total, 1), .total = total, .rank_count = ranks};
    size_t n = for_each_record(dir, check_ordinal, &c);
    cr_assert_eq(n, total, "%zu records, %zu requested", n, total);
    for (int r = 0; r < ranks && r < 8; r++) {
        size_t want = total / (size_t)ranks + ((size_t)r < total % (size_t)ranks);
        cr_assert_eq(c.ranks[r], want, "rank %d ran %zu of its %zu", r, c.ranks[r], want);
    }
    free(c.seen);
}

static bool is_metric(json_t *v)
{
    return json_is_object(v) && json_object_get(v, "unit") != NULL;
}

/* assert_same_metrics requires the summaries a and b to hold the same
 * metrics with the same statistics, exactly. */
static void assert_same_metrics(json_t *a, json_t *b)
{
    const char *key;
    json_t *value;
    size_t count = 0;
    json_object_foreach(a, key, value)
    {
        if (!is_metric(value)) {
            continue;
        }
        count++;
        json_t *other = json_object_get(b, key);
        char *x = json_dumps(value, JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
        char *y =
            other != NULL ? json_dumps(other, JSON_SORT_KEYS | JSON_REAL_PRECISION(17)) : NULL;
        cr_assert(y != NULL && strcmp(x, y) == 0, "%s: %s vs %s", key, x, y != NULL ? y : "-");
        free(x);
        free(y);
    }
    json_object_foreach(b, key, value)
    {
        count -= is_metric(value);
    }
    cr_assert_eq(count, 0, "the same set of metrics");
}

struct metric_values {
    const char *tag;
    double *ns;
    size_t n;
};

static void collect_metric(json_t *rec, void *ctx)
{
    struct metric_values *m = ctx;
    json_t *v = json_object_get(json_object_get(json_object_get(rec, "metrics"), m->tag), "value");
    if (json_is_number(v)) {
        m->ns = realloc(m->ns, (m->n + 1) * sizeof(*m->ns));
        m->ns[m->n++] = round(json_number_value(v) * 1e6);
    }
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a;
    double y = *(const double *)b;
    return (x > y) - (x < y);
}

static void assert_close(double got, double want, const char *what)
{
    cr_assert(fabs(got - want) <= 1e-9 * fabs(want) + 1e-9,
              "%s: %.9f in the summary, %.9f "
              "from the records",
              what, got, want);
}

/* assert_percentiles_from_records recomputes a millisecond metric's
 * statistics from dir's records (NumPy's linear percentiles) and requires
 * the summary to hold them. */
static void assert_percentiles_from_records(const char *dir, const char *tag)
{
    struct metric_values m = {.tag = tag};
    for_each_record(dir, collect_metric, &m);
    cr_assert_gt(m.n, 0, "%s has values", tag);
    qsort(m.ns, m.n, sizeof(*m.ns), by_value);
    json_t *summary = load_json(dir, "profile_export_aiperf.json");
    json_t *stats = json_object_get(summary, tag);
    double sum = 0;
    for (size_t i = 0; i < m.n; i++) {
        sum += m.ns[i];
    }
    assert_close(json_number_value(json_object_get(stats, "avg")), sum / (double)m.n / 1e6, "avg");
    assert_close(json_number_value(json_object_get(stats, "min")), m.ns[0] / 1e6, "min");
    assert_close(json_number_value(json_object_get(stats, "max")), m.ns[m.n - 1] / 1e6, "max");
    static const char *const names[] = {"p50", "p90", "p99"};
    static const double pcts[] = {50, 90, 99};
    for (size_t k = 0; k < 3; k++) {
        double rank = pcts[k] / 100.0 * (double)(m.n - 1);
        size_t lo = (size_t)floor(rank);
        size_t hi = lo + 1 < m.n ? lo + 1 : lo;
        double want = m.ns[lo] + (m.ns[hi] - m.ns[lo]) * (rank - (double)lo);
        assert_close(json_number_value(json_object_get(stats, names[k])), want / 1e6, names[k]);
    }
    json_decref(summary);
    free(m.ns);
}

#endif
