#include "export/export_outfile.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* write_at writes len bytes at offset at, through short writes and EINTR. */
static int write_at(int fd, const char *p, size_t len, off_t at)
{
    while (len > 0) {
        ssize_t n = pwrite(fd, p, len, at);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return n < 0 ? -errno : -EIO;
        }
        p += n;
        len -= (size_t)n;
        at += n;
    }
    return 0;
}

/* set_direct turns O_DIRECT on the descriptor on or off. */
static int set_direct(int fd, bool on)
{
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) {
        return -errno;
    }
    flags = on ? flags | O_DIRECT : flags & ~O_DIRECT;
    return fcntl(fd, F_SETFL, flags) == 0 ? 0 : -errno;
}

/* write_now writes at once. A direct write the filesystem refuses (EINVAL:
 * its alignment is not ours, or it takes no direct I/O after all) is made
 * again through the page cache, as every write after it. */
static void write_now(struct export_outfile *f, const char *p, size_t len, off_t at)
{
    if (f->error != 0 || len == 0) {
        return;
    }
    int ret = write_at(f->fd, p, len, at);
    if (ret == -EINVAL && f->direct) {
        f->direct = false;
        ret = set_direct(f->fd, false);
        ret = ret != 0 ? ret : write_at(f->fd, p, len, at);
    }
    f->error = ret;
}

/* write_tail writes the end of the data, which does not fill its last
 * block, through the page cache: a direct write covers whole blocks. A
 * later direct write of that block overwrites it whole (the kernel writes
 * back and drops the cached page first), so the file stays coherent. */
static void write_tail(struct export_outfile *f, const char *p, size_t len, off_t at)
{
    if (!f->direct) {
        write_now(f, p, len, at);
        return;
    }
    if (f->error != 0 || len == 0) {
        return;
    }
    int ret = set_direct(f->fd, false);
    ret = ret != 0 ? ret : write_at(f->fd, p, len, at);
    int back = set_direct(f->fd, true);
    f->error = ret != 0 ? ret : back;
}

/* start_write hands whole blocks of buf[filling] to the ring; the buffer
 * stays untouched until finish_write. */
static void start_write(struct export_outfile *f, const char *p, size_t len, off_t at)
{
    if (f->error != 0 || len == 0) {
        return;
    }
    /* One write at most is under way, and the ring has two entries. */
    struct io_uring_sqe *sqe = io_uring_get_sqe(&f->ring);
    assert(sqe != NULL);
    io_uring_prep_write(sqe, f->fd, p, (unsigned)len, (__u64)at);
    if (io_uring_submit(&f->ring) != 1) {
        write_now(f, p, len, at);
        return;
    }
    f->in_flight = len;
    f->in_flight_at = at;
}

/* finish_write waits for the write under way, if any, and writes at once
 * what it left: the rest of a short write, or all of a refused one. */
static void finish_write(struct export_outfile *f)
{
    if (f->in_flight == 0) {
        return;
    }
    const char *p = f->buf[!f->filling];
    struct io_uring_cqe *cqe = NULL;
    int ret;
    do {
        ret = io_uring_wait_cqe(&f->ring, &cqe);
    } while (ret == -EINTR);
    if (ret != 0) {
        /* The write's fate is unknown: report it rather than guess. */
        f->error = f->error != 0 ? f->error : ret;
        f->in_flight = 0;
        return;
    }
    int res = cqe->res;
    io_uring_cqe_seen(&f->ring, cqe);
    size_t done = res > 0 ? (size_t)res : 0;
    if (res < 0 && res != -EINVAL && res != -EAGAIN && res != -EINTR && f->error == 0) {
        f->error = res;
    }
    write_now(f, p + done, f->in_flight - done, f->in_flight_at + (off_t)done);
    f->in_flight = 0;
}

