/*
 * media_audio.c - synthetic audio: Gaussian noise as a PCM WAV file (the RIFF
 * header is written here) or as MP3 (libmp3lame), base64 after "<format>,".
 * The noise follows AIPerf: N(0, 0.3) clipped to [-1, 1], scaled to the bit
 * depth; 8-bit WAV is unsigned, as WAV requires.
 */
#include <errno.h>
#include <lame/lame.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "media/media_internal.h"

#define SALT_LENGTH 11u
#define SALT_CHOICE 12u
#define SALT_SAMPLES 13u
#define NOISE_SIGMA 0.3
#define LENGTH_S_MIN 0.01
#define WAV_HEADER_BYTES 44u

static const uint32_t MP3_RATES_HZ[] = {8000,  11025, 12000, 16000, 22050,
                                        24000, 32000, 44100, 48000};

static bool mp3_rate(uint32_t hz)
{
    for (size_t i = 0; i < sizeof(MP3_RATES_HZ) / sizeof(MP3_RATES_HZ[0]); i++) {
        if (MP3_RATES_HZ[i] == hz) {
            return true;
        }
    }
    return false;
}

uint32_t media_audio_sample_rate_hz(double value)
{
    if (!isfinite(value) || value <= 0 || value > 1e9) {
        return 0;
    }
    double hz = value > 96 ? value : value * 1000.0;
    return (uint32_t)llround(hz);
}

static int check_lists(const struct media_audio_options *opts, char *errbuf, size_t errcap)
{
    if (opts->sample_rate_count == 0 || opts->sample_rate_count > MEDIA_AUDIO_CHOICES_MAX ||
        opts->depth_count == 0 || opts->depth_count > MEDIA_AUDIO_CHOICES_MAX) {
        media__err(errbuf, errcap, "give 1..%u audio sample rates and bit depths",
                   MEDIA_AUDIO_CHOICES_MAX);
        return -EINVAL;
    }
    for (size_t i = 0; i < opts->depth_count; i++) {
        uint32_t d = opts->depths_bits[i];
        if (d != 8 && d != 16 && d != 24 && d != 32) {
            media__err(errbuf, errcap,
                       "unsupported audio bit depth %u; supported bit depths are 8, 16, 24, 32", d);
            return -EINVAL;
        }
    }
    for (size_t i = 0; i < opts->sample_rate_count; i++) {
        uint32_t hz = opts->sample_rates_hz[i];
        if (hz < MEDIA_AUDIO_RATE_HZ_MIN || hz > MEDIA_AUDIO_RATE_HZ_MAX) {
            media__err(errbuf, errcap, "audio sample rate %u Hz is outside %u..%u Hz", hz,
                       MEDIA_AUDIO_RATE_HZ_MIN, MEDIA_AUDIO_RATE_HZ_MAX);
            return -EINVAL;
        }
        if (opts->format == MEDIA_AUDIO_MP3 && !mp3_rate(hz)) {
            media__err(errbuf, errcap,
                       "MP3 supports only these sample rates (Hz): 8000, 11025, 12000, 16000, "
                       "22050, 24000, 32000, 44100, 48000; got %u Hz",
                       hz);
            return -EINVAL;
        }
    }
    return 0;
}

int media_audio_check(const struct media_audio_options *opts, char *errbuf, size_t errcap)
{
    if (!(opts->length_mean_s >= LENGTH_S_MIN && opts->length_mean_s <= MEDIA_AUDIO_SECONDS_MAX)) {
        media__err(errbuf, errcap, "the audio length mean must be within %g..%g seconds",
                   LENGTH_S_MIN, MEDIA_AUDIO_SECONDS_MAX);
        return -EINVAL;
    }
    if (!(opts->length_stddev_s >= 0 && opts->length_stddev_s <= MEDIA_AUDIO_SECONDS_MAX)) {
        media__err(errbuf, errcap, "the audio length stddev must be within 0..%g seconds",
                   MEDIA_AUDIO_SECONDS_MAX);
        return -EINVAL;
    }
    if ((unsigned)opts->format > MEDIA_AUDIO_MP3) {
        media__err(errbuf, errcap, "unknown audio format");
        return -EINVAL;
    }
    if (opts->channels < 1 || opts->channels > MEDIA_AUDIO_CHANNELS_MAX) {
        media__err(errbuf, errcap, "audio channels must be 1 or 2, got %u", opts->channels);
        return -EINVAL;
    }
    return check_lists(opts, errbuf, errcap);
}

