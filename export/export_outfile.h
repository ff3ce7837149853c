/*
 * outfile.h - an append-only file for the run's record streams
 * (`profile_export.jsonl`, `profile_export_raw.jsonl`, an MPI rank's records)
 * (internal to cli/).
 *
 * A run writes about 865 bytes of records per request: gigabytes in a long
 * run. Written through the page cache, every byte is copied once more by the
 * kernel into page-cache pages, most of them freshly allocated; on a VM that
 * copy cost 0.2 to 1 µs per request, as much as a tenth of the request
 * (`dd` of 260 MiB in 1 MiB writes on the AMD VM: 51 to 306 ms of CPU
 * buffered, 29 ms with O_DIRECT). So whole blocks go from the writer's buffer
 * straight to the disk (O_DIRECT), in the background through a small io_uring
 * of the writer's own, while the other of two buffers fills: the coordinator
 * waits for the disk only when the disk is slower than the records.
 *
 * Where the filesystem refuses direct I/O (at open, or at the first write),
 * the file falls back to ordinary buffered writes, made at once.
 *
 * The writer owns the two buffers; its user fills the one it was handed and
 * gives it back full (export_outfile_put) or to make everything readable now
 * (export_outfile_sync). Not thread-safe: one thread uses a file.
 */
#ifndef RINGPERF_EXPORT_OUTFILE_H
#define RINGPERF_EXPORT_OUTFILE_H

#include <liburing.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Direct writes start and end on multiples of this many bytes of the file
 * and of memory (4 KiB covers the logical block size of nearly every disk;
 * a write refused for its alignment falls back to buffered). */
#define EXPORT_OUTFILE_BLOCK 4096u

/* EXPORT_OUTFILE_PARTIAL is the suffix of a staged file while it is written. */
#define EXPORT_OUTFILE_PARTIAL ".partial"

/* EXPORT_OUTFILE_PATH_BYTES bounds a staged file's name, suffix included. */
#define EXPORT_OUTFILE_PATH_BYTES 4200

/* export_outfile_mode chooses how the file is written. */
enum export_outfile_mode {
    EXPORT_OUTFILE_DIRECT,   /* O_DIRECT in the background where the filesystem allows it */
    EXPORT_OUTFILE_BUFFERED, /* through the page cache, at once (also the fallback) */
};

/* export_outfile_naming says where the file is while it is written. */
enum export_outfile_naming {
    EXPORT_OUTFILE_IN_PLACE, /* under its name from the start: readable as it grows */
    EXPORT_OUTFILE_STAGED,   /* as <name>.partial, renamed to <name> when closed: a file of the
                                run's set is there whole or not at all */
};

struct export_outfile {
    int fd;
    char *staged_path; /* EXPORT_OUTFILE_STAGED: the final name (owned); else NULL */
    bool direct;       /* writes are O_DIRECT and asynchronous */
    bool ring_ready;
    struct io_uring ring;
    char *buf[2];
    size_t cap;       /* bytes in each buffer, a multiple of EXPORT_OUTFILE_BLOCK */
    int filling;      /* the buffer the user holds */
    size_t in_flight; /* bytes of buf[!filling] being written at in_flight_at; 0: none */
    off_t in_flight_at;
    off_t offset; /* where buf[filling][0] goes in the file */
    int error;    /* 0 or the first -errno; sticky */
};

/* export_outfile_open creates (or truncates) path, or path.partial when `naming` is
 * EXPORT_OUTFILE_STAGED, and allocates two cap-byte buffers (cap rounded up to
 * EXPORT_OUTFILE_BLOCK; 1 to 1 GiB, else -EINVAL). Returns 0 or -errno; on failure nothing is
 * left to free. */
int export_outfile_open(struct export_outfile *f, const char *path, size_t cap,
                        enum export_outfile_mode mode, enum export_outfile_naming naming);

/* export_outfile_buffer returns the buffer to fill first (cap bytes), empty. */
char *export_outfile_buffer(const struct export_outfile *f);

/* export_outfile_put takes the filled buffer (the one last returned, holding
 * *len bytes), starts writing it, and returns the buffer to fill next, with
 * *len set to the bytes already in it: the part of a direct write's last
 * block that did not fill it, carried over (less than EXPORT_OUTFILE_BLOCK).
 * Errors are sticky and reported by export_outfile_sync and _close; the bytes
 * handed over after one are dropped. */
char *export_outfile_put(struct export_outfile *f, char *buf, size_t *len);

/* export_outfile_sync writes what was handed over and the *len bytes of buf
 * (the buffer being filled), and waits until they are all in the file
 * (readable by other processes, not necessarily on disk). buf may keep a
 * carried-over part, *len updated as by export_outfile_put. Returns 0 or the
 * first error. */
int export_outfile_sync(struct export_outfile *f, char *buf, size_t *len);

/* export_outfile_close syncs the len bytes of buf, closes the file and frees
 * the buffers. Returns 0 or the first error. Does nothing on a zeroed struct
 * or after a failed open. */
int export_outfile_close(struct export_outfile *f, char *buf, size_t len);

#endif
