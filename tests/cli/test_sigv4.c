/*
 * test_sigv4.c - `--auth-type sigv4` end to end: `ringperf profile` signs every request (the
 * readiness probes and the cache-reset hook included) and the mock server, which knows the
 * secret, signs each again and answers 403 when they differ. The credentials come from the
 * environment or a credentials file, and must not show in any file of the run or its output.
 */
#include <criterion/criterion.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "e2e.h"

#define ACCESS_KEY "AKIARINGPERFTEST0001"
#define SECRET "wJalrXUtnFEMI/K7MDENG+bPxRfiCYRINGPERFKEY"
#define TOKEN "FwoGZXIvYXdzEringperf-session-token-that-must-stay-secret//////"
#define SIGNED                                                                                     \
    "profile -m m -u URL --osl 4 --auth-type sigv4 --aws-region us-west-2 "                        \
    "--aws-service execute-api --artifact-dir DIR "

static char *mock_flags[] = {
    "--sigv4-secret", SECRET, "--sigv4-region", "us-west-2", "--sigv4-service",
    "execute-api",    NULL};

/* use_environment puts the credentials in the environment, and HOME in the world's directory
 * so that no ~/.aws of the machine's is read. */
static void use_environment(const struct e2e *w, const char *secret)
{
    setenv("HOME", w->dir, 1);
    unsetenv("AWS_SHARED_CREDENTIALS_FILE");
    unsetenv("AWS_PROFILE");
    setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY, 1);
    setenv("AWS_SECRET_ACCESS_KEY", secret, 1);
    setenv("AWS_SESSION_TOKEN", TOKEN, 1);
}

static void clear_environment(const struct e2e *w)
{
    setenv("HOME", w->dir, 1);
    unsetenv("AWS_CONFIG_FILE");
    unsetenv("AWS_DEFAULT_REGION");
    unsetenv("AWS_ACCESS_KEY_ID");
    unsetenv("AWS_SECRET_ACCESS_KEY");
    unsetenv("AWS_SESSION_TOKEN");
    unsetenv("AWS_SHARED_CREDENTIALS_FILE");
    unsetenv("AWS_PROFILE");
}

static void assert_absent(const char *what, const char *text)
{
    cr_assert_null(strstr(text, SECRET), "%s holds the secret access key", what);
    cr_assert_null(strstr(text, TOKEN), "%s holds the session token", what);
    cr_assert_null(strstr(text, ACCESS_KEY), "%s holds the access key id", what);
}

/* assert_no_credentials reads every file under dir (the exports, inputs.json, logs) and
 * requires that none holds a credential. Returns how many files it read. */
static size_t assert_no_credentials(const char *dir)
{
    DIR *d = opendir(dir);
    cr_assert_not_null(d, "%s", dir);
    size_t files = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) {
            continue;
        }
        char path[1024];
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        struct stat st;
        cr_assert_eq(stat(path, &st), 0);
        if (S_ISDIR(st.st_mode)) {
            files += assert_no_credentials(path);
            continue;
        }
        if (strcmp(e->d_name, "credentials") == 0 || strcmp(e->d_name, "config") == 0) {
            continue; /* the test's own credentials and config files */
        }
        char *text = test_read_path(path);
        cr_assert_not_null(text, "%s", path);
        assert_absent(path, text);
        free(text);
        files++;
    }
    closedir(d);
    return files;
}

static unsigned long long report_count(const char *report, const char *label)
{
    const char *at = strstr(report, label);
    cr_assert_not_null(at, "no '%s' in: %s", label, report);
    while (at > report && at[-1] == ' ') {
        at--;
    }
    while (at > report && at[-1] >= '0' && at[-1] <= '9') {
        at--;
    }
    return strtoull(at, NULL, 10);
}

