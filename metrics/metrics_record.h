/*
 * metrics_record.h - turning one engine record into metrics, and a run's
 * records into its results: the content response times (events that carried
 * output or reasoning text), the token counts (the run's tokenizer, or the
 * server's usage), the metric values of metrics.h, and the error summary.
 * Separate from metrics.h because it reads engine records and counts tokens,
 * which the formulas themselves do not need.
 */
#ifndef RINGPERF_METRICS_RECORD_H
#define RINGPERF_METRICS_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "record/record.h"
#include "metrics/metrics.h"
#include "tokenizer/tokenizer.h"

#define METRICS_ERROR_KINDS_MAX 64

/* metrics_error_kind is one row of the error summary. */
struct metrics_error_kind {
    int code;
    char type[RECORD_ERROR_TYPE_BYTES];
    char message[RECORD_ERROR_MESSAGE_BYTES];
    uint64_t count;
};

/* metrics_record is one record seen through metrics/: the request view
 * (whose content_ns borrows the metrics_results' scratch buffer, valid until the
 * next metrics_record_compute) and its computed values. */
struct metrics_record {
    struct metrics_request request;
    struct metrics_values values;
    /* metrics_record_shared_reads() of the record, counted once: the run total,
     * the record's export line and a share's rank file all take it from here
     * (a merge, whose records carry no events, from the rank file). */
    uint32_t shared_reads;
};

/* metrics_results accumulates a run's records: the metric run, the error summary
 * and the counts the progress line shows. */
struct metrics_results {
    bool streaming;
    bool use_server_token_count;
    bool per_chunk_usage; /* ITL leaves out the first chunk's tokens (--per-chunk-usage) */
    bool open_loop;       /* requests follow a schedule: add the *_from_schedule metrics */
    bool fixed_schedule;  /* a trace's schedule: no credits, so no effective_latency */
    /* Client-side token counts (AIPerf's default): the run's tokenizer, or
     * NULL to take them from the server's usage. Borrowed. */
    const struct tokenizer *tokenizer;
    struct tokenizer_scratch token_scratch;
    const int64_t *payload_isl; /* input tokens of each payload, by payload index */
    /* The output length each payload asks for (max_tokens), by payload index,
     * 0 for none; NULL when no payload asks (osl_mismatch_*). Borrowed. */
    const int64_t *payload_osl;
    /* The input images of each payload, by payload index; NULL when the endpoint carries no
     * images (AIPerf's SUPPORTS_IMAGE_ONLY metrics are then not computed). Borrowed. */
    const int64_t *payload_images;
    /* The input audio of each payload in seconds (-1: unknown), by payload index; NULL when the
     * endpoint's requests carry no measured audio (audio_duration and rtfx). Borrowed. */
    const double *payload_audio_seconds;
    /* The endpoint's metadata (AIPerf's produces_tokens, tokenizes_input): without the first,
     * no output or reasoning counts (the text of a transcript is not generated tokens), nor
     * the usage counts of generated tokens; without the second, no usage prompt tokens.
     * metrics_results_init sets both true. */
    bool produces_tokens;
    bool tokenizes_input;
    /* The endpoint produces videos (AIPerf's PRODUCES_VIDEO_ONLY gate): only then do a
     * record's video figures become video_inference_time and video_peak_memory. */
    bool produces_video;
    /* The endpoint answers with token ids (sglang_generate, vllm_generate): a record's output
     * tokens are the ids it received (record.output_token_ids), not its text's tokens. */
    bool output_token_ids;
    /* Multi-turn runs: the input tokens of a turn, history included, given
     * the output tokens of its reply (workload_sessions_input_tokens, which
     * also remembers them for the session's next turn, per shard); -1 when not
     * counted. NULL for runs without sessions. */
    int64_t (*session_input_tokens)(void *ctx, const struct record *record, int64_t output_tokens);
    void *session_ctx;
    struct metrics_goodput goodput;
    struct metrics_run *run;
    struct metrics_sweep *sweep; /* every request's phases, for the sweep-line metrics */
    int64_t *content_ns; /* scratch for metrics_record_compute, grown to the longest record */
    uint32_t content_cap;
    uint64_t success_count;
    uint64_t error_count;
    uint64_t cancelled_count;
    int64_t first_wall_ns; /* earliest send start of any record, 0 before the first */
    struct metrics_error_kind errors[METRICS_ERROR_KINDS_MAX];
    size_t error_kind_count;
    uint64_t errors_unlisted;  /* errors past METRICS_ERROR_KINDS_MAX distinct kinds */
    uint64_t same_read_events; /* content events that shared a read with the previous one */
    /* --per-chunk-usage: streamed successes whose first chunk reported no
     * usable completion_tokens, so their ITL divides by OSL - 1. */
    uint64_t itl_first_chunk_fallbacks;
};

