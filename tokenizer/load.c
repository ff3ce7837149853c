/*
 * load.c - tokenizer.json to the in-memory tables: vocabulary (raw bytes),
 * merges as an id-pair map, added tokens, normalizers and pre-tokenizers.
 */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <utf8proc.h>

#include "tokenizer/tokenizer_internal.h"

/* The GPT-2 pattern ByteLevel applies when use_regex is true. */
static const char GPT2_PATTERN[] =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

struct loader {
    struct tokenizer *tok;
    const char *name;
    char *err;
    size_t err_cap;
    int16_t char_byte[324]; /* ByteLevel char (code point) -> byte, -1 if none */
};

__attribute__((format(printf, 2, 3))) static int fail(struct loader *ld, const char *fmt, ...)
{
    char msg[TOKENIZER_ERR_CAP];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    snprintf(ld->err, ld->err_cap, "%s: %s", ld->name, msg);
    return -EINVAL;
}

static void byte_level_table(struct loader *ld)
{
    for (size_t i = 0; i < 324; i++) {
        ld->char_byte[i] = -1;
    }
    int extra = 0;
    for (int b = 0; b < 256; b++) {
        bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174);
        int cp = printable ? b : 256 + extra++;
        ld->char_byte[cp] = (int16_t)b;
    }
}

static bool arena_add(struct tokenizer *tok, const char *p, size_t len, uint32_t *off)
{
    if (tok->arena_len + len > UINT32_MAX) {
        return false;
    }
    if (!tok__grow((void **)&tok->arena, &tok->arena_cap, tok->arena_len + len + 1, 1)) {
        return false;
    }
    memcpy(tok->arena + tok->arena_len, p, len);
    *off = (uint32_t)tok->arena_len;
    tok->arena_len += len;
    return true;
}

/* byte_level_decode turns a ByteLevel token string into its raw bytes (out has
 * room for len bytes). A string with a character outside the ByteLevel alphabet
 * is kept as its own UTF-8 bytes, as Hugging Face's decoder does. */
static size_t byte_level_decode(const struct loader *ld, const char *s, size_t len, char *out)
{
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        i += tok__utf8_decode(s + i, len - i, &cp);
        if (cp >= 324 || ld->char_byte[cp] < 0) {
            memcpy(out, s, len);
            return len;
        }
        out[o++] = (char)ld->char_byte[cp];
    }
    return o;
}

static uint32_t strmap_slot(const struct tokenizer *tok, const char *p, size_t len, bool *found)
{
    uint64_t h = tok__hash_bytes(p, len);
    for (uint32_t i = (uint32_t)h & tok->vocab.mask;; i = (i + 1) & tok->vocab.mask) {
        uint32_t v = tok->vocab.slots[i];
        if (v == 0) {
            *found = false;
            return i;
        }
        const struct tok__entry *e = &tok->entries[v - 1];
        if (e->len == len && memcmp(tok->arena + e->off, p, len) == 0) {
            *found = true;
            return i;
        }
    }
}

int64_t tok__vocab_find(const struct tokenizer *tok, const char *p, size_t len)
{
    bool found;
    uint32_t slot = strmap_slot(tok, p, len, &found);
    return found ? (int64_t)tok->vocab.slots[slot] - 1 : -1;
}

static uint64_t pair_hash(uint64_t key)
{
    key ^= key >> 31;
    key *= 0x9e3779b97f4a7c15ULL;
    return key ^ (key >> 29);
}

const struct tok__pair *tok__pair_find(const struct tokenizer *tok, uint32_t left, uint32_t right)
{
    uint64_t key = (uint64_t)left << 32 | right;
    for (uint64_t i = pair_hash(key) & tok->merges.mask;; i = (i + 1) & tok->merges.mask) {
        const struct tok__pair *p = &tok->merges.slots[i];
        if (p->key == key) {
            return p;
        }
        if (p->key == UINT64_MAX) {
            return NULL;
        }
    }
}

