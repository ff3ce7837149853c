/*
 * chunk_types.c - reading the response shapes of the endpoint types other
 * than chat/completions from a validated token tree: OpenAI Responses,
 * Anthropic Messages, Hugging Face TGI, embeddings, rankings and raw
 * auto-detection. Each follows the matching AIPerf endpoint's parse_response.
 */
#include <string.h>

#include "endpoint/endpoint_json.h"

static bool types__name_is(struct endpoint_str name, const char *want)
{
    size_t n = strlen(want);
    return name.len == n && memcmp(name.ptr, want, n) == 0;
}

/* The event name: the JSON "type" when there is one, else the SSE event name. */
static struct endpoint_str types__event_name(const struct endpoint__doc *d,
                                             struct endpoint_str event_type)
{
    int type = endpoint__get(d, 0, "type");
    return type >= 0 ? endpoint__string(d, type) : event_type;
}

/* ---- Responses --------------------------------------------------------- */

static int64_t types__index(const struct endpoint__doc *d, const char *key)
{
    int64_t v;
    return endpoint__int(d, endpoint__get(d, 0, key), &v) ? v : -1;
}

/* Returns whether this event's (output_index, content_index) part already
 * streamed deltas; with `remember`, records it as having done so. */
static bool responses__part_seen(const struct endpoint__doc *d, struct endpoint_parse_state *state,
                                 bool remember)
{
    if (!state) {
        return false;
    }
    int64_t out_i = types__index(d, "output_index");
    int64_t content_i = types__index(d, "content_index");
    for (uint32_t k = 0; k < state->part_count; k++) {
        if (state->part_output_index[k] == out_i && state->part_content_index[k] == content_i) {
            return true;
        }
    }
    if (!remember) {
        /* Parts beyond the table all streamed deltas, so a done is most
         * likely their duplicate. */
        return state->part_overflow;
    }
    if (state->part_count == ENDPOINT_STREAM_PARTS_MAX) {
        state->part_overflow = true;
    } else {
        state->part_output_index[state->part_count] = out_i;
        state->part_content_index[state->part_count] = content_i;
        state->part_count++;
    }
    return false;
}

static void responses__terminal(const struct endpoint__doc *d, bool incomplete,
                                struct endpoint_chunk *out)
{
    int resp = endpoint__get(d, 0, "response");
    endpoint__usage(d, endpoint__get(d, resp, "usage"), out);
    int reason = endpoint__get(d, resp, "status");
    if (incomplete) {
        int details = endpoint__get(d, endpoint__get(d, resp, "incomplete_details"), "reason");
        reason = endpoint__is(d, details, JSMN_STRING) ? details : reason;
    }
    endpoint__finish(d, reason, out);
}

static enum endpoint_parse_status responses__event(const struct endpoint__doc *d,
                                                   struct endpoint_parse_state *state,
                                                   struct endpoint_str name,
                                                   struct endpoint_chunk *out)
{
    int delta = endpoint__get(d, 0, "delta");
    if (types__name_is(name, "response.output_text.delta")) {
        endpoint__add_string(d, delta, out, ENDPOINT_TEXT_CONTENT);
        if (out->text_count > 0) {
            (void)responses__part_seen(d, state, true);
        }
    } else if (types__name_is(name, "response.reasoning_text.delta")) {
        endpoint__add_string(d, delta, out, ENDPOINT_TEXT_REASONING);
    } else if (types__name_is(name, "response.function_call_arguments.delta")) {
        endpoint__add_string(d, delta, out, ENDPOINT_TEXT_TOOL);
    } else if (types__name_is(name, "response.output_text.done")) {
        int text = endpoint__get(d, 0, "text");
        if (!endpoint__truthy(d, text)) {
            return ENDPOINT_PARSE_OK;
        }
        if (responses__part_seen(d, state, false)) {
            out->is_content = true; /* AIPerf keeps its timestamp, drops the duplicate text */
        } else {
            endpoint__add_string(d, text, out, ENDPOINT_TEXT_CONTENT);
        }
    } else if (types__name_is(name, "response.completed")) {
        responses__terminal(d, false, out);
    } else if (types__name_is(name, "response.incomplete")) {
        responses__terminal(d, true, out);
    } else if (types__name_is(name, "response.failed")) {
        int resp = endpoint__get(d, 0, "response");
        int err = endpoint__get(d, resp, "error");
        endpoint__error(d, endpoint__truthy(d, err) ? err : resp >= 0 ? resp : 0, out);
        return ENDPOINT_PARSE_ERROR;
    }
    return ENDPOINT_PARSE_OK;
}

