/*
 * engine_ring.h - lock-free single-producer/single-consumer ring of pointers.
 *
 * Internal to engine/: the coordinator hands work to a shard and a shard hands
 * finished records back through one of these. Exactly one thread may push and
 * exactly one (other) thread may pop; neither side ever blocks or allocates.
 */
#ifndef RINGPERF_ENGINE_RING_H
#define RINGPERF_ENGINE_RING_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Cache line size assumed for padding between producer and consumer fields. */
#define ENGINE_RING_CACHE_LINE 64

/* engine_work is one request a shard is to run: its ordinal and when it is due
 * (CLOCK_MONOTONIC ns; 0 = as soon as a connection is free, the closed loop). */
struct engine_work {
    uint64_t ordinal;
    int64_t due_ns;
};

/* engine_ring_item is what a ring carries: work (coordinator to shard) or a
 * record pointer (shard to coordinator and back). */
union engine_ring_item {
    void *ptr;
    struct engine_work work;
};

/* engine_ring is a bounded SPSC queue of engine_ring_item. Each side caches the
 * other's index so that a push or pop touches the shared line only when its
 * cached view says the ring looks full (or empty). */
struct engine_ring {
    alignas(ENGINE_RING_CACHE_LINE) _Atomic uint64_t head; /* next slot to pop */
    uint64_t tail_cached;                                  /* consumer's view of tail */
    alignas(ENGINE_RING_CACHE_LINE) _Atomic uint64_t tail; /* next slot to push */
    uint64_t head_cached;                                  /* producer's view of head */
    alignas(ENGINE_RING_CACHE_LINE) uint64_t mask;
    union engine_ring_item *slots;
};

/* engine_ring_init allocates room for `capacity` entries, which must be a power
 * of two of at least 2. Returns 0, -EINVAL for a bad capacity, or -ENOMEM. */
int engine_ring_init(struct engine_ring *ring, uint64_t capacity);

/* engine_ring_destroy frees the slots. Pointers still queued are not freed: the
 * ring borrows what it carries. Safe on a zeroed ring. */
void engine_ring_destroy(struct engine_ring *ring);

/* engine_ring_push appends a copy of *item (producer side only). Returns false,
 * leaving the ring unchanged, when the ring is full. */
bool engine_ring_push(struct engine_ring *ring, const union engine_ring_item *item);

/* engine_ring_pop removes the oldest entry into *out_item (consumer side only).
 * Returns false when the ring is empty. */
bool engine_ring_pop(struct engine_ring *ring, union engine_ring_item *out_item);

/* engine_ring_peek copies the oldest entry into *out_item without removing it
 * (consumer side only). Returns false when the ring is empty. */
bool engine_ring_peek(struct engine_ring *ring, union engine_ring_item *out_item);

/* engine_ring_push_ptr and engine_ring_pop_ptr carry a pointer. */
bool engine_ring_push_ptr(struct engine_ring *ring, void *ptr);
bool engine_ring_pop_ptr(struct engine_ring *ring, void **out_ptr);

/* engine_ring_is_empty reports whether a pop would find nothing (consumer
 * side only). */
bool engine_ring_is_empty(struct engine_ring *ring);

/* engine_ring_capacity returns the number of entries the ring can hold. */
uint64_t engine_ring_capacity(const struct engine_ring *ring);

#endif
