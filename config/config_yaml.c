/*
 * config_yaml.c - reading an AIPerf config file (config v2 YAML) with libfyaml: the
 * envelope (schema_version, benchmark, sweep, multi_run, random_seed), scalar text with
 * ${VAR} substitution, and the messages that point at a line and column.
 *
 * The file is not a second configuration path: every setting becomes the flag it stands
 * for, with the value that flag would take (config__file_entry), and config_parse_profile
 * stores it through the same conversion, range checks and cross-flag checks as the command
 * line.
 */
#include <errno.h>
#include <fcntl.h>
#include <libfyaml.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config/config_internal.h"

/* CONFIG_FILE_BYTES_MAX bounds the file read: configs are a few kilobytes. */
#define CONFIG_FILE_BYTES_MAX (1u << 20)
/* CONFIG_YAML_PROBE_SECONDS bounds libfyaml's first reading of a file (probe_in_child);
 * a config file takes milliseconds. */
#define CONFIG_YAML_PROBE_SECONDS 10
/* YAML_TEXT_MAX bounds one scalar after substitution (a system prompt, a header value). */
#define YAML_TEXT_MAX CONFIG_ARG_BYTES_MAX

/* node_mark finds a position for node: its own for a scalar, else its first child's. */
static void node_mark(struct fy_node *node, int *out_line, int *out_column)
{
    *out_line = 0;
    *out_column = 0;
    for (int depth = 0; node != NULL && depth < 64; depth++) {
        if (fy_node_is_scalar(node) || fy_node_is_alias(node)) {
            struct fy_token *token = fy_node_get_scalar_token(node);
            const struct fy_mark *mark = token != NULL ? fy_token_start_mark(token) : NULL;
            if (mark != NULL) {
                *out_line = mark->line + 1;
                *out_column = mark->column + 1;
            }
            return;
        }
        void *iter = NULL;
        if (fy_node_is_mapping(node)) {
            struct fy_node_pair *pair = fy_node_mapping_iterate(node, &iter);
            node = pair != NULL ? fy_node_pair_key(pair) : NULL;
        } else {
            node = fy_node_sequence_iterate(node, &iter);
        }
    }
}

