/*
 * config_yaml_phases.c - benchmark.dataset(s) and benchmark.phases of an AIPerf config
 * file, as the flags that build the same dataset and phases (see config_yaml_map.c).
 *
 * ringperf runs at most one warmup and then one profiling phase, as AIPerf's command line
 * builds them; a phase's type is the load mode that its flags select (--request-rate,
 * --arrival-pattern, --user-centric-rate, --fixed-schedule).
 */
#include <errno.h>
#include <libfyaml.h>
#include <stdio.h>
#include <string.h>

#include "config/config_internal.h"

#define F CONFIG__YK_FLAG
#define S CONFIG__YK_SECONDS
#define L CONFIG__YK_LIST
#define P CONFIG__YK_PAIR
#define R CONFIG__YK_RAMP
#define SEC CONFIG__YK_SECTION
#define CALL CONFIG__YK_CALL
#define NAME CONFIG__YK_NAME
#define AIPERF CONFIG__YK_AIPERF
#define END                                                                                        \
    {                                                                                              \
        NULL, 0, NULL, NULL, NULL, NULL                                                            \
    }

/* child finds the value of key (snake_case) in map, or NULL; *out_key is its key node. */
static struct fy_node *child(struct fy_node *map, const char *key, struct fy_node **out_key)
{
    void *iter = NULL;
    struct fy_node_pair *pair;
    while ((pair = fy_node_mapping_iterate(map, &iter)) != NULL) {
        size_t len = 0;
        struct fy_node *k = fy_node_pair_key(pair);
        const char *text = fy_node_is_scalar(k) ? fy_node_get_scalar(k, &len) : NULL;
        if (text != NULL && config__yaml_key_is(text, len, key)) {
            if (out_key != NULL) {
                *out_key = k;
            }
            return fy_node_pair_value(pair);
        }
    }
    return NULL;
}

/* choice reads the value of key in map into buf ("" when absent or null). */
static int choice(struct config__yaml *y, struct fy_node *map, const char *key, const char *path,
                  char *buf, size_t cap)
{
    buf[0] = '\0';
    struct fy_node *value = child(map, key, NULL);
    char key_path[CONFIG__YAML_PATH_BYTES];
    config__yaml_path(key_path, "%s.%s", path, key);
    bool null = false;
    int rc = value != NULL ? config__yaml_text(y, value, key_path, buf, cap, &null) : 0;
    if (null) {
        buf[0] = '\0';
    }
    return rc;
}

static int nothing(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                   const char *path)
{
    (void)y, (void)key_node, (void)value, (void)path;
    return 0; /* read before the walk */
}

/* ---- dataset ---- */

static int set_cache_bust(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                          const char *path)
{
    static const struct config__yk keys[] = {{"target", F, "--cache-bust", NULL, NULL, NULL}, END};
    if (fy_node_is_mapping(value)) {
        return config__yaml_walk(y, keys, key_node, value, path);
    }
    return config__yaml_set(y, "--cache-bust", value, path);
}

static const struct config__yk prompts_keys[] = {
    {"isl", P, "--isl", "--isl-stddev", NULL, NULL},
    {"osl", P, "--osl", "--osl-stddev", NULL, NULL},
    {"block_size", F, "--isl-block-size", NULL, NULL, NULL},
    {"batch_size", F, "--prompt-batch-size", NULL, NULL, NULL},
    {"cache_bust", CALL, NULL, NULL, NULL, set_cache_bust},
    {"corpus", F, "--prompt-corpus", NULL, NULL, NULL},
    {"sequence_distribution", AIPERF, NULL, NULL, NULL, NULL},
    END,
};

static const struct config__yk prefix_keys[] = {
    {"pool_size", F, "--num-prefix-prompts", NULL, NULL, NULL},
    {"length", F, "--prefix-prompt-length", NULL, NULL, NULL},
    {"shared_system_length", F, "--shared-system-prompt-length", NULL, NULL, NULL},
    {"user_context_length", F, "--user-context-prompt-length", NULL, NULL, NULL},
    END,
};

