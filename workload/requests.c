/*
 * requests.c - what every request of a run carries: the synthetic prompts and
 * conversations, the endpoint's headers, and the bodies built from them
 * (input files: input_requests.c).
 */
#include "workload/workload.h"
#include "workload/workload_phase.h"
#include "workload/workload_media.h"
#include "template/template.h"
#include "workload/workload_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "datasets/datasets.h"

/* AIPerf's default number of distinct dataset entries (--num-dataset-entries). */
#define DEFAULT_DATASET_ENTRIES 100

int workload_requests_type(const struct profile_config *cfg, enum endpoint_type *out)
{
    const char *name = config_endpoint_type_name(cfg->endpoint_type);
    if (endpoint_type_parse(name, out) != 0) {
        char supported[512] = "";
        size_t used = 0;
        for (int t = 0; t < ENDPOINT_TYPE_COUNT && used < sizeof(supported); t++) {
            int n = snprintf(supported + used, sizeof(supported) - used, "%s%s", t > 0 ? ", " : "",
                             endpoint_type_name((enum endpoint_type)t));
            used += n > 0 ? (size_t)n : 0;
        }
        fprintf(stderr,
                "ringperf profile: --endpoint-type %s is not supported yet (README, \"What "
                "works, and what does not yet\", says why); supported: %s\n",
                name, supported);
        return -ENOTSUP;
    }
    if (*out == ENDPOINT_RAW && cfg->input_file == NULL) {
        fprintf(stderr, "ringperf profile: --endpoint-type raw sends the payloads of an "
                        "--input-file (raw_payload or inputs_json); give one\n");
        return -ENOTSUP;
    }
    return 0;
}

/* workload__model_of returns the model of payload i: --model values in turn
 * (round_robin), or a draw that depends only on the seed and i (random). */
const char *workload__model_of(const struct profile_config *cfg, const struct prompt_source *src,
                               size_t i)
{
    size_t n = cfg->models.count;
    if (cfg->model_selection != CONFIG_MODEL_SELECTION_RANDOM || n == 1) {
        return cfg->models.items[i % n];
    }
    struct dataset_rng rng;
    dataset_rng_seed(&rng, src->model_seed ^ ((uint64_t)i * 0x9e3779b97f4a7c15ULL));
    return cfg->models.items[dataset_rng_next(&rng) % n];
}

/* one_prompt draws the next synthetic prompt of the run into buf and returns
 * its input tokens (METRICS-style -1 when there is no tokenizer to count). */
static int prompt_of_length(struct prompt_source *src, uint64_t length, char *buf,
                            int64_t *out_tokens)
{
    size_t len = src->prompter != NULL
                     ? dataset_prompter_generate(src->prompter, &src->scratch, &src->rng, length,
                                                 buf, PROMPT_BYTES_MAX)
                     : dataset_synthetic_prompt(&src->rng, length, buf, PROMPT_BYTES_MAX);
    if (len == 0) {
        fprintf(stderr, "ringperf profile: --isl: a prompt of %llu tokens is too long\n",
                (unsigned long long)length);
        return -EINVAL;
    }
    *out_tokens = src->prompter != NULL ? (int64_t)length : -1;
    return 0;
}

/* one_prompt draws an --isl/--isl-stddev length and a prompt of that length. */
static int one_prompt(const struct profile_config *cfg, struct prompt_source *src, char *buf,
                      int64_t *out_tokens)
{
    uint64_t length =
        dataset_sample_length(&src->rng, (uint64_t)cfg->isl_tokens_mean, cfg->isl_tokens_stddev);
    return prompt_of_length(src, length, buf, out_tokens);
}

/* build_one builds entry i's body and counts its input tokens. Rankings get
 * the prompt as the query plus synthetic passages (prompt_extras.c). */
/* draw_prompt draws one synthetic turn: a prompt into `prompt` with its
 * tokens, and the max_tokens to ask for (0: leave it out). */
static int draw_prompt(const struct profile_config *cfg, struct prompt_source *src, char *prompt,
                       int64_t *out_isl, uint64_t *out_max_tokens)
{
    *out_max_tokens = cfg->osl_set
                          ? dataset_sample_length(&src->rng, (uint64_t)cfg->osl_tokens_mean,
                                                  cfg->osl_tokens_stddev)
                          : 0;
    if (src->seq_dist.count > 0) {
        /* --seq-dist draws the input and output lengths as one pair. */
        uint64_t length = 0;
        dataset_seq_dist_sample(&src->seq_dist, &src->rng, &length, out_max_tokens);
        return prompt_of_length(src, length, prompt, out_isl);
    }
    return one_prompt(cfg, src, prompt, out_isl);
}

