/*
 * decode.c - ids back to text, as the ByteLevel decoder does it: special
 * tokens skipped, added tokens verbatim, and each run of vocabulary tokens
 * turned into bytes and read as UTF-8 with U+FFFD for what is ill-formed.
 */
#include <string.h>

#include "tokenizer/tokenizer_internal.h"

/* flush_run appends the lossy UTF-8 reading of run[0, *run_len) to the output. */
static bool flush_run(struct tok__scratch *s, size_t *run_len, size_t *out_len)
{
    if (*run_len == 0) {
        return true;
    }
    bool valid;
    size_t n = tok__utf8_lossy_len(s->work[0], *run_len, &valid);
    if (!tok__grow((void **)&s->out, &s->out_cap, *out_len + n + 1, 1)) {
        return false;
    }
    tok__utf8_lossy_copy(s->work[0], *run_len, s->out + *out_len);
    *out_len += n;
    *run_len = 0;
    return true;
}

static bool append(char **buf, size_t *cap, size_t *len, const char *p, size_t n)
{
    if (!tok__grow((void **)buf, cap, *len + n + 1, 1)) {
        return false;
    }
    memcpy(*buf + *len, p, n);
    *len += n;
    return true;
}

enum tokenizer_status tokenizer_decode(const struct tokenizer *tok,
                                       struct tokenizer_scratch *scratch, const uint32_t *ids,
                                       size_t count, const char **text_out, size_t *len_out)
{
    *text_out = NULL;
    *len_out = 0;
    struct tok__scratch *s = tok__scratch_get(scratch);
    if (s == NULL || !tok__grow((void **)&s->out, &s->out_cap, 1, 1)) {
        return TOKENIZER_ERR_NOMEM;
    }
    size_t run_len = 0;
    size_t out_len = 0;
    for (size_t i = 0; i < count; i++) {
        if (ids[i] >= tok->vocab_size || !(tok->entries[ids[i]].flags & TOK__PRESENT)) {
            return TOKENIZER_ERR_BAD_ID;
        }
        const struct tok__entry *e = &tok->entries[ids[i]];
        if (e->flags & TOK__SPECIAL) {
            continue;
        }
        bool ok;
        if (e->flags & TOK__ADDED) {
            ok = flush_run(s, &run_len, &out_len) &&
                 append(&s->out, &s->out_cap, &out_len, tok->arena + e->off, e->len);
        } else {
            ok = append(&s->work[0], &s->work_cap[0], &run_len, tok->arena + e->off, e->len);
        }
        if (!ok || out_len + run_len > TOKENIZER_TEXT_BYTES_MAX) {
            return ok ? TOKENIZER_ERR_TOO_LONG : TOKENIZER_ERR_NOMEM;
        }
    }
    if (!flush_run(s, &run_len, &out_len)) {
        return TOKENIZER_ERR_NOMEM;
    }
    s->out[out_len] = '\0';
    *text_out = s->out;
    *len_out = out_len;
    return TOKENIZER_OK;
}
