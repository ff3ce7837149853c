/*
 * chunk.c - zero-allocation parsing of one response payload: the entry
 * points, what every type shares (errors, usage, the text list) and the
 * OpenAI chat/completions shapes. The other types live in chunk_types.c.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "response/response_json.h"

void response__add_text(struct response_chunk *out, struct response_str s,
                        enum response_text_kind kind, bool literal)
{
    if (s.len == 0) {
        return;
    }
    if (out->text_count == RESPONSE_TEXTS_MAX) {
        out->texts_truncated = true;
    } else {
        out->texts[out->text_count++] =
            (struct response_text){.text = s, .kind = kind, .literal = literal};
    }
    if (literal) {
        return; /* the older views hold escaped text only */
    }
    if (kind == RESPONSE_TEXT_CONTENT && out->content.len == 0) {
        out->content = s;
    } else if (kind == RESPONSE_TEXT_REASONING && out->reasoning.len == 0) {
        out->reasoning = s;
    } else if (kind == RESPONSE_TEXT_TOOL) {
        if (out->tool_text_count == RESPONSE_TOOL_TEXT_MAX) {
            out->tool_text_truncated = true;
        } else {
            out->tool_text[out->tool_text_count++] = s;
        }
    }
}

void response__add_string(const struct response__doc *d, int i, struct response_chunk *out,
                          enum response_text_kind kind)
{
    response__add_text(out, response__string(d, i), kind, false);
}

/* The usage members read below, looked up in one walk over the usage object. */
enum chunk__usage_key {
    USAGE_PROMPT_TOKENS,
    USAGE_INPUT_TOKENS,
    USAGE_COMPLETION_TOKENS,
    USAGE_OUTPUT_TOKENS,
    USAGE_TOTAL_TOKENS,
    USAGE_COMPLETION_DETAILS,
    USAGE_OUTPUT_DETAILS,
    USAGE_PROMPT_DETAILS,
    USAGE_INPUT_DETAILS,
    /* From here on, counts that only come with details (response__usage). */
    USAGE_CACHE_READ_INPUT,
    USAGE_PROMPT_CACHE_HIT,
    USAGE_CACHE_READ_CAMEL,
    USAGE_CACHE_CREATION_INPUT,
    USAGE_CACHE_WRITE_CAMEL,
    USAGE_PROMPT_CACHE_MISS,
    USAGE_TOOL_USE_PROMPT,
    USAGE_TOOL_USE_CAMEL,
    USAGE_PROMPT_AUDIO_SECONDS,
    USAGE_KEY_COUNT,
};

static const struct response__key chunk__usage_keys[USAGE_KEY_COUNT] = {
    [USAGE_PROMPT_TOKENS] = RESPONSE__KEY("prompt_tokens"),
    [USAGE_INPUT_TOKENS] = RESPONSE__KEY("input_tokens"),
    [USAGE_COMPLETION_TOKENS] = RESPONSE__KEY("completion_tokens"),
    [USAGE_OUTPUT_TOKENS] = RESPONSE__KEY("output_tokens"),
    [USAGE_TOTAL_TOKENS] = RESPONSE__KEY("total_tokens"),
    [USAGE_COMPLETION_DETAILS] = RESPONSE__KEY("completion_tokens_details"),
    [USAGE_OUTPUT_DETAILS] = RESPONSE__KEY("output_tokens_details"),
    [USAGE_PROMPT_DETAILS] = RESPONSE__KEY("prompt_tokens_details"),
    [USAGE_INPUT_DETAILS] = RESPONSE__KEY("input_tokens_details"),
    [USAGE_CACHE_READ_INPUT] = RESPONSE__KEY("cache_read_input_tokens"),
    [USAGE_PROMPT_CACHE_HIT] = RESPONSE__KEY("prompt_cache_hit_tokens"),
    [USAGE_CACHE_READ_CAMEL] = RESPONSE__KEY("cacheReadInputTokens"),
    [USAGE_CACHE_CREATION_INPUT] = RESPONSE__KEY("cache_creation_input_tokens"),
    [USAGE_CACHE_WRITE_CAMEL] = RESPONSE__KEY("cacheWriteInputTokens"),
    [USAGE_PROMPT_CACHE_MISS] = RESPONSE__KEY("prompt_cache_miss_tokens"),
    [USAGE_TOOL_USE_PROMPT] = RESPONSE__KEY("tool_use_prompt_tokens"),
    [USAGE_TOOL_USE_CAMEL] = RESPONSE__KEY("toolUsePromptTokenCount"),
    [USAGE_PROMPT_AUDIO_SECONDS] = RESPONSE__KEY("prompt_audio_seconds"),
};

