/*
 * test_render.c - the Jinja2 subset: renderings checked against Jinja2
 * 3.1.6 with autoescape=True (the expected strings are its output for the
 * same variables), the errors Jinja raises too, and what is refused at
 * compile time, by name and line:column.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "template/template.h"

static const char *const VARS =
    "{\"texts\":[\"Hello <b> & 'q' \\\"d\\\"\",\"two\"],\"text\":\"Hello <b> & 'q' \\\"d\\\"\","
    "\"images\":[],\"image\":null,\"model\":\"m1\",\"max_tokens\":100,\"stream\":true,"
    "\"role\":null,\"queries\":[],\"query\":null,"
    "\"texts_by_name\":{\"user\":[\"u1\"],\"system\":[\"s1\"]},"
    "\"turn\":{\"texts\":[{\"name\":\"User\",\"contents\":[\"Hello\"]}],\"max_tokens\":100},"
    "\"real\":1.5,\"big\":1e16,\"small\":0.0001,\"tiny\":1e-5,\"int0\":0,"
    "\"nested\":{\"a\":[1,2,{\"b\":\"x\"}]},\"uni\":\"h\\u00e9llo\"}";

struct render_case {
    const char *source;
    const char *want;
};

#define TEXT "Hello &lt;b&gt; &amp; &#39;q&#39; &#34;d&#34;"
#define JSON_TEXT "\"Hello \\u003cb\\u003e \\u0026 \\u0027q\\u0027 \\\"d\\\"\""

static const struct render_case CASES[] = {
    {"{\"text\": {{ text|tojson }}}", "{\"text\": " JSON_TEXT "}"},
    {"{\"text\": \"{{ text }}\"}", "{\"text\": \"" TEXT "\"}"},
    {"{\"t\": {{ texts|tojson }}, \"m\": \"{{ model }}\"}",
     "{\"t\": [" JSON_TEXT ", \"two\"], \"m\": \"m1\"}"},
    {"{\"max_tokens\": {{ max_tokens }}, \"stream\": {{ stream|lower }}}",
     "{\"max_tokens\": 100, \"stream\": true}"},
    {"{{ image }}|{{ role }}|{{ stream }}|{{ missing }}|{{ real }}|{{ big }}|{{ small }}|{{ tiny "
     "}}",
     "None|None|True||1.5|1e+16|0.0001|1e-05"},
    {"{% for item in texts %}{\"k\": [{{ item|tojson }}]}{% if not loop.last %},{% endif %}"
     "{% endfor %}",
     "{\"k\": [" JSON_TEXT "]},{\"k\": [\"two\"]}"},
    {"{{ turn.texts[0].contents[0] }}-{{ turn.texts[0].name }}-{{ turn[\"max_tokens\"] }}",
     "Hello-User-100"},
    {"{{ texts_by_name.user|tojson }}{{ texts_by_name.nope|default(\"x\") }}", "[\"u1\"]x"},
    {"{%- if stream -%}\n  yes\n{%- else -%} no {%- endif %}\n", "yes"},
    {"{% for k in texts_by_name %}{{ loop.index }}:{{ k }} {% endfor %}", "1:user 2:system "},
    {"{% set x = model ~ \"-\" ~ max_tokens %}{{ x }}", "m1-100"},
    {"{{ texts|length }} {{ text|upper }} {{ texts|first }} {{ texts|last }} "
     "{{ texts|join(\", \") }}",
     "2 HELLO &lt;B&gt; &amp; &#39;Q&#39; &#34;D&#34; " TEXT " two " TEXT ", two"},
    {"{{ \"a\" if stream else \"b\" }} {{ 1 == 1.0 }} {{ \"He\" in text }} "
     "{{ model is defined }} {{ nope is not defined }}",
     "a True True True True"},
    {"{{ nested|tojson }}", "{\"a\": [1, 2, {\"b\": \"x\"}]}"},
    {"{{ uni|length }} {{ uni|tojson }} {{ uni|first }}", "5 \"h\\u00e9llo\" h"},
    {"{# comment #}A {#- c -#} B", "AB"},
    {"{% for x in [] %}a{% else %}empty{% endfor %}", "empty"},
    {"{{ max_tokens|string|length }} {{ \"  x \"|trim }} {{ \"12\"|int }}", "3 x 12"},
    {"{{ int0 or \"zero\" }} {{ text and model }}", "zero m1"},
    {"{% if max_tokens > 50 %}big{% elif max_tokens > 10 %}mid{% else %}small{% endif %}", "big"},
    {"{% if max_tokens > 500 %}big{% elif max_tokens > 10 %}mid{% else %}small{% endif %}", "mid"},
    {"{{ [text, model]|tojson }} {{ -3 }} {{ 2.50 }}", "[" JSON_TEXT ", \"m1\"] -3 2.5"},
    {"{{ text|e }} {{ text|safe }} {{ (\"<\" ~ model)|safe }} {{ \"<\"|safe ~ text }}",
     TEXT " Hello <b> & 'q' \"d\" <m1 <" TEXT},
    {"a\n", "a"},
    {"{{ \"a\\nb\" }}|{{ 'it\\'s' }}|{{ 'a\\\\b' }}|{{ \"t\\tr\\r\\q\" }}",
     "a\nb|it&#39;s|a\\b|t\tr\r\\q"},
};

static json_t *vars(void)
{
    json_error_t err;
    json_t *v = json_loads(VARS, 0, &err);
    cr_assert_not_null(v, "%s", err.text);
    return v;
}

Test(template_render, renders_what_jinja2_renders)
{
    json_t *v = vars();
    for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
        struct template *t = NULL;
        char err[512] = "";
        int rc = template_compile(CASES[i].source, strlen(CASES[i].source), &t, err, sizeof(err));
        cr_assert_eq(rc, 0, "%s: %s", CASES[i].source, err);
        char *out = NULL;
        size_t len = 0;
        rc = template_render(t, v, &out, &len, err, sizeof(err));
        cr_assert_eq(rc, 0, "%s: %s", CASES[i].source, err);
        cr_assert_str_eq(out, CASES[i].want, "%s: got %s", CASES[i].source, out);
        cr_assert_eq(len, strlen(out));
        free(out);
        template_free(t);
    }
    json_decref(v);
}

struct error_case {
    const char *source;
    const char *says;
};

/* Rendering errors: those Jinja raises too, and printing a list or mapping. */
static const struct error_case RENDER_ERRORS[] = {
    {"{{ missing.attr }}", "line 1, column 11: an attribute of an undefined value"},
    {"x\n {{ missing|tojson }}", "line 2, column 13: tojson of an undefined value"},
    {"{{ texts }}", "line 1, column 1: printing a list: AIPerf would print Python's repr, not "
                    "JSON; use |tojson"},
    {"{{ nested }}", "printing a mapping"},
    {"{% for x in max_tokens %}{% endfor %}", "a for loop over a value that is not iterable"},
    {"{{ max_tokens|length }}", "length of a value that has none"},
    {"{{ 1 < \"a\" }}", "only numbers or strings can be ordered"},
    {"{{ [[missing.x]]|tojson }}", "an attribute of an undefined value"},
};

