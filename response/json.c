/*
 * json.c - the strict JSON tokenizer of the response parsers, and the lookups
 * they make in its token tree.
 *
 * The tree is jsmn's (type, start, end, size; a key is a string of size 1
 * followed by its value) plus each token's subtree end, so every reader walks
 * the shape the rest of the project knows from jsmn. The tokenizer itself is ours, and one pass:
 * jsmn accepts a lot of non-JSON (missing commas, bare words, keys without
 * values, control bytes in strings), which took a second walk over every
 * token and the bytes between them to reject; the two passes together were
 * 0.45 us of a non-streamed response's ~1.5 us of client CPU at 150,000
 * requests/s, and issue 2 asks for less CPU per request than wrk. This one
 * builds the tree and checks RFC 8259's grammar at once, and scans strings
 * eight bytes at a time. AIPerf parses with orjson, which is strict, and
 * treats what it cannot parse as a failed chunk; we want the same verdicts.
 * tests/fuzz/fuzz_endpoint_tokens.c checks the tree against jsmn's and the
 * verdict against jsmn plus the old validation walk.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "response/json_scan.h"
#include "response/response_json.h"

/* Bytes of the token including a string's quotes. */
static int json__outer_start(const struct response__tok *t)
{
    return t->type == JSMN_STRING ? t->start - 1 : t->start;
}

static int json__outer_end(const struct response__tok *t)
{
    return t->type == JSMN_STRING ? t->end + 1 : t->end;
}

/* What the tokenizer expects next. */
enum json__expect {
    JSON__VALUE,       /* a value: at the start, after ':', '[' or an array's ',' */
    JSON__KEY,         /* a key and its ':': after '{' or an object's ',' */
    JSON__AFTER_VALUE, /* ',', the innermost container's closing bracket, or the end */
};

enum response_parse_status response__tokenize(struct response__doc *d, struct response__tok *tok,
                                              int cap, const char *json, size_t len)
{
    /* The containers still open, innermost last: their token indexes. Not
     * zero-initialized: written before read, and clearing it cost more than
     * tokenizing a short event. */
    int open[RESPONSE_JSON_DEPTH_MAX];
    int depth = 0;
    struct response__tok *in = NULL; /* the innermost open container */
    int count = 0;
    size_t i = json__skip_ws(json, len, 0);
    enum json__expect expect = JSON__VALUE;
    for (;;) {
        if (expect == JSON__AFTER_VALUE) {
            i = json__skip_ws(json, len, i);
            if (in == NULL) {
                if (i != len) {
                    return RESPONSE_PARSE_ERR_MALFORMED;
                }
                d->js = json;
                d->tok = tok;
                d->ntok = count;
                return RESPONSE_PARSE_OK;
            }
            char c = i < len ? json[i] : '\0';
            if (c == ',') {
                i = json__skip_ws(json, len, i + 1);
                expect = in->type == JSMN_OBJECT ? JSON__KEY : JSON__VALUE;
            } else if (c == (in->type == JSMN_OBJECT ? '}' : ']')) {
                in->end = (int)i + 1;
                in->next = count;
                i++;
                depth--;
                in = depth > 0 ? &tok[open[depth - 1]] : NULL;
                continue;
            } else {
                return RESPONSE_PARSE_ERR_MALFORMED;
            }
        }
        if (i >= len) {
            return RESPONSE_PARSE_ERR_MALFORMED;
        }
        if (count >= cap) {
            return RESPONSE_PARSE_ERR_TOO_MANY_TOKENS;
        }
        struct response__tok *t = &tok[count];
        t->size = 0;
        t->next = ++count;
        if (expect == JSON__KEY) {
            /* A key: a string of size 1, counted as the object's member. */
            size_t end = json[i] == '"' ? json__string_end(json, len, i + 1) : len;
            if (end >= len) {
                return RESPONSE_PARSE_ERR_MALFORMED;
            }
            *t = (struct response__tok){JSMN_STRING, (int)i + 1, (int)end, 1, count};
            in->size++;
            i = json__skip_ws(json, len, end + 1);
            if (i >= len || json[i] != ':') {
                return RESPONSE_PARSE_ERR_MALFORMED;
            }
            i = json__skip_ws(json, len, i + 1);
            expect = JSON__VALUE;
            continue;
        }
        if (in != NULL && in->type == JSMN_ARRAY) {
            in->size++;
        }
        char c = json[i];
        if (c == '"') {
            size_t end = json__string_end(json, len, i + 1);
            if (end >= len) {
                return RESPONSE_PARSE_ERR_MALFORMED;
            }
            t->type = JSMN_STRING;
            t->start = (int)i + 1;
            t->end = (int)end;
            i = end + 1;
        } else if (c == '{' || c == '[') {
            if (depth >= RESPONSE_JSON_DEPTH_MAX) {
                return RESPONSE_PARSE_ERR_MALFORMED;
            }
            t->type = c == '{' ? JSMN_OBJECT : JSMN_ARRAY;
            t->start = (int)i;
            open[depth++] = count - 1;
            in = t;
            i = json__skip_ws(json, len, i + 1);
            if (i < len && json[i] == (c == '{' ? '}' : ']')) {
                expect = JSON__AFTER_VALUE; /* empty: closed at once */
                continue;
            }
            expect = c == '{' ? JSON__KEY : JSON__VALUE;
            continue;
        } else {
            size_t end = json__scalar_end(json, len, i);
            if (end == i) {
                return RESPONSE_PARSE_ERR_MALFORMED;
            }
            t->type = JSMN_PRIMITIVE;
            t->start = (int)i;
            t->end = (int)end;
            i = end;
        }
        expect = JSON__AFTER_VALUE;
    }
}