/* One usage count under either its OpenAI chat name or its Responses/Anthropic name. */
static bool chunk__count(const struct response__doc *d, const int *member,
                         enum chunk__usage_key name, enum chunk__usage_key alias, int64_t *out)
{
    return response__count(d, member[name], out) || response__count(d, member[alias], out);
}

/* The reading of a finite JSON number is response__double's; this bounds it. */
bool response__seconds(const struct response__doc *d, int i, double *out)
{
    double x = 0;
    if (!response__double(d, i, &x) || !(x >= 0) || x > 1e15) {
        return false;
    }
    *out = x;
    return true;
}

/* chunk__details returns the first of two details objects that is an object
 * (vLLM sends null for an absent one). */
static int chunk__details(const struct response__doc *d, const int *member,
                          enum chunk__usage_key name, enum chunk__usage_key alias)
{
    return response__is(d, member[name], JSMN_OBJECT) ? member[name] : member[alias];
}

/* chunk__usage_details reads the cache, audio, tool and prediction counts. */
static void chunk__usage_details(const struct response__doc *d, const int *member,
                                 int prompt_details, int completion_details,
                                 struct record_usage *out)
{
    /* Cached prompt tokens under four names (OpenAI's details, Anthropic's and
     * DeepSeek's members, camelCase): the first one present wins. */
    int64_t *cache_read = &out->prompt_cache_read_tokens;
    if (!response__count(d, response__get(d, prompt_details, "cached_tokens"), cache_read) &&
        !chunk__count(d, member, USAGE_CACHE_READ_INPUT, USAGE_PROMPT_CACHE_HIT, cache_read)) {
        response__count(d, member[USAGE_CACHE_READ_CAMEL], cache_read);
    }
    chunk__count(d, member, USAGE_CACHE_CREATION_INPUT, USAGE_CACHE_WRITE_CAMEL,
                 &out->prompt_cache_write_tokens);
    response__count(d, member[USAGE_PROMPT_CACHE_MISS], &out->prompt_cache_miss_tokens);
    response__count(d, response__get(d, prompt_details, "audio_tokens"), &out->prompt_audio_tokens);
    response__count(d, response__get(d, completion_details, "audio_tokens"),
                    &out->completion_audio_tokens);
    response__count(d, response__get(d, completion_details, "accepted_prediction_tokens"),
                    &out->accepted_prediction_tokens);
    response__count(d, response__get(d, completion_details, "rejected_prediction_tokens"),
                    &out->rejected_prediction_tokens);
    chunk__count(d, member, USAGE_TOOL_USE_PROMPT, USAGE_TOOL_USE_CAMEL,
                 &out->tool_use_prompt_tokens);
    response__seconds(d, member[USAGE_PROMPT_AUDIO_SECONDS], &out->prompt_audio_seconds);
}