static const struct config__yk images_keys[] = {
    {"height", P, "--image-height-mean", "--image-height-stddev", NULL, NULL},
    {"width", P, "--image-width-mean", "--image-width-stddev", NULL, NULL},
    {"batch_size", F, "--image-batch-size", NULL, NULL, NULL},
    {"format", F, "--image-format", NULL, NULL, NULL},
    {"source", F, "--image-source", NULL, NULL, NULL},
    END,
};

static const struct config__yk audio_keys[] = {
    {"length", P, "--audio-length-mean", "--audio-length-stddev", NULL, NULL},
    {"batch_size", F, "--audio-batch-size", NULL, NULL, NULL},
    {"format", F, "--audio-format", NULL, NULL, NULL},
    {"depths", L, "--audio-depths", NULL, NULL, NULL},
    {"sample_rates", L, "--audio-sample-rates", NULL, NULL, NULL},
    {"channels", F, "--audio-num-channels", NULL, NULL, NULL},
    END,
};

static const struct config__yk rankings_keys[] = {
    {"passages", P, "--rankings-passages-mean", "--rankings-passages-stddev", NULL, NULL},
    {"passage_tokens", P, "--rankings-passages-prompt-token-mean",
     "--rankings-passages-prompt-token-stddev", NULL, NULL},
    {"query_tokens", P, "--rankings-query-prompt-token-mean",
     "--rankings-query-prompt-token-stddev", NULL, NULL},
    END,
};

static const struct config__yk dataset_keys[] = {
    {"name", NAME, NULL, NULL, NULL, NULL},
    {"type", CALL, NULL, NULL, NULL, nothing},
    {"entries", F, "--num-dataset-entries", NULL, NULL, NULL},
    {"random_seed", F, "--random-seed", NULL, NULL, NULL},
    {"sampling", F, "--dataset-sampling-strategy", NULL, NULL, NULL},
    {"prompts", SEC, NULL, NULL, prompts_keys, NULL},
    {"isl", P, "--isl", "--isl-stddev", NULL, NULL},
    {"osl", P, "--osl", "--osl-stddev", NULL, NULL},
    {"prefix_prompts", SEC, NULL, NULL, prefix_keys, NULL},
    {"turns", P, "--conversation-turn-mean", "--conversation-turn-stddev", NULL, NULL},
    {"turn_delay", P, "--conversation-turn-delay-mean", "--conversation-turn-delay-stddev", NULL,
     NULL},
    {"turn_delay_ratio", F, "--conversation-turn-delay-ratio", NULL, NULL, NULL},
    {"images", SEC, NULL, NULL, images_keys, NULL},
    {"audio", SEC, NULL, NULL, audio_keys, NULL},
    {"rankings", SEC, NULL, NULL, rankings_keys, NULL},
    {"path", F, "--input-file", NULL, NULL, NULL},
    {"format", F, "--custom-dataset-type", NULL, NULL, NULL},
    {"dataset", F, "--public-dataset", NULL, NULL, NULL},
    {"hf_subset", F, "--hf-subset", NULL, NULL, NULL},
    {"block_size", F, "--isl-block-size", NULL, NULL, NULL},
    {"inter_turn_delay_cap_seconds", S, "--inter-turn-delay-cap-seconds", NULL, NULL, NULL},
    {"ignore_trace_delays", F, "--ignore-trace-delays", NULL, NULL, NULL},
    {"max_idle_gap_cap_seconds", S, "--max-idle-gap-cap-seconds", NULL, NULL, NULL},
    {"replay_speedup", F, "--replay-speedup", NULL, NULL, NULL},
    {"records", AIPERF, NULL, NULL, NULL, NULL},
    {"synthesis", AIPERF, NULL, NULL, NULL, NULL},
    {"filters", AIPERF, NULL, NULL, NULL, NULL},
    {"video", AIPERF, NULL, NULL, NULL, NULL},
    END,
};

/* check_dataset_type checks the keys of a dataset against its type (given, or what its
 * keys imply), as AIPerf's dataset models forbid another type's fields. */
