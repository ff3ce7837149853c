/*
 * corpus.h - a varied test corpus for tokenizer comparisons (tests and bench).
 *
 * Fixed cases cover code, CJK, emoji, long whitespace runs, digits, mixed
 * scripts, NFC-sensitive sequences, invalid UTF-8 and special-token text;
 * random cases (seeded, reproducible) mix those fragments. Characters come from
 * ranges assigned long before Unicode 14, so PCRE2's and ICU's Unicode tables
 * agree on their properties.
 */
#ifndef RINGPERF_TESTS_TOKENIZER_CORPUS_H
#define RINGPERF_TESTS_TOKENIZER_CORPUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct corpus_case {
    char *text;
    size_t len;
    bool round_trips; /* decode(encode(text)) == text: valid, NFC-stable, no special tokens */
};

struct corpus {
    struct corpus_case *cases;
    size_t count;
};

/* corpus_build fills c with the fixed cases and random_count random ones from seed.
 * Returns false on allocation failure. */
bool corpus_build(struct corpus *c, size_t random_count, uint64_t seed);

/* corpus_free releases what corpus_build allocated. */
void corpus_free(struct corpus *c);

/* corpus_write_json writes the cases as a JSON array of base64 strings (reference.js input). */
bool corpus_write_json(const struct corpus *c, const char *path);

#endif