/* clip is one drawn clip's shape. */
struct clip {
    uint32_t rate_hz;
    uint32_t depth_bits;
    uint32_t channels;
    size_t frames; /* samples per channel */
};

/* The next noise sample in [-1, 1]. */
static double noise(struct media__rng *rng)
{
    double v = NOISE_SIGMA * media__rng_normal(rng);
    return v < -1.0 ? -1.0 : v > 1.0 ? 1.0 : v;
}

static void put_le(uint8_t *p, uint32_t v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++) {
        p[i] = (uint8_t)(v >> (8 * i));
    }
}

/* The 44-byte RIFF/WAVE header of a PCM clip with data_bytes of samples. */
static void wav_header(uint8_t *p, const struct clip *c, uint32_t data_bytes)
{
    uint32_t block = c->channels * (c->depth_bits / 8);
    memcpy(p, "RIFF", 4);
    put_le(p + 4, 36 + data_bytes, 4);
    memcpy(p + 8, "WAVEfmt ", 8);
    put_le(p + 16, 16, 4);
    put_le(p + 20, 1, 2); /* WAVE_FORMAT_PCM */
    put_le(p + 22, c->channels, 2);
    put_le(p + 24, c->rate_hz, 4);
    put_le(p + 28, c->rate_hz * block, 4);
    put_le(p + 32, block, 2);
    put_le(p + 34, c->depth_bits, 2);
    memcpy(p + 36, "data", 4);
    put_le(p + 40, data_bytes, 4);
}

/* WAV bytes of the clip (malloc'd), or NULL. */
static uint8_t *encode_wav(struct media__rng *rng, const struct clip *c, size_t pcm_bytes,
                           size_t *out_len)
{
    uint8_t *out = malloc(WAV_HEADER_BYTES + pcm_bytes);
    if (out == NULL) {
        return NULL;
    }
    wav_header(out, c, (uint32_t)pcm_bytes);
    unsigned bytes = c->depth_bits / 8;
    uint8_t *p = out + WAV_HEADER_BYTES;
    size_t samples = c->frames * c->channels;
    for (size_t i = 0; i < samples; i++, p += bytes) {
        double v = noise(rng);
        if (c->depth_bits == 8) {
            /* AIPerf scales to 16 bits and lets libsndfile convert to unsigned 8. */
            int32_t s16 = (int32_t)(v * 32767.0);
            *p = (uint8_t)((s16 >> 8) + 128);
        } else {
            double max = (double)((1u << (c->depth_bits - 1)) - 1u);
            put_le(p, (uint32_t)(int32_t)(v * max), bytes);
        }
    }
    *out_len = WAV_HEADER_BYTES + pcm_bytes;
    return out;
}

/* MP3 bytes of the clip (malloc'd), or NULL. lame takes 16-bit PCM whatever the
 * depth asked for: MP3 has no bit depth. */