static int check_dataset_type(struct config__yaml *y, struct fy_node *map, const char *path)
{
    static const char *const synthetic_only[] = {
        "prompts", "prefix_prompts", "turns", "turn_delay", "images", "audio", "rankings", "isl"};
    char type[32];
    int rc = choice(y, map, "type", path, type, sizeof(type));
    struct fy_node *file = child(map, "path", NULL);
    struct fy_node *public = child(map, "dataset", NULL);
    const char *implied = public != NULL ? "public" : file != NULL ? "file" : "synthetic";
    if (rc != 0) {
        return rc;
    }
    if (type[0] == '\0') {
        snprintf(type, sizeof(type), "%s", implied);
    }
    if (strcmp(type, "synthetic") != 0 && strcmp(type, "file") != 0 &&
        strcmp(type, "public") != 0) {
        return config__yaml_fail(y, child(map, "type", NULL),
                                 "%s.type: '%s' is not a dataset type; give synthetic, file or "
                                 "public",
                                 path, type);
    }
    if (strcmp(type, implied) != 0) {
        const char *need = strcmp(type, "file") == 0     ? "needs a path"
                           : strcmp(type, "public") == 0 ? "needs a dataset (dataset: sharegpt)"
                                                         : "takes no path or dataset";
        return config__yaml_fail(y, child(map, "type", NULL), "%s: a %s dataset %s", path, type,
                                 need);
    }
    for (size_t i = 0;
         strcmp(type, "synthetic") != 0 && i < sizeof(synthetic_only) / sizeof(synthetic_only[0]);
         i++) {
        struct fy_node *key = NULL;
        if (child(map, synthetic_only[i], &key) != NULL) {
            return config__yaml_fail(y, key,
                                     "%s.%s: applies to synthetic datasets, not to a %s "
                                     "one",
                                     path, synthetic_only[i], type);
        }
    }
    return 0;
}

static int one_dataset(struct config__yaml *y, struct fy_node *key_node, struct fy_node *map,
                       const char *path)
{
    if (!fy_node_is_mapping(map)) {
        return config__yaml_fail(y, fy_node_is_scalar(map) ? map : key_node,
                                 "%s: expected a mapping of dataset settings", path);
    }
    int rc = check_dataset_type(y, map, path);
    return rc != 0 ? rc : config__yaml_walk(y, dataset_keys, key_node, map, path);
}

int config__yaml_dataset(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                         const char *path)
{
    if (value == NULL || !fy_node_is_sequence(value)) {
        return one_dataset(y, key_node, value, path);
    }
    if (fy_node_sequence_item_count(value) != 1) {
        return config__yaml_fail(
            y, key_node, "%s: ringperf reads exactly one dataset (as AIPerf does today)", path);
    }
    char item[CONFIG__YAML_PATH_BYTES];
    config__yaml_path(item, "%s[0]", path);
    return one_dataset(y, key_node, fy_node_sequence_get_by_index(value, 0), item);
}

/* ---- phases ---- */

static int set_rate(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                    const char *path)
{
    (void)key_node;
    bool user = strcmp(y->profiling_type, "user_centric") == 0;
    return config__yaml_set(y, user ? "--user-centric-rate" : "--request-rate", value, path);
}

/* exclusion checks a phase's exclude_from_results against what ringperf does with it. */
static int exclusion(struct config__yaml *y, struct fy_node *value, const char *path, bool warmup)
{
    bool excluded = warmup;
    int rc = config__yaml_bool(y, value, path, &excluded);
    if (rc == 0 && excluded != warmup) {
        rc = config__yaml_fail(y, value, "%s: %s", path,
                               warmup ? "ringperf always leaves the warmup out of the results"
                                      : "the profiling phase is what ringperf reports; only a "
                                        "warmup is left out of the results");
    }
    return rc > 0 ? 0 : rc;
}

static int must_be_false(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                         const char *path)
{
    (void)key_node;
    return exclusion(y, value, path, false);
}

static int must_be_true(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                        const char *path)
{
    (void)key_node;
    return exclusion(y, value, path, true);
}

static const struct config__yk cancellation_keys[] = {
    {"rate", F, "--request-cancellation-rate", NULL, NULL, NULL},
    {"delay", S, "--request-cancellation-delay", NULL, NULL, NULL},
    END,
};

