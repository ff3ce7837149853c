/*
 * config_file.c - a loaded config file's entries: storing them under the command line's
 * flags (which win), its sweep's variations, and the expansion `ringperf config expand`
 * prints.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"

/* CONFIG_FILE_ENTRIES_MAX bounds the settings one file makes. */
#define CONFIG_FILE_ENTRIES_MAX 1024
/* VALUE_BYTES_MAX bounds one value of a sweep's comma list. */
#define VALUE_BYTES_MAX 256

int config__file_add(struct config_file *file, const char *flag_name, const char *value,
                     const char *key, int line, int column, enum config__sweep_role sweep)
{
    const struct config__flag *flag = config__find_flag(flag_name, strlen(flag_name));
    if (flag == NULL) {
        return -ENOENT; /* a mapping table names a flag the table lacks: a bug */
    }
    if (file->count >= CONFIG_FILE_ENTRIES_MAX) {
        return -EINVAL;
    }
    if (file->count == file->cap) {
        size_t cap = file->cap == 0 ? 16 : file->cap * 2;
        struct config__file_entry *grown = realloc(file->entries, cap * sizeof(*grown));
        if (grown == NULL) {
            return -ENOMEM;
        }
        file->entries = grown;
        file->cap = cap;
    }
    struct config__file_entry *e = &file->entries[file->count];
    *e = (struct config__file_entry){
        .flag = flag, .line = line, .column = column, .sweep = (unsigned char)sweep};
    e->value = strdup(value);
    e->key = strdup(key);
    if (e->value == NULL || e->key == NULL) {
        free(e->value);
        free(e->key);
        return -ENOMEM;
    }
    file->count++;
    return 0;
}

void config_file_free(struct config_file *file)
{
    if (file == NULL) {
        return;
    }
    for (size_t i = 0; i < file->count; i++) {
        free(file->entries[i].value);
        free(file->entries[i].key);
    }
    free(file->entries);
    free(file->name);
    free(file);
}

size_t config_file_variation_count(const struct config_file *file)
{
    size_t count = 1;
    for (size_t i = 0; i < file->count; i++) {
        const struct config__file_entry *e = &file->entries[i];
        if (e->sweep != CONFIG__SWEEP_LIST) {
            continue;
        }
        if (file->sweep_zip) {
            count = e->list_count;
        } else if (count > CONFIG_FILE_VARIATIONS_MAX / e->list_count) {
            return CONFIG_FILE_VARIATIONS_MAX + 1;
        } else {
            count *= e->list_count;
        }
    }
    return count;
}

/* list_index is the position in entry list's values that variation takes: a grid varies
 * the last parameter fastest, as AIPerf's itertools.product does. */
static size_t list_index(const struct config_file *file, size_t list, size_t variation)
{
    if (file->sweep_zip) {
        return variation;
    }
    size_t stride = 1;
    for (size_t i = list + 1; i < file->count; i++) {
        if (file->entries[i].sweep == CONFIG__SWEEP_LIST) {
            stride *= file->entries[i].list_count;
        }
    }
    return (variation / stride) % file->entries[list].list_count;
}

/* nth_value copies the n-th value of a comma list into out. */
static void nth_value(const char *list, size_t n, char *out, size_t cap)
{
    const char *p = list;
    for (size_t i = 0; i < n && p != NULL; i++) {
        p = strchr(p, ',');
        p = p != NULL ? p + 1 : NULL;
    }
    size_t len = p != NULL ? strcspn(p, ",") : 0;
    snprintf(out, cap, "%.*s", (int)len, p != NULL ? p : "");
}

int config_file_variation_label(const struct config_file *file, size_t variation, char *out,
                                size_t cap)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t i = 0; i < file->count; i++) {
        const struct config__file_entry *e = &file->entries[i];
        if (e->sweep != CONFIG__SWEEP_LIST) {
            continue;
        }
        char value[VALUE_BYTES_MAX];
        nth_value(e->value, list_index(file, i, variation), value, sizeof(value));
        const char *last = strrchr(e->key, '.');
        int n = snprintf(out + used, cap - used, "%s%s_%s", used > 0 ? "__" : "",
                         last != NULL ? last + 1 : e->key, value);
        if (n < 0 || (size_t)n >= cap - used) {
            return -ENOSPC;
        }
        used += (size_t)n;
    }
    return 0;
}

static bool flag_on_cli(const struct config__flag *flag, const uint64_t *cli_given)
{
    size_t count = 0;
    size_t index = (size_t)(flag - config__flags(&count));
    return (cli_given[index / 64] >> (index % 64)) & 1u;
}

/* store_entry stores one entry's value through the flag's own conversion; a failure names
 * the file, the line and column, and the setting. */
static int store_entry(struct profile_config *cfg, const struct config_file *file,
                       const struct config__file_entry *e, const char *value, char *errbuf,
                       size_t errcap)
{
    const char *names = e->flag->names;
    size_t primary = strcspn(names, " ");
    struct config__occurrence occ = {
        .flag = e->flag, .spelled = names, .spelled_len = primary, .inline_value = value};
    char message[1024];
    int rc = config__store_value(cfg, &occ, value, message, sizeof(message));
    if (rc == -EINVAL) {
        config__fail(errbuf, errcap, "%s:%d:%d: %s: %s", file->name, e->line, e->column, e->key,
                     message);
    } else if (rc != 0) {
        config__fail(errbuf, errcap, "%s", message);
    }
    return rc;
}

