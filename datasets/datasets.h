/*
 * datasets.h - the prompts a run sends.
 *
 * Deterministic synthetic prompts. With a tokenizer (tokenizer/tokenizer.h), a
 * struct dataset_prompter makes prompts that re-encode to exactly the requested
 * number of tokens. Without one, dataset_synthetic_prompt counts words from a
 * fixed English word list, one word standing in for one token: the documented
 * approximation, with token metrics then taken from the server's usage reports.
 */
#ifndef RINGPERF_DATASETS_H
#define RINGPERF_DATASETS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* dataset_rng is a small, fast, seedable generator (splitmix64). Caller-owned,
 * so that every stream of random numbers is explicit and reproducible. */
struct dataset_rng {
    uint64_t state;
};

/* dataset_rng_seed starts a generator; the same seed gives the same sequence. */
void dataset_rng_seed(struct dataset_rng *rng, uint64_t seed);

/* dataset_rng_next returns the next 64 random bits. */
uint64_t dataset_rng_next(struct dataset_rng *rng);

/* dataset_rng_normal returns a normally distributed sample (Box-Muller). */
double dataset_rng_normal(struct dataset_rng *rng, double mean, double stddev);

/* dataset_sample_length draws a length from N(mean, stddev), rounded and
 * clamped to at least 1, as AIPerf samples --isl/--osl. stddev 0 gives mean. */
uint64_t dataset_sample_length(struct dataset_rng *rng, uint64_t mean, double stddev);

/* dataset_synthetic_prompt writes a prompt of exactly `words` words (single
 * spaces, no leading or trailing space) drawn from rng into out, NUL-terminated.
 * Returns the prompt's length in bytes, or 0 when it does not fit in cap (out
 * then holds an empty string). */
size_t dataset_synthetic_prompt(struct dataset_rng *rng, size_t words, char *out, size_t cap);

/* DATASET_SEQ_DIST_MAX bounds the entries of a --seq-dist mixture. */
#define DATASET_SEQ_DIST_MAX 64
/* DATASET_SEQ_TOKENS_MAX bounds a --seq-dist length and its spread, as the
 * --isl/--osl flags are bounded. */
#define DATASET_SEQ_TOKENS_MAX 1e8

/* dataset_seq_entry is one (ISL, OSL) pair of a mixture and its weight. */
struct dataset_seq_entry {
    uint64_t isl;
    double isl_stddev;
    uint64_t osl;
    double osl_stddev;
    double percent;
};

/* dataset_seq_dist is AIPerf's --seq-dist: pairs drawn by probability. */
struct dataset_seq_dist {
    struct dataset_seq_entry entries[DATASET_SEQ_DIST_MAX];
    size_t count;
};

/* dataset_seq_dist_parse reads "ISL,OSL:PCT;..." (each length optionally
 * "N|STDDEV"; the percentages must add up to 100). Returns 0, or -EINVAL with
 * a message naming --seq-dist and the expected form in err. */
int dataset_seq_dist_parse(const char *text, struct dataset_seq_dist *out, char *err, size_t cap);

/* dataset_seq_dist_sample draws one pair: an entry by its percentage, then
 * each length from N(mean, stddev) as dataset_sample_length does. */
void dataset_seq_dist_sample(const struct dataset_seq_dist *dist, struct dataset_rng *rng,
                             uint64_t *out_isl, uint64_t *out_osl);

/* DATASET_PROMPT_TOKENS_MAX bounds one token-exact prompt. */
#define DATASET_PROMPT_TOKENS_MAX ((size_t)1 << 22)

struct tokenizer;
struct tokenizer_scratch;

/* struct dataset_prompter makes token-exact prompts for one tokenizer. Opaque,
 * read-only once built: threads may share it, each with its own scratch. */
struct dataset_prompter;

/* dataset_prompter_new measures the built-in prose with tok (borrowed: it must
 * outlive the prompter). Returns 0 and a new prompter in *out (free with
 * dataset_prompter_free), or -1 with a message in err. */
