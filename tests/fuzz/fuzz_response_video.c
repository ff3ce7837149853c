/*
 * fuzz_response_video.c - libFuzzer target for the video job reader
 * (response_video_parse), checked against jansson on every input:
 *   - nothing is read outside the input, and every view lies inside it;
 *   - an input the reader accepts is a JSON object for jansson too (unless jansson refuses a
 *     number it cannot hold or bytes that are not UTF-8);
 *   - then "id", "status", "url", the error's message, "inference_time_s" and
 *     "peak_memory_mb" are what jansson finds under those names (the last of a
 *     repeated name, as both keep).
 */
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "response/response.h"

static void check_inside(const uint8_t *data, size_t size, struct response_str v)
{
    if (v.len > 0 &&
        ((const uint8_t *)v.ptr < data || (const uint8_t *)v.ptr + v.len > data + size)) {
        abort();
    }
}

/* The escaped view decodes to jansson's string. */
static void check_string(struct response_str v, const json_t *want)
{
    if (!json_is_string(want)) {
        if (v.len != 0) {
            abort();
        }
        return;
    }
    size_t want_len = json_string_length(want);
    char *got = malloc(want_len + 1);
    bool truncated = false;
    size_t n = jsonstr_unescape(v.ptr, v.len, got, want_len + 1, &truncated);
    if (n != want_len || memcmp(got, json_string_value(want), n) != 0) {
        abort();
    }
    free(got);
}

static void check_number(bool has, double got, const json_t *want)
{
    bool want_has =
        json_is_number(want) && json_number_value(want) >= 0 && json_number_value(want) <= 1e15;
    /* The reader reads numbers of at most 63 bytes; longer ones may be absent. */
    if (has && (!want_has || fabs(got - json_number_value(want)) > 1e-9 * fabs(got) + 1e-12)) {
        abort();
    }
}

static enum response_video_status status_of(const json_t *s)
{
    if (!json_is_string(s)) {
        return RESPONSE_VIDEO_ABSENT;
    }
    const char *v = json_string_value(s);
    if (strlen(v) != json_string_length(s)) {
        return RESPONSE_VIDEO_OTHER; /* an embedded NUL names no status */
    }
    return strcmp(v, "queued") == 0        ? RESPONSE_VIDEO_QUEUED
           : strcmp(v, "in_progress") == 0 ? RESPONSE_VIDEO_IN_PROGRESS
           : strcmp(v, "completed") == 0   ? RESPONSE_VIDEO_COMPLETED
           : strcmp(v, "failed") == 0      ? RESPONSE_VIDEO_FAILED
                                           : RESPONSE_VIDEO_OTHER;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* A copy of exactly `size` bytes, so that a read past the end is caught. */
    char *copy = malloc(size > 0 ? size : 1);
    memcpy(copy, data, size);
    struct response_video v;
    enum response_parse_status st = response_video_parse(copy, size, NULL, &v);
    if (st != RESPONSE_PARSE_OK) {
        free(copy);
        return 0;
    }
    const uint8_t *base = (const uint8_t *)copy;
    check_inside(base, size, v.id);
    check_inside(base, size, v.url);
    check_inside(base, size, v.error);
    json_error_t err;
    json_t *root = json_loadb(copy, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, &err);
    /* Valid JSON jansson still refuses: a number it cannot hold, string bytes that are not UTF-8,
     * a lone surrogate escape or a NUL in a key (response/json.c, the tokenizer of every reader,
     * checks the grammar, not the text's encoding). */
    static const char *const refusals[] = {
        "overflow", "too big", "UTF-8", "unable to decode byte", "invalid Unicode", "NUL byte"};
    for (size_t i = 0; root == NULL && i < sizeof(refusals) / sizeof(refusals[0]); i++) {
        if (strstr(err.text, refusals[i]) != NULL) {
            free(copy);
            return 0;
        }
    }
    if (!json_is_object(root)) {
        abort(); /* accepted something jansson does not take for an object */
    }
    const json_t *id = json_object_get(root, "id");
    if (json_is_string(id)) {
        check_string(v.id, id);
    } else if (!json_is_number(id) && v.id.len != 0) {
        abort();
    }
    if (v.status != status_of(json_object_get(root, "status"))) {
        abort();
    }
    check_string(v.url, json_object_get(root, "url"));
    const json_t *e = json_object_get(root, "error");
    if (json_is_object(e)) {
        check_string(v.error, json_object_get(e, "message"));
    } else if (json_is_string(e)) {
        check_string(v.error, e);
    } else if ((e == NULL || json_is_null(e)) && v.error.len != 0) {
        abort();
    }
    check_number(v.has_inference_time, v.inference_time_s,
                 json_object_get(root, "inference_time_s"));
    check_number(v.has_peak_memory, v.peak_memory_mb, json_object_get(root, "peak_memory_mb"));
    json_decref(root);
    free(copy);
    return 0;
}
