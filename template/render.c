/*
 * render.c - running a compiled template over its variables: statements,
 * scopes (a for loop's body has its own, as in Jinja), and expressions.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template/template_internal.h"

#define SCOPES_MAX (TEMPLATE_DEPTH_MAX + 2)

struct render {
    const struct template *t;
    const json_t *vars;
    json_t *scope[SCOPES_MAX]; /* [0] the template's own, then one per loop */
    int scope_count;
    struct dynbuf out;
    bool failed;
    char *err;
    size_t errcap;
};

static int fail(struct render *r, uint32_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct render *r, uint32_t off, const char *fmt, ...)
{
    if (r->failed) {
        return -EINVAL;
    }
    r->failed = true;
    va_list ap;
    va_start(ap, fmt);
    template__message(r->t, off, r->err, r->errcap, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

static const struct template__node *node(const struct render *r, int i)
{
    return &r->t->node[i];
}

static void drop(struct template__value *v)
{
    json_decref(v->j);
    v->j = NULL;
}

static int eval(struct render *r, int n, struct template__value *out);

static int lookup(struct render *r, const struct template__node *nd, struct template__value *out)
{
    const char *name = r->t->src + nd->str_off;
    for (int k = r->scope_count - 1; k >= 0; k--) {
        json_t *v = json_object_getn(r->scope[k], name, nd->str_len);
        if (v != NULL) {
            out->j = json_incref(v);
            return 0;
        }
    }
    out->j = json_incref(json_object_getn(r->vars, name, nd->str_len));
    return 0;
}

/* a.b and a[k]: a member of a mapping, an element of a list, else
 * Undefined; anything of Undefined is Jinja's UndefinedError. */
static int member(struct render *r, const struct template__node *nd, struct template__value *out)
{
    struct template__value of = {0};
    struct template__value key = {0};
    int rc = eval(r, nd->a, &of);
    if (rc == 0 && nd->kind == T_ITEM) {
        rc = eval(r, nd->b, &key);
    }
    if (rc == 0 && of.j == NULL) {
        rc = fail(r, nd->off, "an attribute of an undefined value");
    }
    if (rc == 0 && nd->kind == T_ATTR) {
        out->j = json_incref(json_object_getn(of.j, r->t->src + nd->str_off, nd->str_len));
    } else if (rc == 0 && json_is_object(of.j) && json_is_string(key.j)) {
        out->j = json_incref(json_object_get(of.j, json_string_value(key.j)));
    } else if (rc == 0 && json_is_array(of.j) && json_is_integer(key.j)) {
        json_int_t i = json_integer_value(key.j);
        i += i < 0 ? (json_int_t)json_array_size(of.j) : 0;
        out->j = i >= 0 ? json_incref(json_array_get(of.j, (size_t)i)) : NULL;
    }
    drop(&of);
    drop(&key);
    return rc;
}

static int filter(struct render *r, const struct template__node *nd, struct template__value *out)
{
    struct template__value v = {0};
    struct template__value args[2] = {{0}, {0}};
    int argc = 0;
    int rc = eval(r, nd->a, &v);
    for (int a = nd->b; a >= 0 && rc == 0 && argc < 2; a = node(r, a)->next) {
        rc = eval(r, a, &args[argc++]);
    }
    char why[200] = "";
    if (rc == 0 && template__apply_filter((enum template__filter)nd->op, &v, args, argc, out, why,
                                          sizeof(why)) != 0) {
        rc = fail(r, nd->off, "%s", why[0] != '\0' ? why : "out of memory");
    }
    drop(&v);
    for (int k = 0; k < argc; k++) {
        drop(&args[k]);
    }
    return rc;
}

static int compare(struct render *r, const struct template__node *nd, struct template__value *out)
{
    struct template__value a = {0};
    struct template__value b = {0};
    int rc = eval(r, nd->a, &a);
    if (rc == 0) {
        rc = eval(r, nd->b, &b);
    }
    bool yes = false;
    char why[200] = "";
    if (rc == 0 && template__compare((enum template__cmp)nd->op, &a, &b, &yes, why, sizeof(why))) {
        rc = fail(r, nd->off, "%s", why);
    }
    drop(&a);
    drop(&b);
    out->j = json_boolean(yes);
    return rc;
}

/* a ~ b: text; Markup when either side is (Jinja's markup_join). */
static int concat(struct render *r, const struct template__node *nd, struct template__value *out)
{
    struct template__value side[2] = {{0}, {0}};
    int rc = eval(r, nd->a, &side[0]);
    if (rc == 0) {
        rc = eval(r, nd->b, &side[1]);
    }
    bool safe = side[0].safe || side[1].safe;
    struct dynbuf b;
    dynbuf_init(&b, TEMPLATE_OUTPUT_BYTES_MAX);
    for (int k = 0; k < 2 && rc == 0; k++) {
        json_t *s = template__str_of(&side[k]);
        if (s == NULL) {
            rc = fail(r, nd->off, "'~' of a list or mapping");
            break;
        }
        rc = safe && !side[k].safe
                 ? template__escape_into(&b, json_string_value(s), json_string_length(s))
                 : dynbuf_put(&b, json_string_value(s), json_string_length(s));
        json_decref(s);
    }
    if (rc == 0) {
        out->j = json_stringn(b.p ? b.p : "", b.len);
        out->safe = safe;
    }
    dynbuf_free(&b);
    drop(&side[0]);
    drop(&side[1]);
    return rc;
}

static int list(struct render *r, const struct template__node *nd, struct template__value *out)
{
    out->j = json_array();
    for (int e = nd->a; e >= 0; e = node(r, e)->next) {
        struct template__value v = {0};
        if (eval(r, e, &v) != 0) {
            drop(&v);
            drop(out);
            return -EINVAL;
        }
        if (v.j == NULL) {
            drop(out);
            return fail(r, node(r, e)->off, "an undefined value in a list literal");
        }
        json_array_append_new(out->j, v.j);
    }
    return 0;
}

/* and / or return one of their operands, as Python's do. */
static int logic(struct render *r, const struct template__node *nd, struct template__value *out)
{
    int rc = eval(r, nd->a, out);
    if (rc != 0 || template__truthy(out) == (nd->kind == T_OR)) {
        return rc;
    }
    drop(out);
    return eval(r, nd->b, out);
}

static int eval(struct render *r, int n, struct template__value *out)
{
    const struct template__node *nd = node(r, n);
    *out = (struct template__value){0};
    struct template__value v = {0};
    int rc = 0;
    switch (nd->kind) {
    case T_LITERAL:
        out->j = json_incref(nd->lit);
        return 0;
    case T_NAME:
        return lookup(r, nd, out);
    case T_ATTR:
    case T_ITEM:
        return member(r, nd, out);
    case T_FILTER:
        return filter(r, nd, out);
    case T_TEST:
        rc = eval(r, nd->a, &v);
        out->j = json_boolean(template__apply_test((enum template__test)nd->op, &v) != nd->negate);
        drop(&v);
        return rc;
    case T_NOT:
        rc = eval(r, nd->a, &v);
        out->j = json_boolean(!template__truthy(&v));
        drop(&v);
        return rc;
    case T_AND:
    case T_OR:
        return logic(r, nd, out);
    case T_COMPARE:
        return compare(r, nd, out);
    case T_CONCAT:
        return concat(r, nd, out);
    case T_COND:
        rc = eval(r, nd->b, &v);
        bool yes = template__truthy(&v);
        drop(&v);
        if (rc != 0 || (!yes && nd->c < 0)) {
            return rc;
        }
        return eval(r, yes ? nd->a : nd->c, out);
    case T_LIST:
        return list(r, nd, out);
    default:
        return fail(r, nd->off, "not an expression");
    }
}

static int body(struct render *r, int first);

/* {{ e }}: str() of the value, escaped unless it is Markup. */
static int output(struct render *r, const struct template__node *nd)
{
    struct template__value v = {0};
    int rc = eval(r, nd->a, &v);
    json_t *s = rc == 0 ? template__str_of(&v) : NULL;
    if (rc == 0 && s == NULL) {
        rc = fail(r, nd->off,
                  "printing a %s: AIPerf would print Python's repr, not JSON; "
                  "use |tojson",
                  json_is_array(v.j) ? "list" : "mapping");
    } else if (rc == 0) {
        rc = v.safe ? dynbuf_put(&r->out, json_string_value(s), json_string_length(s))
                    : template__escape_into(&r->out, json_string_value(s), json_string_length(s));
        if (rc != 0) {
            rc = fail(r, nd->off, rc == -E2BIG ? "the output is over %zu bytes" : "out of memory",
                      TEMPLATE_OUTPUT_BYTES_MAX);
        }
    }
    json_decref(s);
    drop(&v);
    return rc;
}

/* The items a for loop walks: a list's elements, a mapping's keys, a
 * string's characters; Undefined walks nothing. */
static int loop_items(struct render *r, const struct template__node *nd, json_t *of,
                      json_t **out_items)
{
    if (of == NULL || json_is_array(of)) {
        *out_items = of != NULL ? json_incref(of) : json_array();
        return 0;
    }
    if (!json_is_object(of) && !json_is_string(of)) {
        return fail(r, nd->off, "a for loop over a value that is not iterable");
    }
    json_t *items = json_array();
    size_t n = json_is_object(of) ? json_object_size(of) : json_string_length(of);
    for (size_t i = 0; i < n; i++) {
        json_t *e = NULL;
        if (json_is_object(of)) {
            void *it = json_object_iter(of);
            for (size_t k = 0; k < i; k++) {
                it = json_object_iter_next(of, it);
            }
            e = json_string(json_object_iter_key(it));
        } else if (((unsigned char)json_string_value(of)[i] & 0xC0) != 0x80) {
            const char *s = json_string_value(of);
            size_t end = i + 1;
            while (end < n && ((unsigned char)s[end] & 0xC0) == 0x80) {
                end++;
            }
            e = json_stringn(s + i, end - i);
        }
        if (e != NULL) {
            json_array_append_new(items, e);
        }
    }
    *out_items = items;
    return 0;
}

static json_t *loop_object(size_t i, size_t n)
{
    return json_pack("{sIsIsIsIsbsbsI}", "index", (json_int_t)(i + 1), "index0", (json_int_t)i,
                     "revindex", (json_int_t)(n - i), "revindex0", (json_int_t)(n - i - 1), "first",
                     i == 0, "last", i + 1 == n, "length", (json_int_t)n);
}

static int for_loop(struct render *r, const struct template__node *nd)
{
    struct template__value of = {0};
    json_t *items = NULL;
    int rc = eval(r, nd->a, &of);
    if (rc == 0) {
        rc = loop_items(r, nd, of.j, &items);
    }
    drop(&of);
    if (rc != 0) {
        return rc;
    }
    size_t n = json_array_size(items);
    if (n == 0) {
        json_decref(items);
        return body(r, nd->c);
    }
    if (r->scope_count == SCOPES_MAX) {
        json_decref(items);
        return fail(r, nd->off, "loops nested too deep");
    }
    json_t *scope = json_object();
    r->scope[r->scope_count++] = scope;
    for (size_t i = 0; i < n && rc == 0; i++) {
        json_object_setn(scope, r->t->src + nd->str_off, nd->str_len, json_array_get(items, i));
        json_object_set_new(scope, "loop", loop_object(i, n));
        rc = body(r, nd->b);
    }
    r->scope_count--;
    json_decref(scope);
    json_decref(items);
    return rc;
}

static int statement(struct render *r, const struct template__node *nd)
{
    struct template__value v = {0};
    int rc;
    switch (nd->kind) {
    case T_TEXT:
        rc = dynbuf_put(&r->out, r->t->src + nd->str_off, nd->str_len);
        return rc == 0
                   ? 0
                   : fail(r, nd->off, "the output is over %zu bytes", TEMPLATE_OUTPUT_BYTES_MAX);
    case T_OUTPUT:
        return output(r, nd);
    case T_IF:
        rc = eval(r, nd->a, &v);
        bool yes = template__truthy(&v);
        drop(&v);
        return rc != 0 ? rc : body(r, yes ? nd->b : nd->c);
    case T_FOR:
        return for_loop(r, nd);
    case T_SET:
        rc = eval(r, nd->a, &v);
        if (rc == 0 && v.j != NULL) {
            json_object_setn_new(r->scope[r->scope_count - 1], r->t->src + nd->str_off, nd->str_len,
                                 v.j);
        } else if (rc == 0) {
            /* Undefined: the name reads as its outer value (or Undefined) again. */
            json_object_deln(r->scope[r->scope_count - 1], r->t->src + nd->str_off, nd->str_len);
        }
        return rc;
    default:
        return fail(r, nd->off, "not a statement");
    }
}

static int body(struct render *r, int first)
{
    for (int n = first; n >= 0; n = node(r, n)->next) {
        int rc = statement(r, node(r, n));
        if (rc != 0) {
            return rc;
        }
    }
    return 0;
}

int template_render(const struct template *t, const json_t *vars, char **out, size_t *out_len,
                    char *errbuf, size_t errcap)
{
    *out = NULL;
    *out_len = 0;
    struct render r = {.t = t, .vars = vars, .err = errbuf, .errcap = errcap};
    dynbuf_init(&r.out, TEMPLATE_OUTPUT_BYTES_MAX);
    r.scope[r.scope_count++] = json_object();
    int rc = dynbuf_put(&r.out, "", 0);
    if (rc == 0) {
        rc = body(&r, t->body);
    }
    json_decref(r.scope[0]);
    if (rc != 0) {
        dynbuf_free(&r.out);
        return rc == -ENOMEM ? -ENOMEM : -EINVAL;
    }
    *out = r.out.p;
    *out_len = r.out.len;
    return 0;
}
