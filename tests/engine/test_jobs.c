/*
 * test_jobs.c - asynchronous jobs (engine_jobs) at the engine's edge: the configurations
 * engine_run refuses, with the reason in errbuf, and jobs run to completion against the mock
 * server's video API; a server naming a job by an id longer than ENGINE_JOB_ID_BYTES_MAX gets
 * that request failed, saying so, and no poll with the id cut short.
 */
#include "engine_fixture.h"

#include "sigv4/sigv4.h"
#include "tests/support/loopback_server.h"

#define VIDEO_BODY "{\"model\":\"wan\",\"prompt\":\"a river\"}"

/* video_config aims fx's engine at the video API of a server on port, one job per request. */
static void video_config(struct fixture *fx, uint16_t port, struct engine_jobs *jobs)
{
    prepare(fx, ENDPOINT_VIDEO_GENERATION, false, 1, port);
    snprintf(fx->target.path, sizeof(fx->target.path), "/v1/videos");
    fx->payload = (struct engine_payload){.body = VIDEO_BODY, .body_len = strlen(VIDEO_BODY)};
    fx->config.jobs = jobs;
    fx->config.concurrency = 2;
    fx->config.request_count = 4;
    fx->config.request_timeout_ns = 20ULL * 1000 * 1000 * 1000;
}

/* refused runs fx's configuration and checks that engine_run refuses it, saying `says`. */
static void refused(struct fixture *fx, const char *says)
{
    struct capture *cap = new_capture();
    struct engine_record_sink sink = {.on_record = capture_record, .ctx = cap};
    char errbuf[256] = "";
    cr_assert_eq(engine_run(&fx->config, &sink, NULL, errbuf, sizeof(errbuf)), -EINVAL, "%s", says);
    cr_assert_not_null(strstr(errbuf, says), "'%s' in: %s", says, errbuf);
    cr_assert_eq(cap->count, 0);
    free(cap);
}

Test(engine_jobs, configurations_the_engine_cannot_run_are_refused, .timeout = 30)
{
    struct fixture fx = {0};
    struct engine_jobs jobs = {.poll_interval_ns = 0};
    video_config(&fx, 9, &jobs); /* nothing is sent: the refusal comes first */
    refused(&fx, "poll interval must be more than 0");
    jobs.poll_interval_ns = -5;
    refused(&fx, "poll interval must be more than 0");
    jobs.poll_interval_ns = ENGINE_JOB_POLL_INTERVAL_MAX_NS + 1;
    refused(&fx, "at most 86400 s");

    jobs.poll_interval_ns = 1000000;
    struct sigv4_credentials creds = {.access_key_id = "AKIDEXAMPLE", .secret_access_key = "s"};
    fx.config.sigv4_credentials = &creds;
    fx.config.sigv4_region = "us-east-1";
    fx.config.sigv4_service = "execute-api";
    refused(&fx, "jobs cannot be signed with SigV4");
    fx.config.sigv4_credentials = NULL;

    fx.config.discard_body = true;
    refused(&fx, "jobs need their answers read");
    finish(&fx);
}

static uint32_t two_turns(void *ctx, uint64_t session)
{
    (void)ctx;
    (void)session;
    return 2;
}

static uint64_t first_ordinal(void *ctx, uint64_t session)
{
    (void)ctx;
    return session * 2;
}

static int64_t no_think(void *ctx, uint64_t session, uint32_t turn)
{
    (void)ctx;
    (void)session;
    (void)turn;
    return 0;
}

static int video_turn(void *ctx, uint64_t session, uint32_t turn,
                      const struct engine_turn_reply *replies, struct engine_turn_body *out,
                      char *err, size_t errcap)
{
    (void)ctx, (void)session, (void)turn, (void)replies, (void)err, (void)errcap;
    *out = (struct engine_turn_body){.body = VIDEO_BODY, .len = strlen(VIDEO_BODY)};
    return 0;
}

/* expect_successes runs fx and checks that its `count` ordinals each end as one success. */
static void expect_successes(struct fixture *fx, uint64_t count)
{
    struct capture *cap = new_capture();
    run_engine(fx, cap, NULL);
    assert_every_ordinal_once(cap, count);
    for (size_t i = 0; i < cap->count; i++) {
        cr_assert_eq(cap->records[i].outcome, RECORD_SUCCESS, "%s: %s", cap->records[i].error_type,
                     cap->records[i].error_message);
    }
    free(cap);
}

/* Jobs of 30 ms polled every 5 ms, two of them at a time, end as successes; so do sessions of
 * jobs, one turn after the other's end. */
