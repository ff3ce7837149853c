/*
 * fuzz_mock_openai.c - request bodies through the body reader, then every response piece the
 * server would format for the parsed job: nothing may overflow the sizes the server reserves,
 * and every event and body must be valid JSON (the model name is echoed, so escaping is tested).
 * The body is also read by the jansson reader the in-place one replaced (tests/mock/
 * api_jansson.c): the same status, message and job, but for jansson's one quirk
 * (tests/support/jansson_quirk.h), which the in-place reader refuses as not JSON.
 */
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mock/mock_internal.h"
#include "tests/mock/api_jansson.h"
#include "tests/support/jansson_quirk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* check_events walks chunked SSE output and requires valid JSON in every event but [DONE]. */
static void check_events(const char *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        char *end = NULL;
        unsigned long chunk = strtoul(p + i, &end, 16);
        i = (size_t)(end - p) + 2;
        if (chunk == 0) {
            return;
        }
        const char *ev = p + i;
        size_t ev_len = chunk - 2; /* minus "\n\n" */
        if (ev_len > 7 && memcmp(ev, "event: ", 7) == 0) {
            const char *nl = memchr(ev, '\n', ev_len);
            if (nl == NULL) {
                abort();
            }
            ev_len -= (size_t)(nl + 1 - ev);
            ev = nl + 1;
        }
        if (ev_len < 6 || memcmp(ev, "data: ", 6) != 0) {
            abort();
        }
        ev += 6;
        ev_len -= 6;
        if (!(ev_len == 6 && memcmp(ev, "[DONE]", 6) == 0)) {
            json_t *j = json_loadb(ev, ev_len, JSON_ALLOW_NUL, NULL);
            if (j == NULL) {
                abort();
            }
            json_decref(j);
        }
        i += chunk + 2;
    }
}

static void format_all(struct mock__job *job, uint32_t per_chunk)
{
    size_t cap = mock__event_bytes_max(per_chunk);
    char *buf = malloc(cap);
    if (buf == NULL) {
        return;
    }
    memcpy(job->id, "chatcmpl-mock-0-1", 17);
    job->id_len = 17;
    job->created_s = 1700000000;
    uint32_t count = job->output_tokens < per_chunk ? job->output_tokens : per_chunk;
    struct mock__buf b = {.p = buf, .cap = cap};
    mock__fmt_malformed_event(&b, job); /* invalid JSON on purpose: only its size is checked */
    if (b.overflow) {
        abort();
    }
    b.len = 0;
    mock__fmt_token_event(&b, job, 0, count);
    if (b.overflow) {
        abort();
    }
    check_events(buf, b.len);
    b.len = 0;
    mock__fmt_stream_tail(&b, job);
    if (b.overflow) {
        abort();
    }
    check_events(buf, b.len);
    b.len = 0;
    mock__fmt_stream_head(&b, job, true);
    if (b.overflow) {
        abort();
    }
    check_events(strstr(buf, "\r\n\r\n") + 4, b.len - (size_t)(strstr(buf, "\r\n\r\n") + 4 - buf));
    b.len = 0;
    mock__fmt_body_prefix(&b, job);
    size_t units = b.len;
    for (uint32_t i = 0; i < count; i++) {
        mock__fmt_unit(&b, job, i);
    }
    if (b.len - units != mock__units_len(job, 0, count)) {
        abort();
    }
    job->output_tokens = count;
    mock__fmt_body_suffix(&b, job);
    if (b.overflow) {
        abort();
    }
    json_t *j = json_loadb(buf, b.len, JSON_ALLOW_NUL, NULL);
    if (j == NULL) {
        abort();
    }
    json_decref(j);
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) {
        return 0;
    }
    static const enum mock__route routes[] = {
        MOCK__ROUTE_CHAT,       MOCK__ROUTE_COMPLETIONS,   MOCK__ROUTE_RESPONSES,
        MOCK__ROUTE_MESSAGES,   MOCK__ROUTE_GENERATE,      MOCK__ROUTE_GENERATE_STREAM,
        MOCK__ROUTE_EMBEDDINGS, MOCK__ROUTE_NIM_RANKING,   MOCK__ROUTE_COHERE_RERANK,
        MOCK__ROUTE_TEI_RERANK, MOCK__ROUTE_IMAGES,        MOCK__ROUTE_INFER,
        MOCK__ROUTE_RAG,        MOCK__ROUTE_VLLM_GENERATE,
    };
    enum mock__route route = routes[(data[0] & 15) % (sizeof(routes) / sizeof(routes[0]))];
    uint32_t per_chunk = 1u + (data[0] >> 4) * 4u;
    /* A copy of exactly the body's size, so that ASan sees any read past its end. */
    char *body = malloc(size - 1 > 0 ? size - 1 : 1);
    if (body == NULL) {
        return 0;
    }
    memcpy(body, data + 1, size - 1);
    struct mock_ref_pair p;
    if (!mock_ref_compare(route, body, size - 1, &p) &&
        !(p.got == MOCK__API_BAD_JSON && jansson_drops_nul(data + 1, size - 1))) {
        abort();
    }
    free(body);
    struct mock__job job = p.got_job;
    const char *msg = p.got_msg;
    enum mock__api_status st = p.got;
    if (st == MOCK__API_OK) {
        if ((mock__route_tokens(route) && job.output_tokens < 1) ||
            job.output_tokens > MOCK_OUTPUT_TOKENS_MAX || job.model_len == 0 ||
            job.model_len > MOCK__MODEL_BYTES_MAX) {
            abort();
        }
        format_all(&job, per_chunk);
    } else if (msg[0] == '\0') {
        abort();
    }
    return 0;
}
