/*
 * config_yaml_sweep.c - a config file's sweep: section as ringperf's sweep flags.
 *
 * This is the one place where AIPerf's sweep parameters become flags: each swept field is
 * the flag that takes a comma list on the command line (`concurrency: [8, 16]` is
 * `--concurrency 8,16`), and the sweep's own settings are --sweep-type,
 * --parameter-sweep-mode, --parameter-sweep-cooldown-seconds and
 * --parameter-sweep-same-seed. A file with a sweep therefore runs exactly as that command
 * line does.
 */
#include <errno.h>
#include <libfyaml.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"

/* SWEEP_LIST_BYTES bounds one parameter's comma list. */
#define SWEEP_LIST_BYTES 4096

/* The phase fields that sweep, and the flag whose comma list sweeps each. */
static const char *const phase_fields[][2] = {
    {"concurrency", "--concurrency"},
    {"rate", "--request-rate"},
    {"duration", "--benchmark-duration"},
    {"users", "--num-users"},
};

/* AIPerf's other bare names: known, not sweepable by ringperf's flags. */
static const char *const other_bare[] = {"prefill_concurrency", "requests",     "sessions",
                                         "smoothness",          "grace_period", "concurrency_ramp",
                                         "prefill_ramp",        "rate_ramp"};

static const char *phase_flag(const char *field, size_t len)
{
    for (size_t i = 0; i < sizeof(phase_fields) / sizeof(phase_fields[0]); i++) {
        if (strlen(phase_fields[i][0]) == len && memcmp(field, phase_fields[i][0], len) == 0) {
            return phase_fields[i][1];
        }
    }
    return NULL;
}

/* is_profiling_phase reports whether a path segment names the profiling phase: "profiling",
 * its name, or its index. */
static bool is_profiling_phase(const struct config__yaml *y, const char *seg, size_t len)
{
    char index[16];
    snprintf(index, sizeof(index), "%d", y->profiling_index);
    return (len == 9 && memcmp(seg, "profiling", 9) == 0) ||
           (strlen(y->profiling_name) == len && memcmp(seg, y->profiling_name, len) == 0) ||
           (strlen(index) == len && memcmp(seg, index, len) == 0);
}

/* prompt_flag resolves datasets.<name|0>.prompts.isl|osl[.mean] (or dataset.prompts...). */
static const char *prompt_flag(const char *path)
{
    const char *rest = NULL;
    if (strncmp(path, "datasets.", 9) == 0 && strchr(path + 9, '.') != NULL) {
        rest = strchr(path + 9, '.') + 1;
    } else if (strncmp(path, "dataset.", 8) == 0) {
        rest = path + 8;
    }
    if (rest == NULL || strncmp(rest, "prompts.", 8) != 0) {
        return NULL;
    }
    rest += 8;
    if (strcmp(rest, "isl") == 0 || strcmp(rest, "isl.mean") == 0) {
        return "--isl";
    }
    return strcmp(rest, "osl") == 0 || strcmp(rest, "osl.mean") == 0 ? "--osl" : NULL;
}

/* parameter_flag resolves a sweep parameter path to its flag, or fails naming it. */
static int parameter_flag(struct config__yaml *y, struct fy_node *key_node, const char *path,
                          const char **out_flag)
{
    const char *field = path;
    size_t field_len = strlen(path);
    bool phase_path = strncmp(path, "phases.", 7) == 0;
    if (phase_path) {
        const char *seg = path + 7;
        const char *dot = strchr(seg, '.');
        if (dot == NULL || !is_profiling_phase(y, seg, (size_t)(dot - seg))) {
            return config__yaml_fail(y, key_node,
                                     "sweep parameter '%s': ringperf sweeps the profiling phase "
                                     "(phases.profiling.FIELD or phases.%s.FIELD)",
                                     path, y->profiling_name);
        }
        field = dot + 1;
        field_len = strlen(field);
    }
    *out_flag = phase_flag(field, field_len);
    if (*out_flag == NULL && !phase_path) {
        *out_flag = prompt_flag(path);
    }
    if (*out_flag == NULL) {
        bool known = false;
        for (size_t i = 0; i < sizeof(other_bare) / sizeof(other_bare[0]); i++) {
            known = known || strcmp(field, other_bare[i]) == 0;
        }
        return config__yaml_fail(y, key_node,
                                 "sweep parameter '%s'%s: ringperf sweeps concurrency, rate, "
                                 "duration, users, datasets.NAME.prompts.isl and "
                                 "datasets.NAME.prompts.osl (its comma-list flags)",
                                 path, known ? " is not supported" : " is unknown");
    }
    bool rate = strcmp(*out_flag, "--request-rate") == 0;
    if (rate && !y->profiling_rate) {
        return config__yaml_fail(y, key_node,
                                 "sweep parameter '%s': the profiling phase is of type %s; rate "
                                 "sweeps a poisson, gamma or constant phase",
                                 path, y->profiling_type);
    }
    return 0;
}

