/* Response parsing for the endpoint types beyond chat/completions: tables of
 * real-looking payloads from each API, parsed from a guarded copy so that an
 * over-read crashes. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "endpoint/endpoint.h"
#include "response/response.h"
#include "tests/support/guard.h"

/* guarded copies `s` to end right before a PROT_NONE page; the copy stays
 * mapped until the next call. */
static const char *guarded(const char *s, size_t len)
{
    static struct guard_region guard;
    return guard_copy(&guard, s, len);
}

static enum response_parse_status parse_ev(const struct response_reader *r,
                                           struct response_parse_state *st, const char *event,
                                           const char *data, struct response_chunk *out)
{
    size_t len = strlen(data);
    return response_parse_event(r, st, event, event ? strlen(event) : 0, guarded(data, len), len,
                                out);
}

static enum response_parse_status parse_t(enum endpoint_type t, const char *data,
                                          struct response_chunk *out)
{
    struct response_reader r;
    response_reader_init(&r, t, NULL, NULL, 0);
    return parse_ev(&r, NULL, NULL, data, out);
}

/* The decoded texts of `kind`, concatenated. */
static const char *texts_of(const struct response_chunk *c, enum response_text_kind kind)
{
    static char buf[4096];
    size_t len = 0;
    for (size_t i = 0; i < c->text_count; i++) {
        const struct response_text *t = &c->texts[i];
        if (t->kind != kind) {
            continue;
        }
        if (t->literal) {
            memcpy(buf + len, t->text.ptr, t->text.len);
            len += t->text.len;
        } else {
            len +=
                jsonstr_unescape(t->text.ptr, t->text.len, buf + len, sizeof(buf) - 1 - len, NULL);
        }
    }
    buf[len] = '\0';
    return buf;
}

static void assert_view(struct response_str v, const char *want)
{
    cr_assert_eq(v.len, strlen(want), "view '%.*s' != '%s'", (int)v.len, v.ptr, want);
    cr_assert_eq(memcmp(v.ptr, want, v.len), 0, "view '%.*s' != '%s'", (int)v.len, v.ptr, want);
}

/* ---- Responses ------------------------------------------------------------------------- */

/* An OpenAI Responses stream as the API reference shows it. */
static const char *const RESPONSES_STREAM[][2] = {
    {"response.created",
     "{\"type\":\"response.created\",\"sequence_number\":0,\"response\":{\"id\":\"resp_1\","
     "\"object\":\"response\",\"created_at\":1741290958,\"status\":\"in_progress\","
     "\"output\":[],\"usage\":null}}"},
    {"response.output_item.added",
     "{\"type\":\"response.output_item.added\",\"sequence_number\":1,\"output_index\":0,"
     "\"item\":{\"id\":\"msg_1\",\"type\":\"message\",\"status\":\"in_progress\","
     "\"role\":\"assistant\",\"content\":[]}}"},
    {"response.content_part.added",
     "{\"type\":\"response.content_part.added\",\"sequence_number\":2,\"item_id\":\"msg_1\","
     "\"output_index\":0,\"content_index\":0,\"part\":{\"type\":\"output_text\",\"text\":\"\","
     "\"annotations\":[]}}"},
    {"response.output_text.delta",
     "{\"type\":\"response.output_text.delta\",\"sequence_number\":3,\"item_id\":\"msg_1\","
     "\"output_index\":0,\"content_index\":0,\"delta\":\"Hi\"}"},
    {"response.output_text.delta",
     "{\"type\":\"response.output_text.delta\",\"sequence_number\":4,\"item_id\":\"msg_1\","
     "\"output_index\":0,\"content_index\":0,\"delta\":\" there\\n\"}"},
    {"response.output_text.done",
     "{\"type\":\"response.output_text.done\",\"sequence_number\":5,\"item_id\":\"msg_1\","
     "\"output_index\":0,\"content_index\":0,\"text\":\"Hi there\\n\"}"},
    {"response.completed",
     "{\"type\":\"response.completed\",\"sequence_number\":6,\"response\":{\"id\":\"resp_1\","
     "\"object\":\"response\",\"status\":\"completed\",\"output\":[],\"usage\":{"
     "\"input_tokens\":37,\"output_tokens\":11,\"output_tokens_details\":{"
     "\"reasoning_tokens\":4},\"total_tokens\":48}}}"},
};

