/*
 * engine.c - the coordinator: starts the shards, keeps their work rings full,
 * hands finished records to the caller and recycles them.
 *
 * The coordinator sleeps in poll() on one eventfd that every shard writes
 * (through its own io_uring) at the end of a loop turn in which it finished
 * requests, so it wakes about once per shard batch, not once per request.
 */
#include "engine/engine_conn.h"
#include "engine/engine_internal.h"
#include "sigv4/sigv4.h"

#include <assert.h>
#include <errno.h>
#include <stdint.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* How often the coordinator looks at the stop flag when nothing happens. */
#define COORDINATOR_POLL_MS 50

struct coordinator {
    struct engine_config config;           /* the caller's, with defaults filled in */
    struct response_reader default_reader; /* when the caller gave none */
    const struct engine_record_sink *sink;
    struct engine_stop *stop;
    struct engine__shard *shards;
    uint32_t shard_count;
    uint32_t threads_started;
    int wake_fd;
    uint64_t issued;                /* ordinals handed to shards */
    uint64_t finished;              /* records handed to the sink */
    int64_t start_ns;               /* the run's time zero: open-loop offsets count from here */
    int64_t end_ns;                 /* start + duration, or INT64_MAX */
    int64_t refill_now_ns;          /* the clock when the current refill began */
    union engine_ring_item pending; /* next work, when has_pending */
    int64_t stop_deadline_ns;       /* after a stop request: when to cancel what runs */
    bool has_pending;
    uint32_t next_shard;
    bool closed;    /* every shard was told there is no more work */
    bool cancelled; /* the stop flag was seen */
    /* SigV4 credentials refreshed during the run (config.sigv4_refresh): the latest set, its
     * number, how many shards still wait for it, and when to ask again. */
    struct sigv4_credentials rekey;
    uint64_t rekey_generation;
    uint32_t rekey_undelivered;
    int64_t next_refresh_ns;
};

int64_t engine_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

