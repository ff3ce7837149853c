/*
 * endpoint.h - request bodies and response parsing per endpoint type.
 *
 * Two halves with different rules:
 *   - Building request payloads and parsing --extra-inputs happen before the
 *     run, allocate freely (jansson) and return malloc'd strings.
 *   - Parsing responses is on the hot path: endpoint_parse_chunk() allocates
 *     nothing (jsmn with a fixed token array on the stack) and returns views
 *     into the caller's buffer.
 *
 * Behaviour follows AIPerf's openai_chat.py / openai_completions.py and
 * sse_utils.py (see /work/shared/spec/aiperf-reference.md §1.2 and §2.1).
 */
#ifndef RINGPERF_ENDPOINT_H
#define RINGPERF_ENDPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* endpoint_type is an AIPerf --endpoint-type this module supports. */
enum endpoint_type {
    ENDPOINT_CHAT,        /* "chat": /v1/chat/completions */
    ENDPOINT_COMPLETIONS, /* "completions": /v1/completions */
};

/* endpoint_type_name returns the static AIPerf name of `t` ("chat",
 * "completions"), or "unknown" for a value outside the enum. */
const char *endpoint_type_name(enum endpoint_type t);

/* endpoint_type_path returns the static default URL path of `t`
 * ("/v1/chat/completions", "/v1/completions"), or "" for an unknown value. */
const char *endpoint_type_path(enum endpoint_type t);

/* endpoint_type_parse sets *out from an AIPerf --endpoint-type name. Returns
 * 0, or -EINVAL (leaving *out alone) for a name this module does not support. */
int endpoint_type_parse(const char *name, enum endpoint_type *out);

/* ---- Request payloads (before the run; allocates) ---------------------- */

/* endpoint_payload_spec describes one request body. All strings are
 * borrowed for the duration of endpoint_payload_build() and must be UTF-8. */
struct endpoint_payload_spec {
    enum endpoint_type type;
    const char *model;             /* required */
    const char *prompt;            /* required: the user message / prompt text */
    uint64_t max_tokens;           /* 0: omit the field */
    bool streaming;                /* the "stream" value */
    bool use_legacy_max_tokens;    /* chat: send "max_tokens", not "max_completion_tokens" */
    const char *extra_inputs_json; /* NULL, or a JSON object merged after the base fields */
};

/* endpoint_payload_build returns the request body for `spec` as compact JSON
 * (malloc'd, NUL-terminated; the caller frees it with free()).
 *
 * Key order follows AIPerf: base fields first, then the keys of
 * extra_inputs_json merged shallowly (an existing key keeps its place and
 * takes the new value, including "model" and "stream"; new keys are appended),
 * then "stream_options" when the merged "stream" is truthy:
 *   chat:        {"messages":[{"role":"user","content":P}],"model":M,"stream":S,
 *                 "max_completion_tokens":N}   ("max_tokens" when legacy)
 *   completions: {"prompt":P,"model":M,"stream":S,"max_tokens":N}
 * stream_options: absent or null -> {"include_usage":true}; an object without
 * include_usage gets "include_usage":true appended; anything else is kept.
 * Real numbers are printed with the fewest digits that read back exactly.
 *
 * On error returns NULL and writes a one-line message into errbuf (errcap
 * bytes, may be NULL/0): missing model or prompt, text that is not UTF-8,
 * extra_inputs_json that is not a JSON object, max_tokens too large, or out
 * of memory. */
char *endpoint_payload_build(const struct endpoint_payload_spec *spec, char *errbuf, size_t errcap);

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

/* ENDPOINT_JSON_TOKENS_MAX bounds the JSON tokens of one payload (objects,
 * arrays, keys, strings and scalars each count as one). A streaming chunk
 * uses ~40; a non-streaming body with long logprobs can exceed it. */
#define ENDPOINT_JSON_TOKENS_MAX 1024
/* ENDPOINT_JSON_DEPTH_MAX bounds object/array nesting. */
#define ENDPOINT_JSON_DEPTH_MAX 64
/* ENDPOINT_JSON_BYTES_MAX bounds one payload (jsmn keeps int offsets). */
#define ENDPOINT_JSON_BYTES_MAX ((size_t)1 << 30)
/* ENDPOINT_TOOL_TEXT_MAX bounds the tool-call text pieces reported per chunk. */
#define ENDPOINT_TOOL_TEXT_MAX 8

