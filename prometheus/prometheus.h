/*
 * prometheus.h - the Prometheus text exposition format (version 0.0.4, and the OpenMetrics
 * lines servers mix into it): an incremental, allocation-free, zero-copy line parser. Bytes
 * in, samples and metadata out.
 *
 * The module does no I/O and links nothing: the scraper feeds it the body of a /metrics
 * response as it arrives.
 *
 * What it accepts:
 * - Lines end with LF; a CR right before the LF is dropped. Empty lines and comments other
 *   than "# HELP" and "# TYPE" (e.g. OpenMetrics' "# EOF", "# UNIT") are skipped.
 * - "# HELP name text": text keeps its escapes (\\ and \n), see prom_unescape().
 * - "# TYPE name type": counter, gauge, histogram, summary, untyped; OpenMetrics' unknown,
 *   info, stateset and gaugehistogram count as untyped. The TYPE line names the family the
 *   samples after it belong to.
 * - Samples: name [{labels}] value [timestamp] [# exemplar]. Names match
 *   [a-zA-Z_:][a-zA-Z0-9_:]*, label names [a-zA-Z_][a-zA-Z0-9_]*, label values are quoted with
 *   the escapes \\, \" and \n (any other escape is an error); a trailing comma before } is
 *   allowed. Values are Go-style floats (digits, '.', exponent, sign) or NaN, Inf, +Inf, -Inf
 *   (any case); timestamps are integer milliseconds. Anything after an exemplar's '#' is
 *   ignored.
 * - A sample is tied to the family of the last TYPE line when its name is the family's name or
 *   the family's name with the suffix its type allows (_total and _created for counters;
 *   _bucket, _sum, _count and _created for histograms; _sum, _count and _created for
 *   summaries). A counter family declared with its _total (the classic text format) is named
 *   without it, as prometheus_client names it. Other samples are untyped families of their own.
 * - Limits: a line longer than the parser's line buffer, a name longer than
 *   PROM_NAME_BYTES_MAX, more than PROM_LABELS_MAX labels, and a NUL or other control byte
 *   (except HTAB) are errors, so garbage is refused with a reason instead of filling memory.
 */
#ifndef RINGPERF_PROMETHEUS_H
#define RINGPERF_PROMETHEUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* PROM_NAME_BYTES_MAX bounds a metric name (and so a family name). */
#define PROM_NAME_BYTES_MAX 512
/* PROM_LABELS_MAX bounds the labels of one sample. */
#define PROM_LABELS_MAX 64

/* prom_status is what prom_parser_feed() and prom_parser_finish() report. Every value from
 * PROM_ERR_FIRST on is an error; errors are sticky until prom_parser_init(). */
enum prom_status {
    PROM_NEED_MORE = 0, /* every byte given was consumed; feed more */
    PROM_SAMPLE,        /* out->sample holds one sample */
    PROM_HELP,          /* out->meta holds a HELP line */
    PROM_TYPE,          /* out->meta holds a TYPE line */
    PROM_END,           /* prom_parser_finish(): the exposition ended cleanly */
    PROM_ERR_LINE_TOO_LONG,
    PROM_ERR_CONTROL_BYTE, /* NUL or another control byte: not a text exposition */
    PROM_ERR_BAD_NAME,
    PROM_ERR_NAME_TOO_LONG,
    PROM_ERR_BAD_LABELS,
    PROM_ERR_BAD_ESCAPE,
    PROM_ERR_TOO_MANY_LABELS,
    PROM_ERR_BAD_VALUE,
    PROM_ERR_BAD_TIMESTAMP,
    PROM_ERR_BAD_METADATA, /* a HELP or TYPE line without a name, or an unknown type */
    PROM_ERR_TRAILING,     /* bytes after the value and timestamp that are not an exemplar */
    PROM_ERR_TRUNCATED,    /* prom_parser_finish(): the last line has no LF (cut mid-line) */
    PROM_STATUS_COUNT,
    PROM_ERR_FIRST = PROM_ERR_LINE_TOO_LONG,
};

/* prom_status_name returns a short, stable, static description of s ("line too long"),
 * for exports and logs. Never NULL. */
const char *prom_status_name(enum prom_status s);

