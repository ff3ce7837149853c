/*
 * test_large.c - request bodies end to end against the default body limit: a prompt of
 * megabytes (past the old 1 MiB default) is answered 200 with its words counted, on one
 * connection after another, pipelined behind and ahead of small requests, and on many
 * connections at once; a body over the limit is 413; bodies that are not JSON or miss fields
 * get the 400 and the message the jansson reader gave (tests/mock/api_jansson.c).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "mock/mock_internal.h"
#include "tests/mock/api_jansson.h"
#include "tests/mock/mock_client.h"

#define CHAT "/v1/chat/completions"
#define CONNS 12

/* chat_request writes a whole chat request whose one message is `words` words into a new
 * buffer; *out_len is its size. */
static char *chat_request(size_t words, size_t *out_len)
{
    size_t body_len = 64 + 6 * words;
    char *body = malloc(body_len);
    cr_assert_not_null(body);
    size_t n = (size_t)snprintf(body, body_len, "{\"max_tokens\":2,\"messages\":[{\"content\":\"");
    for (size_t i = 0; i < words; i++) {
        memcpy(body + n, i % 3 == 0 ? "ab\\nc " : "abcde ", 6);
        n += 6;
    }
    n += (size_t)snprintf(body + n, body_len - n, "\"}]}");
    char *req = malloc(n + 256);
    cr_assert_not_null(req);
    int head =
        snprintf(req, 256, "POST " CHAT " HTTP/1.1\r\nHost: t\r\nContent-Length: %zu\r\n\r\n", n);
    memcpy(req + head, body, n);
    free(body);
    *out_len = (size_t)head + n;
    return req;
}

/* Each "ab\nc " holds two words, each "abcde " one. */
static uint64_t chat_words(size_t words)
{
    return words + (words + 2) / 3;
}

static void expect_prompt_tokens(struct tc_conn *c, uint64_t want)
{
    struct tc_resp r = {0};
    tc_read(c, &r);
    cr_assert(r.complete);
    cr_assert_eq(r.status, 200, "%s", r.body);
    json_t *j = tc_json(r.body);
    json_t *usage = json_object_get(j, "usage");
    cr_assert_eq(json_integer_value(json_object_get(usage, "prompt_tokens")), (json_int_t)want);
    json_decref(j);
    tc_resp_free(&r);
}

static struct mock_config default_config(void)
{
    struct mock_config cfg;
    mock_config_init(&cfg); /* the default body limit */
    cfg.max_connections = 64;
    return cfg;
}

Test(mock_large, multi_megabyte_prompts_and_small_ones_share_a_connection, .timeout = 60)
{
    struct mock_config cfg = default_config();
    struct tc_session t;
    tc_open(&t, &cfg);
    size_t big_len = 0;
    char *big = chat_request(600000, &big_len); /* 3.6 MB */
    size_t small_len = 0;
    char *small = chat_request(5, &small_len);
    cr_assert_gt(big_len, (size_t)3 << 20);
    tc_send(&t.conn, big, big_len);
    expect_prompt_tokens(&t.conn, chat_words(600000));
    tc_send(&t.conn, small, small_len);
    expect_prompt_tokens(&t.conn, chat_words(5));
    /* Pipelined: small, big, small, big in one go. */
    char *four = malloc(2 * (big_len + small_len));
    cr_assert_not_null(four);
    memcpy(four, small, small_len);
    memcpy(four + small_len, big, big_len);
    memcpy(four + small_len + big_len, small, small_len);
    memcpy(four + 2 * small_len + big_len, big, big_len);
    tc_send(&t.conn, four, 2 * (big_len + small_len));
    for (int i = 0; i < 4; i++) {
        expect_prompt_tokens(&t.conn, chat_words(i % 2 == 0 ? 5 : 600000));
    }
    free(four);
    free(small);
    free(big);
    tc_finish(&t);
}

Test(mock_large, many_connections_send_megabyte_prompts_at_once, .timeout = 60)
{
    struct mock_config cfg = default_config();
    struct mock_server *s = tc_start(&cfg);
    struct tc_conn conns[CONNS];
    size_t len = 0;
    char *req = chat_request(200000, &len);
    for (int i = 0; i < CONNS; i++) {
        tc_connect(&conns[i], mock_server_port(s));
    }
    /* Every connection holds half a request before any is complete. */
    for (int i = 0; i < CONNS; i++) {
        tc_send(&conns[i], req, len / 2);
    }
    for (int i = 0; i < CONNS; i++) {
        tc_send(&conns[i], req + len / 2, len - len / 2);
    }
    for (int i = 0; i < CONNS; i++) {
        expect_prompt_tokens(&conns[i], chat_words(200000));
        tc_close(&conns[i]);
    }
    free(req);
    mock_server_free(s);
}

Test(mock_large, a_body_over_the_default_limit_is_413, .timeout = 30)
{
    struct mock_config cfg = default_config();
    struct tc_session t;
    tc_open(&t, &cfg);
    char head[256];
    int n = snprintf(head, sizeof(head), "POST " CHAT " HTTP/1.1\r\nContent-Length: %u\r\n\r\n{",
                     cfg.max_body_bytes + 1);
    tc_send(&t.conn, head, (size_t)n);
    struct tc_resp *r = tc_next(&t);
    cr_assert_eq(r->status, 413);
    tc_finish(&t);
}

static const char *const REFUSED[] = {
    "{bad}",
    "{\"messages\":[]",
    "{\"messages\":[]} []",
    "[]",
    "7",
    "{\"messages\":[],\"x\":1e999}",
    "{\"messages\":[],\"x\":\"\\ud800\"}",
    "{\"messages\":[],\"x\":\"\xff\"}",
    "{}",
    "{\"messages\":{}}",
    "{\"messages\":[],\"stream\":1}",
    "{\"messages\":[],\"max_tokens\":0}",
    "{\"messages\":[],\"model\":\"\"}",
};

Test(mock_large, refused_bodies_get_the_400_and_message_they_always_had, .timeout = 60)
{
    struct mock_config cfg = default_config();
    struct tc_session t;
    tc_open(&t, &cfg);
    for (size_t i = 0; i < sizeof(REFUSED) / sizeof(REFUSED[0]); i++) {
        struct mock__job job;
        char want[MOCK__ERROR_MESSAGE_BYTES];
        enum mock__api_status st = mock_ref_api_parse(
            MOCK__ROUTE_CHAT, REFUSED[i], strlen(REFUSED[i]), 16, &job, want, sizeof(want));
        cr_assert_neq(st, MOCK__API_OK);
        struct tc_resp *r = tc_ask(&t, CHAT, REFUSED[i]);
        cr_assert_eq(r->status, 400, "%s", REFUSED[i]);
        tc_check_error(r, 400, "invalid_request_error");
        json_t *j = tc_json(r->body);
        const char *got =
            json_string_value(json_object_get(json_object_get(j, "error"), "message"));
        cr_assert_str_eq(got, want, "body %s", REFUSED[i]);
        json_decref(j);
    }
    tc_finish(&t);
}
