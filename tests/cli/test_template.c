/*
 * `ringperf profile --endpoint-type template` and raw's response_field against the mock
 * server: bodies rendered from inline, file and named templates (inputs.json), responses read
 * through response_field's JMESPath (the records' output token counts), and the templates and
 * paths refused before the run, with the place of what is refused.
 */
#include <criterion/criterion.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "e2e.h"

/* first_body returns the first request body of inputs.json (a new reference). */
static json_t *first_body(const struct e2e *w)
{
    json_t *inputs = e2e_load_json(w, "inputs.json");
    json_t *session = json_array_get(json_object_get(inputs, "data"), 0);
    json_t *body = json_array_get(json_object_get(session, "payloads"), 0);
    cr_assert_not_null(body, "inputs.json holds no request body");
    json_incref(body);
    json_decref(inputs);
    return body;
}

/* osl_of requires n records, none an error, and returns the summary's output_sequence_length
 * statistic `stat` ("min", "max", "avg"). */
static double osl_of(const struct e2e *w, size_t n, const char *stat)
{
    size_t errors = 0;
    cr_assert_eq(count_export_lines(w, &errors), n);
    cr_assert_eq(errors, 0);
    json_t *root = e2e_load_json(w, "profile_export_aiperf.json");
    json_t *osl = json_object_get(root, "output_sequence_length");
    cr_assert_not_null(osl, "no output_sequence_length");
    double v = json_number_value(json_object_get(osl, stat));
    json_decref(root);
    return v;
}

/* run_template runs a template profile against `path` of the mock with `more` flags, and
 * requires success and the LLM metrics' title. */
static void run_template(const struct e2e *w, const char *path, const char *more)
{
    char words[2048];
    snprintf(words, sizeof(words),
             "profile -m m -u http://%s%s --artifact-dir %s --endpoint-type template --osl 8 "
             "--request-count 4 --concurrency 2 --tokenizer " RINGPERF_TOKENIZER_QWEN3 " %s",
             w->url, path, w->dir, more);
    char *out = NULL;
    int status = run_ringperf(w, words, true, &out);
    cr_assert_eq(status, 0, "%s\n%s", words, out);
    cr_assert_not_null(strstr(out, "LLM Metrics"), "%s", out);
    free(out);
}

/* run_file_template is run_template with the template file `file` of the world's directory
 * and the flags `also`. */
static void run_file_template(const struct e2e *w, const char *path, const char *file,
                              const char *also)
{
    char more[512];
    snprintf(more, sizeof(more), "--extra-inputs payload_template:%s/%s%s%s", w->dir, file,
             also[0] != '\0' ? " " : "", also);
    run_template(w, path, more);
}

/* An inline template (in the JSON form of --extra-inputs, as its commas would split the
 * key:value form): the body is its JSON, the other extra inputs merged in. */
Test(template_e2e, inline_template_renders_each_body, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    run_template(&w, "/v1/completions",
                 "--extra-inputs {\"payload_template\":\"{\\\"prompt\\\":{{text|tojson}},"
                 "\\\"max_tokens\\\":{{max_tokens}},\\\"model\\\":\\\"{{model}}\\\"}\"} "
                 "--extra-inputs ignore_eos:true");
    cr_assert_gt(osl_of(&w, 4, "min"), 0, "the completions' text is counted");
    json_t *body = first_body(&w);
    cr_assert(json_is_string(json_object_get(body, "prompt")));
    cr_assert_eq(json_integer_value(json_object_get(body, "max_tokens")), 8);
    cr_assert_str_eq(json_string_value(json_object_get(body, "model")), "m");
    cr_assert(json_is_true(json_object_get(body, "ignore_eos")));
    cr_assert_null(json_object_get(body, "payload_template"));
    cr_assert_eq(json_object_size(body), 4);
    json_decref(body);
    e2e_finish(&w);
}

/* AIPerf's documented file template, streamed: each event's text through response_field. */
Test(template_e2e, file_template_streams_through_response_field, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_write(&w, "tmpl.json",
              "{\n  \"model\": {{ model|tojson }},\n  \"prompt\": {{ text|tojson }},\n"
              "  \"max_tokens\": {{ max_tokens|tojson }},\n  \"stream\": {{ stream|lower }}\n}\n");
    run_file_template(&w, "/v1/completions", "tmpl.json",
                      "--streaming --extra-inputs response_field:choices[0].text");
    cr_assert_gt(osl_of(&w, 4, "min"), 0, "each event's text is counted");
    json_t *summary = e2e_load_json(&w, "profile_export_aiperf.json");
    cr_assert_not_null(json_object_get(summary, "time_to_first_token"), "streamed");
    json_decref(summary);
    json_t *body = first_body(&w);
    cr_assert(json_is_true(json_object_get(body, "stream")));
    cr_assert_eq(json_object_size(body), 4);
    json_decref(body);
    e2e_finish(&w);
}

/* The named template: {"text": texts}, which the mock's embeddings route takes as NV-EmbedQA's
 * shape; the reply's embeddings are auto-detected (no output tokens). */
Test(template_e2e, nv_embedqa_sends_the_text_list, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    run_template(&w, "/v1/embeddings", "--extra-inputs payload_template:nv-embedqa");
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 4);
    cr_assert_eq(errors, 0);
    json_t *body = first_body(&w);
    cr_assert_eq(json_object_size(body), 1);
    cr_assert_eq(json_array_size(json_object_get(body, "text")), 1);
    json_decref(body);
    e2e_finish(&w);
}

/* response_field decides what is counted: the reply's content through a projection and a
 * pipe (as many tokens as auto-detection finds), or its "model" member (one token). */