struct types__parts {
    int reasoning, text, tool; /* pieces found per kind */
};

/* Adds the pieces of one output[] item of `kind` (or counts them when
 * out is NULL). */
static void responses__item(const struct endpoint__doc *d, int item, enum endpoint_text_kind kind,
                            struct types__parts *n, struct endpoint_chunk *out)
{
    int type = endpoint__get(d, item, "type");
    bool reasoning = endpoint__str_eq(d, type, "reasoning");
    bool message = endpoint__str_eq(d, type, "message");
    if (endpoint__str_eq(d, type, "function_call")) {
        int name = endpoint__get(d, item, "name");
        int args = endpoint__get(d, item, "arguments");
        n->tool += endpoint__truthy(d, name) + endpoint__truthy(d, args);
        if (out && kind == ENDPOINT_TEXT_TOOL) {
            endpoint__add_string(d, name, out, kind);
            endpoint__add_string(d, args, out, kind);
        }
        return;
    }
    if (!reasoning && !message) {
        return;
    }
    int parts = endpoint__get(d, item, reasoning ? "summary" : "content");
    const char *part_type = reasoning ? "summary_text" : "output_text";
    int count = endpoint__is(d, parts, JSMN_ARRAY) ? d->tok[parts].size : 0;
    int j = parts + 1;
    for (int m = 0; m < count; m++) {
        int text = endpoint__get(d, j, "text");
        if (endpoint__str_eq(d, endpoint__get(d, j, "type"), part_type) &&
            endpoint__truthy(d, text) && endpoint__is(d, text, JSMN_STRING)) {
            *(reasoning ? &n->reasoning : &n->text) += 1;
            if (out && kind == (reasoning ? ENDPOINT_TEXT_REASONING : ENDPOINT_TEXT_CONTENT)) {
                endpoint__add_string(d, text, out, kind);
            }
        }
        j = endpoint__skip(d, j);
    }
}

static void responses__walk(const struct endpoint__doc *d, int output, enum endpoint_text_kind kind,
                            struct types__parts *n, struct endpoint_chunk *out)
{
    int count = endpoint__size(d, output);
    int j = output + 1;
    for (int m = 0; m < count; m++) {
        responses__item(d, j, kind, n, out);
        j = endpoint__skip(d, j);
    }
}

/* Non-streaming: AIPerf's precedence is reasoning (with any text) > text > tool calls. */
static void responses__full(const struct endpoint__doc *d, struct endpoint_chunk *out)
{
    int output = endpoint__get(d, 0, "output");
    struct types__parts n = {0};
    endpoint__finish(d, endpoint__get(d, 0, "status"), out);
    if (endpoint__is(d, output, JSMN_ARRAY)) {
        responses__walk(d, output, ENDPOINT_TEXT_CONTENT, &n, NULL);
        struct types__parts ignored = {0};
        if (n.reasoning > 0) {
            responses__walk(d, output, ENDPOINT_TEXT_REASONING, &ignored, out);
        }
        if (n.reasoning > 0 || n.text > 0) {
            responses__walk(d, output, ENDPOINT_TEXT_CONTENT, &ignored, out);
            return;
        }
        if (n.tool > 0) {
            responses__walk(d, output, ENDPOINT_TEXT_TOOL, &ignored, out);
            return;
        }
    }
    endpoint__add_string(d, endpoint__get(d, 0, "output_text"), out, ENDPOINT_TEXT_CONTENT);
}