int response__skip(const struct response__doc *d, int i)
{
    return d->tok[i].next;
}

bool response__is(const struct response__doc *d, int i, jsmntype_t type)
{
    return i >= 0 && d->tok[i].type == type;
}

int response__size(const struct response__doc *d, int i)
{
    if (response__is(d, i, JSMN_OBJECT) || response__is(d, i, JSMN_ARRAY)) {
        return d->tok[i].size;
    }
    return 0;
}

/* json__key_is reports whether string token t holds exactly want[0..n). */
static bool json__key_is(const struct response__doc *d, const struct response__tok *t,
                         const char *want, size_t n)
{
    return t->type == JSMN_STRING && (size_t)(t->end - t->start) == n &&
           memcmp(d->js + t->start, want, n) == 0;
}

bool response__str_eq(const struct response__doc *d, int i, const char *want)
{
    return i >= 0 && json__key_is(d, &d->tok[i], want, strlen(want));
}

/* json__get finds the last member of obj named want[0..n), comparing each
 * name as written (built-in keys, which never need escapes) or decoded. */
static int json__get(const struct response__doc *d, int obj, const char *want, size_t n,
                     bool decoded)
{
    int found = -1;
    if (!response__is(d, obj, JSMN_OBJECT)) {
        return -1;
    }
    int j = obj + 1;
    for (int m = 0; m < d->tok[obj].size; m++) {
        const struct response__tok *t = &d->tok[j];
        bool hit = decoded
                       ? t->type == JSMN_STRING &&
                             jsonstr_equal(d->js + t->start, (size_t)(t->end - t->start), want, n)
                       : json__key_is(d, t, want, n);
        if (hit) {
            found = j + 1;
        }
        j = response__skip(d, j + 1);
    }
    return found;
}

int response__get(const struct response__doc *d, int obj, const char *key)
{
    return json__get(d, obj, key, strlen(key), false);
}

int response__get_decoded(const struct response__doc *d, int obj, const char *name, size_t len)
{
    return json__get(d, obj, name, len, true);
}