void response__usage(const struct response__doc *d, int usage, struct response_chunk *out)
{
    if (!response__is(d, usage, JSMN_OBJECT) || d->tok[usage].size == 0) {
        return;
    }
    int member[USAGE_KEY_COUNT];
    response__members(d, usage, chunk__usage_keys, USAGE_KEY_COUNT, member);
    struct record_usage *u = &out->usage;
    u->present = true;
    chunk__count(d, member, USAGE_PROMPT_TOKENS, USAGE_INPUT_TOKENS, &u->prompt_tokens);
    chunk__count(d, member, USAGE_COMPLETION_TOKENS, USAGE_OUTPUT_TOKENS, &u->completion_tokens);
    int details = chunk__details(d, member, USAGE_COMPLETION_DETAILS, USAGE_OUTPUT_DETAILS);
    response__count(d, response__get(d, details, "reasoning_tokens"), &u->reasoning_tokens);
    response__count(d, member[USAGE_TOTAL_TOKENS], &u->total_tokens);
    int prompt_details = chunk__details(d, member, USAGE_PROMPT_DETAILS, USAGE_INPUT_DETAILS);
    /* Most usage objects hold only the three counts: the dozen detail
     * lookups (60 ns a response) run only when a member that carries
     * details is there. */
    bool has_details = details >= 0 || prompt_details >= 0;
    for (int k = USAGE_CACHE_READ_INPUT; k < USAGE_KEY_COUNT && !has_details; k++) {
        has_details = member[k] >= 0;
    }
    if (has_details) {
        chunk__usage_details(d, member, prompt_details, details, u);
    }
}

void response__error(const struct response__doc *d, int err, struct response_chunk *out)
{
    out->error_code = 502;
    int msg = err;
    if (response__is(d, err, JSMN_OBJECT)) {
        uint64_t code;
        if (response__uint(d, response__get(d, err, "code"), &code) && code >= 400 && code <= 599) {
            out->error_code = (int)code;
        }
        out->error_type = response__string(d, response__get(d, err, "type"));
        msg = response__get(d, err, "message");
        if (!response__is(d, msg, JSMN_STRING)) {
            msg = err;
        }
    }
    /* For a non-string this is the value's raw JSON text. */
    out->error_message = response__view(d, msg);
    out->error_message_is_json = !response__is(d, msg, JSMN_STRING);
}

void response__finish(const struct response__doc *d, int i, struct response_chunk *out)
{
    out->has_finish_reason = true;
    out->finish_reason = response__string(d, i);
}

static void chunk__tool_calls(const struct response__doc *d, int calls, struct response_chunk *out)
{
    int n = response__is(d, calls, JSMN_ARRAY) ? d->tok[calls].size : 0;
    int j = calls + 1;
    for (int m = 0; m < n; m++) {
        int fn = response__get(d, j, "function");
        response__add_string(d, response__get(d, fn, "name"), out, RESPONSE_TEXT_TOOL);
        response__add_string(d, response__get(d, fn, "arguments"), out, RESPONSE_TEXT_TOOL);
        j = response__skip(d, j);
    }
}

/* The members of an OpenAI message (or delta) read below, in one walk. */
enum chunk__message_key {
    MESSAGE_CONTENT,
    MESSAGE_REASONING_CONTENT,
    MESSAGE_REASONING,
    MESSAGE_TOOL_CALLS,
    MESSAGE_KEY_COUNT,
};

static const struct response__key chunk__message_keys[MESSAGE_KEY_COUNT] = {
    [MESSAGE_CONTENT] = RESPONSE__KEY("content"),
    [MESSAGE_REASONING_CONTENT] = RESPONSE__KEY("reasoning_content"),
    [MESSAGE_REASONING] = RESPONSE__KEY("reasoning"),
    [MESSAGE_TOOL_CALLS] = RESPONSE__KEY("tool_calls"),
};

/* Reads choices[0] of a recognised object; `key` is the member holding the
 * message ("delta"/"message"), or NULL for completions' "text". */