Test(sigv4_e2e, every_request_is_signed_and_no_credential_leaks, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, mock_flags);
    use_environment(&w, SECRET);
    char *out = NULL;
    int status = run_ringperf(&w,
                              SIGNED "--streaming --request-count 12 --concurrency 3 "
                                     "--wait-for-model-timeout 10 --wait-for-model-mode both "
                                     "--reset-kv-cache --header X-Custom:abc --export-level raw",
                              true, &out);
    cr_assert_eq(status, 0, "%s", out);
    cr_assert_not_null(strstr(out, "Signing requests with AWS SigV4 (us-west-2/execute-api)"));
    assert_absent("the run's output", out);
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 12);
    cr_assert_eq(errors, 0);
    cr_assert_gt(assert_no_credentials(w.dir), 3);
    json_t *doc = e2e_load_json(&w, "profile_export_aiperf.json");
    json_t *endpoint = json_object_get(json_object_get(doc, "input_config"), "endpoint");
    cr_assert_str_eq(json_string_value(json_object_get(endpoint, "auth_type")), "sigv4");
    cr_assert_str_eq(json_string_value(json_object_get(endpoint, "aws_region")), "us-west-2");
    json_decref(doc);
    char *report = e2e_finish_report(&w);
    /* 12 requests, GET /v1/models, the one-token probe and the cache reset. */
    cr_assert_eq(report_count(report, "signatures verified"), 15, "%s", report);
    cr_assert_eq(report_count(report, "rejected"), 0, "%s", report);
    cr_assert_eq(report_count(report, "cache resets"), 1, "%s", report);
    free(report);
    free(out);
}

Test(sigv4_e2e, a_wrong_secret_ends_every_request_in_403, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, mock_flags);
    use_environment(&w, "not-the-secret-the-server-knows-at-all");
    char *out = NULL;
    int status = run_ringperf(&w, SIGNED "--request-count 6 --concurrency 2", true, &out);
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 6, "%s", out);
    cr_assert_eq(errors, 6);
    /* Every request failed, so there is no summary: the exit report counts them by code. */
    cr_assert_neq(status, 0, "%s", out);
    cr_assert_not_null(strstr(out, "6 x 403"), "%s", out);
    cr_assert_not_null(strstr(out, "signature we calculated does not match"), "%s", out);
    assert_absent("the run's output", out);
    assert_no_credentials(w.dir);
    char *report = e2e_finish_report(&w);
    cr_assert_eq(report_count(report, "rejected"), 6, "%s", report);
    free(report);
    free(out);
}

/* finish_clean_run requires the run to have exported `requests` records, none an error, and
 * no credential in its output (freed) or any file, then finishes the world. */
static void finish_clean_run(struct e2e *w, char *out, size_t requests)
{
    size_t errors = 0;
    cr_assert_eq(count_export_lines(w, &errors), requests);
    cr_assert_eq(errors, 0);
    assert_absent("the run's output", out);
    assert_no_credentials(w->dir);
    free(out);
    e2e_finish(w);
}

Test(sigv4_e2e, a_profile_of_the_credentials_file_signs, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, mock_flags);
    clear_environment(&w);
    /* The environment's keys are wrong: a profile named with --aws-profile wins over them. */
    setenv("AWS_ACCESS_KEY_ID", "AKIAWRONGWRONGWRONG0", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "wrong", 1);
    e2e_write(&w, "credentials",
              "[default]\naws_access_key_id = AKIADEFAULT\naws_secret_access_key = nope\n\n"
              "# the one to use\n[staging]\nAWS_ACCESS_KEY_ID = " ACCESS_KEY
              "\naws_secret_access_key=" SECRET "\n");
    char path[128];
    snprintf(path, sizeof(path), "%s/credentials", w.dir);
    setenv("AWS_SHARED_CREDENTIALS_FILE", path, 1);
    char *out = NULL;
    int status = run_ringperf(&w, SIGNED "--request-count 4 --aws-profile staging", true, &out);
    cr_assert_eq(status, 0, "%s", out);
    cr_assert_not_null(strstr(out, "[staging]"), "%s", out);
    finish_clean_run(&w, out, 4);
}