Test(template_render, fails_where_jinja2_fails_with_the_place)
{
    json_t *v = vars();
    for (size_t i = 0; i < sizeof(RENDER_ERRORS) / sizeof(RENDER_ERRORS[0]); i++) {
        struct template *t = NULL;
        char err[512] = "";
        const char *src = RENDER_ERRORS[i].source;
        cr_assert_eq(template_compile(src, strlen(src), &t, err, sizeof(err)), 0, "%s", err);
        char *out = (char *)1;
        size_t len;
        cr_assert_eq(template_render(t, v, &out, &len, err, sizeof(err)), -EINVAL, "%s", src);
        cr_assert_null(out);
        cr_assert_not_null(strstr(err, RENDER_ERRORS[i].says), "%s: %s", src, err);
        template_free(t);
    }
    json_decref(v);
}

/* Compile-time refusals: outside the subset, or not Jinja at all. */
static const struct error_case REFUSED[] = {
    {"{{ text|wordcount }}", "line 1, column 9: the filter 'wordcount' is not supported"},
    {"{{ x is divisibleby(3) }}", "the test 'divisibleby' is not supported"},
    {"{{ a is even }}", "the test 'even' is not supported"},
    {"a\n{% macro m() %}{% endmacro %}", "line 2, column 4: the tag {% macro %} is not supported"},
    {"{% raw %}x{% endraw %}", "the tag {% raw %} is not supported"},
    {"{% include 'x' %}", "the tag {% include %} is not supported"},
    {"{{ max_tokens + 1 }}", "line 1, column 15: arithmetic '+' is not supported"},
    {"{{ max_tokens * 2 }}", "arithmetic '*' is not supported"},
    {"{{ range(3) }}", "line 1, column 9: a call (...) is not supported"},
    {"{{ {'a': 1} }}", "a dict literal {...} is not supported"},
    {"{% for k, v in x %}{% endfor %}", "unpacking several names is not supported"},
    {"{% for x in y if x %}{% endfor %}", "a loop 'if' is not supported"},
    {"{{ text[1:] }}", "a slice [a:b] is not supported"},
    {"{{ text|join(d='x') }}", "a keyword argument is not supported"},
    {"{{ text|lower(1) }}", "the filter 'lower' takes 0 to 0 arguments, not 1"},
    {"{% if x %}", "line 1, column 4: this block is never closed ({% endif %} expected)"},
    {"{% for x in y %}", "this block is never closed ({% endfor %} expected)"},
    {"{% endif %}", "unexpected {% endif %}"},
    {"{{ text ", "the template ended inside a tag"},
    {"{# x", "a comment {# is never closed"},
    {"{{ 'abc }}", "an unterminated string literal"},
    {"{{ a < b < c }}", "a chained comparison is not supported"},
    {"{{ (a, b) }}", "a tuple is not supported"},
    {"{{ }}", "unexpected end of tag '}}'"},
    {"{{ a $ }}", "an unexpected character '$'"},
    {"{% set x %}y{% endset %}", "a block {% set %} is not supported"},
    {"{{ a }", "line 1, column 6: unexpected '}'"},
};

