/*
 * types.c - what each endpoint type is: its AIPerf name, URL paths, whether
 * it streams and produces tokens, and the headers it authenticates with.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "endpoint/endpoint.h"

struct types__info {
    const char *name;
    const char *path;
    bool streams;
    bool tokens;
};

static const struct types__info TYPES[ENDPOINT_TYPE_COUNT] = {
    [ENDPOINT_CHAT] = {"chat", "/v1/chat/completions", true, true},
    [ENDPOINT_COMPLETIONS] = {"completions", "/v1/completions", true, true},
    [ENDPOINT_RESPONSES] = {"responses", "/v1/responses", true, true},
    [ENDPOINT_MESSAGES] = {"messages", "/v1/messages", true, true},
    [ENDPOINT_EMBEDDINGS] = {"embeddings", "/v1/embeddings", false, false},
    [ENDPOINT_CHAT_EMBEDDINGS] = {"chat_embeddings", "/v1/embeddings", false, false},
    [ENDPOINT_NIM_EMBEDDINGS] = {"nim_embeddings", "/v1/embeddings", false, false},
    [ENDPOINT_NIM_RANKINGS] = {"nim_rankings", "/v1/ranking", false, false},
    [ENDPOINT_COHERE_RANKINGS] = {"cohere_rankings", "/v2/rerank", false, false},
    [ENDPOINT_HF_TEI_RANKINGS] = {"hf_tei_rankings", "/rerank", false, false},
    [ENDPOINT_HUGGINGFACE_GENERATE] = {"huggingface_generate", "/generate", true, true},
    [ENDPOINT_RAW] = {"raw", "", true, true},
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
    return t == ENDPOINT_HUGGINGFACE_GENERATE ? "/generate_stream" : endpoint_type_path(t);
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
