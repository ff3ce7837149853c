#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint/endpoint.h"
#include "payload/payload.h"
#include "tests/support/expect_payload.h"

Test(endpoint_payload, chat_streaming_gets_usage_stream_options)
{
    struct payload_spec spec = {.type = ENDPOINT_CHAT,
                                .model = "Qwen/Qwen3-0.6B",
                                .prompt = "Hello",
                                .max_tokens = 100,
                                .streaming = true};
    expect_payload(&spec,
                   "{\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}],"
                   "\"model\":\"Qwen/Qwen3-0.6B\",\"stream\":true,"
                   "\"max_completion_tokens\":100,\"stream_options\":{\"include_usage\":true}}");
}

/* --per-chunk-usage asks a chat stream for usage on every chunk; it leaves
 * what the extra inputs set alone, and non-streamed or other requests too. */
Test(endpoint_payload, per_chunk_usage_asks_for_continuous_usage_stats)
{
    struct payload_spec spec = {.type = ENDPOINT_CHAT,
                                .model = "m",
                                .prompt = "Hi",
                                .streaming = true,
                                .per_chunk_usage = true};
    expect_payload(&spec, "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"model\":\"m\","
                          "\"stream\":true,\"stream_options\":{\"include_usage\":true,"
                          "\"continuous_usage_stats\":true}}");
    spec.extra_inputs_json = "{\"stream_options\":{\"continuous_usage_stats\":false}}";
    expect_payload(&spec, "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"model\":\"m\","
                          "\"stream\":true,\"stream_options\":{\"continuous_usage_stats\":false,"
                          "\"include_usage\":true}}");
    spec.extra_inputs_json = NULL;
    spec.streaming = false;
    expect_payload(&spec, "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"model\":\"m\","
                          "\"stream\":false}");
}

/* --cache-bust: the marker, set apart by a blank line, at each of its four
 * places; an absent system prompt becomes the marker alone. */
Test(endpoint_payload, cache_bust_marks_the_system_prompt_or_the_first_turn)
{
    struct payload_spec spec = {.type = ENDPOINT_CHAT,
                                .model = "m",
                                .prompt = "P",
                                .system_prompt = "S",
                                .cache_bust = PAYLOAD_CACHE_BUST_FIRST_TURN_PREFIX,
                                .cache_bust_key = 0x123456789abcdefULL};
    expect_payload(&spec, "{\"messages\":[{\"role\":\"system\",\"content\":\"S\"},{\"role\":"
                          "\"user\",\"content\":\"[rid:456789abcdef]\\n\\nP\"}],\"model\":\"m\","
                          "\"stream\":false}");
    spec.cache_bust = PAYLOAD_CACHE_BUST_FIRST_TURN_SUFFIX;
    expect_payload(&spec, "{\"messages\":[{\"role\":\"system\",\"content\":\"S\"},{\"role\":"
                          "\"user\",\"content\":\"P\\n\\n[rid:456789abcdef]\"}],\"model\":\"m\","
                          "\"stream\":false}");
    spec.cache_bust = PAYLOAD_CACHE_BUST_SYSTEM_PREFIX;
    expect_payload(&spec, "{\"messages\":[{\"role\":\"system\",\"content\":\"[rid:456789abcdef]"
                          "\\n\\nS\"},{\"role\":\"user\",\"content\":\"P\"}],\"model\":\"m\","
                          "\"stream\":false}");
    spec.cache_bust = PAYLOAD_CACHE_BUST_SYSTEM_SUFFIX;
    spec.system_prompt = NULL;
    expect_payload(&spec, "{\"messages\":[{\"role\":\"system\",\"content\":\"\\n\\n"
                          "[rid:456789abcdef]\"},{\"role\":\"user\",\"content\":\"P\"}],"
                          "\"model\":\"m\",\"stream\":false}");
    char *text = payload_cache_bust_text(PAYLOAD_CACHE_BUST_FIRST_TURN_PREFIX, 7, "hi");
    cr_assert_str_eq(text, "[rid:000000000007]\n\nhi");
    free(text);
}

