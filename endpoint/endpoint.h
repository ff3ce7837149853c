/*
 * endpoint.h - request bodies and response parsing per endpoint type.
 *
 * Two halves with different rules:
 *   - Building request payloads and parsing --extra-inputs happen before the
 *     run, allocate freely (jansson) and return malloc'd strings.
 *   - Parsing responses is on the hot path: endpoint_parse_event() allocates
 *     nothing (a strict one-pass tokenizer building jsmn's token tree in a
 *     fixed array on the stack, or in a scratch allocated before the run) and
 *     returns views into the caller's buffer.
 *
 * Behaviour follows AIPerf's the src/aiperf/endpoints/ modules and sse_utils.py (see
 * /work/shared/spec/aiperf-reference.md §1.1, §1.2 and §2.1).
 */
#ifndef RINGPERF_ENDPOINT_H
#define RINGPERF_ENDPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* endpoint_type is an AIPerf --endpoint-type this module supports. The order
 * follows config's enum (chat ... huggingface_generate, then raw); map a
 * config value by name: endpoint_type_parse(config_endpoint_type_name(v)). */
enum endpoint_type {
    ENDPOINT_CHAT,                 /* "chat": /v1/chat/completions */
    ENDPOINT_COMPLETIONS,          /* "completions": /v1/completions */
    ENDPOINT_RESPONSES,            /* "responses": /v1/responses (OpenAI Responses API) */
    ENDPOINT_MESSAGES,             /* "messages": /v1/messages (Anthropic) */
    ENDPOINT_EMBEDDINGS,           /* "embeddings": /v1/embeddings */
    ENDPOINT_CHAT_EMBEDDINGS,      /* "chat_embeddings": /v1/embeddings, chat-shaped body */
    ENDPOINT_NIM_EMBEDDINGS,       /* "nim_embeddings": /v1/embeddings */
    ENDPOINT_NIM_RANKINGS,         /* "nim_rankings" (old name "rankings"): /v1/ranking */
    ENDPOINT_COHERE_RANKINGS,      /* "cohere_rankings": /v2/rerank */
    ENDPOINT_HF_TEI_RANKINGS,      /* "hf_tei_rankings": /rerank */
    ENDPOINT_HUGGINGFACE_GENERATE, /* "huggingface_generate": /generate, /generate_stream */
    ENDPOINT_RAW,                  /* "raw": no path; payload verbatim; response auto-detected */
    ENDPOINT_TYPE_COUNT
};

/* endpoint_type_name returns the static AIPerf name of `t` ("chat",
 * "completions", ...), or "unknown" for a value outside the enum. */
const char *endpoint_type_name(enum endpoint_type t);

/* endpoint_type_path returns the static default URL path of `t`
 * ("/v1/chat/completions", ...; "/generate" for huggingface_generate), or ""
 * for raw and for an unknown value. */
const char *endpoint_type_path(enum endpoint_type t);

/* endpoint_type_stream_path returns the static URL path of `t` when
 * streaming: "/generate_stream" for huggingface_generate, otherwise the same
 * as endpoint_type_path(). */
const char *endpoint_type_stream_path(enum endpoint_type t);

/* endpoint_type_parse sets *out from an AIPerf --endpoint-type name
 * (including the old name "rankings" for nim_rankings). Returns 0, or
 * -EINVAL (leaving *out alone) for a name this module does not support. */
int endpoint_type_parse(const char *name, enum endpoint_type *out);

/* endpoint_type_streams reports whether `t` can stream (SSE). AIPerf turns
 * --streaming off silently for the others (embeddings, rankings). */
bool endpoint_type_streams(enum endpoint_type t);

/* endpoint_type_produces_tokens reports whether `t` generates output text
 * (token metrics apply). False for embeddings and rankings. */
bool endpoint_type_produces_tokens(enum endpoint_type t);