Test(endpoint_events, responses_stream_dedups_done_text_with_state)
{
    struct response_reader r;
    struct response_parse_state st = {0};
    response_reader_init(&r, ENDPOINT_RESPONSES, NULL, NULL, 0);
    response_parse_state_reset(&st);
    const bool content[] = {false, false, false, true, true, true, false};
    const char *text[] = {"", "", "", "Hi", " there\n", "", ""};
    for (size_t i = 0; i < 7; i++) {
        struct response_chunk c;
        cr_assert_eq(parse_ev(&r, &st, RESPONSES_STREAM[i][0], RESPONSES_STREAM[i][1], &c),
                     RESPONSE_PARSE_OK, "event %zu", i);
        assert_view(c.object, RESPONSES_STREAM[i][0]);
        cr_assert_eq(c.is_content, content[i], "event %zu", i);
        cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_CONTENT), text[i], "event %zu", i);
        cr_assert_eq(c.has_finish_reason, i == 6);
        if (i == 6) {
            assert_view(c.finish_reason, "completed");
            cr_assert(c.usage.present && (c.usage.prompt_tokens != RECORD_ABSENT) &&
                      (c.usage.completion_tokens != RECORD_ABSENT));
            cr_assert_eq(c.usage.prompt_tokens, 37);
            cr_assert_eq(c.usage.completion_tokens, 11);
            cr_assert_eq(c.usage.reasoning_tokens, 4);
        }
    }
}

Test(endpoint_events, responses_done_is_the_fallback_without_deltas)
{
    struct response_reader r;
    struct response_parse_state st = {0};
    response_reader_init(&r, ENDPOINT_RESPONSES, NULL, NULL, 0);
    struct response_chunk c;
    /* Without state the done text is always reported (no de-duplication). */
    cr_assert_eq(parse_ev(&r, NULL, NULL, RESPONSES_STREAM[5][1], &c), RESPONSE_PARSE_OK);
    cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_CONTENT), "Hi there\n");
    /* A delta for part (0,0) does not hide the done of part (1,0). */
    cr_assert_eq(parse_ev(&r, &st, NULL, RESPONSES_STREAM[3][1], &c), RESPONSE_PARSE_OK);
    cr_assert_eq(parse_ev(&r, &st, NULL,
                          "{\"type\":\"response.output_text.done\",\"output_index\":1,"
                          "\"content_index\":0,\"text\":\"second\"}",
                          &c),
                 RESPONSE_PARSE_OK);
    cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_CONTENT), "second");
    /* An empty done is nothing at all. */
    cr_assert_eq(
        parse_ev(&r, &st, NULL, "{\"type\":\"response.output_text.done\",\"text\":\"\"}", &c),
        RESPONSE_PARSE_OK);
    cr_assert_not(c.is_content);
    /* Reset forgets the parts but keeps the scratch pointer. */
    response_parse_state_reset(&st);
    cr_assert_eq(st.part_count, 0);
}

Test(endpoint_events, responses_reasoning_tool_and_event_name_fallback)
{
    struct response_chunk c;
    cr_assert_eq(parse_t(ENDPOINT_RESPONSES,
                         "{\"type\":\"response.reasoning_text.delta\",\"delta\":\"think\"}", &c),
                 RESPONSE_PARSE_OK);
    cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_REASONING), "think");
    assert_view(c.reasoning, "think");
    cr_assert(c.is_content);
    cr_assert_eq(parse_t(ENDPOINT_RESPONSES,
                         "{\"type\":\"response.function_call_arguments.delta\",\"item_id\":\"fc\","
                         "\"output_index\":0,\"delta\":\"{\\\"city\\\":\"}",
                         &c),
                 RESPONSE_PARSE_OK);
    cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_TOOL), "{\"city\":");
    cr_assert_eq(c.tool_text_count, 1);
    struct response_reader r;
    response_reader_init(&r, ENDPOINT_RESPONSES, NULL, NULL, 0);
    cr_assert_eq(parse_ev(&r, NULL, "response.output_text.delta", "{\"delta\":\"x\"}", &c),
                 RESPONSE_PARSE_OK);
    cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_CONTENT), "x");
    /* Structural and unknown events are OK but carry nothing. */
    cr_assert_eq(parse_t(ENDPOINT_RESPONSES, "{\"type\":\"response.in_progress\"}", &c),
                 RESPONSE_PARSE_OK);
    cr_assert_not(c.is_content);
    cr_assert_eq(parse_t(ENDPOINT_RESPONSES, "{\"id\":1}", &c), RESPONSE_PARSE_IGNORED);
    cr_assert_eq(parse_t(ENDPOINT_RESPONSES, "[1]", &c), RESPONSE_PARSE_ERR_NOT_OBJECT);
}

