/*
 * credentials.c - where the signing keys and region come from: the environment, or a profile
 * of the shared credentials file or of the config file, in botocore's order for the sources
 * ringperf reads.
 *
 * Never a flag: a command line is visible to every user of the machine (ps) and is exported
 * in input_config. Messages name the variable, file and profile, never a value.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sigv4/sigv4.h"

/* A credentials file larger than this is not one. */
#define CREDENTIALS_FILE_MAX (1024 * 1024)

static int fail(char *errbuf, size_t errcap, int err, const char *msg)
{
    snprintf(errbuf, errcap, "%s", msg);
    return err;
}

/* set_field copies a value of n bytes into dst (cap bytes with its NUL); false if too long. */
static bool set_field(char *dst, size_t cap, const char *v, size_t n)
{
    if (n >= cap) {
        return false;
    }
    memcpy(dst, v, n);
    dst[n] = '\0';
    return true;
}

static int from_environment(struct sigv4_credentials *out, char *errbuf, size_t errcap)
{
    const char *id = getenv("AWS_ACCESS_KEY_ID");
    const char *secret = getenv("AWS_SECRET_ACCESS_KEY");
    const char *token = getenv("AWS_SESSION_TOKEN");
    if (token == NULL || token[0] == '\0') {
        token = getenv("AWS_SECURITY_TOKEN"); /* the older name botocore still reads */
    }
    if (secret == NULL || secret[0] == '\0') {
        return fail(errbuf, errcap, -EINVAL,
                    "AWS_ACCESS_KEY_ID is set but AWS_SECRET_ACCESS_KEY is not: set both");
    }
    if (!set_field(out->access_key_id, sizeof(out->access_key_id), id, strlen(id)) ||
        !set_field(out->secret_access_key, sizeof(out->secret_access_key), secret,
                   strlen(secret)) ||
        (token != NULL &&
         !set_field(out->session_token, sizeof(out->session_token), token, strlen(token)))) {
        return fail(errbuf, errcap, -EINVAL,
                    "an AWS credential in the environment is longer than ringperf takes");
    }
    return 0;
}

static const char *trim(const char *s, const char *end, const char **out_end)
{
    while (s < end && (*s == ' ' || *s == '\t')) {
        s++;
    }
    while (end > s && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) {
        end--;
    }
    *out_end = end;
    return s;
}

/* take_key stores `key = value` when key is one of the credentials; false if too long. */
static bool take_key(struct sigv4_credentials *out, const char *key, size_t key_len,
                     const char *value, size_t value_len)
{
    struct {
        const char *name;
        char *dst;
        size_t cap;
    } keys[] = {
        {"aws_access_key_id", out->access_key_id, sizeof(out->access_key_id)},
        {"aws_secret_access_key", out->secret_access_key, sizeof(out->secret_access_key)},
        {"aws_session_token", out->session_token, sizeof(out->session_token)},
        {"aws_security_token", out->session_token, sizeof(out->session_token)},
    };
    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        if (strlen(keys[i].name) == key_len && strncasecmp(key, keys[i].name, key_len) == 0) {
            return set_field(keys[i].dst, keys[i].cap, value, value_len);
        }
    }
    return true;
}

/* is_section tells whether the section header `name` (trimmed, n bytes) is profile's: in the
 * credentials file it is the profile's name; in the config file "profile NAME" (any blanks
 * between), and for the default profile "default" as well, as botocore maps them. */
static bool is_section(const char *name, size_t n, const char *profile, bool config)
{
    size_t len = strlen(profile);
    if (!config || (strcmp(profile, "default") == 0 && n == 7 && memcmp(name, "default", 7) == 0)) {
        return n == len && memcmp(name, profile, len) == 0;
    }
    if (n < 8 || memcmp(name, "profile", 7) != 0 || (name[7] != ' ' && name[7] != '\t')) {
        return false;
    }
    const char *rest_end = NULL;
    const char *rest = trim(name + 7, name + n, &rest_end);
    return (size_t)(rest_end - rest) == len && memcmp(rest, profile, len) == 0;
}

/* find_section returns the body (after its header line) of the last section of text that is
 * profile's (botocore keeps the last one), or NULL; *out_end is where that body ends. */
static const char *find_section(const char *text, size_t len, const char *profile, bool config,
                                const char **out_end)
{
    const char *body = NULL;
    for (const char *line = text; line < text + len;) {
        const char *nl = memchr(line, '\n', (size_t)(text + len - line));
        const char *end = nl != NULL ? nl : text + len;
        const char *next = nl != NULL ? nl + 1 : text + len;
        const char *stop = NULL;
        const char *s = trim(line, end, &stop);
        bool header = s == line && s < stop && *s == '[';
        if (header && body != NULL && *out_end == NULL) {
            *out_end = line;
        }
        if (header) {
            const char *name_end = NULL;
            const char *name = trim(s + 1, stop - 1 > s ? stop - 1 : s + 1, &name_end);
            if (stop[-1] == ']' && is_section(name, (size_t)(name_end - name), profile, config)) {
                body = next;
                *out_end = NULL;
            }
        }
        line = next;
    }
    if (body != NULL && *out_end == NULL) {
        *out_end = text + len;
    }
    return body;
}

