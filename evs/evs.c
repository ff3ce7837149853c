/*
 * evs.c - the event-stream message parser: a message that lies wholly in one read is checked
 * and returned where it lies; one split across reads is gathered in the scratch buffer first.
 */
#include "evs/evs.h"

#include <string.h>
#include <zlib.h>

const char *evs_status_name(enum evs_status s)
{
    switch (s) {
    case EVS_NEED_MORE:
        return "need more";
    case EVS_MESSAGE:
        return "message";
    case EVS_ERR_BAD_LENGTH:
        return "event-stream message length out of range";
    case EVS_ERR_PRELUDE_CRC:
        return "event-stream prelude CRC mismatch";
    case EVS_ERR_MESSAGE_CRC:
        return "event-stream message CRC mismatch";
    case EVS_ERR_BAD_HEADER:
        return "malformed event-stream header";
    case EVS_ERR_MESSAGE_TOO_LARGE:
        return "event-stream message larger than the buffer";
    case EVS_ERR_TRUNCATED:
        return "event stream ended inside a message";
    default:
        return "unknown event-stream status";
    }
}

void evs_parser_init(struct evs_parser *p, void *scratch, size_t scratch_cap)
{
    *p = (struct evs_parser){.scratch = scratch, .scratch_cap = scratch_cap};
}

void evs_parser_reset(struct evs_parser *p)
{
    evs_parser_init(p, p->scratch, p->scratch_cap);
}

