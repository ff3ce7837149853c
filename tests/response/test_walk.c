/*
 * test_walk.c - the in-place JSON walk: response_walk_check() gives jansson's verdict on every
 * case of a table of valid and invalid texts (grammar, UTF-8, escapes, number ranges, depth),
 * each placed against a guard page; the walk finds members (the last of repeated ones, escaped
 * names decoded), elements, strings, integers and value ends.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "tests/support/guard.h"
#include "response/response_walk.h"

struct check_case {
    const char *text;
    size_t len; /* 0: strlen(text) */
    bool ok;
};

static const struct check_case CHECK[] = {
    {"{}", 0, true},
    {" [ ] ", 0, true},
    {"\"s\"", 0, true},
    {"0", 0, true},
    {"-0.5e+3", 0, true},
    {"true", 0, true},
    {"null", 0, true},
    {"{\"a\":[1,{\"b\":null}],\"c\":\"\\n\\u00e9\\ud83d\\ude00\"}", 0, true},
    {"{\"a\":\"x\\u0000y\"}", 0, true}, /* NUL allowed in values */
    {"{\"a\\u0000\":1}", 0, false},     /* ... not in names */
    {"\"\\ud83d\"", 0, false},          /* lone high surrogate */
    {"\"\\ude00\"", 0, false},          /* lone low surrogate */
    {"\"\\ud83d\\n\"", 0, false},
    {"\"\\ud83d\\u0041\"", 0, false},
    {"\"\xc3\xa9\"", 0, true},
    {"\"\xf0\x9f\x98\x80\"", 0, true},
    {"\"\xc3\"", 0, false},             /* cut sequence */
    {"\"\xc0\xaf\"", 0, false},         /* overlong */
    {"\"\xe0\x80\xaf\"", 0, false},     /* overlong */
    {"\"\xed\xa0\x80\"", 0, false},     /* encoded surrogate */
    {"\"\xf4\x90\x80\x80\"", 0, false}, /* past U+10FFFF */
    {"\"\xff\"", 0, false},
    {"[\"abcdefgh\xff\"]", 0, false},
    {"9223372036854775807", 0, true},
    {"-9223372036854775808", 0, true},
    {"9223372036854775808", 0, false},
    {"-9223372036854775809", 0, false},
    {"1e308", 0, true},
    {"1e309", 0, false},
    {"-1e309", 0, false},
    {"1e-400", 0, true}, /* underflow is fine */
    {"0.0000000000000000000000000000001e320", 0, true},
    {"17976931348623157e292", 0, true},
    {"17976931348623159e292", 0, false},
    {"0e99999999999999999999", 0, true},
    {"1e99999999999999999999", 0, false},
    {"", 0, false},
    {"  ", 0, false},
    {"{", 0, false},
    {"{\"a\"}", 0, false},
    {"{\"a\":}", 0, false},
    {"{\"a\":1,}", 0, false},
    {"[1,]", 0, false},
    {"[1 2]", 0, false},
    {"{1:2}", 0, false},
    {"[01]", 0, false},
    {"[1.]", 0, false},
    {"[-]", 0, false},
    {"[tru]", 0, false},
    {"[True]", 0, false},
    {"\"a\tb\"", 0, false},
    {"\"\\x\"", 0, false},
    {"\"\\u12g4\"", 0, false},
    {"{} x", 0, false},
    {"{}{}", 0, false},
    {"[1]]", 0, false},
    {"{]", 0, false},
    {"[\"a\0b\"]", 7, false},
    {"[1]\0", 4, false},
};

static bool jansson_ok(const char *text, size_t len)
{
    json_t *j = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
    json_decref(j);
    return j != NULL;
}

Test(response_walk, check_matches_jansson)
{
    struct guard_region g;
    guard_init(&g, 4096);
    for (size_t i = 0; i < sizeof(CHECK) / sizeof(CHECK[0]); i++) {
        const struct check_case *c = &CHECK[i];
        size_t len = c->len != 0 ? c->len : strlen(c->text);
        cr_assert_eq(jansson_ok(c->text, len), c->ok, "case %zu: the table disagrees with jansson",
                     i);
        const char *at = guard_place(&g, c->text, len);
        struct response_str text = {at, len};
        cr_expect_eq(response_walk_check(text), c->ok, "case %zu: %s", i, c->text);
    }
    guard_free(&g);
}

