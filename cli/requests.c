#include "cli/cli_requests.h"
#include "cli/cli_load.h"
#include "cli/cli_prompt_extras.h"
#include "cli/cli_media.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "datasets/datasets.h"
#include "metrics/metrics.h"

/* AIPerf's default number of distinct dataset entries (--num-dataset-entries). */
#define DEFAULT_DATASET_ENTRIES 100
#define PROMPT_BYTES_MAX (4u << 20)

int cli_requests_type(const struct profile_config *cfg, enum endpoint_type *out)
{
    const char *name = config_endpoint_type_name(cfg->endpoint_type);
    if (endpoint_type_parse(name, out) != 0) {
        fprintf(stderr,
                "ringperf profile: --endpoint-type %s is not supported yet; supported: chat, "
                "completions, responses, messages, embeddings, chat_embeddings, "
                "nim_embeddings, nim_rankings, cohere_rankings, hf_tei_rankings, "
                "huggingface_generate\n",
                name);
        return -ENOTSUP;
    }
    if (*out == ENDPOINT_RAW && cfg->input_file == NULL) {
        fprintf(stderr, "ringperf profile: --endpoint-type raw sends the payloads of an "
                        "--input-file (raw_payload or inputs_json); give one\n");
        return -ENOTSUP;
    }
    return 0;
}

/* prompt_source makes the run's synthetic prompts: exact token lengths from
 * the tokenizer's prompter when there is a tokenizer, words otherwise. */
struct prompt_source {
    const struct tokenizer *tok;
    struct dataset_prompter *prompter;
    struct tokenizer_scratch scratch;
    struct dataset_rng rng;
    uint64_t model_seed;              /* --model-selection-strategy random draws from this */
    const char *system_prompt;        /* every request's system prompt, or NULL */
    struct dataset_seq_dist seq_dist; /* --seq-dist, when seq_dist.count > 0 */
    int64_t system_tokens;            /* its tokens; -1 when uncounted */
    char *system_owned;               /* a generated shared system prompt */
    struct cli_prompt_extras extras;  /* prefixes, user context, batches, rankings */
};

/* model_of returns the model of payload i: --model values in turn
 * (round_robin), or a draw that depends only on the seed and i (random). */
