/*
 * payload_template.c - the template endpoint's body: AIPerf's template
 * variables made from the spec, the template rendered (template/), and the
 * text read back as JSON, as AIPerf's format_payload does with orjson.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "payload/payload_internal.h"
#include "template/template.h"

/* {"name": null, "contents": [...]} per AIPerf Text/Image/Audio, or none. */
static json_t *template__media(json_t *contents)
{
    json_t *list = json_array();
    if (json_array_size(contents) > 0) {
        json_array_append_new(list, json_pack("{s:n,s:O}", "name", "contents", contents));
    }
    return list;
}

static json_t *template__strings(const char *const *items, size_t n)
{
    json_t *list = json_array();
    for (size_t i = 0; list != NULL && i < n; i++) {
        if (items[i] != NULL && items[i][0] != '\0') {
            json_array_append_new(list, json_string(items[i]));
        }
    }
    return list;
}

static json_t *template__first(json_t *list)
{
    return json_array_size(list) > 0 ? json_incref(json_array_get(list, 0)) : json_null();
}

/* AIPerf's template_vars. Datasets here keep no names on texts, so the
 * *_by_name maps, queries and passages are empty. */
static json_t *template__vars(const struct payload_spec *spec, json_t *texts)
{
    json_t *images = template__strings(spec->media.images, spec->media.image_count);
    json_t *audios = template__strings(spec->media.audios, spec->media.audio_count);
    json_t *max_tokens =
        spec->max_tokens > 0 ? json_integer((json_int_t)spec->max_tokens) : json_null();
    json_t *turn = json_pack("{s:o,s:o,s:o,s:[],s:s,s:O,s:n}", "texts", template__media(texts),
                             "images", template__media(images), "audios", template__media(audios),
                             "videos", "model", spec->model, "max_tokens", max_tokens, "role");
    json_t *vars = json_pack(
        "{s:O,s:O,s:O,s:[],s:o,s:o,s:o,s:n,s:[],s:[],s:n,s:n,s:{},s:{},s:{},s:{},s:s,s:O,s:n,"
        "s:O,s:[O],s:{s:[O]},s:b}",
        "texts", texts, "images", images, "audios", audios, "videos", "text",
        template__first(texts), "image", template__first(images), "audio", template__first(audios),
        "video", "queries", "passages", "query", "passage", "texts_by_name", "images_by_name",
        "audios_by_name", "videos_by_name", "model", spec->model, "max_tokens", max_tokens, "role",
        "turn", turn, "turns", turn, "request_info", "turns", turn, "stream", spec->streaming);
    json_decref(images);
    json_decref(audios);
    json_decref(max_tokens);
    json_decref(turn);
    return vars;
}

json_t *payload__template_base(const struct payload_spec *spec, char *errbuf, size_t errcap)
{
    if (spec->template == NULL) {
        payload__err(errbuf, errcap, "a template request payload needs a compiled template");
        return NULL;
    }
    json_t *texts = payload__texts(spec, errbuf, errcap);
    json_t *vars = texts != NULL ? template__vars(spec, texts) : NULL;
    json_decref(texts);
    if (vars == NULL) {
        if (texts != NULL) {
            payload__err(errbuf, errcap,
                         "out of memory (or text that is not UTF-8) building the "
                         "template variables");
        }
        return NULL;
    }
    char *text = NULL;
    size_t len = 0;
    char why[512];
    int rc = template_render(spec->template, vars, &text, &len, why, sizeof(why));
    json_decref(vars);
    if (rc != 0) {
        payload__err(errbuf, errcap, "payload_template: %s", rc == -ENOMEM ? "out of memory" : why);
        return NULL;
    }
    json_error_t jerr;
    json_t *root = json_loadb(text, len, JSON_DECODE_ANY, &jerr);
    if (root == NULL) {
        payload__err(errbuf, errcap,
                     "payload_template did not render valid JSON (%s at line %d, column %d): "
                     "%.100s",
                     jerr.text, jerr.line, jerr.column, text);
    }
    free(text);
    return root;
}
