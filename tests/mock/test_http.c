/*
 * test_http.c - the mock server's HTTP/1.1 request parser: valid requests whole, byte by byte
 * and at every split; invalid inputs with the status each must produce; no over-read past the
 * input (guard page).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "mock/mock_internal.h"
#include "tests/support/guard.h"

#define BODY_MAX 1024

struct valid_case {
    const char *raw;
    const char *method;
    const char *path;
    int minor;
    bool keep_alive;
    const char *request_id; /* NULL = none */
    const char *body;
};

static const struct valid_case VALID[] = {
    {"GET /health HTTP/1.1\r\n\r\n", "GET", "/health", 1, true, NULL, ""},
    {"GET /v1/models?x=1&y HTTP/1.1\r\nHost: a\r\n\r\n", "GET", "/v1/models", 1, true, NULL, ""},
    {"POST /v1/completions HTTP/1.1\r\nContent-Length: 4\r\n\r\nabcd", "POST", "/v1/completions", 1,
     true, NULL, "abcd"},
    {"POST /x HTTP/1.1\r\ncontent-length:  2 \r\nX-Request-ID: id-7\r\n\r\n{}", "POST", "/x", 1,
     true, "id-7", "{}"},
    {"GET / HTTP/1.1\r\nConnection: keep-alive, Close\r\n\r\n", "GET", "/", 1, false, NULL, ""},
    {"GET / HTTP/1.0\r\n\r\n", "GET", "/", 0, false, NULL, ""},
    {"GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n", "GET", "/", 0, true, NULL, ""},
    {"GET /lf HTTP/1.1\nHost: a\n\n", "GET", "/lf", 1, true, NULL, ""},
    {"\r\n\r\nGET /after-crlf HTTP/1.1\r\n\r\n", "GET", "/after-crlf", 1, true, NULL, ""},
    {"POST /dup HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nz", "POST", "/dup", 1,
     true, NULL, "z"},
    {"POST /zero HTTP/1.1\r\nContent-Length: 0\r\n\r\n", "POST", "/zero", 1, true, NULL, ""},
};

struct invalid_case {
    const char *raw;
    enum mock__req_status status;
};

static const struct invalid_case INVALID[] = {
    {"GARBAGE\r\n\r\n", MOCK__REQ_BAD},
    {" GET / HTTP/1.1\r\n\r\n", MOCK__REQ_BAD},
    {"GET  / HTTP/1.1\r\n\r\n", MOCK__REQ_BAD},
    {"GET noslash HTTP/1.1\r\n\r\n", MOCK__REQ_BAD},
    {"GET / HTTP/1.1 \r\n\r\n", MOCK__REQ_BAD},
    {"GET / HTTX/1.1\r\n\r\n", MOCK__REQ_BAD},
    {"GET / HTTP/2.0\r\n\r\n", MOCK__REQ_VERSION_NOT_SUPPORTED},
    {"GET / HTTP/1.2\r\n\r\n", MOCK__REQ_VERSION_NOT_SUPPORTED},
    {"VERYLONGMETHODNAMEXX / HTTP/1.1\r\n\r\n", MOCK__REQ_BAD},
    {"GET / HTTP/1.1\r\nNo colon\r\n\r\n", MOCK__REQ_BAD},
    {"GET / HTTP/1.1\r\nName : v\r\n\r\n", MOCK__REQ_BAD},
    {"GET / HTTP/1.1\r\n: v\r\n\r\n", MOCK__REQ_BAD},
    {"GET / HTTP/1.1\r\nA: b\r\n folded\r\n\r\n", MOCK__REQ_BAD},
    {"GET / HTTP/1.1\r\nA: b\x01z\r\n\r\n", MOCK__REQ_BAD},
    {"POST / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", MOCK__REQ_BAD},
    {"POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", MOCK__REQ_BAD},
    {"POST / HTTP/1.1\r\nContent-Length:\r\n\r\n", MOCK__REQ_BAD},
    {"POST / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", MOCK__REQ_BAD},
    {"POST / HTTP/1.1\r\n\r\n", MOCK__REQ_LENGTH_REQUIRED},
    {"PUT / HTTP/1.1\r\n\r\n", MOCK__REQ_LENGTH_REQUIRED},
    {"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n", MOCK__REQ_LENGTH_REQUIRED},
    {"POST / HTTP/1.1\r\nContent-Length: 1025\r\n\r\n", MOCK__REQ_BODY_TOO_LARGE},
    {"POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n",
     MOCK__REQ_BODY_TOO_LARGE},
};

