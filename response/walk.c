/*
 * walk.c - checking a whole JSON text as jansson would, then walking it in place.
 *
 * The check is one pass over the grammar (the tokenizer's scanners, json_scan.h, with a bit
 * per open container instead of tokens, and jansson's rules for \u escapes) plus one pass
 * over the bytes for UTF-8, the only thing the grammar leaves to a second look. Number
 * ranges are checked on numbers alone. The walk then trusts the text: stepping over a string
 * is a memchr for its closing quote, which is what lets a reader visit the few values it
 * wants in a body of megabytes at memory speed.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "response/json_scan.h"
#include "response/response_walk.h"

/* Significant digits a real keeps for its range check: more than the 309 of the smallest
 * number that overflows a double, so cutting the rest off never changes the verdict. */
#define WALK__REAL_DIGITS 400
#define WALK__EXPONENT_MAX 1000000000LL /* larger exponents saturate: far past any double */

/* walk__utf8_len returns the length of the valid UTF-8 sequence at s (RFC 3629, as jansson's
 * utf8_check_full), or 0. */
static size_t walk__utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : 2;
    if (c < 0xC2 || c > 0xF4 || n < len) {
        return 0;
    }
    uint32_t cp = c & (len == 2 ? 0x1Fu : len == 3 ? 0x0Fu : 0x07u);
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xC0) != 0x80) {
            return 0;
        }
        cp = cp << 6 | (s[k] & 0x3Fu);
    }
    bool overlong = (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
    if (overlong || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
        return 0;
    }
    return len;
}

static bool walk__utf8_valid(const char *js, size_t len)
{
    const unsigned char *s = (const unsigned char *)js;
    size_t i = 0;
    while (i < len) {
        if (i + 8 <= len) {
            uint64_t x;
            memcpy(&x, s + i, sizeof(x));
            if ((x & JSON__HIGHS) == 0) {
                i += 8;
                continue;
            }
        }
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        size_t n = walk__utf8_len(s + i, len - i);
        if (n == 0) {
            return false;
        }
        i += n;
    }
    return true;
}

/* walk__int_fits reports whether the integer [i, end) fits in int64_t (strtoll's range). */
static bool walk__int_fits(const char *js, size_t i, size_t end)
{
    bool neg = js[i] == '-';
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t v = 0;
    for (i += neg ? 1 : 0; i < end; i++) {
        unsigned digit = (unsigned)(js[i] - '0');
        if (v > (limit - digit) / 10) {
            return false;
        }
        v = v * 10 + digit;
    }
    return true;
}

/* walk__real_fits reports whether the number [i, end) is within a double's range, as
 * strtod sees it. The number is rewritten as "<significant digits>e<exponent>": no decimal
 * point, so the locale does not matter, and no leading zeros to overflow a buffer. */
static bool walk__real_fits(const char *js, size_t i, size_t end)
{
    char buf[WALK__REAL_DIGITS + 32];
    size_t n = 0;
    long long exp10 = 0;
    bool frac = false;
    for (i += js[i] == '-' ? 1 : 0; i < end && js[i] != 'e' && js[i] != 'E'; i++) {
        if (js[i] == '.') {
            frac = true;
        } else if (n == 0 && js[i] == '0') {
            exp10 -= frac ? 1 : 0;
        } else if (n < WALK__REAL_DIGITS) {
            buf[n++] = js[i];
            exp10 -= frac ? 1 : 0;
        } else {
            exp10 += frac ? 0 : 1;
        }
    }
    if (n == 0) {
        return true; /* zero */
    }
    if (i < end) {
        bool neg = js[++i] == '-';
        long long e = 0;
        for (i += js[i] == '-' || js[i] == '+' ? 1 : 0; i < end; i++) {
            e = e < WALK__EXPONENT_MAX ? e * 10 + (js[i] - '0') : WALK__EXPONENT_MAX;
        }
        exp10 += neg ? -e : e;
    }
    snprintf(buf + n, sizeof(buf) - n, "e%lld", exp10);
    errno = 0;
    double v = strtod(buf, NULL);
    return !(isinf(v) && errno == ERANGE);
}

/* walk__scalar checks the number or literal at i and returns its end, or len + 1. */
static size_t walk__scalar(const char *js, size_t len, size_t i)
{
    size_t end = json__scalar_end(js, len, i);
    if (end == i) {
        return len + 1;
    }
    if (js[i] != '-' && (js[i] < '0' || js[i] > '9')) {
        return end;
    }
    bool integer = true;
    for (size_t k = i; k < end && integer; k++) {
        integer = js[k] != '.' && js[k] != 'e' && js[k] != 'E';
    }
    bool fits = integer ? walk__int_fits(js, i, end) : walk__real_fits(js, i, end);
    return fits ? end : len + 1;
}

/* walk__string checks the string whose opening quote is at i and returns the offset after
 * its closing quote, or len + 1. */
static size_t walk__string(const char *js, size_t len, size_t i, bool key)
{
    size_t end = json__string_scan(js, len, i + 1,
                                   key ? JSON__ESCAPES_JANSSON_KEY : JSON__ESCAPES_JANSSON_VALUE);
    return end >= len ? len + 1 : end + 1;
}

