/* A whole response folded into its record: AIPerf's stream rules (event:
 * error, data after [DONE], the end marker), the text, events and usage the
 * record keeps, and its limits. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "endpoint/endpoint.h"
#include "record/record.h"
#include "response/response.h"
#include "tests/support/response_fixture.h"

#define EVENTS_MAX RESPONSE_FIXTURE_EVENTS
#define TEXT_BYTES_MAX RESPONSE_FIXTURE_TEXT

static void stream_init(struct response_fixture *s, enum endpoint_type type, size_t max_events)
{
    cr_assert_eq(response_fixture_init(s, type, max_events), 0);
}

static enum response_step feed(struct response_fixture *s, const char *event, const char *data,
                               int64_t arrival_ns)
{
    struct sse_event ev = {
        .data = data != NULL ? data : "",
        .data_len = data != NULL ? strlen(data) : 0,
        .event_type = event != NULL ? event : "",
        .event_type_len = event != NULL ? strlen(event) : 0,
        .comment = "",
        .has_data = data != NULL,
        .has_event_type = event != NULL,
    };
    return response_read_event(&s->reader, &s->state, &s->limits, &ev, arrival_ns, false, &s->rec,
                               &s->fail);
}

static const char *chat_chunk(const char *content)
{
    static char buf[256];
    snprintf(buf, sizeof(buf),
             "{\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{"
             "\"content\":\"%s\"},\"finish_reason\":null}]}",
             content);
    return buf;
}

Test(response_stream, a_chat_stream_keeps_text_events_usage_and_its_end)
{
    struct response_fixture s;
    stream_init(&s, ENDPOINT_CHAT, EVENTS_MAX);
    cr_assert_eq(feed(&s, NULL, chat_chunk("Hel"), 100), RESPONSE_STEP_GENERATED);
    cr_assert_eq(feed(&s, NULL, chat_chunk("lo\\n"), 200), RESPONSE_STEP_GENERATED);
    cr_assert_eq(feed(&s, NULL,
                      "{\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{"
                      "\"prompt_tokens\":7,\"completion_tokens\":2,\"total_tokens\":9}}",
                      300),
                 RESPONSE_STEP_MORE);
    cr_assert_eq(feed(&s, NULL, "[DONE]", 400), RESPONSE_STEP_MORE);
    cr_assert_eq(s.rec.text_len, 6);
    cr_assert_eq(memcmp(s.rec.text, "Hello\n", 6), 0);
    cr_assert_eq(s.rec.event_count, 3, "two content events and one usage event");
    cr_assert_eq(s.events[0].arrival_ns, 100);
    cr_assert_eq(s.events[0].flags, RECORD_EVENT_CONTENT);
    cr_assert_eq(s.events[0].text_len, 3);
    cr_assert_eq(s.events[2].flags, RECORD_EVENT_USAGE);
    cr_assert(s.rec.saw_content);
    cr_assert(s.rec.saw_done);
    cr_assert(s.rec.usage.present);
    cr_assert_eq(s.rec.usage.prompt_tokens, 7);
    cr_assert_eq(s.rec.usage.completion_tokens, 2);
    cr_assert_eq(s.rec.usage.total_tokens, 9);
    cr_assert_eq(s.rec.usage.reasoning_tokens, RECORD_ABSENT);
    cr_assert_eq(s.rec.usage.prompt_cache_read_tokens, RECORD_ABSENT);
    cr_assert(response_stream_ended_well(&s.reader, &s.rec, &s.fail));
}

Test(response_stream, usage_counts_are_kept_across_chunks_and_zero_is_a_count)
{
    struct response_fixture s;
    stream_init(&s, ENDPOINT_CHAT, EVENTS_MAX);
    cr_assert_eq(feed(&s, NULL,
                      "{\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                      "\"delta\":{\"content\":\"a\"}}],\"usage\":{\"prompt_tokens\":0,"
                      "\"completion_tokens\":1}}",
                      10),
                 RESPONSE_STEP_GENERATED);
    cr_assert_eq(s.rec.first_content_completion_tokens, 1);
    cr_assert_eq(feed(&s, NULL,
                      "{\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{"
                      "\"completion_tokens\":5,\"prompt_tokens_details\":{\"cached_tokens\":3}}}",
                      20),
                 RESPONSE_STEP_MORE);
    cr_assert_eq(s.rec.usage.prompt_tokens, 0, "a reported 0 is kept, not absent");
    cr_assert_eq(s.rec.usage.completion_tokens, 5, "the latest report wins");
    cr_assert_eq(s.rec.usage.prompt_cache_read_tokens, 3);
    cr_assert_eq(s.rec.usage.total_tokens, RECORD_ABSENT);
    cr_assert_eq(s.rec.first_content_completion_tokens, 1, "only the first content event's");
}

Test(response_stream, an_error_event_fails_with_the_servers_message)
{
    struct response_fixture s;
    stream_init(&s, ENDPOINT_MESSAGES, EVENTS_MAX);
    cr_assert_eq(feed(&s, "error",
                      "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
                      "\"message\":\"Overloaded\"}}",
                      10),
                 RESPONSE_STEP_FAILED);
    cr_assert_str_eq(s.fail.type, "SSEResponseError");
    cr_assert_str_eq(s.fail.message, "Overloaded");

    /* Data that is no error object: the event itself is the error. */
    stream_init(&s, ENDPOINT_CHAT, EVENTS_MAX);
    const char *data = "{\"object\":\"chat.completion.chunk\",\"choices\":[]}";
    cr_assert_eq(feed(&s, "error", data, 10), RESPONSE_STEP_FAILED);
    cr_assert_eq(s.fail.code, 502);
    cr_assert_str_eq(s.fail.type, "SSEResponseError");
    cr_assert_str_eq(s.fail.message, data);
}

