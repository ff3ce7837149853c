/*
 * mock_config.c - defaults, validation and command-line parsing of `ringperf mock-server`.
 *
 * One table describes every flag: its kind, the field it sets, its range and an example. Parsing,
 * validation and --help all read it, so an error always names the flag and shows a valid use.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock/mock.h"

#define DEFAULT_PORT 8000
#define DEFAULT_OUTPUT_TOKENS 16
#define DEFAULT_MAX_CONNECTIONS 4096
#define DEFAULT_BODY_KB (64u * 1024) /* 64 MiB: a prompt of about 16 million tokens */
#define RATE_SUM_SLACK 1e-9

enum flag_kind {
    FLAG_HOST,  /* const char *, non-empty */
    FLAG_PATH,  /* const char * */
    FLAG_PORT,  /* uint16_t */
    FLAG_COUNT, /* uint32_t within [min, max] */
    FLAG_KB,    /* uint32_t bytes, given in KiB within [min, max] */
    FLAG_MS,    /* double milliseconds, 0..MOCK_DELAY_MS_MAX */
    FLAG_RATE,  /* double percent, 0..100 */
    FLAG_SEED,  /* uint64_t */
};

struct flag {
    const char *name;
    enum flag_kind kind;
    size_t offset;
    uint32_t min;
    uint32_t max;
    const char *example;
    const char *help;
};

#define FIELD(f) offsetof(struct mock_config, f)

static const struct flag FLAGS[] = {
    {"--host", FLAG_HOST, FIELD(host), 0, 0, "127.0.0.1", "address to bind"},
    {"--port", FLAG_PORT, FIELD(port), 0, 65535, "8000", "TCP port; 0 picks a free one"},
    {"--threads", FLAG_COUNT, FIELD(threads), 1, MOCK_THREADS_MAX, "2",
     "worker threads, one io_uring each"},
    {"--ttft-ms", FLAG_MS, FIELD(ttft_ms), 0, 0, "50", "time to first token, ms"},
    {"--itl-ms", FLAG_MS, FIELD(itl_ms), 0, 0, "10", "inter-token latency per token, ms"},
    {"--ttft-jitter-ms", FLAG_MS, FIELD(ttft_jitter_ms), 0, 0, "5",
     "uniform +/- jitter on the TTFT, ms"},
    {"--itl-jitter-ms", FLAG_MS, FIELD(itl_jitter_ms), 0, 0, "1",
     "uniform +/- jitter on each inter-event gap, ms"},
    {"--tokens-per-chunk", FLAG_COUNT, FIELD(tokens_per_chunk), 1, MOCK_TOKENS_PER_CHUNK_MAX, "4",
     "tokens carried by each stream event"},
    {"--output-tokens", FLAG_COUNT, FIELD(output_tokens), 1, MOCK_OUTPUT_TOKENS_MAX, "128",
     "output length when the request sets no max tokens"},
    {"--error-500-rate", FLAG_RATE, FIELD(error_500_rate), 0, 0, "5",
     "percent of completions answered 500"},
    {"--error-429-rate", FLAG_RATE, FIELD(error_429_rate), 0, 0, "5",
     "percent answered 429 with Retry-After: 1"},
    {"--drop-rate", FLAG_RATE, FIELD(drop_rate), 0, 0, "5",
     "percent whose connection closes mid-response"},
    {"--stall-rate", FLAG_RATE, FIELD(stall_rate), 0, 0, "5",
     "percent that stop mid-response and hold the connection"},
    {"--malformed-rate", FLAG_RATE, FIELD(malformed_rate), 0, 0, "5",
     "percent carrying an invalid-JSON event or body"},
    {"--seed", FLAG_SEED, FIELD(seed), 0, 0, "42", "seed of the fault and jitter generator"},
    {"--token-log", FLAG_PATH, FIELD(token_log_path), 0, 0, "tokens.jsonl",
     "write one JSON line per emitted token to FILE"},
    {"--max-connections", FLAG_COUNT, FIELD(max_connections), 1, MOCK_CONNECTIONS_MAX, "10000",
     "open connections across all threads"},
    {"--spec-decode-tokens", FLAG_COUNT, FIELD(spec_decode_tokens), 0, MOCK_SPEC_DECODE_TOKENS_MAX,
     "3", "report vLLM speculative-decoding stats of K drafts per verify step"},
    {"--cache-hit-rate", FLAG_RATE, FIELD(cache_hit_rate), 0, 0, "50",
     "percent of prompt tokens reported as cached"},
    {"--max-body-kb", FLAG_KB, FIELD(max_body_bytes), 1, MOCK_BODY_KB_MAX, "4096",
     "largest request body accepted, KiB"},
    {"--control-busy", FLAG_COUNT, FIELD(control_busy), 0, 1000000, "2",
     "answer the first N control requests (cache reset, profiler) of each thread 503"},
    {"--sigv4-secret", FLAG_PATH, FIELD(sigv4_secret), 0, 0, "wJalrXUtnFEMI",
     "answer 403 to requests without a valid AWS SigV4 signature made with SECRET"},
    {"--sigv4-region", FLAG_PATH, FIELD(sigv4_region), 0, 0, "us-east-1",
     "with --sigv4-secret: the credential scope's region must be this"},
    {"--sigv4-service", FLAG_PATH, FIELD(sigv4_service), 0, 0, "sagemaker",
     "with --sigv4-secret: the credential scope's service must be this"},
};
#define FLAG_COUNT_ALL (sizeof(FLAGS) / sizeof(FLAGS[0]))

