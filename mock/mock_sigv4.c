/*
 * mock_sigv4.c - `--sigv4-secret`: the mock checks each request's AWS SigV4 signature the way
 * an AWS front end does, by signing the request again with the secret it knows (sigv4/) and
 * comparing, and answers 403 when they differ. What the client signed is read back from the
 * request as it arrived, so a header changed, dropped or added after signing shows.
 */
#include <string.h>
#include <strings.h>

#include "mock/mock_internal.h"
#include "sigv4/sigv4.h"

/* AWS refuses signatures more than 15 minutes from its clock. */
#define SKEW_S_MAX (15 * 60)

struct span {
    const char *p;
    size_t n;
};

static bool span_is(struct span s, const char *lit)
{
    size_t n = strlen(lit);
    if (s.n != n) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        char c = s.p[i] >= 'A' && s.p[i] <= 'Z' ? (char)(s.p[i] + 32) : s.p[i];
        if (c != lit[i]) {
            return false;
        }
    }
    return true;
}

/* next_header walks the head's header lines from *at (after the request line), filling the
 * trimmed name and value; false after the last. */
static bool next_header(struct span head, size_t *at, struct span *name, struct span *value)
{
    while (*at < head.n) {
        const char *line = head.p + *at;
        const char *nl = memchr(line, '\n', head.n - *at);
        size_t len = nl != NULL ? (size_t)(nl - line) : head.n - *at;
        *at += len + 1;
        len -= len > 0 && line[len - 1] == '\r';
        const char *colon = memchr(line, ':', len);
        if (colon == NULL) {
            continue;
        }
        *name = (struct span){line, (size_t)(colon - line)};
        const char *v = colon + 1;
        const char *end = line + len;
        while (v < end && (*v == ' ' || *v == '\t')) {
            v++;
        }
        while (end > v && (end[-1] == ' ' || end[-1] == '\t')) {
            end--;
        }
        *value = (struct span){v, (size_t)(end - v)};
        return true;
    }
    return false;
}

static size_t first_line_end(struct span head)
{
    const char *nl = memchr(head.p, '\n', head.n);
    return nl != NULL ? (size_t)(nl - head.p) + 1 : head.n;
}

/* find_header returns the first value of `name`, or a NULL span. */
static struct span find_header(struct span head, const char *name)
{
    size_t at = first_line_end(head);
    struct span n, v;
    while (next_header(head, &at, &n, &v)) {
        if (span_is(n, name)) {
            return v;
        }
    }
    return (struct span){NULL, 0};
}

/* auth is what an Authorization value of AWS4-HMAC-SHA256 carries. */
struct auth {
    struct span access_key, date, region, service, signed_headers;
};

/* cut takes the part of *s before `sep` (all of it when sep is absent). */
static struct span cut(struct span *s, char sep)
{
    const char *at = memchr(s->p, sep, s->n);
    size_t n = at != NULL ? (size_t)(at - s->p) : s->n;
    struct span part = {s->p, n};
    s->p += at != NULL ? n + 1 : n;
    s->n -= at != NULL ? n + 1 : n;
    return part;
}

static bool parse_auth(struct span v, struct auth *out)
{
    static const char scheme[] = "AWS4-HMAC-SHA256 ";
    if (v.n < sizeof(scheme) - 1 || memcmp(v.p, scheme, sizeof(scheme) - 1) != 0) {
        return false;
    }
    v.p += sizeof(scheme) - 1;
    v.n -= sizeof(scheme) - 1;
    struct span credential = {NULL, 0};
    while (v.n > 0) {
        struct span part = cut(&v, ',');
        while (part.n > 0 && part.p[0] == ' ') {
            part.p++;
            part.n--;
        }
        struct span key = cut(&part, '=');
        if (span_is(key, "credential")) {
            credential = part;
        } else if (span_is(key, "signedheaders")) {
            out->signed_headers = part;
        }
    }
    out->access_key = cut(&credential, '/');
    out->date = cut(&credential, '/');
    out->region = cut(&credential, '/');
    out->service = cut(&credential, '/');
    return out->access_key.n > 0 && out->access_key.n <= SIGV4_ACCESS_KEY_MAX && out->date.n == 8 &&
           span_is(credential, "aws4_request") && out->region.n > 0 &&
           out->region.n <= SIGV4_SCOPE_PART_MAX && out->service.n > 0 &&
           out->service.n <= SIGV4_SCOPE_PART_MAX && out->signed_headers.n > 0;
}

static bool owned(struct span name)
{
    return span_is(name, "x-amz-date") || span_is(name, "x-amz-content-sha256") ||
           span_is(name, "x-amz-security-token");
}