/* section_value calls take(ctx, key, value) for each `key = value` (or `key: value`) line of
 * a section body (configparser's rules as botocore uses them: '#' and ';' comment lines, keys
 * in any case, indented continuation lines ignored); false as soon as take does. */
static bool section_values(const char *body, const char *end,
                           bool (*take)(void *ctx, const char *key, size_t key_len,
                                        const char *value, size_t value_len),
                           void *ctx)
{
    for (const char *line = body; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        const char *stop_line = nl != NULL ? nl : end;
        const char *next = nl != NULL ? nl + 1 : end;
        bool indented = line < stop_line && (*line == ' ' || *line == '\t');
        const char *stop = NULL;
        const char *s = trim(line, stop_line, &stop);
        line = next;
        const char *sep = s;
        while (sep < stop && *sep != '=' && *sep != ':') {
            sep++;
        }
        if (s == stop || *s == '#' || *s == ';' || indented || sep == stop) {
            continue;
        }
        const char *key_end = NULL;
        const char *value_end = NULL;
        const char *key = trim(s, sep, &key_end);
        const char *value = trim(sep + 1, stop, &value_end);
        if (!take(ctx, key, (size_t)(key_end - key), value, (size_t)(value_end - value))) {
            return false;
        }
    }
    return true;
}

static bool take_credential(void *ctx, const char *key, size_t key_len, const char *value,
                            size_t value_len)
{
    return take_key(ctx, key, key_len, value, value_len);
}

/* parse_profile reads profile's credentials from an INI text. Returns 1 when the section was
 * found, 0 when not, -EINVAL when a value is too long. */
static int parse_profile(const char *text, size_t len, const char *profile, bool config,
                         struct sigv4_credentials *out)
{
    const char *end = NULL;
    const char *body = find_section(text, len, profile, config, &end);
    if (body == NULL) {
        return 0;
    }
    return section_values(body, end, take_credential, out) ? 1 : -EINVAL;
}

static int read_file(const char *path, char **out_text, size_t *out_len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        return -errno;
    }
    char *text = malloc(CREDENTIALS_FILE_MAX);
    size_t n = text != NULL ? fread(text, 1, CREDENTIALS_FILE_MAX, f) : 0;
    bool too_big = text != NULL && n == CREDENTIALS_FILE_MAX && fgetc(f) != EOF;
    int err = text == NULL ? -ENOMEM : ferror(f) ? -EIO : too_big ? -EFBIG : 0;
    fclose(f);
    if (err != 0) {
        free(text);
        return err;
    }
    *out_text = text;
    *out_len = n;
    return 0;
}

bool sigv4_aws_file_path(bool config, char *out, size_t cap)
{
    const char *file = getenv(config ? "AWS_CONFIG_FILE" : "AWS_SHARED_CREDENTIALS_FILE");
    const char *home = getenv("HOME");
    if (file != NULL && file[0] != '\0') {
        snprintf(out, cap, "%s", file);
        return true;
    }
    if (home == NULL || home[0] == '\0') {
        return false;
    }
    snprintf(out, cap, "%s/.aws/%s", home, config ? "config" : "credentials");
    return true;
}

/* load_section reads profile's credentials from one file. Returns 1 (found; source set), 0
 * (the file or the section is not there: *read_err says which), or -EINVAL with a message. */
static int load_section(const char *profile, bool config, struct sigv4_credentials *out,
                        char *source, size_t source_cap, int *read_err, char *errbuf, size_t errcap)
{
    char path[4096];
    *read_err = -ENOENT;
    if (!sigv4_aws_file_path(config, path, sizeof(path))) {
        return 0;
    }
    char *text = NULL;
    size_t len = 0;
    *read_err = read_file(path, &text, &len);
    if (*read_err != 0) {
        return 0;
    }
    int found = parse_profile(text, len, profile, config, out);
    explicit_bzero(text, len); /* it held the secret */
    free(text);
    if (found == 0) {
        return 0;
    }
    if (found < 0 || out->access_key_id[0] == '\0' || out->secret_access_key[0] == '\0') {
        snprintf(errbuf, errcap,
                 "AWS profile '%s' in %s %s (fix the file, or pick another "
                 "--aws-profile)",
                 profile, path,
                 found < 0 ? "holds a credential longer than ringperf takes"
                           : "lacks aws_access_key_id or aws_secret_access_key");
        *out = (struct sigv4_credentials){0};
        return -EINVAL;
    }
    snprintf(source, source_cap, "%s [%s%s]", path, config ? "profile " : "", profile);
    return 1;
}

/* from_files reads profile's credentials from the shared credentials file, else from the
 * config file's section of the profile, botocore's order. */
