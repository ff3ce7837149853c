#include <criterion/criterion.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http/http.h"
#include "tests/http/response_harness.h"

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define CHUNKED_HEAD "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"

static const struct response_case valid_chunked[] = {
    {"two_chunks", IN(CHUNKED_HEAD "5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n"), .trace = "H200k B M",
     .body = "hello world"},
    {"only_last_chunk", IN(CHUNKED_HEAD "0\r\n\r\n"), .trace = "H200k M"},
    {"hex_sizes_any_case_and_leading_zeros",
     IN(CHUNKED_HEAD "a\r\n0123456789\r\nB\r\nabcdefghijk\r\n0010\r\n0123456789ABCDEF\r\n"
                     "000\r\n\r\n"),
     .trace = "H200k B M", .body = "0123456789abcdefghijk0123456789ABCDEF"},
    {"sixteen_digit_size", IN(CHUNKED_HEAD "0000000000000003\r\nabc\r\n0\r\n\r\n"),
     .trace = "H200k B M", .body = "abc"},
    {"extensions_are_skipped",
     IN(CHUNKED_HEAD "5;name=value\r\nhello\r\n3 ; a=b;c=\"q r\"\r\nxyz\r\n0;last\t\r\n\r\n"),
     .trace = "H200k B M", .body = "helloxyz"},
    {"crlf_inside_data_is_data", IN(CHUNKED_HEAD "4\r\n\r\n\r\n\r\n0\r\n\r\n"),
     .trace = "H200k B M", .body = "\r\n\r\n"},
    {"trailers_are_skipped",
     IN(CHUNKED_HEAD "2\r\nhi\r\n0\r\nX-Checksum: abc\r\nX-Other:  \r\nX-Empty:\r\n\r\n"),
     .trace = "H200k B M", .body = "hi"},
    {"lf_only_trailers", IN(CHUNKED_HEAD "2\r\nhi\r\n0\r\nX-T: 1\n\n"), .trace = "H200k B M",
     .body = "hi"},
    {"lf_only_end_without_trailers", IN(CHUNKED_HEAD "0\r\n\n"), .trace = "H200k M"},
    {"max_trailer_fields",
     IN(CHUNKED_HEAD "0\r\nA:1\r\nB:2\r\nC:3\r\nD:4\r\nE:5\r\nF:6\r\nG:7\r\n"
                     "H:8\r\n\r\n"),
     .trace = "H200k M"},
    {"bytes_after_last_chunk_are_left", IN(CHUNKED_HEAD "1\r\nx\r\n0\r\n\r\nHTTP/1.1"),
     .trace = "H200k B M", .body = "x", .leftover = 8},
    {"sse_stream_in_chunks",
     IN("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
        "f\r\ndata: {\"a\":1}\n\n\r\ne\r\ndata: [DONE]\n\n\r\n0\r\n\r\n"),
     .trace = "H200k B M", .body = "data: {\"a\":1}\n\ndata: [DONE]\n\n"},
};

