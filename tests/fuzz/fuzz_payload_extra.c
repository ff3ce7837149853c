/*
 * fuzz_payload_extra.c - payload_extra_inputs_parse (--extra-inputs) on
 * arbitrary values, split at NUL bytes into up to 16 items, each in its own
 * allocation so that ASan catches a read past one.
 *
 * Invariants checked (abort on violation): a refusal leaves *out_json
 * untouched and has a message naming --extra-inputs; an accepted set of
 * items gives text that jansson reads back as one JSON object; a key given
 * as key:value in the last item is a member of the object.
 */
#include <errno.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "payload/payload.h"

#define ITEMS_MAX 16
#define INPUT_BYTES_MAX 8192

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t split_items(const uint8_t *data, size_t size, char **items)
{
    size_t n = 0;
    size_t start = 0;
    for (size_t i = 0; i <= size && n < ITEMS_MAX; i++) {
        if (i == size || data[i] == '\0') {
            items[n] = malloc(i - start + 1);
            memcpy(items[n], data + start, i - start);
            items[n][i - start] = '\0';
            n++;
            start = i + 1;
        }
    }
    return n;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/* last_pair_key copies the key of item when it is one plain "key:value"
 * pair (no comma, not a JSON object), trimmed of spaces; else returns 0. */
static int last_pair_key(const char *item, char *key, size_t cap)
{
    const char *colon = strchr(item, ':');
    if (colon == NULL || strchr(item, ',') != NULL || strchr(item, '{') != NULL) {
        return 0;
    }
    const char *start = item;
    const char *end = colon;
    while (start < end && is_space(*start)) {
        start++;
    }
    while (end > start && is_space(end[-1])) {
        end--;
    }
    size_t len = (size_t)(end - start);
    if (len == 0 || len >= cap) {
        return 0;
    }
    memcpy(key, start, len);
    key[len] = '\0';
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > INPUT_BYTES_MAX) {
        return 0;
    }
    char *items[ITEMS_MAX];
    size_t n = split_items(data, size, items);
    char *json = (char *)"untouched";
    char err[512] = "";
    int ret = payload_extra_inputs_parse((const char *const *)items, n, &json, err, sizeof(err));
    if (ret != 0) {
        if (strcmp(json, "untouched") != 0 || (ret == -EINVAL && err[0] == '\0')) {
            abort();
        }
    } else {
        json_error_t jerr;
        json_t *doc = json_loads(json, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
        if (doc == NULL || !json_is_object(doc)) {
            abort();
        }
        char key[256];
        if (n > 0 && last_pair_key(items[n - 1], key, sizeof(key)) &&
            json_object_get(doc, key) == NULL) {
            abort();
        }
        json_decref(doc);
        free(json);
    }
    for (size_t i = 0; i < n; i++) {
        free(items[i]);
    }
    return 0;
}
