/*
 * api_jansson.c - the mock's request-body reader as it was before it read bodies in place:
 * every body loaded into a jansson tree, every prompt string counted after jansson decoded it.
 * Kept as the reference the in-place reader (mock/mock_openai.c) is checked against, field by
 * field and message by message (tests/mock/test_body.c, tests/fuzz/fuzz_mock_openai.c), and as
 * the old path bench/mock_body measures beside it.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "tests/mock/api_jansson.h"

#define DEFAULT_MODEL "mock-model"

uint64_t mock_ref_count_words(const char *s, size_t n)
{
    uint64_t words = 0;
    bool in_word = false;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        bool space =
            ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r' || ch == '\f' || ch == '\v';
        if (!space && !in_word) {
            words++;
        }
        in_word = !space;
    }
    return words;
}

static uint64_t string_words(const json_t *s)
{
    return mock_ref_count_words(json_string_value(s), json_string_length(s));
}

/* Words of a string, or of the "text" members of a list of parts/blocks. */
static uint64_t content_words(const json_t *content)
{
    if (json_is_string(content)) {
        return string_words(content);
    }
    uint64_t words = 0;
    size_t k;
    const json_t *part;
    json_array_foreach(content, k, part)
    {
        const json_t *text = json_object_get(part, "text");
        if (json_is_string(text)) {
            words += string_words(text);
        }
    }
    return words;
}

/* Chat (and messages, responses input items): every message's content, a string or a list of
 * parts of which text parts count. */
static bool chat_prompt_words(const json_t *root, const char *key, uint64_t *out, char *msg,
                              size_t msgcap)
{
    const json_t *messages = json_object_get(root, key);
    if (!json_is_array(messages)) {
        snprintf(msg, msgcap, "'%s' is required and must be an array", key);
        return false;
    }
    size_t i;
    const json_t *m;
    json_array_foreach(messages, i, m)
    {
        *out += content_words(json_object_get(m, "content"));
    }
    return true;
}

/* Completions: a string, or a list of strings, token ids, or lists of token ids. */
static bool completion_prompt_words(const json_t *root, uint64_t *out, char *msg, size_t msgcap)
{
    const json_t *prompt = json_object_get(root, "prompt");
    if (json_is_string(prompt)) {
        *out = string_words(prompt);
        return true;
    }
    if (!json_is_array(prompt)) {
        snprintf(msg, msgcap, "'prompt' is required and must be a string or an array");
        return false;
    }
    size_t i;
    const json_t *item;
    json_array_foreach(prompt, i, item)
    {
        if (json_is_string(item)) {
            *out += string_words(item);
        } else if (json_is_integer(item)) {
            *out += 1;
        } else if (json_is_array(item)) {
            *out += json_array_size(item);
        } else {
            snprintf(msg, msgcap, "'prompt' items must be strings or token ids");
            return false;
        }
    }
    return true;
}

static bool read_max_tokens(const json_t *root, const char *key, struct mock__job *out, char *msg,
                            size_t msgcap)
{
    const json_t *v = json_object_get(root, key);
    if (v == NULL || json_is_null(v) || out->limit_given) {
        return true;
    }
    json_int_t n = json_is_integer(v) ? json_integer_value(v) : -1;
    if (n < 1 || n > (json_int_t)MOCK_OUTPUT_TOKENS_MAX) {
        snprintf(msg, msgcap, "'%s' must be an integer from 1 to %u", key,
                 (unsigned)MOCK_OUTPUT_TOKENS_MAX);
        return false;
    }
    out->output_tokens = (uint32_t)n;
    out->limit_given = true;
    return true;
}

static bool read_bool(const json_t *obj, const char *key, bool *out, char *msg, size_t msgcap)
{
    const json_t *v = json_object_get(obj, key);
    if (v == NULL || json_is_null(v)) {
        return true;
    }
    if (!json_is_boolean(v)) {
        snprintf(msg, msgcap, "'%s' must be true or false", key);
        return false;
    }
    *out = json_is_true(v);
    return true;
}

