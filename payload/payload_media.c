/*
 * payload_media.c - the content of a user message: the bare prompt string, or,
 * with images or audio, AIPerf's list of content parts for chat, responses and
 * messages (Anthropic). One function renders a turn so that every message that
 * carries media (the new turn, and history turns) is written the same way.
 */
#include <jansson.h>
#include <stdbool.h>
#include <string.h>

#include "payload/payload_internal.h"

static bool media__any(const struct payload_media *m)
{
    return m->image_count > 0 || m->audio_count > 0;
}

/* Appends part `p` (stolen) to list; false when p is NULL or appending fails. */
static bool media__append(json_t *list, json_t *p)
{
    return p != NULL && json_array_append_new(list, p) == 0;
}

static json_t *media__text_part(enum endpoint_type t, const char *text)
{
    return json_pack("{s:s,s:s}", "type", t == ENDPOINT_RESPONSES ? "input_text" : "text", "text",
                     text);
}

/* Anthropic's image block: base64 source for "data:<type>;base64,<data>", else a URL. */
static json_t *media__anthropic_image(const char *url)
{
    static const char marker[] = ";base64,";
    const char *b64 = strncmp(url, "data:", 5) == 0 ? strstr(url, marker) : NULL;
    if (b64 == NULL) {
        return json_pack("{s:s,s:{s:s,s:s}}", "type", "image", "source", "type", "url", "url", url);
    }
    json_t *media_type = json_stringn(url + 5, (size_t)(b64 - (url + 5)));
    return json_pack("{s:s,s:{s:s,s:o,s:s}}", "type", "image", "source", "type", "base64",
                     "media_type", media_type, "data", b64 + strlen(marker));
}

static json_t *media__image_part(enum endpoint_type t, const char *url)
{
    if (t == ENDPOINT_RESPONSES) {
        return json_pack("{s:s,s:s}", "type", "input_image", "image_url", url);
    }
    if (t == ENDPOINT_MESSAGES) {
        return media__anthropic_image(url);
    }
    return json_pack("{s:s,s:{s:s}}", "type", "image_url", "image_url", "url", url);
}

/* {"type":"input_audio","input_audio":{"data":B64,"format":F}} from "F,B64". */
static json_t *media__audio_part(enum endpoint_type t, const char *audio, char *errbuf,
                                 size_t errcap)
{
    const char *comma = strchr(audio, ',');
    if (t == ENDPOINT_MESSAGES) {
        payload__err(errbuf, errcap, "a messages (Anthropic) request cannot carry audio");
        return NULL;
    }
    if (comma == NULL) {
        payload__err(errbuf, errcap, "audio must be \"<format>,<base64>\" (e.g. \"wav,UklG...\")");
        return NULL;
    }
    json_t *format = json_stringn(audio, (size_t)(comma - audio));
    return json_pack("{s:s,s:{s:s,s:o}}", "type", "input_audio", "input_audio", "data", comma + 1,
                     "format", format);
}

/* Appends the image and audio parts of m to list. */
static bool media__parts(json_t *list, enum endpoint_type t, const struct payload_media *m,
                         char *errbuf, size_t errcap)
{
    for (size_t i = 0; i < m->image_count; i++) {
        if (m->images[i] != NULL && m->images[i][0] != '\0' &&
            !media__append(list, media__image_part(t, m->images[i]))) {
            payload__err(errbuf, errcap, "image %zu is not valid UTF-8 text", i);
            return false;
        }
    }
    for (size_t i = 0; i < m->audio_count; i++) {
        if (m->audios[i] != NULL && m->audios[i][0] != '\0' &&
            !media__append(list, media__audio_part(t, m->audios[i], errbuf, errcap))) {
            if (errbuf != NULL && errcap > 0 && errbuf[0] == '\0') {
                payload__err(errbuf, errcap, "audio %zu is not valid UTF-8 text", i);
            }
            return false;
        }
    }
    return true;
}

json_t *payload__user_content(enum endpoint_type t, const char *text,
                              const struct payload_media *media, char *errbuf, size_t errcap)
{
    if (media == NULL || !media__any(media)) {
        json_t *s = json_string(text != NULL ? text : "");
        if (s == NULL) {
            payload__err(errbuf, errcap, "prompt is not valid UTF-8 text");
        }
        return s;
    }
    json_t *list = json_array();
    if (list == NULL) {
        return NULL;
    }
    if (text != NULL && text[0] != '\0' && !media__append(list, media__text_part(t, text))) {
        payload__err(errbuf, errcap, "prompt is not valid UTF-8 text");
        goto fail;
    }
    if (!media__parts(list, t, media, errbuf, errcap)) {
        goto fail;
    }
    if (json_array_size(list) == 0) {
        /* AIPerf: a turn whose parts are all empty sends "". */
        json_decref(list);
        return json_string("");
    }
    return list;

fail:
    json_decref(list);
    return NULL;
}

bool payload__user_message(json_t *list, const struct payload_spec *spec, char *errbuf,
                           size_t errcap)
{
    json_t *content = payload__user_content(spec->type, spec->prompt, &spec->media, errbuf, errcap);
    json_t *m = content != NULL ? json_pack("{s:s,s:o}", "role", "user", "content", content) : NULL;
    if (m != NULL && spec->type == ENDPOINT_RESPONSES &&
        json_object_set_new(m, "type", json_string("message")) < 0) {
        json_decref(m);
        m = NULL;
    }
    return m != NULL && json_array_append_new(list, m) == 0;
}

bool payload__media_allowed(const struct payload_spec *spec, char *errbuf, size_t errcap)
{
    enum endpoint_type t = spec->type;
    if (!media__any(&spec->media) || t == ENDPOINT_CHAT || t == ENDPOINT_CHAT_EMBEDDINGS ||
        t == ENDPOINT_RESPONSES || t == ENDPOINT_MESSAGES || t == ENDPOINT_TEMPLATE) {
        return true;
    }
    if (t == ENDPOINT_IMAGE_RETRIEVAL && spec->media.audio_count == 0) {
        return true;
    }
    payload__err(errbuf, errcap,
                 "a %s request cannot carry images or audio; use chat, responses or messages "
                 "(image_retrieval: images only)",
                 endpoint_type_name(t));
    return false;
}
