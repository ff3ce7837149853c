/*
 * jsondoc.h - a struct jmespath_doc over a jansson tree, for the tests and
 * the fuzz target: node ids index a table of the values handed out.
 */
#ifndef RINGPERF_TESTS_JMESPATH_JSONDOC_H
#define RINGPERF_TESTS_JMESPATH_JSONDOC_H

#include <jansson.h>

#include "jmespath/jmespath.h"

#define JSONDOC_NODES_MAX 4096

struct jsondoc {
    json_t *node[JSONDOC_NODES_MAX];
    size_t pos[JSONDOC_NODES_MAX]; /* index in its parent */
    int count;
};

static int jsondoc_add(struct jsondoc *d, json_t *v, size_t pos)
{
    if (v == NULL || d->count == JSONDOC_NODES_MAX) {
        return -1;
    }
    d->node[d->count] = v;
    d->pos[d->count] = pos;
    return d->count++;
}

static enum jmespath_kind jsondoc_kind(const void *ctx, int node)
{
    json_t *v = ((const struct jsondoc *)ctx)->node[node];
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return JMESPATH_OBJECT;
    case JSON_ARRAY:
        return JMESPATH_ARRAY;
    case JSON_STRING:
        return JMESPATH_STRING;
    case JSON_INTEGER:
    case JSON_REAL:
        return JMESPATH_NUMBER;
    case JSON_TRUE:
        return JMESPATH_TRUE;
    case JSON_FALSE:
        return JMESPATH_FALSE;
    default:
        return JMESPATH_NULL;
    }
}

static int jsondoc_size(const void *ctx, int node)
{
    json_t *v = ((const struct jsondoc *)ctx)->node[node];
    return (int)(json_is_array(v) ? json_array_size(v) : json_object_size(v));
}

static json_t *jsondoc_member(json_t *obj, size_t k)
{
    void *it = json_object_iter(obj);
    while (it != NULL && k-- > 0) {
        it = json_object_iter_next(obj, it);
    }
    return it != NULL ? json_object_iter_value(it) : NULL;
}

/* The callbacks take a const context but hand out new ids: the table is the
 * test's own, so casting the const away is safe here. */
static int jsondoc_child(const void *ctx, int node, size_t k)
{
    struct jsondoc *d = (struct jsondoc *)(uintptr_t)ctx;
    json_t *v = d->node[node];
    return jsondoc_add(d, json_is_array(v) ? json_array_get(v, k) : jsondoc_member(v, k), k);
}

static int jsondoc_get(const void *ctx, int node, const char *name, size_t len)
{
    struct jsondoc *d = (struct jsondoc *)(uintptr_t)ctx;
    return jsondoc_add(d, json_object_getn(d->node[node], name, len), 0);
}

static int jsondoc_at(const void *ctx, int node, int i)
{
    return jsondoc_child(ctx, node, (size_t)i);
}

static int jsondoc_first(const void *ctx, int node)
{
    return jsondoc_child(ctx, node, 0);
}

static int jsondoc_next(const void *ctx, int parent, int child)
{
    if (child < 0) {
        return -1; /* the table was full */
    }
    return jsondoc_child(ctx, parent, ((const struct jsondoc *)ctx)->pos[child] + 1);
}

/* jsondoc_init makes *doc read `root` (borrowed) through *d. */
static inline void jsondoc_init(struct jsondoc *d, json_t *root, struct jmespath_doc *doc)
{
    d->count = 0;
    *doc = (struct jmespath_doc){
        .ctx = d,
        .root = jsondoc_add(d, root, 0),
        .kind = jsondoc_kind,
        .size = jsondoc_size,
        .get = jsondoc_get,
        .at = jsondoc_at,
        .first = jsondoc_first,
        .next = jsondoc_next,
    };
}

/* jsondoc_value returns a search result as a new jansson value (a list's
 * elements copied by reference). */
static inline json_t *jsondoc_value(const struct jmespath_doc *doc,
                                    const struct jmespath_arena *arena,
                                    const struct jmespath_value *v)
{
    if (!v->is_list) {
        if (v->node < 0) {
            return json_null();
        }
        return json_incref(((const struct jsondoc *)doc->ctx)->node[v->node]);
    }
    json_t *list = json_array();
    for (size_t i = 0; i < v->count; i++) {
        struct jmespath_value e = jmespath_value_at(doc, arena, v, i);
        json_array_append_new(list, jsondoc_value(doc, arena, &e));
    }
    return list;
}

#endif
