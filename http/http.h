/*
 * http.h - ringperf's HTTP/1.1 client codec: a request-head writer and an incremental,
 * allocation-free, zero-copy response parser.
 *
 * The module does no I/O and links nothing: the engine owns the sockets, writes the bytes
 * http_request_head_write() produces, and feeds whatever it reads to http_response_feed().
 *
 * What the response parser accepts (RFC 9112, with these deliberate choices):
 * - Status line: "HTTP/1.<digit>" SP 3DIGIT [SP reason] EOL, with exactly one SP after the
 *   version, a status code of 100..999, and a reason phrase (possibly empty, or missing together
 *   with its SP) made of SP, HTAB, visible ASCII and obs-text (0x80-0xff). HTTP/1.0 gets 1.0
 *   keep-alive rules; any other minor version gets 1.1 rules. Any other version is
 *   HTTP_ERR_BAD_VERSION. The first bytes are checked as they arrive, so a peer that does not
 *   speak HTTP fails at once instead of filling the header buffer.
 * - Line endings in the head and in trailers: CRLF or a bare LF (real servers and test
 *   scripts send both). A CR anywhere else is an error. Chunk framing (the size line and the
 *   CRLF after chunk data) requires CRLF. Empty lines before the status line are rejected.
 * - Header fields: a token name immediately followed by ':' (no whitespace before the colon),
 *   a value of SP, HTAB, visible ASCII and obs-text with surrounding SP/HTAB trimmed. Obsolete
 *   line folding is rejected (HTTP_ERR_HEADER_FOLDING).
 * - Content-Length: 1 or more ASCII digits only (no sign, no list), overflow-checked to
 *   uint64_t. Repeated fields with the same value are accepted; different values are
 *   HTTP_ERR_CONTENT_LENGTH_CONFLICT.
 * - Transfer-Encoding (all fields combined as one list): "chunked" (case-insensitive) must
 *   appear at most once and last, otherwise HTTP_ERR_BAD_TRANSFER_ENCODING. When chunked is
 *   last the body is de-chunked; when only other codings are listed the body runs until the
 *   connection closes. Transfer-Encoding wins over Content-Length, and a response carrying
 *   both (or Transfer-Encoding in HTTP/1.0) is not kept alive.
 * - Chunks: 1..HTTP_CHUNK_SIZE_DIGITS_MAX hex digits, optional SP/HTAB only before ';',
 *   extensions skipped (SP, HTAB, visible ASCII, obs-text; at most HTTP_CHUNK_EXT_BYTES_MAX
 *   bytes including that whitespace), CRLF after the data verified. Trailer fields after the
 *   last chunk are validated like header fields and discarded, limited to
 *   HTTP_TRAILER_BYTES_MAX bytes and the parser's max_headers fields.
 * - No body for 1xx, 204 and 304 responses or for a response to HEAD (see
 *   http_response_parser_set_head_request()). 1xx interim responses other than 101 are parsed
 *   and skipped, at most HTTP_INTERIM_RESPONSES_MAX of them; 101 is HTTP_ERR_UPGRADE because
 *   ringperf never asks to upgrade. Without Content-Length or Transfer-Encoding the body runs
 *   until the peer closes (http_response_feed_eof()).
 */
#ifndef RINGPERF_HTTP_H
#define RINGPERF_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* HTTP_CHUNK_SIZE_DIGITS_MAX is the most hex digits a chunk-size may have (16 fill a
 * uint64_t, so the size cannot overflow). Longer sizes are HTTP_ERR_CHUNK_SIZE_TOO_LONG. */
#define HTTP_CHUNK_SIZE_DIGITS_MAX 16

/* HTTP_CHUNK_EXT_BYTES_MAX bounds the bytes between a chunk-size and its CRLF (whitespace and
 * extensions). More is HTTP_ERR_CHUNK_EXT_TOO_LONG. */
#define HTTP_CHUNK_EXT_BYTES_MAX 1024

