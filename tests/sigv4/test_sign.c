#include <criterion/criterion.h>

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sigv4/sigv4.h"

#define ORACLE "/usr/bin/python3 " SIGV4_TEST_SOURCE_DIR "/botocore_oracle.py"
#define FIELD_MAX 8192
#define CASE_HEADERS_MAX 16

/* A case as the oracle wrote it, its fields decoded from hex. */
struct oracle_case {
    char method[16], target[1024], akid[64], secret[128], token[512], region[64], service[64];
    unsigned char body[512];
    size_t body_len;
    long long unix_s;
    size_t header_count;
    char names[CASE_HEADERS_MAX][64], values[CASE_HEADERS_MAX][128];
    char date[32], sha[80], authorization[1024];
};

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* next_field decodes the next space-separated hex field of *line into out (NUL-terminated),
 * returning its length. */
static size_t next_field(char **line, void *out, size_t cap)
{
    char *p = *line;
    char *end = strchr(p, ' ');
    size_t n = end != NULL ? (size_t)(end - p) : strcspn(p, "\n");
    *line = end != NULL ? end + 1 : p + n;
    unsigned char *o = out;
    if (n == 1 && p[0] == '-') {
        o[0] = '\0';
        return 0;
    }
    cr_assert_eq(n % 2, 0);
    cr_assert_lt(n / 2, cap, "field too long for the test");
    for (size_t i = 0; i < n / 2; i++) {
        o[i] = (unsigned char)(hex_digit(p[2 * i]) * 16 + hex_digit(p[2 * i + 1]));
    }
    o[n / 2] = '\0';
    return n / 2;
}

static long long next_number(char **line)
{
    char *end = NULL;
    long long v = strtoll(*line, &end, 10);
    *line = end + 1;
    return v;
}

static void parse_case(char *line, struct oracle_case *c)
{
    next_field(&line, c->method, sizeof(c->method));
    next_field(&line, c->target, sizeof(c->target));
    c->body_len = next_field(&line, c->body, sizeof(c->body));
    next_field(&line, c->akid, sizeof(c->akid));
    next_field(&line, c->secret, sizeof(c->secret));
    next_field(&line, c->token, sizeof(c->token));
    next_field(&line, c->region, sizeof(c->region));
    next_field(&line, c->service, sizeof(c->service));
    c->unix_s = next_number(&line);
    c->header_count = (size_t)next_number(&line);
    cr_assert_leq(c->header_count, CASE_HEADERS_MAX);
    for (size_t i = 0; i < c->header_count; i++) {
        next_field(&line, c->names[i], sizeof(c->names[i]));
        next_field(&line, c->values[i], sizeof(c->values[i]));
    }
    next_field(&line, c->date, sizeof(c->date));
    next_field(&line, c->sha, sizeof(c->sha));
    next_field(&line, c->authorization, sizeof(c->authorization));
}

static bool same_signer(const struct oracle_case *a, const struct oracle_case *b)
{
    return strcmp(a->akid, b->akid) == 0 && strcmp(a->secret, b->secret) == 0 &&
           strcmp(a->token, b->token) == 0 && strcmp(a->region, b->region) == 0 &&
           strcmp(a->service, b->service) == 0;
}

static struct sigv4_signer *signer_for(const struct oracle_case *c)
{
    struct sigv4_credentials creds = {0};
    snprintf(creds.access_key_id, sizeof(creds.access_key_id), "%s", c->akid);
    snprintf(creds.secret_access_key, sizeof(creds.secret_access_key), "%s", c->secret);
    snprintf(creds.session_token, sizeof(creds.session_token), "%s", c->token);
    struct sigv4_signer *s = sigv4_signer_new(&creds, c->region, c->service);
    cr_assert_not_null(s);
    return s;
}

static struct sigv4_request request_of(const struct oracle_case *c, struct http_header *headers)
{
    for (size_t i = 0; i < c->header_count; i++) {
        headers[i] = (struct http_header){c->names[i], strlen(c->names[i]), c->values[i],
                                          strlen(c->values[i])};
    }
    return (struct sigv4_request){
        .method = c->method,
        .method_len = strlen(c->method),
        .target = c->target,
        .target_len = strlen(c->target),
        .headers = headers,
        .header_count = c->header_count,
        .body = c->body,
        .body_len = c->body_len,
        .unix_s = c->unix_s,
    };
}

