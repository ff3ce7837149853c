#include "cli/cli_readiness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_oneshot.h"
#include "endpoint/endpoint.h"
#include "response/response.h"
#include "payload/payload.h"

int cli_readiness_prepare(struct cli_readiness_probes *p, const struct profile_config *cfg,
                          const struct engine_config *run, enum endpoint_type type)
{
    *p = (struct cli_readiness_probes){.run = run};
    if (cfg->wait_for_model_seconds <= 0) {
        return 0;
    }
    p->models_targets = calloc(run->target_count, sizeof(*p->models_targets));
    if (p->models_targets == NULL) {
        return -ENOMEM;
    }
    /* A shallow copy, only read: the endpoint path is the one thing that differs. */
    struct profile_config models_cfg = *cfg;
    char models_path[] = "/v1/models";
    models_cfg.custom_endpoint = models_path;
    char errbuf[512];
    for (size_t i = 0; i < run->target_count; i++) {
        struct config_target target;
        if (config_resolve_url(&models_cfg, i, &target, errbuf, sizeof(errbuf)) != 0) {
            fprintf(stderr, "ringperf profile: --wait-for-model-mode: %s\n", errbuf);
            return -EINVAL;
        }
        p->models_targets[i] = run->targets[i];
        engine_target_set_path(&p->models_targets[i], target.path);
    }
    if (cfg->wait_for_model_mode == CONFIG_WAIT_MODELS) {
        return 0;
    }
    if (endpoint_type_form_data(type)) {
        fprintf(stderr,
                "ringperf profile: --wait-for-model-timeout with --endpoint-type %s: the "
                "one-token probe is not multipart yet; add --wait-for-model-mode models\n",
                endpoint_type_name(type));
        return -EINVAL;
    }
    /* raw, template (whose body its template makes) and image_retrieval (whose body needs
     * images) probe with the run's first body. */
    bool first_body =
        type == ENDPOINT_RAW || type == ENDPOINT_TEMPLATE || type == ENDPOINT_IMAGE_RETRIEVAL;
    struct payload_spec spec = {
        .type = type,
        .model = cfg->models.items[0],
        .prompt = "Hi",
        .query = "Hi",
        .max_tokens = 1,
        .streaming = cfg->streaming,
        .use_legacy_max_tokens = cfg->use_legacy_max_tokens,
        .use_server_token_count = cfg->use_server_token_count,
        .raw_payload = first_body && run->payload_count > 0 ? run->payloads[0].body : NULL,
    };
    p->inference_body = payload_build(&spec, errbuf, sizeof(errbuf));
    if (p->inference_body == NULL) {
        fprintf(stderr, "ringperf profile: --wait-for-model-timeout: cannot build the probe: %s\n",
                errbuf);
        return -EINVAL;
    }
    return 0;
}

void cli_readiness_free(struct cli_readiness_probes *p)
{
    free(p->models_targets);
    free(p->inference_body);
    *p = (struct cli_readiness_probes){0};
}

/* attempt runs the mode's probes once, on every --url in turn; *out holds
 * the first that failed, and *out_what names it. */
static int attempt(const struct profile_config *cfg, const struct cli_readiness_probes *p,
                   int64_t timeout_ns, struct engine_stop *stop, struct cli_oneshot_result *out,
                   const char **out_what, char *errbuf, size_t errcap)
{
    const struct engine_config *run = p->run;
    struct response_reader plain;
    const struct response_reader *reader = run->reader;
    if (reader == NULL) {
        response_reader_init(&plain, run->endpoint_type, NULL, NULL, 0);
        reader = &plain;
    }
    for (size_t t = 0; t < run->target_count; t++) {
        if (cfg->wait_for_model_mode != CONFIG_WAIT_INFERENCE) {
            /* The list is not looked at: a 2xx answer read whole is enough. */
            struct cli_oneshot_request models = {.base = run,
                                                 .target = &p->models_targets[t],
                                                 .method = "GET",
                                                 .body = "",
                                                 .discard_body = true,
                                                 .timeout_ns = timeout_ns};
            *out_what = "GET /v1/models";
            int ret = cli_oneshot(&models, stop, out, errbuf, errcap);
            if (ret != 0 || !out->ok) {
                return ret;
            }
        }
        if (cfg->wait_for_model_mode != CONFIG_WAIT_MODELS) {
            struct cli_oneshot_request inference = {.base = run,
                                                    .target = &run->targets[t],
                                                    .body = p->inference_body,
                                                    .streaming = run->streaming,
                                                    .reader = reader,
                                                    .timeout_ns = timeout_ns};
            *out_what = "a one-token request";
            int ret = cli_oneshot(&inference, stop, out, errbuf, errcap);
            if (ret != 0 || !out->ok) {
                return ret;
            }
        }
    }
    return 0;
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
        struct cli_oneshot_result result;
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
        cli_sleep_until(next, stop);
    }
}