enum endpoint_parse_status endpoint__read_responses(const struct endpoint__doc *d,
                                                    struct endpoint_parse_state *state,
                                                    struct endpoint_str event_type,
                                                    struct endpoint_chunk *out)
{
    if (!endpoint__is(d, 0, JSMN_OBJECT)) {
        return ENDPOINT_PARSE_ERR_NOT_OBJECT;
    }
    if (endpoint__get(d, 0, "type") >= 0 || event_type.len > 0) {
        out->object = types__event_name(d, event_type);
        return responses__event(d, state, out->object, out);
    }
    int object = endpoint__get(d, 0, "object");
    out->object = endpoint__string(d, object);
    if (!endpoint__str_eq(d, object, "response")) {
        return ENDPOINT_PARSE_IGNORED;
    }
    responses__full(d, out);
    return ENDPOINT_PARSE_OK;
}

/* ---- Anthropic Messages ----------------------------------------------- */

/* Adds the content[] blocks of `kind`; counts every kind into *n. */
static void messages__blocks(const struct endpoint__doc *d, int content,
                             enum endpoint_text_kind kind, struct types__parts *n,
                             struct endpoint_chunk *out)
{
    int count = endpoint__size(d, content);
    int j = content + 1;
    for (int m = 0; m < count && endpoint__is(d, content, JSMN_ARRAY); m++) {
        int type = endpoint__get(d, j, "type");
        if (endpoint__str_eq(d, type, "text") || endpoint__str_eq(d, type, "thinking")) {
            bool thinking = endpoint__str_eq(d, type, "thinking");
            int text = endpoint__get(d, j, thinking ? "thinking" : "text");
            if (endpoint__is(d, text, JSMN_STRING) && endpoint__truthy(d, text)) {
                *(thinking ? &n->reasoning : &n->text) += 1;
                if (out && kind == (thinking ? ENDPOINT_TEXT_REASONING : ENDPOINT_TEXT_CONTENT)) {
                    endpoint__add_string(d, text, out, kind);
                }
            }
        } else if (endpoint__str_eq(d, type, "tool_use")) {
            int name = endpoint__get(d, j, "name");
            int input = endpoint__get(d, j, "input");
            n->tool += endpoint__truthy(d, name) + endpoint__truthy(d, input);
            if (out && kind == ENDPOINT_TEXT_TOOL) {
                endpoint__add_string(d, name, out, kind);
                if (endpoint__truthy(d, input)) {
                    /* AIPerf tokenizes orjson.dumps(input): the JSON text itself. */
                    endpoint__add_text(out, endpoint__outer(d, input), kind, true);
                }
            }
        }
        j = endpoint__skip(d, j);
    }
}

static void messages__full(const struct endpoint__doc *d, struct endpoint_chunk *out)
{
    int content = endpoint__get(d, 0, "content");
    struct types__parts n = {0};
    struct types__parts ignored = {0};
    messages__blocks(d, content, ENDPOINT_TEXT_CONTENT, &n, NULL);
    if (n.reasoning > 0) {
        messages__blocks(d, content, ENDPOINT_TEXT_REASONING, &ignored, out);
    }
    if (n.reasoning > 0 || n.text > 0) {
        messages__blocks(d, content, ENDPOINT_TEXT_CONTENT, &ignored, out);
    } else if (n.tool > 0) {
        messages__blocks(d, content, ENDPOINT_TEXT_TOOL, &ignored, out);
    }
    int stop = endpoint__get(d, 0, "stop_reason");
    if (stop >= 0 && !endpoint__is_null(d, stop)) {
        endpoint__finish(d, stop, out);
    }
}

