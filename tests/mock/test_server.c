/*
 * test_server.c - the mock server end to end over loopback sockets: routes, streaming and
 * non-streaming shapes, keep-alive and pipelining, error statuses, threads and limits.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "mock/mock.h"
#include "mock_client.h"

#define CHAT "/v1/chat/completions"
#define COMPLETIONS "/v1/completions"

static const char *const WORDS[] = {" the", " of", " and", " to", " in", " is", " that", " for"};

/* expected_text returns the first n output words joined (n <= 8). */
static void expected_text(size_t n, char *out, size_t cap)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        size_t w = strlen(WORDS[i]);
        cr_assert(len + w < cap);
        memcpy(out + len, WORDS[i], w);
        len += w;
    }
    out[len] = '\0';
}

static void append(char *out, size_t cap, const char *piece)
{
    size_t len = strlen(out);
    size_t n = strlen(piece);
    cr_assert(len + n < cap);
    memcpy(out + len, piece, n + 1);
}

/* stream_content joins the content of the token events and counts them; returns the number of
 * events, checks the trailer shape and fills *out_usage (or NULL) from a usage event. */
struct stream_summary {
    size_t token_events;
    char text[4096];
    const char *finish_reason;
    json_int_t usage_prompt;
    json_int_t usage_completion; /* -1 when no usage event */
    bool done;
};

static void summarize(char *body, bool chat, struct stream_summary *s)
{
    const char *events[TC_EVENTS_MAX];
    size_t n = tc_events(body, events, TC_EVENTS_MAX);
    memset(s, 0, sizeof(*s));
    s->usage_completion = -1;
    for (size_t i = 0; i < n; i++) {
        cr_assert(!s->done, "data after [DONE]");
        if (strcmp(events[i], "[DONE]") == 0) {
            s->done = true;
            continue;
        }
        json_t *j = tc_json(events[i]);
        cr_assert_str_eq(json_string_value(json_object_get(j, "object")),
                         chat ? "chat.completion.chunk" : "text_completion");
        json_t *choices = json_object_get(j, "choices");
        json_t *usage = json_object_get(j, "usage");
        if (json_array_size(choices) == 0) {
            cr_assert_not_null(usage, "choices:[] without usage");
            s->usage_prompt = json_integer_value(json_object_get(usage, "prompt_tokens"));
            s->usage_completion = json_integer_value(json_object_get(usage, "completion_tokens"));
            json_decref(j);
            continue;
        }
        json_t *c0 = json_array_get(choices, 0);
        json_t *fr = json_object_get(c0, "finish_reason");
        const char *piece =
            chat ? json_string_value(json_object_get(json_object_get(c0, "delta"), "content"))
                 : json_string_value(json_object_get(c0, "text"));
        if (json_is_string(fr)) {
            s->finish_reason = strcmp(json_string_value(fr), "length") == 0 ? "length" : "stop";
        } else {
            cr_assert_not_null(piece);
            s->token_events++;
            append(s->text, sizeof(s->text), piece);
        }
        json_decref(j);
    }
}

Test(mock_server, health_returns_200, .timeout = 30)
{
    struct mock_config cfg = tc_config();
    struct tc_session t;
    tc_open(&t, &cfg);
    struct tc_resp *r = tc_ask(&t, "/health", NULL);
    cr_assert(r->complete);
    cr_assert_eq(r->status, 200);
    cr_assert_str_eq(r->body, "{\"status\":\"ok\"}");
    tc_finish(&t);
}

Test(mock_server, models_lists_default_then_seen_names, .timeout = 30)
{
    struct mock_config cfg = tc_config();
    struct tc_session t;
    tc_open(&t, &cfg);
    struct tc_resp *r = tc_ask(&t, "/v1/models", NULL);
    cr_assert_eq(r->status, 200);
    json_t *j = tc_json(r->body);
    cr_assert_str_eq(json_string_value(json_object_get(j, "object")), "list");
    json_t *first = json_array_get(json_object_get(j, "data"), 0);
    cr_assert_str_eq(json_string_value(json_object_get(first, "id")), "mock-model");
    json_decref(j);

    r = tc_ask(&t, CHAT, "{\"model\":\"llama \\\"q\\\"\",\"messages\":[]}");
    cr_assert_eq(r->status, 200);
    r = tc_ask(&t, "/v1/models", NULL);
    j = tc_json(r->body);
    json_t *data = json_object_get(j, "data");
    cr_assert_eq(json_array_size(data), 1);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(data, 0), "id")),
                     "llama \"q\"");
    json_decref(j);
    tc_finish(&t);
}

