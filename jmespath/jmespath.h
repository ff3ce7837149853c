/*
 * jmespath.h - the subset of JMESPath (https://jmespath.org/specification.html)
 * that AIPerf's response_field uses: field names (bare or "quoted"), the
 * current node @, indexes [N] and [-N], slices [start:stop:step], the [*] list
 * and .* object projections, [] flattening, and | pipes. Everything else
 * (filters, multi-selects, functions, literals, comparisons, ||, &&, !) is
 * refused when the expression is compiled, with the construct and its column.
 *
 * An expression is compiled once, before the run (it allocates); searching
 * allocates nothing and reads any JSON tree through struct jmespath_doc, so
 * that response/ can search its token tree in place on the request path.
 */
#ifndef RINGPERF_JMESPATH_H
#define RINGPERF_JMESPATH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* JMESPATH_EXPR_BYTES_MAX bounds an expression's length, JMESPATH_NODES_MAX
 * its syntax tree (and so the depth of a search's recursion). */
#define JMESPATH_EXPR_BYTES_MAX 1024
#define JMESPATH_NODES_MAX 64

/* jmespath is a compiled expression. Opaque; read-only once compiled, so one
 * may be shared by threads. */
struct jmespath;

/* jmespath_compile compiles the NUL-terminated `expr` into *out (malloc'd;
 * free with jmespath_free). Returns 0; -EINVAL with a one-line message in
 * errbuf (errcap bytes, may be NULL/0) that names the construct and its
 * 1-based column, for a syntax error, a construct outside the subset, a
 * slice step of 0 or an expression over the limits above; or -ENOMEM.
 * *out is NULL on error. */
int jmespath_compile(const char *expr, struct jmespath **out, char *errbuf, size_t errcap);

/* jmespath_free releases `e`; NULL is a no-op. */
void jmespath_free(struct jmespath *e);

/* jmespath_kind is the JSON type of a node or value. */
enum jmespath_kind {
    JMESPATH_NULL = 0,
    JMESPATH_FALSE,
    JMESPATH_TRUE,
    JMESPATH_NUMBER,
    JMESPATH_STRING,
    JMESPATH_ARRAY,
    JMESPATH_OBJECT,
};

/* jmespath_doc is the JSON tree a search reads, through the caller's
 * callbacks over its own node ids (any int >= 0; -1 is "absent"). Each
 * callback takes `ctx` and must accept only nodes it handed out:
 *   kind:  the node's type;
 *   size:  an array's elements or an object's members;
 *   get:   the value of object member `name`, or -1: `name` is len bytes of
 *          UTF-8 (a quoted identifier's escapes decoded when compiled, by
 *          jsonstr/; it may hold a NUL), to compare with the members' names
 *          decoded the same way;
 *   at:    element i (0 <= i < size) of an array;
 *   first: the first element of an array or the first member value of an
 *          object (size > 0);
 *   next:  the element or member value after `child` in `parent`. */
struct jmespath_doc {
    const void *ctx;
    int root;
    enum jmespath_kind (*kind)(const void *ctx, int node);
    int (*size)(const void *ctx, int node);
    int (*get)(const void *ctx, int node, const char *name, size_t len);
    int (*at)(const void *ctx, int node, int i);
    int (*first)(const void *ctx, int node);
    int (*next)(const void *ctx, int parent, int child);
};

/* jmespath_value is a search's result: a node of the document (node >= 0),
 * null (node -1, not a list), or a list the search made (a projection,
 * slice or flattening: is_list, `count` values from arena slot `first`). */
struct jmespath_value {
    int32_t node;
    uint32_t first;
    uint32_t count;
    bool is_list;
};

/* jmespath_arena is caller-owned room for the lists a search makes: `cap`
 * values at `slot`; a search sets `used` to 0 first. */
struct jmespath_arena {
    struct jmespath_value *slot;
    size_t cap;
    size_t used;
};

/* jmespath_search evaluates `e` on `doc` into *out, with JMESPath's rules:
 * a field of a non-object, an index or slice of a non-array, and an index out
 * of range are null; a projection drops the null results of its right side.
 * Returns 0, or -ENOBUFS when the lists made need more than arena->cap
 * values, or more than UINT32_MAX (*out is then null): call again with a
 * bigger arena. A search never needs more than JMESPATH_NODES_MAX values per
 * node of the document: each step of the expression meets disjoint parts of
 * the document, and makes lists no longer than the parts it meets. Allocates
 * nothing; recursion is bounded by JMESPATH_NODES_MAX. */
int jmespath_search(const struct jmespath *e, const struct jmespath_doc *doc,
                    struct jmespath_arena *arena, struct jmespath_value *out);

/* jmespath_value_kind returns the type of `v` (JMESPATH_ARRAY for a list). */
enum jmespath_kind jmespath_value_kind(const struct jmespath_doc *doc,
                                       const struct jmespath_value *v);

/* jmespath_value_len returns the elements of an array or list, the members
 * of an object, else 0. */
size_t jmespath_value_len(const struct jmespath_doc *doc, const struct jmespath_value *v);

/* jmespath_value_at returns element i (< jmespath_value_len) of an array or
 * list `v`; null for anything else. */
struct jmespath_value jmespath_value_at(const struct jmespath_doc *doc,
                                        const struct jmespath_arena *arena,
                                        const struct jmespath_value *v, size_t i);

#endif
