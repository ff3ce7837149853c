/*
 * fuzz_mock_body.c - request bodies through the mock's in-place reader (mock__api_parse) and
 * through the jansson reader it replaced (tests/mock/api_jansson.c), for the route the first
 * byte picks: the same status, the same message, and for a body that reads, the same job
 * (output length, prompt words, flags, model). The one exception is jansson's quirk that
 * response_walk.h names: a NUL byte after a number or literal, which jansson loses and the
 * in-place reader refuses.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mock/mock_internal.h"
#include "tests/mock/api_jansson.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* jansson_drops_nul reports whether the text holds a NUL byte right after a digit or a letter:
 * jansson's one-byte unget loses such a NUL after a number or literal and loads the text
 * anyway, which response_walk_check() refuses (response_walk.h). */
static bool jansson_drops_nul(const uint8_t *p, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        uint8_t c = p[i - 1];
        if (p[i] == 0 && ((c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z'))) {
            return true;
        }
    }
    return false;
}

static bool same_job(const struct mock__job *a, const struct mock__job *b)
{
    return a->output_tokens == b->output_tokens && a->prompt_tokens == b->prompt_tokens &&
           a->stream == b->stream && a->include_usage == b->include_usage &&
           a->continuous_usage == b->continuous_usage && a->limit_given == b->limit_given &&
           a->model_len == b->model_len && memcmp(a->model, b->model, a->model_len + 1) == 0 &&
           a->model_json_len == b->model_json_len &&
           memcmp(a->model_json, b->model_json, a->model_json_len) == 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    static const enum mock__route routes[] = {
        MOCK__ROUTE_CHAT,       MOCK__ROUTE_COMPLETIONS, MOCK__ROUTE_RESPONSES,
        MOCK__ROUTE_MESSAGES,   MOCK__ROUTE_GENERATE,    MOCK__ROUTE_GENERATE_STREAM,
        MOCK__ROUTE_EMBEDDINGS, MOCK__ROUTE_NIM_RANKING, MOCK__ROUTE_COHERE_RERANK,
        MOCK__ROUTE_TEI_RERANK,
    };
    enum mock__route route = routes[data[0] % (sizeof(routes) / sizeof(routes[0]))];
    /* A copy of exactly the body's size, so that ASan sees any read past its end. */
    char *body = malloc(size - 1 > 0 ? size - 1 : 1);
    if (body == NULL) {
        return 0;
    }
    memcpy(body, data + 1, size - 1);
    struct mock__job got;
    struct mock__job want;
    char got_msg[MOCK__ERROR_MESSAGE_BYTES];
    char want_msg[MOCK__ERROR_MESSAGE_BYTES];
    memset(&got, 0, sizeof(got));
    memset(&want, 0, sizeof(want));
    enum mock__api_status gs =
        mock__api_parse(route, body, size - 1, 16, &got, got_msg, sizeof(got_msg));
    enum mock__api_status ws =
        mock_ref_api_parse(route, body, size - 1, 16, &want, want_msg, sizeof(want_msg));
    bool same =
        gs == ws && strcmp(got_msg, want_msg) == 0 && (gs != MOCK__API_OK || same_job(&got, &want));
    if (!same && !(gs == MOCK__API_BAD_JSON && jansson_drops_nul(data + 1, size - 1))) {
        abort();
    }
    free(body);
    return 0;
}
