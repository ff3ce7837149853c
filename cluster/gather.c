/*
 * gather.c - the end of an MPI run: every rank's records file streamed to rank 0 (or seen there
 * already, on a shared file system) and merged by the code of `ringperf merge`, so that an MPI
 * run's result and a later merge of its rank directories agree.
 */
#include "cluster/cluster.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* file_tail reads the size of `path` and up to `cap` of its last bytes. */
static int file_tail(const char *path, uint8_t *tail, size_t cap, uint64_t *out_size,
                     size_t *out_len)
{
    *out_size = 0;
    *out_len = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return -errno;
    }
    struct stat st;
    int ret = fstat(fileno(f), &st) == 0 ? 0 : -errno;
    if (ret == 0) {
        *out_size = (uint64_t)st.st_size;
        size_t len = *out_size < cap ? (size_t)*out_size : cap;
        if (fseeko(f, (off_t)(*out_size - len), SEEK_SET) != 0 || fread(tail, 1, len, f) != len) {
            ret = -EIO;
        }
        *out_len = len;
    }
    fclose(f);
    return ret;
}

#define TAIL_BYTES 256

/* rank_path writes <top>/rank_<r><suffix> into out. */
static int rank_path(char *out, size_t cap, const char *top, int r, const char *suffix)
{
    int n = snprintf(out, cap, "%s/rank_%d%s", top, r, suffix);
    return n >= 0 && (size_t)n < cap ? 0 : -ENAMETOOLONG;
}

/* send_file is rank r's side of the gather: rank 0 is told the file's size
 * and tail; unless it already sees the same file (a shared file system),
 * the file follows in chunks and an empty message ends it. */
static int send_file(struct cluster_share *cc, uint8_t *chunk)
{
    uint8_t meta[8 + TAIL_BYTES];
    uint64_t size = 0;
    size_t tail_len = 0;
    file_tail(cc->file_path, meta + 8, TAIL_BYTES, &size, &tail_len);
    memcpy(meta, &size, 8);
    uint8_t want = 0;
    size_t got = 0;
    int ret = cluster_send(cc->cluster, 0, meta, 8 + tail_len);
    if (ret == 0) {
        ret = cluster_recv(cc->cluster, 0, &want, 1, &got);
    }
    if (ret != 0 || want == 0) {
        return ret;
    }
    FILE *f = fopen(cc->file_path, "rb");
    size_t n = 0;
    while (ret == 0 && f != NULL && (n = fread(chunk, 1, CLUSTER_CHUNK_BYTES, f)) > 0) {
        ret = cluster_send(cc->cluster, 0, chunk, n);
    }
    if (f != NULL) {
        fclose(f);
    }
    return ret == 0 ? cluster_send(cc->cluster, 0, chunk, 0) : ret;
}

/* receive_file is rank 0's side of send_file for rank `peer`; `path` is
 * where that rank's file is (or goes). */
static int receive_file(struct cluster_share *cc, int peer, const char *path, uint8_t *chunk)
{
    uint8_t meta[8 + TAIL_BYTES];
    size_t meta_len = 0;
    int ret = cluster_recv(cc->cluster, peer, meta, sizeof(meta), &meta_len);
    if (ret != 0 || meta_len < 8) {
        return ret != 0 ? ret : -EPROTO;
    }
    uint64_t size = 0;
    memcpy(&size, meta, 8);
    uint8_t tail[TAIL_BYTES];
    uint64_t mine = 0;
    size_t tail_len = 0;
    bool same = file_tail(path, tail, sizeof(tail), &mine, &tail_len) == 0 && mine == size &&
                tail_len == meta_len - 8 && memcmp(tail, meta + 8, tail_len) == 0;
    uint8_t want = same ? 0 : 1;
    ret = cluster_send(cc->cluster, peer, &want, 1);
    if (ret != 0 || same) {
        return ret;
    }
    char dir[EXPORT_PATH_BYTES];
    if (rank_path(dir, sizeof(dir), cc->top_dir, peer, "") != 0) {
        return -ENAMETOOLONG;
    }
    mkdir(dir, 0755);
    FILE *f = fopen(path, "wb");
    size_t n = 0;
    while (ret == 0 &&
           (ret = cluster_recv(cc->cluster, peer, chunk, CLUSTER_CHUNK_BYTES, &n)) == 0 && n > 0) {
        if (f != NULL && fwrite(chunk, 1, n, f) != n) {
            ret = -EIO;
        }
    }
    if (f == NULL) {
        return -errno;
    }
    return fclose(f) == 0 ? ret : -EIO;
}

int cluster_share_gather(struct cluster_share *cc, int status)
{
    uint8_t *chunk = malloc(CLUSTER_CHUNK_BYTES);
    char **paths = calloc((size_t)cc->count, sizeof(*paths));
    int ret = chunk != NULL && paths != NULL ? 0 : -ENOMEM;
    if (cc->index != 0) {
        ret = ret == 0 ? send_file(cc, chunk) : ret;
        goto out_free;
    }
    for (int r = 0; r < cc->count && ret == 0; r++) {
        paths[r] = malloc(EXPORT_PATH_BYTES);
        if (paths[r] == NULL) {
            ret = -ENOMEM;
            break;
        }
        ret = rank_path(paths[r], EXPORT_PATH_BYTES, cc->top_dir, r, "/" CLUSTER_RECORDS_FILE);
        if (ret == 0 && r > 0) {
            ret = receive_file(cc, r, paths[r], chunk);
        }
    }
    if (ret == 0) {
        struct cluster_merge_options opts = {.out_dir = cc->top_dir, .expected_count = cc->count};
        if (cc->export_raw) {
            fprintf(stderr,
                    "ringperf profile: --export-level raw: the raw exports stay with each rank "
                    "(%s/rank_<i>/); the merged result has the records export\n",
                    cc->top_dir);
            opts.export_level = "records";
        }
        status = cluster_merge_files(paths, (size_t)cc->count, &opts);
    }
out_free:
    for (int r = 0; paths != NULL && r < cc->count; r++) {
        free(paths[r]);
    }
    free(paths);
    free(chunk);
    if (ret != 0) {
        fprintf(stderr, "ringperf profile: MPI: gathering the records to rank 0 failed: %s\n",
                strerror(-ret));
        return 1;
    }
    return status;
}

