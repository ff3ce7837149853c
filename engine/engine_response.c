/*
 * engine_response.c - reading a response: HTTP framing, then SSE events (or a
 * whole body), then the endpoint's JSON, into the request's record.
 *
 * Every view here points into a receive buffer that is recycled when the read
 * has been handled, so whatever the record keeps (text, usage) is copied out.
 */
#include "engine/engine_conn.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static void append_body(struct engine__conn *c, const char *data, size_t len)
{
    size_t room = c->body_cap - c->body_len;
    if (len > room) {
        len = room;
        c->body_truncated = true;
    }
    memcpy(c->body + c->body_len, data, len);
    c->body_len += len;
}

static void add_event(const struct engine_config *config, struct record *rec, int64_t arrival_ns,
                      uint32_t flags, uint32_t text_len)
{
    if (rec->event_count >= config->max_events_per_request) {
        rec->events_dropped++;
        return;
    }
    rec->events[rec->event_count++] = (struct record_event){
        .arrival_ns = arrival_ns,
        .flags = flags,
        .text_len = text_len,
    };
}

/* append_text adds one piece of generated text to the record, decoding JSON
 * escapes unless the piece is literal. Returns the bytes kept. */
static size_t append_text(const struct engine_config *config, struct record *rec,
                          const struct response_text *piece)
{
    bool reasoning = piece->kind == RESPONSE_TEXT_REASONING;
    char *base = reasoning ? rec->reasoning_text : rec->text;
    size_t *len = reasoning ? &rec->reasoning_len : &rec->text_len;
    size_t room = config->max_text_bytes - *len;
    size_t n;
    bool truncated = false;
    if (piece->literal) {
        n = piece->text.len < room ? piece->text.len : room;
        truncated = n < piece->text.len;
        memcpy(base + *len, piece->text.ptr, n);
    } else {
        n = response_json_unescape(piece->text.ptr, piece->text.len, base + *len, room, &truncated);
    }
    *len += n;
    rec->text_truncated |= truncated;
    return n;
}

static void fail_with_payload_error(struct engine__shard *shard, struct engine__conn *c,
                                    const struct response_chunk *chunk)
{
    char message[RECORD_ERROR_MESSAGE_BYTES];
    size_t n = chunk->error_message.len;
    if (chunk->error_message_is_json) {
        n = n < sizeof(message) - 1 ? n : sizeof(message) - 1;
        memcpy(message, chunk->error_message.ptr, n);
    } else {
        bool truncated = false;
        n = response_json_unescape(chunk->error_message.ptr, chunk->error_message.len, message,
                                   sizeof(message) - 1, &truncated);
    }
    message[n] = '\0';
    engine__fail(shard, c, chunk->error_code, "SSEResponseError", message);
}

/* keep_count stores a reported count; the endpoint reads any uint64, the
 * record keeps int64 with -1 for "not reported". */
static void keep_count(bool has, uint64_t value, int64_t *out)
{
    if (has) {
        *out = value <= (uint64_t)INT64_MAX ? (int64_t)value : INT64_MAX;
    }
}

/* apply_usage_details keeps the last reported value of each detail count. */
static void apply_usage_details(struct record_usage *u, const struct response_chunk *chunk)
{
    keep_count(chunk->has_cache_read_tokens, chunk->cache_read_tokens, &u->cache_read_tokens);
    keep_count(chunk->has_cache_write_tokens, chunk->cache_write_tokens, &u->cache_write_tokens);
    keep_count(chunk->has_cache_miss_tokens, chunk->cache_miss_tokens, &u->cache_miss_tokens);
    keep_count(chunk->has_prompt_audio_tokens, chunk->prompt_audio_tokens, &u->prompt_audio_tokens);
    keep_count(chunk->has_completion_audio_tokens, chunk->completion_audio_tokens,
               &u->completion_audio_tokens);
    keep_count(chunk->has_tool_use_prompt_tokens, chunk->tool_use_prompt_tokens,
               &u->tool_use_prompt_tokens);
    keep_count(chunk->has_accepted_prediction_tokens, chunk->accepted_prediction_tokens,
               &u->accepted_prediction_tokens);
    keep_count(chunk->has_rejected_prediction_tokens, chunk->rejected_prediction_tokens,
               &u->rejected_prediction_tokens);
    if (chunk->has_prompt_audio_seconds) {
        u->prompt_audio_seconds = chunk->prompt_audio_seconds;
    }
}

