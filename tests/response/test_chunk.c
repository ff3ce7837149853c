#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint/endpoint.h"
#include "response/response.h"
#include "tests/support/guard.h"

/* Copies `len` bytes to the end of a page followed by a PROT_NONE page, parses
 * them there (so an over-read crashes) and returns the status. The views in
 * *out point into the guarded copy, which stays mapped until the next call. */
static enum response_parse_status parse_guarded(enum endpoint_type t, const char *json, size_t len,
                                                struct response_chunk *out)
{
    static struct guard_region guard;
    return response_parse_chunk(t, guard_copy(&guard, json, len), len, out);
}

static enum response_parse_status parse(enum endpoint_type t, const char *json,
                                        struct response_chunk *out)
{
    return parse_guarded(t, json, strlen(json), out);
}

static void assert_view(struct response_str v, const char *want)
{
    cr_assert_eq(v.len, strlen(want), "view '%.*s' != '%s'", (int)v.len, v.ptr, want);
    cr_assert_eq(memcmp(v.ptr, want, v.len), 0, "view '%.*s' != '%s'", (int)v.len, v.ptr, want);
}

#define VLLM_CHUNK(delta, finish)                                                                  \
    "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"created\":1700000000,"          \
    "\"model\":\"Qwen/Qwen3-0.6B\",\"choices\":[{\"index\":0,\"delta\":" delta                     \
    ",\"logprobs\":null,\"finish_reason\":" finish "}]}"

Test(response_chunk, role_only_first_chunk_is_not_content)
{
    struct response_chunk c;
    cr_assert_eq(
        parse(ENDPOINT_CHAT, VLLM_CHUNK("{\"role\":\"assistant\",\"content\":\"\"}", "null"), &c),
        RESPONSE_PARSE_OK);
    cr_assert_not(c.is_content);
    cr_assert_eq(c.content.len, 0);
    cr_assert_not(c.has_finish_reason);
    cr_assert_not(c.usage.present);
    assert_view(c.object, "chat.completion.chunk");
}

Test(response_chunk, content_chunk)
{
    struct response_chunk c;
    cr_assert_eq(parse(ENDPOINT_CHAT, VLLM_CHUNK("{\"content\":\" Hello\"}", "null"), &c),
                 RESPONSE_PARSE_OK);
    cr_assert(c.is_content);
    assert_view(c.content, " Hello");
    cr_assert_eq(c.reasoning.len, 0);
}

Test(response_chunk, finish_reason_chunk)
{
    struct response_chunk c;
    cr_assert_eq(parse(ENDPOINT_CHAT, VLLM_CHUNK("{\"content\":\"\"}", "\"length\""), &c),
                 RESPONSE_PARSE_OK);
    cr_assert_not(c.is_content);
    cr_assert(c.has_finish_reason);
    assert_view(c.finish_reason, "length");
}

