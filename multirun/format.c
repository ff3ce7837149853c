/*
 * format.c - the small writers the aggregate files share: numbers and values as AIPerf's
 * Python prints them, CSV fields as its csv module quotes them, directories and JSON files.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "multirun/multirun_internal.h"

void multirun_py_float(double v, char *out, size_t cap)
{
    if (isnan(v)) {
        snprintf(out, cap, "nan");
        return;
    }
    if (isinf(v)) {
        snprintf(out, cap, v > 0 ? "inf" : "-inf");
        return;
    }
    /* repr: the fewest significant digits that read back as the same double, written in
     * fixed notation for decimal exponents -4 to 15, in scientific notation beyond. */
    int digits = 1;
    for (; digits < 17; digits++) {
        snprintf(out, cap, "%.*e", digits - 1, v);
        if (strtod(out, NULL) == v) {
            break;
        }
    }
    snprintf(out, cap, "%.*e", digits - 1, v);
    int exponent = (int)strtol(strchr(out, 'e') + 1, NULL, 10);
    if (exponent < -4 || exponent >= 16) {
        return; /* C's 1.5e-05 is Python's too */
    }
    int decimals = digits - 1 - exponent;
    snprintf(out, cap, "%.*f", decimals > 0 ? decimals : 0, v);
    size_t len = strlen(out);
    if (strchr(out, '.') == NULL && len + 3 <= cap) {
        memcpy(out + len, ".0", 3); /* Python writes a whole float as 5.0 */
    }
}

void multirun__csv_number(FILE *out, double v, int decimals)
{
    if (isnan(v)) {
        fputs("nan", out); /* Python's f"{nan:.2f}"; printf may write -nan */
    } else if (isinf(v)) {
        fputs(v > 0 ? "inf" : "-inf", out);
    } else {
        fprintf(out, "%.*f", decimals, v);
    }
}

/* append writes text at out + *used, keeping the NUL inside cap. */
static void append(char *out, size_t cap, size_t *used, const char *text)
{
    size_t len = strlen(text);
    if (*used + len + 1 > cap) {
        len = *used + 1 < cap ? cap - *used - 1 : 0;
    }
    memcpy(out + *used, text, len);
    *used += len;
    out[*used] = '\0';
}

static void py_repr_into(json_t *v, char *out, size_t cap, size_t *used, bool quoted);

static void py_repr_container(json_t *v, char *out, size_t cap, size_t *used)
{
    bool object = json_is_object(v);
    append(out, cap, used, object ? "{" : "[");
    if (object) {
        const char *key;
        json_t *item;
        bool first = true;
        json_object_foreach(v, key, item)
        {
            append(out, cap, used, first ? "'" : ", '");
            append(out, cap, used, key);
            append(out, cap, used, "': ");
            py_repr_into(item, out, cap, used, true);
            first = false;
        }
    } else {
        size_t i;
        json_t *item;
        json_array_foreach(v, i, item)
        {
            append(out, cap, used, i > 0 ? ", " : "");
            py_repr_into(item, out, cap, used, true);
        }
    }
    append(out, cap, used, object ? "}" : "]");
}

static void py_repr_into(json_t *v, char *out, size_t cap, size_t *used, bool quoted)
{
    char number[40];
    switch (json_typeof(v)) {
    case JSON_STRING:
        append(out, cap, used, quoted ? "'" : "");
        append(out, cap, used, json_string_value(v));
        append(out, cap, used, quoted ? "'" : "");
        break;
    case JSON_INTEGER:
        snprintf(number, sizeof(number), "%lld", (long long)json_integer_value(v));
        append(out, cap, used, number);
        break;
    case JSON_REAL:
        multirun_py_float(json_real_value(v), number, sizeof(number));
        append(out, cap, used, number);
        break;
    case JSON_TRUE:
        append(out, cap, used, "True");
        break;
    case JSON_FALSE:
        append(out, cap, used, "False");
        break;
    case JSON_NULL:
        append(out, cap, used, "None");
        break;
    default:
        py_repr_container(v, out, cap, used);
        break;
    }
}

void multirun__py_repr(json_t *v, char *out, size_t cap)
{
    size_t used = 0;
    if (cap > 0) {
        out[0] = '\0';
        py_repr_into(v, out, cap, &used, false);
    }
}

json_t *multirun__real(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

int multirun__make_dirs(const char *path)
{
    char copy[MULTIRUN_PATH_BYTES];
    if (snprintf(copy, sizeof(copy), "%s", path) >= (int)sizeof(copy)) {
        return -ENAMETOOLONG;
    }
    for (char *p = copy + 1; *p != '\0'; p++) {
        if (*p == '/') {
            *p = '\0';
            int ret = mkdir(copy, 0755);
            *p = '/';
            if (ret != 0 && errno != EEXIST) {
                return -errno;
            }
        }
    }
    if (mkdir(copy, 0755) != 0 && errno != EEXIST) {
        return -errno;
    }
    return 0;
}

int multirun__dump(json_t *doc, const char *dir, const char *name)
{
    char path[MULTIRUN_PATH_BYTES];
    if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path)) {
        return -ENAMETOOLONG;
    }
    if (json_dump_file(doc, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17)) !=
        0) {
        return -EIO;
    }
    return 0;
}

void multirun__title(const char *key, char *out, size_t cap)
{
    /* Python's key.replace("_", " ").title(): a letter after a non-letter is upper case,
     * every other letter lower case. */
    size_t i = 0;
    bool after_letter = false;
    for (; key[i] != '\0' && i + 1 < cap; i++) {
        char c = key[i] == '_' ? ' ' : key[i];
        bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        if (letter && !after_letter && c >= 'a') {
            c = (char)(c - 'a' + 'A');
        } else if (letter && after_letter && c <= 'Z') {
            c = (char)(c - 'A' + 'a');
        }
        after_letter = letter;
        out[i] = c;
    }
    if (cap > 0) {
        out[i] = '\0';
    }
}