/* endpoint_type_stream_end_required reports whether AIPerf fails a stream of
 * `t` that ends without "[DONE]" or a finish_reason (chat and completions).
 * Every streaming type reports its own end marker through
 * endpoint_chunk.has_finish_reason, so a caller may check it for all. */
bool endpoint_type_stream_end_required(enum endpoint_type t);

/* ENDPOINT_ANTHROPIC_VERSION is the anthropic-version header value sent with
 * `messages` requests. */
#define ENDPOINT_ANTHROPIC_VERSION "2023-06-01"
/* ENDPOINT_AUTH_HEADERS_MAX bounds what endpoint_auth_headers() returns. */
#define ENDPOINT_AUTH_HEADERS_MAX 2

/* endpoint_header is one request header; both strings are borrowed. */
struct endpoint_header {
    const char *name;
    const char *value;
};

/* endpoint_auth_headers fills out[] with the headers `t` sends for
 * authentication and sets *out_count (0..ENDPOINT_AUTH_HEADERS_MAX):
 *   messages: "x-api-key: KEY" (only with a key) and always
 *             "anthropic-version: " ENDPOINT_ANTHROPIC_VERSION;
 *   others:   "Authorization: Bearer KEY" (only with a key).
 * `api_key` may be NULL (no key). Names and the anthropic-version value are
 * static; an x-api-key value borrows api_key; a Bearer value is written into
 * buf (cap bytes, NUL-terminated), which must outlive the headers' use. The
 * caller sends these before its own -H headers, which override them.
 * Returns 0, or -ENOSPC when buf is smaller than strlen(api_key) + 8. */
int endpoint_auth_headers(enum endpoint_type t, const char *api_key, char *buf, size_t cap,
                          struct endpoint_header out[ENDPOINT_AUTH_HEADERS_MAX], size_t *out_count);

/* ---- Request payloads (before the run; allocates) ---------------------- */

/* ENDPOINT_MESSAGES_MAX_TOKENS_DEFAULT is the "max_tokens" a `messages`
 * body carries when the spec gives none (the API requires the field; AIPerf
 * [main] sends 1024). */
#define ENDPOINT_MESSAGES_MAX_TOKENS_DEFAULT 1024

/* endpoint_payload_spec describes one request body. All strings are
 * borrowed for the duration of endpoint_payload_build() and must be UTF-8.
 * Fields after extra_inputs_json were added later: zero values keep the
 * earlier behaviour, so old initialisers still build the same bodies. */
struct endpoint_media;

/* endpoint_message is one earlier message of a multi-turn conversation: role
 * "user" or "assistant", and its text (a view: len bytes, need not be
 * NUL-terminated). A user message may carry media (NULL: none); its text must
 * then be NUL-terminated, and it is sent as content parts as the new turn's
 * would be. */
struct endpoint_message {
    const char *role;
    const char *text;
    size_t len;
    const struct endpoint_media *media;
};

/* endpoint_media is the media of one user turn; everything is borrowed.
 * images[] are URLs or data URIs ("data:image/png;base64,..."), audios[] are
 * AIPerf's "<format>,<base64>" strings ("wav,UklGR..."). Empty entries are
 * skipped, as AIPerf does. */
struct endpoint_media {
    const char *const *images;
    size_t image_count;
    const char *const *audios;
    size_t audio_count;
};

