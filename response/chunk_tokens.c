/*
 * chunk_tokens.c - reading the replies of the token-id endpoints, as AIPerf's
 * parse_response for sglang_generate.py and vllm_generate.py: the output is a
 * count of token ids, not text.
 */
#include "response/response_json.h"

/* tokens__ids counts the elements of list token `arr` when every one is an
 * integer (JSON true/false are not), as AIPerf's check; false otherwise. */
static bool tokens__ids(const struct response__doc *d, int arr, size_t *out)
{
    if (!response__is(d, arr, JSMN_ARRAY)) {
        return false;
    }
    int j = arr + 1;
    for (int k = 0; k < d->tok[arr].size; k++) {
        int64_t id;
        if (!response__int(d, j, &id)) {
            return false;
        }
        j = response__skip(d, j);
    }
    *out = (size_t)d->tok[arr].size;
    return true;
}

/* sglang_generate: one event (or a whole body) carries "output_ids", the ids
 * generated since the last event (AIPerf adds them up, which is right for a
 * server run with --incremental-streaming-output; without it SGLang repeats
 * every id so far), and "meta_info", whose prompt_tokens and completion_tokens
 * are the usage and whose non-null finish_reason ends the stream. Output ids
 * that are not all integers make the event carry nothing, as AIPerf's. */
enum response_parse_status response__read_sglang(const struct response__doc *d,
                                                 struct response_chunk *out)
{
    if (!response__is(d, 0, JSMN_OBJECT)) {
        return RESPONSE_PARSE_ERR_NOT_OBJECT;
    }
    int ids = response__get(d, 0, "output_ids");
    size_t count = 0;
    if (ids >= 0 && !tokens__ids(d, ids, &count)) {
        return RESPONSE_PARSE_IGNORED;
    }
    int meta = response__get(d, 0, "meta_info");
    response__usage(d, meta, out);
    struct record_usage *u = &out->usage;
    if (u->present && u->total_tokens == RECORD_ABSENT && u->prompt_tokens != RECORD_ABSENT &&
        u->completion_tokens != RECORD_ABSENT) {
        u->total_tokens = u->prompt_tokens + u->completion_tokens;
    }
    int finish = response__get(d, meta, "finish_reason");
    if (finish >= 0 && !response__is_null(d, finish)) {
        response__finish(d, response__get(d, finish, "type"), out);
    }
    out->token_id_count = count;
    return count > 0 || u->present ? RESPONSE_PARSE_OK : RESPONSE_PARSE_IGNORED;
}

/* vllm_generate: a whole body whose choices[0].token_ids are the output; the
 * usage is what AIPerf rebuilds, completion_tokens the ids' count (the prompt's
 * count is the request's, which the metrics already hold). */
enum response_parse_status response__read_vllm(const struct response__doc *d,
                                               struct response_chunk *out)
{
    if (!response__is(d, 0, JSMN_OBJECT)) {
        return RESPONSE_PARSE_ERR_NOT_OBJECT;
    }
    int choice = response__at(d, response__get(d, 0, "choices"), 0);
    size_t count = 0;
    if (!response__is(d, choice, JSMN_OBJECT) ||
        !tokens__ids(d, response__get(d, choice, "token_ids"), &count)) {
        return RESPONSE_PARSE_IGNORED;
    }
    out->usage.present = true;
    out->usage.completion_tokens = (int64_t)count;
    int finish = response__get(d, choice, "finish_reason");
    if (finish >= 0 && !response__is_null(d, finish)) {
        response__finish(d, finish, out);
    }
    out->token_id_count = count;
    return RESPONSE_PARSE_OK;
}
