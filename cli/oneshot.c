#include "cli/cli_oneshot.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/* A stop request during a wait is seen within this long. */
#define STOP_CHECK_NS (50LL * 1000 * 1000)

struct oneshot_sink {
    bool seen;
    struct cli_oneshot_result *out;
};

static void on_record(void *ctx, const struct record *rec)
{
    struct oneshot_sink *sink = ctx;
    struct cli_oneshot_result *r = sink->out;
    sink->seen = true;
    r->http_status = rec->http_status;
    r->ok = rec->outcome == RECORD_SUCCESS && rec->http_status >= 200 && rec->http_status < 300;
    if (!r->ok) {
        char status[16] = "";
        if (rec->http_status > 0) {
            snprintf(status, sizeof(status), "HTTP %d ", rec->http_status);
        }
        snprintf(r->error, sizeof(r->error), "%s%s%s%s", status, rec->error_type,
                 rec->error_message[0] != '\0' ? ": " : "", rec->error_message);
    }
}

int cli_oneshot(const struct cli_oneshot_request *req, struct engine_stop *stop,
                struct cli_oneshot_result *out, char *errbuf, size_t errcap)
{
    struct response_reader raw;
    const struct response_reader *reader = req->reader;
    if (reader == NULL) {
        response_reader_init(&raw, ENDPOINT_RAW, NULL, NULL, 0);
        reader = &raw;
    }
    const struct engine_config *base = req->base;
    struct engine_payload payload = {.body = req->body, .body_len = strlen(req->body)};
    struct engine_config c = {
        .targets = req->target,
        .target_count = 1,
        .endpoint_type = reader->type,
        .reader = reader,
        .streaming = req->streaming,
        .accept = base->accept,
        .method = req->method,
        .discard_body = req->discard_body,
        .payloads = &payload,
        .payload_count = 1,
        .authorization = base->authorization,
        .extra_headers = base->extra_headers,
        .extra_header_count = base->extra_header_count,
        .secrets = base->secrets,
        .sigv4_credentials = base->sigv4_credentials,
        .sigv4_region = base->sigv4_region,
        .sigv4_service = base->sigv4_service,
        .shard_count = 1,
        .concurrency = 1,
        .request_count = 1,
        .request_timeout_ns = (uint64_t)(req->timeout_ns > 0 ? req->timeout_ns : 1),
        /* Distinct X-Request-IDs, so server logs tell these from the run's. */
        .request_id_nonce = base->request_id_nonce ^ 0x4f4e45ULL,
    };
    *out = (struct cli_oneshot_result){0};
    struct oneshot_sink sink = {.out = out};
    struct engine_record_sink record_sink = {.on_record = on_record, .ctx = &sink};
    int ret = engine_run(&c, &record_sink, stop, errbuf, errcap);
    if (ret == 0 && !sink.seen) {
        snprintf(out->error, sizeof(out->error), "no answer");
    }
    return ret;
}

void cli_sleep_until(int64_t deadline_ns, const struct engine_stop *stop)
{
    for (;;) {
        int64_t now = engine_now_ns();
        if (now >= deadline_ns || __atomic_load_n(&stop->requested, __ATOMIC_ACQUIRE)) {
            return;
        }
        int64_t step = deadline_ns - now < STOP_CHECK_NS ? deadline_ns - now : STOP_CHECK_NS;
        struct timespec ts = {.tv_sec = step / 1000000000, .tv_nsec = step % 1000000000};
        nanosleep(&ts, NULL);
    }
}
