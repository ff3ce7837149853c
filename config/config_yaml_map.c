/*
 * config_yaml_map.c - the benchmark: mapping of an AIPerf config file, key by key, as the
 * flags that set the same input_config fields (export/input_config.c writes them back).
 *
 * Each section is a table of its keys: the flag a key stands for, or how its value
 * unfolds (a mean/stddev pair, a ramp, a nested section). A key AIPerf has and ringperf
 * does not support is refused by name; any other key is unknown, with the nearest known
 * key offered.
 */
#include <errno.h>
#include <libfyaml.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"

#define PATH_MAX_BYTES CONFIG__YAML_PATH_BYTES
#define SECTION_KEYS_MAX 40

static int walk(struct config__yaml *y, const struct config__yk *table, struct fy_node *key_node,
                struct fy_node *map, const char *path);

static void join(char *out, const char *path, const char *key)
{
    config__yaml_path(out, "%s.%s", path, key);
}

/* scalar_key reads a key node's text; keys are plain scalars. */
static const char *scalar_key(struct fy_node *key_node, size_t *len)
{
    *len = 0;
    return key_node != NULL && fy_node_is_scalar(key_node) ? fy_node_get_scalar(key_node, len)
                                                           : NULL;
}

/* set_seconds converts "90", "30s", "5m" or "1h" to seconds for flag. */
static int set_seconds(struct config__yaml *y, const char *flag, struct fy_node *node,
                       const char *path)
{
    char text[64];
    bool null = false;
    int rc = config__yaml_text(y, node, path, text, sizeof(text), &null);
    if (rc != 0 || null) {
        return rc;
    }
    size_t len = strlen(text);
    double scale = 0;
    char last = len > 1 ? text[len - 1] : '\0';
    scale = last == 's' ? 1 : last == 'm' ? 60 : last == 'h' ? 3600 : 0;
    if (scale == 0 || text[len - 2] < '0' || text[len - 2] > '9') {
        return config__yaml_set(y, flag, node, path);
    }
    text[len - 1] = '\0';
    char *end = NULL;
    double v = strtod(text, &end);
    if (end == text || *end != '\0') {
        return config__yaml_fail(y, node,
                                 "%s: '%s%c' is not a time; give seconds or a number with s, m "
                                 "or h (e.g. 90, 30s, 5m)",
                                 path, text, last);
    }
    char seconds[64];
    snprintf(seconds, sizeof(seconds), "%.15g", v * scale); /* 0.1m is 6, not 6.0000000000000009 */
    return config__yaml_add(y, flag, seconds, path, node);
}

static int set_list(struct config__yaml *y, const char *flag, struct fy_node *value,
                    const char *path)
{
    if (!fy_node_is_sequence(value)) {
        return config__yaml_set(y, flag, value, path);
    }
    void *iter = NULL;
    struct fy_node *item;
    int i = 0;
    while ((item = fy_node_sequence_iterate(value, &iter)) != NULL) {
        char item_path[PATH_MAX_BYTES];
        config__yaml_path(item_path, "%s[%d]", path, i++);
        int rc = config__yaml_set(y, flag, item, item_path);
        if (rc != 0) {
            return rc;
        }
    }
    return 0;
}

static int set_pair(struct config__yaml *y, const struct config__yk *k, struct fy_node *key_node,
                    struct fy_node *value, const char *path)
{
    if (!fy_node_is_mapping(value)) {
        return config__yaml_set(y, k->flag, value, path);
    }
    struct config__yk table[] = {
        {"mean", CONFIG__YK_FLAG, k->flag, NULL, NULL, NULL},
        {"stddev", CONFIG__YK_FLAG, k->flag2, NULL, NULL, NULL},
        {NULL, 0, NULL, NULL, NULL, NULL},
    };
    return walk(y, table, key_node, value, path);
}

static int set_ramp(struct config__yaml *y, const char *flag, struct fy_node *key_node,
                    struct fy_node *value, const char *path)
{
    if (!fy_node_is_mapping(value)) {
        return set_seconds(y, flag, value, path);
    }
    struct config__yk table[] = {
        {"duration", CONFIG__YK_SECONDS, flag, NULL, NULL, NULL},
        {"strategy", CONFIG__YK_AIPERF, NULL, NULL, NULL, NULL},
        {NULL, 0, NULL, NULL, NULL, NULL},
    };
    return walk(y, table, key_node, value, path);
}