/* HTTP_TRAILER_BYTES_MAX bounds the trailer section after the last chunk, including its final
 * empty line. More is HTTP_ERR_TRAILER_TOO_LARGE. */
#define HTTP_TRAILER_BYTES_MAX 8192

/* HTTP_INTERIM_RESPONSES_MAX bounds the 1xx responses skipped before the final one. More is
 * HTTP_ERR_TOO_MANY_INTERIM. */
#define HTTP_INTERIM_RESPONSES_MAX 8

/* http_header is a (name, value) pair as views: neither string is NUL-terminated. In the
 * request writer the caller owns both; from the response parser both point into the parser's
 * header buffer. */
struct http_header {
    const char *name;
    size_t name_len;
    const char *value;
    size_t value_len;
};

/* http_request_head describes one request head. All strings are NUL-terminated and borrowed
 * for the duration of the call. `method`, `path` (request-target, e.g. "/v1/chat/completions")
 * and `host` ("host" or "host:port") are required; any other string may be NULL to leave its
 * header out. `authorization` is the full value, e.g. "Bearer sk-...". Content-Length is
 * written when `content_length` is non-zero or the method is POST, PUT or PATCH.
 * `extra_headers` (may be NULL when `extra_header_count` is 0) are written last, in order;
 * they may not be Host, Content-Length or Transfer-Encoding, which the writer owns. No
 * Connection header is written: keep-alive is the HTTP/1.1 default; pass "Connection: close"
 * as an extra header to ask for a close. */
struct http_request_head {
    const char *method;
    const char *path;
    const char *host;
    const char *content_type;
    size_t content_length;
    const char *accept;
    const char *user_agent;
    const char *authorization;
    const struct http_header *extra_headers;
    size_t extra_header_count;
};

/* http_request_head_write writes the request line, the headers and the empty line ending the
 * head into buf (the body is not written). Returns the number of bytes written; -EINVAL when
 * the head is invalid: a missing required field, a method or header name that is not a token,
 * a path or host containing SP or a control character, a header value containing a control
 * character other than HTAB (CR, LF and NUL would inject headers), or an extra header the
 * writer owns; -ENOSPC when the head does not fit in cap bytes (buf's contents are then
 * unspecified). Validation comes first, so -EINVAL does not depend on cap. buf may be NULL
 * when cap is 0. Does not allocate. */
ssize_t http_request_head_write(char *buf, size_t cap, const struct http_request_head *head);

/* http_request_head_size returns the exact number of bytes http_request_head_write() would
 * write for head, or -EINVAL under the same rules. Use it to size send buffers at start-up. */
ssize_t http_request_head_size(const struct http_request_head *head);

/* http_request_prefix is the part of a request head that stays the same from request to request:
 * written and validated once by http_request_prefix_write(), completed per request by
 * http_request_head_finish(). `bytes` is the buffer the prefix was written to. */
struct http_request_prefix {
    const char *bytes;
    size_t len;
    bool wants_content_length; /* the method anticipates content (POST, PUT, PATCH) */
};

/* http_request_prefix_write validates head as http_request_head_write() does and writes its
 * request line and headers, extra headers included, but neither Content-Length
 * (head->content_length is ignored) nor the empty line. Fills *out; returns the prefix's length,
 * -EINVAL or -ENOSPC. Does not allocate. */
ssize_t http_request_prefix_write(char *buf, size_t cap, const struct http_request_head *head,
                                  struct http_request_prefix *out);

/* http_request_head_finish writes a whole head into buf: the prefix (copied there unless buf is
 * prefix->bytes), Content-Length when the method anticipates content or content_length is
 * non-zero, the per-request `headers` in order and the empty line. Returns the head's length;
 * -EINVAL when a header is invalid or one the writer owns; -ENOSPC when it does not fit in cap.
 * Only the per-request headers are validated: what the prefix holds was validated once. */
ssize_t http_request_head_finish(char *buf, size_t cap, const struct http_request_prefix *prefix,
                                 size_t content_length, const struct http_header *headers,
                                 size_t header_count);

