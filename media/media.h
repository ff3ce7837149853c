/*
 * media.h - deterministic synthetic images and audio for multimodal requests.
 *
 * AIPerf's --image-* and --audio-* flags (shared/spec/aiperf-reference.md §1.5)
 * attach generated media to each synthetic prompt. This module makes them from a
 * seed, so the same seed always gives the same bytes:
 *   - images: width and height drawn from N(mean, stddev) (rounded, at least 1 px,
 *     at most MEDIA_IMAGE_SIDE_PX_MAX), filled with a seeded pattern or seeded
 *     noise, encoded as PNG (libpng) or JPEG (libturbojpeg), returned as a
 *     "data:image/<png|jpeg>;base64,..." URI, which is what AIPerf sends;
 *   - audio: a length drawn from N(mean, stddev) seconds (at least 0.01 s), a
 *     sample rate and a bit depth picked from lists, Gaussian noise, encoded as a
 *     PCM WAV file (written here) or MP3 (libmp3lame), returned as AIPerf's
 *     "<format>,<base64>" string.
 * Everything here runs before a benchmark starts and allocates freely; nothing
 * keeps global state.
 */
#ifndef RINGPERF_MEDIA_H
#define RINGPERF_MEDIA_H

#include <stddef.h>
#include <stdint.h>

/* Limits. A request past one fails with a message naming it. */
#define MEDIA_IMAGE_SIDE_PX_MAX 4096u /* width or height of one image */
#define MEDIA_AUDIO_SECONDS_MAX 600.0 /* length of one audio clip */
#define MEDIA_AUDIO_RATE_HZ_MIN 1000u /* sample rate bounds */
#define MEDIA_AUDIO_RATE_HZ_MAX 384000u
#define MEDIA_AUDIO_CHANNELS_MAX 2u            /* AIPerf allows mono or stereo */
#define MEDIA_AUDIO_PCM_BYTES_MAX (256u << 20) /* PCM bytes of one clip before encoding */
#define MEDIA_AUDIO_CHOICES_MAX 32u            /* entries in the rate and depth lists */

/* media_image_format is --image-format. RANDOM picks PNG or JPEG per image. */
enum media_image_format { MEDIA_IMAGE_PNG, MEDIA_IMAGE_JPEG, MEDIA_IMAGE_RANDOM };

/* media_image_fill is what the pixels hold: a seeded pattern of gradients and
 * rectangles (compresses like a picture; stands in for AIPerf's bundled
 * "assets" photos), or seeded RGB noise (AIPerf's "noise" source). */
enum media_image_fill { MEDIA_FILL_PATTERN, MEDIA_FILL_NOISE };

/* media_image_options describes the images of a run; caller-owned. */
struct media_image_options {
    double width_mean_px;   /* > 0 */
    double width_stddev_px; /* >= 0 */
    double height_mean_px;  /* > 0 */
    double height_stddev_px;
    enum media_image_format format;
    enum media_image_fill fill;
};

/* media_audio_format is --audio-format. */
enum media_audio_format { MEDIA_AUDIO_WAV, MEDIA_AUDIO_MP3 };

/* media_audio_options describes the audio clips of a run; caller-owned. */
struct media_audio_options {
    double length_mean_s;   /* >= 0.01 */
    double length_stddev_s; /* >= 0 */
    enum media_audio_format format;
    uint32_t sample_rates_hz[MEDIA_AUDIO_CHOICES_MAX]; /* one is picked per clip */
    size_t sample_rate_count;                          /* 1..MEDIA_AUDIO_CHOICES_MAX */
    uint32_t depths_bits[MEDIA_AUDIO_CHOICES_MAX];     /* 8, 16, 24 or 32 */
    size_t depth_count;                                /* 1..MEDIA_AUDIO_CHOICES_MAX */
    uint32_t channels;                                 /* 1 or 2 */
};

/* media_image_check validates opts (means > 0 and at most MEDIA_IMAGE_SIDE_PX_MAX,
 * stddevs >= 0, known format and fill). Returns 0, or -EINVAL with a one-line
 * message in errbuf (errcap bytes; NULL/0 discards it). */
int media_image_check(const struct media_image_options *opts, char *errbuf, size_t errcap);

/* media_image_generate makes the image of `seed`: its data URI in *out_uri
 * (malloc'd, NUL-terminated, the caller frees it) and its length in *out_len.
 * The same opts and seed give the same bytes. Returns 0; -EINVAL (bad opts, with
 * a message) or -ENOMEM; nothing is written to the outputs on error. */
int media_image_generate(const struct media_image_options *opts, uint64_t seed, char **out_uri,
                         size_t *out_len, char *errbuf, size_t errcap);

/* media_audio_sample_rate_hz converts one --audio-sample-rates value to Hz as
 * AIPerf does: values up to 96 are kHz (16 -> 16000, 22.05 -> 22050), larger
 * ones are already Hz. Returns 0 for a value that is not finite and > 0. */
uint32_t media_audio_sample_rate_hz(double value);

/* media_audio_check validates opts: length bounds, every depth in {8,16,24,32},
 * every rate within MEDIA_AUDIO_RATE_HZ_MIN..MAX and, for MP3, one of MPEG's
 * 8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000 Hz; channels 1
 * or 2. Returns 0, or -EINVAL with a one-line message naming the value and
 * the allowed ones in errbuf. */
int media_audio_check(const struct media_audio_options *opts, char *errbuf, size_t errcap);

/* media_audio_generate makes the clip of `seed`: "<wav|mp3>,<base64>" in
 * *out_text (malloc'd, NUL-terminated; the caller frees it) and its length in
 * *out_len. The same opts and seed give the same bytes. Returns 0; -EINVAL (bad
 * opts, a clip over MEDIA_AUDIO_PCM_BYTES_MAX, or an encoder failure, with a
 * message) or -ENOMEM; nothing is written to the outputs on error. */
int media_audio_generate(const struct media_audio_options *opts, uint64_t seed, char **out_text,
                         size_t *out_len, char *errbuf, size_t errcap);

/* media_base64 encodes len bytes of data as standard padded base64 after
 * `prefix` (may be NULL): returns "<prefix><base64>" (malloc'd, NUL-terminated,
 * the caller frees it) and its length in *out_len, or NULL when out of memory. */
char *media_base64(const char *prefix, const uint8_t *data, size_t len, size_t *out_len);

#endif
