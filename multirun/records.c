/*
 * records.c - per-request values from a run's profile_export.jsonl: one metric's, for the
 * distribution convergence test (each line's metrics.<tag>.value, a number or a list of
 * them), and every metric's, for the collated aggregate (AIPerf's jsonl loader: profiling
 * records without an error, scalar values only).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "multirun/multirun_internal.h"

/* RECORD_VALUES_MAX bounds the values kept from all runs together (512 MiB of doubles). */
#define RECORD_VALUES_MAX (UINT64_C(1) << 26)

int multirun__values_push(struct multirun__values *v, double x)
{
    if (v->count == v->cap) {
        if (v->cap >= RECORD_VALUES_MAX) {
            return -E2BIG;
        }
        size_t cap = v->cap > 0 ? v->cap * 2 : 1024;
        double *grown = realloc(v->items, cap * sizeof(*grown));
        if (grown == NULL) {
            return -ENOMEM;
        }
        v->items = grown;
        v->cap = cap;
    }
    v->items[v->count++] = x;
    return 0;
}

static int push_value(struct multirun__values *v, json_t *value)
{
    if (json_is_number(value)) {
        return multirun__values_push(v, json_number_value(value));
    }
    size_t i;
    json_t *item;
    int ret = 0;
    json_array_foreach(value, i, item)
    {
        if (ret == 0 && json_is_number(item)) {
            ret = multirun__values_push(v, json_number_value(item));
        }
    }
    return ret;
}

/* each_record calls fn with each line of the records file at path, parsed (NULL when a
 * line is not JSON), until fn returns nonzero. Returns that, 0, or -errno. */
static int each_record(const char *path, int (*fn)(json_t *rec, void *ctx), void *ctx)
{
    FILE *in = fopen(path, "r");
    if (in == NULL) {
        return -errno;
    }
    char *line = NULL;
    size_t cap = 0;
    int ret = 0;
    while (ret == 0 && getline(&line, &cap, in) > 0) {
        json_t *rec = json_loads(line, JSON_DECODE_ANY, NULL);
        ret = fn(rec, ctx);
        json_decref(rec);
    }
    free(line);
    fclose(in);
    return ret;
}

struct one_tag {
    const char *tag;
    struct multirun__values *out;
};

static int add_tag_value(json_t *rec, void *ctx)
{
    struct one_tag *one = ctx;
    json_t *metric = json_object_get(json_object_get(rec, "metrics"), one->tag);
    return metric != NULL ? push_value(one->out, json_object_get(metric, "value")) : 0;
}

int multirun__record_values(const char *path, const char *tag, struct multirun__values *out)
{
    struct one_tag one = {.tag = tag, .out = out};
    return each_record(path, add_tag_value, &one);
}

struct multirun__values *multirun__tagged_values(struct multirun__tagged *t, const char *tag)
{
    for (size_t i = 0; i < t->count; i++) {
        if (strcmp(t->items[i].tag, tag) == 0) {
            return &t->items[i].values;
        }
    }
    if (t->count == MULTIRUN__TAGS_MAX || strlen(tag) >= MULTIRUN__KEY_BYTES) {
        return NULL;
    }
    if (t->count == t->cap) {
        size_t cap = t->cap > 0 ? t->cap * 2 : 64;
        struct multirun__tag_values *grown = realloc(t->items, cap * sizeof(*grown));
        if (grown == NULL) {
            return NULL;
        }
        t->items = grown;
        t->cap = cap;
    }
    struct multirun__tag_values *item = &t->items[t->count++];
    *item = (struct multirun__tag_values){0};
    snprintf(item->tag, sizeof(item->tag), "%s", tag);
    return &item->values;
}

/* add_all_values takes a profiling record's scalar values, as AIPerf's loader does: a
 * warmup record, an errored one or a list value (float() of a list fails there) is skipped. */
static int add_all_values(json_t *rec, void *ctx)
{
    const char *phase =
        json_string_value(json_object_get(json_object_get(rec, "metadata"), "benchmark_phase"));
    json_t *error = json_object_get(rec, "error");
    if (phase == NULL || strcmp(phase, "profiling") != 0 ||
        (error != NULL && !json_is_null(error))) {
        return 0;
    }
    const char *tag;
    json_t *metric;
    json_object_foreach(json_object_get(rec, "metrics"), tag, metric)
    {
        json_t *value = json_object_get(metric, "value");
        if (!json_is_number(value)) {
            continue;
        }
        struct multirun__values *v = multirun__tagged_values(ctx, tag);
        int ret = v != NULL ? multirun__values_push(v, json_number_value(value)) : -E2BIG;
        if (ret != 0) {
            return ret;
        }
    }
    return 0;
}

int multirun__record_all_values(const char *path, struct multirun__tagged *out)
{
    return each_record(path, add_all_values, out);
}

void multirun__tagged_free(struct multirun__tagged *t)
{
    for (size_t i = 0; i < t->count; i++) {
        multirun__values_free(&t->items[i].values);
    }
    free(t->items);
    *t = (struct multirun__tagged){0};
}

void multirun__values_free(struct multirun__values *v)
{
    free(v->items);
    *v = (struct multirun__values){0};
}
