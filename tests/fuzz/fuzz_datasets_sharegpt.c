/*
 * fuzz_datasets_sharegpt.c - libFuzzer target for the streaming ShareGPT
 * loader (word counts: no tokenizer).
 *
 * The first byte sets --osl and entries_max; the rest is the file. Loading
 * either fails with a message naming the file, line and column, or gives
 * entries of one prompt that pass AIPerf's filter.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/datasets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t words(const char *text)
{
    size_t n = 0;
    int in_word = 0;
    for (const char *p = text; *p != '\0'; p++) {
        int space = *p == ' ' || *p == '\n' || *p == '\t' || *p == '\r';
        n += !space && !in_word;
        in_word = !space;
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    struct dataset_sharegpt_options opts = {
        .osl_set = (data[0] & 1) != 0,
        .entries_max = data[0] >> 5,
    };
    char err[DATASET_ERR_CAP];
    struct dataset_inputs *ds = NULL;
    int ret = dataset_sharegpt_load_buffer((const char *)data + 1, size - 1, "fuzz.json", &opts,
                                           &ds, err, sizeof(err));
    if (ret != 0) {
        if (ds != NULL || strncmp(err, "fuzz.json:", 10) != 0) {
            abort();
        }
        return 0;
    }
    size_t count = dataset_inputs_count(ds);
    if (count == 0 || (opts.entries_max > 0 && count > opts.entries_max)) {
        abort();
    }
    for (size_t i = 0; i < count; i++) {
        const struct dataset_entry *e = dataset_inputs_entry(ds, i);
        size_t prompt = words(e->texts[0]);
        if (e->text_count != 1 || prompt < 4 || prompt > 1024 || e->line == 0 ||
            (opts.osl_set && e->output_length != 0) ||
            (!opts.osl_set && (e->output_length < 4 || prompt + e->output_length > 2048))) {
            abort();
        }
    }
    dataset_inputs_free(ds);
    return 0;
}
