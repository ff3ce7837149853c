/*
 * api_jansson.h - the jansson reference of mock__api_parse() (api_jansson.c).
 */
#ifndef RINGPERF_TESTS_MOCK_API_JANSSON_H
#define RINGPERF_TESTS_MOCK_API_JANSSON_H

#include "mock/mock_internal.h"

/* mock_ref_api_parse is mock__api_parse() as jansson implemented it: same contract, same
 * fields and messages. */
enum mock__api_status mock_ref_api_parse(enum mock__route route, const char *body, size_t len,
                                         uint32_t default_tokens, struct mock__job *out, char *msg,
                                         size_t msgcap);

/* mock_ref_count_words counts the words of decoded string bytes split on the six ASCII spaces
 * of isspace(), as the server counted them after jansson decoded the string. */
uint64_t mock_ref_count_words(const char *s, size_t n);

/* mock_ref_pair is one body read by both readers: mock__api_parse (got) and the reference
 * (want), with 16 as the default output length. */
struct mock_ref_pair {
    enum mock__api_status got;
    enum mock__api_status want;
    struct mock__job got_job;
    struct mock__job want_job;
    char got_msg[MOCK__ERROR_MESSAGE_BYTES];
    char want_msg[MOCK__ERROR_MESSAGE_BYTES];
};

/* mock_ref_compare reads `body` for `route` with both readers into *out and reports whether
 * they agree: the same status and message and, for a body that reads, the same job (output
 * length, prompt words, stream and usage flags, limit, model and its JSON form). */
bool mock_ref_compare(enum mock__route route, const char *body, size_t len,
                      struct mock_ref_pair *out);

#endif