Test(response_chunk, usage_only_final_chunk)
{
    struct response_chunk c;
    const char *json = "{\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\","
                       "\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":{"
                       "\"prompt_tokens\":550,\"total_tokens\":750,\"completion_tokens\":200,"
                       "\"completion_tokens_details\":{\"reasoning_tokens\":37}}}";
    cr_assert_eq(parse(ENDPOINT_CHAT, json, &c), RESPONSE_PARSE_OK);
    cr_assert_not(c.is_content);
    cr_assert(c.usage.present);
    cr_assert_neq(c.usage.prompt_tokens, RECORD_ABSENT);
    cr_assert_eq(c.usage.prompt_tokens, 550);
    cr_assert_neq(c.usage.total_tokens, RECORD_ABSENT);
    cr_assert_eq(c.usage.total_tokens, 750);
    cr_assert_neq(c.usage.completion_tokens, RECORD_ABSENT);
    cr_assert_eq(c.usage.completion_tokens, 200);
    cr_assert_neq(c.usage.reasoning_tokens, RECORD_ABSENT);
    cr_assert_eq(c.usage.reasoning_tokens, 37);
}

Test(response_chunk, usage_edge_values)
{
    struct response_chunk c;
    cr_assert_eq(parse(ENDPOINT_CHAT,
                       "{\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{"
                       "\"prompt_tokens\":-1,\"completion_tokens\":1.5,"
                       "\"completion_tokens_details\":null}}",
                       &c),
                 RESPONSE_PARSE_OK);
    cr_assert(c.usage.present);
    cr_assert_eq(c.usage.prompt_tokens, RECORD_ABSENT);
    cr_assert_eq(c.usage.completion_tokens, RECORD_ABSENT);
    cr_assert_eq(c.usage.reasoning_tokens, RECORD_ABSENT);
    cr_assert_eq(parse(ENDPOINT_CHAT, "{\"object\":\"chat.completion.chunk\",\"usage\":{}}", &c),
                 RESPONSE_PARSE_OK);
    cr_assert_not(c.usage.present, "an empty usage object is no usage (Python falsy)");
    cr_assert_eq(parse(ENDPOINT_CHAT, "{\"object\":\"chat.completion.chunk\",\"usage\":null}", &c),
                 RESPONSE_PARSE_OK);
    cr_assert_not(c.usage.present);
}

Test(response_chunk, reasoning_chunks)
{
    struct response_chunk c;
    cr_assert_eq(parse(ENDPOINT_CHAT, VLLM_CHUNK("{\"reasoning_content\":\"Let me\"}", "null"), &c),
                 RESPONSE_PARSE_OK);
    cr_assert(c.is_content, "reasoning counts for TTFT");
    assert_view(c.reasoning, "Let me");
    cr_assert_eq(c.content.len, 0);

    cr_assert_eq(
        parse(ENDPOINT_CHAT, VLLM_CHUNK("{\"reasoning\":\"think\",\"content\":null}", "null"), &c),
        RESPONSE_PARSE_OK);
    assert_view(c.reasoning, "think");

    cr_assert_eq(
        parse(ENDPOINT_CHAT,
              VLLM_CHUNK("{\"reasoning_content\":\"\",\"reasoning\":\"b\",\"content\":\"x\"}",
                         "null"),
              &c),
        RESPONSE_PARSE_OK);
    assert_view(c.reasoning, "b");
    assert_view(c.content, "x");

    cr_assert_eq(parse(ENDPOINT_CHAT,
                       VLLM_CHUNK("{\"reasoning_content\":\"a\",\"reasoning\":\"b\"}", "null"), &c),
                 RESPONSE_PARSE_OK);
    assert_view(c.reasoning, "a");
}

Test(response_chunk, tool_call_text_counts_as_content)
{
    struct response_chunk c;
    cr_assert_eq(
        parse(ENDPOINT_CHAT,
              VLLM_CHUNK("{\"tool_calls\":[{\"index\":0,\"id\":\"c1\",\"type\":\"function\","
                         "\"function\":{\"name\":\"get_weather\",\"arguments\":\"\"}}]}",
                         "null"),
              &c),
        RESPONSE_PARSE_OK);
    cr_assert(c.is_content);
    cr_assert_eq(c.tool_text_count, 1);
    assert_view(c.tool_text[0], "get_weather");

    cr_assert_eq(parse(ENDPOINT_CHAT,
                       VLLM_CHUNK("{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":"
                                  "\"{\\\"city\\\":\"}}]}",
                                  "null"),
                       &c),
                 RESPONSE_PARSE_OK);
    cr_assert_eq(c.tool_text_count, 1);
    assert_view(c.tool_text[0], "{\\\"city\\\":");

    cr_assert_eq(parse(ENDPOINT_CHAT, VLLM_CHUNK("{\"tool_calls\":[]}", "null"), &c),
                 RESPONSE_PARSE_OK);
    cr_assert_not(c.is_content);
}

Test(response_chunk, tool_text_pieces_are_bounded)
{
    char json[2048];
    size_t n = (size_t)snprintf(json, sizeof(json),
                                "{\"object\":\"chat.completion.chunk\",\"choices\":[{\"delta\":{"
                                "\"tool_calls\":[");
    for (int i = 0; i < RESPONSE_TOOL_TEXT_MAX; i++) {
        n += (size_t)snprintf(json + n, sizeof(json) - n,
                              "%s{\"function\":{\"name\":\"f%d\",\"arguments\":\"a\"}}",
                              i ? "," : "", i);
    }
    snprintf(json + n, sizeof(json) - n, "]}}]}");
    struct response_chunk c;
    cr_assert_eq(parse(ENDPOINT_CHAT, json, &c), RESPONSE_PARSE_OK);
    cr_assert_eq(c.tool_text_count, RESPONSE_TOOL_TEXT_MAX);
    cr_assert(c.tool_text_truncated);
    assert_view(c.tool_text[1], "a");
}

Test(response_chunk, non_streaming_chat_completion)
{
    struct response_chunk c;
    const char *json =
        "{\n  \"id\": \"chatcmpl-9\",\n  \"object\": \"chat.completion\",\n  \"created\": 1,\n"
        "  \"model\": \"m\",\n  \"choices\": [\n    {\n      \"index\": 0,\n"
        "      \"message\": {\"role\": \"assistant\", \"content\": \"Hi there\","
        " \"reasoning_content\": null, \"tool_calls\": []},\n"
        "      \"finish_reason\": \"stop\"\n    }\n  ],\n"
        "  \"usage\": {\"prompt_tokens\": 3, \"completion_tokens\": 2, \"total_tokens\": 5}\n}\n";
    cr_assert_eq(parse(ENDPOINT_CHAT, json, &c), RESPONSE_PARSE_OK);
    cr_assert(c.is_content);
    assert_view(c.content, "Hi there");
    assert_view(c.finish_reason, "stop");
    cr_assert_eq(c.usage.completion_tokens, 2);
    cr_assert_eq(c.usage.reasoning_tokens, RECORD_ABSENT);
}

Test(response_chunk, completions_text)
{
    struct response_chunk c;
    const char *stream = "{\"id\":\"cmpl-1\",\"object\":\"text_completion\",\"created\":1,"
                         "\"model\":\"m\",\"choices\":[{\"index\":0,\"text\":\" world\","
                         "\"logprobs\":null,\"finish_reason\":null}]}";
    cr_assert_eq(parse(ENDPOINT_COMPLETIONS, stream, &c), RESPONSE_PARSE_OK);
    cr_assert(c.is_content);
    assert_view(c.content, " world");
    cr_assert_eq(parse(ENDPOINT_COMPLETIONS,
                       "{\"object\":\"completion\",\"choices\":[{\"text\":\"x\","
                       "\"finish_reason\":\"length\"}]}",
                       &c),
                 RESPONSE_PARSE_OK);
    assert_view(c.content, "x");
    cr_assert(c.has_finish_reason);
    cr_assert_eq(parse(ENDPOINT_CHAT, stream, &c), RESPONSE_PARSE_IGNORED,
                 "a completions object on the chat endpoint is not ours");
    cr_assert_not(c.is_content);
}

Test(response_chunk, other_objects_are_ignored_but_keep_usage)
{
    struct response_chunk c;
    cr_assert_eq(parse(ENDPOINT_CHAT,
                       "{\"object\":\"other\",\"choices\":[{\"delta\":{\"content\":\"x\"}}],"
                       "\"usage\":{\"completion_tokens\":4}}",
                       &c),
                 RESPONSE_PARSE_IGNORED);
    cr_assert_not(c.is_content);
    cr_assert_eq(c.content.len, 0);
    cr_assert(c.usage.present);
    cr_assert_eq(c.usage.completion_tokens, 4);
    cr_assert_eq(parse(ENDPOINT_CHAT, "{\"choices\":[{\"delta\":{\"content\":\"x\"}}]}", &c),
                 RESPONSE_PARSE_IGNORED, "no object member: AIPerf ignores it too");
}

Test(response_chunk, done_marker)
{
    struct response_chunk c;
    cr_assert_eq(parse(ENDPOINT_CHAT, "[DONE]", &c), RESPONSE_PARSE_DONE);
    cr_assert_eq(parse(ENDPOINT_COMPLETIONS, " [DONE]\r\n", &c), RESPONSE_PARSE_DONE);
    cr_assert_not(c.is_content);
    cr_assert_eq(parse(ENDPOINT_CHAT, "[DONE]x", &c), RESPONSE_PARSE_ERR_MALFORMED);
}

Test(response_chunk, error_payloads)
{
    struct response_chunk c;
    cr_assert_eq(parse(ENDPOINT_CHAT,
                       "{\"error\":{\"message\":\"max_tokens too large\",\"type\":"
                       "\"BadRequestError\",\"param\":null,\"code\":400}}",
                       &c),
                 RESPONSE_PARSE_ERROR);
    cr_assert_eq(c.error_code, 400);
    assert_view(c.error_type, "BadRequestError");
    assert_view(c.error_message, "max_tokens too large");
    cr_assert_not(c.error_message_is_json);

    cr_assert_eq(parse(ENDPOINT_CHAT, "{\"error\":{\"message\":\"m\",\"code\":200}}", &c),
                 RESPONSE_PARSE_ERROR);
    cr_assert_eq(c.error_code, 502, "non-4xx/5xx codes become 502");
    cr_assert_eq(parse(ENDPOINT_CHAT, "{\"error\":{\"message\":\"m\",\"code\":\"429\"}}", &c),
                 RESPONSE_PARSE_ERROR);
    cr_assert_eq(c.error_code, 502, "a string code is not an int");
    cr_assert_eq(parse(ENDPOINT_CHAT, "{\"error\":{\"code\":503}}", &c), RESPONSE_PARSE_ERROR);
    cr_assert_eq(c.error_code, 503);
    cr_assert(c.error_message_is_json);
    assert_view(c.error_message, "{\"code\":503}");

    cr_assert_eq(parse(ENDPOINT_COMPLETIONS, "{\"error\":\"model not found\"}", &c),
                 RESPONSE_PARSE_ERROR);
    cr_assert_eq(c.error_code, 502);
    assert_view(c.error_message, "model not found");
    cr_assert_eq(c.error_type.len, 0);
    cr_assert_eq(parse(ENDPOINT_CHAT, "{\"error\":true}", &c), RESPONSE_PARSE_ERROR);
    assert_view(c.error_message, "true");
    cr_assert(c.error_message_is_json);
}

Test(response_chunk, falsy_error_member_is_not_an_error)
{
    const char *cases[] = {"null", "false", "0", "0.0", "\"\"", "{}", "[]"};
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char json[256];
        snprintf(json, sizeof(json),
                 "{\"error\":%s,\"object\":\"chat.completion.chunk\",\"choices\":[{\"delta\":"
                 "{\"content\":\"a\"}}]}",
                 cases[i]);
        struct response_chunk c;
        cr_assert_eq(parse(ENDPOINT_CHAT, json, &c), RESPONSE_PARSE_OK, "error:%s", cases[i]);
        cr_assert(c.is_content);
    }
}