/* join_values writes a parameter's list as the comma list its flag takes. */
static int join_values(struct config__yaml *y, struct fy_node *key_node, struct fy_node *values,
                       const char *path, char *out, size_t *out_count)
{
    if (values == NULL || !fy_node_is_sequence(values) ||
        fy_node_sequence_item_count(values) == 0) {
        return config__yaml_fail(y, key_node,
                                 "sweep parameter '%s': expected a non-empty list "
                                 "of values",
                                 path);
    }
    size_t used = 0;
    size_t count = 0;
    void *iter = NULL;
    struct fy_node *item;
    while ((item = fy_node_sequence_iterate(values, &iter)) != NULL) {
        char text[256];
        bool null = false;
        int rc = config__yaml_text(y, item, path, text, sizeof(text), &null);
        if (rc != 0) {
            return rc;
        }
        if (null || text[0] == '\0' || strchr(text, ',') != NULL) {
            return config__yaml_fail(y, item,
                                     "sweep parameter '%s': a value must be one "
                                     "number",
                                     path);
        }
        size_t len = strlen(text);
        if (count >= CONFIG_LIST_MAX || used + len + 2 > SWEEP_LIST_BYTES) {
            return config__yaml_fail(y, item, "sweep parameter '%s': more than %d values", path,
                                     CONFIG_LIST_MAX);
        }
        out[used] = ',';
        memcpy(out + used + (count > 0), text, len + 1);
        used += len + (count > 0);
        count++;
    }
    *out_count = count;
    return 0;
}

static int parameters(struct config__yaml *y, struct fy_node *key_node, struct fy_node *map)
{
    if (map == NULL || !fy_node_is_mapping(map) || fy_node_mapping_is_empty(map)) {
        return config__yaml_fail(y, key_node,
                                 "sweep.parameters: expected a mapping of "
                                 "parameter: [values]");
    }
    size_t zip_count = 0;
    void *iter = NULL;
    struct fy_node_pair *pair;
    while ((pair = fy_node_mapping_iterate(map, &iter)) != NULL) {
        struct fy_node *key = fy_node_pair_key(pair);
        size_t len = 0;
        const char *text = fy_node_is_scalar(key) ? fy_node_get_scalar(key, &len) : NULL;
        char path[CONFIG__YAML_PATH_BYTES];
        snprintf(path, sizeof(path), "%.*s", (int)(len < 200 ? len : 200),
                 text != NULL ? text : "");
        const char *flag = NULL;
        char list[SWEEP_LIST_BYTES];
        size_t count = 0;
        char entry_key[CONFIG__YAML_PATH_BYTES + 32];
        config__yaml_path(entry_key, "sweep.parameters.%s", path);
        int rc = parameter_flag(y, key, path, &flag);
        rc = rc != 0 ? rc : join_values(y, key, fy_node_pair_value(pair), path, list, &count);
        if (rc == 0 && y->file->sweep_zip && zip_count != 0 && count != zip_count) {
            rc = config__yaml_fail(y, key,
                                   "sweep parameter '%s': a zip sweep's lists have one "
                                   "length (%zu values here, %zu before)",
                                   path, count, zip_count);
        }
        for (size_t i = 0; rc == 0 && i < y->file->count; i++) {
            const struct config__file_entry *e = &y->file->entries[i];
            if (e->sweep == CONFIG__SWEEP_LIST &&
                e->flag == config__find_flag(flag, strlen(flag))) {
                rc = config__yaml_fail(y, key, "sweep parameter '%s': %s is swept twice", path,
                                       e->key);
            }
        }
        rc = rc != 0 ? rc
                     : config__yaml_add_as(y, CONFIG__SWEEP_LIST, flag, list, entry_key,
                                           fy_node_pair_value(pair));
        if (rc != 0) {
            return rc;
        }
        y->file->entries[y->file->count - 1].list_count = count;
        zip_count = count;
    }
    return 0;
}