struct endpoint_payload_spec {
    enum endpoint_type type;
    const char *model;          /* required except hf_tei_rankings, huggingface_generate, raw */
    const char *prompt;         /* the user message / prompt text (see texts) */
    uint64_t max_tokens;        /* 0: omit the field (messages: send the default) */
    bool streaming;             /* the "stream" value */
    bool use_legacy_max_tokens; /* chat: send "max_tokens", not "max_completion_tokens" */
    /* AIPerf's --cache-bust: a marker "[rid:<12 hex digits of
     * cache_bust_key>]" set apart by a blank line at the start or end of the
     * system prompt (an absent one becomes the marker alone), or of the
     * prompt (the caller sets a FIRST_TURN target on a conversation's first
     * turn only), so that no two conversations share a cached prefix there. */
    enum endpoint_cache_bust {
        ENDPOINT_CACHE_BUST_NONE,
        ENDPOINT_CACHE_BUST_SYSTEM_PREFIX,
        ENDPOINT_CACHE_BUST_SYSTEM_SUFFIX,
        ENDPOINT_CACHE_BUST_FIRST_TURN_PREFIX,
        ENDPOINT_CACHE_BUST_FIRST_TURN_SUFFIX,
    } cache_bust;
    uint64_t cache_bust_key;
    /* chat, streaming: ask for usage on every chunk (vLLM's
     * stream_options.continuous_usage_stats; AIPerf's --per-chunk-usage). */
    bool per_chunk_usage;
    const char *extra_inputs_json; /* NULL, or a JSON object merged after the base fields */
    /* The shared system prompt: chat and chat_embeddings put it in a leading
     * {"role":"system"} message, responses in "instructions", messages in
     * "system"; other types ignore it. NULL or "": none. */
    const char *system_prompt;
    /* embeddings, nim_embeddings: the "input" list; huggingface_generate: the
     * texts joined with one space into "inputs". Empty strings are skipped,
     * as AIPerf does. NULL with text_count 0: the prompt is the one text. */
    const char *const *texts;
    size_t text_count;
    /* Rankings: the query (required) and the passages to rank (may be 0). */
    const char *query;
    const char *const *passages;
    size_t passage_count;
    /* responses: ask for stream_options.include_usage when streaming (AIPerf
     * adds it there only with --use-server-token-count). */
    bool use_server_token_count;
    /* Any type: when not NULL this body is returned verbatim (a copy) and
     * every other field is ignored. Required for raw. */
    const char *raw_payload;
    /* chat, responses, messages: the conversation so far, sent between the
     * system prompt and the prompt (the user's new turn); other types send the
     * prompt alone. A text cut inside a UTF-8 character (a truncated reply)
     * loses the partial character. */
    const struct endpoint_message *history;
    size_t history_count;
    /* chat, chat_embeddings, responses, messages: the images and audio clips of
     * the user's new turn, sent with the prompt as content parts (see
     * endpoint_payload_build). Other types reject media. */
    struct endpoint_media media;
};

/* endpoint_cache_bust_text returns `text` (NULL counts as empty) with the
 * marker of `key` where `where` puts it, as endpoint_payload_build does
 * (malloc'd; NULL when out of memory): for a conversation's history, whose
 * first user turn must read as it was sent. */
char *endpoint_cache_bust_text(enum endpoint_cache_bust where, uint64_t key, const char *text);

