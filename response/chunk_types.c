/*
 * chunk_types.c - reading the response shapes of the endpoint types other
 * than chat/completions from a validated token tree: OpenAI Responses,
 * Anthropic Messages, Hugging Face TGI, embeddings, rankings and raw
 * auto-detection. Each follows the matching AIPerf endpoint's parse_response.
 */
#include <string.h>

#include "response/response_json.h"

static bool types__name_is(struct response_str name, const char *want)
{
    size_t n = strlen(want);
    return name.len == n && memcmp(name.ptr, want, n) == 0;
}

/* The event name: the JSON "type" when there is one, else the SSE event name. */
static struct response_str types__event_name(const struct response__doc *d,
                                             struct response_str event_type)
{
    int type = response__get(d, 0, "type");
    return type >= 0 ? response__string(d, type) : event_type;
}

/* ---- Responses --------------------------------------------------------- */

static int64_t types__index(const struct response__doc *d, const char *key)
{
    int64_t v;
    return response__int(d, response__get(d, 0, key), &v) ? v : -1;
}

/* Returns whether this event's (output_index, content_index) part already
 * streamed deltas; with `remember`, records it as having done so. */
static bool responses__part_seen(const struct response__doc *d, struct response_parse_state *state,
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
    if (state->part_count == RESPONSE_STREAM_PARTS_MAX) {
        state->part_overflow = true;
    } else {
        state->part_output_index[state->part_count] = out_i;
        state->part_content_index[state->part_count] = content_i;
        state->part_count++;
    }
    return false;
}

static void responses__terminal(const struct response__doc *d, bool incomplete,
                                struct response_chunk *out)
{
    int resp = response__get(d, 0, "response");
    response__usage(d, response__get(d, resp, "usage"), out);
    int reason = response__get(d, resp, "status");
    if (incomplete) {
        int details = response__get(d, response__get(d, resp, "incomplete_details"), "reason");
        reason = response__is(d, details, JSMN_STRING) ? details : reason;
    }
    response__finish(d, reason, out);
}

static enum response_parse_status responses__event(const struct response__doc *d,
                                                   struct response_parse_state *state,
                                                   struct response_str name,
                                                   struct response_chunk *out)
{
    int delta = response__get(d, 0, "delta");
    if (types__name_is(name, "response.output_text.delta")) {
        response__add_string(d, delta, out, RESPONSE_TEXT_CONTENT);
        if (out->text_count > 0) {
            (void)responses__part_seen(d, state, true);
        }
    } else if (types__name_is(name, "response.reasoning_text.delta")) {
        response__add_string(d, delta, out, RESPONSE_TEXT_REASONING);
    } else if (types__name_is(name, "response.function_call_arguments.delta")) {
        response__add_string(d, delta, out, RESPONSE_TEXT_TOOL);
    } else if (types__name_is(name, "response.output_text.done")) {
        int text = response__get(d, 0, "text");
        if (!response__truthy(d, text)) {
            return RESPONSE_PARSE_OK;
        }
        if (responses__part_seen(d, state, false)) {
            out->is_content = true; /* AIPerf keeps its timestamp, drops the duplicate text */
        } else {
            response__add_string(d, text, out, RESPONSE_TEXT_CONTENT);
        }
    } else if (types__name_is(name, "response.completed")) {
        responses__terminal(d, false, out);
    } else if (types__name_is(name, "response.incomplete")) {
        responses__terminal(d, true, out);
    } else if (types__name_is(name, "response.failed")) {
        int resp = response__get(d, 0, "response");
        int err = response__get(d, resp, "error");
        response__error(d, response__truthy(d, err) ? err : resp >= 0 ? resp : 0, out);
        return RESPONSE_PARSE_ERROR;
    }
    return RESPONSE_PARSE_OK;
}

struct types__parts {
    int reasoning, text, tool; /* pieces found per kind */
};

/* Adds the pieces of one output[] item of `kind` (or counts them when
 * out is NULL). */