bool engine_should_cancel(double cancel_fraction, uint64_t cancel_seed, uint64_t ordinal)
{
    if (cancel_fraction <= 0) {
        return false;
    }
    /* splitmix64 of (seed, ordinal): a uniform draw that any process can redo. */
    uint64_t z = cancel_seed ^ (ordinal * 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return (double)(z >> 11) / 9007199254740992.0 < cancel_fraction;
}

uint32_t engine_shard_count(const struct engine_config *config)
{
    uint32_t shards = config->shard_count;
    if (shards == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        shards = cpus > 0 ? (uint32_t)cpus : 1;
    }
    if (shards > config->concurrency) {
        shards = config->concurrency;
    }
    /* Every shard needs at least one prefill slot to make progress. */
    if (config->prefill_limit > 0 && shards > config->prefill_limit) {
        shards = config->prefill_limit;
    }
    return shards > ENGINE_MAX_SHARDS ? ENGINE_MAX_SHARDS : shards;
}

uint64_t engine_descriptors(const struct engine_config *config)
{
    /* A socket per connection, an io_uring per shard, the coordinator's
     * eventfd and engine_probe's ring. */
    return (uint64_t)config->concurrency + engine_shard_count(config) + 2;
}

int engine_probe(char *errbuf, size_t errcap)
{
    struct io_uring ring;
    int ret = io_uring_queue_init(8, &ring, 0);
    if (ret == -ENOSYS) {
        snprintf(errbuf, errcap,
                 "io_uring is not available: this kernel was built without it (ENOSYS). "
                 "ringperf needs Linux 5.19 or newer with CONFIG_IO_URING");
        return ret;
    }
    if (ret == -EPERM || ret == -EACCES) {
        snprintf(errbuf, errcap,
                 "io_uring is disabled here (%s): check sysctl kernel.io_uring_disabled "
                 "and any seccomp or container policy that blocks io_uring_setup",
                 strerror(-ret));
        return ret;
    }
    if (ret < 0) {
        snprintf(errbuf, errcap, "io_uring_setup failed: %s%s", strerror(-ret),
                 ret == -ENOMEM ? " (raise the locked-memory limit: ulimit -l)" : "");
        return ret;
    }
    struct io_uring_probe *probe = io_uring_get_probe_ring(&ring);
    bool ok = probe != NULL && io_uring_opcode_supported(probe, IORING_OP_RECV) &&
              io_uring_opcode_supported(probe, IORING_OP_SENDMSG) &&
              io_uring_opcode_supported(probe, IORING_OP_CONNECT);
    io_uring_free_probe(probe);
    io_uring_queue_exit(&ring);
    if (!ok) {
        snprintf(errbuf, errcap,
                 "this kernel's io_uring lacks recv, sendmsg or connect; "
                 "ringperf needs Linux 5.19 or newer");
        return -EOPNOTSUPP;
    }
    return 0;
}

/* check_jobs refuses jobs the engine cannot run: polls with no interval between them (or one
 * that overflows the clock), follow-ups the signer would sign as the submission (SigV4 signs
 * the target's path and method), and submissions whose answer is discarded unread. Sessions
 * of jobs run: each turn is a job, and the next turn starts when it ends. */
static int check_jobs(const struct engine_config *config, char *errbuf, size_t errcap)
{
    const struct engine_jobs *jobs = config->jobs;
    if (jobs == NULL) {
        return 0;
    }
    if (jobs->poll_interval_ns <= 0 || jobs->poll_interval_ns > ENGINE_JOB_POLL_INTERVAL_MAX_NS) {
        snprintf(errbuf, errcap,
                 "engine: a job's poll interval must be more than 0 and at most %lld s (got %lld "
                 "ns)",
                 (long long)(ENGINE_JOB_POLL_INTERVAL_MAX_NS / 1000000000LL),
                 (long long)jobs->poll_interval_ns);
        return -EINVAL;
    }
    if (config->sigv4_credentials != NULL) {
        snprintf(errbuf, errcap,
                 "engine: jobs cannot be signed with SigV4: their polls and downloads would carry "
                 "the submission's signature");
        return -EINVAL;
    }
    if (config->discard_body) {
        snprintf(errbuf, errcap,
                 "engine: jobs need their answers read: a discarded submission names no job");
        return -EINVAL;
    }
    return 0;
}

static int fill_defaults(struct engine_config *config, char *errbuf, size_t errcap)
{
    const struct engine_sessions *sessions = config->sessions;
    if (check_jobs(config, errbuf, errcap) != 0) {
        return -EINVAL;
    }
    if (sessions != NULL) {
        if (sessions->turn_count == NULL || sessions->first_ordinal == NULL ||
            sessions->think_ns == NULL || sessions->turn_body == NULL) {
            snprintf(errbuf, errcap, "engine: sessions need every callback");
            return -EINVAL;
        }
        if (sessions->ordinal_limit == 0 && sessions->session_limit == 0 &&
            config->duration_ns <= 0) {
            snprintf(errbuf, errcap,
                     "engine: give a request or session limit, a duration, or both");
            return -EINVAL;
        }
    } else if (config->payload_count == 0 || config->payloads == NULL) {
        snprintf(errbuf, errcap, "engine: no request payloads");
        return -EINVAL;
    }
    if (config->targets == NULL || config->target_count == 0) {
        snprintf(errbuf, errcap, "engine: no target server");
        return -EINVAL;
    }
    if (config->concurrency == 0) {
        snprintf(errbuf, errcap, "engine: concurrency must be at least 1");
        return -EINVAL;
    }
    if (sessions == NULL && config->request_count == 0 && config->duration_ns <= 0) {
        snprintf(errbuf, errcap, "engine: give a request count, a duration, or both");
        return -EINVAL;
    }
    if (config->max_events_per_request == 0) {
        config->max_events_per_request = ENGINE_DEFAULT_MAX_EVENTS;
    }
    if (config->max_text_bytes == 0) {
        config->max_text_bytes = ENGINE_DEFAULT_MAX_TEXT_BYTES;
    }
    if (config->ordinal_stride == 0) {
        config->ordinal_stride = 1;
    }
    if (config->record_hook != NULL && config->record_hook->on_finish == NULL) {
        snprintf(errbuf, errcap, "engine: a record hook needs its on_finish");
        return -EINVAL;
    }
    config->shard_count = engine_shard_count(config);
    return 0;
}

static void close_work(struct coordinator *co)
{
    for (uint32_t i = 0; i < co->shard_count; i++) {
        atomic_store_explicit(&co->shards[i].no_more_work, true, memory_order_release);
    }
    co->closed = true;
}

/* next_work returns the next request to hand out, or false when the run has
 * issued all it will. */
static bool next_work(struct coordinator *co, struct engine_work *out)
{
    const struct engine_config *config = &co->config;
    const struct engine_sessions *sessions = config->sessions;
    if (config->request_count != 0 && co->issued >= config->request_count) {
        return false;
    }
    /* With sessions this is a session number; its turns' ordinals come from it. */
    out->ordinal = config->ordinal_base + co->issued * config->ordinal_stride;
    if (sessions != NULL &&
        ((sessions->session_limit != 0 && co->issued >= sessions->session_limit) ||
         (sessions->ordinal_limit != 0 &&
          sessions->first_ordinal(sessions->ctx, out->ordinal) >= sessions->ordinal_limit))) {
        return false;
    }
    out->due_ns = 0;
    if (config->schedule != NULL) {
        out->due_ns = co->start_ns + config->schedule->offset_ns(config->schedule->ctx, co->issued);
        return out->due_ns < co->end_ns;
    }
    /* Closed loop: the shard drops work it pops after the end, so the time
     * read once per refill is exact enough. */
    return co->refill_now_ns < co->end_ns;
}

/* refill tops up the shards' work rings round-robin, so a shard that drains
 * its ring faster also receives more work. */
static void refill(struct coordinator *co)
{
    uint32_t full = 0;
    co->refill_now_ns = engine_now_ns();
    while (!co->closed && full < co->shard_count) {
        /* Work that found every ring full waits here: a schedule is asked for
         * each request exactly once. */
        if (!co->has_pending) {
            if (!next_work(co, &co->pending.work)) {
                close_work(co);
                break;
            }
            co->has_pending = true;
        }
        struct engine__shard *shard = &co->shards[co->next_shard];
        co->next_shard = (co->next_shard + 1) % co->shard_count;
        if (engine_ring_push(&shard->work, &co->pending)) {
            shard->watch.handed++;
            co->has_pending = false;
            co->issued++;
            full = 0;
        } else {
            full++;
        }
    }
}

static void drain(struct coordinator *co)
{
    for (uint32_t i = 0; i < co->shard_count; i++) {
        struct engine__shard *shard = &co->shards[i];
        void *item = NULL;
        uint32_t popped = 0;
        while (engine_ring_pop_ptr(&shard->done, &item)) {
            co->sink->on_record(co->sink->ctx, item);
            co->finished++;
            popped++;
            /* The free ring holds the whole pool, so the record always fits. */
            bool pushed = engine_ring_push_ptr(&shard->free, item);
            assert(pushed);
            (void)pushed; /* unused where NDEBUG drops the assert */
        }
        shard->watch.returned += popped;
        shard->watch.waiting_max =
            popped > shard->watch.waiting_max ? popped : shard->watch.waiting_max;
    }
}

static void cancel_all(struct coordinator *co)
{
    for (uint32_t i = 0; i < co->shard_count; i++) {
        atomic_store_explicit(&co->shards[i].cancel, true, memory_order_release);
    }
    close_work(co);
    co->cancelled = true;
}

static bool all_shards(struct coordinator *co, bool want_exited)
{
    for (uint32_t i = 0; i < co->threads_started; i++) {
        _Atomic bool *flag = want_exited ? &co->shards[i].exited : &co->shards[i].ready;
        if (!atomic_load_explicit(flag, memory_order_acquire)) {
            return false;
        }
    }
    return true;
}

/* stop_gracefully answers a stop request: nothing new starts, and requests in
 * flight get stop_grace_ns to finish before they are cancelled. */
static void stop_gracefully(struct coordinator *co)
{
    int64_t now = engine_now_ns();
    if (co->stop_deadline_ns == 0) {
        for (uint32_t i = 0; i < co->shard_count; i++) {
            atomic_store_explicit(&co->shards[i].draining, true, memory_order_release);
        }
        close_work(co);
        co->stop_deadline_ns = now + co->config.stop_grace_ns;
    }
    if (now >= co->stop_deadline_ns ||
        __atomic_load_n(&co->stop->requested, __ATOMIC_ACQUIRE) >= ENGINE_STOP_NOW) {
        cancel_all(co);
    }
}

static bool stop_requested(struct coordinator *co)
{
    return co->stop != NULL && __atomic_load_n(&co->stop->requested, __ATOMIC_ACQUIRE) != 0;
}

static void wait_for_wake(struct coordinator *co)
{
    struct pollfd pfd = {.fd = co->wake_fd, .events = POLLIN};
    if (poll(&pfd, 1, COORDINATOR_POLL_MS) > 0) {
        uint64_t value;
        ssize_t n = read(co->wake_fd, &value, sizeof(value));
        (void)n;
    }
}

/* progress_total is how many records the run will end with, when known. */
static uint64_t progress_total(const struct engine_config *config)
{
    if (config->sessions != NULL) {
        return config->sessions->ordinal_limit;
    }
    return config->request_count;
}

/* refresh_credentials asks for newer SigV4 credentials when it is time, and hands the latest
 * set to the shards that have not taken it. */
static void refresh_credentials(struct coordinator *co, int64_t now)
{
    const struct engine_config *config = &co->config;
    if (config->sigv4_refresh == NULL || config->sigv4_credentials == NULL) {
        return;
    }
    if (now >= co->next_refresh_ns) {
        int64_t interval = config->sigv4_refresh_interval_ns > 0 ? config->sigv4_refresh_interval_ns
                                                                 : 1000LL * 1000 * 1000;
        co->next_refresh_ns = now + interval;
        /* Asked into a set of its own: co->rekey is what shards that have not taken the last
         * hand-over still get, and a hook that finds nothing new may wipe what it was given. */
        struct sigv4_credentials fresh = {0};
        char why[128];
        if (config->sigv4_refresh(config->sigv4_refresh_ctx, &fresh) &&
            sigv4_credentials_check(&fresh, why, sizeof(why))) {
            co->rekey = fresh;
            co->rekey_generation++;
            co->rekey_undelivered = co->shard_count;
        }
        explicit_bzero(&fresh, sizeof(fresh));
    }
    if (co->rekey_undelivered > 0) {
        engine__sign_deliver(co->shards, co->shard_count, &co->rekey, co->rekey_generation,
                             &co->rekey_undelivered);
    }
}

static void run_coordinator(struct coordinator *co)
{
    int64_t next_progress = engine_now_ns() + co->sink->progress_interval_ns;
    refill(co);
    for (uint32_t i = 0; i < co->shard_count; i++) {
        /* Release the shards only now: their clocks and ours share time zero. */
        atomic_store_explicit(&co->shards[i].started, true, memory_order_release);
    }
    for (;;) {
        /* Read exited before draining: records a shard pushed before exiting
         * are then certain to be seen by this drain. */
        bool exited = all_shards(co, true);
        drain(co);
        if (exited) {
            break;
        }
        if (!co->cancelled && stop_requested(co)) {
            stop_gracefully(co);
        }
        refill(co);
        int64_t now = engine_now_ns();
        refresh_credentials(co, now);
        if (co->sink->on_progress != NULL && now >= next_progress) {
            engine__watch_report(co->shards, co->shard_count, co->sink);
            co->sink->on_progress(co->sink->ctx, co->finished, progress_total(&co->config));
            next_progress = now + co->sink->progress_interval_ns;
        }
        wait_for_wake(co);
    }
    /* The last word: a run shorter than one interval has shown nothing yet. */
    if (co->sink->on_progress != NULL) {
        engine__watch_report(co->shards, co->shard_count, co->sink);
        co->sink->on_progress(co->sink->ctx, co->finished, progress_total(&co->config));
    }
}

/* pin_coordinator moves the caller's thread, for the run, onto a CPU no shard
 * uses, when there is one: sharing a shard's core, its per-record work would
 * delay that shard's sends. Returns whether the old affinity is in *saved. */
static bool pin_coordinator(const struct coordinator *co, long cpus, cpu_set_t *saved)
{
    if (!co->config.pin_shards || cpus <= (long)co->shard_count ||
        pthread_getaffinity_np(pthread_self(), sizeof(*saved), saved) != 0) {
        return false;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    for (long cpu = co->shard_count; cpu < cpus && cpu < CPU_SETSIZE; cpu++) {
        if (CPU_ISSET((int)cpu, saved)) {
            CPU_SET((int)cpu, &set);
        }
    }
    return CPU_COUNT(&set) > 0 && pthread_setaffinity_np(pthread_self(), sizeof(set), &set) == 0;
}

/* COORDINATOR_NICE_STEP lowers the coordinator's priority under the shards'. */
#define COORDINATOR_NICE_STEP 5

/* yield_to_shards lowers the calling thread's priority for the run when it
 * shares a CPU with a shard: a read that completes should wake the shard at
 * once, not wait out a burst of the coordinator's per-record work, or the
 * next token joins it in one read and loses its own arrival time. Returns the
 * old nice value, or INT32_MIN when nothing changed. */
static int yield_to_shards(bool pinned_apart)
{
    if (pinned_apart) {
        return INT32_MIN;
    }
    pid_t tid = (pid_t)syscall(SYS_gettid);
    errno = 0;
    int old = getpriority(PRIO_PROCESS, (id_t)tid);
    if (errno != 0 || setpriority(PRIO_PROCESS, (id_t)tid, old + COORDINATOR_NICE_STEP) != 0) {
        return INT32_MIN;
    }
    return old;
}

/* restore_priority undoes yield_to_shards where the process may raise its
 * priority again (root, or RLIMIT_NICE); else the thread, now only writing
 * the exports, stays a little nicer. */
static void restore_priority(int old)
{
    if (old != INT32_MIN) {
        setpriority(PRIO_PROCESS, (id_t)(pid_t)syscall(SYS_gettid), old);
    }
}

static int start_shards(struct coordinator *co, char *errbuf, size_t errcap)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    for (uint32_t i = 0; i < co->shard_count; i++) {
        struct engine__shard *shard = &co->shards[i];
        if (co->config.pin_shards && cpus > 0) {
            shard->cpu = (int)(i % (uint32_t)cpus);
        }
        int ret = pthread_create(&shard->thread, NULL, engine__shard_main, shard);
        if (ret != 0) {
            snprintf(errbuf, errcap, "cannot start shard thread %u: %s", i, strerror(ret));
            return -ret;
        }
        co->threads_started++;
    }
    while (!all_shards(co, false)) {
        wait_for_wake(co);
    }
    for (uint32_t i = 0; i < co->shard_count; i++) {
        if (co->shards[i].init_status != 0) {
            snprintf(errbuf, errcap, "shard %u could not start: %s", i, co->shards[i].init_error);
            return co->shards[i].init_status;
        }
    }
    return 0;
}

static int init_shards(struct coordinator *co)
{
    co->shards = calloc(co->shard_count, sizeof(*co->shards));
    if (co->shards == NULL) {
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < co->shard_count; i++) {
        uint32_t conns = co->config.concurrency / co->shard_count +
                         (i < co->config.concurrency % co->shard_count ? 1 : 0);
        int ret =
            engine__shard_init(&co->shards[i], i, co->shard_count, conns, &co->config, co->wake_fd);
        if (ret != 0) {
            return ret;
        }
        uint32_t limit = co->config.prefill_limit;
        co->shards[i].prefill_limit =
            limit / co->shard_count + (i < limit % co->shard_count ? 1 : 0);
    }
    return 0;
}

int engine_run(const struct engine_config *config, const struct engine_record_sink *sink,
               struct engine_stop *stop, char *errbuf, size_t errcap)
{
    struct coordinator co = {.config = *config, .sink = sink, .stop = stop, .wake_fd = -1};
    int ret = fill_defaults(&co.config, errbuf, errcap);
    if (ret != 0) {
        return ret;
    }
    if (co.config.reader == NULL) {
        response_reader_init(&co.default_reader, co.config.endpoint_type, NULL, NULL, 0);
        co.config.reader = &co.default_reader;
    }
    co.shard_count = co.config.shard_count;
    co.wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (co.wake_fd < 0) {
        ret = -errno;
        snprintf(errbuf, errcap, "eventfd: %s", strerror(errno));
        return ret;
    }
    ret = init_shards(&co);
    if (ret != 0) {
        snprintf(errbuf, errcap, "engine: out of memory for %u connections", co.config.concurrency);
        goto destroy_shards;
    }
    ret = start_shards(&co, errbuf, errcap);
    cpu_set_t saved_affinity;
    bool pinned = ret == 0 && pin_coordinator(&co, sysconf(_SC_NPROCESSORS_ONLN), &saved_affinity);
    int old_nice = ret == 0 ? yield_to_shards(pinned) : INT32_MIN;
    int64_t coordinator_cpu_ns = 0;
    if (ret == 0) {
        co.start_ns = engine_now_ns();
        if (co.config.schedule != NULL && co.config.schedule_start_ns > co.start_ns) {
            co.start_ns = co.config.schedule_start_ns;
        }
        co.end_ns = co.config.duration_ns > 0 ? co.start_ns + co.config.duration_ns : INT64_MAX;
        for (uint32_t i = 0; i < co.shard_count; i++) {
            co.shards[i].start_ns = co.start_ns;
            co.shards[i].end_ns = co.end_ns;
            co.shards[i].grace_end_ns = co.end_ns == INT64_MAX || co.config.grace_ns < 0
                                            ? INT64_MAX
                                            : co.end_ns + co.config.grace_ns;
        }
        coordinator_cpu_ns = engine__thread_cpu_ns();
        run_coordinator(&co);
    } else {
        cancel_all(&co);
    }
    for (uint32_t i = 0; i < co.threads_started; i++) {
        pthread_join(co.shards[i].thread, NULL);
    }
    if (pinned) {
        pthread_setaffinity_np(pthread_self(), sizeof(saved_affinity), &saved_affinity);
    }
    restore_priority(old_nice);
    drain(&co);
    coordinator_cpu_ns = engine__thread_cpu_ns() - coordinator_cpu_ns;
    if (ret == 0 && sink->on_finish != NULL) {
        struct engine_run_stats stats = {.shard_count = co.shard_count,
                                         .coordinator_apart = pinned,
                                         .coordinator_cpu_ns = coordinator_cpu_ns};
        for (uint32_t i = 0; i < co.shard_count; i++) {
            const struct engine__shard *shard = &co.shards[i];
            stats.kernel_timestamp_reads += shard->kernel_timestamp_reads;
            stats.user_timestamp_reads += shard->user_timestamp_reads;
            stats.realtime_shards += shard->realtime ? 1 : 0;
            stats.record_waits += shard->record_waits;
            stats.shards_cpu_ns += shard->loop_cpu_ns;
            /* Pacing spins are CPU spent by choice, not load: leave them out. */
            double busy = shard->loop_wall_ns > 0 ? (double)(shard->loop_cpu_ns - shard->spin_ns) /
                                                        (double)shard->loop_wall_ns
                                                  : 0.0;
            if (busy > stats.busiest_shard_cpu_fraction) {
                stats.busiest_shard_cpu_fraction = busy;
                stats.busiest_shard = i;
            }
        }
        sink->on_finish(sink->ctx, &stats);
    }
destroy_shards:
    if (co.shards != NULL) {
        for (uint32_t i = 0; i < co.shard_count; i++) {
            engine__shard_destroy(&co.shards[i]);
        }
        free(co.shards);
    }
    close(co.wake_fd);
    explicit_bzero(&co.rekey, sizeof(co.rekey)); /* a secret */
    return ret;
}
