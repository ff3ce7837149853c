/*
 * --image-* and --audio-*: AIPerf's defaults, the values stored, and the
 * errors that name the flag and the fix.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config/config.h"

#define MAX_WORDS 32

/* parse splits words at spaces and parses them after "--model m". */
static int parse(const char *words, struct profile_config *cfg, char *err, size_t errcap)
{
    char buf[512];
    char *argv[MAX_WORDS] = {"--model", "m"};
    int argc = 2;
    snprintf(buf, sizeof(buf), "%s", words);
    for (char *p = buf; *p != '\0' && argc < MAX_WORDS;) {
        argv[argc++] = p;
        char *space = strchr(p, ' ');
        if (space == NULL) {
            break;
        }
        *space = '\0';
        p = space + 1;
    }
    return config_parse_profile(argc, argv, cfg, err, errcap);
}

Test(media_flags, defaults_follow_aiperf)
{
    struct profile_config c;
    char err[512];
    cr_assert_eq(parse("--url localhost:1", &c, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(c.image_batch_size, 1);
    cr_assert_eq(c.audio_batch_size, 1);
    cr_assert_eq(c.audio_num_channels, 1);
    cr_assert_eq(c.image_width_mean_px, 0);
    cr_assert_eq(c.audio_length_mean_seconds, 0);
    cr_assert_eq(c.image_format, CONFIG_IMAGE_PNG);
    cr_assert_eq(c.audio_format, CONFIG_AUDIO_WAV);
    cr_assert_null(c.image_source);
    cr_assert_eq(c.audio_depths.count, 0);
    cr_assert_eq(c.audio_sample_rates.count, 0);
    config_free(&c);
}

Test(media_flags, values_are_stored)
{
    struct profile_config c;
    char err[512];
    cr_assert_eq(parse("--image-width-mean 512 --image-height-mean 256 --image-width-stddev 4 "
                       "--image-batch-size 3 --image-format random --image-source noise "
                       "--image-source-sampling shuffle_cycle --audio-length-mean 5.0 "
                       "--audio-length-stddev 1 --audio-format mp3 --audio-depths 16,24 "
                       "--audio-sample-rates 16 44.1 --audio-num-channels 2 --batch-size-audio 2",
                       &c, err, sizeof(err)),
                 0, "%s", err);
    cr_assert_eq(c.image_width_mean_px, 512);
    cr_assert_eq(c.image_height_mean_px, 256);
    cr_assert_eq(c.image_width_stddev_px, 4);
    cr_assert_eq(c.image_batch_size, 3);
    cr_assert_eq(c.image_format, CONFIG_IMAGE_RANDOM);
    cr_assert_str_eq(c.image_source, "noise");
    cr_assert_eq(c.audio_length_mean_seconds, 5.0);
    cr_assert_eq(c.audio_format, CONFIG_AUDIO_MP3);
    cr_assert_eq(c.audio_depths.count, 2);
    cr_assert_str_eq(c.audio_sample_rates.items[1], "44.1");
    cr_assert_eq(c.audio_num_channels, 2);
    cr_assert_eq(c.audio_batch_size, 2);
    config_free(&c);
}

Test(media_flags, invalid_values_name_the_flag)
{
    static const char *const CASES[][2] = {
        {"--image-width-mean 64", "--image-height-mean"},
        {"--image-width-mean 8 --image-height-mean 8 --image-source ./imgs", "--image-source"},
        {"--image-format gif", "--image-format"},
        {"--image-width-mean 5000", "--image-width-mean"},
        {"--image-batch-size 65", "--image-batch-size"},
        {"--audio-depths 12", "--audio-depths"},
        {"--audio-sample-rates fast", "--audio-sample-rates"},
        {"--audio-format mp3 --audio-sample-rates 17", "--audio-sample-rates"},
        {"--audio-num-channels 3", "--audio-num-channels"},
        {"--audio-length-mean 0.001", "--audio-length-mean"},
        {"--endpoint-type embeddings --image-width-mean 8 --image-height-mean 8",
         "--image-width-mean"},
        {"--endpoint-type messages --audio-length-mean 1", "--audio-length-mean"},
    };
    for (size_t i = 0; i < sizeof(CASES) / sizeof(CASES[0]); i++) {
        struct profile_config c;
        char err[512] = "";
        cr_assert_eq(parse(CASES[i][0], &c, err, sizeof(err)), -EINVAL, "%s", CASES[i][0]);
        cr_assert(strstr(err, CASES[i][1]) != NULL, "%s: '%s' names %s", CASES[i][0], err,
                  CASES[i][1]);
        config_free(&c);
    }
}

Test(media_flags, mp3_accepts_mpeg_rates_in_khz_and_hz)
{
    struct profile_config c;
    char err[512];
    cr_assert_eq(parse("--audio-format mp3 --audio-length-mean 1 --audio-sample-rates "
                       "8,11.025,22.05,44100,48",
                       &c, err, sizeof(err)),
                 0, "%s", err);
    config_free(&c);
}