Test(response_chunk, escaped_text_views_and_unescape)
{
    struct response_chunk c;
    cr_assert_eq(
        parse(ENDPOINT_CHAT,
              VLLM_CHUNK("{\"content\":\"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\"\\n\"}", "null"), &c),
        RESPONSE_PARSE_OK);
    assert_view(c.content, "caf\\u00e9 \\ud83d\\ude00 \\\"q\\\"\\n");
    char out[64];
    bool truncated = true;
    size_t n = jsonstr_unescape(c.content.ptr, c.content.len, out, sizeof(out), &truncated);
    cr_assert_not(truncated);
    const char *want = "caf\xC3\xA9 \xF0\x9F\x98\x80 \"q\"\n";
    cr_assert_eq(n, strlen(want));
    cr_assert_eq(memcmp(out, want, n), 0);
}

Test(response_chunk, duplicate_keys_last_wins_and_whitespace_is_fine)
{
    struct response_chunk c;
    cr_assert_eq(parse(ENDPOINT_CHAT,
                       " \r\n{ \"object\" : \"x\" , \"object\":\"chat.completion.chunk\",\t"
                       "\"choices\" : [ { \"delta\" : { \"content\" : \"a\" } } ] , "
                       "\"n\" : -0.5e+10 } \n",
                       &c),
                 RESPONSE_PARSE_OK);
    assert_view(c.content, "a");
}

