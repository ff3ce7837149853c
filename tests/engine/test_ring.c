#include <criterion/criterion.h>

#include <errno.h>
#include <pthread.h>
#include <stdint.h>

#include "engine/engine_ring.h"

Test(engine_ring, rejects_capacity_that_is_not_a_power_of_two)
{
    struct engine_ring ring = {0};
    cr_assert_eq(engine_ring_init(&ring, 0), -EINVAL);
    cr_assert_eq(engine_ring_init(&ring, 1), -EINVAL);
    cr_assert_eq(engine_ring_init(&ring, 6), -EINVAL);
    cr_assert_eq(engine_ring_init(&ring, 8), 0);
    cr_assert_eq(engine_ring_capacity(&ring), 8);
    engine_ring_destroy(&ring);
}

Test(engine_ring, fills_to_capacity_then_refuses_and_preserves_order)
{
    struct engine_ring ring = {0};
    cr_assert_eq(engine_ring_init(&ring, 4), 0);
    void *item = NULL;
    cr_assert_not(engine_ring_pop_ptr(&ring, &item), "a new ring is empty");
    for (uintptr_t i = 1; i <= 4; i++) {
        cr_assert(engine_ring_push_ptr(&ring, (void *)i));
    }
    cr_assert_not(engine_ring_push_ptr(&ring, (void *)5), "a full ring refuses a push");
    for (uintptr_t i = 1; i <= 4; i++) {
        cr_assert(engine_ring_pop_ptr(&ring, &item));
        cr_assert_eq((uintptr_t)item, i);
    }
    cr_assert_not(engine_ring_pop_ptr(&ring, &item));
    engine_ring_destroy(&ring);
}

Test(engine_ring, wraps_around_many_times)
{
    struct engine_ring ring = {0};
    cr_assert_eq(engine_ring_init(&ring, 2), 0);
    void *item = NULL;
    for (uintptr_t i = 1; i <= 1000; i++) {
        cr_assert(engine_ring_push_ptr(&ring, (void *)i));
        cr_assert(engine_ring_pop_ptr(&ring, &item));
        cr_assert_eq((uintptr_t)item, i);
    }
    engine_ring_destroy(&ring);
}

enum { TRANSFER_COUNT = 200000 };

static void *produce_sequence(void *arg)
{
    struct engine_ring *ring = arg;
    for (uintptr_t i = 1; i <= TRANSFER_COUNT;) {
        if (engine_ring_push_ptr(ring, (void *)i)) {
            i++;
        }
    }
    return NULL;
}

/* A real producer thread against a real consumer: every value arrives exactly
 * once and in order, with the ring small enough to be full most of the time. */
Test(engine_ring, two_threads_transfer_every_item_in_order, .timeout = 60)
{
    struct engine_ring ring = {0};
    cr_assert_eq(engine_ring_init(&ring, 16), 0);
    pthread_t producer;
    cr_assert_eq(pthread_create(&producer, NULL, produce_sequence, &ring), 0);
    uintptr_t expected = 1;
    while (expected <= TRANSFER_COUNT) {
        void *item = NULL;
        if (engine_ring_pop_ptr(&ring, &item)) {
            cr_assert_eq((uintptr_t)item, expected);
            expected++;
        }
    }
    pthread_join(producer, NULL);
    void *item = NULL;
    cr_assert_not(engine_ring_pop_ptr(&ring, &item));
    engine_ring_destroy(&ring);
}

Test(engine_ring, work_items_keep_ordinal_and_due_time)
{
    struct engine_ring ring = {0};
    cr_assert_eq(engine_ring_init(&ring, 4), 0);
    union engine_ring_item in = {.work = {.ordinal = 1ULL << 40, .due_ns = 123456789}};
    cr_assert(engine_ring_push(&ring, &in));
    union engine_ring_item out = {0};
    cr_assert(engine_ring_pop(&ring, &out));
    cr_assert_eq(out.work.ordinal, 1ULL << 40);
    cr_assert_eq(out.work.due_ns, 123456789);
    engine_ring_destroy(&ring);
}

Test(engine_ring, peek_shows_the_oldest_entry_and_leaves_it)
{
    struct engine_ring ring = {0};
    cr_assert_eq(engine_ring_init(&ring, 4), 0);
    union engine_ring_item item;
    cr_assert_not(engine_ring_peek(&ring, &item), "nothing to see in an empty ring");
    cr_assert(engine_ring_push_ptr(&ring, (void *)7));
    cr_assert(engine_ring_push_ptr(&ring, (void *)8));
    for (int i = 0; i < 2; i++) {
        cr_assert(engine_ring_peek(&ring, &item));
        cr_assert_eq((uintptr_t)item.ptr, 7, "peek takes nothing away");
    }
    void *popped = NULL;
    cr_assert(engine_ring_pop_ptr(&ring, &popped));
    cr_assert_eq((uintptr_t)popped, 7);
    cr_assert(engine_ring_peek(&ring, &item));
    cr_assert_eq((uintptr_t)item.ptr, 8);
    engine_ring_destroy(&ring);
}
