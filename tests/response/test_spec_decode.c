/*
 * test_spec_decode.c - vLLM's per-request speculative-decoding statistics
 * (metrics.speculative_decoding) read from chat and completions payloads, checked as AIPerf's
 * vLLM adapter checks them, and folded into the record (one payload per request). Payloads sit
 * right before a PROT_NONE page so that an over-read crashes.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "endpoint/endpoint.h"
#include "response/response.h"
#include "tests/support/guard.h"
#include "tests/support/response_fixture.h"

static enum response_parse_status parse(enum endpoint_type t, const char *json,
                                        struct response_chunk *out)
{
    static struct guard_region guard;
    struct response_reader r;
    response_reader_init(&r, t, NULL, NULL, 0);
    size_t len = strlen(json);
    return response_parse_event(&r, NULL, NULL, 0, guard_copy(&guard, json, len), len, out);
}

/* chat_body wraps a "metrics" member's value into a chat.completion body. */
static const char *chat_body(const char *metrics)
{
    static char buf[2048];
    snprintf(buf, sizeof(buf),
             "{\"object\":\"chat.completion\",\"choices\":[{\"index\":0,\"message\":{\"content\":"
             "\"hi\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":3,"
             "\"completion_tokens\":8},\"metrics\":%s}",
             metrics);
    return buf;
}

#define GOOD                                                                                       \
    "\"mean_acceptance_length\":1.75,\"draft_acceptance_rate\":0.25,\"acceptance_histogram\":[2,"  \
    "1,1,0],\"num_accepted_draft_tokens\":3,\"num_draft_tokens\":12,\"num_spec_steps\":4"

Test(response_spec_decode, a_vllm_payload_is_read_whole)
{
    struct response_chunk c;
    cr_assert_eq(parse(ENDPOINT_CHAT,
                       chat_body("{\"speculative_decoding\":{" GOOD ",\"num_spec_tokens\":3,"
                                 "\"per_step_accepted\":[0,1,2,0],\"per_step_drafted\":[3,3,3,3]}"
                                 "}"),
                       &c),
                 RESPONSE_PARSE_OK);
    cr_assert(c.spec_decode_present);
    const struct record_spec_decode *s = &c.spec_decode;
    cr_assert(s->valid);
    cr_assert_eq(s->payloads, 1);
    cr_assert_float_eq(s->mean_acceptance_length, 1.75, 1e-12);
    cr_assert_float_eq(s->draft_acceptance_rate, 0.25, 1e-12);
    cr_assert_eq(s->accepted_draft_tokens, 3);
    cr_assert_eq(s->draft_tokens, 12);
    cr_assert_eq(s->steps, 4);
    cr_assert_eq(s->spec_tokens, 3);
    cr_assert_eq(s->bucket_count, 4);
    const int64_t want[] = {2, 1, 1, 0};
    for (int j = 0; j < 4; j++) {
        cr_assert_eq(s->histogram[j], want[j], "bucket %d", j);
    }
    cr_assert(record_spec_decode_usable(s));
    cr_assert_not(record_spec_decode_zero_step(s));
}

Test(response_spec_decode, completions_and_a_usage_chunk_carry_it_too)
{
    struct response_chunk c;
    cr_assert_eq(parse(ENDPOINT_COMPLETIONS,
                       "{\"object\":\"text_completion\",\"choices\":[{\"index\":0,\"text\":\"x\"}],"
                       "\"metrics\":{\"speculative_decoding\":{" GOOD
                       ",\"num_spec_tokens\":null}}}",
                       &c),
                 RESPONSE_PARSE_OK);
    cr_assert(c.spec_decode_present && c.spec_decode.valid);
    cr_assert_eq(c.spec_decode.spec_tokens, RECORD_ABSENT);
    cr_assert_eq(parse(ENDPOINT_CHAT,
                       "{\"object\":\"chat.completion.chunk\",\"choices\":[],\"usage\":{"
                       "\"prompt_tokens\":3},\"metrics\":{\"speculative_decoding\":{" GOOD "}}}",
                       &c),
                 RESPONSE_PARSE_OK);
    cr_assert(c.spec_decode_present && c.spec_decode.valid);
    cr_assert(c.usage.present);
}

Test(response_spec_decode, a_zero_step_payload_is_valid_but_not_usable)
{
    struct response_chunk c;
    parse(ENDPOINT_CHAT,
          chat_body("{\"speculative_decoding\":{\"mean_acceptance_length\":1.0,"
                    "\"draft_acceptance_rate\":0.0,\"acceptance_histogram\":[0,0,0,0],"
                    "\"num_accepted_draft_tokens\":0,\"num_draft_tokens\":0,\"num_spec_steps\":0,"
                    "\"num_spec_tokens\":3}}"),
          &c);
    cr_assert(c.spec_decode_present && c.spec_decode.valid);
    cr_assert(record_spec_decode_zero_step(&c.spec_decode));
    cr_assert_not(record_spec_decode_usable(&c.spec_decode));
}

/* Payloads that are not there at all: no metrics, a null, an empty object, another shape. */
Test(response_spec_decode, absent_payloads_are_not_payloads)
{
    static const char *const metrics[] = {
        "null",
        "{}",
        "{\"speculative_decoding\":null}",
        "{\"speculative_decoding\":{}}",
        "{\"speculative_decoding\":[1,2]}",
        "{\"speculative_decoding\":\"x\"}",
        "[]",
    };
    struct response_chunk c;
    for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++) {
        cr_assert_eq(parse(ENDPOINT_CHAT, chat_body(metrics[i]), &c), RESPONSE_PARSE_OK, "%s",
                     metrics[i]);
        cr_assert_not(c.spec_decode_present, "%s", metrics[i]);
    }
    /* Only chat and completions read it, as AIPerf's other endpoints do not. */
    cr_assert_eq(
        parse(ENDPOINT_RESPONSES,
              "{\"type\":\"response.completed\",\"metrics\":{\"speculative_decoding\":{" GOOD "}}}",
              &c),
        RESPONSE_PARSE_OK);
    cr_assert_not(c.spec_decode_present);
}

