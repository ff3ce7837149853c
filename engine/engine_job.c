/*
 * engine_job.c - asynchronous jobs (engine_jobs: video_generation): a request submits a job,
 * then its connection polls the job's status and, when asked, downloads the result, as AIPerf's
 * HTTP transports do (base_http_transport.py: _submit_video_job, _poll_video_job,
 * _download_video_content).
 *
 * Why polls are follow-ups on the job's own connection, timed by the shard's loop: the job
 * is one request in flight, as AIPerf counts it (its credit is held until the job ends), so
 * the connection that carried the submission is the job's until its record finishes. Between
 * two polls nothing is on that socket; the connection waits in the shard's list of waiting
 * jobs, whose earliest due time bounds the shard's sleep (engine__shard_wake_ns), like a
 * session's think time. No thread sleeps, no other connection is taken, and the load's other
 * requests go on around the job.
 */
#include "engine/engine_conn.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The bytes of a response body quoted in an error message, as AIPerf's text[:200]. */
#define JOB_SNIPPET_BYTES 200

static void job_fail(struct engine__shard *shard, struct engine__conn *c, int code,
                     const char *type, const char *format, ...)
    __attribute__((format(printf, 5, 6)));

static void job_fail(struct engine__shard *shard, struct engine__conn *c, int code,
                     const char *type, const char *format, ...)
{
    char message[RECORD_ERROR_MESSAGE_BYTES];
    va_list args;
    va_start(args, format);
    vsnprintf(message, sizeof(message), format, args);
    va_end(args);
    engine__fail(shard, c, code, type, message);
}

/* id_usable reports whether a job id can go into a request path as it is: unreserved URL
 * characters only, so that no escape or separator changes which resource a poll names. */
static bool id_usable(struct response_str id)
{
    for (size_t i = 0; i < id.len; i++) {
        char ch = id.ptr[i];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                  (ch >= '0' && ch <= '9') || ch == '-' || ch == '_' || ch == '.' || ch == '~';
        if (!ok) {
            return false;
        }
    }
    return true;
}

/* compose writes base + "/" + id + suffix + query into out (the target's path split at its
 * query, less a trailing '/', as AIPerf strips it). Returns false when it does not fit. */
static bool compose(const char *target_path, struct response_str id, const char *suffix, char *out,
                    size_t cap)
{
    const char *query = strchr(target_path, '?');
    size_t base_len = query != NULL ? (size_t)(query - target_path) : strlen(target_path);
    while (base_len > 0 && target_path[base_len - 1] == '/') {
        base_len--;
    }
    int n = snprintf(out, cap, "%.*s/%.*s%s%s", (int)base_len, target_path, (int)id.len, id.ptr,
                     suffix, query != NULL ? query : "");
    return n > 0 && (size_t)n < cap;
}

/* path_ok reports whether a request target is visible ASCII without spaces, as HTTP wants. */
static bool path_ok(const char *path)
{
    for (; *path != '\0'; path++) {
        if ((unsigned char)*path <= 0x20 || (unsigned char)*path >= 0x7f) {
            return false;
        }
    }
    return true;
}

/* wait_to_poll parks c until its next poll is due, interval after this answer was read. */
static void wait_to_poll(struct engine__shard *shard, struct engine__conn *c)
{
    c->job.waiting = true;
    c->job.next_poll_ns = shard->reaped_ns + shard->config->jobs->poll_interval_ns;
    shard->job_waiting_count++;
    if (c->job.next_poll_ns < shard->next_job_ns) {
        shard->next_job_ns = c->job.next_poll_ns;
    }
}

/* follow_up sends the job's next request now, on a new socket when the server closes this one. */
static void follow_up(struct engine__shard *shard, struct engine__conn *c, bool keep)
{
    if (!keep) {
        engine__close_socket(shard, c);
    }
    engine__send_follow_up(shard, c);
}