static void responses__item(const struct response__doc *d, int item, enum response_text_kind kind,
                            struct types__parts *n, struct response_chunk *out)
{
    int type = response__get(d, item, "type");
    bool reasoning = response__str_eq(d, type, "reasoning");
    bool message = response__str_eq(d, type, "message");
    if (response__str_eq(d, type, "function_call")) {
        int name = response__get(d, item, "name");
        int args = response__get(d, item, "arguments");
        n->tool += response__truthy(d, name) + response__truthy(d, args);
        if (out && kind == RESPONSE_TEXT_TOOL) {
            response__add_string(d, name, out, kind);
            response__add_string(d, args, out, kind);
        }
        return;
    }
    if (!reasoning && !message) {
        return;
    }
    int parts = response__get(d, item, reasoning ? "summary" : "content");
    const char *part_type = reasoning ? "summary_text" : "output_text";
    int count = response__is(d, parts, JSMN_ARRAY) ? d->tok[parts].size : 0;
    int j = parts + 1;
    for (int m = 0; m < count; m++) {
        int text = response__get(d, j, "text");
        if (response__str_eq(d, response__get(d, j, "type"), part_type) &&
            response__truthy(d, text) && response__is(d, text, JSMN_STRING)) {
            *(reasoning ? &n->reasoning : &n->text) += 1;
            if (out && kind == (reasoning ? RESPONSE_TEXT_REASONING : RESPONSE_TEXT_CONTENT)) {
                response__add_string(d, text, out, kind);
            }
        }
        j = response__skip(d, j);
    }
}

static void responses__walk(const struct response__doc *d, int output, enum response_text_kind kind,
                            struct types__parts *n, struct response_chunk *out)
{
    int count = response__size(d, output);
    int j = output + 1;
    for (int m = 0; m < count; m++) {
        responses__item(d, j, kind, n, out);
        j = response__skip(d, j);
    }
}

/* Non-streaming: AIPerf's precedence is reasoning (with any text) > text > tool calls. */
static void responses__full(const struct response__doc *d, struct response_chunk *out)
{
    int output = response__get(d, 0, "output");
    struct types__parts n = {0};
    response__finish(d, response__get(d, 0, "status"), out);
    if (response__is(d, output, JSMN_ARRAY)) {
        responses__walk(d, output, RESPONSE_TEXT_CONTENT, &n, NULL);
        struct types__parts ignored = {0};
        if (n.reasoning > 0) {
            responses__walk(d, output, RESPONSE_TEXT_REASONING, &ignored, out);
        }
        if (n.reasoning > 0 || n.text > 0) {
            responses__walk(d, output, RESPONSE_TEXT_CONTENT, &ignored, out);
            return;
        }
        if (n.tool > 0) {
            responses__walk(d, output, RESPONSE_TEXT_TOOL, &ignored, out);
            return;
        }
    }
    response__add_string(d, response__get(d, 0, "output_text"), out, RESPONSE_TEXT_CONTENT);
}

enum response_parse_status response__read_responses(const struct response__doc *d,
                                                    struct response_parse_state *state,
                                                    struct response_str event_type,
                                                    struct response_chunk *out)
{
    if (!response__is(d, 0, JSMN_OBJECT)) {
        return RESPONSE_PARSE_ERR_NOT_OBJECT;
    }
    if (response__get(d, 0, "type") >= 0 || event_type.len > 0) {
        out->object = types__event_name(d, event_type);
        return responses__event(d, state, out->object, out);
    }
    int object = response__get(d, 0, "object");
    out->object = response__string(d, object);
    if (!response__str_eq(d, object, "response")) {
        return RESPONSE_PARSE_IGNORED;
    }
    responses__full(d, out);
    return RESPONSE_PARSE_OK;
}

/* ---- Anthropic Messages ----------------------------------------------- */

