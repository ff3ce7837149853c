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
#ifndef RINGPERF_EXPORT_JSONW_H
#define RINGPERF_EXPORT_JSONW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "export/export_outfile.h"

/* Largest single piece appended at once (an escaped string is at most six
 * times its input); the buffer is handed to the file ahead of any piece that
 * would not fit. */
#define EXPORT_JSONW_PIECE_MAX 8192

/* export_jsonw writes one file. Sticky error: once a write fails, everything
 * after is dropped, and error (and export_jsonw_flush, _close) report it. */
struct export_jsonw {
    struct export_outfile file;
    char *buf;  /* the file's buffer being filled */
    size_t len; /* bytes in buf */
    size_t cap; /* at least 2 * EXPORT_JSONW_PIECE_MAX */
    int error;  /* 0 or -errno */
};

/* export_jsonw_open creates (or truncates) path with cap-byte buffers (at least
 * 2 * EXPORT_JSONW_PIECE_MAX), written as `mode` says, under the name `naming` says.
 * Returns 0 or -errno; after a failure export_jsonw_close does nothing. */
int export_jsonw_open(struct export_jsonw *w, const char *path, size_t cap,
                      enum export_outfile_mode mode, enum export_outfile_naming naming);

/* export_jsonw_flush puts everything appended so far in the file, readable by
 * other processes. Returns 0 or the first error. */
int export_jsonw_flush(struct export_jsonw *w);

/* export_jsonw_close flushes, closes the file and frees its buffers. Returns 0
 * or the first error. Does nothing on a zeroed writer or after a failed open. */
int export_jsonw_close(struct export_jsonw *w);

/* export_jsonw_is_open reports whether w has a file open. */
static inline bool export_jsonw_is_open(const struct export_jsonw *w)
{
    return w->buf != NULL;
}

/* export_jsonw_raw_after_hand_off is export_jsonw_raw's path for a piece that does not
 * fit in what is left of the buffer: hand the buffer to the file, then
 * append the piece to the next one (cut to the room there, which is at least
 * 2 * EXPORT_JSONW_PIECE_MAX - EXPORT_OUTFILE_BLOCK). */
void export_jsonw_raw_after_hand_off(struct export_jsonw *w, const char *text, size_t len);

/* export_jsonw_raw appends len bytes of ready JSON text (punctuation, literals);
 * pieces are meant to be short (at most EXPORT_JSONW_PIECE_MAX), and one longer
 * than the whole buffer is cut. Inline: export lines are built from
 * many pieces of a few bytes each, and a call per piece showed in profiles. */
static inline void export_jsonw_raw(struct export_jsonw *w, const char *text, size_t len)
{
    if (len > w->cap - w->len) {
        export_jsonw_raw_after_hand_off(w, text, len);
        return;
    }
    /* No fixed bound on len here on purpose: with one (the piece limit) the
     * compiler copied variable-length pieces with rep movsq, whose start-up
     * cost made short names the writer's largest cost. */
    memcpy(w->buf + w->len, text, len);
    w->len += len;
}

/* export_jsonw_lit appends a NUL-terminated literal, e.g. "{\"metadata\":"
 * (its length is a compile-time constant once inlined). */
static inline void export_jsonw_lit(struct export_jsonw *w, const char *text)
{
    export_jsonw_raw(w, text, strlen(text));
}

/* export_jsonw_key appends ,"name": (no comma when *first, which it then clears).
 * name is a member name of ringperf's own, a literal or a metric tag: it must
 * hold no quote, backslash or control byte, as it is written unescaped. */
static inline void export_jsonw_key(struct export_jsonw *w, bool *first, const char *name)
{
    if (!*first) {
        export_jsonw_raw(w, ",", 1);
    }
    *first = false;
    export_jsonw_raw(w, "\"", 1);
    export_jsonw_raw(w, name, strlen(name));
    export_jsonw_raw(w, "\":", 2);
}

/* export_jsonw_string appends a quoted, escaped string (control bytes as \u00XX;
 * at most EXPORT_JSONW_PIECE_MAX / 6 input bytes are written, the rest cut). */
void export_jsonw_string(struct export_jsonw *w, const char *s, size_t len);

/* export_jsonw_string_long appends a quoted, escaped string of any length,
 * in pieces (for response texts). */
void export_jsonw_string_long(struct export_jsonw *w, const char *s, size_t len);

/* export_jsonw_int appends a decimal integer. */
void export_jsonw_int(struct export_jsonw *w, int64_t v);

/* export_jsonw_ms_from_ns appends ns / 1e6 exactly, as a decimal with up to six
 * fraction digits (trailing zeros dropped): nanosecond truth in milliseconds. */
void export_jsonw_ms_from_ns(struct export_jsonw *w, int64_t ns);

/* export_jsonw_double appends a finite double with up to 15 significant digits
 * (null for NaN or infinity, which JSON cannot hold). */
void export_jsonw_double(struct export_jsonw *w, double v);

#endif
