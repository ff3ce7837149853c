#include <criterion/criterion.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint/endpoint.h"
#include "payload/payload.h"
#include "tests/support/expect_payload.h"

static const char *const TEXTS[] = {"alpha beta", "", "gamma"};
static const char *const PASSAGES[] = {"p one", "p two"};

struct payload_case {
    struct payload_spec spec;
    const char *want;
};

static const struct payload_case CASES[] = {
    {{.type = ENDPOINT_CHAT,
      .model = "m",
      .prompt = "hi",
      .system_prompt = "be brief",
      .max_tokens = 5,
      .streaming = true},
     "{\"messages\":[{\"role\":\"system\",\"content\":\"be brief\"},{\"role\":\"user\","
     "\"content\":\"hi\"}],\"model\":\"m\",\"stream\":true,\"max_completion_tokens\":5,"
     "\"stream_options\":{\"include_usage\":true}}"},
    {{.type = ENDPOINT_CHAT_EMBEDDINGS, .model = "m", .prompt = "hi", .streaming = true},
     "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"model\":\"m\",\"stream\":false}"},
    {{.type = ENDPOINT_COMPLETIONS, .model = "m", .prompt = "hi", .system_prompt = "ignored"},
     "{\"prompt\":\"hi\",\"model\":\"m\",\"stream\":false}"},
    {{.type = ENDPOINT_RESPONSES,
      .model = "Qwen/Qwen3-0.6B",
      .prompt = "Hello",
      .system_prompt = "sys",
      .max_tokens = 200,
      .streaming = true},
     "{\"input\":[{\"role\":\"user\",\"content\":\"Hello\",\"type\":\"message\"}],"
     "\"model\":\"Qwen/Qwen3-0.6B\",\"stream\":true,\"instructions\":\"sys\","
     "\"max_output_tokens\":200}"},
    {{.type = ENDPOINT_RESPONSES,
      .model = "m",
      .prompt = "Hello",
      .streaming = true,
      .use_server_token_count = true,
      .extra_inputs_json = "{\"stream_options\":7}"},
     "{\"input\":[{\"role\":\"user\",\"content\":\"Hello\",\"type\":\"message\"}],\"model\":\"m\","
     "\"stream\":true,\"stream_options\":{\"include_usage\":true}}"},
    {{.type = ENDPOINT_RESPONSES, .model = "m", .prompt = "Hello", .use_server_token_count = true},
     "{\"input\":[{\"role\":\"user\",\"content\":\"Hello\",\"type\":\"message\"}],\"model\":\"m\","
     "\"stream\":false}"},
    {{.type = ENDPOINT_MESSAGES,
      .model = "claude",
      .prompt = "Hello",
      .system_prompt = "sys",
      .streaming = true},
     "{\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}],\"model\":\"claude\","
     "\"max_tokens\":1024,\"stream\":true,\"system\":\"sys\"}"},
    {{.type = ENDPOINT_MESSAGES, .model = "claude", .prompt = "Hello", .max_tokens = 64},
     "{\"messages\":[{\"role\":\"user\",\"content\":\"Hello\"}],\"model\":\"claude\","
     "\"max_tokens\":64}"},
    {{.type = ENDPOINT_EMBEDDINGS,
      .model = "e5",
      .texts = TEXTS,
      .text_count = 3,
      .max_tokens = 9,
      .streaming = true},
     "{\"model\":\"e5\",\"input\":[\"alpha beta\",\"gamma\"]}"},
    {{.type = ENDPOINT_NIM_EMBEDDINGS,
      .model = "e5",
      .prompt = "one",
      .extra_inputs_json = "{\"input_type\":\"query\"}"},
     "{\"model\":\"e5\",\"input\":[\"one\"],\"input_type\":\"query\"}"},
    {{.type = ENDPOINT_NIM_RANKINGS,
      .model = "r",
      .query = "q?",
      .passages = PASSAGES,
      .passage_count = 2},
     "{\"model\":\"r\",\"query\":{\"text\":\"q?\"},\"passages\":[{\"text\":\"p one\"},"
     "{\"text\":\"p two\"}]}"},
    {{.type = ENDPOINT_COHERE_RANKINGS,
      .model = "r",
      .query = "q?",
      .passages = PASSAGES,
      .passage_count = 2},
     "{\"model\":\"r\",\"query\":\"q?\",\"documents\":[\"p one\",\"p two\"]}"},
    {{.type = ENDPOINT_HF_TEI_RANKINGS, .query = "q?", .passages = PASSAGES, .passage_count = 2},
     "{\"query\":\"q?\",\"texts\":[\"p one\",\"p two\"]}"},
    {{.type = ENDPOINT_HF_TEI_RANKINGS, .query = "q?"}, "{\"query\":\"q?\",\"texts\":[]}"},
    {{.type = ENDPOINT_HUGGINGFACE_GENERATE,
      .texts = TEXTS,
      .text_count = 3,
      .max_tokens = 20,
      .streaming = true,
      .extra_inputs_json = "{\"temperature\":0.7}"},
     "{\"inputs\":\"alpha beta gamma\",\"parameters\":{\"max_new_tokens\":20,"
     "\"temperature\":0.7}}"},
    {{.type = ENDPOINT_HUGGINGFACE_GENERATE, .prompt = "x"},
     "{\"inputs\":\"x\",\"parameters\":{}}"},
    {{.type = ENDPOINT_RAW,
      .raw_payload = "{\"messages\": [], \"x\": 1}",
      .extra_inputs_json = "{\"y\":2}"},
     "{\"messages\": [], \"x\": 1}"},
    {{.type = ENDPOINT_CHAT, .model = "m", .prompt = "p", .raw_payload = "not even json"},
     "not even json"},
    {{.type = ENDPOINT_IMAGE_GENERATION,
      .model = "flux",
      .prompt = "a cat",
      .max_tokens = 9,
      .streaming = true,
      .extra_inputs_json = "{\"size\":\"512x512\",\"n\":2}"},
     "{\"prompt\":\"a cat\",\"model\":\"flux\",\"response_format\":\"b64_json\",\"n\":2,"
     "\"stream\":true,\"size\":\"512x512\"}"},
    {{.type = ENDPOINT_IMAGE_GENERATION, .model = "flux", .prompt = "a cat"},
     "{\"prompt\":\"a cat\",\"model\":\"flux\",\"response_format\":\"b64_json\",\"n\":1}"},
    {{.type = ENDPOINT_SOLIDO_RAG,
      .model = "m",
      .prompt = "ignored with texts",
      .texts = TEXTS,
      .text_count = 3,
      .streaming = true,
      .extra_inputs_json = "{\"filters\":{\"family\":\"X\"}}"},
     "{\"query\":[\"alpha beta\",\"gamma\"],\"filters\":{\"family\":\"X\"},"
     "\"inference_model\":\"m\"}"},
    {{.type = ENDPOINT_SOLIDO_RAG, .model = "m", .prompt = "q"},
     "{\"query\":[\"q\"],\"filters\":{\"family\":\"Solido\",\"tool\":\"SDE\"},"
     "\"inference_model\":\"m\"}"},
};

