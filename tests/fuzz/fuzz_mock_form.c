/*
 * fuzz_mock_form.c - multipart/form-data request bodies through the mock's in-place reader
 * (mock_form.c), for both routes: the first input line is the Content-Type (its boundary), the
 * rest the body. Nothing may read outside the body; an accepted body's job must hold a
 * NUL-terminated model that fits, an image count within bounds, and format into a response
 * body within the sizes the server reserves.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mock/mock_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(enum mock__route route, const char *ct, size_t ct_len, const char *body,
                  size_t len)
{
    struct mock__job job;
    char msg[256];
    enum mock__api_status st =
        mock__form_parse(route, ct, ct_len, body, len, 16, &job, msg, sizeof(msg));
    if (strnlen(msg, sizeof(msg)) == sizeof(msg)) {
        abort();
    }
    if (st != MOCK__API_OK) {
        return;
    }
    if (job.model_len > MOCK__MODEL_BYTES_MAX || job.model[job.model_len] != '\0' ||
        (route == MOCK__ROUTE_IMAGE_EDITS &&
         (job.output_tokens < 1 || job.output_tokens > MOCK__IMAGES_MAX))) {
        abort();
    }
    char out[MOCK__FIXED_BYTES_MAX];
    struct mock__buf b = {.p = out, .cap = sizeof(out)};
    mock__fmt_body_prefix(&b, &job);
    mock__fmt_body_suffix(&b, &job);
    if (b.overflow) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    const char *nl = memchr(text, '\n', size);
    size_t ct_len = nl != NULL ? (size_t)(nl - text) : size;
    size_t rest = nl != NULL ? size - ct_len - 1 : 0;
    /* Copies of exactly their length, so that ASan catches a read past either. */
    char *ct = malloc(ct_len + 1);
    char *body = malloc(rest + 1);
    if (ct == NULL || body == NULL) {
        abort();
    }
    memcpy(ct, text, ct_len);
    memcpy(body, nl != NULL ? nl + 1 : "", rest);
    check(MOCK__ROUTE_TRANSCRIPTIONS, ct, ct_len, body, rest);
    check(MOCK__ROUTE_IMAGE_EDITS, ct, ct_len, body, rest);
    free(ct);
    free(body);
    return 0;
}
