/*
 * config_args.c - splitting argv into flag occurrences, flag lookup, and the
 * small message helpers every config file uses.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config/config_internal.h"

/* Spellings longer than this are never close to a real flag. */
#define CONFIG__EDIT_MAX 64

int config__fail(char *errbuf, size_t errcap, const char *fmt, ...)
{
    if (errbuf != NULL && errcap > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(errbuf, errcap, fmt, ap);
        va_end(ap);
    }
    return -EINVAL;
}

const char *config__show(const char *value, char *buf, size_t cap)
{
    const size_t shown_max = 60;
    size_t n = 0;
    size_t i = 0;
    if (cap < 4) {
        return "";
    }
    for (; value[i] != '\0' && i < shown_max && n + 4 < cap; i++) {
        unsigned char c = (unsigned char)value[i];
        buf[n++] = (c < 0x20 || c == 0x7f) ? '?' : (char)c;
    }
    if (value[i] != '\0') {
        memcpy(buf + n, "...", 3);
        n += 3;
    }
    buf[n] = '\0';
    return buf;
}

size_t config__edit_distance(const char *a, size_t alen, const char *b, size_t blen, size_t limit)
{
    size_t row[CONFIG__EDIT_MAX + 1];
    if (alen > CONFIG__EDIT_MAX || blen > CONFIG__EDIT_MAX) {
        return limit + 1;
    }
    for (size_t j = 0; j <= blen; j++) {
        row[j] = j;
    }
    for (size_t i = 1; i <= alen; i++) {
        size_t diag = row[0];
        size_t row_min = row[0] = i;
        for (size_t j = 1; j <= blen; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] == b[j - 1] ? 0 : 1);
            if (up + 1 < best) {
                best = up + 1;
            }
            if (row[j - 1] + 1 < best) {
                best = row[j - 1] + 1;
            }
            row[j] = best;
            row_min = best < row_min ? best : row_min;
            diag = up;
        }
        if (row_min > limit) {
            return limit + 1; /* every later row is at least this far */
        }
    }
    return row[blen];
}

/* next_spelling walks the space-separated names of a flag. */
static bool next_spelling(const char **cursor, const char **out_name, size_t *out_len)
{
    const char *p = *cursor;
    while (*p == ' ') {
        p++;
    }
    if (*p == '\0') {
        return false;
    }
    const char *end = strchr(p, ' ');
    if (end == NULL) {
        end = p + strlen(p);
    }
    *out_name = p;
    *out_len = (size_t)(end - p);
    *cursor = end;
    return true;
}

const struct config__flag *config__find_flag(const char *name, size_t len)
{
    size_t count = 0;
    const struct config__flag *flags = config__flags(&count);
    for (size_t i = 0; i < count; i++) {
        const char *cursor = flags[i].names;
        const char *spelling = NULL;
        size_t spelling_len = 0;
        while (next_spelling(&cursor, &spelling, &spelling_len)) {
            if (spelling_len == len && memcmp(spelling, name, len) == 0) {
                return &flags[i];
            }
        }
    }
    return NULL;
}

bool config_flag_given(const struct profile_config *cfg, const char *flag)
{
    size_t count = 0;
    const struct config__flag *base = config__flags(&count);
    const struct config__flag *found = config__find_flag(flag, strlen(flag));
    if (found == NULL) {
        return false;
    }
    size_t index = (size_t)(found - base);
    return (cfg->flags_given[index / 64] >> (index % 64)) & 1u;
}

const char *config_choice_name(const char *flag, int value)
{
    const struct config__flag *found = config__find_flag(flag, strlen(flag));
    if (found == NULL || found->kind != CONFIG__K_CHOICE || found->choices == NULL) {
        return NULL;
    }
    for (const struct config__choice *c = found->choices; c->name != NULL; c++) {
        if (c->value == value && !c->hidden) {
            return c->name;
        }
    }
    return NULL;
}

const char *config__suggest_flag(const char *name, size_t len, size_t *out_len)
{
    size_t count = 0;
    const struct config__flag *flags = config__flags(&count);
    const char *best = NULL;
    size_t best_distance = len / 4 > 2 ? len / 4 : 2;
    for (size_t i = 0; i < count; i++) {
        const char *cursor = flags[i].names;
        const char *spelling = NULL;
        size_t spelling_len = 0;
        while (next_spelling(&cursor, &spelling, &spelling_len)) {
            /* The length difference bounds the distance from below. */
            size_t gap = len > spelling_len ? len - spelling_len : spelling_len - len;
            if (gap > best_distance) {
                continue;
            }
            size_t d = config__edit_distance(name, len, spelling, spelling_len, best_distance);
            if (d <= best_distance && (best == NULL || d < best_distance)) {
                best = spelling;
                *out_len = spelling_len;
                best_distance = d;
            }
        }
    }
    return best;
}

