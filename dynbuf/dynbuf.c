/*
 * dynbuf.c - a growing text buffer with a hard cap.
 */
#include "dynbuf/dynbuf.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* DYNBUF_FIRST_CAP is the first allocation: most pieces of text fit it. */
#define DYNBUF_FIRST_CAP 256

void dynbuf_init(struct dynbuf *b, size_t len_max)
{
    *b = (struct dynbuf){.len_max = len_max};
}

int dynbuf_put(struct dynbuf *b, const char *s, size_t n)
{
    if (n > b->len_max - b->len) {
        return -E2BIG;
    }
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : DYNBUF_FIRST_CAP;
        while (cap < b->len + n + 1) {
            cap *= 2;
        }
        char *p = realloc(b->p, cap);
        if (p == NULL) {
            return -ENOMEM;
        }
        b->p = p;
        b->cap = cap;
    }
    if (n > 0) {
        memcpy(b->p + b->len, s, n);
    }
    b->len += n;
    b->p[b->len] = '\0';
    return 0;
}

void dynbuf_free(struct dynbuf *b)
{
    free(b->p);
    *b = (struct dynbuf){.len_max = b->len_max};
}