/* expect_refused runs `ringperf WORDS` and requires exit status 1 with `message` said. */
static void expect_refused(const struct e2e *w, const char *words, const char *message)
{
    char *out = NULL;
    int status = run_ringperf(w, words, true, &out);
    cr_assert_eq(status, 1, "%s: %s", words, out);
    cr_assert_not_null(strstr(out, message), "%s: %s", words, out);
    assert_absent("the refusal", out);
    free(out);
}

/* ~/.aws/config alone: the profile's "[profile NAME]" section gives the keys, the session
 * token and the region, with no --aws-region (botocore's order). */
Test(sigv4_e2e, a_profile_of_the_config_file_gives_keys_and_region, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, mock_flags);
    clear_environment(&w);
    char dir[160];
    snprintf(dir, sizeof(dir), "%s/.aws", w.dir);
    cr_assert_eq(mkdir(dir, 0700), 0);
    e2e_write(&w, ".aws/config",
              "[default]\nregion = eu-west-1\n\n[profile  staging]\nregion = us-west-2\n"
              "aws_access_key_id = " ACCESS_KEY "\naws_secret_access_key = " SECRET
              "\naws_session_token = " TOKEN "\noutput = json\n");
    char *out = NULL;
    int status = run_ringperf(&w,
                              "profile -m m -u URL --osl 4 --auth-type sigv4 --aws-service "
                              "execute-api --aws-profile staging --request-count 4 "
                              "--artifact-dir DIR",
                              true, &out);
    cr_assert_eq(status, 0, "%s", out);
    cr_assert_not_null(strstr(out, "AWS region us-west-2 from "), "%s", out);
    cr_assert_not_null(strstr(out, "config [profile staging]"), "%s", out);
    finish_clean_run(&w, out, 4);
}

#define OLD_SECRET "expired/secret/the+mock/does/not/know/0001"

/* Credentials renewed while the run goes: the credentials file holds keys the mock does not
 * take (403), the test rewrites it once requests are finishing (the run lasts four seconds at
 * 100 requests a second), and the run says it switched and signs the rest with the new keys.
 * Neither set reaches any file or output. */
Test(sigv4_e2e, a_rewritten_credentials_file_is_signed_with_from_then_on, .timeout = 120)
{
    char *const flags[] = {"--sigv4-secret",
                           SECRET,
                           "--sigv4-region",
                           "us-west-2",
                           "--sigv4-service",
                           "execute-api",
                           "--ttft-ms",
                           "20",
                           NULL};
    struct e2e w;
    e2e_start(&w, flags);
    clear_environment(&w);
    e2e_write(&w, "credentials",
              "[default]\naws_access_key_id = " ACCESS_KEY "\naws_secret_access_key = " OLD_SECRET
              "\n");
    char path[128];
    snprintf(path, sizeof(path), "%s/credentials", w.dir);
    setenv("AWS_SHARED_CREDENTIALS_FILE", path, 1);
    struct child run =
        e2e_spawn_running(&w, SIGNED "--request-rate 100 --benchmark-duration 4 --ui-type simple");
    e2e_write(&w, "credentials",
              "[default]\naws_access_key_id = " ACCESS_KEY "\naws_secret_access_key = " SECRET
              "\naws_session_token = " TOKEN "\n");
    e2e_read_until(&run, "AWS credentials from ");
    char *rest = test_read_stream(run.out);
    int status = wait_child(&run);
    cr_assert_eq(status, 0, "exit %d: %s", status, rest);
    assert_absent("the run's output", rest);
    cr_assert_null(strstr(rest, OLD_SECRET));
    free(rest);
    size_t errors = 0;
    size_t lines = count_export_lines(&w, &errors);
    cr_assert_geq(errors, 1, "the first keys were refused");
    cr_assert_lt(errors, lines, "the renewed keys were taken");
    assert_no_credentials(w.dir);
    e2e_finish(&w);
}

