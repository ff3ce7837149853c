/*
 * fuzz_config_proxy.c - config_no_proxy_match and config_proxy_for on arbitrary NO_PROXY
 * lists, host names and proxy URLs. The input is split at its first two NUL bytes into a
 * NO_PROXY list, a host, and a proxy URL.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 3);
    if (text == NULL) {
        return 0;
    }
    memcpy(text, data, size);
    text[size] = text[size + 1] = text[size + 2] = '\0';
    const char *list = text;
    const char *host = list + strlen(list) + 1;
    const char *url = host + strlen(host) + 1;
    if ((size_t)(url - text) > size + 2) {
        url = text + size + 2;
    }
    (void)config_no_proxy_match(list, host);
    size_t url_len = strlen(url);
    char *proxy_env = malloc(url_len + 16);
    char *no_proxy_env = malloc(strlen(list) + 16);
    if (proxy_env != NULL && no_proxy_env != NULL) {
        memcpy(proxy_env, "https_proxy=", 12);
        memcpy(proxy_env + 12, url, url_len + 1);
        memcpy(no_proxy_env, "no_proxy=", 9);
        memcpy(no_proxy_env + 9, list, strlen(list) + 1);
        char *env[] = {no_proxy_env, proxy_env, NULL};
        struct config_target target = {.scheme = CONFIG_SCHEME_HTTPS, .port = 443};
        snprintf(target.host, sizeof(target.host), "%s", host);
        struct config_proxy proxy;
        char err[256];
        if (config_proxy_for(env, &target, &proxy, err, sizeof(err)) == 0 && proxy.used) {
            /* The authority never carries credentials. */
            if (strchr(proxy.authority, '@') != NULL) {
                abort();
            }
        }
    }
    free(proxy_env);
    free(no_proxy_env);
    free(text);
    return 0;
}
