/*
 * test_search.c - the response_field JMESPath subset: what it finds (the
 * expected values are Python jmespath 1.1's answers on the same document),
 * what it refuses at compile time and where, and its arena limit.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jsondoc.h"

static const char *const DOC =
    "{\"choices\":[{\"text\":\"a\",\"message\":{\"content\":\"x\"}},"
    "{\"text\":\"b\",\"message\":{\"content\":\"y\"}},{\"text\":null}],"
    "\"data\":[{\"embedding\":[0.1,0.2]},{\"embedding\":[0.3,0.4]}],"
    "\"nested\":[[1,2],[3,[4,5]],6],"
    "\"obj\":{\"k1\":{\"v\":1},\"k2\":{\"v\":2},\"k3\":{\"w\":3}},"
    "\"output\":{\"text\":\"hi\"},\"weird key\":{\"q\\\"\":7},\"s\":\"str\",\"n\":0,"
    "\"caf\\u00e9\":\"e\",\"tab\\t\":\"t\",\"sl/ash\":\"s\",\"\\ud83d\\ude00\":\"smile\"}";

struct search_case {
    const char *expr;
    const char *want; /* JSON */
};

static const struct search_case CASES[] = {
    {"choices[0].text", "\"a\""},
    {"choices[-1].text", "null"},
    {"choices[5]", "null"},
    {"choices[*].text", "[\"a\",\"b\"]"},
    {"choices[*].message.content", "[\"x\",\"y\"]"},
    {"choices[0:2].text", "[\"a\",\"b\"]"},
    {"choices[::-1].text", "[\"b\",\"a\"]"},
    {"choices[1:].text", "[\"b\"]"},
    {"choices[:-1]", "[{\"text\":\"a\",\"message\":{\"content\":\"x\"}},"
                     "{\"text\":\"b\",\"message\":{\"content\":\"y\"}}]"},
    {"data[*].embedding", "[[0.1,0.2],[0.3,0.4]]"},
    {"data[].embedding", "[[0.1,0.2],[0.3,0.4]]"},
    {"data[*].embedding[0]", "[0.1,0.3]"},
    {"data[*].embedding | [0]", "[0.1,0.2]"},
    {"data[*].embedding[]", "[0.1,0.2,0.3,0.4]"},
    {"nested[]", "[1,2,3,[4,5],6]"},
    {"nested[][]", "[1,2,3,4,5,6]"},
    {"obj.*.v", "[1,2]"},
    {"obj.*", "[{\"v\":1},{\"v\":2},{\"w\":3}]"},
    {"output.text", "\"hi\""},
    {"\"weird key\".\"q\\\"\"", "7"},
    {"s[0]", "null"},
    {"s.x", "null"},
    {"n", "0"},
    {"@.output", "{\"text\":\"hi\"}"},
    {"choices[*].message | [1].content", "\"y\""},
    {"choices[::2].text", "[\"a\"]"},
    {"choices[10:]", "[]"},
    {"choices[-10:1].text", "[\"a\"]"},
    {"nested[1][1][0]", "4"},
    {"[*]", "null"},
    {"*.text", "[\"hi\"]"},
    {"data[*].embedding[::-1]", "[[0.2,0.1],[0.4,0.3]]"},
    {" choices [ 1 ] . text ", "\"b\""},
    /* Quoted identifiers are JSON strings: their escapes are decoded when compiled. */
    {"\"caf\\u00e9\"", "\"e\""},
    {"\"caf\xC3\xA9\"", "\"e\""},
    {"\"tab\\t\"", "\"t\""},
    {"\"tab\\u0009\"", "\"t\""},
    {"\"sl\\/ash\"", "\"s\""},
    {"\"\\ud83d\\ude00\"", "\"smile\""},
    {"\"\xF0\x9F\x98\x80\"", "\"smile\""},
    {"\"tab\\\\t\"", "null"},
};

static json_t *search(const char *doc_json, const char *expr, int *out_rc)
{
    json_error_t jerr;
    json_t *root = json_loads(doc_json, JSON_DECODE_ANY, &jerr);
    cr_assert_not_null(root, "%s", jerr.text);
    struct jmespath *e = NULL;
    char err[256] = "";
    cr_assert_eq(jmespath_compile(expr, &e, err, sizeof(err)), 0, "%s: %s", expr, err);
    static struct jsondoc d;
    struct jmespath_doc doc;
    jsondoc_init(&d, root, &doc);
    struct jmespath_value slots[64];
    struct jmespath_arena arena = {.slot = slots, .cap = 64};
    struct jmespath_value v;
    *out_rc = jmespath_search(e, &doc, &arena, &v);
    json_t *got = jsondoc_value(&doc, &arena, &v);
    jmespath_free(e);
    json_decref(root);
    return got;
}