static int check_name(struct config__yaml *y, struct fy_node *value, const char *path)
{
    char text[72];
    bool null = false;
    int rc = config__yaml_text(y, value, path, text, sizeof(text), &null);
    size_t len = null ? 0 : strlen(text);
    bool ok = len > 0 && len <= 63 &&
              strspn(text, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqr"
                           "stuvwxyz0123456789_-") == len &&
              !(text[0] >= '0' && text[0] <= '9') && text[0] != '-';
    if (rc == 0 && !ok) {
        rc = config__yaml_fail(y, value,
                               "%s: a name is a letter or _ and then letters, digits, _ or - "
                               "(e.g. profiling)",
                               path);
    }
    return rc;
}

static int apply(struct config__yaml *y, const struct config__yk *k, struct fy_node *key_node,
                 struct fy_node *value, const char *path)
{
    switch (k->how) {
    case CONFIG__YK_FLAG:
        return config__yaml_set(y, k->flag, value, path);
    case CONFIG__YK_SECONDS:
        return set_seconds(y, k->flag, value, path);
    case CONFIG__YK_LIST:
        return set_list(y, k->flag, value, path);
    case CONFIG__YK_PAIR:
        return set_pair(y, k, key_node, value, path);
    case CONFIG__YK_RAMP:
        return set_ramp(y, k->flag, key_node, value, path);
    case CONFIG__YK_SECTION:
        return walk(y, k->section, key_node, value, path);
    case CONFIG__YK_CALL:
        return k->call(y, key_node, value, path);
    case CONFIG__YK_NAME:
        return check_name(y, value, path);
    default:
        return config__yaml_fail(y, key_node, "%s: AIPerf's %s is not supported by ringperf yet",
                                 path, k->key);
    }
}

/* walk reads the mapping map (the value of key_node) with table. */
static int walk(struct config__yaml *y, const struct config__yk *table, struct fy_node *key_node,
                struct fy_node *map, const char *path)
{
    char null_text[8];
    bool null = map == NULL;
    if (!null && fy_node_is_scalar(map) && fy_node_get_scalar_length(map) < sizeof(null_text) &&
        config__yaml_text(y, map, path, null_text, sizeof(null_text), &null) != 0) {
        null = false; /* not a null: refused below */
    }
    if (null) {
        return 0; /* `section:` or `section: ~` with nothing under it */
    }
    if (!fy_node_is_mapping(map)) {
        return config__yaml_fail(y, fy_node_is_scalar(map) ? map : key_node,
                                 "%s: expected a mapping of settings", path);
    }
    void *iter = NULL;
    struct fy_node_pair *pair;
    while ((pair = fy_node_mapping_iterate(map, &iter)) != NULL) {
        size_t len = 0;
        struct fy_node *key = fy_node_pair_key(pair);
        const char *text = scalar_key(key, &len);
        const struct config__yk *k = table;
        while (k->key != NULL && (text == NULL || !config__yaml_key_is(text, len, k->key))) {
            k++;
        }
        if (k->key == NULL) {
            const char *known[SECTION_KEYS_MAX + 1];
            size_t n = 0;
            for (const struct config__yk *t = table; t->key != NULL && n < SECTION_KEYS_MAX; t++) {
                known[n++] = t->key;
            }
            known[n] = NULL;
            return config__yaml_unknown(y, key, path, known);
        }
        char child[PATH_MAX_BYTES];
        join(child, path, k->key);
        int rc = apply(y, k, key, fy_node_pair_value(pair), child);
        if (rc != 0) {
            return rc;
        }
    }
    return 0;
}

/* ---- endpoint ---- */

