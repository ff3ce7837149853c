/*
 * tokenizer_internal.h - shared between the tokenizer module's files. Not public.
 */
#ifndef RINGPERF_TOKENIZER_INTERNAL_H
#define RINGPERF_TOKENIZER_INTERNAL_H

#define PCRE2_CODE_UNIT_WIDTH 8

#include <pcre2.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tokenizer/tokenizer.h"

enum {
    TOK__VOCAB_MAX = 1 << 22,      /* token ids stay below this */
    TOK__TOKEN_BYTES_MAX = 4096,   /* one vocabulary entry */
    TOK__ADDED_MAX = 65536,        /* added tokens */
    TOK__STEPS_MAX = 8,            /* normalizers / pre-tokenizers in a Sequence */
    TOK__PATTERN_BYTES_MAX = 8192, /* one Split regex */
    TOK__BPE_LINEAR_MAX = 48,      /* words up to this many bytes merge by linear scan */
};

/* token flags */
enum {
    TOK__PRESENT = 1,
    TOK__ADDED = 2,
    TOK__SPECIAL = 4,
};

/* One vocabulary entry: raw bytes (ByteLevel undone) at arena + off. */
struct tok__entry {
    uint32_t off;
    uint32_t len;
    uint32_t flags;
};

/* Open-addressing map from byte strings (in the arena) to ids. */
struct tok__strmap {
    uint32_t *slots; /* id + 1, 0 = empty */
    uint32_t mask;
};

/* Open-addressing map from (left id, right id) to (rank, merged id). */
struct tok__pair {
    uint64_t key; /* left << 32 | right; UINT64_MAX = empty */
    uint32_t rank;
    uint32_t merged;
};

struct tok__pairmap {
    struct tok__pair *slots;
    uint64_t mask;
};

struct tok__added {
    uint32_t id;
    uint32_t off; /* content in arena */
    uint32_t len;
    bool lstrip;
    bool rstrip;
};

enum tok__step_kind {
    TOK__STEP_SPLIT,
    TOK__STEP_BYTELEVEL,
};

struct tok__step {
    enum tok__step_kind kind;
    pcre2_code *re; /* Split pattern, or the GPT-2 pattern for ByteLevel use_regex */
    bool removed;   /* Split behavior Removed (else Isolated) */
    bool add_prefix_space;
};

struct tokenizer {
    struct tok__entry *entries; /* indexed by id, vocab_size long */
    uint32_t vocab_size;
    char *arena;
    size_t arena_len;
    size_t arena_cap;
    struct tok__strmap vocab; /* model vocabulary only */
    struct tok__pairmap merges;
    uint32_t byte_id[256];
    bool ignore_merges;

    struct tok__added *added; /* sorted by first byte, then longest content first */
    uint32_t added_count;
    uint32_t added_first[257]; /* added[added_first[b] .. added_first[b+1]) start with byte b */

    int norm_options[TOK__STEPS_MAX]; /* utf8proc option sets, applied in order */
    int norm_count;
    struct tok__step steps[TOK__STEPS_MAX];
    int step_count;
};

/* Scratch internals (struct tokenizer_scratch.state points at one). */
struct tok__span {
    uint32_t off;
    uint32_t len;
};

struct tok__sym {
    uint32_t id;
    uint32_t start; /* byte offset in the word */
    int32_t prev;
    int32_t next;
    uint32_t len; /* 0 once merged into its left neighbour */
};

struct tok__heap_item {
    uint32_t rank;
    uint32_t pos;
};

/* TOK__WORD_CACHE_SLOTS is the size of a scratch's word cache (a power of two): counting
 * remembers how many tokens each recent pre-tokenized word of up to TOK__WORD_CACHE_BYTES bytes
 * became, as the Hugging Face and transformers.js encoders keep a word cache. */
#define TOK__WORD_CACHE_SLOTS 4096
#define TOK__WORD_CACHE_BYTES 22

/* tok__cached_word is one slot of the word cache: len 0 is empty. */
struct tok__cached_word {
    uint64_t hash;
    uint8_t len;
    uint8_t count;
    char bytes[TOK__WORD_CACHE_BYTES];
};

struct tok__scratch {
    uint32_t *ids;
    size_t ids_len;
    size_t ids_cap;
    char *fixed; /* UTF-8 repaired input */
    size_t fixed_cap;
    int32_t *norm; /* utf8proc working buffer */
    size_t norm_cap;
    char *work[2]; /* pre-tokenizer text buffers */
    size_t work_cap[2];
    struct tok__span *pieces[2];
    size_t pieces_cap[2];
    struct tok__sym *syms;
    size_t syms_cap;
    struct tok__heap_item *heap;
    size_t heap_cap;
    char *out; /* decode output */
    size_t out_cap;
    pcre2_match_data *md;
    pcre2_match_context *mctx;
    pcre2_jit_stack *jit_stack;
    bool counting; /* count only, do not store ids */
    /* The word cache of counting (TOK__WORD_CACHE_SLOTS slots, direct-mapped), and the
     * tokenizer its counts are of: another one empties it. */
    struct tok__cached_word *words;
    const struct tokenizer *words_tok;
};

/* tok__grow ensures *buf holds at least need elements of elem bytes. */
bool tok__grow(void **buf, size_t *cap, size_t need, size_t elem);

/* tok__bpe_count_word counts the tokens BPE makes of one pre-tokenized word into s->ids_len,
 * through the scratch's word cache. Returns false when out of memory. */
bool tok__bpe_count_word(const struct tokenizer *tok, struct tok__scratch *s, const char *word,
                         size_t len);

/* tok__hash_bytes is the string hash used by the vocabulary map. */
uint64_t tok__hash_bytes(const char *p, size_t len);

/* tok__vocab_find returns the id of raw bytes p[0..len) in the model vocabulary, or -1. */
int64_t tok__vocab_find(const struct tokenizer *tok, const char *p, size_t len);

/* tok__pair_find returns the merge for (left, right), or NULL. */
const struct tok__pair *tok__pair_find(const struct tokenizer *tok, uint32_t left, uint32_t right);

/* tok__utf8_lossy_len returns the length of p[0..len) after replacing ill-formed
 * sequences with U+FFFD, and sets *valid when nothing needed replacing. */
size_t tok__utf8_lossy_len(const char *p, size_t len, bool *valid);

/* tok__utf8_lossy_copy writes the repaired text into out (lossy_len bytes). */
void tok__utf8_lossy_copy(const char *p, size_t len, char *out);

/* tok__utf8_decode reads one code point of valid UTF-8 at p (n bytes left) and
 * returns its length in bytes. */
size_t tok__utf8_decode(const char *p, size_t n, uint32_t *cp);

/* tok__is_js_space reports whether cp is whitespace for JavaScript's \s and
 * trim(), which Split patterns and lstrip/rstrip follow. */
bool tok__is_js_space(uint32_t cp);

/* tok__bpe_word merges the raw bytes of one word and appends its ids via emit. */
bool tok__bpe_word(const struct tokenizer *tok, struct tok__scratch *s, const char *word,
                   size_t len, bool force_heap);

/* tok__scratch_get returns the scratch state, creating it on first use. */
struct tok__scratch *tok__scratch_get(struct tokenizer_scratch *scratch);

/* tok__emit appends one id (or only counts it). */
bool tok__emit(struct tok__scratch *s, uint32_t id);

/* tok__compile_pattern compiles a Split pattern (regex or literal) with
 * JavaScript-compatible \s. Returns NULL with a message in err. */
pcre2_code *tok__compile_pattern(const char *pattern, size_t len, bool literal, char *err,
                                 size_t err_cap);

#endif
