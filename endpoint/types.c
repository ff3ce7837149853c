/*
 * types.c - what each endpoint type is: its AIPerf name, URL paths, whether
 * it streams and produces tokens, and the headers it authenticates with.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "endpoint/endpoint.h"

/* One row of AIPerf's plugins.yaml endpoint metadata. */
struct types__info {
    const char *name;
    const char *path;
    const char *stream_path; /* NULL: the same as path */
    const char *title;       /* metrics_title */
    bool streams;            /* supports_streaming */
    bool tokens;             /* produces_tokens */
    bool tokenizes_input;
    bool images; /* supports_images */
    bool audio;  /* supports_audio */
    bool form;   /* requires_form_data */
};

#define LLM "LLM Metrics"

static const struct types__info TYPES[ENDPOINT_TYPE_COUNT] = {
    [ENDPOINT_CHAT] = {"chat", "/v1/chat/completions", NULL, LLM, true, true, true, true, true,
                       false},
    [ENDPOINT_COMPLETIONS] = {"completions", "/v1/completions", NULL, LLM, true, true, true, false,
                              false, false},
    [ENDPOINT_RESPONSES] = {"responses", "/v1/responses", NULL, LLM, true, true, true, true, true,
                            false},
    [ENDPOINT_MESSAGES] = {"messages", "/v1/messages", NULL, LLM, true, true, true, true, false,
                           false},
    [ENDPOINT_EMBEDDINGS] = {"embeddings", "/v1/embeddings", NULL, "Embeddings Metrics", false,
                             false, true, false, false, false},
    [ENDPOINT_CHAT_EMBEDDINGS] = {"chat_embeddings", "/v1/embeddings", NULL, "Embeddings Metrics",
                                  false, false, true, true, false, false},
    [ENDPOINT_NIM_EMBEDDINGS] = {"nim_embeddings", "/v1/embeddings", NULL, "NIM Embeddings Metrics",
                                 false, false, true, true, false, false},
    [ENDPOINT_NIM_RANKINGS] = {"nim_rankings", "/v1/ranking", NULL, "Rankings Metrics", false,
                               false, true, false, false, false},
    [ENDPOINT_COHERE_RANKINGS] = {"cohere_rankings", "/v2/rerank", NULL, "Ranking Metrics", false,
                                  false, true, false, false, false},
    [ENDPOINT_HF_TEI_RANKINGS] = {"hf_tei_rankings", "/rerank", NULL, "Ranking Metrics", false,
                                  false, true, false, false, false},
    [ENDPOINT_HUGGINGFACE_GENERATE] = {"huggingface_generate", "/generate", "/generate_stream", LLM,
                                       true, true, true, false, false, false},
    [ENDPOINT_RAW] = {"raw", "", NULL, LLM, true, true, true, true, true, false},
    [ENDPOINT_IMAGE_GENERATION] = {"image_generation", "/v1/images/generations", NULL,
                                   "Image Generation Metrics", true, false, true, false, false,
                                   false},
    [ENDPOINT_IMAGE_RETRIEVAL] = {"image_retrieval", "/v1/infer", NULL, "Image Retrieval Metrics",
                                  false, false, false, true, false, false},
    [ENDPOINT_IMAGE_EDIT] = {"image_edit", "/v1/images/edits", NULL, "Image Edit Metrics", false,
                             false, true, true, false, true},
    [ENDPOINT_AUDIO_TRANSCRIPTION] = {"audio_transcription", "/v1/audio/transcriptions", NULL,
                                      "Audio Transcription Metrics", false, false, false, false,
                                      true, true},
    [ENDPOINT_TEMPLATE] = {"template", "", NULL, LLM, true, true, true, true, true, false},
    [ENDPOINT_SOLIDO_RAG] = {"solido_rag", "/rag/api/prompt", NULL, "SOLIDO RAG Metrics", true,
                             true, true, false, false, false},
};

static bool types__valid(enum endpoint_type t)
{
    return (unsigned)t < ENDPOINT_TYPE_COUNT;
}

const char *endpoint_type_name(enum endpoint_type t)
{
    return types__valid(t) ? TYPES[t].name : "unknown";
}

const char *endpoint_type_path(enum endpoint_type t)
{
    return types__valid(t) ? TYPES[t].path : "";
}

const char *endpoint_type_stream_path(enum endpoint_type t)
{
    return types__valid(t) && TYPES[t].stream_path != NULL ? TYPES[t].stream_path
                                                           : endpoint_type_path(t);
}

int endpoint_type_parse(const char *name, enum endpoint_type *out)
{
    if (!name) {
        return -EINVAL;
    }
    if (strcmp(name, "rankings") == 0) {
        *out = ENDPOINT_NIM_RANKINGS;
        return 0;
    }
    for (int t = 0; t < ENDPOINT_TYPE_COUNT; t++) {
        if (strcmp(name, TYPES[t].name) == 0) {
            *out = (enum endpoint_type)t;
            return 0;
        }
    }
    return -EINVAL;
}

bool endpoint_type_streams(enum endpoint_type t)
{
    return types__valid(t) && TYPES[t].streams;
}

bool endpoint_type_produces_tokens(enum endpoint_type t)
{
    return types__valid(t) && TYPES[t].tokens;
}

bool endpoint_type_tokenizes_input(enum endpoint_type t)
{
    return types__valid(t) && TYPES[t].tokenizes_input;
}

bool endpoint_type_supports_images(enum endpoint_type t)
{
    return types__valid(t) && TYPES[t].images;
}

bool endpoint_type_supports_audio(enum endpoint_type t)
{
    return types__valid(t) && TYPES[t].audio;
}

bool endpoint_type_form_data(enum endpoint_type t)
{
    return types__valid(t) && TYPES[t].form;
}

const char *endpoint_type_metrics_title(enum endpoint_type t)
{
    return types__valid(t) ? TYPES[t].title : LLM;
}

bool endpoint_type_stream_end_required(enum endpoint_type t)
{
    return t == ENDPOINT_CHAT || t == ENDPOINT_COMPLETIONS;
}

int endpoint_auth_headers(enum endpoint_type t, const char *api_key, char *buf, size_t cap,
                          struct endpoint_header out[ENDPOINT_AUTH_HEADERS_MAX], size_t *out_count)
{
    size_t n = 0;
    bool has_key = api_key && *api_key;
    if (t == ENDPOINT_MESSAGES) {
        if (has_key) {
            out[n++] = (struct endpoint_header){"x-api-key", api_key};
        }
        out[n++] = (struct endpoint_header){"anthropic-version", ENDPOINT_ANTHROPIC_VERSION};
        *out_count = n;
        return 0;
    }
    if (has_key) {
        size_t need = strlen(api_key) + sizeof("Bearer ");
        if (!buf || cap < need) {
            return -ENOSPC;
        }
        snprintf(buf, cap, "Bearer %s", api_key);
        out[n++] = (struct endpoint_header){"Authorization", buf};
    }
    *out_count = n;
    return 0;
}
