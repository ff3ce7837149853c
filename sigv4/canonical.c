/*
 * canonical.c - the canonical request of SigV4, written to a sink (a running SHA-256, or a
 * buffer for tests) piece by piece, so that it never has to exist whole in memory.
 */
#include <string.h>

#include "sigv4/sigv4_internal.h"

static const char HEX_UPPER[] = "0123456789ABCDEF";

void sigv4__put(struct sigv4__sink *k, const char *p, size_t n)
{
    if (n == 0) {
        return;
    }
    if (k->sha != NULL) {
        SHA256_Update(k->sha, p, n);
    } else if (k->len < k->cap) {
        size_t room = k->cap - k->len;
        memcpy(k->buf + k->len, p, n < room ? n : room);
    }
    k->len += n;
}

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c + ('a' - 'A')) : c;
}

/* RFC 3986 unreserved: the bytes SigV4 leaves unencoded. */
static bool unreserved(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == '~';
}

/* put_encoded percent-encodes p[0..n) into the sink, runs of literal bytes in one piece. */
static void put_encoded(struct sigv4__sink *k, const char *p, size_t n)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (unreserved(c)) {
            continue;
        }
        sigv4__put(k, p + run, i - run);
        char esc[3] = {'%', HEX_UPPER[c >> 4], HEX_UPPER[c & 15]};
        sigv4__put(k, esc, 3);
        run = i + 1;
    }
    sigv4__put(k, p + run, n - run);
}

static void put_lower(struct sigv4__sink *k, const char *p, size_t n)
{
    char chunk[64];
    while (n > 0) {
        size_t take = n < sizeof(chunk) ? n : sizeof(chunk);
        for (size_t i = 0; i < take; i++) {
            chunk[i] = lower(p[i]);
        }
        sigv4__put(k, chunk, take);
        p += take;
        n -= take;
    }
}

static void put_method(struct sigv4__sink *k, const char *p, size_t n)
{
    char chunk[32];
    while (n > 0) {
        size_t take = n < sizeof(chunk) ? n : sizeof(chunk);
        for (size_t i = 0; i < take; i++) {
            chunk[i] = p[i] >= 'a' && p[i] <= 'z' ? (char)(p[i] - ('a' - 'A')) : p[i];
        }
        sigv4__put(k, chunk, take);
        p += take;
        n -= take;
    }
}

/* put_path writes the canonical URI: dot and empty segments removed as botocore's
 * remove_dot_segments does, each kept segment encoded again. */
static enum sigv4_status put_path(struct sigv4_signer *s, const char *path, size_t len,
                                  struct sigv4__sink *k)
{
    size_t kept = 0;
    size_t at = 0;
    while (at <= len) {
        size_t end = at;
        while (end < len && path[end] != '/') {
            end++;
        }
        size_t n = end - at;
        if (n == 2 && path[at] == '.' && path[at + 1] == '.') {
            kept -= kept > 0;
        } else if (n > 0 && !(n == 1 && path[at] == '.')) {
            if (kept == SIGV4_PATH_SEGMENTS_MAX) {
                return SIGV4_ERR_PATH_TOO_LONG;
            }
            s->segment_off[kept] = (uint32_t)at;
            s->segment_len[kept++] = (uint32_t)n;
        }
        at = end + 1;
    }
    for (size_t i = 0; i < kept; i++) {
        sigv4__put(k, "/", 1);
        put_encoded(k, path + s->segment_off[i], s->segment_len[i]);
    }
    /* A trailing '/' survives only after a kept segment ("/" alone is written below). */
    if (kept == 0 || path[len - 1] == '/') {
        sigv4__put(k, "/", 1);
    }
    return SIGV4_OK;
}

static int hex_value(char c)
{
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    c = lower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* recode appends p[0..n), percent-decoded then canonically encoded, to s->query at *used.
 * A '%' not followed by two hex digits stands for itself. Returns false when it does not fit. */
static bool recode(struct sigv4_signer *s, const char *p, size_t n, size_t *used)
{
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '%' && i + 2 < n && hex_value(p[i + 1]) >= 0 && hex_value(p[i + 2]) >= 0) {
            c = (unsigned char)(hex_value(p[i + 1]) * 16 + hex_value(p[i + 2]));
            i += 2;
        }
        size_t need = unreserved(c) ? 1 : 3;
        if (SIGV4_QUERY_BYTES_MAX - *used < need) {
            return false;
        }
        if (need == 1) {
            s->query[(*used)++] = (char)c;
        } else {
            s->query[(*used)++] = '%';
            s->query[(*used)++] = HEX_UPPER[c >> 4];
            s->query[(*used)++] = HEX_UPPER[c & 15];
        }
    }
    return true;
}

