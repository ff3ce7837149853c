/*
 * fuzz_response_tokens.c - libFuzzer target comparing the response parsers'
 * tokenizer (response__tokenize) with jsmn.
 *
 * The reference is what the project used before its own tokenizer: jsmn in
 * strict mode, then a walk over every token and the bytes between them that
 * rejects what jsmn lets through (missing commas and colons, bare words,
 * control bytes in strings, numbers outside RFC 8259). Checked on every input:
 *   - the same verdict, valid or malformed;
 *   - for valid JSON, the same tree: token count, and each token's type,
 *     start, end and size, and its subtree's end (next) where the tokens'
 *     offsets put it;
 *   - with a token array one short of what the text needs, "too many tokens"
 *     and no write past the array.
 */
#define JSMN_STATIC
#define JSMN_STRICT
#include <jsmn.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "response/response_json.h"

/* ---- The reference: jsmn, then the validation walk ---------------------- */

struct ref_doc {
    const char *js;
    const jsmntok_t *tok;
    int ntok;
};

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

static int json__validate(const struct ref_doc *d, int i, int depth);

/* Validates the members of container token i; returns the next token. */
static int json__validate_members(const struct ref_doc *d, int i, int depth)
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
static int json__validate(const struct ref_doc *d, int i, int depth)
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
        if (depth >= RESPONSE_JSON_DEPTH_MAX) {
            return -1;
        }
        return json__validate_members(d, i, depth);
    default:
        return -1;
    }
}

/* ref_tokenize returns the token count of valid JSON, 0 for malformed. json
 * has room for one byte more than len: strict jsmn refuses a number or literal
 * that ends the text ("null", "5"), which orjson and our tokenizer accept, so
 * the reference reads the text with a space after it, which changes no other
 * verdict and no offset. */
static int ref_tokenize(char *json, size_t len, jsmntok_t *tok, int cap)
{
    json[len++] = ' ';
    jsmn_parser parser;
    jsmn_init(&parser);
    int r = jsmn_parse(&parser, json, len, tok, (unsigned)cap);
    if (r <= 0) {
        return 0;
    }
    struct ref_doc d = {.js = json, .tok = tok, .ntok = r};
    if (json__validate(&d, 0, 0) != r || !json__gap_ok(json, 0, json__outer_start(&tok[0]), 0) ||
        !json__gap_ok(json, json__outer_end(&tok[0]), (int)len, 0)) {
        return 0;
    }
    return r;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *json = malloc(size + 1);
    /* Room for the most tokens any text can hold, plus a guard token. */
    int cap = (int)size + 1;
    jsmntok_t *ref = calloc((size_t)cap, sizeof(*ref));
    struct response__tok *ours = calloc((size_t)cap + 1, sizeof(*ours));
    if (json == NULL || ref == NULL || ours == NULL) {
        abort();
    }
    memcpy(json, data, size);
    int expected = ref_tokenize(json, size, ref, cap);
    /* Our tokenizer gets an exact-size copy, so ASan sees any over-read. */
    char *exact = malloc(size ? size : 1);
    if (exact == NULL) {
        abort();
    }
    memcpy(exact, data, size);
    free(json);
    json = exact;
    struct response__doc d;
    enum response_parse_status st = response__tokenize(&d, ours, cap, json, size);
    if ((st == RESPONSE_PARSE_OK) != (expected > 0)) {
        abort();
    }
    if (st == RESPONSE_PARSE_OK) {
        if (d.ntok != expected || d.tok != ours || d.js != json) {
            abort();
        }
        for (int i = 0; i < expected; i++) {
            int next = i + 1;
            while (next < expected && ref[next].start < ref[i].end) {
                next++;
            }
            if (ours[i].type != ref[i].type || ours[i].start != ref[i].start ||
                ours[i].end != ref[i].end || ours[i].size != ref[i].size || ours[i].next != next) {
                abort();
            }
        }
        /* One token short: refused as too many, nothing written past it. */
        memset(&ours[expected - 1], 0xa5, sizeof(*ours));
        struct response__tok guard = ours[expected - 1];
        st = response__tokenize(&d, ours, expected - 1, json, size);
        if (st != RESPONSE_PARSE_ERR_TOO_MANY_TOKENS ||
            memcmp(&ours[expected - 1], &guard, sizeof(guard)) != 0) {
            abort();
        }
    }
    free(json);
    free(ref);
    free(ours);
    return 0;
}
