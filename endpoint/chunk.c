/*
 * chunk.c - zero-allocation parsing of OpenAI chat/completions responses.
 *
 * jsmn tokenizes into a stack array; jsmn alone accepts a lot of non-JSON
 * (missing commas, bare words, keys without values), so the token tree is
 * validated once, including the bytes between tokens, before anything is
 * read from it. AIPerf parses with orjson, which is strict, and treats what
 * it cannot parse as a failed chunk; we want the same verdicts.
 */
#define JSMN_STATIC
#define JSMN_STRICT
#define JSMN_PARENT_LINKS
#include <jsmn.h>

#include <string.h>

#include "endpoint/endpoint.h"

struct chunk__doc {
    const char *js;
    const jsmntok_t *tok;
    int ntok;
};

static bool chunk__is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* Bytes of the token including a string's quotes. */
static int chunk__outer_start(const jsmntok_t *t)
{
    return t->type == JSMN_STRING ? t->start - 1 : t->start;
}

static int chunk__outer_end(const jsmntok_t *t)
{
    return t->type == JSMN_STRING ? t->end + 1 : t->end;
}

/* The gap [from, to) must be whitespace around at most one `sep` (exactly one
 * when sep != 0). */
static bool chunk__gap_ok(const char *js, int from, int to, char sep)
{
    int i = from;
    while (i < to && chunk__is_ws(js[i])) {
        i++;
    }
    if (sep) {
        if (i >= to || js[i] != sep) {
            return false;
        }
        i++;
        while (i < to && chunk__is_ws(js[i])) {
            i++;
        }
    }
    return i == to;
}

static bool chunk__digits(const char *s, int *i, int end)
{
    int start = *i;
    while (*i < end && s[*i] >= '0' && s[*i] <= '9') {
        (*i)++;
    }
    return *i > start;
}

/* RFC 8259 number, or true/false/null. */
static bool chunk__primitive_ok(const char *s, int len)
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
    } else if (!chunk__digits(s, &i, len)) {
        return false;
    }
    if (i < len && s[i] == '.') {
        i++;
        if (!chunk__digits(s, &i, len)) {
            return false;
        }
    }
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < len && (s[i] == '+' || s[i] == '-')) {
            i++;
        }
        if (!chunk__digits(s, &i, len)) {
            return false;
        }
    }
    return i == len;
}

static bool chunk__string_ok(const char *s, int len)
{
    for (int i = 0; i < len; i++) {
        if ((unsigned char)s[i] < 0x20) {
            return false;
        }
    }
    return true;
}

static int chunk__validate(const struct chunk__doc *d, int i, int depth);

/* Validates the members of container token i; returns the next token. */
static int chunk__validate_members(const struct chunk__doc *d, int i, int depth)
{
    const jsmntok_t *c = &d->tok[i];
    bool is_obj = c->type == JSMN_OBJECT;
    int pos = c->start + 1;
    int j = i + 1;
    for (int m = 0; m < c->size; m++) {
        if (j >= d->ntok ||
            !chunk__gap_ok(d->js, pos, chunk__outer_start(&d->tok[j]), m ? ',' : 0)) {
            return -1;
        }
        if (is_obj) {
            const jsmntok_t *k = &d->tok[j];
            if (k->type != JSMN_STRING || k->size != 1 || j + 1 >= d->ntok ||
                !chunk__string_ok(d->js + k->start, k->end - k->start) ||
                !chunk__gap_ok(d->js, chunk__outer_end(k), chunk__outer_start(&d->tok[j + 1]),
                               ':')) {
                return -1;
            }
            j++;
        }
        int value = j;
        j = chunk__validate(d, value, depth + 1);
        if (j < 0) {
            return -1;
        }
        pos = chunk__outer_end(&d->tok[value]);
    }
    if (!chunk__gap_ok(d->js, pos, c->end - 1, 0)) {
        return -1;
    }
    return j;
}

