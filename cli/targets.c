/*
 * targets.c - the servers of a profile run: each --url resolved to an address (IPv4 first, as
 * AIPerf), routed through the proxy the environment names for it, and given the run's TLS
 * context when it is https://.
 */
#include "cli/cli_targets.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tls/tls.h"

/* lookup_host resolves host:port (what names it, for messages) into *out_addr. */
static int lookup_host(const char *what, const char *host, uint16_t port,
                       struct sockaddr_storage *out_addr, socklen_t *out_len)
{
    char service[8];
    snprintf(service, sizeof(service), "%u", port);
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_family = AF_UNSPEC};
    struct addrinfo *found = NULL;
    int ret = getaddrinfo(host, service, &hints, &found);
    if (ret != 0) {
        fprintf(stderr, "ringperf profile: %s: cannot resolve '%s': %s\n", what, host,
                gai_strerror(ret));
        return -EINVAL;
    }
    /* AIPerf connects over IPv4 by default; take IPv6 only when it is all there is. */
    struct addrinfo *pick = found;
    for (struct addrinfo *ai = found; ai != NULL; ai = ai->ai_next) {
        if (ai->ai_family == AF_INET) {
            pick = ai;
            break;
        }
    }
    memcpy(out_addr, pick->ai_addr, pick->ai_addrlen);
    *out_len = pick->ai_addrlen;
    freeaddrinfo(found);
    return 0;
}

/* resolve_proxy routes *out through the proxy that HTTPS_PROXY/HTTP_PROXY/ALL_PROXY name
 * for it, unless NO_PROXY exempts it (curl's rules, config_proxy_for). */
static int resolve_proxy(const struct config_target *target, bool quiet, struct engine_target *out)
{
    char errbuf[512];
    struct config_proxy proxy;
    if (config_proxy_for(environ, target, &proxy, errbuf, sizeof(errbuf)) != 0) {
        fprintf(stderr, "ringperf profile: %s\n", errbuf);
        return -EINVAL;
    }
    if (!proxy.used) {
        return 0;
    }
    struct engine_proxy *p = &out->proxy;
    if (lookup_host(proxy.variable, proxy.host, proxy.port, &p->addr, &p->addr_len) != 0) {
        return -EINVAL;
    }
    bool v6 = strchr(target->host, ':') != NULL;
    snprintf(p->name, sizeof(p->name), "%s", proxy.authority);
    snprintf(p->authority, sizeof(p->authority), "%s%s%s:%u", v6 ? "[" : "", target->host,
             v6 ? "]" : "", (unsigned)target->port);
    _Static_assert(sizeof(p->authorization) == sizeof(proxy.authorization), "same secret size");
    memcpy(p->authorization, proxy.authorization, sizeof(p->authorization));
    explicit_bzero(proxy.authorization, sizeof(proxy.authorization));
    p->mode = target->scheme == CONFIG_SCHEME_HTTPS ? ENGINE_PROXY_TUNNEL : ENGINE_PROXY_FORWARD;
    engine_target_set_path(out, target->path);
    if (!quiet) {
        fprintf(stderr, "ringperf profile: %s through proxy http://%s%s (%s)\n", target->authority,
                p->authorization[0] != '\0' ? CONFIG_REDACTED "@" : "", p->name, proxy.variable);
    }
    return 0;
}

/* resolve_config_target resolves a parsed URL (what named it, for messages) into *out. */
static int resolve_config_target(const char *what, struct config_target *target, bool quiet,
                                 struct engine_target *out)
{
    if (lookup_host(what, target->host, target->port, &out->addr, &out->addr_len) != 0) {
        return -EINVAL;
    }
    snprintf(out->host_header, sizeof(out->host_header), "%s", target->authority);
    /* AIPerf's aiohttp sends a URL's user:password@ as Basic auth; so does ringperf. */
    _Static_assert(sizeof(out->authorization) == CONFIG_PROXY_AUTHORIZATION_BYTES, "fits");
    config_basic_authorization(target->userinfo, out->authorization, sizeof(out->authorization));
    explicit_bzero(target->userinfo, sizeof(target->userinfo));
    engine_target_set_path(out, target->path);
    if (target->scheme == CONFIG_SCHEME_HTTPS) {
        /* prepare_tls gives the target the run's context. */
        snprintf(out->tls_host, sizeof(out->tls_host), "%s", target->host);
    }
    return resolve_proxy(target, quiet, out);
}