Test(engine_jobs, jobs_run_to_completion_and_sessions_of_jobs_too, .timeout = 60)
{
    skip_without_io_uring();
    struct fixture fx = {0};
    struct mock_config mc = loopback_mock();
    mc.video_job_ms = 30;
    start_mock(&fx, &mc);
    struct engine_jobs jobs = {.poll_interval_ns = 5 * 1000 * 1000};
    video_config(&fx, mock_server_port(fx.server), &jobs);
    expect_successes(&fx, 4);

    struct engine_sessions sessions = {.turn_count = two_turns,
                                       .first_ordinal = first_ordinal,
                                       .think_ns = no_think,
                                       .turn_body = video_turn,
                                       .session_limit = 3};
    fx.config.sessions = &sessions;
    fx.config.request_count = 0;
    expect_successes(&fx, 6);
    finish(&fx);
}

/* A scripted job server: every submission names the job `id` and every poll answers it
 * completed; it keeps the polls' paths. One request per connection (Connection: close). */
struct id_server {
    struct loopback_server server;
    const char *id;
    char polls[8][1024];
    size_t poll_count;
};

static void answer_job(void *ctx, int c)
{
    struct id_server *sv = ctx;
    char req[8192];
    if (!loopback_read_request(c, req, sizeof(req))) {
        return;
    }
    bool poll = strncmp(req, "GET ", 4) == 0;
    if (poll && sv->poll_count < 8) {
        size_t n = strcspn(req + 4, " ");
        snprintf(sv->polls[sv->poll_count++], sizeof(sv->polls[0]), "%.*s", (int)n, req + 4);
    }
    char body[2048];
    snprintf(body, sizeof(body), "{\"id\":\"%s\",\"status\":\"%s\"}", sv->id,
             poll ? "completed" : "queued");
    loopback_reply(c, "application/json", body);
}

/* run_one_job runs one job against a server naming it `id` into *out. */
static void run_one_job(struct id_server *sv, const char *id, struct captured *out)
{
    *sv = (struct id_server){.id = id};
    loopback_server_start(&sv->server, answer_job, sv);
    struct fixture fx = {0};
    struct engine_jobs jobs = {.poll_interval_ns = 1000 * 1000};
    video_config(&fx, sv->server.port, &jobs);
    fx.config.concurrency = 1;
    fx.config.shard_count = 1;
    fx.config.request_count = 1;
    struct capture *cap = new_capture();
    run_engine(&fx, cap, NULL);
    assert_every_ordinal_once(cap, 1);
    *out = cap->records[0];
    free(cap);
    finish(&fx);
    loopback_server_stop(&sv->server);
}

Test(engine_jobs, an_id_over_the_limit_fails_its_request_and_is_never_polled, .timeout = 60)
{
    skip_without_io_uring();
    char id[ENGINE_JOB_ID_BYTES_MAX + 2];
    memset(id, 'a', sizeof(id) - 1);
    id[sizeof(id) - 1] = '\0';
    id[ENGINE_JOB_ID_BYTES_MAX - 1] = 'Z'; /* the last byte a poll may carry */

    struct id_server *sv = calloc(1, sizeof(*sv));
    struct captured rec;
    id[ENGINE_JOB_ID_BYTES_MAX] = '\0'; /* at the limit: polled whole */
    run_one_job(sv, id, &rec);
    cr_assert_eq(rec.outcome, RECORD_SUCCESS, "%s: %s", rec.error_type, rec.error_message);
    cr_assert_eq(sv->poll_count, 1);
    char want[1024];
    snprintf(want, sizeof(want), "/v1/videos/%s", id);
    cr_assert_str_eq(sv->polls[0], want);

    id[ENGINE_JOB_ID_BYTES_MAX] = 'a'; /* one byte over */
    run_one_job(sv, id, &rec);
    cr_assert_eq(rec.outcome, RECORD_ERROR);
    cr_assert_eq(rec.error_code, 500);
    cr_assert_str_eq(rec.error_type, "VideoGenerationError");
    char says[128];
    snprintf(says, sizeof(says), "the job ID is %d bytes long, more than the %d",
             ENGINE_JOB_ID_BYTES_MAX + 1, ENGINE_JOB_ID_BYTES_MAX);
    cr_assert_not_null(strstr(rec.error_message, says), "%s", rec.error_message);
    cr_assert_eq(sv->poll_count, 0, "no poll with the id cut short: %s", sv->polls[0]);
    free(sv);
}