Test(response_chunk, malformed_json_is_an_error_status)
{
    static const char *bad[] = {
        "",
        " ",
        "{",
        "}",
        "{\"a\":}",
        "{\"a\" 1}",
        "{\"a\":1,}",
        "{,\"a\":1}",
        "{\"a\":[,1]}",
        "{\"a\":[1 2]}",
        "{\"a\":1 \"b\":2}",
        "{\"a\":1:2}",
        "{\"a\":tru}",
        "{\"a\":nul}",
        "{\"a\":01}",
        "{\"a\":-}",
        "{\"a\":1.}",
        "{\"a\":.5}",
        "{\"a\":1e}",
        "{\"a\":+1}",
        "{\"a\":1}x",
        "{\"a\":1}{}",
        "{'a':1}",
        "{a:1}",
        "{\"a\":\"x\ny\"}",
        "{\"a\":\"\\q\"}",
        "{\"a\":\"\\u12\"}",
        "{\"a\":[\"k\":1]}",
        "{\"a\"}",
        "{\"a\",\"b\"}",
        "{\"a\":1]",
        "[DONE",
        "DONE",
        "nul",
        "{\"a\":\"\\",
        "{\"a\":{\"b\":{}}",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct response_chunk c;
        cr_assert_eq(parse(ENDPOINT_CHAT, bad[i], &c), RESPONSE_PARSE_ERR_MALFORMED, "input: %s",
                     bad[i]);
        cr_assert_not(c.is_content);
    }
    struct response_chunk c;
    cr_assert_eq(parse_guarded(ENDPOINT_CHAT, "{\"a\":1}\0", 8, &c), RESPONSE_PARSE_ERR_MALFORMED);
    cr_assert_eq(parse_guarded(ENDPOINT_CHAT, "{\"a\":\"x\0\"}", 10, &c),
                 RESPONSE_PARSE_ERR_MALFORMED);
}

