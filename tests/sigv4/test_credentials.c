#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
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
    unsetenv("AWS_CONFIG_FILE");
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

/* age_credentials sets the credentials file's modification time `seconds` into the past, so
 * that a rewrite within the same clock tick still reads as a change. */
static void age_credentials(long seconds)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/.aws/credentials", dir);
    struct timespec times[2] = {{.tv_sec = 1000000000 - seconds}, {.tv_sec = 1000000000 - seconds}};
    cr_assert_eq(utimensat(AT_FDCWD, path, times, 0), 0);
}

/* A run watches the files its credentials came from: a rewrite with other keys is picked up
 * (and only then are the files read), the same keys rewritten are not news, a broken file
 * says so and keeps nothing, and credentials from the environment are not watched. */
Test(sigv4_watch, rewritten_files_give_the_new_credentials, .init = clean_environment)
{
    write_credentials("[default]\naws_access_key_id=AKIAONE\naws_secret_access_key=one\n");
    age_credentials(100);
    struct sigv4_credentials current;
    struct sigv4_credentials next;
    char source[256], err[256];
    cr_assert_eq(load(NULL, &current, source, err), 0, "%s", err);
    struct sigv4_watch w;
    sigv4_watch_init(&w, NULL);
    cr_assert(w.active);
    cr_assert_eq(sigv4_watch_poll(&w, &current, &next, source, 256, err, 256), 0);
    write_credentials("[default]\naws_access_key_id=AKIATWO\naws_secret_access_key=two\n"
                      "aws_session_token=renewed\n");
    age_credentials(50);
    cr_assert_eq(sigv4_watch_poll(&w, &current, &next, source, 256, err, 256), 1, "%s", err);
    cr_assert_str_eq(next.access_key_id, "AKIATWO");
    cr_assert_str_eq(next.secret_access_key, "two");
    cr_assert_str_eq(next.session_token, "renewed");
    cr_assert_not_null(strstr(source, "credentials [default]"), "%s", source);
    current = next;
    cr_assert_eq(sigv4_watch_poll(&w, &current, &next, source, 256, err, 256), 0);
    age_credentials(40); /* touched, same keys */
    cr_assert_eq(sigv4_watch_poll(&w, &current, &next, source, 256, err, 256), 0);
    write_credentials("[default]\naws_access_key_id=AKIAHALF\n");
    age_credentials(30);
    cr_assert_eq(sigv4_watch_poll(&w, &current, &next, source, 256, err, 256), -EINVAL);
    cr_assert_not_null(strstr(err, "lacks aws_access_key_id or aws_secret_access_key"), "%s", err);
    cr_assert_str_eq(next.access_key_id, "", "nothing kept from a broken file");
    /* Keys in the environment cannot change under the run: nothing to watch. */
    setenv("AWS_ACCESS_KEY_ID", "AKIAENV", 1);
    sigv4_watch_init(&w, NULL);
    cr_assert_not(w.active);
    write_credentials("[default]\naws_access_key_id=AKIATHREE\naws_secret_access_key=3\n");
    cr_assert_eq(sigv4_watch_poll(&w, &current, &next, source, 256, err, 256), 0);
    /* ... unless a profile is named, which wins over the environment. */
    sigv4_watch_init(&w, "default");
    cr_assert(w.active);
}
