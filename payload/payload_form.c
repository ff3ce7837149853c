/*
 * payload_form.c - the multipart/form-data bodies of image_edit and audio_transcription, in
 * the field order of AIPerf's format_payload (openai_image_edit.py,
 * openai_audio_transcription.py) and with its transport's value rules (a bool is "true" or
 * "false", a list repeats its field, null is left out). The media arrives base64-encoded and
 * is decoded once here; the body is cut around it (head, file, tail) so that the engine sends
 * the file's bytes from where they lie, never copied into a body.
 */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "http/http.h"
#include "payload/payload_internal.h"

/* form__buf is a growing piece of the body. */
struct form__buf {
    char *p;
    size_t len;
    size_t cap;
    bool failed;
    bool collision; /* a value held the boundary's delimiter */
};

static char *form__room(struct form__buf *b, size_t n)
{
    if (b->failed || n > ((size_t)1 << 30) - b->len) {
        b->failed = true;
        return NULL;
    }
    if (b->len + n > b->cap) {
        size_t cap = b->cap != 0 ? b->cap : 1024;
        while (cap < b->len + n) {
            cap *= 2;
        }
        char *p = realloc(b->p, cap);
        if (p == NULL) {
            b->failed = true;
            return NULL;
        }
        b->p = p;
        b->cap = cap;
    }
    return b->p + b->len;
}

/* form__field appends one text part. */
static void form__field(struct form__buf *b, const char *boundary, const char *name,
                        const char *value, size_t len)
{
    ssize_t need = http_multipart_field(NULL, 0, boundary, name, value, len);
    char *at = need > 0 ? form__room(b, (size_t)need) : NULL;
    b->collision |= !http_multipart_boundary_absent(boundary, value, len);
    if (at == NULL) {
        b->failed = true;
        return;
    }
    http_multipart_field(at, (size_t)need, boundary, name, value, len);
    b->len += (size_t)need;
}

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z') {
        return c - 'A';
    }
    if (c >= 'a' && c <= 'z') {
        return c - 'a' + 26;
    }
    if (c >= '0' && c <= '9') {
        return c - '0' + 52;
    }
    return c == '+' ? 62 : c == '/' ? 63 : -1;
}

/* form__b64 decodes standard base64 (padding optional, as Python's b64decode after
 * validate=True accepts it padded) into a malloc'd buffer. */
static uint8_t *form__b64(const char *s, size_t len, size_t *out_len)
{
    while (len > 0 && s[len - 1] == '=') {
        len--;
    }
    if (len % 4 == 1) {
        return NULL;
    }
    uint8_t *out = malloc(len / 4 * 3 + 3);
    size_t n = 0;
    uint32_t acc = 0;
    for (size_t i = 0; out != NULL && i < len; i++) {
        int v = b64_value((unsigned char)s[i]);
        if (v < 0) {
            free(out);
            return NULL;
        }
        acc = acc << 6 | (uint32_t)v;
        if (i % 4 == 3) {
            out[n++] = (uint8_t)(acc >> 16);
            out[n++] = (uint8_t)(acc >> 8);
            out[n++] = (uint8_t)acc;
        }
    }
    if (out != NULL && len % 4 >= 2) {
        acc <<= 6 * (4 - len % 4);
        out[n++] = (uint8_t)(acc >> 16);
        if (len % 4 == 3) {
            out[n++] = (uint8_t)(acc >> 8);
        }
    }
    *out_len = n;
    return out;
}

/* form__value appends extra input `key` with value `v` as AIPerf's transport writes it. */
static void form__value(struct form__buf *b, const char *boundary, const char *key, const json_t *v)
{
    char num[64];
    switch (json_typeof(v)) {
    case JSON_NULL:
        return;
    case JSON_STRING:
        form__field(b, boundary, key, json_string_value(v), json_string_length(v));
        return;
    case JSON_TRUE:
    case JSON_FALSE:
        form__field(b, boundary, key, json_is_true(v) ? "true" : "false", json_is_true(v) ? 4 : 5);
        return;
    case JSON_INTEGER:
        snprintf(num, sizeof(num), "%lld", (long long)json_integer_value(v));
        form__field(b, boundary, key, num, strlen(num));
        return;
    case JSON_ARRAY: {
        size_t i;
        const json_t *item;
        json_array_foreach(v, i, item)
        {
            form__value(b, boundary, key, json_is_array(item) ? json_null() : item);
        }
        return;
    }
    default: { /* reals in their shortest form; objects as JSON */
        char *text = payload__dump(v);
        if (text == NULL) {
            b->failed = true;
            return;
        }
        form__field(b, boundary, key, text, strlen(text));
        free(text);
        return;
    }
    }
}