static void messages__delta(const struct endpoint__doc *d, struct endpoint_chunk *out)
{
    int delta = endpoint__get(d, 0, "delta");
    int type = endpoint__get(d, delta, "type");
    if (endpoint__str_eq(d, type, "text_delta")) {
        endpoint__add_string(d, endpoint__get(d, delta, "text"), out, ENDPOINT_TEXT_CONTENT);
    } else if (endpoint__str_eq(d, type, "thinking_delta")) {
        endpoint__add_string(d, endpoint__get(d, delta, "thinking"), out, ENDPOINT_TEXT_REASONING);
    } else if (endpoint__str_eq(d, type, "input_json_delta")) {
        endpoint__add_string(d, endpoint__get(d, delta, "partial_json"), out, ENDPOINT_TEXT_TOOL);
    }
}

enum endpoint_parse_status endpoint__read_messages(const struct endpoint__doc *d,
                                                   struct endpoint_str event_type,
                                                   struct endpoint_chunk *out)
{
    if (!endpoint__is(d, 0, JSMN_OBJECT)) {
        return ENDPOINT_PARSE_ERR_NOT_OBJECT;
    }
    struct endpoint_str name = types__event_name(d, event_type);
    out->object = name;
    if (name.len == 0) {
        return ENDPOINT_PARSE_IGNORED;
    }
    if (types__name_is(name, "message")) {
        messages__full(d, out);
    } else if (types__name_is(name, "content_block_delta")) {
        messages__delta(d, out);
    } else if (types__name_is(name, "message_start")) {
        endpoint__usage(d, endpoint__get(d, endpoint__get(d, 0, "message"), "usage"), out);
    } else if (types__name_is(name, "message_delta")) {
        int stop = endpoint__get(d, endpoint__get(d, 0, "delta"), "stop_reason");
        if (endpoint__is(d, stop, JSMN_STRING)) {
            endpoint__finish(d, stop, out);
        }
    } else if (types__name_is(name, "message_stop")) {
        endpoint__finish(d, -1, out);
    }
    return ENDPOINT_PARSE_OK;
}

/* ---- Hugging Face TGI ------------------------------------------------- */

enum endpoint_parse_status endpoint__read_tgi(const struct endpoint__doc *d,
                                              struct endpoint_chunk *out)
{
    int root = 0;
    if (endpoint__is(d, 0, JSMN_ARRAY)) {
        root = endpoint__at(d, 0, 0); /* "/" answers [{"generated_text":...}] */
        if (root < 0) {
            return ENDPOINT_PARSE_IGNORED;
        }
    }
    if (!endpoint__is(d, root, JSMN_OBJECT)) {
        return root == 0 ? ENDPOINT_PARSE_ERR_NOT_OBJECT : ENDPOINT_PARSE_IGNORED;
    }
    int token = endpoint__get(d, root, "token");
    int generated = endpoint__get(d, root, "generated_text");
    if (token < 0 && generated < 0) {
        return ENDPOINT_PARSE_IGNORED;
    }
    if (token >= 0) {
        /* Streaming: only token.text; generated_text repeats the whole output. */
        endpoint__add_string(d, endpoint__get(d, token, "text"), out, ENDPOINT_TEXT_CONTENT);
    } else {
        endpoint__add_string(d, generated, out, ENDPOINT_TEXT_CONTENT);
    }
    if (endpoint__is(d, generated, JSMN_STRING)) {
        endpoint__finish(d, endpoint__get(d, endpoint__get(d, root, "details"), "finish_reason"),
                         out);
    }
    return ENDPOINT_PARSE_OK;
}

/* ---- Embeddings and rankings ------------------------------------------ */

/* AIPerf's try_extract_embeddings: data[] whose first item is an "embedding"
 * object, or an "embeddings"/"embedding" list. Returns whether it matched. */
static bool embed__detect(const struct endpoint__doc *d, int obj, size_t *out_count)
{
    int data = endpoint__get(d, obj, "data");
    if (endpoint__str_eq(d, endpoint__get(d, endpoint__at(d, data, 0), "object"), "embedding")) {
        size_t count = 0;
        int j = data + 1;
        for (int m = 0; m < d->tok[data].size; m++) {
            count += endpoint__get(d, j, "embedding") >= 0;
            j = endpoint__skip(d, j);
        }
        *out_count = count;
        return count > 0;
    }
    const char *fields[] = {"embeddings", "embedding"};
    for (size_t k = 0; k < 2; k++) {
        int value = endpoint__get(d, obj, fields[k]);
        int first = endpoint__at(d, value, 0);
        if (endpoint__is_number(d, first)) {
            *out_count = 1;
            return true;
        }
        if (endpoint__is(d, first, JSMN_ARRAY)) {
            *out_count = (size_t)d->tok[value].size;
            return true;
        }
    }
    return false;
}