/* http_parse_status is what http_response_feed() and http_response_feed_eof() report. Every
 * value from HTTP_ERR_FIRST on is an error; errors are sticky until reset or init. */
enum http_parse_status {
    HTTP_NEED_MORE = 0, /* every byte given was consumed; feed more */
    HTTP_HEADERS_DONE,  /* the final response head is parsed; accessors now work */
    HTTP_BODY,          /* *out_body holds body bytes (chunk framing removed) */
    HTTP_MESSAGE_DONE,  /* the response is complete */
    HTTP_ERR_BAD_STATUS_LINE,
    HTTP_ERR_BAD_VERSION,
    HTTP_ERR_BAD_HEADER,
    HTTP_ERR_HEADER_FOLDING,
    HTTP_ERR_HEADERS_TOO_LARGE, /* head did not fit in header_cap */
    HTTP_ERR_TOO_MANY_HEADERS,  /* more than max_headers header (or trailer) fields */
    HTTP_ERR_TOO_MANY_INTERIM,  /* more than HTTP_INTERIM_RESPONSES_MAX 1xx responses */
    HTTP_ERR_UPGRADE,           /* 101 Switching Protocols, which ringperf never requests */
    HTTP_ERR_BAD_CONTENT_LENGTH,
    HTTP_ERR_CONTENT_LENGTH_CONFLICT,
    HTTP_ERR_BAD_TRANSFER_ENCODING,
    HTTP_ERR_BAD_CHUNK_SIZE,
    HTTP_ERR_CHUNK_SIZE_TOO_LONG,
    HTTP_ERR_BAD_CHUNK_EXT,
    HTTP_ERR_CHUNK_EXT_TOO_LONG,
    HTTP_ERR_BAD_CHUNK_END, /* chunk data not followed by CRLF */
    HTTP_ERR_BAD_TRAILER,
    HTTP_ERR_TRAILER_TOO_LARGE,
    HTTP_ERR_EOF_BEFORE_RESPONSE, /* the peer closed before sending a single byte */
    HTTP_ERR_TRUNCATED,           /* the peer closed in the middle of a response */
    HTTP_PARSE_STATUS_COUNT,
    HTTP_ERR_FIRST = HTTP_ERR_BAD_STATUS_LINE,
};

/* http_parse_status_is_error returns true when s is an error (s >= HTTP_ERR_FIRST). */
bool http_parse_status_is_error(enum http_parse_status s);

/* http_parse_status_name returns a short, stable, static description of s, e.g. "malformed
 * status line", for error records and logs. Never NULL; unknown values give "unknown HTTP
 * parse status". */
const char *http_parse_status_name(enum http_parse_status s);

/* http_body_framing says how the response body is delimited. */
enum http_body_framing {
    HTTP_FRAMING_NONE = 0,    /* no body: 204, 304, response to HEAD */
    HTTP_FRAMING_LENGTH,      /* Content-Length bytes */
    HTTP_FRAMING_CHUNKED,     /* Transfer-Encoding: chunked */
    HTTP_FRAMING_UNTIL_CLOSE, /* until the peer closes the connection */
};

/* http_response_parser is the caller-allocated state of one response parser, meant to be
 * embedded in a connection. Its fields are private: use the functions below. It holds no
 * pointer into the buffers given to http_response_feed(), only into its header buffer. */
struct http_response_parser {
    char *header_buf;
    size_t header_cap;
    size_t max_headers;
    uint8_t state;
    uint8_t error;
    uint8_t framing;
    uint8_t version_minor;
    uint16_t status_code;
    uint16_t interim_count;
    bool head_done;
    bool head_request;
    bool keep_alive;
    bool event_stream;
    bool cl_seen;
    bool te_seen;
    bool te_chunked;
    bool conn_close;
    bool conn_keep_alive;
    bool content_type_seen;
    size_t head_len;   /* head bytes copied into header_buf */
    size_t line_start; /* offset of the head line being collected */
    size_t header_count;
    size_t reason_off;
    size_t reason_len;
    uint64_t content_length;
    uint64_t remaining; /* body or chunk bytes still to come */
    uint32_t chunk_digits;
    uint32_t chunk_ext_bytes;
    uint32_t trailer_bytes;
    uint32_t trailer_count;
};

