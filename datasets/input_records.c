/*
 * input_records.c - one JSONL record of an input file into a dataset_entry,
 * and the format detection AIPerf does on a file's first record.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/datasets_internal.h"

/* fail writes "file:line: message" into err and returns -1. */
__attribute__((format(printf, 5, 6))) static int fail(char *err, size_t cap, const char *file,
                                                      uint64_t line, const char *fmt, ...)
{
    if (cap == 0) {
        return -1;
    }
    int n = snprintf(err, cap, "%s:%llu: ", file, (unsigned long long)line);
    if (n >= 0 && (size_t)n < cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err + n, cap - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* load_object parses a record; a syntax error names the column. */
static json_t *load_object(const char *line, size_t len, const char *file, uint64_t lineno,
                           char *err, size_t cap)
{
    /* jansson stops at a NUL byte; the line is sent as written, so refuse it. */
    const char *nul = memchr(line, '\0', len);
    if (nul != NULL) {
        fail(err, cap, file, lineno, "column %zu: a NUL byte; expected JSON text",
             (size_t)(nul - line) + 1);
        return NULL;
    }
    json_error_t jerr;
    json_t *root = json_loadb(line, len, JSON_DECODE_ANY, &jerr);
    if (root == NULL) {
        fail(err, cap, file, lineno,
             "column %d: invalid JSON: %s; expected one JSON object per line", jerr.column,
             jerr.text);
        return NULL;
    }
    if (!json_is_object(root)) {
        json_decref(root);
        fail(err, cap, file, lineno, "expected a JSON object, found another JSON value");
        return NULL;
    }
    return root;
}

static bool has(const json_t *obj, const char *key)
{
    return json_object_get(obj, key) != NULL;
}

enum dataset_input_type dataset__detect_line(const char *line, size_t len, const char *file,
                                             uint64_t lineno, char *err, size_t err_cap)
{
    json_t *obj = load_object(line, len, file, lineno, err, err_cap);
    if (obj == NULL) {
        return DATASET_INPUT_AUTO;
    }
    enum dataset_input_type type = DATASET_INPUT_AUTO;
    if (json_is_array(json_object_get(obj, "turns"))) {
        type = DATASET_INPUT_MULTI_TURN;
    } else if (json_is_array(json_object_get(obj, "data"))) {
        type = DATASET_INPUT_INPUTS_JSON;
    } else if (json_is_array(json_object_get(obj, "messages"))) {
        type = has(obj, "timestamp") ? DATASET_INPUT_MOONCAKE_TRACE : DATASET_INPUT_RAW_PAYLOAD;
    } else if (has(obj, "input_length") || has(obj, "hash_ids") || has(obj, "text_input")) {
        type = DATASET_INPUT_MOONCAKE_TRACE;
    } else if (has(obj, "text") || has(obj, "texts") || has(obj, "image") || has(obj, "images") ||
               has(obj, "audio") || has(obj, "audios")) {
        type = DATASET_INPUT_SINGLE_TURN;
    } else {
        fail(err, err_cap, file, lineno,
             "cannot tell the file's format from this record: expected \"text\"/\"texts\" "
             "or media (single_turn), \"input_length\"/\"hash_ids\"/\"text_input\" "
             "(mooncake_trace), "
             "\"messages\" (raw_payload) or \"turns\" (multi_turn); give "
             "--custom-dataset-type");
    }
    json_decref(obj);
    return type;
}

/* number_field reads an optional non-negative number. Returns 0 (absent:
 * *present false), or -1 with a message. */
static int number_field(const json_t *obj, const char *key, double *out, bool *present,
                        const char *file, uint64_t lineno, char *err, size_t cap)
{
    const json_t *v = json_object_get(obj, key);
    *present = false;
    if (v == NULL || json_is_null(v)) {
        return 0;
    }
    if (!json_is_number(v) || json_number_value(v) < 0 || !isfinite(json_number_value(v))) {
        return fail(err, cap, file, lineno, "\"%s\": expected a non-negative number", key);
    }
    *out = json_number_value(v);
    *present = true;
    return 0;
}

/* count_field reads an optional non-negative integer (0 when absent). */
static int count_field(const json_t *obj, const char *key, uint64_t *out, const char *file,
                       uint64_t lineno, char *err, size_t cap)
{
    const json_t *v = json_object_get(obj, key);
    *out = 0;
    if (v == NULL || json_is_null(v)) {
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < 0) {
        return fail(err, cap, file, lineno, "\"%s\": expected a non-negative integer", key);
    }
    *out = (uint64_t)json_integer_value(v);
    return 0;
}

/* push_text appends a copy of s to e's texts (capacity DATASET_TEXTS_MAX). */
/* push_string appends a copy of s to a record's list of strings (texts,
 * images, audios). */
static int push_string(const char *const **list, size_t *count, const char *s, size_t len,
                       const char *file, uint64_t lineno, char *err, size_t cap)
{
    if (*count >= DATASET_TEXTS_MAX) {
        return fail(err, cap, file, lineno, "more than %d items in one list of a record",
                    DATASET_TEXTS_MAX);
    }
    char **items = (char **)*list;
    /* Capacity doubles at each power of two: most records hold one item. */
    if ((*count & (*count - 1)) == 0) {
        size_t grown = *count == 0 ? 1 : *count * 2;
        items = realloc(items, grown * sizeof(*items));
        if (items != NULL) {
            *list = (const char *const *)items;
        }
    }
    char *copy = items != NULL ? strndup(s, len) : NULL;
    if (copy == NULL) {
        return fail(err, cap, file, lineno, "out of memory");
    }
    items[(*count)++] = copy;
    return 0;
}

static int push_text(struct dataset_entry *e, const char *s, size_t len, const char *file,
                     uint64_t lineno, char *err, size_t cap)
{
    return push_string(&e->texts, &e->text_count, s, len, file, lineno, err, cap);
}

/* media_field reads "<one>" (a string) or "<many>" (a list of strings), not
 * both, into a record's list. */
static int media_field(const json_t *obj, const char *one, const char *many,
                       const char *const **list, size_t *count, const char *file, uint64_t lineno,
                       char *err, size_t cap)
{
    const json_t *single = json_object_get(obj, one);
    const json_t *multiple = json_object_get(obj, many);
    if (single != NULL && multiple != NULL) {
        return fail(err, cap, file, lineno, "give \"%s\" or \"%s\", not both", one, many);
    }
    if (single != NULL) {
        if (!json_is_string(single)) {
            return fail(err, cap, file, lineno, "\"%s\": expected a string", one);
        }
        return push_string(list, count, json_string_value(single), json_string_length(single), file,
                           lineno, err, cap);
    }
    if (multiple != NULL && !json_is_array(multiple)) {
        return fail(err, cap, file, lineno, "\"%s\": expected a list of strings", many);
    }
    size_t i;
    const json_t *item;
    json_array_foreach(multiple, i, item)
    {
        if (!json_is_string(item)) {
            return fail(err, cap, file, lineno, "\"%s\"[%zu]: expected a string", many, i);
        }
        if (push_string(list, count, json_string_value(item), json_string_length(item), file,
                        lineno, err, cap) != 0) {
            return -1;
        }
    }
    return 0;
}

/* text_item adds one element of "texts": a string, or {name, contents}. */
static int text_item(struct dataset_entry *e, const json_t *item, const char *file, uint64_t lineno,
                     char *err, size_t cap)
{
    if (json_is_string(item)) {
        return push_text(e, json_string_value(item), json_string_length(item), file, lineno, err,
                         cap);
    }
    const json_t *contents = json_object_get(item, "contents");
    if (!json_is_object(item) || !json_is_array(contents)) {
        return fail(err, cap, file, lineno,
                    "\"texts\": expected strings or {\"name\": ..., \"contents\": [strings]}");
    }
    size_t i;
    const json_t *s;
    json_array_foreach(contents, i, s)
    {
        if (!json_is_string(s)) {
            return fail(err, cap, file, lineno, "\"texts\"[].contents: expected strings");
        }
        if (push_text(e, json_string_value(s), json_string_length(s), file, lineno, err, cap) !=
            0) {
            return -1;
        }
    }
    return 0;
}

static int texts_field(struct dataset_entry *e, const json_t *obj, const char *file,
                       uint64_t lineno, char *err, size_t cap)
{
    const json_t *text = json_object_get(obj, "text");
    const json_t *texts = json_object_get(obj, "texts");
    if (text != NULL && texts != NULL) {
        return fail(err, cap, file, lineno, "give \"text\" or \"texts\", not both");
    }
    if (text != NULL) {
        if (!json_is_string(text)) {
            return fail(err, cap, file, lineno, "\"text\": expected a string");
        }
        return push_text(e, json_string_value(text), json_string_length(text), file, lineno, err,
                         cap);
    }
    if (!json_is_array(texts)) {
        return fail(err, cap, file, lineno,
                    texts == NULL ? "expected a \"text\" string or a \"texts\" list"
                                  : "\"texts\": expected a list");
    }
    size_t i;
    const json_t *item;
    json_array_foreach(texts, i, item)
    {
        if (text_item(e, item, file, lineno, err, cap) != 0) {
            return -1;
        }
    }
    return 0;
}

/* extra_field keeps the record's "extra" object as compact JSON. */
static int extra_field(struct dataset_entry *e, const json_t *obj, const char *file,
                       uint64_t lineno, char *err, size_t cap)
{
    const json_t *extra = json_object_get(obj, "extra");
    if (extra == NULL || json_is_null(extra)) {
        return 0;
    }
    if (!json_is_object(extra)) {
        return fail(err, cap, file, lineno, "\"extra\": expected a JSON object");
    }
    e->extra_json = json_dumps(extra, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    return e->extra_json != NULL ? 0 : fail(err, cap, file, lineno, "out of memory");
}

static int timing_fields(struct dataset_entry *e, const json_t *obj, const char *file,
                         uint64_t lineno, char *err, size_t cap)
{
    if (number_field(obj, "timestamp", &e->timestamp_ms, &e->has_timestamp, file, lineno, err,
                     cap) != 0 ||
        number_field(obj, "delay", &e->delay_ms, &e->has_delay, file, lineno, err, cap) != 0) {
        return -1;
    }
    if (e->has_timestamp && e->has_delay) {
        return fail(err, cap, file, lineno, "give \"timestamp\" or \"delay\", not both");
    }
    return 0;
}

static int turn_record(struct dataset_entry *e, const json_t *obj, const char *file,
                       uint64_t lineno, char *err, size_t cap)
{
    if (has(obj, "video") || has(obj, "videos")) {
        return fail(err, cap, file, lineno, "\"%s\": video in input files is not supported yet",
                    has(obj, "video") ? "video" : "videos");
    }
    if (media_field(obj, "image", "images", &e->images, &e->image_count, file, lineno, err, cap) !=
            0 ||
        media_field(obj, "audio", "audios", &e->audios, &e->audio_count, file, lineno, err, cap) !=
            0 ||
        /* A record of media alone needs no text. */
        (e->image_count + e->audio_count > 0 && !has(obj, "text") && !has(obj, "texts")
             ? 0
             : texts_field(e, obj, file, lineno, err, cap)) != 0 ||
        timing_fields(e, obj, file, lineno, err, cap) != 0 ||
        count_field(obj, "output_length", &e->output_length, file, lineno, err, cap) != 0) {
        return -1;
    }
    return extra_field(e, obj, file, lineno, err, cap);
}

static int hash_ids_field(struct dataset_entry *e, const json_t *obj, const char *file,
                          uint64_t lineno, char *err, size_t cap)
{
    const json_t *ids = json_object_get(obj, "hash_ids");
    if (ids == NULL || json_is_null(ids)) {
        return 0;
    }
    if (!json_is_array(ids) || json_array_size(ids) > DATASET_HASH_IDS_MAX) {
        return fail(err, cap, file, lineno, "\"hash_ids\": expected a list of at most %d integers",
                    DATASET_HASH_IDS_MAX);
    }
    size_t n = json_array_size(ids);
    uint64_t *out = calloc(n > 0 ? n : 1, sizeof(*out));
    if (out == NULL) {
        return fail(err, cap, file, lineno, "out of memory");
    }
    e->hash_ids = out;
    for (size_t i = 0; i < n; i++) {
        const json_t *v = json_array_get(ids, i);
        if (!json_is_integer(v) || json_integer_value(v) < 0) {
            return fail(err, cap, file, lineno,
                        "\"hash_ids\"[%zu]: expected a non-negative integer", i);
        }
        out[i] = (uint64_t)json_integer_value(v);
    }
    e->hash_id_count = n;
    return 0;
}

static int mooncake_record(struct dataset_entry *e, const json_t *obj, const char *file,
                           uint64_t lineno, char *err, size_t cap)
{
    if (has(obj, "messages") || has(obj, "payload")) {
        return fail(err, cap, file, lineno,
                    "mooncake_trace records with \"%s\" are not supported yet; use "
                    "\"input_length\" (+ \"hash_ids\") or \"text_input\"",
                    has(obj, "messages") ? "messages" : "payload");
    }
    const json_t *text = json_object_get(obj, "text_input");
    if (text != NULL && !json_is_string(text)) {
        return fail(err, cap, file, lineno, "\"text_input\": expected a string");
    }
    if (text != NULL && push_text(e, json_string_value(text), json_string_length(text), file,
                                  lineno, err, cap) != 0) {
        return -1;
    }
    if (timing_fields(e, obj, file, lineno, err, cap) != 0 ||
        count_field(obj, "input_length", &e->input_length, file, lineno, err, cap) != 0 ||
        count_field(obj, "output_length", &e->output_length, file, lineno, err, cap) != 0 ||
        hash_ids_field(e, obj, file, lineno, err, cap) != 0) {
        return -1;
    }
    if (text == NULL && e->input_length == 0) {
        return fail(err, cap, file, lineno,
                    "expected \"input_length\" (a positive integer, with optional \"hash_ids\") "
                    "or \"text_input\"");
    }
    const json_t *session = json_object_get(obj, "session_id");
    if (json_is_string(session)) {
        e->session_id = strdup(json_string_value(session));
        if (e->session_id == NULL) {
            return fail(err, cap, file, lineno, "out of memory");
        }
    }
    return extra_field(e, obj, file, lineno, err, cap);
}

/* raw_record keeps the line itself, compacted: the body is sent verbatim. */
static int raw_record(struct dataset_entry *e, const char *line, size_t len, const char *file,
                      uint64_t lineno, char *err, size_t cap)
{
    char *body = malloc(len + 1);
    if (body == NULL) {
        return fail(err, cap, file, lineno, "out of memory");
    }
    e->payload_len = dataset_compact_json(line, len, body);
    e->payload = body;
    return 0;
}

/* multi_turn_record adds one entry per turn of a {"session_id", "turns"}
 * record: turn k of the session, with the single_turn fields. */
static int multi_turn_record(struct dataset_inputs *ds, const json_t *obj, const char *file,
                             uint64_t lineno, char *err, size_t cap)
{
    const json_t *turns = json_object_get(obj, "turns");
    const json_t *session = json_object_get(obj, "session_id");
    if (!json_is_array(turns) || json_array_size(turns) == 0) {
        return fail(err, cap, file, lineno, "\"turns\": expected a non-empty list of turns");
    }
    if (session != NULL && !json_is_string(session)) {
        return fail(err, cap, file, lineno, "\"session_id\": expected a string");
    }
    for (size_t k = 0; k < json_array_size(turns); k++) {
        const json_t *turn = json_array_get(turns, k);
        if (!json_is_object(turn)) {
            return fail(err, cap, file, lineno, "\"turns\"[%zu]: expected an object", k);
        }
        struct dataset_entry *e = dataset__entry_push(ds);
        if (e == NULL) {
            return fail(err, cap, file, lineno, "out of memory, or more than %zu entries",
                        (size_t)DATASET_ENTRIES_MAX);
        }
        e->line = lineno;
        e->turn = (uint32_t)k;
        e->session_id = session != NULL ? strdup(json_string_value(session)) : NULL;
        if ((session != NULL && e->session_id == NULL) ||
            turn_record(e, turn, file, lineno, err, cap) != 0) {
            if (session != NULL && e->session_id == NULL) {
                fail(err, cap, file, lineno, "out of memory");
            }
            dataset__entry_clear(e);
            ds->count--;
            return -1;
        }
    }
    return 0;
}

int dataset__parse_record(struct dataset_inputs *ds, const char *line, size_t len, const char *file,
                          uint64_t lineno, uint32_t turn, char *err, size_t err_cap)
{
    json_t *obj = load_object(line, len, file, lineno, err, err_cap);
    if (obj == NULL) {
        return -1;
    }
    if (ds->type == DATASET_INPUT_MULTI_TURN) {
        int ret = multi_turn_record(ds, obj, file, lineno, err, err_cap);
        json_decref(obj);
        return ret;
    }
    struct dataset_entry *e = dataset__entry_push(ds);
    int ret = -1;
    if (e == NULL) {
        fail(err, err_cap, file, lineno, "out of memory, or more than %zu entries",
             (size_t)DATASET_ENTRIES_MAX);
        goto out_json;
    }
    e->line = lineno;
    e->turn = turn;
    switch (ds->type) {
    case DATASET_INPUT_RAW_PAYLOAD:
        ret = raw_record(e, line, len, file, lineno, err, err_cap);
        break;
    case DATASET_INPUT_MOONCAKE_TRACE:
        ret = mooncake_record(e, obj, file, lineno, err, err_cap);
        break;
    default:
        ret = turn_record(e, obj, file, lineno, err, err_cap);
        break;
    }
    if (ret != 0) {
        dataset__entry_clear(e);
        ds->count--;
    }
out_json:
    json_decref(obj);
    return ret;
}
