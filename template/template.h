/*
 * template.h - the subset of Jinja2 that AIPerf's template endpoint and its
 * documentation use, rendered the way AIPerf's jinja2.Environment(autoescape=
 * True) renders it:
 *   - text, {{ expression }}, {# comments #}, and whitespace control with '-'
 *     ({{- -}}, {%- -%}, {#- -#}); one trailing newline of the source is
 *     dropped (Jinja's keep_trailing_newline=False);
 *   - {% if %} / {% elif %} / {% else %} / {% endif %}, {% for x in e %} /
 *     {% else %} / {% endfor %} with loop.index, index0, revindex, revindex0,
 *     first, last and length, and {% set x = e %};
 *   - expressions: string, integer and real literals, true/false/none (and
 *     True/False/None), list literals [a, b], variables, attributes a.b,
 *     subscripts a[e], filters a|f and a|f(args), tests a is [not] t,
 *     not/and/or, == != < > <= >=, in / not in, ~ (concatenation),
 *     parentheses and the inline "x if c else y";
 *   - filters: tojson, lower, upper, length, count, first, last, join,
 *     default (d), string, trim, int, safe, escape (e);
 *   - tests: defined, undefined, none, string, number, mapping, sequence,
 *     iterable.
 * Everything else (other tags, filters and tests, arithmetic, calls, dict
 * literals, tuple unpacking, raw blocks) is refused when the template is
 * compiled, with the construct and its line:column.
 *
 * Values are JSON (jansson): a variable that is absent is Jinja's Undefined
 * (printed as "", false, iterated as empty; an attribute of it is an error).
 * Printing a value escapes & < > " ' as HTML entities unless it is safe (from
 * tojson, safe or escape); None, True and False print as Python does. A list
 * or an object printed without tojson is an error (AIPerf would print
 * Python's repr, never JSON). All of this runs before the run; it allocates.
 */
#ifndef RINGPERF_TEMPLATE_H
#define RINGPERF_TEMPLATE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

/* TEMPLATE_SOURCE_BYTES_MAX bounds a template's source, TEMPLATE_OUTPUT_BYTES_MAX
 * one rendering, TEMPLATE_DEPTH_MAX the nesting of blocks and expressions. */
#define TEMPLATE_SOURCE_BYTES_MAX ((size_t)1 << 20)
#define TEMPLATE_OUTPUT_BYTES_MAX ((size_t)64 << 20)
#define TEMPLATE_DEPTH_MAX 64

/* template is a compiled template. Opaque; read-only once compiled. */
struct template;

/* template_compile compiles `len` bytes of `source` (borrowed; copied) into
 * *out (free with template_free). Returns 0; -EINVAL with a one-line message
 * in errbuf ("line L, column C: ...", naming the construct) for a syntax
 * error, a construct outside the subset or a source over the limits; or
 * -ENOMEM. *out is NULL on error. */
int template_compile(const char *source, size_t len, struct template **out, char *errbuf,
                     size_t errcap);

/* template_free releases `t`; NULL is a no-op. */
void template_free(struct template *t);

/* template_uses_attribute reports whether `t` reads attribute `attr` of the
 * variable `var` (as var.attr or var['attr']) and sets *out_line and
 * *out_col to the first place it does. */
bool template_uses_attribute(const struct template *t, const char *var, const char *attr,
                             unsigned *out_line, unsigned *out_col);

/* template_render renders `t` with the variables of the JSON object `vars`
 * (borrowed) into *out (malloc'd, NUL-terminated, *out_len bytes). Returns 0;
 * -EINVAL with a message in errbuf ("line L, column C: ...") for an error
 * Jinja also raises (an attribute of an undefined value, tojson of one,
 * iterating a number) or one of the subset's (printing a list or object, an
 * output over TEMPLATE_OUTPUT_BYTES_MAX); or -ENOMEM. */
int template_render(const struct template *t, const json_t *vars, char **out, size_t *out_len,
                    char *errbuf, size_t errcap);

#endif
