/*
 * realtime.c - `--realtime-priority N`: SCHED_FIFO shards, the other threads
 * apart from them, memory locked (see cli_realtime.h).
 */
#include "cli/cli_realtime.h"

#include <errno.h>
#include <linux/capability.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

/* has_capability reports whether cap is in this thread's effective set. */
static bool has_capability(unsigned cap)
{
    struct __user_cap_header_struct head = {.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0};
    struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
    memset(data, 0, sizeof(data));
    if (syscall(SYS_capget, &head, data) != 0 || cap / 32 >= _LINUX_CAPABILITY_U32S_3) {
        return false;
    }
    return (data[cap / 32].effective & (1u << (cap % 32))) != 0;
}

/* try_sched_fifo tries SCHED_FIFO at priority on the calling thread and puts
 * its policy back. Returns 0 or the errno the kernel refused it with. */
static int try_sched_fifo(int priority)
{
    int policy = 0;
    struct sched_param saved;
    int ret = pthread_getschedparam(pthread_self(), &policy, &saved);
    if (ret != 0) {
        return ret;
    }
    struct sched_param param = {.sched_priority = priority};
    ret = pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
    if (ret == 0) {
        /* Going back to a normal policy is always allowed. */
        pthread_setschedparam(pthread_self(), policy, &saved);
    }
    return ret;
}

/* memlock_allowed reports whether mlockall(MCL_CURRENT | MCL_FUTURE) can hold
 * the whole run: with CAP_IPC_LOCK, or with no limit once the soft limit is
 * raised to the hard one. A finite limit is not tried: MCL_FUTURE would make
 * the run's later allocations fail once they passed it. *out_limit_kib is the
 * limit found. */
static bool memlock_allowed(unsigned long long *out_limit_kib)
{
    struct rlimit lim = {0};
    *out_limit_kib = 0;
    if (has_capability(CAP_IPC_LOCK)) {
        return true;
    }
    if (getrlimit(RLIMIT_MEMLOCK, &lim) != 0) {
        return false;
    }
    if (lim.rlim_cur != lim.rlim_max) {
        struct rlimit raised = {.rlim_cur = lim.rlim_max, .rlim_max = lim.rlim_max};
        if (setrlimit(RLIMIT_MEMLOCK, &raised) == 0) {
            lim = raised;
        }
    }
    *out_limit_kib = (unsigned long long)(lim.rlim_cur / 1024);
    return lim.rlim_cur == RLIM_INFINITY;
}

/* warn says, in one line, which part of the mode the process may not have and
 * how to grant it. */
static void warn(const struct cli_realtime *rt, int sched_err, unsigned long long memlock_kib)
{
    char what[256] = "";
    char fix[256] = "";
    if (!rt->sched_fifo) {
        struct rlimit rtprio = {0};
        getrlimit(RLIMIT_RTPRIO, &rtprio);
        snprintf(what, sizeof(what),
                 "SCHED_FIFO priority %d was refused (%s; no CAP_SYS_NICE and RLIMIT_RTPRIO is "
                 "%llu)",
                 rt->priority, strerror(sched_err), (unsigned long long)rtprio.rlim_cur);
        snprintf(fix, sizeof(fix), "run as root or with CAP_SYS_NICE, or raise `ulimit -r %d`",
                 rt->priority);
    } else if (!rt->lock_memory) {
        snprintf(what, sizeof(what),
                 "memory cannot be locked (no CAP_IPC_LOCK and RLIMIT_MEMLOCK is %llu KiB)",
                 memlock_kib);
        snprintf(fix, sizeof(fix),
                 "run as root or with CAP_IPC_LOCK, or raise `ulimit -l unlimited`");
    }
    fprintf(stderr,
            "ringperf profile: warning: --realtime-priority %d: %s; %s. The run goes ahead %s.\n",
            rt->priority, what, fix,
            rt->sched_fifo ? "with SCHED_FIFO shards but unlocked memory" : "at normal priority");
}

void cli_realtime_prepare(const struct profile_config *cfg, struct engine_config *engine,
                          struct cli_realtime *out)
{
    *out = (struct cli_realtime){.priority = (int)cfg->realtime_priority};
    if (out->priority <= 0) {
        return;
    }
    int sched_err = try_sched_fifo(out->priority);
    out->sched_fifo = sched_err == 0;
    unsigned long long memlock_kib = 0;
    out->lock_memory = out->sched_fifo && memlock_allowed(&memlock_kib);
    if (!out->sched_fifo || !out->lock_memory) {
        warn(out, sched_err, memlock_kib);
    }
    if (!out->sched_fifo) {
        return;
    }
    engine->realtime_priority = out->priority;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    if (cfg->workers_max <= 0) {
        engine->shard_count = cpus > 1 ? (uint32_t)(cpus - 1) : 1;
    }
}

/* move_apart restricts the calling thread to its allowed CPUs from first_cpu
 * on. Returns false, changing nothing, where none is left. */
static bool move_apart(long first_cpu)
{
    cpu_set_t allowed;
    if (pthread_getaffinity_np(pthread_self(), sizeof(allowed), &allowed) != 0) {
        return false;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    for (long cpu = first_cpu; cpu < CPU_SETSIZE; cpu++) {
        if (CPU_ISSET((int)cpu, &allowed)) {
            CPU_SET((int)cpu, &set);
        }
    }
    return CPU_COUNT(&set) > 0 && pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

void cli_realtime_start(struct cli_realtime *rt, const struct engine_config *engine)
{
    if (!rt->sched_fifo) {
        return;
    }
    /* Shard i is pinned to CPU i (engine.h), so its CPUs are the first ones. */
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    uint32_t shards = engine->shard_count > 0 ? engine->shard_count : (uint32_t)cpus;
    rt->threads_apart = engine->pin_shards && cpus > (long)shards && move_apart((long)shards);
    if (rt->lock_memory) {
        rt->memory_locked = mlockall(MCL_CURRENT | MCL_FUTURE) == 0;
        if (!rt->memory_locked) {
            fprintf(stderr,
                    "ringperf profile: warning: --realtime-priority %d: mlockall failed (%s); "
                    "the run goes ahead with unlocked memory. Free some memory or raise "
                    "`ulimit -l unlimited`.\n",
                    rt->priority, strerror(errno));
        }
    }
    fprintf(stderr,
            "ringperf profile: realtime: %u shard%s at SCHED_FIFO priority %d, %s, memory %s\n",
            shards, shards == 1 ? "" : "s", rt->priority,
            rt->threads_apart ? "the other threads on the remaining CPUs"
                              : "the other threads share their CPUs (no spare CPU)",
            rt->memory_locked ? "locked" : "not locked");
}

json_t *cli_realtime_json(const struct cli_realtime *rt, const struct engine_run_stats *stats)
{
    bool realtime = stats->shard_count > 0 && stats->realtime_shards == stats->shard_count;
    return json_pack("{s:s, s:i, s:i, s:i, s:b, s:b}", "mode", realtime ? "realtime" : "normal",
                     "realtime_priority", rt->priority, "sched_fifo_shards",
                     (int)stats->realtime_shards, "shards", (int)stats->shard_count,
                     "memory_locked", rt->memory_locked, "threads_apart",
                     rt->threads_apart && stats->coordinator_apart);
}