int dataset_prompter_new(const struct tokenizer *tok, struct dataset_prompter **out, char *err,
                         size_t err_cap);

/* dataset_prompter_free releases a prompter; NULL is a no-op. */
void dataset_prompter_free(struct dataset_prompter *p);

/* dataset_prompter_generate writes into out (NUL-terminated) a prompt of plain
 * English prose that the prompter's tokenizer encodes (add_special_tokens=False)
 * to exactly `tokens` tokens, drawn from rng (same seed, same prompts). scratch
 * is the caller's per-thread tokenizer scratch. Returns the prompt's length in
 * bytes, or 0 (out then holds "") when tokens is 0 or above
 * DATASET_PROMPT_TOKENS_MAX, the prompt does not fit in cap, or no exact prompt
 * was found. Allocates a temporary array of tokens + 65 offsets. */
size_t dataset_prompter_generate(const struct dataset_prompter *p,
                                 struct tokenizer_scratch *scratch, struct dataset_rng *rng,
                                 size_t tokens, char *out, size_t cap);

/* ---- Input files (--input-file, --custom-dataset-type) ---- */

/* dataset_input_type is a --custom-dataset-type. DATASET_INPUT_AUTO asks the
 * loader to detect the format as AIPerf does. */
enum dataset_input_type {
    DATASET_INPUT_AUTO,
    DATASET_INPUT_SINGLE_TURN,
    DATASET_INPUT_MULTI_TURN,
    DATASET_INPUT_RANDOM_POOL,
    DATASET_INPUT_MOONCAKE_TRACE,
    DATASET_INPUT_RAW_PAYLOAD,
    DATASET_INPUT_INPUTS_JSON,
};

/* dataset_input_type_parse maps an AIPerf --custom-dataset-type name
 * ("single_turn", "mooncake_trace", ...) to *out. Returns 0, or -1 for a name
 * ringperf does not know. */
int dataset_input_type_parse(const char *name, enum dataset_input_type *out);

/* dataset_input_type_name returns the AIPerf name of type (static string). */
const char *dataset_input_type_name(enum dataset_input_type type);

/* Limits of the input-file loaders; exceeding one is an error naming the file
 * and line. */
#define DATASET_LINE_BYTES_MAX ((size_t)64 << 20)       /* one JSONL record */
#define DATASET_FILE_BYTES_MAX ((size_t)1 << 30)        /* inputs_json: the whole file */
#define DATASET_TEXTS_MAX 4096                          /* texts of one record */
#define DATASET_HASH_IDS_MAX 65536                      /* hash_ids of one record */
#define DATASET_DIR_FILES_MAX 100000                    /* .jsonl files in a directory */
#define DATASET_ENTRIES_MAX ((size_t)100 * 1000 * 1000) /* entries of one dataset */

/* dataset_entry is one request of an input file, as recorded. Every pointer
 * is owned by the dataset_inputs and valid until dataset_inputs_free. */
struct dataset_entry {
    const char *session_id; /* inputs_json, mooncake session_id; NULL = none */
    /* raw_payload, inputs_json: the body to send verbatim (whitespace outside
     * strings removed), NUL-terminated; NULL for the other formats. */
    const char *payload;
    size_t payload_len;
    const char *const *texts; /* text / texts contents, in order */
    size_t text_count;
    /* image / images and audio / audios as written: URLs, data URIs, audio as
     * "format,base64", or local file paths (the caller reads those). */
    const char *const *images;
    size_t image_count;
    const char *const *audios;
    size_t audio_count;
    const char *extra_json;   /* the record's "extra" object as JSON, or NULL */
    uint64_t output_length;   /* output_length / max_tokens to ask for; 0 = unset */
    uint64_t input_length;    /* mooncake: prompt tokens (with hash_ids); 0 = unset */
    const uint64_t *hash_ids; /* mooncake: prompt block ids, hash_id_count of them */
    size_t hash_id_count;
    double timestamp_ms; /* valid when has_timestamp */
    bool has_timestamp;
    double delay_ms; /* valid when has_delay */
    bool has_delay;
    uint32_t turn; /* position within its session (directory raw_payload, inputs_json) */
    uint64_t line; /* 1-based line of the record in its file (inputs_json: 0) */
};

