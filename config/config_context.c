/*
 * config_context.c - flags that do nothing where they are given, and values
 * that would reach outside where they belong: refused with the reason, as a
 * flag the run would silently ignore is a result the user did not ask for.
 */
#include "config/config_internal.h"

#include <errno.h>
#include <string.h>
#include <strings.h>

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

/* authorization_flag names what else sends an Authorization header, or NULL. */
static const char *authorization_flag(const struct profile_config *cfg)
{
    for (size_t i = 0; i < cfg->header_count; i++) {
        if (strcasecmp(cfg->headers[i].name, "Authorization") == 0) {
            return "-H Authorization";
        }
    }
    /* The messages endpoint sends the key as x-api-key. */
    bool bearer = cfg->api_key != NULL && cfg->api_key[0] != '\0' &&
                  cfg->endpoint_type != CONFIG_ENDPOINT_MESSAGES;
    return bearer ? "--api-key" : NULL;
}

/* check_url_credentials refuses a --url user:password@ that would not be
 * used: it is sent as Basic auth, unless another Authorization is, which
 * AIPerf's client (aiohttp) refuses to combine as well. */
static int check_url_credentials(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    const char *other = authorization_flag(cfg);
    struct config_target target;
    for (size_t i = 0; other != NULL && i < cfg->urls.count; i++) {
        if (config_resolve_url(cfg, i, &target, errbuf, errcap) != 0) {
            return -EINVAL;
        }
        bool has_userinfo = target.userinfo[0] != '\0';
        explicit_bzero(target.userinfo, sizeof(target.userinfo));
        if (has_userinfo) {
            char shown[256];
            config_redact_url(cfg->urls.items[i], shown, sizeof(shown));
            return config__fail(errbuf, errcap,
                                "--url '%s': its user:password would be sent as Basic auth, and "
                                "%s sends an Authorization header already, so one of them would "
                                "go unused: give one of the two",
                                shown, other);
        }
    }
    return 0;
}

int config__check_context(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    int rc = check_input_flags(cfg, errbuf, errcap);
    rc = rc != 0 ? rc : check_export_prefix(cfg, errbuf, errcap);
    return rc != 0 ? rc : check_url_credentials(cfg, errbuf, errcap);
}
