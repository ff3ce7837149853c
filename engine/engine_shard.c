/*
 * engine_shard.c - one shard: an io_uring loop on a pinned thread.
 *
 * The loop is the classic liburing shape: submit and wait, walk the CQEs with
 * one dispatch switch on the op kind, advance the CQ once per batch, publish
 * recycled receive buffers once per batch.
 */
#include "engine/engine_conn.h"
#include "engine/engine_internal.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define SHARD_RING_ENTRIES 4096
#define SHARD_BUFFER_GROUP 0

static uint64_t next_pow2(uint64_t v)
{
    uint64_t p = 2;
    while (p < v) {
        p <<= 1;
    }
    return p;
}

/* annex_bytes is the room for the record hook's annex, in whole cache lines. */
static size_t annex_bytes(const struct engine_config *config)
{
    size_t bytes = config->record_hook != NULL ? config->record_hook->annex_bytes : 0;
    return (bytes + 63) & ~(size_t)63;
}

/* record_bytes is a record's memory: the annex first (64-byte aligned, as the
 * pool's start is), then the events, then the texts. */
static size_t record_bytes(const struct engine_config *config)
{
    return annex_bytes(config) + config->max_events_per_request * sizeof(struct record_event) +
           config->max_text_bytes * 2;
}

/* record_stride is the distance between records' memory: one cache line more
 * than a record needs. Records are large (576 KiB by default) and a short
 * response touches only the start of their events and text; at a stride that
 * is a multiple of 4 KiB those starts all share a handful of cache sets, and
 * the shard writing them and the coordinator reading them missed the cache on
 * every record. */
static size_t record_stride(const struct engine_config *config)
{
    return record_bytes(config) + 64;
}

static int init_records(struct engine__shard *shard, uint32_t count)
{
    const struct engine_config *config = shard->config;
    shard->records = calloc(count, sizeof(*shard->records));
    shard->free_records = calloc(count, sizeof(*shard->free_records));
    shard->record_memory = aligned_alloc(64, (size_t)count * record_stride(config));
    if (shard->records == NULL || shard->free_records == NULL || shard->record_memory == NULL) {
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < count; i++) {
        struct record *rec = &shard->records[i];
        char *base = shard->record_memory + (size_t)i * record_stride(config);
        rec->annex = annex_bytes(config) > 0 ? base : NULL;
        base += annex_bytes(config);
        rec->events = (struct record_event *)base;
        rec->text = base + config->max_events_per_request * sizeof(struct record_event);
        rec->reasoning_text = rec->text + config->max_text_bytes;
        shard->free_records[i] = rec;
    }
    shard->record_count = count;
    shard->free_record_count = count;
    return 0;
}

int engine__shard_init(struct engine__shard *shard, uint32_t id, uint32_t shard_count,
                       uint32_t conn_count, const struct engine_config *config, int wake_fd)
{
    shard->id = id;
    shard->shard_count = shard_count;
    shard->config = config;
    shard->config_wire = (struct wire_config){
        .reader = config->reader,
        .limits = {.max_events = config->max_events_per_request,
                   .max_text_bytes = config->max_text_bytes},
        .discard_body = config->discard_body,
    };
    shard->wake_fd = wake_fd;
    shard->wake_value = 1;
    shard->kernel_timestamps = !config->user_timestamps;
    shard->conn_count = conn_count;
    shard->cpu = -1;
    shard->next_think_ns = INT64_MAX;
    atomic_init(&shard->no_more_work, false);
    atomic_init(&shard->cancel, false);
    atomic_init(&shard->draining, false);
    atomic_init(&shard->exited, false);
    atomic_init(&shard->ready, false);
    /* Records in flight, queued for the coordinator, and being read by it:
     * twice the connections bounds all three, so pushes to done never fail. */
    uint32_t record_count = conn_count * 2 + 8;
    /* The coordinator is woken once a quarter of the records wait. Waking it
     * at half saved 1-2.5% of a non-streamed request's client CPU (fewer
     * context switches), but with a CPU hog on the client's core the
     * coordinator's later, larger bursts came as the next round of streams
     * started: 3 in 9 runs of 10 streams had a TTFT error of 5 ms at p99,
     * against none in 9 at a quarter. Timing comes first. */
    shard->wake_batch = record_count / 4;
    uint64_t ring_cap = next_pow2(record_count);
    int ret = engine_ring_init(&shard->work, next_pow2((uint64_t)conn_count * 2 + 64));
    if (ret == 0) {
        ret = engine_ring_init(&shard->done, ring_cap);
    }
    if (ret == 0) {
        ret = engine_ring_init(&shard->free, ring_cap);
    }
    if (ret == 0) {
        ret = init_records(shard, record_count);
    }
    if (ret == 0) {
        ret = engine__conns_init(shard);
    }
    shard->send_stamps = calloc(conn_count, sizeof(*shard->send_stamps));
    if (ret == 0 && shard->send_stamps == NULL) {
        ret = -ENOMEM;
    }
    return ret;
}

