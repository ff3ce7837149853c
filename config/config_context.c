/*
 * config_context.c - flags that do nothing where they are given, and values
 * that would reach outside where they belong: refused with the reason, as a
 * flag the run would silently ignore is a result the user did not ask for.
 */
#include "config/config_internal.h"

#include <string.h>

/* check_input_flags refuses the flags that only shape an --input-file. */
static int check_input_flags(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    if (cfg->input_file != NULL) {
        return 0;
    }
    const char *flag = cfg->custom_dataset_type != NULL       ? "--custom-dataset-type"
                       : cfg->fixed_schedule                  ? "--fixed-schedule"
                       : cfg->fixed_schedule_auto_offset      ? "--fixed-schedule-auto-offset"
                       : cfg->fixed_schedule_start_offset_set ? "--fixed-schedule-start-offset"
                       : cfg->fixed_schedule_end_offset_set   ? "--fixed-schedule-end-offset"
                                                              : NULL;
    if (flag == NULL) {
        return 0;
    }
    return config__fail(errbuf, errcap,
                        "%s applies to an --input-file, and there is none: add --input-file "
                        "FILE (e.g. a mooncake_trace JSONL) or drop %s",
                        flag, flag);
}

/* check_export_prefix keeps --profile-export-prefix a file name inside the
 * artifact directory. */
static int check_export_prefix(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    const char *prefix = cfg->profile_export_prefix;
    if (prefix == NULL || strchr(prefix, '/') == NULL) {
        return 0;
    }
    return config__fail(errbuf, errcap,
                        "--profile-export-prefix is a file name inside --artifact-dir, and '%s' "
                        "has a '/': give the directory with --artifact-dir and the name alone "
                        "(e.g. --artifact-dir runs/a --profile-export-prefix my_run)",
                        prefix);
}

int config__check_context(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    int rc = check_input_flags(cfg, errbuf, errcap);
    return rc != 0 ? rc : check_export_prefix(cfg, errbuf, errcap);
}