/* add_conversation draws synthetic conversation i: --conversation-turn-mean
 * turns (normal, at least 1), each with its own prompt and output length,
 * and think times of --conversation-turn-delay-mean ms (normal, not below 0)
 * times --conversation-turn-delay-ratio before the turns after the first. */
static int add_conversation(const struct profile_config *cfg, struct workload_requests *out,
                            struct prompt_source *src, size_t i, char *prompt)
{
    uint64_t mean = cfg->conversation_turn_mean > 0 ? (uint64_t)cfg->conversation_turn_mean : 1;
    uint64_t turns = dataset_sample_length(&src->rng, mean, (double)cfg->conversation_turn_stddev);
    turns = turns < WORKLOAD_SESSION_TURNS_MAX ? turns : WORKLOAD_SESSION_TURNS_MAX;
    int64_t static_tokens = src->system_prompt == NULL ? 0 : src->system_tokens;
    const char *context = NULL;
    size_t context_len =
        workload_prompt_extras_context_text(&src->extras, &src->scratch, i, &context);
    if (cfg->user_context_prompt_length > 0) {
        /* The conversation opens with its own context message. */
        if (context_len == 0) {
            fprintf(stderr,
                    "ringperf profile: --user-context-prompt-length %lld: a context that "
                    "long does not fit in one prompt; give a smaller length\n",
                    (long long)cfg->user_context_prompt_length);
            return -EINVAL;
        }
        static_tokens = static_tokens >= 0 && src->tok != NULL
                            ? static_tokens + cfg->user_context_prompt_length
                            : -1;
    }
    for (uint64_t t = 0; t < turns; t++) {
        struct workload_turn turn = {.model = workload__model_of(cfg, src, i)};
        int64_t isl = 0;
        if (draw_prompt(cfg, src, prompt, &isl, &turn.max_tokens) != 0 ||
            (t == 0 && workload_prompt_extras_prefix(&src->extras, &src->scratch, &src->rng, prompt,
                                                     PROMPT_BYTES_MAX, &isl) != 0)) {
            return -EINVAL;
        }
        double delay_ms = dataset_rng_normal(&src->rng, cfg->conversation_turn_delay_mean_ms,
                                             cfg->conversation_turn_delay_stddev_ms);
        delay_ms = delay_ms > 0 ? delay_ms * cfg->conversation_turn_delay_ratio : 0;
        turn.delay_ns = t > 0 ? workload__turn_delay_ns(cfg, delay_ms, false) : 0;
        static_tokens = static_tokens >= 0 && isl >= 0 ? static_tokens + isl : -1;
        turn.static_tokens = static_tokens;
        /* Each turn its own media (--image-*, --audio-*), drawn from its place. */
        if (workload_media_for_entry(cfg, src->model_seed, i * WORKLOAD_SESSION_TURNS_MAX + t,
                                     &turn.media) != 0) {
            return -EINVAL;
        }
        turn.prompt = strdup(prompt);
        if (turn.prompt == NULL) {
            workload_media_set_free(&turn.media);
            return -ENOMEM;
        }
        int ret = workload_sessions_add(&out->sessions, t == 0, &turn, NULL);
        if (ret == 0 && t == 0 && context_len > 0) {
            char *copy = strndup(context, context_len);
            ret = copy != NULL ? workload_sessions_set_context(&out->sessions, copy) : -ENOMEM;
        }
        if (ret != 0) {
            return ret;
        }
    }
    return 0;
}

