/*
 * mock_tokenlog.c - per-worker buffer of token-log lines (JSON lines, see mock.h).
 *
 * The buffer is written with plain write(2) to an O_APPEND descriptor shared by the workers.
 * Each write holds whole lines and appends atomically, so the file never holds a torn line.
 * The worker flushes when the buffer passes its threshold, when it goes idle and at stop, never
 * between a timer firing and the send it triggers.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mock/mock_internal.h"

/* Longest line apart from the id: {"request_id":"","token":4294967295,"send_ns":<20 digits>}\n */
#define LINE_FIXED_BYTES 80
#define LINE_BYTES_MAX (LINE_FIXED_BYTES + MOCK__REQUEST_ID_JSON_BYTES_MAX)

int mock__tokenlog_init(struct mock__tokenlog *log, int fd, size_t cap)
{
    *log = (struct mock__tokenlog){.fd = fd};
    if (fd < 0) {
        return 0;
    }
    if (cap < 4 * LINE_BYTES_MAX) {
        cap = 4 * LINE_BYTES_MAX;
    }
    log->buf = malloc(cap);
    if (log->buf == NULL) {
        return -ENOMEM;
    }
    log->cap = cap;
    return 0;
}

bool mock__tokenlog_pending(const struct mock__tokenlog *log)
{
    return log->len > 0;
}

bool mock__tokenlog_high(const struct mock__tokenlog *log)
{
    return log->len > log->cap / 2;
}

int mock__tokenlog_flush(struct mock__tokenlog *log)
{
    size_t off = 0;
    while (off < log->len) {
        ssize_t n = write(log->fd, log->buf + off, log->len - off);
        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            int err = n < 0 ? errno : EIO;
            fprintf(stderr, "mock-server: token log write failed (%s); token logging stopped\n",
                    strerror(err));
            log->failed = true;
            log->len = 0;
            return -err;
        }
        off += (size_t)n;
    }
    log->len = 0;
    return 0;
}

void mock__tokenlog_add(struct mock__tokenlog *log, const char *id_json, size_t id_len,
                        uint32_t token, uint64_t send_ns)
{
    if (log->buf == NULL || log->failed) {
        return;
    }
    if (log->cap - log->len < LINE_BYTES_MAX && mock__tokenlog_flush(log) != 0) {
        return;
    }
    struct mock__buf b = {.p = log->buf + log->len, .cap = log->cap - log->len};
    mock__buf_str(&b, "{\"request_id\":\"");
    mock__buf_put(&b, id_json, id_len);
    mock__buf_str(&b, "\",\"token\":");
    mock__buf_u64(&b, token);
    mock__buf_str(&b, ",\"send_ns\":");
    mock__buf_u64(&b, send_ns);
    mock__buf_str(&b, "}\n");
    if (!b.overflow) {
        log->len += b.len;
        log->lines++;
    }
}

void mock__tokenlog_destroy(struct mock__tokenlog *log)
{
    if (log->buf != NULL && !log->failed) {
        mock__tokenlog_flush(log);
    }
    free(log->buf);
    log->buf = NULL;
}