Test(endpoint_payload, chat_non_streaming_without_max_tokens)
{
    struct payload_spec spec = {.type = ENDPOINT_CHAT, .model = "m", .prompt = "Hi"};
    expect_payload(&spec, "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"model\":\"m\","
                          "\"stream\":false}");
}

Test(endpoint_payload, chat_legacy_max_tokens)
{
    struct payload_spec spec = {.type = ENDPOINT_CHAT,
                                .model = "m",
                                .prompt = "Hi",
                                .max_tokens = 5,
                                .use_legacy_max_tokens = true};
    expect_payload(&spec, "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"model\":\"m\","
                          "\"stream\":false,\"max_tokens\":5}");
}

Test(endpoint_payload, completions_bare_string_prompt)
{
    struct payload_spec spec = {.type = ENDPOINT_COMPLETIONS,
                                .model = "m",
                                .prompt = "Once upon",
                                .max_tokens = 7,
                                .streaming = true};
    expect_payload(&spec, "{\"prompt\":\"Once upon\",\"model\":\"m\",\"stream\":true,"
                          "\"max_tokens\":7,\"stream_options\":{\"include_usage\":true}}");
    spec.streaming = false;
    spec.max_tokens = 0;
    spec.use_legacy_max_tokens = true; /* no effect on completions */
    expect_payload(&spec, "{\"prompt\":\"Once upon\",\"model\":\"m\",\"stream\":false}");
}

Test(endpoint_payload, extra_inputs_overwrite_in_place_and_append)
{
    struct payload_spec spec = {.type = ENDPOINT_CHAT,
                                .model = "m",
                                .prompt = "Hi",
                                .max_tokens = 9,
                                .extra_inputs_json =
                                    "{\"model\":\"other\",\"temperature\":0.7,\"ignore_eos\":true,"
                                    "\"max_completion_tokens\":3}"};
    expect_payload(&spec, "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],"
                          "\"model\":\"other\",\"stream\":false,\"max_completion_tokens\":3,"
                          "\"temperature\":0.7,\"ignore_eos\":true}");
}

Test(endpoint_payload, merged_stream_decides_stream_options)
{
    struct payload_spec spec = {.type = ENDPOINT_COMPLETIONS,
                                .model = "m",
                                .prompt = "p",
                                .extra_inputs_json = "{\"stream\":true}"};
    expect_payload(&spec, "{\"prompt\":\"p\",\"model\":\"m\",\"stream\":true,"
                          "\"stream_options\":{\"include_usage\":true}}");
    spec.streaming = true;
    spec.extra_inputs_json = "{\"stream\":false}";
    expect_payload(&spec, "{\"prompt\":\"p\",\"model\":\"m\",\"stream\":false}");
}

Test(endpoint_payload, user_stream_options_are_kept)
{
    struct payload_spec spec = {
        .type = ENDPOINT_CHAT, .model = "m", .prompt = "p", .streaming = true};
    const char *base = "{\"messages\":[{\"role\":\"user\",\"content\":\"p\"}],\"model\":\"m\","
                       "\"stream\":true,";
    char want[512];

    spec.extra_inputs_json = "{\"stream_options\":{\"continuous_usage_stats\":true}}";
    snprintf(want, sizeof(want), "%s%s", base,
             "\"stream_options\":{\"continuous_usage_stats\":true,\"include_usage\":true}}");
    expect_payload(&spec, want);

    spec.extra_inputs_json = "{\"stream_options\":{\"include_usage\":false},\"seed\":1}";
    snprintf(want, sizeof(want), "%s%s", base,
             "\"stream_options\":{\"include_usage\":false},\"seed\":1}");
    expect_payload(&spec, want);

    spec.extra_inputs_json = "{\"stream_options\":null,\"seed\":1}";
    snprintf(want, sizeof(want), "%s%s", base,
             "\"stream_options\":{\"include_usage\":true},\"seed\":1}");
    expect_payload(&spec, want);

    spec.extra_inputs_json = "{\"stream_options\":\"odd\"}";
    snprintf(want, sizeof(want), "%s%s", base, "\"stream_options\":\"odd\"}");
    expect_payload(&spec, want);
}

