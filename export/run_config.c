/*
 * run_config.c - run_config.json, the file AIPerf's orchestrator leaves in each run's
 * directory of a multi-run or sweep (spec §5.1): the run envelope (BenchmarkRun) as its
 * child process reads it back, with the secrets redacted as every JSON dump has them; and
 * what run_info says of such a run (its trial and variation).
 */
#include <errno.h>
#include <stdio.h>

#include "export/export.h"

void export_benchmark_id(uint64_t request_id_nonce, char *out, size_t cap)
{
    snprintf(out, cap, "%016llx", (unsigned long long)request_id_nonce);
}

/* variation_values is each sweep dim's value in the cell, by its flag's name. */
static json_t *variation_values(const struct profile_config *cfg, const double *values)
{
    json_t *out = json_object();
    for (size_t i = 0; out != NULL && i < cfg->sweep.dim_count; i++) {
        enum config_sweep_param param = cfg->sweep.dims[i].param;
        json_object_set_new(out, config_sweep_param_name(param),
                            config_sweep_param_is_integer(param)
                                ? json_integer((json_int_t)values[i])
                                : json_real(values[i]));
    }
    return out;
}

static const char *variation_label(const struct export_run_point *point)
{
    return point->cell_name[0] != '\0' ? point->cell_name : "base";
}

json_t *export_run_point_info(const struct profile_config *cfg,
                              const struct export_run_point *point)
{
    return json_pack("{s:s, s:I, s:s, s:s, s:I, s:o}", "sweep_id", point->sweep_id, "trial",
                     (json_int_t)point->trial, "run_label", point->label, "variation_label",
                     variation_label(point), "variation_index", (json_int_t)point->cell,
                     "variation_values", variation_values(cfg, point->values));
}

/* resolved is ResolvedConfig as the orchestrator builds it, before the run resolves
 * anything: its two fields with defaults that are not None. */
static json_t *resolved(void)
{
    return json_pack("{s:s, s:b}", "gpu_telemetry_mode", "summary", "artifact_dir_created", 0);
}

static json_t *envelope(const struct export_run_envelope *env)
{
    json_t *cfg = export_input_config(env->cfg, env->dir);
    const struct export_run_point *point = env->point;
    json_t *doc = cfg != NULL ? json_pack("{s:s, s:s*, s:o}", "benchmark_id", env->benchmark_id,
                                          "sweep_id", point->sweep_id, "cfg", cfg)
                              : NULL;
    if (doc == NULL) {
        return NULL;
    }
    int bad = json_object_set_new(doc, "variation",
                                  json_pack("{s:I, s:s, s:o}", "index", (json_int_t)point->cell,
                                            "label", variation_label(point), "values",
                                            variation_values(env->cfg, point->values)));
    bad |= json_object_set_new(doc, "trial", json_integer((json_int_t)point->trial));
    bad |= json_object_set_new(doc, "artifact_dir", json_string(env->dir));
    bad |= json_object_set_new(doc, "label", json_string(point->label));
    if (env->cfg->cli_command != NULL) {
        bad |= json_object_set_new(doc, "cli_command", json_string(env->cfg->cli_command));
    }
    if (env->cfg->random_seed_set) {
        bad |= json_object_set_new(doc, "random_seed", json_integer(env->cfg->random_seed));
    }
    bad |= json_object_set_new(doc, "variables", json_object());
    bad |= json_object_set_new(doc, "resolved", resolved());
    if (bad != 0) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

int export_run_config_write(const struct export_run_envelope *env)
{
    char path[4096];
    if (snprintf(path, sizeof(path), "%s/run_config.json", env->dir) >= (int)sizeof(path)) {
        return -ENAMETOOLONG;
    }
    json_t *doc = envelope(env);
    if (doc == NULL) {
        return -ENOMEM;
    }
    int ret =
        json_dump_file(doc, path, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(doc);
    return ret == 0 ? 0 : -EIO;
}