static const struct response_case invalid_chunked[] = {
    {"size_not_hex", IN(CHUNKED_HEAD "x\r\n"), .trace = "H200k E:bad_chunk_size"},
    {"size_missing", IN(CHUNKED_HEAD "\r\n"), .trace = "H200k E:bad_chunk_size"},
    {"size_then_junk", IN(CHUNKED_HEAD "5x\r\nhello\r\n"), .trace = "H200k E:bad_chunk_size"},
    {"size_negative", IN(CHUNKED_HEAD "-5\r\n"), .trace = "H200k E:bad_chunk_size"},
    {"size_with_0x_prefix", IN(CHUNKED_HEAD "0x5\r\n"), .trace = "H200k E:bad_chunk_size"},
    {"size_leading_space", IN(CHUNKED_HEAD " 5\r\n"), .trace = "H200k E:bad_chunk_size"},
    {"size_trailing_space", IN(CHUNKED_HEAD "5 \r\nhello\r\n"), .trace = "H200k E:bad_chunk_size"},
    {"size_line_lf_only", IN(CHUNKED_HEAD "5\nhello\r\n"), .trace = "H200k E:bad_chunk_size"},
    {"size_line_cr_without_lf", IN(CHUNKED_HEAD "5\rhello"), .trace = "H200k E:bad_chunk_size"},
    {"size_seventeen_digits", IN(CHUNKED_HEAD "00000000000000005\r\nhello\r\n"),
     .trace = "H200k E:chunk_size_too_long"},
    {"size_overflowing", IN(CHUNKED_HEAD "1ffffffffffffffff\r\n"),
     .trace = "H200k E:chunk_size_too_long"},
    {"extension_control_char", IN(CHUNKED_HEAD "5;a\x01\r\nhello\r\n"),
     .trace = "H200k E:bad_chunk_ext"},
    {"extension_nul", IN(CHUNKED_HEAD "5;a\0\r\nhello\r\n"), .trace = "H200k E:bad_chunk_ext"},
    {"extension_bare_lf", IN(CHUNKED_HEAD "5;a\nhello\r\n"), .trace = "H200k E:bad_chunk_ext"},
    {"data_not_followed_by_crlf", IN(CHUNKED_HEAD "5\r\nhelloX"),
     .trace = "H200k B E:bad_chunk_end", .body = "hello"},
    {"data_followed_by_lf_only", IN(CHUNKED_HEAD "5\r\nhello\n0\r\n\r\n"),
     .trace = "H200k B E:bad_chunk_end", .body = "hello"},
    {"data_followed_by_cr_junk", IN(CHUNKED_HEAD "5\r\nhello\rX"),
     .trace = "H200k B E:bad_chunk_end", .body = "hello"},
    {"chunk_longer_than_declared", IN(CHUNKED_HEAD "2\r\nhello\r\n0\r\n\r\n"),
     .trace = "H200k B E:bad_chunk_end", .body = "he"},
    {"trailer_without_colon", IN(CHUNKED_HEAD "0\r\nbad trailer\r\n\r\n"),
     .trace = "H200k E:bad_trailer"},
    {"trailer_space_before_colon", IN(CHUNKED_HEAD "0\r\nX :1\r\n\r\n"),
     .trace = "H200k E:bad_trailer"},
    {"trailer_starting_with_space", IN(CHUNKED_HEAD "0\r\n X: 1\r\n\r\n"),
     .trace = "H200k E:bad_trailer"},
    {"trailer_folded", IN(CHUNKED_HEAD "0\r\nX: 1\r\n 2\r\n\r\n"), .trace = "H200k E:folding"},
    {"trailer_cr_without_lf", IN(CHUNKED_HEAD "0\r\nX: 1\rY: 2\r\n\r\n"),
     .trace = "H200k E:bad_trailer"},
    {"trailer_end_cr_without_lf", IN(CHUNKED_HEAD "0\r\n\rX"), .trace = "H200k E:bad_trailer"},
    {"trailer_control_char", IN(CHUNKED_HEAD "0\r\nX: a\x01\r\n\r\n"),
     .trace = "H200k E:bad_trailer"},
    {"too_many_trailer_fields",
     IN(CHUNKED_HEAD "0\r\nA:1\r\nB:2\r\nC:3\r\nD:4\r\nE:5\r\nF:6\r\nG:7\r\nH:8\r\nI:9\r\n\r\n"),
     .trace = "H200k E:too_many_headers"},
    {"eof_in_size", IN(CHUNKED_HEAD "5"), .eof = true, .trace = "H200k E:truncated"},
    {"eof_in_data", IN(CHUNKED_HEAD "5\r\nhel"), .eof = true, .trace = "H200k B E:truncated",
     .body = "hel"},
    {"eof_before_data_crlf", IN(CHUNKED_HEAD "5\r\nhello"), .eof = true,
     .trace = "H200k B E:truncated", .body = "hello"},
    {"eof_before_last_chunk", IN(CHUNKED_HEAD "5\r\nhello\r\n"), .eof = true,
     .trace = "H200k B E:truncated", .body = "hello"},
    {"eof_in_trailers", IN(CHUNKED_HEAD "0\r\nX: 1\r\n"), .eof = true,
     .trace = "H200k E:truncated"},
    {"eof_with_largest_size", IN(CHUNKED_HEAD "ffffffffffffffff\r\nab"), .eof = true,
     .trace = "H200k B E:truncated", .body = "ab"},
};

Test(http_chunked, valid_bodies_decode_identically_at_every_split)
{
    check_cases(valid_chunked, ARRAY_LEN(valid_chunked));
}

Test(http_chunked, invalid_framing_fails_identically_at_every_split)
{
    check_cases(invalid_chunked, ARRAY_LEN(invalid_chunked));
}

