#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "prometheus/prometheus.h"
#include "tests/support/guard.h"

/*
 * Every case is fed whole, byte by byte and split at every point; each piece is copied to end
 * right before a PROT_NONE page, and the line buffer ends right before one too, so an over-read
 * or over-write crashes the test. A run is summarised as a transcript: one entry per event,
 * then END or ERR:<status name>.
 *   S family/suffix/type{label=value,...}=value@timestamp;   (label values unescaped)
 *   H family:help;   T family:type;
 */

#define TRANSCRIPT_MAX 4096
#define LINE_CAP 128

struct transcript {
    char text[TRANSCRIPT_MAX];
    size_t len;
};

static void tr_add(struct transcript *t, const char *s, size_t n)
{
    cr_assert_lt(t->len + n, sizeof(t->text), "transcript overflow");
    memcpy(t->text + t->len, s, n);
    t->len += n;
    t->text[t->len] = '\0';
}

static void tr_str(struct transcript *t, const char *s)
{
    tr_add(t, s, strlen(s));
}

static const char *suffix_word(enum prom_suffix s)
{
    static const char *const words[] = {"", "total", "created", "bucket", "sum", "count"};
    return words[s];
}

static void tr_value(struct transcript *t, double v)
{
    char num[64];
    if (isnan(v)) {
        snprintf(num, sizeof(num), "NaN");
    } else {
        snprintf(num, sizeof(num), "%.17g", v);
    }
    tr_str(t, num);
}

static void tr_sample(struct transcript *t, const struct prom_sample *s)
{
    char buf[256];
    tr_str(t, "S ");
    tr_add(t, s->family, s->family_len);
    snprintf(buf, sizeof(buf), "/%s/%s{", suffix_word(s->suffix), prom_type_name(s->type));
    tr_str(t, buf);
    size_t cursor = 0;
    struct prom_label label;
    size_t count = 0;
    while (prom_labels_next(s->labels, s->labels_len, &cursor, &label)) {
        if (count++ > 0) {
            tr_str(t, ",");
        }
        tr_add(t, label.name, label.name_len);
        tr_str(t, "=");
        size_t n = prom_unescape(label.value, label.value_len, buf, sizeof(buf));
        tr_add(t, buf, n);
    }
    cr_assert_eq(count, s->label_count);
    tr_str(t, "}=");
    tr_value(t, s->value);
    if (s->has_timestamp) {
        snprintf(buf, sizeof(buf), "@%lld", (long long)s->timestamp_ms);
        tr_str(t, buf);
    }
    tr_str(t, ";");
}

static void tr_event(struct transcript *t, enum prom_status st, const struct prom_line *line)
{
    if (st == PROM_SAMPLE) {
        tr_sample(t, &line->sample);
        return;
    }
    tr_str(t, st == PROM_HELP ? "H " : "T ");
    tr_add(t, line->meta.family, line->meta.family_len);
    tr_str(t, ":");
    if (st == PROM_HELP) {
        char buf[256];
        tr_add(t, buf, prom_unescape(line->meta.help, line->meta.help_len, buf, sizeof(buf)));
    } else {
        tr_str(t, prom_type_name(line->meta.type));
    }
    tr_str(t, ";");
}

struct run {
    struct prom_parser parser;
    struct guard_region in;
    struct guard_region linebuf;
    struct transcript t;
    bool failed;
};

static void feed_piece(struct run *r, const char *data, size_t n)
{
    const char *piece = guard_place(&r->in, data, n);
    size_t off = 0;
    while (!r->failed) {
        size_t used = 0;
        struct prom_line line;
        enum prom_status st = prom_parser_feed(&r->parser, piece + off, n - off, &used, &line);
        cr_assert_leq(used, n - off);
        if (st == PROM_NEED_MORE) {
            cr_assert_eq(used, n - off);
            return;
        }
        if (st >= PROM_ERR_FIRST) {
            tr_str(&r->t, "ERR:");
            tr_str(&r->t, prom_status_name(st));
            r->failed = true;
            return;
        }
        cr_assert_gt(used, 0);
        tr_event(&r->t, st, &line);
        off += used;
    }
}

