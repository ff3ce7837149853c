/*
 * test_form.c - the multipart/form-data bodies of image_edit and audio_transcription: the
 * exact bytes in AIPerf's field order, the media decoded once into the file piece, extra inputs
 * written as AIPerf's transport writes them, the WAV length, and every refusal.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "payload/payload.h"

/* A 16-bit mono WAV at 8 kHz holding 2 samples (0.25 ms of audio). */
#define WAV_B64 "UklGRigAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YQQAAAABAgME"
#define PNG_B64 "iVBORw0KGgoAAAANSUhEUg=="

static const char *const AUDIO[] = {"WAV," WAV_B64};

/* whole returns the form's pieces joined (malloc'd, NUL-terminated; the file bytes too). */
static char *whole(const struct payload_form *f, size_t *out_len)
{
    size_t n = f->head_len + f->file_len + f->tail_len;
    char *out = malloc(n + 1);
    memcpy(out, f->head, f->head_len);
    if (f->file_len > 0) {
        memcpy(out + f->head_len, f->file, f->file_len);
    }
    if (f->tail_len > 0) {
        memcpy(out + f->head_len + f->file_len, f->tail, f->tail_len);
    }
    out[n] = '\0';
    *out_len = n;
    return out;
}

Test(payload_form, transcription_sends_the_file_then_model_then_extras)
{
    struct payload_spec spec = {
        .type = ENDPOINT_AUDIO_TRANSCRIPTION,
        .model = "whisper",
        .prompt = "not sent",
        .extra_inputs_json =
            "{\"file\":\"managed\",\"language\":\"en\",\"temperature\":0.1,"
            "\"verbose\":true,\"timestamp_granularities[]\":[\"word\",\"segment\"],"
            "\"skip\":null,\"n\":2,\"meta\":{\"a\":1}}",
        .media = {.audios = AUDIO, .audio_count = 1},
    };
    struct payload_form f;
    char err[256] = "";
    cr_assert_eq(payload_form_build(&spec, "B", &f, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(f.file_len, 48, "the WAV decoded once");
    cr_assert_eq(memcmp(f.file, "RIFF", 4), 0);
    cr_assert_float_eq(f.audio_seconds, 4.0 / 16000.0, 1e-12);
    size_t len = 0;
    char *body = whole(&f, &len);
    const char *head =
        "--B\r\nContent-Disposition: form-data; name=\"file\"; filename=\"audio.wav\""
        "\r\nContent-Type: audio/wav\r\n\r\nRIFF";
    cr_assert_eq(strncmp(body, head, strlen(head)), 0, "%s", body);
    const char *tail =
        "\r\n--B\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper\r\n"
        "--B\r\nContent-Disposition: form-data; name=\"language\"\r\n\r\nen\r\n"
        "--B\r\nContent-Disposition: form-data; name=\"temperature\"\r\n\r\n0.1\r\n"
        "--B\r\nContent-Disposition: form-data; name=\"verbose\"\r\n\r\ntrue\r\n"
        "--B\r\nContent-Disposition: form-data; name=\"timestamp_granularities[]\""
        "\r\n\r\nword\r\n"
        "--B\r\nContent-Disposition: form-data; name=\"timestamp_granularities[]\""
        "\r\n\r\nsegment\r\n"
        "--B\r\nContent-Disposition: form-data; name=\"n\"\r\n\r\n2\r\n"
        "--B\r\nContent-Disposition: form-data; name=\"meta\"\r\n\r\n{\"a\":1}\r\n"
        "--B--\r\n";
    cr_assert_eq(f.tail_len, strlen(tail));
    cr_assert_eq(memcmp(f.tail, tail, f.tail_len), 0, "%.*s", (int)f.tail_len, f.tail);
    cr_assert_str_eq(f.summary_json,
                     "{\"file\":{\"filename\":\"audio.wav\",\"content_type\":\"audio/wav\","
                     "\"bytes\":48},\"model\":\"whisper\",\"language\":\"en\",\"temperature\":0.1,"
                     "\"verbose\":true,\"timestamp_granularities[]\":[\"word\",\"segment\"],"
                     "\"skip\":null,\"n\":2,\"meta\":{\"a\":1}}");
    free(body);
    payload_form_free(&f);
    payload_form_free(NULL);
}

Test(payload_form, image_edit_sends_prompt_fields_then_the_image)
{
    const char *const images[] = {"data:image/png;base64," PNG_B64};
    struct payload_spec spec = {
        .type = ENDPOINT_IMAGE_EDIT,
        .model = "flux",
        .prompt = "make it blue",
        .extra_inputs_json = "{\"size\":\"64x64\",\"prompt\":\"managed\",\"mask\":\"x\"}",
        .media = {.images = images, .image_count = 1},
    };
    struct payload_form f;
    char err[256] = "";
    cr_assert_eq(payload_form_build(&spec, "B", &f, err, sizeof(err)), 0, "%s", err);
    const char *head =
        "--B\r\nContent-Disposition: form-data; name=\"prompt\"\r\n\r\nmake it blue\r\n"
        "--B\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nflux\r\n"
        "--B\r\nContent-Disposition: form-data; name=\"response_format\"\r\n\r\n"
        "b64_json\r\n"
        "--B\r\nContent-Disposition: form-data; name=\"n\"\r\n\r\n1\r\n"
        "--B\r\nContent-Disposition: form-data; name=\"image\"; "
        "filename=\"image.png\"\r\nContent-Type: image/png\r\n\r\n";
    cr_assert_eq(f.head_len, strlen(head));
    cr_assert_eq(memcmp(f.head, head, f.head_len), 0, "%.*s", (int)f.head_len, f.head);
    cr_assert_eq(f.file_len, 16);
    cr_assert_eq(memcmp(f.file, "\x89PNG", 4), 0);
    const char *tail = "\r\n--B\r\nContent-Disposition: form-data; name=\"size\"\r\n\r\n64x64\r\n"
                       "--B--\r\n";
    cr_assert_eq(f.tail_len, strlen(tail));
    cr_assert_eq(memcmp(f.tail, tail, f.tail_len), 0);
    cr_assert_float_eq(f.audio_seconds, -1.0, 0);
    payload_form_free(&f);
}

Test(payload_form, image_edit_by_url_and_by_raw_base64)
{
    const char *const url[] = {"https://x.test/cat.jpg"};
    struct payload_spec spec = {.type = ENDPOINT_IMAGE_EDIT,
                                .model = "flux",
                                .prompt = "p",
                                .media = {.images = url, .image_count = 1}};
    struct payload_form f;
    char err[256] = "";
    cr_assert_eq(payload_form_build(&spec, "B", &f, err, sizeof(err)), 0, "%s", err);
    cr_assert_null(f.file, "an image by URL is a field, not a file");
    cr_assert_eq(f.tail_len, 0);
    cr_assert_not_null(strstr(f.head, "name=\"url\"\r\n\r\nhttps://x.test/cat.jpg\r\n--B--\r\n"));
    payload_form_free(&f);
    const char *const jpeg[] = {"/9j/4AAQ"};
    spec.media.images = jpeg;
    cr_assert_eq(payload_form_build(&spec, "B", &f, err, sizeof(err)), 0, "%s", err);
    cr_assert_not_null(strstr(f.head, "filename=\"image.jpg\"\r\nContent-Type: image/jpeg"));
    cr_assert_eq(f.file_len, 6);
    payload_form_free(&f);
}

Test(payload_form, refusals_name_what_is_wrong)
{
    struct payload_form f;
    char err[256] = "";
    struct payload_spec spec = {.type = ENDPOINT_AUDIO_TRANSCRIPTION, .model = "m"};
    cr_assert_eq(payload_form_build(&spec, "B", &f, err, sizeof(err)), -EINVAL);
    cr_assert_not_null(strstr(err, "--audio-length-mean"), "%s", err);
    const char *const bad_b64[] = {"wav,@@@@"};
    spec.media = (struct payload_media){.audios = bad_b64, .audio_count = 1};
    cr_assert_eq(payload_form_build(&spec, "B", &f, err, sizeof(err)), -EINVAL);
    cr_assert_not_null(strstr(err, "not valid base64"), "%s", err);
    spec.media = (struct payload_media){.audios = AUDIO, .audio_count = 1};
    spec.model = NULL;
    cr_assert_eq(payload_form_build(&spec, "B", &f, err, sizeof(err)), -EINVAL);
    spec.model = "m";
    cr_assert_eq(payload_form_build(&spec, "bad boundary", &f, err, sizeof(err)), -EINVAL);
    spec.extra_inputs_json = "{\"language\":\"--B\"}";
    cr_assert_eq(payload_form_build(&spec, "B", &f, err, sizeof(err)), -EEXIST);
    cr_assert_not_null(strstr(err, "boundary occurs in a field"), "%s", err);
    cr_assert_eq(payload_form_build(&spec, "RIFF", &f, err, sizeof(err)), 0, "%s", err);
    payload_form_free(&f);
    spec.extra_inputs_json = "[1]";
    cr_assert_eq(payload_form_build(&spec, "B", &f, err, sizeof(err)), -EINVAL);
    const char *const text[] = {"data:text/plain;base64,aGVsbG8="};
    spec = (struct payload_spec){.type = ENDPOINT_IMAGE_EDIT,
                                 .model = "m",
                                 .prompt = "p",
                                 .media = {.images = text, .image_count = 1}};
    cr_assert_eq(payload_form_build(&spec, "B", &f, err, sizeof(err)), -EINVAL);
    cr_assert_not_null(strstr(err, "not a PNG"), "%s", err);
    spec.media.image_count = 0;
    cr_assert_eq(payload_form_build(&spec, "B", &f, err, sizeof(err)), -EINVAL);
    spec.type = ENDPOINT_CHAT;
    cr_assert_eq(payload_form_build(&spec, "B", &f, err, sizeof(err)), -EINVAL);
}

Test(payload_form, wav_length_from_its_header)
{
    unsigned char wav[64] = "RIFF\x24\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00"
                            "\x40\x1f\x00\x00\x80\x3e\x00\x00\x02\x00\x10\x00"
                            "data\x08\x00\x00\x00";
    cr_assert_float_eq(payload_wav_seconds(wav, 44 + 8), 8.0 / 16000.0, 1e-12);
    cr_assert_float_eq(payload_wav_seconds(wav, 44 + 4), 4.0 / 16000.0, 1e-12,
                       "a data chunk cut short counts what is there");
    cr_assert_float_eq(payload_wav_seconds(wav, 20), -1.0, 0);
    cr_assert_float_eq(payload_wav_seconds((const unsigned char *)"ID3xxxxxxxxxxxx", 15), -1.0, 0);
    wav[24] = 0; /* no byte rate */
    wav[25] = 0;
    wav[28] = wav[29] = wav[30] = wav[31] = 0;
    cr_assert_float_eq(payload_wav_seconds(wav, 52), -1.0, 0);
}