/* endpoint_payload_build returns the request body for `spec` as compact JSON
 * (malloc'd, NUL-terminated; the caller frees it with free()).
 *
 * Key order follows AIPerf: base fields first, then the keys of
 * extra_inputs_json merged shallowly (an existing key keeps its place and
 * takes the new value, including "model" and "stream"; new keys are appended),
 * then "stream_options" where noted. With S = streaming, N = max_tokens,
 * P = prompt, Y = system_prompt, T = texts:
 *   chat:        {"messages":[{"role":"system","content":Y}?,{"role":"user","content":P}],
 *                 "model":M,"stream":S,"max_completion_tokens":N}  ("max_tokens" when legacy)
 *   chat_embeddings: as chat, but "stream" is always false
 *   completions: {"prompt":P,"model":M,"stream":S,"max_tokens":N}
 *   responses:   {"input":[{"role":"user","content":P,"type":"message"}],"model":M,
 *                 "stream":S,"instructions":Y,"max_output_tokens":N}
 *   messages:    {"messages":[{"role":"user","content":P}],"model":M,"max_tokens":N or 1024,
 *                 "stream":true (only when S),"system":Y}
 *   embeddings, nim_embeddings: {"model":M,"input":[T...]}  (never max_tokens)
 *   nim_rankings:    {"model":M,"query":{"text":Q},"passages":[{"text":p},...]}
 *   cohere_rankings: {"model":M,"query":Q,"documents":[p,...]}
 *   hf_tei_rankings: {"query":Q,"texts":[p,...]}
 *   huggingface_generate: {"inputs":"T joined by ' '","parameters":{"max_new_tokens":N}}
 *                 -- here the extra inputs merge into "parameters", as AIPerf does
 *   raw / raw_payload: the raw_payload bytes, unchanged.
 * With media (spec.media), the user message's "content" becomes a list of parts
 * in AIPerf's order, text (when not empty), images, then audio; without media
 * it stays the bare prompt string:
 *   chat:      {"type":"text","text":P}, {"type":"image_url","image_url":{"url":I}},
 *              {"type":"input_audio","input_audio":{"data":B64,"format":F}}
 *   responses: {"type":"input_text","text":P}, {"type":"input_image","image_url":I},
 *              {"type":"input_audio","input_audio":{"data":B64,"format":F}}
 *   messages:  {"type":"text","text":P}, {"type":"image","source":{"type":"base64",
 *              "media_type":M,"data":B64}} for a base64 data URI, else
 *              {"type":"image","source":{"type":"url","url":I}}; audio is an error.
 * An audio string without a ',' is an error; media for other types is an error.
 * Optional members (Y, N) are left out when unset. stream_options: chat and
 * completions whenever the merged "stream" is truthy, responses only when
 * streaming && use_server_token_count; absent or null -> {"include_usage":true};
 * an object without include_usage gets "include_usage":true appended; anything
 * else is kept. Real numbers are printed with the fewest digits that read
 * back exactly.
 *
 * On error returns NULL and writes a one-line message into errbuf (errcap
 * bytes, may be NULL/0): a missing model, prompt or query, text that is not
 * UTF-8, extra_inputs_json that is not a JSON object, max_tokens too large,
 * raw without raw_payload, or out of memory. */
char *endpoint_payload_build(const struct endpoint_payload_spec *spec, char *errbuf, size_t errcap);

/* endpoint_extra_inputs_take_string removes member `key` from the JSON
 * object text `extra_json` when its value is a string, for extra inputs that
 * configure ringperf rather than the request (raw's "response_field").
 * On success *out_value is the string (malloc'd, or NULL when the key is
 * absent or not a string) and *out_rest is the object without it (malloc'd,
 * compact). Returns 0, -EINVAL (extra_json is not a JSON object) or -ENOMEM;
 * nothing is written on error. */
int endpoint_extra_inputs_take_string(const char *extra_json, const char *key, char **out_value,
                                      char **out_rest);

/* endpoint_extra_inputs_parse turns AIPerf --extra-inputs values into one JSON
 * object (compact, malloc'd into *out_json; the caller frees it; "{}" for
 * n == 0). Each of the n `items` is either
 *   - a JSON object string (first non-blank byte '{'), whose members are
 *     merged as they are, or
 *   - one or more comma-separated key:value pairs, split at the first ':',
 *     key and value trimmed, and the value typed like AIPerf does:
 *     true/false (any case) -> bool, none/null -> null, an integer without
 *     leading zeros -> int, digits with one '.' -> float, else a string.
 * Later keys overwrite earlier ones. Returns 0; -EINVAL with a message in
 * errbuf that names the bad item and shows the expected form; or -ENOMEM.
 * *out_json is only written on success. */
int endpoint_extra_inputs_parse(const char *const *items, size_t n, char **out_json, char *errbuf,
                                size_t errcap);

/* ---- Response parsing (hot path; never allocates) ---------------------- */

/* ENDPOINT_JSON_TOKENS_MAX bounds the JSON tokens of one payload parsed
 * without a scratch (objects, arrays, keys, strings and scalars each count as
 * one). A streaming chunk uses ~40; a non-streaming body with long logprobs
 * or an embeddings body exceeds it: give those an endpoint_scratch. */
