/*
 * mock_video.c - OpenAI's and SGLang's asynchronous video API: POST /v1/videos submits a job,
 * GET /v1/videos/{id} reports its status, GET /v1/videos/{id}/content returns the video.
 *
 * A job keeps no state on the server: its id carries when it started, how long it takes
 * (--video-job-ms) and whether it fails (--video-fail-rate, drawn at submission) and names its
 * video's url, so that any worker thread answers any poll with no lock and no table. A job is
 * "queued" when submitted, "in_progress" until its time is up, then "completed" (with SGLang's
 * inference_time_s, the job's time, and peak_memory_mb) or "failed".
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "mock/mock_internal.h"
#include "response/response_walk.h"

#define VIDEO_PREFIX "/v1/videos"
#define ID_PREFIX "video_"
/* What a finished job reports as its peak memory: a fixed figure tests can check. */
#define PEAK_MEMORY_MB "2048.5"

/* The fields an id carries: video_<start ns>_<job ms>_<fate><url mode>. */
struct video_job {
    uint64_t start_ns;
    uint64_t job_ms;
    bool fails;
    char url_mode; /* 'n' no url, 'r' a relative one, 'f' one on another server */
};

static bool read_u64(const char **p, const char *end, uint64_t *out)
{
    uint64_t v = 0;
    const char *s = *p;
    while (s < end && *s >= '0' && *s <= '9' && s - *p < 19) {
        v = v * 10 + (uint64_t)(*s - '0');
        s++;
    }
    if (s == *p) {
        return false;
    }
    *p = s;
    *out = v;
    return true;
}

/* parse_id reads an id this server made; false for anything else. */
static bool parse_id(const char *id, size_t len, struct video_job *out)
{
    const char *p = id;
    const char *end = id + len;
    size_t pre = sizeof(ID_PREFIX) - 1;
    if (len < pre || memcmp(id, ID_PREFIX, pre) != 0) {
        return false;
    }
    p += pre;
    if (!read_u64(&p, end, &out->start_ns) || p >= end || *p++ != '_' ||
        !read_u64(&p, end, &out->job_ms) || end - p != 3 || p[0] != '_') {
        return false;
    }
    out->fails = p[1] == 'f';
    out->url_mode = p[2];
    return (p[1] == 'f' || p[1] == 's') && (p[2] == 'n' || p[2] == 'r' || p[2] == 'f');
}

enum mock__video_op mock__video_op_of(const char *method, size_t method_len, const char *path,
                                      size_t path_len, const char **out_id, size_t *out_id_len)
{
    size_t pre = sizeof(VIDEO_PREFIX) - 1;
    *out_id = NULL;
    *out_id_len = 0;
    if (path_len < pre || memcmp(path, VIDEO_PREFIX, pre) != 0) {
        return MOCK__VIDEO_NONE;
    }
    bool post = method_len == 4 && memcmp(method, "POST", 4) == 0;
    bool get = method_len == 3 && memcmp(method, "GET", 3) == 0;
    if (path_len == pre) {
        return post ? MOCK__VIDEO_SUBMIT : MOCK__VIDEO_BAD_METHOD;
    }
    if (path[pre] != '/') {
        return MOCK__VIDEO_NONE;
    }
    const char *id = path + pre + 1;
    size_t rest = path_len - pre - 1;
    const char *slash = memchr(id, '/', rest);
    size_t id_len = slash != NULL ? (size_t)(slash - id) : rest;
    static const char content[] = "/content";
    bool is_content = slash != NULL && rest - id_len == sizeof(content) - 1 &&
                      memcmp(slash, content, sizeof(content) - 1) == 0;
    if (id_len == 0 || (slash != NULL && !is_content)) {
        return MOCK__VIDEO_NONE;
    }
    *out_id = id;
    *out_id_len = id_len;
    if (!get) {
        return MOCK__VIDEO_BAD_METHOD;
    }
    return is_content ? MOCK__VIDEO_CONTENT : MOCK__VIDEO_POLL;
}

static void put_id(struct mock__buf *b, const struct video_job *job)
{
    mock__buf_str(b, ID_PREFIX);
    mock__buf_u64(b, job->start_ns);
    mock__buf_put(b, "_", 1);
    mock__buf_u64(b, job->job_ms);
    mock__buf_put(b, "_", 1);
    mock__buf_put(b, job->fails ? "f" : "s", 1);
    mock__buf_put(b, &job->url_mode, 1);
}

