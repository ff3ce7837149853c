/*
 * The engine's schedule end to end against the mock server on loopback: open
 * loop pacing, benchmark duration and grace period, cancellation after
 * sending, prefill concurrency, concurrency ramp and a graceful stop.
 */
#include "tests/engine/engine_fixture.h"

static int compare_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a;
    int64_t y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

static int64_t every_two_ms(void *ctx, uint64_t k)
{
    (void)ctx;
    return (int64_t)k * 2000000;
}

struct timed_capture {
    struct capture base;
    int64_t scheduled[MAX_RECORDS];
    int64_t sent[MAX_RECORDS];
};

static void capture_timed(void *ctx, const struct record *rec)
{
    struct timed_capture *cap = ctx;
    if (rec->ordinal < MAX_RECORDS) {
        cap->scheduled[rec->ordinal] = rec->scheduled_ns;
        cap->sent[rec->ordinal] = rec->send_start_ns;
    }
    capture_record(&cap->base, rec);
}

Test(engine_open_loop, requests_leave_on_their_schedule, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, true, 4, mock_server_port(fx.server));
    struct engine_schedule schedule = {.offset_ns = every_two_ms};
    fx.config.schedule = &schedule;
    fx.config.concurrency = 16;
    fx.config.request_count = 200;
    struct timed_capture *cap = calloc(1, sizeof(*cap));
    struct engine_record_sink sink = {.on_record = capture_timed, .ctx = cap};
    char errbuf[256];
    cr_assert_eq(engine_run(&fx.config, &sink, NULL, errbuf, sizeof(errbuf)), 0, "%s", errbuf);
    assert_every_ordinal_once(&cap->base, 200);
    int64_t lateness[200];
    for (uint64_t k = 0; k < 200; k++) {
        if (k > 0) {
            cr_assert_eq(cap->scheduled[k] - cap->scheduled[k - 1], 2000000,
                         "request %llu is due 2 ms after the one before", (unsigned long long)k);
        }
        cr_assert_geq(cap->sent[k], cap->scheduled[k], "never sent before it is due");
        lateness[k] = cap->sent[k] - cap->scheduled[k];
    }
    /* A loaded machine (or a sanitizer build) delays some sends; the typical
     * one must still leave within a millisecond of its due time. */
    qsort(lateness, 200, sizeof(lateness[0]), compare_i64);
    cr_assert_lt(lateness[100], 1000000, "median lateness %lld ns", (long long)lateness[100]);
    free(cap);
    finish(&fx);
}

#define BURSTS 8
#define BURST_LEN 41
#define BURST_GAP_NS (30 * 1000)

/* in_bursts: BURSTS bursts 20 ms apart, each of BURST_LEN requests BURST_GAP_NS apart, a gap
 * under the engine's spin margin (ENGINE__SPIN_NS), as Poisson arrivals often are. */
static int64_t in_bursts(void *ctx, uint64_t k)
{
    (void)ctx;
    return 5000000 + (int64_t)(k / BURST_LEN) * 20000000 + (int64_t)(k % BURST_LEN) * BURST_GAP_NS;
}

struct burst_capture {
    struct timed_capture timed;
    int64_t dispatched[MAX_RECORDS];
};

static void capture_burst(void *ctx, const struct record *rec)
{
    struct burst_capture *cap = ctx;
    if (rec->ordinal < MAX_RECORDS) {
        cap->dispatched[rec->ordinal] = rec->http.dispatch_ns;
    }
    capture_timed(&cap->timed, rec);
}

/* A request due while the one before it still waits to be submitted: the shard must submit
 * that one before it spins for the next. Spinning first held every send of a burst back until
 * its last request was due, so request i of a burst left (BURST_LEN - 1 - i) gaps after it was
 * started, 600 us for the median one. Measured from each request's start rather than its due
 * time, so that a loaded machine's late wake-ups (which make a whole burst due at once, and
 * then rightly sent together) do not count. */
