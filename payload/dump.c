/*
 * dump.c - compact JSON text for payloads.
 *
 * jansson prints every real of one dump with the same precision (17 digits by
 * default), so 0.1 would go out as 0.10000000000000001 while AIPerf (Python)
 * sends 0.1. We walk containers ourselves and let jansson print each leaf,
 * giving every real the fewest digits that read back exactly.
 */
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "payload/payload_internal.h"

/* Upper bound on one serialised payload. */
#define DUMP_BYTES_MAX ((size_t)256 << 20)

struct dump__buf {
    char *p;
    size_t len;
    size_t cap;
};

static int dump__put(struct dump__buf *b, const char *s, size_t n)
{
    if (n > DUMP_BYTES_MAX - b->len - 1) {
        return -1;
    }
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->len + n + 1) {
            cap *= 2;
        }
        char *p = realloc(b->p, cap);
        if (!p) {
            return -1;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
    return 0;
}

/* Fewest %g digits that read back to exactly v, widened so that values below
 * 1e16 print in plain notation, as Python's repr() does. */
static int dump__real_digits(double v)
{
    char buf[64];
    int digits = 17;
    for (int p = 1; p <= 17; p++) {
        snprintf(buf, sizeof(buf), "%.*g", p, v);
        if (strtod(buf, NULL) == v) {
            digits = p;
            break;
        }
    }
    double mag = fabs(v);
    if (mag >= 1.0 && mag < 1e16) {
        int int_digits = (int)floor(log10(mag)) + 1;
        if (int_digits > digits) {
            digits = int_digits;
        }
    }
    return digits;
}

static int dump__leaf(struct dump__buf *b, const json_t *v)
{
    size_t flags = JSON_ENCODE_ANY | JSON_COMPACT;
    if (json_is_real(v)) {
        flags |= JSON_REAL_PRECISION(dump__real_digits(json_real_value(v)));
    }
    char *s = json_dumps(v, flags);
    if (!s) {
        return -1;
    }
    int rc = dump__put(b, s, strlen(s));
    free(s);
    return rc;
}

static int dump__key(struct dump__buf *b, const char *key)
{
    json_t *k = json_string(key);
    if (!k) {
        return -1;
    }
    int rc = dump__leaf(b, k);
    json_decref(k);
    return rc;
}

/* Nesting is bounded by jansson's parser depth limit for loaded values and
 * is two levels for the ones we build. */
static int dump__value(struct dump__buf *b, const json_t *v)
{
    const char *key;
    json_t *child;
    size_t i;
    bool first = true;
    if (json_is_object(v)) {
        if (dump__put(b, "{", 1) < 0) {
            return -1;
        }
        json_object_foreach((json_t *)v, key, child)
        {
            if ((!first && dump__put(b, ",", 1) < 0) || dump__key(b, key) < 0 ||
                dump__put(b, ":", 1) < 0 || dump__value(b, child) < 0) {
                return -1;
            }
            first = false;
        }
        return dump__put(b, "}", 1);
    }
    if (json_is_array(v)) {
        if (dump__put(b, "[", 1) < 0) {
            return -1;
        }
        json_array_foreach(v, i, child)
        {
            if ((i > 0 && dump__put(b, ",", 1) < 0) || dump__value(b, child) < 0) {
                return -1;
            }
        }
        return dump__put(b, "]", 1);
    }
    return dump__leaf(b, v);
}

char *payload__dump(const json_t *v)
{
    struct dump__buf b = {0};
    if (dump__value(&b, v) < 0) {
        free(b.p);
        return NULL;
    }
    return b.p;
}