/* run_split feeds input in pieces of `step` bytes (0 = whole), with an extra cut at `cut`. */
static void run_split(const char *input, size_t len, size_t step, size_t cut,
                      struct transcript *out)
{
    struct run r = {0};
    guard_init(&r.in, len + 1);
    guard_init(&r.linebuf, LINE_CAP);
    prom_parser_init(&r.parser, guard_end(&r.linebuf, LINE_CAP), LINE_CAP);
    size_t off = 0;
    while (off < len && !r.failed) {
        size_t n = step == 0 ? len - off : step;
        if (off < cut && off + n > cut) {
            n = cut - off;
        }
        n = n > len - off ? len - off : n;
        feed_piece(&r, input + off, n);
        off += n;
    }
    if (!r.failed) {
        enum prom_status st = prom_parser_finish(&r.parser);
        tr_str(&r.t, st == PROM_END ? "END" : "ERR:");
        if (st != PROM_END) {
            tr_str(&r.t, prom_status_name(st));
        }
    }
    *out = r.t;
    guard_free(&r.in);
    guard_free(&r.linebuf);
}

static void check_case(const char *input, const char *expected)
{
    size_t len = strlen(input);
    struct transcript t;
    run_split(input, len, 0, SIZE_MAX, &t);
    cr_assert_str_eq(t.text, expected, "whole input %s", input);
    run_split(input, len, 1, SIZE_MAX, &t);
    cr_assert_str_eq(t.text, expected, "byte by byte: %s", input);
    for (size_t cut = 1; cut < len; cut++) {
        run_split(input, len, 0, cut, &t);
        cr_assert_str_eq(t.text, expected, "split at %zu: %s", cut, input);
    }
}

struct parser_case {
    const char *input;
    const char *expected;
};

