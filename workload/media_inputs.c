/*
 * media_inputs.c - each synthetic dataset entry's images and audio clips, as
 * AIPerf's synthetic composer attaches them: --image-batch-size images and
 * --audio-batch-size clips per entry, from generators seeded by the run.
 */
#include "workload/workload_media.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Spreads (seed, entry, kind, index) over 64 bits (splitmix64's finaliser). */
static uint64_t item_seed(uint64_t seed, size_t entry, uint64_t kind, size_t index)
{
    uint64_t z = seed ^ (0x9e3779b97f4a7c15ULL * (entry + 1)) ^ (kind << 56) ^
                 ((uint64_t)index * 0xc2b2ae3d27d4eb4fULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static bool images_on(const struct profile_config *cfg)
{
    return cfg->image_width_mean_px > 0 && cfg->image_height_mean_px > 0 &&
           cfg->image_batch_size > 0;
}

static bool audio_on(const struct profile_config *cfg)
{
    return cfg->audio_length_mean_seconds > 0 && cfg->audio_batch_size > 0;
}

static struct media_image_options image_options(const struct profile_config *cfg)
{
    return (struct media_image_options){
        .width_mean_px = cfg->image_width_mean_px,
        .width_stddev_px = cfg->image_width_stddev_px,
        .height_mean_px = cfg->image_height_mean_px,
        .height_stddev_px = cfg->image_height_stddev_px,
        .format = cfg->image_format == CONFIG_IMAGE_JPEG     ? MEDIA_IMAGE_JPEG
                  : cfg->image_format == CONFIG_IMAGE_RANDOM ? MEDIA_IMAGE_RANDOM
                                                             : MEDIA_IMAGE_PNG,
        .fill = cfg->image_source != NULL && strcmp(cfg->image_source, "noise") == 0
                    ? MEDIA_FILL_NOISE
                    : MEDIA_FILL_PATTERN,
    };
}

/* audio_options reads the depth and rate lists (checked by config; AIPerf's
 * default is [16] for both). Returns 0 or -EINVAL with a message. */
static int audio_options(const struct profile_config *cfg, struct media_audio_options *o)
{
    *o = (struct media_audio_options){
        .length_mean_s = cfg->audio_length_mean_seconds,
        .length_stddev_s = cfg->audio_length_stddev_seconds,
        .format = cfg->audio_format == CONFIG_AUDIO_MP3 ? MEDIA_AUDIO_MP3 : MEDIA_AUDIO_WAV,
        .channels = (uint32_t)cfg->audio_num_channels,
    };
    const struct config_strlist *depths = &cfg->audio_depths;
    const struct config_strlist *rates = &cfg->audio_sample_rates;
    if (depths->count > MEDIA_AUDIO_CHOICES_MAX || rates->count > MEDIA_AUDIO_CHOICES_MAX) {
        fprintf(stderr,
                "ringperf profile: --audio-depths and --audio-sample-rates take at most %u "
                "values each\n",
                MEDIA_AUDIO_CHOICES_MAX);
        return -EINVAL;
    }
    for (size_t i = 0; i < depths->count; i++) {
        o->depths_bits[o->depth_count++] = (uint32_t)strtoul(depths->items[i], NULL, 10);
    }
    for (size_t i = 0; i < rates->count; i++) {
        o->sample_rates_hz[o->sample_rate_count++] =
            media_audio_sample_rate_hz(strtod(rates->items[i], NULL));
    }
    if (o->depth_count == 0) {
        o->depths_bits[o->depth_count++] = 16;
    }
    if (o->sample_rate_count == 0) {
        o->sample_rates_hz[o->sample_rate_count++] = 16000;
    }
    char err[256];
    if (media_audio_check(o, err, sizeof(err)) != 0) {
        fprintf(stderr, "ringperf profile: --audio-*: %s\n", err);
        return -EINVAL;
    }
    return 0;
}

static int make_images(const struct profile_config *cfg, uint64_t seed, size_t entry,
                       struct workload_media_set *out)
{
    struct media_image_options o = image_options(cfg);
    size_t n = (size_t)cfg->image_batch_size;
    char err[256];
    for (size_t k = 0; k < n && k < CONFIG_MEDIA_BATCH_MAX; k++) {
        size_t len = 0;
        int ret = media_image_generate(&o, item_seed(seed, entry, 1, k), &out->images[k], &len, err,
                                       sizeof(err));
        if (ret != 0) {
            fprintf(stderr, "ringperf profile: --image-*: %s\n", err);
            return ret;
        }
        out->image_count++;
    }
    return 0;
}

static int make_audio(const struct profile_config *cfg, uint64_t seed, size_t entry,
                      struct workload_media_set *out)
{
    struct media_audio_options o;
    int ret = audio_options(cfg, &o);
    size_t n = (size_t)cfg->audio_batch_size;
    char err[256];
    for (size_t k = 0; ret == 0 && k < n && k < CONFIG_MEDIA_BATCH_MAX; k++) {
        size_t len = 0;
        ret = media_audio_generate(&o, item_seed(seed, entry, 2, k), &out->audios[k], &len, err,
                                   sizeof(err));
        if (ret != 0) {
            fprintf(stderr, "ringperf profile: --audio-*: %s\n", err);
            break;
        }
        out->audio_count++;
    }
    return ret;
}

int workload_media_for_entry(const struct profile_config *cfg, uint64_t seed, size_t entry,
                             struct workload_media_set *out)
{
    memset(out, 0, sizeof(*out));
    int ret = images_on(cfg) ? make_images(cfg, seed, entry, out) : 0;
    if (ret == 0 && audio_on(cfg)) {
        ret = make_audio(cfg, seed, entry, out);
    }
    if (ret != 0) {
        workload_media_set_free(out);
        return ret;
    }
    workload_media_set_view(out);
    return 0;
}

void workload_media_set_view(struct workload_media_set *set)
{
    set->view = (struct payload_media){
        .images = (const char *const *)set->images,
        .image_count = set->image_count,
        .audios = (const char *const *)set->audios,
        .audio_count = set->audio_count,
    };
}

void workload_media_set_free(struct workload_media_set *set)
{
    for (size_t i = 0; i < set->image_count; i++) {
        free(set->images[i]);
    }
    for (size_t i = 0; i < set->audio_count; i++) {
        free(set->audios[i]);
    }
    memset(set, 0, sizeof(*set));
}
