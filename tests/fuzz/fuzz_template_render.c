/*
 * fuzz_template_render.c - template_compile on arbitrary sources (in an
 * allocation of their own, so that ASan catches an over-read) and
 * template_render of what compiles, over the variables AIPerf's template
 * endpoint passes.
 *
 * Invariants checked (abort on violation): a refusal leaves *out NULL and
 * has a "line L, column C: " message; a rendering returns 0 with output of
 * the length it reports and no NUL inside, or -EINVAL with a message and no
 * output.
 */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "template/template.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const VARS =
    "{\"texts\":[\"a <b> & 'q'\",\"two\"],\"text\":\"a <b> & 'q'\",\"images\":[\"data:x\"],"
    "\"image\":\"data:x\",\"audios\":[],\"audio\":null,\"videos\":[],\"video\":null,"
    "\"queries\":[],\"query\":null,\"passages\":[],\"passage\":null,"
    "\"texts_by_name\":{\"query\":[\"q\"]},\"images_by_name\":{},\"audios_by_name\":{},"
    "\"videos_by_name\":{},\"model\":\"m\",\"max_tokens\":16,\"role\":\"user\",\"stream\":true,"
    "\"turn\":{\"texts\":[{\"name\":null,\"contents\":[\"a\"]}],\"model\":\"m\",\"max_tokens\":16},"
    "\"turns\":[],\"request_info\":{\"conversation_id\":\"c\",\"turn_index\":0},"
    "\"real\":0.1,\"n\":-3}";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static json_t *vars;
    if (vars == NULL) {
        vars = json_loads(VARS, 0, NULL);
    }
    char *src = malloc(size + 1);
    if (src == NULL || vars == NULL) {
        free(src);
        return 0;
    }
    memcpy(src, data, size);
    src[size] = '\0';
    struct template *t = (struct template *)1;
    char err[512] = "";
    int rc = template_compile(src, size, &t, err, sizeof(err));
    if (rc == -EINVAL && (t != NULL || strncmp(err, "line ", 5) != 0)) {
        abort();
    }
    if (rc == 0) {
        char *out = (char *)1;
        size_t len = 0;
        rc = template_render(t, vars, &out, &len, err, sizeof(err));
        if (rc == 0 && (out == NULL || strlen(out) != len)) {
            abort();
        }
        if (rc == -EINVAL && (out != NULL || strncmp(err, "line ", 5) != 0)) {
            abort();
        }
        free(rc == 0 ? out : NULL);
        template_free(t);
    }
    free(src);
    return 0;
}
