/*
 * template_parse.h - the parser's state, tokens and helpers shared by lex.c,
 * expr.c and parse.c. Private to template/.
 */
#ifndef RINGPERF_TEMPLATE_PARSE_H
#define RINGPERF_TEMPLATE_PARSE_H

#include "template/template_internal.h"

enum tk {
    TK_EOF, /* the source ended inside a tag */
    TK_NAME,
    TK_INT,
    TK_FLOAT,
    TK_STRING,
    TK_OP,  /* `op` holds the operator's text */
    TK_END, /* }} or %} (`strip`: written -}} or -%}) */
};

struct parse {
    struct template *t;
    const char *s;
    size_t len;
    size_t pos;
    bool in_output;  /* inside {{ }}: the tag ends with }}, else %} */
    bool strip_text; /* the last tag ended with '-': strip the text's leading space */
    enum tk tok;
    size_t tok_off;
    size_t tok_end;
    char op[3];
    bool strip;
    int depth;
    bool no_condexpr; /* a for loop's iterable: 'if' there is a loop filter */
    bool failed;
    char *err;
    size_t errcap;
};

/* template__fail records the first error, at source offset `off`; returns -1. */
int template__fail(struct parse *p, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* template__node_new appends a node of `kind` (children -1); -1 on error. */
int template__node_new(struct parse *p, enum template__kind kind, size_t off);

/* template__n returns node i, valid until the next node is made (the array grows): parse a
 * child into a local first, then store it, never `template__n(p, n)->b = body(p, ...)`. */
struct template__node *template__n(struct parse *p, int i);

/* template__next lexes the next token of the tag. */
void template__next(struct parse *p);

/* template__is_op and template__is_name test the current token. */
bool template__is_op(const struct parse *p, const char *op);
bool template__is_name(const struct parse *p, const char *name);

/* template__unexpected fails on the current token; -1. */
int template__unexpected(struct parse *p);

/* template__expect_op consumes operator `op` or fails. */
int template__expect_op(struct parse *p, const char *op);

/* template__expect_end checks that the tag ends here, noting a '-' strip. */
int template__expect_end(struct parse *p);

/* template__expression parses an expression (expr.c). */
int template__expression(struct parse *p);

#endif
