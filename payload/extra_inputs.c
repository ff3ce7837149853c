/*
 * extra_inputs.c - AIPerf --extra-inputs values to one JSON object.
 *
 * Mirrors aiperf's parse_str_or_dict_as_tuple_list() and coerce_value(): a
 * value starting with '{' is a JSON object; anything else is comma-separated
 * key:value pairs whose values are typed from their text.
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "payload/payload.h"
#include "payload/payload_internal.h"

/* How much of a bad item is quoted back in an error message. */
#define EXTRA_QUOTE_MAX 80

static bool extra__is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static void extra__trim(const char **s, size_t *len)
{
    while (*len > 0 && extra__is_space((*s)[0])) {
        (*s)++;
        (*len)--;
    }
    while (*len > 0 && extra__is_space((*s)[*len - 1])) {
        (*len)--;
    }
}

static bool extra__all_digits(const char *s)
{
    if (*s == '\0') {
        return false;
    }
    for (; *s; s++) {
        if (*s < '0' || *s > '9') {
            return false;
        }
    }
    return true;
}

/* AIPerf: exactly one '.', and digits otherwise (after an optional '-'). */
static bool extra__is_float_text(const char *s)
{
    const char *dot = strchr(s, '.');
    size_t digits = 0;
    if (!dot || strchr(dot + 1, '.')) {
        return false;
    }
    if (*s == '-') {
        s++;
    }
    for (; *s; s++) {
        if (*s != '.' && (*s < '0' || *s > '9')) {
            return false;
        }
        digits += *s != '.';
    }
    return digits > 0;
}

/* Types one value (NUL-terminated copy) like aiperf's coerce_value(). Returns
 * a new reference, or NULL with a message in errbuf. */
static json_t *extra__coerce(const char *v, const char *key, char *errbuf, size_t errcap)
{
    if (strcasecmp(v, "true") == 0 || strcasecmp(v, "false") == 0) {
        return json_boolean(strcasecmp(v, "true") == 0);
    }
    if (strcasecmp(v, "none") == 0 || strcasecmp(v, "null") == 0) {
        return json_null();
    }
    const char *digits = v[0] == '-' ? v + 1 : v;
    if (extra__all_digits(digits) && (digits[0] != '0' || digits[1] == '\0')) {
        errno = 0;
        long long n = strtoll(v, NULL, 10);
        if (errno == ERANGE) {
            payload__err(errbuf, errcap,
                         "--extra-inputs %s: integer %.*s is out of range; quote it as a "
                         "JSON string inside a JSON object instead",
                         key, EXTRA_QUOTE_MAX, v);
            return NULL;
        }
        return json_integer((json_int_t)n);
    }
    if (extra__is_float_text(v)) {
        double d = strtod(v, NULL);
        if (!isfinite(d)) {
            payload__err(errbuf, errcap, "--extra-inputs %s: number %.*s is out of range", key,
                         EXTRA_QUOTE_MAX, v);
            return NULL;
        }
        return json_real(d);
    }
    json_t *s = json_string(v);
    if (!s) {
        payload__err(errbuf, errcap, "--extra-inputs %s: value is not valid UTF-8 text", key);
    }
    return s;
}

