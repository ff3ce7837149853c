/* The records file: what is handed over, in buffers of any fill and with
 * syncs anywhere, ends up in the file byte for byte, direct or buffered;
 * a sync makes everything so far readable; failures are reported. */
#include <criterion/criterion.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "export/export_outfile.h"

enum { CAP = 5 * EXPORT_OUTFILE_BLOCK + 123 };

static void temp_path(char *path, size_t cap)
{
    snprintf(path, cap, "/tmp/ringperf-outfile-XXXXXX");
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
}

/* read_all returns the file's bytes (caller frees) and their count. */
static char *read_all(const char *path, size_t *out_len)
{
    struct stat st;
    cr_assert_eq(stat(path, &st), 0);
    char *data = malloc((size_t)st.st_size + 1);
    cr_assert_not_null(data);
    int fd = open(path, O_RDONLY);
    cr_assert_geq(fd, 0);
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t n = read(fd, data + got, (size_t)st.st_size - got);
        cr_assert_gt(n, 0);
        got += (size_t)n;
    }
    close(fd);
    *out_len = got;
    return data;
}

/* next_byte is a repeatable byte sequence with no period near a block's size. */
static char next_byte(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (char)(*state >> 56);
}

/* write_stream hands `total` bytes over in fills of pseudo-random sizes,
 * syncing every `sync_every` fills (0: never), checking after each sync
 * that the file holds exactly what was handed over, and returns whether the
 * file was still direct at the end. */
static bool write_stream(enum export_outfile_mode mode, size_t total, unsigned sync_every,
                         uint64_t seed)
{
    char path[64];
    temp_path(path, sizeof(path));
    struct export_outfile f;
    cr_assert_eq(export_outfile_open(&f, path, CAP, mode, EXPORT_OUTFILE_IN_PLACE), 0);
    cr_assert_eq(f.cap % EXPORT_OUTFILE_BLOCK, 0);
    char *expected = malloc(total);
    cr_assert_not_null(expected);
    uint64_t bytes = seed;
    uint64_t sizes = seed ^ 0x5bd1e995;
    char *buf = export_outfile_buffer(&f);
    size_t len = 0;
    size_t done = 0;
    for (unsigned fill = 1; done < total; fill++) {
        size_t room = f.cap - len;
        size_t want = (size_t)(next_byte(&sizes) & 0x7f) * 97 % room + 1;
        want = want < total - done ? want : total - done;
        for (size_t i = 0; i < want; i++) {
            expected[done + i] = buf[len + i] = next_byte(&bytes);
        }
        len += want;
        done += want;
        if (sync_every != 0 && fill % sync_every == 0) {
            cr_assert_eq(export_outfile_sync(&f, buf, &len), 0);
            size_t file_len;
            char *got = read_all(path, &file_len);
            cr_assert_eq(file_len, done, "after a sync the file holds all %zu bytes", done);
            cr_assert_eq(memcmp(got, expected, done), 0);
            free(got);
        } else if (len == f.cap || (next_byte(&sizes) & 3) == 0) {
            buf = export_outfile_put(&f, buf, &len);
            cr_assert_lt(len, EXPORT_OUTFILE_BLOCK, "at most a block's remainder carries over");
        }
    }
    bool direct = f.direct;
    cr_assert_eq(export_outfile_close(&f, buf, len), 0);
    size_t file_len;
    char *got = read_all(path, &file_len);
    cr_assert_eq(file_len, total);
    cr_assert_eq(memcmp(got, expected, total), 0);
    free(got);
    free(expected);
    unlink(path);
    return direct;
}

Test(export_outfile, every_byte_arrives_direct_or_buffered)
{
    static const size_t totals[] = {
        0, 1, EXPORT_OUTFILE_BLOCK - 1, EXPORT_OUTFILE_BLOCK, CAP, 3 * CAP + 7, 40 * CAP + 4095};
    for (size_t t = 0; t < sizeof(totals) / sizeof(totals[0]); t++) {
        for (uint64_t seed = 1; seed <= 3; seed++) {
            write_stream(EXPORT_OUTFILE_DIRECT, totals[t], 0, seed);
            cr_assert_not(write_stream(EXPORT_OUTFILE_BUFFERED, totals[t], 0, seed));
        }
    }
}

