/*
 * field.c - response_field on the request path: jmespath/ searches the
 * validated token tree in place (the lists it makes live on this stack), and
 * what it finds becomes text, embeddings or rankings as AIPerf's
 * convert_to_response_data decides.
 */
#include <errno.h>
#include <string.h>

#include "jmespath/jmespath.h"
#include "response/response_json.h"

static enum jmespath_kind field__kind(const void *ctx, int node)
{
    const struct response__doc *d = ctx;
    const struct response__tok *t = &d->tok[node];
    switch (t->type) {
    case JSMN_OBJECT:
        return JMESPATH_OBJECT;
    case JSMN_ARRAY:
        return JMESPATH_ARRAY;
    case JSMN_STRING:
        return JMESPATH_STRING;
    default:
        break;
    }
    char c = d->js[t->start];
    return c == 't'   ? JMESPATH_TRUE
           : c == 'f' ? JMESPATH_FALSE
           : c == 'n' ? JMESPATH_NULL
                      : JMESPATH_NUMBER;
}

static int field__size(const void *ctx, int node)
{
    return ((const struct response__doc *)ctx)->tok[node].size;
}

/* Names come decoded from the compiled expression; a response may escape
 * its member names (Python's json.dumps writes "\u00e9" for é). */
static int field__get(const void *ctx, int node, const char *name, size_t len)
{
    return response__get_decoded(ctx, node, name, len);
}

static int field__at(const void *ctx, int node, int i)
{
    return response__at(ctx, node, i);
}

/* An object's first member value follows its first key. */
static int field__first(const void *ctx, int node)
{
    const struct response__doc *d = ctx;
    return node + (d->tok[node].type == JSMN_OBJECT ? 2 : 1);
}

static int field__next(const void *ctx, int parent, int child)
{
    const struct response__doc *d = ctx;
    return d->tok[child].next + (d->tok[parent].type == JSMN_OBJECT ? 1 : 0);
}

static bool field__number(enum jmespath_kind k)
{
    /* Python's bool is an int, so isinstance(True, int | float) holds. */
    return k == JMESPATH_NUMBER || k == JMESPATH_TRUE || k == JMESPATH_FALSE;
}

/* AIPerf's convert_to_response_data, after its truthiness test. */
static bool field__convert(const struct response__doc *d, const struct jmespath_doc *doc,
                           const struct jmespath_arena *arena, const struct jmespath_value *v,
                           struct response_chunk *out)
{
    enum jmespath_kind k = jmespath_value_kind(doc, v);
    size_t n = jmespath_value_len(doc, v);
    if (k == JMESPATH_ARRAY && n > 0) {
        struct jmespath_value first = jmespath_value_at(doc, arena, v, 0);
        enum jmespath_kind fk = jmespath_value_kind(doc, &first);
        if (fk == JMESPATH_ARRAY && jmespath_value_len(doc, &first) > 0) {
            struct jmespath_value inner = jmespath_value_at(doc, arena, &first, 0);
            if (field__number(jmespath_value_kind(doc, &inner))) {
                out->embedding_count = n;
                return true;
            }
        }
        if (field__number(fk)) {
            out->embedding_count = 1;
            return true;
        }
        if (fk == JMESPATH_OBJECT) {
            out->ranking_count = n;
            return true;
        }
        return false;
    }
    if (k == JMESPATH_STRING && !v->is_list && response__truthy(d, v->node)) {
        response__add_string(d, v->node, out, RESPONSE_TEXT_CONTENT);
        return true;
    }
    return false;
}

/* field__search runs `e` with the stack's room for its lists, then, when it
 * needs more, with the scratch's, grown four times at a time up to
 * JMESPATH_NODES_MAX values a token (no search needs more, jmespath.h) and at
 * most RESPONSE_FIELD_VALUES_SCRATCH_MAX. */
static int field__search(const struct response__doc *d, const struct jmespath *e,
                         const struct jmespath_doc *doc, struct response_scratch *scratch,
                         struct jmespath_arena *arena, struct jmespath_value *v)
{
    int rc = jmespath_search(e, doc, arena, v);
    size_t most = (size_t)JMESPATH_NODES_MAX * (size_t)d->ntok;
    most = most < RESPONSE_FIELD_VALUES_SCRATCH_MAX ? most : RESPONSE_FIELD_VALUES_SCRATCH_MAX;
    while (rc == -ENOBUFS && scratch != NULL && arena->cap < most) {
        size_t want = arena->cap < most / 4 ? arena->cap * 4 : most;
        arena->slot = response__scratch_values(scratch, want, &arena->cap);
        if (arena->slot == NULL) {
            return -ENOMEM;
        }
        rc = jmespath_search(e, doc, arena, v);
    }
    return rc;
}

enum response_parse_status response__field(const struct response__doc *d, const struct jmespath *e,
                                           int node, struct response_scratch *scratch,
                                           struct response_chunk *out)
{
    struct jmespath_doc doc = {
        .ctx = d,
        .root = node,
        .kind = field__kind,
        .size = field__size,
        .get = field__get,
        .at = field__at,
        .first = field__first,
        .next = field__next,
    };
    struct jmespath_value slots[RESPONSE_FIELD_VALUES_MAX];
    struct jmespath_arena arena = {.slot = slots, .cap = RESPONSE_FIELD_VALUES_MAX};
    struct jmespath_value v = {.node = node};
    if (e != NULL && field__search(d, e, &doc, scratch, &arena, &v) != 0) {
        return RESPONSE_PARSE_ERR_FIELD_VALUES;
    }
    return field__convert(d, &doc, &arena, &v, out) ? RESPONSE_PARSE_OK : RESPONSE_PARSE_IGNORED;
}
