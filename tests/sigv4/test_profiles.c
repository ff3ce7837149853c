/*
 * test_profiles.c - credentials and region from generated ~/.aws/credentials and ~/.aws/config
 * files (profiles in either, "[profile NAME]" and "[default]" sections in any order, partial
 * keys, comments, nested values, AWS_DEFAULT_REGION), resolved by sigv4_credentials_load and
 * sigv4_region_load and by botocore (Debian python3-botocore) as the oracle, which must agree.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sigv4/sigv4.h"

#define ORACLE "/usr/bin/python3 " SIGV4_TEST_SOURCE_DIR "/botocore_profiles.py"
#define CASES 300

/* unhex decodes a field of the oracle's line ("-": empty) into out (cap bytes). */
static void unhex(const char *field, char *out, size_t cap)
{
    size_t n = 0;
    if (strcmp(field, "-") != 0) {
        for (; field[2 * n] != '\0' && n + 1 < cap; n++) {
            char byte[3] = {field[2 * n], field[2 * n + 1], '\0'};
            out[n] = (char)strtol(byte, NULL, 16);
        }
    }
    out[n] = '\0';
}

/* check_case resolves case i as the oracle's line says and compares. */
static void check_case(const char *dir, char *line)
{
    char *fields[7];
    size_t n = 0;
    line[strcspn(line, "\n")] = '\0';
    for (char *f = line; f != NULL && n < 7; n++) {
        fields[n] = f;
        f = strchr(f, ' ');
        if (f != NULL) {
            *f++ = '\0';
        }
    }
    cr_assert_eq(n, 7, "oracle line");
    char path[256];
    snprintf(path, sizeof(path), "%s/%s/credentials", dir, fields[0]);
    setenv("AWS_SHARED_CREDENTIALS_FILE", path, 1);
    snprintf(path, sizeof(path), "%s/%s/config", dir, fields[0]);
    setenv("AWS_CONFIG_FILE", path, 1);
    char profile[32], env_region[32];
    unhex(fields[1], profile, sizeof(profile));
    unhex(fields[2], env_region, sizeof(env_region));
    if (env_region[0] != '\0') {
        setenv("AWS_DEFAULT_REGION", env_region, 1);
    } else {
        unsetenv("AWS_DEFAULT_REGION");
    }
    const char *name = profile[0] != '\0' ? profile : NULL;
    struct sigv4_credentials c;
    char source[512], err[1024];
    int ret = sigv4_credentials_load(name, &c, source, sizeof(source), err, sizeof(err));
    if (strcmp(fields[3], "ERR") == 0) {
        cr_assert_neq(ret, 0, "case %s: botocore finds no credentials; ours from %s", fields[0],
                      source);
    } else {
        char want[SIGV4_SECRET_MAX + 1];
        cr_assert_eq(ret, 0, "case %s: %s", fields[0], err);
        unhex(fields[3], want, sizeof(want));
        cr_assert_str_eq(c.access_key_id, want, "case %s", fields[0]);
        unhex(fields[4], want, sizeof(want));
        cr_assert_str_eq(c.secret_access_key, want, "case %s", fields[0]);
        unhex(fields[5], want, sizeof(want));
        cr_assert_str_eq(c.session_token, want, "case %s", fields[0]);
    }
    char region[64];
    ret = sigv4_region_load(name, region, sizeof(region), source, sizeof(source), err, sizeof(err));
    if (strcmp(fields[6], "ERR") == 0) {
        cr_assert_neq(ret, 0, "case %s: botocore finds no region; ours %s from %s", fields[0],
                      region, source);
    } else {
        char want[64];
        cr_assert_eq(ret, 0, "case %s: %s", fields[0], err);
        unhex(fields[6], want, sizeof(want));
        cr_assert_str_eq(region, want, "case %s", fields[0]);
    }
}

Test(sigv4_profiles, files_resolve_as_botocore_resolves_them, .timeout = 120)
{
    if (access("/usr/bin/python3", X_OK) != 0 ||
        system("/usr/bin/python3 -c 'import botocore.session' 2>/dev/null") != 0) {
        cr_skip_test("python3-botocore is not installed (scripts/install-deps.sh)");
    }
    unsetenv("AWS_ACCESS_KEY_ID");
    unsetenv("AWS_PROFILE");
    char dir[] = "/tmp/ringperf-profiles-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char cmd[512];
    snprintf(cmd, sizeof(cmd), ORACLE " %s 20261127 %d", dir, CASES);
    FILE *oracle = popen(cmd, "r");
    cr_assert_not_null(oracle);
    char line[2048];
    size_t cases = 0;
    while (fgets(line, sizeof(line), oracle) != NULL) {
        check_case(dir, line);
        cases++;
    }
    cr_assert_eq(pclose(oracle), 0);
    cr_assert_eq(cases, CASES);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}
