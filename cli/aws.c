#include "cli/cli_aws.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* cli_aws_region sets aws->region: --aws-region, else the profile's as botocore finds it;
 * 0, or -EINVAL after printing why. */
static int cli_aws_region(struct cli_aws *aws, const struct profile_config *cfg)
{
    char errbuf[4400];
    char source[4200];
    if (cfg->aws_region != NULL) {
        snprintf(aws->region, sizeof(aws->region), "%s", cfg->aws_region);
        return 0;
    }
    if (sigv4_region_load(cfg->aws_profile, aws->region, sizeof(aws->region), source,
                          sizeof(source), errbuf, sizeof(errbuf)) != 0) {
        fprintf(stderr, "ringperf profile: --auth-type sigv4: %s\n", errbuf);
        return -EINVAL;
    }
    fprintf(stderr, "AWS region %s from %s\n", aws->region, source);
    return 0;
}

int cli_aws_prepare(struct cli_aws *aws, const struct profile_config *cfg,
                    struct engine_config *engine, struct record_secrets *secrets)
{
    if (cfg->auth_type != CONFIG_AUTH_SIGV4) {
        return 0;
    }
    char source[4200];
    char errbuf[4400];
    if (sigv4_credentials_load(cfg->aws_profile, &aws->credentials, source, sizeof(source), errbuf,
                               sizeof(errbuf)) != 0) {
        fprintf(stderr, "ringperf profile: --auth-type sigv4: %s\n", errbuf);
        return -EINVAL;
    }
    aws->loaded = true;
    aws->latest = aws->credentials;
    if (cli_aws_region(aws, cfg) != 0) {
        return -EINVAL;
    }
    /* Host and Content-Type are signed with the -H headers. */
    if (engine->extra_header_count + 2 > SIGV4_HEADERS_MAX) {
        fprintf(stderr,
                "ringperf profile: --auth-type sigv4 signs every --header, and %zu are more than "
                "the %d it signs: drop some\n",
                engine->extra_header_count, SIGV4_HEADERS_MAX - 2);
        return -EINVAL;
    }
    struct sigv4_signer *check = sigv4_signer_new(&aws->credentials, aws->region, cfg->aws_service);
    if (check == NULL) {
        fprintf(stderr,
                "ringperf profile: --auth-type sigv4: the credentials from %s, or the region "
                "'%s', hold a control character or are empty; fix them\n",
                source, aws->region);
        return -EINVAL;
    }
    sigv4_signer_free(check);
    fprintf(stderr, "Signing requests with AWS SigV4 (%s/%s), credentials from %s\n", aws->region,
            cfg->aws_service, source);
    if (cfg->sagemaker_endpoint_name != NULL) {
        /* Both SageMaker operations take application/json; the stream's framing is the
         * operation's, not negotiated. */
        engine->accept = "application/json";
    }
    engine->sigv4_credentials = &aws->credentials;
    sigv4_watch_init(&aws->watch, cfg->aws_profile);
    engine->sigv4_refresh = aws->watch.active ? cli_aws_refresh : NULL;
    engine->sigv4_refresh_ctx = aws;
    engine->sigv4_region = aws->region;
    engine->sigv4_service = cfg->aws_service;
    const struct sigv4_credentials *c = &aws->credentials;
    record_secrets_add(secrets, c->secret_access_key, strlen(c->secret_access_key));
    record_secrets_add(secrets, c->session_token, strlen(c->session_token));
    record_secrets_add(secrets, c->access_key_id, strlen(c->access_key_id));
    return 0;
}

bool cli_aws_refresh(void *ctx, struct sigv4_credentials *out)
{
    struct cli_aws *aws = ctx;
    char source[4200];
    char errbuf[4400];
    int ret = sigv4_watch_poll(&aws->watch, &aws->latest, out, source, sizeof(source), errbuf,
                               sizeof(errbuf));
    if (ret < 0) {
        fprintf(stderr,
                "ringperf profile: AWS credentials changed but cannot be read again (%s); "
                "still signing with the ones before\n",
                errbuf);
        return false;
    }
    if (ret == 0) {
        return false;
    }
    aws->latest = *out; /* refused or not: the same set again is no change, said once */
    char why[128];
    if (!sigv4_credentials_check(out, why, sizeof(why))) {
        explicit_bzero(out, sizeof(*out));
        fprintf(stderr,
                "ringperf profile: AWS credentials from %s changed, but %s, so they cannot "
                "sign; still signing with the ones before\n",
                source, why);
        return false;
    }
    fprintf(stderr, "AWS credentials from %s changed: signing with them from now on\n", source);
    return true;
}

void cli_aws_free(struct cli_aws *aws)
{
    explicit_bzero(aws, sizeof(*aws));
}