Test(mock_server, streaming_chat_emits_requested_tokens_then_done, .timeout = 30)
{
    struct mock_config cfg = tc_config();
    cfg.ttft_ms = 1;
    cfg.itl_ms = 0.5;
    struct tc_session t;
    tc_open(&t, &cfg);
    struct tc_resp *r = tc_ask(&t, CHAT,
                               "{\"model\":\"m\",\"stream\":true,\"max_tokens\":7,\"messages\":"
                               "[{\"role\":\"user\",\"content\":\"one two  three\"}]}");
    cr_assert(r->complete);
    cr_assert_eq(r->status, 200);
    cr_assert(r->chunked);
    cr_assert(tc_header(r, "Content-Type: text/event-stream"));
    struct stream_summary sum;
    summarize(r->body, true, &sum);
    char want[256];
    expected_text(7, want, sizeof(want));
    cr_assert_eq(sum.token_events, 7);
    cr_assert_str_eq(sum.text, want);
    cr_assert_str_eq(sum.finish_reason, "length");
    cr_assert_eq(sum.usage_completion, -1, "usage sent without include_usage");
    cr_assert(sum.done);
    tc_finish(&t);
}

Test(mock_server, streaming_usage_event_only_when_requested, .timeout = 30)
{
    struct mock_config cfg = tc_config();
    struct tc_session t;
    tc_open(&t, &cfg);
    struct stream_summary sum;
    struct tc_resp *r =
        tc_ask(&t, CHAT,
               "{\"stream\":true,\"max_completion_tokens\":3,\"stream_options\":"
               "{\"include_usage\":true},\"messages\":[{\"role\":\"system\",\"content\":\"a b\"},"
               "{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"c d e\"}]}]}");
    summarize(r->body, true, &sum);
    cr_assert_eq(sum.token_events, 3);
    cr_assert_eq(sum.usage_completion, 3);
    cr_assert_eq(sum.usage_prompt, 5);
    cr_assert(sum.done);
    r = tc_ask(&t, CHAT,
               "{\"stream\":true,\"max_tokens\":2,\"stream_options\":{\"include_usage\":false},"
               "\"messages\":[]}");
    summarize(r->body, true, &sum);
    cr_assert_eq(sum.token_events, 2);
    cr_assert_eq(sum.usage_completion, -1);
    tc_finish(&t);
}

Test(mock_server, streaming_completions_groups_tokens_per_chunk, .timeout = 30)
{
    struct mock_config cfg = tc_config();
    cfg.tokens_per_chunk = 3;
    struct tc_session t;
    tc_open(&t, &cfg);
    struct tc_resp *r =
        tc_ask(&t, COMPLETIONS, "{\"prompt\":\"x\",\"stream\":true,\"max_tokens\":7}");
    cr_assert(r->complete);
    struct stream_summary sum;
    summarize(r->body, false, &sum);
    char want[256];
    expected_text(7, want, sizeof(want));
    cr_assert_eq(sum.token_events, 3, "7 tokens in chunks of 3 -> 3 events");
    cr_assert_str_eq(sum.text, want);
    cr_assert(sum.done);
    tc_finish(&t);
}

Test(mock_server, non_streaming_chat_body_has_text_and_usage, .timeout = 30)
{
    struct mock_config cfg = tc_config();
    cfg.ttft_ms = 1;
    cfg.itl_ms = 1;
    struct tc_session t;
    tc_open(&t, &cfg);
    struct tc_resp *r = tc_ask(
        &t, CHAT, "{\"model\":\"m\",\"max_tokens\":5,\"messages\":[{\"content\":\"hi you\"}]}");
    cr_assert(r->complete);
    cr_assert_eq(r->status, 200);
    cr_assert(tc_header(r, "Content-Type: application/json"));
    json_t *j = tc_json(r->body);
    cr_assert_str_eq(json_string_value(json_object_get(j, "object")), "chat.completion");
    json_t *c0 = json_array_get(json_object_get(j, "choices"), 0);
    char want[256];
    expected_text(5, want, sizeof(want));
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(c0, "message"), "content")),
                     want);
    cr_assert_str_eq(json_string_value(json_object_get(c0, "finish_reason")), "length");
    json_t *usage = json_object_get(j, "usage");
    cr_assert_eq(json_integer_value(json_object_get(usage, "prompt_tokens")), 2);
    cr_assert_eq(json_integer_value(json_object_get(usage, "completion_tokens")), 5);
    cr_assert_eq(json_integer_value(json_object_get(usage, "total_tokens")), 7);
    json_decref(j);
    tc_finish(&t);
}

Test(mock_server, non_streaming_completions_uses_default_length, .timeout = 30)
{
    struct mock_config cfg = tc_config();
    cfg.output_tokens = 4;
    struct tc_session t;
    tc_open(&t, &cfg);
    json_t *j = tc_json(tc_ask(&t, COMPLETIONS, "{\"prompt\":[\"a b\",\"c\"]}")->body);
    cr_assert_str_eq(json_string_value(json_object_get(j, "object")), "text_completion");
    json_t *c0 = json_array_get(json_object_get(j, "choices"), 0);
    char want[256];
    expected_text(4, want, sizeof(want));
    cr_assert_str_eq(json_string_value(json_object_get(c0, "text")), want);
    cr_assert_str_eq(json_string_value(json_object_get(c0, "finish_reason")), "stop");
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "usage"), "prompt_tokens")),
                 3);
    json_decref(j);
    tc_finish(&t);
}

