/*
 * ui_internal.h - shared between the files of ui/; not a public API.
 */
#ifndef RINGPERF_UI_INTERNAL_H
#define RINGPERF_UI_INTERNAL_H

#include <stdarg.h>

#include "ui/ui.h"

/* ui__line builds one row of a frame: text and zero-width escape sequences,
 * cut at `width` columns (a UTF-8 sequence is one column). */
struct ui__line {
    char *buf;
    size_t cap;
    size_t len;
    int col;
    int width;
};

/* ui__line_start starts row r of frame. */
struct ui__line ui__line_start(struct ui_frame *frame, int r);

/* ui__put appends text, stopping at the width. */
void ui__put(struct ui__line *l, const char *text);

/* ui__putf appends printf-formatted text. */
__attribute__((format(printf, 2, 3))) void ui__putf(struct ui__line *l, const char *fmt, ...);

/* ui__style appends an escape sequence (no columns), when it fits with the reset. */
void ui__style(struct ui__line *l, const char *esc);

/* ui__pad_to appends spaces up to column col. */
void ui__pad_to(struct ui__line *l, int col);

/* ui__line_end closes the row: resets the style and NUL-terminates. */
void ui__line_end(struct ui__line *l);

/* ui__num writes v compactly into out ("1.23", "45.6", "12345", "1.20M"), or "-". */
void ui__num(double v, bool present, char *out, size_t cap);

/* ui__write_all writes len bytes of text to fd, through EINTR, until done or an error (which
 * drops the rest: a terminal gone is nothing to report to). Async-signal-safe. */
void ui__write_all(int fd, const char *text, size_t len);

/* ui__terminal_take switches tty_fd (a terminal) to the dashboard's mode and
 * installs the restoring signal handlers; saved_stderr is the descriptor the
 * real stderr was moved to (-1: none), put back by a restore. Returns 0, or
 * -EBUSY when a dashboard already holds a terminal, or -errno. */
int ui__terminal_take(int tty_fd, int saved_stderr, int wake_fd);

/* ui__terminal_give_back undoes ui__terminal_take (terminal mode, alternate
 * screen, stderr, signal handlers). Idempotent. */
void ui__terminal_give_back(void);

#endif
