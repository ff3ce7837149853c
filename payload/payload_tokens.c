/*
 * payload_tokens.c - the bodies of the token-id endpoints: SGLang's native
 * /generate (sglang_generate) and vLLM's /inference/v1/generate
 * (vllm_generate), in the key order of AIPerf's format_payload
 * (sglang_generate.py, vllm_generate.py). Their extra inputs do not simply
 * follow the base fields: SGLang's come first and feed "sampling_params",
 * vLLM's follow and must leave "stream" false.
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>

#include "payload/payload_internal.h"

/* The prompt's ids as a JSON list. */
static json_t *tokens__ids(const struct payload_spec *spec)
{
    json_t *list = json_array();
    for (size_t i = 0; list != NULL && i < spec->token_id_count; i++) {
        if (json_array_append_new(list, json_integer(spec->token_ids[i])) < 0) {
            json_decref(list);
            return NULL;
        }
    }
    return list;
}

/* The extra inputs as an object (an empty one without any); NULL with a message. */
static json_t *tokens__extra(const struct payload_spec *spec, char *errbuf, size_t errcap)
{
    if (spec->extra_inputs_json == NULL) {
        return json_object();
    }
    json_error_t jerr;
    json_t *extra = json_loads(spec->extra_inputs_json, 0, &jerr);
    if (!json_is_object(extra)) {
        payload__err(errbuf, errcap, "extra inputs must be a JSON object (%s)",
                     extra != NULL ? "got another JSON type" : jerr.text);
        json_decref(extra);
        return NULL;
    }
    return extra;
}

/* tokens__take removes `key` from obj and returns its value (a reference the caller owns). */
static json_t *tokens__take(json_t *obj, const char *key)
{
    json_t *v = json_incref(json_object_get(obj, key));
    json_object_del(obj, key);
    return v;
}

static bool tokens__max_tokens(const struct payload_spec *spec, char *errbuf, size_t errcap)
{
    if (spec->max_tokens > (uint64_t)LLONG_MAX) {
        payload__err(errbuf, errcap, "max_tokens %llu is too large",
                     (unsigned long long)spec->max_tokens);
        return false;
    }
    return true;
}

/* sglang_generate: sampling_params start as {"ignore_eos":true}, take the extra
 * inputs' sampling_params, then max_new_tokens; a JSON "null" sampling_params
 * counts as none, as AIPerf's. */
static int tokens__sglang(const struct payload_spec *spec, json_t *root, char *errbuf,
                          size_t errcap)
{
    json_t *extra_sampling = tokens__take(root, "sampling_params");
    json_t *priority = tokens__take(root, "priority");
    json_t *sampling = json_pack("{s:b}", "ignore_eos", 1);
    int ret = sampling != NULL ? 0 : -ENOMEM;
    if (ret == 0 && extra_sampling != NULL && !json_is_null(extra_sampling)) {
        if (!json_is_object(extra_sampling)) {
            payload__err(errbuf, errcap, "--extra-inputs sampling_params must be a JSON object");
            ret = -EINVAL;
        } else if (json_object_update(sampling, extra_sampling) < 0) {
            ret = -ENOMEM;
        }
    }
    if (ret == 0 && spec->max_tokens > 0 &&
        json_object_set_new(sampling, "max_new_tokens",
                            json_integer((json_int_t)spec->max_tokens)) < 0) {
        ret = -ENOMEM;
    }
    json_t *ids = ret == 0 ? tokens__ids(spec) : NULL;
    if (ret == 0 && (ids == NULL || json_object_set_new(root, "input_ids", ids) < 0 ||
                     json_object_set(root, "sampling_params", sampling) < 0 ||
                     json_object_set_new(root, "stream", json_true()) < 0 ||
                     (priority != NULL && json_object_set(root, "priority", priority) < 0))) {
        ret = -ENOMEM;
    }
    json_decref(sampling);
    json_decref(extra_sampling);
    json_decref(priority);
    return ret;
}

/* vllm_generate: {"model","token_ids","sampling_params","stream":false}, then the other extra
 * inputs merged over them. The extra inputs' sampling_params are the request's, with
 * "max_tokens" added when they lack it (AIPerf's handling of a record's sampling_params). */
static json_t *tokens__vllm(const struct payload_spec *spec, json_t *extra, char *errbuf,
                            size_t errcap)
{
    json_t *model = spec->model != NULL ? json_string(spec->model) : NULL;
    if (model == NULL) {
        payload__err(errbuf, errcap, "a vllm_generate request payload needs a UTF-8 model name");
        return NULL;
    }
    json_t *sampling = tokens__take(extra, "sampling_params");
    if (sampling == NULL || json_is_null(sampling)) {
        json_decref(sampling);
        sampling = json_object();
    } else if (!json_is_object(sampling)) {
        payload__err(errbuf, errcap, "--extra-inputs sampling_params must be a JSON object");
        json_decref(sampling);
        json_decref(model);
        return NULL;
    }
    if (spec->max_tokens > 0 && json_object_get(sampling, "max_tokens") == NULL) {
        json_object_set_new(sampling, "max_tokens", json_integer((json_int_t)spec->max_tokens));
    }
    json_t *root = json_pack("{s:o,s:o,s:o,s:b}", "model", model, "token_ids", tokens__ids(spec),
                             "sampling_params", sampling, "stream", 0);
    if (root == NULL || json_object_update(root, extra) < 0) {
        json_decref(root);
        return NULL;
    }
    if (!json_is_false(json_object_get(root, "stream"))) {
        payload__err(errbuf, errcap,
                     "vllm_generate does not stream: --extra-inputs must leave \"stream\" false");
        json_decref(root);
        return NULL;
    }
    return root;
}

char *payload__token_ids_build(const struct payload_spec *spec, char *errbuf, size_t errcap)
{
    if (spec->token_ids == NULL || spec->token_id_count == 0) {
        payload__err(errbuf, errcap, "a %s request needs the prompt as token ids (at least one)",
                     endpoint_type_name(spec->type));
        return NULL;
    }
    if (!tokens__max_tokens(spec, errbuf, errcap)) {
        return NULL;
    }
    if (errbuf != NULL && errcap > 0) {
        errbuf[0] = '\0';
    }
    json_t *extra = tokens__extra(spec, errbuf, errcap);
    if (extra == NULL) {
        return NULL;
    }
    json_t *root = NULL;
    if (spec->type == ENDPOINT_SGLANG_GENERATE) {
        root = extra;
        extra = NULL;
        if (tokens__sglang(spec, root, errbuf, errcap) != 0) {
            json_decref(root);
            root = NULL;
        }
    } else {
        root = tokens__vllm(spec, extra, errbuf, errcap);
    }
    json_decref(extra);
    char *out = root != NULL ? payload__dump(root) : NULL;
    json_decref(root);
    if (out == NULL && errbuf != NULL && errcap > 0 && errbuf[0] == '\0') {
        payload__err(errbuf, errcap, "out of memory building the %s request payload",
                     endpoint_type_name(spec->type));
    }
    return out;
}