Test(endpoint_events, responses_failure_events)
{
    struct response_chunk c;
    cr_assert_eq(parse_t(ENDPOINT_RESPONSES,
                         "{\"type\":\"response.failed\",\"response\":{\"status\":\"failed\","
                         "\"error\":{\"code\":\"server_error\",\"message\":\"boom\"}}}",
                         &c),
                 RESPONSE_PARSE_ERROR);
    cr_assert_eq(c.error_code, 502);
    assert_view(c.error_message, "boom");
    cr_assert_eq(parse_t(ENDPOINT_RESPONSES,
                         "{\"type\":\"error\",\"code\":\"ERR_SOMETHING\",\"message\":\"bad\","
                         "\"param\":null,\"sequence_number\":1}",
                         &c),
                 RESPONSE_PARSE_ERROR);
    assert_view(c.error_message, "bad");
    assert_view(c.error_type, "ERR_SOMETHING");
    /* incomplete (e.g. max_output_tokens reached) ends the stream normally. */
    cr_assert_eq(parse_t(ENDPOINT_RESPONSES,
                         "{\"type\":\"response.incomplete\",\"response\":{\"status\":"
                         "\"incomplete\",\"incomplete_details\":{\"reason\":"
                         "\"max_output_tokens\"},\"usage\":{\"input_tokens\":3,"
                         "\"output_tokens\":16}}}",
                         &c),
                 RESPONSE_PARSE_OK);
    cr_assert(c.has_finish_reason);
    assert_view(c.finish_reason, "max_output_tokens");
    cr_assert_eq(c.usage.completion_tokens, 16);
}

Test(endpoint_events, responses_non_streaming_output_walk)
{
    struct response_chunk c;
    const char *full =
        "{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"completed\",\"output\":["
        "{\"type\":\"reasoning\",\"id\":\"rs_1\",\"summary\":[{\"type\":\"summary_text\","
        "\"text\":\"why\"}]},"
        "{\"type\":\"message\",\"id\":\"msg_1\",\"role\":\"assistant\",\"content\":["
        "{\"type\":\"output_text\",\"text\":\"Hello\",\"annotations\":[]},"
        "{\"type\":\"refusal\",\"refusal\":\"no\"},"
        "{\"type\":\"output_text\",\"text\":\" world\",\"annotations\":[]}]},"
        "{\"type\":\"function_call\",\"name\":\"f\",\"arguments\":\"{}\"}],"
        "\"usage\":{\"input_tokens\":5,\"output_tokens\":9,\"total_tokens\":14}}";
    cr_assert_eq(parse_t(ENDPOINT_RESPONSES, full, &c), RESPONSE_PARSE_OK);
    cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_CONTENT), "Hello world");
    cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_REASONING), "why");
    cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_TOOL), "", "reasoning/text win over tools");
    cr_assert(c.is_content && c.has_finish_reason);
    cr_assert_eq(c.usage.prompt_tokens, 5);
    cr_assert_eq(c.usage.completion_tokens, 9);
    cr_assert_eq(parse_t(ENDPOINT_RESPONSES,
                         "{\"object\":\"response\",\"output\":[{\"type\":\"function_call\","
                         "\"name\":\"get_weather\",\"arguments\":\"{\\\"c\\\":1}\"}]}",
                         &c),
                 RESPONSE_PARSE_OK);
    cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_TOOL), "get_weather{\"c\":1}");
    cr_assert_eq(parse_t(ENDPOINT_RESPONSES,
                         "{\"object\":\"response\",\"output_text\":\"convenience\"}", &c),
                 RESPONSE_PARSE_OK);
    cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_CONTENT), "convenience");
    cr_assert_eq(parse_t(ENDPOINT_RESPONSES,
                         "{\"object\":\"response\",\"status\":\"failed\",\"error\":{\"code\":"
                         "\"server_error\",\"message\":\"nope\"}}",
                         &c),
                 RESPONSE_PARSE_ERROR);
}

/* ---- Anthropic Messages ---------------------------------------------------------------- */

static const char *const MESSAGES_STREAM[][2] = {
    {"message_start",
     "{\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\","
     "\"role\":\"assistant\",\"content\":[],\"model\":\"claude-sonnet-4-5\",\"stop_reason\":null,"
     "\"stop_sequence\":null,\"usage\":{\"input_tokens\":25,\"output_tokens\":1}}}"},
    {"content_block_start",
     "{\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"thinking\","
     "\"thinking\":\"\"}}"},
    {"content_block_delta",
     "{\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\","
     "\"thinking\":\"Let me think\"}}"},
    {"ping", "{\"type\": \"ping\"}"},
    {"content_block_delta",
     "{\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\","
     "\"text\":\"Hello\"}}"},
    {"content_block_delta",
     "{\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\","
     "\"partial_json\":\"{\\\"location\\\": \\\"San Fra\"}}"},
    {"content_block_stop", "{\"type\":\"content_block_stop\",\"index\":2}"},
    {"message_delta", "{\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\","
                      "\"stop_sequence\":null},\"usage\":{\"output_tokens\":15}}"},
    {"message_stop", "{\"type\":\"message_stop\"}"},
};

