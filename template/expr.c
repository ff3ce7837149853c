/*
 * expr.c - a tag's expression, by recursive descent in Jinja2's order:
 * inline if, or, and, not, comparisons, ~, filters and tests, postfix
 * (.attr, [item]), primary. Arithmetic, calls and dict literals are refused.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "template/template_parse.h"

static int unary(struct parse *p);

static const char *const ARITHMETIC[] = {"+", "-", "*", "/", "//", "%", "**"};

struct named {
    const char *name;
    int value;
};

static const struct named FILTERS[] = {
    {"tojson", F_TOJSON},   {"lower", F_LOWER}, {"upper", F_UPPER},   {"length", F_LENGTH},
    {"count", F_LENGTH},    {"first", F_FIRST}, {"last", F_LAST},     {"join", F_JOIN},
    {"default", F_DEFAULT}, {"d", F_DEFAULT},   {"string", F_STRING}, {"trim", F_TRIM},
    {"int", F_INT},         {"safe", F_SAFE},   {"escape", F_ESCAPE}, {"e", F_ESCAPE},
};

static const struct named TESTS[] = {
    {"defined", TEST_DEFINED},   {"undefined", TEST_UNDEFINED}, {"none", TEST_NONE},
    {"string", TEST_STRING},     {"number", TEST_NUMBER},       {"mapping", TEST_MAPPING},
    {"sequence", TEST_SEQUENCE}, {"iterable", TEST_ITERABLE},
};

static int lookup(const struct named *table, size_t n, const char *s, size_t len)
{
    for (size_t k = 0; k < n; k++) {
        if (strlen(table[k].name) == len && memcmp(table[k].name, s, len) == 0) {
            return table[k].value;
        }
    }
    return -1;
}

static int literal(struct parse *p, json_t *lit, size_t off)
{
    if (lit == NULL) {
        return template__fail(p, off, "out of memory");
    }
    int n = template__node_new(p, T_LITERAL, off);
    if (n < 0) {
        json_decref(lit);
        return -1;
    }
    template__n(p, n)->lit = lit;
    return n;
}

/* Decodes a Python string literal's escapes (unknown ones are kept). */
static int string_literal(struct parse *p)
{
    const char *s = p->s + p->tok_off + 1;
    size_t len = p->tok_end - p->tok_off - 2;
    char *out = malloc(len + 1);
    if (out == NULL) {
        return template__fail(p, p->tok_off, "out of memory");
    }
    size_t w = 0;
    static const char from[] = "\\'\"ntr";
    static const char to[] = "\\'\"\n\t\r";
    for (size_t i = 0; i < len; i++) {
        const char *hit = s[i] == '\\' && i + 1 < len ? strchr(from, s[i + 1]) : NULL;
        if (hit == NULL || *hit == '\0') {
            out[w++] = s[i];
            continue;
        }
        out[w++] = to[hit - from];
        i++;
    }
    json_t *j = json_stringn(out, w);
    free(out);
    if (j == NULL) {
        return template__fail(p, p->tok_off, "a string literal that is not UTF-8");
    }
    size_t off = p->tok_off;
    template__next(p);
    return literal(p, j, off);
}

static int number_literal(struct parse *p, bool negative)
{
    char buf[64];
    size_t w = 0;
    for (size_t i = p->tok_off; i < p->tok_end && w + 1 < sizeof(buf); i++) {
        if (p->s[i] != '_') {
            buf[w++] = p->s[i];
        }
    }
    buf[w] = '\0';
    json_t *j;
    if (p->tok == TK_INT) {
        errno = 0;
        long long v = strtoll(buf, NULL, 10);
        if (errno != 0) {
            return template__fail(p, p->tok_off, "an integer literal out of range");
        }
        j = json_integer(negative ? -v : v);
    } else {
        double v = strtod(buf, NULL);
        j = json_real(negative ? -v : v);
    }
    size_t off = p->tok_off;
    template__next(p);
    return literal(p, j, off);
}