#define ENDPOINT_JSON_TOKENS_MAX 1024
/* ENDPOINT_JSON_DEPTH_MAX bounds object/array nesting. */
#define ENDPOINT_JSON_DEPTH_MAX 64
/* ENDPOINT_JSON_BYTES_MAX bounds one payload (tokens keep int offsets). */
#define ENDPOINT_JSON_BYTES_MAX ((size_t)1 << 30)
/* ENDPOINT_TOOL_TEXT_MAX bounds the tool-call text pieces reported per chunk. */
#define ENDPOINT_TOOL_TEXT_MAX 8
/* ENDPOINT_TEXTS_MAX bounds the text pieces of one payload in endpoint_chunk.texts. */
#define ENDPOINT_TEXTS_MAX 32

/* endpoint_parse_status is the result of endpoint_parse_event(). */
enum endpoint_parse_status {
    ENDPOINT_PARSE_OK = 0,              /* a response object of this endpoint; *out filled */
    ENDPOINT_PARSE_DONE,                /* the "[DONE]" stream terminator (not content) */
    ENDPOINT_PARSE_IGNORED,             /* a JSON object of another kind; only usage may be set */
    ENDPOINT_PARSE_ERROR,               /* the server reported an error; error fields set */
    ENDPOINT_PARSE_ERR_MALFORMED,       /* not JSON, truncated, or nested too deep */
    ENDPOINT_PARSE_ERR_NOT_OBJECT,      /* valid JSON, but not an object this type reads */
    ENDPOINT_PARSE_ERR_TOO_MANY_TOKENS, /* more JSON tokens than the token space holds */
    ENDPOINT_PARSE_ERR_TOO_LARGE,       /* more than ENDPOINT_JSON_BYTES_MAX bytes */
};

/* endpoint_parse_status_name returns a stable, static description of `s`. */
const char *endpoint_parse_status_name(enum endpoint_parse_status s);

/* endpoint_str is a view (pointer, length) into the buffer that was parsed.
 * Text views hold the string's JSON-escaped bytes without the quotes; decode
 * them with endpoint_json_unescape(). ptr is "" when len is 0. */
struct endpoint_str {
    const char *ptr;
    size_t len;
};

/* endpoint_text_kind says what a piece of generated text is. AIPerf counts
 * CONTENT and TOOL as output tokens and REASONING as reasoning tokens. */
enum endpoint_text_kind {
    ENDPOINT_TEXT_CONTENT = 0,
    ENDPOINT_TEXT_REASONING,
    ENDPOINT_TEXT_TOOL,
};

/* endpoint_text is one piece of generated text. `text` is JSON-escaped
 * (decode with endpoint_json_unescape()) unless `literal` is set, in which
 * case its bytes are the text itself: a raw non-JSON body, or the JSON of an
 * Anthropic tool_use "input" object. */
struct endpoint_text {
    struct endpoint_str text;
    enum endpoint_text_kind kind;
    bool literal;
};

/* endpoint_chunk is what endpoint_parse_event() extracts from one payload.
 * Views point into the parsed buffer and live as long as it does. Absent
 * fields are empty views, false flags and zero counts. */