void response__members(const struct response__doc *d, int obj, const struct response__key *keys,
                       size_t key_count, int *out)
{
    for (size_t k = 0; k < key_count; k++) {
        out[k] = -1;
    }
    if (!response__is(d, obj, JSMN_OBJECT)) {
        return;
    }
    int j = obj + 1;
    for (int m = 0; m < d->tok[obj].size; m++) {
        const struct response__tok *t = &d->tok[j];
        const char *name = d->js + t->start;
        size_t len = (size_t)(t->end - t->start);
        for (size_t k = 0; t->type == JSMN_STRING && len > 0 && k < key_count; k++) {
            /* Length, first and last byte rule out nearly every other key
             * without a call ("created" and "choices" share the first two). */
            if (keys[k].len == len && keys[k].name[0] == name[0] &&
                keys[k].name[len - 1] == name[len - 1] && memcmp(keys[k].name, name, len) == 0) {
                out[k] = j + 1;
            }
        }
        j = response__skip(d, j + 1);
    }
}

int response__at(const struct response__doc *d, int arr, int64_t k)
{
    if (!response__is(d, arr, JSMN_ARRAY)) {
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
        j = response__skip(d, j);
    }
    return j;
}

struct response_str response__view(const struct response__doc *d, int i)
{
    struct response_str s = {"", 0};
    if (i >= 0) {
        s.ptr = d->js + d->tok[i].start;
        s.len = (size_t)(d->tok[i].end - d->tok[i].start);
    }
    return s;
}

struct response_str response__string(const struct response__doc *d, int i)
{
    struct response_str none = {"", 0};
    if (!response__is(d, i, JSMN_STRING)) {
        return none;
    }
    return response__view(d, i);
}

struct response_str response__outer(const struct response__doc *d, int i)
{
    struct response_str s = {"", 0};
    if (i >= 0) {
        int start = json__outer_start(&d->tok[i]);
        s.ptr = d->js + start;
        s.len = (size_t)(json__outer_end(&d->tok[i]) - start);
    }
    return s;
}

bool response__is_null(const struct response__doc *d, int i)
{
    return response__is(d, i, JSMN_PRIMITIVE) && d->js[d->tok[i].start] == 'n';
}

bool response__is_number(const struct response__doc *d, int i)
{
    if (!response__is(d, i, JSMN_PRIMITIVE)) {
        return false;
    }
    char c = d->js[d->tok[i].start];
    return c == '-' || (c >= '0' && c <= '9');
}

bool response__double(const struct response__doc *d, int i, double *out)
{
    char text[64];
    if (!response__is_number(d, i)) {
        return false;
    }
    struct response_str v = response__view(d, i);
    if (v.len == 0 || v.len >= sizeof(text)) {
        return false;
    }
    /* strtod needs a NUL-terminated copy; the tokenizer already checked the JSON syntax. */
    memcpy(text, v.ptr, v.len);
    text[v.len] = '\0';
    char *end = NULL;
    double x = strtod(text, &end);
    if (end != text + v.len || !isfinite(x)) {
        return false;
    }
    *out = x;
    return true;
}

bool response__truthy(const struct response__doc *d, int i)
{
    if (i < 0) {
        return false;
    }
    const struct response__tok *t = &d->tok[i];
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

bool response__uint(const struct response__doc *d, int i, uint64_t *out)
{
    if (!response__is(d, i, JSMN_PRIMITIVE)) {
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

bool response__count(const struct response__doc *d, int i, int64_t *out)
{
    uint64_t v = 0;
    if (!response__uint(d, i, &v)) {
        return false;
    }
    *out = v <= (uint64_t)INT64_MAX ? (int64_t)v : INT64_MAX;
    return true;
}

bool response__int(const struct response__doc *d, int i, int64_t *out)
{
    if (!response__is(d, i, JSMN_PRIMITIVE)) {
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
