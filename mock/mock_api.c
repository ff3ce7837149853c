/*
 * mock_api.c - response formatting for the routes beyond OpenAI chat/completions: the OpenAI
 * Responses API, the Anthropic Messages API, Hugging Face TGI /generate(_stream), embeddings
 * and the NIM / Cohere / TEI rankings APIs. Shapes follow each API's documented examples; the
 * mock__fmt_* dispatchers in mock_fmt.c call these.
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "mock/mock_internal.h"

static void put_u64_padded(struct mock__buf *b, uint64_t v, size_t width)
{
    char tmp[20];
    struct mock__buf t = {.p = tmp, .cap = sizeof(tmp)};
    mock__buf_u64(&t, v);
    for (size_t i = t.len; i < width; i++) {
        mock__buf_put(b, "0", 1);
    }
    mock__buf_put(b, tmp, t.len);
}

static void put_model(struct mock__buf *b, const struct mock__job *job)
{
    mock__buf_put(b, job->model_json, job->model_json_len);
}

static void put_id(struct mock__buf *b, const struct mock__job *job)
{
    mock__buf_put(b, job->id, job->id_len);
}

static void put_seq(struct mock__buf *b, struct mock__job *job)
{
    mock__buf_str(b, ",\"sequence_number\":");
    mock__buf_u64(b, job->seq++);
}

/* The whole output when it fits the final event, else nothing (see mock.h). */
static bool full_text_fits(const struct mock__job *job)
{
    return mock__words_len(0, job->output_tokens) <= MOCK__FULL_TEXT_BYTES_MAX;
}

/* ---- OpenAI Responses ------------------------------------------------------------------ */

static void responses_object(struct mock__buf *b, const struct mock__job *job, bool done)
{
    mock__buf_str(b, "{\"id\":\"");
    put_id(b, job);
    mock__buf_str(b, "\",\"object\":\"response\",\"created_at\":");
    mock__buf_u64(b, job->created_s);
    mock__buf_str(b, done ? ",\"status\":\"completed\",\"model\":\""
                          : ",\"status\":\"in_progress\",\"model\":\"");
    put_model(b, job);
    mock__buf_str(b, "\",\"output\":[");
}

static void responses_usage(struct mock__buf *b, const struct mock__job *job)
{
    mock__buf_str(b, "\"usage\":{\"input_tokens\":");
    mock__buf_u64(b, job->prompt_tokens);
    mock__buf_str(b, ",\"output_tokens\":");
    mock__buf_u64(b, job->output_tokens);
    mock__buf_str(b, ",\"output_tokens_details\":{\"reasoning_tokens\":0},\"total_tokens\":");
    mock__buf_u64(b, job->prompt_tokens + job->output_tokens);
    if (job->report_cache) {
        mock__buf_str(b, ",\"input_tokens_details\":{\"cached_tokens\":");
        mock__buf_u64(b, job->cached_tokens);
        mock__buf_put(b, "}", 1);
    }
    mock__buf_put(b, "}", 1);
}

/* messages_cache adds Anthropic's cache-read count to a usage object. */
static void messages_cache(struct mock__buf *b, const struct mock__job *job)
{
    if (job->report_cache) {
        mock__buf_str(b, ",\"cache_read_input_tokens\":");
        mock__buf_u64(b, job->cached_tokens);
    }
}

/* `"item_id":"msg_<id>","output_index":0,"content_index":0` */
static void responses_part(struct mock__buf *b, const struct mock__job *job)
{
    mock__buf_str(b, ",\"item_id\":\"msg_");
    put_id(b, job);
    mock__buf_str(b, "\",\"output_index\":0,\"content_index\":0");
}

static void responses_open(struct mock__buf *b, struct mock__job *job)
{
    size_t mark = mock__fmt_chunk_open(b, "response.created");
    mock__buf_str(b, "{\"type\":\"response.created\"");
    put_seq(b, job);
    mock__buf_str(b, ",\"response\":");
    responses_object(b, job, false);
    mock__buf_str(b, "]}}");
    mock__fmt_chunk_close(b, mark);
    mark = mock__fmt_chunk_open(b, "response.output_item.added");
    mock__buf_str(b, "{\"type\":\"response.output_item.added\"");
    put_seq(b, job);
    mock__buf_str(b, ",\"output_index\":0,\"item\":{\"id\":\"msg_");
    put_id(b, job);
    mock__buf_str(b, "\",\"type\":\"message\",\"status\":\"in_progress\",\"role\":\"assistant\","
                     "\"content\":[]}}");
    mock__fmt_chunk_close(b, mark);
    mark = mock__fmt_chunk_open(b, "response.content_part.added");
    mock__buf_str(b, "{\"type\":\"response.content_part.added\"");
    put_seq(b, job);
    responses_part(b, job);
    mock__buf_str(b, ",\"part\":{\"type\":\"output_text\",\"text\":\"\",\"annotations\":[]}}");
    mock__fmt_chunk_close(b, mark);
}