static void apply_usage(struct record *rec, const struct response_chunk *chunk)
{
    rec->usage.present = true;
    if (chunk->has_prompt_tokens) {
        rec->usage.prompt_tokens = (int64_t)chunk->prompt_tokens;
    }
    if (chunk->has_completion_tokens) {
        rec->usage.completion_tokens = (int64_t)chunk->completion_tokens;
    }
    if (chunk->has_reasoning_tokens) {
        rec->usage.reasoning_tokens = (int64_t)chunk->reasoning_tokens;
    }
    if (chunk->has_total_tokens) {
        rec->usage.total_tokens = (int64_t)chunk->total_tokens;
    }
    apply_usage_details(&rec->usage, chunk);
}

/* apply_chunk parses one event's data (or a whole body) and folds it into
 * the record. Returns false when it failed the request. */
static bool apply_chunk(struct engine__shard *shard, struct engine__conn *c,
                        const struct sse_event *ev, const char *json, size_t len,
                        int64_t arrival_ns, bool same_read)
{
    const struct engine_config *config = shard->config;
    struct record *rec = c->record;
    struct response_chunk chunk;
    const char *event_type = ev != NULL && ev->has_event_type ? ev->event_type : NULL;
    size_t event_type_len = event_type != NULL ? ev->event_type_len : 0;
    enum response_parse_status st = response_parse_event(
        config->reader, &c->parse_state, event_type, event_type_len, json, len, &chunk);
    if (st == RESPONSE_PARSE_DONE) {
        rec->saw_done = true;
        return true;
    }
    if (st == RESPONSE_PARSE_ERROR) {
        fail_with_payload_error(shard, c, &chunk);
        return false;
    }
    if (st != RESPONSE_PARSE_OK && st != RESPONSE_PARSE_IGNORED) {
        char message[RECORD_ERROR_MESSAGE_BYTES];
        snprintf(message, sizeof(message), "unreadable response payload (%s): %.*s",
                 response_parse_status_name(st), (int)(len < 200 ? len : 200), json);
        engine__fail(shard, c, 502, "ResponseParseError", message);
        return false;
    }
    uint32_t flags = same_read ? RECORD_EVENT_SAME_READ : 0;
    uint32_t text_len = 0;
    for (size_t i = 0; i < chunk.text_count; i++) {
        text_len += (uint32_t)append_text(config, rec, &chunk.texts[i]);
        flags |= chunk.texts[i].kind == RESPONSE_TEXT_REASONING ? RECORD_EVENT_REASONING
                                                                : RECORD_EVENT_CONTENT;
    }
    /* Embeddings, rankings and a responses done-event whose text already
     * arrived count as content without carrying text of their own. */
    if (chunk.is_content && (flags & (RECORD_EVENT_CONTENT | RECORD_EVENT_REASONING)) == 0) {
        flags |= RECORD_EVENT_CONTENT;
    }
    if (chunk.has_usage) {
        apply_usage(rec, &chunk);
        flags |= RECORD_EVENT_USAGE;
    }
    rec->saw_finish_reason |= chunk.has_finish_reason;
    if ((flags & RECORD_EVENT_CONTENT) != 0 && !rec->saw_content) {
        rec->saw_content = true;
        if (chunk.has_usage && chunk.has_completion_tokens) {
            rec->first_content_completion_tokens = (int64_t)chunk.completion_tokens;
        }
    }
    if ((flags & ~(uint32_t)RECORD_EVENT_SAME_READ) != 0) {
        add_event(config, rec, arrival_ns, flags, text_len);
    }
    if ((flags & (RECORD_EVENT_CONTENT | RECORD_EVENT_REASONING)) != 0) {
        engine__prefill_done(shard, c);
    }
    return true;
}