Test(endpoint_payload, prompt_text_is_escaped_and_utf8_kept)
{
    struct payload_spec spec = {
        .type = ENDPOINT_COMPLETIONS, .model = "m", .prompt = "caf\xC3\xA9 \"q\" a/b\\\n\t\x01"};
    expect_payload(&spec, "{\"prompt\":\"caf\xC3\xA9 \\\"q\\\" a/b\\\\\\n\\t\\u0001\","
                          "\"model\":\"m\",\"stream\":false}");
}

Test(endpoint_payload, invalid_specs_give_messages)
{
    struct payload_spec spec = {.type = ENDPOINT_CHAT, .model = "m", .prompt = "p"};
    spec.extra_inputs_json = "[1]";
    expect_payload_error(&spec, "must be a JSON object");
    spec.extra_inputs_json = "{bad";
    expect_payload_error(&spec, "must be a JSON object");
    spec.extra_inputs_json = NULL;
    spec.prompt = "bad \xff utf8";
    expect_payload_error(&spec, "prompt is not valid UTF-8");
    spec.prompt = NULL;
    expect_payload_error(&spec, "needs a prompt");
    spec.prompt = "p";
    spec.max_tokens = UINT64_MAX;
    expect_payload_error(&spec, "too large");
    spec.max_tokens = 0;
    spec.type = (enum endpoint_type)42;
    expect_payload_error(&spec, "unsupported endpoint type");
    cr_assert_null(payload_build(&spec, NULL, 0), "a NULL errbuf is allowed");
}

static void expect_extra(const char *const *items, size_t n, const char *want)
{
    char err[256] = "";
    char *json = NULL;
    cr_assert_eq(payload_extra_inputs_parse(items, n, &json, err, sizeof(err)), 0,
                 "unexpected error: %s", err);
    cr_assert_str_eq(json, want);
    free(json);
}

static void expect_extra_error(const char *item, const char *needle)
{
    char err[320] = "";
    char *json = NULL;
    cr_assert_eq(payload_extra_inputs_parse(&item, 1, &json, err, sizeof(err)), -EINVAL, "item %s",
                 item);
    cr_assert_null(json);
    cr_assert_not_null(strstr(err, needle), "message '%s' lacks '%s'", err, needle);
}

Test(endpoint_extra_inputs, values_are_typed_like_aiperf)
{
    const char *items[] = {"ignore_eos:true",
                           "max_tokens:5",
                           "temperature:0.7",
                           "stop:end",
                           "x:null",
                           "y:None",
                           "z:-3",
                           "w:007",
                           "v:-0",
                           "u:1.",
                           "t:-.5",
                           "s:TRUE",
                           " r : spaced value ",
                           "q:a:b",
                           "p:1.2.3",
                           "o:",
                           "n:-",
                           "m:1e5"};
    expect_extra(items, sizeof(items) / sizeof(items[0]),
                 "{\"ignore_eos\":true,\"max_tokens\":5,\"temperature\":0.7,\"stop\":\"end\","
                 "\"x\":null,\"y\":null,\"z\":-3,\"w\":\"007\",\"v\":0,\"u\":1.0,\"t\":-0.5,"
                 "\"s\":true,\"r\":\"spaced value\",\"q\":\"a:b\",\"p\":\"1.2.3\",\"o\":\"\","
                 "\"n\":\"-\",\"m\":\"1e5\"}");
}

Test(endpoint_extra_inputs, comma_pairs_json_objects_and_overwrites)
{
    const char *items[] = {"a:1,b:2", "n:1", "{\"stop\":[\"x\",\"y\"],\"n\":2}", "n:3"};
    expect_extra(items, 4, "{\"a\":1,\"b\":2,\"n\":3,\"stop\":[\"x\",\"y\"]}");
    expect_extra(NULL, 0, "{}");
}

