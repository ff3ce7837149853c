/*
 * response.h - reading a response of an endpoint type: one SSE event's data,
 * or a whole body, decoded into generated text, usage counts, the finish
 * reason and the server's errors.
 *
 * This is the hot path: response_parse_event() allocates nothing (a strict
 * one-pass tokenizer building jsmn's token tree in a fixed array on the
 * stack, or in a scratch allocated before the run) and returns views into the
 * caller's buffer.
 *
 * Behaviour follows AIPerf's src/aiperf/endpoints/ modules and sse_utils.py
 * (see /work/shared/spec/aiperf-reference.md §1.1, §1.2 and §2.1).
 */
#ifndef RINGPERF_RESPONSE_H
#define RINGPERF_RESPONSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "endpoint/endpoint.h"
#include "jsonstr/jsonstr.h"
#include "record/record.h"
#include "sse/sse.h"

/* RESPONSE_JSON_TOKENS_MAX bounds the JSON tokens of one payload parsed
 * without a scratch (objects, arrays, keys, strings and scalars each count as
 * one). A streaming chunk uses ~40; a non-streaming body with long logprobs
 * or an embeddings body exceeds it: give those an response_scratch. */
#define RESPONSE_JSON_TOKENS_MAX 1024
/* RESPONSE_JSON_DEPTH_MAX bounds object/array nesting. */
#define RESPONSE_JSON_DEPTH_MAX 64
/* RESPONSE_JSON_BYTES_MAX bounds one payload (tokens keep int offsets). */
#define RESPONSE_JSON_BYTES_MAX ((size_t)1 << 30)
/* RESPONSE_TOOL_TEXT_MAX bounds the tool-call text pieces reported per chunk. */
#define RESPONSE_TOOL_TEXT_MAX 8
/* RESPONSE_TEXTS_MAX bounds the text pieces of one payload in response_chunk.texts. */
#define RESPONSE_TEXTS_MAX 32

/* response_parse_status is the result of response_parse_event(). */
enum response_parse_status {
    RESPONSE_PARSE_OK = 0,              /* a response object of this endpoint; *out filled */
    RESPONSE_PARSE_DONE,                /* the "[DONE]" stream terminator (not content) */
    RESPONSE_PARSE_IGNORED,             /* a JSON object of another kind; only usage may be set */
    RESPONSE_PARSE_ERROR,               /* the server reported an error; error fields set */
    RESPONSE_PARSE_ERR_MALFORMED,       /* not JSON, truncated, or nested too deep */
    RESPONSE_PARSE_ERR_NOT_OBJECT,      /* valid JSON, but not an object this type reads */
    RESPONSE_PARSE_ERR_TOO_MANY_TOKENS, /* more JSON tokens than the token space holds */
    RESPONSE_PARSE_ERR_TOO_LARGE,       /* more than RESPONSE_JSON_BYTES_MAX bytes */
    RESPONSE_PARSE_ERR_FIELD_VALUES,    /* response_field's search outgrew its room (memory) */
};

/* response_parse_status_name returns a stable, static description of `s`. */
const char *response_parse_status_name(enum response_parse_status s);

/* response_str is a view (pointer, length) into the buffer that was parsed.
 * Text views hold the string's JSON-escaped bytes without the quotes; decode
 * them with jsonstr_unescape(). ptr is "" when len is 0. */
struct response_str {
    const char *ptr;
    size_t len;
};

/* response_text_kind says what a piece of generated text is. AIPerf counts
 * CONTENT and TOOL as output tokens and REASONING as reasoning tokens. */
enum response_text_kind {
    RESPONSE_TEXT_CONTENT = 0,
    RESPONSE_TEXT_REASONING,
    RESPONSE_TEXT_TOOL,
};

/* response_text is one piece of generated text. `text` is JSON-escaped
 * (decode with jsonstr_unescape()) unless `literal` is set, in which
 * case its bytes are the text itself: a raw non-JSON body, or the JSON of an
 * Anthropic tool_use "input" object. */
struct response_text {
    struct response_str text;
    enum response_text_kind kind;
    bool literal;
};

/* response_chunk is what response_parse_event() extracts from one payload.
 * Views point into the parsed buffer and live as long as it does. Absent
 * fields are empty views, false flags and zero counts. */
