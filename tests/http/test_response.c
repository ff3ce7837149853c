#include <criterion/criterion.h>

#include <stdint.h>
#include <string.h>

#include "http/http.h"
#include "tests/http/response_harness.h"
#include "tests/http/rfc_bytes.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static const struct response_case valid_heads[] = {
    {"content_length_body", IN("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"),
     .trace = "H200k B M", .body = "hello"},
    {"http10_closes_by_default", IN("HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nhi"),
     .trace = "H200c B M", .body = "hi"},
    {"http10_keep_alive_opt_in",
     IN("HTTP/1.0 200 OK\r\nConnection: Keep-Alive\r\nContent-Length: 2\r\n\r\nhi"),
     .trace = "H200k B M", .body = "hi"},
    {"connection_close", IN("HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nhi"),
     .trace = "H200c B M", .body = "hi"},
    {"connection_token_list",
     IN("HTTP/1.1 500 Oops\r\nConnection: upgrade, ,CLOSE\r\nContent-Length: 0\r\n\r\n"),
     .trace = "H500c M"},
    {"close_wins_over_keep_alive",
     IN("HTTP/1.0 200 OK\r\nConnection: keep-alive, close\r\nContent-Length: 0\r\n\r\n"),
     .trace = "H200c M"},
    {"empty_reason_after_space", IN("HTTP/1.1 200 \r\nContent-Length: 0\r\n\r\n"),
     .trace = "H200k M"},
    {"no_reason_no_space", IN("HTTP/1.1 204\r\n\r\n"), .trace = "H204k M"},
    {"lf_only_head", IN("HTTP/1.1 200 OK\nContent-Length: 2\n\nhi"), .trace = "H200k B M",
     .body = "hi"},
    {"mixed_line_endings", IN("HTTP/1.1 200 OK\r\nA: b\nContent-Length: 2\r\n\nhi"),
     .trace = "H200k B M", .body = "hi"},
    {"later_minor_version_gets_1_1_rules",
     IN("HTTP/1.7 404 Not Found\r\nContent-Length: 0\r\n\r\n"), .trace = "H404k M"},
    {"ows_trimmed_and_empty_value",
     IN("HTTP/1.1 200 OK\r\nX-Empty:\r\nX-Spaces: \t \r\nContent-Length: \t 3 \t\r\n\r\nabc"),
     .trace = "H200k B M", .body = "abc"},
    {"obs_text_in_reason_and_value",
     IN("HTTP/1.1 200 \xc3\x89t\xc3\xa9\r\nX: caf\xc3\xa9\tok\r\nContent-Length: 0\r\n\r\n"),
     .trace = "H200k M"},
    {"duplicate_equal_content_length",
     IN("HTTP/1.1 200 OK\r\nContent-Length: 3\r\ncontent-length: 3\r\n\r\nabc"),
     .trace = "H200k B M", .body = "abc"},
    {"content_length_leading_zeros", IN("HTTP/1.1 200 OK\r\nContent-Length: 007\r\n\r\n1234567"),
     .trace = "H200k B M", .body = "1234567"},
    {"content_length_zero", IN("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"), .trace = "H200k M"},
    {"bytes_after_body_are_left", IN("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhiGARBAGE"),
     .trace = "H200k B M", .body = "hi", .leftover = 7},
    {"until_close_body", IN("HTTP/1.1 200 OK\r\nServer: x\r\n\r\nstream until close"), .eof = true,
     .trace = "H200c B M", .body = "stream until close"},
    {"until_close_empty_body", IN("HTTP/1.1 200 OK\r\n\r\n"), .eof = true, .trace = "H200c M"},
    {"http10_until_close", IN("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\n\r\nabc"), .eof = true,
     .trace = "H200c B M", .body = "abc"},
    {"no_body_for_204_despite_length",
     IN("HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nHTTP/"), .trace = "H204k M",
     .leftover = 5},
    {"no_body_for_304_despite_chunked",
     IN("HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n"), .trace = "H304k M"},
    {"continue_then_final",
     IN("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"),
     .trace = "H200k B M", .body = "ok"},
    {"early_hints_then_final",
     IN("HTTP/1.1 103 Early Hints\r\nLink: </a>; rel=preload\r\n\r\n"
        "HTTP/1.0 201 Created\r\nContent-Length: 0\r\n\r\n"),
     .trace = "H201c M"},
    {"interim_limit_reached_exactly",
     IN("HTTP/1.1 100 A\r\n\r\nHTTP/1.1 100 B\r\n\r\nHTTP/1.1 100 C\r\n\r\nHTTP/1.1 100 D\r\n\r\n"
        "HTTP/1.1 100 E\r\n\r\nHTTP/1.1 100 F\r\n\r\nHTTP/1.1 100 G\r\n\r\nHTTP/1.1 100 H\r\n\r\n"
        "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"),
     .trace = "H200k M"},
    {"max_headers_reached_exactly",
     IN("HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\nF: 6\r\nG: 7\r\n"
        "Content-Length: 1\r\n\r\nx"),
     .trace = "H200k B M", .body = "x"},
    {"pipelined_length_then_chunked",
     IN("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"),
     .messages = 2, .trace = "H200k B M H200k B M", .body = "hiabc"},
    {"pipelined_no_body_then_length",
     IN("HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nxtail"),
     .messages = 2, .trace = "H204k M H200k B M", .body = "x", .leftover = 4},
    {"incomplete_head_needs_more", IN("HTTP/1.1 200 OK\r\nContent-Len"), .trace = ""},
    {"incomplete_body_needs_more", IN("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\nabc"),
     .trace = "H200k B", .body = "abc"},
};

