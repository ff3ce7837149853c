/* The record's shared pieces: the usage it keeps as reports arrive, and the
 * ids it is exported with. */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "record/record.h"

Test(record_usage, none_is_absent_everywhere)
{
    struct record_usage u = RECORD_USAGE_NONE;
    cr_assert_not(u.present);
#define EXPECT_ABSENT(name) cr_assert_eq(u.name, RECORD_ABSENT, #name);
    RECORD_USAGE_COUNTS(EXPECT_ABSENT)
#undef EXPECT_ABSENT
    cr_assert_eq(u.prompt_audio_seconds, RECORD_ABSENT);
}

Test(record_usage, keep_takes_what_each_report_says)
{
    struct record_usage kept = RECORD_USAGE_NONE;
    struct record_usage latest = RECORD_USAGE_NONE;
    record_usage_keep(&kept, &latest);
    cr_assert_not(kept.present, "a report that is not present changes nothing");
    latest.present = true;
    latest.prompt_tokens = 12;
    latest.prompt_audio_seconds = 1.5;
    record_usage_keep(&kept, &latest);
    latest = RECORD_USAGE_NONE;
    latest.present = true;
    latest.completion_tokens = 0;
    latest.rejected_prediction_tokens = 4;
    record_usage_keep(&kept, &latest);
    cr_assert(kept.present);
    cr_assert_eq(kept.prompt_tokens, 12, "not reported again: kept");
    cr_assert_eq(kept.completion_tokens, 0, "a reported 0 is a count");
    cr_assert_eq(kept.rejected_prediction_tokens, 4);
    cr_assert_eq(kept.total_tokens, RECORD_ABSENT);
    cr_assert_eq(kept.prompt_audio_seconds, 1.5);
}

Test(record_ids, request_ids_are_uuid_shaped_and_distinct_from_correlation_ids)
{
    char a[40];
    char b[40];
    cr_assert_eq(record_request_id(0x0123456789abcdefULL, 42, a, sizeof(a)), 36);
    cr_assert_str_eq(a, "01234567-89ab-4def-8000-00000000002a");
    cr_assert_eq(record_correlation_id(0x0123456789abcdefULL, 42, b, sizeof(b)), 36);
    cr_assert_str_neq(a, b);
    cr_assert_eq(record_request_id(1, 2, a, 36), 0, "too small a buffer");
    cr_assert_str_eq(record_outcome_name(RECORD_CANCELLED), "cancelled");
}

/* redacted returns the text rec_text becomes once s is redacted from it. */
static char *redacted(const struct record_secrets *s, const char *rec_text, char *out, size_t cap)
{
    struct record rec = {0};
    size_t len = strlen(rec_text);
    cr_assert_lt(len, cap);
    memcpy(out, rec_text, len + 1);
    rec.text = out;
    rec.text_len = len;
    snprintf(rec.error_message, sizeof(rec.error_message), "%s", rec_text);
    record_redact(&rec, s);
    out[rec.text_len] = '\0';
    cr_assert_str_eq(rec.error_message, out, "the error message is redacted alike");
    return out;
}

Test(record_redact, echoed_credentials_are_replaced_in_place)
{
    static const char bearer[] = "Bearer sk-live-0123456789";
    static const char shorty[] = "abcd1";
    struct record_secrets s = {0};
    record_secrets_add(&s, bearer, strlen(bearer));
    record_secrets_add(&s, shorty, strlen(shorty));
    record_secrets_add(&s, "abc", 3); /* too short to redact */
    cr_assert_eq(s.count, 3, "the header value, its token, and the short key");
    char buf[256];
    const struct {
        const char *in;
        const char *out;
    } cases[] = {
        {"your key is sk-live-0123456789!", "your key is <redacted>!"},
        {"Authorization: Bearer sk-live-0123456789", "Authorization: Bearer <redacted>"},
        {"sk-live-0123456789sk-live-0123456789", "<redacted><redacted>"},
        {"short abcd1 key", "short ***** key"},
        {"cut at the cap: sk-live-01", "cut at the cap: <redacted>"},
        {"cut short: sk-l", "cut short: ****"},
        {"nothing here, abc", "nothing here, abc"},
        {"", ""},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        cr_assert_str_eq(redacted(&s, cases[i].in, buf, sizeof(buf)), cases[i].out, "case %zu", i);
    }
    struct record rec = {0};
    record_redact(&rec, NULL);
    record_redact(&rec, &s); /* no text at all */
}
