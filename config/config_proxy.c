/*
 * config_proxy.c - which forward proxy a target goes through, read from the environment
 * with curl's rules (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, NO_PROXY).
 *
 * Everything is decided once per target at start-up; the engine only sees an address, a
 * mode and a ready-made Proxy-Authorization value.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "config/config_internal.h"

/* env_get returns the value of name in envp, or NULL when unset or empty (curl treats an
 * empty proxy variable as unset). */
static const char *env_get(char *const *envp, const char *name)
{
    size_t len = strlen(name);
    for (size_t i = 0; envp != NULL && envp[i] != NULL; i++) {
        if (strncmp(envp[i], name, len) == 0 && envp[i][len] == '=') {
            return envp[i][len + 1] != '\0' ? envp[i] + len + 1 : NULL;
        }
    }
    return NULL;
}

/* trim_entry copies one NO_PROXY entry (len bytes at p) into out without surrounding
 * blanks, IPv6 brackets, one leading dot and trailing dots. Returns its length, or 0 when
 * it is empty or does not fit. */
static size_t trim_entry(const char *p, size_t len, char *out, size_t cap)
{
    while (len > 0 && (*p == ' ' || *p == '\t')) {
        p++;
        len--;
    }
    while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t')) {
        len--;
    }
    if (len > 0 && p[0] == '[') {
        const char *close = memchr(p, ']', len);
        size_t suffix = close != NULL ? len - (size_t)(close + 1 - p) : 0;
        len = close != NULL ? (size_t)(close - p - 1) + suffix : 0; /* keeps a "/n" suffix */
        if (close != NULL && len + 1 < cap) {
            memcpy(out, p + 1, (size_t)(close - p - 1));
            memcpy(out + (close - p - 1), close + 1, suffix);
            out[len] = '\0';
            return len;
        }
        return 0;
    }
    if (len > 0 && p[0] == '.') {
        p++;
        len--;
    }
    while (len > 0 && p[len - 1] == '.') {
        len--;
    }
    if (len == 0 || len + 1 > cap) {
        return 0;
    }
    memcpy(out, p, len);
    out[len] = '\0';
    return len;
}

/* cidr_match reports whether the IP literal host lies in entry "address/bits". */
static bool cidr_match(const char *entry, const char *host)
{
    char addr[CONFIG_NO_PROXY_ENTRY_BYTES_MAX];
    const char *slash = strchr(entry, '/');
    if (slash == NULL || (size_t)(slash - entry) >= sizeof(addr)) {
        return false;
    }
    memcpy(addr, entry, (size_t)(slash - entry));
    addr[slash - entry] = '\0';
    unsigned char want[16];
    unsigned char have[16];
    int family = strchr(addr, ':') != NULL ? AF_INET6 : AF_INET;
    unsigned max_bits = family == AF_INET6 ? 128 : 32;
    unsigned bits = 0;
    size_t digits = 0;
    for (const char *d = slash + 1; *d != '\0'; d++, digits++) {
        if (*d < '0' || *d > '9' || digits >= 3) {
            return false;
        }
        bits = bits * 10 + (unsigned)(*d - '0');
    }
    if (digits == 0 || bits > max_bits || inet_pton(family, addr, want) != 1 ||
        inet_pton(family, host, have) != 1) {
        return false;
    }
    size_t whole = bits / 8;
    unsigned rest = bits % 8;
    if (memcmp(want, have, whole) != 0) {
        return false;
    }
    unsigned char mask = (unsigned char)(0xffu << (8 - rest));
    return rest == 0 || (want[whole] & mask) == (have[whole] & mask);
}

/* host_is_ip reports whether host is an IPv4 or IPv6 literal. */
static bool host_is_ip(const char *host)
{
    unsigned char buf[16];
    return inet_pton(AF_INET, host, buf) == 1 || inet_pton(AF_INET6, host, buf) == 1;
}

/* entry_match reports whether one trimmed NO_PROXY entry exempts host (hlen bytes, trailing
 * dots already dropped). */
static bool entry_match(const char *entry, size_t elen, const char *host, size_t hlen, bool ip)
{
    if (elen == 1 && entry[0] == '*') {
        return true;
    }
    if (strchr(entry, '/') != NULL) {
        return ip && cidr_match(entry, host);
    }
    if (elen == hlen && strncasecmp(entry, host, hlen) == 0) {
        return true;
    }
    /* A domain covers the names under it, never an address. */
    return !ip && hlen > elen && host[hlen - elen - 1] == '.' &&
           strncasecmp(entry, host + hlen - elen, elen) == 0;
}

