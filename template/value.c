/*
 * value.c - Python's view of the JSON values a template renders: str(),
 * truthiness, HTML escaping, comparisons and the `is` tests.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "template/template_internal.h"

int template__escape_into(struct dynbuf *b, const char *s, size_t n)
{
    static const char special[] = "&<>\"'";
    static const char *const ent[] = {"&amp;", "&lt;", "&gt;", "&#34;", "&#39;"};
    size_t from = 0;
    for (size_t i = 0; i < n; i++) {
        const char *hit = s[i] != '\0' ? strchr(special, s[i]) : NULL;
        if (hit == NULL) {
            continue;
        }
        const char *e = ent[hit - special];
        int rc = dynbuf_put(b, s + from, i - from);
        if (rc == 0) {
            rc = dynbuf_put(b, e, strlen(e));
        }
        if (rc != 0) {
            return rc;
        }
        from = i + 1;
    }
    return dynbuf_put(b, s + from, n - from);
}

/* Python's repr() of a float: the shortest digits that read back, in fixed
 * notation for exponents -4..15 and scientific otherwise. */
static void py_float(double d, char *out, size_t cap)
{
    if (isnan(d) || isinf(d)) {
        snprintf(out, cap, "%s", isnan(d) ? "nan" : d > 0 ? "inf" : "-inf");
        return;
    }
    char sci[40];
    for (int prec = 0; prec < 17; prec++) {
        snprintf(sci, sizeof(sci), "%.*e", prec, d);
        if (strtod(sci, NULL) == d) {
            break;
        }
    }
    char digits[24];
    size_t nd = 0;
    const char *s = sci + (sci[0] == '-');
    for (; *s != 'e'; s++) {
        if (*s != '.') {
            digits[nd++] = *s;
        }
    }
    int exp = (int)strtol(s + 1, NULL, 10);
    const char *sign = d < 0 ? "-" : "";
    if (exp < -4 || exp >= 16) {
        snprintf(out, cap, "%s%c%s%.*se%c%02d", sign, digits[0], nd > 1 ? "." : "", (int)nd - 1,
                 digits + 1, exp < 0 ? '-' : '+', abs(exp));
    } else if (exp < 0) {
        snprintf(out, cap, "%s0.%.*s%.*s", sign, -exp - 1, "0000", (int)nd, digits);
    } else if ((size_t)exp + 1 >= nd) {
        snprintf(out, cap, "%s%.*s%.*s.0", sign, (int)nd, digits, exp + 1 - (int)nd,
                 "0000000000000000");
    } else {
        snprintf(out, cap, "%s%.*s.%.*s", sign, exp + 1, digits, (int)nd - exp - 1,
                 digits + exp + 1);
    }
}

json_t *template__str_of(const struct template__value *v)
{
    char buf[64];
    if (v->j == NULL) {
        return json_string("");
    }
    switch (json_typeof(v->j)) {
    case JSON_STRING:
        return json_incref(v->j);
    case JSON_INTEGER:
        snprintf(buf, sizeof(buf), "%" JSON_INTEGER_FORMAT, json_integer_value(v->j));
        return json_string(buf);
    case JSON_REAL:
        py_float(json_real_value(v->j), buf, sizeof(buf));
        return json_string(buf);
    case JSON_TRUE:
        return json_string("True");
    case JSON_FALSE:
        return json_string("False");
    case JSON_NULL:
        return json_string("None");
    default:
        return NULL;
    }
}

bool template__truthy(const struct template__value *v)
{
    if (v->j == NULL) {
        return false;
    }
    switch (json_typeof(v->j)) {
    case JSON_STRING:
        return json_string_length(v->j) > 0;
    case JSON_INTEGER:
        return json_integer_value(v->j) != 0;
    case JSON_REAL:
        return json_real_value(v->j) != 0;
    case JSON_TRUE:
        return true;
    case JSON_ARRAY:
        return json_array_size(v->j) > 0;
    case JSON_OBJECT:
        return json_object_size(v->j) > 0;
    default:
        return false;
    }
}

bool template__apply_test(enum template__test t, const struct template__value *v)
{
    json_t *j = v->j;
    switch (t) {
    case TEST_DEFINED:
        return j != NULL;
    case TEST_UNDEFINED:
        return j == NULL;
    case TEST_NONE:
        return json_is_null(j);
    case TEST_STRING:
        return json_is_string(j);
    case TEST_NUMBER:
        return json_is_number(j) || json_is_boolean(j); /* Python's bool is a Number */
    case TEST_MAPPING:
        return json_is_object(j);
    case TEST_SEQUENCE:
        return json_is_string(j) || json_is_array(j) || json_is_object(j);
    case TEST_ITERABLE:
        return j == NULL || json_is_string(j) || json_is_array(j) || json_is_object(j);
    }
    return false;
}

static bool numeric(const json_t *j, double *out)
{
    if (json_is_number(j)) {
        *out = json_number_value(j);
        return true;
    }
    if (json_is_boolean(j)) {
        *out = json_is_true(j) ? 1 : 0;
        return true;
    }
    return false;
}

static bool equal(const struct template__value *a, const struct template__value *b)
{
    double x;
    double y;
    if (a->j == NULL || b->j == NULL) {
        return a->j == b->j;
    }
    if (numeric(a->j, &x) && numeric(b->j, &y)) {
        return x == y;
    }
    return json_equal(a->j, b->j);
}

static int contains(const struct template__value *a, const struct template__value *b, bool *out,
                    char *err, size_t errcap)
{
    json_t *hay = b->j;
    *out = false;
    if (hay == NULL) {
        return 0;
    }
    if (json_is_string(hay) && json_is_string(a->j)) {
        *out = strstr(json_string_value(hay), json_string_value(a->j)) != NULL;
    } else if (json_is_array(hay)) {
        for (size_t i = 0; i < json_array_size(hay) && !*out; i++) {
            struct template__value e = {.j = json_array_get(hay, i)};
            *out = equal(a, &e);
        }
    } else if (json_is_object(hay) && json_is_string(a->j)) {
        *out = json_object_get(hay, json_string_value(a->j)) != NULL;
    } else if (!json_is_object(hay)) {
        snprintf(err, errcap, "'in' needs a string, list or mapping on its right");
        return -EINVAL;
    }
    return 0;
}

int template__compare(enum template__cmp op, const struct template__value *a,
                      const struct template__value *b, bool *out, char *err, size_t errcap)
{
    if (op == CMP_EQ || op == CMP_NE) {
        *out = equal(a, b) == (op == CMP_EQ);
        return 0;
    }
    if (op == CMP_IN || op == CMP_NOT_IN) {
        int rc = contains(a, b, out, err, errcap);
        *out = rc == 0 && *out == (op == CMP_IN);
        return rc;
    }
    double x;
    double y;
    int c;
    if (numeric(a->j, &x) && numeric(b->j, &y)) {
        c = x < y ? -1 : x > y ? 1 : 0;
    } else if (json_is_string(a->j) && json_is_string(b->j)) {
        c = strcmp(json_string_value(a->j), json_string_value(b->j));
    } else {
        snprintf(err, errcap, "only numbers or strings can be ordered");
        return -EINVAL;
    }
    *out = op == CMP_LT ? c < 0 : op == CMP_GT ? c > 0 : op == CMP_LE ? c <= 0 : c >= 0;
    return 0;
}