/* A number or literal may be the whole text, as for orjson: the payload is then
 * not an object, but it is not malformed either (jsmn's strict mode refused
 * one that ends the text). */
Test(chunk, bare_scalars_are_json)
{
    const char *scalars[] = {"null", "5", "-0.5e3", "true", " false ", "\"s\""};
    for (size_t i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++) {
        struct response_chunk c;
        enum response_parse_status st = parse(ENDPOINT_CHAT, scalars[i], &c);
        cr_assert(st != RESPONSE_PARSE_ERR_MALFORMED && st != RESPONSE_PARSE_OK, "%s: %s",
                  scalars[i], response_parse_status_name(st));
    }
}

/* string_in_json writes {"object":"TEXT"} or, as a key, {"TEXT":1,"object":"x"}. */
static size_t string_in_json(char *json, bool as_key, const char *text, size_t text_len)
{
    const char *pre = as_key ? "{\"" : "{\"object\":\"";
    const char *post = as_key ? "\":1,\"object\":\"x\"}" : "\"}";
    size_t n = 0;
    memcpy(json + n, pre, strlen(pre));
    n += strlen(pre);
    memcpy(json + n, text, text_len);
    n += text_len;
    memcpy(json + n, post, strlen(post));
    return n + strlen(post);
}

/* Strings are checked for raw control bytes several bytes at a time: a
 * control byte at any position of a long value or key is caught, and every
 * other byte (space, DEL, UTF-8) is accepted. */
