/*
 * test_rekey.c - SigV4 credentials refreshed during a run: the engine asks its refresh hook on
 * the coordinator, hands the new set to every shard, and the shards sign with it from their
 * next request. The mock server knows only the new secret, so requests signed with the first
 * set are answered 403 and those after the hand-over 200; a response echoing a refreshed
 * secret has it redacted. Deterministic: the hook hands the new set over only once the run
 * has finished some requests, and those must be the 403s.
 */
#include "engine_fixture.h"

#include "sigv4/sigv4.h"

#define NEW_SECRET "wJalrXUtnFEMI/K7MDENG+bPxRfiCYREKEYED00001"
#define EARLY 5

struct rekey_ctx {
    struct capture *cap;
    unsigned calls;
    bool handed;
};

static bool refresh(void *ctx, struct sigv4_credentials *out)
{
    struct rekey_ctx *k = ctx;
    k->calls++;
    /* On the coordinator, as on_record is: the count is the records seen so far. */
    if (k->handed || k->cap->count < EARLY) {
        return false;
    }
    *out = (struct sigv4_credentials){.access_key_id = "AKIAREKEYED000000001",
                                      .secret_access_key = NEW_SECRET};
    k->handed = true;
    return true;
}

/* signed_run starts the mock, which knows only NEW_SECRET and answers after ttft_ms, and
 * prepares `requests` on two shards signed with `first`, asking `hook` every millisecond. */
static void signed_run(struct fixture *fx, int ttft_ms, const struct sigv4_credentials *first,
                       uint64_t requests, bool (*hook)(void *, struct sigv4_credentials *),
                       void *hook_ctx)
{
    struct mock_config mc = loopback_mock();
    mc.sigv4_secret = NEW_SECRET;
    mc.sigv4_region = "us-west-2";
    mc.sigv4_service = "execute-api";
    mc.ttft_ms = ttft_ms;
    start_mock(fx, &mc);
    prepare(fx, ENDPOINT_CHAT, false, 4, mock_server_port(fx->server));
    fx->config.sigv4_credentials = first;
    fx->config.sigv4_region = "us-west-2";
    fx->config.sigv4_service = "execute-api";
    fx->config.shard_count = 2;
    fx->config.concurrency = 2;
    fx->config.request_count = requests;
    fx->config.sigv4_refresh = hook;
    fx->config.sigv4_refresh_ctx = hook_ctx;
    fx->config.sigv4_refresh_interval_ns = 1000 * 1000;
}

/* count_outcomes counts the 403s (every failure must be one) and the successes after the last. */
static void count_outcomes(const struct capture *cap, size_t *forbidden, size_t *ok_at_end)
{
    for (size_t i = 0; i < cap->count; i++) {
        const struct captured *r = &cap->records[i];
        if (r->outcome == RECORD_SUCCESS) {
            (*ok_at_end)++;
            continue;
        }
        cr_assert_eq(r->error_code, 403, "%s: %s", r->error_type, r->error_message);
        (*forbidden)++;
        *ok_at_end = 0;
    }
}

Test(engine_rekey, shards_sign_with_refreshed_credentials_from_then_on, .timeout = 120)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct sigv4_credentials first = {.access_key_id = "AKIAFIRST00000000001",
                                      .secret_access_key = "first-secret-the-mock-does-not-know"};
    struct capture *cap = new_capture();
    struct rekey_ctx k = {.cap = cap};
    signed_run(&fx, 1, &first, 200, refresh, &k);
    run_engine(&fx, cap, NULL);
    assert_every_ordinal_once(cap, 200);
    cr_assert(k.handed, "the hook handed the new set over (%u calls)", k.calls);
    size_t forbidden = 0;
    size_t ok_at_end = 0;
    count_outcomes(cap, &forbidden, &ok_at_end);
    /* The first set signed the first records (403), the new one every request after the
     * hand-over: once a shard has it, no 403 follows. */
    cr_assert_geq(forbidden, EARLY);
    cr_assert_gt(ok_at_end, 100, "%zu successes after the last 403", ok_at_end);
    struct mock_stats stats;
    cr_assert_eq(mock_server_stop(fx.server), 0);
    mock_server_stats(fx.server, &stats);
    cr_assert_eq(stats.sigv4_rejected, forbidden);
    free(cap);
    finish(&fx);
}

/* A hook that finds nothing new may wipe the set it was given (sigv4/watch.c does when a file
 * was only touched): the engine must not hand that to shards still owed the last set. The
 * shards sign their first requests with the first set (the mock's secret, slow answers); while
 * those are in flight the hook hands over a set the mock refuses, then the mock's secret under
 * a new key id, then only wipes. Each shard takes the refused set at its next request (403) and
 * must then get the last set: from then on every request succeeds. */
/* The coordinator asks the hook about every 50 ms while no record comes (COORDINATOR_POLL_MS):
 * the two hand-overs fall on two of those asks, well inside the first answers' wait. */
#define SLOW_TTFT_MS 400
#define HAND_OVER_AFTER_NS (60LL * 1000 * 1000)
#define STALE_REQUESTS 20

struct stale_ctx {
    int64_t first_call_ns;
    unsigned handed;
};

static bool refresh_then_wipe(void *ctx, struct sigv4_credentials *out)
{
    struct stale_ctx *k = ctx;
    int64_t now = engine_now_ns();
    if (k->first_call_ns == 0) {
        k->first_call_ns = now;
    }
    if (k->handed < 2 && now - k->first_call_ns >= HAND_OVER_AFTER_NS) {
        k->handed++;
        *out = k->handed == 1 ? (struct sigv4_credentials){.access_key_id = "AKIAREFUSED000000001",
                                                           .secret_access_key = "not-the-mocks"}
                              : (struct sigv4_credentials){.access_key_id = "AKIAREKEYED000000002",
                                                           .secret_access_key = NEW_SECRET};
        return true;
    }
    explicit_bzero(out, sizeof(*out));
    return false;
}

Test(engine_rekey, shards_owed_a_set_get_it_though_the_hook_wipes_its_buffer, .timeout = 120)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct sigv4_credentials first = {.access_key_id = "AKIAFIRST00000000001",
                                      .secret_access_key = NEW_SECRET};
    struct capture *cap = new_capture();
    struct stale_ctx k = {0};
    signed_run(&fx, SLOW_TTFT_MS, &first, STALE_REQUESTS, refresh_then_wipe, &k);
    run_engine(&fx, cap, NULL);
    assert_every_ordinal_once(cap, STALE_REQUESTS);
    cr_assert_eq(k.handed, 2);
    size_t forbidden = 0;
    size_t ok_at_end = 0;
    count_outcomes(cap, &forbidden, &ok_at_end);
    /* Fast 403s until the last set reaches a shard, then answers as slow as the first ones. */
    cr_assert_geq(ok_at_end, 4, "the last requests, signed with the last set, succeed (%zu 403s)",
                  forbidden);
    cr_assert_eq(mock_server_stop(fx.server), 0);
    free(cap);
    finish(&fx);
}