Test(jmespath_search, finds_what_python_jmespath_finds)
{
    for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
        int rc;
        json_t *got = search(DOC, CASES[i].expr, &rc);
        cr_assert_eq(rc, 0, "%s", CASES[i].expr);
        json_t *want = json_loads(CASES[i].want, JSON_DECODE_ANY, NULL);
        char *text = json_dumps(got, JSON_ENCODE_ANY | JSON_COMPACT);
        cr_assert(json_equal(got, want), "%s: got %s, want %s", CASES[i].expr, text, CASES[i].want);
        free(text);
        json_decref(want);
        json_decref(got);
    }
}

Test(jmespath_search, a_result_that_overflows_the_arena_is_enobufs)
{
    char doc[4096] = "[";
    size_t used = 1;
    for (int i = 0; i < 100; i++) {
        used += (size_t)snprintf(doc + used, sizeof(doc) - used, "%s[1]", i > 0 ? "," : "");
    }
    snprintf(doc + used, sizeof(doc) - used, "]");
    int rc;
    json_t *got = search(doc, "[*][0]", &rc);
    cr_assert_eq(rc, -ENOBUFS);
    cr_assert(json_is_null(got));
    json_decref(got);
    /* A slice's list and the projection over it take 30 slots each. */
    got = search(doc, "[:30]", &rc);
    cr_assert_eq(rc, 0);
    cr_assert_eq(json_array_size(got), 30);
    json_decref(got);
}

struct refusal {
    const char *expr;
    const char *says;
};

static const struct refusal REFUSED[] = {
    {"choices[?text == 'a']", "a filter expression [?...] is not supported (response_field "
                              "supports fields, \"quoted\" fields, @, [N], [start:stop:step], [*], "
                              ".*, [] and |) at column 8"},
    {"a || b", "an or-expression || is not supported"},
    {"a && b", "an and-expression && is not supported"},
    {"!a", "a not-expression ! is not supported"},
    {"{a: b}", "a multi-select hash {...} is not supported"},
    {"[a, b]", "a multi-select list [...] is not supported"},
    {"a.[b]", "a multi-select list .[...] is not supported (response_field supports fields, "
              "\"quoted\" fields, @, [N], [start:stop:step], [*], .*, [] and |) at column 3"},
    {"length(a)", "a parenthesised expression or function call is not supported"},
    {"`1`", "a JSON literal `...` is not supported"},
    {"'x'", "a raw string literal '...' is not supported"},
    {"a == b", "a comparison == is not supported"},
    {"a[0:1:0]", "a slice step of 0 at column 3"},
    {"a.", "unexpected the end of the expression at column 3"},
    {"", "unexpected the end of the expression at column 1"},
    {"a[", "unexpected the end of the expression at column 3"},
    {"a b", "unexpected a field name at column 3"},
    {"\"abc", "an unterminated quoted identifier at column 1"},
    {"\"a\\x\"", "an invalid escape in a quoted identifier at column 3"},
    {"\"a\\u12\"", "an invalid escape in a quoted identifier at column 3"},
    {"\"a\\u12G4\"", "an invalid escape in a quoted identifier at column 3"},
    {"\"a\tb\"", "a control byte in a quoted identifier at column 3"},
    {"a[99999999999]", "a number out of range at column 3"},
    {"a#", "an unexpected character at column 2"},
    {"3", "unexpected a number at column 1"},
    {"a[-]", "'-' without digits at column 3"},
    {"a[1 2]", "unexpected a number at column 5"},
};

Test(jmespath_compile, refuses_what_is_outside_the_subset_by_name_and_column)
{
    for (size_t i = 0; i < sizeof(REFUSED) / sizeof(REFUSED[0]); i++) {
        struct jmespath *e = (struct jmespath *)1;
        char err[512] = "";
        cr_assert_eq(jmespath_compile(REFUSED[i].expr, &e, err, sizeof(err)), -EINVAL, "%s",
                     REFUSED[i].expr);
        cr_assert_null(e);
        cr_assert_not_null(strstr(err, REFUSED[i].says), "%s: %s", REFUSED[i].expr, err);
        cr_assert_eq(strncmp(err, "response_field '", 16), 0, "%s", err);
    }
}

Test(jmespath_compile, bounds_the_length_and_the_steps)
{
    char big[JMESPATH_EXPR_BYTES_MAX + 2];
    memset(big, 'a', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    struct jmespath *e = NULL;
    char err[256];
    cr_assert_eq(jmespath_compile(big, &e, err, sizeof(err)), -EINVAL);
    cr_assert_not_null(strstr(err, "longer than 1024 bytes"), "%s", err);
    char steps[512] = "a";
    for (int i = 0; i < JMESPATH_NODES_MAX; i++) {
        memcpy(steps + 1 + 2 * i, ".a", 3);
    }
    cr_assert_eq(jmespath_compile(steps, &e, err, sizeof(err)), -EINVAL);
    cr_assert_not_null(strstr(err, "more than 64 steps"), "%s", err);
    cr_assert_eq(jmespath_compile("a.b", &e, NULL, 0), 0);
    jmespath_free(e);
    jmespath_free(NULL);
}
