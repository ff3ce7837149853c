/*
 * `ringperf profile` with the endpoint types that are not LLM, embeddings or rankings APIs
 * (image_generation, image_retrieval, solido_rag, the multipart image_edit and
 * audio_transcription, and the token-id sglang_generate and vllm_generate), against the mock
 * server's routes: the bodies
 * sent (inputs.json), the records, the summary's metrics and the console's title.
 */
#include <criterion/criterion.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

/* endpoint_case is one run and what its exports must hold. */
struct endpoint_case {
    const char *flags;    /* after --endpoint-type */
    const char *title;    /* the console table's title */
    const char *body_key; /* a key every request body has */
    const char *has[3];   /* summary metrics present, NULL-terminated */
    const char *lacks[3]; /* summary metrics absent, NULL-terminated */
};

static const struct endpoint_case CASES[] = {
    {"image_generation --streaming --extra-inputs size:256x256",
     "ringperf | Image Generation Metrics",
     "response_format",
     {"request_latency", "request_throughput"},
     {"time_to_first_token", "inter_token_latency"}},
    {"image_generation",
     "ringperf | Image Generation Metrics",
     "prompt",
     {"request_latency"},
     {"time_to_first_token"}},
    {"image_retrieval --image-width-mean 16 --image-height-mean 16 --image-batch-size 2",
     "ringperf | Image Retrieval Metrics",
     "input",
     {"request_latency"},
     {"input_sequence_length", "time_to_first_token"}},
    {"solido_rag --streaming --tokenizer " RINGPERF_TOKENIZER_QWEN3,
     "ringperf | SOLIDO RAG Metrics",
     "inference_model",
     {"time_to_first_token", "output_sequence_length", "input_sequence_length"},
     {NULL}},
    {"solido_rag",
     "ringperf | SOLIDO RAG Metrics",
     "filters",
     {"request_latency"},
     {"time_to_first_token"}},
};

/* check_summary requires the present and absent metrics of k in profile_export_aiperf.json. */
static void check_summary(const struct e2e *w, const struct endpoint_case *k)
{
    json_t *root = e2e_load_json(w, "profile_export_aiperf.json");
    for (size_t i = 0; i < 3 && k->has[i] != NULL; i++) {
        cr_assert_not_null(json_object_get(root, k->has[i]), "%s: no %s", k->flags, k->has[i]);
    }
    for (size_t i = 0; i < 3 && k->lacks[i] != NULL; i++) {
        cr_assert_null(json_object_get(root, k->lacks[i]), "%s: has %s", k->flags, k->lacks[i]);
    }
    json_decref(root);
}

/* first_body returns the first request body of inputs.json (a new reference). */
static json_t *first_body(const struct e2e *w)
{
    json_t *inputs = e2e_load_json(w, "inputs.json");
    json_t *session = json_array_get(json_object_get(inputs, "data"), 0);
    json_t *body = json_array_get(json_object_get(session, "payloads"), 0);
    cr_assert(json_is_object(body), "inputs.json holds no request body");
    json_incref(body);
    json_decref(inputs);
    return body;
}

Test(endpoints_e2e, service_endpoint_types_run_end_to_end, .timeout = 300)
{
    struct e2e w;
    e2e_start(&w, NULL);
    for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
        const struct endpoint_case *k = &CASES[i];
        char words[512];
        snprintf(words, sizeof(words),
                 "profile -m flux -u URL --endpoint-type %s --concurrency 2 --request-count 6 "
                 "--isl 12 --artifact-dir DIR",
                 k->flags);
        char *out = NULL;
        int status = run_ringperf(&w, words, true, &out);
        cr_assert_eq(status, 0, "%s\n%s", words, out);
        cr_assert_not_null(strstr(out, k->title), "%s: no title [%s]\n%s", words, k->title, out);
        free(out);
        size_t errors = 0;
        cr_assert_eq(count_export_lines(&w, &errors), 6, "%s", words);
        cr_assert_eq(errors, 0, "%s", words);
        check_summary(&w, k);
        json_t *body = first_body(&w);
        cr_assert_not_null(json_object_get(body, k->body_key), "%s: body lacks %s", words,
                           k->body_key);
        json_decref(body);
    }
    e2e_finish(&w);
}

/* The bodies follow AIPerf's format_payload: image generation asks for one base64 image (and
 * streams when asked), image retrieval sends the images alone, SOLIDO RAG its query list. */
