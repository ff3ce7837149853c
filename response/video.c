/*
 * video.c - reading the job object of OpenAI's and SGLang's video API (AIPerf's
 * openai_video_generation.py and its transport's polling): the answer to a submission
 * (POST /v1/videos) and to each poll (GET /v1/videos/{id}) have the same shape.
 */
#include "response/response_json.h"

#include <string.h>

enum video__key {
    VIDEO_ID,
    VIDEO_STATUS,
    VIDEO_URL,
    VIDEO_ERROR,
    VIDEO_INFERENCE_TIME,
    VIDEO_PEAK_MEMORY,
    VIDEO_KEY_COUNT,
};

static const struct response__key video__keys[VIDEO_KEY_COUNT] = {
    [VIDEO_ID] = RESPONSE__KEY("id"),
    [VIDEO_STATUS] = RESPONSE__KEY("status"),
    [VIDEO_URL] = RESPONSE__KEY("url"),
    [VIDEO_ERROR] = RESPONSE__KEY("error"),
    [VIDEO_INFERENCE_TIME] = RESPONSE__KEY("inference_time_s"),
    [VIDEO_PEAK_MEMORY] = RESPONSE__KEY("peak_memory_mb"),
};

static enum response_video_status video__status(const struct response__doc *d, int i)
{
    static const struct {
        const char *name;
        enum response_video_status status;
    } names[] = {
        {"queued", RESPONSE_VIDEO_QUEUED},
        {"in_progress", RESPONSE_VIDEO_IN_PROGRESS},
        {"completed", RESPONSE_VIDEO_COMPLETED},
        {"failed", RESPONSE_VIDEO_FAILED},
    };
    if (!response__is(d, i, JSMN_STRING)) {
        return RESPONSE_VIDEO_ABSENT;
    }
    for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++) {
        if (response__str_eq(d, i, names[k].name)) {
            return names[k].status;
        }
    }
    return RESPONSE_VIDEO_OTHER;
}

/* video__error takes AIPerf's reading of "error": its "message" when it is an object (no
 * message: empty), the value itself otherwise (a string escaped, anything else as JSON). */
static void video__error(const struct response__doc *d, int err, struct response_video *out)
{
    if (err < 0 || response__is_null(d, err)) {
        return;
    }
    if (response__is(d, err, JSMN_OBJECT)) {
        out->error = response__string(d, response__get(d, err, "message"));
        return;
    }
    if (response__is(d, err, JSMN_STRING)) {
        out->error = response__view(d, err);
        return;
    }
    out->error = response__outer(d, err);
    out->error_is_json = true;
}

enum response_parse_status response_video_parse(const char *json, size_t len,
                                                struct response_scratch *scratch,
                                                struct response_video *out)
{
    *out = (struct response_video){.id = {"", 0}, .url = {"", 0}, .error = {"", 0}};
    if (len > RESPONSE_JSON_BYTES_MAX) {
        return RESPONSE_PARSE_ERR_TOO_LARGE;
    }
    struct response__tok stack_tok[RESPONSE_JSON_TOKENS_MAX];
    struct response__tok *tok = stack_tok;
    int cap = RESPONSE_JSON_TOKENS_MAX;
    if (scratch != NULL) {
        tok = response__scratch_tokens(scratch, &cap);
    }
    struct response__doc d;
    enum response_parse_status st =
        len == 0 ? RESPONSE_PARSE_ERR_MALFORMED : response__tokenize(&d, tok, cap, json, len);
    if (st != RESPONSE_PARSE_OK) {
        return st;
    }
    if (!response__is(&d, 0, JSMN_OBJECT)) {
        return RESPONSE_PARSE_ERR_NOT_OBJECT;
    }
    int member[VIDEO_KEY_COUNT];
    response__members(&d, 0, video__keys, VIDEO_KEY_COUNT, member);
    /* An integer id is a job id too: AIPerf puts whatever "id" holds into the poll URL. */
    if (response__is(&d, member[VIDEO_ID], JSMN_STRING) ||
        response__is_number(&d, member[VIDEO_ID])) {
        out->id = response__view(&d, member[VIDEO_ID]);
    }
    out->status = video__status(&d, member[VIDEO_STATUS]);
    out->url = response__string(&d, member[VIDEO_URL]);
    video__error(&d, member[VIDEO_ERROR], out);
    out->has_inference_time =
        response__seconds(&d, member[VIDEO_INFERENCE_TIME], &out->inference_time_s);
    out->has_peak_memory = response__seconds(&d, member[VIDEO_PEAK_MEMORY], &out->peak_memory_mb);
    return RESPONSE_PARSE_OK;
}
