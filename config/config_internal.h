/*
 * config_internal.h - shared between the files of config/; not a public API.
 *
 * The flag table (config_table.c) is the single source of truth: the parser,
 * the help printer and the cli_command redactor walk the same descriptors.
 */
#ifndef RINGPERF_CONFIG_INTERNAL_H
#define RINGPERF_CONFIG_INTERNAL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/config.h"

/* Help groups, in AIPerf's help order. */
enum config__group {
    CONFIG__G_ENDPOINT,
    CONFIG__G_TOKENIZER,
    CONFIG__G_INPUT,
    CONFIG__G_FIXED_SCHEDULE,
    CONFIG__G_GOODPUT,
    CONFIG__G_CONVERSATION,
    CONFIG__G_PROMPT,
    CONFIG__G_CACHE_BUST,
    CONFIG__G_PREFIX_PROMPT,
    CONFIG__G_ISL,
    CONFIG__G_OSL,
    CONFIG__G_AUDIO,
    CONFIG__G_IMAGE,
    CONFIG__G_VIDEO,
    CONFIG__G_RANKINGS,
    CONFIG__G_SYNTHESIS,
    CONFIG__G_LOAD_GENERATOR,
    CONFIG__G_SCENARIO,
    CONFIG__G_WARMUP,
    CONFIG__G_USER_CENTRIC,
    CONFIG__G_CANCELLATION,
    CONFIG__G_OUTPUT,
    CONFIG__G_HTTP_TRACE,
    CONFIG__G_SERVER_METRICS,
    CONFIG__G_NETWORK_LATENCY,
    CONFIG__G_GPU_TELEMETRY,
    CONFIG__G_UI,
    CONFIG__G_MULTI_RUN,
    CONFIG__G_ACCURACY,
    CONFIG__G_SERVICE,
    CONFIG__G_WORKERS,
    CONFIG__G_ZMQ,
    CONFIG__G_COUNT
};

/* Value kinds and the C type each stores at config__flag.offset. */
enum config__kind {
    CONFIG__K_SWITCH, /* bool */
    CONFIG__K_INT,    /* int64_t */
    CONFIG__K_DOUBLE, /* double */
    CONFIG__K_STRING, /* char * (owned; last occurrence wins) */
    CONFIG__K_CHOICE, /* an enum with sizeof(int) */
    CONFIG__K_LIST    /* struct config_strlist, or headers when CONFIG__T_HEADER */
};

/* Traits (bit flags). */
#define CONFIG__T_SUPPORTED 0x01u   /* ringperf implements it */
#define CONFIG__T_SECRET 0x02u      /* value is redacted in cli_command, never echoed */
#define CONFIG__T_ALLOW_INF 0x04u   /* a double that may be "inf" */
#define CONFIG__T_COMMA_SPLIT 0x08u /* list entries also split on ',' */
#define CONFIG__T_URL 0x10u         /* userinfo and credential query params redacted */
#define CONFIG__T_HEADER 0x20u      /* -H: parsed into struct config_header */
#define CONFIG__T_EXTRA 0x40u       /* --extra-inputs: key:value or a JSON object */
#define CONFIG__T_ALLOW_EMPTY 0x80u /* "" is a meaningful value */
#define CONFIG__T_SWEEP 0x100u      /* a number that also takes a comma list (a sweep) */

/* Range flags. */
#define CONFIG__R_MIN_INCL 0x1u
#define CONFIG__R_MIN_EXCL 0x2u
#define CONFIG__R_MAX_INCL 0x4u

/* config__range bounds a number; the message is built from it. */
struct config__range {
    double min;
    double max;
    unsigned flags;
};

/* config__choice is one accepted value of a CHOICE flag; hidden entries are
 * accepted spellings that help and error messages do not list. */
struct config__choice {
    const char *name;
    int value;
    bool hidden;
};

#define CONFIG__NO_FIELD SIZE_MAX

/* config__flag describes one AIPerf flag. `names` is space-separated, the
 * primary spelling first ("--model -m --model-names"). */
struct config__flag {
    const char *names;
    const char *help;
    const char *default_text;             /* NULL = no default shown */
    const char *example;                  /* value used in "e.g." hints */
    const struct config__range *range;    /* INT/DOUBLE only; NULL = any */
    const struct config__choice *choices; /* CHOICE only; NULL-name terminated */
    size_t offset;                        /* field in profile_config or CONFIG__NO_FIELD */
    size_t given_offset;                  /* bool set when given, or CONFIG__NO_FIELD */
    unsigned char group;
    unsigned char kind;
    unsigned short traits;
};