/* resolve_target resolves --url number index into *out. */
static int resolve_target(const struct profile_config *cfg, size_t index, struct engine_target *out)
{
    char errbuf[512];
    struct config_target target;
    if (config_resolve_url(cfg, index, &target, errbuf, sizeof(errbuf)) != 0) {
        fprintf(stderr, "ringperf profile: %s\n", errbuf);
        return -EINVAL;
    }
    return resolve_config_target("--url", &target, false, out);
}

static bool tls_flags_given(const struct profile_config *cfg)
{
    return cfg->tls_ca_file != NULL || cfg->tls_cert_file != NULL || cfg->tls_key_file != NULL ||
           cfg->tls_insecure;
}

/* prepare_tls creates the run's TLS context when a --url is https://: certificates are
 * verified (against --tls-ca, else SSL_CERT_FILE, else the system bundle) unless
 * --tls-insecure or AIPERF_HTTP_SSL_VERIFY=false turns that off, which tls_context_new
 * warns about. */
static int prepare_tls(struct cli_targets *t, const struct profile_config *cfg)
{
    bool https = false;
    for (size_t i = 0; i < cfg->urls.count; i++) {
        https |= t->targets[i].tls_host[0] != '\0';
    }
    for (size_t i = 0; i < t->metrics_count; i++) {
        https |= t->metrics[i].target.tls_host[0] != '\0';
    }
    for (size_t i = 0; i < t->gpu_count; i++) {
        https |= t->gpus[i].target.tls_host[0] != '\0';
    }
    if (!https) {
        if (tls_flags_given(cfg)) {
            fprintf(stderr, "ringperf profile: warning: no --url is https://, so --tls-ca, "
                            "--tls-cert, --tls-key and --tls-insecure have no effect\n");
        }
        return 0;
    }
    struct tls_options opts = {
        .verify_disabled = cfg->tls_insecure,
        .verify_disabled_source = cfg->tls_insecure ? "--tls-insecure" : NULL,
        .ca_file = cfg->tls_ca_file,
        .cert_file = cfg->tls_cert_file,
        .key_file = cfg->tls_key_file,
    };
    /* Not an AIPerf flag: bench/tls_handshake.sh measures handshakes without resumption. */
    const char *no_resumption = getenv("RINGPERF_TLS_NO_RESUMPTION");
    opts.resumption_disabled = no_resumption != NULL && strcmp(no_resumption, "1") == 0;
    char errbuf[512];
    int ret = tls_options_apply_env(&opts, environ, errbuf, sizeof(errbuf));
    if (ret == 0) {
        ret = tls_context_new(&opts, &t->tls, errbuf, sizeof(errbuf));
    }
    if (ret != 0) {
        fprintf(stderr, "ringperf profile: TLS: %s\n", errbuf);
        return ret;
    }
    for (size_t i = 0; i < cfg->urls.count; i++) {
        if (t->targets[i].tls_host[0] != '\0') {
            t->targets[i].tls = t->tls;
        }
    }
    for (size_t i = 0; i < t->metrics_count; i++) {
        if (t->metrics[i].target.tls_host[0] != '\0') {
            t->metrics[i].target.tls = t->tls;
        }
    }
    for (size_t i = 0; i < t->gpu_count; i++) {
        if (t->gpus[i].target.tls_host[0] != '\0') {
            t->gpus[i].target.tls = t->tls;
        }
    }
    return 0;
}

/* add_endpoint adds one Prometheus endpoint (a parsed URL) to list (*count of them); one that
 * cannot be resolved is said and left out, unless optional: scraping never stops a run. */
static void add_endpoint(struct scrape_endpoint *list, size_t *count, const char *flag,
                         struct config_target *target, bool is_default, bool optional)
{
    struct scrape_endpoint *e = &list[*count];
    memset(e, 0, sizeof(*e));
    /* A URL too long to export whole is cut: it names the endpoint, nothing else reads it. */
    snprintf(e->url, sizeof(e->url), "%s://%.300s%.280s",
             target->scheme == CONFIG_SCHEME_HTTPS ? "https" : "http", target->authority,
             target->path);
    for (size_t i = 0; i < *count; i++) {
        if (strcmp(list[i].url, e->url) == 0) {
            return; /* two --url on one server share its /metrics */
        }
    }
    e->is_default = is_default;
    e->optional = optional;
    /* The quiet probes (the default DCGM exporters) say nothing, not even their proxy. */
    if (resolve_config_target(flag, target, optional, &e->target) != 0) {
        if (!optional) {
            fprintf(stderr, "ringperf profile: %s left out\n", e->url);
        }
        return;
    }
    (*count)++;
}

