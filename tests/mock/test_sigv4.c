/*
 * test_sigv4.c - the mock server's SigV4 check in process: a request signed with the secret
 * passes, and each way a request can be wrong gets its reason; SageMaker's paths; the flags.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mock/mock_internal.h"
#include "sigv4/sigv4.h"

#define SECRET "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY"
#define NOW 1440938160 /* 2015-08-30T12:36:00Z */

/* signed_request writes a POST signed with secret at `when` (and a session token when token
 * is not NULL), with `extra` header lines added after signing, into buf. Returns its length. */
static size_t signed_request(char *buf, size_t cap, const char *secret, int64_t when,
                             const char *token, const char *extra)
{
    struct sigv4_credentials creds = {0};
    snprintf(creds.access_key_id, sizeof(creds.access_key_id), "AKIDEXAMPLE");
    snprintf(creds.secret_access_key, sizeof(creds.secret_access_key), "%s", secret);
    snprintf(creds.session_token, sizeof(creds.session_token), "%s", token ? token : "");
    struct sigv4_signer *s = sigv4_signer_new(&creds, "us-east-1", "sagemaker");
    cr_assert_not_null(s);
    struct http_header headers[] = {{"Host", 4, "example.com", 11},
                                    {"Content-Type", 12, "application/json", 16}};
    const char target[] = "/endpoints/ep/invocations?b=2&a=1";
    struct sigv4_request req = {"POST", 4, target, sizeof(target) - 1, headers, 2, "{}", 2, when};
    struct sigv4_signature sig;
    cr_assert_eq(sigv4_sign(s, &req, &sig), SIGV4_OK);
    int n =
        snprintf(buf, cap,
                 "POST %s HTTP/1.1\r\nHost: example.com\r\nContent-Type: application/json\r\n"
                 "X-Amz-Date: %s\r\nX-Amz-Content-Sha256: %s\r\n%s%s%sAuthorization: %s\r\n"
                 "%sContent-Length: 2\r\n\r\n{}",
                 target, sig.amz_date, sig.content_sha256, token ? "X-Amz-Security-Token: " : "",
                 token ? token : "", token ? "\r\n" : "", sig.authorization, extra);
    sigv4_signer_free(s);
    cr_assert_lt((size_t)n, cap);
    return (size_t)n;
}

/* verdict parses buf and runs the check at NOW with cfg's secret (and region, if given). */
static const char *verdict(const char *buf, size_t len, const char *region)
{
    struct mock__request req;
    size_t consumed = 0;
    cr_assert_eq(mock__request_parse(buf, len, 4096, NULL, &req, &consumed), MOCK__REQ_OK);
    struct mock_config cfg;
    mock_config_init(&cfg);
    cfg.sigv4_secret = SECRET;
    cfg.sigv4_region = region;
    return mock__sigv4_verify(&cfg, &req, NOW);
}

Test(mock_sigv4, a_signed_request_passes)
{
    char buf[4096];
    size_t n = signed_request(buf, sizeof(buf), SECRET, NOW, NULL, "");
    cr_assert_null(verdict(buf, n, NULL));
    cr_assert_null(verdict(buf, n, "us-east-1"));
    n = signed_request(buf, sizeof(buf), SECRET, NOW - 600, "session-token", "X-Unsigned: ok\r\n");
    cr_assert_null(verdict(buf, n, NULL), "an unsigned header may be added; 10 minutes of skew");
}

Test(mock_sigv4, each_fault_has_its_reason)
{
    char buf[4096];
    size_t n = signed_request(buf, sizeof(buf), "another secret", NOW, NULL, "");
    cr_assert_not_null(strstr(verdict(buf, n, NULL), "signature we calculated does not match"));
    n = signed_request(buf, sizeof(buf), SECRET, NOW - 3600, NULL, "");
    cr_assert_not_null(strstr(verdict(buf, n, NULL), "Signature expired"));
    n = signed_request(buf, sizeof(buf), SECRET, NOW, NULL, "");
    cr_assert_not_null(strstr(verdict(buf, n, "eu-west-1"), "scoped"));
    /* A signed header changed after signing. */
    char *host = strstr(buf, "example.com");
    host[0] = 'E';
    cr_assert_not_null(strstr(verdict(buf, n, NULL), "does not match"));
    /* The body changed after signing: its hash no longer holds. */
    n = signed_request(buf, sizeof(buf), SECRET, NOW, NULL, "");
    buf[n - 1] = ']';
    cr_assert_not_null(strstr(verdict(buf, n, NULL), "X-Amz-Content-Sha256"));
    const char unsigned_request[] = "GET / HTTP/1.1\r\nHost: h\r\n\r\n";
    cr_assert_not_null(strstr(verdict(unsigned_request, sizeof(unsigned_request) - 1, NULL),
                              "Missing Authentication Token"));
    const char missing[] =
        "GET / HTTP/1.1\r\nHost: h\r\nX-Amz-Date: 20150830T123600Z\r\n"
        "Authorization: AWS4-HMAC-SHA256 Credential=A/20150830/r/s/aws4_request, "
        "SignedHeaders=host;x-gone, Signature=00\r\n\r\n";
    cr_assert_str_eq(verdict(missing, sizeof(missing) - 1, NULL), "a signed header is missing");
}

Test(mock_sigv4, sagemaker_paths)
{
    bool stream = true;
    cr_assert(mock__sagemaker_path("/endpoints/ep/invocations", 25, &stream));
    cr_assert_not(stream);
    const char s[] = "/endpoints/my-ep/invocations-response-stream";
    cr_assert(mock__sagemaker_path(s, sizeof(s) - 1, &stream));
    cr_assert(stream);
    cr_assert_not(mock__sagemaker_path("/endpoints//invocations", 23, &stream));
    cr_assert_not(mock__sagemaker_path("/endpoints/ep/invoke", 20, &stream));
    cr_assert_not(mock__sagemaker_path("/v1/chat/completions", 20, &stream));
}

Test(mock_sigv4, flags_are_checked)
{
    struct mock_config cfg;
    char err[512];
    char *pinned[] = {"mock-server", "--sigv4-region", "us-east-1"};
    cr_assert_eq(mock_config_parse(3, pinned, &cfg, err, sizeof(err)), -EINVAL);
    cr_assert_not_null(strstr(err, "add --sigv4-secret SECRET"), "%s", err);
    char long_secret[200];
    memset(long_secret, 'k', sizeof(long_secret) - 1);
    long_secret[sizeof(long_secret) - 1] = '\0';
    char *too_long[] = {"mock-server", "--sigv4-secret", long_secret};
    cr_assert_eq(mock_config_parse(3, too_long, &cfg, err, sizeof(err)), -EINVAL);
    cr_assert_not_null(strstr(err, "--sigv4-secret: longer than"), "%s", err);
}
