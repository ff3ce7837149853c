/*
 * payload_types.c - the base fields of each endpoint type's request body, in
 * AIPerf's key order (its format_payload() builds a dict in this order and
 * extra inputs are merged after it).
 */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "payload/payload_internal.h"

/* payload__set_new sets key to `v` (stolen); false when v is NULL or the set fails. */
static bool payload__set_new(json_t *obj, const char *key, json_t *v)
{
    return v && json_object_set_new(obj, key, v) == 0;
}

/* A JSON string of `s`, or NULL with a message when it is not UTF-8. */
static json_t *payload__text(const char *what, const char *s, char *errbuf, size_t errcap)
{
    json_t *v = json_string(s);
    if (!v) {
        payload__err(errbuf, errcap, "%s is not valid UTF-8 text", what);
    }
    return v;
}

static bool payload__has(const char *s)
{
    return s && *s;
}

/* Appends {"role":role,"content":text} (plus "type":"message" when
 * `typed`) to array `list`. */
static bool payload__message(json_t *list, const char *role, const char *text, bool typed,
                             char *errbuf, size_t errcap)
{
    json_t *content =
        payload__text(role[0] == 's' ? "system prompt" : "prompt", text, errbuf, errcap);
    json_t *m = content ? json_pack("{s:s,s:o}", "role", role, "content", content) : NULL;
    if (m && typed && json_object_set_new(m, "type", json_string("message")) < 0) {
        json_decref(m);
        m = NULL;
    }
    return m && json_array_append_new(list, m) == 0;
}

/* payload__history appends the earlier messages of the conversation. */
static bool payload__history(json_t *list, const struct payload_spec *spec, bool typed,
                             char *errbuf, size_t errcap)
{
    for (size_t i = 0; i < spec->history_count; i++) {
        const struct payload_message *msg = &spec->history[i];
        size_t len = msg->len;
        json_t *content =
            msg->media != NULL
                ? payload__user_content(spec->type, msg->text, msg->media, errbuf, errcap)
                : json_stringn(msg->text != NULL ? msg->text : "", len);
        /* A reply cut at a byte limit may end inside a character: drop it. */
        for (int cut = 1; content == NULL && msg->media == NULL && cut <= 3 && len > 0; cut++) {
            len--;
            content = json_stringn(msg->text, len);
        }
        if (content == NULL) {
            payload__err(errbuf, errcap, "history message %zu is not valid UTF-8", i);
            return false;
        }
        json_t *m = json_pack("{s:s,s:o}", "role", msg->role, "content", content);
        if (m != NULL && typed && json_object_set_new(m, "type", json_string("message")) < 0) {
            json_decref(m);
            m = NULL;
        }
        if (m == NULL || json_array_append_new(list, m) != 0) {
            payload__err(errbuf, errcap, "out of memory");
            return false;
        }
    }
    return true;
}

static bool payload__max_tokens(json_t *root, const char *key, uint64_t n, char *errbuf,
                                size_t errcap)
{
    if (n > (uint64_t)LLONG_MAX) {
        payload__err(errbuf, errcap, "max_tokens %llu is too large", (unsigned long long)n);
        return false;
    }
    return n == 0 || payload__set_new(root, key, json_integer((json_int_t)n));
}

/* chat, chat_embeddings, completions, responses, messages. */
static json_t *payload__llm(const struct payload_spec *spec, char *errbuf, size_t errcap)
{
    enum endpoint_type t = spec->type;
    json_t *root = json_object();
    json_t *list = json_array();
    bool chatty = t == ENDPOINT_CHAT || t == ENDPOINT_CHAT_EMBEDDINGS;
    bool ok = root && list;
    if (ok && chatty && payload__has(spec->system_prompt)) {
        ok = payload__message(list, "system", spec->system_prompt, false, errbuf, errcap);
    }
    if (ok && t == ENDPOINT_COMPLETIONS) {
        json_decref(list);
        list = payload__text("prompt", spec->prompt, errbuf, errcap);
        ok = list != NULL;
    } else if (ok) {
        ok = payload__history(list, spec, t == ENDPOINT_RESPONSES, errbuf, errcap) &&
             payload__user_message(list, spec, errbuf, errcap);
    }
    const char *list_key = t == ENDPOINT_COMPLETIONS ? "prompt"
                           : t == ENDPOINT_RESPONSES ? "input"
                                                     : "messages";
    if (ok) {
        ok = payload__set_new(root, list_key, list); /* takes the list, even on failure */
        list = NULL;
    }
    ok = ok && payload__set_new(root, "model", payload__text("model", spec->model, errbuf, errcap));
    if (ok && t == ENDPOINT_MESSAGES) {
        uint64_t n = spec->max_tokens ? spec->max_tokens : PAYLOAD_MESSAGES_MAX_TOKENS_DEFAULT;
        ok = payload__max_tokens(root, "max_tokens", n, errbuf, errcap) &&
             (!spec->streaming || payload__set_new(root, "stream", json_true()));
    } else if (ok) {
        /* chat_embeddings cannot stream: AIPerf turns --streaming off for it. */
        bool stream = spec->streaming && t != ENDPOINT_CHAT_EMBEDDINGS;
        ok = payload__set_new(root, "stream", json_boolean(stream));
    }
    if (ok && payload__has(spec->system_prompt) &&
        (t == ENDPOINT_RESPONSES || t == ENDPOINT_MESSAGES)) {
        ok = payload__set_new(root, t == ENDPOINT_RESPONSES ? "instructions" : "system",
                              payload__text("system prompt", spec->system_prompt, errbuf, errcap));
    }
    if (ok && t != ENDPOINT_MESSAGES) {
        const char *key = t == ENDPOINT_RESPONSES                  ? "max_output_tokens"
                          : chatty && !spec->use_legacy_max_tokens ? "max_completion_tokens"
                                                                   : "max_tokens";
        ok = payload__max_tokens(root, key, spec->max_tokens, errbuf, errcap);
    }
    json_decref(list);
    if (!ok) {
        json_decref(root);
        return NULL;
    }
    return root;
}

