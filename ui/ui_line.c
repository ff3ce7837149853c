/*
 * ui_line.c - building a frame's rows: text cut at the terminal's width,
 * never wrapped, with the escape sequences that style it counted as no
 * columns.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ui/ui_internal.h"

#define RESET "\033[0m"
#define ROW_BYTES (UI_COLS_MAX * 4 + 256) /* every column a 4-byte character, plus styles */

int ui_frame_init(struct ui_frame *frame)
{
    *frame = (struct ui_frame){.cap = ROW_BYTES};
    for (int r = 0; r < UI_ROWS_MAX; r++) {
        frame->text[r] = calloc(1, ROW_BYTES);
        if (frame->text[r] == NULL) {
            ui_frame_free(frame);
            return -ENOMEM;
        }
    }
    return 0;
}

void ui_frame_free(struct ui_frame *frame)
{
    for (int r = 0; r < UI_ROWS_MAX; r++) {
        free(frame->text[r]);
        frame->text[r] = NULL;
    }
}

struct ui__line ui__line_start(struct ui_frame *frame, int r)
{
    frame->text[r][0] = '\0';
    return (struct ui__line){.buf = frame->text[r], .cap = frame->cap, .width = frame->cols};
}

void ui__put(struct ui__line *l, const char *text)
{
    /* Room is kept for the reset sequence and the NUL. */
    size_t limit = l->cap - sizeof(RESET) - 1;
    bool taking = true;
    for (const unsigned char *p = (const unsigned char *)text; *p != '\0'; p++) {
        bool lead = (*p & 0xC0) != 0x80;
        if (lead) {
            taking = l->col < l->width && l->len + 4 < limit;
            if (!taking) {
                break;
            }
            l->col++;
        }
        if (taking) {
            /* A control byte would move the cursor: drawn as a space. */
            l->buf[l->len++] = *p < 0x20 || *p == 0x7f ? ' ' : (char)*p;
        }
    }
    l->buf[l->len] = '\0';
}

void ui__putf(struct ui__line *l, const char *fmt, ...)
{
    char text[UI_COLS_MAX * 4];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof(text), fmt, ap);
    va_end(ap);
    ui__put(l, text);
}

void ui__style(struct ui__line *l, const char *esc)
{
    size_t n = strlen(esc);
    if (l->len + n + sizeof(RESET) < l->cap) {
        memcpy(l->buf + l->len, esc, n + 1);
        l->len += n;
    }
}

void ui__pad_to(struct ui__line *l, int col)
{
    while (l->col < col && l->col < l->width) {
        ui__put(l, " ");
    }
}

void ui__line_end(struct ui__line *l)
{
    memcpy(l->buf + l->len, RESET, sizeof(RESET));
    l->len += sizeof(RESET) - 1;
}

void ui__num(double v, bool present, char *out, size_t cap)
{
    if (!present || v != v) {
        snprintf(out, cap, "-");
    } else if (v >= 1e6) {
        snprintf(out, cap, "%.2fM", v / 1e6);
    } else if (v >= 1e4) {
        snprintf(out, cap, "%.0f", v);
    } else if (v >= 100) {
        snprintf(out, cap, "%.1f", v);
    } else {
        snprintf(out, cap, "%.2f", v);
    }
}
