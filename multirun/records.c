/*
 * records.c - one metric's per-request values from a run's profile_export.jsonl, for the
 * distribution convergence test: each line's metrics.<tag>.value, a number or a list of them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "multirun/multirun_internal.h"

/* RECORD_VALUES_MAX bounds the values kept from all runs together (512 MiB of doubles). */
#define RECORD_VALUES_MAX (UINT64_C(1) << 26)

static int push(struct multirun__values *v, double x)
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
        return push(v, json_number_value(value));
    }
    size_t i;
    json_t *item;
    int ret = 0;
    json_array_foreach(value, i, item)
    {
        if (ret == 0 && json_is_number(item)) {
            ret = push(v, json_number_value(item));
        }
    }
    return ret;
}

int multirun__record_values(const char *path, const char *tag, struct multirun__values *out)
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
        json_t *metric = json_object_get(json_object_get(rec, "metrics"), tag);
        if (metric != NULL) {
            ret = push_value(out, json_object_get(metric, "value"));
        }
        json_decref(rec);
    }
    free(line);
    fclose(in);
    return ret;
}

void multirun__values_free(struct multirun__values *v)
{
    free(v->items);
    *v = (struct multirun__values){0};
}