enum endpoint_parse_status endpoint__read_embeddings(const struct endpoint__doc *d,
                                                     enum endpoint_type t,
                                                     struct endpoint_chunk *out)
{
    if (!endpoint__is(d, 0, JSMN_OBJECT)) {
        return ENDPOINT_PARSE_ERR_NOT_OBJECT;
    }
    out->object = endpoint__string(d, endpoint__get(d, 0, "object"));
    if (t == ENDPOINT_CHAT_EMBEDDINGS) {
        return embed__detect(d, 0, &out->embedding_count) ? ENDPOINT_PARSE_OK
                                                          : ENDPOINT_PARSE_IGNORED;
    }
    /* OpenAI/NIM: every data[] item must be an embedding object. */
    int data = endpoint__get(d, 0, "data");
    if (!endpoint__is(d, data, JSMN_ARRAY)) {
        return ENDPOINT_PARSE_IGNORED;
    }
    size_t count = 0;
    int j = data + 1;
    for (int m = 0; m < d->tok[data].size; m++) {
        if (!endpoint__str_eq(d, endpoint__get(d, j, "object"), "embedding")) {
            return ENDPOINT_PARSE_IGNORED;
        }
        int vec = endpoint__get(d, j, "embedding");
        count += vec >= 0 && !endpoint__is_null(d, vec);
        j = endpoint__skip(d, j);
    }
    out->embedding_count = count;
    return ENDPOINT_PARSE_OK;
}

enum endpoint_parse_status endpoint__read_rankings(const struct endpoint__doc *d,
                                                   enum endpoint_type t, struct endpoint_chunk *out)
{
    int list = -1;
    if (t == ENDPOINT_HF_TEI_RANKINGS && endpoint__is(d, 0, JSMN_ARRAY)) {
        list = 0;
    } else if (!endpoint__is(d, 0, JSMN_OBJECT)) {
        return ENDPOINT_PARSE_ERR_NOT_OBJECT;
    } else {
        list = endpoint__get(d, 0, t == ENDPOINT_NIM_RANKINGS ? "rankings" : "results");
    }
    if (!endpoint__is(d, list, JSMN_ARRAY)) {
        return ENDPOINT_PARSE_IGNORED;
    }
    size_t count = (size_t)d->tok[list].size;
    if (t == ENDPOINT_COHERE_RANKINGS) {
        /* Cohere: items that are not objects are skipped. */
        count = 0;
        int j = list + 1;
        for (int m = 0; m < d->tok[list].size; m++) {
            count += endpoint__is(d, j, JSMN_OBJECT);
            j = endpoint__skip(d, j);
        }
    }
    out->ranking_count = count;
    return ENDPOINT_PARSE_OK;
}

/* ---- raw: response_field, then auto-detection ------------------------- */

/* AIPerf's convert_to_response_data. Returns whether `v` was converted. */
static bool raw__convert(const struct endpoint__doc *d, int v, struct endpoint_chunk *out)
{
    int first = endpoint__at(d, v, 0);
    if (endpoint__is(d, first, JSMN_ARRAY) && endpoint__is_number(d, endpoint__at(d, first, 0))) {
        out->embedding_count = (size_t)d->tok[v].size;
        return true;
    }
    if (endpoint__is_number(d, first)) {
        out->embedding_count = 1;
        return true;
    }
    if (endpoint__is(d, first, JSMN_OBJECT)) {
        out->ranking_count = (size_t)d->tok[v].size;
        return true;
    }
    if (endpoint__is(d, v, JSMN_STRING) && endpoint__truthy(d, v)) {
        endpoint__add_string(d, v, out, ENDPOINT_TEXT_CONTENT);
        return true;
    }
    return false;
}

