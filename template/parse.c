/*
 * parse.c - compiling a template: the source split into text, comments and
 * tags, with Jinja2's whitespace control, and the block structure of if, for
 * and set. Tags outside the subset are refused by name.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "template/template_parse.h"

/* A body ends at one of these tags (NULL-terminated); *out_end names which. */
struct ends {
    const char *const *names;
    const char *which;
    size_t off; /* where the body's opening tag was, for "never closed" */
};

static int body(struct parse *p, struct ends *ends);

/* closer is the tag that ends a block for good ({% endif %}, {% endfor %}): its last name. */
static const char *closer(const struct ends *ends)
{
    size_t k = 0;
    while (ends->names[k + 1] != NULL) {
        k++;
    }
    return ends->names[k];
}

static bool space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '\v';
}

/* Emits source bytes [from, to) as text, after the whitespace control of the
 * tags on either side; returns the node or -1 when there is no text. */
static int text(struct parse *p, size_t from, size_t to, bool strip_after)
{
    if (p->strip_text) {
        while (from < to && space(p->s[from])) {
            from++;
        }
    }
    if (strip_after) {
        while (to > from && space(p->s[to - 1])) {
            to--;
        }
    }
    if (from == to) {
        return -1;
    }
    int n = template__node_new(p, T_TEXT, from);
    if (n >= 0) {
        template__n(p, n)->str_off = (uint32_t)from;
        template__n(p, n)->str_len = (uint32_t)(to - from);
    }
    return n;
}

/* Finds the next "{{", "{%" or "{#" at or after `from`; len when none. */
static size_t next_tag(const struct parse *p, size_t from)
{
    for (size_t i = from; i + 1 < p->len; i++) {
        if (p->s[i] == '{' && (p->s[i + 1] == '{' || p->s[i + 1] == '%' || p->s[i + 1] == '#')) {
            return i;
        }
    }
    return p->len;
}

static int comment(struct parse *p, size_t at)
{
    const char *end = NULL;
    for (size_t i = at + 2; i + 1 < p->len; i++) {
        if (p->s[i] == '#' && p->s[i + 1] == '}') {
            end = p->s + i;
            break;
        }
    }
    if (end == NULL) {
        return template__fail(p, at, "a comment {# is never closed");
    }
    p->strip_text = end > p->s + at + 2 && end[-1] == '-';
    p->pos = (size_t)(end - p->s) + 2;
    return 0;
}

static int output(struct parse *p, size_t at)
{
    p->in_output = true;
    p->pos = at + 2 + (p->s[at + 2] == '-' || p->s[at + 2] == '+');
    template__next(p);
    int e = template__expression(p);
    if (template__expect_end(p) < 0) {
        return -1;
    }
    int n = template__node_new(p, T_OUTPUT, at);
    if (n >= 0) {
        template__n(p, n)->a = e;
    }
    return n;
}

static int tag_end(struct parse *p)
{
    return template__expect_end(p);
}

/* The rest of block n once its body ended at tag `which`: an {% else %} body (node c) up to
 * the block's closing tag, then that tag's end. `at` is where the block opened. */
static int else_and_end(struct parse *p, int n, const char *which, size_t at)
{
    static const char *const endif[] = {"endif", NULL};
    static const char *const endfor[] = {"endfor", NULL};
    if (strcmp(which, "else") == 0) {
        template__next(p);
        if (tag_end(p) < 0) {
            return -1;
        }
        struct ends last = {.names = template__n(p, n)->kind == T_IF ? endif : endfor, .off = at};
        int c_node = body(p, &last);
        template__n(p, n)->c = c_node;
    }
    template__next(p);
    return tag_end(p) < 0 ? -1 : n;
}

/* {% if %} ... with its elif/else chain, the tag's name consumed. */
/* if_block parses an if and its branches; elifs counts the elifs before it, each a level
 * deeper in the tree (rendering recurses through them), bounded like nesting. */