static uint32_t be32(const uint8_t *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static uint32_t crc_of(const uint8_t *b, size_t n)
{
    /* zlib takes uInt lengths; a message is at most scratch_cap, far below 4 GiB. */
    return (uint32_t)crc32(0L, b, (uInt)n);
}

/* check_prelude validates the first 12 bytes and yields the total length. */
static enum evs_status check_prelude(const struct evs_parser *p, const uint8_t *b,
                                     uint32_t *out_total)
{
    uint32_t total = be32(b);
    uint32_t headers = be32(b + 4);
    if (be32(b + 8) != crc_of(b, 8)) {
        return EVS_ERR_PRELUDE_CRC;
    }
    if (total < EVS_MESSAGE_MIN_BYTES || headers > total - EVS_MESSAGE_MIN_BYTES ||
        headers > EVS_HEADERS_BYTES_MAX) {
        return EVS_ERR_BAD_LENGTH;
    }
    if (total > p->scratch_cap) {
        return EVS_ERR_MESSAGE_TOO_LARGE;
    }
    *out_total = total;
    return EVS_NEED_MORE;
}

/* header_value_len returns the bytes a value of `type` takes at b[0..room), or -1. */
static long header_value_len(uint8_t type, const uint8_t *b, size_t room)
{
    static const int8_t fixed[] = {0, 0, 1, 2, 4, 8, -1, -1, 8, 16};
    if (type > EVS_UUID) {
        return -1;
    }
    if (fixed[type] >= 0) {
        return (size_t)fixed[type] <= room ? fixed[type] : -1;
    }
    if (room < 2) {
        return -1;
    }
    size_t n = (size_t)b[0] << 8 | b[1];
    return n <= room - 2 ? (long)(n + 2) : -1;
}

/* walk_header reads the header at h[*at..n) into out (may be NULL); false when malformed. */
static bool walk_header(const uint8_t *h, size_t n, size_t *at, struct evs_header *out)
{
    size_t i = *at;
    if (i >= n) {
        return false;
    }
    size_t name_len = h[i++];
    if (name_len == 0 || name_len > n - i || n - i - name_len < 1) {
        return false;
    }
    const uint8_t *name = h + i;
    i += name_len;
    uint8_t type = h[i++];
    long value_len = header_value_len(type, h + i, n - i);
    if (value_len < 0) {
        return false;
    }
    if (out != NULL) {
        bool sized = type == EVS_BYTES || type == EVS_STRING;
        *out = (struct evs_header){
            .name = (const char *)name,
            .name_len = name_len,
            .type = (enum evs_header_type)type,
            .value = h + i + (sized ? 2 : 0),
            .value_len = (size_t)value_len - (sized ? 2 : 0),
        };
    }
    *at = i + (size_t)value_len;
    return true;
}

/* check_message validates a whole message at b (total bytes) and fills out. */
static enum evs_status check_message(const uint8_t *b, uint32_t total, struct evs_message *out)
{
    if (be32(b + total - 4) != crc_of(b, total - 4)) {
        return EVS_ERR_MESSAGE_CRC;
    }
    size_t headers_len = be32(b + 4);
    const uint8_t *headers = b + EVS_PRELUDE_BYTES;
    for (size_t at = 0; at < headers_len;) {
        if (!walk_header(headers, headers_len, &at, NULL)) {
            return EVS_ERR_BAD_HEADER;
        }
    }
    *out = (struct evs_message){
        .headers = headers,
        .headers_len = headers_len,
        .payload = headers + headers_len,
        .payload_len = total - EVS_MESSAGE_MIN_BYTES - headers_len,
    };
    return EVS_MESSAGE;
}

static enum evs_status fail(struct evs_parser *p, enum evs_status s)
{
    p->error = s;
    return s;
}

/* gather copies what the current message still lacks from in[0..len) into scratch; returns
 * the bytes taken. */
static size_t gather(struct evs_parser *p, const uint8_t *in, size_t len)
{
    bool in_prelude = p->have < EVS_PRELUDE_BYTES;
    size_t want = (in_prelude ? EVS_PRELUDE_BYTES : p->total) - p->have;
    size_t take = len < want ? len : want;
    memcpy((in_prelude ? p->prelude : p->scratch) + p->have, in, take);
    p->have += take;
    return take;
}

enum evs_status evs_parser_feed(struct evs_parser *p, const void *buf, size_t len,
                                size_t *out_consumed, struct evs_message *out_message)
{
    *out_consumed = 0;
    if (p->error != EVS_NEED_MORE) {
        return p->error;
    }
    const uint8_t *in = buf;
    if (p->have == 0 && len >= EVS_PRELUDE_BYTES) {
        uint32_t total = 0;
        enum evs_status st = check_prelude(p, in, &total);
        if (st != EVS_NEED_MORE) {
            return fail(p, st);
        }
        if (total <= len) {
            st = check_message(in, total, out_message);
            *out_consumed = st == EVS_MESSAGE ? total : 0;
            return st == EVS_MESSAGE ? st : fail(p, st);
        }
    }
    size_t pos = 0;
    while (pos < len) {
        pos += gather(p, in + pos, len - pos);
        if (p->have == EVS_PRELUDE_BYTES && p->total == 0) {
            enum evs_status st = check_prelude(p, p->prelude, &p->total);
            if (st != EVS_NEED_MORE) {
                *out_consumed = pos;
                return fail(p, st);
            }
            /* It fits: the message is at least a prelude and at most the scratch long. */
            memcpy(p->scratch, p->prelude, EVS_PRELUDE_BYTES);
        } else if (p->have >= EVS_PRELUDE_BYTES && p->have == p->total) {
            *out_consumed = pos;
            enum evs_status st = check_message(p->scratch, p->total, out_message);
            p->have = 0;
            p->total = 0;
            return st == EVS_MESSAGE ? st : fail(p, st);
        }
    }
    *out_consumed = len;
    return EVS_NEED_MORE;
}

enum evs_status evs_parser_finish(struct evs_parser *p)
{
    if (p->error != EVS_NEED_MORE) {
        return p->error;
    }
    return p->have > 0 ? fail(p, EVS_ERR_TRUNCATED) : EVS_NEED_MORE;
}

bool evs_header_next(const struct evs_message *m, size_t *cursor, struct evs_header *out)
{
    return walk_header(m->headers, m->headers_len, cursor, out);
}

bool evs_header_string(const struct evs_message *m, const char *name, const char **out,
                       size_t *out_len)
{
    size_t cursor = 0;
    size_t name_len = strlen(name);
    struct evs_header h;
    while (evs_header_next(m, &cursor, &h)) {
        if (h.type == EVS_STRING && h.name_len == name_len && memcmp(h.name, name, name_len) == 0) {
            *out = (const char *)h.value;
            *out_len = h.value_len;
            return true;
        }
    }
    return false;
}