static int load_vocab(struct loader *ld, json_t *vocab)
{
    struct tokenizer *tok = ld->tok;
    if (!json_is_object(vocab)) {
        return fail(ld, "model.vocab is not an object");
    }
    const char *key;
    json_t *value;
    json_int_t id_max = -1;
    json_object_foreach(vocab, key, value)
    {
        json_int_t id = json_is_integer(value) ? json_integer_value(value) : -1;
        if (id < 0 || id >= TOK__VOCAB_MAX) {
            return fail(ld, "model.vocab[\"%.40s\"] is not an id below %d", key, TOK__VOCAB_MAX);
        }
        id_max = id > id_max ? id : id_max;
    }
    tok->vocab_size = (uint32_t)(id_max + 1);
    tok->entries = calloc(tok->vocab_size > 0 ? tok->vocab_size : 1, sizeof(*tok->entries));
    size_t slots = 1024;
    while (slots < 2 * json_object_size(vocab)) {
        slots *= 2;
    }
    tok->vocab.slots = calloc(slots, sizeof(uint32_t));
    tok->vocab.mask = (uint32_t)(slots - 1);
    if (tok->entries == NULL || tok->vocab.slots == NULL) {
        return fail(ld, "out of memory for the vocabulary");
    }
    char raw[TOK__TOKEN_BYTES_MAX];
    json_object_foreach(vocab, key, value)
    {
        size_t key_len = strlen(key);
        uint32_t id = (uint32_t)json_integer_value(value);
        if (key_len == 0 || key_len > TOK__TOKEN_BYTES_MAX) {
            return fail(ld, "model.vocab has an empty or over-long token (id %u)", id);
        }
        size_t raw_len = byte_level_decode(ld, key, key_len, raw);
        bool found;
        uint32_t slot = strmap_slot(tok, raw, raw_len, &found);
        struct tok__entry *e = &tok->entries[id];
        if (found || (e->flags & TOK__PRESENT)) {
            continue; /* a duplicate spelling or id: the first one stays */
        }
        if (!arena_add(tok, raw, raw_len, &e->off)) {
            return fail(ld, "out of memory for the vocabulary");
        }
        e->len = (uint32_t)raw_len;
        e->flags = TOK__PRESENT;
        tok->vocab.slots[slot] = id + 1;
    }
    return 0;
}

static int merge_parts(struct loader *ld, json_t *m, size_t rank, const char **a, size_t *a_len,
                       const char **b, size_t *b_len)
{
    if (json_is_string(m)) {
        const char *s = json_string_value(m);
        const char *space = strchr(s, ' ');
        if (space == NULL || space == s || space[1] == '\0') {
            return fail(ld, "model.merges[%zu] is not \"left right\"", rank);
        }
        *a = s;
        *a_len = (size_t)(space - s);
        *b = space + 1;
        *b_len = strlen(space + 1);
        return 0;
    }
    if (json_is_array(m) && json_array_size(m) == 2 && json_is_string(json_array_get(m, 0)) &&
        json_is_string(json_array_get(m, 1))) {
        *a = json_string_value(json_array_get(m, 0));
        *a_len = json_string_length(json_array_get(m, 0));
        *b = json_string_value(json_array_get(m, 1));
        *b_len = json_string_length(json_array_get(m, 1));
        return 0;
    }
    return fail(ld, "model.merges[%zu] is neither \"left right\" nor [left, right]", rank);
}

static int merge_id(struct loader *ld, const char *s, size_t len, size_t rank, uint32_t *id)
{
    char raw[TOK__TOKEN_BYTES_MAX];
    if (len == 0 || len > TOK__TOKEN_BYTES_MAX) {
        return fail(ld, "model.merges[%zu] has an empty or over-long part", rank);
    }
    size_t raw_len = byte_level_decode(ld, s, len, raw);
    int64_t found = tok__vocab_find(ld->tok, raw, raw_len);
    if (found < 0) {
        return fail(ld, "model.merges[%zu] uses \"%.*s\", which is not in the vocabulary", rank,
                    (int)(len > 40 ? 40 : len), s);
    }
    *id = (uint32_t)found;
    return 0;
}

static void pair_put(struct tokenizer *tok, uint32_t left, uint32_t right, uint32_t rank,
                     uint32_t merged)
{
    uint64_t key = (uint64_t)left << 32 | right;
    for (uint64_t i = pair_hash(key) & tok->merges.mask;; i = (i + 1) & tok->merges.mask) {
        struct tok__pair *p = &tok->merges.slots[i];
        if (p->key == UINT64_MAX || p->key == key) {
            /* A repeated pair takes its later rank, as both reference encoders do. */
            p->key = key;
            p->rank = rank;
            p->merged = merged;
            return;
        }
    }
}

