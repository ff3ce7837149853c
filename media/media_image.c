/*
 * media_image.c - synthetic images: seeded pixels encoded as PNG (libpng's
 * simplified write API, which needs no setjmp) or JPEG (libturbojpeg), in a
 * base64 data URI.
 */
#include <errno.h>
#include <math.h>
#include <png.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

#include "media/media_internal.h"

/* Salts that keep the draws of one seed independent. */
#define SALT_SIZE 1u
#define SALT_FORMAT 2u
#define SALT_PIXELS 3u
#define PATTERN_RECTS 6u
#define JPEG_QUALITY 75 /* Pillow's default, which AIPerf's encoder uses */

int media_image_check(const struct media_image_options *opts, char *errbuf, size_t errcap)
{
    const double max = MEDIA_IMAGE_SIDE_PX_MAX;
    if (!(opts->width_mean_px > 0 && opts->width_mean_px <= max && opts->height_mean_px > 0 &&
          opts->height_mean_px <= max)) {
        media__err(errbuf, errcap, "image width and height means must be within 1..%u px",
                   MEDIA_IMAGE_SIDE_PX_MAX);
        return -EINVAL;
    }
    if (!(opts->width_stddev_px >= 0 && opts->width_stddev_px <= max &&
          opts->height_stddev_px >= 0 && opts->height_stddev_px <= max)) {
        media__err(errbuf, errcap, "image size stddevs must be within 0..%u px",
                   MEDIA_IMAGE_SIDE_PX_MAX);
        return -EINVAL;
    }
    if ((unsigned)opts->format > MEDIA_IMAGE_RANDOM || (unsigned)opts->fill > MEDIA_FILL_NOISE) {
        media__err(errbuf, errcap, "unknown image format or fill");
        return -EINVAL;
    }
    return 0;
}

/* A side length from N(mean, stddev), rounded, within 1..MEDIA_IMAGE_SIDE_PX_MAX. */
static uint32_t image_side(struct media__rng *rng, double mean, double stddev)
{
    double v = stddev > 0 ? mean + stddev * media__rng_normal(rng) : mean;
    v = round(v);
    if (!(v >= 1)) {
        return 1;
    }
    return v > MEDIA_IMAGE_SIDE_PX_MAX ? MEDIA_IMAGE_SIDE_PX_MAX : (uint32_t)v;
}

static void fill_noise(struct media__rng *rng, uint8_t *rgb, size_t bytes)
{
    size_t i = 0;
    while (i < bytes) {
        uint64_t r = media__rng_next(rng);
        for (int k = 0; k < 8 && i < bytes; k++, i++) {
            rgb[i] = (uint8_t)(r >> (8 * k));
        }
    }
}

/* A diagonal gradient between two seeded colours with seeded solid rectangles
 * on top: cheap, deterministic, and it compresses like a drawing. */
static void fill_pattern(struct media__rng *rng, uint8_t *rgb, uint32_t w, uint32_t h)
{
    uint8_t a[3];
    uint8_t b[3];
    for (int c = 0; c < 3; c++) {
        a[c] = (uint8_t)media__rng_below(rng, 256);
        b[c] = (uint8_t)media__rng_below(rng, 256);
    }
    uint64_t span = (uint64_t)w + h;
    for (uint32_t y = 0; y < h; y++) {
        for (uint32_t x = 0; x < w; x++) {
            uint8_t *p = rgb + ((size_t)y * w + x) * 3;
            uint64_t t = x + y;
            for (int c = 0; c < 3; c++) {
                p[c] = (uint8_t)((a[c] * (span - t) + b[c] * t) / span);
            }
        }
    }
    for (unsigned r = 0; r < PATTERN_RECTS; r++) {
        uint32_t x0 = (uint32_t)media__rng_below(rng, w);
        uint32_t y0 = (uint32_t)media__rng_below(rng, h);
        uint32_t x1 = x0 + 1 + (uint32_t)media__rng_below(rng, w - x0);
        uint32_t y1 = y0 + 1 + (uint32_t)media__rng_below(rng, h - y0);
        uint8_t col[3] = {(uint8_t)media__rng_below(rng, 256), (uint8_t)media__rng_below(rng, 256),
                          (uint8_t)media__rng_below(rng, 256)};
        for (uint32_t y = y0; y < y1; y++) {
            for (uint32_t x = x0; x < x1; x++) {
                memcpy(rgb + ((size_t)y * w + x) * 3, col, 3);
            }
        }
    }
}

