/*
 * prom_parser.c - the Prometheus text exposition parser: lines are found with memchr, parsed
 * in place when they lie whole in the caller's buffer, and copied into the line buffer only
 * when a read ends mid-line.
 */
#include "prometheus/prometheus.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A float token longer than this is not a number anyone exposes. */
#define VALUE_BYTES_MAX 64

/* PROM_SKIP is a line with nothing to report (blank, or a comment). */
#define PROM_SKIP PROM_STATUS_COUNT

static const char *const status_names[PROM_STATUS_COUNT] = {
    [PROM_NEED_MORE] = "need more",
    [PROM_SAMPLE] = "sample",
    [PROM_HELP] = "help",
    [PROM_TYPE] = "type",
    [PROM_END] = "end",
    [PROM_ERR_LINE_TOO_LONG] = "line too long",
    [PROM_ERR_CONTROL_BYTE] = "control byte (not a text exposition)",
    [PROM_ERR_BAD_NAME] = "malformed metric name",
    [PROM_ERR_NAME_TOO_LONG] = "metric name too long",
    [PROM_ERR_BAD_LABELS] = "malformed labels",
    [PROM_ERR_BAD_ESCAPE] = "bad escape in a label value or help text",
    [PROM_ERR_TOO_MANY_LABELS] = "too many labels",
    [PROM_ERR_BAD_VALUE] = "malformed sample value",
    [PROM_ERR_BAD_TIMESTAMP] = "malformed timestamp",
    [PROM_ERR_BAD_METADATA] = "malformed HELP or TYPE line",
    [PROM_ERR_TRAILING] = "unexpected bytes after the value",
    [PROM_ERR_TRUNCATED] = "exposition cut off mid-line",
};

const char *prom_status_name(enum prom_status s)
{
    if ((unsigned)s >= PROM_STATUS_COUNT) {
        return "unknown exposition status";
    }
    return status_names[s];
}

const char *prom_type_name(enum prom_type t)
{
    switch (t) {
    case PROM_COUNTER:
        return "counter";
    case PROM_GAUGE:
        return "gauge";
    case PROM_HISTOGRAM:
        return "histogram";
    case PROM_SUMMARY:
        return "summary";
    default:
        return "unknown";
    }
}

void prom_parser_init(struct prom_parser *p, char *line_buf, size_t line_cap)
{
    memset(p, 0, sizeof(*p));
    p->line_buf = line_buf;
    p->line_cap = line_cap;
}

/* A cursor over one line (LF excluded). */
struct line {
    const char *s;
    size_t len;
    size_t at;
};

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

static void skip_space(struct line *l)
{
    while (l->at < l->len && is_space(l->s[l->at])) {
        l->at++;
    }
}

static bool name_start(char c, bool colon)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colon && c == ':');
}

static bool name_char(char c, bool colon)
{
    return name_start(c, colon) || (c >= '0' && c <= '9');
}

/* take_name reads a metric name (colon true) or a label name at the cursor. */
static enum prom_status take_name(struct line *l, bool colon, const char **out, size_t *out_len)
{
    size_t start = l->at;
    if (l->at >= l->len || !name_start(l->s[l->at], colon)) {
        return PROM_ERR_BAD_NAME;
    }
    while (l->at < l->len && name_char(l->s[l->at], colon)) {
        l->at++;
    }
    if (l->at - start > PROM_NAME_BYTES_MAX) {
        return PROM_ERR_NAME_TOO_LONG;
    }
    *out = l->s + start;
    *out_len = l->at - start;
    return PROM_NEED_MORE;
}

/* take_quoted reads a quoted label value, leaving the cursor after its closing quote. */
static enum prom_status take_quoted(struct line *l)
{
    if (l->at >= l->len || l->s[l->at] != '"') {
        return PROM_ERR_BAD_LABELS;
    }
    for (l->at++; l->at < l->len; l->at++) {
        char c = l->s[l->at];
        if (c == '"') {
            l->at++;
            return PROM_NEED_MORE;
        }
        if (c == '\\') {
            l->at++;
            if (l->at >= l->len) {
                break;
            }
            c = l->s[l->at];
            if (c != '\\' && c != '"' && c != 'n') {
                return PROM_ERR_BAD_ESCAPE;
            }
        }
    }
    return PROM_ERR_BAD_LABELS;
}

