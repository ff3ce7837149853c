/*
 * chunk.c - zero-allocation parsing of one response payload: the entry
 * points, what every type shares (errors, usage, the text list) and the
 * OpenAI chat/completions shapes. The other types live in chunk_types.c.
 */
#include <stdlib.h>
#include <string.h>

#include "endpoint/endpoint_json.h"

void endpoint__add_text(struct endpoint_chunk *out, struct endpoint_str s,
                        enum endpoint_text_kind kind, bool literal)
{
    if (s.len == 0) {
        return;
    }
    if (out->text_count == ENDPOINT_TEXTS_MAX) {
        out->texts_truncated = true;
    } else {
        out->texts[out->text_count++] =
            (struct endpoint_text){.text = s, .kind = kind, .literal = literal};
    }
    if (literal) {
        return; /* the older views hold escaped text only */
    }
    if (kind == ENDPOINT_TEXT_CONTENT && out->content.len == 0) {
        out->content = s;
    } else if (kind == ENDPOINT_TEXT_REASONING && out->reasoning.len == 0) {
        out->reasoning = s;
    } else if (kind == ENDPOINT_TEXT_TOOL) {
        if (out->tool_text_count == ENDPOINT_TOOL_TEXT_MAX) {
            out->tool_text_truncated = true;
        } else {
            out->tool_text[out->tool_text_count++] = s;
        }
    }
}

void endpoint__add_string(const struct endpoint__doc *d, int i, struct endpoint_chunk *out,
                          enum endpoint_text_kind kind)
{
    endpoint__add_text(out, endpoint__string(d, i), kind, false);
}

/* One usage count under either its OpenAI chat name or its Responses/Anthropic name. */
static bool chunk__count(const struct endpoint__doc *d, int usage, const char *name,
                         const char *alias, uint64_t *out)
{
    return endpoint__uint(d, endpoint__get(d, usage, name), out) ||
           endpoint__uint(d, endpoint__get(d, usage, alias), out);
}

/* chunk__seconds reads a non-negative JSON number (integer or not) up to a
 * sane length; strtod needs a NUL-terminated copy. */
static bool chunk__seconds(const struct endpoint__doc *d, int i, double *out)
{
    char text[64];
    if (!endpoint__is_number(d, i)) {
        return false;
    }
    struct endpoint_str v = endpoint__view(d, i);
    if (v.len == 0 || v.len >= sizeof(text)) {
        return false;
    }
    memcpy(text, v.ptr, v.len);
    text[v.len] = '\0';
    char *end = NULL;
    double x = strtod(text, &end);
    if (end != text + v.len || !(x >= 0) || x > 1e15) {
        return false;
    }
    *out = x;
    return true;
}

/* chunk__details returns the first of two details objects that is an object
 * (vLLM sends null for an absent one). */
static int chunk__details(const struct endpoint__doc *d, int usage, const char *name,
                          const char *alias)
{
    int details = endpoint__get(d, usage, name);
    return endpoint__is(d, details, JSMN_OBJECT) ? details : endpoint__get(d, usage, alias);
}

/* chunk__usage_details reads the cache, audio, tool and prediction counts. */
static void chunk__usage_details(const struct endpoint__doc *d, int usage, int prompt_details,
                                 int completion_details, struct endpoint_chunk *out)
{
    out->has_cache_read_tokens =
        endpoint__uint(d, endpoint__get(d, prompt_details, "cached_tokens"),
                       &out->cache_read_tokens) ||
        chunk__count(d, usage, "cache_read_input_tokens", "prompt_cache_hit_tokens",
                     &out->cache_read_tokens) ||
        endpoint__uint(d, endpoint__get(d, usage, "cacheReadInputTokens"), &out->cache_read_tokens);
    out->has_cache_write_tokens = chunk__count(d, usage, "cache_creation_input_tokens",
                                               "cacheWriteInputTokens", &out->cache_write_tokens);
    out->has_cache_miss_tokens = endpoint__uint(
        d, endpoint__get(d, usage, "prompt_cache_miss_tokens"), &out->cache_miss_tokens);
    out->has_prompt_audio_tokens = endpoint__uint(
        d, endpoint__get(d, prompt_details, "audio_tokens"), &out->prompt_audio_tokens);
    out->has_completion_audio_tokens = endpoint__uint(
        d, endpoint__get(d, completion_details, "audio_tokens"), &out->completion_audio_tokens);
    out->has_accepted_prediction_tokens =
        endpoint__uint(d, endpoint__get(d, completion_details, "accepted_prediction_tokens"),
                       &out->accepted_prediction_tokens);
    out->has_rejected_prediction_tokens =
        endpoint__uint(d, endpoint__get(d, completion_details, "rejected_prediction_tokens"),
                       &out->rejected_prediction_tokens);
    out->has_tool_use_prompt_tokens =
        chunk__count(d, usage, "tool_use_prompt_tokens", "toolUsePromptTokenCount",
                     &out->tool_use_prompt_tokens);
    out->has_prompt_audio_seconds = chunk__seconds(
        d, endpoint__get(d, usage, "prompt_audio_seconds"), &out->prompt_audio_seconds);
}