/* CHUNKED_HEAD, "5", then ext_bytes bytes of ";aaa...", then the rest of a valid body. */
static size_t build_extension(char *out, size_t ext_bytes)
{
    static const char rest[] = "\r\nhello\r\n0\r\n\r\n";
    size_t n = sizeof(CHUNKED_HEAD) - 1;
    memcpy(out, CHUNKED_HEAD "5;", n + 2);
    memset(out + n + 2, 'a', ext_bytes - 1);
    n += 1 + ext_bytes;
    memcpy(out + n, rest, sizeof(rest) - 1);
    return n + sizeof(rest) - 1;
}

Test(http_chunked, extension_at_limit_is_accepted)
{
    static char input[HTTP_CHUNK_EXT_BYTES_MAX + 128];
    struct response_case c = {"ext_at_limit", .input = input, .trace = "H200k B M",
                              .body = "hello"};
    c.len = build_extension(input, HTTP_CHUNK_EXT_BYTES_MAX);
    check_case(&c);
}

Test(http_chunked, extension_over_limit_is_rejected)
{
    static char input[HTTP_CHUNK_EXT_BYTES_MAX + 128];
    struct response_case c = {"ext_over_limit", .input = input,
                              .trace = "H200k E:chunk_ext_too_long"};
    c.len = build_extension(input, HTTP_CHUNK_EXT_BYTES_MAX + 1);
    check_case(&c);
}

Test(http_chunked, whitespace_before_extension_counts_against_limit)
{
    static char input[HTTP_CHUNK_EXT_BYTES_MAX + 128];
    size_t n = sizeof(CHUNKED_HEAD) - 1;
    memcpy(input, CHUNKED_HEAD "5", n + 1);
    memset(input + n + 1, ' ', HTTP_CHUNK_EXT_BYTES_MAX + 1);
    struct response_case c = {"spaces_over_limit", .input = input,
                              .len = n + 2 + HTTP_CHUNK_EXT_BYTES_MAX,
                              .trace = "H200k E:chunk_ext_too_long"};
    check_case(&c);
}

/* CHUNKED_HEAD, "0\r\n", then a trailer section of exactly trailer_bytes bytes. */
static size_t build_trailers(char *out, size_t trailer_bytes)
{
    size_t n = sizeof(CHUNKED_HEAD) - 1;
    memcpy(out, CHUNKED_HEAD "0\r\nX: ", n + 6);
    n += 6;
    size_t fill = trailer_bytes - 3 - 4;
    memset(out + n, 'v', fill);
    n += fill;
    memcpy(out + n, "\r\n\r\n", 4);
    return n + 4;
}

Test(http_chunked, trailers_at_limit_are_accepted)
{
    static char input[HTTP_TRAILER_BYTES_MAX + 128];
    struct response_case c = {"trailers_at_limit", .input = input, .trace = "H200k M"};
    c.len = build_trailers(input, HTTP_TRAILER_BYTES_MAX);
    check_case(&c);
}

Test(http_chunked, trailers_over_limit_are_rejected)
{
    static char input[HTTP_TRAILER_BYTES_MAX + 128];
    struct response_case c = {"trailers_over_limit", .input = input,
                              .trace = "H200k E:trailer_too_large"};
    c.len = build_trailers(input, HTTP_TRAILER_BYTES_MAX + 1);
    check_case(&c);
}

/* Many small chunks: the framing/data alternation at scale, and a body bigger than any read. */
Test(http_chunked, many_small_chunks)
{
    static char input[8192];
    static char expected[2048];
    size_t n = sizeof(CHUNKED_HEAD) - 1;
    size_t body = 0;
    memcpy(input, CHUNKED_HEAD, n);
    for (int i = 0; i < 300; i++) {
        int size = i % 7;
        if (size == 0) {
            continue;
        }
        input[n++] = (char)('0' + size);
        memcpy(input + n, ";k=v\r\n", 6);
        n += 6;
        for (int j = 0; j < size; j++) {
            input[n++] = (char)('a' + (i + j) % 26);
            expected[body++] = input[n - 1];
        }
        memcpy(input + n, "\r\n", 2);
        n += 2;
    }
    memcpy(input + n, "0\r\n\r\n", 5);
    n += 5;
    expected[body] = '\0';
    struct response_case c = {"many_chunks", .input = input, .len = n, .trace = "H200k B M",
                              .body = expected};
    check_case(&c);
}
