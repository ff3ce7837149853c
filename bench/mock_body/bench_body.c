/*
 * bench_body.c - one core reading request bodies as the mock does: the in-place reader
 * (mock__api_parse) beside the jansson reader it replaced (tests/mock/api_jansson.c), taking
 * turns on the same bodies so that both see the same machine.
 * Usage: bench_body [SECONDS]   (default 2 per reader and body; prints MB/s and the ratio)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mock/mock_internal.h"
#include "tests/mock/api_jansson.h"

typedef enum mock__api_status (*parse_fn)(enum mock__route, const char *, size_t, uint32_t,
                                          struct mock__job *, char *, size_t);

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* chat_body builds a chat body whose one message repeats `word` until it holds `bytes`. */
static char *chat_body(size_t bytes, const char *word, size_t *out_len)
{
    size_t cap = bytes + 256;
    char *b = malloc(cap);
    if (b == NULL) {
        exit(1);
    }
    size_t n = (size_t)snprintf(b, cap,
                                "{\"model\":\"mock-model\",\"stream\":true,\"max_tokens\":16,"
                                "\"messages\":[{\"role\":\"user\",\"content\":\"");
    size_t wl = strlen(word);
    while (n + wl < bytes) {
        memcpy(b + n, word, wl);
        n += wl;
    }
    n += (size_t)snprintf(b + n, cap - n, "\"}]}");
    *out_len = n;
    return b;
}

/* run parses `body` with `fn` for `seconds` and returns MB/s (0 when a parse fails). */
static double run(parse_fn fn, const char *body, size_t len, double seconds)
{
    struct mock__job job;
    char msg[MOCK__ERROR_MESSAGE_BYTES];
    uint64_t words = 0;
    size_t rounds = 0;
    double t0 = now_s();
    double t = t0;
    while (t - t0 < seconds) {
        for (int k = 0; k < 8; k++) {
            if (fn(MOCK__ROUTE_CHAT, body, len, 16, &job, msg, sizeof(msg)) != MOCK__API_OK) {
                fprintf(stderr, "parse failed: %s\n", msg);
                return 0;
            }
            words += job.prompt_tokens;
            rounds++;
        }
        t = now_s();
    }
    if (words == 0) {
        fprintf(stderr, "no words counted\n");
    }
    return (double)len * (double)rounds / (t - t0) / 1e6;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 2.0;
    struct {
        const char *key;
        const char *name;
        size_t bytes;
        const char *word;
    } cases[] = {
        {"chat_4k", "chat, a 550-word prompt (4 KiB)", 4000, "lorem "},
        {"chat_1m", "chat, a 1 MiB prompt", 1u << 20, "lorem ipsum "},
        {"chat_16m", "chat, a 16 MiB prompt", 16u << 20, "lorem ipsum "},
        {"lines_1m", "chat, 1 MiB of 80-byte lines (\\n)", 1u << 20,
         "Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor.\\n"},
        {"escapes_1m", "chat, 1 MiB, a \\n after every word", 1u << 20, "lorem\\n"},
    };
    printf("%-11s %14s %13s %7s  %s\n", "case", "in-place MB/s", "jansson MB/s", "ratio", "body");
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t len = 0;
        char *body = chat_body(cases[i].bytes, cases[i].word, &len);
        /* Taking turns, twice, and keeping each reader's best half. */
        double fast = 0;
        double slow = 0;
        for (int round = 0; round < 2; round++) {
            double f = run(mock__api_parse, body, len, seconds / 2);
            double s = run(mock_ref_api_parse, body, len, seconds / 2);
            fast = f > fast ? f : fast;
            slow = s > slow ? s : slow;
        }
        printf("%-11s %14.0f %13.1f %6.1fx  %s\n", cases[i].key, fast, slow,
               slow > 0 ? fast / slow : 0, cases[i].name);
        free(body);
    }
    return 0;
}
