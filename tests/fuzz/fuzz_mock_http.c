/*
 * fuzz_mock_http.c - the mock server's request parser on arbitrary bytes: it must never read
 * outside the input, and a request it accepts must be self-consistent (views inside the input,
 * body within the limit, the same answer when parsed again from exactly its own bytes).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mock/mock_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_view(const char *base, size_t len, const char *p, size_t n)
{
    if (n > 0 && (p < base || p + n > base + len)) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) {
        return 0;
    }
    /* First two bytes choose the body limit so both 413 and large bodies are reachable. */
    size_t body_max = ((size_t)data[0] << 8 | data[1]) % 4096;
    size_t len = size - 2;
    char *buf = malloc(len > 0 ? len : 1); /* exact size, so ASan sees any over-read */
    if (buf == NULL) {
        return 0;
    }
    memcpy(buf, data + 2, len);
    struct mock__request req;
    size_t consumed = 0;
    enum mock__req_status st =
        mock__request_parse(buf, len, body_max, "X-Correlation-ID", &req, &consumed);
    if (st == MOCK__REQ_OK) {
        if (consumed > len || req.body_len > body_max || req.method_len == 0 || req.path_len == 0 ||
            req.path[0] != '/') {
            abort();
        }
        check_view(buf, len, req.method, req.method_len);
        check_view(buf, len, req.path, req.path_len);
        check_view(buf, len, req.body, req.body_len);
        check_view(buf, len, req.request_id, req.request_id_len);
        struct mock__request again;
        size_t consumed_again = 0;
        if (mock__request_parse(buf, consumed, body_max, "X-Correlation-ID", &again,
                                &consumed_again) != MOCK__REQ_OK ||
            consumed_again != consumed) {
            abort();
        }
    } else if (st != MOCK__REQ_NEED_MORE) {
        if (mock__req_status_code(st) == 0 || req.error == NULL) {
            abort();
        }
    } else if (consumed != 0) {
        abort();
    }
    free(buf);
    return 0;
}
