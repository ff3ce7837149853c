/*
 * json.c - a validated jsmn token tree and the lookups the response parsers
 * use on it.
 *
 * jsmn tokenizes into a caller's array; jsmn alone accepts a lot of non-JSON
 * (missing commas, bare words, keys without values), so the token tree is
 * validated once, including the bytes between tokens, before anything is
 * read from it. AIPerf parses with orjson, which is strict, and treats what
 * it cannot parse as a failed chunk; we want the same verdicts.
 */
#define JSMN_STATIC
#define JSMN_STRICT
#define JSMN_PARENT_LINKS
#include <jsmn.h>

#include <stdint.h>
#include <string.h>

#include "endpoint/endpoint_json.h"

static bool json__is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Bytes of the token including a string's quotes. */
static int json__outer_start(const jsmntok_t *t)
{
    return t->type == JSMN_STRING ? t->start - 1 : t->start;
}

static int json__outer_end(const jsmntok_t *t)
{
    return t->type == JSMN_STRING ? t->end + 1 : t->end;
}

/* The gap [from, to) must be whitespace around at most one `sep` (exactly one
 * when sep != 0). */
static bool json__gap_ok(const char *js, int from, int to, char sep)
{
    /* Compact JSON, as servers send it: nothing or just the separator. */
    if (to - from == (sep ? 1 : 0)) {
        return !sep || js[from] == sep;
    }
    int i = from;
    while (i < to && json__is_ws(js[i])) {
        i++;
    }
    if (sep) {
        if (i >= to || js[i] != sep) {
            return false;
        }
        i++;
        while (i < to && json__is_ws(js[i])) {
            i++;
        }
    }
    return i == to;
}

static bool json__digits(const char *s, int *i, int end)
{
    int start = *i;
    while (*i < end && s[*i] >= '0' && s[*i] <= '9') {
        (*i)++;
    }
    return *i > start;
}

/* RFC 8259 number, or true/false/null. */
static bool json__primitive_ok(const char *s, int len)
{
    if ((len == 4 && memcmp(s, "true", 4) == 0) || (len == 5 && memcmp(s, "false", 5) == 0) ||
        (len == 4 && memcmp(s, "null", 4) == 0)) {
        return true;
    }
    int i = 0;
    if (i < len && s[i] == '-') {
        i++;
    }
    if (i < len && s[i] == '0') {
        i++;
    } else if (!json__digits(s, &i, len)) {
        return false;
    }
    if (i < len && s[i] == '.') {
        i++;
        if (!json__digits(s, &i, len)) {
            return false;
        }
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-')) {
            i++;
        }
        if (!json__digits(s, &i, len)) {
            return false;
        }
    }
    return i == len;
}

static bool json__string_ok(const char *s, int len)
{
    /* Eight bytes at a time: (x - 0x20 in every byte) & ~x has a byte's top
     * bit set exactly when some byte of x is below 0x20 (bit hacks' hasless). */
    const uint64_t ones = UINT64_C(0x0101010101010101);
    int i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t x;
        memcpy(&x, s + i, sizeof(x));
        if (((x - ones * 0x20) & ~x & ones * 0x80) != 0) {
            return false;
        }
    }
    for (; i < len; i++) {
        if ((unsigned char)s[i] < 0x20) {
            return false;
        }
    }
    return true;
}

static int json__validate(const struct endpoint__doc *d, int i, int depth);

/* Validates the members of container token i; returns the next token. */
static int json__validate_members(const struct endpoint__doc *d, int i, int depth)
{
    const jsmntok_t *c = &d->tok[i];
    bool is_obj = c->type == JSMN_OBJECT;
    int pos = c->start + 1;
    int j = i + 1;
    for (int m = 0; m < c->size; m++) {
        if (j >= d->ntok || !json__gap_ok(d->js, pos, json__outer_start(&d->tok[j]), m ? ',' : 0)) {
            return -1;
        }
        if (is_obj) {
            const jsmntok_t *k = &d->tok[j];
            if (k->type != JSMN_STRING || k->size != 1 || j + 1 >= d->ntok ||
                !json__string_ok(d->js + k->start, k->end - k->start) ||
                !json__gap_ok(d->js, json__outer_end(k), json__outer_start(&d->tok[j + 1]), ':')) {
                return -1;
            }
            j++;
        }
        int value = j;
        j = json__validate(d, value, depth + 1);
        if (j < 0) {
            return -1;
        }
        pos = json__outer_end(&d->tok[value]);
    }
    if (!json__gap_ok(d->js, pos, c->end - 1, 0)) {
        return -1;
    }
    return j;
}

