/*
 * encode.c - text to ids: UTF-8 repair, added-token split, normalizers,
 * pre-tokenizers, BPE; and ids back to text.
 */
#include <stdlib.h>
#include <string.h>
#include <utf8proc.h>

#include "tokenizer/tokenizer_internal.h"

/* Long whitespace runs make \s+(?!\S) backtrack deeply; the JIT stack grows
 * from 32 KiB up to this on demand, per scratch. */
#define JIT_STACK_BYTES_MAX ((size_t)8 << 20)

struct tok__scratch *tok__scratch_get(struct tokenizer_scratch *scratch)
{
    if (scratch->state == NULL) {
        scratch->state = calloc(1, sizeof(struct tok__scratch));
    }
    return scratch->state;
}

void tokenizer_scratch_free(struct tokenizer_scratch *scratch)
{
    if (scratch == NULL || scratch->state == NULL) {
        return;
    }
    struct tok__scratch *s = scratch->state;
    pcre2_match_data_free(s->md);
    pcre2_match_context_free(s->mctx);
    pcre2_jit_stack_free(s->jit_stack);
    free(s->ids);
    free(s->fixed);
    free(s->norm);
    for (int i = 0; i < 2; i++) {
        free(s->work[i]);
        free(s->pieces[i]);
    }
    free(s->syms);
    free(s->heap);
    free(s->out);
    free(s->words);
    free(s);
    scratch->state = NULL;
}

bool tok__emit(struct tok__scratch *s, uint32_t id)
{
    if (!s->counting) {
        if (!tok__grow((void **)&s->ids, &s->ids_cap, s->ids_len + 1, sizeof(*s->ids))) {
            return false;
        }
        s->ids[s->ids_len] = id;
    }
    s->ids_len++;
    return true;
}

static bool regex_ready(struct tok__scratch *s)
{
    if (s->md == NULL) {
        s->md = pcre2_match_data_create(4, NULL);
        s->mctx = pcre2_match_context_create(NULL);
        s->jit_stack = pcre2_jit_stack_create(32 * 1024, JIT_STACK_BYTES_MAX, NULL);
        if (s->mctx != NULL && s->jit_stack != NULL) {
            pcre2_jit_stack_assign(s->mctx, NULL, s->jit_stack);
        }
    }
    return s->md != NULL && s->mctx != NULL;
}

static bool piece_add(struct tok__scratch *s, int list, size_t *n, size_t off, size_t len)
{
    if (len == 0) {
        return true;
    }
    if (!tok__grow((void **)&s->pieces[list], &s->pieces_cap[list], *n + 1,
                   sizeof(struct tok__span))) {
        return false;
    }
    s->pieces[list][(*n)++] = (struct tok__span){.off = (uint32_t)off, .len = (uint32_t)len};
    return true;
}

/* split_piece applies one regex to base[off, off + len), the way
 * transformers.js's regexSplit does: gaps and matches both become pieces
 * (matches are dropped for behavior Removed); empty matches split nothing. */
static enum tokenizer_status split_piece(const struct tok__step *step, struct tok__scratch *s,
                                         const char *base, struct tok__span in, int out, size_t *n)
{
    const char *subject = base + in.off;
    size_t last = 0;
    size_t at = 0;
    while (at < in.len) {
        int rc = pcre2_match(step->re, (PCRE2_SPTR)subject, in.len, at, PCRE2_NO_UTF_CHECK, s->md,
                             s->mctx);
        if (rc == PCRE2_ERROR_NOMATCH) {
            break;
        }
        if (rc < 0) {
            return TOKENIZER_ERR_REGEX;
        }
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(s->md);
        if (ov[1] == ov[0]) {
            uint32_t cp;
            at = ov[0] + tok__utf8_decode(subject + ov[0], in.len - ov[0], &cp);
            continue;
        }
        if (!piece_add(s, out, n, in.off + last, ov[0] - last) ||
            (!step->removed && !piece_add(s, out, n, in.off + ov[0], ov[1] - ov[0]))) {
            return TOKENIZER_ERR_NOMEM;
        }
        last = ov[1];
        at = ov[1];
    }
    if (!piece_add(s, out, n, in.off + last, in.len - last)) {
        return TOKENIZER_ERR_NOMEM;
    }
    return TOKENIZER_OK;
}

/* prefix_space copies every piece into a fresh buffer, with a leading space
 * where it has none (ByteLevel add_prefix_space, applied per piece). */