struct response_chunk {
    /* The "object" value; for responses and messages events the "type" value,
     * or, without one, the event_type given (then the view points there). */
    struct response_str object;
    /* texts[] (at the end) is every piece of generated text in order, for
     * every type; new code reads only that. Empty pieces are never listed. */
    size_t text_count;
    bool texts_truncated; /* more than RESPONSE_TEXTS_MAX pieces */
    /* The older per-kind views, kept for the chat/completions callers: the
     * first escaped CONTENT piece, the first escaped REASONING piece, and up
     * to RESPONSE_TOOL_TEXT_MAX escaped TOOL pieces (chat: the delta/message
     * content, reasoning_content or reasoning, tool_calls[].function name and
     * arguments; tool calls are not reported when reasoning is present, as
     * AIPerf gives reasoning priority). */
    struct response_str content;
    struct response_str reasoning;
    size_t tool_text_count;   /* pieces in tool_text[] (at the end) */
    bool tool_text_truncated; /* more than RESPONSE_TOOL_TEXT_MAX pieces */
    /* Non-token endpoints: embedding vectors and ranking results found,
     * images generated (image_generation: one per streamed event with a
     * "b64_json", or the object items of a body's "data"), and image
     * retrieval results (the items of a truthy "data"; 1 when not a list). */
    size_t embedding_count;
    size_t ranking_count;
    size_t image_count;
    size_t infer_count;
    /* sglang_generate, vllm_generate: the output token ids this payload carries. */
    size_t token_id_count;
    /* true when the payload counts as a content response for TTFT/ITL and
     * for a record being valid (AIPerf's content_responses): it carries text,
     * embeddings, rankings, images or retrieval results, or it is a responses output_text.done
     * whose text was already streamed (kept for timing, its text dropped). Role-only chunks,
     * usage-only chunks, structural events and [DONE] are not. */
    bool is_content;
    /* The stream's end marker was seen: chat/completions choices[0]
     * finish_reason not null; responses response.completed or
     * response.incomplete; messages message_delta with a stop_reason, or
     * message_stop; huggingface_generate an event whose generated_text is a
     * string. finish_reason is the reason when there is a string one
     * (finish_reason, response status or incomplete_details.reason,
     * stop_reason, details.finish_reason). */
    bool has_finish_reason;
    struct response_str finish_reason;
    /* usage (usage.present), when it is a non-empty object: top-level
     * "usage" of any type, responses response.usage, messages message.usage.
     * A count is RECORD_ABSENT unless it is a non-negative integer (clamped
     * to INT64_MAX): prompt_tokens or input_tokens;
     * completion_tokens or output_tokens; completion_tokens_details or
     * output_tokens_details .reasoning_tokens; total_tokens. The detail
     * counts, under the first of their vendor names that is present:
     * prompt_cache_read_tokens: prompt_tokens_details or input_tokens_details
     * .cached_tokens (OpenAI, vLLM, Responses), cache_read_input_tokens
     * (Anthropic), prompt_cache_hit_tokens (DeepSeek), cacheReadInputTokens
     * (Bedrock); prompt_cache_write_tokens: cache_creation_input_tokens,
     * cacheWriteInputTokens; prompt_cache_miss_tokens:
     * prompt_cache_miss_tokens;
     * prompt_audio_tokens: prompt_tokens_details.audio_tokens;
     * completion_audio_tokens, accepted_prediction_tokens,
     * rejected_prediction_tokens: completion_tokens_details.*;
     * tool_use_prompt_tokens: tool_use_prompt_tokens or
     * toolUsePromptTokenCount; prompt_audio_seconds (a non-negative number,
     * not only an integer): prompt_audio_seconds (Mistral). A null details
     * object (vLLM) is no details. */
    struct record_usage usage;
    /* RESPONSE_PARSE_ERROR only: error.code when it is an integer in
     * 400..599, else 502; error.type; the message (error.message, or the
     * error value itself when it is a string). When there is no string
     * message, error_message is the raw JSON text of the error value and
     * error_message_is_json is set (AIPerf prints it as JSON). */
    int error_code;
    struct response_str error_type;
    struct response_str error_message;
    bool error_message_is_json;
    /* chat and completions: the payload carried vLLM's per-request speculative
     * decoding statistics, a non-empty object at metrics.speculative_decoding
     * (vLLM's --per-request-spec-decode-metrics), read into spec_decode. */
    bool spec_decode_present;
    /* The arrays come last: response_parse_event() clears only what is before
     * them (they are 1 KiB, cleared per event that showed in profiles), and
     * only their first text_count and tool_text_count entries are ever set. */
    struct response_text texts[RESPONSE_TEXTS_MAX];
    struct response_str tool_text[RESPONSE_TOOL_TEXT_MAX];
    /* Valid only when spec_decode_present (its payloads is 1): the statistics,
     * `valid` when they are a vLLM payload as AIPerf's vLLM adapter takes it:
     * mean_acceptance_length, num_spec_steps and acceptance_histogram present;
     * mean_acceptance_length and draft_acceptance_rate finite numbers;
     * num_accepted_draft_tokens, num_draft_tokens and num_spec_steps
     * non-negative integers; num_spec_tokens absent, null or a non-negative
     * integer; acceptance_histogram a list of non-negative integers (at most
     * RECORD_SPEC_BUCKETS, num_spec_tokens + 1 of them when that is given)
     * whose counts add up to num_spec_steps and whose j-weighted sum is
     * num_accepted_draft_tokens, which is at most num_draft_tokens;
     * per_step_accepted and per_step_drafted absent, null or lists of
     * non-negative integers (checked, not kept). */
    struct record_spec_decode spec_decode;
};