/* form__extras appends the extra inputs, less the fields the endpoint manages. */
static int form__extras(struct form__buf *b, json_t *summary, const struct payload_spec *spec,
                        const char *boundary, const char *const *reserved, char *errbuf,
                        size_t errcap)
{
    if (spec->extra_inputs_json == NULL) {
        return 0;
    }
    json_t *extra = json_loads(spec->extra_inputs_json, 0, NULL);
    if (!json_is_object(extra)) {
        json_decref(extra);
        payload__err(errbuf, errcap, "extra inputs must be a JSON object");
        return -EINVAL;
    }
    const char *key;
    json_t *v;
    json_object_foreach(extra, key, v)
    {
        bool managed = false;
        for (size_t i = 0; reserved[i] != NULL; i++) {
            managed |= strcmp(key, reserved[i]) == 0;
        }
        if (!managed) {
            form__value(b, boundary, key, v);
            json_object_set(summary, key, v);
        }
    }
    json_decref(extra);
    return 0;
}

/* form__file decodes the file of a part and appends its head to b. */
struct form__file {
    const char *field;
    char filename[32];
    char content_type[64];
    uint8_t *bytes;
    size_t len;
};

static int form__file_part(struct form__buf *b, json_t *summary, const char *boundary,
                           const struct form__file *f)
{
    ssize_t need =
        http_multipart_file_head(NULL, 0, boundary, f->field, f->filename, f->content_type);
    char *at = need > 0 ? form__room(b, (size_t)need) : NULL;
    if (at == NULL) {
        return -ENOMEM;
    }
    http_multipart_file_head(at, (size_t)need, boundary, f->field, f->filename, f->content_type);
    b->len += (size_t)need;
    /* inputs.json describes the file rather than repeating its bytes. */
    json_object_set_new(summary, f->field,
                        json_pack("{s:s,s:s,s:I}", "filename", f->filename, "content_type",
                                  f->content_type, "bytes", (json_int_t)f->len));
    return 0;
}

/* AIPerf's table of audio types, and audio/<format> for the others. */
static int form__audio(const struct payload_spec *spec, struct form__file *f, char *errbuf,
                       size_t errcap)
{
    static const char *const mime[][2] = {
        {"wav", "audio/wav"}, {"mp3", "audio/mpeg"}, {"flac", "audio/flac"}, {"ogg", "audio/ogg"},
        {"m4a", "audio/mp4"}, {"mp4", "audio/mp4"},  {"webm", "audio/webm"}};
    const char *audio = spec->media.audio_count > 0 ? spec->media.audios[0] : NULL;
    const char *comma = audio != NULL ? strchr(audio, ',') : NULL;
    if (comma == NULL || comma == audio || comma - audio > 8) {
        payload__err(errbuf, errcap,
                     "an audio_transcription request needs an audio clip (\"<format>,<base64>\"): "
                     "give --audio-length-mean, or audio in the input file");
        return -EINVAL;
    }
    char fmt[9] = "";
    for (size_t i = 0; i < (size_t)(comma - audio); i++) {
        fmt[i] = (char)(audio[i] >= 'A' && audio[i] <= 'Z' ? audio[i] + 32 : audio[i]);
    }
    snprintf(f->filename, sizeof(f->filename), "audio.%s", fmt);
    snprintf(f->content_type, sizeof(f->content_type), "audio/%s", fmt);
    for (size_t i = 0; i < sizeof(mime) / sizeof(mime[0]); i++) {
        if (strcmp(fmt, mime[i][0]) == 0) {
            snprintf(f->content_type, sizeof(f->content_type), "%s", mime[i][1]);
        }
    }
    f->field = "file";
    f->bytes = form__b64(comma + 1, strlen(comma + 1), &f->len);
    if (f->bytes == NULL) {
        payload__err(errbuf, errcap, "the audio clip is not valid base64");
        return -EINVAL;
    }
    return 0;
}

/* The image types AIPerf recognises from a data URI's type or the base64's first bytes. */
static const char *form__image_type(const char *uri_type, size_t uri_type_len, const char *b64)
{
    static const char *const sniff[][2] = {
        {"iVBORw0KGgo", "image/png"}, {"/9j/", "image/jpeg"},  {"R0lGODlh", "image/gif"},
        {"R0lGODdh", "image/gif"},    {"UklGR", "image/webp"}, {"Qk", "image/bmp"},
    };
    static const char *const known[] = {"image/png", "image/jpeg", "image/webp",
                                        "image/gif", "image/bmp",  "image/jpg"};
    for (size_t i = 0; uri_type_len > 6 && i < sizeof(known) / sizeof(known[0]); i++) {
        if (strlen(known[i]) == uri_type_len &&
            strncasecmp(uri_type, known[i], uri_type_len) == 0) {
            return strcmp(known[i], "image/jpg") == 0 ? "image/jpeg" : known[i];
        }
    }
    for (size_t i = 0; i < sizeof(sniff) / sizeof(sniff[0]); i++) {
        if (strncmp(b64, sniff[i][0], strlen(sniff[i][0])) == 0) {
            return sniff[i][1];
        }
    }
    return NULL;
}

