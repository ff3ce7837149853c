/*
 * fuzz_response_chunk.c - libFuzzer target for response_parse_chunk() and
 * jsonstr_unescape().
 *
 * Input layout: byte 0 picks the endpoint type (mod ENDPOINT_TYPE_COUNT),
 * byte 1 an unescape buffer size and whether to keep state across the input's
 * payloads, byte 2 an SSE event name from a table; the rest is one or more
 * payloads separated by "\n\n", each copied to an exact-size heap buffer so
 * ASan sees any over-read. raw and template readers get a response_field (byte 0's top
 * bits pick it). Checked:
 *   - every view lies inside the payload;
 *   - unescaping any view never writes past its cap and never grows;
 *   - jansson as a reference: JSON that jansson accepts (within our token and
 *     depth limits) must not be called malformed, and ASCII JSON that jansson
 *     rejects for a syntax reason must not be accepted.
 */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint/endpoint.h"
#include "response/response.h"

static void check_view(const char *buf, size_t len, struct response_str v, size_t cap)
{
    if (v.len == 0) {
        return;
    }
    if (v.ptr < buf || v.len > len || v.ptr > buf + (len - v.len)) {
        abort();
    }
    char *out = malloc(cap ? cap : 1);
    if (!out) {
        abort();
    }
    bool truncated;
    size_t n = jsonstr_unescape(v.ptr, v.len, out, cap, &truncated);
    if (n > cap || n > v.len || (!truncated && cap >= v.len && n == 0 && v.len > 0)) {
        abort();
    }
    free(out);
    char *full = malloc(v.len);
    if (!full) {
        abort();
    }
    n = jsonstr_unescape(v.ptr, v.len, full, v.len, &truncated);
    if (truncated || n > v.len) {
        abort(); /* the input length always suffices */
    }
    free(full);
}

static int container_depth(const json_t *v)
{
    const char *key;
    json_t *child;
    size_t i;
    int best = 0;
    if (json_is_object(v)) {
        json_object_foreach((json_t *)v, key, child)
        {
            int d = container_depth(child);
            best = d > best ? d : best;
        }
        return best + 1;
    }
    if (json_is_array(v)) {
        json_array_foreach(v, i, child)
        {
            int d = container_depth(child);
            best = d > best ? d : best;
        }
        return best + 1;
    }
    return 0;
}

static bool plain_ascii(const char *buf, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)buf[i];
        if (c == 0 || c >= 0x80 || c == 'e' || c == 'E' ||
            (c == '\\' && i + 1 < len && buf[i + 1] == 'u')) {
            return false;
        }
    }
    /* jansson rejects integers beyond long long; skip long digit runs. */
    size_t run = 0;
    for (size_t i = 0; i < len; i++) {
        run = (buf[i] >= '0' && buf[i] <= '9') ? run + 1 : 0;
        if (run > 15) {
            return false;
        }
    }
    return true;
}

static void differential(const char *buf, size_t len, enum response_parse_status st)
{
    json_error_t err;
    /* jansson 2.14 skips a NUL byte after a number, which JSON forbids. */
    if (st == RESPONSE_PARSE_DONE || st == RESPONSE_PARSE_ERR_TOO_MANY_TOKENS ||
        memchr(buf, '\0', len)) {
        return;
    }
    json_t *ref = json_loadb(buf, len, JSON_DECODE_ANY, &err);
    bool ours_ok = st != RESPONSE_PARSE_ERR_MALFORMED;
    if (ref) {
        bool container = json_is_object(ref) || json_is_array(ref);
        if (container && container_depth(ref) <= RESPONSE_JSON_DEPTH_MAX && !ours_ok) {
            abort(); /* valid JSON called malformed */
        }
        if (json_is_object(ref) != (st != RESPONSE_PARSE_ERR_NOT_OBJECT && ours_ok) &&
            container_depth(ref) <= RESPONSE_JSON_DEPTH_MAX) {
            abort(); /* object-ness disagrees */
        }
        json_decref(ref);
        return;
    }
    if (ours_ok && plain_ascii(buf, len)) {
        abort(); /* syntax error accepted */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const EVENTS[] = {
    NULL,
    "response.output_text.delta",
    "response.output_text.done",
    "response.completed",
    "response.failed",
    "content_block_delta",
    "message_delta",
    "error",
};

/* The response_field of raw and template readers, by byte 0's top two bits: names with escapes
 * (compared decoded with the payload's) and projections with pipes among them. */
static const char *const FIELDS[] = {
    "output",
    "\"caf\\u00e9\" | [*].\"a\\\"b\"",
    "choices[0].text",
    "*[*] | [*] | [::-1] | [-1].\"t\\u0061b\\t\"",
};

static void check_payload(const struct response_reader *r, struct response_parse_state *state,
                          const char *event, const uint8_t *data, size_t size, size_t cap);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 3) {
        return 0;
    }
    enum endpoint_type t = (enum endpoint_type)(data[0] % ENDPOINT_TYPE_COUNT);
    size_t cap = data[1] >> 1;
    bool keep_state = data[1] & 1;
    const char *event = EVENTS[data[2] % (sizeof(EVENTS) / sizeof(EVENTS[0]))];
    data += 3;
    size -= 3;
    struct response_reader r;
    response_reader_init(&r, t, FIELDS[data[-3] >> 6], NULL, 0);
    struct response_parse_state state = {0};
    /* A tiny scratch so that the scratch path and its token limit are fuzzed too. */
    state.scratch = (data[-1] & 0x80) ? response_scratch_new(64) : NULL;
    response_parse_state_reset(&state);
    size_t start = 0;
    for (size_t i = 0; i + 1 < size; i++) {
        if (data[i] == '\n' && data[i + 1] == '\n') {
            check_payload(&r, keep_state ? &state : NULL, event, data + start, i - start, cap);
            start = i + 2;
            i++;
        }
    }
    check_payload(&r, keep_state ? &state : NULL, event, data + start, size - start, cap);
    response_scratch_free(state.scratch);
    response_reader_release(&r);
    return 0;
}