/* ---- Video generation jobs (video.c) ------------------------------------- */

struct response_scratch;

/* response_video_status is a video job's "status": queued, in_progress, completed and failed
 * as OpenAI and SGLang name them; OTHER for any other string (AIPerf keeps polling then), ABSENT
 * when there is no status string. */
enum response_video_status {
    RESPONSE_VIDEO_ABSENT = 0,
    RESPONSE_VIDEO_QUEUED,
    RESPONSE_VIDEO_IN_PROGRESS,
    RESPONSE_VIDEO_COMPLETED,
    RESPONSE_VIDEO_FAILED,
    RESPONSE_VIDEO_OTHER,
};

/* response_video is what a video job object says, as views into the parsed body (JSON-escaped;
 * decode with jsonstr_unescape()). Absent fields are empty views and false flags. */
struct response_video {
    struct response_str id; /* "id": a string's bytes, or an integer's digits */
    enum response_video_status status;
    struct response_str url; /* "url": where the finished video can be fetched */
    /* "error": error.message when it is an object, the string itself, or (error_is_json) the
     * JSON text of any other value; empty for null or none. */
    struct response_str error;
    bool error_is_json;
    bool has_inference_time; /* "inference_time_s", a non-negative number (SGLang) */
    double inference_time_s;
    bool has_peak_memory; /* "peak_memory_mb", a non-negative number (SGLang) */
    double peak_memory_mb;
};

/* response_video_parse reads one video job object (`len` bytes at `json`, borrowed) into *out
 * (always reset first), without allocating: tokens go on the stack, or in `scratch` when it is
 * not NULL. Returns RESPONSE_PARSE_OK, _ERR_MALFORMED (not JSON, or empty), _ERR_NOT_OBJECT,
 * _ERR_TOO_MANY_TOKENS or _ERR_TOO_LARGE. */
enum response_parse_status response_video_parse(const char *json, size_t len,
                                                struct response_scratch *scratch,
                                                struct response_video *out);

/* ---- Run-wide reader and per-request state ------------------------------ */

struct jmespath;

/* RESPONSE_FIELD_VALUES_MAX is the room on the stack for the values the lists
 * of one response_field search make (projections, slices, flattening). A
 * search that needs more takes them from the parse state's scratch, grown on
 * demand and kept, up to RESPONSE_FIELD_VALUES_SCRATCH_MAX (a search never
 * needs more than JMESPATH_NODES_MAX values a JSON token of the response: each
 * step of the expression reaches each token at most once). Past that, without
 * a scratch, or when memory runs out, the payload is
 * RESPONSE_PARSE_ERR_FIELD_VALUES, a failed request whose message says so:
 * never a silent miss. */
#define RESPONSE_FIELD_VALUES_MAX 512
/* RESPONSE_FIELD_VALUES_SCRATCH_MAX caps the scratch's values: 16 MiB a shard. */
#define RESPONSE_FIELD_VALUES_SCRATCH_MAX 1048576 /* a literal: messages print it */

/* response_reader is the run-wide, read-only description of how responses
 * are read: the endpoint type and the compiled response_field of raw and
 * template (NULL: none). Set it up once with response_reader_init(); share it
 * between threads; release it with response_reader_release(). */
struct response_reader {
    enum endpoint_type type;
    struct jmespath *field;
};