/* prom_type is a family's type, from its TYPE line (PROM_UNTYPED without one). */
enum prom_type {
    PROM_UNTYPED = 0,
    PROM_COUNTER,
    PROM_GAUGE,
    PROM_HISTOGRAM,
    PROM_SUMMARY,
};

/* prom_type_name returns "counter", "gauge", "histogram", "summary" or "unknown" (AIPerf's
 * word for untyped), a static string. */
const char *prom_type_name(enum prom_type t);

/* prom_suffix says which series of its family a sample is. */
enum prom_suffix {
    PROM_SUFFIX_NONE = 0, /* the family's own name (a gauge, an untyped, a summary quantile) */
    PROM_SUFFIX_TOTAL,    /* a counter's _total */
    PROM_SUFFIX_CREATED,  /* _created: a creation time, not a measurement; also a gauge family
                             named *_created, as prometheus_client's text output writes them */
    PROM_SUFFIX_BUCKET,
    PROM_SUFFIX_SUM,
    PROM_SUFFIX_COUNT,
};

/* prom_sample is one sample line as views (not NUL-terminated) into the buffer passed to
 * prom_parser_feed() or into the parser's own buffers, valid until the next call on the
 * parser. `labels` is the text between the braces, validated: walk it with
 * prom_labels_next(). */
struct prom_sample {
    const char *name;
    size_t name_len;
    const char *family;
    size_t family_len;
    enum prom_type type;
    enum prom_suffix suffix;
    const char *labels;
    size_t labels_len;
    size_t label_count;
    double value;
    bool has_timestamp;
    int64_t timestamp_ms;
};

/* prom_meta is a HELP or TYPE line: the family it names (for a counter declared with _total,
 * without it) and either its help text (escaped, see prom_unescape) or its type. Views as in
 * prom_sample. */
struct prom_meta {
    const char *family;
    size_t family_len;
    const char *help;
    size_t help_len;
    enum prom_type type;
};

/* prom_line is what one feed call returned: sample for PROM_SAMPLE, meta otherwise. */
struct prom_line {
    struct prom_sample sample;
    struct prom_meta meta;
};

/* prom_parser is the caller-allocated state of one parser. Fields are private. */
struct prom_parser {
    char *line_buf;
    size_t line_cap;
    size_t line_len; /* bytes of an unfinished line kept from earlier feeds */
    uint8_t error;
    enum prom_type family_type;
    size_t family_len;
    char family[PROM_NAME_BYTES_MAX];
};

/* prom_parser_init prepares p for one exposition. line_buf (borrowed, it must outlive p) holds
 * a line split across feeds, so line_cap is the limit on a line's length without its LF
 * (PROM_ERR_LINE_TOO_LONG beyond). */
void prom_parser_init(struct prom_parser *p, char *line_buf, size_t line_cap);

/* prom_parser_feed consumes bytes from buf[0..len) and stops at the first sample, HELP or TYPE
 * line, or error, filling *out. *out_consumed is set to the bytes consumed (== len for
 * PROM_NEED_MORE). After an event call again with the rest of buf. buf may be NULL when len is
 * 0. Never allocates, never reads outside buf[0..len). */
enum prom_status prom_parser_feed(struct prom_parser *p, const char *buf, size_t len,
                                  size_t *out_consumed, struct prom_line *out);

/* prom_parser_finish tells p the exposition ended: PROM_END when it ended at a line's end,
 * PROM_ERR_TRUNCATED when a line was left unfinished, or the sticky error. */
enum prom_status prom_parser_finish(struct prom_parser *p);

/* prom_label is one label as views into a prom_sample's labels: value keeps its escapes. */
struct prom_label {
    const char *name;
    size_t name_len;
    const char *value;
    size_t value_len;
};

/* prom_labels_next walks the labels of a sample (labels, len as prom_sample gives them). Start
 * with *cursor = 0; each true return fills *out and advances *cursor; false after the last. */
bool prom_labels_next(const char *labels, size_t len, size_t *cursor, struct prom_label *out);

/* prom_unescape writes src (len bytes with the escapes \\, \" and \n) unescaped into dst and
 * returns its length; at most cap bytes are written (the rest is cut). Does not NUL-terminate. */
size_t prom_unescape(const char *src, size_t len, char *dst, size_t cap);

#endif