/* Validates the value at token i; returns the index after its subtree or -1. */
static int chunk__validate(const struct chunk__doc *d, int i, int depth)
{
    const jsmntok_t *t = &d->tok[i];
    switch (t->type) {
    case JSMN_PRIMITIVE:
        if (t->size != 0 || !chunk__primitive_ok(d->js + t->start, t->end - t->start)) {
            return -1;
        }
        return i + 1;
    case JSMN_STRING:
        if (t->size != 0 || !chunk__string_ok(d->js + t->start, t->end - t->start)) {
            return -1;
        }
        return i + 1;
    case JSMN_OBJECT:
    case JSMN_ARRAY:
        if (depth >= ENDPOINT_JSON_DEPTH_MAX) {
            return -1;
        }
        return chunk__validate_members(d, i, depth);
    default:
        return -1;
    }
}

/* Index after the subtree rooted at token i (the tree is already valid). */
static int chunk__skip(const struct chunk__doc *d, int i)
{
    int end = d->tok[i].end;
    i++;
    while (i < d->ntok && d->tok[i].start < end) {
        i++;
    }
    return i;
}

static bool chunk__str_eq(const struct chunk__doc *d, int i, const char *want)
{
    if (i < 0) {
        return false;
    }
    const jsmntok_t *t = &d->tok[i];
    size_t n = strlen(want);
    return t->type == JSMN_STRING && (size_t)(t->end - t->start) == n &&
           memcmp(d->js + t->start, want, n) == 0;
}

/* Value token of member `key` in object token obj (last one wins), or -1. */
static int chunk__get(const struct chunk__doc *d, int obj, const char *key)
{
    int found = -1;
    if (obj < 0 || d->tok[obj].type != JSMN_OBJECT) {
        return -1;
    }
    int j = obj + 1;
    for (int m = 0; m < d->tok[obj].size; m++) {
        if (chunk__str_eq(d, j, key)) {
            found = j + 1;
        }
        j = chunk__skip(d, j + 1);
    }
    return found;
}

static struct endpoint_str chunk__view(const struct chunk__doc *d, int i)
{
    struct endpoint_str s = {"", 0};
    if (i >= 0) {
        s.ptr = d->js + d->tok[i].start;
        s.len = (size_t)(d->tok[i].end - d->tok[i].start);
    }
    return s;
}

/* The string view of token i, or an empty view when it is not a string. */
static struct endpoint_str chunk__string(const struct chunk__doc *d, int i)
{
    struct endpoint_str none = {"", 0};
    if (i < 0 || d->tok[i].type != JSMN_STRING) {
        return none;
    }
    return chunk__view(d, i);
}

static bool chunk__is_null(const struct chunk__doc *d, int i)
{
    const jsmntok_t *t = &d->tok[i];
    return t->type == JSMN_PRIMITIVE && d->js[t->start] == 'n';
}

