#include <criterion/criterion.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint/endpoint.h"

static void expect_body(const struct endpoint_payload_spec *spec, const char *want)
{
    char err[256] = "";
    char *body = endpoint_payload_build(spec, err, sizeof(err));
    cr_assert_not_null(body, "%s: unexpected error: %s", endpoint_type_name(spec->type), err);
    cr_assert_str_eq(body, want, "%s", endpoint_type_name(spec->type));
    free(body);
}

static void expect_error(const struct endpoint_payload_spec *spec, const char *want)
{
    char err[256] = "";
    char *body = endpoint_payload_build(spec, err, sizeof(err));
    cr_assert_null(body, "expected an error, got %s", body ? body : "");
    cr_assert(strstr(err, want) != NULL, "message '%s' lacks '%s'", err, want);
}

static const char *const TEXTS[] = {"alpha beta", "", "gamma"};
static const char *const PASSAGES[] = {"p one", "p two"};

struct payload_case {
    struct endpoint_payload_spec spec;
    const char *want;
};

static const struct payload_case CASES[] = {
    {{.type = ENDPOINT_CHAT,
      .model = "m",
      .prompt = "hi",
      .system_prompt = "be brief",
      .max_tokens = 5,
      .streaming = true},
     "{\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},{\"role\":\"user\","
     "\"content\":\"hi\"}],\"model\":\"m\",\"stream\":true,\"max_completion_tokens\":5,"
     "\"stream_options\":{\"include_usage\":true}}"},
    {{.type = ENDPOINT_CHAT_EMBEDDINGS, .model = "m", .prompt = "hi", .streaming = true},
     "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"model\":\"m\",\"stream\":false}"},
    {{.type = ENDPOINT_COMPLETIONS, .model = "m", .prompt = "hi", .system_prompt = "ignored"},
     "{\"prompt\":\"hi\",\"model\":\"m\",\"stream\":false}"},
    {{.type = ENDPOINT_RESPONSES,
      .model = "Qwen/Qwen3-0.6B",
      .prompt = "Hello",
      .system_prompt = "sys",
      .max_tokens = 200,
      .streaming = true},
     "{\"input\":[{\"role\":\"user\",\"content\":\"Hello\",\"type\":\"message\"}],"
     "\"model\":\"Qwen/Qwen3-0.6B\",\"stream\":true,\"instructions\":\"sys\","
     "\"max_output_tokens\":200}"},
    {{.type = ENDPOINT_RESPONSES,
      .model = "m",
      .prompt = "Hello",
      .streaming = true,
      .use_server_token_count = true,
      .extra_inputs_json = "{\"stream_options\":7}"},
     "{\"input\":[{\"role\":\"user\",\"content\":\"Hello\",\"type\":\"message\"}],\"model\":\"m\","
     "\"stream\":true,\"stream_options\":{\"include_usage\":true}}"},
    {{.type = ENDPOINT_RESPONSES, .model = "m", .prompt = "Hello", .use_server_token_count = true},
     "{\"input\":[{\"role\":\"user\",\"content\":\"Hello\",\"type\":\"message\"}],\"model\":\"m\","
     "\"stream\":false}"},
    {{.type = ENDPOINT_MESSAGES,
      .model = "claude",
      .prompt = "Hello",
      .system_prompt = "sys",
      .streaming = true},
     "{\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}],\"model\":\"claude\","
     "\"max_tokens\":1024,\"stream\":true,\"system\":\"sys\"}"},
    {{.type = ENDPOINT_MESSAGES, .model = "claude", .prompt = "Hello", .max_tokens = 64},
     "{\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}],\"model\":\"claude\","
     "\"max_tokens\":64}"},
    {{.type = ENDPOINT_EMBEDDINGS,
      .model = "e5",
      .texts = TEXTS,
      .text_count = 3,
      .max_tokens = 9,
      .streaming = true},
     "{\"model\":\"e5\",\"input\":[\"alpha beta\",\"gamma\"]}"},
    {{.type = ENDPOINT_NIM_EMBEDDINGS,
      .model = "e5",
      .prompt = "one",
      .extra_inputs_json = "{\"input_type\":\"query\"}"},
     "{\"model\":\"e5\",\"input\":[\"one\"],\"input_type\":\"query\"}"},
    {{.type = ENDPOINT_NIM_RANKINGS,
      .model = "r",
      .query = "q?",
      .passages = PASSAGES,
      .passage_count = 2},
     "{\"model\":\"r\",\"query\":{\"text\":\"q?\"},\"passages\":[{\"text\":\"p one\"},"
     "{\"text\":\"p two\"}]}"},
    {{.type = ENDPOINT_COHERE_RANKINGS,
      .model = "r",
      .query = "q?",
      .passages = PASSAGES,
      .passage_count = 2},
     "{\"model\":\"r\",\"query\":\"q?\",\"documents\":[\"p one\",\"p two\"]}"},
    {{.type = ENDPOINT_HF_TEI_RANKINGS, .query = "q?", .passages = PASSAGES, .passage_count = 2},
     "{\"query\":\"q?\",\"texts\":[\"p one\",\"p two\"]}"},
    {{.type = ENDPOINT_HF_TEI_RANKINGS, .query = "q?"}, "{\"query\":\"q?\",\"texts\":[]}"},
    {{.type = ENDPOINT_HUGGINGFACE_GENERATE,
      .texts = TEXTS,
      .text_count = 3,
      .max_tokens = 20,
      .streaming = true,
      .extra_inputs_json = "{\"temperature\":0.7}"},
     "{\"inputs\":\"alpha beta gamma\",\"parameters\":{\"max_new_tokens\":20,"
     "\"temperature\":0.7}}"},
    {{.type = ENDPOINT_HUGGINGFACE_GENERATE, .prompt = "x"},
     "{\"inputs\":\"x\",\"parameters\":{}}"},
    {{.type = ENDPOINT_RAW,
      .raw_payload = "{\"messages\": [], \"x\": 1}",
      .extra_inputs_json = "{\"y\":2}"},
     "{\"messages\": [], \"x\": 1}"},
    {{.type = ENDPOINT_CHAT, .model = "m", .prompt = "p", .raw_payload = "not even json"},
     "not even json"},
};

