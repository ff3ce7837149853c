/*
 * stream.c - a whole response folded into its record, with AIPerf's stream
 * rules: an `event: error` fails the request, data after [DONE] fails it, a
 * stream that needs an end marker and ends without one fails it, and a
 * server's error object becomes the record's error.
 *
 * Every view here points into a receive buffer that the caller recycles once
 * the read is handled, so whatever the record keeps (text, usage) is copied
 * out. Nothing allocates.
 */
#include "response/response.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static void add_event(const struct response_limits *limits, struct record *rec, int64_t arrival_ns,
                      uint32_t flags, uint32_t text_len)
{
    if (rec->event_count >= limits->max_events) {
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
static size_t append_text(const struct response_limits *limits, struct record *rec,
                          const struct response_text *piece)
{
    bool reasoning = piece->kind == RESPONSE_TEXT_REASONING;
    char *base = reasoning ? rec->reasoning_text : rec->text;
    size_t *len = reasoning ? &rec->reasoning_len : &rec->text_len;
    size_t room = limits->max_text_bytes - *len;
    size_t n;
    bool truncated = false;
    if (piece->literal) {
        n = piece->text.len < room ? piece->text.len : room;
        truncated = n < piece->text.len;
        memcpy(base + *len, piece->text.ptr, n);
    } else {
        n = jsonstr_unescape(piece->text.ptr, piece->text.len, base + *len, room, &truncated);
    }
    *len += n;
    rec->text_truncated |= truncated;
    return n;
}

static enum response_step fail_with(struct response_failure *fail, int code, const char *type)
{
    fail->code = code;
    fail->type = type;
    return RESPONSE_STEP_FAILED;
}

/* fail_with_payload_error takes the server's error object as the failure. */
static enum response_step fail_with_payload_error(const struct response_chunk *chunk,
                                                  struct response_failure *fail)
{
    size_t n = chunk->error_message.len;
    if (chunk->error_message_is_json) {
        n = n < sizeof(fail->message) - 1 ? n : sizeof(fail->message) - 1;
        memcpy(fail->message, chunk->error_message.ptr, n);
    } else {
        bool truncated = false;
        n = jsonstr_unescape(chunk->error_message.ptr, chunk->error_message.len, fail->message,
                             sizeof(fail->message) - 1, &truncated);
    }
    fail->message[n] = '\0';
    return fail_with(fail, chunk->error_code, "SSEResponseError");
}

/* take_content appends the chunk's text to the record and returns the event
 * flags it earns (content, reasoning), with the bytes kept in *out_text_len. */
static uint32_t take_content(const struct response_limits *limits, struct record *rec,
                             const struct response_chunk *chunk, uint32_t *out_text_len)
{
    uint32_t flags = 0;
    uint32_t text_len = 0;
    for (size_t i = 0; i < chunk->text_count; i++) {
        text_len += (uint32_t)append_text(limits, rec, &chunk->texts[i]);
        flags |= chunk->texts[i].kind == RESPONSE_TEXT_REASONING ? RECORD_EVENT_REASONING
                                                                 : RECORD_EVENT_CONTENT;
    }
    /* Embeddings, rankings and a responses done-event whose text already
     * arrived count as content without carrying text of their own. */
    if (chunk->is_content && (flags & (RECORD_EVENT_CONTENT | RECORD_EVENT_REASONING)) == 0) {
        flags |= RECORD_EVENT_CONTENT;
    }
    rec->output_token_ids += chunk->token_id_count;
    *out_text_len = text_len;
    return flags;
}

/* keep_spec_decode keeps the statistics of a payload and counts it: AIPerf takes a request's
 * statistics only when exactly one of its events carried some (vLLM sends them once; more is a
 * request of several sequences, n > 1, which it leaves out). */
static void keep_spec_decode(struct record *rec, const struct record_spec_decode *latest)
{
    uint32_t payloads = rec->spec_decode.payloads + 1;
    rec->spec_decode = *latest;
    rec->spec_decode.payloads = payloads;
}

/* apply_chunk parses one event's data (or a whole body) and folds it into
 * the record. */
static enum response_step apply_chunk(const struct response_reader *reader,
                                      struct response_parse_state *state,
                                      const struct response_limits *limits,
                                      const struct sse_event *ev, const char *json, size_t len,
                                      int64_t arrival_ns, bool same_read, struct record *rec,
                                      struct response_failure *fail)
{
    struct response_chunk chunk;
    const char *event_type = ev != NULL && ev->has_event_type ? ev->event_type : NULL;
    size_t event_type_len = event_type != NULL ? ev->event_type_len : 0;
    enum response_parse_status st =
        response_parse_event(reader, state, event_type, event_type_len, json, len, &chunk);
    if (st == RESPONSE_PARSE_DONE) {
        rec->saw_done = true;
        return RESPONSE_STEP_MORE;
    }
    if (st == RESPONSE_PARSE_ERROR) {
        return fail_with_payload_error(&chunk, fail);
    }
    if (st != RESPONSE_PARSE_OK && st != RESPONSE_PARSE_IGNORED) {
        snprintf(fail->message, sizeof(fail->message), "unreadable response payload (%s): %.*s",
                 response_parse_status_name(st), (int)(len < 200 ? len : 200), json);
        return fail_with(fail, 502, "ResponseParseError");
    }
    uint32_t text_len = 0;
    uint32_t flags = take_content(limits, rec, &chunk, &text_len);
    if (chunk.usage.present) {
        record_usage_keep(&rec->usage, &chunk.usage);
        flags |= RECORD_EVENT_USAGE;
    }
    if (chunk.spec_decode_present) {
        keep_spec_decode(rec, &chunk.spec_decode);
    }
    rec->saw_finish_reason |= chunk.has_finish_reason;
    if ((flags & RECORD_EVENT_CONTENT) != 0 && !rec->saw_content) {
        rec->saw_content = true;
        if (chunk.usage.completion_tokens != RECORD_ABSENT) {
            rec->first_content_completion_tokens = chunk.usage.completion_tokens;
        }
    }
    if (flags != 0) {
        add_event(limits, rec, arrival_ns, flags | (same_read ? RECORD_EVENT_SAME_READ : 0),
                  text_len);
    }
    return (flags & (RECORD_EVENT_CONTENT | RECORD_EVENT_REASONING)) != 0 ? RESPONSE_STEP_GENERATED
                                                                          : RESPONSE_STEP_MORE;
}

enum response_step response_read_event(const struct response_reader *reader,
                                       struct response_parse_state *state,
                                       const struct response_limits *limits,
                                       const struct sse_event *ev, int64_t arrival_ns,
                                       bool same_read, struct record *rec,
                                       struct response_failure *fail)
{
    if (ev->has_event_type && ev->event_type_len == 5 &&
        strncasecmp(ev->event_type, "error", 5) == 0) {
        /* A JSON error body (Anthropic's) says more than the event name. */
        if (ev->has_data && apply_chunk(reader, state, limits, ev, ev->data, ev->data_len,
                                        arrival_ns, same_read, rec, fail) == RESPONSE_STEP_FAILED) {
            return RESPONSE_STEP_FAILED;
        }
        const char *text = ev->comment_len > 0 ? ev->comment : ev->data;
        size_t text_len = ev->comment_len > 0 ? ev->comment_len : ev->data_len;
        snprintf(fail->message, sizeof(fail->message), "%.*s", (int)text_len, text);
        return fail_with(fail, 502, "SSEResponseError");
    }
    if (!ev->has_data) {
        return RESPONSE_STEP_MORE; /* a keep-alive comment or a bare event name */
    }
    if (rec->saw_done) {
        snprintf(fail->message, sizeof(fail->message), "data arrived after [DONE]");
        return fail_with(fail, 502, "SSEResponseError");
    }
    return apply_chunk(reader, state, limits, ev, ev->data, ev->data_len, arrival_ns, same_read,
                       rec, fail);
}

enum response_step response_read_body(const struct response_reader *reader,
                                      struct response_parse_state *state,
                                      const struct response_limits *limits, const char *body,
                                      size_t len, int64_t arrival_ns, struct record *rec,
                                      struct response_failure *fail)
{
    return apply_chunk(reader, state, limits, NULL, body, len, arrival_ns, false, rec, fail);
}

bool response_stream_ended_well(const struct response_reader *reader, const struct record *rec,
                                struct response_failure *fail)
{
    if (!endpoint_type_stream_end_required(reader->type) || rec->saw_done ||
        rec->saw_finish_reason) {
        return true;
    }
    snprintf(fail->message, sizeof(fail->message),
             "the stream ended without [DONE] or a finish_reason");
    fail_with(fail, 502, "SSEResponseError");
    return false;
}

void response_error_message(const struct response_reader *reader, const char *body, size_t len,
                            char *out, size_t cap)
{
    if (cap == 0) {
        return;
    }
    struct response_chunk chunk;
    /* Prefer the OpenAI-style error message; fall back to the body text. */
    if (response_parse_event(reader, NULL, NULL, 0, body, len, &chunk) == RESPONSE_PARSE_ERROR &&
        chunk.error_message.len > 0) {
        bool truncated = false;
        size_t n = jsonstr_unescape(chunk.error_message.ptr, chunk.error_message.len, out, cap - 1,
                                    &truncated);
        out[n] = '\0';
    } else {
        snprintf(out, cap, "%.*s", (int)len, body);
    }
}