static const char *model_of(const struct profile_config *cfg, const struct prompt_source *src,
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
 * the prompt as the query plus synthetic passages (cli/prompt_extras.c). */
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
static int add_conversation(const struct profile_config *cfg, struct cli_requests *out,
                            struct prompt_source *src, size_t i, char *prompt)
{
    uint64_t mean = cfg->conversation_turn_mean > 0 ? (uint64_t)cfg->conversation_turn_mean : 1;
    uint64_t turns = dataset_sample_length(&src->rng, mean, (double)cfg->conversation_turn_stddev);
    turns = turns < CLI_SESSION_TURNS_MAX ? turns : CLI_SESSION_TURNS_MAX;
    int64_t static_tokens = src->system_prompt == NULL ? 0 : src->system_tokens;
    for (uint64_t t = 0; t < turns; t++) {
        struct cli_turn turn = {.model = model_of(cfg, src, i)};
        int64_t isl = 0;
        if (draw_prompt(cfg, src, prompt, &isl, &turn.max_tokens) != 0 ||
            (t == 0 && cli_prompt_extras_prefix(&src->extras, &src->scratch, &src->rng, prompt,
                                                PROMPT_BYTES_MAX, &isl) != 0)) {
            return -EINVAL;
        }
        double delay_ms = dataset_rng_normal(&src->rng, cfg->conversation_turn_delay_mean_ms,
                                             cfg->conversation_turn_delay_stddev_ms);
        delay_ms = delay_ms > 0 ? delay_ms * cfg->conversation_turn_delay_ratio : 0;
        turn.delay_ns = t > 0 ? (int64_t)(delay_ms * 1e6) : 0;
        static_tokens = static_tokens >= 0 && isl >= 0 ? static_tokens + isl : -1;
        turn.static_tokens = static_tokens;
        turn.prompt = strdup(prompt);
        int ret =
            turn.prompt != NULL ? cli_sessions_add(&out->sessions, t == 0, &turn, NULL) : -ENOMEM;
        if (ret != 0) {
            return ret;
        }
    }
    return 0;
}

static char *build_one(const struct profile_config *cfg, struct cli_requests *out,
                       struct prompt_source *src, size_t i, const char *extra, char *prompt)
{
    uint64_t max_tokens = 0;
    int64_t isl = 0;
    int ret = draw_prompt(cfg, src, prompt, &isl, &max_tokens);
    if (ret != 0 || cli_prompt_extras_prefix(&src->extras, &src->scratch, &src->rng, prompt,
                                             PROMPT_BYTES_MAX, &isl) != 0) {
        return NULL;
    }
    if (isl >= 0 && src->system_prompt != NULL) {
        isl = src->system_tokens >= 0 ? isl + src->system_tokens : -1;
    }
    struct endpoint_payload_spec spec = {
        .system_prompt = src->system_prompt,
        .type = out->type,
        .model = model_of(cfg, src, i),
        .prompt = prompt,
        .max_tokens = max_tokens,
        .streaming = cfg->streaming,
        .use_legacy_max_tokens = cfg->use_legacy_max_tokens,
        .extra_inputs_json = extra,
        .use_server_token_count = cfg->use_server_token_count,
    };
    if (cli_prompt_extras_texts(&src->extras, &src->scratch, &src->rng, &spec, prompt,
                                PROMPT_BYTES_MAX, &isl) != 0) {
        return NULL;
    }
    struct cli_media_set media; /* --image-*, --audio-* (cli/media_inputs.c) */
    if (cli_media_for_entry(cfg, src->model_seed, i, &media) != 0) {
        return NULL;
    }
    spec.media = media.view;
    char errbuf[512];
    char *body = endpoint_payload_build(&spec, errbuf, sizeof(errbuf));
    cli_media_set_free(&media);
    if (body == NULL) {
        fprintf(stderr, "ringperf profile: cannot build the request body: %s\n", errbuf);
    }
    body = cli_prompt_extras_context(&src->extras, &src->scratch, i, body, &isl);
    if (out->payload_isl != NULL) {
        out->payload_isl[i] = isl;
    }
    return body;
}

/* system_prompt sets up the prompt every request carries: --system-prompt
 * verbatim, or one synthetic --shared-system-prompt-length prompt. */
static int system_prompt(const struct profile_config *cfg, struct prompt_source *src)
{
    src->system_tokens = -1;
    if (cfg->system_prompt != NULL) {
        src->system_prompt = cfg->system_prompt;
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
                          const struct tokenizer *tok, const char *extra, struct cli_requests *out)
{
    /* AIPerf's --num-dataset-entries (100 by default) distinct prompts; a run
     * limited to fewer requests needs only that many. */
    size_t count = cfg->conversation_num > 0      ? (size_t)cfg->conversation_num
                   : cfg->num_dataset_entries > 0 ? (size_t)cfg->num_dataset_entries
                                                  : DEFAULT_DATASET_ENTRIES;
    bool count_limited = cfg->request_count_set || cfg->benchmark_duration_seconds <= 0;
    if (count_limited && (size_t)cfg->request_count < count) {
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
        cli_prompt_extras_init(&src.extras, cfg, out->type, tok, src.prompter, &src.scratch,
                               seed) != 0) {
        cli_prompt_extras_free(&src.extras);
        free(src.system_owned);
        dataset_prompter_free(src.prompter);
        tokenizer_scratch_free(&src.scratch);
        return -EINVAL;
    }
    out->payloads = calloc(count, sizeof(*out->payloads));
    out->payload_isl = tok != NULL ? calloc(count, sizeof(*out->payload_isl)) : NULL;
    char *prompt = malloc(PROMPT_BYTES_MAX);
    int ret = out->payloads != NULL && prompt != NULL && (tok == NULL || out->payload_isl != NULL)
                  ? 0
                  : -ENOMEM;
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
        out->payloads[i] = (struct engine_payload){.body = body, .body_len = strlen(body)};
        out->payload_count++;
    }
    free(prompt);
    cli_prompt_extras_free(&src.extras);
    free(src.system_owned);
    dataset_prompter_free(src.prompter);
    tokenizer_scratch_free(&src.scratch);
    return ret;
}

/* ---- --input-file ---- */

/* Most payload slots an --input-file run prepares; longer runs cycle them. */
#define INPUT_ORDER_MAX ((size_t)1 << 20)

/* input_source is what building the bodies of a dataset needs. */
struct input_source {
    const struct profile_config *cfg;
    const struct tokenizer *tok;
    struct prompt_source prompts; /* synthetic text for input_length records */
    struct dataset_blocks *blocks;
    const char *extra;
    char *prompt; /* PROMPT_BYTES_MAX bytes */
};

/* merged_extra returns --extra-inputs with the record's "extra" merged over
 * it (malloc'd), or NULL when neither is given or memory runs out. */
static char *merged_extra(const char *global, const char *entry)
{
    if (entry == NULL) {
        return global != NULL ? strdup(global) : NULL;
    }
    json_t *base = global != NULL ? json_loads(global, 0, NULL) : json_object();
    json_t *add = json_loads(entry, 0, NULL);
    char *out = NULL;
    if (json_is_object(base) && json_is_object(add) && json_object_update(base, add) == 0) {
        out = json_dumps(base, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    }
    json_decref(base);
    json_decref(add);
    return out;
}

/* entry_prompt writes entry e's prompt into src->prompt and returns its
 * token count (METRICS_ABSENT without a tokenizer), or -2 on error. */
static int64_t entry_prompt(struct input_source *src, const struct dataset_entry *e)
{
    size_t len = 0;
    if (e->text_count == 0 && e->hash_id_count == 0 && e->input_length == 0 &&
        e->image_count + e->audio_count > 0) {
        src->prompt[0] = '\0'; /* media alone: no text to count */
        return 0;
    }
    if (e->hash_id_count > 0) {
        len =
            dataset_blocks_prompt(src->blocks, &src->prompts.scratch, e->hash_ids, e->hash_id_count,
                                  e->input_length, src->prompt, PROMPT_BYTES_MAX);
    } else if (e->text_count == 0) {
        len = src->prompts.prompter != NULL
                  ? dataset_prompter_generate(src->prompts.prompter, &src->prompts.scratch,
                                              &src->prompts.rng, e->input_length, src->prompt,
                                              PROMPT_BYTES_MAX)
                  : dataset_synthetic_prompt(&src->prompts.rng, e->input_length, src->prompt,
                                             PROMPT_BYTES_MAX);
    } else {
        for (size_t i = 0; i < e->text_count; i++) {
            size_t n = strlen(e->texts[i]);
            if (len + n + 2 > PROMPT_BYTES_MAX) {
                return -2;
            }
            if (i > 0) {
                src->prompt[len++] = ' ';
            }
            memcpy(src->prompt + len, e->texts[i], n);
            len += n;
        }
        src->prompt[len] = '\0';
    }
    if (len == 0 && (e->hash_id_count > 0 || e->text_count == 0)) {
        return -2;
    }
    size_t tokens = 0;
    if (src->tok == NULL || tokenizer_count(src->tok, &src->prompts.scratch, src->prompt, len,
                                            &tokens) != TOKENIZER_OK) {
        return METRICS_ABSENT;
    }
    return (int64_t)tokens;
}

/* entry_body builds the body of entry i: its payload verbatim, or a body for
 * the endpoint from its texts. Prints what went wrong. */
static char *entry_body(struct input_source *src, struct cli_requests *out, size_t i,
                        int64_t *out_isl)
{
    const struct profile_config *cfg = src->cfg;
    const struct dataset_entry *e = dataset_inputs_entry(out->inputs, i);
    *out_isl = METRICS_ABSENT;
    if (e->payload != NULL) {
        return strdup(e->payload);
    }
    if (out->type == ENDPOINT_RAW) {
        fprintf(stderr, "ringperf profile: --endpoint-type raw sends request bodies verbatim: "
                        "give a raw_payload or inputs_json --input-file\n");
        return NULL;
    }
    *out_isl = entry_prompt(src, e);
    if (*out_isl == -2) {
        fprintf(stderr,
                "ringperf profile: %s:%llu: cannot make a prompt of this record: with %zu "
                "hash_ids, input_length (%llu) must exceed (hash_ids - 1) x --isl-block-size "
                "(%lld), and the prompt must fit in %u bytes\n",
                cfg->input_file, (unsigned long long)e->line, e->hash_id_count,
                (unsigned long long)e->input_length,
                (long long)(cfg->isl_block_size_set ? cfg->isl_block_size : 512), PROMPT_BYTES_MAX);
        return NULL;
    }
    char where[512];
    snprintf(where, sizeof(where), "%s:%llu", cfg->input_file, (unsigned long long)e->line);
    struct cli_media_set media;
    if (cli_media_from_entry(e, where, &media) != 0) {
        return NULL;
    }
    char *extra = merged_extra(src->extra, e->extra_json);
    struct endpoint_payload_spec spec = {
        .type = out->type,
        .model = model_of(cfg, &src->prompts, i),
        .prompt = src->prompt,
        .max_tokens = e->output_length > 0 ? e->output_length
                      : cfg->osl_set
                          ? dataset_sample_length(&src->prompts.rng, (uint64_t)cfg->osl_tokens_mean,
                                                  cfg->osl_tokens_stddev)
                          : 0,
        .streaming = cfg->streaming,
        .use_legacy_max_tokens = cfg->use_legacy_max_tokens,
        .extra_inputs_json = extra,
        .use_server_token_count = cfg->use_server_token_count,
        .texts = e->text_count > 0 ? e->texts : NULL,
        .text_count = e->text_count,
        .query = e->text_count > 0 ? e->texts[0] : src->prompt,
        .passages = e->text_count > 1 ? e->texts + 1 : NULL,
        .passage_count = e->text_count > 1 ? e->text_count - 1 : 0,
        .media = media.view,
    };
    char errbuf[512];
    char *body = endpoint_payload_build(&spec, errbuf, sizeof(errbuf));
    if (body == NULL) {
        fprintf(stderr, "ringperf profile: %s: cannot build the request body: %s\n", where, errbuf);
    }
    cli_media_set_free(&media);
    free(extra);
    return body;
}

static int load_inputs(const struct profile_config *cfg, struct cli_requests *out)
{
    struct dataset_inputs_options opts = {.path = cfg->input_file};
    if (cfg->custom_dataset_type != NULL &&
        dataset_input_type_parse(cfg->custom_dataset_type, &opts.type) != 0) {
        fprintf(stderr,
                "ringperf profile: --custom-dataset-type %s is not supported; supported: "
                "single_turn, random_pool, mooncake_trace, raw_payload, inputs_json\n",
                cfg->custom_dataset_type);
        return -EINVAL;
    }
    /* A count-limited run that takes the file in order needs only its first
     * entries: stop reading there, so memory follows the run, not the file. */
    enum dataset_sampling sampling = DATASET_SAMPLING_DEFAULT;
    bool sampled = cfg->dataset_sampling_strategy != NULL &&
                   dataset_sampling_parse(cfg->dataset_sampling_strategy, &sampling) == 0;
    bool in_order = !sampled || sampling == DATASET_SAMPLING_SEQUENTIAL;
    if (in_order && !cfg->fixed_schedule && cfg->request_count_set &&
        cfg->benchmark_duration_seconds <= 0) {
        opts.entries_max = (size_t)cfg->request_count + (size_t)cfg->warmup_request_count;
    }
    char err[DATASET_ERR_CAP];
    if (dataset_inputs_load(&opts, &out->inputs, err, sizeof(err)) != 0) {
        fprintf(stderr, "ringperf profile: --input-file %s\n", err);
        return -EINVAL;
    }
    /* What only the loaded file can tell: a timestamped trace replays whole,
     * and a random pool samples from every entry. Read it all then. */
    enum dataset_input_type type = dataset_inputs_type(out->inputs);
    bool whole = (dataset_inputs_timestamped(out->inputs) && !cfg->no_fixed_schedule) ||
                 (!sampled && dataset_sampling_default(type) != DATASET_SAMPLING_SEQUENTIAL);
    if (opts.entries_max > 0 && dataset_inputs_count(out->inputs) >= opts.entries_max && whole) {
        dataset_inputs_free(out->inputs);
        out->inputs = NULL;
        opts.entries_max = 0;
        opts.type = type;
        if (dataset_inputs_load(&opts, &out->inputs, err, sizeof(err)) != 0) {
            fprintf(stderr, "ringperf profile: --input-file %s\n", err);
            return -EINVAL;
        }
    }
    return 0;
}

/* build_bodies builds the body of every entry, or with used only of the
 * entries marked there (the others keep a NULL body). */
static int build_bodies(const struct profile_config *cfg, uint64_t seed,
                        const struct tokenizer *tok, const char *extra, struct cli_requests *out,
                        int64_t *isl, const bool *used)
{
    struct input_source src = {.cfg = cfg, .tok = tok, .extra = extra};
    dataset_rng_seed(&src.prompts.rng, seed);
    src.prompts.model_seed = seed ^ 0x6d6f64656cULL;
    char errbuf[512];
    int ret = 0;
    if (tok != NULL &&
        dataset_prompter_new(tok, &src.prompts.prompter, errbuf, sizeof(errbuf)) != 0) {
        fprintf(stderr, "ringperf profile: %s\n", errbuf);
        return -EINVAL;
    }
    size_t count = dataset_inputs_count(out->inputs);
    uint64_t block = cfg->isl_block_size_set ? (uint64_t)cfg->isl_block_size : 512;
    src.prompt = malloc(PROMPT_BYTES_MAX);
    out->bodies = calloc(count, sizeof(*out->bodies));
    if (src.prompt == NULL || out->bodies == NULL ||
        dataset_blocks_new(src.prompts.prompter, block, seed ^ 0x626c6f636bULL, &src.blocks) != 0) {
        ret = -ENOMEM;
    }
    for (size_t i = 0; ret == 0 && i < count; i++) {
        if (used != NULL && !used[i]) {
            out->body_count++;
            continue;
        }
        out->bodies[i] = entry_body(&src, out, i, &isl[i]);
        ret = out->bodies[i] != NULL ? 0 : -EINVAL;
        out->body_count += ret == 0;
    }
    free(src.prompt);
    dataset_blocks_free(src.blocks);
    dataset_prompter_free(src.prompts.prompter);
    tokenizer_scratch_free(&src.prompts.scratch);
    return ret;
}

struct timed_entry {
    double timestamp_ms;
    size_t index;
};

static int by_timestamp(const void *a, const void *b)
{
    const struct timed_entry *x = a;
    const struct timed_entry *y = b;
    if (x->timestamp_ms != y->timestamp_ms) {
        return x->timestamp_ms < y->timestamp_ms ? -1 : 1;
    }
    return x->index < y->index ? -1 : x->index > y->index;
}

/* schedule_order puts the entries whose timestamps fall in the
 * --fixed-schedule-start/end-offset window (inclusive) in timestamp order,
 * with due times relative to the start offset, else (auto offset) the first
 * timestamp, else 0. Returns the number of entries, or 0 with a message. */
static size_t schedule_order(const struct profile_config *cfg, struct cli_requests *out,
                             size_t *order)
{
    size_t count = dataset_inputs_count(out->inputs);
    struct timed_entry *timed = calloc(count, sizeof(*timed));
    size_t n = 0;
    for (size_t i = 0; timed != NULL && i < count; i++) {
        const struct dataset_entry *e = dataset_inputs_entry(out->inputs, i);
        if (!e->has_timestamp) {
            fprintf(stderr,
                    "ringperf profile: %s:%llu: --fixed-schedule needs a \"timestamp\" "
                    "(ms) in every record\n",
                    cfg->input_file, (unsigned long long)e->line);
            free(timed);
            return 0;
        }
        bool after_start = !cfg->fixed_schedule_start_offset_set ||
                           e->timestamp_ms >= (double)cfg->fixed_schedule_start_offset_ms;
        bool before_end = !cfg->fixed_schedule_end_offset_set ||
                          e->timestamp_ms <= (double)cfg->fixed_schedule_end_offset_ms;
        if (after_start && before_end) {
            timed[n++] = (struct timed_entry){e->timestamp_ms, i};
        }
    }
    if (timed != NULL && n > 0) {
        qsort(timed, n, sizeof(*timed), by_timestamp);
        double zero_ms = cfg->fixed_schedule_start_offset_set
                             ? (double)cfg->fixed_schedule_start_offset_ms
                         : cfg->fixed_schedule_auto_offset ? timed[0].timestamp_ms
                                                           : 0.0;
        for (size_t k = 0; k < n; k++) {
            order[k] = timed[k].index;
            double offset_ns = (timed[k].timestamp_ms - zero_ms) * 1e6;
            out->schedule_offsets_ns[k] = offset_ns > 0 ? (int64_t)offset_ns : 0;
        }
    } else if (timed != NULL) {
        fprintf(stderr,
                "ringperf profile: --input-file %s: no timestamps inside the "
                "--fixed-schedule-start/end-offset window\n",
                cfg->input_file);
    }
    free(timed);
    return n;
}

/* sample_order orders the entries by --dataset-sampling-strategy; returns
 * the number of payload slots, or 0 with a message. */
static size_t sample_order(const struct profile_config *cfg, uint64_t seed,
                           struct cli_requests *out, size_t *order, size_t slots)
{
    enum dataset_sampling sampling = dataset_sampling_default(dataset_inputs_type(out->inputs));
    if (cfg->dataset_sampling_strategy != NULL &&
        dataset_sampling_parse(cfg->dataset_sampling_strategy, &sampling) != 0) {
        fprintf(stderr,
                "ringperf profile: --dataset-sampling-strategy %s: expected sequential, "
                "random or shuffle\n",
                cfg->dataset_sampling_strategy);
        return 0;
    }
    size_t count = dataset_inputs_count(out->inputs);
    size_t n = sampling == DATASET_SAMPLING_SEQUENTIAL ? count : slots;
    struct dataset_rng rng;
    dataset_rng_seed(&rng, seed ^ 0x73616d706c65ULL);
    dataset_sample_order(sampling, count, &rng, order, n);
    return n;
}

/* build_sent builds the bodies of the entries order[0..n) sends, and only
 * those: a 1,000-request run over a 1,000,000-line file builds 1,000. */
static int build_sent(const struct profile_config *cfg, uint64_t seed, const struct tokenizer *tok,
                      const char *extra, struct cli_requests *out, int64_t *isl,
                      const size_t *order, size_t n)
{
    bool *used = calloc(dataset_inputs_count(out->inputs), sizeof(*used));
    if (used == NULL) {
        return -ENOMEM;
    }
    for (size_t k = 0; k < n; k++) {
        used[order[k]] = true;
    }
    int ret = build_bodies(cfg, seed, tok, extra, out, isl, used);
    free(used);
    return ret;
}

static int order_payloads(const struct profile_config *cfg, uint64_t seed,
                          const struct tokenizer *tok, const char *extra, struct cli_requests *out,
                          int64_t *isl)
{
    size_t count = dataset_inputs_count(out->inputs);
    size_t slots = count;
    if (cfg->request_count_set && (uint64_t)cfg->request_count > count) {
        slots = (uint64_t)cfg->request_count < INPUT_ORDER_MAX ? (size_t)cfg->request_count
                                                               : INPUT_ORDER_MAX;
    }
    slots = slots > count ? slots : count;
    out->fixed_schedule =
        cfg->fixed_schedule || (dataset_inputs_timestamped(out->inputs) && !cfg->no_fixed_schedule);
    size_t *order = calloc(slots, sizeof(*order));
    out->schedule_offsets_ns = out->fixed_schedule ? calloc(count, sizeof(int64_t)) : NULL;
    if (order == NULL || (out->fixed_schedule && out->schedule_offsets_ns == NULL)) {
        free(order);
        return -ENOMEM;
    }
    size_t n = out->fixed_schedule ? schedule_order(cfg, out, order)
                                   : sample_order(cfg, seed, out, order, slots);
    /* A run of fewer requests sends only the first slots: ordinal % n is the
     * same for every ordinal it issues. */
    uint64_t needed = (uint64_t)cfg->request_count + (uint64_t)cfg->warmup_request_count;
    if (!out->fixed_schedule && cfg->request_count_set && cfg->benchmark_duration_seconds <= 0 &&
        needed < n) {
        n = (size_t)needed;
    }
    if (n > 0 && build_sent(cfg, seed, tok, extra, out, isl, order, n) != 0) {
        free(order);
        return -EINVAL;
    }
    out->payloads = n > 0 ? calloc(n, sizeof(*out->payloads)) : NULL;
    out->payload_isl = n > 0 && tok != NULL ? calloc(n, sizeof(*out->payload_isl)) : NULL;
    int ret = n == 0                                                               ? -EINVAL
              : out->payloads == NULL || (tok != NULL && out->payload_isl == NULL) ? -ENOMEM
                                                                                   : 0;
    for (size_t k = 0; ret == 0 && k < n; k++) {
        char *body = out->bodies[order[k]];
        out->payloads[k] = (struct engine_payload){.body = body, .body_len = strlen(body)};
        if (out->payload_isl != NULL) {
            out->payload_isl[k] = isl[order[k]];
        }
        out->payload_count++;
    }
    free(order);
    return ret;
}

/* input_sessions reports whether the file holds multi-turn sessions: a
 * multi_turn file, or raw_payload directories and inputs_json with sessions
 * of several turns. A timestamped trace replays on its schedule instead. */
static bool input_sessions(const struct profile_config *cfg, const struct cli_requests *out)
{
    if (cfg->fixed_schedule ||
        (dataset_inputs_timestamped(out->inputs) && !cfg->no_fixed_schedule)) {
        return false;
    }
    if (dataset_inputs_type(out->inputs) == DATASET_INPUT_MULTI_TURN) {
        return true;
    }
    for (size_t i = 0; i < dataset_inputs_count(out->inputs); i++) {
        if (dataset_inputs_entry(out->inputs, i)->turn > 0) {
            return true;
        }
    }
    return false;
}

/* joined_texts returns an entry's texts joined by one space (malloc'd). */
static char *joined_texts(const struct dataset_entry *e)
{
    size_t len = 0;
    for (size_t i = 0; i < e->text_count; i++) {
        len += strlen(e->texts[i]) + 1;
    }
    char *out = malloc(len + 1);
    size_t at = 0;
    for (size_t i = 0; out != NULL && i < e->text_count; i++) {
        size_t n = strlen(e->texts[i]);
        if (i > 0) {
            out[at++] = ' ';
        }
        memcpy(out + at, e->texts[i], n);
        at += n;
    }
    if (out != NULL) {
        out[at] = '\0';
    }
    return out;
}

/* add_input_conversations turns the file's sessions into conversations, in
 * file order: verbatim bodies as written (the history is in them), and
 * multi_turn texts as user turns that get the live replies in between. */
static int add_input_conversations(const struct profile_config *cfg, struct cli_requests *out,
                                   const int64_t *isl)
{
    int64_t static_tokens = 0;
    for (size_t i = 0; i < dataset_inputs_count(out->inputs); i++) {
        const struct dataset_entry *e = dataset_inputs_entry(out->inputs, i);
        size_t conv = out->sessions.conv_count - (e->turn > 0 ? 1 : 0);
        struct cli_turn turn = {
            .model = cfg->models.items[conv % cfg->models.count],
            .delay_ns = e->turn > 0 && e->has_delay ? (int64_t)(e->delay_ms * 1e6) : 0,
            .max_tokens = e->output_length > 0 ? e->output_length
                          : cfg->osl_set       ? (uint64_t)cfg->osl_tokens_mean
                                               : 0,
        };
        if (e->payload != NULL) {
            turn.body = out->bodies[i];
            turn.body_len = strlen(out->bodies[i]);
            turn.static_tokens = isl[i];
        } else {
            turn.prompt = joined_texts(e);
            if (turn.prompt == NULL) {
                return -ENOMEM;
            }
            static_tokens = e->turn == 0 ? 0 : static_tokens;
            static_tokens = static_tokens >= 0 && isl[i] >= 0 ? static_tokens + isl[i] : -1;
            turn.static_tokens = static_tokens;
        }
        int ret = cli_sessions_add(&out->sessions, e->turn == 0, &turn, e->session_id);
        if (ret != 0) {
            return ret;
        }
    }
    return 0;
}

static int build_input_payloads(const struct profile_config *cfg, uint64_t seed,
                                const struct tokenizer *tok, const char *extra,
                                struct cli_requests *out)
{
    int ret = cfg->public_dataset != NULL ? cli_prompt_extras_load_public(cfg, tok, &out->inputs)
                                          : load_inputs(cfg, out);
    if (ret != 0) {
        return ret;
    }
    size_t count = dataset_inputs_count(out->inputs);
    int64_t *isl = calloc(count, sizeof(*isl));
    out->multi_turn = input_sessions(cfg, out);
    if (isl == NULL) {
        ret = -ENOMEM;
    } else if (out->multi_turn) {
        ret = build_bodies(cfg, seed, tok, extra, out, isl, NULL);
        ret = ret == 0 ? add_input_conversations(cfg, out, isl) : ret;
    } else {
        ret = order_payloads(cfg, seed, tok, extra, out, isl);
    }
    free(isl);
    return ret;
}

/* write_session_id writes s as a JSON string. */
static void write_json_string(FILE *f, const char *s)
{
    json_t *str = json_string(s);
    if (str == NULL || json_dumpf(str, f, JSON_ENCODE_ANY) != 0) {
        fputs("\"\"", f);
    }
    json_decref(str);
}

int cli_requests_write_inputs(const char *dir, const struct cli_requests *requests)
{
    char path[4096];
    snprintf(path, sizeof(path), "%s/inputs.json", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        return -EIO;
    }
    fputs("{\n  \"data\": [", f);
    size_t written = 0;
    for (size_t i = 0; i < requests->body_count; i++) {
        if (requests->bodies[i] == NULL) {
            continue; /* an entry the run does not send */
        }
        const struct dataset_entry *e = dataset_inputs_entry(requests->inputs, i);
        const struct dataset_entry *prev =
            i > 0 ? dataset_inputs_entry(requests->inputs, i - 1) : NULL;
        /* Consecutive entries of one named session are its turns. */
        bool same = prev != NULL && e->session_id != NULL && prev->session_id != NULL &&
                    strcmp(e->session_id, prev->session_id) == 0 && e->turn > 0;
        if (!same) {
            fputs(written > 0 ? "\n      ]\n    },\n    {\n      \"session_id\": "
                              : "\n    {\n      \"session_id\": ",
                  f);
            char fallback[32];
            snprintf(fallback, sizeof(fallback), "session_%zu", i);
            write_json_string(f, e->session_id != NULL ? e->session_id : fallback);
            fputs(",\n      \"payloads\": [\n        ", f);
        } else {
            fputs(",\n        ", f);
        }
        fputs(requests->bodies[i], f);
        written++;
    }
    fputs(written > 0 ? "\n      ]\n    }\n  ]\n}\n" : "]\n}\n", f);
    return fclose(f) == 0 ? 0 : -EIO;
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

static int build_headers(const struct profile_config *cfg, struct cli_requests *out)
{
    struct endpoint_header auth[ENDPOINT_AUTH_HEADERS_MAX];
    size_t auth_count = 0;
    if (endpoint_auth_headers(out->type, cfg->api_key, out->auth_value, sizeof(out->auth_value),
                              auth, &auth_count) != 0) {
        fprintf(stderr, "ringperf profile: --api-key is too long (at most %zu bytes)\n",
                sizeof(out->auth_value) - 8);
        return -EINVAL;
    }
    out->headers = calloc(auth_count + cfg->header_count + 1, sizeof(*out->headers));
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
    return 0;
}

/* seal_sessions sets how every turn's body is built and readies the sessions
 * for the engine. */
static int seal_sessions(const struct profile_config *cfg, struct cli_requests *out)
{
    out->sessions.base = (struct endpoint_payload_spec){
        .type = out->type,
        .system_prompt = out->sessions_system,
        .streaming = cfg->streaming,
        .use_legacy_max_tokens = cfg->use_legacy_max_tokens,
        .extra_inputs_json = out->sessions_extra,
        .use_server_token_count = cfg->use_server_token_count,
    };
    uint32_t users = cfg->concurrency > 0 ? (uint32_t)cfg->concurrency
                     : cfg->num_users > 0 ? (uint32_t)cfg->num_users
                                          : CLI_OPEN_LOOP_CONNECTIONS;
    int ret = cli_sessions_seal(&out->sessions, users);
    if (ret == -EINVAL) {
        fprintf(stderr, "ringperf profile: the dataset has no conversations\n");
    }
    return ret;
}

int cli_requests_prepare(const struct profile_config *cfg, uint64_t seed,
                         const struct tokenizer *tok, struct cli_requests *out)
{
    char errbuf[512];
    int ret = cli_requests_type(cfg, &out->type);
    if (ret != 0) {
        return ret;
    }
    endpoint_reader_init(&out->reader, out->type, NULL, NULL, 0);
    char *extra = NULL;
    if (cfg->extra_inputs.count > 0 &&
        endpoint_extra_inputs_parse((const char *const *)cfg->extra_inputs.items,
                                    cfg->extra_inputs.count, &extra, errbuf, sizeof(errbuf)) != 0) {
        fprintf(stderr, "ringperf profile: --extra-inputs: %s\n", errbuf);
        return -EINVAL;
    }
    ret = build_headers(cfg, out);
    /* Input files decide for themselves (build_input_payloads). */
    out->multi_turn = cfg->input_file == NULL &&
                      (cfg->conversation_turn_mean > 1 || cfg->conversation_turn_stddev > 0);
    if (ret == 0) {
        ret = cfg->input_file != NULL || cfg->public_dataset != NULL
                  ? build_input_payloads(cfg, seed, tok, extra, out)
                  : build_payloads(cfg, seed, tok, extra, out);
    }
    if (ret == 0 && out->multi_turn) {
        out->sessions_extra = extra;
        extra = NULL;
        ret = seal_sessions(cfg, out);
    }
    free(extra);
    return ret;
}

void cli_requests_free(struct cli_requests *requests)
{
    cli_sessions_free(&requests->sessions);
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
    requests->payload_isl = NULL;
    free(requests->headers);
    requests->payloads = NULL;
    requests->headers = NULL;
    requests->payload_count = 0;
}
