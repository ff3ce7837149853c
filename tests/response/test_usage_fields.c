/*
 * test_usage_fields.c - the usage detail counts each vendor reports (cache,
 * audio, tool use, predictions), read from every shape the readers accept.
 * Payloads sit right before a PROT_NONE page so that an over-read crashes.
 */
#include <criterion/criterion.h>

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

static enum response_parse_status parse(enum endpoint_type t, const char *event, const char *json,
                                        struct response_chunk *out)
{
    struct response_reader r;
    response_reader_init(&r, t, NULL, NULL, 0);
    size_t len = strlen(json);
    return response_parse_event(&r, NULL, event, event ? strlen(event) : 0, guarded(json, len), len,
                                out);
}

static void assert_none_of_the_details(const struct response_chunk *c)
{
    cr_assert_eq(c->usage.prompt_cache_read_tokens, RECORD_ABSENT);
    cr_assert_eq(c->usage.prompt_cache_write_tokens, RECORD_ABSENT);
    cr_assert_eq(c->usage.prompt_cache_miss_tokens, RECORD_ABSENT);
    cr_assert_eq(c->usage.prompt_audio_tokens, RECORD_ABSENT);
    cr_assert_eq(c->usage.completion_audio_tokens, RECORD_ABSENT);
    cr_assert_eq(c->usage.tool_use_prompt_tokens, RECORD_ABSENT);
    cr_assert_eq(c->usage.accepted_prediction_tokens, RECORD_ABSENT);
    cr_assert_eq(c->usage.rejected_prediction_tokens, RECORD_ABSENT);
    cr_assert_eq(c->usage.prompt_audio_seconds, RECORD_ABSENT);
}

Test(endpoint_usage, openai_details_are_read)
{
    struct response_chunk c;
    const char *json =
        "{\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":100,"
        "\"completion_tokens\":40,\"total_tokens\":140,\"prompt_tokens_details\":{"
        "\"cached_tokens\":64,\"audio_tokens\":7},\"completion_tokens_details\":{"
        "\"reasoning_tokens\":10,\"audio_tokens\":3,\"accepted_prediction_tokens\":5,"
        "\"rejected_prediction_tokens\":2}}}";
    cr_assert_eq(parse(ENDPOINT_CHAT, NULL, json, &c), RESPONSE_PARSE_OK);
    cr_assert_neq(c.usage.prompt_cache_read_tokens, RECORD_ABSENT);
    cr_assert_eq(c.usage.prompt_cache_read_tokens, 64);
    cr_assert_neq(c.usage.prompt_audio_tokens, RECORD_ABSENT);
    cr_assert_eq(c.usage.prompt_audio_tokens, 7);
    cr_assert_neq(c.usage.reasoning_tokens, RECORD_ABSENT);
    cr_assert_eq(c.usage.reasoning_tokens, 10);
    cr_assert_neq(c.usage.completion_audio_tokens, RECORD_ABSENT);
    cr_assert_eq(c.usage.completion_audio_tokens, 3);
    cr_assert_neq(c.usage.accepted_prediction_tokens, RECORD_ABSENT);
    cr_assert_eq(c.usage.accepted_prediction_tokens, 5);
    cr_assert_neq(c.usage.rejected_prediction_tokens, RECORD_ABSENT);
    cr_assert_eq(c.usage.rejected_prediction_tokens, 2);
    cr_assert_eq(c.usage.prompt_cache_write_tokens, RECORD_ABSENT);
    cr_assert_eq(c.usage.prompt_cache_miss_tokens, RECORD_ABSENT);
    cr_assert_eq(c.usage.prompt_audio_seconds, RECORD_ABSENT);
}

Test(endpoint_usage, vllm_null_details_are_no_details)
{
    struct response_chunk c;
    const char *json = "{\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{"
                       "\"content\":\"hi\"}}],\"usage\":{\"prompt_tokens\":3,"
                       "\"completion_tokens\":1,\"prompt_tokens_details\":null,"
                       "\"completion_tokens_details\":null}}";
    cr_assert_eq(parse(ENDPOINT_CHAT, NULL, json, &c), RESPONSE_PARSE_OK);
    cr_assert(c.usage.present && (c.usage.prompt_tokens != RECORD_ABSENT));
    assert_none_of_the_details(&c);
}

Test(endpoint_usage, anthropic_cache_fields_in_message_start)
{
    struct response_chunk c;
    const char *json = "{\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"type\":\"message\","
                       "\"role\":\"assistant\",\"content\":[],\"usage\":{\"input_tokens\":20,"
                       "\"cache_creation_input_tokens\":100,\"cache_read_input_tokens\":300,"
                       "\"output_tokens\":1}}}";
    cr_assert_eq(parse(ENDPOINT_MESSAGES, "message_start", json, &c), RESPONSE_PARSE_OK);
    cr_assert_neq(c.usage.prompt_tokens, RECORD_ABSENT);
    cr_assert_eq(c.usage.prompt_tokens, 20);
    cr_assert_neq(c.usage.prompt_cache_read_tokens, RECORD_ABSENT);
    cr_assert_eq(c.usage.prompt_cache_read_tokens, 300);
    cr_assert_neq(c.usage.prompt_cache_write_tokens, RECORD_ABSENT);
    cr_assert_eq(c.usage.prompt_cache_write_tokens, 100);
}