static const struct response_case invalid_heads[] = {
    {"not_http_fails_before_newline", IN("SSH-2.0-OpenSSH_9"), .trace = "E:bad_status_line"},
    {"tls_alert_fails_at_once", IN("\x15\x03\x01\x00\x02\x02\x46"), .trace = "E:bad_status_line"},
    {"lowercase_protocol", IN("http/1.1 200 OK\r\n\r\n"), .trace = "E:bad_status_line"},
    {"empty_line_before_status", IN("\r\nHTTP/1.1 200 OK\r\n\r\n"), .trace = "E:bad_status_line"},
    {"http2_version", IN("HTTP/2 200\r\n\r\n"), .trace = "E:bad_version"},
    {"http20_version", IN("HTTP/2.0 200 OK\r\n\r\n"), .trace = "E:bad_version"},
    {"two_digit_minor", IN("HTTP/1.10 200 OK\r\n\r\n"), .trace = "E:bad_version"},
    {"missing_minor", IN("HTTP/1. 200 OK\r\n\r\n"), .trace = "E:bad_version"},
    {"version_only", IN("HTTP/1.1\r\n\r\n"), .trace = "E:bad_status_line"},
    {"two_digit_code", IN("HTTP/1.1 20 OK\r\n\r\n"), .trace = "E:bad_status_line"},
    {"four_digit_code", IN("HTTP/1.1 2000 OK\r\n\r\n"), .trace = "E:bad_status_line"},
    {"non_digit_code", IN("HTTP/1.1 2x0 OK\r\n\r\n"), .trace = "E:bad_status_line"},
    {"code_below_100", IN("HTTP/1.1 099 Odd\r\n\r\n"), .trace = "E:bad_status_line"},
    {"double_space_before_code", IN("HTTP/1.1  200 OK\r\n\r\n"), .trace = "E:bad_status_line"},
    {"tab_before_code", IN("HTTP/1.1\t200 OK\r\n\r\n"), .trace = "E:bad_status_line"},
    {"control_char_in_reason", IN("HTTP/1.1 200 O\x01K\r\n\r\n"), .trace = "E:bad_status_line"},
    {"bare_cr_in_reason", IN("HTTP/1.1 200 O\rK\r\n\r\n"), .trace = "E:bad_status_line"},
    {"del_in_reason", IN("HTTP/1.1 200 O\x7f\r\n\r\n"), .trace = "E:bad_status_line"},
    {"nul_in_header_value", IN("HTTP/1.1 200 OK\r\nX: a\0b\r\n\r\n"), .trace = "E:bad_header"},
    {"bare_cr_in_header_value", IN("HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n"), .trace = "E:bad_header"},
    {"cr_cr_lf_line_end", IN("HTTP/1.1 200 OK\r\nX: a\r\r\n\r\n"), .trace = "E:bad_header"},
    {"space_before_colon", IN("HTTP/1.1 200 OK\r\nX-A : b\r\n\r\n"), .trace = "E:bad_header"},
    {"missing_colon", IN("HTTP/1.1 200 OK\r\nX-A b\r\n\r\n"), .trace = "E:bad_header"},
    {"empty_header_name", IN("HTTP/1.1 200 OK\r\n: b\r\n\r\n"), .trace = "E:bad_header"},
    {"non_token_name", IN("HTTP/1.1 200 OK\r\nX(A): b\r\n\r\n"), .trace = "E:bad_header"},
    {"folded_header", IN("HTTP/1.1 200 OK\r\nX-A: b\r\n c\r\n\r\n"), .trace = "E:folding"},
    {"first_line_folded", IN("HTTP/1.1 200 OK\r\n\tc\r\n\r\n"), .trace = "E:folding"},
    {"content_length_letters", IN("HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n"),
     .trace = "E:bad_content_length"},
    {"content_length_negative", IN("HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\n"),
     .trace = "E:bad_content_length"},
    {"content_length_plus", IN("HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\n"),
     .trace = "E:bad_content_length"},
    {"content_length_inner_space", IN("HTTP/1.1 200 OK\r\nContent-Length: 1 2\r\n\r\n"),
     .trace = "E:bad_content_length"},
    {"content_length_list", IN("HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\n"),
     .trace = "E:bad_content_length"},
    {"content_length_empty", IN("HTTP/1.1 200 OK\r\nContent-Length:\r\n\r\n"),
     .trace = "E:bad_content_length"},
    {"content_length_hex", IN("HTTP/1.1 200 OK\r\nContent-Length: 0x10\r\n\r\n"),
     .trace = "E:bad_content_length"},
    {"content_length_overflow_by_one",
     IN("HTTP/1.1 200 OK\r\nContent-Length: 18446744073709551616\r\n\r\n"),
     .trace = "E:bad_content_length"},
    {"content_length_overflow_digits",
     IN("HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n"),
     .trace = "E:bad_content_length"},
    {"content_length_conflict",
     IN("HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n"),
     .trace = "E:content_length_conflict"},
    {"content_length_invalid_on_204", IN("HTTP/1.1 204 No Content\r\nContent-Length: x\r\n\r\n"),
     .trace = "E:bad_content_length"},
    {"chunked_not_last", IN("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked, gzip\r\n\r\n"),
     .trace = "E:bad_transfer_encoding"},
    {"chunked_twice",
     IN("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n"),
     .trace = "E:bad_transfer_encoding"},
    {"transfer_encoding_empty", IN("HTTP/1.1 200 OK\r\nTransfer-Encoding: , ,\r\n\r\n"),
     .trace = "E:bad_transfer_encoding"},
    {"transfer_encoding_not_token", IN("HTTP/1.1 200 OK\r\nTransfer-Encoding: chu nked\r\n\r\n"),
     .trace = "E:bad_transfer_encoding"},
    {"upgrade_101",
     IN("HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n"),
     .trace = "E:upgrade"},
    {"too_many_interim",
     IN("HTTP/1.1 100 A\r\n\r\nHTTP/1.1 100 B\r\n\r\nHTTP/1.1 100 C\r\n\r\nHTTP/1.1 100 D\r\n\r\n"
        "HTTP/1.1 100 E\r\n\r\nHTTP/1.1 100 F\r\n\r\nHTTP/1.1 100 G\r\n\r\nHTTP/1.1 100 H\r\n\r\n"
        "HTTP/1.1 100 I\r\n\r\nHTTP/1.1 200 OK\r\n\r\n"),
     .trace = "E:too_many_interim"},
    {"bad_interim_head", IN("HTTP/1.1 100 Continue\r\nBad Header\r\n\r\nHTTP/1.1 200 OK\r\n\r\n"),
     .trace = "E:bad_header"},
    {"eof_in_final_head_after_interim", IN("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 2"), .eof = true,
     .trace = "E:truncated"},
    {"too_many_headers",
     IN("HTTP/1.1 200 OK\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\nE: 5\r\nF: 6\r\nG: 7\r\nH: 8\r\n"
        "I: 9\r\n\r\n"),
     .trace = "E:too_many_headers"},
};