Test(response_chunk, control_bytes_anywhere_in_a_string_are_malformed)
{
    static const char plain[] = "abcdefghijklmnopqrstuvwxyz0123456789\x7f\xc3\xa9\xff";
    static const unsigned char bytes[] = {0x00, 0x01, 0x0a, 0x1f, 0x20, 0x7f, 0x80, 0xff};
    const size_t text_len = sizeof(plain) - 1;
    char json[128];
    struct response_chunk c;
    for (int as_key = 0; as_key < 2; as_key++) {
        for (size_t at = 0; at < text_len; at++) {
            for (size_t b = 0; b < sizeof(bytes); b++) {
                char text[sizeof(plain)];
                memcpy(text, plain, sizeof(plain));
                text[at] = (char)bytes[b];
                size_t len = string_in_json(json, as_key, text, text_len);
                enum response_parse_status want =
                    bytes[b] < 0x20 ? RESPONSE_PARSE_ERR_MALFORMED : RESPONSE_PARSE_IGNORED;
                cr_assert_eq(parse_guarded(ENDPOINT_CHAT, json, len, &c), want,
                             "key %d, byte 0x%02x at %zu", as_key, bytes[b], at);
            }
        }
    }
}

Test(response_chunk, non_objects_are_rejected)
{
    static const char *bad[] = {"[1,2]", "\"str\"", "[]", "[{\"error\":\"x\"}]"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct response_chunk c;
        cr_assert_eq(parse(ENDPOINT_CHAT, bad[i], &c), RESPONSE_PARSE_ERR_NOT_OBJECT, "input: %s",
                     bad[i]);
    }
}

Test(response_chunk, every_truncation_of_a_chunk_is_malformed)
{
    const char *json = VLLM_CHUNK("{\"content\":\"caf\\u00e9\"}", "\"stop\"");
    size_t len = strlen(json);
    struct response_chunk c;
    cr_assert_eq(parse(ENDPOINT_CHAT, json, &c), RESPONSE_PARSE_OK);
    for (size_t cut = 0; cut < len; cut++) {
        cr_assert_eq(parse_guarded(ENDPOINT_CHAT, json, cut, &c), RESPONSE_PARSE_ERR_MALFORMED,
                     "cut at %zu", cut);
    }
}

/* Writes {"a":[[...]]} with `depth` arrays; returns its length. */
static size_t nested_arrays(char *json, size_t cap, int depth)
{
    size_t n = 0;
    cr_assert_lt((size_t)depth * 2 + 8, cap);
    memcpy(json, "{\"a\":", 5);
    n = 5;
    for (int i = 0; i < depth; i++) {
        json[n++] = '[';
    }
    for (int i = 0; i < depth; i++) {
        json[n++] = ']';
    }
    json[n++] = '}';
    return n;
}

Test(response_chunk, token_and_depth_limits)
{
    size_t cap = 8 * RESPONSE_JSON_TOKENS_MAX;
    char *json = malloc(cap);
    cr_assert_not_null(json);
    size_t n = (size_t)snprintf(json, cap, "{\"a\":[");
    for (int i = 0; i < RESPONSE_JSON_TOKENS_MAX; i++) {
        n += (size_t)snprintf(json + n, cap - n, "%s1", i ? "," : "");
    }
    n += (size_t)snprintf(json + n, cap - n, "]}");
    struct response_chunk c;
    cr_assert_eq(parse_guarded(ENDPOINT_CHAT, json, n, &c), RESPONSE_PARSE_ERR_TOO_MANY_TOKENS);

    n = nested_arrays(json, cap, RESPONSE_JSON_DEPTH_MAX);
    cr_assert_eq(parse_guarded(ENDPOINT_CHAT, json, n, &c), RESPONSE_PARSE_ERR_MALFORMED,
                 "nesting deeper than the limit");
    n = nested_arrays(json, cap, RESPONSE_JSON_DEPTH_MAX - 1);
    cr_assert_eq(parse_guarded(ENDPOINT_CHAT, json, n, &c), RESPONSE_PARSE_IGNORED,
                 "the root object is depth 0, so one array less fits");
    free(json);
}

Test(response_chunk, status_names_and_types)
{
    cr_assert_str_eq(response_parse_status_name(RESPONSE_PARSE_ERR_MALFORMED), "malformed JSON");
    cr_assert_str_eq(response_parse_status_name((enum response_parse_status)99),
                     "unknown endpoint parse status");
    enum endpoint_type t = ENDPOINT_CHAT;
    cr_assert_eq(endpoint_type_parse("completions", &t), 0);
    cr_assert_eq(t, ENDPOINT_COMPLETIONS);
    cr_assert_neq(endpoint_type_parse("cohere_embeddings", &t), 0);
    cr_assert_eq(t, ENDPOINT_COMPLETIONS);
    cr_assert_str_eq(endpoint_type_name(ENDPOINT_CHAT), "chat");
    cr_assert_str_eq(endpoint_type_path(ENDPOINT_CHAT), "/v1/chat/completions");
    cr_assert_str_eq(endpoint_type_path(ENDPOINT_COMPLETIONS), "/v1/completions");
}

