/*
 * test_url.c - resolving --url and the endpoint into host, port and path.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/config_internal.h"
#include "config_test_util.h"

/* ------------------------------------------------------------ URL resolution */

struct url_case {
    const char *url;
    enum config_endpoint_type type;
    const char *custom; /* NULL = not given */
    bool streaming;
    int rc;
    const char *host;
    unsigned port;
    const char *authority;
    const char *path;
};

static const struct url_case url_cases[] = {
    {"localhost:8000", CONFIG_ENDPOINT_CHAT, NULL, false, 0, "localhost", 8000, "localhost:8000",
     "/v1/chat/completions"},
    {"http://localhost:8000", CONFIG_ENDPOINT_CHAT, NULL, false, 0, "localhost", 8000,
     "localhost:8000", "/v1/chat/completions"},
    {"http://localhost:8000/", CONFIG_ENDPOINT_CHAT, NULL, false, 0, "localhost", 8000,
     "localhost:8000", "/v1/chat/completions"},
    {"http://localhost:8000///", CONFIG_ENDPOINT_CHAT, NULL, false, 0, "localhost", 8000,
     "localhost:8000", "/v1/chat/completions"},
    {"HTTP://Example.COM", CONFIG_ENDPOINT_CHAT, NULL, false, 0, "Example.COM", 80, "Example.COM",
     "/v1/chat/completions"},
    {"http://localhost:8000/api/inference", CONFIG_ENDPOINT_CHAT, NULL, false, 0, "localhost", 8000,
     "localhost:8000", "/api/inference/v1/chat/completions"},
    /* /v1 de-duplication applies to the endpoint type's default path only */
    {"http://localhost:8000/v1", CONFIG_ENDPOINT_CHAT, NULL, false, 0, "localhost", 8000,
     "localhost:8000", "/v1/chat/completions"},
    {"localhost:8000/v1/", CONFIG_ENDPOINT_COMPLETIONS, NULL, false, 0, "localhost", 8000,
     "localhost:8000", "/v1/completions"},
    {"http://localhost:8000/v1", CONFIG_ENDPOINT_EMBEDDINGS, NULL, false, 0, "localhost", 8000,
     "localhost:8000", "/v1/embeddings"},
    {"http://localhost:8000/v1", CONFIG_ENDPOINT_NIM_RANKINGS, NULL, false, 0, "localhost", 8000,
     "localhost:8000", "/v1/ranking"},
    {"http://localhost:8000/v1/extra", CONFIG_ENDPOINT_CHAT, NULL, false, 0, "localhost", 8000,
     "localhost:8000", "/v1/extra/v1/chat/completions"},
    {"http://localhost:8000/v1", CONFIG_ENDPOINT_COHERE_RANKINGS, NULL, false, 0, "localhost", 8000,
     "localhost:8000", "/v1/v2/rerank"},
    /* custom endpoints replace the path and are never de-duplicated */
    {"http://localhost:8000", CONFIG_ENDPOINT_CHAT, "/custom/path", false, 0, "localhost", 8000,
     "localhost:8000", "/custom/path"},
    {"http://localhost:8000", CONFIG_ENDPOINT_CHAT, "///custom/path", false, 0, "localhost", 8000,
     "localhost:8000", "/custom/path"},
    {"http://localhost:8000", CONFIG_ENDPOINT_CHAT, "custom/path", false, 0, "localhost", 8000,
     "localhost:8000", "/custom/path"},
    {"http://localhost:8000/v1", CONFIG_ENDPOINT_CHAT, "v1/custom/endpoint", false, 0, "localhost",
     8000, "localhost:8000", "/v1/v1/custom/endpoint"},
    {"http://localhost:8000/v1", CONFIG_ENDPOINT_CHAT, "/api/v1/custom", false, 0, "localhost",
     8000, "localhost:8000", "/v1/api/v1/custom"},
    {"http://localhost:8000/v1", CONFIG_ENDPOINT_CHAT, "v1/", false, 0, "localhost", 8000,
     "localhost:8000", "/v1/v1/"},
    {"http://localhost:8000/base", CONFIG_ENDPOINT_CHAT, "", false, 0, "localhost", 8000,
     "localhost:8000", "/base"},
    {"http://localhost:8000", CONFIG_ENDPOINT_CHAT, "", false, 0, "localhost", 8000,
     "localhost:8000", "/"},
    /* endpoint types without a path, and the streaming variant of TGI */
    {"http://h:1/full/path", CONFIG_ENDPOINT_RAW, NULL, false, 0, "h", 1, "h:1", "/full/path"},
    {"http://h:1", CONFIG_ENDPOINT_TEMPLATE, NULL, false, 0, "h", 1, "h:1", "/"},
    {"http://h:1", CONFIG_ENDPOINT_HUGGINGFACE_GENERATE, NULL, false, 0, "h", 1, "h:1",
     "/generate"},
    {"http://h:1", CONFIG_ENDPOINT_HUGGINGFACE_GENERATE, NULL, true, 0, "h", 1, "h:1",
     "/generate_stream"},
    {"h:1", CONFIG_ENDPOINT_MESSAGES, NULL, false, 0, "h", 1, "h:1", "/v1/messages"},
    {"h:1", CONFIG_ENDPOINT_HF_TEI_RANKINGS, NULL, false, 0, "h", 1, "h:1", "/rerank"},
    /* query strings are kept; fragments dropped */
    {"http://h:1/v1?api-version=2024", CONFIG_ENDPOINT_CHAT, NULL, false, 0, "h", 1, "h:1",
     "/v1/chat/completions?api-version=2024"},
    {"h:1?a=b#frag", CONFIG_ENDPOINT_COMPLETIONS, NULL, false, 0, "h", 1, "h:1",
     "/v1/completions?a=b"},
    {"h:1?a=b", CONFIG_ENDPOINT_CHAT, "/x?c=d", false, 0, "h", 1, "h:1", "/x?c=d&a=b"},
    {"h:1/p#frag?not-query", CONFIG_ENDPOINT_RAW, NULL, false, 0, "h", 1, "h:1", "/p"},
    /* ports, IPv6 literals, userinfo */
    {"http://example.com", CONFIG_ENDPOINT_CHAT, NULL, false, 0, "example.com", 80, "example.com",
     "/v1/chat/completions"},
    {"http://example.com:80", CONFIG_ENDPOINT_CHAT, NULL, false, 0, "example.com", 80,
     "example.com", "/v1/chat/completions"},
    {"http://[::1]:8000/v1", CONFIG_ENDPOINT_CHAT, NULL, false, 0, "::1", 8000, "[::1]:8000",
     "/v1/chat/completions"},
    {"[fe80::1]", CONFIG_ENDPOINT_CHAT, NULL, false, 0, "fe80::1", 80, "[fe80::1]",
     "/v1/chat/completions"},
    {"http://user:pa@ss@h:5", CONFIG_ENDPOINT_CHAT, NULL, false, 0, "h", 5, "h:5",
     "/v1/chat/completions"},
    {"127.0.0.1:65535", CONFIG_ENDPOINT_CHAT, NULL, false, 0, "127.0.0.1", 65535, "127.0.0.1:65535",
     "/v1/chat/completions"},
    /* rejected */
    {"grpc://h:1", CONFIG_ENDPOINT_CHAT, NULL, false, -EINVAL, NULL, 0, NULL, NULL},
    {"://h:1", CONFIG_ENDPOINT_CHAT, NULL, false, -EINVAL, NULL, 0, NULL, NULL},
    {"", CONFIG_ENDPOINT_CHAT, NULL, false, -EINVAL, NULL, 0, NULL, NULL},
    {"h:", CONFIG_ENDPOINT_CHAT, NULL, false, -EINVAL, NULL, 0, NULL, NULL},
    {"h:-1", CONFIG_ENDPOINT_CHAT, NULL, false, -EINVAL, NULL, 0, NULL, NULL},
    {"h:123456", CONFIG_ENDPOINT_CHAT, NULL, false, -EINVAL, NULL, 0, NULL, NULL},
    {"h:1:2", CONFIG_ENDPOINT_CHAT, NULL, false, -EINVAL, NULL, 0, NULL, NULL},
    {"ho st:1", CONFIG_ENDPOINT_CHAT, NULL, false, -EINVAL, NULL, 0, NULL, NULL},
    {"[::1", CONFIG_ENDPOINT_CHAT, NULL, false, -EINVAL, NULL, 0, NULL, NULL},
    {"[]:80", CONFIG_ENDPOINT_CHAT, NULL, false, -EINVAL, NULL, 0, NULL, NULL},
    {"[::g]:80", CONFIG_ENDPOINT_CHAT, NULL, false, -EINVAL, NULL, 0, NULL, NULL},
    {"h:1/a\tb", CONFIG_ENDPOINT_CHAT, NULL, false, -EINVAL, NULL, 0, NULL, NULL},
    {"h:1", CONFIG_ENDPOINT_CHAT, "/a\r\nb", false, -EINVAL, NULL, 0, NULL, NULL},
    {"h:1", CONFIG_ENDPOINT_COUNT, NULL, false, -EINVAL, NULL, 0, NULL, NULL},
};

