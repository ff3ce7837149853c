/*
 * fuzz_response_walk.c - libFuzzer target comparing the in-place JSON walk (response_walk.h)
 * with jansson: the same verdict as json_loadb(JSON_DECODE_ANY | JSON_ALLOW_NUL) (but for the
 * one quirk of jansson's that response_walk.h names), and for a
 * text both accept, the same tree: each value's type, an array's elements in order, an
 * object's members (looked up by name, the last of repeated ones), a string's decoded bytes
 * and an integer's value. The text is copied to a buffer of its exact size, so ASan sees any
 * read past its end.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "response/response_walk.h"
#include "tests/support/jansson_quirk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void same(struct response_str t, size_t v, const json_t *j);

static void same_string(struct response_str t, size_t v, const json_t *j)
{
    struct response_str raw;
    if (!response_walk_string(t, v, &raw)) {
        abort();
    }
    char *buf = malloc(raw.len + 1);
    size_t n = jsonstr_unescape(raw.ptr, raw.len, buf, raw.len, NULL);
    if (n != json_string_length(j) || memcmp(buf, json_string_value(j), n) != 0) {
        abort();
    }
    free(buf);
}

static void same_object(struct response_str t, size_t v, const json_t *j)
{
    const char *key;
    const json_t *member;
    json_object_foreach((json_t *)j, key, member)
    {
        if (strlen(key) < 64) {
            same(t, response_walk_get(t, v, key), member);
        }
    }
    if (response_walk_count(t, v) < json_object_size(j)) {
        abort();
    }
}

static void same(struct response_str t, size_t v, const json_t *j)
{
    int64_t i = 0;
    switch (json_typeof(j)) {
    case JSON_OBJECT:
        if (response_walk_type(t, v) != RESPONSE_WALK_OBJECT) {
            abort();
        }
        same_object(t, v, j);
        break;
    case JSON_ARRAY: {
        struct response_walk_iter it;
        size_t e;
        size_t k = 0;
        if (response_walk_type(t, v) != RESPONSE_WALK_ARRAY) {
            abort();
        }
        response_walk_iter_init(&it, t, v);
        while (response_walk_iter_next(&it, NULL, &e)) {
            same(t, e, json_array_get(j, k++));
        }
        if (k != json_array_size(j)) {
            abort();
        }
        break;
    }
    case JSON_STRING:
        same_string(t, v, j);
        break;
    case JSON_INTEGER:
        if (!response_walk_int(t, v, &i) || i != json_integer_value(j)) {
            abort();
        }
        break;
    case JSON_REAL:
        if (response_walk_type(t, v) != RESPONSE_WALK_NUMBER || response_walk_int(t, v, &i)) {
            abort();
        }
        break;
    case JSON_TRUE:
    case JSON_FALSE:
        if (response_walk_type(t, v) != RESPONSE_WALK_BOOL ||
            response_walk_is_true(t, v) != json_is_true(j)) {
            abort();
        }
        break;
    case JSON_NULL:
        if (response_walk_type(t, v) != RESPONSE_WALK_NULL) {
            abort();
        }
        break;
    }
    if (response_walk_end(t, v) > t.len) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size > 0 ? size : 1);
    if (copy == NULL) {
        return 0;
    }
    memcpy(copy, data, size);
    struct response_str t = {copy, size};
    json_t *j = json_loadb(copy, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    bool ok = response_walk_check(t);
    if (ok != (j != NULL) && !(j != NULL && jansson_drops_nul(data, size))) {
        abort();
    }
    if (!ok) {
        json_decref(j);
        j = NULL;
    }
    if (j != NULL) {
        size_t root = response_walk_root(t);
        same(t, root, j);
        if (response_walk_end(t, root) > size) {
            abort();
        }
        json_decref(j);
    }
    free(copy);
    return 0;
}
