/*
 * config_url.c - endpoint types and turning --url plus the endpoint into a target.
 *
 * The rules are AIPerf's: http:// is prepended when there is no scheme, the
 * endpoint type's path is appended (its /v1 dropped when the base path already
 * ends in /v1), a custom endpoint replaces that path verbatim, and the base
 * URL's query string is kept. Everything is checked here, once, at start-up, so
 * the HTTP client can copy host and path into requests without re-validating.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "config/config_internal.h"

struct endpoint_info {
    const char *name;
    const char *path;
    bool streams;
    bool tokens;
};

static const struct endpoint_info endpoints[CONFIG_ENDPOINT_COUNT] = {
    [CONFIG_ENDPOINT_CHAT] = {"chat", "/v1/chat/completions", true, true},
    [CONFIG_ENDPOINT_COMPLETIONS] = {"completions", "/v1/completions", true, true},
    [CONFIG_ENDPOINT_RESPONSES] = {"responses", "/v1/responses", true, true},
    [CONFIG_ENDPOINT_MESSAGES] = {"messages", "/v1/messages", true, true},
    [CONFIG_ENDPOINT_EMBEDDINGS] = {"embeddings", "/v1/embeddings", false, false},
    [CONFIG_ENDPOINT_CHAT_EMBEDDINGS] = {"chat_embeddings", "/v1/embeddings", false, false},
    [CONFIG_ENDPOINT_NIM_EMBEDDINGS] = {"nim_embeddings", "/v1/embeddings", false, false},
    [CONFIG_ENDPOINT_NIM_RANKINGS] = {"nim_rankings", "/v1/ranking", false, false},
    [CONFIG_ENDPOINT_COHERE_RANKINGS] = {"cohere_rankings", "/v2/rerank", false, false},
    [CONFIG_ENDPOINT_HF_TEI_RANKINGS] = {"hf_tei_rankings", "/rerank", false, false},
    [CONFIG_ENDPOINT_HUGGINGFACE_GENERATE] = {"huggingface_generate", "/generate", true, true},
    [CONFIG_ENDPOINT_IMAGE_GENERATION] = {"image_generation", "/v1/images/generations", true,
                                          false},
    [CONFIG_ENDPOINT_IMAGE_EDIT] = {"image_edit", "/v1/images/edits", false, false},
    [CONFIG_ENDPOINT_VIDEO_GENERATION] = {"video_generation", "/v1/videos", false, false},
    [CONFIG_ENDPOINT_IMAGE_RETRIEVAL] = {"image_retrieval", "/v1/infer", false, false},
    [CONFIG_ENDPOINT_AUDIO_TRANSCRIPTION] = {"audio_transcription", "/v1/audio/transcriptions",
                                             false, false},
    [CONFIG_ENDPOINT_SOLIDO_RAG] = {"solido_rag", "/rag/api/prompt", true, true},
    [CONFIG_ENDPOINT_RAW] = {"raw", "", true, true},
    [CONFIG_ENDPOINT_TEMPLATE] = {"template", "", true, true},
    [CONFIG_ENDPOINT_SGLANG_GENERATE] = {"sglang_generate", "/generate", true, true},
    [CONFIG_ENDPOINT_VLLM_GENERATE] = {"vllm_generate", "/inference/v1/generate", false, true},
};

static bool valid_type(enum config_endpoint_type type)
{
    return (unsigned)type < CONFIG_ENDPOINT_COUNT;
}

const char *config_endpoint_type_name(enum config_endpoint_type type)
{
    return valid_type(type) ? endpoints[type].name : "unknown";
}

const char *config_endpoint_default_path(enum config_endpoint_type type)
{
    return valid_type(type) ? endpoints[type].path : "";
}

bool config_endpoint_supports_streaming(enum config_endpoint_type type)
{
    return valid_type(type) && endpoints[type].streams;
}

bool config_endpoint_produces_tokens(enum config_endpoint_type type)
{
    return valid_type(type) && endpoints[type].tokens;
}

/* url_parts are views into the --url string. */
struct url_parts {
    const char *scheme; /* NULL when absent */
    size_t scheme_len;
    const char *userinfo; /* NULL when absent */
    size_t userinfo_len;
    const char *host;
    size_t host_len;
    bool host_is_ipv6;
    const char *port; /* NULL when absent */
    size_t port_len;
    const char *path;
    size_t path_len;
    const char *query; /* after '?', NULL when absent */
    size_t query_len;
};