/* Validates the value at token i; returns the index after its subtree or -1. */
static int json__validate(const struct endpoint__doc *d, int i, int depth)
{
    const jsmntok_t *t = &d->tok[i];
    switch (t->type) {
    case JSMN_PRIMITIVE:
        if (t->size != 0 || !json__primitive_ok(d->js + t->start, t->end - t->start)) {
            return -1;
        }
        return i + 1;
    case JSMN_STRING:
        if (t->size != 0 || !json__string_ok(d->js + t->start, t->end - t->start)) {
            return -1;
        }
        return i + 1;
    case JSMN_OBJECT:
    case JSMN_ARRAY:
        if (depth >= ENDPOINT_JSON_DEPTH_MAX) {
            return -1;
        }
        return json__validate_members(d, i, depth);
    default:
        return -1;
    }
}

enum endpoint_parse_status endpoint__tokenize(struct endpoint__doc *d, jsmntok_t *tok, int cap,
                                              const char *json, size_t len)
{
    jsmn_parser parser;
    jsmn_init(&parser);
    int r = jsmn_parse(&parser, json, len, tok, (unsigned)cap);
    if (r == JSMN_ERROR_NOMEM) {
        return ENDPOINT_PARSE_ERR_TOO_MANY_TOKENS;
    }
    if (r <= 0) {
        return ENDPOINT_PARSE_ERR_MALFORMED;
    }
    d->js = json;
    d->tok = tok;
    d->ntok = r;
    if (json__validate(d, 0, 0) != r || !json__gap_ok(json, 0, json__outer_start(&tok[0]), 0) ||
        !json__gap_ok(json, json__outer_end(&tok[0]), (int)len, 0)) {
        return ENDPOINT_PARSE_ERR_MALFORMED;
    }
    return ENDPOINT_PARSE_OK;
}

int endpoint__skip(const struct endpoint__doc *d, int i)
{
    int end = d->tok[i].end;
    i++;
    while (i < d->ntok && d->tok[i].start < end) {
        i++;
    }
    return i;
}

bool endpoint__is(const struct endpoint__doc *d, int i, jsmntype_t type)
{
    return i >= 0 && d->tok[i].type == type;
}

int endpoint__size(const struct endpoint__doc *d, int i)
{
    if (endpoint__is(d, i, JSMN_OBJECT) || endpoint__is(d, i, JSMN_ARRAY)) {
        return d->tok[i].size;
    }
    return 0;
}

/* json__key_is reports whether string token t holds exactly want[0..n). */
static bool json__key_is(const struct endpoint__doc *d, const jsmntok_t *t, const char *want,
                         size_t n)
{
    return t->type == JSMN_STRING && (size_t)(t->end - t->start) == n &&
           memcmp(d->js + t->start, want, n) == 0;
}

bool endpoint__str_eq(const struct endpoint__doc *d, int i, const char *want)
{
    return i >= 0 && json__key_is(d, &d->tok[i], want, strlen(want));
}

int endpoint__get(const struct endpoint__doc *d, int obj, const char *key)
{
    int found = -1;
    if (!endpoint__is(d, obj, JSMN_OBJECT)) {
        return -1;
    }
    size_t n = strlen(key);
    int j = obj + 1;
    for (int m = 0; m < d->tok[obj].size; m++) {
        if (json__key_is(d, &d->tok[j], key, n)) {
            found = j + 1;
        }
        j = endpoint__skip(d, j + 1);
    }
    return found;
}

void endpoint__members(const struct endpoint__doc *d, int obj, const struct endpoint__key *keys,
                       size_t key_count, int *out)
{
    for (size_t k = 0; k < key_count; k++) {
        out[k] = -1;
    }
    if (!endpoint__is(d, obj, JSMN_OBJECT)) {
        return;
    }
    int j = obj + 1;
    for (int m = 0; m < d->tok[obj].size; m++) {
        const jsmntok_t *t = &d->tok[j];
        const char *name = d->js + t->start;
        size_t len = (size_t)(t->end - t->start);
        for (size_t k = 0; t->type == JSMN_STRING && len > 0 && k < key_count; k++) {
            /* Length and first byte rule out nearly every key without a call. */
            if (keys[k].len == len && keys[k].name[0] == name[0] &&
                memcmp(keys[k].name, name, len) == 0) {
                out[k] = j + 1;
            }
        }
        j = endpoint__skip(d, j + 1);
    }
}