static int name_or_constant(struct parse *p)
{
    size_t off = p->tok_off;
    static const char *const t[] = {"true", "True"};
    static const char *const f[] = {"false", "False"};
    static const char *const none[] = {"none", "None"};
    for (int k = 0; k < 2; k++) {
        json_t *j = template__is_name(p, t[k])      ? json_true()
                    : template__is_name(p, f[k])    ? json_false()
                    : template__is_name(p, none[k]) ? json_null()
                                                    : NULL;
        if (j != NULL) {
            template__next(p);
            return literal(p, j, off);
        }
    }
    int n = template__node_new(p, T_NAME, off);
    if (n >= 0) {
        template__n(p, n)->str_off = (uint32_t)off;
        template__n(p, n)->str_len = (uint32_t)(p->tok_end - off);
    }
    template__next(p);
    return n;
}

static int list_literal(struct parse *p)
{
    int n = template__node_new(p, T_LIST, p->tok_off);
    template__next(p);
    int last = -1;
    while (!p->failed && !template__is_op(p, "]")) {
        int e = template__expression(p);
        if (e < 0) {
            return -1;
        }
        if (last < 0) {
            template__n(p, n)->a = e;
        } else {
            template__n(p, last)->next = e;
        }
        last = e;
        if (!template__is_op(p, ",")) {
            break;
        }
        template__next(p);
    }
    return template__expect_op(p, "]") < 0 ? -1 : n;
}

static int primary(struct parse *p)
{
    switch (p->tok) {
    case TK_NAME:
        return name_or_constant(p);
    case TK_STRING:
        return string_literal(p);
    case TK_INT:
    case TK_FLOAT:
        return number_literal(p, false);
    default:
        break;
    }
    if (template__is_op(p, "(")) {
        template__next(p);
        int e = template__expression(p);
        if (template__is_op(p, ",")) {
            return template__fail(p, p->tok_off, "a tuple is not supported");
        }
        return template__expect_op(p, ")") < 0 ? -1 : e;
    }
    if (template__is_op(p, "[")) {
        return list_literal(p);
    }
    if (template__is_op(p, "{")) {
        return template__fail(p, p->tok_off, "a dict literal {...} is not supported");
    }
    if (template__is_op(p, "-")) {
        size_t off = p->tok_off;
        template__next(p);
        if (p->tok == TK_INT || p->tok == TK_FLOAT) {
            return number_literal(p, true);
        }
        return template__fail(p, off, "arithmetic '-' is not supported");
    }
    return template__unexpected(p);
}

/* one_more counts one more link of a left-nested chain (a ~ b ~ c, a and b, x|f|g, a.b.c):
 * each nests the tree one level deeper, which rendering recurses through, so a chain is
 * bounded like nesting is. False (failed) past TEMPLATE_DEPTH_MAX links. */
static bool one_more(struct parse *p, int *links, size_t off, const char *what)
{
    if (++*links > TEMPLATE_DEPTH_MAX) {
        template__fail(p, off, "more than %d %s in a row", TEMPLATE_DEPTH_MAX, what);
        return false;
    }
    return true;
}

static int postfix(struct parse *p, int node)
{
    int links = 0;
    while (!p->failed) {
        size_t off = p->tok_off;
        if ((template__is_op(p, ".") || template__is_op(p, "[")) &&
            !one_more(p, &links, off, "'.' and '[]' lookups")) {
            return -1;
        }
        if (template__is_op(p, ".")) {
            template__next(p);
            if (p->tok == TK_INT) {
                int idx = number_literal(p, false);
                int item = template__node_new(p, T_ITEM, off);
                if (item >= 0) {
                    template__n(p, item)->a = node;
                    template__n(p, item)->b = idx;
                }
                node = item;
                continue;
            }
            if (p->tok != TK_NAME) {
                return template__unexpected(p);
            }
            int attr = template__node_new(p, T_ATTR, off);
            if (attr >= 0) {
                template__n(p, attr)->a = node;
                template__n(p, attr)->str_off = (uint32_t)p->tok_off;
                template__n(p, attr)->str_len = (uint32_t)(p->tok_end - p->tok_off);
            }
            template__next(p);
            node = attr;
        } else if (template__is_op(p, "[")) {
            template__next(p);
            int key = template__expression(p);
            if (template__is_op(p, ":")) {
                return template__fail(p, p->tok_off, "a slice [a:b] is not supported");
            }
            if (template__expect_op(p, "]") < 0) {
                return -1;
            }
            int item = template__node_new(p, T_ITEM, off);
            if (item >= 0) {
                template__n(p, item)->a = node;
                template__n(p, item)->b = key;
            }
            node = item;
        } else if (template__is_op(p, "(")) {
            return template__fail(p, off, "a call (...) is not supported");
        } else {
            return node;
        }
    }
    return -1;
}

