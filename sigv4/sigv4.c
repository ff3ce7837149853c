/*
 * sigv4.c - the signer: the day's signing key, the string to sign and the Authorization value.
 *
 * The signing key depends only on the secret, the date, the region and the service, so it is
 * derived once a day and kept as an HMAC_CTX already keyed with it: BoringSSL then resets that
 * context per request by copying its precomputed inner and outer states, which allocates
 * nothing once the context has been used once (sigv4_signer_new does that).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/mem.h>

#include "sigv4/sigv4_internal.h"

static const char HEX_LOWER[] = "0123456789abcdef";

static void to_hex(const uint8_t *in, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = HEX_LOWER[in[i] >> 4];
        out[2 * i + 1] = HEX_LOWER[in[i] & 15];
    }
    out[2 * n] = '\0';
}

const char *sigv4_status_name(enum sigv4_status s)
{
    switch (s) {
    case SIGV4_OK:
        return "ok";
    case SIGV4_ERR_BAD_TARGET:
        return "request-target is not a path";
    case SIGV4_ERR_TOO_MANY_HEADERS:
        return "too many headers to sign";
    case SIGV4_ERR_OWNED_HEADER:
        return "a header the signer writes was given to sign";
    case SIGV4_ERR_PATH_TOO_LONG:
        return "too many path segments to sign";
    case SIGV4_ERR_QUERY_TOO_LONG:
        return "query too long to sign";
    case SIGV4_ERR_AUTHORIZATION_TOO_LONG:
        return "Authorization value too long";
    case SIGV4_ERR_BAD_TIME:
        return "signing time out of range";
    case SIGV4_ERR_CRYPTO:
        return "BoringSSL failed";
    default:
        return "unknown SigV4 status";
    }
}

/* days_to_civil turns days since 1970-01-01 into a proleptic Gregorian date (Howard
 * Hinnant's algorithm): gmtime_r would do, but this is plainly free of locks and locale. */
static void days_to_civil(int64_t z, int64_t *y, unsigned *m, unsigned *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static void put_digits(char *out, unsigned value, int width)
{
    for (int i = width - 1; i >= 0; i--) {
        out[i] = (char)('0' + value % 10);
        value /= 10;
    }
}

bool sigv4_amz_date(int64_t unix_s, char out[17])
{
    /* 253402300799 is 9999-12-31T23:59:59Z: four digits of year, as the format has. */
    if (unix_s < 0 || unix_s > 253402300799LL) {
        return false;
    }
    int64_t year = 0;
    unsigned month = 0;
    unsigned day = 0;
    days_to_civil(unix_s / 86400, &year, &month, &day);
    unsigned secs = (unsigned)(unix_s % 86400);
    put_digits(out, (unsigned)year, 4);
    put_digits(out + 4, month, 2);
    put_digits(out + 6, day, 2);
    out[8] = 'T';
    put_digits(out + 9, secs / 3600, 2);
    put_digits(out + 11, secs / 60 % 60, 2);
    put_digits(out + 13, secs % 60, 2);
    out[15] = 'Z';
    out[16] = '\0';
    return true;
}

/* days_from_civil is days_to_civil's inverse (the same algorithm's other half). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

static bool read_digits(const char *s, int width, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < width; i++) {
        if (s[i] < '0' || s[i] > '9') {
            return false;
        }
        v = v * 10 + (unsigned)(s[i] - '0');
    }
    *out = v;
    return true;
}

bool sigv4_amz_date_parse(const char *s, size_t n, int64_t *out_unix_s)
{
    unsigned year, month, day, hour, minute, second;
    if (n != 16 || s[8] != 'T' || s[15] != 'Z' || !read_digits(s, 4, &year) ||
        !read_digits(s + 4, 2, &month) || !read_digits(s + 6, 2, &day) ||
        !read_digits(s + 9, 2, &hour) || !read_digits(s + 11, 2, &minute) ||
        !read_digits(s + 13, 2, &second) || year < 1970 || month < 1 || month > 12 || day < 1 ||
        hour > 23 || minute > 59 || second > 59) {
        return false;
    }
    int64_t days = days_from_civil(year, month, day);
    int64_t y = 0;
    unsigned m = 0, d = 0;
    days_to_civil(days, &y, &m, &d);
    if (m != month || d != day) {
        return false; /* 31 April, 29 February of a common year */
    }
    *out_unix_s = days * 86400 + hour * 3600 + minute * 60 + second;
    return true;
}

/* credential_fault says what keeps a NUL-terminated credential out of a signer: it must have
 * 1..max bytes (0..max when may_be_empty) and no control character or DEL, which cannot go in
 * a header. NULL when nothing does. */
static const char *credential_fault(const char *src, size_t max, bool may_be_empty)
{
    size_t n = src != NULL ? strnlen(src, max + 1) : 0;
    if (n > max) {
        return "is too long";
    }
    if (n == 0 && !may_be_empty) {
        return "is empty";
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)src[i];
        if (c < 0x20 || c == 0x7f) {
            return "holds a control character";
        }
    }
    return NULL;
}