/* take_labels reads {name="value",...} at the cursor into the sample. */
static enum prom_status take_labels(struct line *l, struct prom_sample *out)
{
    l->at++; /* '{' */
    out->labels = l->s + l->at;
    for (;;) {
        skip_space(l);
        if (l->at < l->len && l->s[l->at] == '}') {
            out->labels_len = (size_t)(l->s + l->at - out->labels);
            l->at++;
            return PROM_NEED_MORE;
        }
        const char *name;
        size_t name_len;
        if (take_name(l, false, &name, &name_len) != PROM_NEED_MORE) {
            return PROM_ERR_BAD_LABELS;
        }
        if (++out->label_count > PROM_LABELS_MAX) {
            return PROM_ERR_TOO_MANY_LABELS;
        }
        skip_space(l);
        if (l->at >= l->len || l->s[l->at] != '=') {
            return PROM_ERR_BAD_LABELS;
        }
        l->at++;
        skip_space(l);
        enum prom_status st = take_quoted(l);
        if (st != PROM_NEED_MORE) {
            return st;
        }
        skip_space(l);
        if (l->at < l->len && l->s[l->at] == ',') {
            l->at++;
        } else if (l->at >= l->len || l->s[l->at] != '}') {
            return PROM_ERR_BAD_LABELS;
        }
    }
}

static bool word_is(const char *s, size_t len, const char *word)
{
    return strlen(word) == len && strncasecmp(s, word, len) == 0;
}

/* parse_value parses a Go-style float token; strtod alone would take hex and "nan(...)". */
static bool parse_value(const char *s, size_t len, double *out)
{
    if (len == 0 || len > VALUE_BYTES_MAX) {
        return false;
    }
    size_t sign = s[0] == '+' || s[0] == '-';
    if (word_is(s + sign, len - sign, "inf") || word_is(s + sign, len - sign, "infinity")) {
        *out = s[0] == '-' ? -INFINITY : INFINITY;
        return true;
    }
    if (word_is(s, len, "nan")) {
        *out = NAN;
        return true;
    }
    bool digit = false;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        digit |= c >= '0' && c <= '9';
        if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-')) {
            return false;
        }
    }
    char tmp[VALUE_BYTES_MAX + 1];
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    char *end = NULL;
    double v = strtod(tmp, &end);
    if (!digit || end != tmp + len) {
        return false;
    }
    *out = v;
    return true;
}

static bool parse_timestamp(const char *s, size_t len, int64_t *out)
{
    size_t i = s[0] == '-' || s[0] == '+';
    if (i == len || len - i > 19) {
        return false;
    }
    uint64_t v = 0;
    for (; i < len; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return false;
        }
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > (uint64_t)INT64_MAX) {
        return false;
    }
    *out = s[0] == '-' ? -(int64_t)v : (int64_t)v;
    return true;
}

/* token returns the bytes up to the next space or tab. */
static const char *token(struct line *l, size_t *out_len)
{
    size_t start = l->at;
    while (l->at < l->len && !is_space(l->s[l->at])) {
        l->at++;
    }
    *out_len = l->at - start;
    return l->s + start;
}

static bool ends_with(const char *s, size_t len, const char *suffix, size_t *out_base)
{
    size_t n = strlen(suffix);
    if (len <= n || memcmp(s + len - n, suffix, n) != 0) {
        return false;
    }
    *out_base = len - n;
    return true;
}

/* suffix_of tells which suffix of the current family `name` carries, if it is one of the
 * family's series at all. */
static bool suffix_of(const struct prom_parser *p, const char *name, size_t len,
                      enum prom_suffix *out)
{
    static const struct {
        const char *text;
        enum prom_suffix suffix;
        uint8_t types; /* bit per prom_type */
    } table[] = {
        {"_total", PROM_SUFFIX_TOTAL, 1u << PROM_COUNTER},
        {"_created", PROM_SUFFIX_CREATED,
         1u << PROM_COUNTER | 1u << PROM_HISTOGRAM | 1u << PROM_SUMMARY},
        {"_bucket", PROM_SUFFIX_BUCKET, 1u << PROM_HISTOGRAM},
        {"_sum", PROM_SUFFIX_SUM, 1u << PROM_HISTOGRAM | 1u << PROM_SUMMARY},
        {"_count", PROM_SUFFIX_COUNT, 1u << PROM_HISTOGRAM | 1u << PROM_SUMMARY},
    };
    if (p->family_len == 0 || len < p->family_len || memcmp(name, p->family, p->family_len)) {
        return false;
    }
    if (len == p->family_len) {
        *out = PROM_SUFFIX_NONE;
        return true;
    }
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        size_t base;
        if ((table[i].types >> p->family_type & 1u) && ends_with(name, len, table[i].text, &base) &&
            base == p->family_len) {
            *out = table[i].suffix;
            return true;
        }
    }
    return false;
}