Test(endpoint_events, messages_stream_events)
{
    struct response_reader r;
    response_reader_init(&r, ENDPOINT_MESSAGES, NULL, NULL, 0);
    const bool content[] = {false, false, true, false, true, true, false, false, false};
    for (size_t i = 0; i < 9; i++) {
        struct response_chunk c;
        cr_assert_eq(parse_ev(&r, NULL, MESSAGES_STREAM[i][0], MESSAGES_STREAM[i][1], &c),
                     RESPONSE_PARSE_OK, "event %zu", i);
        cr_assert_eq(c.is_content, content[i], "event %zu", i);
        assert_view(c.object, MESSAGES_STREAM[i][0]);
        if (i == 0) {
            cr_assert(c.usage.present && (c.usage.prompt_tokens != RECORD_ABSENT));
            cr_assert_eq(c.usage.prompt_tokens, 25);
        }
        if (i == 2) {
            cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_REASONING), "Let me think");
        }
        if (i == 4) {
            cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_CONTENT), "Hello");
        }
        if (i == 5) {
            cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_TOOL), "{\"location\": \"San Fra");
        }
        if (i == 7) {
            cr_assert(c.has_finish_reason);
            assert_view(c.finish_reason, "end_turn");
            cr_assert_eq(c.usage.completion_tokens, 15);
            cr_assert_eq(c.usage.prompt_tokens, RECORD_ABSENT);
        }
        cr_assert_eq(c.has_finish_reason, i >= 7, "event %zu", i);
    }
}

Test(endpoint_events, messages_errors_and_full_bodies)
{
    struct response_chunk c;
    cr_assert_eq(parse_t(ENDPOINT_MESSAGES,
                         "{\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\","
                         "\"message\":\"Overloaded\"}}",
                         &c),
                 RESPONSE_PARSE_ERROR);
    cr_assert_eq(c.error_code, 502);
    assert_view(c.error_type, "overloaded_error");
    assert_view(c.error_message, "Overloaded");
    const char *full =
        "{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude\","
        "\"content\":[{\"type\":\"thinking\",\"thinking\":\"hmm\",\"signature\":\"x\"},"
        "{\"type\":\"text\",\"text\":\"Hi!\"},{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"f\","
        "\"input\":{\"a\": 1}}],\"stop_reason\":\"tool_use\",\"stop_sequence\":null,"
        "\"usage\":{\"input_tokens\":12,\"output_tokens\":6}}";
    cr_assert_eq(parse_t(ENDPOINT_MESSAGES, full, &c), RESPONSE_PARSE_OK);
    cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_CONTENT), "Hi!");
    cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_REASONING), "hmm");
    cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_TOOL), "");
    cr_assert(c.has_finish_reason);
    assert_view(c.finish_reason, "tool_use");
    cr_assert_eq(c.usage.prompt_tokens, 12);
    cr_assert_eq(c.usage.completion_tokens, 6);
    cr_assert_eq(parse_t(ENDPOINT_MESSAGES,
                         "{\"type\":\"message\",\"content\":[{\"type\":\"tool_use\",\"name\":"
                         "\"get_weather\",\"input\":{\"city\": \"Paris\\n\"}}]}",
                         &c),
                 RESPONSE_PARSE_OK);
    cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_TOOL), "get_weather{\"city\": \"Paris\\n\"}",
                     "the input object is kept as its JSON text");
    cr_assert(c.texts[1].literal);
    cr_assert_eq(c.tool_text_count, 1, "literal pieces stay out of the older views");
    cr_assert_eq(parse_t(ENDPOINT_MESSAGES, "{\"id\":\"x\"}", &c), RESPONSE_PARSE_IGNORED);
}

/* ---- Hugging Face TGI ------------------------------------------------------------------ */