static int if_block(struct parse *p, size_t at, int elifs)
{
    if (elifs > TEMPLATE_DEPTH_MAX) {
        return template__fail(p, at, "more than %d {%% elif %%} in a row", TEMPLATE_DEPTH_MAX);
    }
    int n = template__node_new(p, T_IF, at);
    int cond = template__expression(p);
    if (tag_end(p) < 0 || n < 0) {
        return -1;
    }
    static const char *const names[] = {"elif", "else", "endif", NULL};
    struct ends ends = {.names = names, .off = at};
    template__n(p, n)->a = cond;
    int b_node = body(p, &ends);
    template__n(p, n)->b = b_node;
    if (p->failed) {
        return -1;
    }
    if (strcmp(ends.which, "elif") == 0) {
        size_t elif = p->tok_off;
        template__next(p);
        int c_node = if_block(p, elif, elifs + 1);
        template__n(p, n)->c = c_node;
        return p->failed ? -1 : n;
    }
    return else_and_end(p, n, ends.which, at);
}

static int name_here(struct parse *p, struct template__node *n)
{
    if (p->tok != TK_NAME) {
        return template__unexpected(p);
    }
    n->str_off = (uint32_t)p->tok_off;
    n->str_len = (uint32_t)(p->tok_end - p->tok_off);
    template__next(p);
    if (template__is_op(p, ",")) {
        return template__fail(p, p->tok_off, "unpacking several names is not supported");
    }
    return 0;
}

static int for_block(struct parse *p, size_t at)
{
    int n = template__node_new(p, T_FOR, at);
    if (n < 0 || name_here(p, template__n(p, n)) < 0) {
        return -1;
    }
    if (!template__is_name(p, "in")) {
        return template__unexpected(p);
    }
    template__next(p);
    p->no_condexpr = true;
    int iter = template__expression(p);
    if (template__is_name(p, "if") || template__is_name(p, "recursive")) {
        return template__fail(p, p->tok_off, "a loop '%s' is not supported",
                              template__is_name(p, "if") ? "if" : "recursive");
    }
    if (tag_end(p) < 0) {
        return -1;
    }
    static const char *const names[] = {"else", "endfor", NULL};
    struct ends ends = {.names = names, .off = at};
    template__n(p, n)->a = iter;
    int b_node = body(p, &ends);
    template__n(p, n)->b = b_node;
    return p->failed ? -1 : else_and_end(p, n, ends.which, at);
}

static int set_stmt(struct parse *p, size_t at)
{
    int n = template__node_new(p, T_SET, at);
    if (n < 0 || name_here(p, template__n(p, n)) < 0) {
        return -1;
    }
    if (p->tok == TK_END) {
        return template__fail(p, at, "a block {%% set %%} is not supported");
    }
    if (template__expect_op(p, "=") < 0) {
        return -1;
    }
    int a_node = template__expression(p);
    template__n(p, n)->a = a_node;
    return tag_end(p) < 0 ? -1 : n;
}

/* A statement tag at `at`; returns its node, -1 on error, or -2 when it is
 * one of `ends` (then positioned on the tag's name). */
static int statement(struct parse *p, size_t at, struct ends *ends)
{
    p->in_output = false;
    p->pos = at + 2 + (p->s[at + 2] == '-' || p->s[at + 2] == '+');
    template__next(p);
    if (p->tok != TK_NAME) {
        return template__unexpected(p);
    }
    for (size_t k = 0; ends != NULL && ends->names[k] != NULL; k++) {
        if (template__is_name(p, ends->names[k])) {
            ends->which = ends->names[k];
            return -2;
        }
    }
    size_t off = p->tok_off;
    if (template__is_name(p, "if")) {
        template__next(p);
        return if_block(p, off, 0);
    }
    if (template__is_name(p, "for")) {
        template__next(p);
        return for_block(p, off);
    }
    if (template__is_name(p, "set")) {
        template__next(p);
        return set_stmt(p, off);
    }
    int len = (int)(p->tok_end - off);
    static const char *const closers[] = {"elif", "else", "endif", "endfor"};
    for (size_t k = 0; k < sizeof(closers) / sizeof(closers[0]); k++) {
        if (template__is_name(p, closers[k])) {
            return template__fail(p, off, "unexpected {%% %.*s %%}", len, p->s + off);
        }
    }
    return template__fail(p, off,
                          "the tag {%% %.*s %%} is not supported (if, elif, else, for, "
                          "set)",
                          len, p->s + off);
}

