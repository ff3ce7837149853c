/*
 * bench_encode.c - single-core encode throughput of ringperf's tokenizer.
 * Usage: bench_encode TOKENIZER_JSON DOCS_JSON_OUT SECONDS
 * Builds the test corpus (tests/tokenizer/corpus.c) cut into documents, writes
 * them for bench.js (so both encoders see identical input), then encodes them
 * round after round for SECONDS and prints MB/s and tokens/s.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "corpus.h"
#include "tokenizer/tokenizer.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: bench_encode TOKENIZER_JSON DOCS_JSON_OUT SECONDS\n");
        return 2;
    }
    char err[TOKENIZER_ERR_CAP];
    struct tokenizer *tok = NULL;
    double t0 = now_s();
    if (tokenizer_load(argv[1], &tok, err, sizeof(err)) != 0) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    double load_s = now_s() - t0;
    struct corpus corpus;
    if (!corpus_build(&corpus, 3000, 99) || !corpus_write_json(&corpus, argv[2])) {
        fprintf(stderr, "corpus failed\n");
        return 1;
    }
    size_t bytes = 0;
    for (size_t i = 0; i < corpus.count; i++) {
        bytes += corpus.cases[i].len;
    }
    struct tokenizer_scratch s = {0};
    double seconds = atof(argv[3]);
    size_t rounds = 0;
    size_t tokens = 0;
    t0 = now_s();
    double elapsed = 0;
    do {
        for (size_t i = 0; i < corpus.count; i++) {
            size_t n = 0;
            if (tokenizer_count(tok, &s, corpus.cases[i].text, corpus.cases[i].len, &n) !=
                TOKENIZER_OK) {
                fprintf(stderr, "encode failed\n");
                return 1;
            }
            tokens += n;
        }
        rounds++;
        elapsed = now_s() - t0;
    } while (elapsed < seconds);
    printf("ringperf (C)  load %.2f s  %zu docs %.2f MB  encode %.2f MB/s  %.0f tokens/s\n", load_s,
           corpus.count, (double)bytes / 1e6, (double)(bytes * rounds) / 1e6 / elapsed,
           (double)tokens / elapsed);
    tokenizer_scratch_free(&s);
    corpus_free(&corpus);
    tokenizer_free(tok);
    return 0;
}
