/*
 * prompt_extras.c - what synthetic requests carry beyond one --isl prompt
 * (workload_prompt_extras.h): prefix prompts, per-session user context messages,
 * embeddings prompt batches, rankings queries and passages, and loading
 * --public-dataset sharegpt.
 */
#include "workload/workload_prompt_extras.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

int workload_prompt_extras_init(struct workload_prompt_extras *x, const struct profile_config *cfg,
                                enum endpoint_type type, const struct tokenizer *tok,
                                const struct dataset_prompter *prompter,
                                struct tokenizer_scratch *scratch, uint64_t seed)
{
    *x = (struct workload_prompt_extras){
        .cfg = cfg, .tok = tok, .prompter = prompter, .type = type, .seed = seed};
    x->buf = malloc(WORKLOAD_PROMPT_EXTRAS_TEXT_BYTES_MAX);
    if (x->buf == NULL) {
        return -ENOMEM;
    }
    if (cfg->num_prefix_prompts > 0) {
        char err[DATASET_ERR_CAP];
        int ret = dataset_prefix_pool_new(prompter, scratch, (size_t)cfg->num_prefix_prompts,
                                          (size_t)cfg->prefix_prompt_length,
                                          seed ^ 0x707265666978ULL, &x->prefixes, err, sizeof(err));
        if (ret != 0) {
            fprintf(stderr, "ringperf profile: --num-prefix-prompts: %s\n", err);
            return ret;
        }
    }
    return 0;
}

static void clear_texts(struct workload_prompt_extras *x)
{
    for (size_t i = 0; i < x->text_count; i++) {
        free(x->texts[i]);
    }
    x->text_count = 0;
}

void workload_prompt_extras_free(struct workload_prompt_extras *x)
{
    clear_texts(x);
    free(x->texts);
    free(x->buf);
    dataset_prefix_pool_free(x->prefixes);
    *x = (struct workload_prompt_extras){0};
}

/* word_count counts the single-space-separated words of a synthetic prompt. */
static size_t word_count(const char *text)
{
    size_t words = text[0] != '\0';
    for (const char *p = text; *p != '\0'; p++) {
        words += *p == ' ';
    }
    return words;
}

int workload_prompt_extras_prefix(struct workload_prompt_extras *x,
                                  struct tokenizer_scratch *scratch, struct dataset_rng *rng,
                                  char *prompt, size_t cap, int64_t *isl)
{
    if (x->prefixes == NULL) {
        return 0;
    }
    size_t body = *isl >= 0 && x->tok != NULL ? (size_t)*isl : word_count(prompt);
    size_t index = 0;
    size_t len = dataset_prefix_prompt(x->prefixes, x->tok, x->prompter, scratch, rng, body, prompt,
                                       cap, &index);
    if (len == 0) {
        fprintf(stderr,
                "ringperf profile: --prefix-prompt-length %lld: no prompt of a prefix and %zu "
                "tokens could be made\n",
                (long long)x->cfg->prefix_prompt_length, body);
        return -EINVAL;
    }
    if (*isl >= 0) {
        *isl += x->cfg->prefix_prompt_length;
    }
    return 0;
}

/* push_text appends text (owned; NULL: out of memory) to x->texts. */
static int push_text(struct workload_prompt_extras *x, char *text)
{
    if (text != NULL && x->text_count == x->text_cap) {
        size_t cap = x->text_cap == 0 ? 8 : x->text_cap * 2;
        char **grown = realloc(x->texts, cap * sizeof(*grown));
        if (grown == NULL) {
            free(text);
            return -ENOMEM;
        }
        x->texts = grown;
        x->text_cap = cap;
    }
    if (text == NULL) {
        return -ENOMEM;
    }
    x->texts[x->text_count++] = text;
    return 0;
}

