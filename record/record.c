/*
 * record.c - the names and identifiers a record is exported with.
 */
#include "record/record.h"

const char *record_outcome_name(enum record_outcome outcome)
{
    switch (outcome) {
    case RECORD_SUCCESS:
        return "success";
    case RECORD_ERROR:
        return "error";
    case RECORD_CANCELLED:
        return "cancelled";
    }
    return "unknown";
}

/* put_hex writes the low `digits` hex digits of v, most significant first. */
static char *put_hex(char *p, uint64_t v, int digits)
{
    static const char hex[] = "0123456789abcdef";
    for (int i = digits - 1; i >= 0; i--) {
        p[i] = hex[v & 15];
        v >>= 4;
    }
    return p + digits;
}

size_t record_request_id(uint64_t nonce, uint64_t ordinal, char *out, size_t cap)
{
    /* 8-4-4-4-12 like a version-4 UUID: nonce in the first three groups,
     * ordinal in the last two. Hand-formatted: it runs once per request. */
    if (cap < 37) {
        return 0;
    }
    char *p = put_hex(out, nonce >> 32, 8);
    *p++ = '-';
    p = put_hex(p, nonce >> 16, 4);
    *p++ = '-';
    *p++ = '4';
    p = put_hex(p, nonce, 3);
    *p++ = '-';
    *p++ = '8';
    p = put_hex(p, ordinal >> 48, 3);
    *p++ = '-';
    p = put_hex(p, ordinal, 12);
    *p = '\0';
    return 36;
}

size_t record_correlation_id(uint64_t nonce, uint64_t session, char *out, size_t cap)
{
    /* A different nonce: correlation ids never equal request ids. */
    return record_request_id(nonce ^ 0x636f7272656c6174ULL, session, out, cap);
}

void record_usage_keep(struct record_usage *kept, const struct record_usage *latest)
{
    if (!latest->present) {
        return;
    }
    kept->present = true;
#define RECORD__KEEP(name)                                                                         \
    if (latest->name != RECORD_ABSENT) {                                                           \
        kept->name = latest->name;                                                                 \
    }
    RECORD_USAGE_COUNTS(RECORD__KEEP)
#undef RECORD__KEEP
    if (latest->prompt_audio_seconds >= 0) {
        kept->prompt_audio_seconds = latest->prompt_audio_seconds;
    }
}
