/*
 * mock_openai.c - routing and reading request bodies of every route, and the shared table of
 * model names behind GET /v1/models.
 *
 * A body is read where it was received: response_walk_check() refuses what jansson would,
 * then the walk visits the few members a route reads and steps over the rest, and prompt
 * strings are counted in their escaped form (mock_words.c). Nothing is copied or allocated,
 * so a prompt of megabytes costs a few passes at memory speed; jansson only words the reason
 * a body is refused.
 */
#include <errno.h>
#include <jansson.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mock/mock_internal.h"
#include "mock/mock_worker.h"
#include "response/response_walk.h"

#define DEFAULT_MODEL "mock-model"

struct route_entry {
    const char *path;
    const char *method;
    enum mock__route route;
};

static const struct route_entry ROUTES[] = {
    {"/v1/chat/completions", "POST", MOCK__ROUTE_CHAT},
    {"/v1/completions", "POST", MOCK__ROUTE_COMPLETIONS},
    {"/v1/models", "GET", MOCK__ROUTE_MODELS},
    {"/health", "GET", MOCK__ROUTE_HEALTH},
    {"/metrics", "GET", MOCK__ROUTE_METRICS},
    {"/dcgm/metrics", "GET", MOCK__ROUTE_DCGM},
    {"/v1/responses", "POST", MOCK__ROUTE_RESPONSES},
    {"/v1/messages", "POST", MOCK__ROUTE_MESSAGES},
    {"/generate", "POST", MOCK__ROUTE_GENERATE},
    {"/generate_stream", "POST", MOCK__ROUTE_GENERATE_STREAM},
    {"/v1/embeddings", "POST", MOCK__ROUTE_EMBEDDINGS},
    {"/v1/ranking", "POST", MOCK__ROUTE_NIM_RANKING},
    {"/v2/rerank", "POST", MOCK__ROUTE_COHERE_RERANK},
    {"/rerank", "POST", MOCK__ROUTE_TEI_RERANK},
    {"/reset_prefix_cache", "POST", MOCK__ROUTE_RESET_CACHE},
    {"/start_profile", "POST", MOCK__ROUTE_START_PROFILE},
    {"/stop_profile", "POST", MOCK__ROUTE_STOP_PROFILE},
    {"/v1/images/generations", "POST", MOCK__ROUTE_IMAGES},
    {"/v1/infer", "POST", MOCK__ROUTE_INFER},
    {"/rag/api/prompt", "POST", MOCK__ROUTE_RAG},
    {"/v1/images/edits", "POST", MOCK__ROUTE_IMAGE_EDITS},
    {"/v1/audio/transcriptions", "POST", MOCK__ROUTE_TRANSCRIPTIONS},
    {"/inference/v1/generate", "POST", MOCK__ROUTE_VLLM_GENERATE},
    {"/v1/echo", "POST", MOCK__ROUTE_ECHO},
};

bool mock__route_tokens(enum mock__route route)
{
    return route != MOCK__ROUTE_EMBEDDINGS && route != MOCK__ROUTE_NIM_RANKING &&
           route != MOCK__ROUTE_COHERE_RERANK && route != MOCK__ROUTE_TEI_RERANK &&
           route != MOCK__ROUTE_IMAGES && route != MOCK__ROUTE_INFER &&
           route != MOCK__ROUTE_IMAGE_EDITS;
}

enum mock__route mock__route_find(const char *method, size_t method_len, const char *path,
                                  size_t path_len, bool *out_method_ok)
{
    *out_method_ok = false;
    for (size_t i = 0; i < sizeof(ROUTES) / sizeof(ROUTES[0]); i++) {
        const struct route_entry *r = &ROUTES[i];
        if (strlen(r->path) != path_len || memcmp(r->path, path, path_len) != 0) {
            continue;
        }
        *out_method_ok =
            strlen(r->method) == method_len && memcmp(r->method, method, method_len) == 0;
        return r->route;
    }
    return MOCK__ROUTE_NONE;
}