static int load_merges(struct loader *ld, json_t *merges)
{
    struct tokenizer *tok = ld->tok;
    if (!json_is_array(merges)) {
        return fail(ld, "model.merges is not an array");
    }
    size_t slots = 1024;
    while (slots < 2 * json_array_size(merges)) {
        slots *= 2;
    }
    tok->merges.slots = malloc(slots * sizeof(*tok->merges.slots));
    if (tok->merges.slots == NULL) {
        return fail(ld, "out of memory for the merges");
    }
    memset(tok->merges.slots, 0xff, slots * sizeof(*tok->merges.slots));
    tok->merges.mask = slots - 1;
    size_t rank;
    json_t *m;
    json_array_foreach(merges, rank, m)
    {
        const char *a = NULL;
        const char *b = NULL;
        size_t a_len = 0;
        size_t b_len = 0;
        uint32_t ids[2] = {0, 0};
        char joined[2 * TOK__TOKEN_BYTES_MAX];
        int rc = merge_parts(ld, m, rank, &a, &a_len, &b, &b_len);
        if (rc == 0) {
            rc = merge_id(ld, a, a_len, rank, &ids[0]);
        }
        if (rc == 0) {
            rc = merge_id(ld, b, b_len, rank, &ids[1]);
        }
        if (rc != 0) {
            return rc;
        }
        const struct tok__entry *ea = &tok->entries[ids[0]];
        const struct tok__entry *eb = &tok->entries[ids[1]];
        memcpy(joined, tok->arena + ea->off, ea->len);
        memcpy(joined + ea->len, tok->arena + eb->off, eb->len);
        int64_t merged = tok__vocab_find(tok, joined, ea->len + eb->len);
        if (merged < 0) {
            return fail(ld, "model.merges[%zu]: the merged token is not in the vocabulary", rank);
        }
        pair_put(tok, ids[0], ids[1], (uint32_t)rank, (uint32_t)merged);
    }
    return 0;
}

static int check_model_options(struct loader *ld, json_t *model)
{
    json_t *type = json_object_get(model, "type");
    if (type != NULL && !(json_is_string(type) && strcmp(json_string_value(type), "BPE") == 0)) {
        return fail(ld, "model type \"%s\" is not supported (only BPE)",
                    json_is_string(type) ? json_string_value(type) : "?");
    }
    json_t *dropout = json_object_get(model, "dropout");
    if (dropout != NULL && !json_is_null(dropout) && json_number_value(dropout) != 0.0) {
        return fail(ld, "BPE dropout is not supported");
    }
    if (json_is_true(json_object_get(model, "byte_fallback"))) {
        return fail(ld, "BPE byte_fallback is not supported (not a byte-level BPE)");
    }
    const char *affixes[] = {"continuing_subword_prefix", "end_of_word_suffix"};
    for (size_t i = 0; i < 2; i++) {
        json_t *v = json_object_get(model, affixes[i]);
        if (v != NULL && !json_is_null(v) && json_string_length(v) > 0) {
            return fail(ld, "BPE %s is not supported", affixes[i]);
        }
    }
    ld->tok->ignore_merges = json_is_true(json_object_get(model, "ignore_merges"));
    return 0;
}

static int load_model(struct loader *ld, json_t *root)
{
    json_t *model = json_object_get(root, "model");
    if (!json_is_object(model)) {
        return fail(ld, "no \"model\" object");
    }
    int rc = check_model_options(ld, model);
    if (rc == 0) {
        rc = load_vocab(ld, json_object_get(model, "vocab"));
    }
    if (rc == 0) {
        rc = load_merges(ld, json_object_get(model, "merges"));
    }
    if (rc != 0) {
        return rc;
    }
    for (int b = 0; b < 256; b++) {
        char c = (char)b;
        int64_t id = tok__vocab_find(ld->tok, &c, 1);
        if (id < 0) {
            return fail(ld, "the vocabulary has no token for byte 0x%02x (not byte-level BPE)", b);
        }
        ld->tok->byte_id[b] = (uint32_t)id;
    }
    return 0;
}

static int added_cmp(const void *pa, const void *pb)
{
    const struct tok__added *a = pa;
    const struct tok__added *b = pb;
    /* By first byte (the caller fills arena offsets), then longest first. */
    if (a->len != b->len) {
        return a->len > b->len ? -1 : 1;
    }
    return a->id < b->id ? -1 : a->id > b->id;
}