/* sweep_type reads sweep.type: grid (the default) or zip. */
static int sweep_type(struct config__yaml *y, struct fy_node *map)
{
    void *iter = NULL;
    struct fy_node_pair *pair;
    while ((pair = fy_node_mapping_iterate(map, &iter)) != NULL) {
        size_t len = 0;
        struct fy_node *key = fy_node_pair_key(pair);
        const char *text = fy_node_is_scalar(key) ? fy_node_get_scalar(key, &len) : NULL;
        if (text == NULL || !config__yaml_key_is(text, len, "type")) {
            continue;
        }
        char type[32];
        bool null = false;
        int rc =
            config__yaml_text(y, fy_node_pair_value(pair), "sweep.type", type, sizeof(type), &null);
        if (rc != 0 || null) {
            return rc;
        }
        if (strcmp(type, "grid") != 0 && strcmp(type, "zip") != 0) {
            return config__yaml_fail(y, fy_node_pair_value(pair),
                                     "sweep.type: '%s' is not supported; ringperf sweeps grid "
                                     "and zip (AIPerf's --sweep-type)",
                                     type);
        }
        y->file->sweep_zip = strcmp(type, "zip") == 0;
        return config__yaml_add_as(y, CONFIG__SWEEP_SETTING, "--sweep-type", type, "sweep.type",
                                   fy_node_pair_value(pair));
    }
    return 0;
}

static int sweep_setting(struct config__yaml *y, struct fy_node_pair *pair, const char *flag,
                         const char *path)
{
    char text[64];
    bool null = false;
    int rc = config__yaml_text(y, fy_node_pair_value(pair), path, text, sizeof(text), &null);
    return rc != 0 || null ? rc
                           : config__yaml_add_as(y, CONFIG__SWEEP_SETTING, flag, text, path,
                                                 fy_node_pair_value(pair));
}

int config__yaml_sweep(struct config__yaml *y, struct fy_node *sweep)
{
    static const char *const known[] = {
        "type",      "parameters", "variables", "cooldown_seconds", "iteration_order",
        "same_seed", NULL};
    if (!fy_node_is_mapping(sweep)) {
        return config__yaml_fail(y, sweep, "sweep: expected a mapping with type and parameters");
    }
    y->file->has_sweep = true;
    int rc = sweep_type(y, sweep);
    struct fy_node *params = NULL;
    void *iter = NULL;
    struct fy_node_pair *pair;
    while (rc == 0 && (pair = fy_node_mapping_iterate(sweep, &iter)) != NULL) {
        size_t len = 0;
        struct fy_node *key = fy_node_pair_key(pair);
        const char *text = fy_node_is_scalar(key) ? fy_node_get_scalar(key, &len) : NULL;
        if (text != NULL && config__yaml_key_is(text, len, "type")) {
            continue;
        } else if (text != NULL && (config__yaml_key_is(text, len, "parameters") ||
                                    config__yaml_key_is(text, len, "variables"))) {
            rc = parameters(y, key, fy_node_pair_value(pair));
            params = key;
        } else if (text != NULL && config__yaml_key_is(text, len, "cooldown_seconds")) {
            rc = sweep_setting(y, pair, "--parameter-sweep-cooldown-seconds",
                               "sweep.cooldown_seconds");
        } else if (text != NULL && config__yaml_key_is(text, len, "iteration_order")) {
            rc = sweep_setting(y, pair, "--parameter-sweep-mode", "sweep.iteration_order");
        } else if (text != NULL && config__yaml_key_is(text, len, "same_seed")) {
            rc = sweep_setting(y, pair, "--parameter-sweep-same-seed", "sweep.same_seed");
        } else {
            rc = config__yaml_unknown(y, key, "sweep", known);
        }
    }
    if (rc == 0 && params == NULL) {
        rc = config__yaml_fail(y, sweep, "sweep: there are no parameters to sweep");
    }
    return rc;
}