static void check_case(struct sigv4_signer *s, const struct oracle_case *c, size_t index)
{
    struct http_header headers[CASE_HEADERS_MAX];
    struct sigv4_request req = request_of(c, headers);
    struct sigv4_signature sig;
    enum sigv4_status st = sigv4_sign(s, &req, &sig);
    cr_assert_eq(st, SIGV4_OK, "case %zu: %s", index, sigv4_status_name(st));
    char canonical[8192];
    ssize_t n = sigv4_canonical_request(s, &req, sig.amz_date, sig.content_sha256, canonical,
                                        sizeof(canonical) - 1);
    canonical[n > 0 && (size_t)n < sizeof(canonical) ? (size_t)n : 0] = '\0';
    cr_assert_str_eq(sig.amz_date, c->date, "case %zu", index);
    cr_assert_str_eq(sig.content_sha256, c->sha, "case %zu", index);
    cr_assert_str_eq(sig.authorization, c->authorization, "case %zu: %s %s\ncanonical request:\n%s",
                     index, c->method, c->target, canonical);
    cr_assert_eq(sig.authorization_len, strlen(c->authorization));
    if (c->token[0] != '\0') {
        cr_assert_not_null(sig.session_token);
        cr_assert_eq(sig.session_token_len, strlen(c->token));
        cr_assert_eq(memcmp(sig.session_token, c->token, sig.session_token_len), 0);
    } else {
        cr_assert_null(sig.session_token);
    }
}

Test(sigv4_sign, matches_botocore_on_generated_requests, .timeout = 120)
{
    if (access("/usr/bin/python3", X_OK) != 0 ||
        system("/usr/bin/python3 -c 'import botocore.auth' 2>/dev/null") != 0) {
        cr_skip_test("python3-botocore is not installed (scripts/install-deps.sh)");
    }
    FILE *oracle = popen(ORACLE " 20240611 40 50", "r");
    cr_assert_not_null(oracle);
    static struct oracle_case prev, cur;
    struct sigv4_signer *s = NULL;
    char *line = malloc(FIELD_MAX * 8);
    size_t cases = 0;
    while (fgets(line, FIELD_MAX * 8, oracle) != NULL) {
        parse_case(line, &cur);
        if (s == NULL || !same_signer(&prev, &cur)) {
            sigv4_signer_free(s);
            s = signer_for(&cur);
        }
        check_case(s, &cur, cases++);
        prev = cur;
    }
    cr_assert_eq(pclose(oracle), 0, "the oracle failed");
    cr_assert_eq(cases, 2000, "the oracle gave %zu cases", cases);
    sigv4_signer_free(s);
    free(line);
}

static struct sigv4_signer *example_signer(const char *token)
{
    struct sigv4_credentials creds = {0};
    snprintf(creds.access_key_id, sizeof(creds.access_key_id), "%s", "AKIDEXAMPLE");
    snprintf(creds.secret_access_key, sizeof(creds.secret_access_key), "%s",
             "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");
    snprintf(creds.session_token, sizeof(creds.session_token), "%s", token);
    struct sigv4_signer *s = sigv4_signer_new(&creds, "us-east-1", "sagemaker");
    cr_assert_not_null(s);
    return s;
}

static const struct http_header host_only[] = {{"Host", 4, "example.com", 11}};

static struct sigv4_request simple_request(const char *target)
{
    return (struct sigv4_request){.method = "post",
                                  .method_len = 4,
                                  .target = target,
                                  .target_len = strlen(target),
                                  .headers = host_only,
                                  .header_count = 1,
                                  .body = "{}",
                                  .body_len = 2,
                                  .unix_s = 1440938160};
}

static void expect_canonical(const char *target, const char *path_line, const char *query_line)
{
    struct sigv4_signer *s = example_signer("");
    struct sigv4_request req = simple_request(target);
    char buf[2048];
    const char *sha = "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a";
    ssize_t n = sigv4_canonical_request(s, &req, "20150830T123600Z", sha, buf, sizeof(buf));
    cr_assert_gt(n, 0);
    char expected[2048];
    snprintf(expected, sizeof(expected),
             "POST\n%s\n%s\nhost:example.com\nx-amz-content-sha256:%s\n"
             "x-amz-date:20150830T123600Z\n\nhost;x-amz-content-sha256;x-amz-date\n%s",
             path_line, query_line, sha, sha);
    cr_assert_eq((size_t)n, strlen(expected), "got:\n%.*s", (int)n, buf);
    cr_assert_eq(memcmp(buf, expected, (size_t)n), 0, "got:\n%.*s", (int)n, buf);
    sigv4_signer_free(s);
}