static int compare_span(const char *a, size_t an, const char *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    return c != 0 ? c : (an > bn) - (an < bn);
}

static int compare_params(const struct sigv4_signer *s, uint16_t x, uint16_t y)
{
    const struct sigv4__param *a = &s->params[x];
    const struct sigv4__param *b = &s->params[y];
    int c = compare_span(s->query + a->key_off, a->key_len, s->query + b->key_off, b->key_len);
    if (c != 0) {
        return c;
    }
    return compare_span(s->query + a->value_off, a->value_len, s->query + b->value_off,
                        b->value_len);
}

/* parse_query splits the query at '&' and the first '=' of each pair (an empty pair is an
 * empty name and value, as botocore keeps it), recoded into s->query. Returns the count. */
static enum sigv4_status parse_query(struct sigv4_signer *s, const char *q, size_t len,
                                     size_t *out_count)
{
    size_t count = 0;
    size_t used = 0;
    for (size_t at = 0; at <= len;) {
        size_t end = at;
        while (end < len && q[end] != '&') {
            end++;
        }
        size_t eq = at;
        while (eq < end && q[eq] != '=') {
            eq++;
        }
        if (count == SIGV4_QUERY_PARAMS_MAX) {
            return SIGV4_ERR_QUERY_TOO_LONG;
        }
        struct sigv4__param *p = &s->params[count];
        p->key_off = (uint32_t)used;
        if (!recode(s, q + at, eq - at, &used)) {
            return SIGV4_ERR_QUERY_TOO_LONG;
        }
        p->key_len = (uint32_t)(used - p->key_off);
        p->value_off = (uint32_t)used;
        if (eq < end && !recode(s, q + eq + 1, end - eq - 1, &used)) {
            return SIGV4_ERR_QUERY_TOO_LONG;
        }
        p->value_len = (uint32_t)(used - p->value_off);
        s->param_order[count] = (uint16_t)count;
        count++;
        at = end + 1;
    }
    *out_count = count;
    return SIGV4_OK;
}

static enum sigv4_status put_query(struct sigv4_signer *s, const char *q, size_t len,
                                   struct sigv4__sink *k)
{
    size_t count = 0;
    enum sigv4_status st = parse_query(s, q, len, &count);
    if (st != SIGV4_OK) {
        return st;
    }
    /* Insertion sort: a handful of parameters, bounded by SIGV4_QUERY_PARAMS_MAX. */
    for (size_t i = 1; i < count; i++) {
        uint16_t v = s->param_order[i];
        size_t j = i;
        for (; j > 0 && compare_params(s, s->param_order[j - 1], v) > 0; j--) {
            s->param_order[j] = s->param_order[j - 1];
        }
        s->param_order[j] = v;
    }
    for (size_t i = 0; i < count; i++) {
        const struct sigv4__param *p = &s->params[s->param_order[i]];
        if (i > 0) {
            sigv4__put(k, "&", 1);
        }
        sigv4__put(k, s->query + p->key_off, p->key_len);
        sigv4__put(k, "=", 1);
        sigv4__put(k, s->query + p->value_off, p->value_len);
    }
    return SIGV4_OK;
}

static int compare_names(const struct http_header *a, const struct http_header *b)
{
    size_t n = a->name_len < b->name_len ? a->name_len : b->name_len;
    for (size_t i = 0; i < n; i++) {
        unsigned char x = (unsigned char)lower(a->name[i]);
        unsigned char y = (unsigned char)lower(b->name[i]);
        if (x != y) {
            return x < y ? -1 : 1;
        }
    }
    return (a->name_len > b->name_len) - (a->name_len < b->name_len);
}

static bool names_equal(const struct http_header *h, const char *lower_name)
{
    struct http_header other = {.name = lower_name, .name_len = strlen(lower_name)};
    return compare_names(h, &other) == 0;
}

/* The headers the signer writes itself: a caller's copy would be signed twice. */
static bool owned(const struct http_header *h)
{
    return names_equal(h, "x-amz-date") || names_equal(h, "x-amz-content-sha256") ||
           names_equal(h, "x-amz-security-token") || names_equal(h, "authorization");
}

/* collect_headers gathers the caller's headers and the signer's own into s->headers and
 * sorts them by name, stably, so that repeated names keep their order. */
