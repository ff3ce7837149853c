/*
 * fuzz_mock_video.c - the mock server's video API on arbitrary requests: the path and method
 * (mock__video_op_of), a job id made by anyone (mock__video_poll, mock__video_content) and a
 * submission body (mock__video_submit). Nothing is read outside the input; an id the mock made
 * itself polls back to the same job; every answer fits its buffer or says it overflowed.
 *
 * Input layout: byte 0 picks GET or POST, byte 1 the clock's offset; the rest is the path,
 * then after the first '\n' (if any) the body.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tests/fuzz/fuzz_splits.h"
#include "mock/mock.h"
#include "mock/mock_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) {
        return 0;
    }
    const char *method = (data[0] & 1) != 0 ? "POST" : "GET";
    uint64_t now_ns = 1000000000ull + (uint64_t)data[1] * 50000000ull;
    size_t len = size - 2;
    char *in = malloc(len > 0 ? len : 1); /* exact size, so ASan sees any over-read */
    memcpy(in, data + 2, len);
    const char *nl = memchr(in, '\n', len);
    size_t path_len = nl != NULL ? (size_t)(nl - in) : len;
    const char *body = nl != NULL ? nl + 1 : in + len;
    size_t body_len = len - path_len - (nl != NULL ? 1 : 0);
    const char *id = NULL;
    size_t id_len = 0;
    enum mock__video_op op = mock__video_op_of(method, strlen(method), in, path_len, &id, &id_len);
    if (id_len > 0 && !fuzz_inside(id, id_len, in, path_len)) {
        abort();
    }
    char out[MOCK__VIDEO_BYTES + 1024];
    struct mock__buf b = {.p = out, .cap = sizeof(out)};
    const char *why = NULL;
    int status = 0;
    struct mock_config cfg;
    mock_config_init(&cfg);
    cfg.video_fail_rate = data[1] % 2 == 0 ? 0 : 100;
    if (op == MOCK__VIDEO_POLL) {
        status = mock__video_poll(now_ns, id, id_len, &b, &why);
    } else if (op == MOCK__VIDEO_CONTENT) {
        status = mock__video_content(now_ns, id, id_len, &b, &why);
    } else if (op == MOCK__VIDEO_SUBMIT) {
        status = mock__video_submit(&cfg, now_ns, 50.0, body, body_len, &b, &why);
    }
    if ((status != 0 && status != 200 && why == NULL) || b.overflow || b.len > b.cap) {
        abort();
    }
    if (op == MOCK__VIDEO_SUBMIT && status == 200) {
        /* The new job's id: between "id":" and the next quote. Polling it finds the job. */
        const char *start = memchr(out, ':', b.len);
        const char *q1 = start != NULL ? memchr(start, '"', b.len - (size_t)(start - out)) : NULL;
        const char *q2 = q1 != NULL ? memchr(q1 + 1, '"', b.len - (size_t)(q1 + 1 - out)) : NULL;
        if (q2 == NULL) {
            abort();
        }
        char again[2048];
        struct mock__buf b2 = {.p = again, .cap = sizeof(again)};
        if (mock__video_poll(now_ns, q1 + 1, (size_t)(q2 - q1 - 1), &b2, &why) != 200) {
            abort();
        }
    }
    free(in);
    return 0;
}
