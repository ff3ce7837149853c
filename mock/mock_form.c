/*
 * mock_form.c - reading the multipart/form-data bodies of /v1/images/edits and
 * /v1/audio/transcriptions in place: the boundary from the Content-Type, then each part's
 * name and content, without copying. An audio file's length comes from its WAV header
 * (payload_wav_seconds), so that a transcription answers with the duration it was sent.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "mock/mock_internal.h"
#include "payload/payload.h"

/* form_part is one part: its name (a view of the Content-Disposition's name="...") and its
 * content. */
struct form_part {
    const char *name;
    size_t name_len;
    bool is_file;
    const char *data;
    size_t len;
};

static const char *find(const char *hay, size_t hay_len, const char *needle, size_t n)
{
    for (size_t i = 0; n <= hay_len && i + n <= hay_len; i++) {
        if (memcmp(hay + i, needle, n) == 0) {
            return hay + i;
        }
    }
    return NULL;
}

/* boundary_of returns the boundary of a multipart/form-data Content-Type (quotes removed). */
static bool boundary_of(const char *ct, size_t ct_len, const char **out, size_t *out_len)
{
    if (ct == NULL || ct_len < 19 || strncasecmp(ct, "multipart/form-data", 19) != 0) {
        return false;
    }
    const char *b = find(ct, ct_len, "boundary=", 9);
    if (b == NULL) {
        return false;
    }
    b += 9;
    size_t n = (size_t)(ct + ct_len - b);
    const char *semi = memchr(b, ';', n); /* a view: not NUL-terminated */
    n = semi != NULL ? (size_t)(semi - b) : n;
    if (n >= 2 && b[0] == '"' && b[n - 1] == '"') {
        b++;
        n -= 2;
    }
    *out = b;
    *out_len = n;
    return n > 0 && n <= 70;
}

/* part_head reads a part's head (up to its empty line) into p; returns the content's start. */
static const char *part_head(const char *at, const char *end, struct form_part *p)
{
    const char *blank = find(at, (size_t)(end - at), "\r\n\r\n", 4);
    if (blank == NULL) {
        return NULL;
    }
    const char *name = find(at, (size_t)(blank - at), "name=\"", 6);
    if (name == NULL) {
        return NULL;
    }
    name += 6;
    const char *close = memchr(name, '"', (size_t)(blank - name));
    if (close == NULL) {
        return NULL;
    }
    p->name = name;
    p->name_len = (size_t)(close - name);
    p->is_file = find(at, (size_t)(blank - at), "filename=\"", 10) != NULL;
    return blank + 4;
}

static bool name_is(const struct form_part *p, const char *name)
{
    return p->name_len == strlen(name) && memcmp(p->name, name, p->name_len) == 0;
}

static uint64_t parse_uint(const char *s, size_t len, bool *ok)
{
    uint64_t v = 0;
    *ok = len > 0 && len < 10;
    for (size_t i = 0; *ok && i < len; i++) {
        *ok = s[i] >= '0' && s[i] <= '9';
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    return v;
}

/* take fills the job from one part. */
static bool take(const struct form_part *p, struct mock__job *out, char *msg, size_t msgcap)
{
    if (name_is(p, "model") && !p->is_file && p->len > 0 && p->len <= MOCK__MODEL_BYTES_MAX) {
        memcpy(out->model, p->data, p->len);
        out->model_len = p->len;
    } else if (name_is(p, "prompt") && !p->is_file) {
        out->prompt_tokens = mock__prompt_words(p->data, p->len);
    } else if (name_is(p, "n") && out->route == MOCK__ROUTE_IMAGE_EDITS) {
        bool ok = false;
        uint64_t n = parse_uint(p->data, p->len, &ok);
        if (!ok || n < 1 || n > MOCK__IMAGES_MAX) {
            snprintf(msg, msgcap, "'n' must be an integer from 1 to %u", MOCK__IMAGES_MAX);
            return false;
        }
        out->output_tokens = (uint32_t)n;
    } else if (p->is_file && name_is(p, "file") && out->route == MOCK__ROUTE_TRANSCRIPTIONS) {
        double s = payload_wav_seconds((const uint8_t *)p->data, p->len);
        out->audio_ms = s > 0 ? (uint64_t)(s * 1000.0 + 0.5) : 0;
        out->has_file = true;
    } else if (p->is_file && name_is(p, "image")) {
        out->has_file = true;
    } else if (name_is(p, "url") && !p->is_file) {
        out->has_file = true;
    }
    return true;
}

/* walk reads every part between the delimiters. */
static bool walk(const char *body, size_t len, const char *delim, size_t delim_len,
                 struct mock__job *out, char *msg, size_t msgcap)
{
    const char *end = body + len;
    const char *at = find(body, len, delim + 2, delim_len - 2); /* the first has no CRLF */
    if (at != body) {
        snprintf(msg, msgcap, "multipart body does not start with its boundary");
        return false;
    }
    at += delim_len - 2;
    while (at + 2 <= end && memcmp(at, "--", 2) != 0) {
        struct form_part p = {0};
        const char *content =
            at + 2 <= end && memcmp(at, "\r\n", 2) == 0 ? part_head(at + 2, end, &p) : NULL;
        const char *next =
            content != NULL ? find(content, (size_t)(end - content), delim, delim_len) : NULL;
        if (next == NULL) {
            snprintf(msg, msgcap, "malformed multipart part");
            return false;
        }
        p.data = content;
        p.len = (size_t)(next - content);
        if (!take(&p, out, msg, msgcap)) {
            return false;
        }
        at = next + delim_len;
    }
    if (at + 2 > end) {
        snprintf(msg, msgcap, "multipart body has no closing boundary");
        return false;
    }
    return true;
}

enum mock__api_status mock__form_parse(enum mock__route route, const char *content_type,
                                       size_t content_type_len, const char *body, size_t len,
                                       uint32_t default_tokens, struct mock__job *out, char *msg,
                                       size_t msgcap)
{
    char none[1];
    msg = msgcap > 0 ? msg : none;
    msgcap = msgcap > 0 ? msgcap : sizeof(none);
    msg[0] = '\0';
    mock__job_start(out, route, route == MOCK__ROUTE_IMAGE_EDITS ? 1 : default_tokens);
    memcpy(out->model, "mock-model", 11);
    out->model_len = 10;
    const char *b;
    size_t b_len;
    if (!boundary_of(content_type, content_type_len, &b, &b_len)) {
        snprintf(msg, msgcap, "Content-Type must be multipart/form-data with a boundary");
        return MOCK__API_INVALID;
    }
    char delim[4 + 70];
    memcpy(delim, "\r\n--", 4);
    memcpy(delim + 4, b, b_len);
    if (!walk(body, len, delim, 4 + b_len, out, msg, msgcap)) {
        return MOCK__API_INVALID;
    }
    if (!out->has_file) {
        snprintf(msg, msgcap,
                 route == MOCK__ROUTE_TRANSCRIPTIONS
                     ? "'file' is required: an audio file part"
                     : "'image' (a file part) or 'url' is required");
        return MOCK__API_INVALID;
    }
    out->model[out->model_len] = '\0';
    struct mock__buf mb = {.p = out->model_json, .cap = sizeof(out->model_json)};
    mock__json_escape(&mb, out->model, out->model_len, false);
    out->model_json_len = mb.len;
    return MOCK__API_OK;
}
