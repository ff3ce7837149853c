/*
 * config_store.c - converting one flag value and storing it in profile_config.
 *
 * Every conversion is strict: the whole value must parse, numbers are range
 * checked from the flag's descriptor, and the message names the flag the way
 * the user spelled it together with an example of a valid value.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/config_internal.h"

/* Compile-time guards for the table's offset-based stores. */
_Static_assert(sizeof(enum config_endpoint_type) == sizeof(int), "choice enums are int-sized");
_Static_assert(sizeof(enum config_ui_type) == sizeof(int), "choice enums are int-sized");
_Static_assert(sizeof(enum config_log_level) == sizeof(int), "choice enums are int-sized");

static void *field(struct profile_config *cfg, size_t offset)
{
    return (char *)cfg + offset;
}

int config__strlist_push(struct config_strlist *list, const char *s, size_t len)
{
    char *copy = malloc(len + 1);
    if (copy == NULL) {
        return -ENOMEM;
    }
    char **items = realloc(list->items, (list->count + 1) * sizeof(*items));
    if (items == NULL) {
        free(copy);
        return -ENOMEM;
    }
    memcpy(copy, s, len);
    copy[len] = '\0';
    items[list->count++] = copy;
    list->items = items;
    return 0;
}

/* has_control reports C0 controls or DEL; allow_space_controls permits \t\r\n. */
static bool has_control(const char *s, bool allow_space_controls)
{
    for (; *s != '\0'; s++) {
        unsigned char c = (unsigned char)*s;
        bool space = c == '\t' || c == '\r' || c == '\n';
        if ((c < 0x20 || c == 0x7f) && !(allow_space_controls && space)) {
            return true;
        }
    }
    return false;
}

/* describe_range writes e.g. "a whole number of at least 1": the lower bound,
 * or the upper bound when that is the one the value broke. */
static void describe_range(const struct config__flag *flag, bool too_high, char *buf, size_t cap)
{
    const struct config__range *r = flag->range;
    const char *noun = flag->kind == CONFIG__K_INT ? "a whole number" : "a number";
    const char *inf = (flag->traits & CONFIG__T_ALLOW_INF) != 0 ? " (or inf)" : "";
    if (r != NULL && too_high) {
        snprintf(buf, cap, "%s of at most %.15g%s", noun, r->max, inf);
    } else if (r != NULL && (r->flags & CONFIG__R_MIN_EXCL) != 0) {
        snprintf(buf, cap, "%s greater than %.15g%s", noun, r->min, inf);
    } else if (r != NULL && (r->flags & CONFIG__R_MIN_INCL) != 0) {
        snprintf(buf, cap, "%s of at least %.15g%s", noun, r->min, inf);
    } else {
        snprintf(buf, cap, "%s%s", noun, inf);
    }
}

static int fail_number(const struct config__occurrence *occ, const char *value, bool too_high,
                       char *errbuf, size_t errcap)
{
    char shown[80];
    char range[160];
    describe_range(occ->flag, too_high, range, sizeof(range));
    bool list = strchr(value, ',') != NULL && (occ->flag->traits & CONFIG__T_SWEEP) == 0;
    const char *sweep = list ? "; only --concurrency, --request-rate, --isl, --osl, "
                               "--benchmark-duration and --num-users take a comma list (a sweep)"
                             : "";
    return config__fail(errbuf, errcap, "%.*s: '%s' must be %s (e.g. %.*s %s)%s",
                        (int)occ->spelled_len, occ->spelled,
                        config__show(value, shown, sizeof(shown)), range, (int)occ->spelled_len,
                        occ->spelled, occ->flag->example != NULL ? occ->flag->example : "1", sweep);
}

static bool above_max(const struct config__range *r, double v)
{
    return r != NULL && (r->flags & CONFIG__R_MAX_INCL) != 0 && v > r->max;
}

static bool in_range(const struct config__range *r, double v)
{
    if (r == NULL) {
        return true;
    }
    if ((r->flags & CONFIG__R_MIN_INCL) != 0 && !(v >= r->min)) {
        return false;
    }
    if ((r->flags & CONFIG__R_MIN_EXCL) != 0 && !(v > r->min)) {
        return false;
    }
    return !above_max(r, v);
}

/* parse_int64 accepts an optional sign and decimal digits, nothing else. */
static bool parse_int64(const char *s, int64_t *out)
{
    const char *p = s + (s[0] == '+' || s[0] == '-');
    if (*p == '\0') {
        return false;
    }
    for (const char *q = p; *q != '\0'; q++) {
        if (*q < '0' || *q > '9') {
            return false;
        }
    }
    errno = 0;
    char *end = NULL;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || *end != '\0') {
        return false;
    }
    *out = v;
    return true;
}