Test(template_e2e, response_field_decides_the_output_tokens, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_write(&w, "chat.json",
              "{\"messages\": [{\"role\": \"user\", \"content\": {{ text|tojson }}}],\n"
              " \"model\": {{ model|tojson }}, \"max_completion_tokens\": {{ max_tokens }}}");
    run_file_template(&w, "/v1/chat/completions", "chat.json", "");
    double detected = osl_of(&w, 4, "avg");
    cr_assert_gt(detected, 1);
    run_file_template(&w, "/v1/chat/completions", "chat.json",
                      "--extra-inputs response_field:choices[*].message.content|[0]");
    cr_assert_eq(osl_of(&w, 4, "avg"), detected);
    run_file_template(&w, "/v1/chat/completions", "chat.json",
                      "--extra-inputs response_field:model");
    cr_assert_eq(osl_of(&w, 4, "max"), 1, "the model's name, m, is one token");
    e2e_finish(&w);
}

static const char RAW_LINES[] =
    "{\"messages\": [{\"role\": \"user\", \"content\": \"What is machine learning?\"}], "
    "\"model\": \"m\", \"max_tokens\": 5}\n"
    "{\"messages\": [{\"role\": \"user\", \"content\": \"Explain neural networks.\"}], "
    "\"model\": \"m\", \"max_tokens\": 5}\n";

/* raw takes response_field too; a path that finds nothing falls back to auto-detection. */
Test(template_e2e, raw_reads_its_response_field, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_write(&w, "raw.jsonl", RAW_LINES);
    char words[1024];
    const char *fields[] = {"@", "model", "choices[0].nope", "choices[::-1].message.content|[0]"};
    double detected = 0;
    for (size_t i = 0; i < 4; i++) {
        snprintf(words, sizeof(words),
                 "profile -m m -u http://%s/v1/chat/completions --artifact-dir %s "
                 "--endpoint-type raw --input-file %s/raw.jsonl --request-count 2 --tokenizer "
                 "%s --extra-inputs response_field:%s",
                 w.url, w.dir, w.dir, RINGPERF_TOKENIZER_QWEN3, fields[i]);
        char *out = NULL;
        cr_assert_eq(run_ringperf(&w, words, true, &out), 0, "%s\n%s", words, out);
        free(out);
        double avg = osl_of(&w, 2, "avg");
        if (i == 0) {
            detected = avg; /* "@" is the whole object: not converted, so auto-detected */
            cr_assert_gt(detected, 1);
        } else {
            cr_assert_eq(avg, i == 1 ? 1 : detected, "%s", fields[i]);
        }
    }
    e2e_finish(&w);
}

/* What cannot be rendered or searched stops the run before it starts (exit 1), naming the
 * construct and its place. */
Test(template_e2e, refusals_name_the_construct_and_its_place, .timeout = 120)
{
    static const struct {
        const char *extra;
        const char *says;
    } cases[] = {
        {"--extra-inputs model:x", "--endpoint-type template needs --extra-inputs "
                                   "payload_template:<template>"},
        {"--extra-inputs payload_template:{\"t\":{{text|wordcount}}}",
         "payload_template (the inline template): line 1, column 13: the filter 'wordcount' is "
         "not supported"},
        {"--extra-inputs payload_template:{\"t\":\"{{request_info.x_correlation_id}}\"}",
         "line 1, column 21: request_info.x_correlation_id is made per request"},
        {"--extra-inputs payload_template:nv-embedqa --extra-inputs response_field:data[?x]",
         "--extra-inputs response_field: response_field 'data[?x]': a filter expression [?...] "
         "is not supported"},
        {"--extra-inputs payload_template:{%if}", "line 1, column 5: unexpected '}'"},
        /* Rendering the bodies, before the run, fails as Jinja2 or AIPerf's JSON check would. */
        {"--extra-inputs payload_template:{\"a\":{{nope.x}}}",
         "payload_template: line 1, column 12: an attribute of an undefined value"},
        {"--extra-inputs payload_template:{\"a\":{{text}}}",
         "payload_template did not render valid JSON"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char words[512];
        snprintf(words, sizeof(words),
                 "profile -m m -u http://127.0.0.1:9/x --endpoint-type template --request-count 1 "
                 "%s",
                 cases[i].extra);
        char *out = NULL;
        cr_assert_eq(run_ringperf(NULL, words, true, &out), 1, "%s\n%s", words, out);
        cr_assert_not_null(strstr(out, cases[i].says), "%s\n%s", words, out);
        free(out);
    }
    char *out = NULL;
    cr_assert_eq(run_ringperf(NULL,
                              "profile -m m -u http://127.0.0.1:9/x --endpoint-type raw "
                              "--input-file /dev/null --extra-inputs response_field:a||b",
                              true, &out),
                 1);
    cr_assert_not_null(strstr(out, "an or-expression || is not supported"), "%s", out);
    free(out);
    /* A template file past TEMPLATE_SOURCE_BYTES_MAX is refused with the limit. */
    char path[] = "/tmp/ringperf-template-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(ftruncate(fd, (off_t)(1 << 20) + 1), 0);
    close(fd);
    char words[512];
    snprintf(words, sizeof(words),
             "profile -m m -u http://127.0.0.1:9/x --endpoint-type template --request-count 1 "
             "--extra-inputs payload_template:%s",
             path);
    cr_assert_eq(run_ringperf(NULL, words, true, &out), 1, "%s", out);
    cr_assert_not_null(strstr(out, "a template may be at most 1 MiB: shorten it"), "%s", out);
    free(out);
    unlink(path);
}