static const struct response_case transfer_encodings[] = {
    {"transfer_encoding_wins_over_length",
     IN("HTTP/1.1 200 OK\r\nContent-Length: 100\r\nTransfer-Encoding: chunked\r\n\r\n"
        "2\r\nhi\r\n0\r\n\r\n"),
     .trace = "H200c B M", .body = "hi"},
    {"transfer_encoding_in_http10_closes",
     IN("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n"
        "2\r\nhi\r\n0\r\n\r\n"),
     .trace = "H200c B M", .body = "hi"},
    {"gzip_then_chunked",
     IN("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
        "2\r\nhi\r\n0\r\n\r\n"),
     .trace = "H200k B M", .body = "hi"},
    {"codings_across_fields_and_case",
     IN("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\ntransfer-encoding: Chunked ; x=1\r\n\r\n"
        "2\r\nhi\r\n0\r\n\r\n"),
     .trace = "H200k B M", .body = "hi"},
    {"coding_without_chunked_reads_to_close",
     IN("HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\nContent-Length: 1\r\n\r\nabc"), .eof = true,
     .trace = "H200c B M", .body = "abc"},
};

static const struct response_case eof_cases[] = {
    {"eof_before_any_byte", .input = "", .len = 0, .eof = true, .trace = "E:eof_before_response"},
    {"eof_in_status_line", IN("HTTP/1.1 2"), .eof = true, .trace = "E:truncated"},
    {"eof_in_headers", IN("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n"), .eof = true,
     .trace = "E:truncated"},
    {"eof_after_interim", IN("HTTP/1.1 100 Continue\r\n\r\n"), .eof = true, .trace = "E:truncated"},
    {"eof_in_length_body", IN("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel"), .eof = true,
     .trace = "H200k B E:truncated", .body = "hel"},
    {"eof_right_after_head", IN("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"), .eof = true,
     .trace = "H200k E:truncated"},
    {"eof_with_largest_length",
     IN("HTTP/1.1 200 OK\r\nContent-Length: 18446744073709551615\r\n\r\nab"), .eof = true,
     .trace = "H200k B E:truncated", .body = "ab"},
    {"eof_after_complete_message", IN("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx"), .eof = true,
     .trace = "H200k B M", .body = "x"},
};