/* parse_double accepts decimal notation only (no hex, no nan); "inf" only if allowed. */
static bool parse_double(const char *s, bool allow_inf, double *out)
{
    const char *p = s + (s[0] == '+');
    if (strcasecmp(p, "inf") == 0 || strcasecmp(p, "infinity") == 0) {
        *out = INFINITY;
        return allow_inf;
    }
    if (*s == '\0' || strspn(s, "0123456789.eE+-") != strlen(s)) {
        return false;
    }
    errno = 0;
    char *end = NULL;
    double v = strtod(s, &end);
    if (errno != 0 || *end != '\0' || !isfinite(v)) {
        return false;
    }
    *out = v;
    return true;
}

static int store_number(struct profile_config *cfg, const struct config__occurrence *occ,
                        const char *value, char *errbuf, size_t errcap)
{
    const struct config__flag *flag = occ->flag;
    if (flag->kind == CONFIG__K_INT) {
        int64_t v = 0;
        if (!parse_int64(value, &v) || !in_range(flag->range, (double)v)) {
            return fail_number(occ, value, above_max(flag->range, (double)v), errbuf, errcap);
        }
        memcpy(field(cfg, flag->offset), &v, sizeof(v));
        return 0;
    }
    double v = 0;
    bool allow_inf = (flag->traits & CONFIG__T_ALLOW_INF) != 0;
    if (!parse_double(value, allow_inf, &v) || (isfinite(v) && !in_range(flag->range, v))) {
        return fail_number(occ, value, isfinite(v) && above_max(flag->range, v), errbuf, errcap);
    }
    memcpy(field(cfg, flag->offset), &v, sizeof(v));
    return 0;
}

/* choice_equal compares case-insensitively, treating '-' and '_' alike. */
static bool choice_equal(const char *a, const char *b)
{
    for (; *a != '\0' && *b != '\0'; a++, b++) {
        char x = *a == '-' ? '_' : *a;
        char y = *b == '-' ? '_' : *b;
        if (x >= 'A' && x <= 'Z') {
            x = (char)(x - 'A' + 'a');
        }
        if (y >= 'A' && y <= 'Z') {
            y = (char)(y - 'A' + 'a');
        }
        if (x != y) {
            return false;
        }
    }
    return *a == *b;
}

static int fail_choice(const struct config__occurrence *occ, const char *value, char *errbuf,
                       size_t errcap)
{
    char shown[80];
    char valid[512] = "";
    size_t used = 0;
    const char *best = NULL;
    size_t best_distance = 3;
    for (const struct config__choice *c = occ->flag->choices; c->name != NULL; c++) {
        size_t d =
            config__edit_distance(value, strlen(value), c->name, strlen(c->name), best_distance);
        if (d < best_distance) {
            best = c->name;
            best_distance = d;
        }
        if (!c->hidden && used < sizeof(valid)) {
            int n =
                snprintf(valid + used, sizeof(valid) - used, "%s%s", used > 0 ? ", " : "", c->name);
            used += n > 0 ? (size_t)n : 0;
        }
    }
    char hint[96] = "";
    if (best != NULL) {
        snprintf(hint, sizeof(hint), " (did you mean %s?)", best);
    }
    return config__fail(errbuf, errcap, "%.*s: unknown value '%s'%s; valid values: %s",
                        (int)occ->spelled_len, occ->spelled,
                        config__show(value, shown, sizeof(shown)), hint, valid);
}

static int store_choice(struct profile_config *cfg, const struct config__occurrence *occ,
                        const char *value, char *errbuf, size_t errcap)
{
    for (const struct config__choice *c = occ->flag->choices; c->name != NULL; c++) {
        if (choice_equal(value, c->name)) {
            if (occ->flag->offset != CONFIG__NO_FIELD) {
                memcpy(field(cfg, occ->flag->offset), &c->value, sizeof(c->value));
            }
            return 0;
        }
    }
    return fail_choice(occ, value, errbuf, errcap);
}

static int store_switch(struct profile_config *cfg, const struct config__occurrence *occ,
                        const char *value, char *errbuf, size_t errcap)
{
    static const char *const yes[] = {"true", "1", "yes", "on"};
    static const char *const no[] = {"false", "0", "no", "off"};
    bool on = value == NULL;
    bool known = on;
    for (size_t i = 0; value != NULL && i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcasecmp(value, yes[i]) == 0 || strcasecmp(value, no[i]) == 0) {
            on = strcasecmp(value, yes[i]) == 0;
            known = true;
        }
    }
    if (!known) {
        char shown[80];
        return config__fail(
            errbuf, errcap, "%.*s: '%s' is not a switch value; give %.*s alone (or =true/=false)",
            (int)occ->spelled_len, occ->spelled, config__show(value, shown, sizeof(shown)),
            (int)occ->spelled_len, occ->spelled);
    }
    memcpy(field(cfg, occ->flag->offset), &on, sizeof(on));
    return 0;
}