static void responses_tail(struct mock__buf *b, struct mock__job *job)
{
    size_t mark;
    if (full_text_fits(job)) {
        mark = mock__fmt_chunk_open(b, "response.output_text.done");
        mock__buf_str(b, "{\"type\":\"response.output_text.done\"");
        put_seq(b, job);
        responses_part(b, job);
        mock__buf_str(b, ",\"text\":\"");
        mock__fmt_words(b, 0, job->output_tokens);
        mock__buf_str(b, "\"}");
        mock__fmt_chunk_close(b, mark);
    }
    mark = mock__fmt_chunk_open(b, "response.completed");
    mock__buf_str(b, "{\"type\":\"response.completed\"");
    put_seq(b, job);
    mock__buf_str(b, ",\"response\":");
    responses_object(b, job, true);
    mock__buf_str(b, "],");
    responses_usage(b, job);
    mock__buf_str(b, "}}");
    mock__fmt_chunk_close(b, mark);
}

/* ---- Anthropic Messages ---------------------------------------------------------------- */

static const char *messages_stop(const struct mock__job *job)
{
    return job->limit_given ? "max_tokens" : "end_turn";
}

static void messages_head(struct mock__buf *b, const struct mock__job *job)
{
    mock__buf_str(b, "{\"id\":\"");
    put_id(b, job);
    mock__buf_str(b, "\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"");
    put_model(b, job);
    mock__buf_str(b, "\",\"content\":[");
}

static void messages_open(struct mock__buf *b, const struct mock__job *job)
{
    size_t mark = mock__fmt_chunk_open(b, "message_start");
    mock__buf_str(b, "{\"type\":\"message_start\",\"message\":");
    messages_head(b, job);
    mock__buf_str(b, "],\"stop_reason\":null,\"stop_sequence\":null,\"usage\":{\"input_tokens\":");
    mock__buf_u64(b, job->prompt_tokens);
    messages_cache(b, job);
    mock__buf_str(b, ",\"output_tokens\":1}}}");
    mock__fmt_chunk_close(b, mark);
    mark = mock__fmt_chunk_open(b, "content_block_start");
    mock__buf_str(b, "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{"
                     "\"type\":\"text\",\"text\":\"\"}}");
    mock__fmt_chunk_close(b, mark);
    mark = mock__fmt_chunk_open(b, "ping");
    mock__buf_str(b, "{\"type\":\"ping\"}");
    mock__fmt_chunk_close(b, mark);
}

static void messages_tail(struct mock__buf *b, const struct mock__job *job)
{
    size_t mark = mock__fmt_chunk_open(b, "content_block_stop");
    mock__buf_str(b, "{\"type\":\"content_block_stop\",\"index\":0}");
    mock__fmt_chunk_close(b, mark);
    mark = mock__fmt_chunk_open(b, "message_delta");
    mock__buf_str(b, "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"");
    mock__buf_str(b, messages_stop(job));
    mock__buf_str(b, "\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":");
    mock__buf_u64(b, job->output_tokens);
    mock__buf_str(b, "}}");
    mock__fmt_chunk_close(b, mark);
    mark = mock__fmt_chunk_open(b, "message_stop");
    mock__buf_str(b, "{\"type\":\"message_stop\"}");
    mock__fmt_chunk_close(b, mark);
}

/* ---- Hugging Face TGI ------------------------------------------------------------------ */

static const char *tgi_finish(const struct mock__job *job)
{
    return job->limit_given ? "length" : "eos_token";
}

static void tgi_details(struct mock__buf *b, const struct mock__job *job)
{
    mock__buf_str(b, "\"details\":{\"finish_reason\":\"");
    mock__buf_str(b, tgi_finish(job));
    mock__buf_str(b, "\",\"generated_tokens\":");
    mock__buf_u64(b, job->output_tokens);
    mock__buf_str(b, ",\"seed\":null}");
}

/* One /generate_stream event; the one holding the last token also ends the stream. */
static void tgi_event(struct mock__buf *b, const struct mock__job *job, uint32_t first,
                      uint32_t count)
{
    bool last = first + count >= job->output_tokens;
    size_t mark = mock__fmt_chunk_open(b, NULL);
    mock__buf_str(b, "{\"index\":");
    mock__buf_u64(b, (uint64_t)first + count);
    mock__buf_str(b, ",\"token\":{\"id\":");
    mock__buf_u64(b, first);
    mock__buf_str(b, ",\"text\":\"");
    mock__fmt_words(b, first, count);
    mock__buf_str(b, "\",\"logprob\":0.0,\"special\":false},\"generated_text\":");
    if (last) {
        mock__buf_put(b, "\"", 1);
        if (full_text_fits(job)) {
            mock__fmt_words(b, 0, job->output_tokens);
        }
        mock__buf_str(b, "\",");
        tgi_details(b, job);
        mock__buf_put(b, "}", 1);
    } else {
        mock__buf_str(b, "null,\"details\":null}");
    }
    mock__fmt_chunk_close(b, mark);
}

/* ---- Dispatch ---------------------------------------------------------------------------- */

void mock__api_stream_open(struct mock__buf *b, struct mock__job *job)
{
    if (job->route == MOCK__ROUTE_RESPONSES) {
        responses_open(b, job);
    } else if (job->route == MOCK__ROUTE_MESSAGES) {
        messages_open(b, job);
    }
}

void mock__api_token_event(struct mock__buf *b, struct mock__job *job, uint32_t first,
                           uint32_t count)
{
    if (mock__route_service(job->route)) {
        mock__svc_token_event(b, job, first, count);
        return;
    }
    if (mock__route_token_ids(job->route)) {
        mock__tok_event(b, job, first, count);
        return;
    }
    if (job->route == MOCK__ROUTE_GENERATE || job->route == MOCK__ROUTE_GENERATE_STREAM) {
        tgi_event(b, job, first, count);
        return;
    }
    bool responses = job->route == MOCK__ROUTE_RESPONSES;
    size_t mark =
        mock__fmt_chunk_open(b, responses ? "response.output_text.delta" : "content_block_delta");
    if (responses) {
        mock__buf_str(b, "{\"type\":\"response.output_text.delta\"");
        put_seq(b, job);
        responses_part(b, job);
        mock__buf_str(b, ",\"delta\":\"");
        mock__fmt_words(b, first, count);
        mock__buf_str(b, "\"}");
    } else {
        mock__buf_str(b, "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":"
                         "\"text_delta\",\"text\":\"");
        mock__fmt_words(b, first, count);
        mock__buf_str(b, "\"}}");
    }
    mock__fmt_chunk_close(b, mark);
}

void mock__api_stream_tail(struct mock__buf *b, struct mock__job *job)
{
    if (job->route == MOCK__ROUTE_RESPONSES) {
        responses_tail(b, job);
    } else if (job->route == MOCK__ROUTE_MESSAGES) {
        messages_tail(b, job);
    } else if (mock__route_token_ids(job->route)) {
        mock__tok_stream_tail(b, job);
    } else if (job->output_tokens == 0 && !mock__route_service(job->route)) {
        tgi_event(b, job, 0, 0); /* TGI: the end marker without a token of its own */
    }
}

void mock__api_body_prefix(struct mock__buf *b, const struct mock__job *job)
{
    if (mock__route_service(job->route)) {
        mock__svc_body_prefix(b, job);
        return;
    }
    if (mock__route_token_ids(job->route)) {
        mock__tok_body_prefix(b, job);
        return;
    }
    switch (job->route) {
    case MOCK__ROUTE_RESPONSES:
        responses_object(b, job, true);
        mock__buf_str(b, "{\"type\":\"message\",\"id\":\"msg_");
        put_id(b, job);
        mock__buf_str(b, "\",\"status\":\"completed\",\"role\":\"assistant\",\"content\":[{"
                         "\"type\":\"output_text\",\"annotations\":[],\"text\":\"");
        break;
    case MOCK__ROUTE_MESSAGES:
        messages_head(b, job);
        mock__buf_str(b, "{\"type\":\"text\",\"text\":\"");
        break;
    case MOCK__ROUTE_EMBEDDINGS:
        mock__buf_str(b, "{\"object\":\"list\",\"data\":[");
        break;
    case MOCK__ROUTE_NIM_RANKING:
        mock__buf_str(b, "{\"rankings\":[");
        break;
    case MOCK__ROUTE_COHERE_RERANK:
        mock__buf_str(b, "{\"id\":\"");
        put_id(b, job);
        mock__buf_str(b, "\",\"results\":[");
        break;
    case MOCK__ROUTE_TEI_RERANK:
        mock__buf_put(b, "[", 1);
        break;
    default: /* TGI */
        mock__buf_str(b, "{\"generated_text\":\"");
        break;
    }
}

void mock__api_body_suffix(struct mock__buf *b, const struct mock__job *job)
{
    if (mock__route_service(job->route)) {
        mock__svc_body_suffix(b, job);
        return;
    }
    if (mock__route_token_ids(job->route)) {
        mock__tok_body_suffix(b, job);
        return;
    }
    switch (job->route) {
    case MOCK__ROUTE_RESPONSES:
        mock__buf_str(b, "\"}]}],");
        responses_usage(b, job);
        mock__buf_put(b, "}", 1);
        break;
    case MOCK__ROUTE_MESSAGES:
        mock__buf_str(b, "\"}],\"stop_reason\":\"");
        mock__buf_str(b, messages_stop(job));
        mock__buf_str(b, "\",\"stop_sequence\":null,\"usage\":{\"input_tokens\":");
        mock__buf_u64(b, job->prompt_tokens);
        messages_cache(b, job);
        mock__buf_str(b, ",\"output_tokens\":");
        mock__buf_u64(b, job->output_tokens);
        mock__buf_str(b, "}}");
        break;
    case MOCK__ROUTE_EMBEDDINGS:
        mock__buf_str(b, "],\"model\":\"");
        put_model(b, job);
        mock__buf_str(b, "\",\"usage\":{\"prompt_tokens\":");
        mock__buf_u64(b, job->prompt_tokens);
        mock__buf_str(b, ",\"total_tokens\":");
        mock__buf_u64(b, job->prompt_tokens);
        mock__buf_str(b, "}}");
        break;
    case MOCK__ROUTE_NIM_RANKING:
        mock__buf_str(b, "]}");
        break;
    case MOCK__ROUTE_COHERE_RERANK:
        mock__buf_str(b, "],\"meta\":{\"api_version\":{\"version\":\"2\"},\"billed_units\":{"
                         "\"search_units\":1}}}");
        break;
    case MOCK__ROUTE_TEI_RERANK:
        mock__buf_put(b, "]", 1);
        break;
    default: /* TGI */
        mock__buf_str(b, "\",");
        tgi_details(b, job);
        mock__buf_put(b, "}", 1);
        break;
    }
}

/* Scores fall with the index, so every list is already in ranked order. */
static void put_score(struct mock__buf *b, uint32_t i)
{
    mock__buf_str(b, "0.");
    put_u64_padded(b, 999999u / ((uint64_t)i + 1), 6);
}

void mock__api_unit(struct mock__buf *b, const struct mock__job *job, uint32_t i)
{
    if (mock__route_token_ids(job->route)) {
        mock__tok_unit(b, i);
        return;
    }
    if (i > 0) {
        mock__buf_put(b, ",", 1);
    }
    mock__buf_str(b, "{\"index\":");
    mock__buf_u64(b, i);
    if (mock__route_service(job->route)) {
        mock__svc_unit(b, job);
        return;
    }
    switch (job->route) {
    case MOCK__ROUTE_EMBEDDINGS:
        mock__buf_str(b, ",\"object\":\"embedding\",\"embedding\":[");
        for (uint32_t j = 0; j < MOCK__EMBEDDING_DIMS; j++) {
            mock__buf_str(b, j == 0 ? "" : ",");
            mock__buf_str(b, (j & 1) ? "-0." : "0.");
            put_u64_padded(b, ((uint64_t)i * 7919u + (uint64_t)j * 104729u) % 10000u, 4);
        }
        mock__buf_str(b, "]}");
        break;
    case MOCK__ROUTE_NIM_RANKING:
        mock__buf_str(b, ",\"logit\":-");
        mock__buf_u64(b, i);
        mock__buf_str(b, ".5}");
        break;
    case MOCK__ROUTE_COHERE_RERANK:
        mock__buf_str(b, ",\"relevance_score\":");
        put_score(b, i);
        mock__buf_put(b, "}", 1);
        break;
    default:
        mock__buf_str(b, ",\"score\":");
        put_score(b, i);
        mock__buf_put(b, "}", 1);
        break;
    }
}
