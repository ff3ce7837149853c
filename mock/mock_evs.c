/*
 * mock_evs.c - the SageMaker Runtime face of the mock: POST /endpoints/NAME/invocations
 * answers as chat completions does, and /invocations-response-stream streams the same events
 * each framed as an AWS event-stream PayloadPart message (application/vnd.amazon.eventstream),
 * as a vLLM container behind SageMaker does.
 */
#include <string.h>

#include "evs/evs.h"
#include "mock/mock_internal.h"

bool mock__sagemaker_path(const char *path, size_t len, bool *out_stream)
{
    static const char prefix[] = "/endpoints/";
    static const char invoke[] = "/invocations";
    static const char stream[] = "/invocations-response-stream";
    if (len <= sizeof(prefix) - 1 || memcmp(path, prefix, sizeof(prefix) - 1) != 0) {
        return false;
    }
    const char *name = path + sizeof(prefix) - 1;
    const char *slash = memchr(name, '/', len - (sizeof(prefix) - 1));
    if (slash == NULL || slash == name) {
        return false;
    }
    size_t rest = len - (size_t)(slash - path);
    *out_stream = rest == sizeof(stream) - 1 && memcmp(slash, stream, rest) == 0;
    return *out_stream || (rest == sizeof(invoke) - 1 && memcmp(slash, invoke, rest) == 0);
}

void mock__evs_frame(struct mock__buf *b, size_t start, bool exception)
{
    if (b->overflow) {
        return;
    }
    static const struct evs_string_header headers[] = {
        {":event-type", "PayloadPart", 11},
        {":content-type", "application/json", 16},
        {":message-type", "event", 5},
    };
    static const struct evs_string_header failure[] = {
        {":exception-type", "ModelStreamError", 16},
        {":content-type", "application/json", 16},
        {":message-type", "exception", 9},
    };
    size_t payload_len = b->len - start;
    size_t n = evs_message_write((uint8_t *)b->p + start, b->cap - start,
                                 exception ? failure : headers, 3, b->p + start, payload_len);
    if (n == 0) {
        b->overflow = true;
        return;
    }
    b->len = start + n;
}