/* Adds the content[] blocks of `kind`; counts every kind into *n. */
static void messages__blocks(const struct response__doc *d, int content,
                             enum response_text_kind kind, struct types__parts *n,
                             struct response_chunk *out)
{
    int count = response__size(d, content);
    int j = content + 1;
    for (int m = 0; m < count && response__is(d, content, JSMN_ARRAY); m++) {
        int type = response__get(d, j, "type");
        if (response__str_eq(d, type, "text") || response__str_eq(d, type, "thinking")) {
            bool thinking = response__str_eq(d, type, "thinking");
            int text = response__get(d, j, thinking ? "thinking" : "text");
            if (response__is(d, text, JSMN_STRING) && response__truthy(d, text)) {
                *(thinking ? &n->reasoning : &n->text) += 1;
                if (out && kind == (thinking ? RESPONSE_TEXT_REASONING : RESPONSE_TEXT_CONTENT)) {
                    response__add_string(d, text, out, kind);
                }
            }
        } else if (response__str_eq(d, type, "tool_use")) {
            int name = response__get(d, j, "name");
            int input = response__get(d, j, "input");
            n->tool += response__truthy(d, name) + response__truthy(d, input);
            if (out && kind == RESPONSE_TEXT_TOOL) {
                response__add_string(d, name, out, kind);
                if (response__truthy(d, input)) {
                    /* AIPerf tokenizes orjson.dumps(input): the JSON text itself. */
                    response__add_text(out, response__outer(d, input), kind, true);
                }
            }
        }
        j = response__skip(d, j);
    }
}

static void messages__full(const struct response__doc *d, struct response_chunk *out)
{
    int content = response__get(d, 0, "content");
    struct types__parts n = {0};
    struct types__parts ignored = {0};
    messages__blocks(d, content, RESPONSE_TEXT_CONTENT, &n, NULL);
    if (n.reasoning > 0) {
        messages__blocks(d, content, RESPONSE_TEXT_REASONING, &ignored, out);
    }
    if (n.reasoning > 0 || n.text > 0) {
        messages__blocks(d, content, RESPONSE_TEXT_CONTENT, &ignored, out);
    } else if (n.tool > 0) {
        messages__blocks(d, content, RESPONSE_TEXT_TOOL, &ignored, out);
    }
    int stop = response__get(d, 0, "stop_reason");
    if (stop >= 0 && !response__is_null(d, stop)) {
        response__finish(d, stop, out);
    }
}

static void messages__delta(const struct response__doc *d, struct response_chunk *out)
{
    int delta = response__get(d, 0, "delta");
    int type = response__get(d, delta, "type");
    if (response__str_eq(d, type, "text_delta")) {
        response__add_string(d, response__get(d, delta, "text"), out, RESPONSE_TEXT_CONTENT);
    } else if (response__str_eq(d, type, "thinking_delta")) {
        response__add_string(d, response__get(d, delta, "thinking"), out, RESPONSE_TEXT_REASONING);
    } else if (response__str_eq(d, type, "input_json_delta")) {
        response__add_string(d, response__get(d, delta, "partial_json"), out, RESPONSE_TEXT_TOOL);
    }
}

enum response_parse_status response__read_messages(const struct response__doc *d,
                                                   struct response_str event_type,
                                                   struct response_chunk *out)
{
    if (!response__is(d, 0, JSMN_OBJECT)) {
        return RESPONSE_PARSE_ERR_NOT_OBJECT;
    }
    struct response_str name = types__event_name(d, event_type);
    out->object = name;
    if (name.len == 0) {
        return RESPONSE_PARSE_IGNORED;
    }
    if (types__name_is(name, "message")) {
        messages__full(d, out);
    } else if (types__name_is(name, "content_block_delta")) {
        messages__delta(d, out);
    } else if (types__name_is(name, "message_start")) {
        response__usage(d, response__get(d, response__get(d, 0, "message"), "usage"), out);
    } else if (types__name_is(name, "message_delta")) {
        int stop = response__get(d, response__get(d, 0, "delta"), "stop_reason");
        if (response__is(d, stop, JSMN_STRING)) {
            response__finish(d, stop, out);
        }
    } else if (types__name_is(name, "message_stop")) {
        response__finish(d, -1, out);
    }
    return RESPONSE_PARSE_OK;
}

/* ---- Hugging Face TGI ------------------------------------------------- */

