/*
 * network_latency.c - profile_export_network_latency.jsonl: AIPerf's
 * NetworkLatencySample per probe of --network-latency-automatic.
 */
#include "export/export.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "export/export_outfile.h"
#include "netlatency/netlatency.h"

/* error_type names a failed probe's errno as Python names the exception AIPerf records. */
static const char *error_type(int err)
{
    switch (err) {
    case ECONNREFUSED:
        return "ConnectionRefusedError";
    case ECONNRESET:
        return "ConnectionResetError";
    case ETIMEDOUT:
        return "TimeoutError";
    default:
        return "OSError";
    }
}

static json_t *sample_json(const struct netlatency *prober, const struct netlatency_sample *s)
{
    const struct netlatency_target *t = netlatency_target_of(prober, s->target);
    json_t *o = json_pack("{s:I, s:s, s:s, s:i, s:s}", "timestamp_ns", (json_int_t)s->timestamp_ns,
                          "target_url", t->url, "target_host", t->host, "target_port", (int)t->port,
                          "probe_type", "tcp_connect");
    if (o == NULL) {
        return NULL;
    }
    if (s->success) {
        json_object_set_new(o, "rtt_ns", json_integer((json_int_t)s->rtt_ns));
    }
    json_object_set_new(o, "success", json_boolean(s->success));
    if (!s->success) {
        json_object_set_new(
            o, "error",
            json_pack("{s:s, s:s}", "type", error_type(s->error), "message", strerror(s->error)));
    }
    return o;
}

int export_network_latency_write(const char *path, const struct netlatency *prober)
{
    char partial[EXPORT_OUTFILE_PATH_BYTES];
    snprintf(partial, sizeof(partial), "%s%s", path, EXPORT_OUTFILE_PARTIAL);
    FILE *out = fopen(partial, "w");
    if (out == NULL) {
        return -errno;
    }
    size_t count = 0;
    const struct netlatency_sample *samples = netlatency_samples(prober, &count);
    int ret = 0;
    for (size_t i = 0; i < count && ret == 0; i++) {
        json_t *line = sample_json(prober, &samples[i]);
        ret = line != NULL && json_dumpf(line, out, JSON_COMPACT) == 0 && fputc('\n', out) != EOF
                  ? 0
                  : -EIO;
        json_decref(line);
    }
    if (fclose(out) != 0 && ret == 0) {
        ret = -errno;
    }
    if (ret == 0 && rename(partial, path) != 0) {
        ret = -errno;
    }
    if (ret != 0) {
        unlink(partial);
    }
    return ret;
}