static int added_entry(struct loader *ld, json_t *t, size_t i)
{
    struct tokenizer *tok = ld->tok;
    json_t *id_json = json_object_get(t, "id");
    json_t *content = json_object_get(t, "content");
    json_int_t id = json_is_integer(id_json) ? json_integer_value(id_json) : -1;
    if (id < 0 || id >= TOK__VOCAB_MAX || !json_is_string(content) ||
        json_string_length(content) == 0 || json_string_length(content) > TOK__TOKEN_BYTES_MAX) {
        return fail(ld, "added_tokens[%zu] needs an id below %d and a non-empty content", i,
                    TOK__VOCAB_MAX);
    }
    if ((uint32_t)id >= tok->vocab_size) {
        size_t cap = tok->vocab_size;
        if (!tok__grow((void **)&tok->entries, &cap, (size_t)id + 1, sizeof(*tok->entries))) {
            return fail(ld, "out of memory for added tokens");
        }
        memset(tok->entries + tok->vocab_size, 0,
               ((size_t)id + 1 - tok->vocab_size) * sizeof(*tok->entries));
        tok->vocab_size = (uint32_t)id + 1;
    }
    struct tok__added *a = &tok->added[tok->added_count++];
    a->id = (uint32_t)id;
    a->len = (uint32_t)json_string_length(content);
    a->lstrip = json_is_true(json_object_get(t, "lstrip"));
    a->rstrip = json_is_true(json_object_get(t, "rstrip"));
    if (!arena_add(tok, json_string_value(content), a->len, &a->off)) {
        return fail(ld, "out of memory for added tokens");
    }
    struct tok__entry *e = &tok->entries[id];
    e->off = a->off;
    e->len = a->len;
    e->flags = TOK__PRESENT | TOK__ADDED;
    if (json_is_true(json_object_get(t, "special"))) {
        e->flags |= TOK__SPECIAL;
    }
    return 0;
}

static int load_added(struct loader *ld, json_t *root)
{
    struct tokenizer *tok = ld->tok;
    json_t *list = json_object_get(root, "added_tokens");
    if (list == NULL || json_is_null(list)) {
        return 0;
    }
    if (!json_is_array(list) || json_array_size(list) > TOK__ADDED_MAX) {
        return fail(ld, "added_tokens is not an array of at most %d tokens", TOK__ADDED_MAX);
    }
    tok->added = calloc(json_array_size(list) + 1, sizeof(*tok->added));
    if (tok->added == NULL) {
        return fail(ld, "out of memory for added tokens");
    }
    size_t i;
    json_t *t;
    json_array_foreach(list, i, t)
    {
        int rc = added_entry(ld, t, i);
        if (rc != 0) {
            return rc;
        }
    }
    /* Bucket by first byte so the splitter only looks where a token can start. */
    uint32_t counts[256] = {0};
    for (uint32_t k = 0; k < tok->added_count; k++) {
        counts[(unsigned char)tok->arena[tok->added[k].off]]++;
    }
    tok->added_first[0] = 0;
    for (int b = 0; b < 256; b++) {
        tok->added_first[b + 1] = tok->added_first[b] + counts[b];
    }
    struct tok__added *sorted = calloc(tok->added_count + 1, sizeof(*sorted));
    if (sorted == NULL) {
        return fail(ld, "out of memory for added tokens");
    }
    uint32_t fill[256];
    memcpy(fill, tok->added_first, sizeof(fill));
    for (uint32_t k = 0; k < tok->added_count; k++) {
        sorted[fill[(unsigned char)tok->arena[tok->added[k].off]]++] = tok->added[k];
    }
    for (int b = 0; b < 256; b++) {
        qsort(sorted + tok->added_first[b], counts[b], sizeof(*sorted), added_cmp);
    }
    free(tok->added);
    tok->added = sorted;
    return 0;
}

