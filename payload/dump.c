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

#include "dynbuf/dynbuf.h"
#include "payload/payload_internal.h"

/* Upper bound on one serialised payload: 256 MiB with its NUL. */
#define DUMP_LEN_MAX (((size_t)256 << 20) - 1)

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

static int dump__leaf(struct dynbuf *b, const json_t *v)
{
    size_t flags = JSON_ENCODE_ANY | JSON_COMPACT;
    if (json_is_real(v)) {
        flags |= JSON_REAL_PRECISION(dump__real_digits(json_real_value(v)));
    }
    char *s = json_dumps(v, flags);
    if (!s) {
        return -1;
    }
    int rc = dynbuf_put(b, s, strlen(s));
    free(s);
    return rc;
}

static int dump__key(struct dynbuf *b, const char *key)
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
static int dump__value(struct dynbuf *b, const json_t *v)
{
    const char *key;
    json_t *child;
    size_t i;
    bool first = true;
    if (json_is_object(v)) {
        if (dynbuf_put(b, "{", 1) < 0) {
            return -1;
        }
        json_object_foreach((json_t *)v, key, child)
        {
            if ((!first && dynbuf_put(b, ",", 1) < 0) || dump__key(b, key) < 0 ||
                dynbuf_put(b, ":", 1) < 0 || dump__value(b, child) < 0) {
                return -1;
            }
            first = false;
        }
        return dynbuf_put(b, "}", 1);
    }
    if (json_is_array(v)) {
        if (dynbuf_put(b, "[", 1) < 0) {
            return -1;
        }
        json_array_foreach(v, i, child)
        {
            if ((i > 0 && dynbuf_put(b, ",", 1) < 0) || dump__value(b, child) < 0) {
                return -1;
            }
        }
        return dynbuf_put(b, "]", 1);
    }
    return dump__leaf(b, v);
}

char *payload__dump(const json_t *v)
{
    struct dynbuf b;
    dynbuf_init(&b, DUMP_LEN_MAX);
    if (dump__value(&b, v) < 0) {
        dynbuf_free(&b);
        return NULL;
    }
    return b.p;
}
