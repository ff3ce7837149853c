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

/* cli__cache_bust_key returns the --cache-bust key of conversation `conv` of
 * a run whose nonce is `nonce`: a different marker for every conversation
 * and every run. */
uint64_t cli__cache_bust_key(uint64_t nonce, uint64_t conv);

/* cli__cache_bust returns cfg's --cache-bust as the payload builder's. */
enum endpoint_cache_bust cli__cache_bust(const struct profile_config *cfg);

/* cli__model_of returns the model of payload i: --model values in turn
 * (round_robin), or a draw that depends only on the seed and i (random). */
const char *cli__model_of(const struct profile_config *cfg, const struct prompt_source *src,
                          size_t i);

/* ---- Replayed time (trace_time.c) ---- */

/* cli__timed_entry is an entry (or session: index) and its trace time. */
struct cli__timed_entry {
    double timestamp_ms;
    size_t index;
};

/* cli__by_timestamp orders cli__timed_entry by time, then index (qsort). */
int cli__by_timestamp(const void *a, const void *b);

/* cli__in_window reports whether a trace timestamp falls inside the
 * --fixed-schedule-start/end-offset window (inclusive). */
bool cli__in_window(const struct profile_config *cfg, double timestamp_ms);

/* cli__schedule_zero_ms is the trace time that becomes the run's time zero:
 * the start offset, else (auto offset) first_ms, else 0. */
double cli__schedule_zero_ms(const struct profile_config *cfg, double first_ms);

/* cli__offset_ns is a timestamp's due time after time zero (never negative). */
int64_t cli__offset_ns(double timestamp_ms, double zero_ms);

/* cli__shape_schedule applies the replay knobs to n due times in order: every
 * gap between consecutive ones is cut to --max-idle-gap-cap-seconds, then all
 * of them are divided by --replay-speedup. */
void cli__shape_schedule(const struct profile_config *cfg, int64_t *offsets, size_t n);

/* cli__turn_delay_ns is a delay before a turn, in ns, as the run applies it:
 * a recorded one (a trace's or a file's "delay") is dropped with
 * --ignore-trace-delays and divided by --replay-speedup; any is capped at
 * --inter-turn-delay-cap-seconds. */
int64_t cli__turn_delay_ns(const struct profile_config *cfg, double delay_ms, bool recorded);

/* ---- Input-file conversations (input_conversations.c) ---- */

/* cli__input_sessions reports whether the loaded input file holds multi-turn
 * sessions: a multi_turn file, raw_payload directories and inputs_json with
 * sessions of several turns, or a mooncake trace with session ids. */
bool cli__input_sessions(const struct profile_config *cfg, const struct cli_requests *out);

/* cli__add_input_conversations turns the file's sessions into out->sessions
 * (bodies already built, isl[i] the input tokens of entry i); a mooncake
 * trace's sessions get their start times in out->schedule_offsets_ns. Prints
 * what went wrong. Returns 0, -EINVAL or -ENOMEM. */
int cli__add_input_conversations(const struct profile_config *cfg, struct cli_requests *out,
                                 const int64_t *isl);

/* cli__build_input_payloads loads --input-file (or --public-dataset) into out:
 * the dataset, the bodies the run sends in their order, or its conversations.
 * Prints what went wrong. Returns 0, -EINVAL or -ENOMEM. */
int cli__build_input_payloads(const struct profile_config *cfg, uint64_t seed,
                              const struct tokenizer *tok, const char *extra,
                              struct cli_requests *out);

#endif
