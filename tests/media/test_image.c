/*
 * media_image_generate: the data URI decodes back (base64, then PNG with libpng
 * or JPEG with turbojpeg) to an image of the drawn size; the same seed gives the
 * same bytes; invalid options fail with a message.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <png.h>
#include <stdlib.h>
#include <string.h>
#include <turbojpeg.h>

#include "media/media.h"

#include "b64_decode.h"

static const char PNG_PREFIX[] = "data:image/png;base64,";
static const char JPEG_PREFIX[] = "data:image/jpeg;base64,";

/* Decodes uri to its format and pixel size. */
static void decode_uri(const char *uri, size_t len, bool *out_jpeg, uint32_t *w, uint32_t *h)
{
    size_t skip;
    if (strncmp(uri, PNG_PREFIX, strlen(PNG_PREFIX)) == 0) {
        skip = strlen(PNG_PREFIX);
        *out_jpeg = false;
    } else {
        cr_assert(strncmp(uri, JPEG_PREFIX, strlen(JPEG_PREFIX)) == 0, "prefix of %.40s", uri);
        skip = strlen(JPEG_PREFIX);
        *out_jpeg = true;
    }
    uint8_t *bytes = NULL;
    size_t n = b64_decode(uri + skip, len - skip, &bytes);
    if (*out_jpeg) {
        tjhandle tj = tjInitDecompress();
        int jw = 0;
        int jh = 0;
        int sub = 0;
        int space = 0;
        cr_assert_eq(tjDecompressHeader3(tj, bytes, n, &jw, &jh, &sub, &space), 0);
        *w = (uint32_t)jw;
        *h = (uint32_t)jh;
        tjDestroy(tj);
    } else {
        png_image img;
        memset(&img, 0, sizeof(img));
        img.version = PNG_IMAGE_VERSION;
        cr_assert(png_image_begin_read_from_memory(&img, bytes, n), "not a PNG");
        *w = img.width;
        *h = img.height;
        png_image_free(&img);
    }
    free(bytes);
}

static struct media_image_options opts_of(double w, double h, enum media_image_format f)
{
    return (struct media_image_options){
        .width_mean_px = w, .height_mean_px = h, .format = f, .fill = MEDIA_FILL_PATTERN};
}

Test(media_image, png_decodes_to_the_requested_size)
{
    struct media_image_options o = opts_of(64, 48, MEDIA_IMAGE_PNG);
    char *uri = NULL;
    size_t len = 0;
    char err[256];
    cr_assert_eq(media_image_generate(&o, 7, &uri, &len, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(strlen(uri), len);
    bool jpeg = true;
    uint32_t w = 0;
    uint32_t h = 0;
    decode_uri(uri, len, &jpeg, &w, &h);
    cr_assert(!jpeg);
    cr_assert_eq(w, 64);
    cr_assert_eq(h, 48);
    free(uri);
}

Test(media_image, jpeg_noise_decodes_to_the_requested_size)
{
    struct media_image_options o = opts_of(33, 17, MEDIA_IMAGE_JPEG);
    o.fill = MEDIA_FILL_NOISE;
    char *uri = NULL;
    size_t len = 0;
    cr_assert_eq(media_image_generate(&o, 1, &uri, &len, NULL, 0), 0);
    bool jpeg = false;
    uint32_t w = 0;
    uint32_t h = 0;
    decode_uri(uri, len, &jpeg, &w, &h);
    cr_assert(jpeg);
    cr_assert_eq(w, 33);
    cr_assert_eq(h, 17);
    free(uri);
}

Test(media_image, same_seed_same_bytes_other_seed_other_bytes)
{
    struct media_image_options o = opts_of(40, 30, MEDIA_IMAGE_RANDOM);
    o.width_stddev_px = 10;
    o.height_stddev_px = 10;
    char *a = NULL;
    char *b = NULL;
    char *c = NULL;
    size_t la = 0;
    size_t lb = 0;
    size_t lc = 0;
    cr_assert_eq(media_image_generate(&o, 42, &a, &la, NULL, 0), 0);
    cr_assert_eq(media_image_generate(&o, 42, &b, &lb, NULL, 0), 0);
    cr_assert_eq(media_image_generate(&o, 43, &c, &lc, NULL, 0), 0);
    cr_assert_eq(la, lb);
    cr_assert(memcmp(a, b, la) == 0);
    cr_assert(la != lc || memcmp(a, c, la) != 0);
    free(a);
    free(b);
    free(c);
}

Test(media_image, random_format_uses_both_and_sizes_vary_within_bounds)
{
    struct media_image_options o = opts_of(20, 20, MEDIA_IMAGE_RANDOM);
    o.width_stddev_px = 30; /* draws below 1 px are clamped to 1 */
    size_t jpegs = 0;
    bool varied = false;
    for (uint64_t seed = 0; seed < 24; seed++) {
        char *uri = NULL;
        size_t len = 0;
        cr_assert_eq(media_image_generate(&o, seed, &uri, &len, NULL, 0), 0);
        bool jpeg = false;
        uint32_t w = 0;
        uint32_t h = 0;
        decode_uri(uri, len, &jpeg, &w, &h);
        jpegs += jpeg;
        cr_assert_geq(w, 1);
        cr_assert_eq(h, 20);
        varied = varied || w != 20;
        free(uri);
    }
    cr_assert(jpegs > 0 && jpegs < 24, "%zu of 24 were JPEG", jpegs);
    cr_assert(varied);
}

Test(media_image, invalid_options_fail_with_a_message)
{
    const struct media_image_options bad[] = {
        opts_of(0, 10, MEDIA_IMAGE_PNG),
        opts_of(10, -1, MEDIA_IMAGE_PNG),
        opts_of(MEDIA_IMAGE_SIDE_PX_MAX + 1.0, 10, MEDIA_IMAGE_PNG),
        {.width_mean_px = 10, .height_mean_px = 10, .width_stddev_px = -1},
        {.width_mean_px = 10, .height_mean_px = 10, .format = (enum media_image_format)9},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char err[256] = "";
        char *uri = (char *)"untouched";
        size_t len = 5;
        cr_assert_eq(media_image_generate(&bad[i], 1, &uri, &len, err, sizeof(err)), -EINVAL,
                     "case %zu", i);
        cr_assert(err[0] != '\0', "case %zu has a message", i);
        cr_assert_str_eq(uri, "untouched");
        cr_assert_eq(len, 5);
    }
}

Test(media_image, base64_matches_known_vectors)
{
    const char *in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    const char *want[] = {"p:",         "p:Zg==",     "p:Zm8=",    "p:Zm9v",
                          "p:Zm9vYg==", "p:Zm9vYmE=", "p:Zm9vYmFy"};
    for (size_t i = 0; i < 7; i++) {
        size_t len = 0;
        char *out = media_base64("p:", (const uint8_t *)in[i], strlen(in[i]), &len);
        cr_assert_str_eq(out, want[i]);
        cr_assert_eq(len, strlen(want[i]));
        free(out);
    }
}