int config__yaml_fail(struct config__yaml *y, struct fy_node *node, const char *fmt, ...)
{
    if (y->errbuf == NULL || y->errcap == 0) {
        return -EINVAL;
    }
    int line = 0;
    int column = 0;
    node_mark(node, &line, &column);
    int n = line > 0 ? snprintf(y->errbuf, y->errcap, "%s:%d:%d: ", y->file->name, line, column)
                     : snprintf(y->errbuf, y->errcap, "%s: ", y->file->name);
    if (n >= 0 && (size_t)n < y->errcap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(y->errbuf + n, y->errcap - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -EINVAL;
}

void config__yaml_path(char *out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, CONFIG__YAML_PATH_BYTES, fmt, ap);
    va_end(ap);
}

bool config__yaml_key_is(const char *key, size_t len, const char *snake)
{
    size_t i = 0;
    for (const char *s = snake; *s != '\0'; s++, i++) {
        if (i >= len) {
            return false;
        }
        char c = key[i];
        if (*s == '_' && c >= 'A' && c <= 'Z' && s[1] == (char)(c - 'A' + 'a')) {
            s++; /* camelCase: "numRuns" is num_runs */
        } else if (c != *s) {
            return false;
        }
    }
    return i == len;
}

int config__yaml_unknown(struct config__yaml *y, struct fy_node *key_node, const char *path,
                         const char *const *known)
{
    size_t len = 0;
    const char *key = fy_node_get_scalar(key_node, &len);
    char shown[80];
    char name[72];
    size_t copy = key == NULL ? 0 : len < sizeof(name) - 1 ? len : sizeof(name) - 1;
    memcpy(name, key == NULL ? "" : key, copy);
    name[copy] = '\0';
    const char *best = NULL;
    size_t best_distance = len / 3 > 2 ? len / 3 : 2;
    for (size_t i = 0; known[i] != NULL; i++) {
        size_t d = config__edit_distance(name, copy, known[i], strlen(known[i]), best_distance);
        if (d <= best_distance && (best == NULL || d < best_distance)) {
            best = known[i];
            best_distance = d;
        }
    }
    config__show(name, shown, sizeof(shown));
    if (best != NULL) {
        return config__yaml_fail(y, key_node, "unknown key '%s' in %s (did you mean '%s'?)", shown,
                                 path, best);
    }
    return config__yaml_fail(y, key_node, "unknown key '%s' in %s", shown, path);
}

/* substitute copies text into buf with ${NAME} and ${NAME:default} replaced from envp, as
 * AIPerf's loader does before it reads the values. */
static int substitute(struct config__yaml *y, struct fy_node *node, const char *key,
                      const char *text, size_t len, char *buf, size_t cap)
{
    size_t out = 0;
    for (size_t i = 0; i < len;) {
        const char *piece = text + i;
        size_t piece_len = 1;
        if (text[i] == '{' && i + 1 < len && text[i + 1] == '{') {
            return config__yaml_fail(y, node,
                                     "%s: {{ }} expressions (AIPerf's Jinja variables) are not "
                                     "supported by ringperf; write the value",
                                     key);
        }
        if (text[i] == '$' && i + 1 < len && text[i + 1] == '{') {
            const char *close = memchr(text + i, '}', len - i);
            if (close == NULL) {
                return config__yaml_fail(y, node, "%s: '${' without a closing '}'", key);
            }
            const char *name = text + i + 2;
            size_t name_len = strcspn(name, ":}");
            bool has_default = name[name_len] == ':';
            if (name_len == 0 || name_len > 128 ||
                strspn(name, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklm"
                             "nopqrstuvwxyz0123456789_") != name_len) {
                return config__yaml_fail(y, node, "%s: '${%.*s}' is not a variable name", key,
                                         (int)(name_len > 64 ? 64 : name_len), name);
            }
            piece = NULL;
            for (size_t e = 0; y->envp != NULL && y->envp[e] != NULL; e++) {
                if (strncmp(y->envp[e], name, name_len) == 0 && y->envp[e][name_len] == '=') {
                    piece = y->envp[e] + name_len + 1;
                    piece_len = strlen(piece);
                }
            }
            if (piece == NULL && !has_default) {
                return config__yaml_fail(y, node,
                                         "%s: the environment variable %.*s is not set; set it "
                                         "or give a default (${%.*s:value})",
                                         key, (int)name_len, name, (int)name_len, name);
            }
            if (piece == NULL) {
                piece = name + name_len + 1;
                piece_len = (size_t)(close - piece);
            }
            i = (size_t)(close - text) + 1;
        } else {
            i++;
        }
        if (out + piece_len >= cap) {
            return config__yaml_fail(y, node, "%s: the value is longer than %zu bytes", key,
                                     cap - 1);
        }
        memcpy(buf + out, piece, piece_len);
        out += piece_len;
    }
    buf[out] = '\0';
    return 0;
}

static bool is_null(struct fy_node *node, const char *text, size_t len)
{
    if (fy_node_get_style(node) != FYNS_PLAIN) {
        return false;
    }
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL"};
    for (size_t i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++) {
        if (strlen(nulls[i]) == len && memcmp(nulls[i], text, len) == 0) {
            return true;
        }
    }
    return false;
}

int config__yaml_text(struct config__yaml *y, struct fy_node *node, const char *key, char *buf,
                      size_t cap, bool *out_null)
{
    *out_null = false;
    if (node == NULL) {
        *out_null = true;
        return 0;
    }
    if (fy_node_is_alias(node)) {
        return config__yaml_fail(y, node, "%s: aliases (*name) are not supported; write the value",
                                 key);
    }
    if (!fy_node_is_scalar(node)) {
        return config__yaml_fail(y, node, "%s: expected a single value, not a %s", key,
                                 fy_node_is_mapping(node) ? "mapping" : "list");
    }
    size_t len = 0;
    const char *text = fy_node_get_scalar(node, &len);
    if (text == NULL) {
        return config__yaml_fail(y, node, "%s: unreadable value", key);
    }
    if (is_null(node, text, len)) {
        *out_null = true;
        return 0;
    }
    if (memchr(text, '\0', len) != NULL) {
        return config__yaml_fail(y, node, "%s: the value contains a NUL byte", key);
    }
    return substitute(y, node, key, text, len, buf, cap);
}

int config__yaml_bool(struct config__yaml *y, struct fy_node *node, const char *key, bool *out)
{
    static const char *const yes[] = {"true", "True", "TRUE"};
    static const char *const no[] = {"false", "False", "FALSE"};
    char text[16];
    bool null = false;
    int rc = config__yaml_text(y, node, key, text, sizeof(text), &null);
    if (rc != 0 || null) {
        return rc != 0 ? rc : 1;
    }
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        if (strcmp(text, yes[i]) == 0 || strcmp(text, no[i]) == 0) {
            *out = strcmp(text, yes[i]) == 0;
            return 0;
        }
    }
    return config__yaml_fail(y, node, "%s: expected true or false", key);
}

