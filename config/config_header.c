/*
 * config_header.c - -H/--header and --extra-inputs values.
 *
 * Both flags accept `key:value` or, as AIPerf does, a JSON object. Headers are
 * split and validated here (a token name, no CR/LF in the value) because a bad
 * header would otherwise corrupt every request. Extra inputs are only checked
 * for shape and kept verbatim; the endpoint module turns them into JSON.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/config_internal.h"

int config__store_header(struct profile_config *cfg, const struct config__occurrence *occ,
                         const char *value, char *errbuf, size_t errcap);
int config__check_extra_input(const struct config__occurrence *occ, const char *value, char *errbuf,
                              size_t errcap);

/* RFC 9110 token characters. */
static bool is_tchar(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

static const char *skip_blanks(const char *s, const char *end)
{
    while (s < end && (*s == ' ' || *s == '\t')) {
        s++;
    }
    return s;
}

static const char *trim_blanks_end(const char *start, const char *end)
{
    while (end > start && (end[-1] == ' ' || end[-1] == '\t')) {
        end--;
    }
    return end;
}

bool config__is_header_name(const char *name, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (!is_tchar((unsigned char)name[i])) {
            return false;
        }
    }
    return len > 0;
}

bool config_header_is_sensitive(const char *name, size_t len)
{
    static const char *const exact[] = {
        "authorization", "proxy-authorization", "cookie",          "x-api-key",
        "api-key",       "x-goog-api-key",      "x-functions-key", "ocp-apim-subscription-key",
        "aeg-sas-key",   "x-amz-security-token"};
    static const char *const parts[] = {"auth",   "token",   "secret", "password",   "api-key",
                                        "apikey", "api_key", "cookie", "credential", "signature"};
    char lower[128];
    if (len >= sizeof(lower)) {
        return true; /* an absurdly long name: err on the side of redacting */
    }
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        lower[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    }
    lower[len] = '\0';
    for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++) {
        if (strcmp(lower, exact[i]) == 0) {
            return true;
        }
    }
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        if (strstr(lower, parts[i]) != NULL) {
            return true;
        }
    }
    return false;
}

/* fail_json reports a JSON value that did not parse (jerr) or is not an object. */
static int fail_json(const struct config__occurrence *occ, const json_error_t *jerr,
                     const char *plain_form, char *errbuf, size_t errcap)
{
    int sl = (int)occ->spelled_len;
    if (jerr != NULL) {
        return config__fail(errbuf, errcap,
                            "%.*s: invalid JSON at line %d, column %d (or use %s, e.g. %.*s %s)",
                            sl, occ->spelled, jerr->line, jerr->column, plain_form, sl,
                            occ->spelled, occ->flag->example);
    }
    return config__fail(errbuf, errcap,
                        "%.*s: the JSON value must be an object (or use %s, e.g. "
                        "%.*s %s)",
                        sl, occ->spelled, plain_form, sl, occ->spelled, occ->flag->example);
}

static int push_header(struct profile_config *cfg, const struct config__occurrence *occ,
                       const char *name, size_t name_len, const char *value, size_t value_len,
                       char *errbuf, size_t errcap)
{
    int sl = (int)occ->spelled_len;
    char shown[80];
    char name_z[96];
    size_t show_len = name_len < sizeof(name_z) - 1 ? name_len : sizeof(name_z) - 1;
    memcpy(name_z, name, show_len);
    name_z[show_len] = '\0';
    if (name_len == 0) {
        return config__fail(errbuf, errcap, "%.*s: the header name is empty (e.g. %.*s %s)", sl,
                            occ->spelled, sl, occ->spelled, occ->flag->example);
    }
    if (!config__is_header_name(name, name_len)) {
        return config__fail(errbuf, errcap,
                            "%.*s: header name '%s' may only contain letters, digits and "
                            "!#$%%&'*+-.^_`|~",
                            sl, occ->spelled, config__show(name_z, shown, sizeof(shown)));
    }
    for (size_t i = 0; i < value_len; i++) {
        unsigned char c = (unsigned char)value[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f) {
            return config__fail(errbuf, errcap,
                                "%.*s: the value of header '%s' contains a control character "
                                "(CR and LF are not allowed)",
                                sl, occ->spelled, config__show(name_z, shown, sizeof(shown)));
        }
    }
    if (name_len + value_len > CONFIG_HEADER_BYTES_MAX) {
        return config__fail(errbuf, errcap, "%.*s: header '%s' is longer than %d bytes", sl,
                            occ->spelled, config__show(name_z, shown, sizeof(shown)),
                            CONFIG_HEADER_BYTES_MAX);
    }
    if (cfg->header_count >= CONFIG_HEADERS_MAX) {
        return config__fail(errbuf, errcap, "%.*s: more than %d headers", sl, occ->spelled,
                            CONFIG_HEADERS_MAX);
    }
    struct config_header *grown = realloc(cfg->headers, (cfg->header_count + 1) * sizeof(*grown));
    if (grown == NULL) {
        return -ENOMEM;
    }
    cfg->headers = grown;
    char *n = strndup(name, name_len);
    char *v = strndup(value, value_len);
    if (n == NULL || v == NULL) {
        free(n);
        free(v);
        return -ENOMEM;
    }
    cfg->headers[cfg->header_count++] = (struct config_header){.name = n, .value = v};
    return 0;
}