Test(config_url, resolves_base_url_and_endpoint_path_as_aiperf_does)
{
    for (size_t i = 0; i < sizeof(url_cases) / sizeof(url_cases[0]); i++) {
        const struct url_case *uc = &url_cases[i];
        struct config_target t;
        char err[256] = "";
        int rc =
            config__resolve(uc->url, uc->type, uc->custom, uc->streaming, &t, err, sizeof(err));
        cr_assert_eq(rc, uc->rc, "case %zu (%s): rc %d, want %d (%s)", i, uc->url, rc, uc->rc, err);
        if (rc != 0) {
            cr_assert_neq(err[0], '\0', "case %zu has a message", i);
            continue;
        }
        cr_assert_str_eq(t.host, uc->host, "case %zu", i);
        cr_assert_eq(t.port, uc->port, "case %zu", i);
        cr_assert_str_eq(t.authority, uc->authority, "case %zu", i);
        cr_assert_str_eq(t.path, uc->path, "case %zu (%s)", i, uc->url);
        cr_assert_eq(t.scheme, CONFIG_SCHEME_HTTP);
    }
}

Test(config_url, resolves_each_configured_url_with_the_parsed_endpoint)
{
    struct profile_config cfg;
    char err[256];
    cr_assert_eq(parse(W("-m", "x", "-u", "a:1/v1", "b:2", "--endpoint-type", "embeddings"), &cfg,
                       err, sizeof(err)),
                 0, "%s", err);
    struct config_target t;
    cr_assert_eq(config_resolve_url(&cfg, 0, &t, err, sizeof(err)), 0);
    cr_assert_str_eq(t.path, "/v1/embeddings");
    cr_assert_eq(config_resolve_url(&cfg, 1, &t, err, sizeof(err)), 0);
    cr_assert_str_eq(t.host, "b");
    cr_assert_eq(config_resolve_url(&cfg, 2, &t, err, sizeof(err)), -EINVAL);
    config_free(&cfg);
}

