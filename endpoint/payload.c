/*
 * payload.c - request bodies and --extra-inputs, built with jansson before the
 * run. jansson keeps object insertion order and replaces an existing key's
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

#include "endpoint/endpoint.h"
#include "endpoint/endpoint_internal.h"

void endpoint__err(char *errbuf, size_t errcap, const char *fmt, ...)
{
    va_list ap;
    if (!errbuf || errcap == 0) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(errbuf, errcap, fmt, ap);
    va_end(ap);
}

const char *endpoint_type_name(enum endpoint_type t)
{
    switch (t) {
    case ENDPOINT_CHAT:
        return "chat";
    case ENDPOINT_COMPLETIONS:
        return "completions";
    }
    return "unknown";
}

const char *endpoint_type_path(enum endpoint_type t)
{
    switch (t) {
    case ENDPOINT_CHAT:
        return "/v1/chat/completions";
    case ENDPOINT_COMPLETIONS:
        return "/v1/completions";
    }
    return "";
}

int endpoint_type_parse(const char *name, enum endpoint_type *out)
{
    if (name && strcmp(name, "chat") == 0) {
        *out = ENDPOINT_CHAT;
        return 0;
    }
    if (name && strcmp(name, "completions") == 0) {
        *out = ENDPOINT_COMPLETIONS;
        return 0;
    }
    return -EINVAL;
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

/* AIPerf _ensure_include_usage: stream_options.include_usage defaults to true
 * whenever the merged "stream" is truthy. Returns 0 or -ENOMEM. */
static int payload__stream_options(json_t *root)
{
    json_t *stream = json_object_get(root, "stream");
    if (!stream || !payload__truthy(stream)) {
        return 0;
    }
    json_t *opts = json_object_get(root, "stream_options");
    if (!opts || json_is_null(opts)) {
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

/* Base fields for `spec`, in AIPerf's order. Returns NULL on a bad prompt or
 * model (not UTF-8) or out of memory; the message goes to errbuf. */
static json_t *payload__base(const struct endpoint_payload_spec *spec, char *errbuf, size_t errcap)
{
    json_t *prompt = json_string(spec->prompt);
    json_t *model = json_string(spec->model);
    json_t *root = NULL;
    if (!prompt || !model) {
        endpoint__err(errbuf, errcap, "%s is not valid UTF-8 text", prompt ? "model" : "prompt");
        goto fail_strings;
    }
    if (spec->type == ENDPOINT_CHAT) {
        root = json_pack("{s:[{s:s,s:o}],s:o,s:b}", "messages", "role", "user", "content", prompt,
                         "model", model, "stream", spec->streaming);
    } else {
        root =
            json_pack("{s:o,s:o,s:b}", "prompt", prompt, "model", model, "stream", spec->streaming);
    }
    /* json_pack "o" steals the references, also on failure. */
    if (!root) {
        endpoint__err(errbuf, errcap, "out of memory building the request payload");
    }
    return root;

fail_strings:
    json_decref(model);
    json_decref(prompt);
    return NULL;
}

static int payload__max_tokens(json_t *root, const struct endpoint_payload_spec *spec, char *errbuf,
                               size_t errcap)
{
    if (spec->max_tokens == 0) {
        return 0;
    }
    if (spec->max_tokens > (uint64_t)LLONG_MAX) {
        endpoint__err(errbuf, errcap, "max_tokens %llu is too large",
                      (unsigned long long)spec->max_tokens);
        return -EINVAL;
    }
    const char *key = "max_tokens";
    if (spec->type == ENDPOINT_CHAT && !spec->use_legacy_max_tokens) {
        key = "max_completion_tokens";
    }
    if (json_object_set_new(root, key, json_integer((json_int_t)spec->max_tokens)) < 0) {
        endpoint__err(errbuf, errcap, "out of memory building the request payload");
        return -ENOMEM;
    }
    return 0;
}

static int payload__merge_extra(json_t *root, const char *extra_json, char *errbuf, size_t errcap)
{
    json_error_t jerr;
    if (!extra_json) {
        return 0;
    }
    json_t *extra = json_loads(extra_json, 0, &jerr);
    if (!extra || !json_is_object(extra)) {
        endpoint__err(errbuf, errcap,
                      "extra inputs must be a JSON object (%s); pass them through "
                      "endpoint_extra_inputs_parse()",
                      extra ? "got another JSON type" : jerr.text);
        json_decref(extra);
        return -EINVAL;
    }
    int rc = json_object_update(root, extra);
    json_decref(extra);
    if (rc < 0) {
        endpoint__err(errbuf, errcap, "out of memory merging extra inputs");
        return -ENOMEM;
    }
    return 0;
}

char *endpoint_payload_build(const struct endpoint_payload_spec *spec, char *errbuf, size_t errcap)
{
    char *out = NULL;
    if (!spec || !spec->model || !spec->prompt) {
        endpoint__err(errbuf, errcap, "a request payload needs a model and a prompt");
        return NULL;
    }
    if (spec->type != ENDPOINT_CHAT && spec->type != ENDPOINT_COMPLETIONS) {
        endpoint__err(errbuf, errcap, "unsupported endpoint type %d", (int)spec->type);
        return NULL;
    }
    json_t *root = payload__base(spec, errbuf, errcap);
    if (!root) {
        return NULL;
    }
    if (payload__max_tokens(root, spec, errbuf, errcap) < 0 ||
        payload__merge_extra(root, spec->extra_inputs_json, errbuf, errcap) < 0) {
        goto free_root;
    }
    if (payload__stream_options(root) < 0) {
        endpoint__err(errbuf, errcap, "out of memory setting stream_options");
        goto free_root;
    }
    out = endpoint__dump(root);
    if (!out) {
        endpoint__err(errbuf, errcap, "out of memory serialising the request payload");
    }

free_root:
    json_decref(root);
    return out;
}