static int load_normalizer(struct loader *ld, json_t *n, int depth)
{
    struct tokenizer *tok = ld->tok;
    if (n == NULL || json_is_null(n)) {
        return 0;
    }
    const char *type = json_string_value(json_object_get(n, "type"));
    if (type == NULL) {
        return fail(ld, "normalizer without a type");
    }
    if (strcmp(type, "Sequence") == 0 && depth == 0) {
        json_t *list = json_object_get(n, "normalizers");
        size_t i;
        json_t *child;
        if (!json_is_array(list)) {
            return fail(ld, "normalizer Sequence without a normalizers list");
        }
        json_array_foreach(list, i, child)
        {
            int rc = load_normalizer(ld, child, depth + 1);
            if (rc != 0) {
                return rc;
            }
        }
        return 0;
    }
    static const struct {
        const char *name;
        int options;
    } forms[] = {
        {"NFC", UTF8PROC_STABLE | UTF8PROC_COMPOSE},
        {"NFD", UTF8PROC_STABLE | UTF8PROC_DECOMPOSE},
        {"NFKC", UTF8PROC_STABLE | UTF8PROC_COMPOSE | UTF8PROC_COMPAT},
        {"NFKD", UTF8PROC_STABLE | UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT},
    };
    for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
        if (strcmp(type, forms[i].name) == 0) {
            if (tok->norm_count == TOK__STEPS_MAX) {
                return fail(ld, "more than %d normalizers", TOK__STEPS_MAX);
            }
            tok->norm_options[tok->norm_count++] = forms[i].options;
            return 0;
        }
    }
    return fail(ld, "normalizer \"%.40s\" is not supported", type);
}

static int add_step(struct loader *ld, struct tok__step step)
{
    if (ld->tok->step_count == TOK__STEPS_MAX) {
        if (step.re != NULL) {
            pcre2_code_free(step.re);
        }
        return fail(ld, "more than %d pre-tokenizers", TOK__STEPS_MAX);
    }
    ld->tok->steps[ld->tok->step_count++] = step;
    return 0;
}

static int load_split(struct loader *ld, json_t *p)
{
    struct tok__step step = {.kind = TOK__STEP_SPLIT};
    json_t *pattern = json_object_get(p, "pattern");
    json_t *regex = json_object_get(pattern, "Regex");
    json_t *literal = json_object_get(pattern, "String");
    const char *behavior = json_string_value(json_object_get(p, "behavior"));
    if (json_is_true(json_object_get(p, "invert"))) {
        return fail(ld, "pre-tokenizer Split with invert=true is not supported");
    }
    if (behavior == NULL || strcmp(behavior, "Isolated") == 0) {
        step.removed = false;
    } else if (strcmp(behavior, "Removed") == 0) {
        step.removed = true;
    } else {
        return fail(ld, "pre-tokenizer Split behavior \"%.40s\" is not supported", behavior);
    }
    json_t *source = json_is_string(regex) ? regex : literal;
    if (!json_is_string(source) || json_string_length(source) == 0) {
        return fail(ld, "pre-tokenizer Split needs a pattern {\"Regex\"} or {\"String\"}");
    }
    char msg[TOKENIZER_ERR_CAP];
    step.re = tok__compile_pattern(json_string_value(source), json_string_length(source),
                                   source == literal, msg, sizeof(msg));
    if (step.re == NULL) {
        return fail(ld, "%s", msg);
    }
    return add_step(ld, step);
}

static int load_pretokenizer(struct loader *ld, json_t *p, int depth)
{
    if (p == NULL || json_is_null(p)) {
        return 0;
    }
    const char *type = json_string_value(json_object_get(p, "type"));
    if (type == NULL) {
        return fail(ld, "pre-tokenizer without a type");
    }
    if (strcmp(type, "Sequence") == 0 && depth == 0) {
        json_t *list = json_object_get(p, "pretokenizers");
        size_t i;
        json_t *child;
        if (!json_is_array(list)) {
            return fail(ld, "pre-tokenizer Sequence without a pretokenizers list");
        }
        json_array_foreach(list, i, child)
        {
            int rc = load_pretokenizer(ld, child, depth + 1);
            if (rc != 0) {
                return rc;
            }
        }
        return 0;
    }
    if (strcmp(type, "Split") == 0) {
        return load_split(ld, p);
    }
    if (strcmp(type, "ByteLevel") == 0) {
        struct tok__step step = {.kind = TOK__STEP_BYTELEVEL};
        step.add_prefix_space = json_is_true(json_object_get(p, "add_prefix_space"));
        json_t *use_regex = json_object_get(p, "use_regex");
        if (use_regex == NULL || json_is_true(use_regex)) {
            char msg[TOKENIZER_ERR_CAP];
            step.re = tok__compile_pattern(GPT2_PATTERN, sizeof(GPT2_PATTERN) - 1, false, msg,
                                           sizeof(msg));
            if (step.re == NULL) {
                return fail(ld, "%s", msg);
            }
        }
        return add_step(ld, step);
    }
    return fail(ld, "pre-tokenizer \"%.40s\" is not supported", type);
}