Test(engine_open_loop, a_burst_of_close_due_times_leaves_one_by_one, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, false, 4, mock_server_port(fx.server));
    struct engine_schedule schedule = {.offset_ns = in_bursts};
    fx.config.schedule = &schedule;
    fx.config.shard_count = 1; /* one shard sees the whole burst */
    fx.config.concurrency = BURST_LEN + 8;
    fx.config.request_count = BURSTS * BURST_LEN;
    struct burst_capture *cap = calloc(1, sizeof(*cap));
    struct engine_record_sink sink = {.on_record = capture_burst, .ctx = cap};
    char errbuf[256];
    cr_assert_eq(engine_run(&fx.config, &sink, NULL, errbuf, sizeof(errbuf)), 0, "%s", errbuf);
    assert_every_ordinal_once(&cap->timed.base, BURSTS * BURST_LEN);
    static int64_t held[BURSTS * BURST_LEN];
    for (uint64_t k = 0; k < BURSTS * BURST_LEN; k++) {
        cr_assert_geq(cap->timed.sent[k], cap->timed.scheduled[k], "never sent before it is due");
        held[k] = cap->timed.sent[k] - cap->dispatched[k];
    }
    /* A sanitizer build makes a loop turn slower, and a loaded machine preempts some; the
     * typical request must still leave within a few loop turns of its start. */
    qsort(held, BURSTS * BURST_LEN, sizeof(held[0]), compare_i64);
    cr_assert_lt(held[BURSTS * BURST_LEN / 2], 200000, "median time from start to send %lld ns",
                 (long long)held[BURSTS * BURST_LEN / 2]);
    free(cap);
    finish(&fx);
}

Test(engine_duration, closed_loop_stops_starting_requests_at_the_duration, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    mc.ttft_ms = 5; /* at most ~240 requests in 300 ms on 4 connections */
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, true, 2, mock_server_port(fx.server));
    fx.config.concurrency = 4;
    fx.config.request_count = 0; /* the duration alone ends the run */
    fx.config.duration_ns = 300 * 1000 * 1000;
    fx.config.grace_ns = -1;
    struct timed_capture *cap = calloc(1, sizeof(*cap));
    struct engine_record_sink sink = {.on_record = capture_timed, .ctx = cap};
    char errbuf[256];
    int64_t before = engine_now_ns();
    cr_assert_eq(engine_run(&fx.config, &sink, NULL, errbuf, sizeof(errbuf)), 0, "%s", errbuf);
    cr_assert_gt(cap->base.count, 4, "requests ran during the duration");
    for (size_t i = 0; i < cap->base.count; i++) {
        const struct captured *c = &cap->base.records[i];
        cr_assert_eq(c->outcome, RECORD_SUCCESS, "%s", c->error_message);
        cr_assert_lt(cap->scheduled[c->ordinal] - before, 300 * 1000 * 1000 + 20 * 1000 * 1000,
                     "no request starts after the duration");
    }
    free(cap);
    finish(&fx);
}

Test(engine_duration, requests_still_running_when_the_grace_period_ends_are_cancelled,
     .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    mc.stall_rate = 100;
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, true, 8, mock_server_port(fx.server));
    fx.config.concurrency = 3;
    fx.config.request_count = 0;
    fx.config.duration_ns = 100 * 1000 * 1000;
    fx.config.grace_ns = 200 * 1000 * 1000;
    struct capture *cap = new_capture();
    run_engine(&fx, cap, NULL);
    cr_assert_eq(cap->count, 3, "the three stalled requests, and no others");
    for (size_t i = 0; i < cap->count; i++) {
        cr_assert_eq(cap->records[i].outcome, RECORD_CANCELLED);
        cr_assert_eq(cap->records[i].error_code, 499);
        cr_assert(strstr(cap->records[i].error_message, "grace period") != NULL, "%s",
                  cap->records[i].error_message);
    }
    free(cap);
    finish(&fx);
}

/* Open loop under a concurrency cap: requests due inside the run that wait for a slot freeing
 * only after the end are never started, as AIPerf's credits, which wait for a slot, are never
 * issued. (A shard that is merely late sends what fell due: cli.phases freezes a whole run.) */
Test(engine_duration, scheduled_work_held_by_the_cap_past_the_end_is_not_started, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    mc.ttft_ms = 300; /* one request holds the only slot well past the end */
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, true, 2, mock_server_port(fx.server));
    fx.config.concurrency = 1;
    fx.config.shard_count = 1;
    fx.config.request_count = 0;
    fx.config.duration_ns = 100 * 1000 * 1000; /* due at 0, 2, 4, ... ms: 50 inside the run */
    fx.config.grace_ns = -1;
    struct engine_schedule schedule = {.offset_ns = every_two_ms};
    fx.config.schedule = &schedule;
    struct capture *cap = new_capture();
    run_engine(&fx, cap, NULL);
    cr_assert_eq(cap->count, 1, "only the request that took the slot: %zu", cap->count);
    cr_assert_eq(cap->records[0].outcome, RECORD_SUCCESS, "%s", cap->records[0].error_message);
    free(cap);
    finish(&fx);
}