/* struct dataset_inputs is a loaded input file: its entries in file order
 * (directories: files sorted by name, then lines). Opaque; read-only once
 * loaded. */
struct dataset_inputs;

/* dataset_inputs_options says what to load. */
struct dataset_inputs_options {
    const char *path;             /* a file or (random_pool, raw_payload) a directory */
    enum dataset_input_type type; /* DATASET_INPUT_AUTO: detect */
    size_t entries_max;           /* stop after this many entries; 0 = all */
    /* JSONL files: keep only these records (0-based among the file's records,
     * blank lines not counted; ascending, no repeats) and skip the others
     * without parsing them. NULL = every record. */
    const uint64_t *records_wanted;
    size_t records_wanted_count;
};

/* dataset_inputs_count_records counts the records (non-blank lines) of a
 * JSONL file without parsing them, into *out_count. Returns 0, or -1 with a
 * message naming the file. */
int dataset_inputs_count_records(const char *path, uint64_t *out_count, char *err, size_t err_cap);

/* DATASET_ERR_CAP is a good size for the err buffers of the loaders. */
#define DATASET_ERR_CAP 1024

/* dataset_inputs_load reads opts->path line by line (inputs_json: whole) into
 * a new dataset in *out (free with dataset_inputs_free). Returns 0, or -1 with
 * a message in err naming the file, the line (and column for JSON) and what
 * was expected; *out is then NULL. A multi_turn record becomes one entry per
 * turn (turn = its position, session_id shared). */
int dataset_inputs_load(const struct dataset_inputs_options *opts, struct dataset_inputs **out,
                        char *err, size_t err_cap);

/* dataset_inputs_load_buffer is dataset_inputs_load for a file already in
 * memory (data, len: borrowed, need not be NUL-terminated); name is used in
 * messages. Directories do not apply. */
int dataset_inputs_load_buffer(const char *data, size_t len, const char *name,
                               const struct dataset_inputs_options *opts,
                               struct dataset_inputs **out, char *err, size_t err_cap);

/* dataset_inputs_free releases a dataset; NULL is a no-op. */
void dataset_inputs_free(struct dataset_inputs *ds);

/* dataset_inputs_type returns the format that was loaded (never AUTO). */
enum dataset_input_type dataset_inputs_type(const struct dataset_inputs *ds);

/* dataset_inputs_count returns the number of entries. */
size_t dataset_inputs_count(const struct dataset_inputs *ds);

/* dataset_inputs_entry returns entry i (< count), a view owned by ds. */
const struct dataset_entry *dataset_inputs_entry(const struct dataset_inputs *ds, size_t i);

/* dataset_inputs_timestamped reports whether the first entry has a timestamp:
 * AIPerf then replays the file on a fixed schedule. */
bool dataset_inputs_timestamped(const struct dataset_inputs *ds);

/* dataset_sampling is --dataset-sampling-strategy. */
enum dataset_sampling {
    DATASET_SAMPLING_DEFAULT, /* the format's default (dataset_sampling_default) */
    DATASET_SAMPLING_SEQUENTIAL,
    DATASET_SAMPLING_RANDOM,
    DATASET_SAMPLING_SHUFFLE,
};

/* dataset_sampling_parse maps "sequential", "random" or "shuffle" to *out.
 * Returns 0, or -1 for anything else. */
int dataset_sampling_parse(const char *name, enum dataset_sampling *out);

/* dataset_sampling_default is AIPerf's default for a format: random_pool
 * shuffles, the others (files replayed as written) are sequential. */
enum dataset_sampling dataset_sampling_default(enum dataset_input_type type);

/* dataset_sample_order fills out_order[0..order_count) with entry indexes
 * (< entry_count, which must be > 0): sequential repeats 0..entry_count-1,
 * random draws with replacement, shuffle repeats fresh permutations; rng is
 * the caller's. */