/* nest writes `depth` arrays around a 0 (or nothing) into buf and returns its length. */
static size_t nest(char *buf, size_t depth, bool scalar)
{
    size_t n = 0;
    for (size_t i = 0; i < depth; i++) {
        buf[n++] = '[';
    }
    if (scalar) {
        buf[n++] = '0';
    }
    for (size_t i = 0; i < depth; i++) {
        buf[n++] = ']';
    }
    return n;
}

Test(response_walk, depth_as_jansson)
{
    static char buf[2 * RESPONSE_WALK_DEPTH_MAX + 8];
    const size_t depths[] = {RESPONSE_WALK_DEPTH_MAX - 1, RESPONSE_WALK_DEPTH_MAX,
                             RESPONSE_WALK_DEPTH_MAX + 1};
    for (size_t i = 0; i < 3; i++) {
        for (int scalar = 0; scalar < 2; scalar++) {
            size_t n = nest(buf, depths[i], scalar);
            struct response_str text = {buf, n};
            cr_expect_eq(response_walk_check(text), jansson_ok(buf, n), "depth %zu scalar %d",
                         depths[i], scalar);
        }
    }
    size_t n = nest(buf, RESPONSE_WALK_DEPTH_MAX, false);
    cr_expect(response_walk_check((struct response_str){buf, n}));
    n = nest(buf, RESPONSE_WALK_DEPTH_MAX, true);
    cr_expect_not(response_walk_check((struct response_str){buf, n}));
}

static struct response_str checked(const char *s)
{
    struct response_str text = {s, strlen(s)};
    cr_assert(response_walk_check(text), "not valid: %s", s);
    return text;
}

static bool raw_is(struct response_str raw, const char *want)
{
    return raw.len == strlen(want) && memcmp(raw.ptr, want, raw.len) == 0;
}

Test(response_walk, members_last_wins_and_escaped_names)
{
    struct response_str t =
        checked(" {\"a\":1, \"b\" : {\"x\":[1,\"}\"]} ,\"a\":\"two\",\"m\\u006fdel\":\"m\"} ");
    size_t root = response_walk_root(t);
    cr_assert_eq(response_walk_type(t, root), RESPONSE_WALK_OBJECT);
    struct response_str raw;
    cr_assert(response_walk_string(t, response_walk_get(t, root, "a"), &raw));
    cr_expect(raw_is(raw, "two"));
    cr_assert(response_walk_string(t, response_walk_get(t, root, "model"), &raw));
    cr_expect(raw_is(raw, "m"));
    cr_expect_eq(response_walk_get(t, root, "mod"), RESPONSE_WALK_NONE);
    size_t b = response_walk_get(t, root, "b");
    size_t x = response_walk_get(t, b, "x");
    cr_expect_eq(response_walk_type(t, x), RESPONSE_WALK_ARRAY);
    cr_expect_eq(response_walk_count(t, x), 2);
    cr_expect_eq(response_walk_count(t, root), 4);
    cr_expect_eq(response_walk_end(t, b), (size_t)(strstr(t.ptr, "} ,") - t.ptr) + 1);
    cr_expect_eq(response_walk_end(t, root), t.len - 1);
    /* Lookups chain through absent values and values of other types. */
    cr_expect_eq(response_walk_get(t, RESPONSE_WALK_NONE, "a"), RESPONSE_WALK_NONE);
    cr_expect_eq(response_walk_get(t, x, "a"), RESPONSE_WALK_NONE);
    cr_expect_eq(response_walk_count(t, RESPONSE_WALK_NONE), 0);
    cr_expect_eq(response_walk_type(t, RESPONSE_WALK_NONE), RESPONSE_WALK_ABSENT);
    cr_expect_eq(response_walk_end(t, RESPONSE_WALK_NONE), RESPONSE_WALK_NONE);
}