void mock_config_init(struct mock_config *out)
{
    *out = (struct mock_config){
        .host = "127.0.0.1",
        .port = DEFAULT_PORT,
        .threads = 1,
        .tokens_per_chunk = 1,
        .output_tokens = DEFAULT_OUTPUT_TOKENS,
        .max_connections = DEFAULT_MAX_CONNECTIONS,
        .max_body_bytes = DEFAULT_BODY_KB * 1024u,
        .session_header = "X-Correlation-ID",
    };
}

static void *field(struct mock_config *cfg, const struct flag *f)
{
    return (char *)cfg + f->offset;
}

static const void *cfield(const struct mock_config *cfg, const struct flag *f)
{
    return (const char *)cfg + f->offset;
}

/* range_error explains what values `f` takes; `text` is the rejected value as written. */
static int range_error(const struct flag *f, const char *text, bool syntax, char *errbuf,
                       size_t errcap)
{
    const char *what = syntax ? "is not a valid value" : "is out of range";
    switch (f->kind) {
    case FLAG_MS:
        snprintf(errbuf, errcap, "%s: '%s' %s; give milliseconds from 0 to %.0f, e.g. %s %s or 0.5",
                 f->name, text, syntax ? "is not a number" : what, MOCK_DELAY_MS_MAX, f->name,
                 f->example);
        break;
    case FLAG_RATE:
        snprintf(errbuf, errcap, "%s: '%s' %s; give a percentage from 0 to 100, e.g. %s %s",
                 f->name, text, syntax ? "is not a number" : what, f->name, f->example);
        break;
    case FLAG_PORT:
        snprintf(errbuf, errcap, "%s: '%s' %s; give 0 to 65535 (0 picks a free port), e.g. %s %s",
                 f->name, text, syntax ? "is not a whole number" : what, f->name, f->example);
        break;
    case FLAG_SEED:
        snprintf(errbuf, errcap, "%s: '%s' %s; give a whole number from 0 to %llu, e.g. %s %s",
                 f->name, text, syntax ? "is not a whole number" : what,
                 (unsigned long long)UINT64_MAX, f->name, f->example);
        break;
    case FLAG_HOST:
    case FLAG_PATH:
        snprintf(errbuf, errcap, "%s: empty value; give e.g. %s %s", f->name, f->name, f->example);
        break;
    case FLAG_COUNT:
    case FLAG_KB:
        snprintf(errbuf, errcap, "%s: '%s' %s; give a whole number from %u to %u, e.g. %s %s",
                 f->name, text, syntax ? "is not a whole number" : what, f->min, f->max, f->name,
                 f->example);
        break;
    }
    return -EINVAL;
}

static bool parse_u64(const char *s, uint64_t *out)
{
    if (*s < '0' || *s > '9') {
        return false;
    }
    char *end = NULL;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (*end != '\0' || errno != 0) {
        return false;
    }
    *out = (uint64_t)v;
    return true;
}

static bool parse_double(const char *s, double *out)
{
    /* strtod would skip leading blanks and accept "inf"/"nan": refuse both. */
    if (!((*s >= '0' && *s <= '9') || *s == '.' || *s == '-' || *s == '+')) {
        return false;
    }
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (*end != '\0' || errno != 0 || !isfinite(v)) {
        return false;
    }
    *out = v;
    return true;
}