Test(endpoint_events, tgi_stream_and_bodies)
{
    struct response_chunk c;
    cr_assert_eq(parse_t(ENDPOINT_HUGGINGFACE_GENERATE,
                         "{\"index\":1,\"token\":{\"id\":534,\"text\":\" Deep\",\"logprob\":-0.3,"
                         "\"special\":false},\"generated_text\":null,\"details\":null}",
                         &c),
                 RESPONSE_PARSE_OK);
    cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_CONTENT), " Deep");
    cr_assert_not(c.has_finish_reason);
    cr_assert_eq(parse_t(ENDPOINT_HUGGINGFACE_GENERATE,
                         "{\"index\":2,\"token\":{\"id\":2,\"text\":\" learning\",\"logprob\":0,"
                         "\"special\":false},\"generated_text\":\" Deep learning\",\"details\":{"
                         "\"finish_reason\":\"length\",\"generated_tokens\":2,\"seed\":null}}",
                         &c),
                 RESPONSE_PARSE_OK);
    cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_CONTENT), " learning",
                     "never the accumulated generated_text");
    cr_assert(c.has_finish_reason);
    assert_view(c.finish_reason, "length");
    cr_assert_eq(parse_t(ENDPOINT_HUGGINGFACE_GENERATE, "{\"generated_text\":\"whole\"}", &c),
                 RESPONSE_PARSE_OK);
    cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_CONTENT), "whole");
    cr_assert_eq(parse_t(ENDPOINT_HUGGINGFACE_GENERATE, "[{\"generated_text\":\"listed\"}]", &c),
                 RESPONSE_PARSE_OK);
    cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_CONTENT), "listed");
    cr_assert_eq(parse_t(ENDPOINT_HUGGINGFACE_GENERATE, "[]", &c), RESPONSE_PARSE_IGNORED);
    cr_assert_eq(parse_t(ENDPOINT_HUGGINGFACE_GENERATE, "[5]", &c), RESPONSE_PARSE_IGNORED);
    cr_assert_eq(parse_t(ENDPOINT_HUGGINGFACE_GENERATE, "\"s\"", &c),
                 RESPONSE_PARSE_ERR_NOT_OBJECT);
    cr_assert_eq(parse_t(ENDPOINT_HUGGINGFACE_GENERATE,
                         "{\"error\":\"Input validation error\",\"error_type\":\"validation\"}",
                         &c),
                 RESPONSE_PARSE_ERROR);
    assert_view(c.error_message, "Input validation error");
}

/* ---- Embeddings and rankings ----------------------------------------------------------- */

Test(endpoint_events, embeddings_bodies)
{
    struct response_chunk c;
    const char *openai =
        "{\"object\":\"list\",\"data\":[{\"object\":\"embedding\",\"index\":0,\"embedding\":"
        "[0.0023,-0.0093,0.015]},{\"object\":\"embedding\",\"index\":1,\"embedding\":[0.1,0.2,"
        "0.3]}],\"model\":\"text-embedding-3-small\",\"usage\":{\"prompt_tokens\":8,"
        "\"total_tokens\":8}}";
    enum endpoint_type types[] = {ENDPOINT_EMBEDDINGS, ENDPOINT_NIM_EMBEDDINGS,
                                  ENDPOINT_CHAT_EMBEDDINGS};
    for (size_t i = 0; i < 3; i++) {
        cr_assert_eq(parse_t(types[i], openai, &c), RESPONSE_PARSE_OK);
        cr_assert_eq(c.embedding_count, 2);
        cr_assert(c.is_content);
        cr_assert_eq(c.usage.prompt_tokens, 8);
        cr_assert_eq(c.text_count, 0);
    }
    cr_assert_eq(parse_t(ENDPOINT_EMBEDDINGS,
                         "{\"data\":[{\"object\":\"embedding\",\"embedding\":[1]},{\"x\":1}]}", &c),
                 RESPONSE_PARSE_IGNORED, "AIPerf rejects a list with other items");
    cr_assert_eq(c.embedding_count, 0);
    cr_assert_eq(parse_t(ENDPOINT_EMBEDDINGS, "{\"data\":[]}", &c), RESPONSE_PARSE_OK);
    cr_assert_not(c.is_content);
    cr_assert_eq(parse_t(ENDPOINT_CHAT_EMBEDDINGS, "{\"embeddings\":[[1,2],[3,4],[5,6]]}", &c),
                 RESPONSE_PARSE_OK);
    cr_assert_eq(c.embedding_count, 3);
    cr_assert_eq(parse_t(ENDPOINT_CHAT_EMBEDDINGS, "{\"embedding\":[0.5,1]}", &c),
                 RESPONSE_PARSE_OK);
    cr_assert_eq(c.embedding_count, 1);
    cr_assert_eq(parse_t(ENDPOINT_CHAT_EMBEDDINGS, "{\"embedding\":[]}", &c),
                 RESPONSE_PARSE_IGNORED);
}