static void split_url(const char *url, struct url_parts *u)
{
    memset(u, 0, sizeof(*u));
    const char *rest = url;
    const char *sep = strstr(url, "://");
    if (sep != NULL && strcspn(url, "/?#") > (size_t)(sep - url)) {
        u->scheme = url;
        u->scheme_len = (size_t)(sep - url);
        rest = sep + 3;
    }
    size_t authority_len = strcspn(rest, "/?#");
    const char *at = memrchr(rest, '@', authority_len);
    if (at != NULL) {
        u->userinfo = rest;
        u->userinfo_len = (size_t)(at - rest);
        authority_len -= (size_t)(at + 1 - rest);
        rest = at + 1;
    }
    u->host = rest;
    u->host_len = authority_len;
    const char *close = rest[0] == '[' ? memchr(rest, ']', authority_len) : NULL;
    const char *colon = close != NULL ? (close + 1 < rest + authority_len ? close + 1 : NULL)
                                      : memchr(rest, ':', authority_len);
    if (close != NULL) {
        u->host = rest + 1;
        u->host_len = (size_t)(close - rest - 1);
        u->host_is_ipv6 = true;
    }
    if (colon != NULL && *colon == ':') {
        u->port = colon + 1;
        u->port_len = (size_t)(rest + authority_len - u->port);
        if (close == NULL) {
            u->host_len = (size_t)(colon - rest);
        }
    } else if (colon != NULL) {
        u->host_len = SIZE_MAX; /* junk after "]" */
    }
    const char *p = rest + authority_len;
    u->path = p;
    u->path_len = strcspn(p, "?#");
    if (p[u->path_len] == '?') {
        u->query = p + u->path_len + 1;
        u->query_len = strcspn(u->query, "#");
    }
}

static bool valid_host(const struct url_parts *u)
{
    if (u->host_len == 0 || u->host_len > CONFIG_HOST_BYTES_MAX) {
        return false;
    }
    const char *allowed = u->host_is_ipv6 ? "0123456789abcdefABCDEF:." : NULL;
    for (size_t i = 0; i < u->host_len; i++) {
        unsigned char c = (unsigned char)u->host[i];
        bool ok = allowed != NULL ? strchr(allowed, c) != NULL
                                  : ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
                                     (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_');
        if (!ok || c == '\0') {
            return false;
        }
    }
    return true;
}

static bool parse_port(const struct url_parts *u, uint16_t *out)
{
    if (u->port_len == 0 || u->port_len > 5) {
        return false;
    }
    unsigned v = 0;
    for (size_t i = 0; i < u->port_len; i++) {
        if (u->port[i] < '0' || u->port[i] > '9') {
            return false;
        }
        v = v * 10 + (unsigned)(u->port[i] - '0');
    }
    if (v == 0 || v > 65535) {
        return false;
    }
    *out = (uint16_t)v;
    return true;
}

bool config__visible_ascii(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= 0x20 || c >= 0x7f) {
            return false;
        }
    }
    return true;
}

/* append copies len bytes of s at *used; false when it would overflow. */
static bool append(char *dst, size_t cap, size_t *used, const char *s, size_t len)
{
    if (len >= cap - *used) {
        return false;
    }
    memcpy(dst + *used, s, len);
    *used += len;
    dst[*used] = '\0';
    return true;
}

static int check_scheme(const char *shown, const struct url_parts *u, struct config_target *out,
                        char *errbuf, size_t errcap)
{
    out->scheme = CONFIG_SCHEME_HTTP;
    out->port = 80;
    if (u->scheme == NULL || (u->scheme_len == 4 && strncasecmp(u->scheme, "http", 4) == 0)) {
        return 0;
    }
    if (u->scheme_len == 5 && strncasecmp(u->scheme, "https", 5) == 0) {
        out->scheme = CONFIG_SCHEME_HTTPS;
        out->port = 443;
        return 0;
    }
    return config__fail(errbuf, errcap,
                        "--url '%s': scheme '%.*s' is not supported; use http:// or https://",
                        shown, (int)(u->scheme_len > 20 ? 20 : u->scheme_len), u->scheme);
}

static int fill_authority(const char *shown, const struct url_parts *u, struct config_target *out,
                          char *errbuf, size_t errcap)
{
    if (!valid_host(u)) {
        return config__fail(errbuf, errcap, "--url '%s': missing or invalid host name", shown);
    }
    if (u->port != NULL && !parse_port(u, &out->port)) {
        return config__fail(errbuf, errcap, "--url '%s': the port must be a number from 1 to 65535",
                            shown);
    }
    if (u->userinfo_len > CONFIG_USERINFO_BYTES_MAX ||
        !config__visible_ascii(u->userinfo, u->userinfo_len)) {
        return config__fail(errbuf, errcap, "--url '%s': invalid user:password part", shown);
    }
    memcpy(out->userinfo, u->userinfo != NULL ? u->userinfo : "", u->userinfo_len);
    out->userinfo[u->userinfo_len] = '\0';
    memcpy(out->host, u->host, u->host_len);
    out->host[u->host_len] = '\0';
    uint16_t default_port = out->scheme == CONFIG_SCHEME_HTTPS ? 443 : 80;
    const char *open = u->host_is_ipv6 ? "[" : "";
    const char *close = u->host_is_ipv6 ? "]" : "";
    if (out->port != default_port) {
        snprintf(out->authority, sizeof(out->authority), "%s%s%s:%u", open, out->host, close,
                 (unsigned)out->port);
    } else {
        snprintf(out->authority, sizeof(out->authority), "%s%s%s", open, out->host, close);
    }
    return 0;
}

