/*
 * config_cmdline.c - the run's command line as AIPerf records it in
 * run_info.cli_command: re-joined with shell quoting, secrets redacted.
 *
 * Redaction follows AIPerf's common/redact.py: --api-key values, credential
 * header values (Authorization, X-Api-Key, Cookie, ...), URL userinfo and
 * credential query parameters become <redacted>. Walking the same flag
 * occurrences as the parser means a value is redacted because of the flag it
 * belongs to, not because of how it happens to look.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dynbuf/dynbuf.h"
#include "config/config_internal.h"

#define CONFIG__CLI_PROGRAM "ringperf profile"
#define CONFIG__TRUNCATED " [truncated]"

/* text_builder is the command line as it is built: a capped buffer that stops taking pieces
 * once one did not fit (truncated) or memory ran out (oom). */
struct text_builder {
    struct dynbuf text;
    bool truncated;
    bool oom;
};

static void put(struct text_builder *b, const char *s, size_t n)
{
    if (b->oom || b->truncated) {
        return;
    }
    int ret = dynbuf_put(&b->text, s, n);
    b->truncated = ret == -E2BIG;
    b->oom = ret == -ENOMEM;
}

static void put_str(struct text_builder *b, const char *s)
{
    put(b, s, strlen(s));
}

/* put_quoted writes s in single quotes, each ' as '\''. */
static void put_quoted(struct text_builder *b, const char *s, size_t n)
{
    put(b, "'", 1);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\'') {
            put_str(b, "'\\''");
        } else {
            put(b, s + i, 1);
        }
    }
    put(b, "'", 1);
}

/* is_number: AIPerf prints values that coerce to numbers without quotes. */
static bool is_number(const char *s)
{
    if (*s == '\0' || strspn(s, "0123456789.+-eE") != strlen(s)) {
        return false;
    }
    char *end = NULL;
    (void)strtod(s, &end);
    return end != NULL && *end == '\0' && end != s;
}

static bool json_has_sensitive_key(const char *s)
{
    json_t *root = json_loads(s, 0, NULL);
    bool sensitive = root == NULL; /* unparseable: cannot tell, so redact */
    const char *key = NULL;
    json_t *item = NULL;
    json_object_foreach(root, key, item)
    {
        (void)item;
        sensitive = sensitive || config_header_is_sensitive(key, strlen(key));
    }
    json_decref(root);
    return sensitive;
}

static void put_header_value(struct text_builder *b, const char *v)
{
    const char *start = v + strspn(v, " \t");
    if (*start == '{') {
        if (json_has_sensitive_key(start)) {
            put_quoted(b, CONFIG_REDACTED, strlen(CONFIG_REDACTED));
        } else {
            put_quoted(b, v, strlen(v));
        }
        return;
    }
    const char *colon = strchr(start, ':');
    size_t name_len = colon != NULL ? (size_t)(colon - start) : 0;
    while (name_len > 0 && (start[name_len - 1] == ' ' || start[name_len - 1] == '\t')) {
        name_len--;
    }
    if (colon == NULL || !config_header_is_sensitive(start, name_len)) {
        put_quoted(b, v, strlen(v));
        return;
    }
    char redacted[CONFIG_HEADER_BYTES_MAX + 32];
    size_t keep = (size_t)(colon + 1 - v);
    keep += strspn(colon + 1, " \t");
    if (keep > CONFIG_HEADER_BYTES_MAX) {
        keep = CONFIG_HEADER_BYTES_MAX;
    }
    memcpy(redacted, v, keep);
    memcpy(redacted + keep, CONFIG_REDACTED, sizeof(CONFIG_REDACTED));
    put_quoted(b, redacted, strlen(redacted));
}

static void put_value(struct text_builder *b, const struct config__flag *flag, const char *v)
{
    if ((flag->traits & CONFIG__T_SECRET) != 0) {
        put_quoted(b, CONFIG_REDACTED, strlen(CONFIG_REDACTED));
    } else if ((flag->traits & CONFIG__T_HEADER) != 0) {
        put_header_value(b, v);
    } else if ((flag->traits & CONFIG__T_URL) != 0) {
        size_t cap = strlen(v) + 64;
        char *redacted = malloc(cap);
        if (redacted == NULL) {
            b->oom = true;
            return;
        }
        if (!config_redact_url(v, redacted, cap)) {
            snprintf(redacted, cap, "%s", CONFIG_REDACTED);
        }
        put_quoted(b, redacted, strlen(redacted));
        free(redacted);
    } else if (is_number(v)) {
        put_str(b, v);
    } else {
        put_quoted(b, v, strlen(v));
    }
}

