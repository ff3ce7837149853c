/*
 * test_tokenlog.c - the token log stamps a token when the send carrying its bytes is handed to
 * the kernel, not when the token is formatted (issue 8: the "truth" of the accuracy benchmark).
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mock/mock.h"
#include "mock_client.h"

#define TOKENS 1000

/* read_stamps reads the send_ns of tokens 0..TOKENS-1 of request `id`, checking their order. */
static void read_stamps(const char *path, const char *id, uint64_t *stamps)
{
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    char line[2048];
    int seen = 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        json_t *j = tc_json(line);
        if (strcmp(json_string_value(json_object_get(j, "request_id")), id) == 0) {
            cr_assert_lt(seen, TOKENS);
            cr_assert_eq(json_integer_value(json_object_get(j, "token")), seen);
            stamps[seen++] = (uint64_t)json_integer_value(json_object_get(j, "send_ns"));
        }
        json_decref(j);
    }
    fclose(f);
    cr_assert_eq(seen, TOKENS, "%d log lines, want %d", seen, TOKENS);
}

/* Unpaced, the mock formats events until its send buffer is full and hands them to the kernel
 * in one send: the tokens of one send share its stamp, and no stamp is later than the moment the
 * client had received the whole answer. */
Test(mock_tokenlog, tokens_of_one_send_share_its_stamp, .timeout = 30)
{
    char path[] = "/tmp/ringperf-mock-tokenlog-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    close(fd);
    struct mock_config cfg = tc_config();
    cfg.ttft_ms = 0;
    cfg.itl_ms = 0;
    cfg.token_log_path = path;
    struct mock_server *s = tc_start(&cfg);
    struct tc_conn c;
    struct tc_resp r;
    tc_connect(&c, mock_server_port(s));
    uint64_t before_ns = tc_now_ns();
    tc_post(&c, "/v1/chat/completions", "{\"stream\":true,\"max_tokens\":1000,\"messages\":[]}",
            "X-Request-ID: burst\r\n");
    tc_read(&c, &r);
    uint64_t received_ns = tc_now_ns();
    cr_assert(r.complete);
    tc_resp_free(&r);
    tc_close(&c);
    cr_assert_eq(mock_server_stop(s), 0);
    mock_server_free(s);

    uint64_t *stamps = calloc(TOKENS, sizeof(*stamps));
    cr_assert_not_null(stamps);
    read_stamps(path, "burst", stamps);
    int distinct = 1;
    for (int i = 0; i < TOKENS; i++) {
        cr_assert_geq(stamps[i], before_ns);
        cr_assert_leq(stamps[i], received_ns, "token %d stamped after the client had it", i);
        if (i > 0) {
            cr_assert_geq(stamps[i], stamps[i - 1]);
            distinct += stamps[i] != stamps[i - 1];
        }
    }
    /* A send buffer holds hundreds of events, so far fewer sends than tokens. */
    cr_assert_lt(distinct, TOKENS / 4, "%d distinct stamps for %d tokens", distinct, TOKENS);
    free(stamps);
    unlink(path);
}
