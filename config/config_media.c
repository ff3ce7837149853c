/*
 * config_media.c - the checks of the --image-* and --audio-* flags, after all
 * flags are read: which endpoints carry media, the image source, and the audio
 * bit depths and sample rates (AIPerf's rules: kHz values, > 96 meaning Hz,
 * MPEG's rates for mp3).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"

static const double MP3_RATES_HZ[] = {8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000};

/* A finite number spelled exactly by s, or NAN. */
static double number_of(const char *s)
{
    char *end = NULL;
    double v = strtod(s, &end);
    return end != s && *end == '\0' && isfinite(v) ? v : NAN;
}

/* A rate value in Hz as AIPerf reads it: kHz up to 96, else Hz. */
static double rate_hz(double v)
{
    return v > 96 ? v : v * 1000.0;
}

static bool mp3_rate(double hz)
{
    for (size_t i = 0; i < sizeof(MP3_RATES_HZ) / sizeof(MP3_RATES_HZ[0]); i++) {
        if (fabs(MP3_RATES_HZ[i] - hz) < 0.5) {
            return true;
        }
    }
    return false;
}

static int check_audio_lists(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    for (size_t i = 0; i < cfg->audio_depths.count; i++) {
        double d = number_of(cfg->audio_depths.items[i]);
        if (d != 8 && d != 16 && d != 24 && d != 32) {
            return config__fail(errbuf, errcap,
                                "--audio-depths %s: supported bit depths are 8, 16, 24, 32",
                                cfg->audio_depths.items[i]);
        }
    }
    for (size_t i = 0; i < cfg->audio_sample_rates.count; i++) {
        const char *item = cfg->audio_sample_rates.items[i];
        double hz = rate_hz(number_of(item));
        if (!(hz >= 1000 && hz <= 384000)) {
            return config__fail(errbuf, errcap,
                                "--audio-sample-rates %s: give a rate in kHz (e.g. 16 or 44.1; "
                                "values above 96 are Hz) between 1 kHz and 384 kHz",
                                item);
        }
        if (cfg->audio_format == CONFIG_AUDIO_MP3 && !mp3_rate(hz)) {
            return config__fail(errbuf, errcap,
                                "--audio-sample-rates %s: --audio-format mp3 supports only 8, "
                                "11.025, 12, 16, 22.05, 24, 32, 44.1 and 48 kHz; pick one of "
                                "them or use --audio-format wav",
                                item);
        }
    }
    return 0;
}

static int check_audio(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    if (cfg->audio_length_mean_seconds > 0 && cfg->audio_length_mean_seconds < 0.01) {
        return config__fail(errbuf, errcap,
                            "--audio-length-mean must be at least 0.01 seconds (or 0 for no "
                            "audio)");
    }
    int rc = check_audio_lists(cfg, errbuf, errcap);
    if (rc != 0 || cfg->audio_length_mean_seconds <= 0 || cfg->audio_batch_size == 0) {
        return rc;
    }
    enum config_endpoint_type t = cfg->endpoint_type;
    if (t != CONFIG_ENDPOINT_CHAT && t != CONFIG_ENDPOINT_RESPONSES &&
        t != CONFIG_ENDPOINT_AUDIO_TRANSCRIPTION) {
        return config__fail(errbuf, errcap,
                            "--audio-length-mean: --endpoint-type %s cannot carry audio; use "
                            "chat, responses or audio_transcription (or drop the --audio-* flags)",
                            config_endpoint_type_name(t));
    }
    return 0;
}

static int check_images(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    const char *src = cfg->image_source;
    if (src != NULL && strcmp(src, "assets") != 0 && strcmp(src, "noise") != 0) {
        return config__fail(errbuf, errcap,
                            "--image-source %s: reading images from a directory is not "
                            "supported yet; use --image-source noise or assets",
                            src);
    }
    bool width = cfg->image_width_mean_px > 0;
    bool height = cfg->image_height_mean_px > 0;
    if (width != height) {
        return config__fail(errbuf, errcap,
                            "--image-width-mean and --image-height-mean go together: give both "
                            "(e.g. --image-width-mean 512 --image-height-mean 512)");
    }
    enum config_endpoint_type t = cfg->endpoint_type;
    if (width && cfg->image_batch_size > 0 && t != CONFIG_ENDPOINT_CHAT &&
        t != CONFIG_ENDPOINT_RESPONSES && t != CONFIG_ENDPOINT_MESSAGES &&
        t != CONFIG_ENDPOINT_IMAGE_RETRIEVAL && t != CONFIG_ENDPOINT_IMAGE_EDIT) {
        return config__fail(errbuf, errcap,
                            "--image-width-mean: --endpoint-type %s cannot carry images; use "
                            "chat, responses, messages, image_retrieval or image_edit (or drop the "
                            "--image-* flags)",
                            config_endpoint_type_name(t));
    }
    return 0;
}

int config__check_media(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    int rc = check_images(cfg, errbuf, errcap);
    return rc != 0 ? rc : check_audio(cfg, errbuf, errcap);
}