int config__yaml_set(struct config__yaml *y, const char *flag, struct fy_node *node,
                     const char *key)
{
    char *text = malloc(YAML_TEXT_MAX + 1);
    if (text == NULL) {
        return -ENOMEM;
    }
    bool null = false;
    int rc = config__yaml_text(y, node, key, text, YAML_TEXT_MAX + 1, &null);
    const struct config__flag *found = config__find_flag(flag, strlen(flag));
    if (rc == 0 && !null && found != NULL && (found->traits & CONFIG__T_SUPPORTED) == 0) {
        /* input_config writes such switches as false (auto_plot...): nothing to do. */
        bool off = found->kind == CONFIG__K_SWITCH &&
                   (strcmp(text, "false") == 0 || strcmp(text, "False") == 0 ||
                    strcmp(text, "FALSE") == 0);
        if (!off) {
            rc = config__yaml_fail(y, node,
                                   "%s: ringperf does not support this setting yet (AIPerf's "
                                   "%s)",
                                   key, flag);
        }
        null = true;
    }
    if (rc == 0 && !null) {
        rc = config__yaml_add(y, flag, text, key, node);
    }
    free(text);
    return rc;
}

int config__yaml_add(struct config__yaml *y, const char *flag, const char *value, const char *key,
                     struct fy_node *node)
{
    return config__yaml_add_as(y, CONFIG__SWEEP_NONE, flag, value, key, node);
}

int config__yaml_add_as(struct config__yaml *y, enum config__sweep_role role, const char *flag,
                        const char *value, const char *key, struct fy_node *node)
{
    int line = 0;
    int column = 0;
    node_mark(node, &line, &column);
    int rc = config__file_add(y->file, flag, value, key, line, column, role);
    if (rc == -EINVAL) {
        rc = config__yaml_fail(y, node, "%s: more settings than ringperf reads from a file", key);
    } else if (rc == -ENOENT) {
        rc = config__yaml_fail(y, node, "%s: internal error: no flag %s", key, flag);
    }
    return rc;
}