Test(engine_cancel, the_chosen_fraction_is_cancelled_after_sending, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    mc.ttft_ms = 20;
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, true, 4, mock_server_port(fx.server));
    fx.config.concurrency = 8;
    fx.config.request_count = 200;
    fx.config.cancel_fraction = 0.5;
    fx.config.cancel_delay_ns = 5 * 1000 * 1000; /* well before the 20 ms first token */
    fx.config.cancel_seed = 99;
    struct capture *cap = new_capture();
    run_engine(&fx, cap, NULL);
    assert_every_ordinal_once(cap, 200);
    size_t cancelled = 0;
    for (size_t i = 0; i < cap->count; i++) {
        const struct captured *c = &cap->records[i];
        bool chosen = engine_should_cancel(0.5, 99, c->ordinal);
        cr_assert_eq(c->outcome, chosen ? RECORD_CANCELLED : RECORD_SUCCESS, "ordinal %llu: %s",
                     (unsigned long long)c->ordinal, c->error_message);
        if (chosen) {
            cancelled++;
            cr_assert_eq(c->error_code, 499);
            cr_assert_str_eq(c->error_type, "RequestCancellationError");
            /* One message for all, so that the error summary has one row. */
            cr_assert_str_eq(c->error_message, "Request was cancelled after 0.005 seconds");
        }
    }
    cr_assert(cancelled > 60 && cancelled < 140, "about half: %zu", cancelled);
    free(cap);
    finish(&fx);
}

struct prefill_capture {
    struct capture base;
    int64_t sent[MAX_RECORDS];
    int64_t first_content[MAX_RECORDS];
};

static void capture_prefill(void *ctx, const struct record *rec)
{
    struct prefill_capture *cap = ctx;
    cap->sent[cap->base.count] = rec->send_start_ns;
    cap->first_content[cap->base.count] = rec->event_count > 0 ? rec->events[0].arrival_ns : 0;
    capture_record(&cap->base, rec);
}

Test(engine_prefill, one_request_at_a_time_waits_for_its_first_token, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    mc.ttft_ms = 10;
    mc.itl_ms = 5;
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, true, 6, mock_server_port(fx.server));
    fx.config.concurrency = 4;
    fx.config.prefill_limit = 1;
    fx.config.request_count = 12;
    struct prefill_capture *cap = calloc(1, sizeof(*cap));
    struct engine_record_sink sink = {.on_record = capture_prefill, .ctx = cap};
    char errbuf[256];
    cr_assert_eq(engine_run(&fx.config, &sink, NULL, errbuf, sizeof(errbuf)), 0, "%s", errbuf);
    assert_every_ordinal_once(&cap->base, 12);
    /* With one prefill slot, each request is sent only after every earlier one
     * has its first token: the prefill intervals never overlap. */
    for (size_t i = 0; i < 12; i++) {
        cr_assert_eq(cap->base.records[i].outcome, RECORD_SUCCESS);
        for (size_t j = 0; j < 12; j++) {
            if (j != i && cap->sent[j] < cap->sent[i]) {
                cr_assert_leq(cap->first_content[j], cap->sent[i],
                              "request %zu sent at %lld while %zu (sent %lld) had no first token "
                              "until %lld",
                              i, (long long)cap->sent[i], j, (long long)cap->sent[j],
                              (long long)cap->first_content[j]);
            }
        }
    }
    /* And yet several streams ran at once: the decode phases overlapped. */
    bool overlapped = false;
    for (size_t i = 1; i < 12; i++) {
        overlapped |= cap->sent[i] < cap->first_content[i - 1] + 25 * 1000 * 1000;
    }
    cr_assert(overlapped, "decode phases overlap under the concurrency of 4");
    free(cap);
    finish(&fx);
}

struct interval_capture {
    struct capture base;
    int64_t start[MAX_RECORDS];
    int64_t end[MAX_RECORDS];
};

static void capture_interval(void *ctx, const struct record *rec)
{
    struct interval_capture *cap = ctx;
    cap->start[cap->base.count] = rec->send_start_ns;
    cap->end[cap->base.count] = rec->end_ns;
    capture_record(&cap->base, rec);
}

/* max_in_flight returns how many requests overlapped at most at any start
 * time up to `until` (ns). */
static size_t max_in_flight(const struct interval_capture *cap, int64_t until)
{
    size_t best = 0;
    for (size_t i = 0; i < cap->base.count; i++) {
        if (cap->start[i] > until) {
            continue;
        }
        size_t n = 0;
        for (size_t j = 0; j < cap->base.count; j++) {
            n += cap->start[j] <= cap->start[i] && cap->end[j] > cap->start[i];
        }
        best = n > best ? n : best;
    }
    return best;
}

