/*
 * datasets_internal.h - shared between the datasets module's files. Not public.
 */
#ifndef RINGPERF_DATASETS_INTERNAL_H
#define RINGPERF_DATASETS_INTERNAL_H

#include <stddef.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include "datasets/datasets.h"

/* struct dataset_inputs owns its entries and every string they point to. */
struct dataset_inputs {
    enum dataset_input_type type;
    struct dataset_entry *entries;
    size_t count;
    size_t cap;
    size_t entries_max;     /* 0 = no limit */
    const uint64_t *wanted; /* records to keep (dataset_inputs_options.records_wanted) */
    size_t wanted_count;
    size_t wanted_next;    /* the next of them to find */
    uint64_t records_seen; /* records read so far, kept or not */
};

/* dataset__blank_line reports whether a line holds only blanks: not a record. */
bool dataset__blank_line(const char *line, size_t len);

/* dataset__take_line handles one line of a JSONL file: blank lines are
 * skipped, the first record settles an auto-detected type, the rest are
 * parsed. Returns 0, 1 when entries_max is reached, or -1 with a message. */
int dataset__take_line(struct dataset_inputs *ds, const char *line, size_t len, const char *file,
                       uint64_t lineno, uint32_t turn, char *err, size_t cap);

/* dataset__finish checks that a load gave entries, then hands ds out in *out
 * (ret 0) or frees it (*out = NULL). Returns 0 or -1. */
int dataset__finish(struct dataset_inputs *ds, int ret, const char *file,
                    struct dataset_inputs **out, char *err, size_t cap);

/* dataset__entry_push appends a zeroed entry and returns it, or NULL when
 * memory runs out or DATASET_ENTRIES_MAX is reached. */
struct dataset_entry *dataset__entry_push(struct dataset_inputs *ds);

/* dataset__entry_clear frees what entry e owns and zeroes it. */
void dataset__entry_clear(struct dataset_entry *e);

/* dataset__detect_line guesses the format of a JSONL file from its first
 * record (line, len). Returns the type, or DATASET_INPUT_AUTO with a message
 * in err (naming file and line) when nothing fits. */
enum dataset_input_type dataset__detect_line(const char *line, size_t len, const char *file,
                                             uint64_t lineno, char *err, size_t err_cap);

/* dataset__parse_record parses one JSONL record of type into a new entry of
 * ds. Returns 0, or -1 with a message naming file, line and column. */
int dataset__parse_record(struct dataset_inputs *ds, const char *line, size_t len, const char *file,
                          uint64_t lineno, uint32_t turn, char *err, size_t err_cap);

/* dataset__load_lines parses the lines of f (named name in messages) as
 * JSONL records of ds->type, one entry per record and, for a directory's
 * session file (session not NULL), one turn per line named session. This is
 * the one line reader of files and buffers (fmemopen). Returns 0; -1 with a
 * message naming the file and line in err (an over-long line, a NUL byte, a
 * bad record); or DATASET_LINES_NOT_JSONL when ds->type is
 * DATASET_INPUT_AUTO and the first record does not parse, so that the caller
 * can try the whole text as an inputs.json. */
#define DATASET_LINES_NOT_JSONL (-3)

/* dataset__inputs_json_fallback loads data whole as an inputs.json after its first line did
 * not parse as a JSONL record (DATASET_LINES_NOT_JSONL): a pretty-printed inputs.json. Returns
 * 0, or -1 with err kept (the line's complaint) when data is not one, or the loader's error. */
int dataset__inputs_json_fallback(struct dataset_inputs *ds, const char *data, size_t len,
                                  const char *name, char *err, size_t cap);
int dataset__load_lines(struct dataset_inputs *ds, FILE *f, const char *name, const char *session,
                        char *err, size_t cap);

/* dataset__load_inputs_json reads an AIPerf inputs.json held in data (len
 * bytes) into ds. Returns 0, or -1 with a message. */
int dataset__load_inputs_json(struct dataset_inputs *ds, const char *data, size_t len,
                              const char *file, char *err, size_t err_cap);

/* dataset__looks_like_inputs_json reports whether data parses as one JSON
 * object with a "data" array: AIPerf's pretty-printed inputs.json. */
bool dataset__looks_like_inputs_json(const char *data, size_t len);

/* DATASET__PROSE is the built-in source text for token-exact prompts. */
extern const char DATASET__PROSE[];
extern const size_t DATASET__PROSE_LEN;

#endif