/* endpoint_path picks the path appended to the base path (see config.h). */
static const char *endpoint_path(const struct url_parts *u, size_t base_len,
                                 enum config_endpoint_type type, const char *custom, bool streaming,
                                 bool *out_needs_slash)
{
    *out_needs_slash = false;
    if (custom != NULL) {
        while (*custom == '/') {
            custom++;
        }
        *out_needs_slash = *custom != '\0';
        return custom;
    }
    const char *path = endpoints[type].path;
    if (type == CONFIG_ENDPOINT_HUGGINGFACE_GENERATE && streaming) {
        path = "/generate_stream";
    }
    if (base_len >= 3 && memcmp(u->path + base_len - 3, "/v1", 3) == 0 &&
        strncmp(path, "/v1/", 4) == 0) {
        path += 3;
    }
    return path;
}

static int fill_path(const char *shown, const struct url_parts *u, enum config_endpoint_type type,
                     const char *custom, bool streaming, struct config_target *out, char *errbuf,
                     size_t errcap)
{
    size_t base_len = u->path_len;
    while (base_len > 0 && u->path[base_len - 1] == '/') {
        base_len--;
    }
    bool slash = false;
    const char *ep = endpoint_path(u, base_len, type, custom, streaming, &slash);
    size_t used = 0;
    bool ep_has_query = strchr(ep, '?') != NULL;
    bool fits = append(out->path, sizeof(out->path), &used, u->path, base_len) &&
                append(out->path, sizeof(out->path), &used, "/", slash ? 1 : 0) &&
                append(out->path, sizeof(out->path), &used, ep, strlen(ep)) &&
                (used > 0 || append(out->path, sizeof(out->path), &used, "/", 1));
    if (fits && u->query != NULL && u->query_len > 0) {
        fits = append(out->path, sizeof(out->path), &used, ep_has_query ? "&" : "?", 1) &&
               append(out->path, sizeof(out->path), &used, u->query, u->query_len);
    }
    if (!fits) {
        return config__fail(errbuf, errcap, "--url '%s': the request path is longer than %d bytes",
                            shown, CONFIG_PATH_BYTES_MAX);
    }
    if (!config__visible_ascii(ep, strlen(ep))) {
        return config__fail(errbuf, errcap,
                            "--endpoint: the path may not contain spaces or control characters; "
                            "percent-encode them (e.g. %%20)");
    }
    if (!config__visible_ascii(out->path, used)) {
        return config__fail(errbuf, errcap,
                            "--url '%s': the path may not contain spaces or control characters; "
                            "percent-encode them (e.g. %%20)",
                            shown);
    }
    return 0;
}

int config__resolve(const char *base, enum config_endpoint_type type, const char *custom,
                    bool streaming, struct config_target *out, char *errbuf, size_t errcap)
{
    char shown[128];
    char redacted[256];
    memset(out, 0, sizeof(*out));
    if (!valid_type(type)) {
        return config__fail(errbuf, errcap, "internal error: bad endpoint type %d", (int)type);
    }
    if (!config_redact_url(base, redacted, sizeof(redacted))) {
        snprintf(redacted, sizeof(redacted), "%s", "(long URL)");
    }
    config__show(redacted, shown, sizeof(shown));
    struct url_parts u;
    split_url(base, &u);
    int rc = check_scheme(shown, &u, out, errbuf, errcap);
    if (rc == 0) {
        rc = fill_authority(shown, &u, out, errbuf, errcap);
    }
    if (rc == 0) {
        rc = fill_path(shown, &u, type, custom, streaming, out, errbuf, errcap);
    }
    if (rc != 0) {
        memset(out, 0, sizeof(*out));
    }
    return rc;
}

int config_resolve_url(const struct profile_config *cfg, size_t url_index,
                       struct config_target *out, char *errbuf, size_t errcap)
{
    if (cfg == NULL || out == NULL || url_index >= cfg->urls.count) {
        return config__fail(errbuf, errcap, "--url: no URL number %zu", url_index);
    }
    return config__resolve(cfg->urls.items[url_index], cfg->endpoint_type, cfg->custom_endpoint,
                           cfg->streaming, out, errbuf, errcap);
}

