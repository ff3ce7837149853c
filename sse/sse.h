/*
 * sse.h - incremental, allocation-free Server-Sent-Events parser.
 *
 * Parses a text/event-stream body (already HTTP de-chunked) as it arrives, one
 * network read at a time, following the WHATWG "event stream" rules:
 *   - LF, CRLF and lone CR end a line; a CR at the end of one feed followed by
 *     an LF at the start of the next is one line ending;
 *   - a UTF-8 byte order mark at the very start of the stream is skipped;
 *   - `data`, `event`, `id` and `retry` fields; any other field is ignored;
 *   - a line starting with ':' is a comment;
 *   - `name:value` drops exactly one space after the colon; a line without a
 *     colon is a field name with an empty value;
 *   - several `data` lines are joined with '\n';
 *   - a blank line ends the block.
 *
 * Deviations from WHATWG, needed for AIPerf compatibility:
 *   - A block is dispatched when it had a data line, an `event` field or a
 *     comment (WHATWG dispatches only blocks with data). AIPerf reads the
 *     message of an `event: error` block from its comment line, so such blocks
 *     must reach the caller. Keep-alive blocks (a lone ": ping") therefore come
 *     out as events too: skip them with `!ev.has_data && !ev.has_event_type`.
 *   - Comment text is kept (WHATWG drops it): the FIRST comment of the block,
 *     with one leading space removed, truncated to SSE_COMMENT_MAX bytes (the
 *     first comment is what AIPerf uses as the error message).
 *   - sse_parser_finish() dispatches a final block that the stream closed
 *     without a blank line (WHATWG discards it; AIPerf emits it).
 *
 * Timing is the caller's job: stamp every event returned while working through
 * one read with that read's arrival time.
 *
 * Limits: the scratch buffer given to sse_parser_init() bounds the event. Each
 * line, counted in full (field name included), plus one byte, plus the joined
 * data accumulated so far in the block must fit in scratch_cap; otherwise the
 * parser fails with SSE_ERR_EVENT_TOO_LARGE. The rule does not depend on how
 * the input is split into feeds, so the same stream always gives the same
 * result. `event` values are limited to SSE_EVENT_TYPE_MAX bytes and `id`
 * values to SSE_ID_MAX bytes (SSE_ERR_FIELD_TOO_LONG). A caller that can give
 * more room sets a grow function (sse_parser_set_grow): the parser asks it for
 * a larger scratch before it gives up, so the limit is then the caller's.
 */
#ifndef RINGPERF_SSE_H
#define RINGPERF_SSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* SSE_EVENT_TYPE_MAX is the longest accepted `event` field value, in bytes. */
#define SSE_EVENT_TYPE_MAX 128
/* SSE_ID_MAX is the longest accepted `id` field value, in bytes. */
#define SSE_ID_MAX 128
/* SSE_COMMENT_MAX is how many bytes of a block's first comment are kept. */
#define SSE_COMMENT_MAX 256

/* sse_status is the result of sse_parser_feed() and sse_parser_finish().
 * Every value from SSE_ERR_EVENT_TOO_LARGE on is an error; once one is
 * returned the parser keeps returning it until sse_parser_reset(). */
enum sse_status {
    SSE_NEED_MORE = 0,       /* input used up, no complete event yet */
    SSE_EVENT,               /* one event was written to *out_event */
    SSE_ERR_EVENT_TOO_LARGE, /* a line or the joined data outgrew the scratch buffer */
    SSE_ERR_FIELD_TOO_LONG,  /* an `event` or `id` value exceeded its limit */
};

/* sse_grow_fn is asked for a scratch buffer of at least `need` bytes whose
 * first *cap bytes are those of *scratch (realloc's contract); it sets
 * *scratch and *cap and returns true, or returns false (nothing changed) when
 * it cannot, and the parser fails with SSE_ERR_EVENT_TOO_LARGE. */
typedef bool (*sse_grow_fn)(void *ctx, size_t need, char **scratch, size_t *cap);

/* sse_parser is the per-stream parser state. It is caller-allocated (embed it
 * in the connection) and must be set up with sse_parser_init(). All members
 * are private. */