/* http_response_parser_init prepares p for a first response. header_buf is borrowed (it must
 * outlive p and is written by the parser): response heads are copied into it because a status
 * line and headers may be split across several non-contiguous reads. header_cap is therefore
 * the limit on the head size in bytes, including its final empty line (HTTP_ERR_HEADERS_TOO_LARGE
 * beyond). max_headers limits the header fields of one head and the trailer fields of one
 * chunked body (HTTP_ERR_TOO_MANY_HEADERS beyond). */
void http_response_parser_init(struct http_response_parser *p, char *header_buf, size_t header_cap,
                               size_t max_headers);

/* http_response_parser_reset prepares p for the next response on a keep-alive connection,
 * keeping the buffer and limits given to init. Views returned by the accessors become
 * invalid. Also clears http_response_parser_set_head_request(). */
void http_response_parser_reset(struct http_response_parser *p);

/* http_response_parser_set_head_request tells p, after init or reset and before feeding, that
 * the request was HEAD, so the response has no body whatever its headers say. */
void http_response_parser_set_head_request(struct http_response_parser *p);

/* http_body_span is a view of body bytes inside the buffer passed to http_response_feed(),
 * valid as long as that buffer is. */
struct http_body_span {
    const char *data;
    size_t len;
};

/* http_response_feed consumes bytes from buf[0..len) and stops at the first event:
 * - HTTP_HEADERS_DONE once the final (non-1xx) response head is parsed;
 * - HTTP_BODY with *out_body a non-empty zero-copy view of body bytes inside buf (chunk
 *   framing removed); more may follow from the same buf;
 * - HTTP_MESSAGE_DONE at the end of the response. Bytes after it are NOT consumed: they are
 *   the next response (reset, then feed them) or garbage for the caller to report. Feeding
 *   again without a reset returns HTTP_MESSAGE_DONE and consumes nothing;
 * - HTTP_NEED_MORE when every byte was consumed without completing the response;
 * - an error (sticky: later calls return it and consume nothing).
 * *out_consumed is set to the bytes consumed by this call (always <= len; == len for
 * HTTP_NEED_MORE; on an error it depends on how the input was split, so use it for logs only).
 * *out_body is {NULL, 0} unless HTTP_BODY is returned. After any event other than HTTP_NEED_MORE,
 * HTTP_MESSAGE_DONE or an error, call again with the rest of buf even if that is zero bytes: a
 * response that ends exactly at a body boundary reports HTTP_MESSAGE_DONE on that call. buf may be
 * NULL when len is 0. Never allocates, never reads outside buf[0..len), never writes outside
 * header_buf[0..header_cap). */
enum http_parse_status http_response_feed(struct http_response_parser *p, const char *buf,
                                          size_t len, size_t *out_consumed,
                                          struct http_body_span *out_body);

/* http_response_feed_eof tells p the peer closed the connection. Returns HTTP_MESSAGE_DONE
 * when that completes a read-until-close body (or the response was already complete),
 * HTTP_ERR_EOF_BEFORE_RESPONSE when no byte of a response had arrived (an idle keep-alive
 * connection the server closed: safe to retry), HTTP_ERR_TRUNCATED when a response was cut
 * short, or the sticky error. */
enum http_parse_status http_response_feed_eof(struct http_response_parser *p);

/* http_response_status_code returns the final response's status code, or 0 before
 * HTTP_HEADERS_DONE. */
int http_response_status_code(const struct http_response_parser *p);

/* http_response_reason returns a view of the reason phrase (not NUL-terminated, possibly
 * empty) and its length in *out_len, valid until reset or init. Before HTTP_HEADERS_DONE it
 * returns "" with *out_len 0. */
