/*
 * test_aws.c - cli/aws.c: the credentials a run starts with stay redacted after a refresh
 * (the run's secrets borrow their strings, so a refresh must not write over them).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_aws.h"

#define ACCESS_KEY "AKIDEXAMPLEKEY0001"
#define FIRST_SECRET "first-secret-0123456789"
#define NEW_SECRET "renewed-secret-with-another-length-0123456789"

static void write_credentials(const char *path, const char *secret)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fprintf(f, "[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n", ACCESS_KEY,
            secret);
    cr_assert_eq(fclose(f), 0);
}

/* redacted reports whether a response holding `text` keeps none of it once redacted. */
static bool redacted(const struct record_secrets *secrets, const char *text)
{
    char buf[256];
    snprintf(buf, sizeof(buf), "echo: %s", text);
    struct record rec = {.text = buf, .text_len = strlen(buf)};
    record_redact(&rec, secrets);
    return strstr(rec.text, text) == NULL;
}

Test(cli_aws, the_first_credentials_stay_redacted_after_a_refresh)
{
    char dir[] = "/tmp/ringperf-aws-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof(path), "%s/credentials", dir);
    write_credentials(path, FIRST_SECRET);
    char config_path[256];
    snprintf(config_path, sizeof(config_path), "%s/config", dir);
    setenv("AWS_SHARED_CREDENTIALS_FILE", path, 1);
    setenv("AWS_CONFIG_FILE", config_path, 1);
    unsetenv("AWS_ACCESS_KEY_ID");
    unsetenv("AWS_SECRET_ACCESS_KEY");
    unsetenv("AWS_SESSION_TOKEN");
    unsetenv("AWS_PROFILE");
    struct profile_config cfg = {
        .auth_type = CONFIG_AUTH_SIGV4, .aws_region = "us-east-1", .aws_service = "execute-api"};
    struct engine_config engine = {0};
    struct record_secrets secrets = {0};
    struct cli_aws *aws = calloc(1, sizeof(*aws));
    cr_assert_eq(cli_aws_prepare(aws, &cfg, &engine, &secrets), 0);
    cr_assert(redacted(&secrets, FIRST_SECRET));

    write_credentials(path, NEW_SECRET); /* another size: the watch sees the change */
    struct sigv4_credentials renewed;
    cr_assert(cli_aws_refresh(aws, &renewed));
    cr_assert_str_eq(renewed.secret_access_key, NEW_SECRET);
    cr_assert(redacted(&secrets, FIRST_SECRET), "the set the run started with");
    cr_assert_str_eq(engine.sigv4_credentials->secret_access_key, FIRST_SECRET,
                     "the engine's first set does not change under it");
    cr_assert(!cli_aws_refresh(aws, &renewed), "the same file again is no change");

    cli_aws_free(aws);
    free(aws);
    unlink(path);
    rmdir(dir);
}
