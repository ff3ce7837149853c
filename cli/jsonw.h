/*
 * jsonw.h - a small append-only JSON text writer for per-record export lines
 * (internal to cli/).
 *
 * Per-request export runs once per request on the coordinator's thread, so at
 * tens of thousands of requests per second a DOM library's allocations and
 * per-token writes dominate the client's CPU time. This writer appends to a
 * buffer of its file's (outfile.h), which writes it in large blocks. Commas
 * between members and elements are the caller's job, through the *_first
 * flags below.
 */
#ifndef RINGPERF_CLI_JSONW_H
#define RINGPERF_CLI_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "cli/outfile.h"

/* Largest single piece appended at once (an escaped string is at most six
 * times its input); the buffer is handed to the file ahead of any piece that
 * would not fit. */
#define CLI_JSONW_PIECE_MAX 8192

/* cli_jsonw writes one file. Sticky error: once a write fails, everything
 * after is dropped, and error (and cli_jsonw_flush, _close) report it. */
struct cli_jsonw {
    struct cli_outfile file;
    char *buf;  /* the file's buffer being filled */
    size_t len; /* bytes in buf */
    size_t cap; /* at least 2 * CLI_JSONW_PIECE_MAX */
    int error;  /* 0 or -errno */
};

/* cli_jsonw_open creates (or truncates) path with cap-byte buffers (at least
 * 2 * CLI_JSONW_PIECE_MAX), written as `mode` says. Returns 0 or -errno;
 * after a failure cli_jsonw_close does nothing. */
int cli_jsonw_open(struct cli_jsonw *w, const char *path, size_t cap, enum cli_outfile_mode mode);

/* cli_jsonw_flush puts everything appended so far in the file, readable by
 * other processes. Returns 0 or the first error. */
int cli_jsonw_flush(struct cli_jsonw *w);

/* cli_jsonw_close flushes, closes the file and frees its buffers. Returns 0
 * or the first error. Does nothing on a zeroed writer or after a failed open. */
int cli_jsonw_close(struct cli_jsonw *w);

/* cli_jsonw_is_open reports whether w has a file open. */
static inline bool cli_jsonw_is_open(const struct cli_jsonw *w)
{
    return w->buf != NULL;
}

/* cli_jsonw_raw_after_hand_off is cli_jsonw_raw's path for a piece that does not
 * fit in what is left of the buffer: hand the buffer to the file, then
 * append the piece to the next one (cut to the room there, which is at least
 * 2 * CLI_JSONW_PIECE_MAX - CLI_OUTFILE_BLOCK). */
void cli_jsonw_raw_after_hand_off(struct cli_jsonw *w, const char *text, size_t len);

/* cli_jsonw_raw appends len bytes of ready JSON text (punctuation, literals);
 * pieces are meant to be short (at most CLI_JSONW_PIECE_MAX), and one longer
 * than the whole buffer is cut. Inline: export lines are built from
 * many pieces of a few bytes each, and a call per piece showed in profiles. */
static inline void cli_jsonw_raw(struct cli_jsonw *w, const char *text, size_t len)
{
    if (len > w->cap - w->len) {
        cli_jsonw_raw_after_hand_off(w, text, len);
        return;
    }
    /* No fixed bound on len here on purpose: with one (the piece limit) the
     * compiler copied variable-length pieces with rep movsq, whose start-up
     * cost made short names the writer's largest cost. */
    memcpy(w->buf + w->len, text, len);
    w->len += len;
}

/* cli_jsonw_lit appends a NUL-terminated literal, e.g. "{\"metadata\":"
 * (its length is a compile-time constant once inlined). */
static inline void cli_jsonw_lit(struct cli_jsonw *w, const char *text)
{
    cli_jsonw_raw(w, text, strlen(text));
}

/* cli_jsonw_key appends ,"name": (no comma when *first, which it then clears).
 * name is a member name of ringperf's own, a literal or a metric tag: it must
 * hold no quote, backslash or control byte, as it is written unescaped. */
static inline void cli_jsonw_key(struct cli_jsonw *w, bool *first, const char *name)
{
    if (!*first) {
        cli_jsonw_raw(w, ",", 1);
    }
    *first = false;
    cli_jsonw_raw(w, "\"", 1);
    cli_jsonw_raw(w, name, strlen(name));
    cli_jsonw_raw(w, "\":", 2);
}

/* cli_jsonw_string appends a quoted, escaped string (control bytes as \u00XX;
 * at most CLI_JSONW_PIECE_MAX / 6 input bytes are written, the rest cut). */
void cli_jsonw_string(struct cli_jsonw *w, const char *s, size_t len);

/* cli_jsonw_string_long appends a quoted, escaped string of any length,
 * in pieces (for response texts). */
void cli_jsonw_string_long(struct cli_jsonw *w, const char *s, size_t len);

/* cli_jsonw_int appends a decimal integer. */
void cli_jsonw_int(struct cli_jsonw *w, int64_t v);

/* cli_jsonw_ms_from_ns appends ns / 1e6 exactly, as a decimal with up to six
 * fraction digits (trailing zeros dropped): nanosecond truth in milliseconds. */
void cli_jsonw_ms_from_ns(struct cli_jsonw *w, int64_t ns);

/* cli_jsonw_double appends a finite double with up to 15 significant digits
 * (null for NaN or infinity, which JSON cannot hold). */
void cli_jsonw_double(struct cli_jsonw *w, double v);

#endif