Test(endpoint_events, large_embeddings_need_a_scratch)
{
    size_t dims = 4096;
    size_t cap = 64 + dims * 24;
    char *body = malloc(cap);
    size_t len = (size_t)snprintf(body, cap,
                                  "{\"object\":\"list\",\"data\":[{\"object\":"
                                  "\"embedding\",\"index\":0,\"embedding\":[");
    for (size_t i = 0; i < dims; i++) {
        len += (size_t)snprintf(body + len, cap - len, "%s-0.%04zu", i ? "," : "", i);
    }
    len += (size_t)snprintf(body + len, cap - len, "]}]}");
    struct response_reader r;
    response_reader_init(&r, ENDPOINT_EMBEDDINGS, NULL, NULL, 0);
    struct response_chunk c;
    cr_assert_eq(response_parse_event(&r, NULL, NULL, 0, body, len, &c),
                 RESPONSE_PARSE_ERR_TOO_MANY_TOKENS);
    struct response_parse_state st = {.scratch = response_scratch_new(len / 2 + 1)};
    cr_assert_not_null(st.scratch);
    response_parse_state_reset(&st);
    cr_assert_not_null(st.scratch, "reset keeps the scratch");
    cr_assert_eq(response_parse_event(&r, &st, NULL, 0, body, len, &c), RESPONSE_PARSE_OK);
    cr_assert_eq(c.embedding_count, 1);
    response_scratch_free(st.scratch);
    /* A scratch far too small for the body grows until it holds it, and keeps that room. */
    st.scratch = response_scratch_new(64);
    cr_assert_eq(response_parse_event(&r, &st, NULL, 0, body, len, &c), RESPONSE_PARSE_OK);
    cr_assert_eq(c.embedding_count, 1);
    cr_assert_eq(response_parse_event(&r, &st, NULL, 0, body, len, &c), RESPONSE_PARSE_OK);
    /* Growing stops at the most tokens the bytes can hold: a body cut short stays malformed. */
    cr_assert_eq(response_parse_event(&r, &st, NULL, 0, body, len - 2, &c),
                 RESPONSE_PARSE_ERR_MALFORMED);
    response_scratch_free(st.scratch);
    response_scratch_free(NULL);
    cr_assert_null(response_scratch_new(0));
    free(body);
}

Test(endpoint_events, rankings_bodies)
{
    struct response_chunk c;
    cr_assert_eq(parse_t(ENDPOINT_NIM_RANKINGS,
                         "{\"rankings\":[{\"index\":1,\"logit\":0.74},{\"index\":0,\"logit\":"
                         "-2.1}],\"usage\":{\"prompt_tokens\":40,\"total_tokens\":40}}",
                         &c),
                 RESPONSE_PARSE_OK);
    cr_assert_eq(c.ranking_count, 2);
    cr_assert(c.is_content);
    cr_assert_eq(parse_t(ENDPOINT_COHERE_RANKINGS,
                         "{\"id\":\"r1\",\"results\":[{\"index\":3,\"relevance_score\":0.99},"
                         "null,{\"index\":0,\"relevance_score\":0.01}],\"meta\":{"
                         "\"billed_units\":{\"search_units\":1}}}",
                         &c),
                 RESPONSE_PARSE_OK);
    cr_assert_eq(c.ranking_count, 2, "non-object items are skipped");
    cr_assert_eq(parse_t(ENDPOINT_HF_TEI_RANKINGS,
                         "[{\"index\":0,\"score\":0.9},{\"index\":1,\"score\":0.1}]", &c),
                 RESPONSE_PARSE_OK);
    cr_assert_eq(c.ranking_count, 2);
    cr_assert_eq(parse_t(ENDPOINT_HF_TEI_RANKINGS, "{\"results\":[{\"index\":0}]}", &c),
                 RESPONSE_PARSE_OK);
    cr_assert_eq(c.ranking_count, 1);
    cr_assert_eq(parse_t(ENDPOINT_NIM_RANKINGS, "{\"rankings\":[]}", &c), RESPONSE_PARSE_OK);
    cr_assert_not(c.is_content);
    cr_assert_eq(parse_t(ENDPOINT_NIM_RANKINGS, "[{\"index\":0}]", &c),
                 RESPONSE_PARSE_ERR_NOT_OBJECT);
    cr_assert_eq(parse_t(ENDPOINT_COHERE_RANKINGS, "{\"results\":{}}", &c), RESPONSE_PARSE_IGNORED);
}

/* ---- raw ------------------------------------------------------------------------------- */