Test(endpoint_payload_types, every_type_builds_its_documented_shape)
{
    for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
        expect_body(&CASES[i].spec, CASES[i].want);
    }
}

Test(endpoint_payload_types, missing_inputs_are_named)
{
    struct endpoint_payload_spec spec = {.type = ENDPOINT_NIM_RANKINGS, .model = "m"};
    expect_error(&spec, "needs a query");
    spec.type = ENDPOINT_EMBEDDINGS;
    expect_error(&spec, "needs a prompt or texts");
    spec.type = ENDPOINT_RESPONSES;
    spec.prompt = "p";
    spec.model = NULL;
    expect_error(&spec, "responses request payload needs a model");
    spec.type = ENDPOINT_RAW;
    expect_error(&spec, "raw payload");
    spec.type = ENDPOINT_COHERE_RANKINGS;
    spec.model = "m";
    spec.query = "q";
    spec.passage_count = 3;
    expect_error(&spec, "passages is NULL");
    spec.passage_count = 0;
    spec.query = "bad \xff";
    expect_error(&spec, "query is not valid UTF-8");
    spec.type = ENDPOINT_MESSAGES;
    spec.system_prompt = "\xfe";
    expect_error(&spec, "system prompt is not valid UTF-8");
}

Test(endpoint_payload_types, extra_inputs_override_base_fields_in_place)
{
    struct endpoint_payload_spec spec = {.type = ENDPOINT_MESSAGES,
                                         .model = "m",
                                         .prompt = "p",
                                         .extra_inputs_json = "{\"max_tokens\":7,\"top_k\":3}"};
    expect_body(&spec, "{\"messages\":[{\"role\":\"user\",\"content\":\"p\"}],\"model\":\"m\","
                       "\"max_tokens\":7,\"top_k\":3}");
}

