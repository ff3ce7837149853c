/*
 * payload.c - request bodies: the shared steps (extra inputs, stream_options,
 * serialising), built with jansson before the run; the per-type base fields
 * are in payload_types.c. jansson keeps object insertion order and replaces an existing key's
 * value in place, which is exactly Python's dict.update() order that AIPerf's
 * payloads (and so their byte layout) follow.
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "payload/payload.h"
#include "payload/payload_internal.h"

void payload__err(char *errbuf, size_t errcap, const char *fmt, ...)
{
    va_list ap;
    if (!errbuf || errcap == 0) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(errbuf, errcap, fmt, ap);
    va_end(ap);
}

/* Python truthiness of a JSON value. */
static bool payload__truthy(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT:
        return json_object_size(v) > 0;
    case JSON_ARRAY:
        return json_array_size(v) > 0;
    case JSON_STRING:
        return json_string_length(v) > 0;
    case JSON_INTEGER:
        return json_integer_value(v) != 0;
    case JSON_REAL:
        return json_real_value(v) != 0.0;
    case JSON_TRUE:
        return true;
    default:
        return false;
    }
}

/* AIPerf _ensure_include_usage: stream_options.include_usage defaults to true.
 * `replace_other` replaces a stream_options that is not an object (responses)
 * instead of keeping it (chat/completions keep anything but null). Returns 0
 * or -ENOMEM. */
static int payload__include_usage(json_t *root, bool replace_other)
{
    json_t *opts = json_object_get(root, "stream_options");
    if (!opts || json_is_null(opts) || (replace_other && !json_is_object(opts))) {
        opts = json_pack("{s:b}", "include_usage", 1);
        if (!opts || json_object_set_new(root, "stream_options", opts) < 0) {
            return -ENOMEM;
        }
        return 0;
    }
    if (json_is_object(opts) && !json_object_get(opts, "include_usage")) {
        if (json_object_set_new(opts, "include_usage", json_true()) < 0) {
            return -ENOMEM;
        }
    }
    return 0;
}

/* payload__continuous_usage sets stream_options.continuous_usage_stats
 * unless the extra inputs already did (after payload__include_usage, so
 * stream_options is an object or something the user chose to send). */
static int payload__continuous_usage(json_t *root)
{
    json_t *opts = json_object_get(root, "stream_options");
    if (!json_is_object(opts) || json_object_get(opts, "continuous_usage_stats") != NULL) {
        return 0;
    }
    return json_object_set_new(opts, "continuous_usage_stats", json_true()) < 0 ? -ENOMEM : 0;
}

/* stream_options per type, after the extra inputs are merged. */
static int payload__stream_options(json_t *root, const struct payload_spec *spec)
{
    switch (spec->type) {
    case ENDPOINT_CHAT:
    case ENDPOINT_CHAT_EMBEDDINGS:
    case ENDPOINT_COMPLETIONS: {
        json_t *stream = json_object_get(root, "stream");
        if (!stream || !payload__truthy(stream)) {
            return 0;
        }
        int ret = payload__include_usage(root, false);
        return ret == 0 && spec->per_chunk_usage && spec->type == ENDPOINT_CHAT
                   ? payload__continuous_usage(root)
                   : ret;
    }
    case ENDPOINT_RESPONSES:
        return spec->streaming && spec->use_server_token_count ? payload__include_usage(root, true)
                                                               : 0;
    default:
        return 0;
    }
}

static int payload__merge_extra(json_t *root, const char *extra_json, char *errbuf, size_t errcap)
{
    json_error_t jerr;
    if (!extra_json) {
        return 0;
    }
    json_t *extra = json_loads(extra_json, 0, &jerr);
    if (!extra || !json_is_object(extra)) {
        payload__err(errbuf, errcap,
                     "extra inputs must be a JSON object (%s); pass them through "
                     "payload_extra_inputs_parse()",
                     extra ? "got another JSON type" : jerr.text);
        json_decref(extra);
        return -EINVAL;
    }
    if (!json_is_object(root) && json_object_size(extra) > 0) {
        /* A template can render any JSON value; AIPerf's dict.update needs a dict. */
        payload__err(errbuf, errcap,
                     "the payload_template rendered a JSON %s, so the other "
                     "--extra-inputs have no object to merge into",
                     json_is_array(root) ? "array" : "value that is not an object");
        json_decref(extra);
        return -EINVAL;
    }
    int rc = json_is_object(root) ? json_object_update(root, extra) : 0;
    json_decref(extra);
    if (rc < 0) {
        payload__err(errbuf, errcap, "out of memory merging extra inputs");
        return -ENOMEM;
    }
    return 0;
}