static bool read_model(const json_t *root, struct mock__job *out, char *msg, size_t msgcap)
{
    const char *key = out->route == MOCK__ROUTE_RAG ? "inference_model" : "model";
    const json_t *v = json_object_get(root, key);
    const char *name = DEFAULT_MODEL;
    size_t len = strlen(DEFAULT_MODEL);
    if (v != NULL && !json_is_null(v)) {
        if (!json_is_string(v) || json_string_length(v) == 0 ||
            json_string_length(v) > MOCK__MODEL_BYTES_MAX) {
            snprintf(msg, msgcap, "'%s' must be a string of 1 to %d bytes", key,
                     MOCK__MODEL_BYTES_MAX);
            return false;
        }
        name = json_string_value(v);
        len = json_string_length(v);
    }
    memcpy(out->model, name, len);
    out->model[len] = '\0';
    out->model_len = len;
    struct mock__buf b = {.p = out->model_json, .cap = sizeof(out->model_json)};
    mock__json_escape(&b, name, len, false);
    out->model_json_len = b.len;
    return true;
}

/* Responses: "input" is a string or a list of items with string or part-list content;
 * "instructions" counts too. */
static bool responses_prompt_words(const json_t *root, uint64_t *out, char *msg, size_t msgcap)
{
    const json_t *input = json_object_get(root, "input");
    *out = content_words(json_object_get(root, "instructions"));
    if (json_is_string(input)) {
        *out += string_words(input);
        return true;
    }
    return chat_prompt_words(root, "input", out, msg, msgcap);
}

/* The number of items of `key` (an array), checked against the output limit. */
static bool read_items(const json_t *root, const char *key, struct mock__job *out, char *msg,
                       size_t msgcap)
{
    const json_t *list = json_object_get(root, key);
    if (!json_is_array(list) || json_array_size(list) > MOCK_OUTPUT_TOKENS_MAX) {
        snprintf(msg, msgcap, "'%s' is required and must be an array of at most %u items", key,
                 (unsigned)MOCK_OUTPUT_TOKENS_MAX);
        return false;
    }
    out->output_tokens = (uint32_t)json_array_size(list);
    size_t i;
    const json_t *item;
    json_array_foreach(list, i, item)
    {
        out->prompt_tokens += json_is_string(item) ? string_words(item) : content_words(item);
        if (json_is_object(item)) {
            out->prompt_tokens += string_words(json_object_get(item, "text"));
        }
    }
    return true;
}

/* Embeddings: "input" is a string, a list of strings or token ids; chat_embeddings sends
 * "messages" instead, which is one input. */
static bool embeddings_fields(const json_t *root, struct mock__job *out, char *msg, size_t msgcap)
{
    const json_t *input = json_object_get(root, "input");
    if (input == NULL && json_object_get(root, "messages") != NULL) {
        out->output_tokens = 1;
        return chat_prompt_words(root, "messages", &out->prompt_tokens, msg, msgcap);
    }
    if (json_is_string(input)) {
        out->output_tokens = 1;
        out->prompt_tokens = string_words(input);
        return true;
    }
    if (!read_items(root, "input", out, msg, msgcap)) {
        snprintf(msg, msgcap, "'input' (or 'messages') is required: a string or an array");
        return false;
    }
    return true;
}

/* Rankings: a query and the list to rank, in each API's own names. */
static bool rankings_fields(const json_t *root, struct mock__job *out, char *msg, size_t msgcap)
{
    const json_t *query = json_object_get(root, "query");
    if (out->route == MOCK__ROUTE_NIM_RANKING) {
        query = json_object_get(query, "text");
    }
    if (!json_is_string(query)) {
        snprintf(msg, msgcap, "'query'%s is required and must be a string",
                 out->route == MOCK__ROUTE_NIM_RANKING ? ".text" : "");
        return false;
    }
    const char *key = out->route == MOCK__ROUTE_NIM_RANKING     ? "passages"
                      : out->route == MOCK__ROUTE_COHERE_RERANK ? "documents"
                                                                : "texts";
    if (!read_items(root, key, out, msg, msgcap)) {
        return false;
    }
    out->prompt_tokens += string_words(query);
    return true;
}

/* TGI: "inputs" and "parameters.max_new_tokens"; the route says whether it streams. */
static bool tgi_fields(const json_t *root, struct mock__job *out, char *msg, size_t msgcap)
{
    const json_t *inputs = json_object_get(root, "inputs");
    if (!json_is_string(inputs)) {
        snprintf(msg, msgcap, "'inputs' is required and must be a string");
        return false;
    }
    out->prompt_tokens = string_words(inputs);
    out->stream = out->route == MOCK__ROUTE_GENERATE_STREAM;
    const json_t *params = json_object_get(root, "parameters");
    if (params != NULL && !json_is_null(params) && !json_is_object(params)) {
        snprintf(msg, msgcap, "'parameters' must be an object");
        return false;
    }
    return read_max_tokens(params, "max_new_tokens", out, msg, msgcap);
}

