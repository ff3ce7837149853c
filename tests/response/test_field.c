/*
 * test_field.c - response_field on raw and template responses: member names compared after
 * decoding on both sides (a quoted identifier's escapes and the response's).
 */
#include <criterion/criterion.h>

#include <string.h>

#include "response/response.h"

struct name_case {
    const char *field;
    const char *body;
    const char *want; /* the text found: "auto" is raw's auto-detection after a miss */
};

/* Each body also carries "text":"auto", what raw's auto-detection takes after a miss. */
static const struct name_case NAMES[] = {
    {"\"caf\\u00e9\"", "{\"caf\\u00e9\":\"hit\",\"text\":\"auto\"}", "hit"},
    {"\"caf\xC3\xA9\"", "{\"caf\\u00e9\":\"hit\",\"text\":\"auto\"}", "hit"},
    {"\"caf\\u00e9\"", "{\"caf\xC3\xA9\":\"hit\",\"text\":\"auto\"}", "hit"},
    {"\"caf\\u00E9\"", "{\"caf\\u00e9\":\"hit\",\"text\":\"auto\"}", "hit"},
    {"\"a\\\"b\"", "{\"a\\\"b\":\"hit\",\"text\":\"auto\"}", "hit"},
    {"\"tab\\t\"", "{\"tab\\t\":\"hit\",\"text\":\"auto\"}", "hit"},
    {"\"tab\\t\"", "{\"tab\\u0009\":\"hit\",\"text\":\"auto\"}", "hit"},
    {"\"back\\\\slash\"", "{\"back\\\\slash\":\"hit\",\"text\":\"auto\"}", "hit"},
    /* Two backslashes decoded are not one: as written they would have matched. */
    {"\"back\\\\\\\\slash\"", "{\"back\\\\slash\":\"hit\",\"text\":\"auto\"}", "auto"},
    {"\"back\\\\slash\"", "{\"back\\\\\\\\slash\":\"hit\",\"text\":\"auto\"}", "auto"},
    {"\"\\ud83d\\ude00\"", "{\"\xF0\x9F\x98\x80\":\"hit\",\"text\":\"auto\"}", "hit"},
    {"\"nul\\u0000\"", "{\"nul\\u0000\":\"hit\",\"nul\":\"no\",\"text\":\"auto\"}", "hit"},
    {"outer.\"x\\/y\".v", "{\"outer\":{\"x/y\":{\"v\":\"hit\"}},\"text\":\"auto\"}", "hit"},
    {"outer.*.\"k\\u00e9y\" | [0]",
     "{\"outer\":{\"a\":{\"k\\u00e9y\":\"hit\"},\"b\":{}},\"text\":\"auto\"}", "hit"},
    /* The same member spelt twice: the last one wins, as in AIPerf's parsed dict. */
    {"k", "{\"k\":\"first\",\"\\u006b\":\"hit\",\"text\":\"auto\"}", "hit"},
    {"\"caf\\u00e9\"", "{\"cafe\":\"no\",\"text\":\"auto\"}", "auto"},
};

/* texts returns the decoded content text of c. */
static const char *texts(const struct response_chunk *c)
{
    static char buf[256];
    size_t len = 0;
    for (size_t i = 0; i < c->text_count; i++) {
        const struct response_text *t = &c->texts[i];
        cr_assert_lt(len + t->text.len, sizeof(buf));
        len += t->literal ? (memcpy(buf + len, t->text.ptr, t->text.len), t->text.len)
                          : jsonstr_unescape(t->text.ptr, t->text.len, buf + len,
                                             sizeof(buf) - 1 - len, NULL);
    }
    buf[len] = '\0';
    return buf;
}

static enum response_parse_status parse(enum endpoint_type t, const char *field,
                                        struct response_parse_state *st, const char *body,
                                        struct response_chunk *out)
{
    struct response_reader r;
    char err[256] = "";
    cr_assert_eq(response_reader_init(&r, t, field, err, sizeof(err)), 0, "%s: %s", field, err);
    enum response_parse_status s = response_parse_event(&r, st, NULL, 0, body, strlen(body), out);
    response_reader_release(&r);
    return s;
}

Test(response_field, names_compare_decoded_on_both_sides)
{
    for (size_t i = 0; i < sizeof(NAMES) / sizeof(NAMES[0]); i++) {
        const struct name_case *nc = &NAMES[i];
        struct response_chunk c;
        cr_assert_eq(parse(ENDPOINT_RAW, nc->field, NULL, nc->body, &c), RESPONSE_PARSE_OK,
                     "case %zu", i);
        cr_assert_str_eq(texts(&c), nc->want, "case %zu: %s", i, nc->field);
        /* template takes nothing after a miss. */
        bool hit = strcmp(nc->want, "hit") == 0;
        cr_assert_eq(parse(ENDPOINT_TEMPLATE, nc->field, NULL, nc->body, &c),
                     hit ? RESPONSE_PARSE_OK : RESPONSE_PARSE_IGNORED, "case %zu", i);
        cr_assert_str_eq(texts(&c), hit ? "hit" : "", "case %zu", i);
    }
}
