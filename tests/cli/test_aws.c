/*
 * test_aws.c - cli/aws.c: the credentials a run starts with stay redacted after a refresh
 * (the run's secrets borrow their strings, so a refresh must not write over them), and
 * refreshed credentials the signer refuses are said once on stderr, and not handed over.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli_aws.h"
#include "tests/support/read_text.h"

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

/* aws_run is a run's AWS side, prepared from a credentials file of its own. */
struct aws_run {
    char dir[32];
    char path[256]; /* the credentials file */
    struct engine_config engine;
    struct record_secrets secrets;
    struct cli_aws aws;
};

/* aws_run_start writes the credentials file with FIRST_SECRET, points the environment at it
 * and prepares the run as cli_aws_prepare does. */
static struct aws_run *aws_run_start(void)
{
    struct aws_run *r = calloc(1, sizeof(*r));
    snprintf(r->dir, sizeof(r->dir), "/tmp/ringperf-aws-XXXXXX");
    cr_assert_not_null(mkdtemp(r->dir));
    snprintf(r->path, sizeof(r->path), "%s/credentials", r->dir);
    write_credentials(r->path, FIRST_SECRET);
    char config_path[256];
    snprintf(config_path, sizeof(config_path), "%s/config", r->dir);
    setenv("AWS_SHARED_CREDENTIALS_FILE", r->path, 1);
    setenv("AWS_CONFIG_FILE", config_path, 1);
    unsetenv("AWS_ACCESS_KEY_ID");
    unsetenv("AWS_SECRET_ACCESS_KEY");
    unsetenv("AWS_SESSION_TOKEN");
    unsetenv("AWS_PROFILE");
    struct profile_config cfg = {
        .auth_type = CONFIG_AUTH_SIGV4, .aws_region = "us-east-1", .aws_service = "execute-api"};
    cr_assert_eq(cli_aws_prepare(&r->aws, &cfg, &r->engine, &r->secrets), 0);
    return r;
}

static void aws_run_end(struct aws_run *r)
{
    cli_aws_free(&r->aws);
    unlink(r->path);
    rmdir(r->dir);
    free(r);
}

Test(cli_aws, the_first_credentials_stay_redacted_after_a_refresh)
{
    struct aws_run *r = aws_run_start();
    cr_assert(redacted(&r->secrets, FIRST_SECRET));

    write_credentials(r->path, NEW_SECRET); /* another size: the watch sees the change */
    struct sigv4_credentials renewed;
    cr_assert(cli_aws_refresh(&r->aws, &renewed));
    cr_assert_str_eq(renewed.secret_access_key, NEW_SECRET);
    cr_assert(redacted(&r->secrets, FIRST_SECRET), "the set the run started with");
    cr_assert_str_eq(r->engine.sigv4_credentials->secret_access_key, FIRST_SECRET,
                     "the engine's first set does not change under it");
    cr_assert(!cli_aws_refresh(&r->aws, &renewed), "the same file again is no change");
    aws_run_end(r);
}

/* stderr_to redirects stderr into a new file at path and returns the saved descriptor. */
static int stderr_to(const char *path)
{
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    cr_assert_geq(dup2(fileno(f), STDERR_FILENO), 0);
    fclose(f);
    return saved;
}

static void stderr_back(int saved)
{
    fflush(stderr);
    dup2(saved, STDERR_FILENO);
    close(saved);
}

Test(cli_aws, refreshed_credentials_the_signer_refuses_are_said_once_and_not_used)
{
    struct aws_run *r = aws_run_start();
    char log_path[256];
    snprintf(log_path, sizeof(log_path), "%s/stderr", r->dir);

    /* A tab inside the secret: the file reads, the signer cannot put it in a header. */
    write_credentials(r->path, "renewed\tsecret-that-cannot-sign");
    int saved = stderr_to(log_path);
    struct sigv4_credentials renewed;
    bool first = cli_aws_refresh(&r->aws, &renewed);
    bool first_wiped = renewed.secret_access_key[0] == '\0';
    /* Touched, the same set: another mtime, so that the watch reads it again. */
    struct timespec times[2] = {{.tv_nsec = UTIME_OMIT}, {.tv_sec = 1000000}};
    cr_assert_eq(utimensat(AT_FDCWD, r->path, times, 0), 0);
    bool again = cli_aws_refresh(&r->aws, &renewed);
    stderr_back(saved);
    cr_assert_not(first, "a set the signer refuses is not handed to the engine");
    cr_assert_not(again);
    cr_assert(first_wiped, "the refused set is wiped, not left behind");
    FILE *f = fopen(log_path, "r");
    cr_assert_not_null(f);
    char log[2048] = "";
    size_t n = fread(log, 1, sizeof(log) - 1, f);
    log[n] = '\0';
    fclose(f);
    unlink(log_path);
    cr_assert_eq(test_count_of(log, "the secret access key holds a control character"), 1, "%s",
                 log);
    cr_assert_not_null(strstr(log, "still signing with the ones before"), "%s", log);
    cr_assert_null(strstr(log, "renewed"), "no credential in the message: %s", log);

    write_credentials(r->path, NEW_SECRET); /* fixed: taken */
    cr_assert(cli_aws_refresh(&r->aws, &renewed));
    cr_assert_str_eq(renewed.secret_access_key, NEW_SECRET);
    aws_run_end(r);
}