struct endpoint_chunk {
    /* The "object" value; for responses and messages events the "type" value,
     * or, without one, the event_type given (then the view points there). */
    struct endpoint_str object;
    /* texts[] (at the end) is every piece of generated text in order, for
     * every type; new code reads only that. Empty pieces are never listed. */
    size_t text_count;
    bool texts_truncated; /* more than ENDPOINT_TEXTS_MAX pieces */
    /* The older per-kind views, kept for the chat/completions callers: the
     * first escaped CONTENT piece, the first escaped REASONING piece, and up
     * to ENDPOINT_TOOL_TEXT_MAX escaped TOOL pieces (chat: the delta/message
     * content, reasoning_content or reasoning, tool_calls[].function name and
     * arguments; tool calls are not reported when reasoning is present, as
     * AIPerf gives reasoning priority). */
    struct endpoint_str content;
    struct endpoint_str reasoning;
    size_t tool_text_count;   /* pieces in tool_text[] (at the end) */
    bool tool_text_truncated; /* more than ENDPOINT_TOOL_TEXT_MAX pieces */
    /* Non-token endpoints: embedding vectors and ranking results found. */
    size_t embedding_count;
    size_t ranking_count;
    /* true when the payload counts as a content response for TTFT/ITL and
     * for a record being valid (AIPerf's content_responses): it carries text,
     * embeddings or rankings, or it is a responses output_text.done whose
     * text was already streamed (kept for timing, its text dropped). Role-only
     * chunks, usage-only chunks, structural events and [DONE] are not. */
    bool is_content;
    /* The stream's end marker was seen: chat/completions choices[0]
     * finish_reason not null; responses response.completed or
     * response.incomplete; messages message_delta with a stop_reason, or
     * message_stop; huggingface_generate an event whose generated_text is a
     * string. finish_reason is the reason when there is a string one
     * (finish_reason, response status or incomplete_details.reason,
     * stop_reason, details.finish_reason). */
    bool has_finish_reason;
    struct endpoint_str finish_reason;
    /* usage, when it is a non-empty object: top-level "usage" of any type,
     * responses response.usage, messages message.usage. Counts are read when
     * they are non-negative integers: prompt_tokens or input_tokens;
     * completion_tokens or output_tokens; completion_tokens_details or
     * output_tokens_details .reasoning_tokens; total_tokens. The detail
     * counts, under the first of their vendor names that is present:
     * cache_read_tokens: prompt_tokens_details or input_tokens_details
     * .cached_tokens (OpenAI, vLLM, Responses), cache_read_input_tokens
     * (Anthropic), prompt_cache_hit_tokens (DeepSeek), cacheReadInputTokens
     * (Bedrock); cache_write_tokens: cache_creation_input_tokens,
     * cacheWriteInputTokens; cache_miss_tokens: prompt_cache_miss_tokens;
     * prompt_audio_tokens: prompt_tokens_details.audio_tokens;
     * completion_audio_tokens, accepted_prediction_tokens,
     * rejected_prediction_tokens: completion_tokens_details.*;
     * tool_use_prompt_tokens: tool_use_prompt_tokens or
     * toolUsePromptTokenCount; prompt_audio_seconds (a non-negative number,
     * not only an integer): prompt_audio_seconds (Mistral). A null details
     * object (vLLM) is no details. */
    bool has_usage;
    bool has_prompt_tokens;
    bool has_completion_tokens;
    bool has_reasoning_tokens;
    bool has_total_tokens;
    uint64_t total_tokens;
    uint64_t prompt_tokens;
    uint64_t completion_tokens;
    uint64_t reasoning_tokens;
    bool has_cache_read_tokens;
    bool has_cache_write_tokens;
    bool has_cache_miss_tokens;
    bool has_prompt_audio_tokens;
    bool has_completion_audio_tokens;
    bool has_tool_use_prompt_tokens;
    bool has_accepted_prediction_tokens;
    bool has_rejected_prediction_tokens;
    bool has_prompt_audio_seconds;
    uint64_t cache_read_tokens;
    uint64_t cache_write_tokens;
    uint64_t cache_miss_tokens;
    uint64_t prompt_audio_tokens;
    uint64_t completion_audio_tokens;
    uint64_t tool_use_prompt_tokens;
    uint64_t accepted_prediction_tokens;
    uint64_t rejected_prediction_tokens;
    double prompt_audio_seconds;
    /* ENDPOINT_PARSE_ERROR only: error.code when it is an integer in
     * 400..599, else 502; error.type; the message (error.message, or the
     * error value itself when it is a string). When there is no string
     * message, error_message is the raw JSON text of the error value and
     * error_message_is_json is set (AIPerf prints it as JSON). */
    int error_code;
    struct endpoint_str error_type;
    struct endpoint_str error_message;
    bool error_message_is_json;
    /* The arrays come last: endpoint_parse_event() clears only what is before
     * them (they are 1 KiB, cleared per event that showed in profiles), and
     * only their first text_count and tool_text_count entries are ever set. */
    struct endpoint_text texts[ENDPOINT_TEXTS_MAX];
    struct endpoint_str tool_text[ENDPOINT_TOOL_TEXT_MAX];
};

