/*
 * credentials.c - where the signing keys come from: the environment, or a profile of the
 * shared credentials file, in botocore's order for the two sources ringperf reads.
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

/* parse_profile reads profile's section of an INI text (configparser's rules as botocore
 * uses them: '#' and ';' comment lines, `key = value` or `key: value`, keys in any case,
 * indented continuation lines ignored). Returns 1 when the section was found, 0 when not,
 * -EINVAL when a value is too long. */
static int parse_profile(const char *text, size_t len, const char *profile,
                         struct sigv4_credentials *out)
{
    bool inside = false;
    bool found = false;
    for (const char *line = text; line < text + len;) {
        const char *nl = memchr(line, '\n', (size_t)(text + len - line));
        const char *end = nl != NULL ? nl : text + len;
        const char *next = nl != NULL ? nl + 1 : text + len;
        bool indented = line < end && (*line == ' ' || *line == '\t');
        const char *stop = NULL;
        const char *s = trim(line, end, &stop);
        line = next;
        if (s == stop || *s == '#' || *s == ';' || indented) {
            continue;
        }
        if (*s == '[') {
            const char *name_end = NULL;
            const char *name = trim(s + 1, stop - 1 > s ? stop - 1 : s + 1, &name_end);
            inside = stop[-1] == ']' && (size_t)(name_end - name) == strlen(profile) &&
                     memcmp(name, profile, strlen(profile)) == 0;
            found = found || inside;
            continue;
        }
        const char *sep = s;
        while (sep < stop && *sep != '=' && *sep != ':') {
            sep++;
        }
        if (!inside || sep == stop) {
            continue;
        }
        const char *key_end = NULL;
        const char *value_end = NULL;
        const char *key = trim(s, sep, &key_end);
        const char *value = trim(sep + 1, stop, &value_end);
        if (!take_key(out, key, (size_t)(key_end - key), value, (size_t)(value_end - value))) {
            return -EINVAL;
        }
    }
    return found ? 1 : 0;
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

static int from_file(const char *profile, struct sigv4_credentials *out, char *source,
                     size_t source_cap, char *errbuf, size_t errcap)
{
    char path[4096];
    const char *file = getenv("AWS_SHARED_CREDENTIALS_FILE");
    const char *home = getenv("HOME");
    if (file == NULL || file[0] == '\0') {
        if (home == NULL || home[0] == '\0') {
            return fail(errbuf, errcap, -ENOENT,
                        "no AWS credentials: AWS_ACCESS_KEY_ID is not set, and neither HOME nor "
                        "AWS_SHARED_CREDENTIALS_FILE says where a credentials file is");
        }
        snprintf(path, sizeof(path), "%s/.aws/credentials", home);
        file = path;
    }
    char *text = NULL;
    size_t len = 0;
    int err = read_file(file, &text, &len);
    if (err != 0) {
        snprintf(errbuf, errcap,
                 "no AWS credentials for profile '%s': cannot read %s: %s (set "
                 "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or AWS_SHARED_CREDENTIALS_FILE)",
                 profile, file, strerror(-err));
        return err;
    }
    int found = parse_profile(text, len, profile, out);
    explicit_bzero(text, len); /* it held the secret */
    free(text);
    if (found <= 0 || out->access_key_id[0] == '\0' || out->secret_access_key[0] == '\0') {
        const char *why = found < 0    ? "holds a credential longer than ringperf takes"
                          : found == 0 ? "has no such section"
                                       : "lacks aws_access_key_id or aws_secret_access_key";
        snprintf(errbuf, errcap,
                 "AWS profile '%s' in %s %s (fix the file, or pick another "
                 "--aws-profile)",
                 profile, file, why);
        return -EINVAL;
    }
    snprintf(source, source_cap, "%s [%s]", file, profile);
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
    if (profile == NULL) {
        profile = getenv("AWS_PROFILE");
    }
    if (profile == NULL || profile[0] == '\0') {
        profile = "default";
    }
    return from_file(profile, out, source, source_cap, errbuf, errcap);
}
