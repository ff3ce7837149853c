/*
 * sigv4.h - AWS Signature Version 4 request signing (AWS4-HMAC-SHA256), for SageMaker,
 * Bedrock and API Gateway endpoints.
 *
 * The module does no I/O: the caller describes a request (method, request-target, the headers
 * to sign, the body) and gets back the X-Amz-Date, X-Amz-Content-Sha256 and Authorization
 * values to send with it, plus the session token when the credentials have one. Hashing and
 * HMAC are BoringSSL's. A signer is meant to live on one thread (a shard): it keeps the day's
 * derived signing key ready and a scratch area for the canonical query, so that signing a
 * request allocates nothing.
 *
 * The canonical request follows AWS's rules as botocore's SigV4Auth applies them, which the
 * tests use as the oracle:
 * - the method is upper-cased;
 * - the path has its dot segments and empty segments removed (RFC 3986 5.2.4, plus AWS's
 *   "//" rule), keeps a trailing '/', and is percent-encoded again (every byte but
 *   A-Z a-z 0-9 - _ . ~ and '/'), so an already-encoded "%20" is signed as "%2520": the
 *   double encoding every AWS service but S3 expects;
 * - each query parameter is percent-decoded and re-encoded canonically (upper-case hex, the
 *   unreserved bytes literal), and the parameters are sorted by name, then value. For a query
 *   already in canonical form (what botocore itself sends) that is the query unchanged;
 * - header names are lower-cased and sorted, repeated names are joined with ',', values are
 *   trimmed and their runs of spaces and tabs collapsed to one space;
 * - the payload hash is the hex SHA-256 of the body.
 */
#ifndef RINGPERF_SIGV4_H
#define RINGPERF_SIGV4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "http/http.h"

/* Limits on what a signer takes and signs. Longer credentials are refused by
 * sigv4_signer_new(); a request beyond the others fails with the status named. */
#define SIGV4_ACCESS_KEY_MAX 128    /* bytes of an access key id */
#define SIGV4_SECRET_MAX 128        /* bytes of a secret access key */
#define SIGV4_TOKEN_MAX 4096        /* bytes of a session token (STS tokens run to ~2 KB) */
#define SIGV4_SCOPE_PART_MAX 64     /* bytes of a region or a service name */
#define SIGV4_HEADERS_MAX 32        /* caller headers per request (SIGV4_ERR_TOO_MANY_HEADERS) */
#define SIGV4_QUERY_BYTES_MAX 8192  /* canonical query bytes (SIGV4_ERR_QUERY_TOO_LONG) */
#define SIGV4_QUERY_PARAMS_MAX 256  /* query parameters (SIGV4_ERR_QUERY_TOO_LONG) */
#define SIGV4_PATH_SEGMENTS_MAX 256 /* path segments (SIGV4_ERR_PATH_TOO_LONG) */
#define SIGV4_AUTHORIZATION_MAX 1024

/* sigv4_credentials is one set of AWS credentials, NUL-terminated. session_token is "" for
 * long-term keys. A secret: whoever holds one must never print or export it. */
struct sigv4_credentials {
    char access_key_id[SIGV4_ACCESS_KEY_MAX + 1];
    char secret_access_key[SIGV4_SECRET_MAX + 1];
    char session_token[SIGV4_TOKEN_MAX + 1];
};

/* sigv4_request describes one request to sign; everything is borrowed for the call.
 * `target` is the request-target in origin form ("/path?query", no fragment). `headers` are
 * the headers to sign besides the three the signer owns and adds (X-Amz-Date,
 * X-Amz-Content-Sha256, X-Amz-Security-Token): at least Host. `unix_s` is the signing time,
 * seconds since the epoch (UTC). */
struct sigv4_request {
    const char *method;
    size_t method_len;
    const char *target;
    size_t target_len;
    const struct http_header *headers; /* views, as http/ writes them */
    size_t header_count;
    const void *body;
    size_t body_len;
    int64_t unix_s;
};