void endpoint__usage(const struct endpoint__doc *d, int usage, struct endpoint_chunk *out)
{
    if (!endpoint__is(d, usage, JSMN_OBJECT) || d->tok[usage].size == 0) {
        return;
    }
    out->has_usage = true;
    out->has_prompt_tokens =
        chunk__count(d, usage, "prompt_tokens", "input_tokens", &out->prompt_tokens);
    out->has_completion_tokens =
        chunk__count(d, usage, "completion_tokens", "output_tokens", &out->completion_tokens);
    int details = chunk__details(d, usage, "completion_tokens_details", "output_tokens_details");
    out->has_reasoning_tokens =
        endpoint__uint(d, endpoint__get(d, details, "reasoning_tokens"), &out->reasoning_tokens);
    out->has_total_tokens =
        endpoint__uint(d, endpoint__get(d, usage, "total_tokens"), &out->total_tokens);
    int prompt_details = chunk__details(d, usage, "prompt_tokens_details", "input_tokens_details");
    chunk__usage_details(d, usage, prompt_details, details, out);
}

void endpoint__error(const struct endpoint__doc *d, int err, struct endpoint_chunk *out)
{
    out->error_code = 502;
    int msg = err;
    if (endpoint__is(d, err, JSMN_OBJECT)) {
        uint64_t code;
        if (endpoint__uint(d, endpoint__get(d, err, "code"), &code) && code >= 400 && code <= 599) {
            out->error_code = (int)code;
        }
        out->error_type = endpoint__string(d, endpoint__get(d, err, "type"));
        msg = endpoint__get(d, err, "message");
        if (!endpoint__is(d, msg, JSMN_STRING)) {
            msg = err;
        }
    }
    /* For a non-string this is the value's raw JSON text. */
    out->error_message = endpoint__view(d, msg);
    out->error_message_is_json = !endpoint__is(d, msg, JSMN_STRING);
}

void endpoint__finish(const struct endpoint__doc *d, int i, struct endpoint_chunk *out)
{
    out->has_finish_reason = true;
    out->finish_reason = endpoint__string(d, i);
}

static void chunk__tool_calls(const struct endpoint__doc *d, int calls, struct endpoint_chunk *out)
{
    int n = endpoint__is(d, calls, JSMN_ARRAY) ? d->tok[calls].size : 0;
    int j = calls + 1;
    for (int m = 0; m < n; m++) {
        int fn = endpoint__get(d, j, "function");
        endpoint__add_string(d, endpoint__get(d, fn, "name"), out, ENDPOINT_TEXT_TOOL);
        endpoint__add_string(d, endpoint__get(d, fn, "arguments"), out, ENDPOINT_TEXT_TOOL);
        j = endpoint__skip(d, j);
    }
}

/* Reads choices[0] of a recognised object; `key` is the member holding the
 * message ("delta"/"message"), or NULL for completions' "text". */
