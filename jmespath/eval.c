/*
 * eval.c - searching a compiled expression over a caller's JSON tree,
 * without allocating: the lists a projection, slice or flattening makes are
 * runs of values in the caller's arena.
 */
#include <errno.h>
#include <string.h>

#include "jmespath/jmespath_internal.h"

static const struct jmespath_value NULL_VALUE = {.node = -1};

static struct jmespath_value eval__node(int node)
{
    struct jmespath_value v = {.node = node};
    return v;
}

enum jmespath_kind jmespath_value_kind(const struct jmespath_doc *doc,
                                       const struct jmespath_value *v)
{
    if (v->is_list) {
        return JMESPATH_ARRAY;
    }
    return v->node < 0 ? JMESPATH_NULL : doc->kind(doc->ctx, v->node);
}

size_t jmespath_value_len(const struct jmespath_doc *doc, const struct jmespath_value *v)
{
    if (v->is_list) {
        return v->count;
    }
    enum jmespath_kind k = jmespath_value_kind(doc, v);
    if (k != JMESPATH_ARRAY && k != JMESPATH_OBJECT) {
        return 0;
    }
    int n = doc->size(doc->ctx, v->node);
    return n > 0 ? (size_t)n : 0;
}

struct jmespath_value jmespath_value_at(const struct jmespath_doc *doc,
                                        const struct jmespath_arena *arena,
                                        const struct jmespath_value *v, size_t i)
{
    if (i >= jmespath_value_len(doc, v)) {
        return NULL_VALUE;
    }
    if (v->is_list) {
        return arena->slot[v->first + i];
    }
    if (jmespath_value_kind(doc, v) != JMESPATH_ARRAY) {
        return NULL_VALUE;
    }
    return eval__node(doc->at(doc->ctx, v->node, (int)i));
}

/* eval__iter walks the elements of an array or list (or the member values of
 * an object) once, in order, at O(1) a step. */
struct eval__iter {
    const struct jmespath_doc *doc;
    const struct jmespath_arena *arena;
    struct jmespath_value of;
    size_t i;
    size_t n;
    int node;
};

static void eval__iter_start(struct eval__iter *it, const struct jmespath_doc *doc,
                             const struct jmespath_arena *arena, struct jmespath_value of)
{
    it->doc = doc;
    it->arena = arena;
    it->of = of;
    it->i = 0;
    it->n = jmespath_value_len(doc, &of);
    it->node = -1;
}

static bool eval__iter_next(struct eval__iter *it, struct jmespath_value *out)
{
    if (it->i >= it->n) {
        return false;
    }
    if (it->of.is_list) {
        *out = it->arena->slot[it->of.first + it->i];
    } else {
        it->node = it->i == 0 ? it->doc->first(it->doc->ctx, it->of.node)
                              : it->doc->next(it->doc->ctx, it->of.node, it->node);
        *out = eval__node(it->node);
    }
    it->i++;
    return true;
}

/* Takes n slots for a list; returns the first, or -1 when the arena is full
 * (or past the 32-bit slot numbers of jmespath_value). */
static int64_t eval__reserve(struct jmespath_arena *a, size_t n)
{
    if (n > a->cap - a->used || n > UINT32_MAX - a->used) {
        return -1;
    }
    size_t first = a->used;
    a->used += n;
    return (int64_t)first;
}

static struct jmespath_value eval__list(uint32_t first, uint32_t count)
{
    struct jmespath_value v = {.node = -1, .first = first, .count = count, .is_list = true};
    return v;
}

struct eval__ctx {
    const struct jmespath *e;
    const struct jmespath_doc *doc;
    struct jmespath_arena *arena;
};

static int eval__run(const struct eval__ctx *c, int n, struct jmespath_value in,
                     struct jmespath_value *out);

static void eval__field(const struct eval__ctx *c, const struct jmespath__node *node,
                        struct jmespath_value in, struct jmespath_value *out)
{
    *out = NULL_VALUE;
    if (!in.is_list && jmespath_value_kind(c->doc, &in) == JMESPATH_OBJECT) {
        int v = c->doc->get(c->doc->ctx, in.node, c->e->names + node->name_off, node->name_len);
        *out = eval__node(v);
    }
}

static void eval__index(const struct eval__ctx *c, const struct jmespath__node *node,
                        struct jmespath_value in, struct jmespath_value *out)
{
    *out = NULL_VALUE;
    if (jmespath_value_kind(c->doc, &in) != JMESPATH_ARRAY) {
        return;
    }
    int64_t len = (int64_t)jmespath_value_len(c->doc, &in);
    int64_t i = node->index < 0 ? node->index + len : node->index;
    if (i >= 0 && i < len) {
        *out = jmespath_value_at(c->doc, c->arena, &in, (size_t)i);
    }
}

/* Python's slice bounds, as JMESPath defines them. */
static int64_t eval__slice_end(int64_t len, int64_t end, int64_t step)
{
    if (end < 0) {
        end += len;
        if (end < 0) {
            end = step < 0 ? -1 : 0;
        }
    } else if (end >= len) {
        end = step < 0 ? len - 1 : len;
    }
    return end;
}

