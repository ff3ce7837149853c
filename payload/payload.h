/*
 * payload.h - request bodies per endpoint type, and --extra-inputs. All of it
 * runs before the run: it allocates freely (jansson) and returns malloc'd
 * strings.
 *
 * Behaviour follows AIPerf's src/aiperf/endpoints/ modules (see
 * /work/shared/spec/aiperf-reference.md §1.1 and §1.2).
 */
#ifndef RINGPERF_PAYLOAD_H
#define RINGPERF_PAYLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "endpoint/endpoint.h"

struct template;

/* PAYLOAD_MESSAGES_MAX_TOKENS_DEFAULT is the "max_tokens" a `messages`
 * body carries when the spec gives none (the API requires the field; AIPerf
 * [main] sends 1024). */
#define PAYLOAD_MESSAGES_MAX_TOKENS_DEFAULT 1024

/* payload_spec describes one request body. All strings are
 * borrowed for the duration of payload_build() and must be UTF-8.
 * Fields after extra_inputs_json were added later: zero values keep the
 * earlier behaviour, so old initialisers still build the same bodies. */
struct payload_media;

/* payload_message is one earlier message of a multi-turn conversation: role
 * "user" or "assistant", and its text (a view: len bytes, need not be
 * NUL-terminated). A user message may carry media (NULL: none); its text must
 * then be NUL-terminated, and it is sent as content parts as the new turn's
 * would be. */
struct payload_message {
    const char *role;
    const char *text;
    size_t len;
    const struct payload_media *media;
};

/* payload_media is the media of one user turn; everything is borrowed.
 * images[] are URLs or data URIs ("data:image/png;base64,..."), audios[] are
 * AIPerf's "<format>,<base64>" strings ("wav,UklGR..."). Empty entries are
 * skipped, as AIPerf does. */
struct payload_media {
    const char *const *images;
    size_t image_count;
    const char *const *audios;
    size_t audio_count;
};

struct payload_spec {
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
    enum payload_cache_bust {
        PAYLOAD_CACHE_BUST_NONE,
        PAYLOAD_CACHE_BUST_SYSTEM_PREFIX,
        PAYLOAD_CACHE_BUST_SYSTEM_SUFFIX,
        PAYLOAD_CACHE_BUST_FIRST_TURN_PREFIX,
        PAYLOAD_CACHE_BUST_FIRST_TURN_SUFFIX,
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
    const struct payload_message *history;
    size_t history_count;
    /* chat, chat_embeddings, responses, messages: the images and audio clips of
     * the user's new turn, sent with the prompt as content parts (see
     * payload_build); image_retrieval: its images (audio is refused); template:
     * its images and audios variables. Other types reject media. */
    struct payload_media media;
    /* template: the compiled payload_template (borrowed; required). */
    const struct template *template;
};

/* payload_cache_bust_text returns `text` (NULL counts as empty) with the
 * marker of `key` where `where` puts it, as payload_build does
 * (malloc'd; NULL when out of memory): for a conversation's history, whose
 * first user turn must read as it was sent. */
char *payload_cache_bust_text(enum payload_cache_bust where, uint64_t key, const char *text);

/* payload_build returns the request body for `spec` as compact JSON
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
 *   image_generation: {"prompt":P,"model":M,"response_format":"b64_json","n":1,
 *                 "stream":true (only when S)}
 *   image_retrieval: {"input":[{"type":"image_url","url":I},...]} (the media's images,
 *                 at least one; no model)
 *   solido_rag:  {"query":[T...],"filters":{"family":"Solido","tool":"SDE"},
 *                 "inference_model":M}
 *   template:    spec.template rendered with AIPerf's variables (texts = T or [P], text,
 *                 images, image, audios, audio, model, max_tokens (null when 0), stream,
 *                 turn, turns, request_info.turns; the by-name maps, queries and passages
 *                 empty; videos none), read back as JSON; the extra inputs merge into it
 *                 when it is an object (an error otherwise)
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
char *payload_build(const struct payload_spec *spec, char *errbuf, size_t errcap);

/* payload_extra_inputs_take_string removes member `key` from the JSON
 * object text `extra_json` when its value is a string, for extra inputs that
 * configure ringperf rather than the request (raw's "response_field").
 * On success *out_value is the string (malloc'd, or NULL when the key is
 * absent or not a string) and *out_rest is the object without it (malloc'd,
 * compact). Returns 0, -EINVAL (extra_json is not a JSON object) or -ENOMEM;
 * nothing is written on error. */
int payload_extra_inputs_take_string(const char *extra_json, const char *key, char **out_value,
                                     char **out_rest);

/* payload_extra_inputs_parse turns AIPerf --extra-inputs values into one JSON
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
int payload_extra_inputs_parse(const char *const *items, size_t n, char **out_json, char *errbuf,
                               size_t errcap);

/* payload_form is a multipart/form-data body (image_edit, audio_transcription) in three
 * pieces sent one after the other: `head` (every part up to and including the file part's
 * head), `file` (the media's bytes, decoded once from its base64; NULL when the body has no
 * file, as an image_edit whose image is a URL) and `tail` (what follows the file, up to the
 * closing delimiter). All malloc'd and owned by the form. `summary_json` is the body as
 * inputs.json shows it: the fields in order, a file as {"filename","content_type","bytes"}.
 * `audio_seconds` is the length of an audio_transcription's PCM WAV clip (from its header),
 * else -1. */
struct payload_form {
    char *head;
    size_t head_len;
    uint8_t *file;
    size_t file_len;
    char *tail;
    size_t tail_len;
    char *summary_json;
    double audio_seconds;
};

/* payload_form_build builds spec's body as multipart/form-data with `boundary` (see
 * http_multipart_boundary_valid), in the field order of AIPerf's format_payload:
 *   image_edit: prompt, model, response_format "b64_json", n 1, then image (a file: the first
 *     image, a data URL or base64, typed from the URL or its first bytes) or url (an http(s)
 *     image), then the extra inputs but prompt, image, url and mask;
 *   audio_transcription: file ("audio.<format>", MIME from AIPerf's table: the first audio
 *     clip "<format>,<base64>"), model, then the extra inputs but file.
 * Extra input values are written as AIPerf's transport writes them: strings as they are,
 * true/false, integers, reals in their shortest form, objects as JSON, a list as its field
 * repeated, null left out. Returns 0; -EINVAL with a message (no media, media that is not
 * base64 or not an image, no model or prompt, extra inputs that are not an object); -EEXIST
 * when the boundary occurs in the file or a field (pick another); -ENOMEM. *out is zeroed on
 * error. */
int payload_form_build(const struct payload_spec *spec, const char *boundary,
                       struct payload_form *out, char *errbuf, size_t errcap);

/* payload_form_free releases what `form` owns and zeroes it; NULL is a no-op. */
void payload_form_free(struct payload_form *form);

/* payload_wav_seconds returns the length in seconds of a PCM WAV file (its data chunk over the
 * fmt chunk's byte rate, a data chunk cut short counting what is there), or -1 for bytes that
 * are not a WAV file with both chunks. */
double payload_wav_seconds(const uint8_t *wav, size_t len);

#endif