/* response_reader_init sets up *r for type `t` with an optional
 * response_field (--extra-inputs response_field:<JMESPath>, used by raw and
 * template; NULL or "" for none), compiled with jmespath/ (fields, indexes,
 * slices, [*] and .* projections, [] flattening and pipes). Member names are
 * compared decoded on both sides, as AIPerf's JSON parsers see them: the
 * expression's "quoted" names when compiled, the response's as they are
 * met (jsonstr_equal, allocation-free). A value found becomes what AIPerf's
 * convert_to_response_data makes of it: a string is the text, a list of
 * number lists or of numbers embeddings, a list of objects rankings; anything
 * else, or nothing, falls back to raw's auto-detection, while template takes
 * nothing (AIPerf's template endpoint honours its response_field strictly).
 * Returns 0, -EINVAL with jmespath_compile's message in errbuf (then *r has
 * no field), or -ENOMEM. */
int response_reader_init(struct response_reader *r, enum endpoint_type t,
                         const char *response_field, char *errbuf, size_t errcap);

/* response_reader_release frees what response_reader_init compiled; the
 * reader then has no field. */
void response_reader_release(struct response_reader *r);

/* response_scratch is token space for parsing bodies bigger than the stack
 * array allows (embeddings easily have 10^5 numbers). Opaque; one per
 * thread. */
struct response_scratch;

/* response_scratch_new allocates room for `tokens_max` JSON tokens (about 20
 * bytes each; bytes/2 + 1 tokens always suffice for a body of `bytes`). Call
 * before the run. A payload with more tokens grows it (response_parse_event,
 * up to its bytes/2 + 1), once, and the room is kept for the next ones: the
 * only allocation the parsers make. Returns NULL when out of memory or
 * tokens_max is 0 or over INT32_MAX. Free with response_scratch_free() (NULL
 * is a no-op). */
struct response_scratch *response_scratch_new(size_t tokens_max);
void response_scratch_free(struct response_scratch *s);

/* RESPONSE_STREAM_PARTS_MAX bounds the responses output parts remembered per
 * request for output_text.done de-duplication. */
#define RESPONSE_STREAM_PARTS_MAX 16

/* response_parse_state is one request's parsing state, caller-allocated (e.g.
 * in the connection). `scratch` is borrowed and set by the caller (NULL: the
 * stack's RESPONSE_JSON_TOKENS_MAX tokens); call response_parse_state_reset()
 * before each response, which keeps scratch. The rest is private: the
 * responses (output_index, content_index) parts that streamed deltas, so that
 * their output_text.done is not counted twice. */
struct response_parse_state {
    struct response_scratch *scratch;
    uint32_t part_count;
    bool part_overflow;
    int64_t part_output_index[RESPONSE_STREAM_PARTS_MAX];
    int64_t part_content_index[RESPONSE_STREAM_PARTS_MAX];
};

/* response_parse_state_reset clears the per-response fields of *s. */
void response_parse_state_reset(struct response_parse_state *s);

/* response_parse_event parses one SSE event's data, or one whole
 * non-streaming body (`len` bytes at `data`, borrowed; need not be
 * NUL-terminated), and fills *out (always reset first).
 *   - reader: required. state: may be NULL (no de-duplication, stack tokens).
 *   - event_type/event_type_len: the SSE "event:" name, or NULL/0. Responses
 *     and messages events are recognised by their JSON "type"; the event name
 *     is used only when "type" is absent.
 *   - "[DONE]" (surrounding whitespace allowed) -> RESPONSE_PARSE_DONE.
 *   - An object with a truthy "error" member, a responses "response.failed"
 *     or "error" event -> RESPONSE_PARSE_ERROR.
 *   - A payload of the type's own shape -> RESPONSE_PARSE_OK (also when it
 *     carries nothing): chat chat.completion(.chunk); completions
 *     text_completion/completion; responses any event with a "type", or
 *     object "response"; messages any event with a "type" (non-streaming:
 *     type "message"); embeddings data[] of object "embedding"; rankings
 *     "rankings" / "results" / a top-level array (hf_tei); TGI an object with
 *     "token" or "generated_text", or an array of them; image_generation an
 *     object with "b64_json" or a "data" list; image_retrieval a truthy
 *     "data"; solido_rag a truthy "content"; raw anything.
 *   - Any other object -> RESPONSE_PARSE_IGNORED; top-level usage is still read.
 *   - raw only: a body that is not JSON is one literal CONTENT piece (AIPerf
 *     takes a non-JSON body as text).
 * What is read as text: responses output_text.delta / reasoning_text.delta /
 * function_call_arguments.delta / output_text.done (fallback) and the
 * non-streaming output[] walk; messages content_block_delta text_delta /
 * thinking_delta / input_json_delta and content[] text / thinking / tool_use;
 * TGI token.text (streaming) or generated_text; raw and template response_field, then
 * embeddings -> rankings -> text auto-detection.
 * The JSON is fully validated (strict RFC 8259 syntax, no control bytes in
 * strings); malformed input returns an error status, never crashes. The
 * member names the readers look for are compared in their raw form (none
 * needs an escape), response_field's decoded; for a repeated name the last
 * one wins. Allocates nothing but the growth of state->scratch, kept for the
 * next payloads, when one needs more tokens or response_field values than it
 * holds; uses about 28 KiB of stack. */