uint64_t workload__cache_bust_key(uint64_t nonce, uint64_t conv)
{
    /* splitmix64 of the pair: any change to either changes every digit. */
    uint64_t z = nonce + (conv + 1) * 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

enum payload_cache_bust workload__cache_bust(const struct profile_config *cfg)
{
    switch (cfg->cache_bust) {
    case CONFIG_CACHE_BUST_SYSTEM_PREFIX:
        return PAYLOAD_CACHE_BUST_SYSTEM_PREFIX;
    case CONFIG_CACHE_BUST_SYSTEM_SUFFIX:
        return PAYLOAD_CACHE_BUST_SYSTEM_SUFFIX;
    case CONFIG_CACHE_BUST_FIRST_TURN_PREFIX:
        return PAYLOAD_CACHE_BUST_FIRST_TURN_PREFIX;
    case CONFIG_CACHE_BUST_FIRST_TURN_SUFFIX:
        return PAYLOAD_CACHE_BUST_FIRST_TURN_SUFFIX;
    case CONFIG_CACHE_BUST_NONE:
    default:
        return PAYLOAD_CACHE_BUST_NONE;
    }
}

static char *build_one(const struct profile_config *cfg, struct workload_requests *out,
                       struct prompt_source *src, size_t i, const char *extra, char *prompt)
{
    uint64_t max_tokens = 0;
    int64_t isl = 0;
    int ret = draw_prompt(cfg, src, prompt, &isl, &max_tokens);
    if (ret != 0 || workload_prompt_extras_prefix(&src->extras, &src->scratch, &src->rng, prompt,
                                                  PROMPT_BYTES_MAX, &isl) != 0) {
        return NULL;
    }
    if (isl >= 0 && src->system_prompt != NULL) {
        isl = src->system_tokens >= 0 ? isl + src->system_tokens : -1;
    }
    struct payload_spec spec = {
        .system_prompt = src->system_prompt,
        .type = out->type,
        .model = workload__model_of(cfg, src, i),
        .prompt = prompt,
        .max_tokens = max_tokens,
        .streaming = cfg->streaming,
        .use_legacy_max_tokens = cfg->use_legacy_max_tokens,
        .extra_inputs_json = extra,
        .use_server_token_count = cfg->use_server_token_count,
        .per_chunk_usage = cfg->per_chunk_usage,
        .cache_bust = workload__cache_bust(cfg),
        .cache_bust_key = workload__cache_bust_key(out->cache_bust_nonce, i),
        .template = out->template,
    };
    if (workload_prompt_extras_texts(&src->extras, &src->scratch, &src->rng, &spec, prompt,
                                     PROMPT_BYTES_MAX, &isl) != 0) {
        return NULL;
    }
    struct workload_media_set media; /* --image-*, --audio-* (media_inputs.c) */
    if (workload_media_for_entry(cfg, src->model_seed, i, &media) != 0) {
        return NULL;
    }
    spec.media = media.view;
    char errbuf[512];
    char *body = NULL;
    if (endpoint_type_form_data(out->type)) {
        body = workload__form_payload(out, i, &spec) == 0 ? (char *)out->payloads[i].body : NULL;
    } else {
        body = payload_build(&spec, errbuf, sizeof(errbuf));
        if (body == NULL) {
            fprintf(stderr, "ringperf profile: cannot build the request body: %s\n", errbuf);
        }
    }
    workload_media_set_free(&media);
    if (!endpoint_type_form_data(out->type)) {
        body = workload_prompt_extras_context(&src->extras, &src->scratch, i, body, &isl);
    }
    if (out->payload_isl != NULL) {
        out->payload_isl[i] = isl;
    }
    if (out->payload_osl != NULL) {
        out->payload_osl[i] = (int64_t)max_tokens;
    }
    return body;
}

/* read_system_prompt returns --system-prompt-file's text (malloc'd),
 * verbatim: at most PROMPT_BYTES_MAX, with no NUL byte (the text goes on as
 * a C string, and would be cut there unnoticed). Invalid UTF-8 is refused
 * where the request bodies are built. NULL after saying what is wrong. */
static char *read_system_prompt(const char *path)
{
    size_t len = 0;
    int err = 0;
    char *text = workload__read_file(path, PROMPT_BYTES_MAX, &len, &err);
    if (text == NULL && err != -EIO && err != -EFBIG && err != -ENOMEM) {
        fprintf(stderr, "ringperf profile: --system-prompt-file: cannot open '%s': %s\n", path,
                strerror(-err));
        return NULL;
    }
    const char *problem = err == -EFBIG             ? "is larger than a prompt may be"
                          : err != 0                ? "cannot be read"
                          : len == 0                ? "is empty"
                          : memchr(text, '\0', len) ? "holds a NUL byte; give a text file"
                                                    : NULL;
    if (problem != NULL) {
        fprintf(stderr, "ringperf profile: --system-prompt-file: '%s' %s (at most %u MiB)\n", path,
                problem, PROMPT_BYTES_MAX >> 20);
        free(text);
        return NULL;
    }
    return text;
}

/* system_prompt sets up the prompt every request carries: --system-prompt
 * or --system-prompt-file verbatim, or one synthetic
 * --shared-system-prompt-length prompt. */
static int system_prompt(const struct profile_config *cfg, struct prompt_source *src)
{
    src->system_tokens = -1;
    if (cfg->system_prompt != NULL) {
        src->system_prompt = cfg->system_prompt;
    } else if (cfg->system_prompt_file != NULL) {
        src->system_owned = read_system_prompt(cfg->system_prompt_file);
        if (src->system_owned == NULL) {
            return -EINVAL;
        }
        src->system_prompt = src->system_owned;
    } else if (cfg->shared_system_prompt_length > 0) {
        uint64_t length = (uint64_t)cfg->shared_system_prompt_length;
        src->system_owned = malloc(PROMPT_BYTES_MAX);
        size_t len = 0;
        if (src->system_owned != NULL) {
            len = src->prompter != NULL
                      ? dataset_prompter_generate(src->prompter, &src->scratch, &src->rng, length,
                                                  src->system_owned, PROMPT_BYTES_MAX)
                      : dataset_synthetic_prompt(&src->rng, length, src->system_owned,
                                                 PROMPT_BYTES_MAX);
        }
        if (len == 0) {
            fprintf(stderr, "ringperf profile: --shared-system-prompt-length %llu is too long\n",
                    (unsigned long long)length);
            return -EINVAL;
        }
        src->system_prompt = src->system_owned;
    }
    size_t count = 0;
    if (src->system_prompt != NULL && src->tok != NULL &&
        tokenizer_count(src->tok, &src->scratch, src->system_prompt, strlen(src->system_prompt),
                        &count) == TOKENIZER_OK) {
        src->system_tokens = (int64_t)count;
    }
    return 0;
}

static int build_payloads(const struct profile_config *cfg, uint64_t seed,
                          const struct tokenizer *tok, const char *extra,
                          struct workload_requests *out)
{
    /* AIPerf's --num-dataset-entries (100 by default) distinct prompts; a run
     * limited to fewer requests needs only that many. */
    size_t count = cfg->conversation_num > 0      ? (size_t)cfg->conversation_num
                   : cfg->num_dataset_entries > 0 ? (size_t)cfg->num_dataset_entries
                                                  : DEFAULT_DATASET_ENTRIES;
    bool count_limited = cfg->request_count_set || cfg->benchmark_duration_seconds <= 0;
    if (count_limited && !workload__sessions_end_run(cfg) && (size_t)cfg->request_count < count) {
        count = (size_t)cfg->request_count;
    }
    struct prompt_source src = {.tok = tok};
    dataset_rng_seed(&src.rng, seed);
    src.model_seed = seed ^ 0x6d6f64656cULL;
    char errbuf[512];
    if (tok != NULL && dataset_prompter_new(tok, &src.prompter, errbuf, sizeof(errbuf)) != 0) {
        fprintf(stderr, "ringperf profile: %s\n", errbuf);
        return -EINVAL;
    }
    if (cfg->seq_dist != NULL &&
        dataset_seq_dist_parse(cfg->seq_dist, &src.seq_dist, errbuf, sizeof(errbuf)) != 0) {
        fprintf(stderr, "ringperf profile: %s\n", errbuf);
        dataset_prompter_free(src.prompter);
        return -EINVAL;
    }
    if (system_prompt(cfg, &src) != 0 ||
        workload_prompt_extras_init(&src.extras, cfg, out->type, tok, src.prompter, &src.scratch,
                                    seed) != 0) {
        workload_prompt_extras_free(&src.extras);
        free(src.system_owned);
        dataset_prompter_free(src.prompter);
        tokenizer_scratch_free(&src.scratch);
        return -EINVAL;
    }
    out->payloads = calloc(count, sizeof(*out->payloads));
    out->payload_isl = tok != NULL ? calloc(count, sizeof(*out->payload_isl)) : NULL;
    out->payload_osl = out->multi_turn ? NULL : calloc(count, sizeof(*out->payload_osl));
    char *prompt = malloc(PROMPT_BYTES_MAX);
    int ret = out->payloads != NULL && prompt != NULL &&
                      (tok == NULL || out->payload_isl != NULL) &&
                      (out->multi_turn || out->payload_osl != NULL)
                  ? 0
                  : -ENOMEM;
    if (ret == 0) {
        ret = workload__form_init(out, count);
    }
    for (size_t i = 0; ret == 0 && out->multi_turn && i < count; i++) {
        ret = add_conversation(cfg, out, &src, i, prompt);
    }
    if (ret == 0 && out->multi_turn && src.system_prompt != NULL) {
        /* The bodies of the turns are built while the run goes. */
        out->sessions_system = strdup(src.system_prompt);
        ret = out->sessions_system != NULL ? 0 : -ENOMEM;
    }
    for (size_t i = 0; ret == 0 && !out->multi_turn && i < count; i++) {
        char *body = build_one(cfg, out, &src, i, extra, prompt);
        if (body == NULL) {
            ret = -EINVAL;
            break;
        }
        if (!endpoint_type_form_data(out->type)) {
            out->payloads[i] = (struct engine_payload){.body = body, .body_len = strlen(body)};
        }
        out->payload_count++;
    }
    free(prompt);
    workload_prompt_extras_free(&src.extras);
    free(src.system_owned);
    dataset_prompter_free(src.prompter);
    tokenizer_scratch_free(&src.scratch);
    return ret;
}

/* user_sets reports whether -H gives a header of this name: the user's wins. */
static bool user_sets(const struct profile_config *cfg, const char *name)
{
    for (size_t i = 0; i < cfg->header_count; i++) {
        if (strcasecmp(cfg->headers[i].name, name) == 0) {
            return true;
        }
    }
    return false;
}

/* The most X-Amzn-SageMaker-* headers add_sagemaker_headers adds. */
#define SAGEMAKER_HEADERS_MAX 4

static void add_header(struct workload_requests *out, const char *name, const char *value)
{
    out->headers[out->header_count++] =
        (struct http_header){name, strlen(name), value, strlen(value)};
}

/* add_sagemaker_headers adds SageMaker Runtime's routing headers, as its API names them: the
 * streaming operation takes its Accept as X-Amzn-SageMaker-Accept, and no TargetModel. */
static void add_sagemaker_headers(const struct profile_config *cfg, struct workload_requests *out)
{
    if (cfg->sagemaker_endpoint_name == NULL) {
        return;
    }
    if (cfg->streaming) {
        add_header(out, "X-Amzn-SageMaker-Accept", "application/json");
    } else if (cfg->sagemaker_target_model != NULL) {
        add_header(out, "X-Amzn-SageMaker-Target-Model", cfg->sagemaker_target_model);
    }
    if (cfg->sagemaker_target_variant != NULL) {
        add_header(out, "X-Amzn-SageMaker-Target-Variant", cfg->sagemaker_target_variant);
    }
    if (cfg->sagemaker_inference_component != NULL) {
        add_header(out, "X-Amzn-SageMaker-Inference-Component", cfg->sagemaker_inference_component);
    }
}

static int build_headers(const struct profile_config *cfg, struct workload_requests *out)
{
    struct endpoint_header auth[ENDPOINT_AUTH_HEADERS_MAX];
    size_t auth_count = 0;
    if (endpoint_auth_headers(out->type, cfg->api_key, out->auth_value, sizeof(out->auth_value),
                              auth, &auth_count) != 0) {
        fprintf(stderr, "ringperf profile: --api-key is too long (at most %zu bytes)\n",
                sizeof(out->auth_value) - 8);
        return -EINVAL;
    }
    out->headers =
        calloc(auth_count + cfg->header_count + SAGEMAKER_HEADERS_MAX + 1, sizeof(*out->headers));
    if (out->headers == NULL) {
        return -ENOMEM;
    }
    for (size_t i = 0; i < auth_count; i++) {
        if (!user_sets(cfg, auth[i].name)) {
            out->headers[out->header_count++] = (struct http_header){
                auth[i].name, strlen(auth[i].name), auth[i].value, strlen(auth[i].value)};
        }
    }
    for (size_t i = 0; i < cfg->header_count; i++) {
        const struct config_header *h = &cfg->headers[i];
        out->headers[out->header_count++] =
            (struct http_header){h->name, strlen(h->name), h->value, strlen(h->value)};
    }
    add_sagemaker_headers(cfg, out);
    return 0;
}

/* seal_sessions sets how every turn's body is built and readies the sessions
 * for the engine. */
static int seal_sessions(const struct profile_config *cfg, struct workload_requests *out)
{
    out->sessions.base = (struct payload_spec){
        .type = out->type,
        .system_prompt = out->sessions_system,
        .streaming = cfg->streaming,
        .use_legacy_max_tokens = cfg->use_legacy_max_tokens,
        .extra_inputs_json = out->sessions_extra,
        .template = out->template,
        .use_server_token_count = cfg->use_server_token_count,
        .per_chunk_usage = cfg->per_chunk_usage,
        .cache_bust = workload__cache_bust(cfg),
    };
    out->sessions.cache_bust_nonce = out->cache_bust_nonce;
    uint32_t users = cfg->concurrency > 0 ? (uint32_t)cfg->concurrency
                     : cfg->num_users > 0 ? (uint32_t)cfg->num_users
                                          : WORKLOAD_OPEN_LOOP_CONNECTIONS;
    int ret = workload_sessions_seal(&out->sessions, users);
    if (ret == -EINVAL) {
        fprintf(stderr, "ringperf profile: the dataset has no conversations; give "
                        "--conversation-num 1 or more, or an --input-file with records\n");
    }
    return ret;
}

int workload_requests_prepare(const struct profile_config *cfg, uint64_t seed,
                              const struct tokenizer *tok, struct workload_requests *out)
{
    char errbuf[512];
    int ret = workload_requests_type(cfg, &out->type);
    if (ret != 0) {
        return ret;
    }
    response_reader_init(&out->reader, out->type, NULL, NULL, 0);
    /* Per run, not per seed: a rerun with the same --random-seed must not
     * find the last run's markers in the server's cache. */
    out->cache_bust_nonce =
        workload__cache_bust_key(((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid(), seed);
    char *extra = NULL;
    if (cfg->extra_inputs.count > 0 &&
        payload_extra_inputs_parse((const char *const *)cfg->extra_inputs.items,
                                   cfg->extra_inputs.count, &extra, errbuf, sizeof(errbuf)) != 0) {
        fprintf(stderr, "ringperf profile: --extra-inputs: %s\n", errbuf);
        return -EINVAL;
    }
    ret = workload__endpoint_inputs(out, &extra);
    if (ret == 0) {
        ret = build_headers(cfg, out);
    }
    /* Input files decide for themselves (workload__build_input_payloads). */
    out->multi_turn = cfg->input_file == NULL &&
                      (cfg->conversation_turn_mean > 1 || cfg->conversation_turn_stddev > 0);
    if (ret == 0) {
        ret = workload__form_check(cfg, out);
    }
    if (ret == 0) {
        ret = cfg->input_file != NULL || cfg->public_dataset != NULL
                  ? workload__build_input_payloads(cfg, seed, tok, extra, out)
                  : build_payloads(cfg, seed, tok, extra, out);
    }
    if (ret == 0) {
        ret = workload__count_payload_images(out);
    }
    if (ret == 0 && out->multi_turn) {
        out->sessions_extra = extra;
        extra = NULL;
        ret = seal_sessions(cfg, out);
    }
    free(extra);
    return ret;
}

void workload_requests_free(struct workload_requests *requests)
{
    response_reader_release(&requests->reader);
    template_free(requests->template);
    requests->template = NULL;
    workload__form_free(requests);
    workload_sessions_free(&requests->sessions);
    free(requests->sessions_extra);
    free(requests->sessions_system);
    requests->sessions_extra = NULL;
    requests->sessions_system = NULL;
    /* With an input file the payloads point into bodies[]. */
    for (size_t i = 0; requests->inputs == NULL && i < requests->payload_count; i++) {
        free((char *)requests->payloads[i].body);
    }
    for (size_t i = 0; i < requests->body_count; i++) {
        free(requests->bodies[i]);
    }
    free(requests->bodies);
    requests->bodies = NULL;
    requests->body_count = 0;
    free(requests->schedule_offsets_ns);
    requests->schedule_offsets_ns = NULL;
    dataset_inputs_free(requests->inputs);
    requests->inputs = NULL;
    free(requests->payloads);
    free(requests->payload_isl);
    free(requests->payload_osl);
    free(requests->payload_images);
    requests->payload_images = NULL;
    free(requests->presampled);
    requests->presampled = NULL;
    free(requests->payload_entries);
    requests->payload_entries = NULL;
    requests->payload_isl = NULL;
    requests->payload_osl = NULL;
    free(requests->headers);
    requests->payloads = NULL;
    requests->headers = NULL;
    requests->payload_count = 0;
}
