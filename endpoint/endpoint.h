/*
 * endpoint.h - what each AIPerf endpoint type is: its name, its path, whether
 * it streams and produces tokens, and its authentication headers. The
 * request bodies are built in payload/ and the responses read in response/.
 *
 * Behaviour follows AIPerf's the src/aiperf/endpoints/ modules and sse_utils.py (see
 * /work/shared/spec/aiperf-reference.md §1.1, §1.2 and §2.1).
 */
#ifndef RINGPERF_ENDPOINT_H
#define RINGPERF_ENDPOINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* endpoint_type is an AIPerf --endpoint-type this module supports, in the
 * order they were added (not config's); map a config value by name:
 * endpoint_type_parse(config_endpoint_type_name(v)). */
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
    ENDPOINT_IMAGE_GENERATION,     /* "image_generation": /v1/images/generations */
    ENDPOINT_IMAGE_RETRIEVAL,      /* "image_retrieval": /v1/infer (NIM) */
    ENDPOINT_SOLIDO_RAG,           /* "solido_rag": /rag/api/prompt */
    ENDPOINT_IMAGE_EDIT,           /* "image_edit": /v1/images/edits, multipart */
    ENDPOINT_AUDIO_TRANSCRIPTION,  /* "audio_transcription": /v1/audio/transcriptions, multipart */
    ENDPOINT_TEMPLATE,             /* "template": no path; a Jinja2 body; response_field or auto */
    ENDPOINT_TYPE_COUNT
};

/* endpoint_type_name returns the static AIPerf name of `t` ("chat",
 * "completions", ...), or "unknown" for a value outside the enum. */
const char *endpoint_type_name(enum endpoint_type t);

/* endpoint_type_path returns the static default URL path of `t`
 * ("/v1/chat/completions", ...; "/generate" for huggingface_generate), or ""
 * for raw and template, and for an unknown value. */
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

/* endpoint_type_tokenizes_input reports whether AIPerf counts the input
 * tokens of `t`'s requests (plugins.yaml tokenizes_input): false for
 * image_retrieval, whose input is images only. */
bool endpoint_type_tokenizes_input(enum endpoint_type t);

/* endpoint_type_supports_images reports whether `t` carries input images
 * (plugins.yaml supports_images), which gates AIPerf's image metrics
 * (num_images, image_throughput, image_latency): chat, responses, messages,
 * chat_embeddings, nim_embeddings, image_retrieval and raw. */
bool endpoint_type_supports_images(enum endpoint_type t);

/* endpoint_type_supports_audio reports whether `t` carries input audio
 * (plugins.yaml supports_audio), which gates AIPerf's audio metrics
 * (audio_duration, rtfx): chat, responses, audio_transcription and raw. */
bool endpoint_type_supports_audio(enum endpoint_type t);

/* endpoint_type_form_data reports whether `t`'s requests are
 * multipart/form-data (plugins.yaml requires_form_data): image_edit and
 * audio_transcription. Their bodies come from payload_form_build(). */
bool endpoint_type_form_data(enum endpoint_type t);

/* endpoint_type_metrics_title returns the static title of `t`'s metrics
 * (plugins.yaml metrics_title): "LLM Metrics", "Embeddings Metrics", ...;
 * the console prints "NVIDIA AIPerf | <title>" (ours: "ringperf | <title>").
 * "LLM Metrics" for an unknown value. */
const char *endpoint_type_metrics_title(enum endpoint_type t);

/* endpoint_type_stream_end_required reports whether AIPerf fails a stream of
 * `t` that ends without "[DONE]" or a finish_reason (chat and completions).
 * Every streaming type reports its own end marker through
 * response_chunk.has_finish_reason, so a caller may check it for all. */
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

#endif