int config__proxy_url(const char *variable, const char *url, struct config_proxy *out,
                      char *out_userinfo, char *errbuf, size_t errcap)
{
    char shown[128];
    char redacted[256];
    if (!config_redact_url(url, redacted, sizeof(redacted))) {
        snprintf(redacted, sizeof(redacted), "%s", "(long URL)");
    }
    if (strchr(redacted, '@') != NULL) {
        /* An '@' the redactor did not see as userinfo (say, a '/' in the password) may
         * still guard a secret: show nothing of the URL. */
        snprintf(redacted, sizeof(redacted), "%s", CONFIG_REDACTED);
    }
    config__show(redacted, shown, sizeof(shown));
    struct url_parts u;
    split_url(url, &u);
    if (u.scheme != NULL && !(u.scheme_len == 4 && strncasecmp(u.scheme, "http", 4) == 0)) {
        return config__fail(errbuf, errcap,
                            "%s '%s': proxy scheme '%.*s' is not supported; use an http:// proxy "
                            "(it tunnels https:// targets with CONNECT)",
                            variable, shown, (int)(u.scheme_len > 20 ? 20 : u.scheme_len),
                            u.scheme);
    }
    if (!valid_host(&u)) {
        return config__fail(errbuf, errcap, "%s '%s': missing or invalid proxy host name", variable,
                            shown);
    }
    out->port = 1080;
    if (u.port != NULL && !parse_port(&u, &out->port)) {
        return config__fail(errbuf, errcap, "%s '%s': the port must be a number from 1 to 65535",
                            variable, shown);
    }
    if ((u.path_len > 1 || (u.path_len == 1 && u.path[0] != '/')) || u.query != NULL) {
        return config__fail(errbuf, errcap, "%s '%s': a proxy URL has no path or query", variable,
                            shown);
    }
    if (u.userinfo_len > CONFIG_USERINFO_BYTES_MAX ||
        !config__visible_ascii(u.userinfo, u.userinfo_len)) {
        return config__fail(errbuf, errcap, "%s '%s': invalid user:password part", variable, shown);
    }
    memcpy(out_userinfo, u.userinfo != NULL ? u.userinfo : "", u.userinfo_len);
    out_userinfo[u.userinfo_len] = '\0';
    memcpy(out->host, u.host, u.host_len);
    out->host[u.host_len] = '\0';
    snprintf(out->authority, sizeof(out->authority), "%s%s%s:%u", u.host_is_ipv6 ? "[" : "",
             out->host, u.host_is_ipv6 ? "]" : "", (unsigned)out->port);
    return 0;
}

int config_resolve_metrics_url(const char *url, const char *flag, struct config_target *out,
                               char *errbuf, size_t errcap)
{
    int rc = config__resolve(url, CONFIG_ENDPOINT_CHAT, "", false, out, errbuf, errcap);
    if (rc != 0) {
        /* The messages name --url, whose rules these are; say which flag gave the URL. */
        char msg[512];
        snprintf(msg, sizeof(msg), "%s", errbuf);
        const char *rest = strncmp(msg, "--url", 5) == 0 ? msg + 5 : msg;
        return config__fail(errbuf, errcap, "%s%s%s", flag, rest == msg ? ": " : "", rest);
    }
    char query[CONFIG_PATH_BYTES_MAX + 1] = "";
    char *q = strchr(out->path, '?');
    if (q != NULL) {
        snprintf(query, sizeof(query), "%s", q);
        *q = '\0';
    }
    size_t len = strlen(out->path);
    while (len > 0 && out->path[len - 1] == '/') {
        out->path[--len] = '\0';
    }
    const char *metrics = "/metrics";
    bool has = len >= strlen(metrics) && strcmp(out->path + len - strlen(metrics), metrics) == 0;
    char path[CONFIG_PATH_BYTES_MAX + 1];
    int n = snprintf(path, sizeof(path), "%s%s%s", out->path, has ? "" : metrics, query);
    if (n < 0 || (size_t)n >= sizeof(out->path)) {
        return config__fail(errbuf, errcap, "%s: the URL's path is too long", flag);
    }
    memcpy(out->path, path, (size_t)n + 1);
    return 0;
}

bool config_server_metrics_format(const struct profile_config *cfg, const char *format)
{
    if (cfg->server_metrics_formats.count == 0) {
        return strcmp(format, "json") == 0 || strcmp(format, "csv") == 0;
    }
    for (size_t i = 0; i < cfg->server_metrics_formats.count; i++) {
        if (strcmp(cfg->server_metrics_formats.items[i], format) == 0) {
            return true;
        }
    }
    return false;
}
