/*
 * test_table.c - the flag table itself: every spelling of every flag is recognised (with the
 * partners it needs), none appears twice, and config_flag_given knows each; and the flags
 * whose checks involve a partner (--benchmark-grace-period, --system-prompt-file).
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/config.h"
#include "config/config_internal.h"
#include "config_test_util.h"

/* Every spelling in the table is recognised: supported ones parse (given a
 * plausible value), unsupported ones fail with the "recognised" message. */
/* partner_flag writes into out[0..4] the flags (and values) that must come
 * with name, if any. */
static void partner_flag(const char *name, const char **out)
{
    /* The flag, then up to five words (flags and values) it needs to be valid. */
    static const char *const pairs[][6] = {
        {"--prefix-prompt-length", "--num-prefix-prompts", "2"},
        {"--auth-type", "--aws-region", "us-east-1", "--aws-service", "sagemaker"},
        {"--aws-region", "--auth-type", "sigv4", "--aws-service", "sagemaker"},
        {"--aws-service", "--auth-type", "sigv4", "--aws-region", "us-east-1"},
        {"--aws-profile", "--sagemaker-endpoint-name", "ep", "--aws-region", "us-east-1"},
        {"--sagemaker-endpoint-name", "--aws-region", "us-east-1"},
        {"--sagemaker-target-model", "--sagemaker-endpoint-name", "ep", "--aws-region", "r-1"},
        {"--sagemaker-target-variant", "--sagemaker-endpoint-name", "ep", "--aws-region", "r-1"},
        {"--sagemaker-inference-component-name", "--sagemaker-endpoint-name", "ep", "--aws-region",
         "r-1"},
        {"--prompt-prefix-length", "--num-prefix-prompts", "2"},
        {"--num-prefix-prompts", "--prefix-prompt-length", "9"},
        {"--prefix-prompt-pool-size", "--prefix-prompt-length", "9"},
        {"--prompt-prefix-pool-size", "--prefix-prompt-length", "9"},
        {"--user-context-prompt-length", "--num-dataset-entries", "5"},
        {"--prompt-batch-size", "--endpoint-type", "embeddings"},
        {"-b", "--endpoint-type", "embeddings"},
        {"--batch-size-text", "--endpoint-type", "embeddings"},
        {"--batch-size", "--endpoint-type", "embeddings"},
        {"--download-video-content", "--endpoint-type", "video_generation"},
        {"--image-width-mean", "--image-height-mean", "512"},
        {"--image-height-mean", "--image-width-mean", "512"},
        {"--user-centric-rate", "--num-users", "4", "--conversation-turn-mean", "2"},
        {"--num-users", "--user-centric-rate", "10", "--conversation-turn-mean", "2"},
        {"--custom-dataset-type", "--input-file", "t.jsonl"},
        {"--fixed-schedule", "--input-file", "t.jsonl"},
        {"--fixed-schedule-auto-offset", "--input-file", "t.jsonl"},
        {"--fixed-schedule-start-offset", "--input-file", "t.jsonl"},
        {"--fixed-schedule-end-offset", "--input-file", "t.jsonl"},
        {"--warmup-concurrency", "--warmup-request-count", "5"},
        {"--warmup-request-rate", "--warmup-request-count", "5"},
        {"--warmup-arrival-pattern", "--warmup-request-count", "5"},
        {"--warmup-concurrency-ramp-duration", "--warmup-request-count", "5"},
        {"--warmup-request-rate-ramp-duration", "--warmup-request-count", "5"},
        {"--warmup-grace-period", "--warmup-duration", "5"},
        {"--warmup-prefill-concurrency", "--warmup-duration", "5", "--streaming"},
        {"--prefill-concurrency-ramp-duration", "--prefill-concurrency", "2", "--streaming"},
        {"--network-latency-ping-interval", "--network-latency-automatic"},
        {"--warmup-prefill-concurrency-ramp-duration", "--warmup-request-count", "5",
         "--prefill-concurrency", "2", "--streaming"},
        {"--convergence-metric", "--num-profile-runs", "3"},
        {"--convergence-stat", "--convergence-metric", "x", "--num-profile-runs", "3"},
        {"--convergence-threshold", "--convergence-metric", "x", "--num-profile-runs", "3"},
        {"--convergence-mode", "--convergence-metric", "x", "--num-profile-runs", "3"},
        {"--sweep-type", "--concurrency", "1,2"},
        {"--parameter-sweep-mode", "--concurrency", "1,2"},
        {"--parameter-sweep-cooldown-seconds", "--concurrency", "1,2"},
        {"--parameter-sweep-same-seed", "--concurrency", "1,2", "--random-seed", "1"},
        {"--no-parameter-sweep-same-seed", "--concurrency", "1,2"},
    };
    for (size_t i = 0; i < sizeof(pairs) / sizeof(pairs[0]); i++) {
        if (strcmp(name, pairs[i][0]) == 0) {
            for (size_t k = 0; k < 5; k++) {
                out[k] = pairs[i][k + 1];
            }
        }
    }
}

