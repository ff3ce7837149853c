/*
 * cli_control_hooks.h - AIPerf's endpoint control hooks (internal to cli/):
 * --reset-kv-cache before the profiling phase, and --server-profiler's start
 * before it and stop after it.
 *
 * Each hook is a POST of its path to every distinct server of the run's
 * --url values (scheme, host and port; once each), made through the engine
 * (cli_oneshot.h), so it takes the run's TLS, proxies, headers and API key.
 */
#ifndef RINGPERF_CLI_CONTROL_HOOKS_H
#define RINGPERF_CLI_CONTROL_HOOKS_H

#include <stddef.h>

#include "config/config.h"
#include "engine/engine.h"

enum cli_control_hook {
    CLI_HOOK_RESET_KV_CACHE,
    CLI_HOOK_PROFILER_START,
    CLI_HOOK_PROFILER_STOP,
};

/* cli_control_hook_wanted reports whether cfg asks for `hook`. */
bool cli_control_hook_wanted(const struct profile_config *cfg, enum cli_control_hook hook);

/* cli_control_hook makes `hook` on every server of `run` (borrowed: targets,
 * headers, API key) if cfg asks for it. A cache reset that a server answers
 * 409, 423, 429 or 503 is tried again after 1, 2, 4 then every 8 s, for up
 * to 60 s in all. Returns 0 when done or not asked for; -EIO when a server
 * refused or did not answer (errbuf says which, and how), -ECANCELED when
 * `stop` was requested, another -errno when the engine could not run. */
int cli_control_hook(const struct profile_config *cfg, const struct engine_config *run,
                     enum cli_control_hook hook, struct engine_stop *stop, char *errbuf,
                     size_t errcap);

#endif
