/*
 * payload_build with media: AIPerf's content parts for chat,
 * responses and messages, the bare string without media, and the errors.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "endpoint/endpoint.h"
#include "payload/payload.h"
#include "tests/support/expect_payload.h"

static const char *const IMAGES[] = {"data:image/png;base64,iVBO", "https://x.test/a.jpg"};
static const char *const AUDIOS[] = {"wav,UklG"};

Test(payload_media, chat_text_two_images_and_audio_become_parts_in_order)
{
    struct payload_spec spec = {
        .type = ENDPOINT_CHAT,
        .model = "m",
        .prompt = "Hi",
        .media = {.images = IMAGES, .image_count = 2, .audios = AUDIOS, .audio_count = 1},
    };
    expect_payload(&spec,
                   "{\"messages\":[{\"role\":\"user\",\"content\":["
                   "{\"type\":\"text\",\"text\":\"Hi\"},"
                   "{\"type\":\"image_url\",\"image_url\":{\"url\":"
                   "\"data:image/png;base64,iVBO\"}},"
                   "{\"type\":\"image_url\",\"image_url\":{\"url\":\"https://x.test/a.jpg\"}},"
                   "{\"type\":\"input_audio\",\"input_audio\":{\"data\":\"UklG\","
                   "\"format\":\"wav\"}}]}],\"model\":\"m\",\"stream\":false}");
}

Test(payload_media, no_media_keeps_a_bare_string)
{
    struct payload_spec spec = {
        .type = ENDPOINT_CHAT,
        .model = "m",
        .prompt = "Hi",
        .media = {.images = IMAGES, .image_count = 0},
    };
    expect_payload(&spec, "{\"messages\":[{\"role\":\"user\",\"content\":\"Hi\"}],\"model\":\"m\","
                          "\"stream\":false}");
}

Test(payload_media, responses_uses_input_parts_and_a_plain_image_url)
{
    struct payload_spec spec = {
        .type = ENDPOINT_RESPONSES,
        .model = "m",
        .prompt = "Hi",
        .media = {.images = IMAGES, .image_count = 1, .audios = AUDIOS, .audio_count = 1},
    };
    expect_payload(&spec, "{\"input\":[{\"role\":\"user\",\"content\":["
                          "{\"type\":\"input_text\",\"text\":\"Hi\"},"
                          "{\"type\":\"input_image\",\"image_url\":\"data:image/png;base64,iVBO\"},"
                          "{\"type\":\"input_audio\",\"input_audio\":{\"data\":\"UklG\","
                          "\"format\":\"wav\"}}],\"type\":\"message\"}],\"model\":\"m\","
                          "\"stream\":false}");
}

Test(payload_media, messages_sends_base64_and_url_image_sources)
{
    struct payload_spec spec = {
        .type = ENDPOINT_MESSAGES,
        .model = "m",
        .prompt = "Hi",
        .max_tokens = 5,
        .media = {.images = IMAGES, .image_count = 2},
    };
    expect_payload(&spec, "{\"messages\":[{\"role\":\"user\",\"content\":["
                          "{\"type\":\"text\",\"text\":\"Hi\"},"
                          "{\"type\":\"image\",\"source\":{\"type\":\"base64\",\"media_type\":"
                          "\"image/png\",\"data\":\"iVBO\"}},"
                          "{\"type\":\"image\",\"source\":{\"type\":\"url\",\"url\":"
                          "\"https://x.test/a.jpg\"}}]}],\"model\":\"m\",\"max_tokens\":5}");
}

Test(payload_media, empty_text_and_empty_entries_are_skipped)
{
    const char *const images[] = {"", "u"};
    struct payload_spec spec = {
        .type = ENDPOINT_CHAT,
        .model = "m",
        .prompt = "",
        .media = {.images = images, .image_count = 2},
    };
    expect_payload(&spec, "{\"messages\":[{\"role\":\"user\",\"content\":["
                          "{\"type\":\"image_url\",\"image_url\":{\"url\":\"u\"}}]}],"
                          "\"model\":\"m\",\"stream\":false}");
    spec.media.image_count = 1;
    expect_payload(&spec, "{\"messages\":[{\"role\":\"user\",\"content\":\"\"}],\"model\":\"m\","
                          "\"stream\":false}");
}

Test(payload_media, invalid_media_fails_with_a_message)
{
    const char *const no_comma[] = {"UklG"};
    const char *const bad_utf8[] = {"data:\xff"};
    struct payload_spec spec = {
        .type = ENDPOINT_CHAT,
        .model = "m",
        .prompt = "Hi",
        .media = {.audios = no_comma, .audio_count = 1},
    };
    expect_payload_error(&spec, "<format>,<base64>");
    spec.type = ENDPOINT_MESSAGES;
    spec.media.audios = AUDIOS;
    expect_payload_error(&spec, "cannot carry audio");
    spec.type = ENDPOINT_COMPLETIONS;
    expect_payload_error(&spec, "cannot carry images or audio");
    spec.type = ENDPOINT_CHAT;
    spec.media = (struct payload_media){.images = bad_utf8, .image_count = 1};
    expect_payload_error(&spec, "image 0");
    spec.type = ENDPOINT_IMAGE_RETRIEVAL;
    spec.media = (struct payload_media){
        .images = IMAGES, .image_count = 1, .audios = AUDIOS, .audio_count = 1};
    expect_payload_error(&spec, "images only");
}

Test(payload_media, image_retrieval_sends_each_image_as_an_input_without_a_model)
{
    const char *const images[] = {"data:image/png;base64,iVBO", "", "https://x.test/a.jpg"};
    struct payload_spec spec = {
        .type = ENDPOINT_IMAGE_RETRIEVAL,
        .model = "m",
        .prompt = "not sent",
        .max_tokens = 5,
        .extra_inputs_json = "{\"threshold\":0.5}",
        .media = {.images = images, .image_count = 3},
    };
    expect_payload(&spec, "{\"input\":[{\"type\":\"image_url\",\"url\":"
                          "\"data:image/png;base64,iVBO\"},{\"type\":\"image_url\",\"url\":"
                          "\"https://x.test/a.jpg\"}],\"threshold\":0.5}");
}