static void on_submitted(struct engine__shard *shard, struct engine__conn *c,
                         const struct response_video *v, const char *body, size_t body_len,
                         bool keep)
{
    if (v->id.len == 0) {
        job_fail(shard, c, 500, "VideoGenerationError", "No job ID returned: %.*s",
                 (int)(body_len < JOB_SNIPPET_BYTES ? body_len : JOB_SNIPPET_BYTES), body);
        return;
    }
    if (v->id.len > ENGINE_JOB_ID_BYTES_MAX) {
        job_fail(shard, c, 500, "VideoGenerationError",
                 "the job ID is %zu bytes long, more than the %d a poll's path takes: %.*s...",
                 v->id.len, ENGINE_JOB_ID_BYTES_MAX, 64, v->id.ptr);
        return;
    }
    if (!id_usable(v->id)) {
        job_fail(shard, c, 500, "VideoGenerationError",
                 "the job ID %.*s is not usable in a URL path (letters, digits, '-', '_', '.' "
                 "and '~' only)",
                 (int)(v->id.len < 64 ? v->id.len : 64), v->id.ptr);
        return;
    }
    if (!compose(c->target->path, v->id, "", c->job.paths->poll, sizeof(c->job.paths->poll))) {
        job_fail(shard, c, 500, "VideoGenerationError", "the job's poll URL is too long");
        return;
    }
    memcpy(c->job.paths->now, c->job.paths->poll, sizeof(c->job.paths->now));
    c->job.phase = ENGINE__JOB_POLL;
    follow_up(shard, c, keep); /* AIPerf polls at once after the submission */
}

/* download_path sets c->job.paths->now to where the finished video is: the job's "url" when it is
 * on the server that ran the job, else <poll path>/content. Returns false when it failed c. */
static bool download_path(struct engine__shard *shard, struct engine__conn *c,
                          const struct response_video *v)
{
    const struct engine_target *t = c->target;
    char url[ENGINE__JOB_PATH_BYTES];
    bool truncated = false;
    size_t n = jsonstr_unescape(v->url.ptr, v->url.len, url, sizeof(url) - 1, &truncated);
    url[n] = '\0';
    if (n == 0) {
        const char *id = strrchr(c->job.paths->poll, '/') + 1;
        struct response_str id_view = {id, strcspn(id, "?")};
        if (!compose(t->path, id_view, "/content", c->job.paths->now, sizeof(c->job.paths->now))) {
            engine__fail(shard, c, 500, "VideoDownloadError", "the video's URL is too long");
            return false;
        }
        return true;
    }
    const char *scheme = t->tls != NULL ? "https://" : "http://";
    const char *path = url;
    size_t host_len = strlen(t->host_header);
    if (strncasecmp(url, scheme, strlen(scheme)) == 0 &&
        strncasecmp(url + strlen(scheme), t->host_header, host_len) == 0 &&
        url[strlen(scheme) + host_len] == '/') {
        path = url + strlen(scheme) + host_len;
    }
    if (truncated || path[0] != '/' || !path_ok(path)) {
        job_fail(shard, c, 500, "VideoDownloadError",
                 "Failed to download video: its url %.200s is not on %s%s, the server that ran "
                 "the job (ringperf downloads only from there)",
                 url, scheme, t->host_header);
        return false;
    }
    /* Through a forward proxy every request names its server (engine_target_set_path). */
    bool absolute = t->proxy.mode == ENGINE_PROXY_FORWARD;
    int w = snprintf(c->job.paths->now, sizeof(c->job.paths->now), "%s%s%s",
                     absolute ? "http://" : "", absolute ? t->host_header : "", path);
    if (w < 0 || (size_t)w >= sizeof(c->job.paths->now)) {
        engine__fail(shard, c, 500, "VideoDownloadError", "the video's URL is too long");
        return false;
    }
    return true;
}

/* on_completed stamps the job's end as the record's content response (AIPerf's request latency
 * ends at the poll that saw it completed) with the server's figures, then downloads or ends. */