/* collect gathers every occurrence of each signed header but the signer's own, in order. */
static const char *collect(struct span head, struct span signed_headers, struct http_header *out,
                           size_t *out_count)
{
    size_t count = 0;
    while (signed_headers.n > 0) {
        struct span want = cut(&signed_headers, ';');
        if (owned(want)) {
            continue;
        }
        size_t at = first_line_end(head);
        struct span n, v;
        bool seen = false;
        while (next_header(head, &at, &n, &v)) {
            if (n.n == want.n && strncasecmp(n.p, want.p, n.n) == 0) {
                if (count == SIGV4_HEADERS_MAX) {
                    return "too many signed headers";
                }
                out[count++] = (struct http_header){n.p, n.n, v.p, v.n};
                seen = true;
            }
        }
        if (!seen) {
            return "a signed header is missing";
        }
    }
    *out_count = count;
    return NULL;
}

static void copy_span(char *dst, struct span s)
{
    memcpy(dst, s.p, s.n);
    dst[s.n] = '\0';
}

/* resign signs the request again and compares the Authorization values. */
static const char *resign(const struct mock_config *cfg, const struct mock__request *req,
                          const struct auth *a, struct span authorization, int64_t when)
{
    struct span head = {req->head, req->head_len};
    struct http_header headers[SIGV4_HEADERS_MAX];
    size_t header_count = 0;
    const char *why = collect(head, a->signed_headers, headers, &header_count);
    if (why != NULL) {
        return why;
    }
    static _Thread_local struct sigv4_credentials creds;
    struct span token = find_header(head, "x-amz-security-token");
    _Static_assert(MOCK_SIGV4_SECRET_MAX == SIGV4_SECRET_MAX, "one limit");
    if (token.n > SIGV4_TOKEN_MAX || strlen(cfg->sigv4_secret) > SIGV4_SECRET_MAX) {
        return "session token or secret too long";
    }
    copy_span(creds.access_key_id, a->access_key);
    copy_span(creds.secret_access_key, (struct span){cfg->sigv4_secret, strlen(cfg->sigv4_secret)});
    copy_span(creds.session_token, token.p != NULL ? token : (struct span){"", 0});
    char region[SIGV4_SCOPE_PART_MAX + 1], service[SIGV4_SCOPE_PART_MAX + 1];
    copy_span(region, a->region);
    copy_span(service, a->service);
    struct sigv4_signer *signer = sigv4_signer_new(&creds, region, service);
    if (signer == NULL) {
        return "the credential scope cannot be signed";
    }
    struct span line = {req->head, first_line_end(head)};
    struct span method = cut(&line, ' ');
    struct span target = cut(&line, ' ');
    struct sigv4_request r = {method.p,     method.n,  target.p,      target.n, headers,
                              header_count, req->body, req->body_len, when};
    static _Thread_local struct sigv4_signature sig;
    enum sigv4_status st = sigv4_sign(signer, &r, &sig);
    sigv4_signer_free(signer);
    if (st != SIGV4_OK) {
        return sigv4_status_name(st);
    }
    struct span sha = find_header(head, "x-amz-content-sha256");
    if (sha.n != 64 || memcmp(sha.p, sig.content_sha256, 64) != 0) {
        return "X-Amz-Content-Sha256 is not the body's hash";
    }
    if (authorization.n != sig.authorization_len ||
        memcmp(authorization.p, sig.authorization, authorization.n) != 0) {
        return "The request signature we calculated does not match the signature you provided";
    }
    return NULL;
}

const char *mock__sigv4_verify(const struct mock_config *cfg, const struct mock__request *req,
                               int64_t now_unix_s)
{
    struct span head = {req->head, req->head_len};
    struct span authorization = find_header(head, "authorization");
    struct auth a = {0};
    if (authorization.p == NULL || !parse_auth(authorization, &a)) {
        return "Missing Authentication Token (no AWS4-HMAC-SHA256 Authorization)";
    }
    struct span date = find_header(head, "x-amz-date");
    int64_t when = 0;
    if (date.p == NULL || !sigv4_amz_date_parse(date.p, date.n, &when) ||
        memcmp(date.p, a.date.p, 8) != 0) {
        return "X-Amz-Date is missing, malformed or not the credential's date";
    }
    if (when < now_unix_s - SKEW_S_MAX || when > now_unix_s + SKEW_S_MAX) {
        return "Signature expired: X-Amz-Date is more than 15 minutes from the server's time";
    }
    if ((cfg->sigv4_region != NULL && !span_is(a.region, cfg->sigv4_region)) ||
        (cfg->sigv4_service != NULL && !span_is(a.service, cfg->sigv4_service))) {
        return "Credential should be scoped to the server's region and service";
    }
    return resign(cfg, req, &a, authorization, when);
}
