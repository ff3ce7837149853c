/*
 * inputs_json.c - AIPerf's inputs.json read back for replay. jansson checks
 * the file and names the line and column of a mistake; jsmn then finds each
 * payload's own bytes, so that bodies go out as written (numbers keep their
 * spelling), with only the pretty-printing whitespace removed.
 */
#define JSMN_STATIC
#include <jansson.h>
#include <jsmn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/datasets_internal.h"

bool dataset__looks_like_inputs_json(const char *data, size_t len)
{
    json_t *root = json_loadb(data, len, 0, NULL);
    bool yes = json_is_object(root) && json_is_array(json_object_get(root, "data"));
    json_decref(root);
    return yes;
}

/* skip returns the index of the token after the value at token i. */
static int skip(const jsmntok_t *t, int count, int i)
{
    int pending = 1;
    while (pending > 0 && i < count) {
        pending += t[i].size - 1;
        i++;
    }
    return i;
}

/* member returns the token index of key's value in the object at token obj
 * (the last one when repeated, as jansson keeps), or -1. */
static int member(const char *data, const jsmntok_t *t, int count, int obj, const char *key)
{
    int found = -1;
    int i = obj + 1;
    size_t key_len = strlen(key);
    for (int k = 0; k < t[obj].size && i + 1 < count; k++) {
        if (t[i].type == JSMN_STRING && (size_t)(t[i].end - t[i].start) == key_len &&
            memcmp(data + t[i].start, key, key_len) == 0) {
            found = i + 1;
        }
        i = skip(t, count, i + 1);
    }
    return found;
}

/* check_shape validates with jansson: {"data": [{"session_id"?, "payloads": [...]}...]}. */
static json_t *check_shape(const char *data, size_t len, const char *file, char *err, size_t cap)
{
    const char *nul = memchr(data, '\0', len);
    if (nul != NULL) {
        snprintf(err, cap, "%s: a NUL byte at offset %zu; expected JSON text", file,
                 (size_t)(nul - data));
        return NULL;
    }
    json_error_t jerr;
    json_t *root = json_loadb(data, len, 0, &jerr);
    if (root == NULL) {
        snprintf(err, cap, "%s:%d:%d: invalid JSON: %s; expected AIPerf's inputs.json", file,
                 jerr.line, jerr.column, jerr.text);
        return NULL;
    }
    const json_t *list = json_object_get(root, "data");
    const char *what = json_is_array(list) ? NULL : "expected an object with a \"data\" list";
    size_t i;
    const json_t *session;
    json_array_foreach(list, i, session)
    {
        const json_t *sid = json_object_get(session, "session_id");
        if (!json_is_array(json_object_get(session, "payloads"))) {
            what = "expected every \"data\" element to hold a \"payloads\" list";
        } else if (sid != NULL && !json_is_string(sid)) {
            what = "expected \"session_id\" to be a string";
        }
        if (what != NULL) {
            snprintf(err, cap, "%s: data[%zu]: %s", file, i, what);
            json_decref(root);
            return NULL;
        }
    }
    if (what != NULL) {
        snprintf(err, cap, "%s: %s", file, what);
        json_decref(root);
        return NULL;
    }
    return root;
}

/* add_payload copies the payload at token p as a new entry. */
static int add_payload(struct dataset_inputs *ds, const char *data, const jsmntok_t *tok,
                       const char *session_id, uint32_t turn)
{
    int start = tok->start - (tok->type == JSMN_STRING);
    int end = tok->end + (tok->type == JSMN_STRING);
    struct dataset_entry *e = dataset__entry_push(ds);
    char *body = e != NULL ? malloc((size_t)(end - start) + 1) : NULL;
    char *sid = body != NULL ? strdup(session_id) : NULL;
    if (sid == NULL) {
        free(body);
        ds->count -= e != NULL;
        return -1;
    }
    e->payload_len = dataset_compact_json(data + start, (size_t)(end - start), body);
    e->payload = body;
    e->session_id = sid;
    e->turn = turn;
    return 0;
}

/* walk adds every payload of every session, in file order. */
static int walk(struct dataset_inputs *ds, const char *data, const jsmntok_t *t, int count,
                const json_t *root, const char *file, char *err, size_t cap)
{
    int list = member(data, t, count, 0, "data");
    const json_t *sessions = json_object_get(root, "data");
    if (list < 0 || t[list].type != JSMN_ARRAY ||
        (size_t)t[list].size != json_array_size(sessions)) {
        snprintf(err, cap, "%s: cannot locate the \"data\" list (escaped key names?)", file);
        return -1;
    }
    int i = list + 1;
    for (int s = 0; s < t[list].size; s++, i = skip(t, count, i)) {
        const json_t *sid = json_object_get(json_array_get(sessions, (size_t)s), "session_id");
        char fallback[32];
        snprintf(fallback, sizeof(fallback), "session_%d", s);
        int payloads = member(data, t, count, i, "payloads");
        if (payloads < 0 || t[payloads].type != JSMN_ARRAY) {
            snprintf(err, cap, "%s: data[%d]: cannot locate the \"payloads\" list", file, s);
            return -1;
        }
        int p = payloads + 1;
        for (int k = 0; k < t[payloads].size; k++, p = skip(t, count, p)) {
            if (add_payload(ds, data, &t[p], sid != NULL ? json_string_value(sid) : fallback,
                            (uint32_t)k) != 0) {
                snprintf(err, cap, "%s: out of memory, or more than %zu payloads", file,
                         (size_t)DATASET_ENTRIES_MAX);
                return -1;
            }
        }
    }
    return 0;
}

int dataset__load_inputs_json(struct dataset_inputs *ds, const char *data, size_t len,
                              const char *file, char *err, size_t err_cap)
{
    if (len > DATASET_FILE_BYTES_MAX) {
        snprintf(err, err_cap, "%s: larger than %zu bytes", file, (size_t)DATASET_FILE_BYTES_MAX);
        return -1;
    }
    json_t *root = check_shape(data, len, file, err, err_cap);
    if (root == NULL) {
        return -1;
    }
    ds->type = DATASET_INPUT_INPUTS_JSON;
    int ret = -1;
    jsmn_parser parser;
    jsmn_init(&parser);
    int count = jsmn_parse(&parser, data, len, NULL, 0);
    jsmntok_t *tokens = count > 0 ? calloc((size_t)count, sizeof(*tokens)) : NULL;
    if (tokens == NULL) {
        snprintf(err, err_cap, "%s: cannot index the file's JSON", file);
        goto out_root;
    }
    jsmn_init(&parser);
    if (jsmn_parse(&parser, data, len, tokens, (unsigned)count) != count ||
        tokens[0].type != JSMN_OBJECT) {
        snprintf(err, err_cap, "%s: cannot index the file's JSON", file);
        goto out_tokens;
    }
    ret = walk(ds, data, tokens, count, root, file, err, err_cap);
out_tokens:
    free(tokens);
out_root:
    json_decref(root);
    return ret;
}
