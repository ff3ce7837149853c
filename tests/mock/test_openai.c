/*
 * test_openai.c - reading chat/completions request bodies and formatting responses: every
 * formatted event and body is valid JSON of the right shape, chunk framing is exact, and the
 * precomputed body length matches what is written.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "mock/mock_internal.h"

struct api_case {
    enum mock__route route;
    const char *body;
    enum mock__api_status status;
    uint32_t output_tokens;
    uint64_t prompt_tokens;
    bool stream;
    bool include_usage;
    bool limit_given;
    const char *model;
};

static const struct api_case API[] = {
    {MOCK__ROUTE_CHAT, "{\"messages\":[]}", MOCK__API_OK, 16, 0, false, false, false, "mock-model"},
    {MOCK__ROUTE_CHAT,
     "{\"model\":\"m\",\"messages\":[{\"content\":\" a  b\\n c \"},{\"content\":null},"
     "{\"content\":[{\"type\":\"text\",\"text\":\"d e\"},{\"type\":\"image_url\"}]}],"
     "\"stream\":true,\"stream_options\":{\"include_usage\":true},\"max_tokens\":9}",
     MOCK__API_OK, 9, 5, true, true, true, "m"},
    {MOCK__ROUTE_CHAT, "{\"messages\":[],\"max_completion_tokens\":3,\"max_tokens\":7}",
     MOCK__API_OK, 3, 0, false, false, true, "mock-model"},
    {MOCK__ROUTE_COMPLETIONS, "{\"prompt\":\"one two\",\"max_tokens\":null}", MOCK__API_OK, 16, 2,
     false, false, false, "mock-model"},
    {MOCK__ROUTE_COMPLETIONS, "{\"prompt\":[\"a b\",1,2,[3,4,5]],\"stream\":false}", MOCK__API_OK,
     16, 7, false, false, false, "mock-model"},
    {MOCK__ROUTE_CHAT, "{bad", MOCK__API_BAD_JSON, 0, 0, false, false, false, NULL},
    {MOCK__ROUTE_CHAT, "", MOCK__API_BAD_JSON, 0, 0, false, false, false, NULL},
    {MOCK__ROUTE_CHAT, "[]", MOCK__API_INVALID, 0, 0, false, false, false, NULL},
    {MOCK__ROUTE_CHAT, "{}", MOCK__API_INVALID, 0, 0, false, false, false, NULL},
    {MOCK__ROUTE_CHAT, "{\"messages\":{}}", MOCK__API_INVALID, 0, 0, false, false, false, NULL},
    {MOCK__ROUTE_CHAT, "{\"messages\":[],\"stream\":1}", MOCK__API_INVALID, 0, 0, false, false,
     false, NULL},
    {MOCK__ROUTE_CHAT, "{\"messages\":[],\"stream_options\":1}", MOCK__API_INVALID, 0, 0, false,
     false, false, NULL},
    {MOCK__ROUTE_CHAT, "{\"messages\":[],\"max_tokens\":0}", MOCK__API_INVALID, 0, 0, false, false,
     false, NULL},
    {MOCK__ROUTE_CHAT, "{\"messages\":[],\"max_tokens\":2.5}", MOCK__API_INVALID, 0, 0, false,
     false, false, NULL},
    {MOCK__ROUTE_CHAT, "{\"messages\":[],\"max_tokens\":99999999999}", MOCK__API_INVALID, 0, 0,
     false, false, false, NULL},
    {MOCK__ROUTE_CHAT, "{\"messages\":[],\"model\":7}", MOCK__API_INVALID, 0, 0, false, false,
     false, NULL},
    {MOCK__ROUTE_CHAT, "{\"messages\":[],\"model\":\"\"}", MOCK__API_INVALID, 0, 0, false, false,
     false, NULL},
    {MOCK__ROUTE_COMPLETIONS, "{}", MOCK__API_INVALID, 0, 0, false, false, false, NULL},
    {MOCK__ROUTE_COMPLETIONS, "{\"prompt\":[{}]}", MOCK__API_INVALID, 0, 0, false, false, false,
     NULL},
};

Test(mock_openai, request_bodies_parse_or_fail_with_a_reason)
{
    for (size_t i = 0; i < sizeof(API) / sizeof(API[0]); i++) {
        const struct api_case *t = &API[i];
        struct mock__job job;
        char msg[256];
        enum mock__api_status st =
            mock__api_parse(t->route, t->body, strlen(t->body), 16, &job, msg, sizeof(msg));
        cr_assert_eq(st, t->status, "%s -> %d (%s)", t->body, st, msg);
        if (st != MOCK__API_OK) {
            cr_assert_neq(msg[0], '\0', "no reason for %s", t->body);
            continue;
        }
        cr_assert_eq(job.output_tokens, t->output_tokens, "%s", t->body);
        cr_assert_eq(job.prompt_tokens, t->prompt_tokens, "%s", t->body);
        cr_assert_eq(job.stream, t->stream);
        cr_assert_eq(job.include_usage, t->include_usage);
        cr_assert_eq(job.limit_given, t->limit_given);
        cr_assert_str_eq(job.model, t->model);
    }
}

Test(mock_openai, routes_match_method_and_path)
{
    bool ok = false;
    cr_assert_eq(mock__route_find("POST", 4, "/v1/chat/completions", 20, &ok), MOCK__ROUTE_CHAT);
    cr_assert(ok);
    cr_assert_eq(mock__route_find("GET", 3, "/v1/completions", 15, &ok), MOCK__ROUTE_COMPLETIONS);
    cr_assert_not(ok);
    cr_assert_eq(mock__route_find("GET", 3, "/health", 7, &ok), MOCK__ROUTE_HEALTH);
    cr_assert(ok);
    cr_assert_eq(mock__route_find("GET", 3, "/healthz", 8, &ok), MOCK__ROUTE_NONE);
}

static struct mock__job make_job(enum mock__route route, const char *model, uint32_t n, bool usage)
{
    struct mock__job job;
    char msg[128];
    char body[512];
    snprintf(body, sizeof(body),
             "{\"model\":\"%s\",\"prompt\":\"a b c\",\"messages\":[],"
             "\"max_tokens\":%u,\"stream_options\":{\"include_usage\":%s}}",
             model, n, usage ? "true" : "false");
    cr_assert_eq(mock__api_parse(route, body, strlen(body), 16, &job, msg, sizeof(msg)),
                 MOCK__API_OK, "%s", msg);
    memcpy(job.id, "id-1", 4);
    job.id_len = 4;
    job.created_s = 1700000000;
    return job;
}

/* unchunk decodes `n` bytes of chunked framing into SSE data payloads; checks exact sizes. */
static size_t unchunk(const char *p, size_t n, char events[][4096], size_t cap, bool *out_last)
{
    size_t count = 0;
    size_t i = 0;
    *out_last = false;
    while (i < n) {
        char *end = NULL;
        unsigned long size = strtoul(p + i, &end, 16);
        cr_assert(end[0] == '\r' && end[1] == '\n');
        cr_assert(p[i] != '0' || size == 0, "no leading zeros");
        i = (size_t)(end - p) + 2;
        cr_assert(i + size + 2 <= n);
        cr_assert(p[i + size] == '\r' && p[i + size + 1] == '\n');
        if (size == 0) {
            *out_last = true;
            cr_assert_eq(i + 2, n, "bytes after the last chunk");
            return count;
        }
        cr_assert(size > 8 && memcmp(p + i, "data: ", 6) == 0);
        cr_assert(p[i + size - 2] == '\n' && p[i + size - 1] == '\n');
        cr_assert(count < cap && size - 8 < 4096);
        memcpy(events[count], p + i + 6, size - 8);
        events[count][size - 8] = '\0';
        count++;
        i += size + 2;
    }
    return count;
}