bool config_no_proxy_match(const char *no_proxy, const char *host)
{
    if (no_proxy == NULL || host == NULL) {
        return false;
    }
    char name[CONFIG_HOST_BYTES_MAX + 1];
    size_t hlen = strnlen(host, sizeof(name));
    if (hlen == sizeof(name)) {
        return false;
    }
    memcpy(name, host, hlen);
    while (hlen > 0 && name[hlen - 1] == '.') {
        hlen--;
    }
    name[hlen] = '\0';
    bool ip = host_is_ip(name);
    for (const char *p = no_proxy; *p != '\0';) {
        size_t len = strcspn(p, ",");
        char entry[CONFIG_NO_PROXY_ENTRY_BYTES_MAX];
        size_t elen = trim_entry(p, len, entry, sizeof(entry));
        if (elen > 0 && entry_match(entry, elen, name, hlen, ip)) {
            return true;
        }
        p += len + (p[len] == ',');
    }
    return false;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f') {
        return (c | 0x20) - 'a' + 10;
    }
    return -1;
}

/* percent_decode decodes in (len bytes) into out at *used; false when out is full. */
static bool percent_decode(const char *in, size_t len, char *out, size_t cap, size_t *used)
{
    for (size_t i = 0; i < len; i++) {
        char c = in[i];
        if (c == '%' && i + 2 < len && hex_value(in[i + 1]) >= 0 && hex_value(in[i + 2]) >= 0) {
            c = (char)(hex_value(in[i + 1]) * 16 + hex_value(in[i + 2]));
            i += 2;
        }
        if (*used + 1 >= cap) {
            return false;
        }
        out[(*used)++] = c;
    }
    return true;
}

bool config_basic_authorization(const char *userinfo, char *out, size_t cap)
{
    static const char alphabet[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    out[0] = '\0';
    if (userinfo[0] == '\0') {
        return true;
    }
    char plain[CONFIG_USERINFO_BYTES_MAX + 1];
    size_t n = 0;
    size_t user_len = strcspn(userinfo, ":");
    bool fits = percent_decode(userinfo, user_len, plain, sizeof(plain), &n);
    if (fits && userinfo[user_len] == ':') {
        plain[n++] = ':'; /* decoding never grows, so this fits */
        const char *password = userinfo + user_len + 1;
        fits = percent_decode(password, strlen(password), plain, sizeof(plain), &n);
    }
    size_t need = strlen("Basic ") + (n + 2) / 3 * 4 + 1;
    if (!fits || need > cap) {
        return false;
    }
    size_t o = strlen("Basic ");
    memcpy(out, "Basic ", o);
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)(unsigned char)plain[i] << 16;
        v |= i + 1 < n ? (unsigned)(unsigned char)plain[i + 1] << 8 : 0;
        v |= i + 2 < n ? (unsigned)(unsigned char)plain[i + 2] : 0;
        out[o++] = alphabet[(v >> 18) & 63];
        out[o++] = alphabet[(v >> 12) & 63];
        out[o++] = i + 1 < n ? alphabet[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? alphabet[v & 63] : '=';
    }
    out[o] = '\0';
    explicit_bzero(plain, sizeof(plain));
    return true;
}

/* pick_variable returns the proxy URL for target and the variable it came from. */
static const char *pick_variable(char *const *envp, const struct config_target *target,
                                 const char **out_name)
{
    static const char *const http_names[] = {"http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"};
    static const char *const https_names[] = {"https_proxy", "HTTPS_PROXY", "all_proxy",
                                              "ALL_PROXY"};
    const char *const *names = target->scheme == CONFIG_SCHEME_HTTPS ? https_names : http_names;
    for (size_t i = 0; i < 4; i++) {
        const char *value = env_get(envp, names[i]);
        if (value != NULL) {
            *out_name = names[i];
            return value;
        }
    }
    return NULL;
}

int config_proxy_for(char *const *envp, const struct config_target *target,
                     struct config_proxy *out, char *errbuf, size_t errcap)
{
    memset(out, 0, sizeof(*out));
    const char *no_proxy = env_get(envp, "no_proxy");
    if (no_proxy == NULL) {
        no_proxy = env_get(envp, "NO_PROXY");
    }
    const char *name = NULL;
    const char *url = pick_variable(envp, target, &name);
    if (url == NULL || config_no_proxy_match(no_proxy, target->host)) {
        return 0;
    }
    char userinfo[CONFIG_USERINFO_BYTES_MAX + 1];
    int rc = config__proxy_url(name, url, out, userinfo, errbuf, errcap);
    if (rc == 0 &&
        !config_basic_authorization(userinfo, out->authorization, sizeof(out->authorization))) {
        rc = config__fail(errbuf, errcap, "%s: the proxy's user:password is too long", name);
    }
    explicit_bzero(userinfo, sizeof(userinfo));
    if (rc != 0) {
        memset(out, 0, sizeof(*out));
        return rc;
    }
    snprintf(out->variable, sizeof(out->variable), "%s", name);
    out->used = true;
    return 0;
}