Test(sigv4_canonical, path_is_normalised_and_encoded_again)
{
    expect_canonical("/", "/", "");
    expect_canonical("//", "/", "");
    expect_canonical("/a/./b/../c//d/", "/a/c/d/", "");
    expect_canonical("/../..", "/", "");
    expect_canonical("/endpoints/my%20ep/invocations", "/endpoints/my%2520ep/invocations", "");
    expect_canonical("/a b/$", "/a%20b/%24", "");
}

Test(sigv4_canonical, query_is_recoded_and_sorted)
{
    expect_canonical("/p?b=2&a=1", "/p", "a=1&b=2");
    expect_canonical("/p?", "/p", "");
    expect_canonical("/p?a=2&a=1&a", "/p", "a=&a=1&a=2");
    /* Non-canonical input is signed as AWS reads it: decoded, then encoded canonically. */
    expect_canonical("/p?x=a,b&y=%2f&z=%zz&w=~", "/p", "w=~&x=a%2Cb&y=%2F&z=%25zz");
    expect_canonical("/p?a=1&&b", "/p", "=&a=1&b=");
}

Test(sigv4_sign, refuses_what_it_cannot_sign)
{
    struct sigv4_signer *s = example_signer("");
    struct sigv4_signature sig;
    struct sigv4_request req = simple_request("no-slash");
    cr_assert_eq(sigv4_sign(s, &req, &sig), SIGV4_ERR_BAD_TARGET);
    req = simple_request("/");
    req.unix_s = -1;
    cr_assert_eq(sigv4_sign(s, &req, &sig), SIGV4_ERR_BAD_TIME);
    req.unix_s = 253402300800LL;
    cr_assert_eq(sigv4_sign(s, &req, &sig), SIGV4_ERR_BAD_TIME);
    struct http_header owned[] = {{"Host", 4, "h", 1}, {"X-Amz-Date", 10, "x", 1}};
    req = simple_request("/");
    req.headers = owned;
    req.header_count = 2;
    cr_assert_eq(sigv4_sign(s, &req, &sig), SIGV4_ERR_OWNED_HEADER);
    struct http_header many[SIGV4_HEADERS_MAX + 1];
    for (size_t i = 0; i < SIGV4_HEADERS_MAX + 1; i++) {
        many[i] = (struct http_header){"X-A", 3, "v", 1};
    }
    req.headers = many;
    req.header_count = SIGV4_HEADERS_MAX + 1;
    cr_assert_eq(sigv4_sign(s, &req, &sig), SIGV4_ERR_TOO_MANY_HEADERS);
    static char long_query[SIGV4_QUERY_BYTES_MAX + 16];
    memset(long_query, ',', sizeof(long_query) - 1);
    memcpy(long_query, "/?a=", 4);
    req = simple_request(long_query);
    cr_assert_eq(sigv4_sign(s, &req, &sig), SIGV4_ERR_QUERY_TOO_LONG);
    /* SIGV4_PATH_SEGMENTS_MAX + 1 segments "/a", then the NUL. */
    static char many_segments[2 * (SIGV4_PATH_SEGMENTS_MAX + 1) + 1];
    for (size_t i = 0; i + 2 < sizeof(many_segments); i += 2) {
        memcpy(many_segments + i, "/a", 2);
    }
    req = simple_request(many_segments);
    cr_assert_eq(sigv4_sign(s, &req, &sig), SIGV4_ERR_PATH_TOO_LONG);
    cr_assert_str_eq(sigv4_status_name(SIGV4_ERR_PATH_TOO_LONG), "too many path segments to sign");
    sigv4_signer_free(s);
}

Test(sigv4_signer, refuses_bad_credentials_and_scopes)
{
    struct sigv4_credentials creds = {0};
    snprintf(creds.access_key_id, sizeof(creds.access_key_id), "%s", "AKID");
    snprintf(creds.secret_access_key, sizeof(creds.secret_access_key), "%s", "secret");
    cr_assert_null(sigv4_signer_new(&creds, "", "sagemaker"));
    cr_assert_null(sigv4_signer_new(&creds, "us-east-1", "sage/maker"));
    cr_assert_null(sigv4_signer_new(&creds, "us east", "sagemaker"));
    snprintf(creds.session_token, sizeof(creds.session_token), "%s", "tok\nen");
    cr_assert_null(sigv4_signer_new(&creds, "us-east-1", "sagemaker"));
    creds.session_token[0] = '\0';
    creds.secret_access_key[0] = '\0';
    cr_assert_null(sigv4_signer_new(&creds, "us-east-1", "sagemaker"));
    sigv4_signer_free(NULL);
}

