/*
 * sse.c - incremental Server-Sent-Events parser (see sse.h for the rules).
 *
 * Storage layout of the scratch buffer while a block is being read:
 *
 *   [0, data_len)                         joined data of the block
 *   [data_len]                            reserved for the '\n' joining the next data line
 *   [data_len + 1, data_len + 1 + line_len)  a line that the feed cut in two
 *
 * so completing a held data line is one memmove onto its final place. The
 * first data line of a block stays a view into the caller's buffer (no copy)
 * until a second data line arrives or the feed ends before the blank line.
 */
#include "sse/sse.h"

#include <assert.h>
#include <string.h>

#define SSE_BOM_LEN 3

static const unsigned char sse__bom[SSE_BOM_LEN] = {0xEF, 0xBB, 0xBF};

void sse_parser_init(struct sse_parser *p, char *scratch, size_t scratch_cap)
{
    memset(p, 0, sizeof(*p));
    p->scratch = scratch;
    p->scratch_cap = scratch ? scratch_cap : 0;
    p->error = SSE_NEED_MORE;
}

void sse_parser_set_grow(struct sse_parser *p, sse_grow_fn fn, void *ctx)
{
    p->grow = fn;
    p->grow_ctx = ctx;
}

void sse_parser_reset(struct sse_parser *p)
{
    sse_grow_fn grow = p->grow;
    void *ctx = p->grow_ctx;
    sse_parser_init(p, p->scratch, p->scratch_cap);
    sse_parser_set_grow(p, grow, ctx);
}

/* Index of the first CR or LF in s[0, n), or n. */
static size_t sse__eol(const char *s, size_t n)
{
    const char *lf = memchr(s, '\n', n);
    size_t limit = lf ? (size_t)(lf - s) : n;
    const char *cr = memchr(s, '\r', limit);
    return cr ? (size_t)(cr - s) : limit;
}

/* The limit rule: data so far + separator + the whole line must fit, in the
 * scratch as it is or as the caller's grow function makes it. */
static bool sse__line_fits(struct sse_parser *p, size_t line_len)
{
    if (line_len < p->scratch_cap && p->data_len < p->scratch_cap - line_len) {
        return true;
    }
    if (p->grow == NULL || line_len > SIZE_MAX - 1 - p->data_len) {
        return false;
    }
    char *scratch = p->scratch;
    size_t cap = p->scratch_cap;
    size_t need = p->data_len + line_len + 1;
    if (!p->grow(p->grow_ctx, need, &scratch, &cap)) {
        return false;
    }
    p->scratch = scratch;
    p->scratch_cap = cap;
    return cap >= need;
}

/* Moves a data view that points into the caller's buffer into scratch, before
 * that buffer goes away or a second data line must be appended. */
static void sse__materialize(struct sse_parser *p)
{
    if (p->data_view) {
        memcpy(p->scratch, p->data_view, p->data_len);
        p->data_view = NULL;
    }
}

static void sse__reset_block(struct sse_parser *p)
{
    p->data_view = NULL;
    p->data_len = 0;
    p->has_data = false;
    p->event_type_len = 0;
    p->has_event_type = false;
    p->comment_len = 0;
    p->has_comment = false;
    p->comment_truncated = false;
}

static bool sse__dispatchable(const struct sse_parser *p)
{
    return p->has_data || p->has_event_type || p->has_comment;
}

static void sse__emit(struct sse_parser *p, struct sse_event *out)
{
    out->has_data = p->has_data;
    out->data = "";
    out->data_len = 0;
    if (p->has_data) {
        out->data = p->data_view ? p->data_view : p->scratch;
        out->data_len = p->data_len;
    }
    out->has_event_type = p->has_event_type;
    out->event_type = p->has_event_type ? p->event_type : "";
    out->event_type_len = p->event_type_len;
    out->has_id = p->has_id;
    out->id = p->has_id ? p->id : "";
    out->id_len = p->id_len;
    out->has_comment = p->has_comment;
    out->comment = p->has_comment ? p->comment : "";
    out->comment_len = p->comment_len;
    out->comment_truncated = p->comment_truncated;
    out->has_retry = p->has_retry;
    out->retry_ms = p->retry_ms;
    sse__reset_block(p);
}

/* Appends one data value. `in_scratch` says the value lies inside the held
 * line in scratch (so it may overlap its destination). */
