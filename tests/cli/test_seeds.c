/*
 * Every `aiperf profile` command of the seed documents (shared/spec/seeds),
 * run with `ringperf` in place of `aiperf`, the URL pointed at the mock server
 * and the artifacts in a temporary directory. Commands that use input files
 * run in test_inputs.c with generated files; the API example in test_api.c.
 * The commands whose features ringperf lacks are listed too, and must fail
 * cleanly, naming the flag: when a feature lands, its row moves over.
 */
#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "e2e.h"

struct seed_command {
    const char *seed;
    const char *words;        /* after "profile"; URL and DIR are filled in */
    const char *missing_flag; /* NULL: must succeed; else the flag it must name */
    size_t records;           /* a success: the requests its flags ask for */
};

static const struct seed_command COMMANDS[] = {
    {"000",
     "--model Qwen/Qwen3-0.6B --endpoint-type responses --endpoint /v1/responses --streaming "
     "--synthetic-input-tokens-mean 100 --synthetic-input-tokens-stddev 0 "
     "--output-tokens-mean 200 --output-tokens-stddev 0 --url URL --request-count 20",
     NULL, 20},
    {"000",
     "--model Qwen/Qwen3-0.6B --endpoint-type responses --endpoint /v1/responses --streaming "
     "--shared-system-prompt-length 50 --synthetic-input-tokens-mean 100 "
     "--output-tokens-mean 200 --url URL --request-count 20",
     NULL, 20},
    {"000",
     "--model Qwen/Qwen2-VL-2B-Instruct --endpoint-type responses --endpoint /v1/responses "
     "--image-width-mean 512 --image-height-mean 512 --synthetic-input-tokens-mean 100 "
     "--streaming --url URL --request-count 20 --concurrency 4",
     NULL, 20},
    {"000",
     "--model Qwen/Qwen2-Audio-7B-Instruct --endpoint-type responses --endpoint /v1/responses "
     "--streaming --audio-length-mean 5.0 --audio-format wav --audio-sample-rates 16 "
     "--url URL --request-count 20",
     NULL, 20},
    {"000",
     "--model Qwen/Qwen3-0.6B --endpoint-type responses --endpoint /v1/responses "
     "--synthetic-input-tokens-mean 100 --output-tokens-mean 200 --url URL --request-count 20",
     NULL, 20},
    {"000",
     "--model Qwen/Qwen3-0.6B --endpoint-type responses --endpoint /v1/responses --streaming "
     "--concurrency 10 --url URL --request-count 100",
     NULL, 100},
    {"000",
     "--model Qwen/Qwen3-0.6B --endpoint-type responses --endpoint /v1/responses --streaming "
     "--request-rate 5 --url URL --request-count 100",
     NULL, 100},
    {"000",
     "--model Qwen/Qwen3-0.6B --endpoint-type responses --endpoint /v1/responses --streaming "
     "--conversation-num 10 --conversation-turn-mean 3 --synthetic-input-tokens-mean 100 "
     "--output-tokens-mean 200 --url URL",
     /* --conversation-num is AIPerf's --num-sessions: 10 sessions of 3 turns. */
     NULL, 30},
    {"000",
     "--model Qwen/Qwen3-0.6B --endpoint-type responses --endpoint /v1/responses --streaming "
     "--use-server-token-count --url URL --request-count 20",
     NULL, 20},
    {"000",
     "--model Qwen/Qwen3-0.6B --endpoint-type responses --endpoint /v1/responses --streaming "
     "--extra-inputs temperature:0.7 --extra-inputs top_p:0.9 --url URL --request-count 20",
     NULL, 20},
    {"001",
     "--model Qwen/Qwen3-0.6B --endpoint-type chat --endpoint /v1/chat/completions --streaming "
     "--synthetic-input-tokens-mean 100 --synthetic-input-tokens-stddev 0 "
     "--output-tokens-mean 200 --output-tokens-stddev 0 --url URL --request-count 20",
     NULL, 20},
    {"001",
     "--model Qwen/Qwen3-0.6B --endpoint-type completions --endpoint /v1/completions "
     "--synthetic-input-tokens-mean 64 --synthetic-input-tokens-stddev 4 "
     "--output-tokens-mean 128 --output-tokens-stddev 4 --url URL --request-count 32",
     NULL, 32},
    /* No stop condition: AIPerf's default of 10 requests. */
    {"002", "--model Qwen/Qwen3-0.6B --endpoint-type chat --url URL --concurrency 4", NULL, 10},
};

Test(seeds, every_seed_command_runs_or_names_what_is_missing, .timeout = 600)
{
    struct e2e w;
    e2e_start(&w, NULL);
    for (size_t i = 0; i < sizeof(COMMANDS) / sizeof(COMMANDS[0]); i++) {
        const struct seed_command *c = &COMMANDS[i];
        char words[1024];
        snprintf(words, sizeof(words), "profile %s --artifact-dir DIR", c->words);
        char *out = NULL;
        int status = run_ringperf(&w, words, true, &out);
        if (c->missing_flag == NULL) {
            cr_assert_eq(status, 0, "seed %s: %s\nexit %d:\n%s", c->seed, c->words, status, out);
            size_t errors = 0;
            cr_assert_eq(count_export_lines(&w, &errors), c->records, "seed %s: %s", c->seed,
                         c->words);
            cr_assert_eq(errors, 0, "seed %s: %s", c->seed, c->words);
            cr_assert(strstr(out, "Request Count (requests)") != NULL, "seed %s: %s", c->seed, out);
        } else {
            cr_assert_eq(status, 1, "seed %s: %s\n%s", c->seed, c->words, out);
            cr_assert(strstr(out, c->missing_flag) != NULL, "seed %s names %s:\n%s", c->seed,
                      c->missing_flag, out);
        }
        free(out);
    }
    e2e_finish(&w);
}
