/*
 * input_stream.c - dataset_inputs_load: a file is read one line at a time,
 * so that a large JSONL file costs the memory of its entries, not of its
 * text; a directory is one file after another, sorted by name.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "datasets/datasets_internal.h"

/* struct line_reader reads lines of at most DATASET_LINE_BYTES_MAX bytes. */
struct line_reader {
    FILE *f;
    char *buf;
    size_t cap;
};

/* read_line reads the next line without its '\n' into r->buf. Returns 1 with
 * *out_len, 0 at the end of the file, -1 for a read error, -2 for a line over
 * the limit. */
static int read_line(struct line_reader *r, size_t *out_len)
{
    size_t len = 0;
    for (;;) {
        if (r->cap - len < 2) {
            size_t cap = r->cap == 0 ? 4096 : r->cap * 2;
            if (cap > DATASET_LINE_BYTES_MAX + 2) {
                return -2;
            }
            char *grown = realloc(r->buf, cap);
            if (grown == NULL) {
                return -1;
            }
            r->buf = grown;
            r->cap = cap;
        }
        if (fgets(r->buf + len, (int)(r->cap - len), r->f) == NULL) {
            *out_len = len;
            return ferror(r->f) ? -1 : len > 0;
        }
        len += strlen(r->buf + len);
        if (len > 0 && r->buf[len - 1] == '\n') {
            *out_len = len - 1;
            return 1;
        }
    }
}

