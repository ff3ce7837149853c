/*
 * engine_sign.c - AWS SigV4 on the shard: each request is signed as it is sent, with the
 * shard's own signer (sigv4/), so that its X-Amz-Date is the time it leaves and readiness
 * probes and control hooks, which run through the same engine, are signed like the load.
 */
#include "engine/engine_conn.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sigv4/sigv4.h"

/* origin_form returns the path-and-query part of a request-target: through a forward proxy
 * the target is in absolute form ("http://host:port/path"), and the signature covers the
 * path the server sees. */
static const char *origin_form(const char *target)
{
    const char *scheme_end = strstr(target, "://");
    if (target[0] == '/' || scheme_end == NULL) {
        return target;
    }
    const char *path = strchr(scheme_end + 3, '/');
    return path != NULL ? path : "/";
}

/* sign_headers_init lists what each target's requests sign besides the signer's own
 * headers: Host, Content-Type, and the run's fixed --header ones (the per-request ids and
 * Proxy-Authorization are left out: a proxy may rewrite the latter). */
static int sign_headers_init(struct engine__shard *shard)
{
    const struct engine_config *config = shard->config;
    const char *content_type = engine__content_type(config);
    for (size_t t = 0; t < config->target_count; t++) {
        struct engine__head_prefix *p = &shard->head_prefixes[t];
        p->sign_headers = calloc(config->extra_header_count + 2, sizeof(*p->sign_headers));
        if (p->sign_headers == NULL) {
            return -ENOMEM;
        }
        const char *host = config->targets[t].host_header;
        size_t n = 0;
        p->sign_headers[n++] = (struct http_header){"Host", 4, host, strlen(host)};
        if (content_type != NULL) {
            p->sign_headers[n++] =
                (struct http_header){"Content-Type", 12, content_type, strlen(content_type)};
        }
        for (size_t h = 0; h < config->extra_header_count; h++) {
            p->sign_headers[n++] = config->extra_headers[h];
        }
        p->sign_header_count = n;
    }
    return 0;
}

int engine__sign_init(struct engine__shard *shard)
{
    const struct engine_config *config = shard->config;
    if (config->sigv4_credentials == NULL) {
        return 0;
    }
    shard->signer =
        sigv4_signer_new(config->sigv4_credentials, config->sigv4_region, config->sigv4_service);
    if (shard->signer == NULL) {
        return -EINVAL;
    }
    return sign_headers_init(shard);
}

void engine__sign_destroy(struct engine__shard *shard)
{
    sigv4_signer_free(shard->signer);
    shard->signer = NULL;
    explicit_bzero(&shard->rekey, sizeof(shard->rekey));
    explicit_bzero(shard->kept, sizeof(shard->kept));
}

void engine__sign_deliver(struct engine__shard *shards, uint32_t count,
                          const struct sigv4_credentials *creds, uint64_t generation,
                          uint32_t *undelivered)
{
    *undelivered = 0;
    for (uint32_t i = 0; i < count; i++) {
        struct engine__shard *shard = &shards[i];
        if (shard->rekey_delivered == generation) {
            continue;
        }
        if (atomic_load_explicit(&shard->rekey_ready, memory_order_acquire)) {
            (*undelivered)++; /* it has not taken the last set yet: the next turn */
            continue;
        }
        shard->rekey = *creds;
        shard->rekey_delivered = generation;
        atomic_store_explicit(&shard->rekey_ready, true, memory_order_release);
    }
}

/* take_rekey signs with the credentials the coordinator handed over from now on, and adds
 * them to what the shard redacts. The coordinator hands over only sets the signer takes
 * (sigv4_credentials_check); out of memory for the new signer, the shard keeps the one it has. */
static void take_rekey(struct engine__shard *shard)
{
    const struct engine_config *config = shard->config;
    struct sigv4_signer *next =
        sigv4_signer_new(&shard->rekey, config->sigv4_region, config->sigv4_service);
    if (next != NULL) {
        sigv4_signer_free(shard->signer);
        shard->signer = next;
        shard->kept[shard->kept_count % ENGINE__REKEY_KEPT] = shard->rekey;
        shard->kept_count++;
        shard->rekey_secrets.count = 0;
        uint32_t kept =
            shard->kept_count < ENGINE__REKEY_KEPT ? shard->kept_count : ENGINE__REKEY_KEPT;
        for (uint32_t k = 0; k < kept; k++) {
            const struct sigv4_credentials *c = &shard->kept[k];
            record_secrets_add(&shard->rekey_secrets, c->secret_access_key,
                               strlen(c->secret_access_key));
            record_secrets_add(&shard->rekey_secrets, c->session_token, strlen(c->session_token));
            record_secrets_add(&shard->rekey_secrets, c->access_key_id, strlen(c->access_key_id));
        }
    }
    explicit_bzero(&shard->rekey, sizeof(shard->rekey));
    atomic_store_explicit(&shard->rekey_ready, false, memory_order_release);
}

static void add_header(struct engine__conn *c, uint32_t *count, const char *name, const char *value,
                       size_t value_len)
{
    c->headers[(*count)++] = (struct http_header){
        .name = name, .name_len = strlen(name), .value = value, .value_len = value_len};
}

enum sigv4_status engine__sign_request(struct engine__shard *shard, struct engine__conn *c,
                                       const struct engine_payload *payload, uint32_t *count)
{
    const struct engine_config *config = shard->config;
    if (atomic_load_explicit(&shard->rekey_ready, memory_order_acquire)) {
        take_rekey(shard);
    }
    const struct engine__head_prefix *prefix = &shard->head_prefixes[c->target_index];
    const char *method = config->method != NULL ? config->method : "POST";
    const char *target = origin_form(c->target->path);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    struct sigv4_request req = {
        .method = method,
        .method_len = strlen(method),
        .target = target,
        .target_len = strlen(target),
        .headers = prefix->sign_headers,
        .header_count = prefix->sign_header_count,
        .body = payload->body,
        .body_len = payload->body_len,
        .unix_s = now.tv_sec,
    };
    struct sigv4_signature *sig = &shard->signature;
    enum sigv4_status st = sigv4_sign(shard->signer, &req, sig);
    if (st != SIGV4_OK) {
        return st;
    }
    add_header(c, count, "X-Amz-Date", sig->amz_date, 16);
    add_header(c, count, "X-Amz-Content-Sha256", sig->content_sha256, 64);
    if (sig->session_token != NULL) {
        add_header(c, count, "X-Amz-Security-Token", sig->session_token, sig->session_token_len);
    }
    add_header(c, count, "Authorization", sig->authorization, sig->authorization_len);
    return SIGV4_OK;
}