static void sse__append_data(struct sse_parser *p, const char *value, size_t value_len,
                             bool in_scratch)
{
    if (!p->has_data && !in_scratch) {
        p->data_view = value;
        p->data_len = value_len;
        p->has_data = true;
        return;
    }
    sse__materialize(p);
    size_t at = p->data_len;
    if (p->has_data) {
        p->scratch[at++] = '\n';
    }
    if (value_len > 0) {
        memmove(p->scratch + at, value, value_len);
    }
    p->data_len = at + value_len;
    p->has_data = true;
}

/* WHATWG: only ASCII digits set the reconnection time; anything else
 * (including an empty value or one that overflows) is ignored. */
static void sse__set_retry(struct sse_parser *p, const char *value, size_t value_len)
{
    uint64_t ms = 0;
    if (value_len == 0) {
        return;
    }
    for (size_t i = 0; i < value_len; i++) {
        unsigned digit = (unsigned)((unsigned char)value[i] - '0');
        if (digit > 9 || ms > (UINT64_MAX - digit) / 10) {
            return;
        }
        ms = ms * 10 + digit;
    }
    p->retry_ms = ms;
    p->has_retry = true;
}

static void sse__set_comment(struct sse_parser *p, const char *text, size_t text_len)
{
    if (p->has_comment) {
        return;
    }
    p->has_comment = true;
    p->comment_truncated = text_len > SSE_COMMENT_MAX;
    p->comment_len = p->comment_truncated ? SSE_COMMENT_MAX : text_len;
    if (p->comment_len > 0) {
        memcpy(p->comment, text, p->comment_len);
    }
}

static bool sse__name_is(const char *name, size_t name_len, const char *want)
{
    size_t want_len = strlen(want);
    return name_len == want_len && memcmp(name, want, want_len) == 0;
}

static enum sse_status sse__field(struct sse_parser *p, const char *name, size_t name_len,
                                  const char *value, size_t value_len, bool in_scratch)
{
    if (sse__name_is(name, name_len, "data")) {
        sse__append_data(p, value, value_len, in_scratch);
    } else if (sse__name_is(name, name_len, "event")) {
        if (value_len > SSE_EVENT_TYPE_MAX) {
            return SSE_ERR_FIELD_TOO_LONG;
        }
        if (value_len > 0) {
            memcpy(p->event_type, value, value_len);
        }
        p->event_type_len = value_len;
        p->has_event_type = true;
    } else if (sse__name_is(name, name_len, "id")) {
        /* WHATWG: an id containing U+0000 is ignored. */
        if (value_len > 0 && memchr(value, '\0', value_len)) {
            return SSE_NEED_MORE;
        }
        if (value_len > SSE_ID_MAX) {
            return SSE_ERR_FIELD_TOO_LONG;
        }
        if (value_len > 0) {
            memcpy(p->id, value, value_len);
        }
        p->id_len = value_len;
        p->has_id = true;
    } else if (sse__name_is(name, name_len, "retry")) {
        sse__set_retry(p, value, value_len);
    }
    return SSE_NEED_MORE;
}

/* Interprets one complete, non-empty line. */
static enum sse_status sse__line(struct sse_parser *p, const char *line, size_t len,
                                 bool in_scratch)
{
    const char *colon = memchr(line, ':', len);
    if (!colon) {
        return sse__field(p, line, len, "", 0, false);
    }
    size_t name_len = (size_t)(colon - line);
    const char *value = colon + 1;
    size_t value_len = len - name_len - 1;
    if (value_len > 0 && value[0] == ' ') {
        value++;
        value_len--;
    }
    if (name_len == 0) {
        sse__set_comment(p, value, value_len);
        return SSE_NEED_MORE;
    }
    return sse__field(p, line, name_len, value, value_len, in_scratch);
}

/* Keeps the start of a line that the current feed does not finish. */
static enum sse_status sse__hold(struct sse_parser *p, const char *seg, size_t seg_len)
{
    sse__materialize(p);
    if (!sse__line_fits(p, p->line_len + seg_len)) {
        return SSE_ERR_EVENT_TOO_LARGE;
    }
    memcpy(p->scratch + p->data_len + 1 + p->line_len, seg, seg_len);
    p->line_len += seg_len;
    return SSE_NEED_MORE;
}

/* Handles a line whose terminator was found; `seg` is its tail in the current
 * feed (the head may be held in scratch). Sets *out_dispatch when it was the
 * blank line ending a dispatchable block. */