static void chunk__choice(const struct response__doc *d, int choices, const char *key,
                          struct response_chunk *out)
{
    int c0 = response__at(d, choices, 0);
    if (c0 < 0) {
        return;
    }
    enum { CHOICE_FINISH, CHOICE_TEXT, CHOICE_KEY_COUNT };
    const struct response__key choice_keys[CHOICE_KEY_COUNT] = {
        [CHOICE_FINISH] = RESPONSE__KEY("finish_reason"),
        [CHOICE_TEXT] = key != NULL ? (struct response__key){key, strlen(key)}
                                    : (struct response__key)RESPONSE__KEY("text"),
    };
    int choice[CHOICE_KEY_COUNT];
    response__members(d, c0, choice_keys, CHOICE_KEY_COUNT, choice);
    int finish = choice[CHOICE_FINISH];
    if (finish >= 0 && !response__is_null(d, finish)) {
        response__finish(d, finish, out);
    }
    if (!key) {
        response__add_string(d, choice[CHOICE_TEXT], out, RESPONSE_TEXT_CONTENT);
        return;
    }
    int msg[MESSAGE_KEY_COUNT];
    response__members(d, choice[CHOICE_TEXT], chunk__message_keys, MESSAGE_KEY_COUNT, msg);
    response__add_string(d, msg[MESSAGE_CONTENT], out, RESPONSE_TEXT_CONTENT);
    struct response_str reasoning = response__string(d, msg[MESSAGE_REASONING_CONTENT]);
    if (reasoning.len == 0) {
        reasoning = response__string(d, msg[MESSAGE_REASONING]);
    }
    response__add_text(out, reasoning, RESPONSE_TEXT_REASONING, false);
    if (reasoning.len == 0) {
        chunk__tool_calls(d, msg[MESSAGE_TOOL_CALLS], out);
    }
}

/* The top-level members every type looks at, and the OpenAI ones, found in
 * one walk over the root object. */
enum chunk__root_key {
    ROOT_ERROR,
    ROOT_USAGE,
    ROOT_OBJECT,
    ROOT_CHOICES,
    ROOT_METRICS,
    ROOT_KEY_COUNT,
};

static const struct response__key chunk__root_keys[ROOT_KEY_COUNT] = {
    [ROOT_ERROR] = RESPONSE__KEY("error"),     [ROOT_USAGE] = RESPONSE__KEY("usage"),
    [ROOT_OBJECT] = RESPONSE__KEY("object"),   [ROOT_CHOICES] = RESPONSE__KEY("choices"),
    [ROOT_METRICS] = RESPONSE__KEY("metrics"),
};

