/*
 * test_field.c - response_field on raw and template responses: member names compared after
 * decoding on both sides (a quoted identifier's escapes and the response's), and searches whose
 * lists outgrow the stack's RESPONSE_FIELD_VALUES_MAX values, which take the scratch's room or
 * fail the request with a message that says why; never a silent miss.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "response/response.h"
#include "tests/support/response_fixture.h"

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

/* big_body is {"a":[n objects {"t":"x","n":1}, the last {"t":"y","n":2}],"text":"auto"}. */
static char *big_body(int n)
{
    size_t cap = (size_t)n * 24 + 64;
    char *b = malloc(cap);
    cr_assert_not_null(b);
    size_t len = (size_t)snprintf(b, cap, "{\"a\":[");
    for (int i = 0; i < n; i++) {
        bool last = i == n - 1;
        len += (size_t)snprintf(b + len, cap - len, "%s{\"t\":\"%s\",\"n\":%d}", i ? "," : "",
                                last ? "y" : "x", last ? 2 : 1);
    }
    snprintf(b + len, cap - len, "],\"text\":\"auto\"}");
    return b;
}

/* Past the stack's room the search takes the scratch's, grown as far as it needs (each step of
 * these makes a list of every element) and kept for the next response. */
Test(response_field, a_search_past_the_stack_room_takes_the_scratch)
{
    static const struct {
        const char *field;
        const char *want;
    } cases[] = {
        {"a[*].t | [-1]", "y"},
        {"a[*].t | [0]", "x"},
        {"a[].t | [-1]", "y"},
        {"a[*] | [*] | [*] | [::-1] | [*].t | [0]", "y"},
        /* A list of strings: AIPerf converts nothing, raw auto-detects. */
        {"a[*].t", "auto"},
    };
    char *body = big_body(4 * RESPONSE_FIELD_VALUES_MAX + 3);
    struct response_parse_state st = {.scratch = response_scratch_new(64)};
    cr_assert_not_null(st.scratch);
    for (int round = 0; round < 2; round++) {
        for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
            struct response_chunk c;
            cr_assert_eq(parse(ENDPOINT_RAW, cases[i].field, &st, body, &c), RESPONSE_PARSE_OK,
                         "%s", cases[i].field);
            cr_assert_str_eq(texts(&c), cases[i].want, "%s", cases[i].field);
        }
    }
    struct response_chunk c;
    cr_assert_eq(parse(ENDPOINT_TEMPLATE, "a[*].n", &st, body, &c), RESPONSE_PARSE_OK);
    cr_assert_eq(c.embedding_count, 1, "a list of numbers is one embedding");
    response_scratch_free(st.scratch);
    free(body);
}

/* Without a scratch the stack's room is all there is (a body of at most RESPONSE_JSON_TOKENS_MAX
 * tokens, whose three steps of 200 values need 600): a search that needs more fails the payload,
 * and the request, with a message naming the limit. */
Test(response_field, a_search_past_every_room_fails_the_request_and_says_why)
{
    static const char deep[] = "a[*] | [*] | [*].t | [0]";
    char *body = big_body(200);
    struct response_chunk c;
    cr_assert_eq(parse(ENDPOINT_RAW, deep, NULL, body, &c), RESPONSE_PARSE_ERR_FIELD_VALUES);
    cr_assert_eq(parse(ENDPOINT_TEMPLATE, deep, NULL, body, &c), RESPONSE_PARSE_ERR_FIELD_VALUES);
    /* Two steps (400 values) fit. */
    cr_assert_eq(parse(ENDPOINT_RAW, "a[*] | [*].t | [-1]", NULL, body, &c), RESPONSE_PARSE_OK);
    cr_assert_str_eq(texts(&c), "y");

    struct response_fixture f;
    cr_assert_eq(response_fixture_init(&f, ENDPOINT_RAW, RESPONSE_FIXTURE_EVENTS), 0);
    cr_assert_eq(response_reader_init(&f.reader, ENDPOINT_RAW, deep, NULL, 0), 0);
    cr_assert_eq(
        response_read_body(&f.reader, &f.state, &f.limits, body, strlen(body), 10, &f.rec, &f.fail),
        RESPONSE_STEP_FAILED);
    cr_assert_str_eq(f.fail.type, "ResponseParseError");
    cr_assert_not_null(strstr(f.fail.message, "--extra-inputs response_field: the search makes "
                                              "more list values"),
                       "%s", f.fail.message);
    cr_assert_not_null(strstr(f.fail.message, "narrow the expression"), "%s", f.fail.message);
    cr_assert_eq(f.rec.text_len, 0);
    response_reader_release(&f.reader);
    free(body);
}

/* The scratch's room has a hard cap: five steps over 250,000 elements need 1.25M values, past
 * RESPONSE_FIELD_VALUES_SCRATCH_MAX, and fail; four steps (1M) fit. */
Test(response_field, the_scratch_room_stops_at_its_cap, .timeout = 60)
{
    char *body = big_body(250000);
    struct response_parse_state st = {.scratch = response_scratch_new(64)};
    cr_assert_not_null(st.scratch);
    struct response_chunk c;
    cr_assert_eq(parse(ENDPOINT_RAW, "a[*] | [*] | [*] | [*] | [*].t | [-1]", &st, body, &c),
                 RESPONSE_PARSE_ERR_FIELD_VALUES);
    cr_assert_eq(parse(ENDPOINT_RAW, "a[*] | [*] | [*] | [*].t | [-1]", &st, body, &c),
                 RESPONSE_PARSE_OK);
    cr_assert_str_eq(texts(&c), "y");
    response_scratch_free(st.scratch);
    free(body);
}