/* The members of a request body's root that any route reads. */
enum body_key {
    KEY_MODEL,
    KEY_STREAM,
    KEY_STREAM_OPTIONS,
    KEY_MAX_TOKENS,
    KEY_MAX_COMPLETION_TOKENS,
    KEY_MAX_OUTPUT_TOKENS,
    KEY_MESSAGES,
    KEY_PROMPT,
    KEY_INPUT,
    KEY_INSTRUCTIONS,
    KEY_SYSTEM,
    KEY_INPUTS,
    KEY_PARAMETERS,
    KEY_QUERY,
    KEY_PASSAGES,
    KEY_DOCUMENTS,
    KEY_TEXTS,
    KEY_TEXT,
    KEY_N,
    KEY_INFERENCE_MODEL,
    KEY_INPUT_IDS,
    KEY_TOKEN_IDS,
    KEY_SAMPLING_PARAMS,
    KEY_COUNT,
};

static const struct response_walk_key BODY_KEYS[KEY_COUNT] = {
    [KEY_MODEL] = RESPONSE_WALK_KEY("model"),
    [KEY_STREAM] = RESPONSE_WALK_KEY("stream"),
    [KEY_STREAM_OPTIONS] = RESPONSE_WALK_KEY("stream_options"),
    [KEY_MAX_TOKENS] = RESPONSE_WALK_KEY("max_tokens"),
    [KEY_MAX_COMPLETION_TOKENS] = RESPONSE_WALK_KEY("max_completion_tokens"),
    [KEY_MAX_OUTPUT_TOKENS] = RESPONSE_WALK_KEY("max_output_tokens"),
    [KEY_MESSAGES] = RESPONSE_WALK_KEY("messages"),
    [KEY_PROMPT] = RESPONSE_WALK_KEY("prompt"),
    [KEY_INPUT] = RESPONSE_WALK_KEY("input"),
    [KEY_INSTRUCTIONS] = RESPONSE_WALK_KEY("instructions"),
    [KEY_SYSTEM] = RESPONSE_WALK_KEY("system"),
    [KEY_INPUTS] = RESPONSE_WALK_KEY("inputs"),
    [KEY_PARAMETERS] = RESPONSE_WALK_KEY("parameters"),
    [KEY_QUERY] = RESPONSE_WALK_KEY("query"),
    [KEY_PASSAGES] = RESPONSE_WALK_KEY("passages"),
    [KEY_DOCUMENTS] = RESPONSE_WALK_KEY("documents"),
    [KEY_TEXTS] = RESPONSE_WALK_KEY("texts"),
    [KEY_TEXT] = RESPONSE_WALK_KEY("text"),
    [KEY_N] = RESPONSE_WALK_KEY("n"),
    [KEY_INFERENCE_MODEL] = RESPONSE_WALK_KEY("inference_model"),
    [KEY_INPUT_IDS] = RESPONSE_WALK_KEY("input_ids"),
    [KEY_TOKEN_IDS] = RESPONSE_WALK_KEY("token_ids"),
    [KEY_SAMPLING_PARAMS] = RESPONSE_WALK_KEY("sampling_params"),
};

/* body is one request body being read: the checked text, its root's members, the job being
 * filled and where a refusal's reason goes. */
struct body {
    struct response_str text;
    size_t v[KEY_COUNT];
    struct mock__job *out;
    char *msg;
    size_t msgcap;
};

static enum response_walk_type type_of(const struct body *b, size_t v)
{
    return response_walk_type(b->text, v);
}

static bool is_null_or_absent(const struct body *b, size_t v)
{
    return type_of(b, v) == RESPONSE_WALK_ABSENT || type_of(b, v) == RESPONSE_WALK_NULL;
}

/* Words of a string value; 0 for any other value. */
static uint64_t string_words(const struct body *b, size_t v)
{
    struct response_str raw;
    return response_walk_string(b->text, v, &raw) ? mock__prompt_words(raw.ptr, raw.len) : 0;
}

/* Words of a string, or of the "text" members of a list of parts/blocks. */
static uint64_t content_words(const struct body *b, size_t content)
{
    if (type_of(b, content) == RESPONSE_WALK_STRING) {
        return string_words(b, content);
    }
    uint64_t words = 0;
    struct response_walk_iter it;
    size_t part;
    response_walk_iter_init(
        &it, b->text, type_of(b, content) == RESPONSE_WALK_ARRAY ? content : RESPONSE_WALK_NONE);
    while (response_walk_iter_next(&it, NULL, &part)) {
        words += string_words(b, response_walk_get(b->text, part, "text"));
    }
    return words;
}