/* walk__key checks a member name and its colon at i and returns where its value starts, or
 * len + 1. */
static size_t walk__key(const char *js, size_t len, size_t i)
{
    if (i >= len || js[i] != '"') {
        return len + 1;
    }
    i = json__skip_ws(js, len, walk__string(js, len, i, true));
    if (i >= len || js[i] != ':') {
        return len + 1;
    }
    return json__skip_ws(js, len, i + 1);
}

/* The containers open during the check, one bit each: set for an object. */
struct walk__stack {
    uint64_t object[RESPONSE_WALK_DEPTH_MAX / 64];
    size_t depth;
};

static bool walk__in_object(const struct walk__stack *st)
{
    size_t d = st->depth - 1;
    return (st->object[d / 64] >> (d % 64) & 1) != 0;
}

/* walk__value checks the value at i. A container is opened (its first member's value or
 * first element is next, or it is closed at once when empty); returns the offset to go on
 * from, or len + 1. */
static size_t walk__value(const char *js, size_t len, size_t i, struct walk__stack *st)
{
    if (i >= len || st->depth >= RESPONSE_WALK_DEPTH_MAX) {
        return len + 1;
    }
    char c = js[i];
    if (c == '"') {
        return walk__string(js, len, i, false);
    }
    if (c != '{' && c != '[') {
        return walk__scalar(js, len, i);
    }
    size_t d = st->depth++;
    uint64_t bit = UINT64_C(1) << (d % 64);
    st->object[d / 64] = c == '{' ? st->object[d / 64] | bit : st->object[d / 64] & ~bit;
    i = json__skip_ws(js, len, i + 1);
    if (i < len && js[i] == (c == '{' ? '}' : ']')) {
        st->depth--;
        return i + 1;
    }
    return c == '{' ? walk__key(js, len, i) : i;
}

bool response_walk_check(struct response_str text)
{
    const char *js = text.ptr;
    size_t len = text.len;
    struct walk__stack st;
    st.depth = 0;
    size_t i = json__skip_ws(js, len, 0);
    for (;;) {
        size_t depth = st.depth;
        i = walk__value(js, len, i, &st);
        if (i > len) {
            return false;
        }
        if (st.depth > depth) {
            continue; /* a container was opened: its first value is next */
        }
        /* After a value: commas, closing brackets, or the end. */
        for (;;) {
            i = json__skip_ws(js, len, i);
            if (st.depth == 0) {
                return i == len && walk__utf8_valid(js, len);
            }
            bool object = walk__in_object(&st);
            if (i < len && js[i] == ',') {
                i = json__skip_ws(js, len, i + 1);
                i = object ? walk__key(js, len, i) : i;
                break;
            }
            if (i >= len || js[i] != (object ? '}' : ']')) {
                return false;
            }
            st.depth--;
            i++;
        }
        if (i > len) {
            return false;
        }
    }
}

size_t response_walk_root(struct response_str text)
{
    return json__skip_ws(text.ptr, text.len, 0);
}

enum response_walk_type response_walk_type(struct response_str text, size_t at)
{
    if (at == RESPONSE_WALK_NONE) {
        return RESPONSE_WALK_ABSENT;
    }
    switch (text.ptr[at]) {
    case '{':
        return RESPONSE_WALK_OBJECT;
    case '[':
        return RESPONSE_WALK_ARRAY;
    case '"':
        return RESPONSE_WALK_STRING;
    case 'n':
        return RESPONSE_WALK_NULL;
    case 't':
    case 'f':
        return RESPONSE_WALK_BOOL;
    default:
        return RESPONSE_WALK_NUMBER;
    }
}

/* walk__string_end returns the offset of the closing quote of a checked string whose bytes
 * start at i: the first quote not escaped by an odd run of backslashes. */
static size_t walk__string_end(const char *js, size_t len, size_t i)
{
    for (;;) {
        const char *q = memchr(js + i, '"', len - i);
        size_t at = (size_t)(q - js);
        size_t slashes = 0;
        while (at - slashes > i && js[at - slashes - 1] == '\\') {
            slashes++;
        }
        if (slashes % 2 == 0) {
            return at;
        }
        i = at + 1;
    }
}

size_t response_walk_end(struct response_str text, size_t at)
{
    const char *js = text.ptr;
    size_t len = text.len;
    if (at == RESPONSE_WALK_NONE) {
        return RESPONSE_WALK_NONE;
    }
    char c = js[at];
    if (c == '"') {
        return walk__string_end(js, len, at + 1) + 1;
    }
    if (c != '{' && c != '[') {
        return json__scalar_end(js, len, at);
    }
    size_t depth = 0;
    for (size_t i = at;; i++) {
        c = js[i];
        if (c == '"') {
            i = walk__string_end(js, len, i + 1);
        } else if (c == '{' || c == '[') {
            depth++;
        } else if ((c == '}' || c == ']') && --depth == 0) {
            return i + 1;
        }
    }
}

