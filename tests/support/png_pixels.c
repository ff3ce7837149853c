/*
 * png_pixels.c - test helper: PNG screenshots decoded with libpng's simplified API.
 */
#include "tests/support/png_pixels.h"

#include <png.h>
#include <stdlib.h>
#include <string.h>

bool png_pixels_load(const char *path, struct png_pixels *out)
{
    memset(out, 0, sizeof(*out));
    png_image img;
    memset(&img, 0, sizeof(img));
    img.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&img, path)) {
        return false;
    }
    img.format = PNG_FORMAT_RGB;
    uint8_t *rgb = malloc(PNG_IMAGE_SIZE(img));
    if (rgb == NULL || !png_image_finish_read(&img, NULL, rgb, 0, NULL)) {
        free(rgb);
        png_image_free(&img);
        return false;
    }
    *out = (struct png_pixels){.width = img.width, .height = img.height, .rgb = rgb};
    return true;
}

void png_pixels_free(struct png_pixels *image)
{
    free(image->rgb);
    image->rgb = NULL;
}

size_t png_pixels_count_near(const struct png_pixels *image, uint32_t x0, uint32_t y0, uint32_t x1,
                             uint32_t y1, uint32_t rgb, int tolerance)
{
    const int want[3] = {(int)(rgb >> 16) & 0xff, (int)(rgb >> 8) & 0xff, (int)rgb & 0xff};
    x1 = x1 < image->width ? x1 : image->width;
    y1 = y1 < image->height ? y1 : image->height;
    size_t count = 0;
    for (uint32_t y = y0; y < y1; y++) {
        for (uint32_t x = x0; x < x1; x++) {
            const uint8_t *p = image->rgb + ((size_t)y * image->width + x) * 3;
            bool near = true;
            for (int c = 0; c < 3; c++) {
                near = near && abs((int)p[c] - want[c]) <= tolerance;
            }
            count += near;
        }
    }
    return count;
}
