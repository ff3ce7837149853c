/*
 * files.c - reading a whole input file the command line names (media files,
 * --system-prompt-file), bounded, with one place that says how it failed;
 * and closing a file written (inputs.json) with the reason it failed.
 */
#include "workload/workload_internal.h"

#include <errno.h>
#include <stdlib.h>

char *workload__read_file(const char *path, size_t cap, size_t *out_len, int *out_err)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        *out_err = -errno;
        return NULL;
    }
    char *data = malloc(cap + 1);
    size_t len = data != NULL ? fread(data, 1, cap + 1, f) : 0;
    *out_err = data == NULL ? -ENOMEM : ferror(f) ? -EIO : len > cap ? -EFBIG : 0;
    fclose(f);
    if (*out_err != 0) {
        free(data);
        return NULL;
    }
    data[len] = '\0';
    *out_len = len;
    return data;
}

int workload__close_written(FILE *f)
{
    /* The first error wins: a full disk shows in ferror or fflush, not only fclose. */
    int err = ferror(f) ? (errno != 0 ? errno : EIO) : 0;
    if (err == 0 && fflush(f) != 0) {
        err = errno;
    }
    if (fclose(f) != 0 && err == 0) {
        err = errno;
    }
    return -err;
}