static int set_headers(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                       const char *path)
{
    if (!fy_node_is_mapping(value)) {
        return config__yaml_fail(y, key_node, "%s: expected a mapping of header: value", path);
    }
    void *iter = NULL;
    struct fy_node_pair *pair;
    while ((pair = fy_node_mapping_iterate(value, &iter)) != NULL) {
        size_t len = 0;
        const char *name = scalar_key(fy_node_pair_key(pair), &len);
        char text[CONFIG_HEADER_BYTES_MAX + 1];
        bool null = false;
        char child[PATH_MAX_BYTES];
        config__yaml_path(child, "%s.%.*s", path, (int)(len > 64 ? 64 : len),
                          name != NULL ? name : "");
        int rc = config__yaml_text(y, fy_node_pair_value(pair), child, text, sizeof(text), &null);
        if (rc != 0) {
            return rc;
        }
        if (name == NULL || len + strlen(text) + 2 > CONFIG_HEADER_BYTES_MAX) {
            return config__yaml_fail(y, fy_node_pair_key(pair), "%s: header too long", child);
        }
        char header[CONFIG_HEADER_BYTES_MAX + 3];
        size_t value_len = null ? 0 : strlen(text);
        memcpy(header, name, len);
        memcpy(header + len, ": ", 2);
        memcpy(header + len + 2, null ? "" : text, value_len + 1);
        rc = config__yaml_add(y, "--header", header, child, fy_node_pair_key(pair));
        if (rc != 0) {
            return rc;
        }
    }
    return 0;
}

/* set_extra writes endpoint.extra as the one JSON object --extra-inputs takes; YAML's
 * plain scalars keep their types (numbers, booleans, null), quoted ones are strings. */
static int set_extra(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                     const char *path)
{
    if (!fy_node_is_mapping(value)) {
        return config__yaml_fail(y, key_node, "%s: expected a mapping of body fields", path);
    }
    char *json = fy_emit_node_to_string(value, FYECF_MODE_JSON_ONELINE | FYECF_NO_ENDING_NEWLINE);
    if (json == NULL) {
        return config__yaml_fail(y, key_node, "%s: cannot be written as JSON", path);
    }
    int rc =
        strlen(json) > CONFIG_ARG_BYTES_MAX
            ? config__yaml_fail(y, key_node, "%s: longer than %d bytes", path, CONFIG_ARG_BYTES_MAX)
            : config__yaml_add(y, "--extra-inputs", json, path, key_node);
    free(json);
    return rc;
}

static const struct config__yk hook_reset_keys[] = {
    {"enabled", CONFIG__YK_FLAG, "--reset-kv-cache", NULL, NULL, NULL},
    {"path", CONFIG__YK_FLAG, "--reset-kv-cache-path", NULL, NULL, NULL},
    {"timeout_seconds", CONFIG__YK_SECONDS, "--reset-kv-cache-timeout-seconds", NULL, NULL, NULL},
    {NULL, 0, NULL, NULL, NULL, NULL},
};

static const struct config__yk hook_profiler_keys[] = {
    {"enabled", CONFIG__YK_FLAG, "--server-profiler", NULL, NULL, NULL},
    {"start_path", CONFIG__YK_FLAG, "--server-profiler-start-path", NULL, NULL, NULL},
    {"stop_path", CONFIG__YK_FLAG, "--server-profiler-stop-path", NULL, NULL, NULL},
    {"timeout_seconds", CONFIG__YK_SECONDS, "--server-profiler-timeout-seconds", NULL, NULL, NULL},
    {NULL, 0, NULL, NULL, NULL, NULL},
};

/* set_hook reads a control hook: true/false, or its settings (which turn it on). */
static int set_hook(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                    const char *path, const char *flag, const struct config__yk *table)
{
    if (!fy_node_is_mapping(value)) {
        return config__yaml_set(y, flag, value, path);
    }
    return walk(y, table, key_node, value, path);
}

static int set_reset_hook(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                          const char *path)
{
    return set_hook(y, key_node, value, path, "--reset-kv-cache", hook_reset_keys);
}

static int set_profiler_hook(struct config__yaml *y, struct fy_node *key_node,
                             struct fy_node *value, const char *path)
{
    return set_hook(y, key_node, value, path, "--server-profiler", hook_profiler_keys);
}