Test(prom_parser, valid_expositions)
{
    static const struct parser_case cases[] = {
        {"", "END"},
        {"\n\n  \n", "END"},
        {"up 1\n", "S up//unknown{}=1;END"},
        {"up 1\r\n", "S up//unknown{}=1;END"},
        {"# a comment\n# EOF\nup 0\n", "S up//unknown{}=0;END"},
        {"# HELP g A gauge.\n# TYPE g gauge\ng{a=\"1\"} 2.5\n",
         "H g:A gauge.;T g:gauge;S g//gauge{a=1}=2.5;END"},
        {"# HELP c Line\\nbreak \\\\ slash\n", "H c:Line\nbreak \\ slash;END"},
        {"# TYPE c_total counter\nc_total{m=\"x\"} 7 1700000000000\n",
         "T c:counter;S c/total/counter{m=x}=7@1700000000000;END"},
        {"# TYPE c counter\nc_total 3\nc_created 1.7e9\n",
         "T c:counter;S c/total/counter{}=3;S c/created/counter{}=1700000000;END"},
        {"# TYPE c_created gauge\nc_created 1.7e9\n",
         "T c_created:gauge;S c_created/created/gauge{}=1700000000;END"},
        {"# TYPE h histogram\nh_bucket{le=\"0.1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 0.3\n"
         "h_count 2\n",
         "T h:histogram;S h/bucket/histogram{le=0.1}=1;S h/bucket/histogram{le=+Inf}=2;"
         "S h/sum/histogram{}=0.29999999999999999;S h/count/histogram{}=2;END"},
        {"# TYPE s summary\ns{quantile=\"0.5\"} 1\ns_sum 4\ns_count 2\n",
         "T s:summary;S s//summary{quantile=0.5}=1;S s/sum/summary{}=4;S s/count/summary{}=2;END"},
        {"# TYPE g gauge\nother 1\n", "T g:gauge;S other//unknown{}=1;END"},
        {"v{a=\"q\\\"uote\",b=\"back\\\\slash\",c=\"new\\nline\",} NaN\n",
         "S v//unknown{a=q\"uote,b=back\\slash,c=new\nline}=NaN;END"},
        {"a +Inf\nb -Inf\nc inf\nd 1e-3\ne -0.5 -12\n",
         "S a//unknown{}=inf;S b//unknown{}=-inf;S c//unknown{}=inf;S d//unknown{}=0.001;"
         "S e//unknown{}=-0.5@-12;END"},
        {"ns:m_x { a = \"1\" , b=\"\" } 4 # {trace=\"x\"} 1\n", "S ns:m_x//unknown{a=1,b=}=4;END"},
        {"m\t5\t6\t\n", "S m//unknown{}=5@6;END"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        check_case(cases[i].input, cases[i].expected);
    }
}

Test(prom_parser, invalid_expositions)
{
    static const struct parser_case cases[] = {
        {"up 1", "ERR:exposition cut off mid-line"},
        {"up 1\nup{a=\"1\"} 2", "S up//unknown{}=1;ERR:exposition cut off mid-line"},
        {"1up 1\n", "ERR:malformed metric name"},
        {"up\n", "ERR:malformed sample value"},
        {"up one\n", "ERR:malformed sample value"},
        {"up 0x10\n", "ERR:malformed sample value"},
        {"up nan(1)\n", "ERR:malformed sample value"},
        {"up 1 2 3\n", "ERR:unexpected bytes after the value"},
        {"up 1 1.5\n", "ERR:malformed timestamp"},
        {"up 1 99999999999999999999\n", "ERR:malformed timestamp"},
        {"up{a=1} 1\n", "ERR:malformed labels"},
        {"up{a=\"1\" 1\n", "ERR:malformed labels"},
        {"up{a=\"1} 1\n", "ERR:malformed labels"},
        {"up{=\"1\"} 1\n", "ERR:malformed labels"},
        {"up{a:b=\"1\"} 1\n", "ERR:malformed labels"},
        {"up{a=\"\\t\"} 1\n", "ERR:bad escape in a label value or help text"},
        {"# HELP x bad \\t escape\n", "ERR:bad escape in a label value or help text"},
        {"# TYPE x flavour\n", "ERR:malformed HELP or TYPE line"},
        {"# TYPE x gauge extra\n", "ERR:malformed HELP or TYPE line"},
        {"# TYPE\n", "ERR:malformed HELP or TYPE line"},
        {"up 1\n\x01\x02\n", "S up//unknown{}=1;ERR:control byte (not a text exposition)"},
        {"<html><body>oops</body></html>\n", "ERR:malformed metric name"},
        {"{\"json\": true}\n", "ERR:malformed metric name"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        check_case(cases[i].input, cases[i].expected);
    }
}

Test(prom_parser, limits_are_errors)
{
    char line[LINE_CAP + 8];
    memset(line, 'a', sizeof(line));
    line[sizeof(line) - 3] = ' ';
    line[sizeof(line) - 2] = '1';
    line[sizeof(line) - 1] = '\0';
    char input[sizeof(line) + 2];
    snprintf(input, sizeof(input), "%s\n", line);
    check_case(input, "ERR:line too long");

    /* PROM_LABELS_MAX + 1 labels, in a line buffer big enough to hold them. */
    char many[4096] = "m{";
    size_t at = 2;
    for (int i = 0; i <= PROM_LABELS_MAX; i++) {
        at += (size_t)snprintf(many + at, sizeof(many) - at, "l%d=\"\",", i);
    }
    snprintf(many + at, sizeof(many) - at, "} 1\n");
    char buf[4096];
    struct prom_parser p;
    prom_parser_init(&p, buf, sizeof(buf));
    size_t used;
    struct prom_line out;
    cr_assert_eq(prom_parser_feed(&p, many, strlen(many), &used, &out), PROM_ERR_TOO_MANY_LABELS);
    /* Errors are sticky. */
    cr_assert_eq(prom_parser_feed(&p, "up 1\n", 5, &used, &out), PROM_ERR_TOO_MANY_LABELS);
    cr_assert_eq(used, 0);
    cr_assert_eq(prom_parser_finish(&p), PROM_ERR_TOO_MANY_LABELS);
}

Test(prom_parser, status_names_are_stable)
{
    for (int s = 0; s < PROM_STATUS_COUNT; s++) {
        cr_assert_not_null(prom_status_name((enum prom_status)s));
        cr_assert_neq(strlen(prom_status_name((enum prom_status)s)), 0);
    }
    cr_assert_str_eq(prom_status_name((enum prom_status)200), "unknown exposition status");
    cr_assert_str_eq(prom_type_name(PROM_UNTYPED), "unknown");
}