/* Each payload is present (it counts) but not valid: AIPerf's adapter drops it. */
Test(response_spec_decode, malformed_or_inconsistent_payloads_are_not_valid)
{
    static const char *const bad[] = {
        /* the three keys that mark a vLLM payload */
        "\"draft_acceptance_rate\":0.25,\"acceptance_histogram\":[2,1,1,0],"
        "\"num_accepted_draft_tokens\":3,\"num_draft_tokens\":12,\"num_spec_steps\":4",
        "\"mean_acceptance_length\":1.75,\"draft_acceptance_rate\":0.25,"
        "\"num_accepted_draft_tokens\":3,\"num_draft_tokens\":12,\"num_spec_steps\":4",
        "\"mean_acceptance_length\":1.75,\"draft_acceptance_rate\":0.25,"
        "\"acceptance_histogram\":[2,1,1,0],\"num_accepted_draft_tokens\":3,"
        "\"num_draft_tokens\":12",
        /* required fields and their types */
        GOOD ",\"draft_acceptance_rate\":null",
        GOOD ",\"mean_acceptance_length\":\"1.75\"",
        GOOD ",\"num_draft_tokens\":12.0",
        GOOD ",\"num_draft_tokens\":-1",
        GOOD ",\"acceptance_histogram\":{\"0\":2}",
        GOOD ",\"acceptance_histogram\":[2,1,1,true]",
        GOOD ",\"acceptance_histogram\":[2,1,1.0,0]",
        GOOD ",\"num_spec_tokens\":-3",
        GOOD ",\"num_spec_tokens\":\"3\"",
        GOOD ",\"per_step_accepted\":[0,-1]",
        GOOD ",\"per_step_drafted\":3",
        /* the identities */
        GOOD ",\"num_spec_tokens\":4",
        GOOD ",\"num_spec_steps\":5",
        GOOD ",\"num_accepted_draft_tokens\":4",
        GOOD ",\"num_draft_tokens\":2",
        GOOD ",\"acceptance_histogram\":[1,1,1,1]",
        GOOD ",\"acceptance_histogram\":[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
             "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,4]",
        GOOD ",\"acceptance_histogram\":[0,9223372036854775807,9223372036854775807,1]",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char metrics[1024];
        snprintf(metrics, sizeof(metrics), "{\"speculative_decoding\":{%s}}", bad[i]);
        struct response_chunk c;
        cr_assert_eq(parse(ENDPOINT_CHAT, chat_body(metrics), &c), RESPONSE_PARSE_OK, "%s", bad[i]);
        cr_assert(c.spec_decode_present, "%s", bad[i]);
        cr_assert_not(c.spec_decode.valid, "%s", bad[i]);
        cr_assert_not(record_spec_decode_usable(&c.spec_decode), "%s", bad[i]);
        cr_assert_not(record_spec_decode_zero_step(&c.spec_decode), "%s", bad[i]);
    }
}

static void feed(struct response_fixture *f, const char *data)
{
    struct sse_event ev = {
        .data = data,
        .data_len = strlen(data),
        .event_type = "",
        .comment = "",
        .has_data = true,
    };
    cr_assert_neq(
        response_read_event(&f->reader, &f->state, &f->limits, &ev, 100, false, &f->rec, &f->fail),
        RESPONSE_STEP_FAILED);
}

#define STATS_CHUNK                                                                                \
    "{\"object\":\"chat.completion.chunk\",\"choices\":[],\"metrics\":{\"speculative_decoding\":"  \
    "{" GOOD "}}}"

Test(response_spec_decode, a_stream_keeps_its_one_payload_and_counts_more)
{
    struct response_fixture f;
    cr_assert_eq(response_fixture_init(&f, ENDPOINT_CHAT, RESPONSE_FIXTURE_EVENTS), 0);
    feed(&f, "{\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{"
             "\"content\":\"a\"},\"finish_reason\":null}]}");
    cr_assert_eq(f.rec.spec_decode.payloads, 0);
    feed(&f, STATS_CHUNK);
    cr_assert_eq(f.rec.spec_decode.payloads, 1);
    cr_assert(record_spec_decode_usable(&f.rec.spec_decode));
    cr_assert_eq(f.rec.spec_decode.steps, 4);
    /* A second payload is a request of several sequences: no statistics at all. */
    feed(&f, STATS_CHUNK);
    cr_assert_eq(f.rec.spec_decode.payloads, 2);
    cr_assert_not(record_spec_decode_usable(&f.rec.spec_decode));
}

Test(response_spec_decode, a_body_folds_its_payload_into_the_record)
{
    struct response_fixture f;
    cr_assert_eq(response_fixture_init(&f, ENDPOINT_CHAT, RESPONSE_FIXTURE_EVENTS), 0);
    const char *body = chat_body("{\"speculative_decoding\":{" GOOD "}}");
    cr_assert_eq(response_read_body(&f.reader, &f.state, &f.limits, body, strlen(body), 100, &f.rec,
                                    &f.fail),
                 RESPONSE_STEP_GENERATED);
    cr_assert(record_spec_decode_usable(&f.rec.spec_decode));
    cr_assert_eq(f.rec.spec_decode.accepted_draft_tokens, 3);
    cr_assert_eq(f.rec.usage.completion_tokens, 8);
}