static int eval__slice(const struct eval__ctx *c, const struct jmespath__node *node,
                       struct jmespath_value in, struct jmespath_value *out)
{
    *out = NULL_VALUE;
    if (jmespath_value_kind(c->doc, &in) != JMESPATH_ARRAY) {
        return 0;
    }
    int64_t len = (int64_t)jmespath_value_len(c->doc, &in);
    int64_t step = node->has[2] ? node->slice[2] : 1;
    int64_t start = node->has[0] ? eval__slice_end(len, node->slice[0], step)
                    : step > 0   ? 0
                                 : len - 1;
    int64_t stop = node->has[1] ? eval__slice_end(len, node->slice[1], step) : step > 0 ? len : -1;
    int64_t count = step > 0 ? (stop - start + step - 1) / step : (start - stop - step - 1) / -step;
    if (count <= 0) {
        *out = eval__list(0, 0);
        return 0;
    }
    int64_t first = eval__reserve(c->arena, (size_t)count);
    if (first < 0) {
        return -ENOBUFS;
    }
    /* One forward walk places each picked element, for either direction. */
    struct eval__iter it;
    eval__iter_start(&it, c->doc, c->arena, in);
    struct jmespath_value v;
    for (int64_t i = 0; eval__iter_next(&it, &v); i++) {
        int64_t off = i - start;
        if (off % step == 0 && off / step >= 0 && off / step < count) {
            c->arena->slot[first + off / step] = v;
        }
    }
    *out = eval__list((uint32_t)first, (uint32_t)count);
    return 0;
}

/* A projection: right applied to each element of base, nulls dropped. */
static int eval__project(const struct eval__ctx *c, int right, struct jmespath_value base,
                         enum jmespath_kind want, struct jmespath_value *out)
{
    *out = NULL_VALUE;
    if (jmespath_value_kind(c->doc, &base) != want) {
        return 0;
    }
    size_t n = jmespath_value_len(c->doc, &base);
    /* Reserved before the right side runs: its own lists come after. */
    int64_t first = eval__reserve(c->arena, n);
    if (first < 0) {
        return -ENOBUFS;
    }
    struct eval__iter it;
    eval__iter_start(&it, c->doc, c->arena, base);
    struct jmespath_value v;
    uint32_t count = 0;
    while (eval__iter_next(&it, &v)) {
        struct jmespath_value r;
        int rc = eval__run(c, right, v, &r);
        if (rc < 0) {
            return rc;
        }
        if (jmespath_value_kind(c->doc, &r) != JMESPATH_NULL) {
            c->arena->slot[first + count++] = r;
        }
    }
    *out = eval__list((uint32_t)first, count);
    return 0;
}

static int eval__flatten(const struct eval__ctx *c, struct jmespath_value base,
                         struct jmespath_value *out)
{
    *out = NULL_VALUE;
    if (jmespath_value_kind(c->doc, &base) != JMESPATH_ARRAY) {
        return 0;
    }
    struct eval__iter it;
    struct jmespath_value v;
    size_t total = 0;
    eval__iter_start(&it, c->doc, c->arena, base);
    while (eval__iter_next(&it, &v)) {
        total +=
            jmespath_value_kind(c->doc, &v) == JMESPATH_ARRAY ? jmespath_value_len(c->doc, &v) : 1;
    }
    int64_t first = eval__reserve(c->arena, total);
    if (first < 0) {
        return -ENOBUFS;
    }
    size_t w = (size_t)first;
    eval__iter_start(&it, c->doc, c->arena, base);
    while (eval__iter_next(&it, &v)) {
        if (jmespath_value_kind(c->doc, &v) != JMESPATH_ARRAY) {
            c->arena->slot[w++] = v;
            continue;
        }
        struct eval__iter inner;
        struct jmespath_value e;
        eval__iter_start(&inner, c->doc, c->arena, v);
        while (eval__iter_next(&inner, &e)) {
            c->arena->slot[w++] = e;
        }
    }
    *out = eval__list((uint32_t)first, (uint32_t)total);
    return 0;
}

static int eval__run(const struct eval__ctx *c, int n, struct jmespath_value in,
                     struct jmespath_value *out)
{
    const struct jmespath__node *node = &c->e->node[n];
    struct jmespath_value mid;
    int rc = 0;
    switch (node->op) {
    case JMESPATH__CURRENT:
        *out = in;
        return 0;
    case JMESPATH__FIELD:
        eval__field(c, node, in, out);
        return 0;
    case JMESPATH__INDEX:
        eval__index(c, node, in, out);
        return 0;
    case JMESPATH__SLICE:
        return eval__slice(c, node, in, out);
    case JMESPATH__CHAIN:
        rc = eval__run(c, node->left, in, &mid);
        return rc < 0 ? rc : eval__run(c, node->right, mid, out);
    case JMESPATH__LIST_PROJECT:
    case JMESPATH__OBJECT_PROJECT:
        rc = eval__run(c, node->left, in, &mid);
        if (rc < 0) {
            return rc;
        }
        return eval__project(c, node->right, mid,
                             node->op == JMESPATH__LIST_PROJECT ? JMESPATH_ARRAY : JMESPATH_OBJECT,
                             out);
    case JMESPATH__FLATTEN:
        rc = eval__run(c, node->left, in, &mid);
        return rc < 0 ? rc : eval__flatten(c, mid, out);
    }
    *out = NULL_VALUE;
    return 0;
}

int jmespath_search(const struct jmespath *e, const struct jmespath_doc *doc,
                    struct jmespath_arena *arena, struct jmespath_value *out)
{
    arena->used = 0;
    struct eval__ctx c = {.e = e, .doc = doc, .arena = arena};
    int rc = eval__run(&c, e->root, eval__node(doc->root), out);
    if (rc < 0) {
        *out = NULL_VALUE;
    }
    return rc;
}