static const struct config__yk profiling_keys[] = {
    {"name", NAME, NULL, NULL, NULL, NULL},
    {"kind", CALL, NULL, NULL, NULL, nothing},
    {"type", CALL, NULL, NULL, NULL, nothing},
    {"exclude_from_results", CALL, NULL, NULL, NULL, must_be_false},
    {"requests", F, "--request-count", NULL, NULL, NULL},
    {"duration", S, "--benchmark-duration", NULL, NULL, NULL},
    {"sessions", F, "--conversation-num", NULL, NULL, NULL},
    {"concurrency", F, "--concurrency", NULL, NULL, NULL},
    {"prefill_concurrency", F, "--prefill-concurrency", NULL, NULL, NULL},
    {"grace_period", S, "--benchmark-grace-period", NULL, NULL, NULL},
    {"concurrency_ramp", R, "--concurrency-ramp-duration", NULL, NULL, NULL},
    {"prefill_ramp", R, "--prefill-concurrency-ramp-duration", NULL, NULL, NULL},
    {"rate_ramp", R, "--request-rate-ramp-duration", NULL, NULL, NULL},
    {"cancellation", SEC, NULL, NULL, cancellation_keys, NULL},
    {"rate", CALL, NULL, NULL, NULL, set_rate},
    {"smoothness", F, "--arrival-smoothness", NULL, NULL, NULL},
    {"users", F, "--num-users", NULL, NULL, NULL},
    {"auto_offset", F, "--fixed-schedule-auto-offset", NULL, NULL, NULL},
    {"start_offset", F, "--fixed-schedule-start-offset", NULL, NULL, NULL},
    {"end_offset", F, "--fixed-schedule-end-offset", NULL, NULL, NULL},
    {"failed_request_threshold", F, "--failed-request-threshold", NULL, NULL, NULL},
    {"rate_series", F, "--request-rate-series", NULL, NULL, NULL},
    {"burst_phase_starts", F, "--burst-phase-starts", NULL, NULL, NULL},
    {"trajectory_start_min_ratio", F, "--trajectory-start-min-ratio", NULL, NULL, NULL},
    {"trajectory_start_max_ratio", F, "--trajectory-start-max-ratio", NULL, NULL, NULL},
    {"sla", AIPERF, NULL, NULL, NULL, NULL},
    {"seamless", AIPERF, NULL, NULL, NULL, NULL},
    {"timing_mode", AIPERF, NULL, NULL, NULL, NULL},
    {"adaptive_scale", AIPERF, NULL, NULL, NULL, NULL},
    END,
};

static const struct config__yk warmup_keys[] = {
    {"name", NAME, NULL, NULL, NULL, NULL},
    {"kind", CALL, NULL, NULL, NULL, nothing},
    {"type", CALL, NULL, NULL, NULL, nothing},
    {"exclude_from_results", CALL, NULL, NULL, NULL, must_be_true},
    {"requests", F, "--warmup-request-count", NULL, NULL, NULL},
    {"duration", S, "--warmup-duration", NULL, NULL, NULL},
    {"sessions", F, "--num-warmup-sessions", NULL, NULL, NULL},
    {"concurrency", F, "--warmup-concurrency", NULL, NULL, NULL},
    {"prefill_concurrency", F, "--warmup-prefill-concurrency", NULL, NULL, NULL},
    {"grace_period", S, "--warmup-grace-period", NULL, NULL, NULL},
    {"concurrency_ramp", R, "--warmup-concurrency-ramp-duration", NULL, NULL, NULL},
    {"prefill_ramp", R, "--warmup-prefill-concurrency-ramp-duration", NULL, NULL, NULL},
    {"rate_ramp", R, "--warmup-request-rate-ramp-duration", NULL, NULL, NULL},
    {"rate", F, "--warmup-request-rate", NULL, NULL, NULL},
    {"smoothness", AIPERF, NULL, NULL, NULL, NULL},
    END,
};

/* Phase types, as bits for the keys each allows. */
enum { T_CONC = 1, T_POISSON = 2, T_GAMMA = 4, T_CONSTANT = 8, T_USER = 16, T_FIXED = 32 };

static unsigned phase_type_bit(const char *type)
{
    static const char *const names[] = {"concurrency", "poisson",      "gamma",
                                        "constant",    "user_centric", "fixed_schedule"};
    for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strcmp(type, names[i]) == 0) {
            return 1u << i;
        }
    }
    return 0;
}

