/*
 * cli_aws.h - `--auth-type sigv4` (internal to cli/): loads the credentials the run signs
 * with and hands them to the engine, which signs every request on its shard.
 */
#ifndef RINGPERF_CLI_AWS_H
#define RINGPERF_CLI_AWS_H

#include "config/config.h"
#include "engine/engine.h"
#include "record/record.h"
#include "sigv4/sigv4.h"

/* cli_aws holds the run's AWS credentials (a secret: wiped by cli_aws_free). */
struct cli_aws {
    /* The set the run started with: the engine signs with it first, and the run's secrets
     * borrow its strings to redact them, so it never changes during the run. */
    struct sigv4_credentials credentials;
    /* The newest set (the first until a refresh): what a changed file is compared against.
     * The shards redact each refreshed set themselves (engine_sign.c). */
    struct sigv4_credentials latest;
    bool loaded;
    char region[SIGV4_SCOPE_PART_MAX + 1]; /* --aws-region, or the profile's (botocore's order) */
    /* The files the credentials came from, watched during the run (cli_aws_refresh). */
    struct sigv4_watch watch;
};

/* cli_aws_prepare, when cfg signs with SigV4, loads the credentials (sigv4_credentials_load)
 * and, without --aws-region, the region (sigv4_region_load),
 * checks that the signer takes them, points engine at them and adds them to secrets (so that
 * a response echoing one does not reach the exports). Prints one line saying where they came
 * from (a file and profile, never a value). Returns 0, or -EINVAL after printing why. */
int cli_aws_prepare(struct cli_aws *aws, const struct profile_config *cfg,
                    struct engine_config *engine, struct record_secrets *secrets);

/* cli_aws_refresh is the engine's sigv4_refresh (on the coordinator): when the credentials
 * or config file changed and now holds other credentials for the profile, it writes them into
 * *out, keeps them as the latest, prints one line saying so (never a value) and returns true.
 * A changed file that cannot be read, or whose credentials the signer refuses (a control
 * character, say), leaves the credentials as they were, said once with the reason. Long runs
 * outlive temporary credentials; this is how they go on signing with renewed ones. */
bool cli_aws_refresh(void *ctx, struct sigv4_credentials *out);

/* cli_aws_free wipes the credentials. */
void cli_aws_free(struct cli_aws *aws);

#endif
