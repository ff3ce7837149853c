/*
 * png_pixels.h - test helper: a PNG file (a browser's screenshot) as RGB pixels, and how many
 * pixels of a rectangle are near a colour.
 */
#ifndef RINGPERF_TESTS_SUPPORT_PNG_PIXELS_H
#define RINGPERF_TESTS_SUPPORT_PNG_PIXELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* png_pixels is a decoded image: width * height RGB triples, row by row. */
struct png_pixels {
    uint32_t width;
    uint32_t height;
    uint8_t *rgb; /* owned; png_pixels_free releases it */
};

/* png_pixels_load decodes the PNG at path into *out. Returns false (out zeroed) when the file
 * cannot be read or is not a PNG. */
bool png_pixels_load(const char *path, struct png_pixels *out);

/* png_pixels_free releases the pixels; safe on a zeroed image. */
void png_pixels_free(struct png_pixels *image);

/* png_pixels_count_near counts the pixels of the rectangle x0..x1-1, y0..y1-1 (clipped to the
 * image) whose every channel is within tolerance of rgb (0xRRGGBB). */
size_t png_pixels_count_near(const struct png_pixels *image, uint32_t x0, uint32_t y0, uint32_t x1,
                             uint32_t y1, uint32_t rgb, int tolerance);

#endif
