/*
 * input_files.c - --input-file: files and directories read line by line,
 * format detection, and the dataset's entries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/datasets_internal.h"

static const char *const TYPE_NAMES[] = {
    [DATASET_INPUT_AUTO] = "auto",
    [DATASET_INPUT_SINGLE_TURN] = "single_turn",
    [DATASET_INPUT_MULTI_TURN] = "multi_turn",
    [DATASET_INPUT_RANDOM_POOL] = "random_pool",
    [DATASET_INPUT_MOONCAKE_TRACE] = "mooncake_trace",
    [DATASET_INPUT_RAW_PAYLOAD] = "raw_payload",
    [DATASET_INPUT_INPUTS_JSON] = "inputs_json",
};
enum { TYPE_COUNT = sizeof(TYPE_NAMES) / sizeof(TYPE_NAMES[0]) };

int dataset_input_type_parse(const char *name, enum dataset_input_type *out)
{
    for (int i = 1; i < TYPE_COUNT; i++) {
        if (strcmp(name, TYPE_NAMES[i]) == 0) {
            *out = (enum dataset_input_type)i;
            return 0;
        }
    }
    return -1;
}

const char *dataset_input_type_name(enum dataset_input_type type)
{
    return (unsigned)type < TYPE_COUNT ? TYPE_NAMES[type] : "unknown";
}

struct dataset_entry *dataset__entry_push(struct dataset_inputs *ds)
{
    if (ds->count >= DATASET_ENTRIES_MAX) {
        return NULL;
    }
    if (ds->count == ds->cap) {
        size_t cap = ds->cap == 0 ? 64 : ds->cap * 2;
        struct dataset_entry *grown = realloc(ds->entries, cap * sizeof(*grown));
        if (grown == NULL) {
            return NULL;
        }
        ds->entries = grown;
        ds->cap = cap;
    }
    struct dataset_entry *e = &ds->entries[ds->count++];
    memset(e, 0, sizeof(*e));
    return e;
}

void dataset__entry_clear(struct dataset_entry *e)
{
    for (size_t i = 0; i < e->text_count; i++) {
        free((char *)e->texts[i]);
    }
    free((void *)e->texts);
    for (size_t i = 0; i < e->image_count; i++) {
        free((char *)e->images[i]);
    }
    free((void *)e->images);
    for (size_t i = 0; i < e->audio_count; i++) {
        free((char *)e->audios[i]);
    }
    free((void *)e->audios);
    free((char *)e->session_id);
    free((char *)e->payload);
    free((char *)e->extra_json);
    free((void *)e->hash_ids);
    memset(e, 0, sizeof(*e));
}

void dataset_inputs_free(struct dataset_inputs *ds)
{
    if (ds == NULL) {
        return;
    }
    for (size_t i = 0; i < ds->count; i++) {
        dataset__entry_clear(&ds->entries[i]);
    }
    free(ds->entries);
    free(ds);
}

enum dataset_input_type dataset_inputs_type(const struct dataset_inputs *ds)
{
    return ds->type;
}

size_t dataset_inputs_count(const struct dataset_inputs *ds)
{
    return ds->count;
}

const struct dataset_entry *dataset_inputs_entry(const struct dataset_inputs *ds, size_t i)
{
    return &ds->entries[i];
}

bool dataset_inputs_timestamped(const struct dataset_inputs *ds)
{
    return ds->count > 0 && ds->entries[0].has_timestamp;
}

bool dataset__blank_line(const char *line, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r') {
            return false;
        }
    }
    return true;
}

int dataset__take_line(struct dataset_inputs *ds, const char *line, size_t len, const char *file,
                       uint64_t lineno, uint32_t turn, char *err, size_t cap)
{
    if (dataset__blank_line(line, len)) {
        return 0;
    }
    uint64_t record = ds->records_seen++;
    if (ds->type == DATASET_INPUT_AUTO) {
        ds->type = dataset__detect_line(line, len, file, lineno, err, cap);
        if (ds->type == DATASET_INPUT_AUTO) {
            return -1;
        }
        if (ds->type == DATASET_INPUT_INPUTS_JSON) {
            return dataset__load_inputs_json(ds, line, len, file, err, cap) == 0 ? 1 : -1;
        }
    }
    if (ds->wanted != NULL) {
        if (ds->wanted_next >= ds->wanted_count) {
            return 1; /* every wanted record is in */
        }
        if (record != ds->wanted[ds->wanted_next]) {
            return 0;
        }
        ds->wanted_next++;
    }
    if (dataset__parse_record(ds, line, len, file, lineno, turn, err, cap) != 0) {
        return -1;
    }
    return ds->entries_max > 0 && ds->count >= ds->entries_max ? 1 : 0;
}

/* load_lines_buffer reads data's lines with the file reader, through a
 * memory stream, so that buffers and files cannot be read differently. */
static int load_lines_buffer(struct dataset_inputs *ds, const char *data, size_t len,
                             const char *file, char *err, size_t cap)
{
    if (len == 0) {
        return 0;
    }
    FILE *f = fmemopen((void *)data, len, "rb");
    if (f == NULL) {
        snprintf(err, cap, "%s: out of memory", file);
        return -1;
    }
    int ret = dataset__load_lines(ds, f, file, NULL, err, cap);
    fclose(f);
    if (ret == DATASET_LINES_NOT_JSONL) {
        ret = dataset__inputs_json_fallback(ds, data, len, file, err, cap);
    }
    return ret;
}

int dataset__inputs_json_fallback(struct dataset_inputs *ds, const char *data, size_t len,
                                  const char *name, char *err, size_t cap)
{
    if (!dataset__looks_like_inputs_json(data, len)) {
        return -1; /* err keeps the first line's complaint */
    }
    ds->type = DATASET_INPUT_INPUTS_JSON;
    return dataset__load_inputs_json(ds, data, len, name, err, cap);
}

static struct dataset_inputs *new_dataset(const struct dataset_inputs_options *opts)
{
    struct dataset_inputs *ds = calloc(1, sizeof(*ds));
    if (ds != NULL) {
        ds->type = opts->type;
        ds->entries_max = opts->entries_max;
        ds->wanted = opts->records_wanted;
        ds->wanted_count = opts->records_wanted_count;
    }
    return ds;
}

int dataset__finish(struct dataset_inputs *ds, int ret, const char *file,
                    struct dataset_inputs **out, char *err, size_t cap)
{
    if (ret == 0 && ds->count == 0) {
        snprintf(err, cap, "%s: no records found; expected at least one JSON record", file);
        ret = -1;
    }
    if (ret != 0) {
        dataset_inputs_free(ds);
        ds = NULL;
    }
    *out = ds;
    return ret;
}

int dataset_inputs_load_buffer(const char *data, size_t len, const char *name,
                               const struct dataset_inputs_options *opts,
                               struct dataset_inputs **out, char *err, size_t err_cap)
{
    *out = NULL;
    struct dataset_inputs *ds = new_dataset(opts);
    if (ds == NULL) {
        snprintf(err, err_cap, "%s: out of memory", name);
        return -1;
    }
    int ret = 0;
    if (ds->type == DATASET_INPUT_INPUTS_JSON) {
        ret = dataset__load_inputs_json(ds, data, len, name, err, err_cap);
    } else {
        ret = load_lines_buffer(ds, data, len, name, err, err_cap);
    }
    return dataset__finish(ds, ret, name, out, err, err_cap);
}
