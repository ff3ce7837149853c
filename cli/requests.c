#include "cli/cli_requests.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "datasets/datasets.h"

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
    if (*out == ENDPOINT_RAW) {
        fprintf(stderr, "ringperf profile: --endpoint-type raw sends payloads from --input-file, "
                        "which ringperf does not read yet\n");
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
};

/* one_prompt draws the next synthetic prompt of the run into buf and returns
 * its input tokens (METRICS-style -1 when there is no tokenizer to count). */
static int one_prompt(const struct profile_config *cfg, struct prompt_source *src, char *buf,
                      int64_t *out_tokens)
{
    uint64_t length =
        dataset_sample_length(&src->rng, (uint64_t)cfg->isl_tokens_mean, cfg->isl_tokens_stddev);
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

/* build_one builds entry i's body and counts its input tokens. Rankings get
 * the prompt as the query and a second prompt as the passage (AIPerf's default
 * of one passage). */
static char *build_one(const struct profile_config *cfg, struct cli_requests *out,
                       struct prompt_source *src, size_t i, const char *extra, char *prompt,
                       char *passage)
{
    uint64_t max_tokens = cfg->osl_set
                              ? dataset_sample_length(&src->rng, (uint64_t)cfg->osl_tokens_mean,
                                                      cfg->osl_tokens_stddev)
                              : 0;
    int64_t isl = 0;
    if (one_prompt(cfg, src, prompt, &isl) != 0) {
        return NULL;
    }
    const char *passages[1] = {passage};
    struct endpoint_payload_spec spec = {
        .type = out->type,
        .model = cfg->models.items[i % cfg->models.count],
        .prompt = prompt,
        .max_tokens = max_tokens,
        .streaming = cfg->streaming,
        .use_legacy_max_tokens = cfg->use_legacy_max_tokens,
        .extra_inputs_json = extra,
        .use_server_token_count = cfg->use_server_token_count,
    };
    bool rankings = out->type == ENDPOINT_NIM_RANKINGS || out->type == ENDPOINT_COHERE_RANKINGS ||
                    out->type == ENDPOINT_HF_TEI_RANKINGS;
    if (rankings) {
        int64_t passage_isl = 0;
        if (one_prompt(cfg, src, passage, &passage_isl) != 0) {
            return NULL;
        }
        isl = isl >= 0 ? isl + passage_isl : isl;
        spec.query = prompt;
        spec.passages = passages;
        spec.passage_count = 1;
    }
    if (out->payload_isl != NULL) {
        out->payload_isl[i] = isl;
    }
    char errbuf[512];
    char *body = endpoint_payload_build(&spec, errbuf, sizeof(errbuf));
    if (body == NULL) {
        fprintf(stderr, "ringperf profile: cannot build the request body: %s\n", errbuf);
    }
    return body;
}

static int build_payloads(const struct profile_config *cfg, uint64_t seed,
                          const struct tokenizer *tok, const char *extra, struct cli_requests *out)
{
    size_t count = (size_t)cfg->request_count < DEFAULT_DATASET_ENTRIES ? (size_t)cfg->request_count
                                                                        : DEFAULT_DATASET_ENTRIES;
    struct prompt_source src = {.tok = tok};
    dataset_rng_seed(&src.rng, seed);
    char errbuf[512];
    if (tok != NULL && dataset_prompter_new(tok, &src.prompter, errbuf, sizeof(errbuf)) != 0) {
        fprintf(stderr, "ringperf profile: %s\n", errbuf);
        return -EINVAL;
    }
    out->payloads = calloc(count, sizeof(*out->payloads));
    out->payload_isl = tok != NULL ? calloc(count, sizeof(*out->payload_isl)) : NULL;
    char *prompt = malloc(PROMPT_BYTES_MAX);
    char *passage = malloc(PROMPT_BYTES_MAX);
    int ret = out->payloads != NULL && prompt != NULL && passage != NULL &&
                      (tok == NULL || out->payload_isl != NULL)
                  ? 0
                  : -ENOMEM;
    for (size_t i = 0; ret == 0 && i < count; i++) {
        char *body = build_one(cfg, out, &src, i, extra, prompt, passage);
        if (body == NULL) {
            ret = -EINVAL;
            break;
        }
        out->payloads[i] = (struct engine_payload){.body = body, .body_len = strlen(body)};
        out->payload_count++;
    }
    free(prompt);
    free(passage);
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
    if (ret == 0) {
        ret = build_payloads(cfg, seed, tok, extra, out);
    }
    free(extra);
    return ret;
}

void cli_requests_free(struct cli_requests *requests)
{
    for (size_t i = 0; i < requests->payload_count; i++) {
        free((char *)requests->payloads[i].body);
    }
    free(requests->payloads);
    free(requests->payload_isl);
    requests->payload_isl = NULL;
    free(requests->headers);
    requests->payloads = NULL;
    requests->headers = NULL;
    requests->payload_count = 0;
}