int export_outfile_open(struct export_outfile *f, const char *path, size_t cap,
                        enum export_outfile_mode mode, enum export_outfile_naming naming)
{
    *f = (struct export_outfile){.fd = -1};
    if (cap == 0 || cap > (1u << 30)) {
        return -EINVAL;
    }
    char partial[EXPORT_OUTFILE_PATH_BYTES];
    if (naming == EXPORT_OUTFILE_STAGED) {
        int n = snprintf(partial, sizeof(partial), "%s%s", path, EXPORT_OUTFILE_PARTIAL);
        if (n < 0 || (size_t)n >= sizeof(partial)) {
            return -ENAMETOOLONG;
        }
        f->staged_path = strdup(path);
        if (f->staged_path == NULL) {
            return -ENOMEM;
        }
        path = partial;
    }
    f->cap = (cap + EXPORT_OUTFILE_BLOCK - 1) / EXPORT_OUTFILE_BLOCK * EXPORT_OUTFILE_BLOCK;
    const int flags = O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC;
    if (mode == EXPORT_OUTFILE_DIRECT) {
        f->fd = open(path, flags | O_DIRECT, 0666);
        f->direct = f->fd >= 0;
    }
    if (f->fd < 0) {
        f->fd = open(path, flags, 0666);
    }
    if (f->fd < 0) {
        int ret = -errno;
        free(f->staged_path);
        f->staged_path = NULL;
        return ret;
    }
    int ret = -ENOMEM;
    void *first = NULL;
    void *second = NULL;
    if (posix_memalign(&first, EXPORT_OUTFILE_BLOCK, f->cap) != 0) {
        goto close_fd;
    }
    if (posix_memalign(&second, EXPORT_OUTFILE_BLOCK, f->cap) != 0) {
        goto free_first;
    }
    f->buf[0] = first;
    f->buf[1] = second;
    if (f->direct) {
        f->ring_ready = io_uring_queue_init(2, &f->ring, 0) == 0;
    }
    if (f->direct && !f->ring_ready) {
        /* Without a ring of its own, direct writes would stall the caller
         * for each buffer: write through the page cache instead. */
        f->direct = false;
        ret = set_direct(f->fd, false);
        if (ret != 0) {
            goto free_second;
        }
    }
    return 0;
free_second:
    free(second);
free_first:
    free(first);
close_fd:
    close(f->fd);
    if (f->staged_path != NULL) {
        unlink(path);
        free(f->staged_path);
    }
    *f = (struct export_outfile){.fd = -1};
    return ret;
}

char *export_outfile_buffer(const struct export_outfile *f)
{
    return f->buf[f->filling];
}

char *export_outfile_put(struct export_outfile *f, char *buf, size_t *len)
{
    assert(buf == f->buf[f->filling]);
    finish_write(f);
    if (!f->direct) {
        write_now(f, buf, *len, f->offset);
        f->offset += (off_t)*len;
        *len = 0;
        return buf;
    }
    size_t whole = *len / EXPORT_OUTFILE_BLOCK * EXPORT_OUTFILE_BLOCK;
    size_t carry = *len - whole;
    char *next = f->buf[!f->filling];
    memcpy(next, buf + whole, carry);
    start_write(f, buf, whole, f->offset);
    f->offset += (off_t)whole;
    f->filling = !f->filling;
    *len = carry;
    return next;
}

int export_outfile_sync(struct export_outfile *f, char *buf, size_t *len)
{
    assert(buf == f->buf[f->filling]);
    finish_write(f);
    size_t whole = f->direct ? *len / EXPORT_OUTFILE_BLOCK * EXPORT_OUTFILE_BLOCK : *len;
    size_t carry = *len - whole;
    write_now(f, buf, whole, f->offset);
    f->offset += (off_t)whole;
    memmove(buf, buf + whole, carry);
    *len = carry;
    write_tail(f, buf, carry, f->offset);
    return f->error;
}

int export_outfile_close(struct export_outfile *f, char *buf, size_t len)
{
    if (f->buf[0] == NULL) {
        return 0;
    }
    int ret = export_outfile_sync(f, buf, &len);
    if (f->ring_ready) {
        io_uring_queue_exit(&f->ring);
    }
    if (close(f->fd) != 0 && ret == 0) {
        ret = -errno;
    }
    if (f->staged_path != NULL) {
        /* Renamed even after a failed write: what reached the disk is the run's, and the
         * error is reported with the file's name. */
        char partial[EXPORT_OUTFILE_PATH_BYTES];
        snprintf(partial, sizeof(partial), "%s%s", f->staged_path, EXPORT_OUTFILE_PARTIAL);
        if (rename(partial, f->staged_path) != 0 && ret == 0) {
            ret = -errno;
        }
        free(f->staged_path);
    }
    free(f->buf[0]);
    free(f->buf[1]);
    *f = (struct export_outfile){.fd = -1};
    return ret;
}