/* on_sse_event returns false when the event ended the request. */
static bool on_sse_event(struct engine__shard *shard, struct engine__conn *c,
                         const struct sse_event *ev, int64_t arrival_ns, bool same_read)
{
    struct record *rec = c->record;
    if (ev->has_event_type && ev->event_type_len == 5 &&
        strncasecmp(ev->event_type, "error", 5) == 0) {
        /* A JSON error body (Anthropic's) says more than the event name. */
        if (ev->has_data &&
            !apply_chunk(shard, c, ev, ev->data, ev->data_len, arrival_ns, same_read)) {
            return false;
        }
        char message[RECORD_ERROR_MESSAGE_BYTES];
        const char *text = ev->comment_len > 0 ? ev->comment : ev->data;
        size_t text_len = ev->comment_len > 0 ? ev->comment_len : ev->data_len;
        snprintf(message, sizeof(message), "%.*s", (int)text_len, text);
        engine__fail(shard, c, 502, "SSEResponseError", message);
        return false;
    }
    if (!ev->has_data) {
        return true; /* a keep-alive comment or a bare event name */
    }
    if (rec->saw_done) {
        engine__fail(shard, c, 502, "SSEResponseError", "data arrived after [DONE]");
        return false;
    }
    return apply_chunk(shard, c, ev, ev->data, ev->data_len, arrival_ns, same_read);
}

/* feed_sse returns false when the request ended. */
static bool feed_sse(struct engine__shard *shard, struct engine__conn *c, const char *data,
                     size_t len, int64_t arrival_ns, uint32_t *events_in_read)
{
    size_t pos = 0;
    while (pos < len) {
        size_t used = 0;
        struct sse_event ev;
        enum sse_status st = sse_parser_feed(&c->sse, data + pos, len - pos, &used, &ev);
        pos += used;
        if (st == SSE_NEED_MORE) {
            break;
        }
        if (st != SSE_EVENT) {
            char message[128];
            snprintf(message, sizeof(message), "server-sent events: %s", sse_status_name(st));
            engine__fail(shard, c, 502, "SSEParseError", message);
            return false;
        }
        if (!on_sse_event(shard, c, &ev, arrival_ns, *events_in_read > 0)) {
            return false;
        }
        (*events_in_read)++;
    }
    return true;
}

static void finish_error_status(struct engine__shard *shard, struct engine__conn *c,
                                const char *body, size_t body_len)
{
    struct record *rec = c->record;
    size_t reason_len = 0;
    const char *reason = http_response_reason(&c->http, &reason_len);
    rec->error_code = rec->http_status;
    snprintf(rec->error_type, sizeof(rec->error_type), "%.*s", (int)reason_len, reason);
    struct response_chunk chunk;
    /* Prefer the OpenAI-style error message; fall back to the body text. */
    if (response_parse_event(shard->config->reader, NULL, NULL, 0, body, body_len, &chunk) ==
            RESPONSE_PARSE_ERROR &&
        chunk.error_message.len > 0) {
        bool truncated = false;
        size_t n =
            response_json_unescape(chunk.error_message.ptr, chunk.error_message.len,
                                   rec->error_message, sizeof(rec->error_message) - 1, &truncated);
        rec->error_message[n] = '\0';
    } else {
        snprintf(rec->error_message, sizeof(rec->error_message), "%.*s", (int)body_len, body);
    }
    engine__finish(shard, c, RECORD_ERROR, http_response_keep_alive(&c->http));
}

/* on_message_done ends the response. A body that is not an event stream is
 * `body` when it came whole in the read being handled (a view into the
 * receive buffer, not copied), else NULL and in c->body. */
