/*
 * workload_internal.h - what the files of workload/ share: requests.c
 * (synthetic prompts, headers), input_requests.c (--input-file and
 * --public-dataset), the conversations and the trace timing. Internal to
 * workload/.
 */
#ifndef RINGPERF_WORKLOAD_INTERNAL_H
#define RINGPERF_WORKLOAD_INTERNAL_H

#include <stdio.h>

#include "workload/workload_prompt_extras.h"
#include "workload/workload.h"

/* PROMPT_BYTES_MAX bounds one prompt the run builds. */
#define PROMPT_BYTES_MAX (4u << 20)

/* prompt_source makes the run's synthetic prompts: exact token lengths from
 * the tokenizer's prompter when there is a tokenizer, words otherwise. */
struct prompt_source {
    const struct tokenizer *tok;
    struct dataset_prompter *prompter;
    struct tokenizer_scratch scratch;
    struct dataset_rng rng;
    uint64_t model_seed;                  /* --model-selection-strategy random draws from this */
    const char *system_prompt;            /* every request's system prompt, or NULL */
    struct dataset_seq_dist seq_dist;     /* --seq-dist, when seq_dist.count > 0 */
    int64_t system_tokens;                /* its tokens; -1 when uncounted */
    char *system_owned;                   /* a generated shared system prompt */
    struct workload_prompt_extras extras; /* prefixes, user context, batches, rankings */
};

/* workload__endpoint_inputs takes raw's and template's response_field and
 * template's payload_template out of *extra (a JSON object text, or NULL;
 * replaced), compiling them into out->reader and out->template
 * (endpoint_inputs.c). Returns 0, or -EINVAL/-ENOMEM after saying why. */
int workload__endpoint_inputs(struct workload_requests *out, char **extra);

/* Multipart endpoints (form_requests.c). workload__form_check refuses (-ENOTSUP, after saying
 * why) input files and multi-turn runs of a form endpoint. workload__form_init readies out for
 * `count` payloads of a form endpoint (a no-op for others). workload__form_payload builds payload i
 * of spec into out->payloads[i] and the form arrays (0, or an error after printing it).
 * workload__form_boundary returns the run's boundary. workload__form_free releases the files, tails
 * and arrays. */
int workload__form_check(const struct profile_config *cfg, const struct workload_requests *out);
int workload__form_init(struct workload_requests *out, size_t count);
int workload__form_payload(struct workload_requests *out, size_t i,
                           const struct payload_spec *spec);
const char *workload__form_boundary(const struct workload_requests *out);
void workload__form_free(struct workload_requests *out);

/* workload__body_images returns how many input images a request body carries (its image
 * parts; body_images.c), 0 for a body that is not a JSON object. */
int64_t workload__body_images(const char *body);

/* workload__count_payload_images fills out->payload_images from the built payloads when the
 * endpoint carries images and the run is single-turn (else leaves it NULL). 0 or -ENOMEM. */
int workload__count_payload_images(struct workload_requests *out);

/* workload__body_tokens returns the input tokens of a body sent verbatim: its messages'
 * contents, or its prompt, input or inputs, each text counted without special tokens
 * (body_tokens.c). METRICS_ABSENT without a tokenizer or any text to count. */
int64_t workload__body_tokens(const char *body, const struct tokenizer *tok,
                              struct tokenizer_scratch *scratch);

/* workload__cache_bust_key returns the --cache-bust key of conversation `conv` of
 * a run whose nonce is `nonce`: a different marker for every conversation
 * and every run. */
uint64_t workload__cache_bust_key(uint64_t nonce, uint64_t conv);

/* workload__cache_bust returns cfg's --cache-bust as the payload builder's. */
enum payload_cache_bust workload__cache_bust(const struct profile_config *cfg);

/* workload__model_of returns the model of payload i: --model values in turn
 * (round_robin), or a draw that depends only on the seed and i (random). */
const char *workload__model_of(const struct profile_config *cfg, const struct prompt_source *src,
                               size_t i);

/* ---- Replayed time (trace_time.c) ---- */

/* workload__timed_entry is an entry (or session: index) and its trace time. */
struct workload__timed_entry {
    double timestamp_ms;
    size_t index;
};