static enum sigv4_status collect_headers(struct sigv4_signer *s, const struct sigv4_request *req,
                                         const char *amz_date, const char *content_sha256)
{
    if (req->header_count > SIGV4_HEADERS_MAX) {
        return SIGV4_ERR_TOO_MANY_HEADERS;
    }
    size_t n = 0;
    for (size_t i = 0; i < req->header_count; i++) {
        if (owned(&req->headers[i])) {
            return SIGV4_ERR_OWNED_HEADER;
        }
        s->headers[n++] = req->headers[i];
    }
    s->headers[n++] = (struct http_header){"x-amz-content-sha256", 20, content_sha256, 64};
    s->headers[n++] = (struct http_header){"x-amz-date", 10, amz_date, 16};
    if (s->token_len > 0) {
        s->headers[n++] =
            (struct http_header){"x-amz-security-token", 20, s->creds.session_token, s->token_len};
    }
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        for (; j > 0 && compare_names(&s->headers[s->header_order[j - 1]], &s->headers[i]) > 0;
             j--) {
            s->header_order[j] = s->header_order[j - 1];
        }
        s->header_order[j] = (uint8_t)i;
    }
    s->header_count = n;
    return SIGV4_OK;
}

static bool blank(char c)
{
    return c == ' ' || c == '\t';
}

/* put_trimmed writes a value without leading or trailing blanks, each run of blanks inside
 * it as one space (botocore's ' '.join(value.split())). */
static void put_trimmed(struct sigv4__sink *k, const char *v, size_t n)
{
    size_t at = 0;
    bool first = true;
    while (at < n) {
        while (at < n && blank(v[at])) {
            at++;
        }
        size_t end = at;
        while (end < n && !blank(v[end])) {
            end++;
        }
        if (end > at) {
            if (!first) {
                sigv4__put(k, " ", 1);
            }
            sigv4__put(k, v + at, end - at);
            first = false;
        }
        at = end;
    }
}

static void put_headers(const struct sigv4_signer *s, struct sigv4__sink *k)
{
    for (size_t i = 0; i < s->header_count; i++) {
        const struct http_header *h = &s->headers[s->header_order[i]];
        bool repeat = i > 0 && compare_names(&s->headers[s->header_order[i - 1]], h) == 0;
        if (repeat) {
            sigv4__put(k, ",", 1);
        } else {
            if (i > 0) {
                sigv4__put(k, "\n", 1);
            }
            put_lower(k, h->name, h->name_len);
            sigv4__put(k, ":", 1);
        }
        put_trimmed(k, h->value, h->value_len);
    }
    sigv4__put(k, "\n", 1);
}

void sigv4__signed_headers(const struct sigv4_signer *s, struct sigv4__sink *k)
{
    for (size_t i = 0; i < s->header_count; i++) {
        const struct http_header *h = &s->headers[s->header_order[i]];
        if (i > 0 && compare_names(&s->headers[s->header_order[i - 1]], h) == 0) {
            continue;
        }
        if (i > 0) {
            sigv4__put(k, ";", 1);
        }
        put_lower(k, h->name, h->name_len);
    }
}

enum sigv4_status sigv4__canonical(struct sigv4_signer *s, const struct sigv4_request *req,
                                   const char *amz_date, const char *content_sha256,
                                   struct sigv4__sink *k)
{
    if (req->target_len == 0 || req->target[0] != '/') {
        return SIGV4_ERR_BAD_TARGET;
    }
    enum sigv4_status st = collect_headers(s, req, amz_date, content_sha256);
    if (st != SIGV4_OK) {
        return st;
    }
    const char *question = memchr(req->target, '?', req->target_len);
    size_t path_len = question != NULL ? (size_t)(question - req->target) : req->target_len;
    put_method(k, req->method, req->method_len);
    sigv4__put(k, "\n", 1);
    st = put_path(s, req->target, path_len, k);
    if (st != SIGV4_OK) {
        return st;
    }
    sigv4__put(k, "\n", 1);
    if (question != NULL && path_len + 1 < req->target_len) {
        st = put_query(s, question + 1, req->target_len - path_len - 1, k);
        if (st != SIGV4_OK) {
            return st;
        }
    }
    sigv4__put(k, "\n", 1);
    put_headers(s, k);
    sigv4__put(k, "\n", 1);
    sigv4__signed_headers(s, k);
    sigv4__put(k, "\n", 1);
    sigv4__put(k, content_sha256, 64);
    return SIGV4_OK;
}