/* Chat (and messages, responses input items): every message's content, a string or a list of
 * parts of which text parts count. */
static bool chat_prompt_words(const struct body *b, size_t messages, const char *key, uint64_t *out)
{
    if (type_of(b, messages) != RESPONSE_WALK_ARRAY) {
        snprintf(b->msg, b->msgcap, "'%s' is required and must be an array", key);
        return false;
    }
    struct response_walk_iter it;
    size_t m;
    response_walk_iter_init(&it, b->text, messages);
    while (response_walk_iter_next(&it, NULL, &m)) {
        *out += content_words(b, response_walk_get(b->text, m, "content"));
    }
    return true;
}

/* Completions: a string, or a list of strings, token ids, or lists of token ids. */
static bool completion_prompt_words(const struct body *b, uint64_t *out)
{
    size_t prompt = b->v[KEY_PROMPT];
    if (type_of(b, prompt) == RESPONSE_WALK_STRING) {
        *out = string_words(b, prompt);
        return true;
    }
    if (type_of(b, prompt) != RESPONSE_WALK_ARRAY) {
        snprintf(b->msg, b->msgcap, "'prompt' is required and must be a string or an array");
        return false;
    }
    struct response_walk_iter it;
    size_t item;
    int64_t id;
    response_walk_iter_init(&it, b->text, prompt);
    while (response_walk_iter_next(&it, NULL, &item)) {
        if (type_of(b, item) == RESPONSE_WALK_STRING) {
            *out += string_words(b, item);
        } else if (response_walk_int(b->text, item, &id)) {
            *out += 1;
        } else if (type_of(b, item) == RESPONSE_WALK_ARRAY) {
            *out += response_walk_count(b->text, item);
        } else {
            snprintf(b->msg, b->msgcap, "'prompt' items must be strings or token ids");
            return false;
        }
    }
    return true;
}

static bool read_max_tokens(const struct body *b, size_t v, const char *key)
{
    if (is_null_or_absent(b, v) || b->out->limit_given) {
        return true;
    }
    int64_t n = -1;
    if (!response_walk_int(b->text, v, &n) || n < 1 || n > (int64_t)MOCK_OUTPUT_TOKENS_MAX) {
        snprintf(b->msg, b->msgcap, "'%s' must be an integer from 1 to %u", key,
                 (unsigned)MOCK_OUTPUT_TOKENS_MAX);
        return false;
    }
    b->out->output_tokens = (uint32_t)n;
    b->out->limit_given = true;
    return true;
}

static bool read_bool(const struct body *b, size_t v, const char *key, bool *out)
{
    if (is_null_or_absent(b, v)) {
        return true;
    }
    if (type_of(b, v) != RESPONSE_WALK_BOOL) {
        snprintf(b->msg, b->msgcap, "'%s' must be true or false", key);
        return false;
    }
    *out = response_walk_is_true(b->text, v);
    return true;
}

static bool read_model(const struct body *b)
{
    struct mock__job *out = b->out;
    /* SOLIDO names its model "inference_model". */
    enum body_key key = out->route == MOCK__ROUTE_RAG ? KEY_INFERENCE_MODEL : KEY_MODEL;
    size_t v = b->v[key];
    size_t len = strlen(DEFAULT_MODEL);
    memcpy(out->model, DEFAULT_MODEL, len);
    if (!is_null_or_absent(b, v)) {
        /* Every escape decodes to at least one byte, from at most six. */
        struct response_str raw = {"", 0};
        bool truncated = true;
        if (response_walk_string(b->text, v, &raw) && raw.len > 0 &&
            raw.len <= 6 * (size_t)MOCK__MODEL_BYTES_MAX) {
            len = jsonstr_unescape(raw.ptr, raw.len, out->model, MOCK__MODEL_BYTES_MAX, &truncated);
        }
        if (truncated) {
            snprintf(b->msg, b->msgcap, "'%s' must be a string of 1 to %d bytes",
                     BODY_KEYS[key].name, MOCK__MODEL_BYTES_MAX);
            return false;
        }
    }
    out->model[len] = '\0';
    out->model_len = len;
    struct mock__buf mb = {.p = out->model_json, .cap = sizeof(out->model_json)};
    mock__json_escape(&mb, out->model, len, false);
    out->model_json_len = mb.len;
    return true;
}