Test(mock_openai, stream_events_are_valid_chunked_sse_json)
{
    static char buf[65536];
    static char events[16][4096];
    const enum mock__route routes[] = {MOCK__ROUTE_CHAT, MOCK__ROUTE_COMPLETIONS};
    for (size_t r = 0; r < 2; r++) {
        struct mock__job job = make_job(routes[r], "we\\\"ird\\u0001", 5, true);
        struct mock__buf b = {.p = buf, .cap = sizeof(buf)};
        mock__fmt_token_event(&b, &job, 0, 2);
        mock__fmt_token_event(&b, &job, 2, 3);
        mock__fmt_stream_tail(&b, &job);
        cr_assert_not(b.overflow);
        cr_assert_leq(b.len, 2 * mock__event_bytes_max(3));
        bool last = false;
        size_t n = unchunk(buf, b.len, events, 16, &last);
        cr_assert(last);
        cr_assert_eq(n, 5, "2 token events, final, usage, [DONE]");
        cr_assert_str_eq(events[4], "[DONE]");
        for (size_t i = 0; i < 4; i++) {
            json_error_t err;
            json_t *j = json_loads(events[i], 0, &err);
            cr_assert_not_null(j, "%s: %s", err.text, events[i]);
            cr_assert_str_eq(json_string_value(json_object_get(j, "model")), "we\"ird\x01");
            cr_assert_str_eq(json_string_value(json_object_get(j, "id")), "id-1");
            json_decref(j);
        }
        cr_assert_not_null(strstr(events[0], "\" the of\""));
        cr_assert_eq(strstr(events[0], "\"role\":\"assistant\"") != NULL,
                     routes[r] == MOCK__ROUTE_CHAT);
        cr_assert_null(strstr(events[1], "\"role\""));
        cr_assert_not_null(strstr(events[2], "\"finish_reason\":\"length\""));
        cr_assert_not_null(strstr(events[3], "\"choices\":[],\"usage\":{\"prompt_tokens\":"));
    }
}