/* Positional arguments "(a, b)" of a filter, chained from the first. */
static int arguments(struct parse *p, int *out_count)
{
    int first = -1;
    int last = -1;
    *out_count = 0;
    template__next(p);
    while (!p->failed && !template__is_op(p, ")")) {
        if (p->tok == TK_NAME && p->s[p->tok_end] == '=' && p->s[p->tok_end + 1] != '=') {
            return template__fail(p, p->tok_off, "a keyword argument is not supported");
        }
        int e = template__expression(p);
        if (e < 0) {
            return -1;
        }
        if (last < 0) {
            first = e;
        } else {
            template__n(p, last)->next = e;
        }
        last = e;
        (*out_count)++;
        if (!template__is_op(p, ",")) {
            break;
        }
        template__next(p);
    }
    return template__expect_op(p, ")") < 0 ? -1 : first;
}

static int filter(struct parse *p, int node)
{
    template__next(p);
    if (p->tok != TK_NAME) {
        return template__unexpected(p);
    }
    size_t off = p->tok_off;
    size_t len = p->tok_end - off;
    int f = lookup(FILTERS, sizeof(FILTERS) / sizeof(FILTERS[0]), p->s + off, len);
    if (f < 0) {
        return template__fail(p, off,
                              "the filter '%.*s' is not supported (tojson, lower, upper, length, "
                              "count, first, last, join, default, d, string, trim, int, safe, "
                              "escape, e)",
                              (int)len, p->s + off);
    }
    template__next(p);
    int args = -1;
    int argc = 0;
    if (template__is_op(p, "(")) {
        args = arguments(p, &argc);
    }
    int lo;
    int hi;
    template__filter_arity((enum template__filter)f, &lo, &hi);
    if (!p->failed && (argc < lo || argc > hi)) {
        return template__fail(p, off, "the filter '%.*s' takes %d to %d arguments, not %d",
                              (int)len, p->s + off, lo, hi, argc);
    }
    int n = template__node_new(p, T_FILTER, off);
    if (n >= 0) {
        template__n(p, n)->a = node;
        template__n(p, n)->b = args;
        template__n(p, n)->op = f;
    }
    return n;
}

static int test(struct parse *p, int node)
{
    size_t off = p->tok_off;
    template__next(p);
    bool negate = template__is_name(p, "not");
    if (negate) {
        template__next(p);
    }
    if (p->tok != TK_NAME) {
        return template__unexpected(p);
    }
    size_t len = p->tok_end - p->tok_off;
    int t = lookup(TESTS, sizeof(TESTS) / sizeof(TESTS[0]), p->s + p->tok_off, len);
    if (t < 0) {
        return template__fail(p, p->tok_off,
                              "the test '%.*s' is not supported (defined, undefined, none, "
                              "string, number, mapping, sequence, iterable)",
                              (int)len, p->s + p->tok_off);
    }
    template__next(p);
    if (template__is_op(p, "(")) {
        return template__fail(p, p->tok_off, "a test with arguments is not supported");
    }
    int n = template__node_new(p, T_TEST, off);
    if (n >= 0) {
        template__n(p, n)->a = node;
        template__n(p, n)->op = t;
        template__n(p, n)->negate = negate;
    }
    return n;
}

static int unary(struct parse *p)
{
    if (++p->depth > TEMPLATE_DEPTH_MAX) {
        return template__fail(p, p->tok_off, "expressions nested deeper than %d",
                              TEMPLATE_DEPTH_MAX);
    }
    int node = postfix(p, primary(p));
    int links = 0;
    while (!p->failed && (template__is_op(p, "|") || template__is_name(p, "is"))) {
        if (!one_more(p, &links, p->tok_off, "filters and tests")) {
            return -1;
        }
        node = template__is_op(p, "|") ? filter(p, node) : test(p, node);
    }
    p->depth--;
    return p->failed ? -1 : node;
}

