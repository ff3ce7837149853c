/*
 * body_tokens.c - the input tokens of a request body sent verbatim (raw_payload, inputs_json):
 * AIPerf tokenizes the request as it was sent, so a replay reports its input length as the run
 * it replays did. The prompt of a body is its text: every message's content (a string, or the
 * "text" of its parts), a completions "prompt" (a string or a list of strings), a responses or
 * embeddings "input", a generate "inputs"; each text is counted without special tokens and the
 * counts are added.
 */
#include <jansson.h>

#include "metrics/metrics.h"
#include "workload/workload_internal.h"

/* text_tokens adds the tokens of one JSON string to *total; false when it cannot be counted. */
static bool text_tokens(const json_t *text, const struct tokenizer *tok,
                        struct tokenizer_scratch *scratch, int64_t *total)
{
    size_t count = 0;
    if (tokenizer_count(tok, scratch, json_string_value(text), json_string_length(text), &count) !=
        TOKENIZER_OK) {
        return false;
    }
    *total += (int64_t)count;
    return true;
}

/* content_tokens adds the tokens of a string, or of the strings and the "text" members of
 * the items (parts, messages with a "content") of a list. */
static bool content_tokens(const json_t *content, const struct tokenizer *tok,
                           struct tokenizer_scratch *scratch, int64_t *total)
{
    if (json_is_string(content)) {
        return text_tokens(content, tok, scratch, total);
    }
    size_t i;
    const json_t *item;
    json_array_foreach(content, i, item)
    {
        const json_t *text = json_is_string(item) ? item : json_object_get(item, "text");
        const json_t *nested = json_object_get(item, "content");
        bool ok = json_is_string(text) ? text_tokens(text, tok, scratch, total)
                  : json_is_array(nested) || json_is_string(nested)
                      ? content_tokens(nested, tok, scratch, total)
                      : true;
        if (!ok) {
            return false;
        }
    }
    return true;
}

int64_t workload__body_tokens(const char *body, const struct tokenizer *tok,
                              struct tokenizer_scratch *scratch)
{
    if (tok == NULL) {
        return METRICS_ABSENT;
    }
    json_t *root = json_loads(body, 0, NULL);
    if (!json_is_object(root)) {
        json_decref(root);
        return METRICS_ABSENT;
    }
    static const char *const prompt_keys[] = {"prompt", "input", "inputs"};
    int64_t total = 0;
    bool counted = false;
    bool ok = true;
    size_t i;
    const json_t *message;
    json_array_foreach(json_object_get(root, "messages"), i, message)
    {
        const json_t *content = json_object_get(message, "content");
        if (ok && (json_is_string(content) || json_is_array(content))) {
            ok = content_tokens(content, tok, scratch, &total);
            counted = true;
        }
    }
    for (size_t k = 0; ok && k < sizeof(prompt_keys) / sizeof(prompt_keys[0]); k++) {
        const json_t *prompt = json_object_get(root, prompt_keys[k]);
        if (json_is_string(prompt) || json_is_array(prompt)) {
            ok = content_tokens(prompt, tok, scratch, &total);
            counted = true;
        }
    }
    json_decref(root);
    return ok && counted ? total : METRICS_ABSENT;
}
