#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sigv4/sigv4.h"

static char dir[64];

static void clean_environment(void)
{
    unsetenv("AWS_ACCESS_KEY_ID");
    unsetenv("AWS_SECRET_ACCESS_KEY");
    unsetenv("AWS_SESSION_TOKEN");
    unsetenv("AWS_SECURITY_TOKEN");
    unsetenv("AWS_SHARED_CREDENTIALS_FILE");
    unsetenv("AWS_PROFILE");
    snprintf(dir, sizeof(dir), "/tmp/ringperf-aws-XXXXXX");
    cr_assert_not_null(mkdtemp(dir));
    setenv("HOME", dir, 1);
}

static void write_credentials(const char *text)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/.aws", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof(path), "%s/.aws/credentials", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

static const char file_text[] = "; a comment\n"
                                "[default]\n"
                                "aws_access_key_id = AKIADEFAULT\n"
                                "aws_secret_access_key = default-secret\n"
                                "region = us-east-1\n"
                                "s3 =\n"
                                "  max_concurrent_requests = 20\n"
                                "\n"
                                "[ staging ]\r\n"
                                "Aws_Access_Key_Id: AKIASTAGING\r\n"
                                "aws_secret_access_key=staging-secret  \r\n"
                                "aws_session_token = tok/en+==\r\n"
                                "[empty]\n"
                                "aws_access_key_id = AKIAEMPTY\n";

static int load(const char *profile, struct sigv4_credentials *out, char *source, char *err)
{
    return sigv4_credentials_load(profile, out, source, 256, err, 256);
}

Test(sigv4_credentials, environment_first_without_a_profile, .init = clean_environment)
{
    write_credentials(file_text);
    setenv("AWS_ACCESS_KEY_ID", "AKIAENV", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "env-secret", 1);
    setenv("AWS_SESSION_TOKEN", "env-token", 1);
    struct sigv4_credentials c;
    char source[256], err[256];
    cr_assert_eq(load(NULL, &c, source, err), 0, "%s", err);
    cr_assert_str_eq(c.access_key_id, "AKIAENV");
    cr_assert_str_eq(c.secret_access_key, "env-secret");
    cr_assert_str_eq(c.session_token, "env-token");
    cr_assert_not_null(strstr(source, "environment"));
    /* A profile named explicitly wins over the environment, as in botocore. */
    cr_assert_eq(load("staging", &c, source, err), 0, "%s", err);
    cr_assert_str_eq(c.access_key_id, "AKIASTAGING");
    cr_assert_str_eq(c.secret_access_key, "staging-secret");
    cr_assert_str_eq(c.session_token, "tok/en+==");
    cr_assert_not_null(strstr(source, "[staging]"), "%s", source);
}

Test(sigv4_credentials, file_profiles, .init = clean_environment)
{
    write_credentials(file_text);
    struct sigv4_credentials c;
    char source[256], err[256];
    cr_assert_eq(load(NULL, &c, source, err), 0, "%s", err);
    cr_assert_str_eq(c.access_key_id, "AKIADEFAULT");
    cr_assert_str_eq(c.session_token, "");
    setenv("AWS_PROFILE", "staging", 1);
    cr_assert_eq(load(NULL, &c, source, err), 0, "%s", err);
    cr_assert_str_eq(c.access_key_id, "AKIASTAGING");
    cr_assert_eq(load("empty", &c, source, err), -EINVAL);
    cr_assert_not_null(strstr(err, "lacks aws_access_key_id or aws_secret_access_key"), "%s", err);
    cr_assert_eq(load("nope", &c, source, err), -EINVAL);
    cr_assert_not_null(strstr(err, "no AWS credentials for profile 'nope'"), "%s", err);
    cr_assert_not_null(strstr(err, "has no such section"), "%s", err);
    cr_assert_null(strstr(err, "secret"), "%s", err);
}

Test(sigv4_credentials, shared_file_variable_and_missing_file, .init = clean_environment)
{
    struct sigv4_credentials c;
    char source[256], err[256];
    cr_assert_eq(load(NULL, &c, source, err), -ENOENT);
    cr_assert_not_null(strstr(err, "no AWS credentials for profile 'default'"), "%s", err);
    char path[128];
    snprintf(path, sizeof(path), "%s/elsewhere", dir);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("[default]\naws_access_key_id=AKIAELSE\naws_secret_access_key=s\n", f);
    fclose(f);
    setenv("AWS_SHARED_CREDENTIALS_FILE", path, 1);
    cr_assert_eq(load(NULL, &c, source, err), 0, "%s", err);
    cr_assert_str_eq(c.access_key_id, "AKIAELSE");
    cr_assert_not_null(strstr(source, "elsewhere [default]"), "%s", source);
}

Test(sigv4_credentials, refuses_half_and_oversized_credentials, .init = clean_environment)
{
    struct sigv4_credentials c;
    char source[256], err[256];
    setenv("AWS_ACCESS_KEY_ID", "AKIAENV", 1);
    cr_assert_eq(load(NULL, &c, source, err), -EINVAL);
    cr_assert_not_null(strstr(err, "AWS_SECRET_ACCESS_KEY is not"), "%s", err);
    static char big[SIGV4_SECRET_MAX + 8];
    memset(big, 'x', sizeof(big) - 1);
    setenv("AWS_SECRET_ACCESS_KEY", big, 1);
    cr_assert_eq(load(NULL, &c, source, err), -EINVAL);
    cr_assert_null(strstr(err, "xxxx"), "%s", err);
    unsetenv("AWS_ACCESS_KEY_ID");
    char text[512];
    snprintf(text, sizeof(text), "[default]\naws_access_key_id=A\naws_secret_access_key=%s\n", big);
    write_credentials(text);
    cr_assert_eq(load(NULL, &c, source, err), -EINVAL);
    cr_assert_not_null(strstr(err, "longer than ringperf takes"), "%s", err);
}