json_t *payload__texts(const struct payload_spec *spec, char *errbuf, size_t errcap)
{
    json_t *list = json_array();
    if (!list) {
        return NULL;
    }
    if (!spec->texts && spec->text_count == 0) {
        if (json_array_append_new(list, payload__text("prompt", spec->prompt, errbuf, errcap)) <
            0) {
            goto fail;
        }
        return list;
    }
    for (size_t i = 0; i < spec->text_count; i++) {
        if (!payload__has(spec->texts[i])) {
            continue;
        }
        if (json_array_append_new(list, payload__text("text", spec->texts[i], errbuf, errcap)) <
            0) {
            goto fail;
        }
    }
    return list;

fail:
    json_decref(list);
    return NULL;
}

/* TGI "inputs": the texts joined with one space. */
static json_t *payload__joined(const struct payload_spec *spec, char *errbuf, size_t errcap)
{
    json_t *list = payload__texts(spec, errbuf, errcap);
    if (!list) {
        return NULL;
    }
    size_t total = 1;
    size_t i;
    json_t *v;
    json_array_foreach(list, i, v)
    {
        total += json_string_length(v) + 1;
    }
    char *buf = malloc(total);
    json_t *out = NULL;
    if (buf) {
        size_t len = 0;
        json_array_foreach(list, i, v)
        {
            if (i > 0) {
                buf[len++] = ' ';
            }
            memcpy(buf + len, json_string_value(v), json_string_length(v));
            len += json_string_length(v);
        }
        out = json_stringn(buf, len);
        free(buf);
    }
    json_decref(list);
    return out;
}

static json_t *payload__embeddings(const struct payload_spec *spec, char *errbuf, size_t errcap)
{
    json_t *model = payload__text("model", spec->model, errbuf, errcap);
    json_t *input = model ? payload__texts(spec, errbuf, errcap) : NULL;
    if (!input) {
        json_decref(model);
        return NULL;
    }
    return json_pack("{s:o,s:o}", "model", model, "input", input);
}

/* Passages as strings, or as {"text":p} objects for NIM. */
static json_t *payload__passages(const struct payload_spec *spec, bool wrap, char *errbuf,
                                 size_t errcap)
{
    json_t *list = json_array();
    for (size_t i = 0; list && i < spec->passage_count; i++) {
        json_t *p = payload__text("passage", spec->passages[i], errbuf, errcap);
        if (p && wrap) {
            p = json_pack("{s:o}", "text", p);
        }
        if (json_array_append_new(list, p) < 0) {
            json_decref(list);
            return NULL;
        }
    }
    return list;
}

static json_t *payload__rankings(const struct payload_spec *spec, char *errbuf, size_t errcap)
{
    enum endpoint_type t = spec->type;
    json_t *query = payload__text("query", spec->query, errbuf, errcap);
    json_t *passages =
        query ? payload__passages(spec, t == ENDPOINT_NIM_RANKINGS, errbuf, errcap) : NULL;
    json_t *model = NULL;
    if (passages && t != ENDPOINT_HF_TEI_RANKINGS) {
        model = payload__text("model", spec->model, errbuf, errcap);
    }
    if (!passages || (!model && t != ENDPOINT_HF_TEI_RANKINGS)) {
        json_decref(query);
        json_decref(passages);
        return NULL;
    }
    /* json_pack "o" steals the references, also on failure. */
    if (t == ENDPOINT_NIM_RANKINGS) {
        return json_pack("{s:o,s:{s:o},s:o}", "model", model, "query", "text", query, "passages",
                         passages);
    }
    if (t == ENDPOINT_COHERE_RANKINGS) {
        return json_pack("{s:o,s:o,s:o}", "model", model, "query", query, "documents", passages);
    }
    return json_pack("{s:o,s:o}", "query", query, "texts", passages);
}