struct raw_case {
    const char *field;
    const char *body;
    enum response_parse_status status;
    const char *text;
    size_t embeddings;
    size_t rankings;
};

static const struct raw_case RAW[] = {
    {NULL, "plain text answer", RESPONSE_PARSE_OK, "plain text answer", 0, 0},
    {NULL, "{}", RESPONSE_PARSE_OK, "{}", 0, 0},
    {NULL, "{\"data\":[{\"object\":\"embedding\",\"embedding\":[1]}]}", RESPONSE_PARSE_OK, "", 1,
     0},
    {NULL, "{\"embeddings\":[[1],[2]]}", RESPONSE_PARSE_OK, "", 2, 0},
    {NULL, "{\"results\":[{\"i\":0},{\"i\":1},{\"i\":2}]}", RESPONSE_PARSE_OK, "", 0, 3},
    {NULL, "{\"text\":\"a\\\"b\",\"content\":\"no\"}", RESPONSE_PARSE_OK, "a\"b", 0, 0},
    {NULL, "{\"output\":[\"x\",\"y\",\"z\"]}", RESPONSE_PARSE_OK, "xyz", 0, 0},
    {NULL, "{\"output\":[\"x\",1]}", RESPONSE_PARSE_IGNORED, "", 0, 0},
    {NULL, "{\"choices\":[{\"message\":{\"content\":\"chat\"}}]}", RESPONSE_PARSE_OK, "chat", 0, 0},
    {NULL, "{\"choices\":[{\"delta\":{\"content\":\"d\"}}]}", RESPONSE_PARSE_OK, "d", 0, 0},
    {NULL, "\"bare string\"", RESPONSE_PARSE_OK, "bare string", 0, 0},
    {NULL, "[[0.1,0.2],[0.3,0.4]]", RESPONSE_PARSE_OK, "", 2, 0},
    {NULL, "[{\"index\":0,\"score\":1}]", RESPONSE_PARSE_OK, "", 0, 1},
    {NULL, "{\"unknown\":1}", RESPONSE_PARSE_IGNORED, "", 0, 0},
    {"result.answer", "{\"result\":{\"answer\":\"deep\"},\"text\":\"shallow\"}", RESPONSE_PARSE_OK,
     "deep", 0, 0},
    {"outputs[-1].vec", "{\"outputs\":[{\"vec\":[1]},{\"vec\":[2,3]}]}", RESPONSE_PARSE_OK, "", 1,
     0},
    {"missing.path", "{\"text\":\"auto\"}", RESPONSE_PARSE_OK, "auto", 0, 0},
    {"n", "{\"n\":5,\"content\":\"auto\"}", RESPONSE_PARSE_OK, "auto", 0, 0},
    {"[0]", "[\"first\",\"second\"]", RESPONSE_PARSE_OK, "first", 0, 0},
};

/* response_field's projections, slices and pipes, and what each kind of value becomes (AIPerf's
 * convert_to_response_data: a list of strings is nothing). */
static const struct raw_case FIELDS[] = {
    {"choices[*].message.content | [1]",
     "{\"choices\":[{\"message\":{\"content\":\"a\"}},{\"message\":{\"content\":\"b\"}}],"
     "\"text\":\"auto\"}",
     RESPONSE_PARSE_OK, "b", 0, 0},
    {"out[::-1] | [0].t", "{\"out\":[{\"t\":\"x\"},{\"t\":\"y\"}]}", RESPONSE_PARSE_OK, "y", 0, 0},
    {"data[*].embedding", "{\"data\":[{\"embedding\":[1,2]},{\"embedding\":[3,4]},{}]}",
     RESPONSE_PARSE_OK, "", 2, 0},
    {"data[].embedding[]", "{\"data\":[{\"embedding\":[1,2]},{\"embedding\":[3]}]}",
     RESPONSE_PARSE_OK, "", 1, 0},
    {"r.*", "{\"r\":{\"a\":{\"s\":1},\"b\":{\"s\":2}}}", RESPONSE_PARSE_OK, "", 0, 2},
    {"r[1:]", "{\"r\":[{\"s\":1},{\"s\":2},{\"s\":3}]}", RESPONSE_PARSE_OK, "", 0, 2},
};

