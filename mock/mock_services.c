/*
 * mock_services.c - response formatting for the routes that are not LLM, embeddings or
 * rankings APIs: OpenAI image generation (images as base64 PNG, streamed as
 * image_generation.partial_image / .completed events), NIM image retrieval (/v1/infer: one
 * detection result per input image) and SOLIDO RAG (/rag/api/prompt: "content", streamed
 * word by word when the client accepts an event stream), OpenAI image edits (as generation)
 * and audio transcriptions ("text", and the duration of the audio sent as usage; their
 * multipart bodies are read in mock_form.c). mock_api.c dispatches here.
 */
#include <stdbool.h>
#include <stdint.h>

#include "mock/mock_internal.h"

bool mock__route_service(enum mock__route route)
{
    return route == MOCK__ROUTE_IMAGES || route == MOCK__ROUTE_INFER || route == MOCK__ROUTE_RAG ||
           route == MOCK__ROUTE_IMAGE_EDITS || route == MOCK__ROUTE_TRANSCRIPTIONS;
}

/* One streamed image; the last one of the request is the completed image. */
static void image_event(struct mock__buf *b, const struct mock__job *job, uint32_t i)
{
    bool last = i + 1 >= job->output_tokens;
    const char *type = last ? "image_generation.completed" : "image_generation.partial_image";
    size_t mark = mock__fmt_chunk_open(b, type);
    mock__buf_str(b, "{\"type\":\"");
    mock__buf_str(b, type);
    mock__buf_str(b, "\",\"b64_json\":\"" MOCK__PNG_B64 "\",\"created_at\":");
    mock__buf_u64(b, job->created_s);
    if (!last) {
        mock__buf_str(b, ",\"partial_image_index\":");
        mock__buf_u64(b, i);
    }
    mock__buf_str(b, ",\"size\":\"2x2\",\"output_format\":\"png\"}");
    mock__fmt_chunk_close(b, mark);
}

void mock__svc_token_event(struct mock__buf *b, struct mock__job *job, uint32_t first,
                           uint32_t count)
{
    if (job->route == MOCK__ROUTE_IMAGES) {
        for (uint32_t i = first; i < first + count; i++) {
            image_event(b, job, i);
        }
        return;
    }
    size_t mark = mock__fmt_chunk_open(b, NULL);
    mock__buf_str(b, "{\"content\":\"");
    mock__fmt_words(b, first, count);
    mock__buf_str(b, "\"}");
    mock__fmt_chunk_close(b, mark);
}

void mock__svc_body_prefix(struct mock__buf *b, const struct mock__job *job)
{
    if (job->route == MOCK__ROUTE_IMAGES || job->route == MOCK__ROUTE_IMAGE_EDITS) {
        mock__buf_str(b, "{\"created\":");
        mock__buf_u64(b, job->created_s);
        mock__buf_str(b, ",\"data\":[");
    } else if (job->route == MOCK__ROUTE_INFER) {
        mock__buf_str(b, "{\"data\":[");
    } else if (job->route == MOCK__ROUTE_TRANSCRIPTIONS) {
        mock__buf_str(b, "{\"text\":\"");
    } else {
        mock__buf_str(b, "{\"content\":\"");
    }
}

void mock__svc_body_suffix(struct mock__buf *b, const struct mock__job *job)
{
    if (job->route == MOCK__ROUTE_TRANSCRIPTIONS) {
        /* OpenAI's duration usage: the seconds of audio it was sent, rounded up. */
        mock__buf_str(b, "\",\"usage\":{\"type\":\"duration\",\"seconds\":");
        mock__buf_u64(b, (job->audio_ms + 999) / 1000);
        mock__buf_str(b, "}}");
        return;
    }
    if (job->route == MOCK__ROUTE_IMAGES || job->route == MOCK__ROUTE_IMAGE_EDITS) {
        mock__buf_str(b, "],\"size\":\"2x2\",\"output_format\":\"png\"}");
    } else if (job->route == MOCK__ROUTE_INFER) {
        mock__buf_str(b, "]}");
    } else {
        mock__buf_str(b, "\",\"sources\":[{\"title\":\"mock-source\",\"score\":1.0}]}");
    }
}

/* One generated image, or one image's (empty) detections; after mock__api_unit's "{"index":i. */
void mock__svc_unit(struct mock__buf *b, const struct mock__job *job)
{
    if (job->route == MOCK__ROUTE_IMAGES || job->route == MOCK__ROUTE_IMAGE_EDITS) {
        mock__buf_str(b, ",\"b64_json\":\"" MOCK__PNG_B64 "\",\"revised_prompt\":null}");
    } else {
        mock__buf_str(b, ",\"bounding_boxes\":{\"chart\":[],\"table\":[]}}");
    }
}
