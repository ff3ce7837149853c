/*
 * cli_oneshot.h - one request outside the benchmark, through the engine
 * (internal to cli/): the readiness probes and the control hooks. Through
 * the engine, such a request takes the run's own path to the server: TLS,
 * proxies, headers and API key.
 */
#ifndef RINGPERF_CLI_ONESHOT_H
#define RINGPERF_CLI_ONESHOT_H

#include <stdbool.h>
#include <stdint.h>

#include "response/response.h"
#include "engine/engine.h"

/* cli_oneshot_request is what to send: method (NULL = POST) and body to
 * `target` (borrowed), with the headers, API key and X-Request-ID nonce of
 * `base` (borrowed), within timeout_ns. The answer's body is read with
 * `reader` (borrowed; NULL = raw), or, with discard_body, read to its end
 * and not looked at. */
struct cli_oneshot_request {
    const struct engine_config *base;
    const struct engine_target *target;
    const char *method;
    const char *body;
    bool streaming;
    const struct response_reader *reader;
    bool discard_body;
    int64_t timeout_ns;
};

/* cli_oneshot_result is how the request ended: ok for a 2xx answer read
 * whole (and, unless discarded, readable); otherwise error says why, with
 * the HTTP status when there was one. */
struct cli_oneshot_result {
    bool ok;
    int http_status;
    char error[RECORD_ERROR_TYPE_BYTES + RECORD_ERROR_MESSAGE_BYTES + 32];
};

/* cli_oneshot sends the request and waits for its end (or `stop`). Returns
 * 0 with *out filled, or -errno when the engine could not run at all
 * (message in errbuf). */
int cli_oneshot(const struct cli_oneshot_request *req, struct engine_stop *stop,
                struct cli_oneshot_result *out, char *errbuf, size_t errcap);

/* cli_sleep_until waits until deadline_ns (CLOCK_MONOTONIC) or a stop
 * request, whichever comes first (a stop is seen within 50 ms). */
void cli_sleep_until(int64_t deadline_ns, const struct engine_stop *stop);

#endif
