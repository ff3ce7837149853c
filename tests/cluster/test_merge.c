/*
 * test_merge.c - cluster_merge_files in process, linked against the merge,
 * export, metrics, record and config libraries only: a merge that came to
 * need the engine or the API server would stop this test from linking. The
 * merge of real shares is tested end to end in tests/cli/test_merge.c.
 */
#include <criterion/criterion.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cluster/cluster_merge.h"

static char dir[] = "/tmp/ringperf-merge-XXXXXX";

static void make_dir(void)
{
    cr_assert_not_null(mkdtemp(dir));
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

/* write_share writes a records file with only its header line. */
static void write_share(const char *name, int index, int count, char *out, size_t cap)
{
    snprintf(out, cap, "%s/%s", dir, name);
    FILE *f = fopen(out, "w");
    cr_assert_not_null(f);
    fprintf(f,
            "{\"ringperf_records\":%d,\"shard_index\":%d,\"shard_count\":%d,"
            "\"host\":\"h%d\",\"streaming\":true,\"export_level\":\"records\","
            "\"request_id_nonce\":\"1f\"}\n",
            CLUSTER_RECORDS_FORMAT, index, count, index);
    cr_assert_eq(fclose(f), 0);
}

TestSuite(cluster_merge, .init = make_dir, .fini = remove_dir, .timeout = 30);

Test(cluster_merge, refuses_a_file_that_is_not_a_records_file)
{
    char path[256];
    snprintf(path, sizeof(path), "%s/other.jsonl", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("{\"metadata\":{}}\n", f);
    fclose(f);
    char *paths[] = {path};
    char out[256];
    snprintf(out, sizeof(out), "%s/merged", dir);
    struct cluster_merge_options opts = {.out_dir = out, .quiet = true};
    cr_assert_eq(cluster_merge_files(paths, 1, &opts), 1);
    cr_assert_neq(access(out, F_OK), 0, "nothing is written for a refused merge");
}

Test(cluster_merge, refuses_a_share_given_twice)
{
    char a[256];
    char b[256];
    write_share("a.jsonl", 0, 2, a, sizeof(a));
    write_share("b.jsonl", 0, 2, b, sizeof(b));
    char *paths[] = {a, b};
    char out[256];
    snprintf(out, sizeof(out), "%s/merged", dir);
    struct cluster_merge_options opts = {.out_dir = out, .quiet = true};
    cr_assert_eq(cluster_merge_files(paths, 2, &opts), 1);
}

/* A merge whose shares hold no successful request ends as such a run does, as AIPerf's: exit
 * 1 and no summary (tests/cli/test_merge.c merges real shares, complete and not). */
Test(cluster_merge, shares_without_a_successful_request_leave_no_summary)
{
    char a[256];
    write_share("a.jsonl", 0, 2, a, sizeof(a));
    char *paths[] = {a};
    char out[256];
    snprintf(out, sizeof(out), "%s/merged", dir);
    struct cluster_merge_options opts = {.out_dir = out, .quiet = true};
    cr_assert_eq(cluster_merge_files(paths, 1, &opts), 1, "no request succeeded");
    char path[320];
    snprintf(path, sizeof(path), "%s/profile_export_aiperf.json", out);
    cr_assert_neq(access(path, F_OK), 0, "no summary JSON");
    snprintf(path, sizeof(path), "%s/profile_export_aiperf.csv", out);
    cr_assert_neq(access(path, F_OK), 0, "no summary CSV");
    snprintf(path, sizeof(path), "%s/logs/aiperf.log", out);
    cr_assert_eq(access(path, F_OK), 0, "the log is written");
}
