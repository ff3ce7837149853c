/*
 * `ringperf profile --endpoint-type raw` with --extra-inputs response_field against the mock
 * server's /v1/echo, which answers each request with its own body: replies whose member names
 * need escapes, found through quoted identifiers with escapes, and a search whose lists hold far
 * more values than the stack's room, which finds its value. outputs.json shows the text each
 * reply gave; a miss would give raw's auto-detected "text" instead.
 */
#include <criterion/criterion.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

/* run_echo sends `body` twice as raw payloads to /v1/echo with `field`, requires two records
 * without errors, and returns the response_text of the first in outputs.json (malloc'd). */
static char *run_echo(struct e2e *w, const char *body, const char *field)
{
    size_t len = strlen(body);
    char *lines = malloc(2 * len + 3);
    cr_assert_not_null(lines);
    snprintf(lines, 2 * len + 3, "%s\n%s\n", body, body);
    e2e_write(w, "raw.jsonl", lines);
    free(lines);
    char words[1024];
    snprintf(words, sizeof(words),
             "profile -m m -u http://%s/v1/echo --artifact-dir %s --endpoint-type raw "
             "--input-file %s/raw.jsonl --custom-dataset-type raw_payload --request-count 2 "
             "--tokenizer %s --export-outputs-json "
             "--extra-inputs response_field:%s",
             w->url, w->dir, w->dir, RINGPERF_TOKENIZER_QWEN3, field);
    e2e_run_ok(w, words);
    size_t errors = 0;
    cr_assert_eq(count_export_lines(w, &errors), 2, "%s", field);
    cr_assert_eq(errors, 0, "%s", field);
    json_t *outputs = e2e_load_json(w, "outputs.json");
    json_t *first = json_array_get(json_object_get(outputs, "data"), 0);
    const char *text = json_string_value(json_object_get(first, "response_text"));
    cr_assert_not_null(text, "outputs.json has no response_text");
    char *copy = strdup(text);
    json_decref(outputs);
    return copy;
}

/* Names that need an escape in any JSON (a quote, a tab, a backslash), and one a Python server
 * escapes (é as \u00e9), each reached by a quoted identifier spelt with escapes. */
Test(response_field_e2e, quoted_names_with_escapes_find_escaped_members, .timeout = 120)
{
    static const char body[] = "{\"model\": \"m\", \"a\\\"b\": \"quote\", \"tab\\t\": \"tab\", "
                               "\"back\\\\slash\": \"backslash\", \"caf\\u00e9\": \"accent\", "
                               "\"text\": \"auto detected words\"}";
    static const struct {
        const char *field;
        const char *want;
    } cases[] = {
        {"\"a\\\"b\"", "quote"},
        {"\"tab\\t\"", "tab"},
        {"\"tab\\u0009\"", "tab"},
        {"\"back\\\\slash\"", "backslash"},
        {"\"caf\\u00e9\"", "accent"},
        {"\"caf\xC3\xA9\"", "accent"},
        {"\"cafe\"", "auto detected words"}, /* a miss: raw's auto-detection */
    };
    struct e2e w;
    e2e_start(&w, NULL);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *text = run_echo(&w, body, cases[i].field);
        cr_assert_str_eq(text, cases[i].want, "%s", cases[i].field);
        free(text);
    }
    e2e_finish(&w);
}

/* A projection over 1500 elements, and three steps of it, need far more list values than the
 * stack's 512: the engine's scratch holds them, and the last element's text is found. */
Test(response_field_e2e, a_projection_past_512_values_finds_its_value, .timeout = 120)
{
    enum { N = 1500 };
    size_t cap = N * 16 + 128;
    char *body = malloc(cap);
    cr_assert_not_null(body);
    size_t len = (size_t)snprintf(body, cap, "{\"model\": \"m\", \"a\": [");
    for (int i = 0; i < N; i++) {
        len += (size_t)snprintf(body + len, cap - len, "%s{\"t\":\"%s\"}", i ? "," : "",
                                i == N - 1 ? "last" : "x");
    }
    snprintf(body + len, cap - len, "], \"text\": \"auto detected words\"}");
    struct e2e w;
    e2e_start(&w, NULL);
    const char *fields[] = {"a[*].t|[-1]", "a[*]|[*]|[::-1]|[*].t|[0]"};
    for (size_t i = 0; i < 2; i++) {
        char *text = run_echo(&w, body, fields[i]);
        cr_assert_str_eq(text, "last", "%s", fields[i]);
        free(text);
    }
    e2e_finish(&w);
    free(body);
}
