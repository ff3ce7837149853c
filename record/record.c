/*
 * record.c - the names and identifiers a record is exported with.
 */
#include "record/record.h"

#include <string.h>
#include <strings.h>

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

void record_secrets_add(struct record_secrets *s, const char *value, size_t len)
{
    static const char *const schemes[] = {"Bearer ", "Basic ", "Token "};
    for (size_t i = 0; i < sizeof(schemes) / sizeof(schemes[0]); i++) {
        size_t n = strlen(schemes[i]);
        if (len > n && strncasecmp(value, schemes[i], n) == 0) {
            record_secrets_add(s, value + n, len - n);
            break;
        }
    }
    if (len >= RECORD_SECRET_BYTES_MIN && s->count < RECORD_SECRETS_MAX) {
        s->items[s->count].ptr = value;
        s->items[s->count].len = len;
        s->count++;
    }
}

/* match_len returns how many bytes of the secret start at buf[i]: all of
 * it, or the part a text cut at its cap ends with (a leak all the same),
 * else 0. */
static size_t match_len(const char *buf, size_t len, size_t i, const char *secret,
                        size_t secret_len)
{
    size_t n = len - i < secret_len ? len - i : secret_len;
    if (buf[i] != secret[0] || n < RECORD_SECRET_BYTES_MIN || memcmp(buf + i, secret, n) != 0) {
        return 0;
    }
    return n;
}

/* redact_span rewrites buf (len bytes) with every `secret` replaced, and
 * returns its new length: never longer, so the copy runs in place. */
static size_t redact_span(char *buf, size_t len, const char *secret, size_t secret_len)
{
    const size_t mark_len = strlen(RECORD_REDACTED);
    size_t out = 0;
    size_t i = 0;
    while (i < len) {
        size_t n = match_len(buf, len, i, secret, secret_len);
        if (n > 0) {
            if (n >= mark_len) {
                memcpy(buf + out, RECORD_REDACTED, mark_len);
                out += mark_len;
            } else {
                memset(buf + out, '*', n);
                out += n;
            }
            i += n;
        } else {
            buf[out++] = buf[i++];
        }
    }
    return out;
}

void record_redact(struct record *rec, const struct record_secrets *s)
{
    for (size_t k = 0; s != NULL && k < s->count; k++) {
        const char *secret = s->items[k].ptr;
        size_t len = s->items[k].len;
        if (rec->text != NULL) {
            rec->text_len = redact_span(rec->text, rec->text_len, secret, len);
        }
        if (rec->reasoning_text != NULL) {
            rec->reasoning_len = redact_span(rec->reasoning_text, rec->reasoning_len, secret, len);
        }
        size_t message_len = strnlen(rec->error_message, sizeof(rec->error_message) - 1);
        rec->error_message[redact_span(rec->error_message, message_len, secret, len)] = '\0';
    }
}

bool record_spec_decode_consistent(const struct record_spec_decode *s)
{
    if (s->bucket_count > RECORD_SPEC_BUCKETS || s->accepted_draft_tokens < 0 ||
        s->draft_tokens < 0 || s->steps < 0 || s->accepted_draft_tokens > s->draft_tokens ||
        (s->spec_tokens != RECORD_ABSENT &&
         (s->spec_tokens < 0 || (uint64_t)s->bucket_count != (uint64_t)s->spec_tokens + 1))) {
        return false;
    }
    int64_t steps = 0;
    int64_t accepted = 0;
    for (uint32_t j = 0; j < s->bucket_count; j++) {
        int64_t weighted = 0;
        if (s->histogram[j] < 0 || __builtin_add_overflow(steps, s->histogram[j], &steps) ||
            __builtin_mul_overflow((int64_t)j, s->histogram[j], &weighted) ||
            __builtin_add_overflow(accepted, weighted, &accepted)) {
            return false;
        }
    }
    return steps == s->steps && accepted == s->accepted_draft_tokens;
}

bool record_spec_decode_usable(const struct record_spec_decode *s)
{
    return s->payloads == 1 && s->valid && s->steps > 0;
}

bool record_spec_decode_zero_step(const struct record_spec_decode *s)
{
    return s->payloads == 1 && s->valid && s->steps == 0;
}