static int set_number(struct mock_config *cfg, const struct flag *f, const char *text, char *errbuf,
                      size_t errcap)
{
    uint64_t u = 0;
    double d = 0;
    bool is_double = f->kind == FLAG_MS || f->kind == FLAG_RATE;
    if (is_double ? !parse_double(text, &d) : !parse_u64(text, &u)) {
        return range_error(f, text, true, errbuf, errcap);
    }
    switch (f->kind) {
    case FLAG_MS:
    case FLAG_RATE:
        if (d < 0 || d > (f->kind == FLAG_MS ? MOCK_DELAY_MS_MAX : 100.0)) {
            return range_error(f, text, false, errbuf, errcap);
        }
        *(double *)field(cfg, f) = d;
        return 0;
    case FLAG_SEED:
        *(uint64_t *)field(cfg, f) = u;
        return 0;
    case FLAG_PORT:
        if (u > 65535) {
            return range_error(f, text, false, errbuf, errcap);
        }
        *(uint16_t *)field(cfg, f) = (uint16_t)u;
        return 0;
    default:
        if (u < f->min || u > f->max) {
            return range_error(f, text, false, errbuf, errcap);
        }
        *(uint32_t *)field(cfg, f) = (uint32_t)(f->kind == FLAG_KB ? u * 1024u : u);
        return 0;
    }
}

static int set_flag(struct mock_config *cfg, const struct flag *f, const char *text, char *errbuf,
                    size_t errcap)
{
    if (f->kind == FLAG_HOST || f->kind == FLAG_PATH) {
        if (text[0] == '\0') {
            return range_error(f, text, false, errbuf, errcap);
        }
        *(const char **)field(cfg, f) = text;
        return 0;
    }
    return set_number(cfg, f, text, errbuf, errcap);
}

static const struct flag *find_flag(const char *arg, size_t name_len)
{
    for (size_t i = 0; i < FLAG_COUNT_ALL; i++) {
        if (strlen(FLAGS[i].name) == name_len && memcmp(FLAGS[i].name, arg, name_len) == 0) {
            return &FLAGS[i];
        }
    }
    return NULL;
}

/* parse_one handles argv[*i] (and its value); advances *i past what it used. */
static int parse_one(int argc, char **argv, int *i, struct mock_config *out, char *errbuf,
                     size_t errcap)
{
    const char *arg = argv[*i];
    if (strncmp(arg, "--", 2) != 0) {
        snprintf(errbuf, errcap,
                 "unexpected argument '%s'; mock-server takes only --flags (see --help)", arg);
        return -EINVAL;
    }
    const char *eq = strchr(arg, '=');
    size_t name_len = eq != NULL ? (size_t)(eq - arg) : strlen(arg);
    const struct flag *f = find_flag(arg, name_len);
    if (f == NULL) {
        snprintf(errbuf, errcap,
                 "unknown flag '%.*s'; run 'ringperf mock-server --help' for the list",
                 (int)name_len, arg);
        return -EINVAL;
    }
    const char *value = eq != NULL ? eq + 1 : NULL;
    if (value == NULL) {
        if (*i + 1 >= argc) {
            snprintf(errbuf, errcap, "%s: missing value; e.g. %s %s", f->name, f->name, f->example);
            return -EINVAL;
        }
        value = argv[++*i];
    }
    (*i)++;
    return set_flag(out, f, value, errbuf, errcap);
}

int mock_config_parse(int argc, char **argv, struct mock_config *out, char *errbuf, size_t errcap)
{
    mock_config_init(out);
    if (errcap > 0) {
        errbuf[0] = '\0';
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            return 1;
        }
    }
    int i = 1;
    while (i < argc) {
        int rc = parse_one(argc, argv, &i, out, errbuf, errcap);
        if (rc != 0) {
            return rc;
        }
    }
    return mock_config_validate(out, errbuf, errcap);
}

/* check_value re-checks one field of a configuration built in code. */
static int check_value(const struct mock_config *cfg, const struct flag *f, char *errbuf,
                       size_t errcap)
{
    char text[64];
    double d = 0;
    uint32_t u = 0;
    switch (f->kind) {
    case FLAG_HOST: {
        const char *s = *(const char *const *)cfield(cfg, f);
        return (s == NULL || s[0] == '\0') ? range_error(f, "", false, errbuf, errcap) : 0;
    }
    case FLAG_PATH:
    case FLAG_PORT:
    case FLAG_SEED:
        return 0;
    case FLAG_MS:
    case FLAG_RATE:
        d = *(const double *)cfield(cfg, f);
        snprintf(text, sizeof(text), "%g", d);
        if (!isfinite(d) || d < 0 || d > (f->kind == FLAG_MS ? MOCK_DELAY_MS_MAX : 100.0)) {
            return range_error(f, text, false, errbuf, errcap);
        }
        return 0;
    case FLAG_COUNT:
        u = *(const uint32_t *)cfield(cfg, f);
        snprintf(text, sizeof(text), "%u", u);
        return (u < f->min || u > f->max) ? range_error(f, text, false, errbuf, errcap) : 0;
    case FLAG_KB:
        /* Code may set any byte count; only the flag is in whole KiB. */
        u = *(const uint32_t *)cfield(cfg, f);
        snprintf(text, sizeof(text), "%u bytes", u);
        return (u == 0 || u / 1024u > f->max) ? range_error(f, text, false, errbuf, errcap) : 0;
    }
    return 0;
}

