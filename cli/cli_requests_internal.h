/*
 * cli_requests_internal.h - what cli/requests.c (synthetic prompts, headers)
 * and cli/input_requests.c (--input-file and --public-dataset) share.
 * Internal to cli/.
 */
#ifndef RINGPERF_CLI_REQUESTS_INTERNAL_H
#define RINGPERF_CLI_REQUESTS_INTERNAL_H

#include "cli/cli_prompt_extras.h"
#include "cli/cli_requests.h"

/* PROMPT_BYTES_MAX bounds one prompt the run builds. */
#define PROMPT_BYTES_MAX (4u << 20)

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

/* cli__model_of returns the model of payload i: --model values in turn
 * (round_robin), or a draw that depends only on the seed and i (random). */
const char *cli__model_of(const struct profile_config *cfg, const struct prompt_source *src,
                          size_t i);

/* cli__turn_delay_ns is a delay before a turn, in ns, as the run applies it:
 * a recorded one (a trace's or a file's "delay") is dropped with
 * --ignore-trace-delays and divided by --replay-speedup; any is capped at
 * --inter-turn-delay-cap-seconds. */
int64_t cli__turn_delay_ns(const struct profile_config *cfg, double delay_ms, bool recorded);

/* cli__build_input_payloads loads --input-file (or --public-dataset) into out:
 * the dataset, the bodies the run sends in their order, or its conversations.
 * Prints what went wrong. Returns 0, -EINVAL or -ENOMEM. */
int cli__build_input_payloads(const struct profile_config *cfg, uint64_t seed,
                              const struct tokenizer *tok, const char *extra,
                              struct cli_requests *out);

#endif
