/*
 * tokenizer.h - Hugging Face tokenizer.json, byte-level BPE (GPT-2 / Llama-3 / Qwen family).
 *
 * Counts tokens the way the model's own tokenizer does: encode follows
 * add_special_tokens=False (no BOS/EOS or template tokens are added), decode
 * follows skip_special_tokens=True. The reference for token-for-token identity
 * is the transformers.js encoder (npm @lenml/tokenizers), see tests/tokenizer/.
 *
 * Supported components; anything else fails to load with a message naming it:
 *   normalizer     null, NFC, NFD, NFKC, NFKD, Sequence of those
 *   pre_tokenizer  Split (Regex or String pattern, behavior Isolated or Removed,
 *                  invert false), ByteLevel (use_regex true or false,
 *                  add_prefix_space), Sequence of those
 *   model          BPE over ByteLevel symbols: merges as "a b" or ["a","b"],
 *                  ignore_merges; no dropout, byte_fallback, subword affixes
 *   decoder        ByteLevel (or null)
 *   added_tokens   split out of the text before normalization (leftmost,
 *                  longest match), lstrip/rstrip honoured
 *   post_processor ignored: it only adds tokens when add_special_tokens=True
 *
 * Text is UTF-8. Invalid UTF-8 is first replaced by U+FFFD, one replacement per
 * maximal ill-formed subpart (the WHATWG / Python / Rust from_utf8_lossy rule),
 * which is what the text becomes before any Hugging Face tokenizer sees it.
 *
 * Threads: a loaded tokenizer is immutable, so any number of threads may encode
 * and decode with it at once, each with its own struct tokenizer_scratch.
 */
#ifndef RINGPERF_TOKENIZER_H
#define RINGPERF_TOKENIZER_H

#include <stddef.h>
#include <stdint.h>

/* TOKENIZER_FILE_BYTES_MAX bounds the size of a tokenizer.json we read. */
#define TOKENIZER_FILE_BYTES_MAX ((size_t)256 << 20)
/* TOKENIZER_TEXT_BYTES_MAX bounds one encode input (after UTF-8 repair). */
#define TOKENIZER_TEXT_BYTES_MAX ((size_t)64 << 20)
/* TOKENIZER_ERR_CAP is a comfortable size for the err buffers below. */
#define TOKENIZER_ERR_CAP 512

/* struct tokenizer is a loaded, read-only tokenizer. Opaque. */
struct tokenizer;

/* tokenizer_status is what encode, count and decode return. */
enum tokenizer_status {
    TOKENIZER_OK = 0,
    TOKENIZER_ERR_NOMEM,    /* scratch could not grow */
    TOKENIZER_ERR_TOO_LONG, /* input over TOKENIZER_TEXT_BYTES_MAX */
    TOKENIZER_ERR_REGEX,    /* the pre-tokenizer regex failed (match limit, JIT stack) */
    TOKENIZER_ERR_BAD_ID,   /* decode was given an id outside the vocabulary */
};

/* struct tokenizer_scratch is per-thread working memory for encode, count and
 * decode. Zero-initialise it before first use; it grows on demand and is reused
 * across calls, so steady-state encoding does not allocate. One scratch must not
 * be used by two threads at once. Release it with tokenizer_scratch_free. Its
 * fields are private to the tokenizer module. */
struct tokenizer_scratch {
    void *state;
};

/* tokenizer_scratch_free releases the memory a scratch holds and zeroes it.
 * Safe on a zeroed scratch and on NULL. */
void tokenizer_scratch_free(struct tokenizer_scratch *scratch);

/* tokenizer_load reads a tokenizer.json file at path and builds a tokenizer.
 * Returns 0 and stores a new tokenizer in *out (the caller owns it; free with
 * tokenizer_free), or a negative errno-style value with a message naming the
 * file and the problem (including any unsupported component) in err. */
int tokenizer_load(const char *path, struct tokenizer **out, char *err, size_t err_cap);

/* tokenizer_load_buffer is tokenizer_load for a tokenizer.json held in memory
 * (json, len bytes; borrowed for the call only). name labels error messages. */
int tokenizer_load_buffer(const char *json, size_t len, const char *name, struct tokenizer **out,
                          char *err, size_t err_cap);

/* tokenizer_free releases a tokenizer. tokenizer_free(NULL) is a no-op. No
 * scratch may be in use with it at that point. */
void tokenizer_free(struct tokenizer *tok);

/* tokenizer_resolve finds the tokenizer.json to load, without any network:
 *   - tokenizer_arg non-NULL: a tokenizer.json file, or a directory holding one;
 *     otherwise it is taken as a Hugging Face model name (ORG/NAME) and looked
 *     up in the cache like model below;
 *   - else model (ORG/NAME): $HF_HUB_CACHE, else $HF_HOME/hub, else
 *     ~/.cache/huggingface/hub, at models--ORG--NAME/snapshots/<rev>/tokenizer.json
 *     (the revision named by refs/main first, else the first snapshot in name
 *     order that has one); with a revision (a branch or tag under refs/, or a
 *     commit hash), that revision's snapshot and no other.
 * Returns 0 with the path in path_out (NUL-terminated), or -ENOENT with a
 * message in err saying where it looked and suggesting --tokenizer, or
 * -ENAMETOOLONG when the path does not fit in path_cap. */
int tokenizer_resolve(const char *tokenizer_arg, const char *model, const char *revision,
                      char *path_out, size_t path_cap, char *err, size_t err_cap);

/* tokenizer_encode encodes len bytes of text (add_special_tokens=False). On
 * TOKENIZER_OK, *ids_out is a view of *count_out token ids owned by scratch and
 * valid until the next call with that scratch (never NULL on success, even for
 * zero ids). Special-token text in the input
 * (e.g. "<|im_end|>") becomes that token, as in Hugging Face. */
enum tokenizer_status tokenizer_encode(const struct tokenizer *tok,
                                       struct tokenizer_scratch *scratch, const char *text,
                                       size_t len, const uint32_t **ids_out, size_t *count_out);

/* tokenizer_count is tokenizer_encode returning only the number of tokens. */
enum tokenizer_status tokenizer_count(const struct tokenizer *tok,
                                      struct tokenizer_scratch *scratch, const char *text,
                                      size_t len, size_t *count_out);

/* tokenizer_decode turns count ids back into UTF-8 text, skipping special
 * tokens (skip_special_tokens=True); byte sequences that are not valid UTF-8
 * become U+FFFD, as in Hugging Face. On TOKENIZER_OK, *text_out is a view of
 * *len_out bytes (NUL-terminated) owned by scratch and valid until the next call
 * with that scratch. An id outside the vocabulary gives TOKENIZER_ERR_BAD_ID. */
enum tokenizer_status tokenizer_decode(const struct tokenizer *tok,
                                       struct tokenizer_scratch *scratch, const uint32_t *ids,
                                       size_t count, const char **text_out, size_t *len_out);

/* tokenizer_vocab_size returns one more than the largest token id. */
uint32_t tokenizer_vocab_size(const struct tokenizer *tok);

/* tokenizer_is_special reports whether id is a special token (skipped by
 * decode). Ids outside the vocabulary are not special. */
int tokenizer_is_special(const struct tokenizer *tok, uint32_t id);

/* tokenizer_status_str names a status for messages (a static string). */
const char *tokenizer_status_str(enum tokenizer_status status);

#endif