/* copy_checked copies a credential that credential_fault finds nothing wrong with. */
static bool copy_checked(char *dst, const char *src, size_t max, bool may_be_empty, size_t *out_len)
{
    if (credential_fault(src, max, may_be_empty) != NULL) {
        return false;
    }
    size_t n = strlen(src);
    memcpy(dst, src, n);
    dst[n] = '\0';
    *out_len = n;
    return true;
}

bool sigv4_credentials_check(const struct sigv4_credentials *creds, char *errbuf, size_t errcap)
{
    const struct {
        const char *name, *value;
        size_t max;
        bool may_be_empty;
    } parts[] = {
        {"access key id", creds->access_key_id, SIGV4_ACCESS_KEY_MAX, false},
        {"secret access key", creds->secret_access_key, SIGV4_SECRET_MAX, false},
        {"session token", creds->session_token, SIGV4_TOKEN_MAX, true},
    };
    for (size_t i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
        const char *fault = credential_fault(parts[i].value, parts[i].max, parts[i].may_be_empty);
        if (fault != NULL) {
            snprintf(errbuf, errcap, "the %s %s", parts[i].name, fault);
            return false;
        }
    }
    return true;
}

/* scope_part_ok: a region or service goes into the credential scope between '/'s and into a
 * header, so visible ASCII without '/', ',' or '='. */
static bool scope_part_ok(const char *p)
{
    size_t n = p != NULL ? strnlen(p, SIGV4_SCOPE_PART_MAX + 1) : 0;
    if (n == 0 || n > SIGV4_SCOPE_PART_MAX) {
        return false;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c <= 0x20 || c >= 0x7f || c == '/' || c == ',' || c == '=') {
            return false;
        }
    }
    return true;
}

struct sigv4_signer *sigv4_signer_new(const struct sigv4_credentials *creds, const char *region,
                                      const char *service)
{
    if (creds == NULL || !scope_part_ok(region) || !scope_part_ok(service)) {
        return NULL;
    }
    struct sigv4_signer *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return NULL;
    }
    HMAC_CTX_init(&s->derive);
    HMAC_CTX_init(&s->sign);
    if (!copy_checked(s->creds.access_key_id, creds->access_key_id, SIGV4_ACCESS_KEY_MAX, false,
                      &s->access_key_len) ||
        !copy_checked(s->creds.secret_access_key, creds->secret_access_key, SIGV4_SECRET_MAX, false,
                      &s->secret_len) ||
        !copy_checked(s->creds.session_token, creds->session_token, SIGV4_TOKEN_MAX, true,
                      &s->token_len)) {
        sigv4_signer_free(s);
        return NULL;
    }
    memcpy(s->region, region, strlen(region) + 1);
    memcpy(s->service, service, strlen(service) + 1);
    /* Key both contexts once now: BoringSSL allocates a context's digest state on its first
     * use only, so the request path never does. */
    static const uint8_t placeholder[32] = {0};
    if (!HMAC_Init_ex(&s->derive, placeholder, sizeof(placeholder), EVP_sha256(), NULL) ||
        !HMAC_Init_ex(&s->sign, placeholder, sizeof(placeholder), EVP_sha256(), NULL)) {
        sigv4_signer_free(s);
        return NULL;
    }
    return s;
}

void sigv4_signer_free(struct sigv4_signer *s)
{
    if (s == NULL) {
        return;
    }
    HMAC_CTX_cleanup(&s->derive);
    HMAC_CTX_cleanup(&s->sign);
    OPENSSL_cleanse(s, sizeof(*s));
    free(s);
}

static bool hmac_step(HMAC_CTX *ctx, const void *key, size_t key_len, const char *msg,
                      size_t msg_len, uint8_t out[32])
{
    unsigned out_len = 0;
    return HMAC_Init_ex(ctx, key, key_len, EVP_sha256(), NULL) &&
           HMAC_Update(ctx, (const uint8_t *)msg, msg_len) && HMAC_Final(ctx, out, &out_len) &&
           out_len == 32;
}

/* ensure_key derives the signing key for amz_date's day unless it is the one held:
 * HMAC("AWS4" secret, date) -> region -> service -> "aws4_request". */
static bool ensure_key(struct sigv4_signer *s, const char *amz_date)
{
    if (memcmp(s->key_date, amz_date, 8) == 0) {
        return true;
    }
    char first[4 + SIGV4_SECRET_MAX];
    memcpy(first, "AWS4", 4);
    memcpy(first + 4, s->creds.secret_access_key, s->secret_len);
    uint8_t k[32];
    bool ok = hmac_step(&s->derive, first, 4 + s->secret_len, amz_date, 8, k) &&
              hmac_step(&s->derive, k, 32, s->region, strlen(s->region), k) &&
              hmac_step(&s->derive, k, 32, s->service, strlen(s->service), k) &&
              hmac_step(&s->derive, k, 32, "aws4_request", 12, k) &&
              HMAC_Init_ex(&s->sign, k, 32, EVP_sha256(), NULL);
    OPENSSL_cleanse(first, sizeof(first));
    OPENSSL_cleanse(k, sizeof(k));
    if (!ok) {
        s->key_date[0] = '\0';
        return false;
    }
    memcpy(s->key_date, amz_date, 8);
    s->key_date[8] = '\0';
    return true;
}

