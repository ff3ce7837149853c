/*
 * fuzz_mock_sigv4.c - the mock server's SigV4 check on arbitrary requests: it reads the
 * Authorization, X-Amz-* and signed headers of untrusted bytes, so it must never read outside
 * the request, and it must refuse whatever was not signed with the secret. The fuzzer cannot
 * forge an HMAC, so a request it accepts is an abort.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mock/mock_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size > 0 ? size : 1); /* exact size, so ASan sees any over-read */
    if (buf == NULL) {
        return 0;
    }
    memcpy(buf, data, size);
    struct mock__request req;
    size_t consumed = 0;
    if (mock__request_parse(buf, size, 4096, NULL, &req, &consumed) == MOCK__REQ_OK) {
        struct mock_config cfg;
        mock_config_init(&cfg);
        cfg.sigv4_secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
        cfg.sigv4_region = (size & 1) ? "us-east-1" : NULL;
        /* 2015-08-30T12:36:00Z, so that dates near the examples' pass the skew check. */
        if (mock__sigv4_verify(&cfg, &req, 1440938160) == NULL) {
            abort();
        }
    }
    free(buf);
    return 0;
}