/* form__image decodes image_edit's reference image: a data URI or raw base64. */
static int form__image(const char *image, struct form__file *f, char *errbuf, size_t errcap)
{
    const char *b64 = image;
    const char *type = "";
    size_t type_len = 0;
    if (strncmp(image, "data:", 5) == 0) {
        const char *comma = strchr(image, ',');
        if (comma == NULL) {
            payload__err(errbuf, errcap, "the reference image's data URL has no comma");
            return -EINVAL;
        }
        type = image + 5;
        type_len = strcspn(type, ";,");
        b64 = comma + 1;
    }
    const char *mime = form__image_type(type, type_len, b64);
    if (mime == NULL) {
        payload__err(errbuf, errcap,
                     "the reference image is not a PNG, JPEG, WebP, GIF or BMP data URL or "
                     "base64 image");
        return -EINVAL;
    }
    const char *ext = strchr(mime, '/') + 1;
    snprintf(f->filename, sizeof(f->filename), "image.%s", strcmp(ext, "jpeg") == 0 ? "jpg" : ext);
    snprintf(f->content_type, sizeof(f->content_type), "%s", mime);
    f->field = "image";
    f->bytes = form__b64(b64, strlen(b64), &f->len);
    if (f->bytes == NULL) {
        payload__err(errbuf, errcap, "the reference image is not valid base64");
        return -EINVAL;
    }
    return 0;
}

static uint32_t form__le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

double payload_wav_seconds(const uint8_t *wav, size_t len)
{
    if (len < 12 || memcmp(wav, "RIFF", 4) != 0 || memcmp(wav + 8, "WAVE", 4) != 0) {
        return -1.0;
    }
    uint32_t byte_rate = 0;
    for (size_t at = 12; at + 8 <= len;) {
        uint32_t size = form__le32(wav + at + 4);
        if (memcmp(wav + at, "fmt ", 4) == 0 && size >= 16 && at + 8 + 16 <= len) {
            byte_rate = form__le32(wav + at + 8 + 8);
        } else if (memcmp(wav + at, "data", 4) == 0) {
            size_t data = len - at - 8 < size ? len - at - 8 : size;
            return byte_rate > 0 ? (double)data / byte_rate : -1.0;
        }
        if (size > len - at - 8) {
            break;
        }
        at += 8 + (size_t)size + (size & 1);
    }
    return -1.0;
}

/* The text fields image_edit sends before its image, in AIPerf's order. */
static int form__edit_fields(struct form__buf *b, json_t *summary, const struct payload_spec *spec,
                             const char *boundary)
{
    const char *fields[][2] = {{"prompt", spec->prompt},
                               {"model", spec->model},
                               {"response_format", "b64_json"},
                               {"n", "1"}};
    for (size_t i = 0; i < 4; i++) {
        form__field(b, boundary, fields[i][0], fields[i][1], strlen(fields[i][1]));
        json_t *v = i == 3 ? json_integer(1) : json_string(fields[i][1]);
        if (v == NULL || json_object_set_new(summary, fields[i][0], v) < 0) {
            return -EINVAL;
        }
    }
    return 0;
}