/* add_text draws a text of N(mean, stddev) tokens into x->texts. */
static int add_text(struct workload_prompt_extras *x, struct tokenizer_scratch *scratch,
                    struct dataset_rng *rng, int64_t mean, double stddev, int64_t *isl)
{
    uint64_t length = dataset_sample_length(rng, (uint64_t)mean, stddev);
    size_t len =
        x->prompter != NULL
            ? dataset_prompter_generate(x->prompter, scratch, rng, length, x->buf,
                                        WORKLOAD_PROMPT_EXTRAS_TEXT_BYTES_MAX)
            : dataset_synthetic_prompt(rng, length, x->buf, WORKLOAD_PROMPT_EXTRAS_TEXT_BYTES_MAX);
    if (len == 0) {
        fprintf(stderr, "ringperf profile: a text of %llu tokens is too long\n",
                (unsigned long long)length);
        return -EINVAL;
    }
    if (push_text(x, strndup(x->buf, len)) != 0) {
        return -ENOMEM;
    }
    if (*isl >= 0) {
        *isl = x->tok != NULL ? *isl + (int64_t)length : -1;
    }
    return 0;
}

/* rankings draws the query (when its length is given) and the passages. */
static int rankings(struct workload_prompt_extras *x, struct tokenizer_scratch *scratch,
                    struct dataset_rng *rng, struct payload_spec *spec, char *prompt, size_t cap,
                    int64_t *isl)
{
    const struct profile_config *cfg = x->cfg;
    int ret = 0;
    if (cfg->rankings_query_tokens_mean > 0) {
        int64_t query_isl = 0;
        ret = add_text(x, scratch, rng, cfg->rankings_query_tokens_mean,
                       (double)cfg->rankings_query_tokens_stddev, &query_isl);
        if (ret == 0 && strlen(x->texts[0]) < cap) {
            memcpy(prompt, x->texts[0], strlen(x->texts[0]) + 1);
            *isl = *isl >= 0 ? query_isl : -1;
        }
        clear_texts(x);
    }
    uint64_t passages = dataset_sample_length(rng, (uint64_t)cfg->rankings_passages_mean,
                                              (double)cfg->rankings_passages_stddev);
    passages = passages < DATASET_TEXTS_MAX ? passages : DATASET_TEXTS_MAX;
    bool own_length = cfg->rankings_passage_tokens_mean > 0;
    int64_t mean = own_length ? cfg->rankings_passage_tokens_mean : cfg->isl_tokens_mean;
    double stddev =
        own_length ? (double)cfg->rankings_passage_tokens_stddev : cfg->isl_tokens_stddev;
    for (uint64_t k = 0; ret == 0 && k < passages; k++) {
        ret = add_text(x, scratch, rng, mean, stddev, isl);
    }
    spec->query = prompt;
    spec->passages = (const char *const *)x->texts;
    spec->passage_count = x->text_count;
    return ret;
}

int workload_prompt_extras_texts(struct workload_prompt_extras *x,
                                 struct tokenizer_scratch *scratch, struct dataset_rng *rng,
                                 struct payload_spec *spec, char *prompt, size_t cap, int64_t *isl)
{
    clear_texts(x);
    if (x->type == ENDPOINT_NIM_RANKINGS || x->type == ENDPOINT_COHERE_RANKINGS ||
        x->type == ENDPOINT_HF_TEI_RANKINGS) {
        return rankings(x, scratch, rng, spec, prompt, cap, isl);
    }
    if (x->cfg->prompt_batch_size <= 1 ||
        (x->type != ENDPOINT_EMBEDDINGS && x->type != ENDPOINT_NIM_EMBEDDINGS)) {
        return 0;
    }
    int ret = push_text(x, strdup(prompt));
    for (int64_t k = 1; ret == 0 && k < x->cfg->prompt_batch_size; k++) {
        ret = add_text(x, scratch, rng, x->cfg->isl_tokens_mean, x->cfg->isl_tokens_stddev, isl);
    }
    spec->texts = (const char *const *)x->texts;
    spec->text_count = x->text_count;
    return ret;
}

