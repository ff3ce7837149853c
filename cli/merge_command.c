/*
 * merge_command.c - `ringperf merge DIR...`: its flags, finding the records
 * files in the directories given, and handing them to cluster_merge_files.
 */
#include "cli/cli.h"

#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cluster/cluster.h"

static void merge_usage(FILE *out)
{
    fprintf(out,
            "Usage: ringperf merge [--artifact-dir OUT] [--shard-count N] [--export-level L] "
            "DIR...\n\n"
            "Merges the per-rank (MPI) or per-shard (--shard-index/--shard-count, e.g. the pods\n"
            "of a Kubernetes Indexed Job) artifact directories of one run into one result with\n"
            "the same exports as a one-machine run. Each DIR is a rank_<i> directory holding\n"
            "%s, or a directory of rank_<i> directories.\n\n"
            "Flags:\n"
            "  --artifact-dir OUT  where the merged exports go (default: the directory that\n"
            "                      holds the rank_<i> directories)\n"
            "  --shard-count N     expect N shares (default: as the files say); a missing one\n"
            "                      marks the result incomplete\n"
            "  --export-level L    records or summary (default: as the shares ran; shares\n"
            "                      run with raw need one: raw cannot be merged)\n"
            "  -h, --help          show this help\n",
            CLUSTER_RECORDS_FILE);
}

/* add_dir appends DIR's records file, or those of its rank_* directories. */
static int add_dir(const char *dir, char ***paths, size_t *count, bool *out_parent)
{
    char pattern[EXPORT_PATH_BYTES];
    struct stat st;
    snprintf(pattern, sizeof(pattern), "%s/%s", dir, CLUSTER_RECORDS_FILE);
    bool direct = stat(pattern, &st) == 0;
    *out_parent = !direct;
    if (!direct) {
        snprintf(pattern, sizeof(pattern), "%s/rank_*/%s", dir, CLUSTER_RECORDS_FILE);
    }
    glob_t g = {0};
    if (glob(pattern, 0, NULL, &g) != 0) {
        fprintf(stderr, "ringperf merge: %s holds no %s\n", dir, CLUSTER_RECORDS_FILE);
        globfree(&g);
        return -ENOENT;
    }
    int ret = 0;
    for (size_t i = 0; i < g.gl_pathc && ret == 0; i++) {
        char **grown = *count < CLUSTER_MERGE_FILES_MAX
                           ? realloc(*paths, (*count + 1) * sizeof(**paths))
                           : NULL;
        char *copy = grown != NULL ? strdup(g.gl_pathv[i]) : NULL;
        if (grown != NULL) {
            *paths = grown;
        }
        if (copy == NULL) {
            ret = -ENOMEM;
            break;
        }
        (*paths)[(*count)++] = copy;
    }
    globfree(&g);
    return ret;
}

static int parse_count(const char *text, int *out)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || v < 1 || v > CLUSTER_RANKS_MAX) {
        return -EINVAL;
    }
    *out = (int)v;
    return 0;
}

int cli_merge_main(int argc, char **argv)
{
    const char *out_dir = NULL;
    char default_out[EXPORT_PATH_BYTES] = "";
    struct cluster_merge_options opts = {0};
    char **paths = NULL;
    size_t count = 0;
    int status = CONFIG_EXIT_INVALID;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            merge_usage(stdout);
            status = 0;
            goto out_free;
        }
        if ((strcmp(a, "--artifact-dir") == 0 || strcmp(a, "--shard-count") == 0 ||
             strcmp(a, "--export-level") == 0) &&
            i + 1 >= argc) {
            fprintf(stderr, "ringperf merge: %s needs a value\n", a);
            goto out_free;
        }
        if (strcmp(a, "--artifact-dir") == 0) {
            out_dir = argv[++i];
        } else if (strcmp(a, "--export-level") == 0) {
            opts.export_level = argv[++i];
            if (strcmp(opts.export_level, "records") != 0 &&
                strcmp(opts.export_level, "summary") != 0) {
                fprintf(stderr, "ringperf merge: --export-level: '%s' is not records or summary\n",
                        opts.export_level);
                goto out_free;
            }
        } else if (strcmp(a, "--shard-count") == 0) {
            if (parse_count(argv[++i], &opts.expected_count) != 0) {
                fprintf(stderr, "ringperf merge: --shard-count: '%s' is not 1..%d\n", argv[i],
                        CLUSTER_RANKS_MAX);
                goto out_free;
            }
        } else if (a[0] == '-') {
            fprintf(stderr, "ringperf merge: unknown flag '%s'\n", a);
            goto out_free;
        } else {
            bool parent = false;
            if (add_dir(a, &paths, &count, &parent) != 0) {
                status = 1;
                goto out_free;
            }
            if (default_out[0] == '\0') {
                char copy[EXPORT_PATH_BYTES];
                snprintf(copy, sizeof(copy), "%s", a);
                snprintf(default_out, sizeof(default_out), "%s", parent ? a : dirname(copy));
            }
        }
    }
    if (count == 0) {
        merge_usage(stderr);
        goto out_free;
    }
    opts.out_dir = out_dir != NULL ? out_dir : default_out;
    status = cluster_merge_files(paths, count, &opts);
out_free:
    for (size_t i = 0; i < count; i++) {
        free(paths[i]);
    }
    free(paths);
    return status;
}