/* looks_like_flag: "-x..." or "--..."; "-1" and "-" are values. */
static bool looks_like_flag(const char *tok)
{
    if (tok[0] != '-' || tok[1] == '\0') {
        return false;
    }
    unsigned char c = (unsigned char)tok[1];
    return c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int fail_stray(char **argv, int pos, char *errbuf, size_t errcap)
{
    char shown[80];
    const char *tok = argv[pos];
    if (strcmp(tok, "--") == 0) {
        return config__fail(errbuf, errcap,
                            "unexpected argument '--': ringperf profile takes only flags");
    }
    if (pos > 0 && looks_like_flag(argv[pos - 1])) {
        const char *prev = argv[pos - 1];
        const char *eq = strchr(prev, '=');
        size_t len = eq != NULL ? (size_t)(eq - prev) : strlen(prev);
        const struct config__flag *flag = config__find_flag(prev, len);
        if (flag != NULL && flag->kind == CONFIG__K_SWITCH && eq == NULL) {
            return config__fail(errbuf, errcap,
                                "unexpected argument '%s': %.*s is a switch and takes no value",
                                config__show(tok, shown, sizeof(shown)), (int)len, prev);
        }
    }
    return config__fail(errbuf, errcap,
                        "unexpected argument '%s': ringperf profile takes only flags, and each "
                        "value follows its flag (e.g. --model NAME)",
                        config__show(tok, shown, sizeof(shown)));
}

static int fail_unknown(const char *tok, size_t len, char *errbuf, size_t errcap)
{
    char shown[80];
    char name[CONFIG__EDIT_MAX + 8];
    size_t suggestion_len = 0;
    const char *suggestion = config__suggest_flag(tok, len, &suggestion_len);
    size_t copy = len < sizeof(name) - 1 ? len : sizeof(name) - 1;
    memcpy(name, tok, copy);
    name[copy] = '\0';
    config__show(name, shown, sizeof(shown));
    if (suggestion != NULL) {
        return config__fail(errbuf, errcap, "unknown flag %s; did you mean %.*s?", shown,
                            (int)suggestion_len, suggestion);
    }
    return config__fail(errbuf, errcap,
                        "unknown flag %s; run 'ringperf profile --help' to list the flags", shown);
}

static int fail_missing(const struct config__occurrence *occ, char *errbuf, size_t errcap)
{
    const char *example = occ->flag->example;
    if (example != NULL) {
        return config__fail(errbuf, errcap, "%.*s: missing value (e.g. %.*s %s)",
                            (int)occ->spelled_len, occ->spelled, (int)occ->spelled_len,
                            occ->spelled, example);
    }
    return config__fail(errbuf, errcap, "%.*s: missing value", (int)occ->spelled_len, occ->spelled);
}

/* take_values counts the values that follow the flag at argv[*pos - 1]. */
static int take_values(int argc, char **argv, int *pos, struct config__occurrence *occ,
                       char *errbuf, size_t errcap)
{
    unsigned kind = occ->flag->kind;
    occ->value_first = *pos;
    occ->value_count = 0;
    if (kind == CONFIG__K_SWITCH || (kind != CONFIG__K_LIST && occ->inline_value != NULL)) {
        return 1;
    }
    /* A list consumes every value up to the next flag, as AIPerf's
     * consume_multiple parameters do; other kinds take exactly one. */
    int limit = kind == CONFIG__K_LIST ? argc : *pos + 1;
    if (limit > argc) {
        limit = argc;
    }
    while (*pos < limit && !looks_like_flag(argv[*pos])) {
        (*pos)++;
        occ->value_count++;
    }
    if (occ->value_count == 0 && occ->inline_value == NULL) {
        return fail_missing(occ, errbuf, errcap);
    }
    return 1;
}

int config__next_occurrence(int argc, char **argv, int *pos, struct config__occurrence *occ,
                            char *errbuf, size_t errcap)
{
    if (*pos >= argc) {
        return 0;
    }
    const char *tok = argv[*pos];
    if (!looks_like_flag(tok) || strcmp(tok, "--") == 0) {
        return fail_stray(argv, *pos, errbuf, errcap);
    }
    const char *eq = strchr(tok, '=');
    size_t len = eq != NULL ? (size_t)(eq - tok) : strlen(tok);
    const struct config__flag *flag = config__find_flag(tok, len);
    if (flag == NULL) {
        return fail_unknown(tok, len, errbuf, errcap);
    }
    if ((flag->traits & CONFIG__T_SUPPORTED) == 0) {
        return config__fail(errbuf, errcap,
                            "%.*s: this AIPerf flag is recognised but not supported by ringperf "
                            "yet",
                            (int)len, tok);
    }
    occ->flag = flag;
    occ->spelled = tok;
    occ->spelled_len = len;
    occ->inline_value = eq != NULL ? eq + 1 : NULL;
    (*pos)++;
    return take_values(argc, argv, pos, occ, errbuf, errcap);
}