void response_walk_iter_init(struct response_walk_iter *it, struct response_str text, size_t at)
{
    enum response_walk_type t = response_walk_type(text, at);
    it->text = text;
    it->value = RESPONSE_WALK_NONE;
    it->object = t == RESPONSE_WALK_OBJECT;
    /* Anything but a container walks as empty: pos on a closing bracket of its own. */
    it->pos = it->object || t == RESPONSE_WALK_ARRAY ? at + 1 : RESPONSE_WALK_NONE;
}

bool response_walk_iter_next(struct response_walk_iter *it, struct response_str *out_key,
                             size_t *out_value)
{
    const char *js = it->text.ptr;
    size_t len = it->text.len;
    if (it->pos == RESPONSE_WALK_NONE) {
        return false;
    }
    size_t i = it->value == RESPONSE_WALK_NONE ? it->pos : response_walk_end(it->text, it->value);
    i = json__skip_ws(js, len, i);
    if (js[i] == ',') {
        i = json__skip_ws(js, len, i + 1);
    }
    if (js[i] == '}' || js[i] == ']') {
        it->pos = RESPONSE_WALK_NONE;
        return false;
    }
    struct response_str key = {"", 0};
    if (it->object) {
        size_t end = walk__string_end(js, len, i + 1);
        key.ptr = js + i + 1;
        key.len = end - i - 1;
        i = json__skip_ws(js, len, end + 1);
        i = json__skip_ws(js, len, i + 1); /* the colon */
    }
    if (out_key != NULL) {
        *out_key = key;
    }
    it->value = i;
    *out_value = i;
    return true;
}

/* walk__name is a member name as jansson holds it: the raw bytes when they hold no escape,
 * else decoded into `buf`; a name too long for buf is cut and marked `truncated`, so it can
 * only match a name of sizeof(buf) bytes or more, which no caller looks for. */
struct walk__name {
    struct response_str s;
    bool truncated;
    char buf[64];
};

static void walk__name_decode(struct walk__name *n, struct response_str key)
{
    n->s = key;
    n->truncated = false;
    if (memchr(key.ptr, '\\', key.len) != NULL) {
        n->s.ptr = n->buf;
        n->s.len = jsonstr_unescape(key.ptr, key.len, n->buf, sizeof(n->buf), &n->truncated);
    }
}

static bool walk__name_is(const struct walk__name *n, const char *want, size_t want_len)
{
    return !n->truncated && n->s.len == want_len && memcmp(n->s.ptr, want, want_len) == 0;
}

bool response_walk_key_is(struct response_str key, const char *want, size_t want_len)
{
    struct walk__name n;
    walk__name_decode(&n, key);
    return walk__name_is(&n, want, want_len);
}

void response_walk_members(struct response_str text, size_t obj,
                           const struct response_walk_key *keys, size_t key_count, size_t *out)
{
    for (size_t k = 0; k < key_count; k++) {
        out[k] = RESPONSE_WALK_NONE;
    }
    struct response_walk_iter it;
    struct response_str key;
    size_t value;
    response_walk_iter_init(&it, text, obj);
    while (it.object && response_walk_iter_next(&it, &key, &value)) {
        struct walk__name name;
        walk__name_decode(&name, key);
        for (size_t k = 0; k < key_count; k++) {
            if (walk__name_is(&name, keys[k].name, keys[k].len)) {
                out[k] = value;
            }
        }
    }
}

size_t response_walk_get(struct response_str text, size_t obj, const char *key)
{
    struct response_walk_key k = {key, strlen(key)};
    size_t out;
    response_walk_members(text, obj, &k, 1, &out);
    return out;
}

size_t response_walk_count(struct response_str text, size_t at)
{
    struct response_walk_iter it;
    size_t value;
    size_t n = 0;
    response_walk_iter_init(&it, text, at);
    while (response_walk_iter_next(&it, NULL, &value)) {
        n++;
    }
    return n;
}

bool response_walk_string(struct response_str text, size_t at, struct response_str *out_raw)
{
    if (response_walk_type(text, at) != RESPONSE_WALK_STRING) {
        return false;
    }
    size_t end = walk__string_end(text.ptr, text.len, at + 1);
    out_raw->ptr = text.ptr + at + 1;
    out_raw->len = end - at - 1;
    return true;
}

bool response_walk_is_true(struct response_str text, size_t at)
{
    return at != RESPONSE_WALK_NONE && text.ptr[at] == 't';
}

bool response_walk_int(struct response_str text, size_t at, int64_t *out)
{
    if (response_walk_type(text, at) != RESPONSE_WALK_NUMBER) {
        return false;
    }
    size_t end = json__scalar_end(text.ptr, text.len, at);
    bool neg = text.ptr[at] == '-';
    uint64_t v = 0;
    for (size_t i = at + (neg ? 1 : 0); i < end; i++) {
        char c = text.ptr[i];
        if (c == '.' || c == 'e' || c == 'E') {
            return false;
        }
        v = v * 10 + (uint64_t)(c - '0');
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}