Test(mock_server, large_non_streaming_body_is_sent_in_pieces, .timeout = 60)
{
    struct mock_config cfg = tc_config();
    struct tc_session t;
    tc_open(&t, &cfg);
    struct tc_resp *r = tc_ask(&t, COMPLETIONS, "{\"prompt\":\"x\",\"max_tokens\":100000}");
    cr_assert(r->complete);
    json_t *j = tc_json(r->body);
    json_t *usage = json_object_get(j, "usage");
    cr_assert_eq(json_integer_value(json_object_get(usage, "completion_tokens")), 100000);
    json_decref(j);
    tc_finish(&t);
}

Test(mock_server, keep_alive_serves_sequential_and_pipelined_requests, .timeout = 30)
{
    struct mock_config cfg = tc_config();
    struct tc_session t;
    tc_open(&t, &cfg);
    for (int i = 0; i < 2; i++) {
        struct tc_resp *r = tc_ask(&t, CHAT, "{\"stream\":true,\"max_tokens\":2,\"messages\":[]}");
        cr_assert(r->complete);
        cr_assert_eq(r->status, 200);
    }
    const char *two = "GET /health HTTP/1.1\r\n\r\nGET /v1/models?x=1 HTTP/1.1\r\n\r\n";
    tc_send(&t.conn, two, strlen(two));
    cr_assert_str_eq(tc_next(&t)->body, "{\"status\":\"ok\"}");
    struct tc_resp *r = tc_next(&t);
    cr_assert_eq(r->status, 200);
    cr_assert_not_null(strstr(r->body, "\"list\""));
    tc_finish(&t);
}

Test(mock_server, connection_close_request_closes_after_answer, .timeout = 30)
{
    struct mock_config cfg = tc_config();
    struct tc_session t;
    tc_open(&t, &cfg);
    const char *req = "GET /health HTTP/1.1\r\nConnection: close\r\n\r\n";
    tc_send(&t.conn, req, strlen(req));
    struct tc_resp *r = tc_next(&t);
    cr_assert_eq(r->status, 200);
    cr_assert(tc_header(r, "Connection: close"));
    cr_assert(tc_closed(&t.conn));
    tc_finish(&t);
}

/* A request the server refuses: the raw bytes, the status of the OpenAI error answer, and
 * whether the server then closes the connection or keeps serving it. */
struct error_case {
    const char *what;
    const char *raw;
    int status;
    bool closes;
};

static void check_error_case(const struct error_case *k)
{
    struct mock_config cfg = tc_config();
    cfg.max_body_bytes = 1024;
    struct tc_session t;
    tc_open(&t, &cfg);
    tc_send(&t.conn, k->raw, strlen(k->raw));
    struct tc_resp *r = tc_next(&t);
    cr_assert(r->complete, "%s: no response to: %s", k->what, k->raw);
    cr_assert_eq(r->status, k->status, "%s: status %d for: %s", k->what, r->status, k->raw);
    tc_check_error(r, k->status, NULL);
    if (k->closes) {
        cr_assert(tc_closed(&t.conn), "%s: connection should close after %d", k->what, k->status);
    } else {
        cr_assert_eq(tc_get_status(&t.conn, "/health"), 200,
                     "%s: connection should stay usable after %d", k->what, k->status);
    }
    tc_finish(&t);
}

static const struct error_case ERRORS[] = {
    {"bad JSON", "POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 5\r\n\r\n{bad}", 400,
     false},
    {"missing messages", "POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}", 400,
     false},
    {"bad max_tokens",
     "POST /v1/completions HTTP/1.1\r\nContent-Length: 30\r\n\r\n"
     "{\"prompt\":\"x\",\"max_tokens\":-1}",
     400, false},
    {"unknown path", "GET /v2/nothing HTTP/1.1\r\n\r\n", 404, false},
    {"wrong method", "GET /v1/chat/completions HTTP/1.1\r\n\r\n", 405, false},
    {"malformed request line", "GARBAGE\r\n\r\n", 400, true},
    {"POST without length", "POST /v1/completions HTTP/1.1\r\n\r\n", 411, true},
    {"chunked request body", "POST /v1/completions HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
     411, true},
    {"body over the limit", "POST /v1/completions HTTP/1.1\r\nContent-Length: 5000\r\n\r\n", 413,
     true},
    {"HTTP/2.0", "GET /health HTTP/2.0\r\n\r\n", 505, true},
};