int dataset_inputs_count_records(const char *path, uint64_t *out_count, char *err, size_t err_cap)
{
    struct line_reader r = {.f = fopen(path, "rb")};
    if (r.f == NULL) {
        snprintf(err, err_cap, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    uint64_t count = 0;
    size_t len = 0;
    int ret;
    while ((ret = read_line(&r, &len)) == 1) {
        count += !dataset__blank_line(r.buf, len);
    }
    fclose(r.f);
    free(r.buf);
    if (ret < 0) {
        snprintf(err, err_cap, "%s: %s", path,
                 ret == -2 ? "a line is longer than the limit" : "read error or out of memory");
        return -1;
    }
    *out_count = count;
    return 0;
}

/* read_whole reads a file of at most DATASET_FILE_BYTES_MAX bytes. */
static char *read_whole(const char *path, size_t *out_len, char *err, size_t cap)
{
    FILE *f = fopen(path, "rb");
    char *data = NULL;
    if (f == NULL) {
        snprintf(err, cap, "%s: cannot open: %s", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || (size_t)st.st_size > DATASET_FILE_BYTES_MAX) {
        snprintf(err, cap, "%s: the file is larger than %zu bytes", path,
                 (size_t)DATASET_FILE_BYTES_MAX);
        goto out_file;
    }
    data = malloc((size_t)st.st_size + 1);
    size_t got = data != NULL ? fread(data, 1, (size_t)st.st_size, f) : 0;
    if (data == NULL || got != (size_t)st.st_size) {
        snprintf(err, cap, "%s: cannot read the file", path);
        free(data);
        data = NULL;
        goto out_file;
    }
    data[got] = '\0';
    *out_len = got;
out_file:
    fclose(f);
    return data;
}

static int load_whole(struct dataset_inputs *ds, const char *path, char *err, size_t cap)
{
    size_t len = 0;
    char *data = read_whole(path, &len, err, cap);
    if (data == NULL) {
        return -1;
    }
    struct dataset_inputs_options opts = {.type = ds->type, .entries_max = ds->entries_max};
    struct dataset_inputs *loaded = NULL;
    int ret = dataset_inputs_load_buffer(data, len, path, &opts, &loaded, err, cap);
    free(data);
    if (ret == 0) {
        /* Move the entries over. */
        free(ds->entries);
        *ds = *loaded;
        free(loaded);
    }
    return ret;
}

/* retry_as_inputs_json reads path whole when its first line is not JSON: a
 * pretty-printed inputs.json is detected; anything else keeps the line's
 * error in err. */
static int retry_as_inputs_json(struct dataset_inputs *ds, const char *path, char *err, size_t cap)
{
    char whole_err[DATASET_ERR_CAP];
    size_t len = 0;
    char *data = read_whole(path, &len, whole_err, sizeof(whole_err));
    if (data == NULL || !dataset__looks_like_inputs_json(data, len)) {
        free(data);
        return -1;
    }
    ds->type = DATASET_INPUT_INPUTS_JSON;
    int ret = dataset__load_inputs_json(ds, data, len, path, err, cap);
    free(data);
    return ret;
}

/* load_stream parses the lines of path as JSONL records of ds->type (turn
 * numbers count within the file); session, when not NULL, names them. */
static int load_stream(struct dataset_inputs *ds, const char *path, const char *session, char *err,
                       size_t cap)
{
    struct line_reader r = {.f = fopen(path, "rb")};
    if (r.f == NULL) {
        snprintf(err, cap, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    uint64_t lineno = 0;
    uint32_t turn = 0;
    int ret = 0;
    size_t len = 0;
    while (ret == 0 && (ret = read_line(&r, &len)) == 1) {
        lineno++;
        size_t before = ds->count;
        bool was_auto = ds->type == DATASET_INPUT_AUTO;
        ret = dataset__take_line(ds, r.buf, len, path, lineno, turn, err, cap);
        if (ret < 0 && was_auto && ds->type == DATASET_INPUT_AUTO && before == 0) {
            /* A pretty-printed inputs.json does not parse line by line. */
            ret = -3;
            break;
        }
        for (size_t i = before; session != NULL && i < ds->count; i++) {
            ds->entries[i].session_id = strdup(session);
            ret = ds->entries[i].session_id != NULL ? ret : -1;
        }
        /* Lines are turns only in a directory's session files; in one file
         * each line is its own conversation. */
        turn += session != NULL && ds->count > before;
    }
    if (ret == -2 || ret == -1) {
        if (ret == -2) {
            snprintf(err, cap, "%s:%llu: the line is longer than %zu bytes", path,
                     (unsigned long long)lineno + 1, (size_t)DATASET_LINE_BYTES_MAX);
        } else if (err[0] == '\0') {
            snprintf(err, cap, "%s: read error or out of memory", path);
        }
    }
    fclose(r.f);
    free(r.buf);
    if (ret == -3) {
        return retry_as_inputs_json(ds, path, err, cap);
    }
    return ret < 0 ? -1 : 0;
}

static int jsonl_name(const struct dirent *d)
{
    size_t len = strlen(d->d_name);
    return d->d_name[0] != '.' && len > 6 && strcmp(d->d_name + len - 6, ".jsonl") == 0;
}

static int by_name(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

/* load_dir reads every .jsonl file of dir, sorted by name. raw_payload: one
 * session per file; random_pool: one pool of all the files' records. */
static int load_dir(struct dataset_inputs *ds, const char *dir, char *err, size_t cap)
{
    struct dirent **names = NULL;
    int n = scandir(dir, &names, jsonl_name, by_name);
    if (n < 0) {
        snprintf(err, cap, "%s: cannot list the directory: %s", dir, strerror(errno));
        return -1;
    }
    int ret = 0;
    if (n == 0 || n > DATASET_DIR_FILES_MAX) {
        snprintf(err, cap, "%s: expected between 1 and %d .jsonl files in the directory", dir,
                 DATASET_DIR_FILES_MAX);
        ret = -1;
    }
    char path[4096];
    for (int i = 0; ret == 0 && i < n; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
        char session[256];
        snprintf(session, sizeof(session), "%.*s", (int)(strlen(names[i]->d_name) - 6),
                 names[i]->d_name);
        if (ds->type == DATASET_INPUT_AUTO) {
            ret = load_stream(ds, path, NULL, err, cap);
            /* AIPerf: a directory is raw_payload sessions or random pools. */
            if (ret == 0 && ds->type != DATASET_INPUT_RAW_PAYLOAD) {
                ds->type = DATASET_INPUT_RANDOM_POOL;
            }
            for (size_t k = 0; ret == 0 && ds->type == DATASET_INPUT_RAW_PAYLOAD && k < ds->count;
                 k++) {
                ds->entries[k].session_id = strdup(session);
            }
            continue;
        }
        ret =
            load_stream(ds, path, ds->type == DATASET_INPUT_RAW_PAYLOAD ? session : NULL, err, cap);
    }
    for (int i = 0; i < n; i++) {
        free(names[i]);
    }
    free(names);
    return ret;
}

int dataset_inputs_load(const struct dataset_inputs_options *opts, struct dataset_inputs **out,
                        char *err, size_t err_cap)
{
    *out = NULL;
    if (err_cap > 0) {
        err[0] = '\0';
    }
    struct dataset_inputs *ds = calloc(1, sizeof(*ds));
    if (ds == NULL) {
        snprintf(err, err_cap, "%s: out of memory", opts->path);
        return -1;
    }
    ds->type = opts->type;
    ds->entries_max = opts->entries_max;
    ds->wanted = opts->records_wanted;
    ds->wanted_count = opts->records_wanted_count;
    struct stat st;
    int ret = -1;
    if (stat(opts->path, &st) != 0) {
        snprintf(err, err_cap, "%s: %s", opts->path, strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
        if (ds->type != DATASET_INPUT_AUTO && ds->type != DATASET_INPUT_RAW_PAYLOAD &&
            ds->type != DATASET_INPUT_RANDOM_POOL) {
            snprintf(err, err_cap, "%s: a directory is only read as raw_payload or random_pool",
                     opts->path);
        } else {
            ret = load_dir(ds, opts->path, err, err_cap);
        }
    } else if (ds->type == DATASET_INPUT_INPUTS_JSON) {
        ret = load_whole(ds, opts->path, err, err_cap);
    } else {
        ret = load_stream(ds, opts->path, NULL, err, err_cap);
    }
    return dataset__finish(ds, ret, opts->path, out, err, err_cap);
}