Test(mock_openai, malformed_event_is_framed_but_not_json)
{
    char buf[4096];
    char events[2][4096];
    struct mock__job job = make_job(MOCK__ROUTE_CHAT, "m", 1, false);
    struct mock__buf b = {.p = buf, .cap = sizeof(buf)};
    mock__fmt_malformed_event(&b, &job);
    mock__buf_str(&b, "0\r\n\r\n");
    bool last = false;
    cr_assert_eq(unchunk(buf, b.len, events, 2, &last), 1);
    cr_assert_null(json_loads(events[0], 0, NULL));
}

Test(mock_openai, body_length_matches_prefix_words_suffix)
{
    const uint32_t sizes[] = {1, 2, 31, 32, 33, 1000};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        static char buf[16384];
        struct mock__job job = make_job(MOCK__ROUTE_CHAT, "m", sizes[k], false);
        struct mock__buf b = {.p = buf, .cap = sizeof(buf)};
        mock__fmt_body_prefix(&b, &job);
        size_t prefix = b.len;
        for (uint32_t i = 0; i < sizes[k]; i++) {
            size_t len = 0;
            const char *w = mock__word(i, &len);
            cr_assert_leq(len, MOCK__WORD_BYTES_MAX);
            mock__buf_put(&b, w, len);
        }
        cr_assert_eq(b.len - prefix, mock__words_len(0, sizes[k]));
        cr_assert_eq(mock__words_len(5, sizes[k]),
                     mock__words_len(0, sizes[k] + 5) - mock__words_len(0, 5));
        mock__fmt_body_suffix(&b, &job);
        cr_assert_not(b.overflow);
        buf[b.len] = '\0';
        json_error_t err;
        json_t *j = json_loads(buf, 0, &err);
        cr_assert_not_null(j, "%s", err.text);
        json_t *usage = json_object_get(j, "usage");
        cr_assert_eq(json_integer_value(json_object_get(usage, "completion_tokens")), sizes[k]);
        json_decref(j);
    }
}

Test(mock_openai, error_response_has_openai_shape)
{
    char buf[2048];
    struct mock__buf b = {.p = buf, .cap = sizeof(buf) - 1};
    mock__fmt_error_response(&b, 429, "rate_limit_exceeded", "slow \"down\"", true, 1, NULL);
    buf[b.len] = '\0';
    cr_assert_not_null(strstr(buf, "HTTP/1.1 429 Too Many Requests\r\n"));
    cr_assert_not_null(strstr(buf, "\r\nRetry-After: 1\r\n"));
    char *body = strstr(buf, "\r\n\r\n") + 4;
    json_t *j = json_loads(body, 0, NULL);
    cr_assert_not_null(j);
    json_t *e = json_object_get(j, "error");
    cr_assert_str_eq(json_string_value(json_object_get(e, "message")), "slow \"down\"");
    cr_assert_eq(json_integer_value(json_object_get(e, "code")), 429);
    json_decref(j);
}

Test(mock_openai, buffer_never_writes_past_its_capacity)
{
    char buf[64];
    memset(buf, 'Z', sizeof(buf));
    struct mock__buf b = {.p = buf, .cap = 16};
    struct mock__job job = make_job(MOCK__ROUTE_CHAT, "m", 3, true);
    mock__fmt_stream_tail(&b, &job);
    cr_assert(b.overflow);
    cr_assert_leq(b.len, 16);
    for (size_t i = 16; i < sizeof(buf); i++) {
        cr_assert_eq(buf[i], 'Z');
    }
    struct mock__buf e = {.p = buf, .cap = 8};
    mock__json_escape(&e, "\"\"\"\"\"\"", 6, false);
    cr_assert(e.overflow);
}

Test(mock_openai, json_escape_handles_quotes_controls_and_non_ascii)
{
    char out[64];
    struct mock__buf b = {.p = out, .cap = sizeof(out)};
    mock__json_escape(&b, "a\"b\\c\n\x7f\xc3\xa9", 9, true);
    cr_assert_eq(b.len, strlen("a\\\"b\\\\c\\u000a???"));
    cr_assert_eq(memcmp(out, "a\\\"b\\\\c\\u000a???", b.len), 0);
    b.len = 0;
    mock__json_escape(&b, "\xc3\xa9", 2, false);
    cr_assert_eq(b.len, 2, "UTF-8 kept when not ascii_only");
}
