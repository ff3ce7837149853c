/*
 * evs.h - incremental, allocation-free parser of AWS's binary event-stream framing
 * (application/vnd.amazon.eventstream), as SageMaker's InvokeEndpointWithResponseStream and
 * Bedrock's streaming APIs send it, and the assembly of the text lines their PayloadPart
 * events carry.
 *
 * A message is:
 *   total length (u32, big-endian) | headers length (u32) | prelude CRC32 (of the 8 bytes before)
 *   | headers | payload | message CRC32 (of every byte before it)
 * and a header is: name length (u8) | name | type (u8) | value, where the value of type
 *   0/1 (true/false) is empty, 2 is 1 byte, 3 is 2, 4 is 4, 5 and 8 (timestamp) are 8,
 *   6 (bytes) and 7 (string) are a u16 length and that many bytes, 9 (uuid) is 16.
 *
 * Both CRCs are checked (zlib's crc32, the IEEE polynomial AWS uses), and the headers are
 * walked once, so that a message that comes out of the parser is well-formed throughout.
 * Bytes are untrusted: every length is checked against what the message holds.
 *
 * Limits: a message may be at most the scratch buffer given to evs_parser_init() long
 * (EVS_ERR_MESSAGE_TOO_LARGE), whether or not it arrives in one read, so that the same stream
 * gives the same result however it is split. AWS's own limits (16 MiB payload, 128 KiB
 * headers) are far above what a token stream sends.
 */
#ifndef RINGPERF_EVS_H
#define RINGPERF_EVS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* EVS_PRELUDE_BYTES is the prelude with its CRC; EVS_MESSAGE_MIN_BYTES a message with
 * neither headers nor payload. */
#define EVS_PRELUDE_BYTES 12
#define EVS_MESSAGE_MIN_BYTES 16
/* EVS_HEADERS_BYTES_MAX is AWS's limit on a message's headers (botocore's too). */
#define EVS_HEADERS_BYTES_MAX (128 * 1024)

/* evs_status is what evs_parser_feed() and evs_parser_finish() report. Every value from
 * EVS_ERR_FIRST on is an error, sticky until evs_parser_reset(). */
enum evs_status {
    EVS_NEED_MORE = 0,         /* every byte given was consumed; feed more */
    EVS_MESSAGE,               /* *out_message holds one message */
    EVS_ERR_BAD_LENGTH,        /* total length under 16, or headers longer than the message */
    EVS_ERR_PRELUDE_CRC,       /* the prelude's CRC does not match */
    EVS_ERR_MESSAGE_CRC,       /* the message's CRC does not match */
    EVS_ERR_BAD_HEADER,        /* a header runs past the headers, or has an unknown type */
    EVS_ERR_MESSAGE_TOO_LARGE, /* longer than the scratch buffer */
    EVS_ERR_TRUNCATED,         /* evs_parser_finish(): the stream ended inside a message */
    EVS_STATUS_COUNT,
    EVS_ERR_FIRST = EVS_ERR_BAD_LENGTH,
};

/* evs_status_name returns a short static description of s; never NULL. */
const char *evs_status_name(enum evs_status s);

/* evs_parser is one stream's state: caller-allocated, set up by evs_parser_init(). Private
 * members. */
struct evs_parser {
    uint8_t *scratch; /* borrowed; a message split across feeds is gathered here */
    size_t scratch_cap;
    /* A split prelude is gathered here first: it says whether the message fits the scratch
     * before anything is written there (a scratch may be smaller than a prelude). */
    uint8_t prelude[EVS_PRELUDE_BYTES];
    size_t have;    /* bytes of the current message in scratch */
    uint32_t total; /* its total length, once the prelude is in (have >= 12) */
    enum evs_status error;
};

/* evs_message is one message as views (not NUL-terminated): into the buffer given to the
 * evs_parser_feed() call that returned it when the message lay wholly in it, else into the
 * scratch buffer; valid until the next call on the parser. */
struct evs_message {
    const uint8_t *headers;
    size_t headers_len;
    const uint8_t *payload;
    size_t payload_len;
};

/* evs_parser_init prepares p for a stream; scratch (scratch_cap bytes, the largest message
 * accepted) is borrowed for as long as p is used and must not be what is fed. */
void evs_parser_init(struct evs_parser *p, void *scratch, size_t scratch_cap);

/* evs_parser_reset starts a new stream with the same scratch, clearing a sticky error. */
void evs_parser_reset(struct evs_parser *p);