void dataset_sample_order(enum dataset_sampling sampling, size_t entry_count,
                          struct dataset_rng *rng, size_t *out_order, size_t order_count);

/* dataset_compact_json copies the JSON text in (len bytes, assumed valid)
 * into out without the whitespace outside strings, NUL-terminated. out needs
 * len + 1 bytes. Returns the copied length. */
size_t dataset_compact_json(const char *in, size_t len, char *out);

/* struct dataset_blocks makes the prompts of hash-id traces (mooncake): each
 * hash id stands for a block of block_tokens tokens of text, the same text
 * for the same id; a record's prompt is its blocks in order, the last one
 * holding the remainder, (n-1)*block_tokens + last = input_length. Opaque;
 * not thread-safe. */
struct dataset_blocks;

/* dataset_blocks_new makes a block source: token-exact blocks from prompter
 * (borrowed; may be NULL: blocks are then words, one per token), drawn from
 * seed. Returns 0, or -1 when memory runs out or block_tokens is 0. */
int dataset_blocks_new(const struct dataset_prompter *prompter, size_t block_tokens, uint64_t seed,
                       struct dataset_blocks **out);

/* dataset_blocks_free releases a block source; NULL is a no-op. */
void dataset_blocks_free(struct dataset_blocks *blocks);

/* dataset_blocks_prompt writes the prompt of a record with these hash ids and
 * input_length into out (NUL-terminated, at most cap bytes), blocks joined
 * with one space. scratch is the caller's tokenizer scratch (used with a
 * prompter). Returns the length, or 0 (out = "") when it does not fit, there
 * are no hash ids, or input_length is too short for the ids given. */
size_t dataset_blocks_prompt(struct dataset_blocks *blocks, struct tokenizer_scratch *scratch,
                             const uint64_t *hash_ids, size_t hash_id_count, uint64_t input_length,
                             char *out, size_t cap);

/* ---- Prefix and user-context prompts (prefix.c) ---- */

/* DATASET_PREFIX_POOL_MAX bounds --num-prefix-prompts. */
#define DATASET_PREFIX_POOL_MAX 100000

/* struct dataset_prefix_pool is AIPerf's pool of prefix prompts
 * (--num-prefix-prompts N --prefix-prompt-length L): N texts of exactly L
 * tokens (L words without a tokenizer). Opaque; read-only once built. */
struct dataset_prefix_pool;

/* dataset_prefix_pool_new makes count prefixes of tokens tokens each from
 * prompter (borrowed, used only here; NULL: words) and the caller's scratch,
 * drawn from seed. Returns 0 and the pool in *out (free with
 * dataset_prefix_pool_free), or -EINVAL/-ENOMEM with a message in err. */
int dataset_prefix_pool_new(const struct dataset_prompter *prompter,
                            struct tokenizer_scratch *scratch, size_t count, size_t tokens,
                            uint64_t seed, struct dataset_prefix_pool **out, char *err,
                            size_t err_cap);

/* dataset_prefix_pool_free releases a pool; NULL is a no-op. */
void dataset_prefix_pool_free(struct dataset_prefix_pool *pool);

/* dataset_prefix_pool_count returns the number of prefixes. */
size_t dataset_prefix_pool_count(const struct dataset_prefix_pool *pool);

/* dataset_prefix_pool_get returns prefix i (< count), NUL-terminated, owned
 * by the pool. */
const char *dataset_prefix_pool_get(const struct dataset_prefix_pool *pool, size_t i);

/* dataset_prefix_prompt writes "<prefix> <body>" into out (NUL-terminated):
 * a prefix picked from rng, its index in *out_index, and a body drawn from
 * rng such that tok (add_special_tokens=False) encodes the whole text to
 * exactly the prefix's tokens + body_tokens; the body is re-drawn with a
 * corrected length when the seam merges or splits a token. tok and prompter
 * are both given (the prompter's tokenizer) or both NULL (words: exact by
 * construction). Returns the length, or 0 (out = "") when body_tokens is 0,
 * it does not fit in cap, or no exact body was found. */