static int envelope_pair(struct config__yaml *y, struct fy_node_pair *pair,
                         struct fy_node **benchmark, struct fy_node **sweep)
{
    static const char *const known[] = {"schema_version", "benchmark",      "sweep",
                                        "multi_run",      "random_seed",    "variables",
                                        "plot",           "no_sweep_table", NULL};
    static const char *const multi_run[][2] = {
        {"num_runs", "--num-profile-runs"},
        {"cooldown_seconds", "--profile-run-cooldown-seconds"},
        {"confidence_level", "--confidence-level"},
        {"set_consistent_seed", "--set-consistent-seed"},
        {"disable_warmup_after_first", "--profile-run-disable-warmup-after-first"},
    };
    struct fy_node *key_node = fy_node_pair_key(pair);
    struct fy_node *value = fy_node_pair_value(pair);
    size_t len = 0;
    const char *key = fy_node_is_scalar(key_node) ? fy_node_get_scalar(key_node, &len) : NULL;
    if (key == NULL) {
        return config__yaml_fail(y, key_node, "a key must be a plain name");
    }
    if (config__yaml_key_is(key, len, "schema_version")) {
        char text[16];
        bool null = false;
        int rc = config__yaml_text(y, value, "schema_version", text, sizeof(text), &null);
        if (rc == 0 && !null && strcmp(text, "2.0") != 0 && strcmp(text, "2") != 0) {
            rc = config__yaml_fail(y, value,
                                   "schema_version: '%s' is not supported; ringperf reads AIPerf "
                                   "config schema \"2.0\"",
                                   text);
        }
        return rc;
    }
    if (config__yaml_key_is(key, len, "benchmark")) {
        *benchmark = value;
        return 0;
    }
    if (config__yaml_key_is(key, len, "sweep")) {
        *sweep = value;
        return 0;
    }
    if (config__yaml_key_is(key, len, "random_seed")) {
        return config__yaml_set(y, "--random-seed", value, "random_seed");
    }
    if (config__yaml_key_is(key, len, "multi_run")) {
        if (!fy_node_is_mapping(value)) {
            return config__yaml_fail(y, key_node, "multi_run: expected a mapping");
        }
        void *iter = NULL;
        struct fy_node_pair *p;
        while ((p = fy_node_mapping_iterate(value, &iter)) != NULL) {
            size_t klen = 0;
            const char *k = fy_node_get_scalar(fy_node_pair_key(p), &klen);
            size_t i = 0;
            while (i < 5 && (k == NULL || !config__yaml_key_is(k, klen, multi_run[i][0]))) {
                i++;
            }
            if (i == 5) {
                const char *names[] = {multi_run[0][0], multi_run[1][0], multi_run[2][0],
                                       multi_run[3][0], multi_run[4][0], NULL};
                return config__yaml_unknown(y, fy_node_pair_key(p), "multi_run", names);
            }
            char path[64];
            snprintf(path, sizeof(path), "multi_run.%s", multi_run[i][0]);
            int rc = config__yaml_set(y, multi_run[i][1], fy_node_pair_value(p), path);
            if (rc != 0) {
                return rc;
            }
        }
        return 0;
    }
    for (size_t i = 0; known[i] != NULL; i++) {
        if (config__yaml_key_is(key, len, known[i])) {
            return config__yaml_fail(y, key_node,
                                     "%s: AIPerf's %s is not supported by ringperf yet", known[i],
                                     known[i]);
        }
    }
    return config__yaml_unknown(y, key_node, "the file's top level", known);
}

/* translate walks the document's envelope: the benchmark first, so that the sweep can
 * resolve the profiling phase's name. */
static int translate(struct config__yaml *y, struct fy_document *doc)
{
    struct fy_node *root = fy_document_root(doc);
    if (root == NULL || !fy_node_is_mapping(root)) {
        return config__yaml_fail(y, root,
                                 "expected a mapping with a benchmark: section (AIPerf config "
                                 "v2)");
    }
    struct fy_node *benchmark = NULL;
    struct fy_node *sweep = NULL;
    void *iter = NULL;
    struct fy_node_pair *pair;
    while ((pair = fy_node_mapping_iterate(root, &iter)) != NULL) {
        int rc = envelope_pair(y, pair, &benchmark, &sweep);
        if (rc != 0) {
            return rc;
        }
    }
    if (benchmark == NULL || !fy_node_is_mapping(benchmark)) {
        return config__yaml_fail(y, benchmark != NULL ? benchmark : root,
                                 "benchmark: expected a mapping with model, endpoint, dataset and "
                                 "phases");
    }
    int rc = config__yaml_benchmark(y, benchmark);
    if (rc == 0 && sweep != NULL) {
        rc = config__yaml_sweep(y, sweep);
    }
    return rc;
}