Test(endpoints_e2e, request_bodies_have_aiperf_shapes, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_run_ok(&w, "profile -m flux -u URL --endpoint-type image_generation --streaming "
                   "--request-count 2 --artifact-dir DIR");
    json_t *body = first_body(&w);
    cr_assert_str_eq(json_string_value(json_object_get(body, "response_format")), "b64_json");
    cr_assert_eq(json_integer_value(json_object_get(body, "n")), 1);
    cr_assert(json_is_true(json_object_get(body, "stream")));
    cr_assert_str_eq(json_string_value(json_object_get(body, "model")), "flux");
    json_decref(body);
    e2e_run_ok(&w, "profile -m nim -u URL --endpoint-type image_retrieval --image-width-mean 8 "
                   "--image-height-mean 8 --image-batch-size 3 --request-count 2 "
                   "--artifact-dir DIR");
    body = first_body(&w);
    json_t *input = json_object_get(body, "input");
    cr_assert_eq(json_array_size(input), 3);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(input, 2), "type")),
                     "image_url");
    cr_assert_eq(strncmp(json_string_value(json_object_get(json_array_get(input, 0), "url")),
                         "data:image/", 11),
                 0);
    cr_assert_null(json_object_get(body, "model"));
    json_decref(body);
    e2e_run_ok(&w, "profile -m rag -u URL --endpoint-type solido_rag --request-count 2 "
                   "--artifact-dir DIR");
    body = first_body(&w);
    cr_assert_eq(json_array_size(json_object_get(body, "query")), 1);
    cr_assert_str_eq(json_string_value(json_object_get(body, "inference_model")), "rag");
    cr_assert_str_eq(json_string_value(json_object_get(json_object_get(body, "filters"), "family")),
                     "Solido");
    json_decref(body);
    e2e_finish(&w);
}

/* Endpoint types ringperf does not run stop the run at once, and the README names each with its
 * reason. */
Test(endpoints_e2e, unsupported_types_are_refused_with_the_reason, .timeout = 60)
{
    /* Registered in the newest AIPerf's sources only, as older names of types above or not
     * at all here: not --endpoint-type values. */
    static const char *const types[] = {"cohere_embeddings", "hf_tei_reranker"};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        char words[256];
        snprintf(words, sizeof(words),
                 "profile -m m -u http://127.0.0.1:9 --endpoint-type %s --request-count 1",
                 types[i]);
        char *out = NULL;
        int status = run_ringperf(NULL, words, true, &out);
        cr_assert_eq(status, 1, "%s", words);
        cr_assert_not_null(strstr(out, "--endpoint-type: unknown value"), "%s\n%s", words, out);
        free(out);
        /* Listed, with its reason, in the README's section on what does not work yet. */
        char *readme = test_read_path(RINGPERF_README);
        cr_assert_not_null(readme);
        char *section = strstr(readme, "## What works, and what does not yet");
        char *end = section != NULL ? strstr(section + 2, "\n## ") : NULL;
        cr_assert_not_null(end);
        *end = '\0';
        char quoted[64];
        snprintf(quoted, sizeof(quoted), "`%s`", types[i]);
        cr_assert_not_null(strstr(strstr(section, "The types below are refused"), quoted),
                           "README lists %s", types[i]);
        free(readme);
    }
}

/* A transcription's audio_duration is the length of the clip sent (its WAV header), the mock
 * read the whole multipart body (it answers 400 otherwise), and rtfx = duration / latency. */
Test(endpoints_e2e, transcription_reports_the_audio_length_and_rtfx, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_run_ok(&w, "profile -m whisper -u URL --endpoint-type audio_transcription "
                   "--audio-length-mean 2 --audio-sample-rates 16 --request-count 3 "
                   "--artifact-dir DIR");
    char *text = e2e_read_text(&w, "profile_export.jsonl");
    char *cursor = text;
    size_t lines = 0;
    for (char *line = test_next_line(&cursor); line != NULL; line = test_next_line(&cursor)) {
        json_t *rec = json_loads(line, 0, NULL);
        json_t *m = json_object_get(rec, "metrics");
        double duration =
            json_number_value(json_object_get(json_object_get(m, "audio_duration"), "value"));
        double latency_ms =
            json_number_value(json_object_get(json_object_get(m, "request_latency"), "value"));
        double rtfx = json_number_value(json_object_get(json_object_get(m, "rtfx"), "value"));
        cr_assert_float_eq(duration, 2.0, 1e-9);
        cr_assert_float_eq(rtfx, 2.0 / (latency_ms / 1000.0), rtfx * 1e-6);
        json_decref(rec);
        lines++;
    }
    free(text);
    cr_assert_eq(lines, 3);
    json_t *body = first_body(&w);
    json_t *file = json_object_get(body, "file");
    cr_assert_str_eq(json_string_value(json_object_get(file, "filename")), "audio.wav");
    /* 2 s of 16-bit mono at 16 kHz, and the 44-byte header. */
    cr_assert_eq(json_integer_value(json_object_get(file, "bytes")), 64044);
    json_decref(body);
    e2e_finish(&w);
}

