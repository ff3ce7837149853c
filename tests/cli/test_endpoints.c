/*
 * `ringperf profile` with the endpoint types that are not LLM, embeddings or rankings APIs
 * (image_generation, image_retrieval, solido_rag, and the multipart image_edit and
 * audio_transcription), against the mock server's routes: the bodies
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

/* Endpoint types ringperf does not run yet stop the run at once, pointing at the README, which
 * names each with its reason. */
Test(endpoints_e2e, unsupported_types_are_refused_with_the_reason, .timeout = 60)
{
    /* The newest AIPerf's sglang_generate and vllm_generate are not --endpoint-type values. */
    static const char *const types[] = {"video_generation", "sglang_generate", "vllm_generate"};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        char words[256];
        snprintf(words, sizeof(words),
                 "profile -m m -u http://127.0.0.1:9 --endpoint-type %s --request-count 1",
                 types[i]);
        char *out = NULL;
        int status = run_ringperf(NULL, words, true, &out);
        cr_assert_eq(status, 1, "%s", words);
        const char *says =
            i < 1 ? "not supported yet (README, \"What works" : "--endpoint-type: unknown value";
        cr_assert_not_null(strstr(out, says), "%s\n%s", words, out);
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
        cr_assert_not_null(strstr(strstr(section, "refused with a message"), quoted),
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