static void on_message_done(struct engine__shard *shard, struct engine__conn *c, int64_t arrival_ns,
                            uint32_t *events_in_read, const char *body, size_t body_len)
{
    struct record *rec = c->record;
    bool keep = http_response_keep_alive(&c->http);
    rec->end_ns = arrival_ns;
    if (body != NULL && body_len > c->body_cap) {
        append_body(c, body, body_len); /* the same truncation as a body in pieces */
        body = NULL;
    }
    if (body == NULL) {
        body = c->body;
        body_len = c->body_len;
    }
    if (!c->status_ok) {
        finish_error_status(shard, c, body, body_len);
        return;
    }
    if (shard->config->discard_body) {
        engine__finish(shard, c, RECORD_SUCCESS, keep);
        return;
    }
    if (c->body_is_sse) {
        struct sse_event ev;
        if (sse_parser_finish(&c->sse, &ev) == SSE_EVENT &&
            !on_sse_event(shard, c, &ev, arrival_ns, *events_in_read > 0)) {
            return;
        }
        if (endpoint_type_stream_end_required(shard->config->reader->type) && !rec->saw_done &&
            !rec->saw_finish_reason) {
            engine__fail(shard, c, 502, "SSEResponseError",
                         "the stream ended without [DONE] or a finish_reason");
            return;
        }
        engine__finish(shard, c, RECORD_SUCCESS, keep);
        return;
    }
    if (c->body_truncated) {
        char message[128];
        snprintf(message, sizeof(message), "response body larger than %zu bytes", c->body_cap);
        engine__fail(shard, c, 502, "ResponseTooLarge", message);
        return;
    }
    if (!apply_chunk(shard, c, NULL, body, body_len, arrival_ns, false)) {
        return;
    }
    engine__finish(shard, c, RECORD_SUCCESS, keep);
}

static void on_headers(struct engine__shard *shard, struct engine__conn *c, int64_t arrival_ns)
{
    struct record *rec = c->record;
    rec->headers_ns = arrival_ns;
    rec->http_status = http_response_status_code(&c->http);
    c->status_ok = rec->http_status >= 200 && rec->http_status < 300;
    c->body_is_sse =
        c->status_ok && !shard->config->discard_body && http_response_is_event_stream(&c->http);
    if (c->body_is_sse) {
        /* Reset here rather than per request: most non-streamed requests never
         * touch the SSE parser. */
        sse_parser_reset(&c->sse);
    }
}

void engine__response_bytes(struct engine__shard *shard, struct engine__conn *c, const char *data,
                            size_t len, int64_t arrival_ns)
{
    uint32_t events_in_read = 0;
    size_t off = 0;
    /* A body that arrives whole in this read is parsed where it lies; it is
     * copied to c->body only when it continues in a later read. */
    const char *body = NULL;
    size_t body_len = 0;
    c->response_started = true;
    /* Call again after every event, even with nothing left: a response that
     * ends exactly at a body boundary reports its end on that call. */
    for (;;) {
        size_t used = 0;
        struct http_body_span span = {0};
        enum http_parse_status st =
            http_response_feed(&c->http, data + off, len - off, &used, &span);
        off += used;
        switch (st) {
        case HTTP_NEED_MORE:
            if (body != NULL) {
                append_body(c, body, body_len);
            }
            return;
        case HTTP_HEADERS_DONE:
            on_headers(shard, c, arrival_ns);
            break;
        case HTTP_BODY:
            if (c->body_is_sse) {
                if (!feed_sse(shard, c, span.data, span.len, arrival_ns, &events_in_read)) {
                    return;
                }
            } else if (body == NULL && c->body_len == 0) {
                body = span.data;
                body_len = span.len;
            } else {
                if (body != NULL) {
                    append_body(c, body, body_len);
                    body = NULL;
                }
                append_body(c, span.data, span.len);
            }
            break;
        case HTTP_MESSAGE_DONE:
            on_message_done(shard, c, arrival_ns, &events_in_read, body, body_len);
            if (off < len && c->record == NULL && c->fd >= 0) {
                /* We never pipeline, so bytes after a response are a broken
                 * server: drop the connection rather than misread them. */
                engine__close_socket(shard, c);
            }
            return;
        default: {
            char message[128];
            snprintf(message, sizeof(message), "malformed HTTP response: %s",
                     http_parse_status_name(st));
            engine__fail(shard, c, 502, "HTTPResponseError", message);
            return;
        }
        }
    }
}

bool engine__response_eof(struct engine__shard *shard, struct engine__conn *c)
{
    enum http_parse_status st = http_response_feed_eof(&c->http);
    if (st != HTTP_MESSAGE_DONE) {
        return false;
    }
    uint32_t events_in_read = 1;
    on_message_done(shard, c, engine_now_ns(), &events_in_read, NULL, 0);
    return true;
}