/* Responses: "input" is a string or a list of items with string or part-list content;
 * "instructions" counts too. */
static bool responses_prompt_words(const struct body *b, uint64_t *out)
{
    size_t input = b->v[KEY_INPUT];
    *out = content_words(b, b->v[KEY_INSTRUCTIONS]);
    if (type_of(b, input) == RESPONSE_WALK_STRING) {
        *out += string_words(b, input);
        return true;
    }
    return chat_prompt_words(b, input, "input", out);
}

/* The number of items of `key` (an array), checked against the output limit. */
static bool read_items(const struct body *b, enum body_key key)
{
    size_t list = b->v[key];
    uint64_t count = 0;
    uint64_t words = 0;
    struct response_walk_iter it;
    size_t item;
    response_walk_iter_init(&it, b->text,
                            type_of(b, list) == RESPONSE_WALK_ARRAY ? list : RESPONSE_WALK_NONE);
    while (response_walk_iter_next(&it, NULL, &item)) {
        count++;
        words += type_of(b, item) == RESPONSE_WALK_STRING ? string_words(b, item)
                                                          : content_words(b, item);
        if (type_of(b, item) == RESPONSE_WALK_OBJECT) {
            words += string_words(b, response_walk_get(b->text, item, "text"));
        }
    }
    if (type_of(b, list) != RESPONSE_WALK_ARRAY || count > MOCK_OUTPUT_TOKENS_MAX) {
        snprintf(b->msg, b->msgcap, "'%s' is required and must be an array of at most %u items",
                 BODY_KEYS[key].name, (unsigned)MOCK_OUTPUT_TOKENS_MAX);
        return false;
    }
    b->out->output_tokens = (uint32_t)count;
    b->out->prompt_tokens += words;
    return true;
}

/* Embeddings: "input" is a string, a list of strings or token ids; chat_embeddings sends
 * "messages" instead, which is one input; NVIDIA's NV-EmbedQA shape (AIPerf's nv-embedqa
 * template) a "text" list. */
static bool embeddings_fields(const struct body *b)
{
    struct mock__job *out = b->out;
    size_t input = b->v[KEY_INPUT];
    if (input == RESPONSE_WALK_NONE && type_of(b, b->v[KEY_TEXT]) == RESPONSE_WALK_ARRAY) {
        return read_items(b, KEY_TEXT);
    }
    if (input == RESPONSE_WALK_NONE && b->v[KEY_MESSAGES] != RESPONSE_WALK_NONE) {
        out->output_tokens = 1;
        return chat_prompt_words(b, b->v[KEY_MESSAGES], "messages", &out->prompt_tokens);
    }
    if (type_of(b, input) == RESPONSE_WALK_STRING) {
        out->output_tokens = 1;
        out->prompt_tokens = string_words(b, input);
        return true;
    }
    if (!read_items(b, KEY_INPUT)) {
        snprintf(b->msg, b->msgcap, "'input' (or 'messages') is required: a string or an array");
        return false;
    }
    return true;
}

/* Rankings: a query and the list to rank, in each API's own names. */
static bool rankings_fields(const struct body *b)
{
    enum mock__route route = b->out->route;
    size_t query = b->v[KEY_QUERY];
    if (route == MOCK__ROUTE_NIM_RANKING) {
        query = response_walk_get(b->text, query, "text");
    }
    if (type_of(b, query) != RESPONSE_WALK_STRING) {
        snprintf(b->msg, b->msgcap, "'query'%s is required and must be a string",
                 route == MOCK__ROUTE_NIM_RANKING ? ".text" : "");
        return false;
    }
    enum body_key key = route == MOCK__ROUTE_NIM_RANKING     ? KEY_PASSAGES
                        : route == MOCK__ROUTE_COHERE_RERANK ? KEY_DOCUMENTS
                                                             : KEY_TEXTS;
    if (!read_items(b, key)) {
        return false;
    }
    b->out->prompt_tokens += string_words(b, query);
    return true;
}