static uint8_t *encode_mp3(struct media__rng *rng, const struct clip *c, size_t *out_len)
{
    size_t samples = c->frames * c->channels;
    short *pcm = malloc(samples * sizeof(*pcm));
    size_t cap = c->frames + c->frames / 4 + 7200;
    uint8_t *out = malloc(cap);
    lame_global_flags *lame = lame_init();
    if (pcm == NULL || out == NULL || lame == NULL) {
        goto fail;
    }
    for (size_t i = 0; i < samples; i++) {
        pcm[i] = (short)(noise(rng) * 32767.0);
    }
    lame_set_in_samplerate(lame, (int)c->rate_hz);
    lame_set_out_samplerate(lame, (int)c->rate_hz);
    lame_set_num_channels(lame, (int)c->channels);
    lame_set_mode(lame, c->channels == 1 ? MONO : JOINT_STEREO);
    lame_set_bWriteVbrTag(lame, 0);
    if (lame_init_params(lame) < 0) {
        goto fail;
    }
    int n = c->channels == 1
                ? lame_encode_buffer(lame, pcm, pcm, (int)c->frames, out, (int)cap)
                : lame_encode_buffer_interleaved(lame, pcm, (int)c->frames, out, (int)cap);
    int tail = n >= 0 ? lame_encode_flush(lame, out + n, (int)(cap - (size_t)n)) : -1;
    if (tail < 0) {
        goto fail;
    }
    lame_close(lame);
    free(pcm);
    *out_len = (size_t)n + (size_t)tail;
    return out;

fail:
    if (lame != NULL) {
        lame_close(lame);
    }
    free(out);
    free(pcm);
    return NULL;
}

/* draw_clip picks the clip's length, rate and depth from seed. */
static int draw_clip(const struct media_audio_options *opts, uint64_t seed, struct clip *c,
                     char *errbuf, size_t errcap)
{
    struct media__rng rng;
    media__rng_seed(&rng, seed, SALT_LENGTH);
    double length_s = opts->length_mean_s + opts->length_stddev_s * media__rng_normal(&rng);
    length_s = length_s < LENGTH_S_MIN              ? LENGTH_S_MIN
               : length_s > MEDIA_AUDIO_SECONDS_MAX ? MEDIA_AUDIO_SECONDS_MAX
                                                    : length_s;
    media__rng_seed(&rng, seed, SALT_CHOICE);
    c->rate_hz = opts->sample_rates_hz[media__rng_below(&rng, opts->sample_rate_count)];
    c->depth_bits = opts->depths_bits[media__rng_below(&rng, opts->depth_count)];
    c->channels = opts->channels;
    c->frames = (size_t)(length_s * c->rate_hz);
    c->frames = c->frames > 0 ? c->frames : 1;
    double pcm_bytes = (double)c->frames * c->channels * (c->depth_bits / 8);
    if (pcm_bytes > MEDIA_AUDIO_PCM_BYTES_MAX) {
        media__err(errbuf, errcap,
                   "a %.2f s clip at %u Hz, %u bits, %u channel(s) exceeds %u MiB of PCM; "
                   "lower the audio length or sample rate",
                   length_s, c->rate_hz, c->depth_bits, c->channels,
                   MEDIA_AUDIO_PCM_BYTES_MAX >> 20);
        return -EINVAL;
    }
    return 0;
}

int media_audio_generate(const struct media_audio_options *opts, uint64_t seed, char **out_text,
                         size_t *out_len, char *errbuf, size_t errcap)
{
    media__err(errbuf, errcap, "%s", "");
    struct clip c;
    if (media_audio_check(opts, errbuf, errcap) != 0 ||
        draw_clip(opts, seed, &c, errbuf, errcap) != 0) {
        return -EINVAL;
    }
    struct media__rng rng;
    media__rng_seed(&rng, seed, SALT_SAMPLES);
    size_t len = 0;
    bool mp3 = opts->format == MEDIA_AUDIO_MP3;
    uint8_t *encoded = mp3 ? encode_mp3(&rng, &c, &len)
                           : encode_wav(&rng, &c, c.frames * c.channels * (c.depth_bits / 8), &len);
    if (encoded == NULL) {
        media__err(errbuf, errcap, "cannot encode a %s clip of %zu frames at %u Hz",
                   mp3 ? "MP3" : "WAV", c.frames, c.rate_hz);
        return mp3 ? -EINVAL : -ENOMEM;
    }
    char *text = media_base64(mp3 ? "mp3," : "wav,", encoded, len, out_len);
    free(encoded);
    if (text == NULL) {
        media__err(errbuf, errcap, "out of memory encoding an audio clip");
        return -ENOMEM;
    }
    *out_text = text;
    return 0;
}
