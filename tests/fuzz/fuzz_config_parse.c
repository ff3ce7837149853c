/*
 * fuzz_config_parse.c - config_parse_profile on arbitrary argument vectors.
 *
 * The input is split at NUL bytes into up to 64 arguments, each copied into
 * its own allocation so that ASan catches a read past any one of them. On
 * success every URL is resolved and the invariants the HTTP client relies on
 * are checked; the secret given to --api-key never appears in cli_command.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

#define FUZZ_ARGS_MAX 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_target(const struct config_target *t)
{
    if (t->host[0] == '\0' || t->path[0] != '/' || t->port == 0) {
        abort();
    }
    for (const char *p = t->path; *p != '\0'; p++) {
        if ((unsigned char)*p <= 0x20 || (unsigned char)*p >= 0x7f) {
            abort();
        }
    }
}

static bool appears_elsewhere(const char *key, int argc, char **argv)
{
    size_t key_len = strlen(key);
    for (int i = 0; i < argc; i++) {
        bool is_value = strcmp(argv[i], key) == 0;
        bool is_inline = strncmp(argv[i], "--api-key=", 10) == 0 && strcmp(argv[i] + 10, key) == 0;
        const char *hit = strstr(argv[i], key);
        if (hit != NULL && !is_value && !is_inline) {
            return true;
        }
        if (is_inline && strstr(argv[i] + 10 + key_len, key) != NULL) {
            return true;
        }
    }
    return false;
}

/* check_sweep checks what a sweep promises: lists of 2 to CONFIG_SWEEP_VALUES_MAX distinct
 * values, a bounded cell count, and cells made of the lists' values. */
static void check_sweep(const struct profile_config *cfg)
{
    const struct config_sweep *sw = &cfg->sweep;
    size_t cells = config_sweep_cells(cfg);
    if (sw->dim_count > CONFIG_SWEEP_PARAM_COUNT || cells == 0 || cells > CONFIG_SWEEP_CELLS_MAX ||
        config_is_multi_run(cfg) != (sw->dim_count > 0 || cfg->multi_run.num_profile_runs > 1)) {
        abort();
    }
    for (size_t d = 0; d < sw->dim_count; d++) {
        const struct config_sweep_dim *dim = &sw->dims[d];
        if (dim->count < 2 || dim->count > CONFIG_SWEEP_VALUES_MAX) {
            abort();
        }
        for (size_t i = 0; i < dim->count; i++) {
            for (size_t j = i + 1; j < dim->count; j++) {
                if (dim->values[i] == dim->values[j]) {
                    abort();
                }
            }
        }
    }
    double values[CONFIG_SWEEP_PARAM_COUNT];
    for (size_t cell = 0; cell < cells && sw->dim_count > 0; cell++) {
        if (!config_sweep_cell_values(cfg, cell, values)) {
            abort();
        }
    }
    if (config_sweep_cell_values(cfg, cells, values)) {
        abort();
    }
}

static void check_config(const struct profile_config *cfg, int argc, char **argv)
{
    check_sweep(cfg);
    if (cfg->models.count == 0 || cfg->urls.count == 0 || cfg->cli_command == NULL ||
        strncmp(cfg->cli_command, "ringperf profile", 16) != 0) {
        abort();
    }
    for (size_t i = 0; i < cfg->urls.count; i++) {
        struct config_target t;
        char err[256];
        if (config_resolve_url(cfg, i, &t, err, sizeof(err)) != 0) {
            abort(); /* parse already validated every URL */
        }
        check_target(&t);
    }
    for (size_t i = 0; i < cfg->header_count; i++) {
        if (strpbrk(cfg->headers[i].value, "\r\n") != NULL) {
            abort();
        }
    }
    /* The --api-key value must not leak into the report, unless the same text
     * was also given to another flag, where it is not a secret. */
    if (cfg->api_key != NULL && strlen(cfg->api_key) >= 8 &&
        strstr(cfg->cli_command, cfg->api_key) != NULL &&
        !appears_elsewhere(cfg->api_key, argc, argv)) {
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *argv[FUZZ_ARGS_MAX + 1];
    int argc = 0;
    size_t start = 0;
    for (size_t i = 0; i <= size && argc < FUZZ_ARGS_MAX; i++) {
        if (i == size || data[i] == '\0') {
            size_t len = i - start;
            argv[argc] = malloc(len + 1);
            if (argv[argc] == NULL) {
                break;
            }
            memcpy(argv[argc], data + start, len);
            argv[argc][len] = '\0';
            argc++;
            start = i + 1;
        }
    }
    argv[argc] = NULL;
    struct profile_config cfg;
    char err[128];
    int rc = config_parse_profile(argc, argv, &cfg, err, sizeof(err));
    if (rc == 0) {
        check_config(&cfg, argc, argv);
    } else if (rc < 0 && err[0] == '\0') {
        abort(); /* every failure explains itself */
    }
    config_free(&cfg);
    for (int i = 0; i < argc; i++) {
        free(argv[i]);
    }
    return 0;
}