Test(mock_server, refused_requests_get_their_error_status, .timeout = 120)
{
    for (size_t i = 0; i < sizeof(ERRORS) / sizeof(ERRORS[0]); i++) {
        check_error_case(&ERRORS[i]);
    }
}

Test(mock_server, oversized_header_block_is_431, .timeout = 30)
{
    static char raw[20000];
    const char *start = "GET /health HTTP/1.1\r\nX-Big: ";
    size_t n = strlen(start);
    memcpy(raw, start, n);
    memset(raw + n, 'a', 17000);
    memcpy(raw + n + 17000, "\r\n\r\n", 5);
    check_error_case(&(const struct error_case){"oversized header block", raw, 431, true});
}

Test(mock_server, threads_share_the_port, .timeout = 60)
{
    struct mock_config cfg = tc_config();
    cfg.threads = 3;
    struct mock_server *s = tc_start(&cfg);
    enum { CONNS = 12 };
    struct tc_conn c[CONNS];
    for (int i = 0; i < CONNS; i++) {
        tc_connect(&c[i], mock_server_port(s));
        tc_post(&c[i], CHAT, "{\"stream\":true,\"max_tokens\":4,\"messages\":[]}", NULL);
    }
    for (int i = 0; i < CONNS; i++) {
        struct tc_resp r;
        struct stream_summary sum;
        tc_read(&c[i], &r);
        cr_assert(r.complete);
        summarize(r.body, true, &sum);
        cr_assert_eq(sum.token_events, 4);
        tc_resp_free(&r);
        tc_close(&c[i]);
    }
    struct mock_stats st;
    tc_stop(s, &st);
    cr_assert_eq(st.connections_accepted, CONNS);
    cr_assert_eq(st.completions, CONNS);
    cr_assert_eq(st.tokens, 4 * CONNS);
    mock_server_free(s);
}

Test(mock_server, connection_limit_refuses_extra_connections, .timeout = 30)
{
    struct mock_config cfg = tc_config();
    cfg.max_connections = 1;
    struct mock_server *s = tc_start(&cfg);
    struct tc_conn a;
    struct tc_conn b;
    tc_connect(&a, mock_server_port(s));
    cr_assert_eq(tc_get_status(&a, "/health"), 200);
    tc_connect(&b, mock_server_port(s));
    cr_assert(tc_closed(&b), "the extra connection is closed, not left hanging");
    tc_close(&b);
    tc_close(&a);
    struct mock_stats st;
    tc_stop(s, &st);
    cr_assert_eq(st.connections_rejected, 1);
    mock_server_free(s);
}

Test(mock_server, start_rejects_invalid_config, .timeout = 30)
{
    struct mock_config cfg = tc_config();
    cfg.drop_rate = 80;
    cfg.stall_rate = 30;
    char err[512];
    struct mock_server *s = NULL;
    cr_assert_eq(mock_server_start(&cfg, &s, err, sizeof(err)), -EINVAL);
    cr_assert_null(s);
    cr_assert_not_null(strstr(err, "--drop-rate"));
    mock_server_free(NULL);
}

/* next_rand is a fixed xorshift, so the garbage is the same on every run. */
static uint32_t next_rand(uint32_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 17;
    *state ^= *state << 5;
    return *state;
}

Test(mock_server, garbage_requests_never_take_the_server_down, .timeout = 120)
{
    struct mock_config cfg = tc_config();
    cfg.max_body_bytes = 256;
    struct mock_server *s = tc_start(&cfg);
    const char *seed = "POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 44\r\n"
                       "X-Request-ID: z\r\n\r\n{\"stream\":true,\"messages\":[],\"max_tokens\":3}";
    size_t seed_len = strlen(seed);
    uint32_t state = 2463534242u;
    for (int round = 0; round < 150; round++) {
        char msg[512];
        memcpy(msg, seed, seed_len);
        size_t len = seed_len;
        for (uint32_t k = next_rand(&state) % 8; k > 0; k--) {
            uint32_t r = next_rand(&state);
            if (r % 3 == 0 && len > 1) {
                len = 1 + r % len; /* truncate */
            } else {
                msg[r % len] = (char)(next_rand(&state) & 0xff); /* flip a byte */
            }
        }
        struct tc_conn c;
        tc_connect(&c, mock_server_port(s));
        tc_send(&c, msg, len);
        shutdown(c.fd, SHUT_WR);
        while (tc_fill(&c)) {
        }
        cr_assert(c.eof, "round %d: server neither answered nor closed", round);
        tc_close(&c);
    }
    struct tc_conn c;
    tc_connect(&c, mock_server_port(s));
    cr_assert_eq(tc_get_status(&c, "/health"), 200, "the server survived the garbage");
    tc_close(&c);
    cr_assert_eq(mock_server_stop(s), 0);
    mock_server_free(s);
}