/* Image generation: "prompt", "n" (1 when absent) and "stream". */
static bool images_fields(const json_t *root, struct mock__job *out, char *msg, size_t msgcap)
{
    const json_t *prompt = json_object_get(root, "prompt");
    if (!json_is_string(prompt)) {
        snprintf(msg, msgcap, "'prompt' is required and must be a string");
        return false;
    }
    out->prompt_tokens = string_words(prompt);
    const json_t *n = json_object_get(root, "n");
    out->output_tokens = 1;
    if (n != NULL && !json_is_null(n)) {
        if (!json_is_integer(n) || json_integer_value(n) < 1 ||
            json_integer_value(n) > MOCK__IMAGES_MAX) {
            snprintf(msg, msgcap, "'n' must be an integer from 1 to %u",
                     (unsigned)MOCK__IMAGES_MAX);
            return false;
        }
        out->output_tokens = (uint32_t)json_integer_value(n);
    }
    return read_bool(root, "stream", &out->stream, msg, msgcap);
}

/* SOLIDO RAG: "query", a list of strings. */
static bool rag_fields(const json_t *root, struct mock__job *out, char *msg, size_t msgcap)
{
    const json_t *query = json_object_get(root, "query");
    if (!json_is_array(query)) {
        snprintf(msg, msgcap, "'query' is required and must be an array of strings");
        return false;
    }
    size_t i;
    const json_t *item;
    json_array_foreach(query, i, item)
    {
        if (!json_is_string(item)) {
            snprintf(msg, msgcap, "'query' items must be strings");
            return false;
        }
        out->prompt_tokens += string_words(item);
    }
    return true;
}

/* The token-id routes: a non-empty list of non-negative integer ids under `ids`, the output
 * length in sampling_params' `max_key`; vLLM's must not stream. */
static bool token_id_fields(const json_t *root, const char *ids, const char *max_key,
                            struct mock__job *out, char *msg, size_t msgcap)
{
    const json_t *list = json_object_get(root, ids);
    size_t i;
    const json_t *item;
    json_array_foreach(list, i, item)
    {
        if (!json_is_integer(item) || json_integer_value(item) < 0) {
            break;
        }
        out->prompt_tokens++;
    }
    if (out->prompt_tokens == 0 || out->prompt_tokens != json_array_size(list)) {
        snprintf(msg, msgcap, "'%s' is required and must be a non-empty array of token ids", ids);
        return false;
    }
    const json_t *params = json_object_get(root, "sampling_params");
    if (params != NULL && !json_is_null(params) && !json_is_object(params)) {
        snprintf(msg, msgcap, "'sampling_params' must be an object");
        return false;
    }
    if (!read_max_tokens(params, max_key, out, msg, msgcap) ||
        !read_bool(root, "stream", &out->stream, msg, msgcap)) {
        return false;
    }
    if (out->route == MOCK__ROUTE_VLLM_GENERATE && out->stream) {
        snprintf(msg, msgcap, "streaming is not supported by this endpoint");
        return false;
    }
    return true;
}