Test(http_response, valid_heads_parse_identically_at_every_split)
{
    check_cases(valid_heads, ARRAY_LEN(valid_heads));
}

Test(http_response, invalid_heads_fail_identically_at_every_split)
{
    check_cases(invalid_heads, ARRAY_LEN(invalid_heads));
}

Test(http_response, transfer_encoding_rules)
{
    check_cases(transfer_encodings, ARRAY_LEN(transfer_encodings));
}

Test(http_response, end_of_stream_completes_or_reports_truncation)
{
    check_cases(eof_cases, ARRAY_LEN(eof_cases));
}

Test(http_response, head_request_response_has_no_body)
{
    struct response_case c = {"head_request", IN("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"),
                              .trace = "H200k M"};
    struct harness h;
    harness_init(&h);
    h.head_request = true;
    check_case_with(&h, &c);
    harness_free(&h);
}

/* Builds "HTTP/1.1 200 OK\r\nX: aaa...\r\n\r\n" of exactly total bytes. */
static size_t build_head_of_size(char *out, size_t total)
{
    static const char start[] = "HTTP/1.1 200 OK\r\nX: ";
    static const char end[] = "\r\n\r\n";
    size_t fill = total - (sizeof(start) - 1) - (sizeof(end) - 1);
    memcpy(out, start, sizeof(start) - 1);
    memset(out + sizeof(start) - 1, 'a', fill);
    memcpy(out + sizeof(start) - 1 + fill, end, sizeof(end) - 1);
    return total;
}