static void on_completed(struct engine__shard *shard, struct engine__conn *c,
                         const struct response_video *v, int64_t arrival_ns, bool keep)
{
    struct record *rec = c->record;
    if (rec->event_count < shard->config->max_events_per_request) {
        rec->events[rec->event_count++] =
            (struct record_event){.arrival_ns = arrival_ns, .flags = RECORD_EVENT_CONTENT};
    } else {
        rec->events_dropped++;
    }
    rec->saw_content = true;
    rec->video_inference_s = v->has_inference_time ? v->inference_time_s : RECORD_ABSENT;
    rec->video_peak_memory_mb = v->has_peak_memory ? v->peak_memory_mb : RECORD_ABSENT;
    engine__prefill_done(shard, c);
    if (!shard->config->jobs->download) {
        engine__finish(shard, c, RECORD_SUCCESS, keep);
        return;
    }
    if (!download_path(shard, c, v)) {
        return;
    }
    c->job.phase = ENGINE__JOB_DOWNLOAD;
    follow_up(shard, c, keep);
}

static void on_failed(struct engine__shard *shard, struct engine__conn *c,
                      const struct response_video *v)
{
    char message[RECORD_ERROR_MESSAGE_BYTES - 32];
    size_t n = 0;
    if (v->error_is_json) {
        n = v->error.len < sizeof(message) - 1 ? v->error.len : sizeof(message) - 1;
        memcpy(message, v->error.ptr, n);
    } else {
        bool truncated = false;
        n = jsonstr_unescape(v->error.ptr, v->error.len, message, sizeof(message) - 1, &truncated);
    }
    message[n] = '\0';
    job_fail(shard, c, 500, "VideoGenerationError", "Video generation failed: %s",
             n > 0 ? message : "Unknown error");
}

void engine__job_answer(struct engine__shard *shard, struct engine__conn *c, const char *body,
                        size_t body_len, int64_t arrival_ns, bool keep)
{
    if (c->job.phase == ENGINE__JOB_DOWNLOAD) {
        engine__finish(shard, c, RECORD_SUCCESS, keep);
        return;
    }
    bool submit = c->job.phase == ENGINE__JOB_SUBMIT;
    struct response_video v;
    enum response_parse_status st = response_video_parse(body, body_len, shard->json_scratch, &v);
    if (st != RESPONSE_PARSE_OK) {
        bool empty = body_len == 0;
        job_fail(shard, c, 500, "VideoGenerationError",
                 "Invalid JSON in video %s response (status %d): %.*s", submit ? "submit" : "poll",
                 c->record->http_status,
                 empty ? 7 : (int)(body_len < JOB_SNIPPET_BYTES ? body_len : JOB_SNIPPET_BYTES),
                 empty ? "<empty>" : body);
        return;
    }
    if (submit) {
        on_submitted(shard, c, &v, body, body_len, keep);
    } else if (v.status == RESPONSE_VIDEO_COMPLETED) {
        on_completed(shard, c, &v, arrival_ns, keep);
    } else if (v.status == RESPONSE_VIDEO_FAILED) {
        on_failed(shard, c, &v);
    } else {
        if (!keep) {
            engine__close_socket(shard, c);
        }
        wait_to_poll(shard, c);
    }
}

void engine__jobs_resume(struct engine__shard *shard)
{
    if (shard->job_waiting_count == 0) {
        return;
    }
    int64_t now = engine_now_ns();
    if (shard->next_job_ns > now) {
        return;
    }
    int64_t next = INT64_MAX;
    for (uint32_t i = 0; i < shard->conn_count && shard->job_waiting_count > 0; i++) {
        struct engine__conn *c = &shard->conns[i];
        if (!c->job.waiting) {
            continue;
        }
        if (c->job.next_poll_ns > now) {
            next = c->job.next_poll_ns < next ? c->job.next_poll_ns : next;
            continue;
        }
        c->job.waiting = false;
        shard->job_waiting_count--;
        engine__send_follow_up(shard, c);
    }
    shard->next_job_ns = next;
}

void engine__job_end(struct engine__shard *shard, struct engine__conn *c)
{
    if (c->job.waiting) {
        c->job.waiting = false;
        shard->job_waiting_count--;
    }
    c->job.phase = ENGINE__JOB_NONE;
}