Test(endpoint_payload_types, every_type_builds_its_documented_shape)
{
    for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
        expect_payload(&CASES[i].spec, CASES[i].want);
    }
}

Test(endpoint_payload_types, missing_inputs_are_named)
{
    struct payload_spec spec = {.type = ENDPOINT_NIM_RANKINGS, .model = "m"};
    expect_payload_error(&spec, "needs a query");
    spec.type = ENDPOINT_EMBEDDINGS;
    expect_payload_error(&spec, "needs a prompt or texts");
    spec.type = ENDPOINT_RESPONSES;
    spec.prompt = "p";
    spec.model = NULL;
    expect_payload_error(&spec, "responses request payload needs a model");
    spec.type = ENDPOINT_RAW;
    expect_payload_error(&spec, "raw payload");
    spec.type = ENDPOINT_COHERE_RANKINGS;
    spec.model = "m";
    spec.query = "q";
    spec.passage_count = 3;
    expect_payload_error(&spec, "passages is NULL");
    spec.passage_count = 0;
    spec.query = "bad \xff";
    expect_payload_error(&spec, "query is not valid UTF-8");
    spec.type = ENDPOINT_MESSAGES;
    spec.system_prompt = "\xfe";
    expect_payload_error(&spec, "system prompt is not valid UTF-8");
    spec = (struct payload_spec){.type = ENDPOINT_IMAGE_GENERATION, .prompt = "p"};
    expect_payload_error(&spec, "image_generation request payload needs a model");
    spec = (struct payload_spec){.type = ENDPOINT_SOLIDO_RAG, .model = "m"};
    expect_payload_error(&spec, "solido_rag request payload needs a prompt or texts");
    spec = (struct payload_spec){.type = ENDPOINT_IMAGE_RETRIEVAL, .model = "m"};
    expect_payload_error(&spec, "needs at least one image: give --image-width-mean");
}