enum response_parse_status response_parse_event(const struct response_reader *reader,
                                                struct response_parse_state *state,
                                                const char *event_type, size_t event_type_len,
                                                const char *data, size_t len,
                                                struct response_chunk *out);

/* response_parse_chunk is response_parse_event() for type `t` with no
 * response_field, no state and no event name: the original entry point of
 * the chat/completions engine, unchanged for those types. */
enum response_parse_status response_parse_chunk(enum endpoint_type t, const char *json, size_t len,
                                                struct response_chunk *out);

/* ---- A whole response, folded into its record -------------------------- */

/* response_limits bound what a record keeps of one response. */
struct response_limits {
    size_t max_events;     /* record.events has room for this many; later ones are counted */
    size_t max_text_bytes; /* room in record.text and in record.reasoning_text */
};

/* response_failure says why a response failed its request, for the record's
 * error: an HTTP-like code, a type (a static string: "SSEResponseError",
 * "ResponseParseError") and a message. */
struct response_failure {
    int code;
    const char *type;
    char message[RECORD_ERROR_MESSAGE_BYTES];
};

/* response_step is what one event (or body) did to its request. */
enum response_step {
    RESPONSE_STEP_MORE = 0,  /* read, nothing generated in it: wait for more */
    RESPONSE_STEP_GENERATED, /* output or reasoning arrived (the first one ends prefill) */
    RESPONSE_STEP_FAILED,    /* the request failed; *fail says why */
};

/* response_read_event folds one server-sent event of a streamed response
 * into `rec` (borrowed; its events, text and reasoning buffers sized by
 * `limits`), with AIPerf's stream rules:
 *   - `event: error` fails the request: with the server's error object when
 *     its data holds one, else with its comment or data as the message;
 *   - data after [DONE] fails it; a comment or a bare event name is skipped;
 *   - an error object in the data fails it; data that is not readable JSON
 *     of the endpoint's type fails it (ResponseParseError, code 502);
 *   - otherwise its text is appended (decoded), its usage counts kept, its
 *     end markers noted, and an event recorded at arrival_ns when it carried
 *     text, content or usage (flagged RECORD_EVENT_SAME_READ with same_read).
 * `reader` and `state` are response_parse_event()'s. Never allocates. */
enum response_step response_read_event(const struct response_reader *reader,
                                       struct response_parse_state *state,
                                       const struct response_limits *limits,
                                       const struct sse_event *ev, int64_t arrival_ns,
                                       bool same_read, struct record *rec,
                                       struct response_failure *fail);

/* response_read_body folds a whole non-streamed body into `rec`, as
 * response_read_event() does an event's data. */
enum response_step response_read_body(const struct response_reader *reader,
                                      struct response_parse_state *state,
                                      const struct response_limits *limits, const char *body,
                                      size_t len, int64_t arrival_ns, struct record *rec,
                                      struct response_failure *fail);

/* response_stream_ended_well applies the end-of-stream rule once a streamed
 * response is complete: an endpoint type that requires an end marker
 * (endpoint_type_stream_end_required) must have sent [DONE] or a
 * finish_reason. Returns true, or false with *fail set. */
bool response_stream_ended_well(const struct response_reader *reader, const struct record *rec,
                                struct response_failure *fail);

/* response_error_message writes the message of an error response's body
 * (status not 2xx) into out (cap bytes, NUL-terminated when cap > 0): the
 * server's error object's message when it has one, else the body itself. */
void response_error_message(const struct response_reader *reader, const char *body, size_t len,
                            char *out, size_t cap);

#endif