/* tie_family fills the sample's family, type and suffix from the last TYPE line. */
static void tie_family(const struct prom_parser *p, struct prom_sample *out)
{
    size_t base;
    out->family = out->name;
    out->family_len = out->name_len;
    out->type = PROM_UNTYPED;
    out->suffix = PROM_SUFFIX_NONE;
    if (suffix_of(p, out->name, out->name_len, &out->suffix)) {
        out->family = p->family;
        out->family_len = p->family_len;
        out->type = p->family_type;
    }
    if (out->type == PROM_GAUGE && out->suffix == PROM_SUFFIX_NONE &&
        ends_with(out->family, out->family_len, "_created", &base)) {
        out->suffix = PROM_SUFFIX_CREATED;
    }
}

static enum prom_status parse_sample(struct prom_parser *p, struct line *l, struct prom_sample *out)
{
    memset(out, 0, sizeof(*out));
    enum prom_status st = take_name(l, true, &out->name, &out->name_len);
    if (st != PROM_NEED_MORE) {
        return st;
    }
    skip_space(l);
    if (l->at < l->len && l->s[l->at] == '{') {
        st = take_labels(l, out);
        if (st != PROM_NEED_MORE) {
            return st;
        }
        skip_space(l);
    }
    size_t n;
    const char *v = token(l, &n);
    if (!parse_value(v, n, &out->value)) {
        return PROM_ERR_BAD_VALUE;
    }
    skip_space(l);
    if (l->at < l->len && l->s[l->at] != '#') {
        v = token(l, &n);
        if (!parse_timestamp(v, n, &out->timestamp_ms)) {
            return PROM_ERR_BAD_TIMESTAMP;
        }
        out->has_timestamp = true;
        skip_space(l);
    }
    if (l->at < l->len && l->s[l->at] != '#') {
        return PROM_ERR_TRAILING;
    }
    tie_family(p, out);
    return PROM_SAMPLE;
}

static bool parse_type_word(const char *s, size_t len, enum prom_type *out)
{
    static const struct {
        const char *word;
        enum prom_type type;
    } words[] = {
        {"counter", PROM_COUNTER}, {"gauge", PROM_GAUGE},      {"histogram", PROM_HISTOGRAM},
        {"summary", PROM_SUMMARY}, {"untyped", PROM_UNTYPED},  {"unknown", PROM_UNTYPED},
        {"info", PROM_UNTYPED},    {"stateset", PROM_UNTYPED}, {"gaugehistogram", PROM_UNTYPED},
    };
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (strlen(words[i].word) == len && memcmp(s, words[i].word, len) == 0) {
            *out = words[i].type;
            return true;
        }
    }
    return false;
}

static bool help_escapes_ok(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\\') {
            if (i + 1 == len || (s[i + 1] != '\\' && s[i + 1] != 'n')) {
                return false;
            }
            i++;
        }
    }
    return true;
}

/* parse_type records the family a TYPE line opens; a counter declared with its _total is
 * named without it, as prometheus_client names it. */
static enum prom_status parse_type(struct prom_parser *p, struct line *l, struct prom_meta *out)
{
    size_t n;
    const char *word = token(l, &n);
    enum prom_type type;
    if (!parse_type_word(word, n, &type)) {
        return PROM_ERR_BAD_METADATA;
    }
    skip_space(l);
    if (l->at != l->len) {
        return PROM_ERR_BAD_METADATA;
    }
    size_t base;
    if (type == PROM_COUNTER && ends_with(out->family, out->family_len, "_total", &base)) {
        out->family_len = base;
    }
    out->type = type;
    memcpy(p->family, out->family, out->family_len);
    p->family_len = out->family_len;
    p->family_type = type;
    return PROM_TYPE;
}

