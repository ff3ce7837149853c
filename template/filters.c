/*
 * filters.c - the filters of the subset, as Jinja2 3.1 computes them with
 * autoescape on (tojson's output and safe/escape's are Markup).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template/template_internal.h"

void template__filter_arity(enum template__filter f, int *out_min, int *out_max)
{
    *out_min = 0;
    switch (f) {
    case F_TOJSON:
    case F_JOIN:
    case F_INT:
        *out_max = 1;
        return;
    case F_DEFAULT:
        *out_max = 2;
        return;
    default:
        *out_max = 0;
        return;
    }
}

static int set_string(struct template__value *out, json_t *s, bool safe)
{
    if (s == NULL) {
        return -ENOMEM;
    }
    out->j = s;
    out->safe = safe;
    return 0;
}

/* tojson: json.dumps(sort_keys=True) with < > & ' escaped for HTML. */
static int tojson(const struct template__value *v, struct template__value *out, char *err,
                  size_t errcap)
{
    if (v->j == NULL) {
        snprintf(err, errcap, "tojson of an undefined value");
        return -EINVAL;
    }
    char *text = json_dumps(v->j, JSON_ENCODE_ANY | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
    if (text == NULL) {
        return -ENOMEM;
    }
    struct dynbuf b;
    dynbuf_init(&b, TEMPLATE_OUTPUT_BYTES_MAX);
    int rc = 0;
    for (const char *s = text; *s != '\0' && rc == 0; s++) {
        char esc[8];
        if (s[0] == '\\' && s[1] == 'u') {
            /* Python writes \uXXXX in lower case, jansson in upper case. */
            for (int k = 0; k < 6; k++) {
                esc[k] = (char)(s[k] >= 'A' && s[k] <= 'F' ? s[k] + 32 : s[k]);
            }
            rc = dynbuf_put(&b, esc, 6);
            s += 5;
        } else if (s[0] == '\\') {
            rc = dynbuf_put(&b, s, 2);
            s++;
        } else if (strchr("<>&'", *s) != NULL) {
            snprintf(esc, sizeof(esc), "\\u%04x", (unsigned)(unsigned char)*s);
            rc = dynbuf_put(&b, esc, 6);
        } else {
            rc = dynbuf_put(&b, s, 1);
        }
    }
    free(text);
    if (rc == 0) {
        rc = set_string(out, json_stringn(b.p ? b.p : "", b.len), true);
    }
    dynbuf_free(&b);
    return rc;
}

/* str(v), or an error for a list or mapping. */
static json_t *str_or_fail(const struct template__value *v, char *err, size_t errcap)
{
    json_t *s = template__str_of(v);
    if (s == NULL) {
        snprintf(err, errcap, "a %s where text is needed",
                 json_is_array(v->j) ? "list" : "mapping");
    }
    return s;
}

static int change_case(const struct template__value *v, bool upper, struct template__value *out,
                       char *err, size_t errcap)
{
    json_t *s = str_or_fail(v, err, errcap);
    if (s == NULL) {
        return -EINVAL;
    }
    size_t n = json_string_length(s);
    char *c = malloc(n + 1);
    if (c == NULL) {
        json_decref(s);
        return -ENOMEM;
    }
    const char *in = json_string_value(s);
    for (size_t i = 0; i < n; i++) {
        char ch = in[i];
        c[i] = upper && ch >= 'a' && ch <= 'z'    ? (char)(ch - 32)
               : !upper && ch >= 'A' && ch <= 'Z' ? (char)(ch + 32)
                                                  : ch;
    }
    json_decref(s);
    int rc = set_string(out, json_stringn(c, n), v->safe);
    free(c);
    return rc;
}

/* The code points of a UTF-8 string. */
static size_t code_points(const char *s, size_t n)
{
    size_t count = 0;
    for (size_t i = 0; i < n; i++) {
        count += ((unsigned char)s[i] & 0xC0) != 0x80;
    }
    return count;
}

static int length(const struct template__value *v, struct template__value *out, char *err,
                  size_t errcap)
{
    size_t n = 0;
    if (json_is_string(v->j)) {
        n = code_points(json_string_value(v->j), json_string_length(v->j));
    } else if (json_is_array(v->j)) {
        n = json_array_size(v->j);
    } else if (json_is_object(v->j)) {
        n = json_object_size(v->j);
    } else if (v->j != NULL) {
        snprintf(err, errcap, "length of a value that has none");
        return -EINVAL;
    }
    out->j = json_integer((json_int_t)n);
    return out->j != NULL ? 0 : -ENOMEM;
}

/* first / last of a list, string (a character) or mapping (a key). */
static int first_last(const struct template__value *v, bool last, struct template__value *out)
{
    json_t *j = v->j;
    if (json_is_array(j) && json_array_size(j) > 0) {
        out->j = json_incref(json_array_get(j, last ? json_array_size(j) - 1 : 0));
    } else if (json_is_string(j) && json_string_length(j) > 0) {
        const char *s = json_string_value(j);
        size_t n = json_string_length(j);
        size_t at = 0;
        if (last) {
            at = n - 1;
            while (at > 0 && ((unsigned char)s[at] & 0xC0) == 0x80) {
                at--;
            }
        }
        size_t end = at + 1;
        while (end < n && ((unsigned char)s[end] & 0xC0) == 0x80) {
            end++;
        }
        out->j = json_stringn(s + at, end - at);
    } else if (json_is_object(j) && json_object_size(j) > 0) {
        const char *key = NULL;
        void *it = json_object_iter(j);
        while (it != NULL) {
            key = json_object_iter_key(it);
            it = last ? json_object_iter_next(j, it) : NULL;
        }
        out->j = json_string(key);
    }
    return 0;
}

static int join_one(struct dynbuf *b, const json_t *item, bool escape, char *err, size_t errcap)
{
    struct template__value e = {.j = (json_t *)item};
    json_t *s = str_or_fail(&e, err, errcap);
    if (s == NULL) {
        return -EINVAL;
    }
    int rc = escape ? template__escape_into(b, json_string_value(s), json_string_length(s))
                    : dynbuf_put(b, json_string_value(s), json_string_length(s));
    json_decref(s);
    return rc;
}

/* join(sep): plain text, unless the separator is Markup (then the items are
 * escaped and the result is Markup, as Jinja's do_join does). */
static int join(const struct template__value *v, const struct template__value *sep,
                struct template__value *out, char *err, size_t errcap)
{
    json_t *sep_s = sep != NULL ? str_or_fail(sep, err, errcap) : json_string("");
    if (sep_s == NULL) {
        return -EINVAL;
    }
    bool safe = sep != NULL && sep->safe;
    struct dynbuf b;
    dynbuf_init(&b, TEMPLATE_OUTPUT_BYTES_MAX);
    int rc = dynbuf_put(&b, "", 0);
    json_t *items = json_is_array(v->j) ? json_incref(v->j) : json_array();
    if (json_is_object(v->j)) {
        const char *key;
        json_t *val;
        json_object_foreach(v->j, key, val)
        {
            json_array_append_new(items, json_string(key));
        }
    } else if (json_is_string(v->j)) {
        for (size_t i = 0; i < json_string_length(v->j); i++) {
            const char *s = json_string_value(v->j);
            if (((unsigned char)s[i] & 0xC0) != 0x80) {
                size_t end = i + 1;
                while (end < json_string_length(v->j) && ((unsigned char)s[end] & 0xC0) == 0x80) {
                    end++;
                }
                json_array_append_new(items, json_stringn(s + i, end - i));
            }
        }
    }
    for (size_t i = 0; i < json_array_size(items) && rc == 0; i++) {
        if (i > 0) {
            rc = dynbuf_put(&b, json_string_value(sep_s), json_string_length(sep_s));
        }
        if (rc == 0) {
            rc = join_one(&b, json_array_get(items, i), safe, err, errcap);
        }
    }
    json_decref(items);
    json_decref(sep_s);
    if (rc == 0) {
        rc = set_string(out, json_stringn(b.p, b.len), safe);
    }
    dynbuf_free(&b);
    return rc;
}

static int trim(const struct template__value *v, struct template__value *out, char *err,
                size_t errcap)
{
    json_t *s = str_or_fail(v, err, errcap);
    if (s == NULL) {
        return -EINVAL;
    }
    const char *p = json_string_value(s);
    size_t n = json_string_length(s);
    size_t a = 0;
    while (a < n && strchr(" \t\n\r\f\v", p[a]) != NULL && p[a] != '\0') {
        a++;
    }
    while (n > a && strchr(" \t\n\r\f\v", p[n - 1]) != NULL && p[n - 1] != '\0') {
        n--;
    }
    int rc = set_string(out, json_stringn(p + a, n - a), v->safe);
    json_decref(s);
    return rc;
}

/* int(default=0): Python's int() of a number or numeric text, else default. */
static int to_int(const struct template__value *v, const struct template__value *dflt,
                  struct template__value *out)
{
    json_t *j = v->j;
    if (json_is_integer(j)) {
        out->j = json_incref(j);
        return 0;
    }
    if (json_is_real(j) || json_is_boolean(j)) {
        double d = json_is_real(j) ? json_real_value(j) : json_is_true(j);
        out->j = json_integer((json_int_t)d);
        return out->j != NULL ? 0 : -ENOMEM;
    }
    if (json_is_string(j)) {
        const char *s = json_string_value(j);
        char *end;
        errno = 0;
        long long n = strtoll(s, &end, 10);
        while (*end == ' ' || *end == '\t' || *end == '\n') {
            end++;
        }
        if (errno == 0 && end != s && *end == '\0') {
            out->j = json_integer(n);
            return out->j != NULL ? 0 : -ENOMEM;
        }
        double d = strtod(s, &end);
        if (end != s && *end == '\0') {
            out->j = json_integer((json_int_t)d);
            return out->j != NULL ? 0 : -ENOMEM;
        }
    }
    out->j = dflt != NULL ? json_incref(dflt->j) : json_integer(0);
    return 0;
}

int template__apply_filter(enum template__filter f, const struct template__value *v,
                           const struct template__value *args, int argc,
                           struct template__value *out, char *err, size_t errcap)
{
    *out = (struct template__value){0};
    const struct template__value *arg0 = argc > 0 ? &args[0] : NULL;
    switch (f) {
    case F_TOJSON:
        return tojson(v, out, err, errcap);
    case F_LOWER:
    case F_UPPER:
        return change_case(v, f == F_UPPER, out, err, errcap);
    case F_LENGTH:
        return length(v, out, err, errcap);
    case F_FIRST:
    case F_LAST:
        return first_last(v, f == F_LAST, out);
    case F_JOIN:
        return join(v, arg0, out, err, errcap);
    case F_DEFAULT: {
        bool use = v->j == NULL || (argc > 1 && template__truthy(&args[1]) && !template__truthy(v));
        const struct template__value *pick = use ? arg0 : v;
        if (pick == NULL) {
            return set_string(out, json_string(""), false);
        }
        *out = (struct template__value){.j = json_incref(pick->j), .safe = pick->safe};
        return 0;
    }
    case F_STRING:
    case F_SAFE: {
        json_t *s = str_or_fail(v, err, errcap);
        return s == NULL ? -EINVAL : set_string(out, s, v->safe || f == F_SAFE);
    }
    case F_TRIM:
        return trim(v, out, err, errcap);
    case F_INT:
        return to_int(v, arg0, out);
    case F_ESCAPE: {
        if (v->safe) {
            *out = (struct template__value){.j = json_incref(v->j), .safe = true};
            return 0;
        }
        json_t *s = str_or_fail(v, err, errcap);
        if (s == NULL) {
            return -EINVAL;
        }
        struct dynbuf b;
        dynbuf_init(&b, TEMPLATE_OUTPUT_BYTES_MAX);
        int rc = template__escape_into(&b, json_string_value(s), json_string_length(s));
        json_decref(s);
        if (rc == 0) {
            rc = set_string(out, json_stringn(b.p ? b.p : "", b.len), true);
        }
        dynbuf_free(&b);
        return rc;
    }
    }
    return -EINVAL;
}