const char *http_response_reason(const struct http_response_parser *p, size_t *out_len);

/* http_response_header finds the first header field named `name` (NUL-terminated, matched
 * case-insensitively) in the final response head. Returns true and a view of its trimmed value
 * in *out_value / *out_len (valid until reset or init), or false when absent or before
 * HTTP_HEADERS_DONE. Costs a scan of the head, so look up a few fields, not many. */
bool http_response_header(const struct http_response_parser *p, const char *name,
                          const char **out_value, size_t *out_len);

/* http_response_header_next iterates the final head's header fields in order. Start with
 * *cursor = 0; each true return fills *out (views valid until reset or init) and advances
 * *cursor. Returns false after the last field or before HTTP_HEADERS_DONE. */
bool http_response_header_next(const struct http_response_parser *p, size_t *cursor,
                               struct http_header *out);

/* http_response_keep_alive returns true when the connection may carry another request after
 * this response: HTTP/1.1 unless "Connection: close"; HTTP/1.0 only with "Connection:
 * keep-alive"; never for a body read until close or an ambiguous framing (see above). Only
 * meaningful after HTTP_HEADERS_DONE; false before. */
bool http_response_keep_alive(const struct http_response_parser *p);

/* http_response_is_event_stream returns true when the final head's first Content-Type is
 * text/event-stream (case-insensitive, parameters allowed). False before HTTP_HEADERS_DONE. */
bool http_response_is_event_stream(const struct http_response_parser *p);

/* http_response_framing returns how the body is delimited (HTTP_FRAMING_NONE before
 * HTTP_HEADERS_DONE). */
enum http_body_framing http_response_framing(const struct http_response_parser *p);

/* http_response_content_length returns true and the Content-Length in *out_len when the body
 * is HTTP_FRAMING_LENGTH, false otherwise. */
bool http_response_content_length(const struct http_response_parser *p, uint64_t *out_len);

/* ---- multipart/form-data bodies (http_multipart.c) ---------------------------------------- */

/* HTTP_MULTIPART_BOUNDARY_MAX is RFC 2046's longest boundary. */
#define HTTP_MULTIPART_BOUNDARY_MAX 70

/* http_multipart_boundary_valid reports whether `boundary` is 1..70 of RFC 2046's boundary
 * characters, without spaces (so that "multipart/form-data; boundary=<it>" needs no quotes). */
bool http_multipart_boundary_valid(const char *boundary);

/* http_multipart_boundary_absent reports whether "--boundary" occurs nowhere in data[0..len)
 * (a part's content must not hold its delimiter; pick another boundary when it does). */
bool http_multipart_boundary_absent(const char *boundary, const void *data, size_t len);

/* The writers below write one piece of a body into buf when it fits in cap bytes (buf may be
 * NULL when cap is 0) and return its length either way, so that a first call with cap 0 sizes
 * the buffer; -EINVAL for an invalid boundary, or a name, file name or content type holding a
 * control character, a quote or a backslash. Nothing is NUL-terminated; nothing allocates.
 *
 * http_multipart_field writes a whole text part: the delimiter, its Content-Disposition
 * (name="NAME"), an empty line, value_len bytes of value and CRLF. */
ssize_t http_multipart_field(char *buf, size_t cap, const char *boundary, const char *name,
                             const char *value, size_t value_len);

/* http_multipart_file_head writes the head of a file part: the delimiter, Content-Disposition
 * with name="NAME"; filename="FILENAME", Content-Type and the empty line. The file's bytes
 * follow it as they are (the caller sends them from where they lie), then
 * http_multipart_file_end's CRLF. */
ssize_t http_multipart_file_head(char *buf, size_t cap, const char *boundary, const char *name,
                                 const char *filename, const char *content_type);
ssize_t http_multipart_file_end(char *buf, size_t cap);

/* http_multipart_close writes the closing delimiter "--BOUNDARY--" and CRLF. */
ssize_t http_multipart_close(char *buf, size_t cap, const char *boundary);

#endif
