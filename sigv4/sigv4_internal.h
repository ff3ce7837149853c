/*
 * sigv4_internal.h - the signer's state and the canonical-request writer shared by sigv4.c and
 * canonical.c. Not part of the module's contract.
 */
#ifndef RINGPERF_SIGV4_INTERNAL_H
#define RINGPERF_SIGV4_INTERNAL_H

#include <openssl/hmac.h>
#include <openssl/sha.h>

#include "sigv4/sigv4.h"

/* The headers the signer adds to the caller's. */
#define SIGV4__OWN_HEADERS 3

/* sigv4__param is one canonical query parameter: offsets into sigv4_signer.query. */
struct sigv4__param {
    uint32_t key_off;
    uint32_t key_len;
    uint32_t value_off;
    uint32_t value_len;
};

struct sigv4_signer {
    struct sigv4_credentials creds;
    size_t access_key_len;
    size_t secret_len;
    size_t token_len;
    char region[SIGV4_SCOPE_PART_MAX + 1];
    char service[SIGV4_SCOPE_PART_MAX + 1];
    /* The date (YYYYMMDD) whose signing key `sign` holds; "" before the first request. */
    char key_date[9];
    HMAC_CTX derive; /* the key derivation's HMACs */
    HMAC_CTX sign;   /* keyed with the day's signing key: reset per request, not re-keyed */

    /* Per-request scratch, sized here so that signing never allocates. */
    char query[SIGV4_QUERY_BYTES_MAX];
    struct sigv4__param params[SIGV4_QUERY_PARAMS_MAX];
    uint16_t param_order[SIGV4_QUERY_PARAMS_MAX];
    uint32_t segment_off[SIGV4_PATH_SEGMENTS_MAX];
    uint32_t segment_len[SIGV4_PATH_SEGMENTS_MAX];
    struct http_header headers[SIGV4_HEADERS_MAX + SIGV4__OWN_HEADERS];
    uint8_t header_order[SIGV4_HEADERS_MAX + SIGV4__OWN_HEADERS];
    size_t header_count;
};

/* sigv4__sink receives canonical text: hashed into sha when it is set, else copied into
 * buf[0..cap) with len counting every byte, written or not. */
struct sigv4__sink {
    SHA256_CTX *sha;
    char *buf;
    size_t cap;
    size_t len;
};

/* sigv4__put sends n bytes of p to the sink. */
void sigv4__put(struct sigv4__sink *k, const char *p, size_t n);

/* sigv4__canonical writes req's canonical request to the sink and leaves the sorted signed
 * headers in s (for sigv4__signed_headers). */
enum sigv4_status sigv4__canonical(struct sigv4_signer *s, const struct sigv4_request *req,
                                   const char *amz_date, const char *content_sha256,
                                   struct sigv4__sink *k);

/* sigv4__signed_headers writes the SignedHeaders list of the last sigv4__canonical call. */
void sigv4__signed_headers(const struct sigv4_signer *s, struct sigv4__sink *k);

#endif