Test(sigv4_e2e, flags_are_checked_and_named, .timeout = 60)
{
    struct e2e w;
    e2e_start(&w, NULL);
    clear_environment(&w);
    expect_refused(&w, "profile -m m -u URL --aws-region us-east-1",
                   "--aws-region applies to AWS SigV4 signing, which is off");
    expect_refused(&w,
                   "profile -m m -u URL --auth-type sigv4 --aws-service sagemaker "
                   "--sagemaker-endpoint-name ep",
                   "--sagemaker-endpoint-name needs --aws-region");
    /* Keys but no region anywhere: the run names where it looked. */
    setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY, 1);
    setenv("AWS_SECRET_ACCESS_KEY", SECRET, 1);
    expect_refused(&w, "profile -m m -u URL --auth-type sigv4 --aws-service execute-api",
                   "no AWS region: give --aws-region, or set AWS_DEFAULT_REGION");
    unsetenv("AWS_ACCESS_KEY_ID");
    unsetenv("AWS_SECRET_ACCESS_KEY");
    expect_refused(&w, "profile -m m -u URL --auth-type sigv4 --aws-region us-east-1",
                   "--auth-type sigv4 needs --aws-service");
    expect_refused(&w, "profile -m m -u URL --auth-type sigv4 --aws-region US_EAST --aws-service x",
                   "--aws-region 'US_EAST' is not an AWS region");
    expect_refused(&w, "profile -m m -u URL --auth-type sigv5", "--auth-type");
    expect_refused(&w,
                   "profile -m m -u URL --auth-type sigv4 --aws-region us-east-1 "
                   "--aws-service execute-api --api-key sk-1",
                   "drop --api-key");
    expect_refused(&w,
                   "profile -m m -u URL --auth-type sigv4 --aws-region us-east-1 "
                   "--aws-service execute-api --endpoint-type audio_transcription",
                   "--auth-type sigv4 does not sign multipart/form-data bodies");
    expect_refused(&w,
                   "profile -m m -u URL --sagemaker-endpoint-name bad_name --aws-region us-east-1",
                   "--sagemaker-endpoint-name 'bad_name' is not a SageMaker endpoint name");
    expect_refused(&w, "profile -m m -u URL --sagemaker-target-variant v",
                   "--sagemaker-target-variant routes a SageMaker endpoint's requests");
    expect_refused(&w,
                   "profile -m m -u URL --sagemaker-endpoint-name ep --aws-region us-east-1 "
                   "--reset-kv-cache",
                   "--reset-kv-cache calls OpenAI-style routes");
    /* No credentials anywhere: the run stops before sending anything, naming where it looked. */
    expect_refused(&w,
                   "profile -m m -u URL --auth-type sigv4 --aws-region us-east-1 "
                   "--aws-service execute-api --artifact-dir DIR",
                   "no AWS credentials for profile 'default'");
    setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY, 1);
    expect_refused(&w,
                   "profile -m m -u URL --auth-type sigv4 --aws-region us-east-1 "
                   "--aws-service execute-api --artifact-dir DIR",
                   "AWS_SECRET_ACCESS_KEY is not");
    e2e_finish(&w);
}

/* first_metric returns metric `name`'s value in the first record of the world's records. */
static double first_metric(const struct e2e *w, const char *name)
{
    char *text = e2e_read_text(w, "profile_export.jsonl");
    char *nl = strchr(text, '\n');
    if (nl != NULL) {
        *nl = '\0';
    }
    json_t *record = json_loads(text, 0, NULL);
    cr_assert_not_null(record, "%s", text);
    json_t *metric = json_object_get(json_object_get(record, "metrics"), name);
    cr_assert_not_null(metric, "no %s in %s", name, text);
    double v = json_number_value(json_object_get(metric, "value"));
    json_decref(record);
    free(text);
    return v;
}

#define SAGEMAKER                                                                                  \
    "profile -m m -u URL --osl 8 --sagemaker-endpoint-name my-ep-1 "                               \
    "--aws-region us-west-2 --artifact-dir DIR "

