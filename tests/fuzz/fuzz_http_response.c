/*
 * fuzz_http_response.c - arbitrary bytes into the HTTP response parser.
 *
 * Input: one configuration byte (header buffer size, header limit, HEAD request, EOF at the
 * end), one split-seed byte, then the bytes the "server" sends. The input is parsed whole, at
 * pseudo-random split points and (when short) byte by byte, back-to-back responses included;
 * http_fuzz_driver.h checks the feed contract on every call and that all three runs agree.
 */
#include <stdint.h>
#include <stdlib.h>

#include "http/http.h"
#include "tests/http/http_fuzz_driver.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t header_caps[] = {16, 64, 256, 4096};
    if (size < 2) {
        return 0;
    }
    uint8_t cfg = data[0];
    uint64_t seed = ((uint64_t)data[1] + 1) * 0x9E3779B97F4A7C15ull;
    data += 2;
    size -= 2;
    struct fuzz_options opt = {
        .header_cap = header_caps[cfg & 3],
        .max_headers = (cfg & 4) ? 2 : 32,
        .head_request = (cfg & 8) != 0,
        .eof = (cfg & 16) != 0,
    };
    struct fuzz_trace whole;
    struct fuzz_trace other;
    whole.body = malloc(size + 1);
    other.body = malloc(size + 1);
    FUZZ_CHECK(whole.body != NULL && other.body != NULL);
    fuzz_run(data, size, &opt, 0, 0, &whole);
    fuzz_run(data, size, &opt, 0, seed, &other);
    fuzz_same_trace(&whole, &other);
    if (size <= 512) {
        fuzz_run(data, size, &opt, 1, 0, &other);
        fuzz_same_trace(&whole, &other);
    }
    free(whole.body);
    free(other.body);
    return 0;
}