struct sse_parser {
    char *scratch;      /* borrowed; holds joined data and a partial line */
    size_t scratch_cap; /* bytes in scratch */
    sse_grow_fn grow;   /* NULL: the scratch never grows */
    void *grow_ctx;
    const char *data_view;  /* non-NULL: the block's data lies in the current feed */
    size_t data_len;        /* joined data bytes of the current block */
    size_t line_len;        /* partial line bytes held at scratch + data_len + 1 */
    size_t event_type_len;  /* bytes in event_type */
    size_t id_len;          /* bytes in id */
    size_t comment_len;     /* bytes in comment */
    uint64_t retry_ms;      /* last valid `retry` value of the stream */
    enum sse_status error;  /* sticky error, SSE_NEED_MORE when healthy */
    uint8_t bom_matched;    /* BOM bytes seen so far at stream start */
    bool bom_done;          /* stream start is past */
    bool pending_cr;        /* last line ended with CR: skip one LF that follows */
    bool has_data;          /* block had a data line */
    bool has_event_type;    /* block had an event field */
    bool has_comment;       /* block had a comment */
    bool comment_truncated; /* comment was cut at SSE_COMMENT_MAX */
    bool has_id;            /* stream has set an id */
    bool has_retry;         /* stream has set a valid retry */
    char event_type[SSE_EVENT_TYPE_MAX];
    char id[SSE_ID_MAX];
    char comment[SSE_COMMENT_MAX];
};

/* sse_event is one dispatched block. Every view points either into the buffer
 * passed to the sse_parser_feed() call that returned it (zero-copy: the usual
 * case of a single data line lying wholly inside one read), into the scratch
 * buffer, or into the parser itself; all of them are valid until the next
 * sse_parser_feed(), sse_parser_finish() or sse_parser_reset() call on the
 * same parser. Views are not NUL-terminated. */
struct sse_event {
    const char *data; /* data lines joined with '\n', no trailing '\n'; "" when none */
    size_t data_len;
    const char *event_type; /* `event` value; "" when the block had none */
    size_t event_type_len;
    const char *id; /* the stream's last event id (WHATWG: it persists across blocks) */
    size_t id_len;
    const char *comment; /* the block's first comment, one leading space removed */
    size_t comment_len;
    uint64_t retry_ms;      /* the stream's last valid `retry` value */
    bool has_data;          /* the block had at least one data line (data may be "") */
    bool has_event_type;    /* the block had an `event` field */
    bool has_comment;       /* the block had a comment line (comment may be "") */
    bool comment_truncated; /* comment was cut at SSE_COMMENT_MAX bytes */
    bool has_id;            /* some block of the stream has set an id */
    bool has_retry;         /* some block of the stream has set a valid retry */
};

/* sse_parser_init prepares `p` for a new stream. It borrows `scratch`
 * (`scratch_cap` bytes, the largest event the stream may carry, see the limit
 * rule at the top of this file); the caller keeps it alive and unused by
 * anything else, including the buffers it feeds, for as long as `p` is used.
 * Never fails and never allocates. */
void sse_parser_init(struct sse_parser *p, char *scratch, size_t scratch_cap);

/* sse_parser_set_grow lets `p` ask `fn` (with `ctx`) for a larger scratch
 * when an event outgrows it; NULL turns growing off. Kept across
 * sse_parser_reset(); sse_parser_init() clears it. */
void sse_parser_set_grow(struct sse_parser *p, sse_grow_fn fn, void *ctx);

/* sse_parser_reset starts a new stream on `p` with the same scratch buffer
 * (and grow function), clearing any sticky error, the last event id and the
 * retry value. */
void sse_parser_reset(struct sse_parser *p);

/* sse_parser_feed consumes bytes from `buf` (`len` bytes, borrowed for the
 * call) until one event completes or the input is used up.
 *   SSE_EVENT: *out_event is filled and *out_consumed says how many bytes
 *     were read; feed the rest (buf + *out_consumed) in the next call.
 *   SSE_NEED_MORE: everything was consumed (*out_consumed == len); any
 *     partial line or block is kept in the scratch buffer.
 *   An error: *out_consumed is how far parsing got (the first time) or 0 (on
 *     later calls); *out_event is left untouched.
 * `buf` may be NULL when `len` is 0. */
enum sse_status sse_parser_feed(struct sse_parser *p, const char *buf, size_t len,
                                size_t *out_consumed, struct sse_event *out_event);

/* sse_parser_finish is called once when the stream ends. If the stream closed
 * in the middle of a block (no blank line after it), the pending line is
 * treated as complete and the block is dispatched as SSE_EVENT when it holds
 * something dispatchable, like AIPerf does; otherwise it returns
 * SSE_NEED_MORE (nothing left). Returns the sticky error if one occurred.
 * Call sse_parser_reset() before parsing another stream with `p`. */
enum sse_status sse_parser_finish(struct sse_parser *p, struct sse_event *out_event);

/* sse_status_name returns a stable, static, human-readable description of
 * `s` for error messages and logs ("unknown SSE status" for other values). */
const char *sse_status_name(enum sse_status s);

#endif