/* Whether `v` is a non-empty list of strings only. */
static bool raw__string_list(const struct endpoint__doc *d, int v)
{
    int n = endpoint__size(d, v);
    if (!endpoint__is(d, v, JSMN_ARRAY) || n == 0) {
        return false;
    }
    int j = v + 1;
    for (int m = 0; m < n; m++) {
        if (!endpoint__is(d, j, JSMN_STRING)) {
            return false;
        }
        j++;
    }
    return true;
}

/* AIPerf's try_extract_text. */
static void raw__text(const struct endpoint__doc *d, struct endpoint_chunk *out)
{
    const char *fields[] = {"text", "content", "response", "output", "result"};
    for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]); k++) {
        int v = endpoint__get(d, 0, fields[k]);
        if (endpoint__is(d, v, JSMN_STRING)) {
            endpoint__add_string(d, v, out, ENDPOINT_TEXT_CONTENT);
            return;
        }
        if (raw__string_list(d, v)) {
            for (int m = 0; m < d->tok[v].size; m++) {
                endpoint__add_string(d, v + 1 + m, out, ENDPOINT_TEXT_CONTENT);
            }
            return;
        }
    }
    int c0 = endpoint__at(d, endpoint__get(d, 0, "choices"), 0);
    int text = endpoint__get(d, c0, "text");
    int message = endpoint__get(d, endpoint__get(d, c0, "message"), "content");
    int delta = endpoint__get(d, endpoint__get(d, c0, "delta"), "content");
    int pick = endpoint__truthy(d, text) ? text : endpoint__truthy(d, message) ? message : delta;
    endpoint__add_string(d, pick, out, ENDPOINT_TEXT_CONTENT);
}

static int raw__walk(const struct endpoint__doc *d, const struct endpoint_reader *reader)
{
    int v = 0;
    for (size_t k = 0; k < reader->field_step_count && v >= 0; k++) {
        const struct endpoint_field_step *step = &reader->field[k];
        if (step->is_index) {
            v = endpoint__at(d, v, step->index);
            continue;
        }
        char name[ENDPOINT_FIELD_NAME_MAX + 1];
        memcpy(name, step->name, step->name_len);
        name[step->name_len] = '\0';
        v = endpoint__get(d, v, name);
    }
    return v;
}

enum endpoint_parse_status endpoint__read_raw(const struct endpoint__doc *d,
                                              const struct endpoint_reader *reader,
                                              struct endpoint_chunk *out)
{
    if (!endpoint__truthy(d, 0)) {
        /* AIPerf: an empty or falsy JSON value falls back to the body text. */
        endpoint__add_text(out, endpoint__outer(d, 0), ENDPOINT_TEXT_CONTENT, true);
        return ENDPOINT_PARSE_OK;
    }
    if (reader->field_step_count > 0) {
        int v = raw__walk(d, reader);
        if (endpoint__truthy(d, v) && raw__convert(d, v, out)) {
            return ENDPOINT_PARSE_OK;
        }
    }
    if (!endpoint__is(d, 0, JSMN_OBJECT)) {
        return raw__convert(d, 0, out) ? ENDPOINT_PARSE_OK : ENDPOINT_PARSE_IGNORED;
    }
    if (embed__detect(d, 0, &out->embedding_count)) {
        return ENDPOINT_PARSE_OK;
    }
    const char *lists[] = {"rankings", "results"};
    for (size_t k = 0; k < 2; k++) {
        int v = endpoint__get(d, 0, lists[k]);
        if (endpoint__is(d, v, JSMN_ARRAY)) {
            out->ranking_count = (size_t)d->tok[v].size;
            return ENDPOINT_PARSE_OK;
        }
    }
    raw__text(d, out);
    return out->text_count > 0 ? ENDPOINT_PARSE_OK : ENDPOINT_PARSE_IGNORED;
}