Test(endpoint_payload_types, extra_inputs_override_base_fields_in_place)
{
    struct payload_spec spec = {.type = ENDPOINT_MESSAGES,
                                .model = "m",
                                .prompt = "p",
                                .extra_inputs_json = "{\"max_tokens\":7,\"top_k\":3}"};
    expect_payload(&spec, "{\"messages\":[{\"role\":\"user\",\"content\":\"p\"}],\"model\":\"m\","
                          "\"max_tokens\":7,\"top_k\":3}");
}

Test(endpoint_payload_types, take_string_splits_response_field_off)
{
    char *value = NULL;
    char *rest = NULL;
    cr_assert_eq(
        payload_extra_inputs_take_string("{\"a\":1,\"response_field\":\"output.text\",\"b\":true}",
                                         "response_field", &value, &rest),
        0);
    cr_assert_str_eq(value, "output.text");
    cr_assert_str_eq(rest, "{\"a\":1,\"b\":true}");
    free(value);
    free(rest);
    cr_assert_eq(
        payload_extra_inputs_take_string("{\"response_field\":3}", "response_field", &value, &rest),
        0);
    cr_assert_null(value);
    cr_assert_str_eq(rest, "{\"response_field\":3}");
    free(rest);
    cr_assert_eq(payload_extra_inputs_take_string("[1]", "k", &value, &rest), -EINVAL);
    cr_assert_eq(payload_extra_inputs_take_string(NULL, "k", &value, &rest), -EINVAL);
}

/* sglang_generate: AIPerf's key order, the extra inputs first, their sampling_params merged
 * after ignore_eos and before max_new_tokens, priority last; no text, no model. */
Test(endpoint_payload_types, sglang_generate_sends_input_ids)
{
    static const uint32_t ids[] = {1, 2, 4};
    struct payload_spec spec = {
        .type = ENDPOINT_SGLANG_GENERATE,
        .prompt = "ignored",
        .max_tokens = 7,
        .streaming = true,
        .token_ids = ids,
        .token_id_count = 3,
        .extra_inputs_json =
            "{\"return_logprob\":true,\"priority\":192,\"sampling_params\":{\"temperature\":0.2,"
            "\"max_new_tokens\":99}}",
    };
    expect_payload(&spec, "{\"return_logprob\":true,\"input_ids\":[1,2,4],\"sampling_params\":"
                          "{\"ignore_eos\":true,\"temperature\":0.2,\"max_new_tokens\":7},"
                          "\"stream\":true,\"priority\":192}");
    spec.extra_inputs_json = NULL;
    spec.max_tokens = 0;
    expect_payload(&spec, "{\"input_ids\":[1,2,4],\"sampling_params\":{\"ignore_eos\":true},"
                          "\"stream\":true}");
    spec.extra_inputs_json = "{\"sampling_params\":3}";
    expect_payload_error(&spec, "sampling_params must be a JSON object");
    spec.extra_inputs_json = NULL;
    spec.token_id_count = 0;
    expect_payload_error(&spec, "sglang_generate request needs the prompt as token ids");
}

/* vllm_generate: model, token_ids, sampling_params (max_tokens unless given), stream false,
 * then the extra inputs; streaming through them is refused. */
Test(endpoint_payload_types, vllm_generate_sends_token_ids)
{
    static const uint32_t ids[] = {10, 11};
    struct payload_spec spec = {
        .type = ENDPOINT_VLLM_GENERATE,
        .model = "m",
        .max_tokens = 17,
        .token_ids = ids,
        .token_id_count = 2,
        .extra_inputs_json = "{\"sampling_params\":{\"temperature\":0},\"priority\":1}",
    };
    expect_payload(&spec, "{\"model\":\"m\",\"token_ids\":[10,11],\"sampling_params\":"
                          "{\"temperature\":0,\"max_tokens\":17},\"stream\":false,\"priority\":1}");
    spec.extra_inputs_json = "{\"sampling_params\":{\"max_tokens\":3}}";
    expect_payload(&spec, "{\"model\":\"m\",\"token_ids\":[10,11],\"sampling_params\":"
                          "{\"max_tokens\":3},\"stream\":false}");
    spec.extra_inputs_json = "{\"stream\":true}";
    expect_payload_error(&spec, "vllm_generate does not stream");
    spec.extra_inputs_json = NULL;
    spec.model = NULL;
    expect_payload_error(&spec, "needs a UTF-8 model name");
}
