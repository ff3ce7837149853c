/*
 * test_video.c - the video job reader: AIPerf's fields from a submission, a poll in
 * progress, a finished and a failed job, and what is not a job object.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "response/response.h"

static struct response_video parse_ok(const char *json)
{
    struct response_video v;
    cr_assert_eq(response_video_parse(json, strlen(json), NULL, &v), RESPONSE_PARSE_OK, "%s", json);
    return v;
}

static bool view_is(struct response_str v, const char *want)
{
    return v.len == strlen(want) && memcmp(v.ptr, want, v.len) == 0;
}

Test(response_video, submission_gives_the_job_id_and_status)
{
    struct response_video v =
        parse_ok("{\"id\":\"video_1\",\"object\":\"video\",\"status\":\"queued\",\"progress\":0}");
    cr_assert(view_is(v.id, "video_1"));
    cr_assert_eq(v.status, RESPONSE_VIDEO_QUEUED);
    cr_assert_not(v.has_inference_time);
    cr_assert_not(v.has_peak_memory);
    cr_assert_eq(v.error.len, 0);
}

Test(response_video, finished_job_gives_url_and_server_figures)
{
    struct response_video v =
        parse_ok("{\"id\":\"v\",\"status\":\"completed\",\"url\":\"\\/v1\\/videos\\/v\\/content\","
                 "\"inference_time_s\":12.5,\"peak_memory_mb\":2048}");
    cr_assert_eq(v.status, RESPONSE_VIDEO_COMPLETED);
    cr_assert(view_is(v.url, "\\/v1\\/videos\\/v\\/content"), "the view stays escaped");
    cr_assert(v.has_inference_time);
    cr_assert_float_eq(v.inference_time_s, 12.5, 1e-12);
    cr_assert(v.has_peak_memory);
    cr_assert_float_eq(v.peak_memory_mb, 2048.0, 1e-12);
}

Test(response_video, failed_job_gives_the_error_message)
{
    struct response_video v = parse_ok(
        "{\"status\":\"failed\",\"error\":{\"code\":\"x\",\"message\":\"out of memory\"}}");
    cr_assert_eq(v.status, RESPONSE_VIDEO_FAILED);
    cr_assert(view_is(v.error, "out of memory"));
    cr_assert_not(v.error_is_json);
    v = parse_ok("{\"status\":\"failed\",\"error\":\"bad prompt\"}");
    cr_assert(view_is(v.error, "bad prompt"));
    v = parse_ok("{\"status\":\"failed\",\"error\":[1,2]}");
    cr_assert(view_is(v.error, "[1,2]"));
    cr_assert(v.error_is_json);
    v = parse_ok("{\"status\":\"failed\",\"error\":null}");
    cr_assert_eq(v.error.len, 0);
}

Test(response_video, other_statuses_and_odd_values)
{
    cr_assert_eq(parse_ok("{\"status\":\"in_progress\"}").status, RESPONSE_VIDEO_IN_PROGRESS);
    cr_assert_eq(parse_ok("{\"status\":\"processing\"}").status, RESPONSE_VIDEO_OTHER);
    cr_assert_eq(parse_ok("{\"status\":3}").status, RESPONSE_VIDEO_ABSENT);
    cr_assert_eq(parse_ok("{}").status, RESPONSE_VIDEO_ABSENT);
    struct response_video v =
        parse_ok("{\"id\":42,\"inference_time_s\":-1,\"peak_memory_mb\":\"9\"}");
    cr_assert(view_is(v.id, "42"), "an integer id is used as written");
    cr_assert_not(v.has_inference_time, "a negative time is no time");
    cr_assert_not(v.has_peak_memory, "a string is no number");
    cr_assert_eq(parse_ok("{\"id\":true}").id.len, 0);
    v = parse_ok("{\"status\":\"queued\",\"status\":\"completed\"}");
    cr_assert_eq(v.status, RESPONSE_VIDEO_COMPLETED, "the last of a repeated name wins");
}

Test(response_video, refuses_what_is_not_a_job_object)
{
    static const struct {
        const char *json;
        enum response_parse_status want;
    } cases[] = {
        {"", RESPONSE_PARSE_ERR_MALFORMED},
        {"{\"id\":", RESPONSE_PARSE_ERR_MALFORMED},
        {"not json", RESPONSE_PARSE_ERR_MALFORMED},
        {"[{\"id\":\"v\"}]", RESPONSE_PARSE_ERR_NOT_OBJECT},
        {"\"completed\"", RESPONSE_PARSE_ERR_NOT_OBJECT},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct response_video v;
        cr_assert_eq(response_video_parse(cases[i].json, strlen(cases[i].json), NULL, &v),
                     cases[i].want, "%s", cases[i].json);
        cr_assert_eq(v.id.len, 0);
        cr_assert_eq(v.status, RESPONSE_VIDEO_ABSENT);
    }
}

Test(response_video, too_many_tokens_without_a_scratch_and_fine_with_one)
{
    size_t n = RESPONSE_JSON_TOKENS_MAX;
    char *json = malloc(n * 2 + 64);
    static const char head[] = "{\"status\":\"completed\",\"x\":[";
    memcpy(json, head, sizeof(head) - 1);
    size_t len = sizeof(head) - 1;
    for (size_t i = 0; i < n; i++) {
        json[len++] = '0';
        json[len++] = i + 1 < n ? ',' : ']';
    }
    json[len++] = '}';
    struct response_video v;
    cr_assert_eq(response_video_parse(json, len, NULL, &v), RESPONSE_PARSE_ERR_TOO_MANY_TOKENS);
    struct response_scratch *s = response_scratch_new(len / 2 + 1);
    cr_assert_eq(response_video_parse(json, len, s, &v), RESPONSE_PARSE_OK);
    cr_assert_eq(v.status, RESPONSE_VIDEO_COMPLETED);
    response_scratch_free(s);
    free(json);
}