static void chunk__choice(const struct endpoint__doc *d, const char *key,
                          struct endpoint_chunk *out)
{
    int c0 = endpoint__at(d, endpoint__get(d, 0, "choices"), 0);
    if (c0 < 0) {
        return;
    }
    int finish = endpoint__get(d, c0, "finish_reason");
    if (finish >= 0 && !endpoint__is_null(d, finish)) {
        endpoint__finish(d, finish, out);
    }
    if (!key) {
        endpoint__add_string(d, endpoint__get(d, c0, "text"), out, ENDPOINT_TEXT_CONTENT);
        return;
    }
    int msg = endpoint__get(d, c0, key);
    endpoint__add_string(d, endpoint__get(d, msg, "content"), out, ENDPOINT_TEXT_CONTENT);
    struct endpoint_str reasoning = endpoint__string(d, endpoint__get(d, msg, "reasoning_content"));
    if (reasoning.len == 0) {
        reasoning = endpoint__string(d, endpoint__get(d, msg, "reasoning"));
    }
    endpoint__add_text(out, reasoning, ENDPOINT_TEXT_REASONING, false);
    if (reasoning.len == 0) {
        chunk__tool_calls(d, endpoint__get(d, msg, "tool_calls"), out);
    }
}

static enum endpoint_parse_status
chunk__read_openai(const struct endpoint__doc *d, enum endpoint_type t, struct endpoint_chunk *out)
{
    if (!endpoint__is(d, 0, JSMN_OBJECT)) {
        return ENDPOINT_PARSE_ERR_NOT_OBJECT;
    }
    int object = endpoint__get(d, 0, "object");
    out->object = endpoint__string(d, object);
    const char *key;
    if (t == ENDPOINT_CHAT && endpoint__str_eq(d, object, "chat.completion.chunk")) {
        key = "delta";
    } else if (t == ENDPOINT_CHAT && endpoint__str_eq(d, object, "chat.completion")) {
        key = "message";
    } else if (t == ENDPOINT_COMPLETIONS && (endpoint__str_eq(d, object, "text_completion") ||
                                             endpoint__str_eq(d, object, "completion"))) {
        key = NULL;
    } else {
        return ENDPOINT_PARSE_IGNORED;
    }
    chunk__choice(d, key, out);
    return ENDPOINT_PARSE_OK;
}

static bool chunk__is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static bool chunk__is_done(const char *json, size_t len)
{
    while (len > 0 && chunk__is_ws(json[0])) {
        json++;
        len--;
    }
    while (len > 0 && chunk__is_ws(json[len - 1])) {
        len--;
    }
    return len == 6 && memcmp(json, "[DONE]", 6) == 0;
}

/* A responses "type":"error" event carries its message at the top level. */
static bool chunk__responses_error(const struct endpoint__doc *d, struct endpoint_str event_type,
                                   struct endpoint_chunk *out)
{
    int type = endpoint__get(d, 0, "type");
    bool is_error = type >= 0 ? endpoint__str_eq(d, type, "error")
                              : event_type.len == 5 && memcmp(event_type.ptr, "error", 5) == 0;
    if (!is_error) {
        return false;
    }
    endpoint__error(d, 0, out);
    /* Its "type" is the event name; the error's own kind is in "code". */
    struct endpoint_str code = endpoint__string(d, endpoint__get(d, 0, "code"));
    if (code.len > 0) {
        out->error_type = code;
    }
    return true;
}

static enum endpoint_parse_status chunk__dispatch(const struct endpoint_reader *reader,
                                                  struct endpoint_parse_state *state,
                                                  struct endpoint_str event_type,
                                                  const struct endpoint__doc *d,
                                                  struct endpoint_chunk *out)
{
    int err = endpoint__get(d, 0, "error");
    if (err >= 0 && endpoint__truthy(d, err)) {
        endpoint__error(d, err, out);
        return ENDPOINT_PARSE_ERROR;
    }
    if (reader->type == ENDPOINT_RESPONSES && chunk__responses_error(d, event_type, out)) {
        return ENDPOINT_PARSE_ERROR;
    }
    endpoint__usage(d, endpoint__get(d, 0, "usage"), out);
    switch (reader->type) {
    case ENDPOINT_CHAT:
    case ENDPOINT_COMPLETIONS:
        return chunk__read_openai(d, reader->type, out);
    case ENDPOINT_RESPONSES:
        return endpoint__read_responses(d, state, event_type, out);
    case ENDPOINT_MESSAGES:
        return endpoint__read_messages(d, event_type, out);
    case ENDPOINT_EMBEDDINGS:
    case ENDPOINT_CHAT_EMBEDDINGS:
    case ENDPOINT_NIM_EMBEDDINGS:
        return endpoint__read_embeddings(d, reader->type, out);
    case ENDPOINT_NIM_RANKINGS:
    case ENDPOINT_COHERE_RANKINGS:
    case ENDPOINT_HF_TEI_RANKINGS:
        return endpoint__read_rankings(d, reader->type, out);
    case ENDPOINT_HUGGINGFACE_GENERATE:
        return endpoint__read_tgi(d, out);
    case ENDPOINT_RAW:
        return endpoint__read_raw(d, reader, out);
    case ENDPOINT_TYPE_COUNT:
        break;
    }
    return ENDPOINT_PARSE_IGNORED;
}

