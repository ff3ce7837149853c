/*
 * media_internal.h - helpers shared by the media/ source files only.
 */
#ifndef RINGPERF_MEDIA_INTERNAL_H
#define RINGPERF_MEDIA_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "media/media.h"

/* media__rng is a splitmix64 stream: small, seedable, and the same on every
 * platform, which is what "same seed, same bytes" needs. */
struct media__rng {
    uint64_t state;
};

/* media__rng_seed starts a stream; `salt` separates the draws of one seed
 * (dimensions, format, pixels...) so that they do not depend on each other. */
void media__rng_seed(struct media__rng *rng, uint64_t seed, uint64_t salt);

/* media__rng_next returns the next 64 random bits. */
uint64_t media__rng_next(struct media__rng *rng);

/* media__rng_below returns a uniform value in [0, n); n > 0. */
uint64_t media__rng_below(struct media__rng *rng, uint64_t n);

/* media__rng_normal returns a standard normal draw (Box-Muller). */
double media__rng_normal(struct media__rng *rng);

/* media__err formats a message into errbuf (errcap bytes); NULL/0 discards it. */
void media__err(char *errbuf, size_t errcap, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
