/*
 * paths.c - the names of a run's files in its artifact directory, and clearing an earlier run's
 * files under those names before a run writes its own.
 */
#include "export/export.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <unistd.h>

#include "export/export_outfile.h"

static int join(char *out, const char *dir, const char *name, const char *suffix)
{
    int n = snprintf(out, EXPORT_PATH_BYTES, "%s/%s%s", dir, name, suffix);
    return n >= 0 && n < EXPORT_PATH_BYTES ? 0 : -ENAMETOOLONG;
}

int export_paths_init(struct export_paths *out, const char *dir, const char *prefix)
{
    static const char *const known[] = {".jsonl", ".json", ".csv"};
    char base[EXPORT_PATH_BYTES];
    snprintf(base, sizeof(base), "%s", prefix != NULL ? prefix : "");
    for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
        size_t len = strlen(base);
        size_t suffix = strlen(known[i]);
        if (len > suffix && strcmp(base + len - suffix, known[i]) == 0) {
            base[len - suffix] = '\0';
            break;
        }
    }
    bool custom = base[0] != '\0';
    int dir_len = snprintf(out->dir, sizeof(out->dir), "%s", dir);
    int ret = join(out->records, dir, custom ? base : "profile_export", ".jsonl");
    ret |= join(out->raw, dir, custom ? base : "profile_export", "_raw.jsonl");
    ret |= join(out->outputs, dir, "outputs", ".json");
    ret |= join(out->json, dir, custom ? base : "profile_export_aiperf", ".json");
    ret |= join(out->csv, dir, custom ? base : "profile_export_aiperf", ".csv");
    ret |= join(out->console, dir, custom ? base : "profile_export", "_console.txt");
    ret |= join(out->log_dir, dir, "logs", "");
    ret |= join(out->log, dir, "logs/aiperf.log", "");
    ret |= join(out->timeslices_json, dir, custom ? base : "profile_export_aiperf",
                "_timeslices.json");
    ret |=
        join(out->timeslices_csv, dir, custom ? base : "profile_export_aiperf", "_timeslices.csv");
    ret |= join(out->hlog_base, dir, custom ? base : "profile_export", "");
    ret |=
        join(out->network_latency, dir, custom ? base : "profile_export", "_network_latency.jsonl");
    ret |= join(out->server_metrics_json, dir, custom ? base : "server_metrics_export",
                custom ? "_server_metrics.json" : ".json");
    ret |= join(out->server_metrics_csv, dir, custom ? base : "server_metrics_export",
                custom ? "_server_metrics.csv" : ".csv");
    ret |= join(out->server_metrics_jsonl, dir, custom ? base : "server_metrics_export",
                custom ? "_server_metrics.jsonl" : ".jsonl");
    ret |= join(out->gpu_telemetry_jsonl, dir, custom ? base : "gpu_telemetry_export",
                custom ? "_gpu_telemetry.jsonl" : ".jsonl");
    bool dir_fits = dir_len >= 0 && (size_t)dir_len < sizeof(out->dir);
    return ret != 0 || !dir_fits ? -ENAMETOOLONG : 0;
}

/* remove_file unlinks path and path.partial; a file that is not there is no error. */
static int remove_file(const char *path)
{
    char partial[EXPORT_OUTFILE_PATH_BYTES];
    snprintf(partial, sizeof(partial), "%s%s", path, EXPORT_OUTFILE_PARTIAL);
    int ret = 0;
    if (unlink(path) != 0 && errno != ENOENT) {
        ret = -errno;
    }
    if (unlink(partial) != 0 && errno != ENOENT && ret == 0) {
        ret = -errno;
    }
    return ret;
}

int export_run_clear(const char *dir, const struct profile_config *cfg)
{
    struct export_paths p;
    int ret = export_paths_init(&p, dir, cfg->profile_export_prefix);
    if (ret != 0) {
        return ret;
    }
    char inputs[EXPORT_PATH_BYTES + 16];
    snprintf(inputs, sizeof(inputs), "%s/inputs.json", dir);
    const char *const set[] = {p.records,
                               p.raw,
                               p.outputs,
                               p.json,
                               p.csv,
                               p.console,
                               p.timeslices_json,
                               p.timeslices_csv,
                               p.log,
                               inputs,
                               p.server_metrics_json,
                               p.server_metrics_csv,
                               p.server_metrics_jsonl,
                               p.gpu_telemetry_jsonl,
                               p.network_latency};
    for (size_t i = 0; i < sizeof(set) / sizeof(set[0]); i++) {
        int r = remove_file(set[i]);
        ret = ret != 0 ? ret : r;
    }
    char pattern[EXPORT_PATH_BYTES + 16];
    snprintf(pattern, sizeof(pattern), "%s_*.hlog", p.hlog_base);
    glob_t found;
    if (glob(pattern, GLOB_NOSORT, NULL, &found) == 0) {
        for (size_t i = 0; i < found.gl_pathc; i++) {
            int r = remove_file(found.gl_pathv[i]);
            ret = ret != 0 ? ret : r;
        }
        globfree(&found);
    }
    return ret;
}