/* Python truthiness of a JSON value. */
static bool chunk__truthy(const struct chunk__doc *d, int i)
{
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

/* A non-negative JSON integer (plain digits) that fits in uint64_t. */
static bool chunk__uint(const struct chunk__doc *d, int i, uint64_t *out)
{
    if (i < 0 || d->tok[i].type != JSMN_PRIMITIVE) {
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

static void chunk__usage(const struct chunk__doc *d, int usage, struct endpoint_chunk *out)
{
    if (usage < 0 || d->tok[usage].type != JSMN_OBJECT || d->tok[usage].size == 0) {
        return;
    }
    out->has_usage = true;
    out->has_prompt_tokens =
        chunk__uint(d, chunk__get(d, usage, "prompt_tokens"), &out->prompt_tokens);
    out->has_completion_tokens =
        chunk__uint(d, chunk__get(d, usage, "completion_tokens"), &out->completion_tokens);
    int details = chunk__get(d, usage, "completion_tokens_details");
    out->has_reasoning_tokens =
        chunk__uint(d, chunk__get(d, details, "reasoning_tokens"), &out->reasoning_tokens);
}

static void chunk__error(const struct chunk__doc *d, int err, struct endpoint_chunk *out)
{
    out->error_code = 502;
    int msg = err;
    if (d->tok[err].type == JSMN_OBJECT) {
        uint64_t code;
        if (chunk__uint(d, chunk__get(d, err, "code"), &code) && code >= 400 && code <= 599) {
            out->error_code = (int)code;
        }
        out->error_type = chunk__string(d, chunk__get(d, err, "type"));
        msg = chunk__get(d, err, "message");
        if (msg < 0 || d->tok[msg].type != JSMN_STRING) {
            msg = err;
        }
    }
    /* For a non-string this is the value's raw JSON text. */
    out->error_message = chunk__view(d, msg);
    out->error_message_is_json = d->tok[msg].type != JSMN_STRING;
}

static void chunk__add_tool_text(struct endpoint_chunk *out, struct endpoint_str s)
{
    if (s.len == 0) {
        return;
    }
    if (out->tool_text_count == ENDPOINT_TOOL_TEXT_MAX) {
        out->tool_text_truncated = true;
        return;
    }
    out->tool_text[out->tool_text_count++] = s;
}

static void chunk__tool_calls(const struct chunk__doc *d, int calls, struct endpoint_chunk *out)
{
    if (calls < 0 || d->tok[calls].type != JSMN_ARRAY) {
        return;
    }
    int j = calls + 1;
    for (int m = 0; m < d->tok[calls].size; m++) {
        int fn = chunk__get(d, j, "function");
        chunk__add_tool_text(out, chunk__string(d, chunk__get(d, fn, "name")));
        chunk__add_tool_text(out, chunk__string(d, chunk__get(d, fn, "arguments")));
        j = chunk__skip(d, j);
    }
}

/* Reads choices[0] of a recognised object; `key` is the member holding the
 * message ("delta"/"message"), or NULL for completions' "text". */
static void chunk__choice(const struct chunk__doc *d, int root, const char *key,
                          struct endpoint_chunk *out)
{
    int choices = chunk__get(d, root, "choices");
    if (choices < 0 || d->tok[choices].type != JSMN_ARRAY || d->tok[choices].size == 0) {
        return;
    }
    int c0 = choices + 1;
    int finish = chunk__get(d, c0, "finish_reason");
    if (finish >= 0 && !chunk__is_null(d, finish)) {
        out->has_finish_reason = true;
        out->finish_reason = chunk__string(d, finish);
    }
    if (!key) {
        out->content = chunk__string(d, chunk__get(d, c0, "text"));
        return;
    }
    int msg = chunk__get(d, c0, key);
    out->content = chunk__string(d, chunk__get(d, msg, "content"));
    out->reasoning = chunk__string(d, chunk__get(d, msg, "reasoning_content"));
    if (out->reasoning.len == 0) {
        out->reasoning = chunk__string(d, chunk__get(d, msg, "reasoning"));
    }
    if (out->reasoning.len == 0) {
        chunk__tool_calls(d, chunk__get(d, msg, "tool_calls"), out);
    }
}

/* Tokenizes and validates; on success d->ntok > 0 and token 0 is the root. */
static enum endpoint_parse_status chunk__tokenize(struct chunk__doc *d, jsmntok_t *tok,
                                                  const char *json, size_t len)
{
    jsmn_parser parser;
    jsmn_init(&parser);
    int r = jsmn_parse(&parser, json, len, tok, ENDPOINT_JSON_TOKENS_MAX);
    if (r == JSMN_ERROR_NOMEM) {
        return ENDPOINT_PARSE_ERR_TOO_MANY_TOKENS;
    }
    if (r <= 0) {
        return ENDPOINT_PARSE_ERR_MALFORMED;
    }
    d->js = json;
    d->tok = tok;
    d->ntok = r;
    if (chunk__validate(d, 0, 0) != r || !chunk__gap_ok(json, 0, chunk__outer_start(&tok[0]), 0) ||
        !chunk__gap_ok(json, chunk__outer_end(&tok[0]), (int)len, 0)) {
        return ENDPOINT_PARSE_ERR_MALFORMED;
    }
    return tok[0].type == JSMN_OBJECT ? ENDPOINT_PARSE_OK : ENDPOINT_PARSE_ERR_NOT_OBJECT;
}

static bool chunk__is_done(const char *json, size_t len)
{
    while (len > 0 && chunk__is_ws(json[0])) {
        json++;
        len--;
    }
    while (len > 0 && chunk__is_ws(json[len - 1])) {
        len--;
    }
    return len == 6 && memcmp(json, "[DONE]", 6) == 0;
}

enum endpoint_parse_status endpoint_parse_chunk(enum endpoint_type t, const char *json, size_t len,
                                                struct endpoint_chunk *out)
{
    static const struct endpoint_chunk empty = {
        .object = {"", 0},
        .content = {"", 0},
        .reasoning = {"", 0},
        .finish_reason = {"", 0},
        .error_type = {"", 0},
        .error_message = {"", 0},
    };
    jsmntok_t tok[ENDPOINT_JSON_TOKENS_MAX];
    struct chunk__doc d;
    *out = empty;
    if (len > ENDPOINT_JSON_BYTES_MAX) {
        return ENDPOINT_PARSE_ERR_TOO_LARGE;
    }
    if (len == 0) {
        return ENDPOINT_PARSE_ERR_MALFORMED;
    }
    if (chunk__is_done(json, len)) {
        return ENDPOINT_PARSE_DONE;
    }
    enum endpoint_parse_status st = chunk__tokenize(&d, tok, json, len);
    if (st != ENDPOINT_PARSE_OK) {
        return st;
    }
    int err = chunk__get(&d, 0, "error");
    if (err >= 0 && chunk__truthy(&d, err)) {
        chunk__error(&d, err, out);
        return ENDPOINT_PARSE_ERROR;
    }
    chunk__usage(&d, chunk__get(&d, 0, "usage"), out);
    int object = chunk__get(&d, 0, "object");
    out->object = chunk__string(&d, object);
    const char *key;
    if (t == ENDPOINT_CHAT && chunk__str_eq(&d, object, "chat.completion.chunk")) {
        key = "delta";
    } else if (t == ENDPOINT_CHAT && chunk__str_eq(&d, object, "chat.completion")) {
        key = "message";
    } else if (t == ENDPOINT_COMPLETIONS && (chunk__str_eq(&d, object, "text_completion") ||
                                             chunk__str_eq(&d, object, "completion"))) {
        key = NULL;
    } else {
        return ENDPOINT_PARSE_IGNORED;
    }
    chunk__choice(&d, 0, key, out);
    out->is_content = out->content.len > 0 || out->reasoning.len > 0 || out->tool_text_count > 0;
    return ENDPOINT_PARSE_OK;
}

const char *endpoint_parse_status_name(enum endpoint_parse_status s)
{
    switch (s) {
    case ENDPOINT_PARSE_OK:
        return "ok";
    case ENDPOINT_PARSE_DONE:
        return "[DONE]";
    case ENDPOINT_PARSE_IGNORED:
        return "ignored object";
    case ENDPOINT_PARSE_ERROR:
        return "server error payload";
    case ENDPOINT_PARSE_ERR_MALFORMED:
        return "malformed JSON";
    case ENDPOINT_PARSE_ERR_NOT_OBJECT:
        return "JSON payload is not an object";
    case ENDPOINT_PARSE_ERR_TOO_MANY_TOKENS:
        return "JSON payload has too many tokens";
    case ENDPOINT_PARSE_ERR_TOO_LARGE:
        return "JSON payload too large";
    }
    return "unknown endpoint parse status";
}
