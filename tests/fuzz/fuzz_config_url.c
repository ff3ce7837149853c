/*
 * fuzz_config_url.c - URL resolution and URL redaction on arbitrary text.
 *
 * Input: a URL, optionally followed by a NUL and a custom endpoint. The first
 * byte picks the endpoint type and the streaming flag.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "config/config_internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    unsigned selector = data[0];
    char *text = malloc(size);
    if (text == NULL) {
        return 0;
    }
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    const char *custom = NULL;
    size_t url_len = strlen(text);
    if (url_len + 1 < size - 1 || (url_len + 1 == size - 1 && (selector & 0x80) != 0)) {
        custom = text + url_len + 1;
    }
    enum config_endpoint_type type = (enum config_endpoint_type)(selector % CONFIG_ENDPOINT_COUNT);
    struct config_target t;
    char err[256];
    int rc = config__resolve(text, type, custom, (selector & 0x40) != 0, &t, err, sizeof(err));
    if (rc == 0) {
        if (t.host[0] == '\0' || t.path[0] != '/' || t.port == 0 ||
            strpbrk(t.path, " \r\n\t") != NULL) {
            abort();
        }
    } else if (err[0] == '\0' || t.host[0] != '\0') {
        abort();
    }
    /* userinfo must never survive redaction: the authority starts with the marker */
    char redacted[512];
    if (rc == 0 && t.userinfo[0] != '\0' && config_redact_url(text, redacted, sizeof(redacted))) {
        const char *sep = strstr(redacted, "://");
        const char *authority =
            sep != NULL && sep < redacted + strcspn(redacted, "/?#") ? sep + 3 : redacted;
        if (strncmp(authority, CONFIG_REDACTED "@", strlen(CONFIG_REDACTED) + 1) != 0) {
            abort();
        }
    }
    free(text);
    return 0;
}
