/*
 * test_routes.c - every route the mock serves beyond chat/completions, end to end over
 * loopback: the answer is read back with response/'s parser for the matching endpoint type, so
 * the mock and the parser are checked against each other, streaming and not, with faults.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "endpoint/endpoint.h"
#include "response/response.h"
#include "mock/mock.h"
#include "mock_client.h"
#include "tests/media/b64_decode.h"

/* What a whole answer parsed into. */
struct parsed {
    char text[8192];
    size_t content_events; /* payloads with is_content */
    size_t embeddings;
    size_t rankings;
    size_t images;  /* image_generation images */
    size_t results; /* image_retrieval results */
    size_t ids;     /* sglang_generate, vllm_generate output token ids */
    bool finished;  /* the end marker (has_finish_reason) was seen */
    bool done;      /* [DONE] was seen */
    bool usage;
    int64_t prompt_tokens;
    int64_t completion_tokens;
    size_t events;
};

static void take(enum response_parse_status st, const struct response_chunk *c, struct parsed *p)
{
    cr_assert(st == RESPONSE_PARSE_OK || st == RESPONSE_PARSE_DONE, "parse: %s",
              response_parse_status_name(st));
    p->done |= st == RESPONSE_PARSE_DONE;
    p->finished |= c->has_finish_reason;
    p->content_events += c->is_content;
    p->embeddings += c->embedding_count;
    p->rankings += c->ranking_count;
    p->images += c->image_count;
    p->results += c->infer_count;
    p->ids += c->token_id_count;
    if (c->usage.present) {
        p->usage = true;
        if (c->usage.prompt_tokens != RECORD_ABSENT) {
            p->prompt_tokens = c->usage.prompt_tokens;
        }
        p->completion_tokens =
            c->usage.completion_tokens != RECORD_ABSENT ? c->usage.completion_tokens : 0;
    }
    for (size_t i = 0; i < c->text_count; i++) {
        size_t len = strlen(p->text);
        cr_assert_eq(c->texts[i].kind, RESPONSE_TEXT_CONTENT);
        len += jsonstr_unescape(c->texts[i].text.ptr, c->texts[i].text.len, p->text + len,
                                sizeof(p->text) - 1 - len, NULL);
        p->text[len] = '\0';
    }
}

/* Splits an SSE body into events (an optional event: line, then data:) and parses each. */
static void parse_stream(enum endpoint_type t, char *body, struct parsed *p)
{
    struct response_reader r;
    struct response_parse_state st = {0};
    response_reader_init(&r, t, NULL, NULL, 0);
    response_parse_state_reset(&st);
    memset(p, 0, sizeof(*p));
    char *pos = body;
    char *sep;
    while ((sep = strstr(pos, "\n\n")) != NULL) {
        *sep = '\0';
        const char *event = NULL;
        size_t event_len = 0;
        if (strncmp(pos, "event: ", 7) == 0) {
            event = pos + 7;
            char *nl = strchr(pos, '\n');
            cr_assert_not_null(nl);
            event_len = (size_t)(nl - event);
            pos = nl + 1;
        }
        cr_assert_eq(strncmp(pos, "data: ", 6), 0, "event without data: [%s]", pos);
        struct response_chunk c;
        const char *data = pos + 6;
        take(response_parse_event(&r, &st, event, event_len, data, strlen(data), &c), &c, p);
        p->events++;
        pos = sep + 2;
    }
    cr_assert_eq(*pos, '\0', "bytes after the last event");
}

static void parse_body(enum endpoint_type t, const char *body, size_t len, struct parsed *p)
{
    struct response_reader r;
    response_reader_init(&r, t, NULL, NULL, 0);
    memset(p, 0, sizeof(*p));
    struct response_chunk c;
    take(response_parse_event(&r, NULL, NULL, 0, body, len, &c), &c, p);
}