/* ---- Run-wide reader and per-request state ------------------------------ */

/* ENDPOINT_FIELD_STEPS_MAX and ENDPOINT_FIELD_NAME_MAX bound a compiled
 * response_field path (steps, and bytes of one member name). */
#define ENDPOINT_FIELD_STEPS_MAX 16
#define ENDPOINT_FIELD_NAME_MAX 64

/* endpoint_field_step is one step of a response_field path: a member name,
 * or an array index (negative counts from the end). */
struct endpoint_field_step {
    bool is_index;
    uint8_t name_len;
    int32_t index;
    char name[ENDPOINT_FIELD_NAME_MAX];
};

/* endpoint_reader is the run-wide, read-only description of how responses
 * are read: the endpoint type and raw's compiled response_field. Set it up
 * once with endpoint_reader_init(); share it between threads. */
struct endpoint_reader {
    enum endpoint_type type;
    size_t field_step_count; /* 0: no response_field */
    struct endpoint_field_step field[ENDPOINT_FIELD_STEPS_MAX];
};

/* endpoint_reader_init sets up *r for type `t` with an optional
 * response_field (--extra-inputs response_field:<path>, used by raw; NULL or
 * "" for none). The supported JMESPath subset is member names and indexes:
 * `name(.name | [N] | [-N])*`, e.g. "choices[0].message.content",
 * "data[-1].embedding"; names are [A-Za-z_][A-Za-z0-9_]* or "double quoted"
 * (no escapes). Returns 0, or -EINVAL with a message in errbuf for a path
 * outside that subset or its limits; *r is then still a valid reader without
 * a path (AIPerf logs the error and falls back to auto-detection). */
int endpoint_reader_init(struct endpoint_reader *r, enum endpoint_type t,
                         const char *response_field, char *errbuf, size_t errcap);

/* endpoint_scratch is token space for parsing bodies bigger than the stack
 * array allows (embeddings easily have 10^5 numbers). Opaque; one per
 * thread. */
struct endpoint_scratch;

/* endpoint_scratch_new allocates room for `tokens_max` JSON tokens (about 20
 * bytes each; bytes/2 + 1 tokens always suffice for a body of `bytes`). Call
 * before the run. Returns NULL when out of memory or tokens_max is 0 or over
 * INT32_MAX. Free with endpoint_scratch_free() (NULL is a no-op). */
struct endpoint_scratch *endpoint_scratch_new(size_t tokens_max);
void endpoint_scratch_free(struct endpoint_scratch *s);

/* ENDPOINT_STREAM_PARTS_MAX bounds the responses output parts remembered per
 * request for output_text.done de-duplication. */
#define ENDPOINT_STREAM_PARTS_MAX 16

/* endpoint_parse_state is one request's parsing state, caller-allocated (e.g.
 * in the connection). `scratch` is borrowed and set by the caller (NULL: the
 * stack's ENDPOINT_JSON_TOKENS_MAX tokens); call endpoint_parse_state_reset()
 * before each response, which keeps scratch. The rest is private: the
 * responses (output_index, content_index) parts that streamed deltas, so that
 * their output_text.done is not counted twice. */
struct endpoint_parse_state {
    struct endpoint_scratch *scratch;
    uint32_t part_count;
    bool part_overflow;
    int64_t part_output_index[ENDPOINT_STREAM_PARTS_MAX];
    int64_t part_content_index[ENDPOINT_STREAM_PARTS_MAX];
};

