#include <criterion/criterion.h>

#include <errno.h>
#include <string.h>

#include "endpoint/endpoint.h"

Test(endpoint_types, names_paths_and_capabilities)
{
    static const struct {
        const char *name;
        enum endpoint_type type;
        const char *path;
        const char *stream_path;
        bool streams;
        bool tokens;
    } rows[] = {
        {"chat", ENDPOINT_CHAT, "/v1/chat/completions", "/v1/chat/completions", true, true},
        {"completions", ENDPOINT_COMPLETIONS, "/v1/completions", "/v1/completions", true, true},
        {"responses", ENDPOINT_RESPONSES, "/v1/responses", "/v1/responses", true, true},
        {"messages", ENDPOINT_MESSAGES, "/v1/messages", "/v1/messages", true, true},
        {"embeddings", ENDPOINT_EMBEDDINGS, "/v1/embeddings", "/v1/embeddings", false, false},
        {"chat_embeddings", ENDPOINT_CHAT_EMBEDDINGS, "/v1/embeddings", "/v1/embeddings", false,
         false},
        {"nim_embeddings", ENDPOINT_NIM_EMBEDDINGS, "/v1/embeddings", "/v1/embeddings", false,
         false},
        {"nim_rankings", ENDPOINT_NIM_RANKINGS, "/v1/ranking", "/v1/ranking", false, false},
        {"cohere_rankings", ENDPOINT_COHERE_RANKINGS, "/v2/rerank", "/v2/rerank", false, false},
        {"hf_tei_rankings", ENDPOINT_HF_TEI_RANKINGS, "/rerank", "/rerank", false, false},
        {"huggingface_generate", ENDPOINT_HUGGINGFACE_GENERATE, "/generate", "/generate_stream",
         true, true},
        {"raw", ENDPOINT_RAW, "", "", true, true},
        {"image_generation", ENDPOINT_IMAGE_GENERATION, "/v1/images/generations",
         "/v1/images/generations", true, false},
        {"image_retrieval", ENDPOINT_IMAGE_RETRIEVAL, "/v1/infer", "/v1/infer", false, false},
        {"solido_rag", ENDPOINT_SOLIDO_RAG, "/rag/api/prompt", "/rag/api/prompt", true, true},
        {"image_edit", ENDPOINT_IMAGE_EDIT, "/v1/images/edits", "/v1/images/edits", false, false},
        {"audio_transcription", ENDPOINT_AUDIO_TRANSCRIPTION, "/v1/audio/transcriptions",
         "/v1/audio/transcriptions", false, false},
        {"template", ENDPOINT_TEMPLATE, "", "", true, true},
    };
    cr_assert_eq(sizeof(rows) / sizeof(rows[0]), ENDPOINT_TYPE_COUNT);
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        enum endpoint_type t = ENDPOINT_TYPE_COUNT;
        cr_assert_eq(endpoint_type_parse(rows[i].name, &t), 0, "%s", rows[i].name);
        cr_assert_eq(t, rows[i].type);
        cr_assert_str_eq(endpoint_type_name(t), rows[i].name);
        cr_assert_str_eq(endpoint_type_path(t), rows[i].path);
        cr_assert_str_eq(endpoint_type_stream_path(t), rows[i].stream_path);
        cr_assert_eq(endpoint_type_streams(t), rows[i].streams, "%s", rows[i].name);
        cr_assert_eq(endpoint_type_produces_tokens(t), rows[i].tokens, "%s", rows[i].name);
    }
    enum endpoint_type t = ENDPOINT_CHAT;
    cr_assert_eq(endpoint_type_parse("rankings", &t), 0);
    cr_assert_eq(t, ENDPOINT_NIM_RANKINGS);
    cr_assert_eq(endpoint_type_parse("video_generation", &t), -EINVAL);
    cr_assert_eq(endpoint_type_parse(NULL, &t), -EINVAL);
    cr_assert_eq(t, ENDPOINT_NIM_RANKINGS);
    cr_assert(endpoint_type_stream_end_required(ENDPOINT_CHAT));
    cr_assert_not(endpoint_type_stream_end_required(ENDPOINT_RESPONSES));
    cr_assert_str_eq(endpoint_type_name(ENDPOINT_TYPE_COUNT), "unknown");
    cr_assert_not(endpoint_type_streams(ENDPOINT_TYPE_COUNT));
}