Test(endpoint_payload_types, take_string_splits_response_field_off)
{
    char *value = NULL;
    char *rest = NULL;
    cr_assert_eq(
        endpoint_extra_inputs_take_string("{\"a\":1,\"response_field\":\"output.text\",\"b\":true}",
                                          "response_field", &value, &rest),
        0);
    cr_assert_str_eq(value, "output.text");
    cr_assert_str_eq(rest, "{\"a\":1,\"b\":true}");
    free(value);
    free(rest);
    cr_assert_eq(endpoint_extra_inputs_take_string("{\"response_field\":3}", "response_field",
                                                   &value, &rest),
                 0);
    cr_assert_null(value);
    cr_assert_str_eq(rest, "{\"response_field\":3}");
    free(rest);
    cr_assert_eq(endpoint_extra_inputs_take_string("[1]", "k", &value, &rest), -EINVAL);
    cr_assert_eq(endpoint_extra_inputs_take_string(NULL, "k", &value, &rest), -EINVAL);
}

Test(endpoint_types, names_paths_and_capabilities)
{
    static const struct {
        const char *name;
        enum endpoint_type type;
        const char *path;
        const char *stream_path;
        bool streams;
        bool tokens;
    } rows[] = {
        {"chat", ENDPOINT_CHAT, "/v1/chat/completions", "/v1/chat/completions", true, true},
        {"completions", ENDPOINT_COMPLETIONS, "/v1/completions", "/v1/completions", true, true},
        {"responses", ENDPOINT_RESPONSES, "/v1/responses", "/v1/responses", true, true},
        {"messages", ENDPOINT_MESSAGES, "/v1/messages", "/v1/messages", true, true},
        {"embeddings", ENDPOINT_EMBEDDINGS, "/v1/embeddings", "/v1/embeddings", false, false},
        {"chat_embeddings", ENDPOINT_CHAT_EMBEDDINGS, "/v1/embeddings", "/v1/embeddings", false,
         false},
        {"nim_embeddings", ENDPOINT_NIM_EMBEDDINGS, "/v1/embeddings", "/v1/embeddings", false,
         false},
        {"nim_rankings", ENDPOINT_NIM_RANKINGS, "/v1/ranking", "/v1/ranking", false, false},
        {"cohere_rankings", ENDPOINT_COHERE_RANKINGS, "/v2/rerank", "/v2/rerank", false, false},
        {"hf_tei_rankings", ENDPOINT_HF_TEI_RANKINGS, "/rerank", "/rerank", false, false},
        {"huggingface_generate", ENDPOINT_HUGGINGFACE_GENERATE, "/generate", "/generate_stream",
         true, true},
        {"raw", ENDPOINT_RAW, "", "", true, true},
    };
    cr_assert_eq(sizeof(rows) / sizeof(rows[0]), ENDPOINT_TYPE_COUNT);
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        enum endpoint_type t = ENDPOINT_TYPE_COUNT;
        cr_assert_eq(endpoint_type_parse(rows[i].name, &t), 0, "%s", rows[i].name);
        cr_assert_eq(t, rows[i].type);
        cr_assert_str_eq(endpoint_type_name(t), rows[i].name);
        cr_assert_str_eq(endpoint_type_path(t), rows[i].path);
        cr_assert_str_eq(endpoint_type_stream_path(t), rows[i].stream_path);
        cr_assert_eq(endpoint_type_streams(t), rows[i].streams, "%s", rows[i].name);
        cr_assert_eq(endpoint_type_produces_tokens(t), rows[i].tokens, "%s", rows[i].name);
    }
    enum endpoint_type t = ENDPOINT_CHAT;
    cr_assert_eq(endpoint_type_parse("rankings", &t), 0);
    cr_assert_eq(t, ENDPOINT_NIM_RANKINGS);
    cr_assert_eq(endpoint_type_parse("template", &t), -EINVAL);
    cr_assert_eq(endpoint_type_parse(NULL, &t), -EINVAL);
    cr_assert_eq(t, ENDPOINT_NIM_RANKINGS);
    cr_assert(endpoint_type_stream_end_required(ENDPOINT_CHAT));
    cr_assert_not(endpoint_type_stream_end_required(ENDPOINT_RESPONSES));
    cr_assert_str_eq(endpoint_type_name(ENDPOINT_TYPE_COUNT), "unknown");
    cr_assert_not(endpoint_type_streams(ENDPOINT_TYPE_COUNT));
}

