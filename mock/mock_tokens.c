/*
 * mock_tokens.c - the token-id routes: SGLang's native /generate (a body with "input_ids";
 * without it /generate is TGI's) and vLLM's /inference/v1/generate. Their output is token ids:
 * id MOCK__TOKEN_ID_BASE + i for output unit i, whose text is word i.
 *
 * SGLang streams one event per chunk of tokens with the ids of that chunk ("output_ids", as a
 * server run with --incremental-streaming-output sends them), the text so far ("text",
 * cumulative as SGLang's; empty once longer than MOCK__FULL_TEXT_BYTES_MAX) and "meta_info"
 * (prompt_tokens, completion_tokens so far, finish_reason null until the last event), then
 * "data: [DONE]". Its whole body carries the ids and the final meta_info, without the text.
 * vLLM answers {"request_id", "choices":[{"index":0,"token_ids":[...],"finish_reason"}]}.
 */
#include <stdbool.h>
#include <stdint.h>

#include "mock/mock_internal.h"

/* MOCK__TOKEN_ID_BASE is the id of output unit 0. */
#define MOCK__TOKEN_ID_BASE 1000

bool mock__route_token_ids(enum mock__route route)
{
    return route == MOCK__ROUTE_SGLANG_GENERATE || route == MOCK__ROUTE_VLLM_GENERATE;
}

static void put_ids(struct mock__buf *b, uint32_t first, uint32_t count)
{
    for (uint32_t i = first; i < first + count; i++) {
        if (i > first) {
            mock__buf_put(b, ",", 1);
        }
        mock__buf_u64(b, MOCK__TOKEN_ID_BASE + (uint64_t)i);
    }
}

/* SGLang's meta_info after `done` tokens; the finish reason only once all are out. */
static void sglang_meta(struct mock__buf *b, const struct mock__job *job, uint32_t done)
{
    mock__buf_str(b, "\"meta_info\":{\"id\":\"");
    mock__buf_put(b, job->id, job->id_len);
    mock__buf_str(b, "\",\"finish_reason\":");
    if (done < job->output_tokens) {
        mock__buf_str(b, "null");
    } else if (job->limit_given) {
        mock__buf_str(b, "{\"type\":\"length\",\"length\":");
        mock__buf_u64(b, job->output_tokens);
        mock__buf_put(b, "}", 1);
    } else {
        mock__buf_str(b, "{\"type\":\"stop\",\"matched\":2}");
    }
    mock__buf_str(b, ",\"prompt_tokens\":");
    mock__buf_u64(b, job->prompt_tokens);
    mock__buf_str(b, ",\"completion_tokens\":");
    mock__buf_u64(b, done);
    mock__buf_str(b, ",\"cached_tokens\":");
    mock__buf_u64(b, job->cached_tokens);
    mock__buf_put(b, "}", 1);
}

void mock__tok_event(struct mock__buf *b, struct mock__job *job, uint32_t first, uint32_t count)
{
    uint32_t done = first + count;
    size_t mark = mock__fmt_chunk_open(b, NULL);
    mock__buf_str(b, "{\"text\":\"");
    if (mock__words_len(0, done) <= MOCK__FULL_TEXT_BYTES_MAX) {
        mock__fmt_words(b, 0, done);
    }
    mock__buf_str(b, "\",\"output_ids\":[");
    put_ids(b, first, count);
    mock__buf_str(b, "],");
    sglang_meta(b, job, done);
    mock__buf_put(b, "}", 1);
    mock__fmt_chunk_close(b, mark);
}

void mock__tok_stream_tail(struct mock__buf *b, struct mock__job *job)
{
    if (job->output_tokens == 0) {
        mock__tok_event(b, job, 0, 0); /* the finish reason without a token of its own */
    }
    size_t mark = mock__fmt_chunk_open(b, NULL);
    mock__buf_str(b, "[DONE]");
    mock__fmt_chunk_close(b, mark);
}

void mock__tok_body_prefix(struct mock__buf *b, const struct mock__job *job)
{
    if (job->route == MOCK__ROUTE_SGLANG_GENERATE) {
        mock__buf_str(b, "{\"output_ids\":[");
        return;
    }
    mock__buf_str(b, "{\"request_id\":\"");
    mock__buf_put(b, job->id, job->id_len);
    mock__buf_str(b, "\",\"choices\":[{\"index\":0,\"logprobs\":null,\"finish_reason\":\"");
    mock__buf_str(b, job->limit_given ? "length" : "stop");
    mock__buf_str(b, "\",\"token_ids\":[");
}

void mock__tok_body_suffix(struct mock__buf *b, const struct mock__job *job)
{
    if (job->route == MOCK__ROUTE_SGLANG_GENERATE) {
        mock__buf_str(b, "],");
        sglang_meta(b, job, job->output_tokens);
        mock__buf_put(b, "}", 1);
        return;
    }
    mock__buf_str(b, "]}],\"prompt_logprobs\":null,\"kv_transfer_params\":null}");
}

void mock__tok_unit(struct mock__buf *b, uint32_t i)
{
    if (i > 0) {
        mock__buf_put(b, ",", 1);
    }
    mock__buf_u64(b, MOCK__TOKEN_ID_BASE + (uint64_t)i);
}