/* plugins.yaml's metrics_title, tokenizes_input and supports_images per type. */
Test(endpoint_types, titles_and_metric_capabilities)
{
    static const struct {
        enum endpoint_type type;
        const char *title;
        bool tokenizes_input;
        bool images;
        bool audio;
        bool form;
    } rows[] = {
        {ENDPOINT_CHAT, "LLM Metrics", true, true, true, false},
        {ENDPOINT_COMPLETIONS, "LLM Metrics", true, false, false, false},
        {ENDPOINT_RESPONSES, "LLM Metrics", true, true, true, false},
        {ENDPOINT_MESSAGES, "LLM Metrics", true, true, false, false},
        {ENDPOINT_EMBEDDINGS, "Embeddings Metrics", true, false, false, false},
        {ENDPOINT_CHAT_EMBEDDINGS, "Embeddings Metrics", true, true, false, false},
        {ENDPOINT_NIM_EMBEDDINGS, "NIM Embeddings Metrics", true, true, false, false},
        {ENDPOINT_NIM_RANKINGS, "Rankings Metrics", true, false, false, false},
        {ENDPOINT_COHERE_RANKINGS, "Ranking Metrics", true, false, false, false},
        {ENDPOINT_HF_TEI_RANKINGS, "Ranking Metrics", true, false, false, false},
        {ENDPOINT_HUGGINGFACE_GENERATE, "LLM Metrics", true, false, false, false},
        {ENDPOINT_RAW, "LLM Metrics", true, true, true, false},
        {ENDPOINT_IMAGE_GENERATION, "Image Generation Metrics", true, false, false, false},
        {ENDPOINT_IMAGE_RETRIEVAL, "Image Retrieval Metrics", false, true, false, false},
        {ENDPOINT_SOLIDO_RAG, "SOLIDO RAG Metrics", true, false, false, false},
        {ENDPOINT_IMAGE_EDIT, "Image Edit Metrics", true, true, false, true},
        {ENDPOINT_AUDIO_TRANSCRIPTION, "Audio Transcription Metrics", false, false, true, true},
        {ENDPOINT_TEMPLATE, "LLM Metrics", true, true, true, false},
    };
    cr_assert_eq(sizeof(rows) / sizeof(rows[0]), ENDPOINT_TYPE_COUNT);
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
        const char *name = endpoint_type_name(rows[i].type);
        cr_assert_str_eq(endpoint_type_metrics_title(rows[i].type), rows[i].title, "%s", name);
        cr_assert_eq(endpoint_type_tokenizes_input(rows[i].type), rows[i].tokenizes_input, "%s",
                     name);
        cr_assert_eq(endpoint_type_supports_images(rows[i].type), rows[i].images, "%s", name);
        cr_assert_eq(endpoint_type_supports_audio(rows[i].type), rows[i].audio, "%s", name);
        cr_assert_eq(endpoint_type_form_data(rows[i].type), rows[i].form, "%s", name);
    }
    cr_assert_str_eq(endpoint_type_metrics_title(ENDPOINT_TYPE_COUNT), "LLM Metrics");
}

Test(endpoint_types, auth_headers_per_type)
{
    struct endpoint_header h[ENDPOINT_AUTH_HEADERS_MAX];
    char buf[64];
    size_t n = 99;
    cr_assert_eq(endpoint_auth_headers(ENDPOINT_CHAT, "sk-1", buf, sizeof(buf), h, &n), 0);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(h[0].name, "Authorization");
    cr_assert_str_eq(h[0].value, "Bearer sk-1");
    cr_assert_eq(endpoint_auth_headers(ENDPOINT_EMBEDDINGS, NULL, NULL, 0, h, &n), 0);
    cr_assert_eq(n, 0);
    cr_assert_eq(endpoint_auth_headers(ENDPOINT_MESSAGES, "sk-ant", NULL, 0, h, &n), 0);
    cr_assert_eq(n, 2);
    cr_assert_str_eq(h[0].name, "x-api-key");
    cr_assert_str_eq(h[0].value, "sk-ant");
    cr_assert_str_eq(h[1].name, "anthropic-version");
    cr_assert_str_eq(h[1].value, "2023-06-01");
    cr_assert_eq(endpoint_auth_headers(ENDPOINT_MESSAGES, NULL, NULL, 0, h, &n), 0);
    cr_assert_eq(n, 1);
    cr_assert_str_eq(h[0].name, "anthropic-version");
    cr_assert_eq(endpoint_auth_headers(ENDPOINT_CHAT, "sk-1", buf, 11, h, &n), -ENOSPC);
    cr_assert_eq(endpoint_auth_headers(ENDPOINT_CHAT, "sk-1", buf, 12, h, &n), 0);
}