void engine__shard_destroy(struct engine__shard *shard)
{
    engine__conns_destroy(shard);
    free(shard->send_stamps);
    free(shard->records);
    free(shard->free_records);
    free(shard->record_memory);
    engine_ring_destroy(&shard->work);
    engine_ring_destroy(&shard->done);
    engine_ring_destroy(&shard->free);
}

static int setup_uring(struct engine__shard *shard)
{
    struct io_uring_params params = {0};
    /* One thread submits, and completions are processed only when it asks:
     * fewer interrupts and no cross-CPU task work. Older kernels lack both. */
    params.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN;
    int ret = io_uring_queue_init_params(SHARD_RING_ENTRIES, &shard->ring, &params);
    if (ret == -EINVAL) {
        memset(&params, 0, sizeof(params));
        ret = io_uring_queue_init_params(SHARD_RING_ENTRIES, &shard->ring, &params);
    }
    if (ret < 0) {
        snprintf(shard->init_error, sizeof(shard->init_error), "io_uring_queue_init: %s",
                 strerror(-ret));
        return ret;
    }
    shard->ring_ready = true;
    /* One file-table slot per connection (engine__sqe_on_socket); without
     * one (an old kernel, a low descriptor limit) sockets go by descriptor. */
    shard->fixed_files = io_uring_register_files_sparse(&shard->ring, shard->conn_count) == 0;
    return 0;
}

static int setup_buffers(struct engine__shard *shard)
{
    shard->buffer_bytes = ENGINE_DEFAULT_RECV_BUFFER_BYTES;
    /* Several buffers per connection: a fast stream can fill more than one
     * before the loop gets back to it. */
    uint64_t count = next_pow2((uint64_t)shard->conn_count * 4 + 16);
    if (count > 32768) {
        count = 32768;
    }
    shard->buffer_count = (uint32_t)count;
    shard->buf_ring_bytes = count * sizeof(struct io_uring_buf);
    void *mem = mmap(NULL, shard->buf_ring_bytes, PROT_READ | PROT_WRITE,
                     MAP_ANONYMOUS | MAP_PRIVATE, -1, 0);
    shard->buffers = malloc((size_t)count * shard->buffer_bytes);
    if (mem == MAP_FAILED || shard->buffers == NULL) {
        if (mem != MAP_FAILED) {
            munmap(mem, shard->buf_ring_bytes);
        }
        snprintf(shard->init_error, sizeof(shard->init_error), "receive buffers: out of memory");
        return -ENOMEM;
    }
    shard->buf_ring = mem;
    struct io_uring_buf_reg reg = {
        .ring_addr = (unsigned long)mem,
        .ring_entries = (uint32_t)count,
        .bgid = SHARD_BUFFER_GROUP,
    };
    int ret = io_uring_register_buf_ring(&shard->ring, &reg, 0);
    if (ret < 0) {
        snprintf(shard->init_error, sizeof(shard->init_error),
                 "io_uring provided buffer rings are not supported (%s); ringperf needs Linux "
                 "5.19 or newer",
                 strerror(-ret));
        return ret;
    }
    io_uring_buf_ring_init(shard->buf_ring);
    uint32_t mask = io_uring_buf_ring_mask((uint32_t)count);
    for (uint32_t i = 0; i < count; i++) {
        io_uring_buf_ring_add(shard->buf_ring, shard->buffers + (size_t)i * shard->buffer_bytes,
                              shard->buffer_bytes, (unsigned short)i, mask, (int)i);
    }
    io_uring_buf_ring_advance(shard->buf_ring, (int)count);
    return 0;
}