Test(config_url, keeps_userinfo_for_basic_auth)
{
    struct config_target t;
    char err[128];
    cr_assert_eq(config__resolve("http://al:pw@h:1", CONFIG_ENDPOINT_CHAT, NULL, false, &t, err,
                                 sizeof(err)),
                 0);
    cr_assert_str_eq(t.userinfo, "al:pw");
    cr_assert_eq(config__resolve("h:1", CONFIG_ENDPOINT_CHAT, NULL, false, &t, err, sizeof(err)),
                 0);
    cr_assert_str_eq(t.userinfo, "");
}

Test(config_url, resolves_https_to_port_443_and_a_bare_host_for_sni)
{
    static const struct {
        const char *url;
        const char *host;
        unsigned port;
        const char *authority;
    } cases[] = {
        {"https://api.openai.com", "api.openai.com", 443, "api.openai.com"},
        {"HTTPS://Example.com:443/v1", "Example.com", 443, "Example.com"},
        {"https://h:8443", "h", 8443, "h:8443"},
        {"https://h:80", "h", 80, "h:80"},
        {"https://[::1]", "::1", 443, "[::1]"},
        {"https://[::1]:9443/", "::1", 9443, "[::1]:9443"},
        {"https://127.0.0.1:8443", "127.0.0.1", 8443, "127.0.0.1:8443"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct config_target t;
        char err[256] = "";
        int rc =
            config__resolve(cases[i].url, CONFIG_ENDPOINT_CHAT, NULL, false, &t, err, sizeof(err));
        cr_assert_eq(rc, 0, "%s: %s", cases[i].url, err);
        cr_assert_eq(t.scheme, CONFIG_SCHEME_HTTPS, "%s", cases[i].url);
        cr_assert_str_eq(t.host, cases[i].host, "%s", cases[i].url);
        cr_assert_eq(t.port, cases[i].port, "%s", cases[i].url);
        cr_assert_str_eq(t.authority, cases[i].authority, "%s", cases[i].url);
        cr_assert_str_eq(t.path, "/v1/chat/completions", "%s", cases[i].url);
    }
    struct config_target t;
    char err[256] = "";
    cr_assert_eq(
        config__resolve("https://", CONFIG_ENDPOINT_CHAT, NULL, false, &t, err, sizeof(err)),
        -EINVAL);
    cr_assert_not_null(strstr(err, "host"), "%s", err);
}

Test(config_url, endpoint_tables_match_the_spec)
{
    cr_assert_str_eq(config_endpoint_type_name(CONFIG_ENDPOINT_CHAT), "chat");
    cr_assert_str_eq(config_endpoint_type_name(CONFIG_ENDPOINT_NIM_RANKINGS), "nim_rankings");
    cr_assert_str_eq(config_endpoint_type_name(CONFIG_ENDPOINT_COUNT), "unknown");
    cr_assert_str_eq(config_endpoint_default_path(CONFIG_ENDPOINT_CHAT), "/v1/chat/completions");
    cr_assert_str_eq(config_endpoint_default_path(CONFIG_ENDPOINT_SOLIDO_RAG), "/rag/api/prompt");
    cr_assert_str_eq(config_endpoint_default_path(CONFIG_ENDPOINT_AUDIO_TRANSCRIPTION),
                     "/v1/audio/transcriptions");
    cr_assert_str_eq(config_endpoint_default_path(CONFIG_ENDPOINT_RAW), "");
    cr_assert(config_endpoint_supports_streaming(CONFIG_ENDPOINT_CHAT));
    cr_assert(config_endpoint_supports_streaming(CONFIG_ENDPOINT_IMAGE_GENERATION));
    cr_assert_not(config_endpoint_supports_streaming(CONFIG_ENDPOINT_EMBEDDINGS));
    cr_assert(config_endpoint_produces_tokens(CONFIG_ENDPOINT_COMPLETIONS));
    cr_assert_not(config_endpoint_produces_tokens(CONFIG_ENDPOINT_IMAGE_GENERATION));
    cr_assert_not(config_endpoint_produces_tokens(CONFIG_ENDPOINT_COUNT));
}
