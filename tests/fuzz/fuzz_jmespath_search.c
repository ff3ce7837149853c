/*
 * fuzz_jmespath_search.c - jmespath_compile on arbitrary expressions (the
 * input up to its first newline, in an allocation of its own so that ASan
 * catches an over-read), and jmespath_search of what compiles over the rest
 * of the input when jansson reads it as JSON.
 *
 * Invariants checked (abort on violation): a refusal leaves *out NULL and
 * has a message that starts with "response_field '" and gives a column; a
 * search returns 0 or -ENOBUFS, never uses more arena than it has, and every
 * value of a list result is readable; a search that runs out of arena
 * succeeds with JMESPATH_NODES_MAX values per value of the document, the
 * bound response/field.c grows its arena to.
 */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jmespath/jmespath.h"
#include "tests/jmespath/jsondoc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(const struct jmespath_doc *doc, const struct jmespath_arena *arena,
                 const struct jmespath_value *v, int depth)
{
    if (depth > 70 || jmespath_value_kind(doc, v) != JMESPATH_ARRAY) {
        return;
    }
    size_t n = jmespath_value_len(doc, v);
    for (size_t i = 0; i < n; i++) {
        struct jmespath_value e = jmespath_value_at(doc, arena, v, i);
        walk(doc, arena, &e, depth + 1);
    }
}

/* values counts the JSON values of the tree under v (members' keys not counted). */
static size_t values(json_t *v)
{
    size_t n = 1;
    if (json_is_array(v)) {
        for (size_t i = 0; i < json_array_size(v); i++) {
            n += values(json_array_get(v, i));
        }
    } else if (json_is_object(v)) {
        for (void *it = json_object_iter(v); it != NULL; it = json_object_iter_next(v, it)) {
            n += values(json_object_iter_value(it));
        }
    }
    return n;
}

/* research searches again with the bound's room, which must suffice. */
static void research(const struct jmespath *e, const struct jmespath_doc *doc, json_t *root)
{
    size_t cap = (size_t)JMESPATH_NODES_MAX * values(root);
    struct jmespath_arena arena = {.slot = malloc(cap * sizeof(struct jmespath_value)), .cap = cap};
    struct jmespath_value v;
    if (arena.slot == NULL) {
        return;
    }
    if (jmespath_search(e, doc, &arena, &v) != 0 || arena.used > arena.cap) {
        abort();
    }
    walk(doc, &arena, &v, 0);
    free(arena.slot);
}

static void search(const struct jmespath *e, const uint8_t *json, size_t len)
{
    json_t *root = json_loadb((const char *)json, len, JSON_DECODE_ANY, NULL);
    if (root == NULL) {
        return;
    }
    static struct jsondoc d;
    struct jmespath_doc doc;
    jsondoc_init(&d, root, &doc);
    struct jmespath_value slots[128];
    struct jmespath_arena arena = {.slot = slots, .cap = 128};
    struct jmespath_value v;
    int rc = jmespath_search(e, &doc, &arena, &v);
    if ((rc != 0 && rc != -ENOBUFS) || arena.used > arena.cap) {
        abort();
    }
    walk(&doc, &arena, &v, 0);
    if (rc == -ENOBUFS) {
        research(e, &doc, root);
    }
    json_decref(root);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const uint8_t *nl = memchr(data, '\n', size);
    size_t elen = nl != NULL ? (size_t)(nl - data) : size;
    char *expr = malloc(elen + 1);
    if (expr == NULL) {
        return 0;
    }
    memcpy(expr, data, elen);
    expr[elen] = '\0';
    struct jmespath *e = (struct jmespath *)1;
    char err[512] = "";
    int rc = jmespath_compile(expr, &e, err, sizeof(err));
    if (rc == -EINVAL && (e != NULL || strncmp(err, "response_field '", 16) != 0 ||
                          strstr(err, " at column ") == NULL)) {
        abort();
    }
    if (rc == 0 && nl != NULL) {
        search(e, nl + 1, size - elen - 1);
    }
    jmespath_free(rc == 0 ? e : NULL);
    free(expr);
    return 0;
}