static int check_decoder(struct loader *ld, json_t *d)
{
    if (d == NULL || json_is_null(d)) {
        return 0;
    }
    const char *type = json_string_value(json_object_get(d, "type"));
    if (type == NULL || strcmp(type, "ByteLevel") != 0) {
        return fail(ld, "decoder \"%.40s\" is not supported (only ByteLevel)",
                    type != NULL ? type : "?");
    }
    return 0;
}

int tokenizer_load_buffer(const char *json, size_t len, const char *name, struct tokenizer **out,
                          char *err, size_t err_cap)
{
    struct loader ld = {
        .name = name != NULL ? name : "tokenizer.json", .err = err, .err_cap = err_cap};
    *out = NULL;
    if (len > TOKENIZER_FILE_BYTES_MAX) {
        return fail(&ld, "larger than %zu bytes", TOKENIZER_FILE_BYTES_MAX);
    }
    json_error_t jerr;
    json_t *root = json_loadb(json, len, 0, &jerr);
    if (root == NULL) {
        return fail(&ld, "line %d column %d: %s", jerr.line, jerr.column, jerr.text);
    }
    int rc = -ENOMEM;
    ld.tok = calloc(1, sizeof(*ld.tok));
    if (ld.tok == NULL) {
        fail(&ld, "out of memory");
        goto out_json;
    }
    byte_level_table(&ld);
    rc = json_is_object(root) ? 0 : fail(&ld, "the top level is not an object");
    if (rc == 0) {
        rc = load_model(&ld, root);
    }
    if (rc == 0) {
        rc = load_added(&ld, root);
    }
    if (rc == 0) {
        rc = load_normalizer(&ld, json_object_get(root, "normalizer"), 0);
    }
    if (rc == 0) {
        rc = load_pretokenizer(&ld, json_object_get(root, "pre_tokenizer"), 0);
    }
    if (rc == 0) {
        rc = check_decoder(&ld, json_object_get(root, "decoder"));
    }
    if (rc != 0) {
        tokenizer_free(ld.tok);
        goto out_json;
    }
    *out = ld.tok;
out_json:
    json_decref(root);
    return rc;
}

int tokenizer_load(const char *path, struct tokenizer **out, char *err, size_t err_cap)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        int e = errno;
        snprintf(err, err_cap, "%s: %s", path, strerror(e));
        return -e;
    }
    int rc = 0;
    char *buf = NULL;
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) ||
        (uint64_t)st.st_size > TOKENIZER_FILE_BYTES_MAX) {
        snprintf(err, err_cap, "%s: not a regular file of at most %zu bytes", path,
                 TOKENIZER_FILE_BYTES_MAX);
        rc = -EINVAL;
        goto out_file;
    }
    buf = malloc((size_t)st.st_size + 1);
    if (buf == NULL) {
        snprintf(err, err_cap, "%s: out of memory", path);
        rc = -ENOMEM;
        goto out_file;
    }
    if (fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
        snprintf(err, err_cap, "%s: short read", path);
        rc = -EIO;
        goto out_buf;
    }
    rc = tokenizer_load_buffer(buf, (size_t)st.st_size, path, out, err, err_cap);
out_buf:
    free(buf);
out_file:
    fclose(f);
    return rc;
}

void tokenizer_free(struct tokenizer *tok)
{
    if (tok == NULL) {
        return;
    }
    for (int i = 0; i < tok->step_count; i++) {
        pcre2_code_free(tok->steps[i].re);
    }
    free(tok->added);
    free(tok->merges.slots);
    free(tok->vocab.slots);
    free(tok->arena);
    free(tok->entries);
    free(tok);
}

uint32_t tokenizer_vocab_size(const struct tokenizer *tok)
{
    return tok->vocab_size;
}

int tokenizer_is_special(const struct tokenizer *tok, uint32_t id)
{
    return id < tok->vocab_size && (tok->entries[id].flags & TOK__SPECIAL) != 0;
}
