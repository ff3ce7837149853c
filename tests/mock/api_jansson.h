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

#endif