static int store_json_headers(struct profile_config *cfg, const struct config__occurrence *occ,
                              const char *value, char *errbuf, size_t errcap)
{
    int sl = (int)occ->spelled_len;
    json_error_t jerr;
    json_t *root = json_loads(value, JSON_REJECT_DUPLICATES, &jerr);
    if (root == NULL || !json_is_object(root)) {
        json_decref(root);
        return fail_json(occ, root == NULL ? &jerr : NULL, "Name:Value", errbuf, errcap);
    }
    int rc = 0;
    const char *key = NULL;
    json_t *item = NULL;
    json_object_foreach(root, key, item)
    {
        if (!json_is_string(item)) {
            rc = config__fail(errbuf, errcap, "%.*s: the JSON value of a header must be a string",
                              sl, occ->spelled);
            break;
        }
        rc = push_header(cfg, occ, key, strlen(key), json_string_value(item),
                         json_string_length(item), errbuf, errcap);
        if (rc != 0) {
            break;
        }
    }
    json_decref(root);
    return rc;
}

int config__store_header(struct profile_config *cfg, const struct config__occurrence *occ,
                         const char *value, char *errbuf, size_t errcap)
{
    const char *end = value + strlen(value);
    const char *start = skip_blanks(value, end);
    if (*start == '{') {
        return store_json_headers(cfg, occ, start, errbuf, errcap);
    }
    const char *colon = strchr(start, ':');
    if (colon == NULL) {
        /* Not echoed: a value without a name may be a bare token or key. */
        int sl = (int)occ->spelled_len;
        return config__fail(errbuf, errcap,
                            "%.*s: a value of %zu characters (not shown: it may be a credential) "
                            "has no ':'; it must be Name:Value (e.g. %.*s %s)",
                            sl, occ->spelled, strlen(value), sl, occ->spelled, occ->flag->example);
    }
    const char *name_end = trim_blanks_end(start, colon);
    const char *v = skip_blanks(colon + 1, end);
    const char *v_end = trim_blanks_end(v, end);
    return push_header(cfg, occ, start, (size_t)(name_end - start), v, (size_t)(v_end - v), errbuf,
                       errcap);
}

int config__check_extra_input(const struct config__occurrence *occ, const char *value, char *errbuf,
                              size_t errcap)
{
    int sl = (int)occ->spelled_len;
    const char *end = value + strlen(value);
    const char *start = skip_blanks(value, end);
    while (start < end && (*start == '\n' || *start == '\r' || *start == ' ')) {
        start++;
    }
    if (*start == '{') {
        json_error_t jerr;
        json_t *root = json_loads(start, 0, &jerr);
        bool ok = root != NULL && json_is_object(root);
        bool parsed = root != NULL;
        json_decref(root);
        return ok ? 0 : fail_json(occ, parsed ? NULL : &jerr, "key:value", errbuf, errcap);
    }
    const char *colon = strchr(start, ':');
    if (colon == NULL || trim_blanks_end(start, colon) == start) {
        char shown[80];
        return config__fail(errbuf, errcap,
                            "%.*s: '%s' must be key:value or a JSON object (e.g. %.*s %s)", sl,
                            occ->spelled, config__show(value, shown, sizeof(shown)), sl,
                            occ->spelled, occ->flag->example);
    }
    return 0;
}
