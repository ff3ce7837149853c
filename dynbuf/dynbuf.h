/*
 * dynbuf.h - a growing text buffer with a hard cap, as curl's dynbuf: appended to piece by
 * piece, always NUL-terminated, doubling its allocation, and refusing to grow past the cap
 * its owner gave it (a rendered template, a payload's JSON).
 */
#ifndef RINGPERF_DYNBUF_H
#define RINGPERF_DYNBUF_H

#include <stddef.h>

/* dynbuf is caller-allocated. Set it up with dynbuf_init; p is NULL until the first put, then
 * owned by the buffer (free with dynbuf_free, or take it and free it yourself). */
struct dynbuf {
    char *p; /* len bytes, then a NUL */
    size_t len;
    size_t cap;     /* bytes allocated at p */
    size_t len_max; /* the most bytes it may hold, its NUL not counted */
};

/* dynbuf_init makes `b` an empty buffer that holds at most len_max bytes (plus its NUL). */
void dynbuf_init(struct dynbuf *b, size_t len_max);

/* dynbuf_put appends n bytes of s (borrowed) and a NUL after them. Returns 0; -E2BIG when the
 * buffer would then hold more than len_max bytes, or -ENOMEM; either way `b` is as it was.
 * A put of 0 bytes allocates, so that p is a string after it. */
int dynbuf_put(struct dynbuf *b, const char *s, size_t n);

/* dynbuf_free releases the bytes and empties `b` (len_max kept); safe on an empty one. */
void dynbuf_free(struct dynbuf *b);

#endif