int config__store_file(struct profile_config *cfg, const struct config_file *file, size_t variation,
                       const uint64_t *cli_given, char *errbuf, size_t errcap)
{
    bool whole = variation == CONFIG_FILE_WHOLE_SWEEP;
    /* A sweep whose every list the command line replaced is one point: its settings
     * (--sweep-type ...) would shape nothing. */
    bool lists_left = false;
    for (size_t i = 0; i < file->count; i++) {
        const struct config__file_entry *e = &file->entries[i];
        lists_left |= e->sweep == CONFIG__SWEEP_LIST && !flag_on_cli(e->flag, cli_given);
    }
    bool sweeps = whole && lists_left;
    int rc = 0;
    for (size_t i = 0; rc == 0 && i < file->count; i++) {
        const struct config__file_entry *e = &file->entries[i];
        bool supported = (e->flag->traits & CONFIG__T_SUPPORTED) != 0;
        if (flag_on_cli(e->flag, cli_given) || (!sweeps && e->sweep == CONFIG__SWEEP_SETTING) ||
            !supported) {
            /* The command line wins; one variation or point is no sweep; and a setting whose
             * flag ringperf lacks is refused where the file is read. */
            continue;
        }
        char value[VALUE_BYTES_MAX];
        const char *text = e->value;
        if (!whole && e->sweep == CONFIG__SWEEP_LIST) {
            nth_value(e->value, list_index(file, i, variation), value, sizeof(value));
            text = value;
        }
        rc = store_entry(cfg, file, e, text, errbuf, errcap);
    }
    return rc;
}

/* entry_args appends the flag and value of e to args, as a command line spells them. */
static void entry_args(const struct config__file_entry *e, const char *value, char **args,
                       int *argc, char *names, size_t *names_used)
{
    size_t len = strcspn(e->flag->names, " ");
    char *name = names + *names_used;
    bool is_switch = e->flag->kind == CONFIG__K_SWITCH;
    bool on = strcmp(value, "true") == 0 || strcmp(value, "True") == 0;
    int n =
        snprintf(name, 96, "%.*s%s", (int)len, e->flag->names, is_switch && !on ? "=false" : "");
    *names_used += (size_t)(n > 0 ? n : 0) + 1;
    args[(*argc)++] = name;
    if (!is_switch) {
        args[(*argc)++] = (char *)value;
    }
}

/* print_base prints the file's own settings as one `ringperf profile` command line, shell
 * quoted and secrets redacted as cli_command is; returns 0 or -ENOMEM. */
static int print_base(const struct config_file *file, FILE *out)
{
    char **args = calloc(2 * file->count + 1, sizeof(*args));
    char *names = malloc(96 * (file->count + 1));
    int argc = 0;
    size_t names_used = 0;
    int rc = args != NULL && names != NULL ? 0 : -ENOMEM;
    for (size_t i = 0; rc == 0 && i < file->count; i++) {
        if (file->entries[i].sweep == CONFIG__SWEEP_NONE) {
            entry_args(&file->entries[i], file->entries[i].value, args, &argc, names, &names_used);
        }
    }
    char *line = rc == 0 ? config__build_cli_command(argc, args) : NULL;
    if (line != NULL) {
        fprintf(out, "%s\n", line);
    }
    rc = line != NULL ? 0 : -ENOMEM;
    free(line);
    free(names);
    free(args);
    return rc;
}

/* print_sweep_flags prints the flags of the entries with role, a list's value for
 * variation: numbers and names from the sweep: section, which need no quoting. */
static void print_sweep_flags(const struct config_file *file, enum config__sweep_role role,
                              size_t variation, FILE *out)
{
    const char *sep = "";
    for (size_t i = 0; i < file->count; i++) {
        const struct config__file_entry *e = &file->entries[i];
        if (e->sweep != role) {
            continue;
        }
        char value[VALUE_BYTES_MAX];
        snprintf(value, sizeof(value), "%s", e->value);
        if (role == CONFIG__SWEEP_LIST) {
            nth_value(e->value, list_index(file, i, variation), value, sizeof(value));
        }
        fprintf(out, "%s%.*s %s", sep, (int)strcspn(e->flag->names, " "), e->flag->names, value);
        sep = " ";
    }
    fputc('\n', out);
}

int config_file_print_expansion(const struct config_file *file, FILE *out)
{
    size_t count = config_file_variation_count(file);
    if (count > CONFIG_FILE_VARIATIONS_MAX) {
        fprintf(out, "%s: the sweep has more than %d variations\n", file->name,
                CONFIG_FILE_VARIATIONS_MAX);
        return -EINVAL;
    }
    fprintf(out, "%s: %zu variation%s%s\n", file->name, count, count == 1 ? "" : "s",
            !file->has_sweep  ? " (no sweep)"
            : file->sweep_zip ? " (zip sweep)"
                              : " (grid sweep)");
    int rc = print_base(file, out);
    bool settings = false;
    for (size_t i = 0; i < file->count; i++) {
        settings = settings || file->entries[i].sweep == CONFIG__SWEEP_SETTING;
    }
    if (rc == 0 && settings) {
        fprintf(out, "sweep settings: ");
        print_sweep_flags(file, CONFIG__SWEEP_SETTING, 0, out);
    }
    for (size_t v = 0; rc == 0 && file->has_sweep && v < count; v++) {
        char label[CONFIG__YAML_PATH_BYTES * 2];
        rc = config_file_variation_label(file, v, label, sizeof(label));
        fprintf(out, "[%zu] %s: ", v + 1, rc == 0 ? label : "?");
        print_sweep_flags(file, CONFIG__SWEEP_LIST, v, out);
    }
    return rc;
}
