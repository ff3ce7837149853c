/*
 * bpe.c - byte-level BPE merges for one pre-tokenized word.
 *
 * The rule both reference encoders follow: repeatedly merge the adjacent pair
 * with the lowest merge rank, the leftmost one on ties. Short words (nearly all
 * of them) use a linear scan over cached pair ranks; long ones a binary heap
 * with lazy deletion, so a 1 MB run of one script stays O(n log n).
 */
#include <stdlib.h>
#include <string.h>

#include "tokenizer/tokenizer_internal.h"

#define NO_RANK UINT32_MAX

static void syms_init(const struct tokenizer *tok, struct tok__sym *sym, const char *word,
                      size_t len)
{
    for (size_t i = 0; i < len; i++) {
        sym[i].id = tok->byte_id[(unsigned char)word[i]];
        sym[i].start = (uint32_t)i;
        sym[i].prev = (int32_t)i - 1;
        sym[i].next = i + 1 < len ? (int32_t)i + 1 : -1;
        sym[i].len = 1;
    }
}

static uint32_t pair_rank(const struct tokenizer *tok, const struct tok__sym *sym, int32_t i)
{
    if (i < 0 || sym[i].next < 0) {
        return NO_RANK;
    }
    const struct tok__pair *p = tok__pair_find(tok, sym[i].id, sym[sym[i].next].id);
    return p != NULL ? p->rank : NO_RANK;
}

/* merge_at joins sym[i] with its right neighbour. */
static void merge_at(const struct tokenizer *tok, struct tok__sym *sym, int32_t i)
{
    int32_t j = sym[i].next;
    const struct tok__pair *p = tok__pair_find(tok, sym[i].id, sym[j].id);
    sym[i].id = p->merged;
    sym[i].len += sym[j].len;
    sym[i].next = sym[j].next;
    if (sym[j].next >= 0) {
        sym[sym[j].next].prev = i;
    }
    sym[j].len = 0;
}

static void merge_linear(const struct tokenizer *tok, struct tok__sym *sym, size_t len)
{
    uint32_t rank[TOK__BPE_LINEAR_MAX];
    for (size_t i = 0; i < len; i++) {
        rank[i] = pair_rank(tok, sym, (int32_t)i);
    }
    for (;;) {
        uint32_t best_rank = NO_RANK;
        int32_t best = -1;
        for (int32_t i = 0; i >= 0; i = sym[i].next) {
            if (rank[i] < best_rank) {
                best_rank = rank[i];
                best = i;
            }
        }
        if (best < 0) {
            return;
        }
        merge_at(tok, sym, best);
        rank[best] = pair_rank(tok, sym, best);
        if (sym[best].prev >= 0) {
            rank[sym[best].prev] = pair_rank(tok, sym, sym[best].prev);
        }
    }
}

static bool heap_less(const struct tok__heap_item *a, const struct tok__heap_item *b)
{
    return a->rank < b->rank || (a->rank == b->rank && a->pos < b->pos);
}

static void heap_push(struct tok__heap_item *heap, size_t *n, struct tok__heap_item item)
{
    size_t i = (*n)++;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        if (!heap_less(&item, &heap[parent])) {
            break;
        }
        heap[i] = heap[parent];
        i = parent;
    }
    heap[i] = item;
}

static struct tok__heap_item heap_pop(struct tok__heap_item *heap, size_t *n)
{
    struct tok__heap_item top = heap[0];
    struct tok__heap_item last = heap[--(*n)];
    size_t i = 0;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= *n) {
            break;
        }
        if (child + 1 < *n && heap_less(&heap[child + 1], &heap[child])) {
            child++;
        }
        if (!heap_less(&heap[child], &last)) {
            break;
        }
        heap[i] = heap[child];
        i = child;
    }
    if (*n > 0) {
        heap[i] = last;
    }
    return top;
}