/* check_phase_keys refuses the keys type does not take and asks for those it needs. */
static int check_phase_keys(struct config__yaml *y, struct fy_node *map, const char *path,
                            const char *type, unsigned bit)
{
    static const struct {
        const char *key;
        unsigned allowed;
        unsigned needed;
    } rules[] = {
        {"rate", T_POISSON | T_GAMMA | T_CONSTANT | T_USER, T_POISSON | T_GAMMA | T_CONSTANT},
        {"smoothness", T_GAMMA, 0},
        {"users", T_USER, T_USER},
        {"auto_offset", T_FIXED, 0},
        {"start_offset", T_FIXED, 0},
        {"end_offset", T_FIXED, 0},
    };
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        struct fy_node *key = NULL;
        bool has = child(map, rules[i].key, &key) != NULL;
        if (has && (rules[i].allowed & bit) == 0) {
            return config__yaml_fail(y, key, "%s.%s: a %s phase takes no %s", path, rules[i].key,
                                     type, rules[i].key);
        }
        bool user_rate = bit == T_USER && strcmp(rules[i].key, "rate") == 0;
        if (!has && ((rules[i].needed & bit) != 0 || user_rate)) {
            return config__yaml_fail(y, map, "%s: a %s phase needs %s", path, type, rules[i].key);
        }
    }
    return 0;
}

/* phase_type reads and checks a phase's type (default concurrency). */
static int phase_type(struct config__yaml *y, struct fy_node *map, const char *path, bool warmup,
                      char *type, size_t cap, unsigned *out_bit)
{
    int rc = choice(y, map, "type", path, type, cap);
    if (rc != 0) {
        return rc;
    }
    if (type[0] == '\0') {
        snprintf(type, cap, "concurrency");
    }
    *out_bit = phase_type_bit(type);
    unsigned allowed = warmup ? T_CONC | T_POISSON | T_GAMMA | T_CONSTANT : ~0u;
    if ((*out_bit & allowed) == 0) {
        return config__yaml_fail(y, child(map, "type", NULL),
                                 "%s.type: '%s' is not a %sphase type; give %s", path, type,
                                 warmup ? "warmup " : "",
                                 warmup ? "concurrency, poisson, gamma or constant"
                                        : "concurrency, poisson, gamma, constant, "
                                          "user_centric or fixed_schedule");
    }
    if (warmup && *out_bit != T_CONC && child(map, "rate", NULL) == NULL &&
        strcmp(y->profiling_type, "concurrency") == 0) {
        return config__yaml_fail(y, map,
                                 "%s: a %s warmup needs a rate (the profiling phase has "
                                 "none to lend it)",
                                 path, type);
    }
    return 0;
}

static int profiling_phase(struct config__yaml *y, struct fy_node *key_node, struct fy_node *map,
                           const char *path)
{
    unsigned bit = 0;
    int rc = phase_type(y, map, path, false, y->profiling_type, sizeof(y->profiling_type), &bit);
    rc = rc != 0 ? rc : check_phase_keys(y, map, path, y->profiling_type, bit);
    y->profiling_rate = (bit & (T_POISSON | T_GAMMA | T_CONSTANT)) != 0;
    struct fy_node *type = child(map, "type", NULL);
    if (rc == 0 && (bit == T_GAMMA || bit == T_CONSTANT)) {
        rc = config__yaml_add(y, "--arrival-pattern", y->profiling_type, path, type);
    } else if (rc == 0 && bit == T_FIXED) {
        rc = config__yaml_add(y, "--fixed-schedule", "true", path, type);
    }
    return rc != 0 ? rc : config__yaml_walk(y, profiling_keys, key_node, map, path);
}