static enum prom_status parse_comment(struct prom_parser *p, struct line *l, struct prom_meta *out)
{
    memset(out, 0, sizeof(*out));
    l->at++; /* '#' */
    skip_space(l);
    size_t n;
    const char *word = token(l, &n);
    bool help = n == 4 && memcmp(word, "HELP", 4) == 0;
    if (!help && !(n == 4 && memcmp(word, "TYPE", 4) == 0)) {
        return PROM_SKIP;
    }
    skip_space(l);
    enum prom_status st = take_name(l, true, &out->family, &out->family_len);
    if (st != PROM_NEED_MORE) {
        return st == PROM_ERR_BAD_NAME ? PROM_ERR_BAD_METADATA : st;
    }
    if (l->at < l->len && !is_space(l->s[l->at])) {
        return PROM_ERR_BAD_METADATA;
    }
    skip_space(l);
    if (!help) {
        return parse_type(p, l, out);
    }
    out->help = l->s + l->at;
    out->help_len = l->len - l->at;
    return help_escapes_ok(out->help, out->help_len) ? PROM_HELP : PROM_ERR_BAD_ESCAPE;
}

static enum prom_status parse_line(struct prom_parser *p, const char *s, size_t len,
                                   struct prom_line *out)
{
    if (len > 0 && s[len - 1] == '\r') {
        len--;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f) {
            return PROM_ERR_CONTROL_BYTE;
        }
    }
    struct line l = {.s = s, .len = len};
    skip_space(&l);
    if (l.at == l.len) {
        return PROM_SKIP;
    }
    if (s[l.at] == '#') {
        return parse_comment(p, &l, &out->meta);
    }
    return parse_sample(p, &l, &out->sample);
}

/* keep appends a line's start to the line buffer, to be finished by a later feed. */
static enum prom_status keep(struct prom_parser *p, const char *s, size_t n)
{
    if (n > p->line_cap - p->line_len) {
        return PROM_ERR_LINE_TOO_LONG;
    }
    memcpy(p->line_buf + p->line_len, s, n);
    p->line_len += n;
    return PROM_NEED_MORE;
}

enum prom_status prom_parser_feed(struct prom_parser *p, const char *buf, size_t len,
                                  size_t *out_consumed, struct prom_line *out)
{
    *out_consumed = 0;
    if (p->error != 0) {
        return (enum prom_status)p->error;
    }
    size_t off = 0;
    enum prom_status st = PROM_SKIP;
    while (st == PROM_SKIP) {
        const char *nl = off < len ? memchr(buf + off, '\n', len - off) : NULL;
        if (nl == NULL) {
            st = keep(p, buf + off, len - off);
            off = len;
            break;
        }
        size_t n = (size_t)(nl - (buf + off));
        const char *line = buf + off;
        if (p->line_len > 0) {
            st = keep(p, line, n);
            if (st != PROM_NEED_MORE) {
                break;
            }
            line = p->line_buf;
            n = p->line_len;
            p->line_len = 0;
        } else if (n > p->line_cap) {
            st = PROM_ERR_LINE_TOO_LONG;
            break;
        }
        off = (size_t)(nl - buf) + 1;
        st = parse_line(p, line, n, out);
    }
    if (st >= PROM_ERR_FIRST) {
        p->error = (uint8_t)st;
    }
    *out_consumed = off;
    return st;
}

enum prom_status prom_parser_finish(struct prom_parser *p)
{
    if (p->error != 0) {
        return (enum prom_status)p->error;
    }
    return p->line_len > 0 ? PROM_ERR_TRUNCATED : PROM_END;
}

bool prom_labels_next(const char *labels, size_t len, size_t *cursor, struct prom_label *out)
{
    struct line l = {.s = labels, .len = len, .at = *cursor};
    skip_space(&l);
    if (l.at < l.len && l.s[l.at] == ',') {
        l.at++;
        skip_space(&l);
    }
    if (take_name(&l, false, &out->name, &out->name_len) != PROM_NEED_MORE) {
        return false;
    }
    skip_space(&l);
    l.at++; /* '=' */
    skip_space(&l);
    size_t start = l.at + 1;
    if (take_quoted(&l) != PROM_NEED_MORE) {
        return false;
    }
    out->value = l.s + start;
    out->value_len = l.at - 1 - start;
    *cursor = l.at;
    return true;
}

size_t prom_unescape(const char *src, size_t len, char *dst, size_t cap)
{
    size_t w = 0;
    for (size_t i = 0; i < len && w < cap; i++) {
        char c = src[i];
        if (c == '\\' && i + 1 < len) {
            c = src[++i];
            c = c == 'n' ? '\n' : c;
        }
        dst[w++] = c;
    }
    return w;
}