Test(response_walk, members_in_one_walk)
{
    struct response_str t = checked("{\"k\":1,\"kk\":2,\"\":3,\"k\":4}");
    const struct response_walk_key keys[] = {RESPONSE_WALK_KEY("k"), RESPONSE_WALK_KEY("kk"),
                                             RESPONSE_WALK_KEY("z")};
    size_t out[3];
    response_walk_members(t, 0, keys, 3, out);
    int64_t v = 0;
    cr_expect(response_walk_int(t, out[0], &v) && v == 4);
    cr_expect(response_walk_int(t, out[1], &v) && v == 2);
    cr_expect_eq(out[2], RESPONSE_WALK_NONE);
    response_walk_members(t, 3, keys, 3, out); /* the value 1: not an object */
    cr_expect_eq(out[0], RESPONSE_WALK_NONE);
}

Test(response_walk, elements_of_every_type)
{
    struct response_str t =
        checked("[\"a\\\"b\\\\\",-12,1.5,2e3,true,false,null,{\"q\":[]},[[]],\"\\\\\"]");
    struct response_walk_iter it;
    size_t v;
    struct response_str key = {"x", 1};
    enum response_walk_type types[16];
    size_t n = 0;
    response_walk_iter_init(&it, t, 0);
    while (response_walk_iter_next(&it, &key, &v)) {
        cr_expect_eq(key.len, 0);
        types[n++] = response_walk_type(t, v);
    }
    cr_expect_not(response_walk_iter_next(&it, &key, &v));
    const enum response_walk_type want[] = {
        RESPONSE_WALK_STRING, RESPONSE_WALK_NUMBER, RESPONSE_WALK_NUMBER, RESPONSE_WALK_NUMBER,
        RESPONSE_WALK_BOOL,   RESPONSE_WALK_BOOL,   RESPONSE_WALK_NULL,   RESPONSE_WALK_OBJECT,
        RESPONSE_WALK_ARRAY,  RESPONSE_WALK_STRING,
    };
    cr_assert_eq(n, sizeof(want) / sizeof(want[0]));
    for (size_t i = 0; i < n; i++) {
        cr_expect_eq(types[i], want[i], "element %zu", i);
    }
    struct response_str raw;
    cr_assert(response_walk_string(t, 1, &raw));
    cr_expect(raw_is(raw, "a\\\"b\\\\"));
    int64_t i64 = 0;
    size_t second = (size_t)(strstr(t.ptr, "-12") - t.ptr);
    cr_expect(response_walk_int(t, second, &i64) && i64 == -12);
    cr_expect_not(response_walk_int(t, second + 4, &i64)); /* 1.5 */
    cr_expect_not(response_walk_int(t, second + 8, &i64)); /* 2e3 */
    cr_expect_not(response_walk_string(t, second, &raw));
    size_t last = (size_t)(strrchr(t.ptr, ',') - t.ptr) + 1;
    cr_assert(response_walk_string(t, last, &raw));
    cr_expect(raw_is(raw, "\\\\"));
    cr_expect(response_walk_is_true(t, (size_t)(strstr(t.ptr, "true") - t.ptr)));
    cr_expect_not(response_walk_is_true(t, (size_t)(strstr(t.ptr, "false") - t.ptr)));
}

Test(response_walk, int_limits)
{
    struct response_str t = checked("[9223372036854775807,-9223372036854775808,-0]");
    int64_t v = 0;
    cr_expect(response_walk_int(t, 1, &v) && v == INT64_MAX);
    cr_expect(response_walk_int(t, 21, &v) && v == INT64_MIN);
    cr_expect(response_walk_int(t, 42, &v) && v == 0);
}

Test(response_walk, non_containers_walk_empty)
{
    struct response_str t = checked("[\"s\",{}]");
    struct response_walk_iter it;
    size_t v;
    response_walk_iter_init(&it, t, 1);
    cr_expect_not(response_walk_iter_next(&it, NULL, &v));
    response_walk_iter_init(&it, t, RESPONSE_WALK_NONE);
    cr_expect_not(response_walk_iter_next(&it, NULL, &v));
    response_walk_iter_init(&it, t, 5);
    cr_expect_not(response_walk_iter_next(&it, NULL, &v));
}

Test(response_walk, escaped_names)
{
    struct response_str plain = {"text", 4};
    struct response_str esc = {"t\\u0065xt", 9};
    struct response_str longer = {"t\\u0065xts", 10};
    cr_expect(response_walk_key_is(plain, "text", 4));
    cr_expect(response_walk_key_is(esc, "text", 4));
    cr_expect_not(response_walk_key_is(longer, "text", 4));
    cr_expect_not(response_walk_key_is(esc, "tex", 3));
}