static void check_valid(const struct valid_case *v, const struct mock__request *r, size_t consumed)
{
    cr_assert_eq(consumed, strlen(v->raw), "%s", v->raw);
    cr_assert_eq(r->method_len, strlen(v->method));
    cr_assert_eq(memcmp(r->method, v->method, r->method_len), 0);
    cr_assert_eq(r->path_len, strlen(v->path), "%s", v->raw);
    cr_assert_eq(memcmp(r->path, v->path, r->path_len), 0);
    cr_assert_eq(r->minor_version, v->minor);
    cr_assert_eq(r->keep_alive, v->keep_alive, "%s", v->raw);
    if (v->request_id == NULL) {
        cr_assert_null(r->request_id);
    } else {
        cr_assert_eq(r->request_id_len, strlen(v->request_id));
        cr_assert_eq(memcmp(r->request_id, v->request_id, r->request_id_len), 0);
    }
    cr_assert_eq(r->body_len, strlen(v->body));
    cr_assert_eq(memcmp(r->body, v->body, r->body_len), 0);
}

Test(mock_http, valid_requests_parse_whole)
{
    for (size_t i = 0; i < sizeof(VALID) / sizeof(VALID[0]); i++) {
        struct mock__request r;
        size_t consumed = 0;
        const char *raw = VALID[i].raw;
        cr_assert_eq(mock__request_parse(raw, strlen(raw), BODY_MAX, NULL, &r, &consumed),
                     MOCK__REQ_OK, "%s", raw);
        check_valid(&VALID[i], &r, consumed);
    }
}

Test(mock_http, every_prefix_needs_more)
{
    for (size_t i = 0; i < sizeof(VALID) / sizeof(VALID[0]); i++) {
        const char *raw = VALID[i].raw;
        for (size_t cut = 0; cut < strlen(raw); cut++) {
            struct mock__request r;
            size_t consumed = 99;
            cr_assert_eq(mock__request_parse(raw, cut, BODY_MAX, NULL, &r, &consumed),
                         MOCK__REQ_NEED_MORE, "%s cut at %zu", raw, cut);
            cr_assert_eq(consumed, 0);
            /* Once the header block is in, the whole request's size is known. */
            size_t head = strlen(raw) - strlen(VALID[i].body);
            cr_assert(r.size_needed == 0 || r.size_needed == strlen(raw), "%s cut at %zu", raw,
                      cut);
            cr_assert(cut < head || r.size_needed == strlen(raw), "%s cut at %zu", raw, cut);
        }
    }
}

Test(mock_http, pipelined_requests_parse_one_at_a_time)
{
    const char *two = "GET /a HTTP/1.1\r\n\r\nPOST /b HTTP/1.1\r\nContent-Length: 1\r\n\r\nxGET";
    struct mock__request r;
    size_t consumed = 0;
    size_t len = strlen(two);
    cr_assert_eq(mock__request_parse(two, len, BODY_MAX, NULL, &r, &consumed), MOCK__REQ_OK);
    cr_assert_eq(r.path_len, 2);
    size_t off = consumed;
    cr_assert_eq(mock__request_parse(two + off, len - off, BODY_MAX, NULL, &r, &consumed),
                 MOCK__REQ_OK);
    cr_assert_eq(memcmp(r.path, "/b", 2), 0);
    cr_assert_eq(r.body_len, 1);
    off += consumed;
    cr_assert_eq(mock__request_parse(two + off, len - off, BODY_MAX, NULL, &r, &consumed),
                 MOCK__REQ_NEED_MORE);
}

