/*
 * prompter.c - synthetic prompts that re-encode to exactly the requested
 * number of tokens.
 *
 * A prompt is a run of consecutive words of the built-in prose from a random
 * start. Each word's token count (with its leading space) is known, so words
 * are added while they fit and one-token filler words make up the remainder.
 * With a byte-level BPE and a word-splitting regex those counts add up; the
 * final re-encode checks it, and a short repair loop (drop the last word, add
 * a filler) covers tokenizers where they do not.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/datasets.h"
#include "datasets/datasets_internal.h"
#include "tokenizer/tokenizer.h"

enum {
    WORDS_MAX = 4096,
    REPAIR_ROUNDS_MAX = 64,
};

struct word {
    uint32_t off;
    uint32_t len;
    uint32_t tokens_spaced; /* " word" */
    uint32_t tokens_first;  /* "word" at the start of the prompt */
};

struct dataset_prompter {
    const struct tokenizer *tok;
    struct word words[WORDS_MAX];
    uint32_t word_count;
    uint32_t fillers[WORDS_MAX]; /* words with tokens_spaced == 1 */
    uint32_t filler_count;
    uint32_t first_fillers[WORDS_MAX]; /* words with tokens_first == 1 */
    uint32_t first_filler_count;
};

static int count_word(const struct tokenizer *tok, struct tokenizer_scratch *s, const char *word,
                      size_t len, bool spaced, uint32_t *out)
{
    char buf[256];
    if (len + 1 > sizeof(buf)) {
        return -1;
    }
    size_t n = 0;
    if (spaced) {
        buf[n++] = ' ';
    }
    memcpy(buf + n, word, len);
    size_t count = 0;
    if (tokenizer_count(tok, s, buf, n + len, &count) != TOKENIZER_OK) {
        return -1;
    }
    *out = (uint32_t)count;
    return 0;
}

static int add_word(struct dataset_prompter *p, struct tokenizer_scratch *s, size_t off, size_t len)
{
    struct word *w = &p->words[p->word_count];
    w->off = (uint32_t)off;
    w->len = (uint32_t)len;
    const char *text = DATASET__PROSE + off;
    if (count_word(p->tok, s, text, len, true, &w->tokens_spaced) != 0 ||
        count_word(p->tok, s, text, len, false, &w->tokens_first) != 0) {
        return -1;
    }
    if (w->tokens_spaced == 1) {
        p->fillers[p->filler_count++] = p->word_count;
    }
    if (w->tokens_first == 1) {
        p->first_fillers[p->first_filler_count++] = p->word_count;
    }
    p->word_count++;
    return 0;
}

int dataset_prompter_new(const struct tokenizer *tok, struct dataset_prompter **out, char *err,
                         size_t err_cap)
{
    *out = NULL;
    struct dataset_prompter *p = calloc(1, sizeof(*p));
    if (p == NULL) {
        snprintf(err, err_cap, "out of memory");
        return -1;
    }
    p->tok = tok;
    struct tokenizer_scratch s = {0};
    int rc = 0;
    size_t i = 0;
    while (i < DATASET__PROSE_LEN && rc == 0 && p->word_count < WORDS_MAX) {
        size_t end = i;
        while (end < DATASET__PROSE_LEN && DATASET__PROSE[end] != ' ') {
            end++;
        }
        if (end > i) {
            rc = add_word(p, &s, i, end - i);
        }
        i = end + 1;
    }
    tokenizer_scratch_free(&s);
    if (rc == 0 && (p->filler_count == 0 || p->first_filler_count == 0)) {
        snprintf(err, err_cap,
                 "the tokenizer has no one-token English words; cannot build "
                 "token-exact prompts");
        rc = -1;
    } else if (rc != 0) {
        snprintf(err, err_cap, "the tokenizer failed on the built-in prompt text");
    }
    if (rc != 0) {
        free(p);
        return rc;
    }
    *out = p;
    return 0;
}

void dataset_prompter_free(struct dataset_prompter *p)
{
    free(p);
}

struct builder {
    char *out;
    size_t cap;
    size_t len;
    size_t *ends; /* byte length after each word */
    size_t units;
};

static bool append_word(struct builder *b, const struct dataset_prompter *p, uint32_t index)
{
    const struct word *w = &p->words[index];
    size_t need = w->len + (b->units > 0 ? 1 : 0);
    if (b->len + need + 1 > b->cap) {
        return false;
    }
    if (b->units > 0) {
        b->out[b->len++] = ' ';
    }
    memcpy(b->out + b->len, DATASET__PROSE + w->off, w->len);
    b->len += w->len;
    b->out[b->len] = '\0';
    b->ends[b->units++] = b->len;
    return true;
}

static uint32_t pick_filler(const struct dataset_prompter *p, struct dataset_rng *rng, bool first)
{
    if (first) {
        return p->first_fillers[dataset_rng_next(rng) % p->first_filler_count];
    }
    return p->fillers[dataset_rng_next(rng) % p->filler_count];
}

/* fill appends words until their summed counts reach tokens exactly. */
static bool fill(struct builder *b, const struct dataset_prompter *p, struct dataset_rng *rng,
                 size_t tokens)
{
    uint32_t next = (uint32_t)(dataset_rng_next(rng) % p->word_count);
    size_t est = 0;
    while (est < tokens) {
        bool first = b->units == 0;
        const struct word *w = &p->words[next];
        uint32_t c = first ? w->tokens_first : w->tokens_spaced;
        uint32_t index = next;
        if (est + c > tokens) {
            index = pick_filler(p, rng, first);
            c = 1;
        } else {
            next = (next + 1) % p->word_count;
        }
        if (!append_word(b, p, index)) {
            return false;
        }
        est += c;
    }
    return true;
}

/* repair re-encodes and nudges the prompt until it counts exactly tokens. */
static bool repair(struct builder *b, const struct dataset_prompter *p,
                   struct tokenizer_scratch *scratch, struct dataset_rng *rng, size_t tokens)
{
    for (int round = 0; round < REPAIR_ROUNDS_MAX; round++) {
        size_t real = 0;
        if (tokenizer_count(p->tok, scratch, b->out, b->len, &real) != TOKENIZER_OK) {
            return false;
        }
        if (real == tokens) {
            return true;
        }
        if (real > tokens) {
            if (b->units <= 1) {
                return false;
            }
            b->units--;
            b->len = b->ends[b->units - 1];
            b->out[b->len] = '\0';
        } else if (!append_word(b, p, pick_filler(p, rng, b->units == 0))) {
            return false;
        }
    }
    return false;
}

size_t dataset_prompter_generate(const struct dataset_prompter *p,
                                 struct tokenizer_scratch *scratch, struct dataset_rng *rng,
                                 size_t tokens, char *out, size_t cap)
{
    if (cap == 0) {
        return 0;
    }
    out[0] = '\0';
    if (tokens == 0 || tokens > DATASET_PROMPT_TOKENS_MAX) {
        return 0;
    }
    struct builder b = {.out = out, .cap = cap};
    b.ends = malloc((tokens + REPAIR_ROUNDS_MAX + 1) * sizeof(*b.ends));
    if (b.ends == NULL) {
        return 0;
    }
    bool ok = fill(&b, p, rng, tokens) && repair(&b, p, scratch, rng, tokens);
    free(b.ends);
    if (!ok) {
        out[0] = '\0';
        return 0;
    }
    return b.len;
}