static json_t *payload__tgi(const struct payload_spec *spec, char *errbuf, size_t errcap)
{
    json_t *inputs = payload__joined(spec, errbuf, errcap);
    json_t *root = inputs ? json_pack("{s:o,s:{}}", "inputs", inputs, "parameters") : NULL;
    if (root && !payload__max_tokens(json_object_get(root, "parameters"), "max_new_tokens",
                                     spec->max_tokens, errbuf, errcap)) {
        json_decref(root);
        return NULL;
    }
    return root;
}

/* The inputs each type needs; a message names the missing one. */
static bool payload__check(const struct payload_spec *spec, char *errbuf, size_t errcap)
{
    enum endpoint_type t = spec->type;
    bool rankings = t == ENDPOINT_NIM_RANKINGS || t == ENDPOINT_COHERE_RANKINGS ||
                    t == ENDPOINT_HF_TEI_RANKINGS;
    bool texts = t == ENDPOINT_EMBEDDINGS || t == ENDPOINT_NIM_EMBEDDINGS ||
                 t == ENDPOINT_HUGGINGFACE_GENERATE || t == ENDPOINT_SOLIDO_RAG ||
                 t == ENDPOINT_TEMPLATE;
    bool needs_model = t != ENDPOINT_HF_TEI_RANKINGS && t != ENDPOINT_HUGGINGFACE_GENERATE &&
                       t != ENDPOINT_IMAGE_RETRIEVAL;
    if (t == ENDPOINT_RAW) {
        payload__err(errbuf, errcap,
                     "the raw endpoint sends each payload verbatim: give a raw payload (e.g. "
                     "--custom-dataset-type raw_payload or inputs_json)");
        return false;
    }
    if (needs_model && !spec->model) {
        payload__err(errbuf, errcap, "a %s request payload needs a model", endpoint_type_name(t));
        return false;
    }
    if (rankings && !spec->query) {
        payload__err(errbuf, errcap, "a %s request payload needs a query", endpoint_type_name(t));
        return false;
    }
    if (!rankings && t != ENDPOINT_IMAGE_RETRIEVAL && !spec->prompt &&
        (!texts || (!spec->texts && spec->text_count == 0))) {
        payload__err(errbuf, errcap, "a %s request payload needs a prompt%s", endpoint_type_name(t),
                     texts ? " or texts" : "");
        return false;
    }
    if (spec->text_count > 0 && !spec->texts) {
        payload__err(errbuf, errcap, "text_count is %zu but texts is NULL", spec->text_count);
        return false;
    }
    if (spec->passage_count > 0 && !spec->passages) {
        payload__err(errbuf, errcap, "passage_count is %zu but passages is NULL",
                     spec->passage_count);
        return false;
    }
    return true;
}

json_t *payload__payload_base(const struct payload_spec *spec, char *errbuf, size_t errcap)
{
    json_t *root = NULL;
    if (errbuf && errcap > 0) {
        errbuf[0] = '\0';
    }
    if (!payload__check(spec, errbuf, errcap)) {
        return NULL;
    }
    switch (spec->type) {
    case ENDPOINT_EMBEDDINGS:
    case ENDPOINT_NIM_EMBEDDINGS:
        root = payload__embeddings(spec, errbuf, errcap);
        break;
    case ENDPOINT_NIM_RANKINGS:
    case ENDPOINT_COHERE_RANKINGS:
    case ENDPOINT_HF_TEI_RANKINGS:
        root = payload__rankings(spec, errbuf, errcap);
        break;
    case ENDPOINT_HUGGINGFACE_GENERATE:
        root = payload__tgi(spec, errbuf, errcap);
        break;
    case ENDPOINT_IMAGE_GENERATION:
    case ENDPOINT_IMAGE_RETRIEVAL:
    case ENDPOINT_SOLIDO_RAG:
        root = payload__services_base(spec, errbuf, errcap);
        break;
    case ENDPOINT_TEMPLATE:
        root = payload__template_base(spec, errbuf, errcap);
        break;
    default:
        root = payload__llm(spec, errbuf, errcap);
        break;
    }
    if (!root && errbuf && errcap > 0 && errbuf[0] == '\0') {
        payload__err(errbuf, errcap, "out of memory building the request payload");
    }
    return root;
}
