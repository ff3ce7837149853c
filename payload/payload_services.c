/*
 * payload_services.c - the base fields of the endpoint types that are not
 * LLM, embeddings or rankings APIs: OpenAI image generation, NIM image
 * retrieval, SOLIDO RAG and OpenAI video generation, in the key order of
 * AIPerf's format_payload() (openai_image_generation.py, nim_image_retrieval.py,
 * solido_rag.py, openai_video_generation.py).
 */
#include <jansson.h>
#include <string.h>

#include "payload/payload_internal.h"

/* A JSON string of `s`, or NULL with a message when it is not UTF-8. */
static json_t *services__text(const char *what, const char *s, char *errbuf, size_t errcap)
{
    json_t *v = s != NULL ? json_string(s) : NULL;
    if (v == NULL) {
        payload__err(errbuf, errcap, "%s is not valid UTF-8 text", what);
    }
    return v;
}

/* image_generation: {"prompt":P,"model":M,"response_format":"b64_json","n":1}
 * plus "stream":true when streaming. AIPerf asks for b64_json because SGLang
 * answers nothing else; --extra-inputs response_format:url overrides it. */
static json_t *services__image_generation(const struct payload_spec *spec, char *errbuf,
                                          size_t errcap)
{
    json_t *prompt = services__text("prompt", spec->prompt, errbuf, errcap);
    json_t *model = prompt != NULL ? services__text("model", spec->model, errbuf, errcap) : NULL;
    if (model == NULL) {
        json_decref(prompt);
        return NULL;
    }
    json_t *root = json_pack("{s:o,s:o,s:s,s:i}", "prompt", prompt, "model", model,
                             "response_format", "b64_json", "n", 1);
    if (root != NULL && spec->streaming && json_object_set_new(root, "stream", json_true()) < 0) {
        json_decref(root);
        return NULL;
    }
    return root;
}

/* image_retrieval: {"input":[{"type":"image_url","url":I},...]}, no model.
 * Empty image entries are skipped; at least one must remain. */
static json_t *services__image_retrieval(const struct payload_spec *spec, char *errbuf,
                                         size_t errcap)
{
    json_t *input = json_array();
    for (size_t i = 0; input != NULL && i < spec->media.image_count; i++) {
        const char *url = spec->media.images[i];
        if (url == NULL || *url == '\0') {
            continue;
        }
        json_t *item = json_pack("{s:s,s:o}", "type", "image_url", "url",
                                 services__text("image", url, errbuf, errcap));
        if (item == NULL || json_array_append_new(input, item) < 0) {
            json_decref(input);
            return NULL;
        }
    }
    if (input != NULL && json_array_size(input) == 0) {
        payload__err(errbuf, errcap,
                     "an image_retrieval request needs at least one image: give "
                     "--image-width-mean and --image-height-mean, or images in the input file");
        json_decref(input);
        return NULL;
    }
    return input != NULL ? json_pack("{s:o}", "input", input) : NULL;
}

/* solido_rag: {"query":[T...],"filters":{"family":"Solido","tool":"SDE"},
 * "inference_model":M}: the query is the turn's non-empty texts. */
static json_t *services__solido(const struct payload_spec *spec, char *errbuf, size_t errcap)
{
    json_t *query = payload__texts(spec, errbuf, errcap);
    json_t *model = query != NULL ? services__text("model", spec->model, errbuf, errcap) : NULL;
    if (model == NULL) {
        json_decref(query);
        return NULL;
    }
    return json_pack("{s:o,s:{s:s,s:s},s:o}", "query", query, "filters", "family", "Solido", "tool",
                     "SDE", "inference_model", model);
}

/* video_generation: {"prompt":P,"model":M}, the job's submission (POST /v1/videos); size,
 * seconds, seed and the like come from --extra-inputs. AIPerf refuses a turn without text. */
static json_t *services__video_generation(const struct payload_spec *spec, char *errbuf,
                                          size_t errcap)
{
    if (spec->prompt == NULL || *spec->prompt == '\0') {
        payload__err(errbuf, errcap,
                     "a video_generation request needs a text prompt: give synthetic prompts "
                     "(--isl) or a \"text\" in each record of the input file");
        return NULL;
    }
    json_t *prompt = services__text("prompt", spec->prompt, errbuf, errcap);
    json_t *model = prompt != NULL ? services__text("model", spec->model, errbuf, errcap) : NULL;
    if (model == NULL) {
        json_decref(prompt);
        return NULL;
    }
    return json_pack("{s:o,s:o}", "prompt", prompt, "model", model);
}

json_t *payload__services_base(const struct payload_spec *spec, char *errbuf, size_t errcap)
{
    switch (spec->type) {
    case ENDPOINT_IMAGE_GENERATION:
        return services__image_generation(spec, errbuf, errcap);
    case ENDPOINT_IMAGE_RETRIEVAL:
        return services__image_retrieval(spec, errbuf, errcap);
    case ENDPOINT_SOLIDO_RAG:
        return services__solido(spec, errbuf, errcap);
    case ENDPOINT_VIDEO_GENERATION:
        return services__video_generation(spec, errbuf, errcap);
    default:
        payload__err(errbuf, errcap, "%s is not a service endpoint type",
                     endpoint_type_name(spec->type));
        return NULL;
    }
}