/* endpoint_parse_status is the result of endpoint_parse_chunk(). */
enum endpoint_parse_status {
    ENDPOINT_PARSE_OK = 0,              /* a response object of this endpoint; *out filled */
    ENDPOINT_PARSE_DONE,                /* the "[DONE]" stream terminator (not content) */
    ENDPOINT_PARSE_IGNORED,             /* a JSON object of another kind; only usage may be set */
    ENDPOINT_PARSE_ERROR,               /* the server reported an error; error fields set */
    ENDPOINT_PARSE_ERR_MALFORMED,       /* not JSON, truncated, or nested too deep */
    ENDPOINT_PARSE_ERR_NOT_OBJECT,      /* valid JSON, but not an object */
    ENDPOINT_PARSE_ERR_TOO_MANY_TOKENS, /* more than ENDPOINT_JSON_TOKENS_MAX tokens */
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

/* endpoint_chunk is what endpoint_parse_chunk() extracts from one payload.
 * Views point into the parsed buffer and live as long as it does. Absent
 * fields are empty views, false flags and zero counts. */
struct endpoint_chunk {
    struct endpoint_str object; /* the "object" value, e.g. chat.completion.chunk */
    /* choices[0]: chat delta (streaming) or message (non-streaming) content,
     * or completions text. */
    struct endpoint_str content;
    /* chat reasoning_content, or reasoning when that is empty or absent. */
    struct endpoint_str reasoning;
    /* chat tool_calls[].function name and arguments pieces, in order; not
     * reported when reasoning is present (AIPerf gives reasoning priority). */
    struct endpoint_str tool_text[ENDPOINT_TOOL_TEXT_MAX];
    size_t tool_text_count;
    bool tool_text_truncated; /* more than ENDPOINT_TOOL_TEXT_MAX pieces */
    /* true when the chunk counts as a content response for TTFT/ITL (AIPerf's
     * content_responses): non-empty content, reasoning or tool text. Role-only
     * first chunks, usage-only chunks and [DONE] are not content. */
    bool is_content;
    /* choices[0].finish_reason is present and not null; the view is set when
     * it is a string. */
    bool has_finish_reason;
    struct endpoint_str finish_reason;
    /* usage, from any chunk kind, when it is a non-empty object. Counts are
     * read when they are non-negative integers. */
    bool has_usage;
    bool has_prompt_tokens;
    bool has_completion_tokens;
    bool has_reasoning_tokens; /* usage.completion_tokens_details.reasoning_tokens */
    uint64_t prompt_tokens;
    uint64_t completion_tokens;
    uint64_t reasoning_tokens;
    /* ENDPOINT_PARSE_ERROR only: error.code when it is an integer in
     * 400..599, else 502; error.type; the message (error.message, or the
     * error value itself when it is a string). When there is no string
     * message, error_message is the raw JSON text of the error value and
     * error_message_is_json is set (AIPerf prints it as JSON). */
    int error_code;
    struct endpoint_str error_type;
    struct endpoint_str error_message;
    bool error_message_is_json;
};

/* endpoint_parse_chunk parses one SSE data payload or one whole
 * non-streaming response body (`len` bytes at `json`, borrowed; need not be
 * NUL-terminated) for endpoint type `t`, and fills *out (always reset first).
 *   - "[DONE]" (surrounding whitespace allowed) -> ENDPOINT_PARSE_DONE.
 *   - An object with a truthy "error" member -> ENDPOINT_PARSE_ERROR.
 *   - chat: object "chat.completion.chunk" reads choices[0].delta,
 *     "chat.completion" reads choices[0].message; completions: object
 *     "text_completion" or "completion" reads choices[0].text
 *     -> ENDPOINT_PARSE_OK (also with no or empty choices).
 *   - Any other object (including one without "object") ->
 *     ENDPOINT_PARSE_IGNORED; usage is still read, as AIPerf does.
 * The JSON is fully validated (strict RFC 8259 syntax, no control bytes in
 * strings); malformed input returns an error status, never crashes. Member
 * names are compared in their raw (escaped) form; for a repeated name the
 * last one wins. Allocates nothing; uses about 20 KiB of stack. */
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