/* metrics_results_options are what a run's results depend on. */
struct metrics_results_options {
    bool streaming;
    bool use_server_token_count; /* --use-server-token-count */
    bool per_chunk_usage;        /* --per-chunk-usage */
    const char *goodput;         /* --goodput, or NULL */
    bool network_rtt_given;      /* --network-latency-mean ... */
    int64_t network_rtt_ns;      /* ... in ns */
};

/* metrics_results_init prepares `results` for a run with `opts`. Returns 0;
 * -EINVAL with the reason in errbuf (a bad --goodput); or -ENOMEM. Release
 * with metrics_results_free. */
int metrics_results_init(struct metrics_results *results,
                         const struct metrics_results_options *opts, char *errbuf, size_t errcap);

/* metrics_results_free releases what results owns; safe on a zeroed struct. */
void metrics_results_free(struct metrics_results *results);

/* metrics_record_compute fills `*out` for `record`: the content response times
 * (events that carried output or reasoning text), token counts (from the
 * run's tokenizer when there is one and --use-server-token-count is not
 * given, else from the server's usage) and the metric values. */
void metrics_record_compute(struct metrics_results *results, const struct record *record,
                            struct metrics_record *out);

/* metrics_record_compute_in is metrics_record_compute with the working memory
 * given: the tokenizer's scratch, and content_ns with room for every event of
 * the record (NULL: the record gets no content responses), which
 * out->request.content_ns then points into. It reads `results` and changes
 * nothing there, so shards may call it at once, each with memory of its own;
 * results->session_input_tokens, where set, must keep each shard's sessions
 * apart (workload_sessions_input_tokens does, by the record's shard). */
void metrics_record_compute_in(const struct metrics_results *results,
                               struct tokenizer_scratch *scratch, int64_t *content_ns,
                               const struct record *record, struct metrics_record *out);

/* metrics_record_compute_as fills `*out` with what metrics_record_compute with
 * `results` gives for `record`, from `counted`, what it gave with other results
 * that count tokens alike (the same tokenizer, endpoint and options) and differ
 * only in their schedule (open_loop, fixed_schedule) and session history: the
 * counts are taken over, not counted again. out->request.content_ns is
 * counted's. Calls results->session_input_tokens, where set, as the compute
 * would. The warmup's records, computed on the shards for the warmup's results,
 * are written to outputs.json with the profiling results' values this way. */
void metrics_record_compute_as(const struct metrics_results *results, const struct record *record,
                               const struct metrics_record *counted, struct metrics_record *out);

/* metrics_record_shared_reads returns how many of a successful streamed record's
 * content events arrived in the same network read as the content event before
 * them, and so carry that read's arrival time (0 for other records). */
uint32_t metrics_record_shared_reads(const struct record *record, bool streaming);

/* metrics_record_wall_ns converts a record's monotonic timestamp to wall-clock ns
 * (0 when either is unknown). */
int64_t metrics_record_wall_ns(const struct record *record, int64_t monotonic_ns);