/* resolve_metrics lists the /metrics endpoints: each --url's own, then --server-metrics. */
static int resolve_metrics(struct cli_targets *t, const struct profile_config *cfg)
{
    if (cfg->no_server_metrics) {
        return 0;
    }
    t->metrics = calloc(cfg->urls.count + cfg->server_metrics.count, sizeof(*t->metrics));
    if (t->metrics == NULL) {
        return -ENOMEM;
    }
    char errbuf[512];
    struct config_target target;
    /* A SigV4 endpoint (SageMaker, API Gateway) takes only signed requests and serves no
     * /metrics: scraping it would only collect 403s. --server-metrics URLs are still read. */
    size_t own = cfg->auth_type == CONFIG_AUTH_SIGV4 ? 0 : cfg->urls.count;
    for (size_t i = 0; i < own; i++) {
        if (config_resolve_url(cfg, i, &target, errbuf, sizeof(errbuf)) == 0) {
            snprintf(target.path, sizeof(target.path), "/metrics");
            add_endpoint(t->metrics, &t->metrics_count, "--url", &target, true, false);
        }
    }
    for (size_t i = 0; i < cfg->server_metrics.count; i++) {
        if (config_resolve_metrics_url(cfg->server_metrics.items[i], "--server-metrics", &target,
                                       errbuf, sizeof(errbuf)) == 0) {
            add_endpoint(t->metrics, &t->metrics_count, "--server-metrics", &target, false, false);
        }
    }
    return 0;
}

/* add_nvml adds the local GPUs read through NVML (AIPerf's pynvml collector), once. */
static void add_nvml(struct scrape_endpoint *list, size_t *count)
{
    for (size_t i = 0; i < *count; i++) {
        if (list[i].nvml) {
            return;
        }
    }
    struct scrape_endpoint *e = &list[(*count)++];
    memset(e, 0, sizeof(*e));
    snprintf(e->url, sizeof(e->url), "pynvml://localhost");
    e->nvml = true;
}

/* resolve_gpus lists the DCGM exporters: --gpu-telemetry, else AIPerf's two defaults, probed
 * quietly (optional: turned off without a word when they do not answer at the start). */
static int resolve_gpus(struct cli_targets *t, const struct profile_config *cfg)
{
    static const char *const defaults[] = {"http://localhost:9400/metrics",
                                           "http://localhost:9401/metrics"};
    if (cfg->no_gpu_telemetry) {
        return 0;
    }
    bool given = cfg->gpu_telemetry.count > 0;
    size_t n = given ? cfg->gpu_telemetry.count : 2;
    t->gpus = calloc(n, sizeof(*t->gpus));
    if (t->gpus == NULL) {
        return -ENOMEM;
    }
    char errbuf[512];
    struct config_target target;
    for (size_t i = 0; i < n; i++) {
        const char *url = given ? cfg->gpu_telemetry.items[i] : defaults[i];
        if (strcmp(url, "pynvml") == 0) {
            add_nvml(t->gpus, &t->gpu_count);
            continue;
        }
        if (config_resolve_metrics_url(url, "--gpu-telemetry", &target, errbuf, sizeof(errbuf)) ==
            0) {
            add_endpoint(t->gpus, &t->gpu_count, "--gpu-telemetry", &target, false, !given);
        }
    }
    return 0;
}

int cli_targets_resolve(struct cli_targets *t, const struct profile_config *cfg)
{
    t->targets = calloc(cfg->urls.count, sizeof(*t->targets));
    if (t->targets == NULL) {
        return -ENOMEM;
    }
    t->count = cfg->urls.count;
    for (size_t i = 0; i < cfg->urls.count; i++) {
        int ret = resolve_target(cfg, i, &t->targets[i]);
        if (ret != 0) {
            return ret;
        }
    }
    int ret = resolve_metrics(t, cfg);
    ret = ret != 0 ? ret : resolve_gpus(t, cfg);
    return ret != 0 ? ret : prepare_tls(t, cfg);
}

void cli_targets_free(struct cli_targets *t)
{
    free(t->targets);
    if (t->metrics != NULL) {
        explicit_bzero(t->metrics, t->metrics_count * sizeof(*t->metrics));
    }
    free(t->metrics);
    if (t->gpus != NULL) {
        explicit_bzero(t->gpus, t->gpu_count * sizeof(*t->gpus));
    }
    free(t->gpus);
    tls_context_free(t->tls);
    *t = (struct cli_targets){0};
}
