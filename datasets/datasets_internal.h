/*
 * datasets_internal.h - shared between the datasets module's files. Not public.
 */
#ifndef RINGPERF_DATASETS_INTERNAL_H
#define RINGPERF_DATASETS_INTERNAL_H

#include <stddef.h>

/* DATASET__PROSE is the built-in source text for token-exact prompts. */
extern const char DATASET__PROSE[];
extern const size_t DATASET__PROSE_LEN;

#endif
