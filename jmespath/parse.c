/*
 * parse.c - compiling a response_field: a lexer and a Pratt parser with
 * JMESPath's binding powers (the grammar of jmespath.org's specification),
 * which refuses every construct outside the subset by name and column.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jmespath/jmespath_internal.h"
#include "jsonstr/jsonstr.h"

enum parse__tok {
    TOK_EOF,
    TOK_NAME,     /* bare identifier */
    TOK_QUOTED,   /* "quoted identifier" */
    TOK_NUMBER,   /* -?digits */
    TOK_DOT,      /* . */
    TOK_STAR,     /* * */
    TOK_LBRACKET, /* [ */
    TOK_RBRACKET, /* ] */
    TOK_FLATTEN,  /* [] */
    TOK_COLON,    /* : */
    TOK_PIPE,     /* | */
    TOK_AT,       /* @ */
    TOK_REFUSED,  /* valid JMESPath outside the subset: `what` names it */
    TOK_BAD,      /* not JMESPath at all */
};

struct parse__state {
    const char *s;
    size_t pos; /* next byte to lex */
    enum parse__tok tok;
    size_t tok_start;
    size_t tok_end;
    const char *what; /* TOK_REFUSED / TOK_BAD: the construct */
    int32_t number;
    struct jmespath *e;
    char *err;
    size_t errcap;
    bool failed;
};

/* Left binding powers (jmespath.org's grammar); refused tokens bind tightest
 * so that they reach led() and are named there. */
static int parse__lbp(enum parse__tok t)
{
    switch (t) {
    case TOK_PIPE:
        return 1;
    case TOK_FLATTEN:
        return 9;
    case TOK_STAR:
        return 20;
    case TOK_DOT:
        return 40;
    case TOK_LBRACKET:
        return 55;
    case TOK_REFUSED:
    case TOK_BAD:
        return 100;
    default:
        return 0;
    }
}

#define BP_STAR 20
#define BP_DOT 40
#define BP_FLATTEN 9
#define BP_PIPE 1
#define BP_PROJECTION_STOP 10

static const char *const SUBSET = "response_field supports fields, \"quoted\" fields, @, [N], "
                                  "[start:stop:step], [*], .*, [] and |";