static const struct config__yk endpoint_keys[] = {
    {"url", CONFIG__YK_LIST, "--url", NULL, NULL, NULL},
    {"urls", CONFIG__YK_LIST, "--url", NULL, NULL, NULL},
    {"url_strategy", CONFIG__YK_FLAG, "--url-strategy", NULL, NULL, NULL},
    {"type", CONFIG__YK_FLAG, "--endpoint-type", NULL, NULL, NULL},
    {"path", CONFIG__YK_FLAG, "--custom-endpoint", NULL, NULL, NULL},
    {"api_key", CONFIG__YK_FLAG, "--api-key", NULL, NULL, NULL},
    {"timeout", CONFIG__YK_SECONDS, "--request-timeout-seconds", NULL, NULL, NULL},
    {"streaming", CONFIG__YK_FLAG, "--streaming", NULL, NULL, NULL},
    {"transport", CONFIG__YK_FLAG, "--transport", NULL, NULL, NULL},
    {"connection_reuse", CONFIG__YK_FLAG, "--connection-reuse-strategy", NULL, NULL, NULL},
    {"use_legacy_max_tokens", CONFIG__YK_FLAG, "--use-legacy-max-tokens", NULL, NULL, NULL},
    {"use_server_token_count", CONFIG__YK_FLAG, "--use-server-token-count", NULL, NULL, NULL},
    {"headers", CONFIG__YK_CALL, NULL, NULL, NULL, set_headers},
    {"extra", CONFIG__YK_CALL, NULL, NULL, NULL, set_extra},
    {"session_header", CONFIG__YK_FLAG, "--session-header", NULL, NULL, NULL},
    {"wait_for_model_timeout", CONFIG__YK_SECONDS, "--wait-for-model-timeout", NULL, NULL, NULL},
    {"wait_for_model_interval", CONFIG__YK_SECONDS, "--wait-for-model-interval", NULL, NULL, NULL},
    {"wait_for_model_mode", CONFIG__YK_FLAG, "--wait-for-model-mode", NULL, NULL, NULL},
    {"reset_kv_cache", CONFIG__YK_CALL, NULL, NULL, NULL, set_reset_hook},
    {"server_profiler", CONFIG__YK_CALL, NULL, NULL, NULL, set_profiler_hook},
    {"template", CONFIG__YK_AIPERF, NULL, NULL, NULL, NULL},
    {"download_video_content", CONFIG__YK_FLAG, "--download-video-content", NULL, NULL, NULL},
    {"request_content_type", CONFIG__YK_FLAG, "--request-content-type", NULL, NULL, NULL},
    {"uuid_and_strip", CONFIG__YK_AIPERF, NULL, NULL, NULL, NULL},
    {NULL, 0, NULL, NULL, NULL, NULL},
};

/* ---- models ---- */

static const struct config__yk model_item_keys[] = {
    {"name", CONFIG__YK_FLAG, "--model", NULL, NULL, NULL},
    {"weight", CONFIG__YK_AIPERF, NULL, NULL, NULL, NULL},
    {"lora", CONFIG__YK_AIPERF, NULL, NULL, NULL, NULL},
    {"modalities", CONFIG__YK_AIPERF, NULL, NULL, NULL, NULL},
    {"tokenizer", CONFIG__YK_AIPERF, NULL, NULL, NULL, NULL},
    {NULL, 0, NULL, NULL, NULL, NULL},
};

/* set_model_items reads [name, ...] or [{name: ...}, ...]. */
static int set_model_items(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                           const char *path)
{
    if (!fy_node_is_sequence(value)) {
        return config__yaml_set(y, "--model", value, path);
    }
    void *iter = NULL;
    struct fy_node *item;
    int i = 0;
    while ((item = fy_node_sequence_iterate(value, &iter)) != NULL) {
        char child[PATH_MAX_BYTES];
        config__yaml_path(child, "%s[%d]", path, i++);
        int rc = fy_node_is_mapping(item) ? walk(y, model_item_keys, key_node, item, child)
                                          : config__yaml_set(y, "--model", item, child);
        if (rc != 0) {
            return rc;
        }
    }
    return 0;
}

static const struct config__yk models_keys[] = {
    {"strategy", CONFIG__YK_FLAG, "--model-selection-strategy", NULL, NULL, NULL},
    {"items", CONFIG__YK_CALL, NULL, NULL, NULL, set_model_items},
    {NULL, 0, NULL, NULL, NULL, NULL},
};

static int set_models(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                      const char *path)
{
    if (fy_node_is_mapping(value)) {
        return walk(y, models_keys, key_node, value, path);
    }
    return set_model_items(y, key_node, value, path);
}

/* ---- the rest of benchmark: ---- */

/* set_records reads artifacts.records: false is --export-level summary; [jsonl] or true
 * is the default. */
