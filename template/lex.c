/*
 * lex.c - the tokens of a tag's expression, the parser's error messages and
 * its node allocation, shared by expr.c and parse.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template/template_parse.h"

void template__where(const struct template *t, uint32_t off, unsigned *out_line, unsigned *out_col)
{
    unsigned line = 1;
    unsigned col = 1;
    for (uint32_t i = 0; i < off && i < t->src_len; i++) {
        if (t->src[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    *out_line = line;
    *out_col = col;
}

void template__message(const struct template *t, uint32_t off, char *err, size_t errcap,
                       const char *fmt, va_list ap)
{
    if (err == NULL || errcap == 0) {
        return;
    }
    char what[320];
    vsnprintf(what, sizeof(what), fmt, ap);
    unsigned line;
    unsigned col;
    template__where(t, off, &line, &col);
    snprintf(err, errcap, "line %u, column %u: %s", line, col, what);
}

int template__fail(struct parse *p, size_t off, const char *fmt, ...)
{
    if (p->failed) {
        return -1;
    }
    p->failed = true;
    va_list ap;
    va_start(ap, fmt);
    template__message(p->t, (uint32_t)off, p->err, p->errcap, fmt, ap);
    va_end(ap);
    return -1;
}

int template__node_new(struct parse *p, enum template__kind kind, size_t off)
{
    if (p->failed) {
        return -1;
    }
    struct template *t = p->t;
    if (t->node_count == t->node_cap) {
        size_t cap = t->node_cap ? t->node_cap * 2 : 64;
        struct template__node *n = realloc(t->node, cap * sizeof(*n));
        if (n == NULL) {
            return template__fail(p, off, "out of memory");
        }
        t->node = n;
        t->node_cap = cap;
    }
    int i = (int)t->node_count++;
    t->node[i] = (struct template__node){
        .kind = kind, .a = -1, .b = -1, .c = -1, .next = -1, .off = (uint32_t)off};
    return i;
}

struct template__node *template__n(struct parse *p, int i)
{
    return &p->t->node[i];
}

/* ---- Expression tokens ---------------------------------------------------- */

static bool name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool digit(char c)
{
    return c >= '0' && c <= '9';
}

static void lex_number(struct parse *p, const char *s)
{
    size_t n = 0;
    while (digit(s[n]) || s[n] == '_') {
        n++;
    }
    p->tok = TK_INT;
    if (s[n] == '.' && digit(s[n + 1])) {
        n++;
        while (digit(s[n]) || s[n] == '_') {
            n++;
        }
        p->tok = TK_FLOAT;
    }
    if ((s[n] == 'e' || s[n] == 'E') &&
        (digit(s[n + 1]) || ((s[n + 1] == '-' || s[n + 1] == '+') && digit(s[n + 2])))) {
        n += 2;
        while (digit(s[n])) {
            n++;
        }
        p->tok = TK_FLOAT;
    }
    p->tok_end = p->tok_off + n;
}

static void lex_string(struct parse *p, const char *s)
{
    size_t n = 1;
    while (s[n] != '\0' && s[n] != s[0]) {
        n += s[n] == '\\' && s[n + 1] != '\0' ? 2 : 1;
    }
    if (s[n] != s[0]) {
        p->tok = TK_EOF;
        template__fail(p, p->tok_off, "an unterminated string literal");
        return;
    }
    p->tok = TK_STRING;
    p->tok_end = p->tok_off + n + 1;
}

static bool lex_end(struct parse *p, const char *s)
{
    const char *close = p->in_output ? "}}" : "%}";
    size_t skip = (s[0] == '-' || s[0] == '+') && strncmp(s + 1, close, 2) == 0 ? 1 : 0;
    if (strncmp(s + skip, close, 2) != 0) {
        return false;
    }
    p->tok = TK_END;
    p->strip = skip == 1 && s[0] == '-';
    p->tok_end = p->tok_off + skip + 2;
    return true;
}

static void lex_op(struct parse *p, const char *s)
{
    static const char *const two[] = {"==", "!=", "<=", ">=", "//", "**"};
    p->tok = TK_OP;
    for (size_t k = 0; k < sizeof(two) / sizeof(two[0]); k++) {
        if (strncmp(s, two[k], 2) == 0) {
            memcpy(p->op, s, 2);
            p->op[2] = '\0';
            p->tok_end = p->tok_off + 2;
            return;
        }
    }
    if (strchr("<>()[]{}.,|~:=+-*/%!", s[0]) == NULL) {
        p->tok = TK_EOF;
        template__fail(p, p->tok_off, "an unexpected character '%c'", s[0]);
        return;
    }
    p->op[0] = s[0];
    p->op[1] = '\0';
    p->tok_end = p->tok_off + 1;
}

void template__next(struct parse *p)
{
    if (p->failed) {
        p->tok = TK_EOF;
        return;
    }
    while (p->pos < p->len && strchr(" \t\r\n", p->s[p->pos]) != NULL) {
        p->pos++;
    }
    const char *s = p->s + p->pos;
    p->tok_off = p->pos;
    if (p->pos >= p->len) {
        p->tok = TK_EOF;
        p->tok_end = p->pos;
    } else if (lex_end(p, s)) {
    } else if (name_start(*s)) {
        size_t n = 1;
        while (name_start(s[n]) || digit(s[n])) {
            n++;
        }
        p->tok = TK_NAME;
        p->tok_end = p->pos + n;
    } else if (digit(*s)) {
        lex_number(p, s);
    } else if (*s == '\'' || *s == '"') {
        lex_string(p, s);
    } else {
        lex_op(p, s);
    }
    p->pos = p->tok_end;
}

bool template__is_op(const struct parse *p, const char *op)
{
    return p->tok == TK_OP && strcmp(p->op, op) == 0;
}

bool template__is_name(const struct parse *p, const char *name)
{
    size_t n = strlen(name);
    return p->tok == TK_NAME && p->tok_end - p->tok_off == n &&
           memcmp(p->s + p->tok_off, name, n) == 0;
}

int template__unexpected(struct parse *p)
{
    if (p->tok == TK_EOF) {
        return template__fail(p, p->tok_off, "the template ended inside a tag");
    }
    if (p->tok == TK_END) {
        return template__fail(p, p->tok_off, "unexpected end of tag '%.*s'",
                              (int)(p->tok_end - p->tok_off), p->s + p->tok_off);
    }
    return template__fail(p, p->tok_off, "unexpected '%.*s'", (int)(p->tok_end - p->tok_off),
                          p->s + p->tok_off);
}

int template__expect_op(struct parse *p, const char *op)
{
    if (!template__is_op(p, op)) {
        return template__unexpected(p);
    }
    template__next(p);
    return 0;
}

int template__expect_end(struct parse *p)
{
    if (p->failed) {
        return -1;
    }
    if (p->tok != TK_END) {
        return template__unexpected(p);
    }
    p->strip_text = p->strip;
    return 0;
}