/* put_scope writes "YYYYMMDD/region/service/aws4_request". */
static void put_scope(const struct sigv4_signer *s, const char *amz_date, struct sigv4__sink *k)
{
    sigv4__put(k, amz_date, 8);
    sigv4__put(k, "/", 1);
    sigv4__put(k, s->region, strlen(s->region));
    sigv4__put(k, "/", 1);
    sigv4__put(k, s->service, strlen(s->service));
    sigv4__put(k, "/aws4_request", 13);
}

/* string_to_sign_hmac signs "AWS4-HMAC-SHA256\n<date>\n<scope>\n<hex hash>". */
static bool string_to_sign_hmac(struct sigv4_signer *s, const char *amz_date,
                                const uint8_t request_hash[32], uint8_t out[32])
{
    char text[17 + 17 + 8 + 2 * SIGV4_SCOPE_PART_MAX + 16 + 65];
    struct sigv4__sink k = {.buf = text, .cap = sizeof(text)};
    sigv4__put(&k, "AWS4-HMAC-SHA256\n", 17);
    sigv4__put(&k, amz_date, 16);
    sigv4__put(&k, "\n", 1);
    put_scope(s, amz_date, &k);
    sigv4__put(&k, "\n", 1);
    char hex[65];
    to_hex(request_hash, 32, hex);
    sigv4__put(&k, hex, 64);
    unsigned out_len = 0;
    /* A NULL key and digest reset the context to the key it holds. */
    return k.len <= k.cap && HMAC_Init_ex(&s->sign, NULL, 0, NULL, NULL) &&
           HMAC_Update(&s->sign, (const uint8_t *)text, k.len) &&
           HMAC_Final(&s->sign, out, &out_len) && out_len == 32;
}

static enum sigv4_status write_authorization(const struct sigv4_signer *s, const char *amz_date,
                                             const uint8_t signature[32],
                                             struct sigv4_signature *out)
{
    struct sigv4__sink k = {.buf = out->authorization, .cap = sizeof(out->authorization) - 1};
    sigv4__put(&k, "AWS4-HMAC-SHA256 Credential=", 28);
    sigv4__put(&k, s->creds.access_key_id, s->access_key_len);
    sigv4__put(&k, "/", 1);
    put_scope(s, amz_date, &k);
    sigv4__put(&k, ", SignedHeaders=", 16);
    sigv4__signed_headers(s, &k);
    sigv4__put(&k, ", Signature=", 12);
    char hex[65];
    to_hex(signature, 32, hex);
    sigv4__put(&k, hex, 64);
    if (k.len > k.cap) {
        return SIGV4_ERR_AUTHORIZATION_TOO_LONG;
    }
    out->authorization[k.len] = '\0';
    out->authorization_len = k.len;
    return SIGV4_OK;
}

enum sigv4_status sigv4_sign(struct sigv4_signer *s, const struct sigv4_request *req,
                             struct sigv4_signature *out)
{
    if (!sigv4_amz_date(req->unix_s, out->amz_date)) {
        return SIGV4_ERR_BAD_TIME;
    }
    uint8_t digest[32];
    SHA256(req->body_len > 0 ? req->body : (const void *)"", req->body_len, digest);
    to_hex(digest, 32, out->content_sha256);
    SHA256_CTX sha;
    SHA256_Init(&sha);
    struct sigv4__sink k = {.sha = &sha};
    enum sigv4_status st = sigv4__canonical(s, req, out->amz_date, out->content_sha256, &k);
    if (st != SIGV4_OK) {
        return st;
    }
    SHA256_Final(digest, &sha);
    uint8_t signature[32];
    if (!ensure_key(s, out->amz_date) ||
        !string_to_sign_hmac(s, out->amz_date, digest, signature)) {
        return SIGV4_ERR_CRYPTO;
    }
    out->session_token = s->token_len > 0 ? s->creds.session_token : NULL;
    out->session_token_len = s->token_len;
    return write_authorization(s, out->amz_date, signature, out);
}

ssize_t sigv4_canonical_request(struct sigv4_signer *s, const struct sigv4_request *req,
                                const char *amz_date, const char *content_sha256, char *buf,
                                size_t cap)
{
    struct sigv4__sink k = {.buf = buf, .cap = buf != NULL ? cap : 0};
    enum sigv4_status st = sigv4__canonical(s, req, amz_date, content_sha256, &k);
    return st != SIGV4_OK ? -(ssize_t)st : (ssize_t)k.len;
}