static enum sse_status sse__complete(struct sse_parser *p, const char *seg, size_t seg_len,
                                     bool *out_dispatch)
{
    *out_dispatch = false;
    if (p->line_len > 0) {
        enum sse_status st = SSE_NEED_MORE;
        if (seg_len > 0) {
            st = sse__hold(p, seg, seg_len);
        }
        if (st != SSE_NEED_MORE) {
            return st;
        }
        size_t len = p->line_len;
        p->line_len = 0;
        return sse__line(p, p->scratch + p->data_len + 1, len, true);
    }
    if (seg_len == 0) {
        if (sse__dispatchable(p)) {
            *out_dispatch = true;
        } else {
            sse__reset_block(p);
        }
        return SSE_NEED_MORE;
    }
    if (!sse__line_fits(p, seg_len)) {
        return SSE_ERR_EVENT_TOO_LARGE;
    }
    return sse__line(p, seg, seg_len, false);
}

/* Skips a byte order mark at stream start, which may arrive split across
 * feeds. If the bytes turn out not to be a BOM, the ones already matched
 * belong to the first line and are held like any partial line. */
static enum sse_status sse__skip_bom(struct sse_parser *p, const char *buf, size_t len, size_t *pos)
{
    while (*pos < len && p->bom_matched < SSE_BOM_LEN) {
        if ((unsigned char)buf[*pos] != sse__bom[p->bom_matched]) {
            p->bom_done = true;
            if (p->bom_matched == 0) {
                return SSE_NEED_MORE;
            }
            return sse__hold(p, (const char *)sse__bom, p->bom_matched);
        }
        p->bom_matched++;
        (*pos)++;
    }
    if (p->bom_matched == SSE_BOM_LEN) {
        p->bom_done = true;
    }
    return SSE_NEED_MORE;
}

static enum sse_status sse__fail(struct sse_parser *p, enum sse_status st, size_t pos,
                                 size_t *out_consumed)
{
    p->error = st;
    *out_consumed = pos;
    return st;
}

enum sse_status sse_parser_feed(struct sse_parser *p, const char *buf, size_t len,
                                size_t *out_consumed, struct sse_event *out_event)
{
    size_t pos = 0;
    enum sse_status st;
    if (p->error != SSE_NEED_MORE) {
        *out_consumed = 0;
        return p->error;
    }
    if (!p->bom_done) {
        st = sse__skip_bom(p, buf, len, &pos);
        if (st != SSE_NEED_MORE) {
            return sse__fail(p, st, pos, out_consumed);
        }
    }
    while (pos < len) {
        if (p->pending_cr) {
            p->pending_cr = false;
            if (buf[pos] == '\n') {
                pos++;
                continue;
            }
        }
        size_t n = sse__eol(buf + pos, len - pos);
        if (n == len - pos) {
            st = sse__hold(p, buf + pos, n);
            if (st != SSE_NEED_MORE) {
                return sse__fail(p, st, len, out_consumed);
            }
            break;
        }
        bool dispatch;
        p->pending_cr = buf[pos + n] == '\r';
        st = sse__complete(p, buf + pos, n, &dispatch);
        pos += n + 1;
        if (st != SSE_NEED_MORE) {
            return sse__fail(p, st, pos, out_consumed);
        }
        if (dispatch) {
            sse__emit(p, out_event);
            *out_consumed = pos;
            return SSE_EVENT;
        }
    }
    sse__materialize(p);
    *out_consumed = len;
    return SSE_NEED_MORE;
}

enum sse_status sse_parser_finish(struct sse_parser *p, struct sse_event *out_event)
{
    enum sse_status st = SSE_NEED_MORE;
    size_t ignored;
    if (p->error != SSE_NEED_MORE) {
        return p->error;
    }
    if (!p->bom_done && p->bom_matched > 0) {
        /* The stream was a strict prefix of a BOM: those bytes are a line. */
        p->bom_done = true;
        st = sse__hold(p, (const char *)sse__bom, p->bom_matched);
    }
    p->bom_done = true;
    p->pending_cr = false;
    if (st == SSE_NEED_MORE && p->line_len > 0) {
        bool dispatch;
        st = sse__complete(p, "", 0, &dispatch);
    }
    if (st != SSE_NEED_MORE) {
        return sse__fail(p, st, 0, &ignored);
    }
    if (!sse__dispatchable(p)) {
        sse__reset_block(p);
        return SSE_NEED_MORE;
    }
    sse__emit(p, out_event);
    return SSE_EVENT;
}

const char *sse_status_name(enum sse_status s)
{
    switch (s) {
    case SSE_NEED_MORE:
        return "need more input";
    case SSE_EVENT:
        return "event";
    case SSE_ERR_EVENT_TOO_LARGE:
        return "SSE event larger than the parser's scratch buffer";
    case SSE_ERR_FIELD_TOO_LONG:
        return "SSE event or id field longer than its limit";
    }
    return "unknown SSE status";
}