enum response_parse_status response__read_tgi(const struct response__doc *d,
                                              struct response_chunk *out)
{
    int root = 0;
    if (response__is(d, 0, JSMN_ARRAY)) {
        root = response__at(d, 0, 0); /* "/" answers [{"generated_text":...}] */
        if (root < 0) {
            return RESPONSE_PARSE_IGNORED;
        }
    }
    if (!response__is(d, root, JSMN_OBJECT)) {
        return root == 0 ? RESPONSE_PARSE_ERR_NOT_OBJECT : RESPONSE_PARSE_IGNORED;
    }
    int token = response__get(d, root, "token");
    int generated = response__get(d, root, "generated_text");
    if (token < 0 && generated < 0) {
        return RESPONSE_PARSE_IGNORED;
    }
    if (token >= 0) {
        /* Streaming: only token.text; generated_text repeats the whole output. */
        response__add_string(d, response__get(d, token, "text"), out, RESPONSE_TEXT_CONTENT);
    } else {
        response__add_string(d, generated, out, RESPONSE_TEXT_CONTENT);
    }
    if (response__is(d, generated, JSMN_STRING)) {
        response__finish(d, response__get(d, response__get(d, root, "details"), "finish_reason"),
                         out);
    }
    return RESPONSE_PARSE_OK;
}

/* ---- Embeddings and rankings ------------------------------------------ */

/* AIPerf's try_extract_embeddings: data[] whose first item is an "embedding"
 * object, or an "embeddings"/"embedding" list. Returns whether it matched. */
static bool embed__detect(const struct response__doc *d, int obj, size_t *out_count)
{
    int data = response__get(d, obj, "data");
    if (response__str_eq(d, response__get(d, response__at(d, data, 0), "object"), "embedding")) {
        size_t count = 0;
        int j = data + 1;
        for (int m = 0; m < d->tok[data].size; m++) {
            count += response__get(d, j, "embedding") >= 0;
            j = response__skip(d, j);
        }
        *out_count = count;
        return count > 0;
    }
    const char *fields[] = {"embeddings", "embedding"};
    for (size_t k = 0; k < 2; k++) {
        int value = response__get(d, obj, fields[k]);
        int first = response__at(d, value, 0);
        if (response__is_number(d, first)) {
            *out_count = 1;
            return true;
        }
        if (response__is(d, first, JSMN_ARRAY)) {
            *out_count = (size_t)d->tok[value].size;
            return true;
        }
    }
    return false;
}

enum response_parse_status response__read_embeddings(const struct response__doc *d,
                                                     enum endpoint_type t,
                                                     struct response_chunk *out)
{
    if (!response__is(d, 0, JSMN_OBJECT)) {
        return RESPONSE_PARSE_ERR_NOT_OBJECT;
    }
    out->object = response__string(d, response__get(d, 0, "object"));
    if (t == ENDPOINT_CHAT_EMBEDDINGS) {
        return embed__detect(d, 0, &out->embedding_count) ? RESPONSE_PARSE_OK
                                                          : RESPONSE_PARSE_IGNORED;
    }
    /* OpenAI/NIM: every data[] item must be an embedding object. */
    int data = response__get(d, 0, "data");
    if (!response__is(d, data, JSMN_ARRAY)) {
        return RESPONSE_PARSE_IGNORED;
    }
    size_t count = 0;
    int j = data + 1;
    for (int m = 0; m < d->tok[data].size; m++) {
        if (!response__str_eq(d, response__get(d, j, "object"), "embedding")) {
            return RESPONSE_PARSE_IGNORED;
        }
        int vec = response__get(d, j, "embedding");
        count += vec >= 0 && !response__is_null(d, vec);
        j = response__skip(d, j);
    }
    out->embedding_count = count;
    return RESPONSE_PARSE_OK;
}