Test(endpoint_events, response_field_projections_for_raw_and_template)
{
    for (size_t i = 0; i < sizeof(FIELDS) / sizeof(FIELDS[0]); i++) {
        for (int t = 0; t < 2; t++) {
            struct response_reader r;
            cr_assert_eq(response_reader_init(&r, t ? ENDPOINT_TEMPLATE : ENDPOINT_RAW,
                                              FIELDS[i].field, NULL, 0),
                         0);
            struct response_chunk c;
            cr_assert_eq(parse_ev(&r, NULL, NULL, FIELDS[i].body, &c), FIELDS[i].status, "%zu", i);
            cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_CONTENT), FIELDS[i].text, "case %zu", i);
            cr_assert_eq(c.embedding_count, FIELDS[i].embeddings, "case %zu", i);
            cr_assert_eq(c.ranking_count, FIELDS[i].rankings, "case %zu", i);
            response_reader_release(&r);
        }
    }
    /* A miss, or a value AIPerf does not convert (a list of strings): raw falls back to
     * auto-detection, template takes nothing. */
    const char *misses[] = {"missing.path", "choices[*].text"};
    const char *body = "{\"choices\":[{\"text\":\"a\"},{\"text\":\"b\"}]}";
    for (size_t i = 0; i < 2; i++) {
        struct response_reader r;
        struct response_chunk c;
        cr_assert_eq(response_reader_init(&r, ENDPOINT_RAW, misses[i], NULL, 0), 0);
        cr_assert_eq(parse_ev(&r, NULL, NULL, body, &c), RESPONSE_PARSE_OK);
        cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_CONTENT), "a");
        response_reader_release(&r);
        cr_assert_eq(response_reader_init(&r, ENDPOINT_TEMPLATE, misses[i], NULL, 0), 0);
        cr_assert_eq(parse_ev(&r, NULL, NULL, body, &c), RESPONSE_PARSE_IGNORED);
        cr_assert_eq(c.text_count, 0);
        cr_assert(!c.is_content);
        response_reader_release(&r);
    }
}

Test(endpoint_events, raw_response_field_and_auto_detection)
{
    for (size_t i = 0; i < sizeof(RAW) / sizeof(RAW[0]); i++) {
        struct response_reader r;
        cr_assert_eq(response_reader_init(&r, ENDPOINT_RAW, RAW[i].field, NULL, 0), 0);
        struct response_chunk c;
        cr_assert_eq(parse_ev(&r, NULL, NULL, RAW[i].body, &c), RAW[i].status, "case %zu", i);
        cr_assert_str_eq(texts_of(&c, RESPONSE_TEXT_CONTENT), RAW[i].text, "case %zu", i);
        cr_assert_eq(c.embedding_count, RAW[i].embeddings, "case %zu", i);
        cr_assert_eq(c.ranking_count, RAW[i].rankings, "case %zu", i);
        bool content = RAW[i].text[0] || RAW[i].embeddings || RAW[i].rankings;
        cr_assert_eq(c.is_content, content, "case %zu", i);
        response_reader_release(&r);
    }
    struct response_chunk c;
    cr_assert_eq(parse_t(ENDPOINT_RAW, " [DONE] ", &c), RESPONSE_PARSE_DONE);
    cr_assert_eq(parse_t(ENDPOINT_RAW, "{\"error\":{\"message\":\"m\",\"code\":429}}", &c),
                 RESPONSE_PARSE_ERROR);
    cr_assert_eq(c.error_code, 429);
    cr_assert(c.text_count == 0 || c.texts[0].literal);
}

Test(endpoint_events, chat_chunk_fills_texts_and_older_views_alike)
{
    struct response_chunk c;
    cr_assert_eq(parse_t(ENDPOINT_CHAT,
                         "{\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,"
                         "\"delta\":{\"content\":\"a\",\"reasoning_content\":\"b\"}}]}",
                         &c),
                 RESPONSE_PARSE_OK);
    cr_assert_eq(c.text_count, 2);
    cr_assert_eq(c.texts[0].kind, RESPONSE_TEXT_CONTENT);
    cr_assert_eq(c.texts[1].kind, RESPONSE_TEXT_REASONING);
    assert_view(c.content, "a");
    assert_view(c.reasoning, "b");
}

Test(endpoint_events, text_list_is_bounded)
{
    char body[4096];
    size_t len = (size_t)snprintf(body, sizeof(body), "{\"text\":[");
    for (int i = 0; i < RESPONSE_TEXTS_MAX + 5; i++) {
        len += (size_t)snprintf(body + len, sizeof(body) - len, "%s\"t%d\"", i ? "," : "", i);
    }
    snprintf(body + len, sizeof(body) - len, "]}");
    struct response_chunk c;
    cr_assert_eq(parse_t(ENDPOINT_RAW, body, &c), RESPONSE_PARSE_OK);
    cr_assert_eq(c.text_count, RESPONSE_TEXTS_MAX);
    cr_assert(c.texts_truncated);
    cr_assert(c.is_content);
}
