/*
 * test_dynbuf.c - the growing text buffer: pieces appended in order behind one NUL, growth past
 * its first allocation, and its hard cap (a refused piece leaves the buffer as it was).
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <string.h>

#include "dynbuf/dynbuf.h"

Test(dynbuf, pieces_append_behind_one_nul)
{
    struct dynbuf b;
    dynbuf_init(&b, 1 << 20);
    cr_assert_null(b.p);
    cr_assert_eq(dynbuf_put(&b, "", 0), 0);
    cr_assert_str_eq(b.p, "", "a put of nothing makes a string");
    cr_assert_eq(dynbuf_put(&b, "hello", 5), 0);
    cr_assert_eq(dynbuf_put(&b, ", world!", 7), 0);
    cr_assert_eq(b.len, 12);
    cr_assert_str_eq(b.p, "hello, world");
    dynbuf_free(&b);
    cr_assert_null(b.p);
    cr_assert_eq(b.len, 0);
    cr_assert_eq(b.len_max, 1 << 20, "free keeps the cap");
    dynbuf_free(&b); /* safe on an empty one */
}

Test(dynbuf, grows_past_its_first_allocation)
{
    struct dynbuf b;
    dynbuf_init(&b, 1 << 20);
    char piece[100];
    memset(piece, 'x', sizeof(piece));
    for (int i = 0; i < 1000; i++) {
        piece[0] = (char)('a' + i % 26);
        cr_assert_eq(dynbuf_put(&b, piece, sizeof(piece)), 0);
    }
    cr_assert_eq(b.len, 100000);
    cr_assert_geq(b.cap, b.len + 1);
    cr_assert_eq(b.p[b.len], '\0');
    for (int i = 0; i < 1000; i++) {
        cr_assert_eq(b.p[i * 100], 'a' + i % 26, "piece %d", i);
    }
    dynbuf_free(&b);
}

Test(dynbuf, the_cap_holds_exactly_len_max_bytes)
{
    struct dynbuf b;
    dynbuf_init(&b, 10);
    cr_assert_eq(dynbuf_put(&b, "12345678", 8), 0);
    cr_assert_eq(dynbuf_put(&b, "abc", 3), -E2BIG, "11 bytes");
    cr_assert_eq(b.len, 8, "a refused piece leaves it as it was");
    cr_assert_str_eq(b.p, "12345678");
    cr_assert_eq(dynbuf_put(&b, "ab", 2), 0, "10 bytes");
    cr_assert_str_eq(b.p, "12345678ab");
    cr_assert_eq(dynbuf_put(&b, "c", 1), -E2BIG);
    cr_assert_eq(dynbuf_put(&b, "", 0), 0, "nothing still fits");
    dynbuf_free(&b);

    struct dynbuf none;
    dynbuf_init(&none, 0);
    cr_assert_eq(dynbuf_put(&none, "x", 1), -E2BIG);
    cr_assert_eq(dynbuf_put(&none, "", 0), 0);
    cr_assert_str_eq(none.p, "");
    dynbuf_free(&none);
}
