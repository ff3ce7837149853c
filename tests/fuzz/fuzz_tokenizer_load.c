/*
 * fuzz_tokenizer_load.c - libFuzzer target for tokenizer_load_buffer.
 *
 * The input is a tokenizer.json. Whatever it holds, loading either fails with
 * a message or gives a tokenizer that encodes a fixed sample and decodes the
 * ids back without error.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tokenizer/tokenizer.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[TOKENIZER_ERR_CAP];
    struct tokenizer *tok = NULL;
    char *copy = malloc(size + 1);
    if (copy == NULL) {
        return 0;
    }
    memcpy(copy, data, size);
    if (tokenizer_load_buffer(copy, size, "fuzz.json", &tok, err, sizeof(err)) != 0) {
        if (tok != NULL || strlen(err) == 0) {
            abort();
        }
        free(copy);
        return 0;
    }
    static const char sample[] = "hello world <|end|> 12345 \xe4\xbd\xa0\xe5\xa5\xbd \xff!";
    struct tokenizer_scratch s = {0};
    const uint32_t *ids;
    size_t count;
    if (tokenizer_encode(tok, &s, sample, sizeof(sample) - 1, &ids, &count) == TOKENIZER_OK) {
        uint32_t *kept = malloc((count + 1) * sizeof(*kept));
        if (kept != NULL) {
            memcpy(kept, ids, count * sizeof(*kept));
            const char *text;
            size_t len;
            if (tokenizer_decode(tok, &s, kept, count, &text, &len) != TOKENIZER_OK) {
                abort();
            }
            free(kept);
        }
    }
    tokenizer_scratch_free(&s);
    tokenizer_free(tok);
    free(copy);
    return 0;
}