Test(http_response, head_filling_header_buffer_exactly_is_accepted)
{
    char input[HARNESS_HEADER_CAP + 1];
    struct response_case c = {"head_fills_cap", .input = input, .eof = true, .trace = "H200c M"};
    c.len = build_head_of_size(input, HARNESS_HEADER_CAP);
    check_case(&c);
}

Test(http_response, head_one_byte_over_header_buffer_is_rejected)
{
    char input[HARNESS_HEADER_CAP + 1];
    struct response_case c = {"head_over_cap", .input = input, .trace = "E:headers_too_large"};
    c.len = build_head_of_size(input, HARNESS_HEADER_CAP + 1);
    check_case(&c);
}

Test(http_response, endless_line_is_rejected_without_waiting_for_newline)
{
    char input[HARNESS_HEADER_CAP + 50];
    memcpy(input, "HTTP/1.1 200 ", 13);
    memset(input + 13, 'r', sizeof(input) - 13);
    struct response_case c = {"endless_line", .input = input, .len = sizeof(input),
                              .trace = "E:headers_too_large"};
    check_case(&c);
}

/* The protocol check runs before the size limit, so garbage reports the same error however it
 * is split, even when a single read holds more than header_cap bytes of it. */
Test(http_response, garbage_longer_than_header_buffer_is_a_bad_status_line)
{
    char input[HARNESS_HEADER_CAP + 50];
    memset(input, 'x', sizeof(input));
    memcpy(input, "HTTQ", 4);
    struct response_case c = {"long_garbage", .input = input, .len = sizeof(input),
                              .trace = "E:bad_status_line"};
    check_case(&c);
}

static void feed_all(struct http_response_parser *p, const char *s, enum http_parse_status want)
{
    size_t consumed = 0;
    struct http_body_span body;
    cr_assert_eq(http_response_feed(p, s, strlen(s), &consumed, &body), want);
    cr_assert_eq(consumed, strlen(s));
}