Test(mock_http, invalid_requests_report_their_status)
{
    for (size_t i = 0; i < sizeof(INVALID) / sizeof(INVALID[0]); i++) {
        struct mock__request r;
        size_t consumed = 0;
        const char *raw = INVALID[i].raw;
        enum mock__req_status st =
            mock__request_parse(raw, strlen(raw), BODY_MAX, NULL, &r, &consumed);
        cr_assert_eq(st, INVALID[i].status, "%s: got %d", raw, st);
        cr_assert_not_null(r.error);
        cr_assert_neq(mock__req_status_code(st), 0);
    }
}

Test(mock_http, header_block_limits)
{
    static char raw[MOCK__HEADER_BYTES_MAX + 64];
    const char *start = "GET / HTTP/1.1\r\nX: ";
    size_t n = strlen(start);
    memcpy(raw, start, n);
    memset(raw + n, 'a', sizeof(raw) - n);
    struct mock__request r;
    size_t consumed = 0;
    cr_assert_eq(mock__request_parse(raw, sizeof(raw), BODY_MAX, NULL, &r, &consumed),
                 MOCK__REQ_HEADERS_TOO_LARGE);
    cr_assert_eq(mock__request_parse(raw, 100, BODY_MAX, NULL, &r, &consumed), MOCK__REQ_NEED_MORE);

    char many[4096];
    size_t len = 0;
    len += (size_t)snprintf(many, sizeof(many), "GET / HTTP/1.1\r\n");
    for (int i = 0; i <= MOCK__HEADERS_MAX; i++) {
        len += (size_t)snprintf(many + len, sizeof(many) - len, "H%d: v\r\n", i);
    }
    len += (size_t)snprintf(many + len, sizeof(many) - len, "\r\n");
    cr_assert_eq(mock__request_parse(many, len, BODY_MAX, NULL, &r, &consumed),
                 MOCK__REQ_HEADERS_TOO_LARGE);

    char id[512];
    int idn = snprintf(id, sizeof(id), "GET / HTTP/1.1\r\nX-Request-ID: %0300d\r\n\r\n", 1);
    cr_assert_eq(mock__request_parse(id, (size_t)idn, BODY_MAX, NULL, &r, &consumed),
                 MOCK__REQ_HEADERS_TOO_LARGE);
}

/* The session header is found by name whatever its case, and only when asked for. */
Test(mock_http, the_session_header_is_seen_by_name)
{
    static const char with[] = "GET /health HTTP/1.1\r\nx-CORRELATION-id: s-1\r\n\r\n";
    static const char without[] = "GET /health HTTP/1.1\r\nX-Correlation: s-1\r\n\r\n";
    struct mock__request r;
    size_t consumed = 0;
    cr_assert_eq(
        mock__request_parse(with, strlen(with), BODY_MAX, "X-Correlation-ID", &r, &consumed),
        MOCK__REQ_OK);
    cr_assert(r.has_session_header);
    cr_assert_eq(
        mock__request_parse(without, strlen(without), BODY_MAX, "X-Correlation-ID", &r, &consumed),
        MOCK__REQ_OK);
    cr_assert_not(r.has_session_header, "a longer name is another header");
    cr_assert_eq(mock__request_parse(with, strlen(with), BODY_MAX, NULL, &r, &consumed),
                 MOCK__REQ_OK);
    cr_assert_not(r.has_session_header);
}

/* Every input is placed right before a PROT_NONE page: reading one byte too far crashes. */
Test(mock_http, never_reads_past_the_input)
{
    struct guard_region g;
    guard_init(&g, 1);
    for (size_t i = 0; i < sizeof(VALID) / sizeof(VALID[0]); i++) {
        const char *raw = VALID[i].raw;
        size_t len = strlen(raw);
        for (size_t cut = 0; cut <= len; cut++) {
            const char *at = guard_place(&g, raw, cut);
            struct mock__request r;
            size_t consumed = 0;
            mock__request_parse(at, cut, BODY_MAX, NULL, &r, &consumed);
        }
    }
    for (size_t i = 0; i < sizeof(INVALID) / sizeof(INVALID[0]); i++) {
        size_t len = strlen(INVALID[i].raw);
        const char *at = guard_place(&g, INVALID[i].raw, len);
        struct mock__request r;
        size_t consumed = 0;
        mock__request_parse(at, len, BODY_MAX, NULL, &r, &consumed);
    }
    guard_free(&g);
}
