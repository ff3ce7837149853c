/*
 * runs.c - finding the run directories below `ringperf plot`'s arguments and reading their
 * summaries, as AIPerf's mode detector and data loader do (spec §7).
 */
#include "plot/plot_internal.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define SUMMARY "profile_export_aiperf.json"
#define AGGREGATE "profile_export_aiperf_aggregate.json"
#define MAX_DEPTH 6

bool plot__join(char *out, size_t cap, const char *dir, const char *name)
{
    int n = snprintf(out, cap, "%s/%s", dir, name);
    if (n < 0 || (size_t)n >= cap) {
        out[0] = '\0';
        return false;
    }
    return true;
}

static bool is_file(const char *dir, const char *name)
{
    char path[PLOT_PATH_BYTES];
    struct stat st;
    plot__join(path, sizeof(path), dir, name);
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Directories inside a run or beside runs that hold no run of their own. */
static bool never_a_run(const char *name)
{
    static const char *const skip[] = {
        "plots", "sweep_aggregate", "logs", "raw_records", "output_fragments", "phases", NULL};
    for (size_t i = 0; skip[i] != NULL; i++) {
        if (strcmp(name, skip[i]) == 0) {
            return true;
        }
    }
    return name[0] == '.';
}

/* label_of names a run: its sweep variation (concurrency_4), else its run label (run_0002), else
 * its directory's name (the cell's name for an aggregate/ directory, which stands for the cell
 * above it). */
static void label_of(struct plot_run *run)
{
    json_t *info = json_object_get(run->summary, "run_info");
    const char *variation = json_string_value(json_object_get(info, "variation_label"));
    const char *given = json_string_value(json_object_get(info, "run_label"));
    if (variation != NULL && variation[0] != '\0' && strcmp(variation, "base") != 0) {
        given = variation;
    }
    if (given != NULL && given[0] != '\0' && !run->aggregate) {
        snprintf(run->label, sizeof(run->label), "%.*s", (int)sizeof(run->label) - 1, given);
        return;
    }
    char copy[PLOT_PATH_BYTES];
    snprintf(copy, sizeof(copy), "%s", run->dir);
    for (int round = 0; round < 2; round++) {
        char *slash = strrchr(copy, '/');
        const char *name = slash != NULL ? slash + 1 : copy;
        if (strcmp(name, "aggregate") != 0 || slash == NULL || round == 1) {
            snprintf(run->label, sizeof(run->label), "%.*s", (int)sizeof(run->label) - 1, name);
            return;
        }
        *slash = '\0';
    }
}

static int load_run(struct plot_runs *out, const char *dir, bool aggregate, char *err, size_t cap)
{
    if (out->count == PLOT_MAX_RUNS) {
        snprintf(err, cap, "more than %d run directories", PLOT_MAX_RUNS);
        return -1;
    }
    struct plot_run *run = &out->items[out->count];
    char path[PLOT_PATH_BYTES];
    plot__join(path, sizeof(path), dir, aggregate ? AGGREGATE : SUMMARY);
    json_error_t jerr;
    run->summary = json_load_file(path, 0, &jerr);
    if (run->summary == NULL || !json_is_object(run->summary)) {
        snprintf(err, cap, "%s: not a summary (line %d: %s)", path, jerr.line, jerr.text);
        json_decref(run->summary);
        run->summary = NULL;
        return -1;
    }
    snprintf(run->dir, sizeof(run->dir), "%s", dir);
    run->aggregate = aggregate;
    label_of(run);
    out->count++;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* child_names lists dir's subdirectories, sorted, so that runs come in a stable order. */
static size_t child_names(const char *dir, char ***out)
{
    *out = NULL;
    DIR *d = opendir(dir);
    if (d == NULL) {
        return 0;
    }
    size_t n = 0;
    size_t cap = 0;
    char **names = NULL;
    char path[PLOT_PATH_BYTES];
    for (struct dirent *e = readdir(d); e != NULL; e = readdir(d)) {
        plot__join(path, sizeof(path), dir, e->d_name);
        if (never_a_run(e->d_name) || !is_dir(path)) {
            continue;
        }
        if (n == cap) {
            cap = cap == 0 ? 16 : cap * 2;
            char **grown = realloc(names, cap * sizeof(*names));
            if (grown == NULL) {
                break;
            }
            names = grown;
        }
        names[n] = strdup(e->d_name);
        if (names[n] != NULL) {
            n++;
        }
    }
    closedir(d);
    qsort(names, n, sizeof(*names), by_name);
    *out = names;
    return n;
}

/* first_command finds the first run summary below dir and keeps its run_info.cli_command. */
static void first_command(struct plot_runs *out, const char *dir, int depth)
{
    char path[PLOT_PATH_BYTES];
    if (out->runs_command[0] != '\0' || depth == MAX_DEPTH) {
        return;
    }
    if (is_file(dir, SUMMARY) && plot__join(path, sizeof(path), dir, SUMMARY)) {
        json_t *doc = json_load_file(path, 0, NULL);
        const char *cmd =
            json_string_value(json_object_get(json_object_get(doc, "run_info"), "cli_command"));
        snprintf(out->runs_command, sizeof(out->runs_command), "%s", cmd != NULL ? cmd : "");
        json_decref(doc);
        return;
    }
    char **names = NULL;
    size_t n = child_names(dir, &names);
    for (size_t i = 0; i < n; i++) {
        if (plot__join(path, sizeof(path), dir, names[i])) {
            first_command(out, path, depth + 1);
        }
        free(names[i]);
    }
    free(names);
}

static int walk(struct plot_runs *out, const char *dir, int depth, char *err, size_t cap)
{
    if (is_file(dir, SUMMARY)) {
        return load_run(out, dir, false, err, cap);
    }
    if (is_file(dir, AGGREGATE)) {
        return load_run(out, dir, true, err, cap);
    }
    if (depth == MAX_DEPTH) {
        return 0;
    }
    char **names = NULL;
    size_t n = child_names(dir, &names);
    char path[PLOT_PATH_BYTES];
    snprintf(path, sizeof(path), "%s/aggregate", dir);
    bool has_aggregate = is_dir(path);
    int ret = 0;
    for (size_t i = 0; i < n; i++) {
        /* aggregate/ summarises the runs of profile_runs/: one point, not N. */
        bool skipped = has_aggregate && strcmp(names[i], "profile_runs") == 0;
        if (ret == 0 && plot__join(path, sizeof(path), dir, names[i])) {
            if (skipped) {
                first_command(out, path, depth + 1);
            } else {
                ret = walk(out, path, depth + 1, err, cap);
            }
        }
        free(names[i]);
    }
    free(names);
    return ret;
}

int plot__find_runs(const char *const *dirs, size_t count, struct plot_runs *out, char *err,
                    size_t cap)
{
    out->count = 0;
    out->runs_command[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        if (!is_dir(dirs[i])) {
            snprintf(err, cap, "%s: not a directory (%s)", dirs[i], strerror(ENOTDIR));
            return -1;
        }
        if (walk(out, dirs[i], 0, err, cap) != 0) {
            return -1;
        }
    }
    if (out->count == 0) {
        snprintf(err, cap, "no run found: no %s or %s below the given directories", SUMMARY,
                 AGGREGATE);
        return -1;
    }
    return 0;
}

void plot__free_runs(struct plot_runs *runs)
{
    for (size_t i = 0; i < runs->count; i++) {
        json_decref(runs->items[i].summary);
        runs->items[i].summary = NULL;
    }
    runs->count = 0;
}

/* An aggregate keeps metrics.<tag>_<stat> with the mean over its runs. */
static json_t *aggregate_block(const struct plot_run *run, const char *tag, const char *stat)
{
    char key[160];
    snprintf(key, sizeof(key), "%s_%s", tag, stat);
    return json_object_get(json_object_get(run->summary, "metrics"), key);
}

double plot__stat(const struct plot_run *run, const char *tag, const char *stat)
{
    json_t *value = run->aggregate ? json_object_get(aggregate_block(run, tag, stat), "mean")
                                   : json_object_get(json_object_get(run->summary, tag), stat);
    return json_is_number(value) ? json_number_value(value) : NAN;
}

bool plot__ci(const struct plot_run *run, const char *tag, const char *stat, double *lo, double *hi)
{
    json_t *block = run->aggregate ? aggregate_block(run, tag, stat) : NULL;
    json_t *l = json_object_get(block, "ci_low");
    json_t *h = json_object_get(block, "ci_high");
    if (!json_is_number(l) || !json_is_number(h)) {
        return false;
    }
    *lo = json_number_value(l);
    *hi = json_number_value(h);
    return isfinite(*lo) && isfinite(*hi);
}

const char *plot__unit(const struct plot_run *run, const char *tag)
{
    json_t *block =
        run->aggregate ? aggregate_block(run, tag, "avg") : json_object_get(run->summary, tag);
    const char *unit = json_string_value(json_object_get(block, "unit"));
    return unit != NULL ? unit : "";
}

bool plot__each_line(const char *dir, const char *name, bool (*fn)(json_t *doc, void *ctx),
                     void *ctx)
{
    char path[PLOT_PATH_BYTES];
    FILE *f = plot__join(path, sizeof(path), dir, name) ? fopen(path, "r") : NULL;
    if (f == NULL) {
        return false;
    }
    char *line = NULL;
    size_t line_cap = 0;
    bool more = true;
    while (more && getline(&line, &line_cap, f) > 0) {
        json_t *doc = json_loads(line, 0, NULL);
        more = doc == NULL || fn(doc, ctx);
        json_decref(doc);
    }
    free(line);
    fclose(f);
    return true;
}