static int store_string(struct profile_config *cfg, const struct config__occurrence *occ,
                        const char *value, char *errbuf, size_t errcap)
{
    const struct config__flag *flag = occ->flag;
    if (value[0] == '\0' && (flag->traits & CONFIG__T_ALLOW_EMPTY) == 0) {
        return config__fail(errbuf, errcap, "%.*s: the value is empty (e.g. %.*s %s)",
                            (int)occ->spelled_len, occ->spelled, (int)occ->spelled_len,
                            occ->spelled, flag->example != NULL ? flag->example : "VALUE");
    }
    if (has_control(value, false)) {
        return config__fail(errbuf, errcap, "%.*s: the value contains a control character",
                            (int)occ->spelled_len, occ->spelled);
    }
    char *copy = strdup(value);
    if (copy == NULL) {
        return -ENOMEM;
    }
    char **slot = field(cfg, flag->offset);
    free(*slot); /* a repeated flag: the last value wins */
    *slot = copy;
    return 0;
}

/* Declared here, defined in config_header.c. */
int config__store_header(struct profile_config *cfg, const struct config__occurrence *occ,
                         const char *value, char *errbuf, size_t errcap);
int config__check_extra_input(const struct config__occurrence *occ, const char *value, char *errbuf,
                              size_t errcap);

static int push_checked(struct config_strlist *list, const struct config__occurrence *occ,
                        const char *s, size_t len, char *errbuf, size_t errcap)
{
    if (list->count >= CONFIG_LIST_MAX) {
        return config__fail(errbuf, errcap, "%.*s: more than %d values", (int)occ->spelled_len,
                            occ->spelled, CONFIG_LIST_MAX);
    }
    return config__strlist_push(list, s, len);
}

static int store_list(struct profile_config *cfg, const struct config__occurrence *occ,
                      const char *value, char *errbuf, size_t errcap)
{
    const struct config__flag *flag = occ->flag;
    if ((flag->traits & CONFIG__T_HEADER) != 0) {
        return config__store_header(cfg, occ, value, errbuf, errcap);
    }
    struct config_strlist *list = field(cfg, flag->offset);
    if ((flag->traits & CONFIG__T_EXTRA) != 0) {
        int rc = config__check_extra_input(occ, value, errbuf, errcap);
        return rc != 0 ? rc : push_checked(list, occ, value, strlen(value), errbuf, errcap);
    }
    if (has_control(value, false)) {
        return config__fail(errbuf, errcap, "%.*s: the value contains a control character",
                            (int)occ->spelled_len, occ->spelled);
    }
    const char *sep = (flag->traits & CONFIG__T_COMMA_SPLIT) != 0 ? "," : "";
    const char *p = value;
    for (;;) {
        size_t len = *sep != '\0' ? strcspn(p, sep) : strlen(p);
        const char *start = p;
        size_t trimmed = len;
        while (trimmed > 0 && (*start == ' ' || *start == '\t')) {
            start++;
            trimmed--;
        }
        while (trimmed > 0 && (start[trimmed - 1] == ' ' || start[trimmed - 1] == '\t')) {
            trimmed--;
        }
        if (trimmed == 0) {
            return config__fail(errbuf, errcap, "%.*s: empty value in list (e.g. %.*s %s)",
                                (int)occ->spelled_len, occ->spelled, (int)occ->spelled_len,
                                occ->spelled, flag->example != NULL ? flag->example : "VALUE");
        }
        int rc = push_checked(list, occ, start, trimmed, errbuf, errcap);
        if (rc != 0 || p[len] == '\0') {
            return rc;
        }
        p += len + 1;
    }
}

int config__store_value(struct profile_config *cfg, const struct config__occurrence *occ,
                        const char *value, char *errbuf, size_t errcap)
{
    const struct config__flag *flag = occ->flag;
    int rc = 0;
    switch (flag->kind) {
    case CONFIG__K_SWITCH:
        rc = store_switch(cfg, occ, value, errbuf, errcap);
        break;
    case CONFIG__K_INT:
    case CONFIG__K_DOUBLE:
        if ((flag->traits & CONFIG__T_SWEEP) != 0 && strchr(value, ',') != NULL) {
            rc = config__store_sweep(cfg, occ, value, errbuf, errcap);
            break;
        }
        rc = store_number(cfg, occ, value, errbuf, errcap);
        if (rc == 0 && (flag->traits & CONFIG__T_SWEEP) != 0) {
            config__sweep_forget(cfg, flag->offset);
        }
        break;
    case CONFIG__K_STRING:
        rc = store_string(cfg, occ, value, errbuf, errcap);
        break;
    case CONFIG__K_CHOICE:
        rc = store_choice(cfg, occ, value, errbuf, errcap);
        break;
    case CONFIG__K_LIST:
        rc = store_list(cfg, occ, value, errbuf, errcap);
        break;
    default:
        rc = config__fail(errbuf, errcap, "internal error: bad flag kind");
        break;
    }
    if (rc == -ENOMEM) {
        config__fail(errbuf, errcap, "out of memory while parsing %.*s", (int)occ->spelled_len,
                     occ->spelled);
    }
    if (rc == 0) {
        size_t count = 0;
        size_t index = (size_t)(flag - config__flags(&count));
        cfg->flags_given[index / 64] |= UINT64_C(1) << (index % 64);
    }
    if (rc == 0 && flag->given_offset != CONFIG__NO_FIELD) {
        bool given = true;
        memcpy(field(cfg, flag->given_offset), &given, sizeof(given));
    }
    return rc;
}
