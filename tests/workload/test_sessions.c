/*
 * test_sessions.c - workload/sessions.c's per-shard history of open sessions: a turn's input
 * tokens add the replies before it, and a table that fills (more sessions open on one shard
 * than it was sized for) gives static counts rather than searching forever.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "record/record.h"
#include "workload/workload_sessions.h"

#define CONVERSATIONS 200

/* two_turn_sessions makes CONVERSATIONS conversations of two turns, 10 and 12 static
 * tokens, sealed for `concurrency` sessions at once. */
static void two_turn_sessions(struct workload_sessions *s, uint32_t concurrency)
{
    memset(s, 0, sizeof(*s));
    for (int c = 0; c < CONVERSATIONS; c++) {
        for (int t = 0; t < 2; t++) {
            struct workload_turn turn = {.prompt = strdup("hi"), .static_tokens = 10 + 2 * t};
            cr_assert_eq(workload_sessions_add(s, t == 0, &turn, NULL), 0);
        }
    }
    cr_assert_eq(workload_sessions_seal(s, concurrency), 0);
}

Test(workload_sessions, a_turn_counts_the_replies_before_it)
{
    struct workload_sessions s;
    two_turn_sessions(&s, 4);
    struct record first = {.session = 7, .turn = 0};
    cr_assert_eq(workload_sessions_input_tokens(&s, &first, 5), 10);
    struct record second = {.session = 7, .turn = 1};
    cr_assert_eq(workload_sessions_input_tokens(&s, &second, 3), 12 + 5);
    workload_sessions_free(&s);
}

/* Sized for one open session, the shard's table (64 slots) takes every first turn of 200
 * sessions left open: once full, a session's history goes uncounted, never a hang. */
Test(workload_sessions, a_full_table_gives_static_counts, .timeout = 10)
{
    struct workload_sessions s;
    two_turn_sessions(&s, 1);
    for (uint64_t k = 0; k < CONVERSATIONS; k++) {
        struct record first = {.session = k, .turn = 0};
        cr_assert_eq(workload_sessions_input_tokens(&s, &first, 5), 10, "session %lu",
                     (unsigned long)k);
    }
    size_t counted = 0;
    for (uint64_t k = 0; k < CONVERSATIONS; k++) {
        struct record second = {.session = k, .turn = 1};
        int64_t n = workload_sessions_input_tokens(&s, &second, 3);
        cr_assert(n == 12 || n == 12 + 5, "session %lu: %ld", (unsigned long)k, (long)n);
        counted += n == 12 + 5;
    }
    cr_assert_eq(counted, s.tables[0].cap, "every slot kept one session's history");
    workload_sessions_free(&s);
}