Test(endpoint_usage, responses_input_tokens_details)
{
    struct response_chunk c;
    const char *json = "{\"type\":\"response.completed\",\"response\":{\"id\":\"r\","
                       "\"object\":\"response\",\"status\":\"completed\",\"output\":[],"
                       "\"usage\":{\"input_tokens\":50,\"input_tokens_details\":{"
                       "\"cached_tokens\":25},\"output_tokens\":4,\"total_tokens\":54}}}";
    cr_assert_eq(parse(ENDPOINT_RESPONSES, "response.completed", json, &c), RESPONSE_PARSE_OK);
    cr_assert_neq(c.usage.prompt_cache_read_tokens, RECORD_ABSENT);
    cr_assert_eq(c.usage.prompt_cache_read_tokens, 25);
}

Test(endpoint_usage, other_vendor_names)
{
    struct response_chunk c;
    /* DeepSeek's hit/miss pair, Bedrock's camelCase write, Gemini's tool use,
     * Mistral's audio seconds (a fraction). */
    const char *json = "{\"object\":\"chat.completion\",\"choices\":[],\"usage\":{"
                       "\"prompt_tokens\":90,\"prompt_cache_hit_tokens\":60,"
                       "\"prompt_cache_miss_tokens\":30,\"cacheWriteInputTokens\":8,"
                       "\"toolUsePromptTokenCount\":12,\"prompt_audio_seconds\":2.5}}";
    cr_assert_eq(parse(ENDPOINT_CHAT, NULL, json, &c), RESPONSE_PARSE_OK);
    cr_assert_neq(c.usage.prompt_cache_read_tokens, RECORD_ABSENT);
    cr_assert_eq(c.usage.prompt_cache_read_tokens, 60);
    cr_assert_neq(c.usage.prompt_cache_miss_tokens, RECORD_ABSENT);
    cr_assert_eq(c.usage.prompt_cache_miss_tokens, 30);
    cr_assert_neq(c.usage.prompt_cache_write_tokens, RECORD_ABSENT);
    cr_assert_eq(c.usage.prompt_cache_write_tokens, 8);
    cr_assert_neq(c.usage.tool_use_prompt_tokens, RECORD_ABSENT);
    cr_assert_eq(c.usage.tool_use_prompt_tokens, 12);
    cr_assert_neq(c.usage.prompt_audio_seconds, RECORD_ABSENT);
    cr_assert_float_eq(c.usage.prompt_audio_seconds, 2.5, 1e-12);
    json = "{\"object\":\"chat.completion\",\"choices\":[],\"usage\":{\"cacheReadInputTokens\":9,"
           "\"prompt_audio_seconds\":3}}";
    cr_assert_eq(parse(ENDPOINT_CHAT, NULL, json, &c), RESPONSE_PARSE_OK);
    cr_assert_eq(c.usage.prompt_cache_read_tokens, 9);
    cr_assert_float_eq(c.usage.prompt_audio_seconds, 3.0, 1e-12);
}

Test(endpoint_usage, openai_name_wins_over_vendor_synonyms)
{
    struct response_chunk c;
    const char *json = "{\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{"
                       "\"prompt_tokens_details\":{\"cached_tokens\":5},"
                       "\"cache_read_input_tokens\":6,\"prompt_cache_hit_tokens\":7}}";
    cr_assert_eq(parse(ENDPOINT_CHAT, NULL, json, &c), RESPONSE_PARSE_OK);
    cr_assert_eq(c.usage.prompt_cache_read_tokens, 5);
}

Test(endpoint_usage, invalid_values_are_not_reported)
{
    struct response_chunk c;
    const char *json =
        "{\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{\"prompt_tokens\":1,"
        "\"prompt_tokens_details\":{\"cached_tokens\":-4,\"audio_tokens\":\"7\"},"
        "\"completion_tokens_details\":[1,2],\"cache_creation_input_tokens\":1.5,"
        "\"prompt_cache_miss_tokens\":true,\"toolUsePromptTokenCount\":null,"
        "\"prompt_audio_seconds\":-1}}";
    cr_assert_eq(parse(ENDPOINT_CHAT, NULL, json, &c), RESPONSE_PARSE_OK);
    cr_assert(c.usage.present);
    assert_none_of_the_details(&c);
    json = "{\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{"
           "\"prompt_audio_seconds\":\"2\"}}";
    cr_assert_eq(parse(ENDPOINT_CHAT, NULL, json, &c), RESPONSE_PARSE_OK);
    cr_assert_eq(c.usage.prompt_audio_seconds, RECORD_ABSENT);
    json = "{\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{"
           "\"prompt_audio_seconds\":1e400}}";
    cr_assert_eq(parse(ENDPOINT_CHAT, NULL, json, &c), RESPONSE_PARSE_OK);
    cr_assert_eq(c.usage.prompt_audio_seconds, RECORD_ABSENT, "out of range is not a duration");
}