/* workload__by_timestamp orders workload__timed_entry by time, then index (qsort). */
int workload__by_timestamp(const void *a, const void *b);

/* workload__in_window reports whether a trace timestamp falls inside the
 * --fixed-schedule-start/end-offset window (inclusive). */
bool workload__in_window(const struct profile_config *cfg, double timestamp_ms);

/* workload__schedule_zero_ms is the trace time that becomes the run's time zero:
 * the start offset, else (auto offset) first_ms, else 0. */
double workload__schedule_zero_ms(const struct profile_config *cfg, double first_ms);

/* workload__offset_ns is a timestamp's due time after time zero (never negative,
 * never past CONFIG_TIME_MAX_SECONDS). */
int64_t workload__offset_ns(double timestamp_ms, double zero_ms);

/* workload__shape_schedule applies the replay knobs to n due times in order: every
 * gap between consecutive ones is cut to --max-idle-gap-cap-seconds, then all
 * of them are divided by --replay-speedup. */
void workload__shape_schedule(const struct profile_config *cfg, int64_t *offsets, size_t n);

/* workload__check_trace_times checks that the replayed times of inputs (its
 * "timestamp"s when the run replays them on a fixed schedule, its "delay"s
 * unless --ignore-trace-delays), after time zero and --replay-speedup, fit in
 * CONFIG_TIME_MAX_SECONDS. Returns 0, or -EINVAL after printing the first
 * that does not, by file and line, with a hint when it looks like an epoch
 * time. */
int workload__check_trace_times(const struct profile_config *cfg,
                                const struct dataset_inputs *inputs);

/* workload__turn_delay_ns is a delay before a turn, in ns, as the run applies it:
 * a recorded one (a trace's or a file's "delay") is dropped with
 * --ignore-trace-delays and divided by --replay-speedup; any is capped at
 * --inter-turn-delay-cap-seconds, and at CONFIG_TIME_MAX_SECONDS. */
int64_t workload__turn_delay_ns(const struct profile_config *cfg, double delay_ms, bool recorded);

/* ---- Input-file conversations (input_conversations.c) ---- */

/* workload__input_sessions reports whether the loaded input file holds multi-turn
 * sessions: a multi_turn file, raw_payload directories and inputs_json with
 * sessions of several turns, or a mooncake trace with session ids. */
bool workload__input_sessions(const struct profile_config *cfg,
                              const struct workload_requests *out);

/* workload__add_input_conversations turns the file's sessions into out->sessions
 * (bodies already built, isl[i] the input tokens of entry i); a mooncake
 * trace's sessions get their start times in out->schedule_offsets_ns. Prints
 * what went wrong. Returns 0, -EINVAL or -ENOMEM. */
int workload__add_input_conversations(const struct profile_config *cfg,
                                      struct workload_requests *out, const int64_t *isl);

/* workload__build_input_payloads loads --input-file (or --public-dataset) into out:
 * the dataset, the bodies the run sends in their order, or its conversations.
 * Prints what went wrong. Returns 0, -EINVAL or -ENOMEM. */
int workload__build_input_payloads(const struct profile_config *cfg, uint64_t seed,
                                   const struct tokenizer *tok, const char *extra,
                                   struct workload_requests *out);

/* workload__sessions_end_run says that --conversation-num ends the run: it
 * is given, and neither --request-count nor --benchmark-duration is (AIPerf
 * defaults to 10 requests only when none of the three is). */
bool workload__sessions_end_run(const struct profile_config *cfg);

/* workload__close_written closes f, a file written, and returns 0 or -errno
 * of the first write, flush or close that failed (-EIO when none said). */
int workload__close_written(FILE *f);

/* workload__read_file returns the contents of path (malloc'd, NUL-terminated
 * after *out_len bytes), which may hold at most cap bytes. NULL with *out_err
 * -errno when it cannot be opened, -EIO when reading failed, -EFBIG when it
 * is larger than cap, -ENOMEM; *out_err is 0 on success. */
char *workload__read_file(const char *path, size_t cap, size_t *out_len, int *out_err);

#endif