/* evs_parser_feed consumes bytes of buf[0..len) until a message completes or the input is
 * used up:
 *   EVS_MESSAGE: *out_message is filled and *out_consumed bytes were read; feed the rest;
 *   EVS_NEED_MORE: all len bytes were consumed (*out_consumed == len);
 *   an error: *out_consumed is how far parsing got (for logs only), *out_message untouched.
 * buf may be NULL when len is 0. Never allocates, never reads outside buf[0..len). */
enum evs_status evs_parser_feed(struct evs_parser *p, const void *buf, size_t len,
                                size_t *out_consumed, struct evs_message *out_message);

/* evs_parser_finish reports the end of the stream: EVS_NEED_MORE when it ended between
 * messages, EVS_ERR_TRUNCATED when inside one, or the sticky error. */
enum evs_status evs_parser_finish(struct evs_parser *p);

/* Header value types. */
enum evs_header_type {
    EVS_TRUE = 0,
    EVS_FALSE,
    EVS_BYTE,
    EVS_SHORT,
    EVS_INT,
    EVS_LONG,
    EVS_BYTES,
    EVS_STRING,
    EVS_TIMESTAMP,
    EVS_UUID,
};

/* evs_header is one header: its name, type and value bytes (for EVS_BYTES and EVS_STRING the
 * bytes after the length; for numbers, big-endian as sent). Views into the message. */
struct evs_header {
    const char *name;
    size_t name_len;
    enum evs_header_type type;
    const uint8_t *value;
    size_t value_len;
};

/* evs_header_next walks m's headers: start with *cursor = 0; each true return fills *out.
 * False after the last (the parser has already checked that they are well-formed). */
bool evs_header_next(const struct evs_message *m, size_t *cursor, struct evs_header *out);

/* evs_header_string finds the first header named `name` (NUL-terminated, exact) of type
 * string and returns its value in *out / *out_len; false when there is none. */
bool evs_header_string(const struct evs_message *m, const char *name, const char **out,
                       size_t *out_len);

/* evs_string_header is a header for evs_message_write(): a name (NUL-terminated, 1..255
 * bytes) and a string value of value_len bytes (at most 65535). */
struct evs_string_header {
    const char *name;
    const char *value;
    size_t value_len;
};

/* evs_message_size returns the bytes of a message with these headers and payload_len bytes of
 * payload. */
size_t evs_message_size(const struct evs_string_header *headers, size_t count, size_t payload_len);

/* evs_message_write writes one message into out (cap bytes): prelude, string headers,
 * payload, CRCs. The payload may overlap out (it is moved first), so that a caller can
 * format the payload where it will end up and frame it in place. Returns the message's
 * length, or 0 when it does not fit or a header is out of range. For the mock server and
 * tests. */
size_t evs_message_write(uint8_t *out, size_t cap, const struct evs_string_header *headers,
                         size_t count, const void *payload, size_t payload_len);

/* evs_lines joins the payloads of a stream's PayloadPart events and cuts them into the lines
 * they carry ('\n'-terminated; a line may span several events). Caller-allocated; private
 * members; set up by evs_lines_init(). */
struct evs_lines {
    char *buf; /* borrowed; holds a line that continues in a later payload */
    size_t cap;
    size_t len;
    bool taken; /* buf's line was returned: start afresh on the next call */
};

/* evs_line_status is what evs_lines_next() reports. */
enum evs_line_status {
    EVS_LINE_NEED_MORE = 0, /* the payload is used up without completing a line */
    EVS_LINE,               /* *out_line / *out_len holds one line, without its '\n' */
    EVS_LINE_TOO_LONG,      /* a line outgrew the buffer */
};

/* evs_lines_init prepares l with buf (cap bytes: the longest line that may span payloads). */
void evs_lines_init(struct evs_lines *l, char *buf, size_t cap);

/* evs_lines_next takes bytes of payload[*pos..len) up to the next line end. A line wholly in
 * the payload is a view into it; one that began in an earlier payload is a view into l's
 * buffer. Either stays valid until the next call. Advances *pos. */
enum evs_line_status evs_lines_next(struct evs_lines *l, const uint8_t *payload, size_t len,
                                    size_t *pos, const char **out_line, size_t *out_len);

/* evs_lines_finish returns the partial line left at the end of the stream (true), or false
 * when there is none. */
bool evs_lines_finish(struct evs_lines *l, const char **out_line, size_t *out_len);

/* evs_line_text trims a line (spaces, tabs, CR) and, as AIPerf does for SageMaker's lines,
 * removes one leading "data:" and trims again. Returns false when nothing is left (a blank
 * line, skipped). *out is a view into line. */
bool evs_line_text(const char *line, size_t len, const char **out, size_t *out_len);

#endif
