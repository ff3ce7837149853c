/*
 * workload_prompt_extras.h - the synthetic-prompt extras of a run (internal to
 * workload/): prefix prompts, per-session user context messages, prompt batches
 * for embeddings and synthetic rankings queries and passages. requests.c
 * calls these hooks while it builds each synthetic request.
 */
#ifndef RINGPERF_WORKLOAD_PROMPT_EXTRAS_H
#define RINGPERF_WORKLOAD_PROMPT_EXTRAS_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "datasets/datasets.h"
#include "endpoint/endpoint.h"
#include "payload/payload.h"
#include "tokenizer/tokenizer.h"

/* workload_prompt_extras is the state of the hooks for one build. Caller-
 * allocated; zero it, then workload_prompt_extras_init. Borrows cfg, tok and
 * prompter (they must outlive it); owns the rest. */
struct workload_prompt_extras {
    const struct profile_config *cfg;
    const struct tokenizer *tok;
    const struct dataset_prompter *prompter;
    enum endpoint_type type;
    uint64_t seed;
    struct dataset_prefix_pool *prefixes; /* NULL without --num-prefix-prompts */
    char **texts;                         /* the extra texts of the current request */
    size_t text_count;
    size_t text_cap;
    char *buf; /* WORKLOAD_PROMPT_EXTRAS_TEXT_BYTES_MAX bytes of working space */
};

/* WORKLOAD_PROMPT_EXTRAS_TEXT_BYTES_MAX bounds one generated text. */
#define WORKLOAD_PROMPT_EXTRAS_TEXT_BYTES_MAX ((size_t)4 << 20)

/* workload_prompt_extras_init sets x up for cfg and builds the prefix pool (from
 * seed, with scratch). prompter is tok's prompter (both NULL: word counts).
 * Prints what went wrong to stderr. Returns 0, -EINVAL or -ENOMEM; x may be
 * freed either way. */
int workload_prompt_extras_init(struct workload_prompt_extras *x, const struct profile_config *cfg,
                                enum endpoint_type type, const struct tokenizer *tok,
                                const struct dataset_prompter *prompter,
                                struct tokenizer_scratch *scratch, uint64_t seed);

/* workload_prompt_extras_free releases what x owns and zeroes it. */
void workload_prompt_extras_free(struct workload_prompt_extras *x);

/* workload_prompt_extras_prefix, when prefix prompts are on, replaces prompt
 * (cap bytes) with "<prefix> <body>" whose body has the length the prompt
 * had (its *isl tokens, or its words without a tokenizer) and the whole of
 * which is exactly prefix + body tokens; *isl becomes that total (-1 stays
 * -1). A no-op otherwise. Returns 0, or -EINVAL with a message on stderr. */
int workload_prompt_extras_prefix(struct workload_prompt_extras *x,
                                  struct tokenizer_scratch *scratch, struct dataset_rng *rng,
                                  char *prompt, size_t cap, int64_t *isl);

/* workload_prompt_extras_texts fills the texts of spec: embeddings get
 * --prompt-batch-size texts (prompt first, then new --isl prompts); rankings
 * get prompt as the query (re-drawn at --rankings-query-prompt-token-mean
 * when given) and N(--rankings-passages-mean, -stddev) >= 1 passages of
 * --rankings-passages-prompt-token-mean tokens (default --isl). The texts
 * are owned by x and valid until the next call. Adds their tokens to *isl
 * (unless -1). Returns 0, or -EINVAL with a message on stderr. */
int workload_prompt_extras_texts(struct workload_prompt_extras *x,
                                 struct tokenizer_scratch *scratch, struct dataset_rng *rng,
                                 struct payload_spec *spec, char *prompt, size_t cap, int64_t *isl);

/* workload_prompt_extras_context_text writes session's --user-context-prompt-length
 * context into *out_text (owned by x, valid until the next call) and returns
 * its length: 0 without the flag, or when it cannot be made. */
size_t workload_prompt_extras_context_text(struct workload_prompt_extras *x,
                                           struct tokenizer_scratch *scratch, uint64_t session,
                                           const char **out_text);

/* workload_prompt_extras_context, with --user-context-prompt-length, returns body
 * (chat, chat_embeddings, messages, responses) with session's context
 * inserted as a user message before the prompt's, after any system message
 * (AIPerf's order); body is freed and a new malloc'd body returned. Adds the
 * context's tokens to *isl (unless -1). Without the flag returns body as is.
 * Returns NULL (body freed) with a message on stderr on error. */
char *workload_prompt_extras_context(struct workload_prompt_extras *x,
                                     struct tokenizer_scratch *scratch, uint64_t session,
                                     char *body, int64_t *isl);

/* workload_prompt_extras_load_public loads --public-dataset sharegpt into *out
 * (free with dataset_inputs_free): from --input-file, else from the Hugging
 * Face cache ($HF_HUB_CACHE, $HF_HOME/hub, ~/.cache/huggingface/hub); never
 * downloads. Lengths are tok's tokens (tok borrowed; NULL: word counts, with
 * a notice). Prints what went wrong (where to put the file) to stderr.
 * Returns 0 or -EINVAL. */
int workload_prompt_extras_load_public(const struct profile_config *cfg,
                                       const struct tokenizer *tok, struct dataset_inputs **out);

#endif