enum response_parse_status response__read_rankings(const struct response__doc *d,
                                                   enum endpoint_type t, struct response_chunk *out)
{
    int list = -1;
    if (t == ENDPOINT_HF_TEI_RANKINGS && response__is(d, 0, JSMN_ARRAY)) {
        list = 0;
    } else if (!response__is(d, 0, JSMN_OBJECT)) {
        return RESPONSE_PARSE_ERR_NOT_OBJECT;
    } else {
        list = response__get(d, 0, t == ENDPOINT_NIM_RANKINGS ? "rankings" : "results");
    }
    if (!response__is(d, list, JSMN_ARRAY)) {
        return RESPONSE_PARSE_IGNORED;
    }
    size_t count = (size_t)d->tok[list].size;
    if (t == ENDPOINT_COHERE_RANKINGS) {
        /* Cohere: items that are not objects are skipped. */
        count = 0;
        int j = list + 1;
        for (int m = 0; m < d->tok[list].size; m++) {
            count += response__is(d, j, JSMN_OBJECT);
            j = response__skip(d, j);
        }
    }
    out->ranking_count = count;
    return RESPONSE_PARSE_OK;
}

/* ---- raw and template: response_field, then auto-detection ------------ */

/* Whether `v` is a non-empty list of strings only. */
static bool raw__string_list(const struct response__doc *d, int v)
{
    int n = response__size(d, v);
    if (!response__is(d, v, JSMN_ARRAY) || n == 0) {
        return false;
    }
    int j = v + 1;
    for (int m = 0; m < n; m++) {
        if (!response__is(d, j, JSMN_STRING)) {
            return false;
        }
        j++;
    }
    return true;
}

/* AIPerf's try_extract_text. */
static void raw__text(const struct response__doc *d, struct response_chunk *out)
{
    const char *fields[] = {"text", "content", "response", "output", "result"};
    for (size_t k = 0; k < sizeof(fields) / sizeof(fields[0]); k++) {
        int v = response__get(d, 0, fields[k]);
        if (response__is(d, v, JSMN_STRING)) {
            response__add_string(d, v, out, RESPONSE_TEXT_CONTENT);
            return;
        }
        if (raw__string_list(d, v)) {
            for (int m = 0; m < d->tok[v].size; m++) {
                response__add_string(d, v + 1 + m, out, RESPONSE_TEXT_CONTENT);
            }
            return;
        }
    }
    int c0 = response__at(d, response__get(d, 0, "choices"), 0);
    int text = response__get(d, c0, "text");
    int message = response__get(d, response__get(d, c0, "message"), "content");
    int delta = response__get(d, response__get(d, c0, "delta"), "content");
    int pick = response__truthy(d, text) ? text : response__truthy(d, message) ? message : delta;
    response__add_string(d, pick, out, RESPONSE_TEXT_CONTENT);
}

enum response_parse_status response__read_raw(const struct response__doc *d,
                                              const struct response_reader *reader,
                                              struct response_scratch *scratch,
                                              struct response_chunk *out)
{
    if (!response__truthy(d, 0)) {
        /* AIPerf: an empty or falsy JSON value falls back to the body text. */
        response__add_text(out, response__outer(d, 0), RESPONSE_TEXT_CONTENT, true);
        return RESPONSE_PARSE_OK;
    }
    if (reader->field != NULL) {
        enum response_parse_status st = response__field(d, reader->field, 0, scratch, out);
        /* AIPerf's template endpoint is strict: a miss is no response, not a guess. */
        if (st != RESPONSE_PARSE_IGNORED || reader->type == ENDPOINT_TEMPLATE) {
            return st;
        }
    }
    if (!response__is(d, 0, JSMN_OBJECT)) {
        return response__field(d, NULL, 0, NULL, out);
    }
    if (embed__detect(d, 0, &out->embedding_count)) {
        return RESPONSE_PARSE_OK;
    }
    const char *lists[] = {"rankings", "results"};
    for (size_t k = 0; k < 2; k++) {
        int v = response__get(d, 0, lists[k]);
        if (response__is(d, v, JSMN_ARRAY)) {
            out->ranking_count = (size_t)d->tok[v].size;
            return RESPONSE_PARSE_OK;
        }
    }
    raw__text(d, out);
    return out->text_count > 0 ? RESPONSE_PARSE_OK : RESPONSE_PARSE_IGNORED;
}
