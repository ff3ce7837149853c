/*
 * test_template.c - the template endpoint's bodies: AIPerf's variables from the spec, the
 * rendered text read back as JSON, and the extra inputs merged into it.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "payload/payload.h"
#include "template/template.h"

static struct template *compile(const char *src)
{
    struct template *t = NULL;
    char err[256] = "";
    cr_assert_eq(template_compile(src, strlen(src), &t, err, sizeof(err)), 0, "%s", err);
    return t;
}

/* build renders `src` for spec (its template set here) and returns the body, or NULL with the
 * message in err. */
static char *build(struct payload_spec *spec, const char *src, char *err, size_t cap)
{
    struct template *t = compile(src);
    spec->type = ENDPOINT_TEMPLATE;
    spec->template = t;
    char *body = payload_build(spec, err, cap);
    template_free(t);
    return body;
}

Test(payload_template, renders_aiperf_variables)
{
    const char *images[] = {"data:image/png;base64,AAAA"};
    const char *texts[] = {"one", "", "two"};
    struct payload_spec spec = {
        .model = "m",
        .texts = texts,
        .text_count = 3,
        .max_tokens = 0,
        .streaming = true,
        .media = {.images = images, .image_count = 1},
    };
    char err[512] = "";
    char *body =
        build(&spec,
              "{\"t\": {{ texts|tojson }}, \"x\": {{ text|tojson }}, \"m\": \"{{ model }}\", "
              "\"n\": {{ max_tokens|tojson }}, \"s\": {{ stream|lower }}, "
              "\"i\": {{ image|tojson }}, \"a\": {{ audio|tojson }}, "
              "\"q\": {{ queries|tojson }}, \"tt\": {{ turn.texts[0].contents|tojson }}, "
              "\"r\": {{ request_info.turns[0].model|tojson }}}",
              err, sizeof(err));
    cr_assert_not_null(body, "%s", err);
    cr_assert_str_eq(body,
                     "{\"t\":[\"one\",\"two\"],\"x\":\"one\",\"m\":\"m\",\"n\":null,\"s\":true,"
                     "\"i\":\"data:image/png;base64,AAAA\",\"a\":null,\"q\":[],"
                     "\"tt\":[\"one\",\"two\"],\"r\":\"m\"}");
    free(body);
    spec = (struct payload_spec){.model = "m", .prompt = "hi", .max_tokens = 7};
    body =
        build(&spec, "{\"text\": {{ texts|tojson }}, \"max\": {{ max_tokens }}}", err, sizeof(err));
    cr_assert_str_eq(body, "{\"text\":[\"hi\"],\"max\":7}");
    free(body);
}

Test(payload_template, merges_the_extra_inputs_into_an_object)
{
    struct payload_spec spec = {
        .model = "m", .prompt = "hi", .extra_inputs_json = "{\"k\":1,\"a\":2}"};
    char err[512] = "";
    char *body = build(&spec, "{\"a\": {{ text|tojson }}, \"z\": 0}", err, sizeof(err));
    cr_assert_str_eq(body, "{\"a\":2,\"z\":0,\"k\":1}");
    free(body);
    cr_assert_null(build(&spec, "[{{ text|tojson }}]", err, sizeof(err)));
    cr_assert_not_null(strstr(err, "rendered a JSON array"), "%s", err);
    spec.extra_inputs_json = NULL;
    body = build(&spec, "[{{ text|tojson }}]", err, sizeof(err));
    cr_assert_str_eq(body, "[\"hi\"]");
    free(body);
}

Test(payload_template, refuses_what_is_not_json_or_cannot_render)
{
    struct payload_spec spec = {.model = "m", .prompt = "a \"quoted\" word"};
    char err[512] = "";
    cr_assert_null(build(&spec, "Not valid JSON", err, sizeof(err)));
    cr_assert_not_null(strstr(err, "payload_template did not render valid JSON"), "%s", err);
    /* Autoescape keeps the quotes from breaking the string, as in AIPerf. */
    char *body = build(&spec, "{\"t\": \"{{ text }}\"}", err, sizeof(err));
    cr_assert_str_eq(body, "{\"t\":\"a &#34;quoted&#34; word\"}");
    free(body);
    cr_assert_null(build(&spec, "{{ nope.x }}", err, sizeof(err)));
    cr_assert_not_null(strstr(err, "payload_template: line 1, column 8: an attribute of an "
                                   "undefined value"),
                       "%s", err);
    spec.type = ENDPOINT_TEMPLATE;
    spec.template = NULL;
    cr_assert_null(payload_build(&spec, err, sizeof(err)));
    cr_assert_not_null(strstr(err, "needs a compiled template"), "%s", err);
}