char *config__build_cli_command(int argc, char **argv)
{
    struct text_builder b = {0};
    /* Room is kept for the marker a cut line ends with. */
    dynbuf_init(&b.text, CONFIG_CLI_COMMAND_BYTES_MAX - sizeof(CONFIG__TRUNCATED));
    struct config__occurrence occ;
    int pos = 0;
    put_str(&b, CONFIG__CLI_PROGRAM);
    while (config__next_occurrence(argc, argv, &pos, &occ, NULL, 0) == 1) {
        put(&b, " ", 1);
        put(&b, occ.spelled, occ.spelled_len);
        if (occ.inline_value != NULL) {
            put(&b, "=", 1);
            put_value(&b, occ.flag, occ.inline_value);
        }
        for (int i = 0; i < occ.value_count; i++) {
            put(&b, " ", 1);
            put_value(&b, occ.flag, argv[occ.value_first + i]);
        }
    }
    if (b.truncated) {
        b.truncated = false;
        b.text.len_max += sizeof(CONFIG__TRUNCATED) - 1;
        put_str(&b, CONFIG__TRUNCATED);
    }
    if (b.oom) {
        dynbuf_free(&b.text);
        return NULL;
    }
    return b.text.p;
}

/* sensitive_param reports query parameter names that carry credentials. */
static bool sensitive_param(const char *name, size_t len)
{
    static const char *const names[] = {"api_key",
                                        "api-key",
                                        "apikey",
                                        "key",
                                        "token",
                                        "access_token",
                                        "access-token",
                                        "auth_token",
                                        "auth-token",
                                        "id_token",
                                        "refresh_token",
                                        "secret",
                                        "client_secret",
                                        "password",
                                        "passwd",
                                        "credential",
                                        "sig",
                                        "signature",
                                        "x-amz-signature",
                                        "x-amz-security-token",
                                        "x-amz-credential",
                                        "x-goog-signature",
                                        "x-goog-credential"};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (strlen(names[i]) == len && strncasecmp(name, names[i], len) == 0) {
            return true;
        }
    }
    return false;
}

static bool out_put(char *out, size_t cap, size_t *used, const char *s, size_t n)
{
    if (n >= cap - *used) {
        return false;
    }
    memcpy(out + *used, s, n);
    *used += n;
    out[*used] = '\0';
    return true;
}

static bool redact_query(const char *q, char *out, size_t cap, size_t *used)
{
    const char *p = q;
    while (*p != '\0' && *p != '#') {
        size_t len = strcspn(p, "&#");
        const char *eq = memchr(p, '=', len);
        bool ok = eq != NULL && sensitive_param(p, (size_t)(eq - p))
                      ? out_put(out, cap, used, p, (size_t)(eq + 1 - p)) &&
                            out_put(out, cap, used, CONFIG_REDACTED, strlen(CONFIG_REDACTED))
                      : out_put(out, cap, used, p, len);
        if (!ok) {
            return false;
        }
        p += len;
        if (*p == '&' && !out_put(out, cap, used, "&", 1)) {
            return false;
        }
        p += *p == '&';
    }
    return out_put(out, cap, used, p, strlen(p));
}

bool config_redact_url(const char *url, char *out, size_t cap)
{
    size_t used = 0;
    if (cap == 0) {
        return false;
    }
    out[0] = '\0';
    const char *rest = url;
    const char *sep = strstr(url, "://");
    if (sep != NULL && strcspn(url, "/?#") > (size_t)(sep - url)) {
        rest = sep + 3;
    }
    if (!out_put(out, cap, &used, url, (size_t)(rest - url))) {
        return false;
    }
    size_t authority_len = strcspn(rest, "/?#");
    const char *at = memrchr(rest, '@', authority_len);
    if (at != NULL) {
        if (!out_put(out, cap, &used, CONFIG_REDACTED, strlen(CONFIG_REDACTED))) {
            return false;
        }
        rest = at;
    }
    size_t before_query = strcspn(rest, "?#");
    if (!out_put(out, cap, &used, rest, before_query)) {
        return false;
    }
    rest += before_query;
    if (*rest != '?') {
        return out_put(out, cap, &used, rest, strlen(rest));
    }
    return out_put(out, cap, &used, "?", 1) && redact_query(rest + 1, out, cap, &used);
}