Test(config_parse, every_table_spelling_is_recognised)
{
    size_t count = 0;
    const struct config__flag *flags = config__flags(&count);
    cr_assert_gt(count, 150, "the table lists AIPerf's profile flags");
    char config_path[] = "/tmp/ringperf-config-XXXXXX";
    int fd = mkstemp(config_path); /* --config reads a real file */
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, "benchmark: {model: y}\n", 22), 22);
    close(fd);
    for (size_t i = 0; i < count; i++) {
        const char *cursor = flags[i].names;
        char name[128];
        while (next_name(&cursor, name, sizeof(name))) {
            bool supported = (flags[i].traits & CONFIG__T_SUPPORTED) != 0;
            cr_assert(flags[i].help != NULL && flags[i].help[0] != '\0', "%s has help", name);
            if (supported && flags[i].kind != CONFIG__K_SWITCH) {
                cr_assert_not_null(flags[i].example, "%s has an example", name);
            }
            const char *value = flags[i].kind == CONFIG__K_SWITCH ? NULL : flags[i].example;
            const char *words[] = {"-m", "x", name, value, NULL, NULL, NULL, NULL, NULL, NULL};
            if (strcmp(name, "--benchmark-grace-period") == 0) {
                words[3] = "inf";
                words[4] = "--benchmark-duration";
                words[5] = "5";
            } else if (strcmp(name, "--prefill-concurrency") == 0) {
                words[4] = "--streaming"; /* a first token only exists in a stream */
            } else if (strcmp(name, "--config") == 0 || strcmp(name, "-f") == 0) {
                words[3] = config_path;
            } else if (strcmp(name, "--per-chunk-usage") == 0) {
                words[3] = "--streaming"; /* a switch: its partners take the value's place */
                words[4] = "--use-server-token-count";
            } else {
                partner_flag(name, &words[value != NULL ? 4 : 3]); /* a switch takes none */
            }
            struct profile_config cfg;
            char err[256];
            int rc = parse(words, &cfg, err, sizeof(err));
            if (supported) {
                cr_assert_eq(rc, 0, "%s %s: %s", name, value ? value : "", err);
                config_free(&cfg);
            } else {
                cr_assert_eq(rc, -EINVAL, "%s", name);
                cr_assert_not_null(strstr(err, "recognised but not supported by ringperf yet"),
                                   "%s: %s", name, err);
            }
        }
    }
    unlink(config_path);
}

Test(config_parse, grace_period_example_needs_a_duration)
{
    struct profile_config cfg;
    char err[256];
    cr_assert_eq(parse(W("-m", "x", "--benchmark-duration", "5", "--benchmark-grace-period", "0"),
                       &cfg, err, sizeof(err)),
                 0, "%s", err);
    cr_assert_float_eq(cfg.benchmark_grace_period_seconds, 0.0, 1e-12);
    config_free(&cfg);
}

