/*
 * template_internal.h - the compiled tree shared by parse.c, render.c and
 * filters.c. Private to template/.
 */
#ifndef RINGPERF_TEMPLATE_INTERNAL_H
#define RINGPERF_TEMPLATE_INTERNAL_H

#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dynbuf/dynbuf.h"
#include "template/template.h"

/* Node kinds: statements (a body is a chain through `next`) and expressions
 * (an argument list or list literal is a chain through `next` too). */
enum template__kind {
    T_TEXT,    /* str_off/str_len: literal text */
    T_OUTPUT,  /* a: the expression printed */
    T_IF,      /* a: condition, b: then-body, c: else-body (an elif is a nested T_IF) */
    T_FOR,     /* str: the loop variable, a: iterable, b: body, c: else-body */
    T_SET,     /* str: the name, a: value */
    T_LITERAL, /* lit: a constant */
    T_NAME,    /* str: the variable */
    T_ATTR,    /* a: object, str: the attribute */
    T_ITEM,    /* a: object, b: subscript */
    T_FILTER,  /* a: the value, op: the filter, b: first argument (chain) */
    T_TEST,    /* a: the value, op: the test, negate */
    T_NOT,     /* a */
    T_AND,     /* a, b */
    T_OR,      /* a, b */
    T_COMPARE, /* op: the comparison, a, b */
    T_CONCAT,  /* a ~ b */
    T_COND,    /* a if b else c (c -1: Undefined) */
    T_LIST,    /* a: first element (chain) */
};

enum template__cmp { CMP_EQ, CMP_NE, CMP_LT, CMP_GT, CMP_LE, CMP_GE, CMP_IN, CMP_NOT_IN };

enum template__filter {
    F_TOJSON,
    F_LOWER,
    F_UPPER,
    F_LENGTH,
    F_FIRST,
    F_LAST,
    F_JOIN,
    F_DEFAULT,
    F_STRING,
    F_TRIM,
    F_INT,
    F_SAFE,
    F_ESCAPE,
};

enum template__test {
    TEST_DEFINED,
    TEST_UNDEFINED,
    TEST_NONE,
    TEST_STRING,
    TEST_NUMBER,
    TEST_MAPPING,
    TEST_SEQUENCE,
    TEST_ITERABLE,
};

struct template__node {
    enum template__kind kind;
    int op;
    bool negate;
    int32_t a, b, c, next;
    uint32_t off; /* where it starts in the source, for messages */
    uint32_t str_off, str_len;
    json_t *lit;
};

struct template
{
    char *src; /* the source, NUL-terminated, its trailing newline dropped */
    size_t src_len;
    struct template__node *node;
    size_t node_count;
    size_t node_cap;
    int32_t body; /* first statement, or -1 */
};

/* template__where writes "line L, column C" of source offset `off`. */
void template__where(const struct template *t, uint32_t off, unsigned *out_line, unsigned *out_col);

/* template__message writes "line L, column C: <fmt...>" for source offset `off` into err
 * (errcap bytes; NULL/0 discards it). */
void template__message(const struct template *t, uint32_t off, char *err, size_t errcap,
                       const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

/* template__filter_arity gives a filter's fewest and most arguments. */
void template__filter_arity(enum template__filter f, int *out_min, int *out_max);

/* template__value is a value while rendering: a JSON value (owned
 * reference) or Undefined (j NULL), and whether it is safe (Markup). */
struct template__value {
    json_t *j;
    bool safe;
};

/* template__str_of writes Python's str() of v into a new json string (NULL:
 * a list or object, which has no JSON-like str; Undefined is ""). */
json_t *template__str_of(const struct template__value *v);

/* template__escape_into appends s (len bytes) to the buffer `b` (a dynbuf of at most
 * TEMPLATE_OUTPUT_BYTES_MAX, as every buffer a rendering writes) with & < > " ' as HTML
 * entities. Returns 0 or -ENOMEM/-E2BIG. */
int template__escape_into(struct dynbuf *b, const char *s, size_t n);

/* template__truthy is Python's truthiness (Undefined is false). */
bool template__truthy(const struct template__value *v);

/* template__apply_filter applies filter f to v with `argc` arguments (values
 * borrowed), into *out. Returns 0, or -EINVAL with a message in err. */
int template__apply_filter(enum template__filter f, const struct template__value *v,
                           const struct template__value *args, int argc,
                           struct template__value *out, char *err, size_t errcap);

/* template__apply_test evaluates test `t` on v. */
bool template__apply_test(enum template__test t, const struct template__value *v);

/* template__compare evaluates a comparison; -EINVAL with a message for
 * operands Python cannot order. */
int template__compare(enum template__cmp op, const struct template__value *a,
                      const struct template__value *b, bool *out, char *err, size_t errcap);

#endif
