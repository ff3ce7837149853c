/*
 * config_aws.c - the AWS flags: --auth-type sigv4, --aws-region, --aws-service, --aws-profile
 * and --sagemaker-endpoint-name, checked together because each only means something with the
 * others. The credentials themselves are never flags (sigv4_credentials_load reads them).
 */
#include "config/config_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* The longest region or service a SigV4 scope takes (sigv4.h's SIGV4_SCOPE_PART_MAX). */
#define SCOPE_PART_MAX 64
/* SageMaker's own limit on an endpoint name. */
#define ENDPOINT_NAME_MAX 63

static bool lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* scope_ok: AWS regions and signing names are lower-case letters, digits and '-' (some
 * services add '.' or '_'); anything else cannot be a real scope. */
static bool scope_ok(const char *s, bool service)
{
    size_t n = strlen(s);
    if (n == 0 || n > SCOPE_PART_MAX) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        if (!lower_alnum(s[i]) && s[i] != '-' && !(service && (s[i] == '.' || s[i] == '_'))) {
            return false;
        }
    }
    return true;
}

/* endpoint_name_ok: SageMaker's pattern, [a-zA-Z0-9](-*[a-zA-Z0-9]){0,62}. */
static bool endpoint_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > ENDPOINT_NAME_MAX || s[0] == '-' || s[n - 1] == '-') {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!lower_alnum(c) && !(c >= 'A' && c <= 'Z') && c != '-') {
            return false;
        }
    }
    return true;
}

/* visible_name_ok: a section name of ~/.aws/credentials, or a SageMaker routing value. */
static bool visible_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n > 128) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= 0x20 || c >= 0x7f || c == '[' || c == ']') {
            return false;
        }
    }
    return true;
}

/* check_orphans refuses the --aws-* flags without SigV4, which would ignore them. */
static int check_orphans(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    if (cfg->auth_type == CONFIG_AUTH_SIGV4) {
        return 0;
    }
    const char *flag = cfg->aws_region != NULL    ? "--aws-region"
                       : cfg->aws_service != NULL ? "--aws-service"
                       : cfg->aws_profile != NULL ? "--aws-profile"
                                                  : NULL;
    if (flag == NULL) {
        return 0;
    }
    return config__fail(errbuf, errcap,
                        "%s applies to AWS SigV4 signing, which is off: add --auth-type sigv4 "
                        "(or --sagemaker-endpoint-name NAME), or drop %s",
                        flag, flag);
}

static int check_values(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    /* Without --aws-region the run takes the profile's, as botocore does (cli/aws.c); a
     * SageMaker endpoint's URL needs it here. */
    if (cfg->aws_region == NULL && cfg->sagemaker_endpoint_name != NULL) {
        return config__fail(errbuf, errcap,
                            "--sagemaker-endpoint-name needs --aws-region, the region of the "
                            "endpoint's URL (e.g. --aws-region us-east-1)");
    }
    if (cfg->aws_region != NULL && !scope_ok(cfg->aws_region, false)) {
        return config__fail(errbuf, errcap,
                            "--aws-region '%s' is not an AWS region: lower-case letters, digits "
                            "and '-', e.g. us-east-1",
                            cfg->aws_region);
    }
    if (cfg->aws_service == NULL) {
        return config__fail(errbuf, errcap,
                            "--auth-type sigv4 needs --aws-service, the signing name of the "
                            "service (execute-api for API Gateway, sagemaker for SageMaker)");
    }
    if (!scope_ok(cfg->aws_service, true)) {
        return config__fail(errbuf, errcap,
                            "--aws-service '%s' is not an AWS signing name: lower-case letters, "
                            "digits, '-', '.' and '_', e.g. execute-api",
                            cfg->aws_service);
    }
    if (cfg->aws_profile != NULL && !visible_name_ok(cfg->aws_profile)) {
        return config__fail(errbuf, errcap,
                            "--aws-profile must name a section of ~/.aws/credentials: visible "
                            "characters without blanks or brackets, e.g. --aws-profile staging");
    }
    return 0;
}

/* check_conflicts refuses what would fight the signature for the Authorization header, and
 * the multipart endpoint types, whose bodies are sent in pieces the signer does not hash (AIPerf
 * refuses SigV4 with them too). */