size_t dataset_prefix_prompt(const struct dataset_prefix_pool *pool, const struct tokenizer *tok,
                             const struct dataset_prompter *prompter,
                             struct tokenizer_scratch *scratch, struct dataset_rng *rng,
                             size_t body_tokens, char *out, size_t cap, size_t *out_index);

/* dataset_user_context writes session's context prompt
 * (--user-context-prompt-length) into out: text that tok encodes to exactly
 * tokens tokens, from prompter (tok and prompter both NULL: words), drawn
 * from a stream that depends only on (seed, session) whatever the build
 * order. It starts "Session <n>." when tokens leaves room for that and a
 * word, so that no two sessions share a context. Returns the length, or 0
 * (out = "") when tokens is 0 or too many, or it does not fit in cap. */
size_t dataset_user_context(const struct tokenizer *tok, const struct dataset_prompter *prompter,
                            struct tokenizer_scratch *scratch, uint64_t seed, uint64_t session,
                            size_t tokens, char *out, size_t cap);

/* ---- ShareGPT (sharegpt.c) ---- */

/* DATASET_SHAREGPT_FILE is the file AIPerf downloads for --public-dataset
 * sharegpt; ringperf only reads a local copy. */
#define DATASET_SHAREGPT_FILE "ShareGPT_V3_unfiltered_cleaned_split.json"
/* DATASET_SHAREGPT_HF_DIR is its dataset folder in a Hugging Face hub cache. */
#define DATASET_SHAREGPT_HF_DIR "datasets--anon8231489123--ShareGPT_Vicuna_unfiltered"
/* DATASET_SHAREGPT_OBJECT_BYTES_MAX bounds one conversation object. */
#define DATASET_SHAREGPT_OBJECT_BYTES_MAX ((size_t)64 << 20)

/* dataset_sharegpt_options says how to read a ShareGPT file. */
struct dataset_sharegpt_options {
    const struct tokenizer *tok; /* borrowed; NULL: lengths are word counts */
    bool osl_set;                /* --osl given: no output filter, output_length left 0 */
    size_t entries_max;          /* stop after this many kept conversations; 0 = all */
};

/* dataset_sharegpt_find looks for DATASET_SHAREGPT_FILE in the Hugging Face
 * hub cache: hub_cache (HF_HUB_CACHE), else hf_home/hub (HF_HOME), else
 * home/.cache/huggingface/hub (each may be NULL or ""), under
 * DATASET_SHAREGPT_HF_DIR/snapshots/<any>/. Returns 0 with the path in out, or
 * -ENOENT with a message in err saying where to put the file. */
int dataset_sharegpt_find(const char *hub_cache, const char *hf_home, const char *home, char *out,
                          size_t cap, char *err, size_t err_cap);

/* dataset_sharegpt_load streams path (a JSON array of {"conversations":
 * [{"from","value"},...]} objects, parsed one object at a time) into a new
 * dataset in *out (free with dataset_inputs_free), as AIPerf reads ShareGPT:
 * conversations[0] is the prompt (the entry's one text), conversations[1] the
 * completion, whose length becomes output_length; conversations with fewer
 * than two turns are skipped, and so are those outside AIPerf's filter
 * (prompt 4..1024, output >= 4 unless osl_set, prompt + output <= 2048).
 * Returns 0, or -1 with a message naming the file, line and column in err
 * (*out = NULL); a file that keeps nothing is an error. */
int dataset_sharegpt_load(const char *path, const struct dataset_sharegpt_options *opts,
                          struct dataset_inputs **out, char *err, size_t err_cap);

/* dataset_sharegpt_load_buffer is dataset_sharegpt_load for data already in
 * memory (len bytes, borrowed, need not be NUL-terminated); name is used in
 * messages. */
int dataset_sharegpt_load_buffer(const char *data, size_t len, const char *name,
                                 const struct dataset_sharegpt_options *opts,
                                 struct dataset_inputs **out, char *err, size_t err_cap);

#endif