/* Sends `body` to `path` and reads the answer into *out (status returned). */
static int exchange(struct mock_server *s, const char *path, const char *body, struct tc_resp *out)
{
    struct tc_conn c;
    tc_connect(&c, mock_server_port(s));
    tc_post(&c, path, body, NULL);
    tc_read(&c, out);
    cr_assert(out->complete, "no whole answer from %s", path);
    tc_close(&c);
    return out->status;
}

static const char *expected_words(size_t n)
{
    static const char *const words[] = {" the", " of",   " and", " to", " in",
                                        " is",  " that", " for", " it", " as"};
    static char out[256];
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        size_t w = strlen(words[i]);
        memcpy(out + len, words[i], w);
        len += w;
    }
    out[len] = '\0';
    return out;
}

struct stream_case {
    const char *path;
    enum endpoint_type type;
    const char *body;
    size_t content_events; /* with --tokens-per-chunk 2 and 5 tokens: 3 deltas */
    bool done;
};

static const struct stream_case STREAMS[] = {
    {"/v1/responses", ENDPOINT_RESPONSES,
     "{\"input\":[{\"role\":\"user\",\"content\":\"one two three\",\"type\":\"message\"}],"
     "\"model\":\"m\",\"stream\":true,\"instructions\":\"be brief\",\"max_output_tokens\":5}",
     4, false}, /* 3 deltas and the de-duplicated output_text.done */
    {"/v1/messages", ENDPOINT_MESSAGES,
     "{\"messages\":[{\"role\":\"user\",\"content\":\"one two three\"}],\"model\":\"m\","
     "\"max_tokens\":5,\"stream\":true,\"system\":\"be brief\"}",
     3, false},
    {"/generate_stream", ENDPOINT_HUGGINGFACE_GENERATE,
     "{\"inputs\":\"one two three be brief\",\"parameters\":{\"max_new_tokens\":5}}", 3, false},
    {"/v1/chat/completions", ENDPOINT_CHAT,
     "{\"messages\":[{\"role\":\"user\",\"content\":\"one two three be brief\"}],\"model\":\"m\","
     "\"stream\":true,\"max_completion_tokens\":5,\"stream_options\":{\"include_usage\":true}}",
     3, true},
};

Test(mock_routes, streams_parse_back_with_the_endpoint_parser, .timeout = 60)
{
    struct mock_config cfg = tc_config();
    cfg.tokens_per_chunk = 2;
    struct mock_server *s = tc_start(&cfg);
    for (size_t i = 0; i < sizeof(STREAMS) / sizeof(STREAMS[0]); i++) {
        const struct stream_case *k = &STREAMS[i];
        struct tc_resp r;
        cr_assert_eq(exchange(s, k->path, k->body, &r), 200, "%s", k->path);
        cr_assert(tc_header(&r, "Content-Type: text/event-stream"), "%s", k->path);
        struct parsed p;
        parse_stream(k->type, r.body, &p);
        cr_assert_str_eq(p.text, expected_words(5), "%s", k->path);
        cr_assert_eq(p.content_events, k->content_events, "%s", k->path);
        cr_assert(p.finished, "%s: no end marker", k->path);
        cr_assert_eq(p.done, k->done, "%s", k->path);
        if (k->type != ENDPOINT_HUGGINGFACE_GENERATE) {
            cr_assert(p.usage, "%s", k->path);
            cr_assert_eq(p.prompt_tokens, 5, "%s: prompt words", k->path);
            cr_assert_eq(p.completion_tokens, 5, "%s", k->path);
        }
        tc_resp_free(&r);
    }
    mock_server_free(s);
}

struct body_case {
    const char *path;
    enum endpoint_type type;
    const char *body;
    const char *text;
    size_t embeddings;
    size_t rankings;
};