/* endpoint_parse_state_reset clears the per-response fields of *s. */
void endpoint_parse_state_reset(struct endpoint_parse_state *s);

/* endpoint_parse_event parses one SSE event's data, or one whole
 * non-streaming body (`len` bytes at `data`, borrowed; need not be
 * NUL-terminated), and fills *out (always reset first).
 *   - reader: required. state: may be NULL (no de-duplication, stack tokens).
 *   - event_type/event_type_len: the SSE "event:" name, or NULL/0. Responses
 *     and messages events are recognised by their JSON "type"; the event name
 *     is used only when "type" is absent.
 *   - "[DONE]" (surrounding whitespace allowed) -> ENDPOINT_PARSE_DONE.
 *   - An object with a truthy "error" member, a responses "response.failed"
 *     or "error" event -> ENDPOINT_PARSE_ERROR.
 *   - A payload of the type's own shape -> ENDPOINT_PARSE_OK (also when it
 *     carries nothing): chat chat.completion(.chunk); completions
 *     text_completion/completion; responses any event with a "type", or
 *     object "response"; messages any event with a "type" (non-streaming:
 *     type "message"); embeddings data[] of object "embedding"; rankings
 *     "rankings" / "results" / a top-level array (hf_tei); TGI an object with
 *     "token" or "generated_text", or an array of them; raw anything.
 *   - Any other object -> ENDPOINT_PARSE_IGNORED; top-level usage is still read.
 *   - raw only: a body that is not JSON is one literal CONTENT piece (AIPerf
 *     takes a non-JSON body as text).
 * What is read as text: responses output_text.delta / reasoning_text.delta /
 * function_call_arguments.delta / output_text.done (fallback) and the
 * non-streaming output[] walk; messages content_block_delta text_delta /
 * thinking_delta / input_json_delta and content[] text / thinking / tool_use;
 * TGI token.text (streaming) or generated_text; raw response_field, then
 * embeddings -> rankings -> text auto-detection.
 * The JSON is fully validated (strict RFC 8259 syntax, no control bytes in
 * strings); malformed input returns an error status, never crashes. Member
 * names are compared in their raw (escaped) form; for a repeated name the
 * last one wins. Allocates nothing; uses about 20 KiB of stack. */
enum endpoint_parse_status endpoint_parse_event(const struct endpoint_reader *reader,
                                                struct endpoint_parse_state *state,
                                                const char *event_type, size_t event_type_len,
                                                const char *data, size_t len,
                                                struct endpoint_chunk *out);

/* endpoint_parse_chunk is endpoint_parse_event() for type `t` with no
 * response_field, no state and no event name: the original entry point of
 * the chat/completions engine, unchanged for those types. */
enum endpoint_parse_status endpoint_parse_chunk(enum endpoint_type t, const char *json, size_t len,
                                                struct endpoint_chunk *out);

/* endpoint_json_unescape decodes the JSON-escaped string bytes `esc` (`len`
 * bytes, as found between the quotes) into UTF-8 at `out` (`cap` bytes) and
 * returns the number of bytes written; it never writes more than `cap` and
 * never NUL-terminates. The output is never longer than the input, so
 * cap >= len always suffices.
 *   - \" \\ \/ \b \f \n \r \t and \uXXXX are decoded; a surrogate pair
 *     becomes one 4-byte sequence; a lone surrogate becomes U+FFFD; \u0000
 *     becomes a NUL byte.
 *   - An invalid escape (unknown letter, short \u, trailing backslash) is
 *     copied through unchanged.
 *   - Other bytes are copied as they are (not validated as UTF-8).
 * When the output does not fit, decoding stops at the last whole character
 * that fits and *out_truncated (if not NULL) is set to true; otherwise it is
 * set to false. */
size_t endpoint_json_unescape(const char *esc, size_t len, char *out, size_t cap,
                              bool *out_truncated);

#endif