static int set_records(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                       const char *path)
{
    if (fy_node_is_sequence(value)) {
        struct fy_node *only = fy_node_sequence_get_by_index(value, 0);
        size_t len = 0;
        const char *text =
            only != NULL && fy_node_is_scalar(only) ? fy_node_get_scalar(only, &len) : NULL;
        bool jsonl = fy_node_sequence_item_count(value) == 1 && text != NULL && len == 5 &&
                     memcmp(text, "jsonl", 5) == 0;
        return jsonl ? 0
                     : config__yaml_fail(y, key_node, "%s: ringperf writes records as [jsonl] only",
                                         path);
    }
    char text[16];
    bool null = false;
    int rc = config__yaml_text(y, value, path, text, sizeof(text), &null);
    if (rc != 0 || null || strcmp(text, "true") == 0) {
        return rc;
    }
    if (strcmp(text, "false") != 0) {
        return config__yaml_fail(y, value, "%s: expected false, true or [jsonl]", path);
    }
    return config__yaml_add(y, "--export-level", "summary", path, value);
}

/* set_raw reads artifacts.raw: true is --export-level raw, false --export-level records. */
static int set_raw(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                   const char *path)
{
    (void)key_node;
    bool on = false;
    int rc = config__yaml_bool(y, value, path, &on);
    return rc != 0 ? (rc > 0 ? 0 : rc)
                   : config__yaml_add(y, "--export-level", on ? "raw" : "records", path, value);
}

static const struct config__yk artifacts_keys[] = {
    {"dir", CONFIG__YK_FLAG, "--artifact-dir", NULL, NULL, NULL},
    {"prefix", CONFIG__YK_FLAG, "--profile-export-prefix", NULL, NULL, NULL},
    {"records", CONFIG__YK_CALL, NULL, NULL, NULL, set_records},
    {"raw", CONFIG__YK_CALL, NULL, NULL, NULL, set_raw},
    {"trace", CONFIG__YK_FLAG, "--export-http-trace", NULL, NULL, NULL},
    {"show_trace_timing", CONFIG__YK_FLAG, "--show-trace-timing", NULL, NULL, NULL},
    {"slice_duration", CONFIG__YK_SECONDS, "--slice-duration", NULL, NULL, NULL},
    {"export_outputs_json", CONFIG__YK_FLAG, "--export-outputs-json", NULL, NULL, NULL},
    {"auto_plot", CONFIG__YK_FLAG, "--auto-plot", NULL, NULL, NULL},
    {"plot_required", CONFIG__YK_FLAG, "--plot-required", NULL, NULL, NULL},
    {"summary", CONFIG__YK_AIPERF, NULL, NULL, NULL, NULL},
    {"user_files", CONFIG__YK_AIPERF, NULL, NULL, NULL, NULL},
    {NULL, 0, NULL, NULL, NULL, NULL},
};

/* set_enabled_off reads a telemetry section's enabled: false as flag (--no-...). */
static int set_enabled_off(struct config__yaml *y, const char *flag, struct fy_node *value,
                           const char *path)
{
    bool on = true;
    int rc = config__yaml_bool(y, value, path, &on);
    return rc != 0 || on ? (rc > 0 ? 0 : rc) : config__yaml_add(y, flag, "true", path, value);
}

static int gpu_enabled(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                       const char *path)
{
    (void)key_node;
    return set_enabled_off(y, "--no-gpu-telemetry", value, path);
}

static int server_enabled(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                          const char *path)
{
    (void)key_node;
    return set_enabled_off(y, "--no-server-metrics", value, path);
}

/* empty_urls accepts the empty URL list input_config writes; scraping is not supported. */
static int empty_urls(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                      const char *path)
{
    if (fy_node_is_sequence(value) && fy_node_sequence_item_count(value) == 0) {
        return 0;
    }
    return config__yaml_fail(y, key_node, "%s: ringperf does not scrape metrics URLs yet", path);
}

static const struct config__yk gpu_keys[] = {
    {"enabled", CONFIG__YK_CALL, NULL, NULL, NULL, gpu_enabled},
    {"urls", CONFIG__YK_CALL, NULL, NULL, NULL, empty_urls},
    {"metrics_file", CONFIG__YK_AIPERF, NULL, NULL, NULL, NULL},
    {"collector", CONFIG__YK_AIPERF, NULL, NULL, NULL, NULL},
    {"mode", CONFIG__YK_AIPERF, NULL, NULL, NULL, NULL},
    {NULL, 0, NULL, NULL, NULL, NULL},
};

