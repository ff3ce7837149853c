/*
 * test_tokenlog.c - the token log stamps a token when the send carrying its bytes is handed to
 * the kernel, not when the token is formatted (issue 8: the "truth" of the accuracy benchmark).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <unistd.h>

#include "mock/mock.h"
#include "mock_client.h"

#define TOKENS 1000

/* Unpaced, the mock formats events until its send buffer is full and hands them to the kernel
 * in one send: the tokens of one send share its stamp, and no stamp is later than the moment the
 * client had received the whole answer. */
Test(mock_tokenlog, tokens_of_one_send_share_its_stamp, .timeout = 30)
{
    char path[] = "/tmp/ringperf-mock-tokenlog-XXXXXX";
    struct tc_session t;
    tc_open_token_log(&t, path, 0, 0);
    uint64_t before_ns = tc_now_ns();
    struct tc_resp *r = tc_ask_as(&t, "/v1/chat/completions",
                                  "{\"stream\":true,\"max_tokens\":1000,\"messages\":[]}", "burst");
    uint64_t received_ns = tc_now_ns();
    cr_assert(r->complete);
    tc_close(&t.conn);
    cr_assert_eq(mock_server_stop(t.server), 0);
    tc_finish(&t);

    uint64_t *stamps = calloc(TOKENS, sizeof(*stamps));
    cr_assert_not_null(stamps);
    size_t seen = tc_log_stamps(path, "burst", stamps, TOKENS);
    cr_assert_eq(seen, TOKENS, "%zu log lines, want %d", seen, TOKENS);
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
