#include "engine/engine_ring.h"

#include <errno.h>
#include <stdlib.h>

int engine_ring_init(struct engine_ring *ring, uint64_t capacity)
{
    if (capacity < 2 || (capacity & (capacity - 1)) != 0) {
        return -EINVAL;
    }
    union engine_ring_item *slots = calloc(capacity, sizeof(*slots));
    if (slots == NULL) {
        return -ENOMEM;
    }
    atomic_init(&ring->head, 0);
    atomic_init(&ring->tail, 0);
    ring->tail_cached = 0;
    ring->head_cached = 0;
    ring->mask = capacity - 1;
    ring->slots = slots;
    return 0;
}

void engine_ring_destroy(struct engine_ring *ring)
{
    free(ring->slots);
    ring->slots = NULL;
}

bool engine_ring_push(struct engine_ring *ring, const union engine_ring_item *item)
{
    uint64_t tail = atomic_load_explicit(&ring->tail, memory_order_relaxed);
    if (tail - ring->head_cached > ring->mask) {
        /* Only refresh the consumer's index when the cached one says "full". */
        ring->head_cached = atomic_load_explicit(&ring->head, memory_order_acquire);
        if (tail - ring->head_cached > ring->mask) {
            return false;
        }
    }
    ring->slots[tail & ring->mask] = *item;
    atomic_store_explicit(&ring->tail, tail + 1, memory_order_release);
    return true;
}

bool engine_ring_pop(struct engine_ring *ring, union engine_ring_item *out_item)
{
    uint64_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);
    if (head == ring->tail_cached) {
        ring->tail_cached = atomic_load_explicit(&ring->tail, memory_order_acquire);
        if (head == ring->tail_cached) {
            return false;
        }
    }
    *out_item = ring->slots[head & ring->mask];
    atomic_store_explicit(&ring->head, head + 1, memory_order_release);
    return true;
}

bool engine_ring_peek(struct engine_ring *ring, union engine_ring_item *out_item)
{
    uint64_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);
    if (head == ring->tail_cached) {
        ring->tail_cached = atomic_load_explicit(&ring->tail, memory_order_acquire);
        if (head == ring->tail_cached) {
            return false;
        }
    }
    *out_item = ring->slots[head & ring->mask];
    return true;
}

bool engine_ring_push_ptr(struct engine_ring *ring, void *ptr)
{
    union engine_ring_item item = {.ptr = ptr};
    return engine_ring_push(ring, &item);
}

bool engine_ring_pop_ptr(struct engine_ring *ring, void **out_ptr)
{
    union engine_ring_item item;
    if (!engine_ring_pop(ring, &item)) {
        return false;
    }
    *out_ptr = item.ptr;
    return true;
}

bool engine_ring_is_empty(struct engine_ring *ring)
{
    uint64_t head = atomic_load_explicit(&ring->head, memory_order_relaxed);
    ring->tail_cached = atomic_load_explicit(&ring->tail, memory_order_acquire);
    return head == ring->tail_cached;
}

uint64_t engine_ring_capacity(const struct engine_ring *ring)
{
    return ring->mask + 1;
}