/* put_job writes the job object as it stands at now_ns. */
static void put_job(struct mock__buf *b, const struct video_job *job, uint64_t now_ns, bool fresh)
{
    uint64_t elapsed_ms = now_ns > job->start_ns ? (now_ns - job->start_ns) / 1000000 : 0;
    bool done = !fresh && elapsed_ms >= job->job_ms;
    mock__buf_str(b, "{\"id\":\"");
    put_id(b, job);
    mock__buf_str(b, "\",\"object\":\"video\",\"model\":\"mock-model\",\"status\":\"");
    if (!done) {
        mock__buf_str(b, fresh ? "queued\",\"progress\":" : "in_progress\",\"progress\":");
        mock__buf_u64(b, job->job_ms > 0 ? elapsed_ms * 100 / job->job_ms : 0);
        mock__buf_str(b, "}");
        return;
    }
    if (job->fails) {
        mock__buf_str(b, "failed\",\"progress\":100,\"error\":{\"code\":\"mock_failure\","
                         "\"message\":\"mock-server: injected video generation failure\"}}");
        return;
    }
    mock__buf_str(b, "completed\",\"progress\":100,\"inference_time_s\":");
    mock__buf_u64(b, job->job_ms / 1000);
    mock__buf_put(b, ".", 1);
    char frac[3] = {(char)('0' + job->job_ms % 1000 / 100), (char)('0' + job->job_ms % 100 / 10),
                    (char)('0' + job->job_ms % 10)};
    mock__buf_put(b, frac, 3);
    mock__buf_str(b, ",\"peak_memory_mb\":" PEAK_MEMORY_MB);
    if (job->url_mode != 'n') {
        mock__buf_str(b, job->url_mode == 'r' ? ",\"url\":\"\\/v1\\/videos\\/"
                                              : ",\"url\":\"http://elsewhere.invalid/v1/videos/");
        put_id(b, job);
        mock__buf_str(b, "\\/content\"");
    }
    mock__buf_str(b, "}");
}

int mock__video_submit(const struct mock_config *cfg, uint64_t now_ns, double roll_pct,
                       const char *body, size_t body_len, struct mock__buf *b, const char **why)
{
    struct response_str text = {body, body_len};
    if (body_len == 0 || !response_walk_check(text) ||
        response_walk_type(text, response_walk_root(text)) != RESPONSE_WALK_OBJECT) {
        *why = "a video job is a JSON object with a \"prompt\"";
        return 400;
    }
    size_t root = response_walk_root(text);
    struct response_str prompt;
    struct response_str url_mode = {"", 0};
    if (!response_walk_string(text, response_walk_get(text, root, "prompt"), &prompt)) {
        *why = "a video job needs a \"prompt\" string";
        return 400;
    }
    response_walk_string(text, response_walk_get(text, root, "mock_url"), &url_mode);
    struct video_job job = {
        .start_ns = now_ns,
        .job_ms = (uint64_t)cfg->video_job_ms,
        .fails = roll_pct < cfg->video_fail_rate,
        .url_mode = response_walk_key_is(url_mode, "relative", 8)  ? 'r'
                    : response_walk_key_is(url_mode, "foreign", 7) ? 'f'
                                                                   : 'n',
    };
    put_job(b, &job, now_ns, true);
    return 200;
}

int mock__video_poll(uint64_t now_ns, const char *id, size_t id_len, struct mock__buf *b,
                     const char **why)
{
    struct video_job job;
    if (!parse_id(id, id_len, &job)) {
        *why = "no such video job";
        return 404;
    }
    put_job(b, &job, now_ns, false);
    return 200;
}

int mock__video_content(uint64_t now_ns, const char *id, size_t id_len, struct mock__buf *b,
                        const char **why)
{
    struct video_job job;
    if (!parse_id(id, id_len, &job)) {
        *why = "no such video job";
        return 404;
    }
    if (job.fails || now_ns < job.start_ns || (now_ns - job.start_ns) / 1000000 < job.job_ms) {
        *why = "the video is not ready: its job has not completed";
        return 404;
    }
    /* Bytes that look like the start of an MP4 and then a pattern; their count is fixed. */
    static const char ftyp[] = "\0\0\0\x18"
                               "ftypmp42\0\0\0\0mp42isom";
    mock__buf_put(b, ftyp, sizeof(ftyp) - 1);
    for (size_t i = sizeof(ftyp) - 1; i < MOCK__VIDEO_BYTES; i++) {
        char ch = (char)('a' + i % 26);
        mock__buf_put(b, &ch, 1);
    }
    return 200;
}