/* sigv4_signature is what to send with a signed request, each value NUL-terminated:
 * X-Amz-Date, X-Amz-Content-Sha256, Authorization and, when session_token is not NULL,
 * X-Amz-Security-Token (a view of the signer's copy, valid as long as the signer). */
struct sigv4_signature {
    char amz_date[17];       /* "20240131T235959Z" */
    char content_sha256[65]; /* hex SHA-256 of the body */
    char authorization[SIGV4_AUTHORIZATION_MAX];
    size_t authorization_len;
    const char *session_token;
    size_t session_token_len;
};

/* sigv4_status is what sigv4_sign() returns. */
enum sigv4_status {
    SIGV4_OK = 0,
    SIGV4_ERR_BAD_TARGET,       /* the request-target does not start with '/' */
    SIGV4_ERR_TOO_MANY_HEADERS, /* more than SIGV4_HEADERS_MAX caller headers */
    SIGV4_ERR_OWNED_HEADER,     /* a caller header the signer owns (x-amz-date, ...) */
    SIGV4_ERR_PATH_TOO_LONG,    /* more than SIGV4_PATH_SEGMENTS_MAX path segments */
    SIGV4_ERR_QUERY_TOO_LONG,   /* the canonical query exceeds its limits */
    SIGV4_ERR_AUTHORIZATION_TOO_LONG,
    SIGV4_ERR_BAD_TIME, /* unix_s before 1970 or after 9999 */
    SIGV4_ERR_CRYPTO,   /* BoringSSL failed (it does not, short of memory corruption) */
};

/* sigv4_status_name returns a short static description of s; never NULL. */
const char *sigv4_status_name(enum sigv4_status s);

struct sigv4_signer;

/* sigv4_aws_file_path writes the path of the shared credentials file (config false) or the
 * config file (true): $AWS_SHARED_CREDENTIALS_FILE / $AWS_CONFIG_FILE, else under $HOME/.aws.
 * False when neither the variable nor HOME says where. */
bool sigv4_aws_file_path(bool config, char *out, size_t cap);

/* sigv4_file_stamp is what tells a file changed: its identity, size and modification time. */
struct sigv4_file_stamp {
    bool present;
    unsigned long long dev;
    unsigned long long ino;
    long long size;
    long long mtime_s;
    long mtime_ns;
};

/* sigv4_watch notices when the files a profile's credentials come from change (watch.c), for
 * runs that outlive temporary credentials which a tool renews by rewriting the files. */
struct sigv4_watch {
    bool active; /* false: the credentials came from the environment, which cannot change */
    bool named;  /* profile was given (else AWS_PROFILE or "default", resolved at each load) */
    char profile[256];
    char path[2][4096]; /* the credentials file and the config file */
    struct sigv4_file_stamp stamp[2];
};

/* sigv4_watch_init starts watching the files of `profile` (NULL: as sigv4_credentials_load
 * resolves it), stamping them as they are now; call it when the credentials are loaded. */
void sigv4_watch_init(struct sigv4_watch *w, const char *profile);

/* sigv4_watch_poll stats the files again. When one changed (written, replaced, created or
 * removed) it loads the credentials again: returns 1 with them in *out (and where they came
 * from in source) when they differ from *current, 0 when nothing changed or they are the
 * same, and -errno with errbuf's message (no credential in it) when they could not be loaded;
 * a file changes again before it is read again. Never reads a file that did not change. */
int sigv4_watch_poll(struct sigv4_watch *w, const struct sigv4_credentials *current,
                     struct sigv4_credentials *out, char *source, size_t source_cap, char *errbuf,
                     size_t errcap);