/* TGI: "inputs" and "parameters.max_new_tokens"; the route says whether it streams. */
static bool tgi_fields(const struct body *b)
{
    struct mock__job *out = b->out;
    size_t inputs = b->v[KEY_INPUTS];
    if (type_of(b, inputs) != RESPONSE_WALK_STRING) {
        snprintf(b->msg, b->msgcap, "'inputs' is required and must be a string");
        return false;
    }
    out->prompt_tokens = string_words(b, inputs);
    out->stream = out->route == MOCK__ROUTE_GENERATE_STREAM;
    size_t params = b->v[KEY_PARAMETERS];
    if (!is_null_or_absent(b, params) && type_of(b, params) != RESPONSE_WALK_OBJECT) {
        snprintf(b->msg, b->msgcap, "'parameters' must be an object");
        return false;
    }
    return read_max_tokens(b, response_walk_get(b->text, params, "max_new_tokens"),
                           "max_new_tokens");
}

/* The streaming flags and max tokens of the chat, completions, responses and messages
 * routes. */
static bool stream_fields(const struct body *b)
{
    struct mock__job *out = b->out;
    if (!read_bool(b, b->v[KEY_STREAM], "stream", &out->stream)) {
        return false;
    }
    size_t opts = b->v[KEY_STREAM_OPTIONS];
    if (!is_null_or_absent(b, opts)) {
        if (type_of(b, opts) != RESPONSE_WALK_OBJECT) {
            snprintf(b->msg, b->msgcap, "'stream_options' must be an object");
            return false;
        }
        if (!read_bool(b, response_walk_get(b->text, opts, "include_usage"), "include_usage",
                       &out->include_usage) ||
            !read_bool(b, response_walk_get(b->text, opts, "continuous_usage_stats"),
                       "continuous_usage_stats", &out->continuous_usage)) {
            return false;
        }
    }
    if (out->route == MOCK__ROUTE_CHAT &&
        !read_max_tokens(b, b->v[KEY_MAX_COMPLETION_TOKENS], "max_completion_tokens")) {
        return false;
    }
    if (out->route == MOCK__ROUTE_RESPONSES &&
        !read_max_tokens(b, b->v[KEY_MAX_OUTPUT_TOKENS], "max_output_tokens")) {
        return false;
    }
    return read_max_tokens(b, b->v[KEY_MAX_TOKENS], "max_tokens");
}

/* Image generation: "prompt", the number of images "n" (1 when absent) and "stream". */
static bool images_fields(const struct body *b)
{
    struct mock__job *out = b->out;
    size_t prompt = b->v[KEY_PROMPT];
    if (type_of(b, prompt) != RESPONSE_WALK_STRING) {
        snprintf(b->msg, b->msgcap, "'prompt' is required and must be a string");
        return false;
    }
    out->prompt_tokens = string_words(b, prompt);
    out->output_tokens = 1;
    int64_t n = 1;
    if (!is_null_or_absent(b, b->v[KEY_N]) &&
        (!response_walk_int(b->text, b->v[KEY_N], &n) || n < 1 || n > (int64_t)MOCK__IMAGES_MAX)) {
        snprintf(b->msg, b->msgcap, "'n' must be an integer from 1 to %u",
                 (unsigned)MOCK__IMAGES_MAX);
        return false;
    }
    out->output_tokens = (uint32_t)n;
    return read_bool(b, b->v[KEY_STREAM], "stream", &out->stream);
}

/* SOLIDO RAG: "query", a list of strings; the answer's length is the server's default. */
static bool rag_fields(const struct body *b)
{
    size_t query = b->v[KEY_QUERY];
    struct response_walk_iter it;
    size_t item;
    if (type_of(b, query) != RESPONSE_WALK_ARRAY) {
        snprintf(b->msg, b->msgcap, "'query' is required and must be an array of strings");
        return false;
    }
    response_walk_iter_init(&it, b->text, query);
    while (response_walk_iter_next(&it, NULL, &item)) {
        if (type_of(b, item) != RESPONSE_WALK_STRING) {
            snprintf(b->msg, b->msgcap, "'query' items must be strings");
            return false;
        }
        b->out->prompt_tokens += string_words(b, item);
    }
    return true;
}

