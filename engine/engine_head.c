/*
 * engine_head.c - the fixed part of request heads: each target's, written and validated once
 * per shard before the run, and a job's follow-ups' (engine_job.c), written in place per poll.
 */
#include "engine/engine_conn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

ssize_t engine__head_prefix_write(struct engine__shard *shard, const struct engine_target *target,
                                  const char *method, const char *path, char *buf, size_t cap,
                                  struct http_request_prefix *out)
{
    const struct engine_config *config = shard->config;
    struct http_header *fixed = shard->fixed_headers;
    size_t fixed_count = config->extra_header_count;
    fixed_count += engine__proxy_header(target, &fixed[fixed_count]);
    struct http_request_head head = {
        .method = method,
        .path = path,
        .host = target->host_header,
        .content_type = strcmp(method, "POST") == 0 ? engine__content_type(config) : NULL,
        .accept = config->accept != NULL ? config->accept
                  : config->streaming    ? "text/event-stream"
                                         : "application/json",
        .user_agent = "ringperf/" RINGPERF_VERSION,
        /* With SigV4 the signature is the Authorization, written per request. */
        .authorization = config->sigv4_credentials != NULL  ? NULL
                         : target->authorization[0] != '\0' ? target->authorization
                                                            : config->authorization,
        .extra_headers = fixed,
        .extra_header_count = fixed_count,
    };
    return http_request_prefix_write(buf, cap, &head, out);
}

int engine__head_prefixes_init(struct engine__shard *shard)
{
    const struct engine_config *config = shard->config;
    shard->head_prefixes = calloc(config->target_count, sizeof(*shard->head_prefixes));
    shard->fixed_headers = calloc(config->extra_header_count + 1, sizeof(*shard->fixed_headers));
    if (shard->head_prefixes == NULL || shard->fixed_headers == NULL) {
        return -ENOMEM;
    }
    for (size_t h = 0; h < config->extra_header_count; h++) {
        shard->fixed_headers[h] = config->extra_headers[h];
    }
    const char *method = config->method != NULL ? config->method : "POST";
    for (size_t t = 0; t < config->target_count; t++) {
        const struct engine_target *target = &config->targets[t];
        struct engine__head_prefix *p = &shard->head_prefixes[t];
        p->buf = malloc(ENGINE__HEAD_BYTES);
        if (p->buf == NULL) {
            return -ENOMEM;
        }
        p->status = engine__head_prefix_write(shard, target, method, target->path, p->buf,
                                              ENGINE__HEAD_BYTES, &p->prefix);
    }
    return 0;
}

void engine__head_prefixes_destroy(struct engine__shard *shard)
{
    for (size_t t = 0; shard->head_prefixes != NULL && t < shard->config->target_count; t++) {
        free(shard->head_prefixes[t].buf);
        free(shard->head_prefixes[t].sign_headers);
    }
    free(shard->head_prefixes);
    shard->head_prefixes = NULL;
    free(shard->fixed_headers);
    shard->fixed_headers = NULL;
}