/* OpenAI image generation: a streamed event is one image when it has "b64_json"; a body counts
 * the object items of "data". */
Test(response_chunk, image_generation_counts_images)
{
    struct response_chunk c;
    cr_assert_eq(parse(ENDPOINT_IMAGE_GENERATION,
                       "{\"type\":\"image_generation.partial_image\",\"b64_json\":\"iVBO\","
                       "\"partial_image_index\":0}",
                       &c),
                 RESPONSE_PARSE_OK);
    cr_assert_eq(c.image_count, 1);
    cr_assert(c.is_content);
    assert_view(c.object, "image_generation.partial_image");
    cr_assert_eq(parse(ENDPOINT_IMAGE_GENERATION,
                       "{\"created\":1,\"data\":[{\"b64_json\":\"iVBO\"},null,{\"url\":\"u\"}],"
                       "\"usage\":{\"input_tokens\":3,\"output_tokens\":9}}",
                       &c),
                 RESPONSE_PARSE_OK);
    cr_assert_eq(c.image_count, 2);
    cr_assert_eq(c.usage.prompt_tokens, 3);
    cr_assert_eq(c.text_count, 0);
    cr_assert_eq(parse(ENDPOINT_IMAGE_GENERATION, "{\"data\":[]}", &c), RESPONSE_PARSE_OK);
    cr_assert_not(c.is_content);
    cr_assert_eq(parse(ENDPOINT_IMAGE_GENERATION, "{\"created\":1}", &c), RESPONSE_PARSE_IGNORED);
    cr_assert_eq(parse(ENDPOINT_IMAGE_GENERATION, "[1]", &c), RESPONSE_PARSE_ERR_NOT_OBJECT);
    cr_assert_eq(parse(ENDPOINT_IMAGE_GENERATION, "{\"error\":{\"message\":\"no\"}}", &c),
                 RESPONSE_PARSE_ERROR);
}

/* NIM image retrieval: a truthy "data" is the result. */
Test(response_chunk, image_retrieval_reads_data)
{
    struct response_chunk c;
    cr_assert_eq(parse(ENDPOINT_IMAGE_RETRIEVAL,
                       "{\"data\":[{\"index\":0,\"bounding_boxes\":{}},{\"index\":1}]}", &c),
                 RESPONSE_PARSE_OK);
    cr_assert_eq(c.infer_count, 2);
    cr_assert(c.is_content);
    cr_assert_eq(parse(ENDPOINT_IMAGE_RETRIEVAL, "{\"data\":{\"x\":1}}", &c), RESPONSE_PARSE_OK);
    cr_assert_eq(c.infer_count, 1);
    cr_assert_eq(parse(ENDPOINT_IMAGE_RETRIEVAL, "{\"data\":[]}", &c), RESPONSE_PARSE_IGNORED);
    cr_assert_not(c.is_content);
}

/* SOLIDO RAG: "content" is the text, streamed or whole; "sources" are not. */
Test(response_chunk, solido_rag_reads_content)
{
    struct response_chunk c;
    cr_assert_eq(parse(ENDPOINT_SOLIDO_RAG, "{\"content\":\"Hel\\nlo\",\"sources\":[\"s\"]}", &c),
                 RESPONSE_PARSE_OK);
    cr_assert_eq(c.text_count, 1);
    assert_view(c.texts[0].text, "Hel\\nlo");
    cr_assert(c.is_content);
    cr_assert_eq(parse(ENDPOINT_SOLIDO_RAG, "{\"content\":\"\",\"sources\":[]}", &c),
                 RESPONSE_PARSE_IGNORED);
    cr_assert_eq(parse(ENDPOINT_SOLIDO_RAG, "{\"text\":\"x\"}", &c), RESPONSE_PARSE_IGNORED);
    cr_assert_eq(parse(ENDPOINT_SOLIDO_RAG, "\"x\"", &c), RESPONSE_PARSE_ERR_NOT_OBJECT);
}