static void teardown(struct engine__shard *shard)
{
    if (shard->buf_ring != NULL) {
        if (shard->ring_ready) {
            io_uring_unregister_buf_ring(&shard->ring, SHARD_BUFFER_GROUP);
        }
        munmap(shard->buf_ring, shard->buf_ring_bytes);
        shard->buf_ring = NULL;
    }
    free(shard->buffers);
    shard->buffers = NULL;
    if (shard->ring_ready) {
        io_uring_queue_exit(&shard->ring);
        shard->ring_ready = false;
    }
}

struct io_uring_sqe *engine__get_sqe(struct engine__shard *shard)
{
    struct io_uring_sqe *sqe = io_uring_get_sqe(&shard->ring);
    if (sqe == NULL) {
        /* The SQ is full: flush it and try once more. Submission can only fail
         * here for lack of memory, which the next get reports as NULL. */
        io_uring_submit(&shard->ring);
        sqe = io_uring_get_sqe(&shard->ring);
    }
    return sqe;
}

bool engine__submissions_waiting(struct engine__shard *shard)
{
    return io_uring_sq_ready(&shard->ring) > 0;
}

char *engine__buffer(struct engine__shard *shard, uint32_t bid)
{
    return shard->buffers + (size_t)bid * shard->buffer_bytes;
}

void engine__recycle_buffer(struct engine__shard *shard, uint32_t bid)
{
    io_uring_buf_ring_add(shard->buf_ring, engine__buffer(shard, bid), shard->buffer_bytes,
                          (unsigned short)bid, io_uring_buf_ring_mask(shard->buffer_count),
                          (int)shard->buffers_to_publish);
    shard->buffers_to_publish++;
}

/* wake_coordinator wakes the coordinator once enough records wait, once the
 * oldest has waited ENGINE__WAKE_DELAY_NS, or at once when the shard cannot
 * start work without records or work coming back. */
static void wake_coordinator(struct engine__shard *shard)
{
    if (shard->unsignalled == 0 || shard->wake_in_flight) {
        return;
    }
    bool starved =
        shard->free_record_count == 0 || shard->active_count == 0 ||
        (shard->idle_count > 0 && !shard->has_next_work && engine_ring_is_empty(&shard->work));
    if (!starved && shard->unsignalled < shard->wake_batch &&
        shard->reaped_ns - shard->first_unsignalled_ns < ENGINE__WAKE_DELAY_NS) {
        return;
    }
    struct io_uring_sqe *sqe = engine__get_sqe(shard);
    if (sqe == NULL) {
        return;
    }
    /* An eventfd write queued with the rest of this turn's submissions: the
     * coordinator is woken without a syscall of our own. */
    io_uring_prep_write(sqe, shard->wake_fd, &shard->wake_value, sizeof(shard->wake_value), 0);
    io_uring_sqe_set_data64(sqe, engine__user_data(ENGINE__OP_WAKE, 0, 0));
    shard->unsignalled = 0;
    shard->wake_in_flight = true;
}