static bool read_fields(const json_t *root, struct mock__job *out, char *msg, size_t msgcap)
{
    if (!read_model(root, out, msg, msgcap)) {
        return false;
    }
    if (out->route == MOCK__ROUTE_GENERATE && json_object_get(root, "input_ids") != NULL) {
        out->route = MOCK__ROUTE_SGLANG_GENERATE;
    }
    switch (out->route) {
    case MOCK__ROUTE_GENERATE:
    case MOCK__ROUTE_GENERATE_STREAM:
        return tgi_fields(root, out, msg, msgcap);
    case MOCK__ROUTE_SGLANG_GENERATE:
        return token_id_fields(root, "input_ids", "max_new_tokens", out, msg, msgcap);
    case MOCK__ROUTE_VLLM_GENERATE:
        return token_id_fields(root, "token_ids", "max_tokens", out, msg, msgcap);
    case MOCK__ROUTE_EMBEDDINGS:
        return embeddings_fields(root, out, msg, msgcap);
    case MOCK__ROUTE_NIM_RANKING:
    case MOCK__ROUTE_COHERE_RERANK:
    case MOCK__ROUTE_TEI_RERANK:
        return rankings_fields(root, out, msg, msgcap);
    case MOCK__ROUTE_IMAGES:
        return images_fields(root, out, msg, msgcap);
    case MOCK__ROUTE_INFER:
        return read_items(root, "input", out, msg, msgcap);
    case MOCK__ROUTE_RAG:
        return rag_fields(root, out, msg, msgcap);
    default:
        break;
    }
    if (!read_bool(root, "stream", &out->stream, msg, msgcap)) {
        return false;
    }
    const json_t *opts = json_object_get(root, "stream_options");
    if (opts != NULL && !json_is_null(opts)) {
        if (!json_is_object(opts)) {
            snprintf(msg, msgcap, "'stream_options' must be an object");
            return false;
        }
        if (!read_bool(opts, "include_usage", &out->include_usage, msg, msgcap) ||
            !read_bool(opts, "continuous_usage_stats", &out->continuous_usage, msg, msgcap)) {
            return false;
        }
    }
    if (out->route == MOCK__ROUTE_CHAT &&
        !read_max_tokens(root, "max_completion_tokens", out, msg, msgcap)) {
        return false;
    }
    if (out->route == MOCK__ROUTE_RESPONSES &&
        !read_max_tokens(root, "max_output_tokens", out, msg, msgcap)) {
        return false;
    }
    if (!read_max_tokens(root, "max_tokens", out, msg, msgcap)) {
        return false;
    }
    switch (out->route) {
    case MOCK__ROUTE_CHAT:
        return chat_prompt_words(root, "messages", &out->prompt_tokens, msg, msgcap);
    case MOCK__ROUTE_MESSAGES:
        out->prompt_tokens = content_words(json_object_get(root, "system"));
        return chat_prompt_words(root, "messages", &out->prompt_tokens, msg, msgcap);
    case MOCK__ROUTE_RESPONSES:
        return responses_prompt_words(root, &out->prompt_tokens, msg, msgcap);
    default:
        return completion_prompt_words(root, &out->prompt_tokens, msg, msgcap);
    }
}

enum mock__api_status mock_ref_api_parse(enum mock__route route, const char *body, size_t len,
                                         uint32_t default_tokens, struct mock__job *out, char *msg,
                                         size_t msgcap)
{
    mock__job_start(out, route, default_tokens);
    if (msgcap > 0) {
        msg[0] = '\0';
    }
    json_error_t err;
    json_t *root = json_loadb(body, len, JSON_ALLOW_NUL, &err);
    if (root == NULL) {
        snprintf(msg, msgcap, "request body is not valid JSON (line %d, column %d): %s", err.line,
                 err.column, err.text);
        return MOCK__API_BAD_JSON;
    }
    enum mock__api_status status = MOCK__API_OK;
    if (!json_is_object(root)) {
        snprintf(msg, msgcap, "request body must be a JSON object");
        status = MOCK__API_INVALID;
    } else if (!read_fields(root, out, msg, msgcap)) {
        status = MOCK__API_INVALID;
    }
    json_decref(root);
    return status;
}

static bool same_job(const struct mock__job *a, const struct mock__job *b)
{
    return a->output_tokens == b->output_tokens && a->prompt_tokens == b->prompt_tokens &&
           a->stream == b->stream && a->include_usage == b->include_usage &&
           a->continuous_usage == b->continuous_usage && a->limit_given == b->limit_given &&
           a->model_len == b->model_len && memcmp(a->model, b->model, a->model_len + 1) == 0 &&
           a->model_json_len == b->model_json_len &&
           memcmp(a->model_json, b->model_json, a->model_json_len) == 0;
}

bool mock_ref_compare(enum mock__route route, const char *body, size_t len,
                      struct mock_ref_pair *out)
{
    memset(out, 0, sizeof(*out));
    out->got =
        mock__api_parse(route, body, len, 16, &out->got_job, out->got_msg, sizeof(out->got_msg));
    out->want = mock_ref_api_parse(route, body, len, 16, &out->want_job, out->want_msg,
                                   sizeof(out->want_msg));
    return out->got == out->want && strcmp(out->got_msg, out->want_msg) == 0 &&
           (out->got != MOCK__API_OK || same_job(&out->got_job, &out->want_job));
}