static enum tokenizer_status prefix_space(struct tok__scratch *s, const char **base, int in,
                                          size_t count, int out, size_t *n)
{
    int buf = *base == s->work[0] ? 1 : 0;
    size_t need = 0;
    for (size_t i = 0; i < count; i++) {
        need += s->pieces[in][i].len + 1;
    }
    if (!tok__grow((void **)&s->work[buf], &s->work_cap[buf], need + 1, 1)) {
        return TOKENIZER_ERR_NOMEM;
    }
    size_t o = 0;
    for (size_t i = 0; i < count; i++) {
        struct tok__span p = s->pieces[in][i];
        size_t start = o;
        if ((*base)[p.off] != ' ') {
            s->work[buf][o++] = ' ';
        }
        memcpy(s->work[buf] + o, *base + p.off, p.len);
        o += p.len;
        if (!piece_add(s, out, n, start, o - start)) {
            return TOKENIZER_ERR_NOMEM;
        }
    }
    *base = s->work[buf];
    return TOKENIZER_OK;
}

static enum tokenizer_status pretokenize_and_merge(const struct tokenizer *tok,
                                                   struct tok__scratch *s, const char *base,
                                                   size_t len)
{
    int in = 0;
    size_t count = 0;
    if (!piece_add(s, in, &count, 0, len) || !regex_ready(s)) {
        return TOKENIZER_ERR_NOMEM;
    }
    for (int k = 0; k < tok->step_count; k++) {
        const struct tok__step *step = &tok->steps[k];
        enum tokenizer_status st = TOKENIZER_OK;
        size_t n = 0;
        if (step->kind == TOK__STEP_BYTELEVEL && step->add_prefix_space) {
            st = prefix_space(s, &base, in, count, 1 - in, &n);
            in = 1 - in;
            count = n;
            n = 0;
        }
        if (st == TOKENIZER_OK && step->re != NULL) {
            for (size_t i = 0; i < count && st == TOKENIZER_OK; i++) {
                st = split_piece(step, s, base, s->pieces[in][i], 1 - in, &n);
            }
            in = 1 - in;
            count = n;
        }
        if (st != TOKENIZER_OK) {
            return st;
        }
    }
    for (size_t i = 0; i < count; i++) {
        struct tok__span p = s->pieces[in][i];
        bool ok = s->counting ? tok__bpe_count_word(tok, s, base + p.off, p.len)
                              : tok__bpe_word(tok, s, base + p.off, p.len, false);
        if (!ok) {
            return TOKENIZER_ERR_NOMEM;
        }
    }
    return TOKENIZER_OK;
}

static bool needs_normalizing(int options, const char *p, size_t len)
{
    /* Below U+0300 (lead byte 0xCC) NFC changes nothing: no decompositions,
     * and no character there composes with what precedes it. The other forms
     * change Latin-1 (NFD, compatibility mappings), so only ASCII is skipped. */
    unsigned char limit = (options & (UTF8PROC_DECOMPOSE | UTF8PROC_COMPAT)) ? 0x80 : 0xCC;
    for (size_t i = 0; i < len; i++) {
        if ((unsigned char)p[i] >= limit) {
            return true;
        }
    }
    return false;
}

static enum tokenizer_status normalize(const struct tokenizer *tok, struct tok__scratch *s,
                                       const char **text, size_t *len)
{
    for (int k = 0; k < tok->norm_count; k++) {
        int options = tok->norm_options[k];
        if (!needs_normalizing(options, *text, *len)) {
            continue;
        }
        utf8proc_ssize_t n =
            utf8proc_decompose((const utf8proc_uint8_t *)*text, (utf8proc_ssize_t)*len,
                               (utf8proc_int32_t *)s->norm, (utf8proc_ssize_t)s->norm_cap, options);
        if (n > (utf8proc_ssize_t)s->norm_cap) {
            if (!tok__grow((void **)&s->norm, &s->norm_cap, (size_t)n, sizeof(*s->norm))) {
                return TOKENIZER_ERR_NOMEM;
            }
            n = utf8proc_decompose((const utf8proc_uint8_t *)*text, (utf8proc_ssize_t)*len,
                                   (utf8proc_int32_t *)s->norm, (utf8proc_ssize_t)s->norm_cap,
                                   options);
        }
        if (n < 0) {
            return TOKENIZER_ERR_NOMEM;
        }
        n = utf8proc_normalize_utf32((utf8proc_int32_t *)s->norm, n, options);
        n = n < 0 ? n : utf8proc_reencode((utf8proc_int32_t *)s->norm, n, options);
        if (n < 0 || !tok__grow((void **)&s->work[0], &s->work_cap[0], (size_t)n + 1, 1)) {
            return TOKENIZER_ERR_NOMEM;
        }
        memcpy(s->work[0], s->norm, (size_t)n);
        *text = s->work[0];
        *len = (size_t)n;
    }
    return TOKENIZER_OK;
}