static int check_conflicts(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    if (cfg->endpoint_type == CONFIG_ENDPOINT_VIDEO_GENERATION) {
        return config__fail(errbuf, errcap,
                            "--auth-type sigv4 does not sign a video job's polls and downloads "
                            "(--endpoint-type video_generation); drop SigV4");
    }
    if (cfg->endpoint_type == CONFIG_ENDPOINT_IMAGE_EDIT ||
        cfg->endpoint_type == CONFIG_ENDPOINT_AUDIO_TRANSCRIPTION) {
        return config__fail(errbuf, errcap,
                            "--auth-type sigv4 does not sign multipart/form-data bodies "
                            "(--endpoint-type %s); use another --endpoint-type or drop SigV4",
                            config_endpoint_type_name(cfg->endpoint_type));
    }
    if (cfg->api_key != NULL) {
        return config__fail(errbuf, errcap,
                            "--api-key and --auth-type sigv4 both authenticate the request, and "
                            "the signature owns the Authorization header: drop --api-key");
    }
    for (size_t i = 0; i < cfg->urls.count; i++) {
        const char *url = cfg->urls.items[i];
        const char *host = strstr(url, "://");
        host = host != NULL ? host + 3 : url;
        size_t authority = strcspn(host, "/?#");
        if (memchr(host, '@', authority) != NULL) {
            return config__fail(errbuf, errcap,
                                "--url %zu carries user:password@, which would be sent as "
                                "Authorization: Basic, and the SigV4 signature owns that header: "
                                "drop the credentials from the URL",
                                i + 1);
        }
    }
    for (size_t i = 0; i < cfg->header_count; i++) {
        const char *name = cfg->headers[i].name;
        if (strcasecmp(name, "authorization") == 0 || strncasecmp(name, "x-amz-", 6) == 0) {
            return config__fail(errbuf, errcap,
                                "--header %s: with --auth-type sigv4 the signer writes "
                                "Authorization and the X-Amz-* headers; drop that --header",
                                name);
        }
    }
    return 0;
}

/* sagemaker_setup derives what --sagemaker-endpoint-name implies: SigV4 as service
 * sagemaker, and the invocation path of the operation --streaming picks. */
static int sagemaker_setup(struct profile_config *cfg, char *errbuf, size_t errcap)
{
    const char *name = cfg->sagemaker_endpoint_name;
    if (!endpoint_name_ok(name)) {
        return config__fail(errbuf, errcap,
                            "--sagemaker-endpoint-name '%s' is not a SageMaker endpoint name: "
                            "1 to 63 letters, digits and '-', not starting or ending with '-'",
                            name);
    }
    const char *refused = cfg->wait_for_model_seconds > 0 ? "--wait-for-model-timeout"
                          : cfg->reset_kv_cache           ? "--reset-kv-cache"
                          : cfg->server_profiler          ? "--server-profiler"
                                                          : NULL;
    if (refused != NULL) {
        return config__fail(errbuf, errcap,
                            "%s calls OpenAI-style routes a SageMaker endpoint does not serve "
                            "(it answers only /endpoints/NAME/invocations): drop %s",
                            refused, refused);
    }
    cfg->auth_type = CONFIG_AUTH_SIGV4;
    if (cfg->aws_service == NULL && (cfg->aws_service = strdup("sagemaker")) == NULL) {
        return -ENOMEM;
    }
    if (cfg->custom_endpoint == NULL) {
        char path[128];
        snprintf(path, sizeof(path), "/endpoints/%s/%s", name,
                 cfg->streaming ? "invocations-response-stream" : "invocations");
        if ((cfg->custom_endpoint = strdup(path)) == NULL) {
            return -ENOMEM;
        }
    }
    return 0;
}

/* check_sagemaker_routing refuses the routing flags without an endpoint to route, and values
 * that cannot go in a header. */
static int check_sagemaker_routing(const struct profile_config *cfg, char *errbuf, size_t errcap)
{
    const struct {
        const char *flag;
        const char *value;
    } flags[] = {
        {"--sagemaker-target-model", cfg->sagemaker_target_model},
        {"--sagemaker-target-variant", cfg->sagemaker_target_variant},
        {"--sagemaker-inference-component-name", cfg->sagemaker_inference_component},
    };
    for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
        if (flags[i].value == NULL) {
            continue;
        }
        if (cfg->sagemaker_endpoint_name == NULL) {
            return config__fail(errbuf, errcap,
                                "%s routes a SageMaker endpoint's requests: add "
                                "--sagemaker-endpoint-name NAME, or drop %s",
                                flags[i].flag, flags[i].flag);
        }
        if (!visible_name_ok(flags[i].value)) {
            return config__fail(errbuf, errcap,
                                "%s: 1 to 128 visible characters without blanks, e.g. %s "
                                "variant-b",
                                flags[i].flag, flags[i].flag);
        }
    }
    return 0;
}

int config__check_aws(struct profile_config *cfg, char *errbuf, size_t errcap)
{
    int routing = check_sagemaker_routing(cfg, errbuf, errcap);
    if (routing != 0) {
        return routing;
    }
    if (cfg->sagemaker_endpoint_name != NULL) {
        int rc = sagemaker_setup(cfg, errbuf, errcap);
        if (rc != 0) {
            return rc;
        }
    }
    int rc = check_orphans(cfg, errbuf, errcap);
    if (rc != 0 || cfg->auth_type != CONFIG_AUTH_SIGV4) {
        return rc;
    }
    rc = check_values(cfg, errbuf, errcap);
    return rc != 0 ? rc : check_conflicts(cfg, errbuf, errcap);
}

bool config__sagemaker_default_url(const struct profile_config *cfg, char *out, size_t cap)
{
    if (cfg->sagemaker_endpoint_name == NULL || cfg->aws_region == NULL ||
        !scope_ok(cfg->aws_region, false)) {
        return false;
    }
    int n = snprintf(out, cap, "https://runtime.sagemaker.%s.amazonaws.com", cfg->aws_region);
    return n > 0 && (size_t)n < cap;
}
