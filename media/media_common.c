/*
 * media_common.c - the seeded random stream, base64 (BoringSSL's
 * EVP_EncodeBlock, which the tls module already links) and error messages.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/base64.h>

#include "media/media_internal.h"

void media__err(char *errbuf, size_t errcap, const char *fmt, ...)
{
    va_list ap;
    if (errbuf == NULL || errcap == 0) {
        return;
    }
    va_start(ap, fmt);
    vsnprintf(errbuf, errcap, fmt, ap);
    va_end(ap);
}

void media__rng_seed(struct media__rng *rng, uint64_t seed, uint64_t salt)
{
    rng->state = seed ^ (salt * 0xd1342543de82ef95ULL);
    (void)media__rng_next(rng);
}

uint64_t media__rng_next(struct media__rng *rng)
{
    uint64_t z = (rng->state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

uint64_t media__rng_below(struct media__rng *rng, uint64_t n)
{
    /* The modulo bias is below 2^-40 for the small n used here. */
    return media__rng_next(rng) % n;
}

double media__rng_normal(struct media__rng *rng)
{
    /* u1 in (0, 1] so that log() stays finite. */
    double u1 = ((double)(media__rng_next(rng) >> 11) + 1.0) * 0x1.0p-53;
    double u2 = (double)(media__rng_next(rng) >> 11) * 0x1.0p-53;
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

char *media_base64(const char *prefix, const uint8_t *data, size_t len, size_t *out_len)
{
    size_t prefix_len = prefix != NULL ? strlen(prefix) : 0;
    size_t encoded = 0;
    if (!EVP_EncodedLength(&encoded, len) || encoded > SIZE_MAX - prefix_len) {
        return NULL;
    }
    char *out = malloc(prefix_len + encoded);
    if (out == NULL) {
        return NULL;
    }
    if (prefix_len > 0) {
        memcpy(out, prefix, prefix_len);
    }
    size_t n = EVP_EncodeBlock((uint8_t *)out + prefix_len, data, len);
    *out_len = prefix_len + n;
    return out;
}
