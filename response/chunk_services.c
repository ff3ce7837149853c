/*
 * chunk_services.c - reading the responses of the endpoint types that are not
 * LLM, embeddings or rankings APIs: OpenAI image generation and edits, NIM
 * image retrieval, SOLIDO RAG and OpenAI audio transcription, each as the
 * matching AIPerf endpoint's parse_response (openai_image_generation.py,
 * openai_image_edit.py, nim_image_retrieval.py, solido_rag.py,
 * openai_audio_transcription.py).
 */
#include "response/response_json.h"

/* image_generation: a streamed event carries one image in "b64_json" (its
 * presence is enough, as AIPerf tests `"b64_json" in json_obj`); a whole
 * body lists them in "data", whose items that are not objects are skipped. */
enum response_parse_status response__read_images(const struct response__doc *d,
                                                 struct response_chunk *out)
{
    if (!response__is(d, 0, JSMN_OBJECT)) {
        return RESPONSE_PARSE_ERR_NOT_OBJECT;
    }
    out->object = response__string(d, response__get(d, 0, "type"));
    if (response__get(d, 0, "b64_json") >= 0) {
        out->image_count = 1;
        return RESPONSE_PARSE_OK;
    }
    int data = response__get(d, 0, "data");
    if (!response__is(d, data, JSMN_ARRAY)) {
        return RESPONSE_PARSE_IGNORED;
    }
    int j = data + 1;
    for (int m = 0; m < d->tok[data].size; m++) {
        out->image_count += response__is(d, j, JSMN_OBJECT);
        j = response__skip(d, j);
    }
    return RESPONSE_PARSE_OK;
}

/* image_retrieval: a truthy "data" (the detections of each image). */
enum response_parse_status response__read_infer(const struct response__doc *d,
                                                struct response_chunk *out)
{
    if (!response__is(d, 0, JSMN_OBJECT)) {
        return RESPONSE_PARSE_ERR_NOT_OBJECT;
    }
    int data = response__get(d, 0, "data");
    if (!response__truthy(d, data)) {
        return RESPONSE_PARSE_IGNORED;
    }
    out->infer_count = response__is(d, data, JSMN_ARRAY) ? (size_t)d->tok[data].size : 1;
    return RESPONSE_PARSE_OK;
}

/* solido_rag: the generated text is "content", in every streamed event and
 * in a whole body; "sources" (the retrieved documents) are not output. */
enum response_parse_status response__read_solido(const struct response__doc *d,
                                                 struct response_chunk *out)
{
    if (!response__is(d, 0, JSMN_OBJECT)) {
        return RESPONSE_PARSE_ERR_NOT_OBJECT;
    }
    int content = response__get(d, 0, "content");
    if (!response__truthy(d, content)) {
        return RESPONSE_PARSE_IGNORED;
    }
    response__add_string(d, content, out, RESPONSE_TEXT_CONTENT);
    return RESPONSE_PARSE_OK;
}

/* audio_transcription: the transcript is "text" (a body that is not JSON is the text itself,
 * read before this). */
enum response_parse_status response__read_transcript(const struct response__doc *d,
                                                     struct response_chunk *out)
{
    if (!response__is(d, 0, JSMN_OBJECT)) {
        return RESPONSE_PARSE_ERR_NOT_OBJECT;
    }
    int text = response__get(d, 0, "text");
    if (!response__is(d, text, JSMN_STRING)) {
        return RESPONSE_PARSE_IGNORED;
    }
    response__add_string(d, text, out, RESPONSE_TEXT_CONTENT);
    /* An empty transcript (silence) is still the answer. */
    out->is_content = true;
    return RESPONSE_PARSE_OK;
}