static const struct config__yk server_metrics_keys[] = {
    {"enabled", CONFIG__YK_CALL, NULL, NULL, NULL, server_enabled},
    {"urls", CONFIG__YK_CALL, NULL, NULL, NULL, empty_urls},
    {"formats", CONFIG__YK_AIPERF, NULL, NULL, NULL, NULL},
    {"discovery", CONFIG__YK_AIPERF, NULL, NULL, NULL, NULL},
    {NULL, 0, NULL, NULL, NULL, NULL},
};

/* network_enabled checks enabled: true or false; set_network acts on it. */
static int network_enabled(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                           const char *path)
{
    (void)key_node;
    bool on = false;
    int rc = config__yaml_bool(y, value, path, &on);
    return rc > 0 ? 0 : rc;
}

static const struct config__yk network_keys[] = {
    {"enabled", CONFIG__YK_CALL, NULL, NULL, NULL, network_enabled},
    {"mean_ms", CONFIG__YK_FLAG, "--network-latency-mean", NULL, NULL, NULL},
    {"ping_interval", CONFIG__YK_SECONDS, "--network-latency-ping-interval", NULL, NULL, NULL},
    {NULL, 0, NULL, NULL, NULL, NULL},
};

/* set_network reads network_latency: a mean_ms is --network-latency-mean; enabled: true
 * without one measures the round trip, --network-latency-automatic. */
static int set_network(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                       const char *path)
{
    int rc = config__yaml_walk(y, network_keys, key_node, value, path);
    if (rc != 0 || value == NULL || !fy_node_is_mapping(value)) {
        return rc;
    }
    struct fy_node *enabled = NULL;
    bool mean = false;
    void *iter = NULL;
    struct fy_node_pair *pair;
    while ((pair = fy_node_mapping_iterate(value, &iter)) != NULL) {
        size_t len = 0;
        const char *key = scalar_key(fy_node_pair_key(pair), &len);
        enabled = key != NULL && config__yaml_key_is(key, len, "enabled") ? fy_node_pair_value(pair)
                                                                          : enabled;
        mean = mean || (key != NULL && config__yaml_key_is(key, len, "mean_ms"));
    }
    bool on = false;
    if (enabled == NULL || mean || config__yaml_bool(y, enabled, path, &on) != 0 || !on) {
        return 0;
    }
    return config__yaml_add(y, "--network-latency-automatic", "true", path, enabled);
}

static const struct config__yk runtime_keys[] = {
    {"ui", CONFIG__YK_FLAG, "--ui-type", NULL, NULL, NULL},
    {"workers", CONFIG__YK_FLAG, "--workers-max", NULL, NULL, NULL},
    {"api_port", CONFIG__YK_FLAG, "--api-port", NULL, NULL, NULL},
    {"api_host", CONFIG__YK_FLAG, "--api-host", NULL, NULL, NULL},
    {"stats_interval", CONFIG__YK_SECONDS, "--stats-interval", NULL, NULL, NULL},
    {"record_processors", CONFIG__YK_FLAG, "--record-processor-service-count", NULL, NULL, NULL},
    {NULL, 0, NULL, NULL, NULL, NULL},
};

static const struct config__yk logging_keys[] = {
    {"level", CONFIG__YK_FLAG, "--log-level", NULL, NULL, NULL},
    {NULL, 0, NULL, NULL, NULL, NULL},
};

static const struct config__yk tokenizer_keys[] = {
    {"name", CONFIG__YK_FLAG, "--tokenizer", NULL, NULL, NULL},
    {"revision", CONFIG__YK_FLAG, "--tokenizer-revision", NULL, NULL, NULL},
    {"trust_remote_code", CONFIG__YK_FLAG, "--tokenizer-trust-remote-code", NULL, NULL, NULL},
    {"apply_chat_template", CONFIG__YK_FLAG, "--apply-chat-template", NULL, NULL, NULL},
    {NULL, 0, NULL, NULL, NULL, NULL},
};