/* utf8_length is the length of the well-formed UTF-8 sequence at s (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF), or 0. */
static size_t utf8_length(const unsigned char *s, size_t avail)
{
    unsigned char c = s[0];
    size_t n = c < 0x80             ? 1
               : (c & 0xe0) == 0xc0 ? 2
               : (c & 0xf0) == 0xe0 ? 3
               : (c & 0xf8) == 0xf0 ? 4
                                    : 0;
    if (n == 0 || n > avail || c == 0xc0 || c == 0xc1 || c > 0xf4) {
        return 0;
    }
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80) {
            return 0;
        }
    }
    bool overlong = (c == 0xe0 && s[1] < 0xa0) || (c == 0xf0 && s[1] < 0x90);
    bool surrogate_or_high = (c == 0xed && s[1] >= 0xa0) || (c == 0xf4 && s[1] >= 0x90);
    return overlong || surrogate_or_high ? 0 : n;
}

/* check_text refuses what YAML does not allow and libfyaml 0.7.12 does not always survive (it
 * loops on a directive holding bytes that are not UTF-8): bytes that are not UTF-8, NUL and
 * the C0 controls other than tab and line ends. */
static int check_text(struct config__yaml *y, const char *text, size_t len)
{
    const unsigned char *s = (const unsigned char *)text;
    int line = 1;
    int column = 1;
    for (size_t i = 0; i < len;) {
        size_t n = utf8_length(s + i, len - i);
        bool control =
            n == 1 && (s[i] < 0x20 || s[i] == 0x7f) && s[i] != '\t' && s[i] != '\n' && s[i] != '\r';
        if (n == 0 || control) {
            return config__fail(y->errbuf, y->errcap,
                                "%s:%d:%d: byte 0x%02x is not %s; save the file as UTF-8 YAML",
                                y->file->name, line, column, s[i],
                                n == 0 ? "UTF-8 text" : "allowed in YAML");
        }
        line += s[i] == '\n';
        column = s[i] == '\n' ? 1 : column + 1;
        i += n;
    }
    return 0;
}

/* parse_failure formats libfyaml's first collected error: its positions are 1-based. */
static int parse_failure(struct config__yaml *y, struct fy_diag *diag)
{
    void *iter = NULL;
    struct fy_diag_error *err = diag != NULL ? fy_diag_errors_iterate(diag, &iter) : NULL;
    if (err == NULL) {
        return config__fail(y->errbuf, y->errcap, "%s: empty or unreadable YAML", y->file->name);
    }
    return config__fail(y->errbuf, y->errcap, "%s:%d:%d: invalid YAML: %s", y->file->name,
                        err->line, err->column, err->msg != NULL ? err->msg : "syntax error");
}

/* build_document parses text with libfyaml, its errors collected in *out_diag (the caller
 * destroys it). Returns the document, or NULL. */
static struct fy_document *build_document(const char *text, size_t len, struct fy_diag **out_diag)
{
    struct fy_diag_cfg diag_cfg;
    fy_diag_cfg_default(&diag_cfg);
    diag_cfg.fp = NULL; /* errors are collected, not printed */
    *out_diag = fy_diag_create(&diag_cfg);
    if (*out_diag == NULL) {
        return NULL;
    }
    fy_diag_set_collect_errors(*out_diag, true);
    struct fy_parse_cfg parse_cfg = {.flags = FYPCF_QUIET | FYPCF_DEFAULT_VERSION_1_2 |
                                              FYPCF_DISABLE_MMAP_OPT | FYPCF_JSON_NONE,
                                     .diag = *out_diag};
    return fy_document_build_from_string(&parse_cfg, text, len);
}

/* Set by a sanitizer runtime, absent otherwise: the probe's child dies quietly, or libFuzzer's
 * death callback would save libfyaml's crash as one of ours. */
extern void __sanitizer_set_death_callback(void (*callback)(void)) __attribute__((weak));

static void child_death(void)
{
    _exit(1);
}