Test(export_outfile, a_sync_makes_everything_so_far_readable)
{
    for (unsigned every = 1; every <= 5; every += 2) {
        write_stream(EXPORT_OUTFILE_DIRECT, 30 * CAP + 77, every, every);
        write_stream(EXPORT_OUTFILE_BUFFERED, 30 * CAP + 77, every, every);
    }
}

/* Where the filesystem takes direct I/O at all, it takes ours: the blocks'
 * alignment never forces the fallback. */
Test(export_outfile, direct_writes_stay_direct_where_the_filesystem_allows_them)
{
    char path[64];
    temp_path(path, sizeof(path));
    int probe = open(path, O_WRONLY | O_DIRECT);
    unlink(path);
    if (probe < 0) {
        cr_skip_test("/tmp takes no O_DIRECT here");
    }
    close(probe);
    cr_assert(write_stream(EXPORT_OUTFILE_DIRECT, 50 * CAP + 1, 0, 9));
    cr_assert(write_stream(EXPORT_OUTFILE_DIRECT, 50 * CAP + 1, 7, 9));
}

Test(export_outfile, failures_are_reported_and_nothing_leaks)
{
    struct export_outfile f;
    cr_assert_eq(export_outfile_open(&f, "/nonexistent-dir/records.jsonl", CAP,
                                     EXPORT_OUTFILE_DIRECT, EXPORT_OUTFILE_IN_PLACE),
                 -ENOENT);
    cr_assert_eq(export_outfile_close(&f, NULL, 0), 0, "a failed open leaves nothing to close");
    cr_assert_eq(
        export_outfile_open(&f, "/tmp/x", 0, EXPORT_OUTFILE_DIRECT, EXPORT_OUTFILE_IN_PLACE),
        -EINVAL);
    cr_assert_eq(export_outfile_open(&f, "/tmp/x", (1u << 30) + 1, EXPORT_OUTFILE_DIRECT,
                                     EXPORT_OUTFILE_IN_PLACE),
                 -EINVAL,
                 "buffers past 1 GiB are refused (an io_uring write takes an unsigned length)");

    /* /dev/full refuses every write with ENOSPC, direct or not. */
    for (int mode = EXPORT_OUTFILE_DIRECT; mode <= EXPORT_OUTFILE_BUFFERED; mode++) {
        cr_assert_eq(export_outfile_open(&f, "/dev/full", CAP, (enum export_outfile_mode)mode,
                                         EXPORT_OUTFILE_IN_PLACE),
                     0);
        char *buf = export_outfile_buffer(&f);
        size_t len = 0;
        for (int i = 0; i < 3; i++) {
            memset(buf, 'x', f.cap);
            len = f.cap;
            buf = export_outfile_put(&f, buf, &len);
        }
        memset(buf + len, 'y', 10);
        len += 10;
        cr_assert_eq(export_outfile_sync(&f, buf, &len), -ENOSPC);
        cr_assert_eq(export_outfile_close(&f, buf, len), -ENOSPC);
    }
}

/* A staged file is <name>.partial while it is written and <name> once closed: another reader
 * (or an old run's file under the same name) never sees half of it. */
Test(export_outfile, a_staged_file_takes_its_name_when_closed)
{
    char path[64];
    temp_path(path, sizeof(path));
    char partial[96];
    snprintf(partial, sizeof(partial), "%s%s", path, EXPORT_OUTFILE_PARTIAL);
    FILE *old = fopen(path, "w");
    cr_assert_not_null(old);
    fputs("the old run's records\n", old);
    fclose(old);
    struct export_outfile f;
    cr_assert_eq(export_outfile_open(&f, path, CAP, EXPORT_OUTFILE_DIRECT, EXPORT_OUTFILE_STAGED),
                 0);
    char *buf = export_outfile_buffer(&f);
    memcpy(buf, "new\n", 4);
    size_t len = 4;
    cr_assert_eq(export_outfile_sync(&f, buf, &len), 0);
    size_t got = 0;
    char *data = read_all(path, &got);
    cr_assert_eq(got, strlen("the old run's records\n"), "the old file is whole until the close");
    free(data);
    cr_assert_eq(access(partial, F_OK), 0, "written under %s", partial);
    buf = export_outfile_buffer(&f);
    cr_assert_eq(export_outfile_close(&f, buf, len), 0);
    data = read_all(path, &got);
    cr_assert_eq(got, 4);
    cr_assert_eq(memcmp(data, "new\n", 4), 0);
    free(data);
    cr_assert_neq(access(partial, F_OK), 0, "no partial file is left");
    unlink(path);
}
