/*
 * guard.h - test helper for every parser's tests: buffers that end right before an inaccessible
 * page, so that reading or writing one byte past them crashes the test instead of passing silently.
 */
#ifndef RINGPERF_TESTS_SUPPORT_GUARD_H
#define RINGPERF_TESTS_SUPPORT_GUARD_H

#include <criterion/criterion.h>

#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* guard_region: `usable` bytes (rounded up to pages) followed by one PROT_NONE page. */
struct guard_region {
    char *base;
    size_t usable;
    size_t map_len;
};

static inline void guard_init(struct guard_region *g, size_t usable)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    g->usable = (usable + page - 1) / page * page;
    g->map_len = g->usable + page;
    void *m = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    cr_assert_neq(m, MAP_FAILED, "mmap failed");
    g->base = m;
    cr_assert_eq(mprotect(g->base + g->usable, page, PROT_NONE), 0, "mprotect failed");
}

/* guard_end returns a pointer to the last n bytes before the guard page. */
static inline char *guard_end(const struct guard_region *g, size_t n)
{
    cr_assert_leq(n, g->usable);
    return g->base + g->usable - n;
}

/* guard_place copies data so that it ends exactly at the guard page, poisons up to 64 bytes
 * before it (so an under-read sees junk, not stale input), and returns where it starts. */
static inline const char *guard_place(const struct guard_region *g, const void *data, size_t n)
{
    char *dst = guard_end(g, n);
    size_t before = (size_t)(dst - g->base) < 64 ? (size_t)(dst - g->base) : 64;
    memset(dst - before, 0xA5, before);
    if (n > 0) {
        memcpy(dst, data, n);
    }
    return dst;
}

static inline void guard_free(struct guard_region *g)
{
    if (g->base != NULL) {
        munmap(g->base, g->map_len);
        g->base = NULL;
    }
}

/* guard_copy is guard_place into a region that grows to fit n bytes (a zeroed
 * region starts empty): the copy, and every view a parser returned into it,
 * stays valid until the next guard_copy or guard_free of g. */
static inline const char *guard_copy(struct guard_region *g, const void *data, size_t n)
{
    if (g->base == NULL || g->usable < n) {
        guard_free(g);
        guard_init(g, n > 0 ? n : 1);
    }
    return guard_place(g, data, n);
}

#endif
