#include "cli/cli_control_hooks.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_oneshot.h"

#define NS_PER_S 1000000000LL
/* A busy server gets this long, in all, to take a cache reset (AIPerf's budget). */
#define RESET_RETRY_BUDGET_NS (60 * NS_PER_S)
#define RETRY_BACKOFF_FIRST_NS (1 * NS_PER_S)
#define RETRY_BACKOFF_MAX_NS (8 * NS_PER_S)

bool cli_control_hook_wanted(const struct profile_config *cfg, enum cli_control_hook hook)
{
    return hook == CLI_HOOK_RESET_KV_CACHE ? cfg->reset_kv_cache : cfg->server_profiler;
}

/* hook_spec is a hook's flag, path and time limit as cfg gives them. */
struct hook_spec {
    const char *flag;
    const char *path;
    int64_t timeout_ns;
    bool retry_busy;
};

static struct hook_spec spec_of(const struct profile_config *cfg, enum cli_control_hook hook)
{
    switch (hook) {
    case CLI_HOOK_RESET_KV_CACHE:
        return (struct hook_spec){"--reset-kv-cache",
                                  cfg->reset_kv_cache_path != NULL ? cfg->reset_kv_cache_path
                                                                   : "/reset_prefix_cache",
                                  (int64_t)(cfg->reset_kv_cache_timeout_seconds * 1e9), true};
    case CLI_HOOK_PROFILER_START:
        return (struct hook_spec){"--server-profiler",
                                  cfg->server_profiler_start_path != NULL
                                      ? cfg->server_profiler_start_path
                                      : "/start_profile",
                                  (int64_t)(cfg->server_profiler_timeout_seconds * 1e9), false};
    case CLI_HOOK_PROFILER_STOP:
    default:
        return (struct hook_spec){"--server-profiler",
                                  cfg->server_profiler_stop_path != NULL
                                      ? cfg->server_profiler_stop_path
                                      : "/stop_profile",
                                  (int64_t)(cfg->server_profiler_timeout_seconds * 1e9), false};
    }
}

/* busy reports whether a status asks to try again later: the server is in
 * the middle of something (409 Conflict, 423 Locked, 429, 503). */
static bool busy(int http_status)
{
    return http_status == 409 || http_status == 423 || http_status == 429 || http_status == 503;
}

/* same_server reports whether targets a and b are one server: the same
 * scheme and Host. */
static bool same_server(const struct engine_target *a, const struct engine_target *b)
{
    return (a->tls != NULL) == (b->tls != NULL) && strcmp(a->host_header, b->host_header) == 0;
}

/* post_to makes the hook on one server, retrying a busy one when the hook
 * allows it. */
static int post_to(const struct hook_spec *spec, const struct engine_config *run,
                   const struct engine_target *server, struct engine_stop *stop, char *errbuf,
                   size_t errcap)
{
    struct engine_target target = *server;
    engine_target_set_path(&target, spec->path);
    int64_t give_up = engine_now_ns() + RESET_RETRY_BUDGET_NS;
    int64_t backoff = RETRY_BACKOFF_FIRST_NS;
    for (;;) {
        /* Servers answer these with an empty body or a short note: not looked at. */
        struct cli_oneshot_request req = {.base = run,
                                          .target = &target,
                                          .body = "",
                                          .discard_body = true,
                                          .timeout_ns = spec->timeout_ns};
        struct cli_oneshot_result result;
        int ret = cli_oneshot(&req, stop, &result, errbuf, errcap);
        if (ret != 0) {
            return ret;
        }
        if (__atomic_load_n(&stop->requested, __ATOMIC_ACQUIRE)) {
            return -ECANCELED;
        }
        if (result.ok) {
            return 0;
        }
        int64_t next = engine_now_ns() + backoff;
        if (!spec->retry_busy || !busy(result.http_status) || next >= give_up) {
            snprintf(errbuf, errcap,
                     "%s: POST %s to %s ended with %s; check that the server offers it (and "
                     "the path flag), or drop %s",
                     spec->flag, spec->path, server->host_header, result.error, spec->flag);
            return -EIO;
        }
        cli_sleep_until(next, stop);
        backoff = backoff * 2 < RETRY_BACKOFF_MAX_NS ? backoff * 2 : RETRY_BACKOFF_MAX_NS;
    }
}

int cli_control_hook(const struct profile_config *cfg, const struct engine_config *run,
                     enum cli_control_hook hook, struct engine_stop *stop, char *errbuf,
                     size_t errcap)
{
    if (!cli_control_hook_wanted(cfg, hook)) {
        return 0;
    }
    struct hook_spec spec = spec_of(cfg, hook);
    size_t servers = 0;
    for (size_t i = 0; i < run->target_count; i++) {
        bool seen = false;
        for (size_t j = 0; j < i && !seen; j++) {
            seen = same_server(&run->targets[i], &run->targets[j]);
        }
        int ret = seen ? 0 : post_to(&spec, run, &run->targets[i], stop, errbuf, errcap);
        if (ret != 0) {
            return ret;
        }
        servers += !seen;
    }
    fprintf(stderr, "%s: POST %s to %zu server%s: done\n", spec.flag, spec.path, servers,
            servers == 1 ? "" : "s");
    return 0;
}