/* form__parts fills the head (up to the file's bytes) and the tail of spec's body. */
static int form__parts(const struct payload_spec *spec, const char *boundary,
                       struct form__buf *head, struct form__buf *tail, json_t *summary,
                       struct form__file *f, char *errbuf, size_t errcap)
{
    static const char *const edit_reserved[] = {"prompt", "image", "url", "mask", NULL};
    static const char *const audio_reserved[] = {"file", NULL};
    bool audio = spec->type == ENDPOINT_AUDIO_TRANSCRIPTION;
    const char *image = spec->media.image_count > 0 ? spec->media.images[0] : NULL;
    int ret = 0;
    if (audio && spec->model == NULL) {
        payload__err(errbuf, errcap, "an audio_transcription request needs a model");
        return -EINVAL;
    }
    if (audio) {
        ret = form__audio(spec, f, errbuf, errcap);
    } else if (spec->prompt == NULL || spec->model == NULL || image == NULL || *image == '\0') {
        payload__err(errbuf, errcap,
                     "an image_edit request needs a prompt, a model and a "
                     "reference image (--image-width-mean and "
                     "--image-height-mean, or an image in the input file)");
        return -EINVAL;
    } else if ((ret = form__edit_fields(head, summary, spec, boundary)) == 0 &&
               strncasecmp(image, "http://", 7) != 0 && strncasecmp(image, "https://", 8) != 0) {
        ret = form__image(image, f, errbuf, errcap);
    }
    /* An image by URL is the SGLang "url" field, and the body has no file. */
    struct form__buf *rest = f->bytes != NULL ? tail : head;
    if (ret == 0 && f->bytes != NULL) {
        ret = form__file_part(head, summary, boundary, f);
        ssize_t need = http_multipart_file_end(NULL, 0);
        char *at = form__room(tail, (size_t)need);
        if (at != NULL) {
            http_multipart_file_end(at, (size_t)need);
            tail->len += (size_t)need;
        }
    } else if (ret == 0) {
        form__field(head, boundary, "url", image, strlen(image));
        json_object_set_new(summary, "url", json_string(image));
    }
    if (ret == 0 && audio) {
        form__field(rest, boundary, "model", spec->model, strlen(spec->model));
        json_object_set_new(summary, "model", json_string(spec->model));
    }
    if (ret == 0) {
        ret = form__extras(rest, summary, spec, boundary, audio ? audio_reserved : edit_reserved,
                           errbuf, errcap);
    }
    return ret;
}

/* form__finish closes the body and checks that no part holds its delimiter. */
static int form__finish(struct form__buf *head, struct form__buf *tail, const struct form__file *f,
                        const char *boundary, char *errbuf, size_t errcap)
{
    struct form__buf *last = f->bytes != NULL ? tail : head;
    ssize_t need = http_multipart_close(NULL, 0, boundary);
    char *at = need > 0 ? form__room(last, (size_t)need) : NULL;
    if (at != NULL) {
        http_multipart_close(at, (size_t)need, boundary);
        last->len += (size_t)need;
    }
    if (head->failed || tail->failed) {
        payload__err(errbuf, errcap, "out of memory building the multipart body");
        return -ENOMEM;
    }
    if (!http_multipart_boundary_absent(boundary, f->bytes, f->len)) {
        payload__err(errbuf, errcap, "the multipart boundary occurs in the file; pick another");
        return -EEXIST;
    }
    return 0;
}

int payload_form_build(const struct payload_spec *spec, const char *boundary,
                       struct payload_form *out, char *errbuf, size_t errcap)
{
    memset(out, 0, sizeof(*out));
    out->audio_seconds = -1.0;
    if (!endpoint_type_form_data(spec->type) || !http_multipart_boundary_valid(boundary)) {
        payload__err(errbuf, errcap, "%s requests are not multipart, or the boundary is invalid",
                     endpoint_type_name(spec->type));
        return -EINVAL;
    }
    struct form__buf head = {0};
    struct form__buf tail = {0};
    struct form__file f = {0};
    json_t *summary = json_object();
    int ret = summary != NULL
                  ? form__parts(spec, boundary, &head, &tail, summary, &f, errbuf, errcap)
                  : -ENOMEM;
    if (ret == 0) {
        ret = form__finish(&head, &tail, &f, boundary, errbuf, errcap);
    }
    if (ret == 0 && (head.collision || tail.collision)) {
        payload__err(errbuf, errcap, "the multipart boundary occurs in a field; pick another");
        ret = -EEXIST;
    }
    out->summary_json = ret == 0 ? payload__dump(summary) : NULL;
    json_decref(summary);
    if (ret == 0 && out->summary_json == NULL) {
        ret = -ENOMEM;
    }
    if (ret != 0) {
        free(head.p);
        free(tail.p);
        free(f.bytes);
        return ret;
    }
    *out = (struct payload_form){.head = head.p,
                                 .head_len = head.len,
                                 .file = f.bytes,
                                 .file_len = f.len,
                                 .tail = tail.p,
                                 .tail_len = tail.len,
                                 .summary_json = out->summary_json,
                                 .audio_seconds = spec->type == ENDPOINT_AUDIO_TRANSCRIPTION
                                                      ? payload_wav_seconds(f.bytes, f.len)
                                                      : -1.0};
    return 0;
}

void payload_form_free(struct payload_form *form)
{
    if (form == NULL) {
        return;
    }
    free(form->head);
    free(form->file);
    free(form->tail);
    free(form->summary_json);
    memset(form, 0, sizeof(*form));
    form->audio_seconds = -1.0;
}