/* set_slos writes slos: {tag: threshold} as --goodput "tag:threshold ...". */
static int set_slos(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                    const char *path)
{
    if (!fy_node_is_mapping(value)) {
        return config__yaml_fail(y, key_node, "%s: expected a mapping of metric: threshold", path);
    }
    char goodput[4096] = "";
    size_t used = 0;
    void *iter = NULL;
    struct fy_node_pair *pair;
    while ((pair = fy_node_mapping_iterate(value, &iter)) != NULL) {
        size_t len = 0;
        const char *tag = scalar_key(fy_node_pair_key(pair), &len);
        char threshold[64];
        bool null = false;
        int rc = config__yaml_text(y, fy_node_pair_value(pair), path, threshold, sizeof(threshold),
                                   &null);
        if (rc != 0) {
            return rc;
        }
        int n = snprintf(goodput + used, sizeof(goodput) - used, "%s%.*s:%s", used > 0 ? " " : "",
                         (int)len, tag != NULL ? tag : "", null ? "" : threshold);
        if (n < 0 || (size_t)n >= sizeof(goodput) - used) {
            return config__yaml_fail(y, key_node, "%s: too many objectives", path);
        }
        used += (size_t)n;
    }
    return used == 0 ? 0 : config__yaml_add(y, "--goodput", goodput, path, key_node);
}

/* set_empty accepts an integration section with nothing set, as input_config writes it. */
static int set_empty(struct config__yaml *y, struct fy_node *key_node, struct fy_node *value,
                     const char *path)
{
    bool empty = value == NULL || (fy_node_is_mapping(value) && fy_node_mapping_is_empty(value)) ||
                 (fy_node_is_scalar(value) && fy_node_get_scalar_length(value) == 0);
    return empty ? 0
                 : config__yaml_fail(y, key_node,
                                     "%s: AIPerf's %s export is not supported by "
                                     "ringperf yet",
                                     path, path + strlen("benchmark."));
}

static const struct config__yk benchmark_keys[] = {
    {"model", CONFIG__YK_CALL, NULL, NULL, NULL, set_models},
    {"models", CONFIG__YK_CALL, NULL, NULL, NULL, set_models},
    {"endpoint", CONFIG__YK_SECTION, NULL, NULL, endpoint_keys, NULL},
    {"dataset", CONFIG__YK_CALL, NULL, NULL, NULL, config__yaml_dataset},
    {"datasets", CONFIG__YK_CALL, NULL, NULL, NULL, config__yaml_dataset},
    {"phases", CONFIG__YK_CALL, NULL, NULL, NULL, config__yaml_phases},
    {"artifacts", CONFIG__YK_SECTION, NULL, NULL, artifacts_keys, NULL},
    {"gpu_telemetry", CONFIG__YK_SECTION, NULL, NULL, gpu_keys, NULL},
    {"server_metrics", CONFIG__YK_SECTION, NULL, NULL, server_metrics_keys, NULL},
    {"network_latency", CONFIG__YK_CALL, NULL, NULL, NULL, set_network},
    {"runtime", CONFIG__YK_SECTION, NULL, NULL, runtime_keys, NULL},
    {"logging", CONFIG__YK_SECTION, NULL, NULL, logging_keys, NULL},
    {"tokenizer", CONFIG__YK_SECTION, NULL, NULL, tokenizer_keys, NULL},
    {"slos", CONFIG__YK_CALL, NULL, NULL, NULL, set_slos},
    {"otel", CONFIG__YK_CALL, NULL, NULL, NULL, set_empty},
    {"mlflow", CONFIG__YK_CALL, NULL, NULL, NULL, set_empty},
    {"wandb", CONFIG__YK_CALL, NULL, NULL, NULL, set_empty},
    {"metrics", CONFIG__YK_CALL, NULL, NULL, NULL, set_empty},
    {"accuracy", CONFIG__YK_AIPERF, NULL, NULL, NULL, NULL},
    {"scenario", CONFIG__YK_FLAG, "--scenario", NULL, NULL, NULL},
    {"unsafe_override", CONFIG__YK_FLAG, "--unsafe-override", NULL, NULL, NULL},
    {NULL, 0, NULL, NULL, NULL, NULL},
};

int config__yaml_walk(struct config__yaml *y, const struct config__yk *table,
                      struct fy_node *key_node, struct fy_node *map, const char *path)
{
    return walk(y, table, key_node, map, path);
}

int config__yaml_benchmark(struct config__yaml *y, struct fy_node *benchmark)
{
    return walk(y, benchmark_keys, benchmark, benchmark, "benchmark");
}