Test(endpoint_extra_inputs, reals_print_shortest)
{
    const char *items[] = {"a:0.1", "b:123456789.5", "c:100000.0", "d:0.30000000000000004"};
    expect_extra(items, 4,
                 "{\"a\":0.1,\"b\":123456789.5,\"c\":100000.0,"
                 "\"d\":0.30000000000000004}");
}

Test(endpoint_extra_inputs, bad_items_name_the_problem_and_fix)
{
    expect_extra_error("ignore_eos", "'ignore_eos' is not key:value; write e.g. ignore_eos:true");
    expect_extra_error(":5", "has an empty key");
    expect_extra_error("a:1,", "'' is not key:value");
    expect_extra_error("{\"a\":", "is not a valid JSON object");
    expect_extra_error("{\"a\":1} trailing", "is not a valid JSON object");
    expect_extra_error("n:99999999999999999999", "out of range");
    expect_extra_error("s:bad\xff", "not valid UTF-8");
}

Test(endpoint_payload, chat_history_sits_between_system_and_the_new_turn)
{
    /* The second reply is cut inside "é" (0xc3 0xa9): the partial byte goes. */
    const struct payload_message history[] = {
        {.role = "user", .text = "Q1", .len = 2},
        {.role = "assistant", .text = "A1xyz", .len = 2},
        {.role = "user", .text = "Q2", .len = 2},
        {.role = "assistant", .text = "caf\xc3\xa9", .len = 4},
    };
    struct payload_spec spec = {.type = ENDPOINT_CHAT,
                                .model = "m",
                                .prompt = "Q3",
                                .system_prompt = "S",
                                .history = history,
                                .history_count = 4};
    expect_payload(&spec, "{\"messages\":[{\"role\":\"system\",\"content\":\"S\"},"
                          "{\"role\":\"user\",\"content\":\"Q1\"},"
                          "{\"role\":\"assistant\",\"content\":\"A1\"},"
                          "{\"role\":\"user\",\"content\":\"Q2\"},"
                          "{\"role\":\"assistant\",\"content\":\"caf\"},"
                          "{\"role\":\"user\",\"content\":\"Q3\"}],\"model\":\"m\","
                          "\"stream\":false}");
}

Test(endpoint_payload, responses_history_items_are_typed_messages)
{
    const struct payload_message history[] = {
        {.role = "user", .text = "Q1", .len = 2},
        {.role = "assistant", .text = "A1", .len = 2},
    };
    struct payload_spec spec = {.type = ENDPOINT_RESPONSES,
                                .model = "m",
                                .prompt = "Q2",
                                .history = history,
                                .history_count = 2};
    expect_payload(&spec, "{\"input\":[{\"role\":\"user\",\"content\":\"Q1\",\"type\":\"message\"},"
                          "{\"role\":\"assistant\",\"content\":\"A1\",\"type\":\"message\"},"
                          "{\"role\":\"user\",\"content\":\"Q2\",\"type\":\"message\"}],"
                          "\"model\":\"m\",\"stream\":false}");
}

Test(endpoint_payload, history_user_turns_keep_their_media)
{
    const char *const images[] = {"https://x/a.png"};
    const struct payload_media media = {.images = images, .image_count = 1};
    const struct payload_message history[] = {
        {.role = "user", .text = "Q1", .len = 2, .media = &media},
        {.role = "assistant", .text = "A1", .len = 2},
    };
    struct payload_spec spec = {.type = ENDPOINT_CHAT,
                                .model = "m",
                                .prompt = "Q2",
                                .history = history,
                                .history_count = 2};
    expect_payload(&spec, "{\"messages\":[{\"role\":\"user\",\"content\":["
                          "{\"type\":\"text\",\"text\":\"Q1\"},"
                          "{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://x/a.png\"}}]},"
                          "{\"role\":\"assistant\",\"content\":\"A1\"},"
                          "{\"role\":\"user\",\"content\":\"Q2\"}],\"model\":\"m\","
                          "\"stream\":false}");
}
