#include <criterion/criterion.h>

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "http/http.h"
#include "tests/support/guard.h"
#include "tests/http/rfc_bytes.h"

#define HDR(n, v)                                                                                  \
    {                                                                                              \
        .name = n, .name_len = sizeof(n) - 1, .value = v, .value_len = sizeof(v) - 1               \
    }

static const struct http_header chat_extras[] = {
    HDR("X-Request-ID", "0b7f"),
    HDR("X-Correlation-ID", "c-1"),
};

static struct http_request_head chat_head(void)
{
    struct http_request_head head = {
        .method = "POST",
        .path = "/v1/chat/completions",
        .host = "localhost:8000",
        .content_type = "application/json",
        .content_length = 42,
        .accept = "text/event-stream",
        .user_agent = "ringperf/0.1.0",
        .authorization = "Bearer sk-test",
        .extra_headers = chat_extras,
        .extra_header_count = 2,
    };
    return head;
}

static const char chat_expected[] = "POST /v1/chat/completions HTTP/1.1\r\n"
                                    "Host: localhost:8000\r\n"
                                    "User-Agent: ringperf/0.1.0\r\n"
                                    "Accept: text/event-stream\r\n"
                                    "Authorization: Bearer sk-test\r\n"
                                    "Content-Type: application/json\r\n"
                                    "Content-Length: 42\r\n"
                                    "X-Request-ID: 0b7f\r\n"
                                    "X-Correlation-ID: c-1\r\n"
                                    "\r\n";

static void expect_bytes(const struct http_request_head *head, const char *expected)
{
    char buf[1024];
    size_t n = strlen(expected);
    ssize_t got = http_request_head_write(buf, sizeof(buf), head);
    cr_assert_eq(got, (ssize_t)n, "wrote %zd bytes, expected %zu", got, n);
    cr_assert_eq(memcmp(buf, expected, n), 0, "got:\n%.*s", (int)n, buf);
    cr_assert_eq(http_request_head_size(head), (ssize_t)n);
}

Test(http_request, writes_chat_request_exactly)
{
    struct http_request_head head = chat_head();
    expect_bytes(&head, chat_expected);
}

Test(http_request, minimal_get_has_only_host)
{
    struct http_request_head head = {.method = "GET", .path = "/v1/models", .host = "h:1"};
    expect_bytes(&head, "GET /v1/models HTTP/1.1\r\nHost: h:1\r\n\r\n");
}