/* record_value returns a record's value of `metric`, or -1 when it has none. */
static double record_value(json_t *rec, const char *metric)
{
    json_t *m = json_object_get(json_object_get(rec, "metrics"), metric);
    return m != NULL ? json_number_value(json_object_get(m, "value")) : -1;
}

/* check_token_records requires every record of the run to have `osl` output tokens (the ids the
 * mock sent) and `isl` input tokens (-1: none, AIPerf's tokenizes_input false), and a TTFT only
 * when `streamed`. */
static void check_token_records(const struct e2e *w, double isl, double osl, bool streamed)
{
    char *text = e2e_read_text(w, "profile_export.jsonl");
    char *cursor = text;
    size_t lines = 0;
    for (char *line = test_next_line(&cursor); line != NULL; line = test_next_line(&cursor)) {
        json_t *rec = json_loads(line, 0, NULL);
        json_t *error = json_object_get(rec, "error");
        cr_assert(error == NULL || json_is_null(error), "%s", line);
        cr_assert_float_eq(record_value(rec, "output_sequence_length"), osl, 1e-9, "%s", line);
        cr_assert_float_eq(record_value(rec, "input_sequence_length"), isl, 1e-9, "%s", line);
        cr_assert_eq(record_value(rec, "time_to_first_token") >= 0, streamed, "%s", line);
        json_decref(rec);
        lines++;
    }
    cr_assert_eq(lines, 6);
    free(text);
}

/* sglang_generate streams SGLang's native /generate and vllm_generate posts vLLM's
 * /inference/v1/generate: the prompt goes as the tokenizer's ids (as many as --isl), the
 * output is counted in the ids that come back (as many as --osl asked), the title is AIPerf's
 * "LLM Metrics". */
Test(endpoints_e2e, token_id_types_run_end_to_end, .timeout = 180)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m q -u URL --endpoint-type sglang_generate --streaming "
                              "--tokenizer " RINGPERF_TOKENIZER_QWEN3 " --isl 20 --osl 8 "
                              "--concurrency 2 --request-count 6 --artifact-dir DIR",
                              true, &out);
    cr_assert_eq(status, 0, "%s", out);
    cr_assert_not_null(strstr(out, "ringperf | LLM Metrics"), "%s", out);
    free(out);
    check_token_records(&w, 20, 8, true);
    json_t *body = first_body(&w);
    cr_assert_eq(json_array_size(json_object_get(body, "input_ids")), 20);
    cr_assert(json_is_true(json_object_get(body, "stream")));
    cr_assert_eq(json_integer_value(
                     json_object_get(json_object_get(body, "sampling_params"), "max_new_tokens")),
                 8);
    cr_assert_null(json_object_get(body, "model"));
    json_decref(body);
    e2e_run_ok(
        &w,
        "profile -m q -u URL --endpoint-type vllm_generate --tokenizer " RINGPERF_TOKENIZER_QWEN3
        " --isl 20 --osl 8 --concurrency 2 --request-count 6 "
        "--extra-inputs {\"sampling_params\":{\"temperature\":0}} --artifact-dir DIR");
    check_token_records(&w, -1, 8, false);
    body = first_body(&w);
    cr_assert_eq(json_array_size(json_object_get(body, "token_ids")), 20);
    cr_assert(json_is_false(json_object_get(body, "stream")));
    cr_assert_str_eq(json_string_value(json_object_get(body, "model")), "q");
    json_t *sampling = json_object_get(body, "sampling_params");
    cr_assert_eq(json_integer_value(json_object_get(sampling, "max_tokens")), 8);
    cr_assert_eq(json_integer_value(json_object_get(sampling, "temperature")), 0);
    json_decref(body);
    e2e_finish(&w);
}

/* What the token-id types cannot send is refused before the run, with the fix. */
Test(endpoints_e2e, token_id_types_refuse_what_they_cannot_send, .timeout = 60)
{
    static const char *const cases[][2] = {
        {"sglang_generate", "requires streaming. Add --streaming."},
        {"sglang_generate --streaming --system-prompt hi", "has no place for a system prompt"},
        {"vllm_generate --cache-bust first_turn_prefix",
         "--cache-bust: the vllm_generate endpoint has no prompt"},
        {"vllm_generate --conversation-turn-mean 2 --tokenizer " RINGPERF_TOKENIZER_QWEN3,
         "runs single-turn requests only"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char words[512];
        snprintf(words, sizeof(words),
                 "profile -m m -u http://127.0.0.1:9 --endpoint-type %s --request-count 1",
                 cases[i][0]);
        char *out = NULL;
        cr_assert_eq(run_ringperf(NULL, words, true, &out), 1, "%s\n%s", words, out);
        cr_assert_not_null(strstr(out, cases[i][1]), "%s\n%s", words, out);
        free(out);
    }
}