/* PNG bytes of the RGB pixels (malloc'd), or NULL. */
static uint8_t *encode_png(const uint8_t *rgb, uint32_t w, uint32_t h, size_t *out_len)
{
    png_image img;
    memset(&img, 0, sizeof(img));
    img.version = PNG_IMAGE_VERSION;
    img.width = w;
    img.height = h;
    img.format = PNG_FORMAT_RGB;
    png_alloc_size_t size = 0;
    if (!png_image_write_get_memory_size(img, size, 0, rgb, 0, NULL)) {
        png_image_free(&img);
        return NULL;
    }
    uint8_t *out = malloc(size);
    if (out != NULL && !png_image_write_to_memory(&img, out, &size, 0, rgb, 0, NULL)) {
        free(out);
        out = NULL;
    }
    png_image_free(&img);
    *out_len = size;
    return out;
}

/* JPEG bytes of the RGB pixels (malloc'd), or NULL. */
static uint8_t *encode_jpeg(const uint8_t *rgb, uint32_t w, uint32_t h, size_t *out_len)
{
    tjhandle tj = tjInitCompress();
    if (tj == NULL) {
        return NULL;
    }
    unsigned char *jpeg = NULL;
    unsigned long size = 0;
    uint8_t *out = NULL;
    if (tjCompress2(tj, rgb, (int)w, 0, (int)h, TJPF_RGB, &jpeg, &size, TJSAMP_420, JPEG_QUALITY,
                    0) == 0) {
        out = malloc(size);
        if (out != NULL) {
            memcpy(out, jpeg, size);
            *out_len = size;
        }
    }
    tjFree(jpeg);
    tjDestroy(tj);
    return out;
}

int media_image_generate(const struct media_image_options *opts, uint64_t seed, char **out_uri,
                         size_t *out_len, char *errbuf, size_t errcap)
{
    media__err(errbuf, errcap, "%s", "");
    if (media_image_check(opts, errbuf, errcap) != 0) {
        return -EINVAL;
    }
    struct media__rng rng;
    media__rng_seed(&rng, seed, SALT_SIZE);
    uint32_t w = image_side(&rng, opts->width_mean_px, opts->width_stddev_px);
    uint32_t h = image_side(&rng, opts->height_mean_px, opts->height_stddev_px);
    bool jpeg = opts->format == MEDIA_IMAGE_JPEG;
    if (opts->format == MEDIA_IMAGE_RANDOM) {
        media__rng_seed(&rng, seed, SALT_FORMAT);
        jpeg = media__rng_below(&rng, 2) == 1;
    }
    int ret = -ENOMEM;
    uint8_t *rgb = malloc((size_t)w * h * 3);
    if (rgb == NULL) {
        goto fail;
    }
    media__rng_seed(&rng, seed, SALT_PIXELS);
    if (opts->fill == MEDIA_FILL_NOISE) {
        fill_noise(&rng, rgb, (size_t)w * h * 3);
    } else {
        fill_pattern(&rng, rgb, w, h);
    }
    size_t len = 0;
    uint8_t *encoded = jpeg ? encode_jpeg(rgb, w, h, &len) : encode_png(rgb, w, h, &len);
    if (encoded == NULL) {
        media__err(errbuf, errcap, "cannot encode a %ux%u %s image", w, h, jpeg ? "JPEG" : "PNG");
        goto free_rgb;
    }
    char *uri = media_base64(jpeg ? "data:image/jpeg;base64," : "data:image/png;base64,", encoded,
                             len, out_len);
    free(encoded);
    if (uri == NULL) {
        goto free_rgb;
    }
    *out_uri = uri;
    ret = 0;

free_rgb:
    free(rgb);
fail:
    if (ret == -ENOMEM && errbuf != NULL && errcap > 0 && errbuf[0] == '\0') {
        media__err(errbuf, errcap, "out of memory making a %ux%u image", w, h);
    }
    return ret;
}