Test(response_stream, data_after_done_fails_and_comments_are_skipped)
{
    struct response_fixture s;
    stream_init(&s, ENDPOINT_CHAT, EVENTS_MAX);
    cr_assert_eq(feed(&s, NULL, chat_chunk("x"), 10), RESPONSE_STEP_GENERATED);
    cr_assert_eq(feed(&s, "ping", NULL, 15), RESPONSE_STEP_MORE, "a bare event name");
    cr_assert_eq(feed(&s, NULL, "[DONE]", 20), RESPONSE_STEP_MORE);
    cr_assert_eq(feed(&s, NULL, chat_chunk("y"), 30), RESPONSE_STEP_FAILED);
    cr_assert_eq(s.fail.code, 502);
    cr_assert_str_eq(s.fail.message, "data arrived after [DONE]");
    cr_assert_eq(s.rec.text_len, 1, "nothing after [DONE] is kept");
}

Test(response_stream, unreadable_data_and_error_objects_fail_the_request)
{
    struct response_fixture s;
    stream_init(&s, ENDPOINT_CHAT, EVENTS_MAX);
    cr_assert_eq(feed(&s, NULL, "{\"object\":", 10), RESPONSE_STEP_FAILED);
    cr_assert_eq(s.fail.code, 502);
    cr_assert_str_eq(s.fail.type, "ResponseParseError");
    cr_assert(strstr(s.fail.message, "unreadable response payload") != NULL);

    stream_init(&s, ENDPOINT_CHAT, EVENTS_MAX);
    cr_assert_eq(feed(&s, NULL, "{\"error\":{\"message\":\"too long\",\"code\":400}}", 10),
                 RESPONSE_STEP_FAILED);
    cr_assert_eq(s.fail.code, 400);
    cr_assert_str_eq(s.fail.message, "too long");
}

Test(response_stream, the_end_marker_rule_depends_on_the_type)
{
    struct response_fixture s;
    stream_init(&s, ENDPOINT_CHAT, EVENTS_MAX);
    cr_assert_eq(feed(&s, NULL, chat_chunk("x"), 10), RESPONSE_STEP_GENERATED);
    cr_assert_not(response_stream_ended_well(&s.reader, &s.rec, &s.fail));
    cr_assert_eq(s.fail.code, 502);
    cr_assert_str_eq(s.fail.message, "the stream ended without [DONE] or a finish_reason");

    stream_init(&s, ENDPOINT_RESPONSES, EVENTS_MAX);
    cr_assert_eq(feed(&s, "response.output_text.delta",
                      "{\"type\":\"response.output_text.delta\",\"output_index\":0,"
                      "\"content_index\":0,\"delta\":\"x\"}",
                      10),
                 RESPONSE_STEP_GENERATED);
    cr_assert(response_stream_ended_well(&s.reader, &s.rec, &s.fail));
}

Test(response_stream, events_and_text_past_the_limits_are_counted_not_kept)
{
    struct response_fixture s;
    stream_init(&s, ENDPOINT_CHAT, 2);
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(feed(&s, NULL, chat_chunk("0123456789012345678901234567890"), i),
                     RESPONSE_STEP_GENERATED);
    }
    cr_assert_eq(s.rec.event_count, 2);
    cr_assert_eq(s.rec.events_dropped, 1);
    cr_assert_eq(s.rec.text_len, TEXT_BYTES_MAX);
    cr_assert(s.rec.text_truncated);
}

Test(response_stream, a_whole_body_is_one_event)
{
    struct response_fixture s;
    stream_init(&s, ENDPOINT_CHAT, EVENTS_MAX);
    const char *body = "{\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{"
                       "\"role\":\"assistant\",\"content\":\"hi\"},\"finish_reason\":\"stop\"}],"
                       "\"usage\":{\"prompt_tokens\":4,\"completion_tokens\":1}}";
    cr_assert_eq(
        response_read_body(&s.reader, &s.state, &s.limits, body, strlen(body), 50, &s.rec, &s.fail),
        RESPONSE_STEP_GENERATED);
    cr_assert_eq(s.rec.event_count, 1);
    cr_assert_eq(s.events[0].flags, RECORD_EVENT_CONTENT | RECORD_EVENT_USAGE);
    cr_assert(s.rec.saw_finish_reason);
    cr_assert_eq(s.rec.usage.prompt_tokens, 4);
}

Test(response_stream, an_error_status_body_gives_its_message)
{
    struct response_reader r;
    cr_assert_eq(response_reader_init(&r, ENDPOINT_CHAT, NULL, NULL, 0), 0);
    char msg[32];
    const char *json = "{\"error\":{\"message\":\"model \\\"x\\\" not found\",\"code\":404}}";
    response_error_message(&r, json, strlen(json), msg, sizeof(msg));
    cr_assert_str_eq(msg, "model \"x\" not found");
    response_error_message(&r, "Bad Gateway from the proxy in front", 35, msg, sizeof(msg));
    cr_assert_str_eq(msg, "Bad Gateway from the proxy in f", "cut to the buffer");
}
