#include "cli/cli_readiness.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "endpoint/endpoint.h"

/* A Ctrl-C during the wait between probes is seen within this long. */
#define STOP_CHECK_NS (50LL * 1000 * 1000)

/* probe_result is what the one request of a probe came back with. */
struct probe_result {
    bool seen;
    bool ok;
    int http_status;
    char error[ENGINE_ERROR_TYPE_BYTES + ENGINE_ERROR_MESSAGE_BYTES + 32];
};

static void on_probe_record(void *ctx, const struct engine_record *rec)
{
    struct probe_result *r = ctx;
    r->seen = true;
    r->http_status = rec->http_status;
    r->ok = rec->outcome == ENGINE_SUCCESS && rec->http_status >= 200 && rec->http_status < 300;
    if (!r->ok && rec->http_status > 0) {
        snprintf(r->error, sizeof(r->error), "HTTP %d %s%s%s", rec->http_status, rec->error_type,
                 rec->error_message[0] != '\0' ? ": " : "", rec->error_message);
    } else if (!r->ok) {
        snprintf(r->error, sizeof(r->error), "%s%s%s", rec->error_type,
                 rec->error_message[0] != '\0' ? ": " : "", rec->error_message);
    }
}

/* probe sends one request as `base` describes (its targets, endpoint and
 * headers), with method, targets, body and reader of the probe's own. */
static int probe(const struct engine_config *base, const char *method,
                 const struct engine_target *targets, const char *body,
                 const struct endpoint_reader *reader, int64_t timeout_ns, struct engine_stop *stop,
                 struct probe_result *out, char *errbuf, size_t errcap)
{
    struct engine_payload payload = {.body = body, .body_len = strlen(body)};
    struct engine_config c = {
        .targets = targets,
        .target_count = base->target_count,
        .endpoint_type = reader->type,
        .reader = reader,
        .streaming = method == NULL && base->streaming,
        .method = method,
        .payloads = &payload,
        .payload_count = 1,
        .authorization = base->authorization,
        .extra_headers = base->extra_headers,
        .extra_header_count = base->extra_header_count,
        .shard_count = 1,
        .concurrency = 1,
        .request_count = 1,
        .request_timeout_ns = (uint64_t)timeout_ns,
        /* Distinct X-Request-IDs, so server logs tell probes from the run. */
        .request_id_nonce = base->request_id_nonce ^ 0x52454459ULL,
    };
    *out = (struct probe_result){0};
    struct engine_record_sink sink = {.on_record = on_probe_record, .ctx = out};
    int ret = engine_run(&c, &sink, stop, errbuf, errcap);
    if (ret == 0 && !out->seen) {
        snprintf(out->error, sizeof(out->error), "no answer");
    }
    return ret;
}

/* sleep_until waits until deadline_ns (CLOCK_MONOTONIC) or a stop request. */
static void sleep_until(int64_t deadline_ns, const struct engine_stop *stop)
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

/* attempt runs the mode's probes once; *out holds the first that failed. */
static int attempt(const struct profile_config *cfg, const struct cli_readiness_probes *p,
                   int64_t timeout_ns, struct engine_stop *stop, struct probe_result *out,
                   const char **out_what, char *errbuf, size_t errcap)
{
    if (cfg->wait_for_model_mode != CONFIG_WAIT_INFERENCE) {
        /* The list's shape is not checked: a 2xx answer read whole is enough. */
        struct endpoint_reader models;
        endpoint_reader_init(&models, ENDPOINT_RAW, NULL, NULL, 0);
        *out_what = "GET /v1/models";
        int ret = probe(p->run, "GET", p->models_targets, "", &models, timeout_ns, stop, out,
                        errbuf, errcap);
        if (ret != 0 || !out->ok || cfg->wait_for_model_mode == CONFIG_WAIT_MODELS) {
            return ret;
        }
    }
    struct endpoint_reader plain;
    const struct endpoint_reader *reader = p->run->reader;
    if (reader == NULL) {
        endpoint_reader_init(&plain, p->run->endpoint_type, NULL, NULL, 0);
        reader = &plain;
    }
    *out_what = "a one-token request";
    return probe(p->run, NULL, p->run->targets, p->inference_body, reader, timeout_ns, stop, out,
                 errbuf, errcap);
}

int cli_wait_for_model(const struct profile_config *cfg, const struct cli_readiness_probes *probes,
                       struct engine_stop *stop, char *errbuf, size_t errcap)
{
    if (cfg->wait_for_model_seconds <= 0) {
        return 0;
    }
    int64_t start = engine_now_ns();
    int64_t deadline = start + (int64_t)(cfg->wait_for_model_seconds * 1e9);
    int64_t interval = (int64_t)(cfg->wait_for_model_interval_seconds * 1e9);
    fprintf(stderr, "Waiting up to %g s for the server to be ready (--wait-for-model-mode %s)\n",
            cfg->wait_for_model_seconds,
            cfg->wait_for_model_mode == CONFIG_WAIT_MODELS ? "models"
            : cfg->wait_for_model_mode == CONFIG_WAIT_BOTH ? "both"
                                                           : "inference");
    for (unsigned tries = 1;; tries++) {
        int64_t left = deadline - engine_now_ns();
        uint64_t run_timeout = (uint64_t)(cfg->request_timeout_seconds * 1e9);
        int64_t timeout = left > 0 && (uint64_t)left < run_timeout ? left : (int64_t)run_timeout;
        struct probe_result result;
        const char *what = "";
        int ret =
            attempt(cfg, probes, timeout > 0 ? timeout : 1, stop, &result, &what, errbuf, errcap);
        if (ret != 0) {
            return ret;
        }
        if (__atomic_load_n(&stop->requested, __ATOMIC_ACQUIRE)) {
            return -ECANCELED;
        }
        if (result.ok) {
            fprintf(stderr, "Server ready after %.1f s (%u probe%s)\n",
                    (double)(engine_now_ns() - start) / 1e9, tries, tries == 1 ? "" : "s");
            return 0;
        }
        int64_t next = engine_now_ns() + interval;
        if (next >= deadline) {
            /* The next probe would start past the deadline. */
            fprintf(stderr,
                    "ringperf profile: --wait-for-model-timeout: the server was not ready within "
                    "%g s (%u probe%s, every %g s); the last, %s, ended with %s. Check that it "
                    "is up at --url, or allow it longer\n",
                    cfg->wait_for_model_seconds, tries, tries == 1 ? "" : "s",
                    cfg->wait_for_model_interval_seconds, what, result.error);
            return -ETIMEDOUT;
        }
        sleep_until(next, stop);
    }
}