/* assert_sagemaker_run requires n records, all successes of 8 output tokens. */
static void assert_sagemaker_run(const struct e2e *w, size_t n)
{
    size_t errors = 0;
    cr_assert_eq(count_export_lines(w, &errors), n);
    cr_assert_eq(errors, 0);
    cr_assert_eq(first_metric(w, "output_sequence_length"), 8);
}

/* finish_verified stops the mock and requires that it verified n signatures. */
static void finish_verified(struct e2e *w, unsigned long long n)
{
    char *report = e2e_finish_report(w);
    cr_assert_eq(report_count(report, "signatures verified"), n, "%s", report);
    cr_assert_eq(report_count(report, "rejected"), 0, "%s", report);
    free(report);
}

/* The streaming operation answers in AWS event-stream frames, which ringperf decodes: the
 * tokens arrive one frame at a time, 3 ms apart, so ITL is measured, not lumped into one read. */
Test(sigv4_e2e, sagemaker_streams_in_event_stream_frames, .timeout = 120)
{
    struct e2e w;
    char *flags[] = {"--sigv4-secret",
                     SECRET,
                     "--sigv4-region",
                     "us-west-2",
                     "--sigv4-service",
                     "sagemaker",
                     "--itl-ms",
                     "3",
                     NULL};
    e2e_start(&w, flags);
    use_environment(&w, SECRET);
    e2e_run_ok(&w, SAGEMAKER "--streaming --request-count 6 --concurrency 2");
    assert_sagemaker_run(&w, 6);
    double itl = first_metric(&w, "inter_token_latency");
    /* Under load two frames may share a read (a zero gap), so the average may dip below 3. */
    cr_assert(itl > 0.5, "ITL %g ms: the frames were not read as they came", itl);
    json_t *doc = e2e_load_json(&w, "profile_export_aiperf.json");
    json_t *endpoint = json_object_get(json_object_get(doc, "input_config"), "endpoint");
    cr_assert_str_eq(json_string_value(json_object_get(endpoint, "sagemaker_endpoint_name")),
                     "my-ep-1");
    json_decref(doc);
    assert_no_credentials(w.dir);
    finish_verified(&w, 6);
}

Test(sigv4_e2e, sagemaker_invokes_without_streaming, .timeout = 120)
{
    struct e2e w;
    char *flags[] = {"--sigv4-secret", SECRET, "--sigv4-service", "sagemaker", NULL};
    e2e_start(&w, flags);
    use_environment(&w, SECRET);
    /* The routing headers are signed: the mock's check fails on one changed or missing. */
    e2e_run_ok(&w, SAGEMAKER "--request-count 4 --sagemaker-target-variant variant-b "
                             "--sagemaker-target-model model-a.tar.gz "
                             "--sagemaker-inference-component-name comp-1");
    assert_sagemaker_run(&w, 4);
    finish_verified(&w, 4);
}

/* A container that fails mid-stream: SageMaker sends an exception message, which ends the
 * request with its :exception-type. */
Test(sigv4_e2e, a_sagemaker_exception_frame_fails_the_request, .timeout = 120)
{
    struct e2e w;
    char *flags[] = {"--sigv4-secret", SECRET, "--malformed-rate", "100", NULL};
    e2e_start(&w, flags);
    use_environment(&w, SECRET);
    char *out = NULL;
    run_ringperf(&w, SAGEMAKER "--streaming --request-count 3", true, &out);
    size_t errors = 0;
    cr_assert_eq(count_export_lines(&w, &errors), 3, "%s", out);
    cr_assert_eq(errors, 3);
    cr_assert_not_null(strstr(out, "3 x 502 ModelStreamError"), "%s", out);
    char *records = e2e_read_text(&w, "profile_export.jsonl");
    cr_assert_not_null(strstr(records, "\"type\":\"ModelStreamError\",\"message\":\"AWS event "
                                       "stream ModelStreamError: {\\\"Message\\\":\\\"mock-server: "
                                       "injected model stream error\\\"}\""),
                       "%s", records);
    free(records);
    free(out);
    e2e_finish(&w);
}