/* The object the extra inputs merge into: TGI's "parameters", else the root. */
static json_t *payload__extra_target(json_t *root, const struct payload_spec *spec)
{
    if (spec->type == ENDPOINT_HUGGINGFACE_GENERATE) {
        return json_object_get(root, "parameters");
    }
    return root;
}

static char *payload__raw(const struct payload_spec *spec, char *errbuf, size_t errcap)
{
    char *out = strdup(spec->raw_payload);
    if (!out) {
        payload__err(errbuf, errcap, "out of memory copying the raw payload");
    }
    return out;
}

char *payload_cache_bust_text(enum payload_cache_bust where, uint64_t key, const char *text)
{
    char marker[32];
    snprintf(marker, sizeof(marker), "[rid:%012llx]",
             (unsigned long long)(key & 0xffffffffffffULL));
    bool prefix =
        where == PAYLOAD_CACHE_BUST_SYSTEM_PREFIX || where == PAYLOAD_CACHE_BUST_FIRST_TURN_PREFIX;
    const char *t = text != NULL ? text : "";
    size_t n = strlen(t) + strlen(marker) + 3;
    char *out = malloc(n);
    if (out != NULL) {
        snprintf(out, n, "%s\n\n%s", prefix ? marker : t, prefix ? t : marker);
    }
    return out;
}

/* payload__build_busted builds spec with its cache-bust marker in place. */
static char *payload__build_busted(const struct payload_spec *spec, char *errbuf, size_t errcap)
{
    struct payload_spec busted = *spec;
    busted.cache_bust = PAYLOAD_CACHE_BUST_NONE;
    bool system = spec->cache_bust == PAYLOAD_CACHE_BUST_SYSTEM_PREFIX ||
                  spec->cache_bust == PAYLOAD_CACHE_BUST_SYSTEM_SUFFIX;
    char *text = payload_cache_bust_text(spec->cache_bust, spec->cache_bust_key,
                                         system ? spec->system_prompt : spec->prompt);
    if (system) {
        busted.system_prompt = text;
    } else {
        busted.prompt = text;
    }
    if (text == NULL) {
        payload__err(errbuf, errcap, "out of memory adding the cache-bust marker");
        return NULL;
    }
    char *out = payload_build(&busted, errbuf, errcap);
    free(text);
    return out;
}

char *payload_build(const struct payload_spec *spec, char *errbuf, size_t errcap)
{
    char *out = NULL;
    if (!spec || (unsigned)spec->type >= ENDPOINT_TYPE_COUNT) {
        payload__err(errbuf, errcap, "unsupported endpoint type %d", spec ? (int)spec->type : -1);
        return NULL;
    }
    if (spec->raw_payload) {
        return payload__raw(spec, errbuf, errcap);
    }
    if (spec->cache_bust != PAYLOAD_CACHE_BUST_NONE) {
        return payload__build_busted(spec, errbuf, errcap);
    }
    if (!payload__media_allowed(spec, errbuf, errcap)) {
        return NULL;
    }
    json_t *root = payload__payload_base(spec, errbuf, errcap);
    if (!root) {
        return NULL;
    }
    if (payload__merge_extra(payload__extra_target(root, spec), spec->extra_inputs_json, errbuf,
                             errcap) < 0) {
        goto free_root;
    }
    if (payload__stream_options(root, spec) < 0) {
        payload__err(errbuf, errcap, "out of memory setting stream_options");
        goto free_root;
    }
    out = payload__dump(root);
    if (!out) {
        payload__err(errbuf, errcap, "out of memory serialising the request payload");
    }

free_root:
    json_decref(root);
    return out;
}