Test(http_request, post_without_content_sends_zero_length)
{
    struct http_request_head head = {.method = "POST", .path = "/", .host = "h"};
    expect_bytes(&head, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n");
    head.method = "PUT";
    expect_bytes(&head, "PUT / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n");
    head.method = "PATCH";
    expect_bytes(&head, "PATCH / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n");
}

Test(http_request, any_method_with_content_sends_length)
{
    struct http_request_head head = {
        .method = "DELETE", .path = "/x", .host = "h", .content_length = 7};
    expect_bytes(&head, "DELETE /x HTTP/1.1\r\nHost: h\r\nContent-Length: 7\r\n\r\n");
}

Test(http_request, largest_content_length_is_formatted)
{
    struct http_request_head head = {
        .method = "POST", .path = "/", .host = "h", .content_length = SIZE_MAX};
    expect_bytes(&head,
                 "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 18446744073709551615\r\n\r\n");
}

Test(http_request, extra_headers_keep_order_and_allow_tab_and_obs_text)
{
    static const struct http_header extras[] = {
        HDR("Connection", "close"),
        HDR("x-note", "a\tb caf\xc3\xa9"),
        HDR("X-Empty", ""),
    };
    struct http_request_head head = {.method = "GET",
                                     .path = "/?q=1",
                                     .host = "[::1]:80",
                                     .extra_headers = extras,
                                     .extra_header_count = 3};
    expect_bytes(&head, "GET /?q=1 HTTP/1.1\r\nHost: [::1]:80\r\nConnection: close\r\n"
                        "x-note: a\tb caf\xc3\xa9\r\nX-Empty: \r\n\r\n");
}

/* Every cap short of the exact size fails with -ENOSPC, with the buffer's end on a guard page
 * so a single byte written past cap crashes; the exact size succeeds. */
Test(http_request, every_short_buffer_is_enospc_without_overflow)
{
    struct http_request_head head = chat_head();
    size_t need = strlen(chat_expected);
    cr_assert_eq(http_request_head_size(&head), (ssize_t)need);
    struct guard_region g = {0};
    guard_init(&g, need);
    for (size_t cap = 0; cap < need; cap++) {
        cr_assert_eq(http_request_head_write(guard_end(&g, cap), cap, &head), -ENOSPC, "cap %zu",
                     cap);
    }
    char *buf = guard_end(&g, need);
    cr_assert_eq(http_request_head_write(buf, need, &head), (ssize_t)need);
    cr_assert_eq(memcmp(buf, chat_expected, need), 0);
    guard_free(&g);
}

Test(http_request, null_buffer_with_zero_cap_is_enospc)
{
    struct http_request_head head = chat_head();
    cr_assert_eq(http_request_head_write(NULL, 0, &head), -ENOSPC);
}

enum field { F_METHOD, F_PATH, F_HOST, F_CTYPE, F_ACCEPT, F_UA, F_AUTH };

struct bad_string_case {
    enum field field;
    const char *value;
};

static const struct bad_string_case bad_strings[] = {
    {F_METHOD, ""},
    {F_METHOD, NULL},
    {F_METHOD, "PO ST"},
    {F_METHOD, "POST\r\nX: y"},
    {F_METHOD, "GET/"},
    {F_PATH, ""},
    {F_PATH, NULL},
    {F_PATH, "/a b"},
    {F_PATH, "/a\r\nX-Injected: 1"},
    {F_PATH, "/a\nb"},
    {F_PATH, "/a\tb"},
    {F_PATH, "/a\x7f"},
    {F_HOST, ""},
    {F_HOST, NULL},
    {F_HOST, "h\r\nX: y"},
    {F_HOST, "h x"},
    {F_CTYPE, "application/json\r\nX-Injected: 1"},
    {F_CTYPE, "a\nb"},
    {F_ACCEPT, "a\rb"},
    {F_ACCEPT, "a\x01"},
    {F_UA, "ua\x7f"},
    {F_UA, "ua\r\n"},
    {F_AUTH, "Bearer x\r\n\r\nGET / HTTP/1.1"},
    {F_AUTH, "Bearer \x1b"},
};

static void set_field(struct http_request_head *head, enum field f, const char *v)
{
    switch (f) {
    case F_METHOD:
        head->method = v;
        break;
    case F_PATH:
        head->path = v;
        break;
    case F_HOST:
        head->host = v;
        break;
    case F_CTYPE:
        head->content_type = v;
        break;
    case F_ACCEPT:
        head->accept = v;
        break;
    case F_UA:
        head->user_agent = v;
        break;
    case F_AUTH:
        head->authorization = v;
        break;
    }
}

/* -EINVAL comes before any write and regardless of cap. */
static void expect_einval(const struct http_request_head *head, const char *what)
{
    char buf[512];
    memset(buf, 'Z', sizeof(buf));
    cr_assert_eq(http_request_head_write(buf, sizeof(buf), head), -EINVAL, "%s", what);
    cr_assert_eq(http_request_head_write(NULL, 0, head), -EINVAL, "%s", what);
    cr_assert_eq(http_request_head_size(head), -EINVAL, "%s", what);
    for (size_t i = 0; i < sizeof(buf); i++) {
        cr_assert_eq(buf[i], 'Z', "%s: byte %zu written", what, i);
    }
}

Test(http_request, rejects_invalid_or_injecting_strings)
{
    for (size_t i = 0; i < sizeof(bad_strings) / sizeof(bad_strings[0]); i++) {
        struct http_request_head head = chat_head();
        set_field(&head, bad_strings[i].field, bad_strings[i].value);
        char what[64];
        snprintf(what, sizeof(what), "bad_strings[%zu]", i);
        expect_einval(&head, what);
    }
}

static const struct http_header bad_extras[] = {
    HDR("X-A", "v\r\nX-Injected: 1"),
    HDR("X-A", "v\n"),
    HDR("X-A", "v\r"),
    HDR("X-A", "a\0b"),
    HDR("X-A", "\x7f"),
    HDR("", "v"),
    HDR("X A", "v"),
    HDR("X-A:", "v"),
    HDR("X-A\r\nY", "v"),
    HDR("X\0A", "v"),
    HDR("X(A)", "v"),
    HDR("Host", "evil"),
    HDR("HOST", "evil"),
    HDR("content-length", "0"),
    HDR("Transfer-Encoding", "chunked"),
};

Test(http_request, rejects_invalid_extra_headers)
{
    for (size_t i = 0; i < sizeof(bad_extras) / sizeof(bad_extras[0]); i++) {
        struct http_header extras[2] = {HDR("X-Ok", "fine"), bad_extras[i]};
        struct http_request_head head = chat_head();
        head.extra_headers = extras;
        head.extra_header_count = 2;
        char what[64];
        snprintf(what, sizeof(what), "bad_extras[%zu]", i);
        expect_einval(&head, what);
    }
}

Test(http_request, rejects_null_head_and_null_extra_array)
{
    cr_assert_eq(http_request_head_write(NULL, 0, NULL), -EINVAL);
    cr_assert_eq(http_request_head_size(NULL), -EINVAL);
    struct http_request_head head = chat_head();
    head.extra_headers = NULL;
    expect_einval(&head, "null extras with count 2");
    struct http_header no_name = {.name = NULL, .name_len = 0, .value = "v", .value_len = 1};
    head.extra_headers = &no_name;
    head.extra_header_count = 1;
    expect_einval(&head, "null extra name");
}

/* A prefix written once and finished per request gives the same bytes as a whole head whose
 * extra headers are the fixed ones followed by the per-request ones, after Content-Length. */
Test(http_request, prefix_then_finish_writes_each_request)
{
    static const struct http_header fixed[] = {HDR("X-Fixed", "f")};
    struct http_request_head head = chat_head();
    head.extra_headers = fixed;
    head.extra_header_count = 1;
    char prefix_buf[256];
    struct http_request_prefix prefix;
    ssize_t prefix_len = http_request_prefix_write(prefix_buf, sizeof(prefix_buf), &head, &prefix);
    cr_assert_gt(prefix_len, 0);
    cr_assert_eq(prefix.bytes, prefix_buf);
    cr_assert_eq(prefix.len, (size_t)prefix_len);
    static const char expected[] = "POST /v1/chat/completions HTTP/1.1\r\n"
                                   "Host: localhost:8000\r\n"
                                   "User-Agent: ringperf/0.1.0\r\n"
                                   "Accept: text/event-stream\r\n"
                                   "Authorization: Bearer sk-test\r\n"
                                   "Content-Type: application/json\r\n"
                                   "X-Fixed: f\r\n"
                                   "Content-Length: %zu\r\n"
                                   "X-Request-ID: %s\r\n"
                                   "\r\n";
    const char *ids[] = {"0", "1b", "ffff"};
    for (size_t i = 0; i < 3; i++) {
        struct http_header per_request[] = {
            {.name = "X-Request-ID", .name_len = 12, .value = ids[i], .value_len = strlen(ids[i])},
        };
        char want[512];
        int want_len = snprintf(want, sizeof(want), expected, i * 1000, ids[i]);
        char buf[512];
        ssize_t got = http_request_head_finish(buf, sizeof(buf), &prefix, i * 1000, per_request, 1);
        cr_assert_eq(got, want_len);
        cr_assert_eq(memcmp(buf, want, (size_t)want_len), 0, "got:\n%.*s", (int)got, buf);
        /* Finishing in the prefix's own buffer leaves the prefix in place for the next one. */
        got = http_request_head_finish(prefix_buf, sizeof(prefix_buf), &prefix, i * 1000,
                                       per_request, 1);
        cr_assert_eq(got, want_len);
        cr_assert_eq(memcmp(prefix_buf, want, (size_t)want_len), 0);
    }
}

Test(http_request, finish_sends_content_length_as_the_method_wants)
{
    struct http_request_head get = {.method = "GET", .path = "/v1/models", .host = "h"};
    char buf[128];
    struct http_request_prefix prefix;
    cr_assert_gt(http_request_prefix_write(buf, sizeof(buf), &get, &prefix), 0);
    char out[128];
    ssize_t n = http_request_head_finish(out, sizeof(out), &prefix, 0, NULL, 0);
    cr_assert_eq(n, (ssize_t)strlen("GET /v1/models HTTP/1.1\r\nHost: h\r\n\r\n"));
    cr_assert_eq(memcmp(out, "GET /v1/models HTTP/1.1\r\nHost: h\r\n\r\n", (size_t)n), 0);
    struct http_request_head post = {.method = "POST", .path = "/", .host = "h"};
    cr_assert_gt(http_request_prefix_write(buf, sizeof(buf), &post, &prefix), 0);
    n = http_request_head_finish(out, sizeof(out), &prefix, 0, NULL, 0);
    cr_assert_eq(n, (ssize_t)strlen("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n"));
    cr_assert_eq(memcmp(out, "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n", (size_t)n),
                 0);
}

/* The per-request headers are validated on every finish, like any extra header. */
Test(http_request, finish_rejects_invalid_per_request_headers)
{
    struct http_request_head head = chat_head();
    char buf[512];
    struct http_request_prefix prefix;
    cr_assert_gt(http_request_prefix_write(buf, sizeof(buf), &head, &prefix), 0);
    for (size_t i = 0; i < sizeof(bad_extras) / sizeof(bad_extras[0]); i++) {
        char out[512];
        cr_assert_eq(http_request_head_finish(out, sizeof(out), &prefix, 1, &bad_extras[i], 1),
                     -EINVAL, "bad_extras[%zu]", i);
    }
    cr_assert_eq(http_request_head_finish(buf, sizeof(buf), &prefix, 1, NULL, 1), -EINVAL);
    cr_assert_eq(http_request_head_finish(buf, sizeof(buf), NULL, 1, NULL, 0), -EINVAL);
}

/* Every cap short of the finished head's size is -ENOSPC without a byte past cap; the prefix
 * itself is -ENOSPC in a buffer too small for it, and -EINVAL under the whole head's rules. */
Test(http_request, prefix_and_finish_respect_the_buffer)
{
    struct http_request_head head = chat_head();
    char prefix_buf[512];
    struct http_request_prefix prefix;
    ssize_t prefix_len = http_request_prefix_write(prefix_buf, sizeof(prefix_buf), &head, &prefix);
    cr_assert_gt(prefix_len, 0);
    char tiny[8];
    struct http_request_prefix unused;
    cr_assert_eq(http_request_prefix_write(tiny, sizeof(tiny), &head, &unused), -ENOSPC);
    struct http_request_head bad = chat_head();
    bad.host = "a b";
    cr_assert_eq(http_request_prefix_write(prefix_buf + 300, 200, &bad, &unused), -EINVAL);
    char full[512];
    ssize_t need = http_request_head_finish(full, sizeof(full), &prefix, 42, NULL, 0);
    cr_assert_gt(need, prefix_len);
    struct guard_region g = {0};
    guard_init(&g, (size_t)need);
    for (size_t cap = 0; cap < (size_t)need; cap++) {
        cr_assert_eq(http_request_head_finish(guard_end(&g, cap), cap, &prefix, 42, NULL, 0),
                     -ENOSPC, "cap %zu", cap);
    }
    char *buf = guard_end(&g, (size_t)need);
    cr_assert_eq(http_request_head_finish(buf, (size_t)need, &prefix, 42, NULL, 0), need);
    cr_assert_eq(memcmp(buf, full, (size_t)need), 0);
    guard_free(&g);
}

static bool extra_header_accepted(const char *name, size_t name_len, const char *value,
                                  size_t value_len)
{
    struct http_header extra = {
        .name = name, .name_len = name_len, .value = value, .value_len = value_len};
    struct http_request_head head = chat_head();
    head.extra_headers = &extra;
    head.extra_header_count = 1;
    return http_request_head_size(&head) > 0;
}

/* Every byte value, as part of a header name and at each position of values of 1 to 19
 * bytes: a value is checked eight bytes at a time, and the byte must be seen in the first
 * word, a later word and the tail alike. */
Test(http_request, every_byte_is_classified_in_names_and_values)
{
    for (int c = 0; c < 256; c++) {
        char name[] = "X-a?";
        name[3] = (char)c;
        cr_assert_eq(extra_header_accepted(name, 4, "v", 1), rfc_tchar(c), "name byte %d", c);
        for (size_t len = 1; len < 20; len++) {
            for (size_t at = 0; at < len; at++) {
                char value[20];
                memset(value, 'v', sizeof(value));
                value[at] = (char)c;
                cr_assert_eq(extra_header_accepted("X-A", 3, value, len), rfc_field_char(c),
                             "value byte %d at %zu of %zu", c, at, len);
            }
        }
    }
}