int endpoint__at(const struct endpoint__doc *d, int arr, int64_t k)
{
    if (!endpoint__is(d, arr, JSMN_ARRAY)) {
        return -1;
    }
    int64_t n = d->tok[arr].size;
    if (k < 0) {
        k += n;
    }
    if (k < 0 || k >= n) {
        return -1;
    }
    int j = arr + 1;
    for (int64_t m = 0; m < k; m++) {
        j = endpoint__skip(d, j);
    }
    return j;
}

struct endpoint_str endpoint__view(const struct endpoint__doc *d, int i)
{
    struct endpoint_str s = {"", 0};
    if (i >= 0) {
        s.ptr = d->js + d->tok[i].start;
        s.len = (size_t)(d->tok[i].end - d->tok[i].start);
    }
    return s;
}

struct endpoint_str endpoint__string(const struct endpoint__doc *d, int i)
{
    struct endpoint_str none = {"", 0};
    if (!endpoint__is(d, i, JSMN_STRING)) {
        return none;
    }
    return endpoint__view(d, i);
}

struct endpoint_str endpoint__outer(const struct endpoint__doc *d, int i)
{
    struct endpoint_str s = {"", 0};
    if (i >= 0) {
        int start = json__outer_start(&d->tok[i]);
        s.ptr = d->js + start;
        s.len = (size_t)(json__outer_end(&d->tok[i]) - start);
    }
    return s;
}

bool endpoint__is_null(const struct endpoint__doc *d, int i)
{
    return endpoint__is(d, i, JSMN_PRIMITIVE) && d->js[d->tok[i].start] == 'n';
}

bool endpoint__is_number(const struct endpoint__doc *d, int i)
{
    if (!endpoint__is(d, i, JSMN_PRIMITIVE)) {
        return false;
    }
    char c = d->js[d->tok[i].start];
    return c == '-' || (c >= '0' && c <= '9');
}

bool endpoint__truthy(const struct endpoint__doc *d, int i)
{
    if (i < 0) {
        return false;
    }
    const jsmntok_t *t = &d->tok[i];
    const char *s = d->js + t->start;
    if (t->type != JSMN_PRIMITIVE) {
        return t->type == JSMN_STRING ? t->end > t->start : t->size > 0;
    }
    if (s[0] == 'n' || s[0] == 'f') {
        return false;
    }
    /* A number is falsy when all its mantissa digits are zero. */
    for (int k = t->start; k < t->end; k++) {
        char c = d->js[k];
        if (c == 'e' || c == 'E') {
            break;
        }
        if (c >= '1' && c <= '9') {
            return true;
        }
    }
    return s[0] == 't';
}

bool endpoint__uint(const struct endpoint__doc *d, int i, uint64_t *out)
{
    if (!endpoint__is(d, i, JSMN_PRIMITIVE)) {
        return false;
    }
    uint64_t v = 0;
    for (int k = d->tok[i].start; k < d->tok[i].end; k++) {
        unsigned digit = (unsigned)(d->js[k] - '0');
        if (digit > 9 || v > (UINT64_MAX - digit) / 10) {
            return false;
        }
        v = v * 10 + digit;
    }
    *out = v;
    return true;
}

bool endpoint__int(const struct endpoint__doc *d, int i, int64_t *out)
{
    if (!endpoint__is(d, i, JSMN_PRIMITIVE)) {
        return false;
    }
    bool neg = d->js[d->tok[i].start] == '-';
    uint64_t v = 0;
    for (int k = d->tok[i].start + (neg ? 1 : 0); k < d->tok[i].end; k++) {
        unsigned digit = (unsigned)(d->js[k] - '0');
        if (digit > 9 || v > ((uint64_t)INT64_MAX - digit) / 10) {
            return false;
        }
        v = v * 10 + digit;
    }
    if (d->tok[i].end - d->tok[i].start == (neg ? 1 : 0)) {
        return false;
    }
    *out = neg ? -(int64_t)v : (int64_t)v;
    return true;
}