static void dispatch(struct engine__shard *shard, struct io_uring_cqe *cqe)
{
    uint64_t data = io_uring_cqe_get_data64(cqe);
    enum engine__op op = (enum engine__op)(data & 0xff);
    uint32_t conn = (uint32_t)((data >> 8) & 0xffffff);
    uint32_t generation = (uint32_t)(data >> 32);
    switch (op) {
    case ENGINE__OP_CONNECT:
    case ENGINE__OP_SEND:
    case ENGINE__OP_RECV:
        engine__conn_complete(shard, op, conn, generation, cqe);
        break;
    case ENGINE__OP_WAKE:
        shard->wake_in_flight = false;
        break;
    }
}

static bool shard_finished(struct engine__shard *shard)
{
    if (shard->active_count > 0) {
        return false;
    }
    if (atomic_load_explicit(&shard->cancel, memory_order_acquire) ||
        atomic_load_explicit(&shard->draining, memory_order_acquire)) {
        return true;
    }
    /* Read no_more_work before looking at the ring: the coordinator sets it
     * after its last push, so an empty ring afterwards is final. */
    bool no_more = atomic_load_explicit(&shard->no_more_work, memory_order_acquire);
    return no_more && !shard->has_next_work && !engine__work_pending(shard) &&
           shard->thinking_count == 0;
}

int64_t engine__shard_wake_ns(struct engine__shard *shard, int64_t now)
{
    int64_t wake = now + ENGINE__TICK_NS;
    /* Only a wake-up the shard can send counts: while one is in flight, its
     * completion (read when the shard waits) comes first. */
    if (shard->unsignalled > 0 && !shard->wake_in_flight &&
        shard->first_unsignalled_ns + ENGINE__WAKE_DELAY_NS < wake) {
        wake = shard->first_unsignalled_ns + ENGINE__WAKE_DELAY_NS;
    }
    /* A stopping shard starts nothing, so what is due no longer sets its wake-up: a due time
     * already past would keep it from waiting at all, and with DEFER_TASKRUN the replies of the
     * requests still in flight are only read when it waits for completions. The same holds for
     * due work the shard cannot start yet (no idle connection, no free record, no prefill
     * room): polling for it would spin without reading the completions that free them, and at
     * SCHED_FIFO it would also keep the coordinator that returns records off a shared CPU. */
    bool may_start = !atomic_load_explicit(&shard->cancel, memory_order_acquire) &&
                     !atomic_load_explicit(&shard->draining, memory_order_acquire);
    if (may_start && shard->has_next_work && engine__can_start(shard, now) &&
        shard->next_work.due_ns - ENGINE__SPIN_NS < wake) {
        wake = shard->next_work.due_ns - ENGINE__SPIN_NS;
    }
    if (may_start && shard->thinking_count > 0 && !shard->think_blocked &&
        shard->next_think_ns - ENGINE__SPIN_NS < wake) {
        wake = shard->next_think_ns - ENGINE__SPIN_NS;
    }
    return wake;
}

/* wait_and_reap submits what this turn prepared, sleeps until a completion,
 * the next due request (less the spin margin) or the tick, and handles every
 * completion that arrived. Returns false on a fatal ring error. */
static bool wait_and_reap(struct engine__shard *shard)
{
    int64_t now = engine_now_ns();
    int64_t wake = engine__shard_wake_ns(shard, now);
    int ret;
    struct io_uring_cqe *cqe = NULL;
    if (wake > now) {
        struct __kernel_timespec ts = {.tv_sec = (wake - now) / 1000000000,
                                       .tv_nsec = (wake - now) % 1000000000};
        ret = io_uring_submit_and_wait_timeout(&shard->ring, &cqe, 1, &ts, NULL);
    } else {
        ret = io_uring_submit(&shard->ring);
    }
    if (ret < 0 && ret != -EINTR && ret != -EAGAIN && ret != -EBUSY && ret != -ETIME) {
        engine__fail_all(shard, RECORD_ERROR, "EngineError", strerror(-ret));
        return false;
    }
    shard->reaped_ns = engine_now_ns();
    unsigned head;
    unsigned seen = 0;
    io_uring_for_each_cqe(&shard->ring, head, cqe)
    {
        dispatch(shard, cqe);
        seen++;
    }
    io_uring_cq_advance(&shard->ring, seen);
    if (shard->buffers_to_publish > 0) {
        io_uring_buf_ring_advance(shard->buf_ring, (int)shard->buffers_to_publish);
        shard->buffers_to_publish = 0;
    }
    return true;
}

