/*
 * endpoint_internal.h - helpers shared by the endpoint/ source files only.
 */
#ifndef RINGPERF_ENDPOINT_INTERNAL_H
#define RINGPERF_ENDPOINT_INTERNAL_H

#include <jansson.h>
#include <stddef.h>

#include "endpoint/endpoint.h"

/* endpoint__err formats a message into errbuf (errcap bytes); a NULL errbuf
 * or zero errcap discards it. */
void endpoint__err(char *errbuf, size_t errcap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* endpoint__dump returns `v` as compact JSON (malloc'd; caller frees), with
 * reals printed in their shortest exact form. NULL when out of memory or
 * over 256 MiB. */
char *endpoint__dump(const json_t *v);

/* endpoint__payload_base returns the base fields of spec's type in AIPerf's
 * key order (payload_types.c), before extra inputs and stream_options; NULL
 * with a message in errbuf on a missing or non-UTF-8 input, a max_tokens over
 * LLONG_MAX, or out of memory. */
json_t *endpoint__payload_base(const struct endpoint_payload_spec *spec, char *errbuf,
                               size_t errcap);

#endif
