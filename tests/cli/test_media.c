/*
 * test_media.c - synthetic images and audio end to end: ringperf against the
 * mock server with --image-* and --audio-* flags; the run succeeds and
 * inputs.json holds the exact content parts (chat and responses shapes), the
 * same seed gives the same bodies, and bad media flags fail naming the flag.
 */
#include <criterion/criterion.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "e2e.h"

/* Runs words and requires a clean run with records and no errors. */
static void run_clean(const struct e2e *w, const char *words)
{
    char *out = NULL;
    int status = run_ringperf(w, words, true, &out);
    cr_assert_eq(status, 0, "%s\nexit %d:\n%s", words, status, out);
    free(out);
    size_t errors = 0;
    cr_assert_gt(count_export_lines(w, &errors), 0);
    cr_assert_eq(errors, 0);
}

/* The content part list of the first payload's first message in `list_key`. */
static json_t *first_content(json_t *root, const char *list_key)
{
    json_t *payload = json_array_get(
        json_object_get(json_array_get(json_object_get(root, "data"), 0), "payloads"), 0);
    json_t *content =
        json_object_get(json_array_get(json_object_get(payload, list_key), 0), "content");
    cr_assert(json_is_array(content), "content is a list of parts");
    return content;
}

static const char *part_type(json_t *content, size_t i)
{
    return json_string_value(json_object_get(json_array_get(content, i), "type"));
}

Test(media, chat_streaming_with_two_images_and_audio, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    run_clean(&w, "profile --model m --endpoint-type chat --streaming --image-width-mean 64 "
                  "--image-height-mean 48 --image-batch-size 2 --audio-length-mean 0.5 "
                  "--audio-format wav --audio-sample-rates 16 --random-seed 7 --url URL "
                  "--request-count 6 --concurrency 2 --artifact-dir DIR --ui none");
    json_t *root = e2e_load_json(&w, "inputs.json");
    json_t *content = first_content(root, "messages");
    cr_assert_eq(json_array_size(content), 4);
    cr_assert_str_eq(part_type(content, 0), "text");
    cr_assert_str_eq(part_type(content, 1), "image_url");
    cr_assert_str_eq(part_type(content, 2), "image_url");
    cr_assert_str_eq(part_type(content, 3), "input_audio");
    const char *url = json_string_value(
        json_object_get(json_object_get(json_array_get(content, 1), "image_url"), "url"));
    cr_assert(url != NULL && strncmp(url, "data:image/png;base64,iVBOR", 27) == 0, "%s", url);
    json_t *audio = json_object_get(json_array_get(content, 3), "input_audio");
    cr_assert_str_eq(json_string_value(json_object_get(audio, "format")), "wav");
    const char *data = json_string_value(json_object_get(audio, "data"));
    cr_assert(data != NULL && strncmp(data, "UklGR", 5) == 0, "a RIFF file");
    json_decref(root);

    /* The same seed sends the same bodies. */
    char *first = e2e_read_text(&w, "inputs.json");
    run_clean(&w, "profile --model m --endpoint-type chat --streaming --image-width-mean 64 "
                  "--image-height-mean 48 --image-batch-size 2 --audio-length-mean 0.5 "
                  "--audio-format wav --audio-sample-rates 16 --random-seed 7 --url URL "
                  "--request-count 6 --concurrency 2 --artifact-dir DIR --ui none");
    char *second = e2e_read_text(&w, "inputs.json");
    cr_assert_str_eq(first, second);
    free(first);
    free(second);
    e2e_finish(&w);
}

Test(media, responses_with_an_image, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    run_clean(&w, "profile --model m --endpoint-type responses --streaming --image-width-mean 32 "
                  "--image-height-mean 32 --image-format jpeg --url URL --request-count 4 "
                  "--artifact-dir DIR --ui none");
    json_t *root = e2e_load_json(&w, "inputs.json");
    json_t *content = first_content(root, "input");
    cr_assert_eq(json_array_size(content), 2);
    cr_assert_str_eq(part_type(content, 0), "input_text");
    cr_assert_str_eq(part_type(content, 1), "input_image");
    const char *url = json_string_value(json_object_get(json_array_get(content, 1), "image_url"));
    cr_assert(url != NULL && strncmp(url, "data:image/jpeg;base64,/9j/", 27) == 0, "%s", url);
    json_decref(root);
    e2e_finish(&w);
}

Test(media, bad_media_flags_fail_naming_the_flag, .timeout = 60)
{
    static const char *const CASES[][2] = {
        {"--audio-length-mean 1 --audio-format mp3 --audio-sample-rates 17",
         "--audio-sample-rates"},
        {"--audio-depths 12", "--audio-depths"},
        {"--image-width-mean 64", "--image-height-mean"},
        {"--image-width-mean 8 --image-height-mean 8 --image-source /tmp", "--image-source"},
        {"--endpoint-type completions --image-width-mean 8 --image-height-mean 8",
         "--image-width-mean"},
        {"--endpoint-type messages --audio-length-mean 1", "--audio-length-mean"},
    };
    for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
        char words[512];
        snprintf(words, sizeof(words), "profile --model m --url http://127.0.0.1:9 %s",
                 CASES[i][0]);
        char *out = NULL;
        int status = run_ringperf(NULL, words, true, &out);
        cr_assert_eq(status, 1, "%s\n%s", words, out);
        cr_assert(strstr(out, CASES[i][1]) != NULL, "%s names %s:\n%s", words, CASES[i][1], out);
        free(out);
    }
}

Test(media, input_file_media_are_sent_as_written_or_read_from_disk, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    /* The client does not decode images: any bytes stand in for a PNG. */
    e2e_write(&w, "pic.png", "PNGDATA");
    char record[1024];
    snprintf(record, sizeof(record),
             "{\"text\": \"Describe both\", \"images\": [\"%s/pic.png\", "
             "\"https://example.com/cat.jpg\"], \"audio\": \"wav,UklGRg==\"}\n"
             "{\"image\": \"%s/pic.png\"}\n",
             w.dir, w.dir);
    e2e_write(&w, "media.jsonl", record);
    char words[512];
    snprintf(words, sizeof(words),
             "profile --model m --url URL --artifact-dir DIR --endpoint-type chat "
             "--input-file %s/media.jsonl",
             w.dir);
    run_clean(&w, words);
    json_t *root = e2e_load_json(&w, "inputs.json");
    json_t *content = first_content(root, "messages");
    cr_assert_str_eq(part_type(content, 0), "text");
    const char *url = json_string_value(
        json_object_get(json_object_get(json_array_get(content, 1), "image_url"), "url"));
    cr_assert_str_eq(url, "data:image/png;base64,UE5HREFUQQ==", "the file, base64-encoded");
    url = json_string_value(
        json_object_get(json_object_get(json_array_get(content, 2), "image_url"), "url"));
    cr_assert_str_eq(url, "https://example.com/cat.jpg");
    cr_assert_str_eq(part_type(content, 3), "input_audio");
    json_decref(root);
    e2e_write(&w, "media.jsonl", "{\"text\": \"x\", \"image\": \"/nonexistent/none.png\"}\n");
    char *out = NULL;
    cr_assert_eq(run_ringperf(&w, words, true, &out), 1, "%s", out);
    cr_assert_not_null(strstr(out, "media.jsonl:1: cannot open media file /nonexistent/none.png"),
                       "%s", out);
    free(out);
    e2e_finish(&w);
}