Test(config_parse, no_spelling_appears_twice_in_the_table)
{
    size_t count = 0;
    const struct config__flag *flags = config__flags(&count);
    for (size_t i = 0; i < count; i++) {
        const char *cursor = flags[i].names;
        char name[128];
        while (next_name(&cursor, name, sizeof(name))) {
            cr_assert(name[0] == '-', "%s starts with a dash", name);
            cr_assert_eq(config__find_flag(name, strlen(name)), &flags[i], "%s is unique", name);
        }
    }
}

/* --system-prompt-file is read when the run is prepared; here it only
 * conflicts with the other ways to set the system prompt. */
Test(config_parse, system_prompt_file_conflicts_are_named)
{
    struct profile_config cfg;
    char err[512];
    cr_assert_lt(parse(W("-m", "x", "--system-prompt-file", "s.txt", "--system-prompt", "y"), &cfg,
                       err, sizeof(err)),
                 0);
    cr_assert_not_null(strstr(err, "--system-prompt and --system-prompt-file both set"), "%s", err);
    config_free(&cfg);
    cr_assert_lt(
        parse(W("-m", "x", "--system-prompt-file", "s.txt", "--shared-system-prompt-length", "9"),
              &cfg, err, sizeof(err)),
        0);
    cr_assert_not_null(
        strstr(err, "--system-prompt-file and --shared-system-prompt-length both set"), "%s", err);
    config_free(&cfg);
}

Test(config_parse, flag_given_tracks_every_spelling)
{
    char *argv[] = {"--model", "m", "--num-requests", "3", "--streaming", NULL};
    struct profile_config cfg;
    char err[256];
    cr_assert_eq(config_parse_profile(5, argv, &cfg, err, sizeof(err)), 0, "%s", err);
    cr_assert(config_flag_given(&cfg, "--request-count"));
    cr_assert(config_flag_given(&cfg, "--num-requests"));
    cr_assert(config_flag_given(&cfg, "--streaming"));
    cr_assert(config_flag_given(&cfg, "-m"));
    cr_assert_not(config_flag_given(&cfg, "--concurrency"));
    cr_assert_not(config_flag_given(&cfg, "--no-such-flag"));
    cr_assert_str_eq(config_choice_name("--wait-for-model-mode", CONFIG_WAIT_MODELS), "models");
    cr_assert_null(config_choice_name("--concurrency", 0));
    config_free(&cfg);
}

/* video_generation's settings: AIPERF_HTTP_VIDEO_POLL_INTERVAL in seconds (0.1 when unset), and
 * --download-video-content, refused where no video is made. */
Test(config_parse, video_poll_interval_and_download_flag)
{
    double s = 0;
    char err[256];
    cr_assert_eq(config__video_poll_interval(NULL, &s, err, sizeof(err)), 0);
    cr_assert_float_eq(s, 0.1, 1e-12);
    cr_assert_eq(config__video_poll_interval("0.25", &s, err, sizeof(err)), 0);
    cr_assert_float_eq(s, 0.25, 1e-12);
    static const char *const bad[] = {"", "abc", "0", "-1", "0.1s", "nan", "inf", "3601"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        cr_assert_eq(config__video_poll_interval(bad[i], &s, err, sizeof(err)), -EINVAL, "%s",
                     bad[i]);
        cr_assert_not_null(strstr(err, "AIPERF_HTTP_VIDEO_POLL_INTERVAL="), "%s", err);
        cr_assert_not_null(strstr(err, "from 0.001 to 3600"), "%s", err);
    }
    const char *words[] = {"-m", "x", "--download-video-content", NULL};
    struct profile_config cfg;
    cr_assert_eq(parse(words, &cfg, err, sizeof(err)), -EINVAL);
    cr_assert_not_null(strstr(err, "--download-video-content"), "%s", err);
    const char *sigv4[] = {"-m",
                           "x",
                           "--endpoint-type",
                           "video_generation",
                           "--auth-type",
                           "sigv4",
                           "--aws-region",
                           "us-east-1",
                           "--aws-service",
                           "s",
                           NULL};
    cr_assert_eq(parse(sigv4, &cfg, err, sizeof(err)), -EINVAL);
    cr_assert_not_null(strstr(err, "video_generation"), "%s", err);
}