/* run_ramped runs 200 streamed requests (20 ms to the first token) on 8
 * connections of one shard, with the ramps given, capturing each request's
 * interval with `capture`; *t0 is when the run started. */
static struct interval_capture *run_ramped(struct fixture *fx, int64_t concurrency_ramp_ns,
                                           uint32_t prefill_limit, int64_t prefill_ramp_ns,
                                           void (*capture)(void *, const struct record *),
                                           int64_t *t0)
{
    skip_without_io_uring();
    struct mock_config mc = loopback_mock();
    mc.ttft_ms = 20;
    start_mock(fx, &mc);
    prepare(fx, ENDPOINT_CHAT, true, 2, mock_server_port(fx->server));
    fx->config.shard_count = 1;
    fx->config.concurrency = 8;
    fx->config.concurrency_ramp_ns = concurrency_ramp_ns;
    fx->config.prefill_limit = prefill_limit;
    fx->config.prefill_ramp_ns = prefill_ramp_ns;
    fx->config.request_count = 200;
    struct interval_capture *cap = calloc(1, sizeof(*cap));
    cr_assert_not_null(cap);
    struct engine_record_sink sink = {.on_record = capture, .ctx = cap};
    char errbuf[256];
    *t0 = engine_now_ns();
    cr_assert_eq(engine_run(&fx->config, &sink, NULL, errbuf, sizeof(errbuf)), 0, "%s", errbuf);
    assert_every_ordinal_once(&cap->base, 200);
    return cap;
}

Test(engine_ramp, concurrency_climbs_from_one_to_the_target, .timeout = 60)
{
    struct fixture fx = {0};
    int64_t t0 = 0;
    struct interval_capture *cap = run_ramped(&fx, 400 * 1000 * 1000, 0, 0, capture_interval, &t0);
    /* In the first 100 ms at most 1 + 8 * 100 / 400 = 3 requests run at once... */
    size_t early = max_in_flight(cap, t0 + 100 * 1000 * 1000);
    cr_assert_leq(early, 3, "%zu requests in flight in the first 100 ms", early);
    /* ...and all 8 once the ramp is over. */
    cr_assert_eq(max_in_flight(cap, INT64_MAX), 8);
    free(cap);
    finish(&fx);
}

Test(engine_run, a_stop_with_grace_lets_requests_in_flight_finish, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    mc.ttft_ms = 5;
    mc.itl_ms = 5;
    start_mock(&fx, &mc);
    prepare(&fx, ENDPOINT_CHAT, true, 20, mock_server_port(fx.server));
    fx.config.concurrency = 4;
    fx.config.request_count = 1000;
    fx.config.stop_grace_ns = 10LL * 1000 * 1000 * 1000;
    struct engine_stop stop = {0};
    struct capture *cap = new_capture();
    cap->stop_after = &stop;
    cap->stop_after_count = 4;
    run_engine(&fx, cap, &stop);
    cr_assert_lt(cap->count, 1000, "nothing new started after the stop");
    for (size_t i = 0; i < cap->count; i++) {
        cr_assert_eq(cap->records[i].outcome, RECORD_SUCCESS,
                     "requests in flight at the stop finished normally: %s",
                     cap->records[i].error_message);
    }
    free(cap);
    finish(&fx);
}

/* A long response's whole text and its events' bookkeeping, checked while the
 * record is still the engine's. */

static void capture_prefill_interval(void *ctx, const struct record *rec)
{
    struct interval_capture *cap = ctx;
    cap->start[cap->base.count] = rec->send_start_ns;
    cap->end[cap->base.count] = rec->event_count > 0 ? rec->events[0].arrival_ns : rec->end_ns;
    capture_record(&cap->base, rec);
}

/* --prefill-concurrency-ramp-duration: the number of requests waiting for
 * their first token at once climbs from one to the prefill limit. */
Test(engine_ramp, prefill_limit_climbs_from_one_to_the_target, .timeout = 60)
{
    struct fixture fx = {0};
    int64_t t0 = 0;
    struct interval_capture *cap =
        run_ramped(&fx, 0, 4, 400 * 1000 * 1000, capture_prefill_interval, &t0);
    /* In the first 100 ms at most 1 + 4 * 100 / 400 = 2 wait for a first token... */
    size_t early = max_in_flight(cap, t0 + 100 * 1000 * 1000);
    cr_assert_leq(early, 2, "%zu requests in prefill at once in the first 100 ms", early);
    /* ...and 4 once the ramp is over, never more. */
    cr_assert_eq(max_in_flight(cap, INT64_MAX), 4);
    free(cap);
    finish(&fx);
}
