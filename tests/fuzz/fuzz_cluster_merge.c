/*
 * fuzz_cluster_merge: `ringperf merge` reading a records file (one share of one
 * run) whose header is valid and whose records are the fuzzer's. Damaged
 * lines must end the merge of that share cleanly, never crash it.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cluster/cluster.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char HEADER[] =
    "{\"ringperf_records\":1,\"run_nonce\":\"1\",\"shard_index\":0,\"shard_count\":1,"
    "\"mpi\":false,\"host\":\"h\",\"clock_offset_ns\":0,\"clock_uncertainty_ns\":0,"
    "\"start_wall_ns\":1000,\"streaming\":true,\"open_loop\":false,\"request_id_nonce\":\"1\","
    "\"cli_command\":\"ringperf profile\",\"goodput\":null,\"export_level\":\"records\","
    "\"slice_duration_seconds\":0.0,\"random_seed\":null,\"input_config\":{}}\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char out_dir[64];
    if (out_dir[0] == '\0') {
        snprintf(out_dir, sizeof(out_dir), "/tmp/fuzz-merge-XXXXXX");
        if (mkdtemp(out_dir) == NULL) {
            abort();
        }
    }
    int fd = memfd_create("records", 0);
    if (fd < 0) {
        return 0;
    }
    if (write(fd, HEADER, sizeof(HEADER) - 1) != (ssize_t)(sizeof(HEADER) - 1) ||
        (size > 0 && write(fd, data, size) != (ssize_t)size)) {
        close(fd);
        return 0;
    }
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    char *paths[] = {path};
    struct cluster_merge_options opts = {.out_dir = out_dir, .quiet = true};
    FILE *saved = stderr;
    stderr = fopen("/dev/null", "w");
    cluster_merge_files(paths, 1, &opts);
    fclose(stderr);
    stderr = saved;
    close(fd);
    return 0;
}