/* metrics_results_add folds one record and its computed metrics into results. */
void metrics_results_add(struct metrics_results *results, const struct record *record,
                         const struct metrics_record *metrics);

/* metrics_results_sweep_add is the one hook that feeds the sweep-line metrics: it keeps the
 * request's start, first token and end on the wall clock (send start plus the monotonic
 * offsets), its input and output tokens and its content response times (metrics_results_add
 * calls it; a request never sent is left out). */
void metrics_results_sweep_add(struct metrics_results *results,
                               const struct metrics_record *metrics);

/* metrics_results_summarize is metrics_run_summarize of the run, with the sweep-line metrics.
 * Returns 0. */
int metrics_results_summarize(struct metrics_results *results, struct metrics_summary *out);

/* metrics_results_merge adds every record src holds into dst (both made by
 * metrics_results_init with the same options): counts, error kinds (their
 * sums; the kinds past METRICS_ERROR_KINDS_MAX of either side unlisted) and
 * the metric run (metrics_run_merge); not the sweep-line collection, which
 * metrics_results_sweep_add feeds. Returns 0, or -EINVAL as
 * metrics_run_merge. */
int metrics_results_merge(struct metrics_results *dst, const struct metrics_results *src);

/* metrics_results_reset empties results of what metrics_results_merge takes,
 * keeping its options and memory (and its sweep-line collection). */
void metrics_results_reset(struct metrics_results *results);

/* metrics_shards is a run's records turned into metrics on the shards that ran
 * them (shard.c): each shard computes its records' metrics on its own thread,
 * into each record's annex, and adds them to results of its own; the
 * coordinator merges those into the run's results from time to time
 * (metrics_shards_collect) and at the end (metrics_shards_collect_all). Opaque. */
struct metrics_shards;

/* metrics_shards_annex_bytes returns the annex a record needs (its
 * metrics_record and room for max_events content times): the engine's
 * engine_record_hook.annex_bytes. */
size_t metrics_shards_annex_bytes(size_t max_events);

/* metrics_shards_new makes the per-shard results of a run of `count` shards
 * whose records hold at most max_events events each: made with `opts`, and
 * counting tokens as `config` does (its tokenizer and payload lengths are
 * borrowed for the run; each shard gets a tokenizer scratch of its own, grown
 * here; a multi-turn run's session_input_tokens and its context too, called
 * on each shard's thread for that shard's records, in turn order). Returns 0
 * and the shards in *out (free with metrics_shards_free); -EINVAL when count
 * is 0; -ENOMEM. */
int metrics_shards_new(const struct metrics_results *config,
                       const struct metrics_results_options *opts, uint32_t count,
                       size_t max_events, struct metrics_shards **out);

/* metrics_shards_free releases the shards; NULL is a no-op. */
void metrics_shards_free(struct metrics_shards *shards);

/* metrics_shards_record runs on shard `shard`'s thread (the engine's record
 * hook): computes rec's metrics into its annex (metrics_shards_annex_bytes of
 * it) and adds them to the shard's results. No lock, no allocation once the
 * shard's arrays have grown. The sweep-line collection is left out: it keeps
 * every request of the run (its content times included), which a shard's
 * half, emptied at each collect, cannot; the coordinator adds each record from
 * its annex (metrics_results_sweep_add of metrics_shards_of) as it sees it. */
void metrics_shards_record(struct metrics_shards *shards, uint32_t shard, const struct record *rec);

/* metrics_shards_of returns the metrics metrics_shards_record computed for rec,
 * a view of its annex (request.content_ns included) valid while the record is. */
const struct metrics_record *metrics_shards_of(const struct record *rec);

/* metrics_shards_collect runs on the coordinator while the shards run: merges
 * into results (metrics_results_merge; made with the same options) what each
 * shard handed over since the last call, and asks each for what it adds next.
 * results then holds, counts and metrics alike, every record a shard had
 * finished by about the call before: a consistent view, one call late. The
 * timeslices handed over are merged into the run's (metrics_shards_slices).
 * Returns 0, or -ENOMEM when a timeslice could not be made, at this call or an
 * earlier one (its records are then left out of the timeslices, not of results). */