static enum response_parse_status chunk__read_openai(const struct response__doc *d,
                                                     enum endpoint_type t, const int *root,
                                                     struct response_chunk *out)
{
    if (!response__is(d, 0, JSMN_OBJECT)) {
        return RESPONSE_PARSE_ERR_NOT_OBJECT;
    }
    int object = root[ROOT_OBJECT];
    out->object = response__string(d, object);
    const char *key;
    if (t == ENDPOINT_CHAT && response__str_eq(d, object, "chat.completion.chunk")) {
        key = "delta";
    } else if (t == ENDPOINT_CHAT && response__str_eq(d, object, "chat.completion")) {
        key = "message";
    } else if (t == ENDPOINT_COMPLETIONS && (response__str_eq(d, object, "text_completion") ||
                                             response__str_eq(d, object, "completion"))) {
        key = NULL;
    } else {
        return RESPONSE_PARSE_IGNORED;
    }
    chunk__choice(d, root[ROOT_CHOICES], key, out);
    return RESPONSE_PARSE_OK;
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
static bool chunk__responses_error(const struct response__doc *d, struct response_str event_type,
                                   struct response_chunk *out)
{
    int type = response__get(d, 0, "type");
    bool is_error = type >= 0 ? response__str_eq(d, type, "error")
                              : event_type.len == 5 && memcmp(event_type.ptr, "error", 5) == 0;
    if (!is_error) {
        return false;
    }
    response__error(d, 0, out);
    /* Its "type" is the event name; the error's own kind is in "code". */
    struct response_str code = response__string(d, response__get(d, 0, "code"));
    if (code.len > 0) {
        out->error_type = code;
    }
    return true;
}

static enum response_parse_status chunk__dispatch(const struct response_reader *reader,
                                                  struct response_parse_state *state,
                                                  struct response_str event_type,
                                                  const struct response__doc *d,
                                                  struct response_chunk *out)
{
    int root[ROOT_KEY_COUNT];
    response__members(d, 0, chunk__root_keys, ROOT_KEY_COUNT, root);
    int err = root[ROOT_ERROR];
    if (err >= 0 && response__truthy(d, err)) {
        response__error(d, err, out);
        return RESPONSE_PARSE_ERROR;
    }
    if (reader->type == ENDPOINT_RESPONSES && chunk__responses_error(d, event_type, out)) {
        return RESPONSE_PARSE_ERROR;
    }
    response__usage(d, root[ROOT_USAGE], out);
    switch (reader->type) {
    case ENDPOINT_CHAT:
    case ENDPOINT_COMPLETIONS:
        /* vLLM's per-request statistics, which AIPerf reads on these two types only. */
        response__spec_decode(d, root[ROOT_METRICS], out);
        return chunk__read_openai(d, reader->type, root, out);
    case ENDPOINT_RESPONSES:
        return response__read_responses(d, state, event_type, out);
    case ENDPOINT_MESSAGES:
        return response__read_messages(d, event_type, out);
    case ENDPOINT_EMBEDDINGS:
    case ENDPOINT_CHAT_EMBEDDINGS:
    case ENDPOINT_NIM_EMBEDDINGS:
        return response__read_embeddings(d, reader->type, out);
    case ENDPOINT_NIM_RANKINGS:
    case ENDPOINT_COHERE_RANKINGS:
    case ENDPOINT_HF_TEI_RANKINGS:
        return response__read_rankings(d, reader->type, out);
    case ENDPOINT_HUGGINGFACE_GENERATE:
        return response__read_tgi(d, out);
    case ENDPOINT_RAW:
    case ENDPOINT_TEMPLATE:
        return response__read_raw(d, reader, state != NULL ? state->scratch : NULL, out);
    case ENDPOINT_IMAGE_GENERATION:
    case ENDPOINT_IMAGE_EDIT:
        return response__read_images(d, out);
    case ENDPOINT_AUDIO_TRANSCRIPTION:
        return response__read_transcript(d, out);
    case ENDPOINT_IMAGE_RETRIEVAL:
        return response__read_infer(d, out);
    case ENDPOINT_SOLIDO_RAG:
        return response__read_solido(d, out);
    case ENDPOINT_SGLANG_GENERATE:
        return response__read_sglang(d, out);
    case ENDPOINT_VLLM_GENERATE:
        return response__read_vllm(d, out);
    case ENDPOINT_VIDEO_GENERATION: /* a job object: response_video_parse() reads it */
    case ENDPOINT_TYPE_COUNT:
        break;
    }
    return RESPONSE_PARSE_IGNORED;
}

/* raw takes a body that is not JSON as its text (AIPerf's get_text()). */
static enum response_parse_status chunk__raw_text(const char *data, size_t len,
                                                  struct response_chunk *out)
{
    response__add_text(out, (struct response_str){data, len}, RESPONSE_TEXT_CONTENT, true);
    out->is_content = true;
    return RESPONSE_PARSE_OK;
}

enum response_parse_status response_parse_event(const struct response_reader *reader,
                                                struct response_parse_state *state,
                                                const char *event_type, size_t event_type_len,
                                                const char *data, size_t len,
                                                struct response_chunk *out)
{
    static const struct response_chunk empty = {
        .object = {"", 0},
        .content = {"", 0},
        .reasoning = {"", 0},
        .finish_reason = {"", 0},
        .error_type = {"", 0},
        .error_message = {"", 0},
        .usage = RECORD_USAGE_NONE,
    };
    struct response__tok stack_tok[RESPONSE_JSON_TOKENS_MAX];
    struct response__tok *tok = stack_tok;
    int cap = RESPONSE_JSON_TOKENS_MAX;
    struct response__doc d;
    memcpy(out, &empty, offsetof(struct response_chunk, texts));
    if (len > RESPONSE_JSON_BYTES_MAX) {
        return RESPONSE_PARSE_ERR_TOO_LARGE;
    }
    if (chunk__is_done(data, len)) {
        return RESPONSE_PARSE_DONE;
    }
    if (state && state->scratch) {
        tok = response__scratch_tokens(state->scratch, &cap);
    }
    enum response_parse_status st =
        len == 0 ? RESPONSE_PARSE_ERR_MALFORMED : response__tokenize(&d, tok, cap, data, len);
    /* A payload with more tokens than the scratch holds grows it, by four at a time up to
     * the most its bytes can hold: few tokens for a large base64 image, many for a long
     * list of numbers. */
    while (st == RESPONSE_PARSE_ERR_TOO_MANY_TOKENS && tok != stack_tok &&
           (size_t)cap < len / 2 + 1) {
        size_t want = (size_t)cap * 4 < len / 2 + 1 ? (size_t)cap * 4 : len / 2 + 1;
        if (!response__scratch_grow(state->scratch, want)) {
            break;
        }
        tok = response__scratch_tokens(state->scratch, &cap);
        st = response__tokenize(&d, tok, cap, data, len);
    }
    /* raw and template, and a transcript asked for as plain text (response_format "text"),
     * take a body that is not JSON as the text. */
    if (st == RESPONSE_PARSE_ERR_MALFORMED && len > 0 &&
        (reader->type == ENDPOINT_RAW || reader->type == ENDPOINT_TEMPLATE ||
         reader->type == ENDPOINT_AUDIO_TRANSCRIPTION)) {
        return chunk__raw_text(data, len, out);
    }
    if (st != RESPONSE_PARSE_OK) {
        return st;
    }
    struct response_str name = {event_type ? event_type : "", event_type ? event_type_len : 0};
    st = chunk__dispatch(reader, state, name, &d, out);
    if (st == RESPONSE_PARSE_OK) {
        out->is_content |= out->text_count > 0 || out->embedding_count > 0 ||
                           out->ranking_count > 0 || out->image_count > 0 || out->infer_count > 0 ||
                           out->token_id_count > 0 || out->texts_truncated;
    } else if (st != RESPONSE_PARSE_ERROR) {
        out->is_content = false;
    }
    return st;
}

enum response_parse_status response_parse_chunk(enum endpoint_type t, const char *json, size_t len,
                                                struct response_chunk *out)
{
    struct response_reader reader = {.type = t};
    return response_parse_event(&reader, NULL, NULL, 0, json, len, out);
}

/* FIELD_VALUES_TEXT spells a numeric macro's value as a string literal. */
#define FIELD_VALUES_TEXT_(n) #n
#define FIELD_VALUES_TEXT(n) FIELD_VALUES_TEXT_(n)

const char *response_parse_status_name(enum response_parse_status s)
{
    switch (s) {
    case RESPONSE_PARSE_OK:
        return "ok";
    case RESPONSE_PARSE_DONE:
        return "[DONE]";
    case RESPONSE_PARSE_IGNORED:
        return "ignored object";
    case RESPONSE_PARSE_ERROR:
        return "server error payload";
    case RESPONSE_PARSE_ERR_MALFORMED:
        return "malformed JSON";
    case RESPONSE_PARSE_ERR_NOT_OBJECT:
        return "JSON payload is not an object";
    case RESPONSE_PARSE_ERR_TOO_MANY_TOKENS:
        return "JSON payload has too many tokens";
    case RESPONSE_PARSE_ERR_TOO_LARGE:
        return "JSON payload too large";
    case RESPONSE_PARSE_ERR_FIELD_VALUES:
        return "--extra-inputs response_field: the search makes more list values (projections, "
               "slices, flattening) than the " FIELD_VALUES_TEXT(
                   RESPONSE_FIELD_VALUES_SCRATCH_MAX) " it may, or memory ran out; narrow the "
                                                      "expression";
    }
    return "unknown endpoint parse status";
}