static const struct body_case BODIES[] = {
    {"/v1/responses", ENDPOINT_RESPONSES,
     "{\"input\":[{\"role\":\"user\",\"content\":\"x\",\"type\":\"message\"}],\"model\":\"m\","
     "\"stream\":false,\"max_output_tokens\":3}",
     " the of and", 0, 0},
    {"/v1/messages", ENDPOINT_MESSAGES,
     "{\"messages\":[{\"role\":\"user\",\"content\":\"x\"}],\"model\":\"m\",\"max_tokens\":4}",
     " the of and to", 0, 0},
    {"/generate", ENDPOINT_HUGGINGFACE_GENERATE,
     "{\"inputs\":\"x\",\"parameters\":{\"max_new_tokens\":2}}", " the of", 0, 0},
    {"/v1/embeddings", ENDPOINT_EMBEDDINGS, "{\"model\":\"e\",\"input\":[\"a b\",\"c\",\"d\"]}", "",
     3, 0},
    {"/v1/embeddings", ENDPOINT_NIM_EMBEDDINGS, "{\"model\":\"e\",\"input\":\"single\"}", "", 1, 0},
    {"/v1/embeddings", ENDPOINT_CHAT_EMBEDDINGS,
     "{\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}],\"model\":\"e\",\"stream\":false}", "",
     1, 0},
    {"/v1/ranking", ENDPOINT_NIM_RANKINGS,
     "{\"model\":\"r\",\"query\":{\"text\":\"q\"},\"passages\":[{\"text\":\"a\"},{\"text\":\"b\"}]"
     "}",
     "", 0, 2},
    {"/v2/rerank", ENDPOINT_COHERE_RANKINGS,
     "{\"model\":\"r\",\"query\":\"q\",\"documents\":[\"a\",\"b\",\"c\"]}", "", 0, 3},
    {"/rerank", ENDPOINT_HF_TEI_RANKINGS, "{\"query\":\"q\",\"texts\":[\"a\"]}", "", 0, 1},
};

Test(mock_routes, bodies_parse_back_with_the_endpoint_parser, .timeout = 60)
{
    struct mock_config cfg = tc_config();
    struct mock_server *s = tc_start(&cfg);
    for (size_t i = 0; i < sizeof(BODIES) / sizeof(BODIES[0]); i++) {
        const struct body_case *k = &BODIES[i];
        struct tc_resp r;
        cr_assert_eq(exchange(s, k->path, k->body, &r), 200, "%s: %s", k->path, r.body);
        cr_assert(tc_header(&r, "Content-Type: application/json"), "%s", k->path);
        json_decref(tc_json(r.body));
        struct parsed p;
        parse_body(k->type, r.body, r.body_len, &p);
        cr_assert_str_eq(p.text, k->text, "%s", k->path);
        cr_assert_eq(p.embeddings, k->embeddings, "%s", k->path);
        cr_assert_eq(p.rankings, k->rankings, "%s", k->path);
        cr_assert_eq(p.content_events, 1, "%s", k->path);
        tc_resp_free(&r);
    }
    mock_server_free(s);
}