/* raw takes a body that is not JSON as its text (AIPerf's get_text()). */
static enum endpoint_parse_status chunk__raw_text(const char *data, size_t len,
                                                  struct endpoint_chunk *out)
{
    endpoint__add_text(out, (struct endpoint_str){data, len}, ENDPOINT_TEXT_CONTENT, true);
    out->is_content = true;
    return ENDPOINT_PARSE_OK;
}

enum endpoint_parse_status endpoint_parse_event(const struct endpoint_reader *reader,
                                                struct endpoint_parse_state *state,
                                                const char *event_type, size_t event_type_len,
                                                const char *data, size_t len,
                                                struct endpoint_chunk *out)
{
    static const struct endpoint_chunk empty = {
        .object = {"", 0},
        .content = {"", 0},
        .reasoning = {"", 0},
        .finish_reason = {"", 0},
        .error_type = {"", 0},
        .error_message = {"", 0},
    };
    jsmntok_t stack_tok[ENDPOINT_JSON_TOKENS_MAX];
    jsmntok_t *tok = stack_tok;
    int cap = ENDPOINT_JSON_TOKENS_MAX;
    struct endpoint__doc d;
    *out = empty;
    if (len > ENDPOINT_JSON_BYTES_MAX) {
        return ENDPOINT_PARSE_ERR_TOO_LARGE;
    }
    if (chunk__is_done(data, len)) {
        return ENDPOINT_PARSE_DONE;
    }
    if (state && state->scratch) {
        tok = endpoint__scratch_tokens(state->scratch, &cap);
    }
    enum endpoint_parse_status st =
        len == 0 ? ENDPOINT_PARSE_ERR_MALFORMED : endpoint__tokenize(&d, tok, cap, data, len);
    if (st == ENDPOINT_PARSE_ERR_MALFORMED && reader->type == ENDPOINT_RAW && len > 0) {
        return chunk__raw_text(data, len, out);
    }
    if (st != ENDPOINT_PARSE_OK) {
        return st;
    }
    struct endpoint_str name = {event_type ? event_type : "", event_type ? event_type_len : 0};
    st = chunk__dispatch(reader, state, name, &d, out);
    if (st == ENDPOINT_PARSE_OK) {
        out->is_content |= out->text_count > 0 || out->embedding_count > 0 ||
                           out->ranking_count > 0 || out->texts_truncated;
    } else if (st != ENDPOINT_PARSE_ERROR) {
        out->is_content = false;
    }
    return st;
}

enum endpoint_parse_status endpoint_parse_chunk(enum endpoint_type t, const char *json, size_t len,
                                                struct endpoint_chunk *out)
{
    struct endpoint_reader reader = {.type = t};
    return endpoint_parse_event(&reader, NULL, NULL, 0, json, len, out);
}

const char *endpoint_parse_status_name(enum endpoint_parse_status s)
{
    switch (s) {
    case ENDPOINT_PARSE_OK:
        return "ok";
    case ENDPOINT_PARSE_DONE:
        return "[DONE]";
    case ENDPOINT_PARSE_IGNORED:
        return "ignored object";
    case ENDPOINT_PARSE_ERROR:
        return "server error payload";
    case ENDPOINT_PARSE_ERR_MALFORMED:
        return "malformed JSON";
    case ENDPOINT_PARSE_ERR_NOT_OBJECT:
        return "JSON payload is not an object";
    case ENDPOINT_PARSE_ERR_TOO_MANY_TOKENS:
        return "JSON payload has too many tokens";
    case ENDPOINT_PARSE_ERR_TOO_LARGE:
        return "JSON payload too large";
    }
    return "unknown endpoint parse status";
}