int mock_config_validate(const struct mock_config *cfg, char *errbuf, size_t errcap)
{
    if (errcap > 0) {
        errbuf[0] = '\0';
    }
    for (size_t i = 0; i < FLAG_COUNT_ALL; i++) {
        int rc = check_value(cfg, &FLAGS[i], errbuf, errcap);
        if (rc != 0) {
            return rc;
        }
    }
    double sum = cfg->error_500_rate + cfg->error_429_rate + cfg->drop_rate + cfg->stall_rate +
                 cfg->malformed_rate;
    if (sum > 100.0 + RATE_SUM_SLACK) {
        snprintf(errbuf, errcap,
                 "fault rates add up to %g%%; lower --error-500-rate, --error-429-rate, "
                 "--drop-rate, --stall-rate or --malformed-rate so they total at most 100",
                 sum);
        return -EINVAL;
    }
    if (cfg->sigv4_secret != NULL && strlen(cfg->sigv4_secret) > MOCK_SIGV4_SECRET_MAX) {
        snprintf(errbuf, errcap,
                 "--sigv4-secret: longer than the %d bytes of an AWS secret access key; give "
                 "the secret the client signs with",
                 MOCK_SIGV4_SECRET_MAX);
        return -EINVAL;
    }
    if ((cfg->sigv4_region != NULL || cfg->sigv4_service != NULL) && cfg->sigv4_secret == NULL) {
        snprintf(errbuf, errcap,
                 "--sigv4-region and --sigv4-service pin the scope of the signatures "
                 "--sigv4-secret checks: add --sigv4-secret SECRET");
        return -EINVAL;
    }
    if (cfg->max_connections < cfg->threads) {
        snprintf(errbuf, errcap,
                 "--max-connections: %u is fewer than --threads %u; give at least one "
                 "connection per thread",
                 cfg->max_connections, cfg->threads);
        return -EINVAL;
    }
    return 0;
}

static void print_default(FILE *out, const struct mock_config *d, const struct flag *f)
{
    switch (f->kind) {
    case FLAG_HOST:
        fprintf(out, " (default %s)", d->host);
        break;
    case FLAG_PORT:
        fprintf(out, " (default %u)", (unsigned)d->port);
        break;
    case FLAG_COUNT:
        fprintf(out, " (default %u)", *(const uint32_t *)cfield(d, f));
        break;
    case FLAG_KB:
        fprintf(out, " (default %u)", *(const uint32_t *)cfield(d, f) / 1024u);
        break;
    case FLAG_MS:
    case FLAG_RATE:
        fprintf(out, " (default %g)", *(const double *)cfield(d, f));
        break;
    case FLAG_SEED:
        fprintf(out, " (default 0)");
        break;
    case FLAG_PATH:
        fprintf(out, " (default off)");
        break;
    }
}

void mock_usage(FILE *out)
{
    struct mock_config d;
    mock_config_init(&d);
    fprintf(out, "usage: ringperf mock-server [flags]\n\n"
                 "An OpenAI-compatible mock inference server (POST /v1/chat/completions,\n"
                 "POST /v1/completions, GET /v1/models, GET /health, and a vLLM-shaped\n"
                 "Prometheus GET /metrics) for load tests.\n"
                 "Prints 'mock-server listening on http://HOST:PORT' once ready; stops on\n"
                 "SIGINT/SIGTERM. Fault rates are percentages and must total at most 100.\n\n"
                 "flags (--flag VALUE or --flag=VALUE):\n");
    for (size_t i = 0; i < FLAG_COUNT_ALL; i++) {
        const struct flag *f = &FLAGS[i];
        fprintf(out, "  %-20s %s", f->name, f->help);
        print_default(out, &d, f);
        fprintf(out, "\n");
    }
    fprintf(out, "  %-20s %s\n", "--help", "print this help");
}
