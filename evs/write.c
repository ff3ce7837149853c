/*
 * write.c - framing a message: what the mock server sends and the tests feed the parser.
 */
#include <string.h>
#include <zlib.h>

#include "evs/evs.h"

static void put_be32(uint8_t *b, uint32_t v)
{
    b[0] = (uint8_t)(v >> 24);
    b[1] = (uint8_t)(v >> 16);
    b[2] = (uint8_t)(v >> 8);
    b[3] = (uint8_t)v;
}

static size_t headers_size(const struct evs_string_header *headers, size_t count)
{
    size_t n = 0;
    for (size_t i = 0; i < count; i++) {
        n += 1 + strlen(headers[i].name) + 1 + 2 + headers[i].value_len;
    }
    return n;
}

size_t evs_message_size(const struct evs_string_header *headers, size_t count, size_t payload_len)
{
    return EVS_MESSAGE_MIN_BYTES + headers_size(headers, count) + payload_len;
}

static bool headers_ok(const struct evs_string_header *headers, size_t count)
{
    for (size_t i = 0; i < count; i++) {
        size_t name_len = strlen(headers[i].name);
        if (name_len == 0 || name_len > 255 || headers[i].value_len > 65535) {
            return false;
        }
    }
    return headers_size(headers, count) <= EVS_HEADERS_BYTES_MAX;
}

size_t evs_message_write(uint8_t *out, size_t cap, const struct evs_string_header *headers,
                         size_t count, const void *payload, size_t payload_len)
{
    size_t hlen = headers_size(headers, count);
    size_t total = EVS_MESSAGE_MIN_BYTES + hlen + payload_len;
    if (!headers_ok(headers, count) || total > cap || total > UINT32_MAX) {
        return 0;
    }
    if (payload_len > 0) {
        memmove(out + EVS_PRELUDE_BYTES + hlen, payload, payload_len);
    }
    put_be32(out, (uint32_t)total);
    put_be32(out + 4, (uint32_t)hlen);
    put_be32(out + 8, (uint32_t)crc32(0L, out, 8));
    uint8_t *h = out + EVS_PRELUDE_BYTES;
    for (size_t i = 0; i < count; i++) {
        size_t name_len = strlen(headers[i].name);
        *h++ = (uint8_t)name_len;
        memcpy(h, headers[i].name, name_len);
        h += name_len;
        *h++ = EVS_STRING;
        *h++ = (uint8_t)(headers[i].value_len >> 8);
        *h++ = (uint8_t)headers[i].value_len;
        memcpy(h, headers[i].value, headers[i].value_len);
        h += headers[i].value_len;
    }
    put_be32(out + total - 4, (uint32_t)crc32(0L, out, (uInt)(total - 4)));
    return total;
}