static int parse__fail(struct parse__state *p, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int parse__fail(struct parse__state *p, size_t at, const char *fmt, ...)
{
    if (p->failed) {
        return -1;
    }
    p->failed = true;
    if (p->err == NULL || p->errcap == 0) {
        return -1;
    }
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    snprintf(p->err, p->errcap, "response_field '%.80s': %s at column %zu", p->s, what, at + 1);
    return -1;
}

static bool parse__name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool parse__digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Lexes "-?digits" at p->pos; fails past INT32 range. */
static void lex__number(struct parse__state *p)
{
    const char *s = p->s + p->pos;
    size_t n = *s == '-' ? 1 : 0;
    int64_t v = 0;
    if (!parse__digit(s[n])) {
        p->tok = TOK_BAD;
        p->what = "'-' without digits";
        p->tok_end = p->pos + 1;
        return;
    }
    while (parse__digit(s[n])) {
        v = v * 10 + (s[n] - '0');
        if (v > INT32_MAX) {
            p->tok = TOK_BAD;
            p->what = "a number out of range";
            p->tok_end = p->pos + n;
            return;
        }
        n++;
    }
    p->tok = TOK_NUMBER;
    p->number = (int32_t)(*s == '-' ? -v : v);
    p->tok_end = p->pos + n;
}

/* Lexes a "quoted identifier" (JSON string syntax) at p->pos. */
static void lex__quoted(struct parse__state *p)
{
    size_t i = p->pos + 1;
    while (p->s[i] != '\0' && p->s[i] != '"') {
        i += p->s[i] == '\\' && p->s[i + 1] != '\0' ? 2 : 1;
    }
    if (p->s[i] != '"') {
        p->tok = TOK_BAD;
        p->what = "an unterminated quoted identifier";
        p->tok_end = i;
        return;
    }
    p->tok = TOK_QUOTED;
    p->tok_end = i + 1;
}

struct lex__refusal {
    const char *text;
    const char *what;
};

/* The JMESPath constructs outside the subset, longest spelling first. */
static const struct lex__refusal REFUSALS[] = {
    {"[?", "a filter expression [?...]"},
    {"||", "an or-expression ||"},
    {"&&", "an and-expression &&"},
    {"==", "a comparison =="},
    {"!=", "a comparison !="},
    {"<=", "a comparison <="},
    {">=", "a comparison >="},
    {"<", "a comparison <"},
    {">", "a comparison >"},
    {"!", "a not-expression !"},
    {"{", "a multi-select hash {...}"},
    {"(", "a parenthesised expression or function call"},
    {"`", "a JSON literal `...`"},
    {"'", "a raw string literal '...'"},
    {"&", "an expression reference &"},
    {",", "a ','"},
    {"}", "a '}'"},
    {")", "a ')'"},
};

static bool lex__refused(struct parse__state *p, const char *s)
{
    for (size_t k = 0; k < sizeof(REFUSALS) / sizeof(REFUSALS[0]); k++) {
        size_t n = strlen(REFUSALS[k].text);
        if (strncmp(s, REFUSALS[k].text, n) == 0) {
            p->tok = TOK_REFUSED;
            p->what = REFUSALS[k].what;
            p->tok_end = p->pos + n;
            return true;
        }
    }
    return false;
}

static void lex__punct(struct parse__state *p, const char *s)
{
    static const char single[] = ".*]:|@";
    static const enum parse__tok kinds[] = {TOK_DOT,   TOK_STAR, TOK_RBRACKET,
                                            TOK_COLON, TOK_PIPE, TOK_AT};
    const char *hit = *s != '\0' ? strchr(single, *s) : NULL;
    p->tok_end = p->pos + 1;
    if (s[0] != '\0' && strchr("[|", s[0]) != NULL && strchr("?|", s[1]) != NULL && s[1] != '\0' &&
        lex__refused(p, s)) {
        return;
    }
    if (hit != NULL) {
        p->tok = kinds[hit - single];
    } else if (s[0] == '[' && s[1] == ']') {
        p->tok = TOK_FLATTEN;
        p->tok_end = p->pos + 2;
    } else if (s[0] == '[') {
        p->tok = TOK_LBRACKET;
    } else if (!lex__refused(p, s)) {
        p->tok = TOK_BAD;
        p->what = "an unexpected character";
    }
}

/* Advances to the next token. */
static void lex__next(struct parse__state *p)
{
    while (p->s[p->pos] == ' ' || p->s[p->pos] == '\t' || p->s[p->pos] == '\n' ||
           p->s[p->pos] == '\r') {
        p->pos++;
    }
    const char *s = p->s + p->pos;
    p->tok_start = p->pos;
    if (*s == '\0') {
        p->tok = TOK_EOF;
        p->tok_end = p->pos;
    } else if (parse__name_start(*s)) {
        size_t n = 1;
        while (parse__name_start(s[n]) || parse__digit(s[n])) {
            n++;
        }
        p->tok = TOK_NAME;
        p->tok_end = p->pos + n;
    } else if (*s == '"') {
        lex__quoted(p);
    } else if (*s == '-' || parse__digit(*s)) {
        lex__number(p);
    } else {
        lex__punct(p, s);
    }
    p->pos = p->tok_end;
}

static const char *parse__tok_name(const struct parse__state *p)
{
    switch (p->tok) {
    case TOK_EOF:
        return "the end of the expression";
    case TOK_NAME:
    case TOK_QUOTED:
        return "a field name";
    case TOK_NUMBER:
        return "a number";
    case TOK_DOT:
        return "'.'";
    case TOK_STAR:
        return "'*'";
    case TOK_LBRACKET:
        return "'['";
    case TOK_RBRACKET:
        return "']'";
    case TOK_FLATTEN:
        return "'[]'";
    case TOK_COLON:
        return "':'";
    case TOK_PIPE:
        return "'|'";
    case TOK_AT:
        return "'@'";
    default:
        return p->what;
    }
}

/* Fails on the current token: refused constructs are named as such. */
static int parse__unexpected(struct parse__state *p)
{
    if (p->tok == TOK_REFUSED) {
        return parse__fail(p, p->tok_start, "%s is not supported (%s)", p->what, SUBSET);
    }
    if (p->tok == TOK_BAD) {
        return parse__fail(p, p->tok_start, "%s", p->what);
    }
    return parse__fail(p, p->tok_start, "unexpected %s", parse__tok_name(p));
}

static int parse__node(struct parse__state *p, enum jmespath__op op, int left, int right)
{
    if (p->failed) {
        return -1;
    }
    if (p->e->node_count == JMESPATH_NODES_MAX) {
        return parse__fail(p, p->tok_start, "more than %d steps", JMESPATH_NODES_MAX);
    }
    int i = p->e->node_count++;
    struct jmespath__node *n = &p->e->node[i];
    memset(n, 0, sizeof(*n));
    n->op = op;
    n->left = (int16_t)left;
    n->right = (int16_t)right;
    return i;
}

static int parse__expect(struct parse__state *p, enum parse__tok t)
{
    if (p->failed) {
        return -1;
    }
    if (p->tok != t) {
        return parse__unexpected(p);
    }
    lex__next(p);
    return 0;
}

static int parse__expression(struct parse__state *p, int rbp);

/* parse__escape_len returns the bytes of the escape at s (after the
 * backslash) when JSON allows it, else 0: a quoted identifier is a JSON
 * string (jmespath.py reads it with json.loads, which refuses the rest). */
static size_t parse__escape_len(const char *s)
{
    if (*s != '\0' && strchr("\"\\/bfnrt", *s) != NULL) {
        return 1;
    }
    if (*s != 'u') {
        return 0;
    }
    for (int k = 1; k <= 4; k++) {
        if (!isxdigit((unsigned char)s[k])) {
            return 0;
        }
    }
    return 5;
}

/* Stores the current name token's bytes into FIELD node n, a quoted one
 * checked as JSON and decoded with jsonstr/, the decoder response/ compares
 * a response's member names through: the two agree on what a name is. */
static int parse__name(struct parse__state *p, int n)
{
    struct jmespath *e = p->e;
    const char *s = p->s + p->tok_start;
    size_t len = p->tok_end - p->tok_start;
    char *out = e->names + e->names_used;
    size_t w = len;
    if (p->tok == TOK_NAME) {
        memcpy(out, s, len);
    } else {
        for (size_t i = 1; i + 1 < len; i++) {
            unsigned char c = (unsigned char)s[i];
            if (c < 0x20) {
                return parse__fail(p, p->tok_start + i, "a control byte in a quoted identifier");
            }
            if (c == '\\') {
                size_t step = parse__escape_len(s + i + 1);
                if (step == 0) {
                    return parse__fail(p, p->tok_start + i,
                                       "an invalid escape in a quoted identifier");
                }
                i += step;
            }
        }
        w = jsonstr_unescape(s + 1, len - 2, out, len - 2, NULL);
    }
    out[w] = '\0';
    e->node[n].name_off = e->names_used;
    e->node[n].name_len = (uint16_t)w;
    e->names_used = (uint16_t)(e->names_used + w + 1);
    return 0;
}

static int parse__field(struct parse__state *p)
{
    int n = parse__node(p, JMESPATH__FIELD, -1, -1);
    if (n < 0 || parse__name(p, n) < 0) {
        return -1;
    }
    lex__next(p);
    return n;
}

/* Parses what follows '[' when it is a number or ':': an index "N]" or a
 * slice "a:b:c]" (each part optional). */
static int parse__index(struct parse__state *p)
{
    size_t at = p->tok_start;
    int32_t part[3] = {0, 0, 0};
    bool has[3] = {false, false, false};
    int k = 0;
    while (p->tok != TOK_RBRACKET && !p->failed) {
        if (p->tok == TOK_COLON && k < 2) {
            k++;
            lex__next(p);
        } else if (p->tok == TOK_NUMBER && !has[k]) {
            part[k] = p->number;
            has[k] = true;
            lex__next(p);
        } else {
            return parse__unexpected(p);
        }
    }
    if (parse__expect(p, TOK_RBRACKET) < 0) {
        return -1;
    }
    if (k == 0) {
        int n = parse__node(p, JMESPATH__INDEX, -1, -1);
        if (n >= 0) {
            p->e->node[n].index = part[0];
        }
        return n;
    }
    if (has[2] && part[2] == 0) {
        return parse__fail(p, at, "a slice step of 0");
    }
    int n = parse__node(p, JMESPATH__SLICE, -1, -1);
    if (n >= 0) {
        memcpy(p->e->node[n].slice, part, sizeof(part));
        memcpy(p->e->node[n].has, has, sizeof(has));
    }
    return n;
}

/* The right side of a projection: up to the next token that stops it. */
static int parse__projection_rhs(struct parse__state *p, int bp)
{
    if (parse__lbp(p->tok) < BP_PROJECTION_STOP) {
        return parse__node(p, JMESPATH__CURRENT, -1, -1);
    }
    if (p->tok == TOK_LBRACKET || p->tok == TOK_FLATTEN) {
        return parse__expression(p, bp);
    }
    if (p->tok == TOK_DOT) {
        lex__next(p);
        if (p->tok == TOK_NAME || p->tok == TOK_QUOTED || p->tok == TOK_STAR) {
            return parse__expression(p, bp);
        }
        if (p->tok == TOK_LBRACKET) {
            return parse__fail(p, p->tok_start, "a multi-select list .[...] is not supported (%s)",
                               SUBSET);
        }
    }
    return parse__unexpected(p);
}

/* [N], [a:b], [*] after `left` (the CURRENT node when nothing precedes). */
static int parse__bracket(struct parse__state *p, int left)
{
    size_t at = p->tok_start;
    lex__next(p);
    if (p->tok == TOK_NUMBER || p->tok == TOK_COLON) {
        int idx = parse__index(p);
        if (idx < 0) {
            return -1;
        }
        int chain = parse__node(p, JMESPATH__CHAIN, left, idx);
        if (p->e->node[idx].op != JMESPATH__SLICE) {
            return chain;
        }
        return parse__node(p, JMESPATH__LIST_PROJECT, chain, parse__projection_rhs(p, BP_STAR));
    }
    if (p->tok == TOK_STAR) {
        lex__next(p);
        if (parse__expect(p, TOK_RBRACKET) < 0) {
            return -1;
        }
        return parse__node(p, JMESPATH__LIST_PROJECT, left, parse__projection_rhs(p, BP_STAR));
    }
    if (p->tok == TOK_REFUSED || p->tok == TOK_BAD || p->tok == TOK_EOF) {
        return parse__unexpected(p);
    }
    return parse__fail(p, at, "a multi-select list [...] is not supported (%s)", SUBSET);
}

static int parse__flatten(struct parse__state *p, int left)
{
    lex__next(p);
    int flat = parse__node(p, JMESPATH__FLATTEN, left, -1);
    return parse__node(p, JMESPATH__LIST_PROJECT, flat, parse__projection_rhs(p, BP_FLATTEN));
}

/* A token in prefix position. */
static int parse__nud(struct parse__state *p)
{
    switch (p->tok) {
    case TOK_NAME:
    case TOK_QUOTED:
        return parse__field(p);
    case TOK_AT:
        lex__next(p);
        return parse__node(p, JMESPATH__CURRENT, -1, -1);
    case TOK_STAR: {
        lex__next(p);
        int cur = parse__node(p, JMESPATH__CURRENT, -1, -1);
        return parse__node(p, JMESPATH__OBJECT_PROJECT, cur, parse__projection_rhs(p, BP_STAR));
    }
    case TOK_FLATTEN:
        return parse__flatten(p, parse__node(p, JMESPATH__CURRENT, -1, -1));
    case TOK_LBRACKET:
        return parse__bracket(p, parse__node(p, JMESPATH__CURRENT, -1, -1));
    default:
        return parse__unexpected(p);
    }
}

/* A token in infix position, after `left`. */
static int parse__led(struct parse__state *p, int left)
{
    switch (p->tok) {
    case TOK_DOT:
        lex__next(p);
        if (p->tok == TOK_STAR) {
            lex__next(p);
            return parse__node(p, JMESPATH__OBJECT_PROJECT, left, parse__projection_rhs(p, BP_DOT));
        }
        if (p->tok == TOK_NAME || p->tok == TOK_QUOTED) {
            return parse__node(p, JMESPATH__CHAIN, left, parse__expression(p, BP_DOT));
        }
        if (p->tok == TOK_LBRACKET) {
            return parse__fail(p, p->tok_start, "a multi-select list .[...] is not supported (%s)",
                               SUBSET);
        }
        return parse__unexpected(p);
    case TOK_PIPE:
        lex__next(p);
        return parse__node(p, JMESPATH__CHAIN, left, parse__expression(p, BP_PIPE));
    case TOK_LBRACKET:
        return parse__bracket(p, left);
    case TOK_FLATTEN:
        return parse__flatten(p, left);
    default:
        return parse__unexpected(p);
    }
}

static int parse__expression(struct parse__state *p, int rbp)
{
    int left = parse__nud(p);
    while (!p->failed && rbp < parse__lbp(p->tok)) {
        left = parse__led(p, left);
    }
    return p->failed ? -1 : left;
}

int jmespath_compile(const char *expr, struct jmespath **out, char *errbuf, size_t errcap)
{
    *out = NULL;
    struct parse__state p = {.s = expr, .err = errbuf, .errcap = errcap};
    size_t len = strlen(expr);
    if (len > JMESPATH_EXPR_BYTES_MAX) {
        parse__fail(&p, JMESPATH_EXPR_BYTES_MAX, "longer than %d bytes", JMESPATH_EXPR_BYTES_MAX);
        return -EINVAL;
    }
    p.e = calloc(1, sizeof(*p.e));
    if (p.e == NULL) {
        return -ENOMEM;
    }
    lex__next(&p);
    int root = parse__expression(&p, 0);
    if (!p.failed && p.tok != TOK_EOF) {
        parse__unexpected(&p);
    }
    if (p.failed || root < 0) {
        free(p.e);
        return -EINVAL;
    }
    p.e->root = (int16_t)root;
    *out = p.e;
    return 0;
}

void jmespath_free(struct jmespath *e)
{
    free(e);
}