Test(template_compile, refuses_what_is_outside_the_subset_with_its_place)
{
    for (size_t i = 0; i < sizeof(REFUSED) / sizeof(REFUSED[0]); i++) {
        struct template *t = (struct template *)1;
        char err[512] = "";
        const char *src = REFUSED[i].source;
        cr_assert_eq(template_compile(src, strlen(src), &t, err, sizeof(err)), -EINVAL, "%s", src);
        cr_assert_null(t);
        cr_assert_not_null(strstr(err, REFUSED[i].says), "%s: %s", src, err);
        cr_assert_eq(strncmp(err, "line ", 5), 0, "%s", err);
    }
}

Test(template_compile, finds_where_an_attribute_is_read)
{
    const char *src = "{\"a\": 1,\n \"c\": \"{{ request_info.x_correlation_id }}\"}";
    struct template *t = NULL;
    cr_assert_eq(template_compile(src, strlen(src), &t, NULL, 0), 0);
    unsigned line = 0;
    unsigned col = 0;
    cr_assert(template_uses_attribute(t, "request_info", "x_correlation_id", &line, &col));
    cr_assert_eq(line, 2);
    cr_assert_eq(col, 23);
    cr_assert_not(template_uses_attribute(t, "request_info", "conversation_id", &line, &col));
    template_free(t);
    src = "{{ request_info['x_correlation_id'] }}";
    cr_assert_eq(template_compile(src, strlen(src), &t, NULL, 0), 0);
    cr_assert(template_uses_attribute(t, "request_info", "x_correlation_id", &line, &col));
    template_free(t);
    template_free(NULL);
}

Test(template_compile, bounds_nesting)
{
    char src[1024] = "";
    size_t used = 0;
    for (int i = 0; i < TEMPLATE_DEPTH_MAX + 1; i++) {
        memcpy(src + used, "{% if a %}", 10);
        used += 10;
    }
    struct template *t = NULL;
    char err[256];
    cr_assert_eq(template_compile(src, used, &t, err, sizeof(err)), -EINVAL);
    cr_assert_not_null(strstr(err, "nested deeper than 64"), "%s", err);
    char expr[512] = "{{ ";
    used = 3;
    for (int i = 0; i < 100; i++) {
        expr[used++] = '(';
    }
    cr_assert_eq(template_compile(expr, used, &t, err, sizeof(err)), -EINVAL);
    cr_assert_not_null(strstr(err, "nested deeper than 64"), "%s", err);
}

/* repeat writes `head`, then `link` n times, then `tail` into a heap string. */
static char *repeat(const char *head, const char *link, int n, const char *tail)
{
    size_t len = strlen(head) + strlen(link) * (size_t)n + strlen(tail);
    char *s = malloc(len + 1);
    cr_assert_not_null(s);
    size_t used = 0;
    memcpy(s, head, strlen(head));
    used += strlen(head);
    for (int i = 0; i < n; i++) {
        memcpy(s + used, link, strlen(link));
        used += strlen(link);
    }
    memcpy(s + used, tail, strlen(tail) + 1);
    return s;
}

/* A left-nested chain is a level deeper per link, which rendering recurses through: each kind
 * is bounded like nesting (a chain long enough would overflow the stack), and a long but
 * bounded one still renders. */
Test(template_compile, bounds_chains)
{
    static const struct {
        const char *head, *link, *tail, *says;
    } CHAINS[] = {
        {"{{ a", " ~ a", " }}", "more than 64 '~' in a row"},
        {"{{ a", " and a", " }}", "more than 64 and in a row"},
        {"{{ a", " or a", " }}", "more than 64 or in a row"},
        {"{{ a", "|lower", " }}", "more than 64 filters and tests in a row"},
        {"{{ a", ".b", " }}", "more than 64 '.' and '[]' lookups in a row"},
        {"{% if a %}", "{% elif a %}", "{% endif %}", "more than 64 {% elif %} in a row"},
    };
    for (size_t i = 0; i < sizeof(CHAINS) / sizeof(CHAINS[0]); i++) {
        struct template *t = NULL;
        char err[256] = "";
        char *src = repeat(CHAINS[i].head, CHAINS[i].link, TEMPLATE_DEPTH_MAX + 1, CHAINS[i].tail);
        cr_assert_eq(template_compile(src, strlen(src), &t, err, sizeof(err)), -EINVAL, "%s", src);
        cr_assert_not_null(strstr(err, CHAINS[i].says), "%s", err);
        free(src);
        src = repeat(CHAINS[i].head, CHAINS[i].link, TEMPLATE_DEPTH_MAX, CHAINS[i].tail);
        cr_assert_eq(template_compile(src, strlen(src), &t, err, sizeof(err)), 0, "%s", err);
        template_free(t);
        free(src);
    }
}