static int binary(struct parse *p, enum template__kind kind, size_t off, int a, int b)
{
    int n = template__node_new(p, kind, off);
    if (n >= 0) {
        template__n(p, n)->a = a;
        template__n(p, n)->b = b;
    }
    return n;
}

static int concat(struct parse *p)
{
    int links = 0;
    int node = unary(p);
    while (!p->failed) {
        for (size_t k = 0; k < sizeof(ARITHMETIC) / sizeof(ARITHMETIC[0]); k++) {
            if (template__is_op(p, ARITHMETIC[k])) {
                return template__fail(p, p->tok_off, "arithmetic '%s' is not supported",
                                      ARITHMETIC[k]);
            }
        }
        if (!template__is_op(p, "~")) {
            break;
        }
        size_t off = p->tok_off;
        if (!one_more(p, &links, off, "'~'")) {
            return -1;
        }
        template__next(p);
        node = binary(p, T_CONCAT, off, node, unary(p));
    }
    return node;
}

static int compare_op(struct parse *p)
{
    static const struct named OPS[] = {{"==", CMP_EQ}, {"!=", CMP_NE}, {"<", CMP_LT},
                                       {">", CMP_GT},  {"<=", CMP_LE}, {">=", CMP_GE}};
    if (p->tok == TK_OP) {
        return lookup(OPS, sizeof(OPS) / sizeof(OPS[0]), p->op, strlen(p->op));
    }
    if (template__is_name(p, "in")) {
        return CMP_IN;
    }
    if (template__is_name(p, "not")) {
        size_t save = p->pos;
        size_t off = p->tok_off;
        template__next(p);
        if (template__is_name(p, "in")) {
            return CMP_NOT_IN;
        }
        p->pos = save;
        p->tok_off = off;
        p->tok = TK_NAME;
        p->tok_end = off + 3;
    }
    return -1;
}

static int compare(struct parse *p)
{
    int node = concat(p);
    int op = compare_op(p);
    if (op < 0 || p->failed) {
        return node;
    }
    size_t off = p->tok_off;
    template__next(p);
    int n = binary(p, T_COMPARE, off, node, concat(p));
    if (n >= 0) {
        template__n(p, n)->op = op;
    }
    if (compare_op(p) >= 0) {
        return template__fail(p, p->tok_off, "a chained comparison is not supported");
    }
    return n;
}

static int not_expr(struct parse *p)
{
    if (!template__is_name(p, "not")) {
        return compare(p);
    }
    size_t off = p->tok_off;
    if (++p->depth > TEMPLATE_DEPTH_MAX) {
        return template__fail(p, off, "expressions nested deeper than %d", TEMPLATE_DEPTH_MAX);
    }
    template__next(p);
    int n = binary(p, T_NOT, off, not_expr(p), -1);
    p->depth--;
    return n;
}

/* A left-associative chain of `word` (and, or) over operands parsed by `operand`. */
static int chain(struct parse *p, const char *word, enum template__kind kind,
                 int (*operand)(struct parse *p))
{
    int links = 0;
    int node = operand(p);
    while (!p->failed && template__is_name(p, word)) {
        size_t off = p->tok_off;
        if (!one_more(p, &links, off, word)) {
            return -1;
        }
        template__next(p);
        node = binary(p, kind, off, node, operand(p));
    }
    return node;
}

static int and_expr(struct parse *p)
{
    return chain(p, "and", T_AND, not_expr);
}

static int or_expr(struct parse *p)
{
    return chain(p, "or", T_OR, and_expr);
}

int template__expression(struct parse *p)
{
    if (++p->depth > TEMPLATE_DEPTH_MAX) {
        return template__fail(p, p->tok_off, "expressions nested deeper than %d",
                              TEMPLATE_DEPTH_MAX);
    }
    bool condexpr = !p->no_condexpr;
    p->no_condexpr = false;
    int node = or_expr(p);
    if (!p->failed && condexpr && template__is_name(p, "if")) {
        size_t off = p->tok_off;
        template__next(p);
        int cond = or_expr(p);
        int other = -1;
        if (!p->failed && template__is_name(p, "else")) {
            template__next(p);
            other = template__expression(p);
        }
        int n = binary(p, T_COND, off, node, cond);
        if (n >= 0) {
            template__n(p, n)->c = other;
        }
        node = n;
    }
    p->depth--;
    return p->failed ? -1 : node;
}