int metrics_shards_collect(struct metrics_shards *shards, struct metrics_results *results);

/* metrics_shards_collect_all merges into results everything the shards hold,
 * once their threads have ended: results then holds every record exactly, and
 * the run's timeslices every record that has one. Returns as
 * metrics_shards_collect. */
int metrics_shards_collect_all(struct metrics_shards *shards, struct metrics_results *results);

/* metrics_slices is a run's records grouped by request start time into AIPerf's timeslices
 * (--slice-duration): slice k holds the records whose request started (wall clock) in
 * [base_wall_ns + k * slice_ns, + slice_ns), each slice a metrics_run made with `config`
 * whose window is the slice's. Records never sent, or started before base_wall_ns, have
 * none; those of slice count_max or later are counted in `dropped`. Caller-allocated and
 * set up with metrics_slices_init; only one thread (the coordinator's) changes it, and the
 * shards read its settings (metrics_shards_slices). */
struct metrics_slices {
    int64_t base_wall_ns;
    int64_t slice_ns; /* 0: no timeslices (a zeroed table) */
    uint64_t count_max;
    struct metrics_run_config config; /* its goodput borrowed for the table's life */
    struct metrics_run **runs;        /* count_max of them, by index; NULL: an empty slice */
    uint64_t count;                   /* highest index of a slice made, plus one */
    uint64_t dropped;                 /* records past the last slice, or whose slice a shard
                                         could not make */
};

/* metrics_slices_init sets up `sl` (its previous contents ignored) with no slice yet.
 * Returns 0; -EINVAL for a slice_ns or count_max of 0 or less; -ENOMEM. */
int metrics_slices_init(struct metrics_slices *sl, int64_t base_wall_ns, int64_t slice_ns,
                        uint64_t count_max, const struct metrics_run_config *config);

/* metrics_slices_free releases the slices and zeroes `sl`; safe on a zeroed one. */
void metrics_slices_free(struct metrics_slices *sl);

/* metrics_slice_of is where a request falls among a table's timeslices. */
enum metrics_slice_of {
    METRICS_SLICE_NONE,      /* never sent, or started before the table's base: no slice */
    METRICS_SLICE_IN,        /* in slice *out_index */
    METRICS_SLICE_PAST_LAST, /* in slice count_max or later: to count as dropped */
};

/* metrics_slices_index is the one rule that gives a request started at wall_start_ns (0:
 * never sent) its timeslice in `sl`: the index goes to *out_index, unless NONE. */
enum metrics_slice_of metrics_slices_index(const struct metrics_slices *sl, int64_t wall_start_ns,
                                           uint64_t *out_index);

/* metrics_slices_add adds a record with metrics `m` to the slice its request started in
 * (counting it as dropped past the last). Returns 0 or -ENOMEM (the slice could not be
 * made; the record is left out). */
int metrics_slices_add(struct metrics_slices *sl, const struct record *rec,
                       const struct metrics_record *m);

/* metrics_slices_merge merges `part`, records of slice `index` grouped elsewhere with the
 * table's config, into that slice. Returns 0; -EINVAL (no table, or index count_max or
 * more); -ENOMEM. */
int metrics_slices_merge(struct metrics_slices *sl, uint64_t index, const struct metrics_run *part);

/* metrics_shards_slices makes the shards also group their records into the timeslices of
 * `into` (set up with metrics_slices_init; borrowed while the shards live), by
 * metrics_slices_index: each shard groups into small runs of its own, which the coordinator
 * merges into `into` at each collect. Call before the shards run. Each shard reuses the
 * runs the coordinator emptied, so it allocates only for its first few. Returns 0, -EINVAL
 * (`into` has no timeslices, or called twice) or -ENOMEM. */
int metrics_shards_slices(struct metrics_shards *shards, struct metrics_slices *into);

#endif