static void append(struct parse *p, int n, int *first, int *last)
{
    if (n < 0) {
        return;
    }
    if (*last < 0) {
        *first = n;
    } else {
        template__n(p, *last)->next = n;
    }
    *last = n;
}

static int body(struct parse *p, struct ends *ends)
{
    int first = -1;
    int last = -1;
    if (++p->depth > TEMPLATE_DEPTH_MAX) {
        return template__fail(p, p->pos, "blocks nested deeper than %d", TEMPLATE_DEPTH_MAX);
    }
    while (!p->failed) {
        size_t at = next_tag(p, p->pos);
        bool strip = at + 2 < p->len && p->s[at + 2] == '-';
        append(p, text(p, p->pos, at, strip), &first, &last);
        p->strip_text = false;
        if (at >= p->len) {
            if (ends != NULL) {
                template__fail(p, ends->off, "this block is never closed ({%% %s %%} expected)",
                               closer(ends));
            }
            break;
        }
        int n = -1;
        if (p->s[at + 1] == '#') {
            comment(p, at);
        } else if (p->s[at + 1] == '{') {
            n = output(p, at);
        } else {
            n = statement(p, at, ends);
        }
        if (n == -2) {
            break;
        }
        append(p, n, &first, &last);
    }
    p->depth--;
    return p->failed ? -1 : first;
}

int template_compile(const char *source, size_t len, struct template **out, char *errbuf,
                     size_t errcap)
{
    *out = NULL;
    struct template *t = calloc(1, sizeof(*t));
    if (t == NULL) {
        return -ENOMEM;
    }
    struct parse p = {.t = t, .err = errbuf, .errcap = errcap};
    t->src = malloc(len + 1);
    if (t->src == NULL) {
        free(t);
        return -ENOMEM;
    }
    memcpy(t->src, source, len);
    /* Jinja's keep_trailing_newline=False. */
    len -= len > 0 && source[len - 1] == '\n' ? (len > 1 && source[len - 2] == '\r' ? 2 : 1) : 0;
    t->src[len] = '\0';
    t->src_len = len;
    p.s = t->src;
    p.len = len;
    if (len > TEMPLATE_SOURCE_BYTES_MAX) {
        template__fail(&p, 0, "the template is longer than %zu bytes", TEMPLATE_SOURCE_BYTES_MAX);
    } else if (memchr(t->src, '\0', len) != NULL) {
        template__fail(&p, (size_t)((char *)memchr(t->src, '\0', len) - t->src), "a NUL byte");
    } else {
        t->body = body(&p, NULL);
    }
    if (p.failed) {
        template_free(t);
        return -EINVAL;
    }
    *out = t;
    return 0;
}

void template_free(struct template *t)
{
    if (t == NULL) {
        return;
    }
    for (size_t i = 0; i < t->node_count; i++) {
        json_decref(t->node[i].lit);
    }
    free(t->node);
    free(t->src);
    free(t);
}

static bool str_is(const struct template *t, uint32_t off, uint32_t len, const char *s)
{
    return strlen(s) == len && memcmp(t->src + off, s, len) == 0;
}

bool template_uses_attribute(const struct template *t, const char *var, const char *attr,
                             unsigned *out_line, unsigned *out_col)
{
    for (size_t i = 0; i < t->node_count; i++) {
        const struct template__node *n = &t->node[i];
        if ((n->kind != T_ATTR && n->kind != T_ITEM) || n->a < 0) {
            continue;
        }
        const struct template__node *of = &t->node[n->a];
        if (of->kind != T_NAME || !str_is(t, of->str_off, of->str_len, var)) {
            continue;
        }
        const struct template__node *key = n->kind == T_ITEM && n->b >= 0 ? &t->node[n->b] : NULL;
        bool hit = n->kind == T_ATTR
                       ? str_is(t, n->str_off, n->str_len, attr)
                       : key != NULL && key->kind == T_LITERAL && json_is_string(key->lit) &&
                             strcmp(json_string_value(key->lit), attr) == 0;
        if (hit) {
            template__where(t, n->off, out_line, out_col);
            return true;
        }
    }
    return false;
}