static int from_files(const char *profile, struct sigv4_credentials *out, char *source,
                      size_t source_cap, char *errbuf, size_t errcap)
{
    int creds_err = 0;
    int config_err = 0;
    int found = load_section(profile, false, out, source, source_cap, &creds_err, errbuf, errcap);
    if (found == 0) {
        found = load_section(profile, true, out, source, source_cap, &config_err, errbuf, errcap);
    }
    if (found > 0) {
        return 0;
    }
    if (found < 0) {
        return found;
    }
    char why[2][4200];
    for (int config = 0; config < 2; config++) {
        char path[4096] = "~/.aws/credentials";
        if (config) {
            snprintf(path, sizeof(path), "~/.aws/config");
        }
        sigv4_aws_file_path(config, path, sizeof(path));
        int err = config ? config_err : creds_err;
        snprintf(why[config], sizeof(why[config]), err != 0 ? "%s: %s" : "%s has no such section",
                 path, err != 0 ? strerror(-err) : "");
    }
    snprintf(errbuf, errcap,
             "no AWS credentials for profile '%s' (%s; %s): set AWS_ACCESS_KEY_ID and "
             "AWS_SECRET_ACCESS_KEY, or AWS_SHARED_CREDENTIALS_FILE, or pick another --aws-profile",
             profile, why[0], why[1]);
    return creds_err != 0 && config_err != 0 ? -ENOENT : -EINVAL;
}

/* resolve_profile is the profile botocore uses: the one named, else $AWS_PROFILE, else
 * "default". */
static const char *resolve_profile(const char *profile)
{
    if (profile == NULL) {
        profile = getenv("AWS_PROFILE");
    }
    return profile == NULL || profile[0] == '\0' ? "default" : profile;
}

/* region_value keeps the section's "region" into the struct region_out ctx. */
struct region_out {
    char *dst;
    size_t cap;
    bool too_long;
};

static bool take_region(void *ctx, const char *key, size_t key_len, const char *value,
                        size_t value_len)
{
    struct region_out *r = ctx;
    if (key_len == 6 && strncasecmp(key, "region", 6) == 0 &&
        !set_field(r->dst, r->cap, value, value_len)) {
        r->too_long = true;
        return false;
    }
    return true;
}

/* region_from reads `region` from profile's section of the credentials file (config false) or
 * the config file into r; *err is the file's read status; path is where it looked. */
static void region_from(bool config, const char *profile, struct region_out *r, char *path,
                        size_t path_cap, int *err)
{
    char *text = NULL;
    size_t len = 0;
    path[0] = '\0';
    *err = sigv4_aws_file_path(config, path, path_cap) ? read_file(path, &text, &len) : -ENOENT;
    if (*err != 0) {
        return;
    }
    const char *end = NULL;
    const char *body = find_section(text, len, profile, config, &end);
    if (body != NULL) {
        section_values(body, end, take_region, r);
    }
    explicit_bzero(text, len); /* a credentials file holds secrets */
    free(text);
}

int sigv4_region_load(const char *profile, char *out, size_t cap, char *source, size_t source_cap,
                      char *errbuf, size_t errcap)
{
    const char *env = getenv("AWS_DEFAULT_REGION");
    out[0] = '\0';
    if (env != NULL && env[0] != '\0') {
        snprintf(source, source_cap, "AWS_DEFAULT_REGION");
        if (!set_field(out, cap, env, strlen(env))) {
            return fail(errbuf, errcap, -EINVAL, "AWS_DEFAULT_REGION is too long for a region");
        }
        return 0;
    }
    profile = resolve_profile(profile);
    /* botocore lays the credentials file's section over the config file's: its region wins. */
    char path[4096];
    int err = 0;
    struct region_out r = {.dst = out, .cap = cap};
    for (int config = 0; config < 2 && out[0] == '\0' && !r.too_long; config++) {
        region_from(config, profile, &r, path, sizeof(path), &err);
        if (out[0] != '\0') {
            snprintf(source, source_cap, "%s [%s%s]", path,
                     config && strcmp(profile, "default") != 0 ? "profile " : "", profile);
        }
    }
    if (out[0] == '\0' || r.too_long) {
        out[0] = '\0';
        snprintf(errbuf, errcap,
                 "no AWS region: give --aws-region, or set AWS_DEFAULT_REGION, or `region` in "
                 "profile '%s' of %s (%s)",
                 profile, path[0] == '\0' ? "~/.aws/config" : path,
                 r.too_long ? "too long"
                 : err != 0 ? strerror(-err)
                            : "not set there");
        return -ENOENT;
    }
    return 0;
}

int sigv4_credentials_load(const char *profile, struct sigv4_credentials *out, char *source,
                           size_t source_cap, char *errbuf, size_t errcap)
{
    *out = (struct sigv4_credentials){0};
    const char *id = getenv("AWS_ACCESS_KEY_ID");
    /* botocore: a profile named explicitly overrides the environment's keys. */
    if (profile == NULL && id != NULL && id[0] != '\0') {
        snprintf(source, source_cap, "the environment (AWS_ACCESS_KEY_ID)");
        return from_environment(out, errbuf, errcap);
    }
    return from_files(resolve_profile(profile), out, source, source_cap, errbuf, errcap);
}