/* config__occurrence is one flag found on the command line with its values:
 * the inline `=value` if any, then argv[value_first .. value_first+value_count). */
struct config__occurrence {
    const struct config__flag *flag;
    const char *spelled; /* the flag as the user typed it, up to '=' */
    size_t spelled_len;
    const char *inline_value; /* NULL when no '=' */
    int value_first;
    int value_count;
};

/* config__flags returns the flag table and its length. */
const struct config__flag *config__flags(size_t *out_count);

/* config__find_flag looks up a flag by any of its spellings (len bytes of name). */
const struct config__flag *config__find_flag(const char *name, size_t len);

/* config__suggest_flag returns the closest flag spelling to name, or NULL. */
const char *config__suggest_flag(const char *name, size_t len, size_t *out_len);

/* config__next_occurrence scans argv from *pos for the next flag and its values,
 * advancing *pos past them. Returns 1 when one was found, 0 at the end, or
 * -EINVAL with a message (unknown flag, missing value, stray argument...). */
int config__next_occurrence(int argc, char **argv, int *pos, struct config__occurrence *occ,
                            char *errbuf, size_t errcap);

/* config__fail formats a message into errbuf and returns -EINVAL. */
int config__fail(char *errbuf, size_t errcap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* config__show copies at most 60 bytes of value into buf for an error message,
 * replacing control bytes with '?' and marking truncation with "...". */
const char *config__show(const char *value, char *buf, size_t cap);

/* config__edit_distance is the Levenshtein distance between a and b, or limit + 1
 * once it is known to exceed limit (or either string is over 64 bytes). */
size_t config__edit_distance(const char *a, size_t alen, const char *b, size_t blen, size_t limit);

/* config__store_value converts and stores one value of occ's flag into cfg. */
int config__store_value(struct profile_config *cfg, const struct config__occurrence *occ,
                        const char *value, char *errbuf, size_t errcap);

/* config__visible_ascii reports whether s[0..len) is printable ASCII
 * without spaces, as a request target's bytes must be. */
bool config__visible_ascii(const char *s, size_t len);

/* config__is_header_name reports whether name[0..len) is an HTTP field name
 * (RFC 9110 token characters, at least one). */
bool config__is_header_name(const char *name, size_t len);

/* config__build_cli_command joins the arguments into "ringperf profile ..." with
 * shell quoting and secrets redacted. Returns an owned string or NULL (-ENOMEM,
 * or the result would exceed CONFIG_CLI_COMMAND_BYTES_MAX). */
char *config__build_cli_command(int argc, char **argv);

/* config__resolve resolves one base URL (see config_resolve_url). */
int config__resolve(const char *base, enum config_endpoint_type type, const char *custom,
                    bool streaming, struct config_target *out, char *errbuf, size_t errcap);

/* config__proxy_url parses the proxy URL url (the value of the environment variable named
 * variable, for messages) into out's port, host, authority and (still percent-encoded) the
 * user:password part in out_userinfo (cap CONFIG_USERINFO_BYTES_MAX + 1). Returns 0, or
 * -EINVAL with a message (credentials redacted) in errbuf. */
int config__proxy_url(const char *variable, const char *url, struct config_proxy *out,
                      char *out_userinfo, char *errbuf, size_t errcap);

/* config__finalize applies defaults and cross-flag checks after all flags. */
int config__finalize(struct profile_config *cfg, char *errbuf, size_t errcap);

/* config__check_media checks the --image-* and --audio-* flags against each
 * other and the endpoint type (config_media.c); 0 or -EINVAL with a message. */
int config__check_media(const struct profile_config *cfg, char *errbuf, size_t errcap);

/* config__check_times checks that every rate and time of the run fits in
 * CONFIG_TIME_MAX_SECONDS once combined (a rate's gap, a count-limited
 * schedule, a user's turn gap, a think time): config_times.c. Returns 0, or
 * -EINVAL with a message that names the flags and the fix. */
int config__check_times(const struct profile_config *cfg, char *errbuf, size_t errcap);

/* config__video_poll_interval reads AIPERF_HTTP_VIDEO_POLL_INTERVAL's value (NULL: unset, the
 * default 0.1) into *out_s: seconds from 0.001 to 3600. 0, or -EINVAL with a message naming the
 * variable and the fix (config_video.c). */
int config__video_poll_interval(const char *value, double *out_s, char *errbuf, size_t errcap);

/* config__check_video reads the poll interval from the environment into cfg and refuses
 * --download-video-content on an endpoint type that makes no videos. */
int config__check_video(struct profile_config *cfg, char *errbuf, size_t errcap);

/* config__check_aws checks the AWS flags together and applies what --sagemaker-endpoint-name
 * implies (SigV4, service sagemaker, the invocation path). */
int config__check_aws(struct profile_config *cfg, char *errbuf, size_t errcap);

/* config__sagemaker_default_url writes the SageMaker Runtime URL of cfg's region into out and
 * returns true, or returns false when cfg names no SageMaker endpoint or no valid region. */
bool config__sagemaker_default_url(const struct profile_config *cfg, char *out, size_t cap);

/* config__check_context refuses flags that do nothing where they are given
 * (the --input-file flags without one, a --url user:password@ another
 * Authorization header would leave unused) and a --profile-export-prefix that
 * would leave the artifact directory: config_context.c. Returns 0, or
 * -EINVAL with a message. */
int config__check_context(const struct profile_config *cfg, char *errbuf, size_t errcap);

/* config__store_sweep stores a comma list of occ's flag (value holds a ','): every entry
 * is converted and range checked as the flag's single value, the field takes the first and
 * cfg->sweep the list (config_sweep.c). Returns 0 or -EINVAL with a message. */
int config__store_sweep(struct profile_config *cfg, const struct config__occurrence *occ,
                        const char *value, char *errbuf, size_t errcap);

/* config__sweep_forget drops the sweep of the field at offset: a later single value wins. */
void config__sweep_forget(struct profile_config *cfg, size_t offset);

/* config__check_multi_run checks the repeated-run and sweep flags against each other (not
 * the cells): config_sweep.c. Returns 0, or -EINVAL with a message naming the flag. */
int config__check_multi_run(struct profile_config *cfg, char *errbuf, size_t errcap);

/* config__check_sweep_cells checks every cell of a finalized cfg's sweep as a run of its
 * own would be checked. Returns 0, or -EINVAL with a message naming the cell. */
int config__check_sweep_cells(const struct profile_config *cfg, char *errbuf, size_t errcap);

/* config__strlist_push appends an owned copy of len bytes of s. */
int config__strlist_push(struct config_strlist *list, const char *s, size_t len);

/* config__sweep_role marks the entries a config file's sweep: section made. */
enum config__sweep_role {
    CONFIG__SWEEP_NONE,
    CONFIG__SWEEP_SETTING, /* --sweep-type, --parameter-sweep-mode...: how the sweep runs */
    CONFIG__SWEEP_LIST,    /* a swept parameter: its flag with the comma list of its values */
};

/* config__file_entry is one value a config file sets, as the flag it stands for would take
 * it: `concurrency: 8` in a phase is --concurrency with "8". */
struct config__file_entry {
    const struct config__flag *flag;
    char *value; /* owned */
    char *key;   /* owned: the setting's path in the file, e.g. benchmark.phases[1].rate */
    int line;    /* 1-based position of the value in the file; 0 = unknown */
    int column;
    unsigned char sweep; /* enum config__sweep_role */
    size_t list_count;   /* CONFIG__SWEEP_LIST: the values in the comma list */
};

/* config_file is a loaded config file: its entries in file order, and how its sweep
 * combines the comma lists. */
struct config_file {
    char *name; /* the path, for messages */
    struct config__file_entry *entries;
    size_t count;
    size_t cap;
    bool has_sweep;
    bool sweep_zip; /* zip: the lists in lockstep; grid (default): every combination */
};

/* config__file_add appends an entry for the flag spelled flag_name (which must be in the
 * table) with an owned copy of value. Returns 0 or -ENOMEM; -EINVAL past
 * CONFIG_FILE_ENTRIES_MAX. */
int config__file_add(struct config_file *file, const char *flag_name, const char *value,
                     const char *key, int line, int column, enum config__sweep_role sweep);

/* config__store_file stores the entries of file for variation (CONFIG_FILE_WHOLE_SWEEP:
 * the sweep's comma lists as they are, refused while sweeps cannot run) into cfg, except
 * those of the flags whose bits are set in cli_given (the command line wins). */
int config__store_file(struct profile_config *cfg, const struct config_file *file, size_t variation,
                       const uint64_t *cli_given, char *errbuf, size_t errcap);

struct fy_node;

/* config__yaml is the state of one file's translation into entries (config_yaml.c). */
struct config__yaml {
    struct config_file *file;
    char *const *envp; /* for ${VAR} substitution; borrowed */
    char *errbuf;
    size_t errcap;
    /* The profiling phase, for sweep paths: its name, index and type ("" = none yet). */
    char profiling_name[64];
    int profiling_index;
    char profiling_type[32];
    bool profiling_rate; /* the profiling phase is poisson, gamma or constant */
};

/* config__yaml_fail writes "FILE:LINE:COLUMN: " and the message (FILE: alone when node has
 * no position) and returns -EINVAL. */
int config__yaml_fail(struct config__yaml *y, struct fy_node *node, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* config__yaml_text returns the text of scalar node in buf (cap bytes), ${VAR} and
 * ${VAR:default} substituted from y->envp; NULL (with *out_null set and no error) for a YAML
 * null. Fails (-EINVAL, message naming key) for a collection, an alias, an unset variable,
 * {{ }} expressions, or text longer than cap. */
int config__yaml_text(struct config__yaml *y, struct fy_node *node, const char *key, char *buf,
                      size_t cap, bool *out_null);

/* config__yaml_bool reads a YAML 1.2 boolean (true, True, TRUE, false...) into *out. Returns
 * 0, 1 for a null (nothing set), or -EINVAL naming key. */
int config__yaml_bool(struct config__yaml *y, struct fy_node *node, const char *key, bool *out);

/* config__yaml_set adds one entry: the scalar node's text for the flag spelled flag. A YAML
 * null sets nothing; a switch AIPerf has and ringperf lacks is accepted when false. */
int config__yaml_set(struct config__yaml *y, const char *flag, struct fy_node *node,
                     const char *key);

/* config__yaml_benchmark translates the benchmark: mapping (config_yaml_map.c). */
int config__yaml_benchmark(struct config__yaml *y, struct fy_node *benchmark);

/* config__yaml_sweep translates the sweep: mapping into sweep entries (config_yaml_sweep.c):
 * the one place where AIPerf's sweep parameters become ringperf's comma-list flags. */
int config__yaml_sweep(struct config__yaml *y, struct fy_node *sweep);

/* config__yaml_key_is compares a file's key (snake_case or camelCase) with a snake_case name. */
bool config__yaml_key_is(const char *key, size_t len, const char *snake);

/* config__yaml_unknown fails for an unknown key of the mapping at path, naming the nearest of
 * the NULL-terminated known keys when one is close. */
int config__yaml_unknown(struct config__yaml *y, struct fy_node *key_node, const char *path,
                         const char *const *known);

/* CONFIG__YAML_PATH_BYTES bounds a setting's path in messages (benchmark.phases[1].rate). */
#define CONFIG__YAML_PATH_BYTES 256

/* config__yk_how is how a config file key's value becomes flags. */
enum config__yk_how {
    CONFIG__YK_FLAG,    /* one value for flag */
    CONFIG__YK_SECONDS, /* a time for flag, in seconds or with a unit (30s, 5m, 1h) */
    CONFIG__YK_LIST,    /* one value or a list; each is one occurrence of flag */
    CONFIG__YK_PAIR,    /* n, or {mean, stddev}: flag and flag2 */
    CONFIG__YK_RAMP,    /* seconds, or {duration}: flag */
    CONFIG__YK_SECTION, /* a mapping read with section */
    CONFIG__YK_CALL,    /* call reads it */
    CONFIG__YK_NAME,    /* an identifier that names the thing; sets nothing */
    CONFIG__YK_AIPERF,  /* AIPerf has it, ringperf does not */
};

/* config__yk is one key of a config file section (config_yaml_map.c). */
struct config__yk {
    const char *key; /* snake_case; camelCase spellings match too */
    unsigned char how;
    const char *flag;
    const char *flag2;
    const struct config__yk *section;
    int (*call)(struct config__yaml *y, struct fy_node *key, struct fy_node *value,
                const char *path);
};

/* config__yaml_walk reads the mapping map (the value of key_node, at path) with table, a
 * NULL-key terminated array. An empty value sets nothing. */
int config__yaml_walk(struct config__yaml *y, const struct config__yk *table,
                      struct fy_node *key_node, struct fy_node *map, const char *path);

/* config__yaml_add adds an entry for flag with value, positioned at node. */
int config__yaml_add(struct config__yaml *y, const char *flag, const char *value, const char *key,
                     struct fy_node *node);

/* config__yaml_path formats a setting's path into out (CONFIG__YAML_PATH_BYTES), truncated
 * when longer: it only names the setting in messages. */
void config__yaml_path(char *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* config__yaml_add_as is config__yaml_add for an entry of the sweep: section. */
int config__yaml_add_as(struct config__yaml *y, enum config__sweep_role role, const char *flag,
                        const char *value, const char *key, struct fy_node *node);

/* config__yaml_dataset and config__yaml_phases read benchmark.dataset(s) and
 * benchmark.phases (config_yaml_phases.c). */
int config__yaml_dataset(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                         const char *path);
int config__yaml_phases(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                        const char *path);

#endif