static void push_pair(const struct tokenizer *tok, struct tok__scratch *s, size_t *n, int32_t i)
{
    uint32_t rank = pair_rank(tok, s->syms, i);
    if (rank != NO_RANK) {
        heap_push(s->heap, n, (struct tok__heap_item){.rank = rank, .pos = (uint32_t)i});
    }
}

static void merge_heap(const struct tokenizer *tok, struct tok__scratch *s, size_t len)
{
    struct tok__sym *sym = s->syms;
    size_t n = 0;
    for (size_t i = 0; i + 1 < len; i++) {
        push_pair(tok, s, &n, (int32_t)i);
    }
    while (n > 0) {
        struct tok__heap_item top = heap_pop(s->heap, &n);
        int32_t i = (int32_t)top.pos;
        /* Stale entries: the symbol was merged away, or its pair changed. */
        if (sym[i].len == 0 || pair_rank(tok, sym, i) != top.rank) {
            continue;
        }
        merge_at(tok, sym, i);
        push_pair(tok, s, &n, sym[i].prev);
        push_pair(tok, s, &n, i);
    }
}

bool tok__bpe_word(const struct tokenizer *tok, struct tok__scratch *s, const char *word,
                   size_t len, bool force_heap)
{
    if (len == 1) {
        return tok__emit(s, tok->byte_id[(unsigned char)word[0]]);
    }
    if (tok->ignore_merges) {
        int64_t id = tok__vocab_find(tok, word, len);
        if (id >= 0) {
            return tok__emit(s, (uint32_t)id);
        }
    }
    if (!tok__grow((void **)&s->syms, &s->syms_cap, len, sizeof(*s->syms))) {
        return false;
    }
    syms_init(tok, s->syms, word, len);
    if (len <= TOK__BPE_LINEAR_MAX && !force_heap) {
        merge_linear(tok, s->syms, len);
    } else {
        /* Each merge pushes at most two pairs onto at most len - 1 initial ones. */
        if (!tok__grow((void **)&s->heap, &s->heap_cap, 3 * len, sizeof(*s->heap))) {
            return false;
        }
        merge_heap(tok, s, len);
    }
    for (int32_t i = 0; i >= 0; i = s->syms[i].next) {
        if (!tok__emit(s, s->syms[i].id)) {
            return false;
        }
    }
    return true;
}

/* word_slot returns the cache slot of a word, the cache made (or emptied, for another
 * tokenizer) first; NULL when out of memory. */
static struct tok__cached_word *word_slot(const struct tokenizer *tok, struct tok__scratch *s,
                                          uint64_t hash)
{
    if (s->words == NULL) {
        s->words = calloc(TOK__WORD_CACHE_SLOTS, sizeof(*s->words));
        if (s->words == NULL) {
            return NULL;
        }
    }
    if (s->words_tok != tok) {
        memset(s->words, 0, TOK__WORD_CACHE_SLOTS * sizeof(*s->words));
        s->words_tok = tok;
    }
    return &s->words[hash & (TOK__WORD_CACHE_SLOTS - 1)];
}

bool tok__bpe_count_word(const struct tokenizer *tok, struct tok__scratch *s, const char *word,
                         size_t len)
{
    if (len <= 1 || len > TOK__WORD_CACHE_BYTES) {
        return tok__bpe_word(tok, s, word, len, false);
    }
    uint64_t hash = tok__hash_bytes(word, len);
    struct tok__cached_word *slot = word_slot(tok, s, hash);
    if (slot == NULL) {
        return false;
    }
    if (slot->len == len && slot->hash == hash && memcmp(slot->bytes, word, len) == 0) {
        s->ids_len += slot->count;
        return true;
    }
    size_t before = s->ids_len;
    if (!tok__bpe_word(tok, s, word, len, false)) {
        return false;
    }
    /* A word of n bytes is at most n tokens: the count fits. The slot is replaced. */
    *slot = (struct tok__cached_word){
        .hash = hash, .len = (uint8_t)len, .count = (uint8_t)(s->ids_len - before)};
    memcpy(slot->bytes, word, len);
    return true;
}
