/*
 * descriptors.c - raising the open-file limit and refusing a run that
 * cannot fit under it.
 */
#include "cli/cli_descriptors.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "api/api.h"
#include "export/export.h"

uint64_t cli_descriptors_needed(const struct profile_config *cfg,
                                const struct engine_config *profiling,
                                const struct engine_config *warmup)
{
    uint64_t engine = engine_descriptors(profiling);
    if (warmup != NULL && engine_descriptors(warmup) > engine) {
        engine = engine_descriptors(warmup);
    }
    /* The API server's listening socket and its clients. */
    uint64_t api = cfg->api_port_set ? API_CONNECTIONS_MAX + 1 : 0;
    return engine + api + EXPORT_DESCRIPTORS_MAX + CLI_DESCRIPTORS_SLACK;
}

int cli_descriptors_reserve(uint64_t needed)
{
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) != 0) {
        fprintf(stderr, "ringperf profile: cannot read the open-file limit: %s\n", strerror(errno));
        return 1;
    }
    if (lim.rlim_cur != lim.rlim_max) {
        struct rlimit raised = {.rlim_cur = lim.rlim_max, .rlim_max = lim.rlim_max};
        if (setrlimit(RLIMIT_NOFILE, &raised) == 0) {
            lim = raised;
        }
    }
    if (lim.rlim_cur == RLIM_INFINITY || needed <= (uint64_t)lim.rlim_cur) {
        return 0;
    }
    fprintf(stderr,
            "ringperf profile: this run needs up to %llu open files (a socket per connection, "
            "plus the exports, the API server and the process itself), but the open-file limit "
            "is %llu (ulimit -Hn). Raise it (ulimit -n %llu as root, LimitNOFILE= in a systemd "
            "unit, nofile in /etc/security/limits.conf) or lower --concurrency.\n",
            (unsigned long long)needed, (unsigned long long)lim.rlim_cur,
            (unsigned long long)needed);
    return 1;
}