/* sigv4_region_load finds the region when no --aws-region is given, as botocore does:
 * AWS_DEFAULT_REGION, else `region` in the profile's section of the shared credentials file,
 * else of the config file (botocore lays the first over the second; profile and files as
 * sigv4_credentials_load resolves them). AWS_REGION is not read (botocore does not). Writes the
 * region into out (cap bytes) and where it came from into source. Returns 0, or -ENOENT / -EINVAL
 * with a message in errbuf saying where it looked. */
int sigv4_region_load(const char *profile, char *out, size_t cap, char *source, size_t source_cap,
                      char *errbuf, size_t errcap);

/* sigv4_credentials_load fills *out with the credentials to sign with, in botocore's order
 * for the sources ringperf reads: without a profile, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY
 * and AWS_SESSION_TOKEN when AWS_ACCESS_KEY_ID is set; otherwise (and always when `profile` is
 * given) the section `profile` (else $AWS_PROFILE, else "default") of the shared credentials
 * file, $AWS_SHARED_CREDENTIALS_FILE or ~/.aws/credentials (aws_access_key_id,
 * aws_secret_access_key, aws_session_token), else, when that file or section is not there,
 * the profile's section of the config file, $AWS_CONFIG_FILE or ~/.aws/config ("[profile
 * NAME]", or "[default]"; the last such section of a file counts, as in botocore). Writes
 * where they came from into source (a file and profile, never a value). Returns 0, or -errno
 * with a message in errbuf that names the variable, file or profile and never a credential. */
int sigv4_credentials_load(const char *profile, struct sigv4_credentials *out, char *source,
                           size_t source_cap, char *errbuf, size_t errcap);

/* sigv4_signer_new makes a signer for credentials `creds` (copied) in scope region/service
 * (NUL-terminated, copied). Returns NULL when a credential or scope part is empty (the
 * session token may be) or too long, holds a byte that cannot go in a header (a control
 * character, or for the scope parts '/' and anything but visible ASCII), or memory runs out.
 * Allocates once, here. */
struct sigv4_signer *sigv4_signer_new(const struct sigv4_credentials *creds, const char *region,
                                      const char *service);

/* sigv4_credentials_check reports whether sigv4_signer_new takes creds' credentials: true, or
 * false with what is wrong in errbuf ("the secret access key holds a control character"),
 * naming the credential, never its value. */
bool sigv4_credentials_check(const struct sigv4_credentials *creds, char *errbuf, size_t errcap);

/* sigv4_signer_free wipes the signer's copy of the credentials and keys and frees it;
 * NULL is a no-op. */
void sigv4_signer_free(struct sigv4_signer *s);

/* sigv4_sign signs req into *out. Derives the day's signing key when the date differs from
 * the last request's and otherwise reuses it. Never allocates. Returns SIGV4_OK, or an error
 * with *out unspecified. */
enum sigv4_status sigv4_sign(struct sigv4_signer *s, const struct sigv4_request *req,
                             struct sigv4_signature *out);

/* sigv4_canonical_request writes the canonical request sigv4_sign() would hash for req at
 * amz_date (a sigv4_signature.amz_date) with payload hash content_sha256 into buf, without a
 * NUL. Returns its length (which may exceed cap: then only cap bytes were written), or
 * -(an sigv4_status). For tests and debugging. */
ssize_t sigv4_canonical_request(struct sigv4_signer *s, const struct sigv4_request *req,
                                const char *amz_date, const char *content_sha256, char *buf,
                                size_t cap);

/* sigv4_amz_date formats unix_s as X-Amz-Date ("YYYYMMDDTHHMMSSZ") into out. Returns false
 * (out untouched) for a time before 1970 or after 9999. */
bool sigv4_amz_date(int64_t unix_s, char out[17]);

/* sigv4_amz_date_parse reads an X-Amz-Date value (exactly "YYYYMMDDTHHMMSSZ", n bytes) into
 * *out_unix_s. Returns false for anything else, an impossible date included. */
bool sigv4_amz_date_parse(const char *s, size_t n, int64_t *out_unix_s);

#endif