static int warmup_phase(struct config__yaml *y, struct fy_node *key_node, struct fy_node *map,
                        const char *path)
{
    char type[32];
    unsigned bit = 0;
    int rc = phase_type(y, map, path, true, type, sizeof(type), &bit);
    /* A warmup without a rate of its own takes the profiling phase's; concurrency_burst
     * keeps a concurrency warmup closed-loop before a rate phase. */
    if (rc == 0 && bit == T_CONC && y->profiling_rate) {
        rc = config__yaml_add(y, "--warmup-arrival-pattern", "concurrency_burst", path, map);
    }
    struct fy_node *key = NULL;
    if (rc == 0 && bit == T_CONC && child(map, "rate", &key) != NULL) {
        rc = config__yaml_fail(y, key, "%s.rate: a concurrency phase takes no rate", path);
    }
    if (rc == 0 && (bit == T_GAMMA || bit == T_CONSTANT)) {
        rc = config__yaml_add(y, "--warmup-arrival-pattern", type, path, child(map, "type", NULL));
    }
    return rc != 0 ? rc : config__yaml_walk(y, warmup_keys, key_node, map, path);
}

/* phase_role is a phase's kind: its kind:, else what its name says. */
static int phase_role(struct config__yaml *y, struct fy_node *map, const char *path,
                      bool *out_warmup, char *name, size_t cap)
{
    char kind[32];
    int rc = choice(y, map, "kind", path, kind, sizeof(kind));
    rc = rc != 0 ? rc : choice(y, map, "name", path, name, cap);
    if (rc != 0) {
        return rc;
    }
    if (kind[0] == '\0') {
        snprintf(kind, sizeof(kind), "%s", strcmp(name, "warmup") == 0 ? "warmup" : "profiling");
        if (name[0] != '\0' && strcmp(name, "warmup") != 0 && strcmp(name, "profiling") != 0) {
            return config__yaml_fail(y, map, "%s: phase '%s' needs kind: warmup or profiling", path,
                                     name);
        }
    }
    if (strcmp(kind, "warmup") != 0 && strcmp(kind, "profiling") != 0) {
        return config__yaml_fail(y, child(map, "kind", NULL),
                                 "%s.kind: '%s' is not a phase kind; give warmup or profiling",
                                 path, kind);
    }
    *out_warmup = strcmp(kind, "warmup") == 0;
    return 0;
}

int config__yaml_phases(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                        const char *path)
{
    if (value != NULL && fy_node_is_mapping(value)) {
        snprintf(y->profiling_name, sizeof(y->profiling_name), "profiling");
        y->profiling_index = 0;
        return profiling_phase(y, key_node, value, path);
    }
    if (value == NULL || !fy_node_is_sequence(value) || fy_node_sequence_item_count(value) == 0) {
        return config__yaml_fail(y, key_node, "%s: expected a phase or a list of phases", path);
    }
    struct fy_node *phases[2] = {NULL, NULL}; /* warmup, profiling */
    char paths[2][CONFIG__YAML_PATH_BYTES];
    void *iter = NULL;
    struct fy_node *item;
    for (int i = 0; (item = fy_node_sequence_iterate(value, &iter)) != NULL; i++) {
        char item_path[CONFIG__YAML_PATH_BYTES];
        config__yaml_path(item_path, "%s[%d]", path, i);
        if (!fy_node_is_mapping(item)) {
            return config__yaml_fail(y, fy_node_is_scalar(item) ? item : key_node,
                                     "%s: expected a mapping of phase settings", item_path);
        }
        bool warmup = false;
        char name[64];
        int rc = phase_role(y, item, item_path, &warmup, name, sizeof(name));
        if (rc == 0 && (phases[warmup ? 0 : 1] != NULL || (warmup && phases[1] != NULL))) {
            rc = config__yaml_fail(y, item,
                                   "%s: ringperf runs one warmup phase and then one profiling "
                                   "phase; AIPerf's multi-phase workflows are not supported yet",
                                   item_path);
        }
        if (rc != 0) {
            return rc;
        }
        phases[warmup ? 0 : 1] = item;
        snprintf(paths[warmup ? 0 : 1], sizeof(paths[0]), "%s", item_path);
        if (!warmup) {
            snprintf(y->profiling_name, sizeof(y->profiling_name), "%s",
                     name[0] != '\0' ? name : "profiling");
            y->profiling_index = i;
        }
    }
    if (phases[1] == NULL) {
        return config__yaml_fail(y, key_node, "%s: there is no profiling phase", path);
    }
    int rc = profiling_phase(y, key_node, phases[1], paths[1]);
    return rc != 0 || phases[0] == NULL ? rc : warmup_phase(y, key_node, phases[0], paths[0]);
}
