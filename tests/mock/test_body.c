/*
 * test_body.c - the in-place body reader (mock__api_parse) against the jansson reader it
 * replaced (api_jansson.c): for every route and every body of a table of valid, invalid and
 * odd bodies, and for mutations of them, the same status, the same message and the same job.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "tests/mock/api_jansson.h"
#include "mock/mock_internal.h"

static const enum mock__route ROUTES[] = {
    MOCK__ROUTE_CHAT,       MOCK__ROUTE_COMPLETIONS,   MOCK__ROUTE_RESPONSES,
    MOCK__ROUTE_MESSAGES,   MOCK__ROUTE_GENERATE,      MOCK__ROUTE_GENERATE_STREAM,
    MOCK__ROUTE_EMBEDDINGS, MOCK__ROUTE_NIM_RANKING,   MOCK__ROUTE_COHERE_RERANK,
    MOCK__ROUTE_TEI_RERANK, MOCK__ROUTE_IMAGES,        MOCK__ROUTE_INFER,
    MOCK__ROUTE_RAG,        MOCK__ROUTE_VLLM_GENERATE,
};

static const char *const BODIES[] = {
    "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"a b\\nc\\u0020d\"}],"
    "\"stream\":true,\"stream_options\":{\"include_usage\":true,\"continuous_usage_stats\":false},"
    "\"max_tokens\":5,\"max_completion_tokens\":7,\"max_output_tokens\":3}",
    "{\"messages\":[{\"content\":[{\"type\":\"text\",\"text\":\"x y\"},{\"text\":7},5]},3,"
    "{\"content\":null},{\"content\":{\"text\":\"no\"}}],\"system\":[{\"text\":\"s t\"}]}",
    "{\"messages\":[],\"system\":\"one two three\",\"max_tokens\":null,\"stream\":null}",
    "{\"prompt\":[\"a b\",1,[2,3,4],\"\",\"\\t\"],\"max_tokens\":1048576}",
    "{\"prompt\":\"p q r\",\"max_tokens\":1048577}",
    "{\"prompt\":[1.5]}",
    "{\"prompt\":[true]}",
    "{\"prompt\":{}}",
    "{\"input\":\"i j\",\"instructions\":\"k\",\"max_output_tokens\":2}",
    "{\"input\":[{\"content\":\"a\"},{\"content\":[{\"text\":\"b c\"}]}],\"instructions\":[]}",
    "{\"input\":[\"e f\",{\"text\":\"g\"},[{\"text\":\"h i\"}],7],\"model\":\"emb\"}",
    "{\"input\":null,\"messages\":[{\"content\":\"x\"}]}",
    "{\"messages\":[{\"content\":\"x\"}]}",
    "{\"input\":5}",
    "{\"inputs\":\"t g i\",\"parameters\":{\"max_new_tokens\":4}}",
    "{\"inputs\":\"t\",\"parameters\":null}",
    "{\"inputs\":\"t\",\"parameters\":[]}",
    "{\"inputs\":\"t\",\"parameters\":{\"max_new_tokens\":0}}",
    "{\"inputs\":7}",
    "{\"input_ids\":[1,2,3],\"sampling_params\":{\"max_new_tokens\":4},\"stream\":true}",
    "{\"input_ids\":null,\"inputs\":\"t\"}",
    "{\"input_ids\":[1,-2]}",
    "{\"input_ids\":[1,2.0]}",
    "{\"input_ids\":[9223372036854775807],\"sampling_params\":[]}",
    "{\"token_ids\":[5,6],\"sampling_params\":{\"max_tokens\":3},\"stream\":false}",
    "{\"token_ids\":[5],\"stream\":true}",
    "{\"token_ids\":[],\"sampling_params\":null}",
    "{\"query\":{\"text\":\"q w\"},\"passages\":[{\"text\":\"p1 p2\"},{\"text\":\"p3\"}]}",
    "{\"query\":\"q\",\"documents\":[\"d1 d2\",\"d3\"],\"texts\":[\"t1\"]}",
    "{\"query\":\"q\",\"texts\":{}}",
    "{\"query\":{\"text\":1},\"passages\":[]}",
    "{\"model\":\"\",\"messages\":[]}",
    "{\"model\":null,\"messages\":[]}",
    "{\"model\":\"caf\\u00e9 \\ud83d\\ude00 \\\"q\\\" \\u0000\",\"messages\":[]}",
    "{\"model\":7}",
    "{\"m\\u006fdel\":\"escaped-name\",\"messages\":[],\"model\":\"first\"}",
    "{\"model\":\"a\",\"model\":\"b\",\"messages\":[],\"messages\":{}}",
    "{\"messages\":[],\"stream\":\"yes\"}",
    "{\"messages\":[],\"stream_options\":[]}",
    "{\"messages\":[],\"stream_options\":{\"include_usage\":1}}",
    "{\"messages\":[],\"stream_options\":{\"continuous_usage_stats\":true}}",
    "{\"messages\":[],\"max_tokens\":2.0}",
    "{\"messages\":[],\"max_tokens\":-1}",
    "{\"messages\":[],\"max_tokens\":1e2}",
    "{\"messages\":[],\"max_tokens\":9223372036854775807}",
    "{\"messages\":[],\"max_tokens\":9223372036854775808}",
    "{\"messages\":[],\"x\":1e400}",
    "{\"messages\":[],\"x\":\"\\ud800\"}",
    "{\"messages\":[],\"x\\u0000\":1}",
    "{\"messages\":[],\"x\":\"\xff\"}",
    "{\"messages\":[],\"x\":\"\xc3\xa9\"}",
    "{\"messages\":[\"a\"]",
    "{\"messages\":[]} x",
    "{\"messages\":[],}",
    "{\"messages\" [] }",
    "[{\"messages\":[]}]",
    "\"messages\"",
    "7",
    "null",
    "",
    "   ",
    "{",
    "\xef\xbb\xbf{}",
    " {\"messages\" : [ { \"content\" : \" spaced  out \" } ] }\n",
    "{\"prompt\":\"a cat\",\"n\":3,\"stream\":true,\"model\":\"flux\"}",
    "{\"prompt\":\"a cat\",\"n\":17}",
    "{\"prompt\":\"a cat\",\"n\":2.0}",
    "{\"input\":[{\"type\":\"image_url\",\"url\":\"data:x\"},{\"text\":\"t w\"}]}",
    "{\"query\":[\"one two\",\"three\"],\"inference_model\":\"rag\"}",
    "{\"query\":[\"one\",2],\"inference_model\":\"\"}",
};

static void expect_same(enum mock__route route, const char *body, size_t len)
{
    struct mock_ref_pair p;
    bool same = mock_ref_compare(route, body, len, &p);
    cr_assert(same,
              "route %d body %.*s: status %d \"%s\" prompt words %llu, jansson: status %d \"%s\" "
              "prompt words %llu",
              route, (int)len, body, p.got, p.got_msg, (unsigned long long)p.got_job.prompt_tokens,
              p.want, p.want_msg, (unsigned long long)p.want_job.prompt_tokens);
}

Test(mock_body, every_route_reads_every_body_as_jansson_did)
{
    for (size_t r = 0; r < sizeof(ROUTES) / sizeof(ROUTES[0]); r++) {
        for (size_t b = 0; b < sizeof(BODIES) / sizeof(BODIES[0]); b++) {
            expect_same(ROUTES[r], BODIES[b], strlen(BODIES[b]));
        }
    }
}

/* Each body cut at every length, and with each byte replaced by a structural byte. */
Test(mock_body, cut_and_mutated_bodies_read_as_jansson_did)
{
    static const char swaps[] = {'"', '\\', ',', ':', '{', '}', '[', ']', '0', ' ', 'u', '\x01'};
    char buf[512];
    for (size_t b = 0; b < sizeof(BODIES) / sizeof(BODIES[0]); b++) {
        size_t n = strlen(BODIES[b]);
        cr_assert(n < sizeof(buf));
        for (size_t cut = 0; cut <= n; cut++) {
            expect_same(MOCK__ROUTE_CHAT, BODIES[b], cut);
        }
        for (size_t i = 0; i < n; i++) {
            memcpy(buf, BODIES[b], n);
            buf[i] = swaps[(i + b) % sizeof(swaps)];
            expect_same(ROUTES[(i + b) % (sizeof(ROUTES) / sizeof(ROUTES[0]))], buf, n);
        }
    }
}

/* A chat body with one message of `words` words, `sep` between them. */
static char *big_chat(size_t words, const char *sep, size_t *out_len)
{
    size_t sep_len = strlen(sep);
    size_t cap = 64 + words * (5 + sep_len);
    char *body = malloc(cap);
    cr_assert_not_null(body);
    size_t n = (size_t)snprintf(body, cap, "{\"messages\":[{\"content\":\"");
    for (size_t i = 0; i < words; i++) {
        memcpy(body + n, "word", 4);
        n += 4;
        memcpy(body + n, sep, sep_len);
        n += sep_len;
    }
    n += (size_t)snprintf(body + n, cap - n, "\"}]}");
    *out_len = n;
    return body;
}

Test(mock_body, megabyte_prompts_count_as_jansson_did)
{
    const char *seps[] = {" ", "\\n", "  \\t ", "\\u0041 "};
    for (size_t s = 0; s < sizeof(seps) / sizeof(seps[0]); s++) {
        size_t len = 0;
        char *body = big_chat(300000, seps[s], &len);
        expect_same(MOCK__ROUTE_CHAT, body, len);
        free(body);
    }
}