static void run_loop(struct engine__shard *shard)
{
    while (!atomic_load_explicit(&shard->started, memory_order_acquire) &&
           !atomic_load_explicit(&shard->cancel, memory_order_acquire)) {
        /* The coordinator sets time zero right after every shard is ready.
         * Poll briefly rather than sleep a whole tick: the first requests are
         * due at time zero, and a tick's sleep would make them late. */
        struct timespec pause = {.tv_nsec = 20 * 1000};
        nanosleep(&pause, NULL);
    }
    engine__clock_sync(shard);
    engine__start_requests(shard);
    while (!shard_finished(shard)) {
        engine__stamp_sends(shard);
        if (!wait_and_reap(shard)) {
            break;
        }
        if (shard->reaped_ns >= shard->next_deadline_check_ns) {
            engine__clock_sync(shard);
            engine__check_deadlines(shard);
            shard->next_deadline_check_ns = engine_now_ns() + ENGINE__TICK_NS;
        }
        if (atomic_load_explicit(&shard->cancel, memory_order_acquire)) {
            engine__fail_all(shard, RECORD_CANCELLED, "RequestCancellationError",
                             "Request was cancelled: the run was stopped");
        }
        engine__start_requests(shard);
        wake_coordinator(shard);
    }
}

void *engine__shard_main(void *arg)
{
    struct engine__shard *shard = arg;
    if (shard->cpu >= 0) {
        cpu_set_t set;
        CPU_ZERO(&set);
        CPU_SET(shard->cpu, &set);
        /* Pinning is best effort: a restricted cpuset still runs, unpinned. */
        pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
    }
    if (shard->config->realtime_priority > 0) {
        /* Best effort as well: the caller checked the privilege before the
         * run and said so where it was missing; the stats count who got it. */
        struct sched_param param = {.sched_priority = shard->config->realtime_priority};
        pthread_setschedparam(pthread_self(), SCHED_FIFO, &param);
    }
    /* What the thread runs at, however it got there (`chrt -f` counts too). */
    int policy = SCHED_OTHER;
    struct sched_param now_param;
    shard->realtime = pthread_getschedparam(pthread_self(), &policy, &now_param) == 0 &&
                      (policy == SCHED_FIFO || policy == SCHED_RR);
    shard->init_status = setup_uring(shard);
    if (shard->init_status == 0) {
        shard->init_status = setup_buffers(shard);
    }
    atomic_store_explicit(&shard->ready, true, memory_order_release);
    uint64_t one = 1;
    ssize_t n = write(shard->wake_fd, &one, sizeof(one));
    if (shard->init_status == 0) {
        int64_t wall = engine_now_ns();
        int64_t cpu = engine__thread_cpu_ns();
        run_loop(shard);
        shard->loop_cpu_ns = engine__thread_cpu_ns() - cpu;
        shard->loop_wall_ns = engine_now_ns() - wall;
    }
    engine__close_all(shard);
    teardown(shard);
    atomic_store_explicit(&shard->exited, true, memory_order_release);
    /* The coordinator may be waiting for this exit; it is not in a loop turn
     * any more, so write the eventfd directly. */
    n = write(shard->wake_fd, &one, sizeof(one));
    (void)n;
    return NULL;
}
