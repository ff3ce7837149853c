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

enum {
    LINE_END = 0,
    LINE_READ = 1,
    LINE_IO_ERROR = -1,
    LINE_TOO_LONG = -2,
    LINE_HAS_NUL = -4,
};

/* read_line reads the next line without its '\n' into r->buf (NUL
 * terminated). Returns LINE_READ with *out_len, LINE_END at the end of the
 * file, or an error. A NUL byte is refused rather than read: C strings would
 * silently cut the line there, and no JSON text holds one. */
static int read_line(struct line_reader *r, size_t *out_len)
{
    size_t len = 0;
    int ch;
    while ((ch = getc_unlocked(r->f)) != EOF && ch != '\n') {
        if (ch == '\0') {
            return LINE_HAS_NUL;
        }
        if (len + 2 > r->cap) {
            size_t cap = r->cap == 0 ? 4096 : r->cap * 2;
            if (len + 1 > DATASET_LINE_BYTES_MAX) {
                return LINE_TOO_LONG;
            }
            char *grown = realloc(r->buf, cap);
            if (grown == NULL) {
                return LINE_IO_ERROR;
            }
            r->buf = grown;
            r->cap = cap;
        }
        r->buf[len++] = (char)ch;
    }
    if (ch == EOF && ferror(r->f)) {
        return LINE_IO_ERROR;
    }
    if (ch == EOF && len == 0) {
        return LINE_END;
    }
    if (r->buf != NULL) {
        r->buf[len] = '\0';
    }
    *out_len = len;
    return LINE_READ;
}

/* line_error writes the message of a read_line error for line lineno. */
static void line_error(int ret, const char *name, uint64_t lineno, char *err, size_t cap)
{
    if (ret == LINE_TOO_LONG) {
        snprintf(err, cap, "%s:%llu: the line is longer than %zu bytes", name,
                 (unsigned long long)lineno, (size_t)DATASET_LINE_BYTES_MAX);
    } else if (ret == LINE_HAS_NUL) {
        snprintf(err, cap, "%s:%llu: the line holds a NUL byte; the file is not JSON Lines text",
                 name, (unsigned long long)lineno);
    } else {
        snprintf(err, cap, "%s: read error or out of memory", name);
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
    uint64_t lines = 0;
    size_t len = 0;
    int ret;
    while ((ret = read_line(&r, &len)) == LINE_READ) {
        lines++;
        count += !dataset__blank_line(r.buf, len);
    }
    fclose(r.f);
    free(r.buf);
    if (ret < 0) {
        line_error(ret, path, lines + 1, err, err_cap);
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
    if (data == NULL) {
        return -1;
    }
    int ret = dataset__inputs_json_fallback(ds, data, len, path, err, cap);
    free(data);
    return ret;
}

int dataset__load_lines(struct dataset_inputs *ds, FILE *f, const char *name, const char *session,
                        char *err, size_t cap)
{
    struct line_reader r = {.f = f};
    uint64_t lineno = 0;
    uint32_t turn = 0;
    int ret = 0;
    int got;
    size_t len = 0;
    while (ret == 0 && (got = read_line(&r, &len)) == LINE_READ) {
        lineno++;
        size_t before = ds->count;
        bool was_auto = ds->type == DATASET_INPUT_AUTO;
        ret = dataset__take_line(ds, r.buf != NULL ? r.buf : "", len, name, lineno, turn, err, cap);
        if (ret < 0 && was_auto && ds->type == DATASET_INPUT_AUTO && before == 0) {
            free(r.buf);
            return DATASET_LINES_NOT_JSONL; /* a pretty-printed inputs.json, perhaps */
        }
        for (size_t i = before; session != NULL && i < ds->count; i++) {
            ds->entries[i].session_id = strdup(session);
            ret = ds->entries[i].session_id != NULL ? ret : -1;
        }
        /* Lines are turns only in a directory's session files; in one file
         * each line is its own conversation. */
        turn += session != NULL && ds->count > before;
    }
    free(r.buf);
    if (ret == 0 && got < 0) {
        line_error(got, name, lineno + 1, err, cap);
        return -1;
    }
    if (ret < 0 && err[0] == '\0') {
        snprintf(err, cap, "%s: out of memory", name);
    }
    return ret < 0 ? -1 : 0;
}

/* load_stream parses the lines of path as JSONL records of ds->type;
 * session, when not NULL, names them. */
static int load_stream(struct dataset_inputs *ds, const char *path, const char *session, char *err,
                       size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, cap, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    int ret = dataset__load_lines(ds, f, path, session, err, cap);
    fclose(f);
    if (ret == DATASET_LINES_NOT_JSONL) {
        return retry_as_inputs_json(ds, path, err, cap);
    }
    return ret;
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
