/*
 * endpoint_internal.h - helpers shared by the endpoint/ source files only.
 */
#ifndef RINGPERF_ENDPOINT_INTERNAL_H
#define RINGPERF_ENDPOINT_INTERNAL_H

#include <jansson.h>
#include <stddef.h>

/* endpoint__err formats a message into errbuf (errcap bytes); a NULL errbuf
 * or zero errcap discards it. */
void endpoint__err(char *errbuf, size_t errcap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* endpoint__dump returns `v` as compact JSON (malloc'd; caller frees), with
 * reals printed in their shortest exact form. NULL when out of memory or
 * over 256 MiB. */
char *endpoint__dump(const json_t *v);

#endif