/* probe_in_child parses text once in a child process. libfyaml 0.7.12 (Debian 12's) frees
 * memory twice or loops on some malformed YAML (upstream issue 57: a tab after an explicit
 * `?` key), and a mistake in a config file must be a message, not a crash; the parse is
 * deterministic, so input the child survives is safe to parse here. Returns 0 (survived, or
 * no child could be made), or -EINVAL with a message. */
static int probe_in_child(struct config__yaml *y, const char *text, size_t len)
{
    pid_t pid = fork();
    if (pid < 0) {
        return 0;
    }
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        if (devnull >= 0) {
            dup2(devnull, STDERR_FILENO); /* a sanitizer's report of libfyaml's bug */
        }
        if (__sanitizer_set_death_callback != NULL) {
            __sanitizer_set_death_callback(child_death);
        }
        alarm(CONFIG_YAML_PROBE_SECONDS);
        struct fy_diag *diag = NULL;
        fy_document_destroy(build_document(text, len, &diag));
        fy_diag_destroy(diag);
        _exit(0);
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) {
            return 0;
        }
    }
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        return 0;
    }
    return config__fail(y->errbuf, y->errcap,
                        "%s: invalid YAML that libfyaml cannot report (it %s on it); look for "
                        "tabs, `?` keys and unclosed brackets",
                        y->file->name,
                        WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ? "did not finish"
                                                                           : "crashed");
}

/* read_document checks text, parses it with libfyaml and translates the document. */
static int read_document(struct config__yaml *y, const char *text, size_t len)
{
    int rc = check_text(y, text, len);
    rc = rc != 0 ? rc : probe_in_child(y, text, len);
    if (rc != 0) {
        return rc;
    }
    struct fy_diag *diag = NULL;
    struct fy_document *doc = build_document(text, len, &diag);
    if (diag == NULL) {
        rc = -ENOMEM;
    } else if (doc == NULL) {
        rc = parse_failure(y, diag);
    } else {
        rc = translate(y, doc);
        fy_document_destroy(doc);
    }
    fy_diag_destroy(diag);
    return rc;
}

int config_file_load_text(const char *text, size_t len, const char *name, char *const *envp,
                          struct config_file **out, char *errbuf, size_t errcap)
{
    *out = NULL;
    struct config_file *file = calloc(1, sizeof(*file));
    if (file == NULL || (file->name = strdup(name != NULL ? name : "config")) == NULL) {
        free(file);
        return config__fail(errbuf, errcap, "out of memory while reading a config file");
    }
    /* Without phases: the converter's one concurrency phase named profiling. */
    struct config__yaml y = {.file = file,
                             .envp = envp,
                             .errbuf = errbuf,
                             .errcap = errcap,
                             .profiling_name = "profiling",
                             .profiling_type = "concurrency"};
    int rc = read_document(&y, text, len);
    if (rc == -ENOMEM) {
        config__fail(errbuf, errcap, "%s: out of memory while reading it", file->name);
    }
    if (rc != 0) {
        config_file_free(file);
        return rc;
    }
    *out = file;
    return 0;
}

int config_file_load(const char *path, char *const *envp, struct config_file **out, char *errbuf,
                     size_t errcap)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return config__fail(errbuf, errcap, "--config: cannot open '%s': %s", path,
                            strerror(errno));
    }
    char *text = malloc(CONFIG_FILE_BYTES_MAX + 1);
    size_t len = text != NULL ? fread(text, 1, CONFIG_FILE_BYTES_MAX + 1, f) : 0;
    bool failed = text == NULL || ferror(f) != 0;
    fclose(f);
    int rc = 0;
    if (failed) {
        rc = config__fail(errbuf, errcap, "--config: cannot read '%s'", path);
    } else if (len > CONFIG_FILE_BYTES_MAX) {
        rc = config__fail(errbuf, errcap, "--config: '%s' is larger than %u bytes", path,
                          CONFIG_FILE_BYTES_MAX);
    } else {
        rc = config_file_load_text(text, len, path, envp, out, errbuf, errcap);
    }
    free(text);
    return rc;
}