/* The token-id routes: the prompt is a non-empty list of integer ids under `ids`, and the
 * output length is sampling_params' `max_key`. SGLang's body says whether it streams; vLLM's
 * must not ask to. */
static bool token_id_fields(const struct body *b, enum body_key ids, const char *max_key)
{
    struct mock__job *out = b->out;
    struct response_walk_iter it;
    size_t item;
    int64_t id;
    response_walk_iter_init(&it, b->text,
                            type_of(b, b->v[ids]) == RESPONSE_WALK_ARRAY ? b->v[ids]
                                                                         : RESPONSE_WALK_NONE);
    while (response_walk_iter_next(&it, NULL, &item)) {
        if (!response_walk_int(b->text, item, &id) || id < 0) {
            break;
        }
        out->prompt_tokens++;
    }
    if (out->prompt_tokens == 0 || out->prompt_tokens != response_walk_count(b->text, b->v[ids])) {
        snprintf(b->msg, b->msgcap, "'%s' is required and must be a non-empty array of token ids",
                 BODY_KEYS[ids].name);
        return false;
    }
    size_t params = b->v[KEY_SAMPLING_PARAMS];
    if (!is_null_or_absent(b, params) && type_of(b, params) != RESPONSE_WALK_OBJECT) {
        snprintf(b->msg, b->msgcap, "'sampling_params' must be an object");
        return false;
    }
    if (!read_max_tokens(b, response_walk_get(b->text, params, max_key), max_key) ||
        !read_bool(b, b->v[KEY_STREAM], "stream", &out->stream)) {
        return false;
    }
    if (out->route == MOCK__ROUTE_VLLM_GENERATE && out->stream) {
        snprintf(b->msg, b->msgcap, "streaming is not supported by this endpoint");
        return false;
    }
    return true;
}

static bool read_fields(const struct body *b)
{
    struct mock__job *out = b->out;
    if (!read_model(b)) {
        return false;
    }
    if (out->route == MOCK__ROUTE_GENERATE && b->v[KEY_INPUT_IDS] != RESPONSE_WALK_NONE) {
        out->route = MOCK__ROUTE_SGLANG_GENERATE; /* SGLang's /generate, not TGI's */
    }
    switch (out->route) {
    case MOCK__ROUTE_GENERATE:
    case MOCK__ROUTE_GENERATE_STREAM:
        return tgi_fields(b);
    case MOCK__ROUTE_SGLANG_GENERATE:
        return token_id_fields(b, KEY_INPUT_IDS, "max_new_tokens");
    case MOCK__ROUTE_VLLM_GENERATE:
        return token_id_fields(b, KEY_TOKEN_IDS, "max_tokens");
    case MOCK__ROUTE_EMBEDDINGS:
        return embeddings_fields(b);
    case MOCK__ROUTE_NIM_RANKING:
    case MOCK__ROUTE_COHERE_RERANK:
    case MOCK__ROUTE_TEI_RERANK:
        return rankings_fields(b);
    case MOCK__ROUTE_IMAGES:
        return images_fields(b);
    case MOCK__ROUTE_INFER:
        return read_items(b, KEY_INPUT);
    case MOCK__ROUTE_RAG:
        return rag_fields(b);
    default:
        break;
    }
    if (!stream_fields(b)) {
        return false;
    }
    switch (out->route) {
    case MOCK__ROUTE_CHAT:
        return chat_prompt_words(b, b->v[KEY_MESSAGES], "messages", &out->prompt_tokens);
    case MOCK__ROUTE_MESSAGES:
        out->prompt_tokens = content_words(b, b->v[KEY_SYSTEM]);
        return chat_prompt_words(b, b->v[KEY_MESSAGES], "messages", &out->prompt_tokens);
    case MOCK__ROUTE_RESPONSES:
        return responses_prompt_words(b, &out->prompt_tokens);
    default:
        return completion_prompt_words(b, &out->prompt_tokens);
    }
}

/* bad_json_message explains why a body is not JSON in jansson's words (line, column, reason),
 * as the server always has: only refused bodies are loaded into a tree. */