/* sigv4_credentials_check names what the signer refuses, and agrees with it. */
Test(sigv4_signer, credentials_check_says_what_is_refused)
{
    static const struct {
        const char *id, *secret, *token, *says;
    } cases[] = {
        {"AKID", "secret", "", NULL},
        {"AKID", "secret", "token", NULL},
        {"", "secret", "", "the access key id is empty"},
        {"AKID", "", "", "the secret access key is empty"},
        {"AKID", "sec\tret", "", "the secret access key holds a control character"},
        {"AK\x7fID", "secret", "", "the access key id holds a control character"},
        {"AKID", "secret", "tok\nen", "the session token holds a control character"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct sigv4_credentials creds = {0};
        snprintf(creds.access_key_id, sizeof(creds.access_key_id), "%s", cases[i].id);
        snprintf(creds.secret_access_key, sizeof(creds.secret_access_key), "%s", cases[i].secret);
        snprintf(creds.session_token, sizeof(creds.session_token), "%s", cases[i].token);
        char why[128] = "";
        bool ok = sigv4_credentials_check(&creds, why, sizeof(why));
        struct sigv4_signer *s = sigv4_signer_new(&creds, "us-east-1", "sagemaker");
        cr_assert_eq(ok, s != NULL, "case %zu: the check and the signer agree", i);
        sigv4_signer_free(s);
        if (cases[i].says == NULL) {
            cr_assert(ok, "case %zu: %s", i, why);
        } else {
            cr_assert_str_eq(why, cases[i].says, "case %zu", i);
        }
    }
    struct sigv4_credentials creds = {0};
    memset(creds.secret_access_key, 'x', SIGV4_SECRET_MAX + 1);
    snprintf(creds.access_key_id, sizeof(creds.access_key_id), "AKID");
    char why[128];
    cr_assert_not(sigv4_credentials_check(&creds, why, sizeof(why)));
    cr_assert_str_eq(why, "the secret access key is too long");
}

Test(sigv4_date, formats_utc_times)
{
    char out[17];
    cr_assert(sigv4_amz_date(0, out));
    cr_assert_str_eq(out, "19700101T000000Z");
    cr_assert(sigv4_amz_date(1440938160, out));
    cr_assert_str_eq(out, "20150830T123600Z");
    cr_assert(sigv4_amz_date(951782400, out)); /* a leap day */
    cr_assert_str_eq(out, "20000229T000000Z");
    cr_assert(sigv4_amz_date(253402300799LL, out));
    cr_assert_str_eq(out, "99991231T235959Z");
    cr_assert_not(sigv4_amz_date(-1, out));
}

#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
/* glibc's own count of bytes in use: the sanitizers replace malloc, so it is checked without. */
Test(sigv4_sign, signs_without_allocating)
{
    struct sigv4_signer *s = example_signer("token-abc");
    struct sigv4_signature sig;
    struct sigv4_request req = simple_request("/endpoints/e/invocations?b=1&a=%7e");
    cr_assert_eq(sigv4_sign(s, &req, &sig), SIGV4_OK);
    struct mallinfo2 before = mallinfo2();
    for (int i = 0; i < 1000; i++) {
        req.unix_s += 3600 * 7; /* crosses days: the key is derived again without allocating */
        cr_assert_eq(sigv4_sign(s, &req, &sig), SIGV4_OK);
    }
    struct mallinfo2 after = mallinfo2();
    cr_assert_eq(after.uordblks, before.uordblks, "signing allocated %zu bytes",
                 after.uordblks - before.uordblks);
    sigv4_signer_free(s);
}
#endif

Test(sigv4_date, parses_what_it_formats)
{
    int64_t t = 0;
    for (int64_t s = 0; s < 253402300799LL; s += 7777777) {
        char out[17];
        cr_assert(sigv4_amz_date(s, out));
        cr_assert(sigv4_amz_date_parse(out, 16, &t), "%s", out);
        cr_assert_eq(t, s, "%s", out);
    }
    cr_assert(sigv4_amz_date_parse("20000229T000000Z", 16, &t));
    cr_assert_not(sigv4_amz_date_parse("20010229T000000Z", 16, &t));
    cr_assert_not(sigv4_amz_date_parse("20000431T000000Z", 16, &t));
    cr_assert_not(sigv4_amz_date_parse("20000101T240000Z", 16, &t));
    cr_assert_not(sigv4_amz_date_parse("20000101 000000Z", 16, &t));
    cr_assert_not(sigv4_amz_date_parse("20000101T000000", 15, &t));
    cr_assert_not(sigv4_amz_date_parse("2000010aT000000Z", 16, &t));
}