/* sglang_generate: an event's "output_ids" are its output (all integers, or it carries nothing,
 * as AIPerf's), meta_info's counts the usage (total added), a non-null finish_reason the end. */
Test(response_chunk, sglang_generate_reads_ids_and_meta_info)
{
    struct response_chunk c;
    cr_assert_eq(parse(ENDPOINT_SGLANG_GENERATE,
                       "{\"text\":\" a b\",\"output_ids\":[42,7],\"meta_info\":{\"id\":\"r\","
                       "\"finish_reason\":null,\"prompt_tokens\":10,\"completion_tokens\":3}}",
                       &c),
                 RESPONSE_PARSE_OK);
    cr_assert_eq(c.token_id_count, 2);
    cr_assert(c.is_content);
    cr_assert_eq(c.text_count, 0);
    cr_assert_not(c.has_finish_reason);
    cr_assert(c.usage.present);
    cr_assert_eq(c.usage.prompt_tokens, 10);
    cr_assert_eq(c.usage.completion_tokens, 3);
    cr_assert_eq(c.usage.total_tokens, 13);
    cr_assert_eq(parse(ENDPOINT_SGLANG_GENERATE,
                       "{\"output_ids\":[1],\"meta_info\":{\"finish_reason\":{\"type\":"
                       "\"length\",\"length\":4}}}",
                       &c),
                 RESPONSE_PARSE_OK);
    cr_assert(c.has_finish_reason);
    assert_view(c.finish_reason, "length");
    cr_assert_eq(parse(ENDPOINT_SGLANG_GENERATE, "{\"output_ids\":[true]}", &c),
                 RESPONSE_PARSE_IGNORED);
    cr_assert_eq(parse(ENDPOINT_SGLANG_GENERATE, "{\"output_ids\":[1.5]}", &c),
                 RESPONSE_PARSE_IGNORED);
    cr_assert_eq(parse(ENDPOINT_SGLANG_GENERATE, "{\"output_ids\":[]}", &c),
                 RESPONSE_PARSE_IGNORED);
    cr_assert_not(c.is_content);
    cr_assert_eq(parse(ENDPOINT_SGLANG_GENERATE, "[DONE]", &c), RESPONSE_PARSE_DONE);
    cr_assert_eq(parse(ENDPOINT_SGLANG_GENERATE, "[1]", &c), RESPONSE_PARSE_ERR_NOT_OBJECT);
}

/* vllm_generate: choices[0].token_ids are the output, their count the completion usage. */
Test(response_chunk, vllm_generate_reads_choice_token_ids)
{
    struct response_chunk c;
    cr_assert_eq(parse(ENDPOINT_VLLM_GENERATE,
                       "{\"request_id\":\"r\",\"choices\":[{\"index\":0,\"token_ids\":[20,21],"
                       "\"finish_reason\":\"stop\"}]}",
                       &c),
                 RESPONSE_PARSE_OK);
    cr_assert_eq(c.token_id_count, 2);
    cr_assert(c.is_content);
    cr_assert_eq(c.usage.completion_tokens, 2);
    cr_assert_eq(c.usage.prompt_tokens, RECORD_ABSENT);
    assert_view(c.finish_reason, "stop");
    cr_assert_eq(parse(ENDPOINT_VLLM_GENERATE, "{\"choices\":[{\"token_ids\":[1,false]}]}", &c),
                 RESPONSE_PARSE_IGNORED);
    cr_assert_eq(parse(ENDPOINT_VLLM_GENERATE, "{\"choices\":[]}", &c), RESPONSE_PARSE_IGNORED);
    cr_assert_eq(
        parse(ENDPOINT_VLLM_GENERATE, "{\"error\":{\"message\":\"bad\",\"code\":400}}", &c),
        RESPONSE_PARSE_ERROR);
}