static enum tokenizer_status encode_section(const struct tokenizer *tok, struct tok__scratch *s,
                                            const char *text, size_t len)
{
    if (len == 0) {
        return TOKENIZER_OK;
    }
    enum tokenizer_status st = normalize(tok, s, &text, &len);
    if (st != TOKENIZER_OK || len == 0) {
        return st;
    }
    return pretokenize_and_merge(tok, s, text, len);
}

static size_t trim_end(const char *p, size_t len)
{
    while (len > 0) {
        size_t start = len - 1;
        while (start > 0 && ((unsigned char)p[start] & 0xC0) == 0x80) {
            start--;
        }
        uint32_t cp;
        tok__utf8_decode(p + start, len - start, &cp);
        if (!tok__is_js_space(cp)) {
            break;
        }
        len = start;
    }
    return len;
}

static size_t skip_space(const char *p, size_t len)
{
    size_t i = 0;
    while (i < len) {
        uint32_t cp;
        size_t n = tok__utf8_decode(p + i, len - i, &cp);
        if (!tok__is_js_space(cp)) {
            break;
        }
        i += n;
    }
    return i;
}

static const struct tok__added *added_at(const struct tokenizer *tok, const char *p, size_t len)
{
    unsigned char b = (unsigned char)p[0];
    for (uint32_t k = tok->added_first[b]; k < tok->added_first[b + 1]; k++) {
        const struct tok__added *a = &tok->added[k];
        if (a->len <= len && memcmp(tok->arena + a->off, p, a->len) == 0) {
            return a; /* longest first within the bucket */
        }
    }
    return NULL;
}

/* encode_text splits out added tokens (leftmost, longest match) and encodes
 * the text between them. */
static enum tokenizer_status encode_text(const struct tokenizer *tok, struct tok__scratch *s,
                                         const char *text, size_t len)
{
    size_t start = 0;
    size_t pos = 0;
    while (pos < len) {
        unsigned char b = (unsigned char)text[pos];
        const struct tok__added *a = NULL;
        if (tok->added_first[b] != tok->added_first[b + 1]) {
            a = added_at(tok, text + pos, len - pos);
        }
        if (a == NULL) {
            pos++;
            continue;
        }
        size_t end = a->lstrip ? start + trim_end(text + start, pos - start) : pos;
        enum tokenizer_status st = encode_section(tok, s, text + start, end - start);
        if (st != TOKENIZER_OK) {
            return st;
        }
        if (!tok__emit(s, a->id)) {
            return TOKENIZER_ERR_NOMEM;
        }
        pos += a->len;
        if (a->rstrip) {
            pos += skip_space(text + pos, len - pos);
        }
        start = pos;
    }
    return encode_section(tok, s, text + start, len - start);
}

static enum tokenizer_status encode_any(const struct tokenizer *tok,
                                        struct tokenizer_scratch *scratch, const char *text,
                                        size_t len, bool counting, struct tok__scratch **out)
{
    struct tok__scratch *s = tok__scratch_get(scratch);
    if (s == NULL) {
        return TOKENIZER_ERR_NOMEM;
    }
    *out = s;
    s->ids_len = 0;
    s->counting = counting;
    /* A non-NULL view even for zero ids, so callers may memcpy from it. */
    if (!counting && !tok__grow((void **)&s->ids, &s->ids_cap, 1, sizeof(*s->ids))) {
        return TOKENIZER_ERR_NOMEM;
    }
    bool valid;
    size_t fixed_len = tok__utf8_lossy_len(text, len, &valid);
    if (fixed_len > TOKENIZER_TEXT_BYTES_MAX) {
        return TOKENIZER_ERR_TOO_LONG;
    }
    if (!valid) {
        if (!tok__grow((void **)&s->fixed, &s->fixed_cap, fixed_len + 1, 1)) {
            return TOKENIZER_ERR_NOMEM;
        }
        tok__utf8_lossy_copy(text, len, s->fixed);
        text = s->fixed;
        len = fixed_len;
    }
    return encode_text(tok, s, text, len);
}

enum tokenizer_status tokenizer_encode(const struct tokenizer *tok,
                                       struct tokenizer_scratch *scratch, const char *text,
                                       size_t len, const uint32_t **ids_out, size_t *count_out)
{
    struct tok__scratch *s = NULL;
    enum tokenizer_status st = encode_any(tok, scratch, text, len, false, &s);
    *ids_out = st == TOKENIZER_OK ? s->ids : NULL;
    *count_out = st == TOKENIZER_OK ? s->ids_len : 0;
    return st;
}

enum tokenizer_status tokenizer_count(const struct tokenizer *tok,
                                      struct tokenizer_scratch *scratch, const char *text,
                                      size_t len, size_t *count_out)
{
    struct tok__scratch *s = NULL;
    enum tokenizer_status st = encode_any(tok, scratch, text, len, true, &s);
    *count_out = st == TOKENIZER_OK ? s->ids_len : 0;
    return st;
}