/* check_spec_decode holds the speculative-decoding statistics to what response.h promises: only
 * chat and completions read them; a valid payload's histogram fits, matches num_spec_tokens,
 * adds up to the steps and weighs up to the accepted drafts, which are at most the drafted. */
static void check_spec_decode(enum endpoint_type t, const struct response_chunk *c)
{
    if (!c->spec_decode_present) {
        return;
    }
    const struct record_spec_decode *s = &c->spec_decode;
    if ((t != ENDPOINT_CHAT && t != ENDPOINT_COMPLETIONS) || s->payloads != 1) {
        abort();
    }
    if (!s->valid) {
        return;
    }
    if (s->bucket_count > RECORD_SPEC_BUCKETS ||
        (s->spec_tokens != RECORD_ABSENT && s->bucket_count != (uint32_t)s->spec_tokens + 1) ||
        s->accepted_draft_tokens > s->draft_tokens || s->steps < 0 ||
        !isfinite(s->mean_acceptance_length) || !isfinite(s->draft_acceptance_rate)) {
        abort();
    }
    int64_t steps = 0;
    int64_t accepted = 0;
    for (uint32_t j = 0; j < s->bucket_count; j++) {
        if (s->histogram[j] < 0) {
            abort();
        }
        steps += s->histogram[j];
        accepted += (int64_t)j * s->histogram[j];
    }
    if (steps != s->steps || accepted != s->accepted_draft_tokens) {
        abort();
    }
}

static void check_payload(const struct response_reader *r, struct response_parse_state *state,
                          const char *event, const uint8_t *data, size_t size, size_t cap)
{
    char *buf = malloc(size ? size : 1);
    if (!buf) {
        abort();
    }
    memcpy(buf, data, size);

    struct response_chunk c;
    enum response_parse_status st =
        response_parse_event(r, state, event, event ? strlen(event) : 0, buf, size, &c);
    if (c.text_count > RESPONSE_TEXTS_MAX) {
        abort();
    }
    for (size_t i = 0; i < c.text_count; i++) {
        check_view(buf, size, c.texts[i].text, cap);
        if (c.texts[i].text.len == 0) {
            abort(); /* empty pieces are never listed */
        }
    }
    if (st != RESPONSE_PARSE_OK && (c.text_count > 0 || c.embedding_count || c.ranking_count)) {
        abort();
    }
    if (!(event && c.object.ptr == event)) { /* object may name the SSE event instead */
        check_view(buf, size, c.object, cap);
    }
    check_view(buf, size, c.content, cap);
    check_view(buf, size, c.reasoning, cap);
    check_view(buf, size, c.finish_reason, cap);
    check_view(buf, size, c.error_type, cap);
    check_view(buf, size, c.error_message, cap);
    if (c.tool_text_count > RESPONSE_TOOL_TEXT_MAX) {
        abort();
    }
    for (size_t i = 0; i < c.tool_text_count; i++) {
        check_view(buf, size, c.tool_text[i], cap);
    }
    if (st == RESPONSE_PARSE_ERROR && (c.error_code < 400 || c.error_code > 599)) {
        abort();
    }
    if (c.is_content && st != RESPONSE_PARSE_OK) {
        abort();
    }
    /* Usage details come only with a usage object; a duration is a finite,
     * non-negative number. */
    bool any_detail = (c.usage.prompt_cache_read_tokens != RECORD_ABSENT) ||
                      (c.usage.prompt_cache_write_tokens != RECORD_ABSENT) ||
                      (c.usage.prompt_cache_miss_tokens != RECORD_ABSENT) ||
                      (c.usage.prompt_audio_tokens != RECORD_ABSENT) ||
                      (c.usage.completion_audio_tokens != RECORD_ABSENT) ||
                      (c.usage.tool_use_prompt_tokens != RECORD_ABSENT) ||
                      (c.usage.accepted_prediction_tokens != RECORD_ABSENT) ||
                      (c.usage.rejected_prediction_tokens != RECORD_ABSENT) ||
                      (c.usage.prompt_audio_seconds != RECORD_ABSENT);
    if (any_detail && !c.usage.present) {
        abort();
    }
    if ((c.usage.prompt_audio_seconds != RECORD_ABSENT) &&
        !(c.usage.prompt_audio_seconds >= 0 && c.usage.prompt_audio_seconds <= 1e15)) {
        abort();
    }
    check_spec_decode(r->type, &c);
    /* The jansson differential holds for the types that need a JSON object;
     * raw takes any body as text, and TGI/TEI read arrays; the scratch has
     * its own, smaller token limit. */
    if ((r->type == ENDPOINT_CHAT || r->type == ENDPOINT_COMPLETIONS) &&
        !(state && state->scratch)) {
        differential(buf, size, st);
    }
    /* Unescape arbitrary bytes too, not only valid JSON strings. */
    check_view(buf, size, (struct response_str){buf, size}, cap);
    free(buf);
}