static void bad_json_message(const char *body, size_t len, char *msg, size_t msgcap)
{
    json_error_t err;
    json_t *root = json_loadb(body, len, JSON_ALLOW_NUL, &err);
    if (root != NULL) {
        /* Not reached while response_walk_check() and jansson agree (fuzz_mock_openai). */
        json_decref(root);
        snprintf(msg, msgcap, "request body is not valid JSON");
        return;
    }
    snprintf(msg, msgcap, "request body is not valid JSON (line %d, column %d): %s", err.line,
             err.column, err.text);
}

void mock__job_start(struct mock__job *out, enum mock__route route, uint32_t default_tokens)
{
    out->route = route;
    out->stream = false;
    out->include_usage = false;
    out->continuous_usage = false;
    out->limit_given = false;
    out->output_tokens = default_tokens;
    out->prompt_tokens = 0;
    out->report_cache = false; /* the caller turns it on from mock_config.cache_hit_rate */
    out->cached_tokens = 0;
    out->spec_tokens = 0; /* the caller sets it from mock_config.spec_decode_tokens */
    out->seq = 0;
    out->has_file = false;
    out->audio_ms = 0;
    out->eventstream = false;
}

enum mock__api_status mock__api_parse(enum mock__route route, const char *body, size_t len,
                                      uint32_t default_tokens, struct mock__job *out, char *msg,
                                      size_t msgcap)
{
    mock__job_start(out, route, default_tokens);
    char none[1];
    struct body b = {.text = {body, len},
                     .out = out,
                     .msg = msgcap > 0 ? msg : none,
                     .msgcap = msgcap > 0 ? msgcap : sizeof(none)};
    b.msg[0] = '\0';
    size_t root = response_walk_root(b.text);
    if (!response_walk_check(b.text) ||
        (type_of(&b, root) != RESPONSE_WALK_OBJECT && type_of(&b, root) != RESPONSE_WALK_ARRAY)) {
        bad_json_message(body, len, b.msg, b.msgcap);
        return MOCK__API_BAD_JSON;
    }
    if (type_of(&b, root) != RESPONSE_WALK_OBJECT) {
        snprintf(b.msg, b.msgcap, "request body must be a JSON object");
        return MOCK__API_INVALID;
    }
    response_walk_members(b.text, root, BODY_KEYS, KEY_COUNT, b.v);
    return read_fields(&b) ? MOCK__API_OK : MOCK__API_INVALID;
}

void mock__models_add(struct mock__models *models, const char *name, size_t len)
{
    pthread_mutex_lock(&models->lock);
    bool known = false;
    for (uint32_t i = 0; i < models->count && !known; i++) {
        known = models->len[i] == len && memcmp(models->name[i], name, len) == 0;
    }
    if (!known && models->count < MOCK__MODELS_MAX && len <= MOCK__MODEL_BYTES_MAX) {
        uint32_t i = models->count++;
        memcpy(models->name[i], name, len);
        models->name[i][len] = '\0';
        models->len[i] = len;
        struct mock__buf b = {.p = models->json[i], .cap = sizeof(models->json[i])};
        mock__json_escape(&b, name, len, false);
        models->json_len[i] = b.len;
    }
    pthread_mutex_unlock(&models->lock);
}

static void put_model_entry(struct mock__buf *b, const char *json, size_t len, bool first)
{
    mock__buf_str(b, first ? "{\"id\":\"" : ",{\"id\":\"");
    mock__buf_put(b, json, len);
    mock__buf_str(b, "\",\"object\":\"model\",\"created\":0,\"owned_by\":\"ringperf-mock\"}");
}

void mock__models_fmt(struct mock__models *models, struct mock__buf *b)
{
    mock__buf_str(b, "{\"object\":\"list\",\"data\":[");
    pthread_mutex_lock(&models->lock);
    for (uint32_t i = 0; i < models->count; i++) {
        put_model_entry(b, models->json[i], models->json_len[i], i == 0);
    }
    if (models->count == 0) {
        put_model_entry(b, DEFAULT_MODEL, strlen(DEFAULT_MODEL), true);
    }
    pthread_mutex_unlock(&models->lock);
    mock__buf_str(b, "]}");
}