Test(mock_routes, bad_bodies_get_400_and_new_paths_are_known, .timeout = 30)
{
    struct mock_config cfg = tc_config();
    struct mock_server *s = tc_start(&cfg);
    const char *const bad[][2] = {
        {"/v1/ranking", "{\"query\":\"not an object\",\"passages\":[]}"},
        {"/v2/rerank", "{\"query\":\"q\"}"},
        {"/rerank", "{\"texts\":[]}"},
        {"/generate", "{\"parameters\":{}}"},
        {"/generate_stream", "{\"inputs\":\"x\",\"parameters\":{\"max_new_tokens\":0}}"},
        {"/v1/embeddings", "{\"model\":\"e\"}"},
        {"/v1/responses", "{\"model\":\"m\"}"},
        {"/v1/messages", "{\"model\":\"m\",\"max_tokens\":\"x\",\"messages\":[]}"},
        {"/generate", "{\"input_ids\":[]}"},
        {"/generate", "{\"input_ids\":[1,true]}"},
        {"/generate", "{\"input_ids\":[1],\"sampling_params\":{\"max_new_tokens\":0}}"},
        {"/inference/v1/generate", "{\"token_ids\":[1],\"stream\":true}"},
        {"/inference/v1/generate", "{\"token_ids\":[1],\"sampling_params\":[]}"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct tc_resp r;
        cr_assert_eq(exchange(s, bad[i][0], bad[i][1], &r), 400, "%s %s", bad[i][0], bad[i][1]);
        struct response_chunk c;
        cr_assert_eq(response_parse_chunk(ENDPOINT_RAW, r.body, r.body_len, &c),
                     RESPONSE_PARSE_ERROR);
        tc_resp_free(&r);
    }
    struct tc_conn c;
    tc_connect(&c, mock_server_port(s));
    cr_assert_eq(tc_get_status(&c, "/v1/responses"), 405);
    tc_close(&c);
    mock_server_free(s);
}

Test(mock_routes, faults_apply_to_new_routes, .timeout = 60)
{
    struct mock_config cfg = tc_config();
    cfg.malformed_rate = 100;
    struct mock_server *s = tc_start(&cfg);
    struct tc_resp r;
    cr_assert_eq(
        exchange(s, "/v1/embeddings", "{\"model\":\"e\",\"input\":[\"a\",\"b\",\"c\",\"d\"]}", &r),
        200);
    struct response_chunk c;
    cr_assert_eq(response_parse_chunk(ENDPOINT_EMBEDDINGS, r.body, r.body_len, &c),
                 RESPONSE_PARSE_ERR_MALFORMED, "a malformed body is cut short");
    tc_resp_free(&r);
    cr_assert_eq(exchange(s, "/v1/messages",
                          "{\"messages\":[],\"model\":\"m\",\"max_tokens\":4,\"stream\":true}", &r),
                 200);
    cr_assert_not_null(strstr(r.body, "event: message_stop"), "the stream still ends normally");
    tc_resp_free(&r);
    mock_server_free(s);
    cfg.malformed_rate = 0;
    cfg.error_500_rate = 100;
    s = tc_start(&cfg);
    cr_assert_eq(exchange(s, "/v2/rerank", "{\"query\":\"q\",\"documents\":[\"a\"]}", &r), 500);
    tc_resp_free(&r);
    mock_server_free(s);
}

Test(mock_routes, long_outputs_leave_the_full_text_out, .timeout = 60)
{
    struct mock_config cfg = tc_config();
    cfg.tokens_per_chunk = 64;
    struct mock_server *s = tc_start(&cfg);
    struct tc_resp r;
    cr_assert_eq(exchange(s, "/generate_stream",
                          "{\"inputs\":\"x\",\"parameters\":{\"max_new_tokens\":5000}}", &r),
                 200);
    struct parsed p;
    parse_stream(ENDPOINT_HUGGINGFACE_GENERATE, r.body, &p);
    cr_assert(p.finished);
    cr_assert_eq(p.content_events, (5000 + 63) / 64);
    tc_resp_free(&r);
    cr_assert_eq(exchange(s, "/v1/responses",
                          "{\"input\":\"x\",\"model\":\"m\",\"stream\":true,"
                          "\"max_output_tokens\":5000}",
                          &r),
                 200);
    cr_assert_null(strstr(r.body, "response.output_text.done"));
    parse_stream(ENDPOINT_RESPONSES, r.body, &p);
    cr_assert(p.finished);
    cr_assert_eq(p.completion_tokens, 5000);
    tc_resp_free(&r);
    mock_server_free(s);
}

/* require_png requires `b64` (a JSON string's bytes) to be a base64 PNG. */
static void require_png(const char *b64)
{
    uint8_t *png = NULL;
    size_t n = b64_decode(b64, strlen(b64), &png);
    static const uint8_t magic[] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    cr_assert(n > sizeof(magic) && memcmp(png, magic, sizeof(magic)) == 0, "not a PNG: %s", b64);
    free(png);
}

/* Image generation answers base64 PNGs, "n" of them, whole or streamed as partial images and a
 * completed one; image retrieval one result per input image; SOLIDO RAG its "content", streamed
 * only to a client that accepts an event stream (its body has no "stream"). */
Test(mock_routes, image_retrieval_and_rag_routes_answer_in_their_shapes, .timeout = 60)
{
    struct mock_config cfg = tc_config();
    cfg.tokens_per_chunk = 2;
    struct mock_server *s = tc_start(&cfg);
    struct tc_resp r;
    struct parsed p;
    cr_assert_eq(exchange(s, "/v1/images/generations",
                          "{\"prompt\":\"a cat\",\"model\":\"flux\",\"n\":2}", &r),
                 200);
    json_t *root = tc_json(r.body);
    cr_assert_eq(json_array_size(json_object_get(root, "data")), 2);
    require_png(json_string_value(
        json_object_get(json_array_get(json_object_get(root, "data"), 1), "b64_json")));
    json_decref(root);
    parse_body(ENDPOINT_IMAGE_GENERATION, r.body, r.body_len, &p);
    cr_assert_eq(p.images, 2);
    tc_resp_free(&r);
    cr_assert_eq(
        exchange(s, "/v1/images/generations", "{\"prompt\":\"a cat\",\"n\":3,\"stream\":true}", &r),
        200);
    cr_assert(tc_header(&r, "Content-Type: text/event-stream"));
    cr_assert_not_null(strstr(r.body, "event: image_generation.completed"));
    parse_stream(ENDPOINT_IMAGE_GENERATION, r.body, &p);
    cr_assert_eq(p.images, 3);
    cr_assert_eq(p.events, 3);
    tc_resp_free(&r);
    cr_assert_eq(exchange(s, "/v1/infer",
                          "{\"input\":[{\"type\":\"image_url\",\"url\":\"data:x\"},"
                          "{\"type\":\"image_url\",\"url\":\"data:y\"}]}",
                          &r),
                 200);
    parse_body(ENDPOINT_IMAGE_RETRIEVAL, r.body, r.body_len, &p);
    cr_assert_eq(p.results, 2);
    tc_resp_free(&r);
    const char *rag = "{\"query\":[\"one two\"],\"filters\":{},\"inference_model\":\"m\"}";
    cr_assert_eq(exchange(s, "/rag/api/prompt", rag, &r), 200);
    cr_assert(tc_header(&r, "Content-Type: application/json"));
    parse_body(ENDPOINT_SOLIDO_RAG, r.body, r.body_len, &p);
    cr_assert_gt(strlen(p.text), 0);
    tc_resp_free(&r);
    struct tc_conn c;
    tc_connect(&c, mock_server_port(s));
    tc_post(&c, "/rag/api/prompt", rag, "Accept: text/event-stream\r\n");
    tc_read(&c, &r);
    tc_close(&c);
    cr_assert(tc_header(&r, "Content-Type: text/event-stream"));
    parse_stream(ENDPOINT_SOLIDO_RAG, r.body, &p);
    cr_assert_gt(p.content_events, 1);
    tc_resp_free(&r);
    const char *const bad[][2] = {
        {"/v1/images/generations", "{\"model\":\"m\"}"},
        {"/v1/images/generations", "{\"prompt\":\"x\",\"n\":0}"},
        {"/v1/infer", "{\"input\":\"x\"}"},
        {"/rag/api/prompt", "{\"query\":[1]}"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cr_assert_eq(exchange(s, bad[i][0], bad[i][1], &r), 400, "%s %s", bad[i][0], bad[i][1]);
        tc_resp_free(&r);
    }
    mock_server_free(s);
}

/* post_form sends a multipart body with the given Content-Type and reads the answer. */
static int post_form(struct mock_server *s, const char *path, const char *ct, const char *body,
                     size_t len, struct tc_resp *out)
{
    char head[512];
    int n = snprintf(head, sizeof(head),
                     "POST %s HTTP/1.1\r\nHost: test\r\nContent-Type: %s\r\n"
                     "Content-Length: %zu\r\n\r\n",
                     path, ct, len);
    struct tc_conn c;
    tc_connect(&c, mock_server_port(s));
    tc_send(&c, head, (size_t)n);
    tc_send(&c, body, len);
    tc_read(&c, out);
    tc_close(&c);
    cr_assert(out->complete, "no whole answer from %s", path);
    return out->status;
}

/* The multipart routes read their parts in place: a transcription answers with the length of
 * the WAV it was sent, an edit with "n" images; a body without its file, or not multipart,
 * is a 400. */
Test(mock_routes, multipart_routes_read_their_parts, .timeout = 60)
{
    struct mock_config cfg = tc_config();
    struct mock_server *s = tc_start(&cfg);
    /* 16-bit mono at 8 kHz, 24000 bytes of samples: 1.5 s, reported rounded up. */
    static char audio[4096 + 24100];
    size_t len = (size_t)snprintf(audio, 512,
                                  "--b\r\nContent-Disposition: form-data; name=\"file\"; "
                                  "filename=\"audio.wav\"\r\nContent-Type: audio/wav\r\n\r\n");
    static const unsigned char wav_head[44] = {
        'R', 'I', 'F', 'F', 0x04, 0x5e, 0,   0,   'W', 'A',  'V',  'E',  'f', 'm',  't',
        ' ', 16,  0,   0,   0,    1,    0,   1,   0,   0x40, 0x1f, 0,    0,   0x80, 0x3e,
        0,   0,   2,   0,   16,   0,    'd', 'a', 't', 'a',  0xc0, 0x5d, 0,   0};
    memcpy(audio + len, wav_head, sizeof(wav_head));
    len += sizeof(wav_head);
    memset(audio + len, 0x01, 24000);
    len += 24000;
    len += (size_t)snprintf(audio + len, 256,
                            "\r\n--b\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\n"
                            "whisper\r\n--b--\r\n");
    struct tc_resp r;
    cr_assert_eq(
        post_form(s, "/v1/audio/transcriptions", "multipart/form-data; boundary=b", audio, len, &r),
        200, "%s", r.body);
    json_t *root = tc_json(r.body);
    cr_assert_eq(json_integer_value(json_object_get(json_object_get(root, "usage"), "seconds")), 2);
    cr_assert_gt(json_string_length(json_object_get(root, "text")), 0);
    json_decref(root);
    struct parsed p;
    parse_body(ENDPOINT_AUDIO_TRANSCRIPTION, r.body, r.body_len, &p);
    cr_assert_gt(strlen(p.text), 0);
    tc_resp_free(&r);
    const char *edit =
        "--x\r\nContent-Disposition: form-data; name=\"prompt\"\r\n\r\nblue\r\n"
        "--x\r\nContent-Disposition: form-data; name=\"n\"\r\n\r\n3\r\n"
        "--x\r\nContent-Disposition: form-data; name=\"url\"\r\n\r\nhttp://i/a.png\r\n"
        "--x--\r\n";
    cr_assert_eq(post_form(s, "/v1/images/edits", "multipart/form-data; boundary=\"x\"", edit,
                           strlen(edit), &r),
                 200, "%s", r.body);
    parse_body(ENDPOINT_IMAGE_EDIT, r.body, r.body_len, &p);
    cr_assert_eq(p.images, 3);
    tc_resp_free(&r);
    const char *no_file =
        "--x\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nm\r\n--x--\r\n";
    const char *const bad[][3] = {
        {"/v1/audio/transcriptions", "multipart/form-data; boundary=x", no_file},
        {"/v1/images/edits", "multipart/form-data; boundary=x", no_file},
        {"/v1/images/edits", "application/json", "{}"},
        {"/v1/audio/transcriptions", "multipart/form-data; boundary=x", "--x\r\nno end"},
        {"/v1/audio/transcriptions", "multipart/form-data; boundary=y", no_file},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cr_assert_eq(post_form(s, bad[i][0], bad[i][1], bad[i][2], strlen(bad[i][2]), &r), 400,
                     "%s %s", bad[i][0], bad[i][2]);
        tc_resp_free(&r);
    }
    mock_server_free(s);
}

/* SGLang's /generate (told from TGI's by "input_ids") streams a chunk of ids per event with
 * meta_info's usage and a finish_reason on the last, then [DONE]; its whole body and vLLM's
 * /inference/v1/generate carry every id. The prompt's length is the ids sent. */
Test(mock_routes, token_id_routes_answer_with_ids, .timeout = 60)
{
    struct mock_config cfg = tc_config();
    cfg.tokens_per_chunk = 2;
    struct mock_server *s = tc_start(&cfg);
    struct tc_resp r;
    struct parsed p;
    cr_assert_eq(exchange(s, "/generate",
                          "{\"input_ids\":[5,6,7],\"sampling_params\":{\"ignore_eos\":true,"
                          "\"max_new_tokens\":5},\"stream\":true}",
                          &r),
                 200);
    cr_assert(tc_header(&r, "Content-Type: text/event-stream"));
    cr_assert_not_null(strstr(r.body, "\"text\":\" the of and to in\""), "%s", r.body);
    parse_stream(ENDPOINT_SGLANG_GENERATE, r.body, &p);
    cr_assert_eq(p.ids, 5);
    cr_assert_eq(p.content_events, 3);
    cr_assert(p.finished && p.done && p.usage);
    cr_assert_eq(p.prompt_tokens, 3);
    cr_assert_eq(p.completion_tokens, 5);
    cr_assert_str_eq(p.text, "");
    tc_resp_free(&r);
    cr_assert_eq(exchange(s, "/generate",
                          "{\"input_ids\":[5,6],\"sampling_params\":{\"max_new_tokens\":4}}", &r),
                 200);
    json_t *root = tc_json(r.body);
    cr_assert_eq(json_array_size(json_object_get(root, "output_ids")), 4);
    json_decref(root);
    parse_body(ENDPOINT_SGLANG_GENERATE, r.body, r.body_len, &p);
    cr_assert(p.ids == 4 && p.finished && p.prompt_tokens == 2 && p.completion_tokens == 4);
    tc_resp_free(&r);
    cr_assert_eq(exchange(s, "/inference/v1/generate",
                          "{\"model\":\"m\",\"token_ids\":[1,2,3,4],\"sampling_params\":"
                          "{\"max_tokens\":6},\"stream\":false}",
                          &r),
                 200);
    root = tc_json(r.body);
    json_t *choice = json_array_get(json_object_get(root, "choices"), 0);
    cr_assert_eq(json_array_size(json_object_get(choice, "token_ids")), 6);
    cr_assert_str_eq(json_string_value(json_object_get(choice, "finish_reason")), "length");
    json_decref(root);
    parse_body(ENDPOINT_VLLM_GENERATE, r.body, r.body_len, &p);
    cr_assert(p.ids == 6 && p.finished && p.completion_tokens == 6 && p.content_events == 1);
    tc_resp_free(&r);
    /* TGI's /generate is still TGI's. */
    cr_assert_eq(
        exchange(s, "/generate", "{\"inputs\":\"x\",\"parameters\":{\"max_new_tokens\":2}}", &r),
        200);
    parse_body(ENDPOINT_HUGGINGFACE_GENERATE, r.body, r.body_len, &p);
    cr_assert_str_eq(p.text, " the of");
    tc_resp_free(&r);
    mock_server_free(s);
}
