/*
 * media_audio_generate: WAV headers read back with the drawn rate, depth,
 * channels and length; MP3 output starts with a frame sync; same seed, same
 * bytes; sample-rate conversion as AIPerf; invalid options fail clearly.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "media/media.h"

#include "b64_decode.h"

static struct media_audio_options opts_of(double seconds, uint32_t rate_hz, uint32_t depth)
{
    struct media_audio_options o = {
        .length_mean_s = seconds,
        .format = MEDIA_AUDIO_WAV,
        .sample_rate_count = 1,
        .depth_count = 1,
        .channels = 1,
    };
    o.sample_rates_hz[0] = rate_hz;
    o.depths_bits[0] = depth;
    return o;
}

static uint32_t le(const uint8_t *p, unsigned bytes)
{
    uint32_t v = 0;
    for (unsigned i = 0; i < bytes; i++) {
        v |= (uint32_t)p[i] << (8 * i);
    }
    return v;
}

/* Generates a clip and returns its decoded file bytes; checks the prefix. */
static size_t clip_bytes(const struct media_audio_options *o, uint64_t seed, const char *prefix,
                         uint8_t **out)
{
    char *text = NULL;
    size_t len = 0;
    char err[256];
    cr_assert_eq(media_audio_generate(o, seed, &text, &len, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(strlen(text), len);
    cr_assert(strncmp(text, prefix, strlen(prefix)) == 0, "prefix %.8s", text);
    size_t n = b64_decode(text + strlen(prefix), len - strlen(prefix), out);
    free(text);
    return n;
}

Test(media_audio, wav_header_reads_back)
{
    const uint32_t depths[] = {8, 16, 24, 32};
    for (size_t i = 0; i < 4; i++) {
        struct media_audio_options o = opts_of(0.5, 16000, depths[i]);
        o.channels = 2;
        uint8_t *b = NULL;
        size_t n = clip_bytes(&o, 3, "wav,", &b);
        uint32_t block = 2 * depths[i] / 8;
        cr_assert(memcmp(b, "RIFF", 4) == 0 && memcmp(b + 8, "WAVEfmt ", 8) == 0);
        cr_assert_eq(le(b + 4, 4), n - 8);
        cr_assert_eq(le(b + 20, 2), 1);
        cr_assert_eq(le(b + 22, 2), 2);
        cr_assert_eq(le(b + 24, 4), 16000);
        cr_assert_eq(le(b + 28, 4), 16000 * block);
        cr_assert_eq(le(b + 32, 2), block);
        cr_assert_eq(le(b + 34, 2), depths[i]);
        cr_assert(memcmp(b + 36, "data", 4) == 0);
        cr_assert_eq(le(b + 40, 4), 8000 * block, "0.5 s at 16 kHz is 8000 frames");
        cr_assert_eq(n, 44 + 8000 * block);
        free(b);
    }
}

Test(media_audio, eight_bit_wav_is_unsigned_noise_around_128)
{
    struct media_audio_options o = opts_of(0.1, 8000, 8);
    uint8_t *b = NULL;
    size_t n = clip_bytes(&o, 9, "wav,", &b);
    double sum = 0;
    for (size_t i = 44; i < n; i++) {
        sum += b[i];
    }
    double mean = sum / (double)(n - 44);
    cr_assert(mean > 118 && mean < 138, "mean %f", mean);
    free(b);
}

Test(media_audio, mp3_starts_with_a_frame_sync)
{
    const uint32_t rates[] = {8000, 16000, 44100};
    for (size_t i = 0; i < 3; i++) {
        struct media_audio_options o = opts_of(0.3, rates[i], 16);
        o.format = MEDIA_AUDIO_MP3;
        o.channels = (uint32_t)(1 + i % 2);
        uint8_t *b = NULL;
        size_t n = clip_bytes(&o, 5, "mp3,", &b);
        cr_assert_gt(n, 4);
        cr_assert(b[0] == 0xff && (b[1] & 0xe0) == 0xe0, "frame sync %02x %02x", b[0], b[1]);
        free(b);
    }
}

Test(media_audio, same_seed_same_bytes_and_lengths_vary)
{
    struct media_audio_options o = opts_of(0.2, 16000, 16);
    o.length_stddev_s = 0.05;
    o.sample_rates_hz[1] = 24000;
    o.sample_rate_count = 2;
    char *a = NULL;
    char *b = NULL;
    size_t la = 0;
    size_t lb = 0;
    cr_assert_eq(media_audio_generate(&o, 77, &a, &la, NULL, 0), 0);
    cr_assert_eq(media_audio_generate(&o, 77, &b, &lb, NULL, 0), 0);
    cr_assert_eq(la, lb);
    cr_assert(memcmp(a, b, la) == 0);
    bool varied = false;
    for (uint64_t seed = 0; seed < 8 && !varied; seed++) {
        char *c = NULL;
        size_t lc = 0;
        cr_assert_eq(media_audio_generate(&o, seed, &c, &lc, NULL, 0), 0);
        varied = lc != la;
        free(c);
    }
    cr_assert(varied);
    free(a);
    free(b);
}

Test(media_audio, sample_rates_are_khz_up_to_96_else_hz)
{
    cr_assert_eq(media_audio_sample_rate_hz(16), 16000);
    cr_assert_eq(media_audio_sample_rate_hz(22.05), 22050);
    cr_assert_eq(media_audio_sample_rate_hz(96), 96000);
    cr_assert_eq(media_audio_sample_rate_hz(44100), 44100);
    cr_assert_eq(media_audio_sample_rate_hz(0), 0);
    cr_assert_eq(media_audio_sample_rate_hz(-16), 0);
}

Test(media_audio, invalid_options_fail_with_a_message)
{
    struct media_audio_options bad[6];
    bad[0] = opts_of(0.001, 16000, 16);
    bad[1] = opts_of(1, 16000, 12);
    bad[2] = opts_of(1, 16000, 16);
    bad[2].channels = 3;
    bad[3] = opts_of(1, 7000, 16);
    bad[3].format = MEDIA_AUDIO_MP3;
    bad[4] = opts_of(1, 500, 16);
    bad[5] = opts_of(MEDIA_AUDIO_SECONDS_MAX, 384000, 32);
    bad[5].channels = 2;
    for (size_t i = 0; i < 6; i++) {
        char err[256] = "";
        char *text = (char *)"untouched";
        size_t len = 3;
        cr_assert_eq(media_audio_generate(&bad[i], 1, &text, &len, err, sizeof(err)), -EINVAL,
                     "case %zu", i);
        cr_assert(err[0] != '\0', "case %zu has a message", i);
        cr_assert_str_eq(text, "untouched");
    }
}