/* One key:value pair (`len` bytes at s, not NUL-terminated). */
static int extra__pair(json_t *root, const char *s, size_t len, char *errbuf, size_t errcap)
{
    const char *colon = memchr(s, ':', len);
    if (!colon) {
        payload__err(errbuf, errcap,
                     "--extra-inputs item '%.*s' is not key:value; write e.g. ignore_eos:true "
                     "or max_tokens:5, or pass a JSON object such as '{\"stop\":[\"a\",\"b\"]}'",
                     (int)(len < EXTRA_QUOTE_MAX ? len : EXTRA_QUOTE_MAX), s);
        return -EINVAL;
    }
    const char *key = s;
    size_t key_len = (size_t)(colon - s);
    const char *val = colon + 1;
    size_t val_len = len - key_len - 1;
    extra__trim(&key, &key_len);
    extra__trim(&val, &val_len);
    if (key_len == 0) {
        payload__err(errbuf, errcap,
                     "--extra-inputs item '%.*s' has an empty key; write key:value, e.g. "
                     "ignore_eos:true",
                     (int)(len < EXTRA_QUOTE_MAX ? len : EXTRA_QUOTE_MAX), s);
        return -EINVAL;
    }
    char *key_z = strndup(key, key_len);
    char *val_z = strndup(val, val_len);
    int rc = -ENOMEM;
    if (!key_z || !val_z) {
        payload__err(errbuf, errcap, "out of memory parsing --extra-inputs");
        goto free_copies;
    }
    json_t *value = extra__coerce(val_z, key_z, errbuf, errcap);
    if (!value) {
        rc = -EINVAL;
        goto free_copies;
    }
    rc = 0;
    if (json_object_set_new(root, key_z, value) < 0) {
        payload__err(errbuf, errcap, "--extra-inputs key '%.*s' is not valid UTF-8 text",
                     EXTRA_QUOTE_MAX, key_z);
        rc = -EINVAL;
    }

free_copies:
    free(val_z);
    free(key_z);
    return rc;
}

static int extra__json_object(json_t *root, const char *item, char *errbuf, size_t errcap)
{
    json_error_t jerr;
    json_t *obj = json_loads(item, 0, &jerr);
    if (!obj) {
        payload__err(errbuf, errcap,
                     "--extra-inputs value '%.*s' is not a valid JSON object (%s at column %d); "
                     "quote the whole object for the shell, e.g. '{\"ignore_eos\":true}', or "
                     "use key:value pairs",
                     EXTRA_QUOTE_MAX, item, jerr.text, jerr.column);
        return -EINVAL;
    }
    /* Starts with '{' and parsed, so it is an object. */
    int rc = json_object_update(root, obj);
    json_decref(obj);
    if (rc < 0) {
        payload__err(errbuf, errcap, "out of memory parsing --extra-inputs");
        return -ENOMEM;
    }
    return 0;
}

static int extra__item(json_t *root, const char *item, char *errbuf, size_t errcap)
{
    if (!item) {
        payload__err(errbuf, errcap, "--extra-inputs item is missing (NULL)");
        return -EINVAL;
    }
    const char *p = item;
    while (extra__is_space(*p)) {
        p++;
    }
    if (*p == '{') {
        return extra__json_object(root, p, errbuf, errcap);
    }
    for (;;) {
        const char *comma = strchr(item, ',');
        size_t len = comma ? (size_t)(comma - item) : strlen(item);
        int rc = extra__pair(root, item, len, errbuf, errcap);
        if (rc < 0 || !comma) {
            return rc;
        }
        item = comma + 1;
    }
}

int payload_extra_inputs_parse(const char *const *items, size_t n, char **out_json, char *errbuf,
                               size_t errcap)
{
    int rc = 0;
    json_t *root = json_object();
    if (!root) {
        payload__err(errbuf, errcap, "out of memory parsing --extra-inputs");
        return -ENOMEM;
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        rc = extra__item(root, items[i], errbuf, errcap);
    }
    if (rc < 0) {
        goto free_root;
    }
    char *json = payload__dump(root);
    if (!json) {
        payload__err(errbuf, errcap, "out of memory parsing --extra-inputs");
        rc = -ENOMEM;
        goto free_root;
    }
    *out_json = json;

free_root:
    json_decref(root);
    return rc;
}

int payload_extra_inputs_take_string(const char *extra_json, const char *key, char **out_value,
                                     char **out_rest)
{
    json_error_t jerr;
    char *value = NULL;
    int rc = -ENOMEM;
    json_t *root = extra_json ? json_loads(extra_json, 0, &jerr) : NULL;
    if (!root || !json_is_object(root)) {
        json_decref(root);
        return -EINVAL;
    }
    json_t *v = json_object_get(root, key);
    if (json_is_string(v)) {
        value = strdup(json_string_value(v));
        if (!value || json_object_del(root, key) < 0) {
            goto free_value;
        }
    }
    char *rest = payload__dump(root);
    if (!rest) {
        goto free_value;
    }
    *out_value = value;
    *out_rest = rest;
    json_decref(root);
    return 0;

free_value:
    free(value);
    json_decref(root);
    return rc;
}
