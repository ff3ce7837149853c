/*
 * fuzz_datasets_inputs.c - libFuzzer target for the input-file loaders.
 *
 * The first byte picks the --custom-dataset-type (auto-detection included);
 * the rest is the file. Loading either fails with a message or gives entries
 * whose views are readable and whose payloads are compact copies.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/datasets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    struct dataset_inputs_options opts = {
        .type = (enum dataset_input_type)(data[0] % (DATASET_INPUT_INPUTS_JSON + 1)),
        .entries_max = data[0] >> 4,
    };
    char err[DATASET_ERR_CAP];
    struct dataset_inputs *ds = NULL;
    int ret = dataset_inputs_load_buffer((const char *)data + 1, size - 1, "fuzz.jsonl", &opts, &ds,
                                         err, sizeof(err));
    if (ret != 0) {
        if (ds != NULL || strlen(err) == 0) {
            abort();
        }
        return 0;
    }
    size_t total = 0;
    for (size_t i = 0; i < dataset_inputs_count(ds); i++) {
        const struct dataset_entry *e = dataset_inputs_entry(ds, i);
        total += e->payload != NULL ? strlen(e->payload) : 0;
        for (size_t t = 0; t < e->text_count; t++) {
            total += strlen(e->texts[t]);
        }
        for (size_t h = 0; h < e->hash_id_count; h++) {
            total += (size_t)(e->hash_ids[h] & 1);
        }
        if (e->payload != NULL && e->payload_len != strlen(e->payload)) {
            abort();
        }
    }
    dataset_inputs_free(ds);
    return total == SIZE_MAX;
}