Test(endpoint_types, auth_headers_per_type)
{
    struct endpoint_header h[ENDPOINT_AUTH_HEADERS_MAX];
    char buf[64];
    size_t n = 99;
    cr_assert_eq(endpoint_auth_headers(ENDPOINT_CHAT, "sk-1", buf, sizeof(buf), h, &n), 0);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(h[0].name, "Authorization");
    cr_assert_str_eq(h[0].value, "Bearer sk-1");
    cr_assert_eq(endpoint_auth_headers(ENDPOINT_EMBEDDINGS, NULL, NULL, 0, h, &n), 0);
    cr_assert_eq(n, 0);
    cr_assert_eq(endpoint_auth_headers(ENDPOINT_MESSAGES, "sk-ant", NULL, 0, h, &n), 0);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(h[0].name, "x-api-key");
    cr_assert_str_eq(h[0].value, "sk-ant");
    cr_assert_str_eq(h[1].name, "anthropic-version");
    cr_assert_str_eq(h[1].value, "2023-06-01");
    cr_assert_eq(endpoint_auth_headers(ENDPOINT_MESSAGES, NULL, NULL, 0, h, &n), 0);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(h[0].name, "anthropic-version");
    cr_assert_eq(endpoint_auth_headers(ENDPOINT_CHAT, "sk-1", buf, 11, h, &n), -ENOSPC);
    cr_assert_eq(endpoint_auth_headers(ENDPOINT_CHAT, "sk-1", buf, 12, h, &n), 0);
}

Test(endpoint_types, reader_compiles_the_response_field_subset)
{
    struct endpoint_reader r;
    char err[256] = "";
    cr_assert_eq(
        endpoint_reader_init(&r, ENDPOINT_RAW, "choices[0].message.content", err, sizeof(err)), 0);
    cr_assert_eq(r.field_step_count, 4);
    cr_assert(r.field[1].is_index);
    cr_assert_eq(r.field[1].index, 0);
    cr_assert_eq(r.field[3].name_len, 7);
    cr_assert_eq(
        endpoint_reader_init(&r, ENDPOINT_RAW, "[-1].\"generated text\"", err, sizeof(err)), 0);
    cr_assert_eq(r.field_step_count, 2);
    cr_assert_eq(r.field[0].index, -1);
    cr_assert_eq(endpoint_reader_init(&r, ENDPOINT_RAW, NULL, err, sizeof(err)), 0);
    cr_assert_eq(r.field_step_count, 0);
    const char *bad[] = {"a.",   "a..b", "a[x]",
                         "a[1",  "1abc", "a|b",
                         "a[*]", "\"\"", "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q",
                         "a b"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        cr_assert_eq(endpoint_reader_init(&r, ENDPOINT_RAW, bad[i], err, sizeof(err)), -EINVAL,
                     "%s", bad[i]);
        cr_assert_eq(r.field_step_count, 0);
        cr_assert_eq(r.type, ENDPOINT_RAW);
        cr_assert(strstr(err, "auto-detection") != NULL);
    }
}