Test(http_response, accessors_before_headers_are_empty)
{
    char hb[128];
    struct http_response_parser p;
    http_response_parser_init(&p, hb, sizeof(hb), 8);
    feed_all(&p, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n", HTTP_NEED_MORE);
    size_t len = 99;
    const char *v = NULL;
    uint64_t cl = 0;
    size_t cursor = 0;
    struct http_header h;
    cr_assert_eq(http_response_status_code(&p), 0);
    cr_assert_str_eq(http_response_reason(&p, &len), "");
    cr_assert_eq(len, 0);
    cr_assert_not(http_response_header(&p, "content-type", &v, &len));
    cr_assert_not(http_response_header_next(&p, &cursor, &h));
    cr_assert_not(http_response_keep_alive(&p));
    cr_assert_not(http_response_is_event_stream(&p));
    cr_assert_eq(http_response_framing(&p), HTTP_FRAMING_NONE);
    cr_assert_not(http_response_content_length(&p, &cl));
}

static bool inside(const char *v, size_t len, const char *buf, size_t cap)
{
    return v >= buf && v + len <= buf + cap;
}

/* Header views point into the parser's buffer, so they survive the caller reusing its
 * receive buffer. */
Test(http_response, header_views_outlive_the_fed_buffer)
{
    char hb[256];
    char rx[256];
    struct http_response_parser p;
    http_response_parser_init(&p, hb, sizeof(hb), 8);
    static const char head[] = "HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\n"
                               "X-Dup: first\r\nx-dup: second\r\nContent-Length: 12\r\n\r\n";
    memcpy(rx, head, sizeof(head) - 1);
    size_t consumed = 0;
    struct http_body_span body;
    cr_assert_eq(http_response_feed(&p, rx, sizeof(head) - 1, &consumed, &body), HTTP_HEADERS_DONE);
    memset(rx, 0, sizeof(rx));
    size_t len = 0;
    const char *v = NULL;
    cr_assert_eq(http_response_status_code(&p), 429);
    v = http_response_reason(&p, &len);
    cr_assert(len == 17 && memcmp(v, "Too Many Requests", 17) == 0 && inside(v, len, hb, 256));
    cr_assert(http_response_header(&p, "RETRY-AFTER", &v, &len));
    cr_assert(len == 1 && v[0] == '3' && inside(v, len, hb, 256));
    cr_assert(http_response_header(&p, "x-dup", &v, &len));
    cr_assert(len == 5 && memcmp(v, "first", 5) == 0, "first match wins");
    cr_assert_not(http_response_header(&p, "x-missing", &v, &len));
    cr_assert_not(http_response_header(&p, "retry", &v, &len), "no prefix match");
    uint64_t cl = 0;
    cr_assert(http_response_content_length(&p, &cl) && cl == 12);
    cr_assert_eq(http_response_framing(&p), HTTP_FRAMING_LENGTH);
}

Test(http_response, header_iteration_visits_every_field_in_order)
{
    char hb[256];
    struct http_response_parser p;
    http_response_parser_init(&p, hb, sizeof(hb), 8);
    feed_all(&p, "HTTP/1.1 200 OK\nA: 1\r\nBb:\nCcc:  x y \r\n\r\n", HTTP_HEADERS_DONE);
    static const char *const names[] = {"A", "Bb", "Ccc"};
    static const char *const values[] = {"1", "", "x y"};
    size_t cursor = 0;
    struct http_header h;
    for (size_t i = 0; i < 3; i++) {
        cr_assert(http_response_header_next(&p, &cursor, &h), "field %zu", i);
        cr_assert(h.name_len == strlen(names[i]) && memcmp(h.name, names[i], h.name_len) == 0);
        cr_assert(h.value_len == strlen(values[i]) && memcmp(h.value, values[i], h.value_len) == 0);
    }
    cr_assert_not(http_response_header_next(&p, &cursor, &h));
    cr_assert_not(http_response_header_next(&p, &cursor, &h));
}

struct content_type_case {
    const char *head;
    bool event_stream;
};

static const struct content_type_case content_types[] = {
    {"Content-Type: text/event-stream\r\n", true},
    {"content-type: Text/Event-Stream; charset=utf-8\r\n", true},
    {"Content-Type: text/event-stream ;x=y\r\n", true},
    {"Content-Type: text/event-streams\r\n", false},
    {"Content-Type: text/event\r\n", false},
    {"Content-Type: application/json\r\n", false},
    {"Content-Type: application/json\r\nContent-Type: text/event-stream\r\n", false},
    {"X-Content-Type: text/event-stream\r\n", false},
    {"", false},
};

Test(http_response, event_stream_detection)
{
    for (size_t i = 0; i < ARRAY_LEN(content_types); i++) {
        char hb[256];
        char input[256];
        struct http_response_parser p;
        http_response_parser_init(&p, hb, sizeof(hb), 8);
        snprintf(input, sizeof(input), "HTTP/1.1 200 OK\r\n%s\r\n", content_types[i].head);
        feed_all(&p, input, HTTP_HEADERS_DONE);
        cr_assert_eq(http_response_is_event_stream(&p), content_types[i].event_stream, "case %zu",
                     i);
    }
}

Test(http_response, keep_alive_reset_parses_next_response_on_new_buffer)
{
    char hb[128];
    struct http_response_parser p;
    http_response_parser_init(&p, hb, sizeof(hb), 8);
    http_response_parser_set_head_request(&p);
    feed_all(&p, "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n", HTTP_HEADERS_DONE);
    feed_all(&p, "", HTTP_MESSAGE_DONE);
    http_response_parser_reset(&p);
    cr_assert_eq(http_response_status_code(&p), 0);
    feed_all(&p, "HTTP/1.1 503 Busy\r\nContent-Length: 4\r\n\r\n", HTTP_HEADERS_DONE);
    cr_assert_eq(http_response_status_code(&p), 503);
    cr_assert_eq(http_response_framing(&p), HTTP_FRAMING_LENGTH, "reset clears HEAD mode");
    size_t consumed = 0;
    struct http_body_span body;
    cr_assert_eq(http_response_feed(&p, "down", 4, &consumed, &body), HTTP_BODY);
    cr_assert(consumed == 4 && body.len == 4 && memcmp(body.data, "down", 4) == 0);
    feed_all(&p, "", HTTP_MESSAGE_DONE);
}

Test(http_response, empty_feed_needs_more_and_null_buffer_is_allowed)
{
    char hb[64];
    struct http_response_parser p;
    http_response_parser_init(&p, hb, sizeof(hb), 8);
    size_t consumed = 1;
    struct http_body_span body;
    cr_assert_eq(http_response_feed(&p, NULL, 0, &consumed, &body), HTTP_NEED_MORE);
    cr_assert_eq(consumed, 0);
    cr_assert_eq(http_response_feed_eof(&p), HTTP_ERR_EOF_BEFORE_RESPONSE);
}

Test(http_response, parser_without_header_buffer_rejects_instead_of_writing)
{
    struct http_response_parser p;
    http_response_parser_init(&p, NULL, 4096, 8);
    size_t consumed = 1;
    struct http_body_span body;
    cr_assert_eq(http_response_feed(&p, "H", 1, &consumed, &body), HTTP_ERR_HEADERS_TOO_LARGE);
}

Test(http_response, status_names_are_distinct_and_total)
{
    for (int i = 0; i < HTTP_PARSE_STATUS_COUNT; i++) {
        const char *a = http_parse_status_name((enum http_parse_status)i);
        cr_assert(a != NULL && a[0] != '\0');
        cr_assert_eq(http_parse_status_is_error((enum http_parse_status)i), i >= HTTP_ERR_FIRST);
        for (int j = 0; j < i; j++) {
            cr_assert_str_neq(a, http_parse_status_name((enum http_parse_status)j));
        }
    }
    cr_assert_str_eq(http_parse_status_name(HTTP_PARSE_STATUS_COUNT), "unknown HTTP parse status");
    cr_assert_str_eq(http_parse_status_name((enum http_parse_status) - 1),
                     "unknown HTTP parse status");
}

/* parse_whole feeds a complete head in one piece and returns the status it ends in. */
static enum http_parse_status parse_whole(const char *head, size_t len)
{
    char hb[256];
    struct http_response_parser p;
    http_response_parser_init(&p, hb, sizeof(hb), 8);
    size_t consumed = 0;
    struct http_body_span body;
    return http_response_feed(&p, head, len, &consumed, &body);
}

/* Every byte value in a field name, and at each position of field values and reason phrases
 * of 1 to 19 bytes (values are checked eight bytes at a time, then byte by byte). */
Test(http_response, every_byte_is_classified_in_names_values_and_reasons)
{
    for (int c = 0; c < 256; c++) {
        char head[128];
        int n =
            snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nX%ca: v\r\n\r\n", c == 0 ? '?' : c);
        head[18] = (char)c;
        /* "X:a: v" is the field "X" with the value "a: v". */
        bool name_ok = rfc_tchar(c) || c == ':';
        cr_assert_eq(parse_whole(head, (size_t)n),
                     name_ok ? HTTP_HEADERS_DONE : HTTP_ERR_BAD_HEADER, "name byte %d", c);
        if (c == '\n') {
            continue; /* in a value it ends the line: the line-ending tests cover it */
        }
        for (int len = 1; len < 20; len++) {
            for (int at = 0; at < len; at++) {
                char value[20];
                memset(value, 'v', sizeof(value));
                n = snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nX-A: %.*s\r\n\r\n", len,
                             value);
                head[22 + at] = (char)c;
                enum http_parse_status want =
                    rfc_field_char(c) ? HTTP_HEADERS_DONE : HTTP_ERR_BAD_HEADER;
                cr_assert_eq(parse_whole(head, (size_t)n), want, "value byte %d at %d of %d", c, at,
                             len);
                n = snprintf(head, sizeof(head), "HTTP/1.1 200 %.*s\r\n\r\n", len, value);
                head[13 + at] = (char)c;
                want = rfc_field_char(c) ? HTTP_HEADERS_DONE : HTTP_ERR_BAD_STATUS_LINE;
                cr_assert_eq(parse_whole(head, (size_t)n), want, "reason byte %d at %d of %d", c,
                             at, len);
            }
        }
    }
}