/* message_json writes the context as one message of the endpoint's list. */
static char *message_json(enum endpoint_type type, const char *context)
{
    json_t *msg = json_pack("{s:s, s:s}", "role", "user", "content", context);
    if (msg != NULL && type == ENDPOINT_RESPONSES) {
        json_object_set_new(msg, "type", json_string("message"));
    }
    char *text = msg != NULL ? json_dumps(msg, JSON_COMPACT) : NULL;
    json_decref(msg);
    return text;
}

/* insert_before returns body with message and a comma inserted at pos. */
static char *insert_before(const char *body, size_t pos, const char *message)
{
    size_t body_len = strlen(body);
    size_t msg_len = strlen(message);
    char *out = malloc(body_len + msg_len + 2);
    if (out == NULL) {
        return NULL;
    }
    memcpy(out, body, pos);
    memcpy(out + pos, message, msg_len);
    out[pos + msg_len] = ',';
    memcpy(out + pos + msg_len + 1, body + pos, body_len - pos + 1);
    return out;
}

size_t workload_prompt_extras_context_text(struct workload_prompt_extras *x,
                                           struct tokenizer_scratch *scratch, uint64_t session,
                                           const char **out_text)
{
    int64_t tokens = x->cfg->user_context_prompt_length;
    *out_text = x->buf;
    if (tokens <= 0) {
        return 0;
    }
    return dataset_user_context(x->tok, x->prompter, scratch, x->seed, session, (size_t)tokens,
                                x->buf, WORKLOAD_PROMPT_EXTRAS_TEXT_BYTES_MAX);
}

char *workload_prompt_extras_context(struct workload_prompt_extras *x,
                                     struct tokenizer_scratch *scratch, uint64_t session,
                                     char *body, int64_t *isl)
{
    int64_t tokens = x->cfg->user_context_prompt_length;
    if (tokens <= 0 || body == NULL) {
        return body;
    }
    /* JSON strings escape '"', so this text only occurs where the prompt's
     * message starts: the first user message of the list. */
    const char *at = strstr(body, "{\"role\":\"user\"");
    const char *text = NULL;
    size_t len = workload_prompt_extras_context_text(x, scratch, session, &text);
    char *message = at != NULL && len > 0 ? message_json(x->type, text) : NULL;
    char *out = message != NULL ? insert_before(body, (size_t)(at - body), message) : NULL;
    if (out == NULL) {
        fprintf(stderr,
                "ringperf profile: --user-context-prompt-length %lld: cannot add the context "
                "message (chat, chat_embeddings, messages and responses carry one)\n",
                (long long)tokens);
    } else if (*isl >= 0) {
        *isl = x->tok != NULL ? *isl + tokens : -1;
    }
    free(message);
    free(body);
    return out;
}

int workload_prompt_extras_load_public(const struct profile_config *cfg,
                                       const struct tokenizer *tok, struct dataset_inputs **out)
{
    char path[4096];
    char err[DATASET_ERR_CAP];
    const char *file = cfg->input_file;
    if (file == NULL) {
        if (dataset_sharegpt_find(getenv("HF_HUB_CACHE"), getenv("HF_HOME"), getenv("HOME"), path,
                                  sizeof(path), err, sizeof(err)) != 0) {
            fprintf(stderr, "ringperf profile: %s\n", err);
            return -EINVAL;
        }
        file = path;
    }
    if (tok == NULL) {
        fprintf(stderr, "ringperf profile: --public-dataset sharegpt: no tokenizer, so the "
                        "length filter and max_tokens use word counts\n");
    }
    struct dataset_sharegpt_options opts = {.tok = tok, .osl_set = cfg->osl_set};
    if (dataset_sharegpt_load(file, &opts, out, err, sizeof(err)) != 0) {
        fprintf(stderr, "ringperf profile: --public-dataset sharegpt: %s\n", err);
        return -EINVAL;
    }
    return 0;
}
