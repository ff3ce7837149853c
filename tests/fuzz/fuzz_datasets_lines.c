/*
 * fuzz_datasets_lines.c - the on-disk line reader: the bytes are written to
 * a file (an anonymous memfd, reached by its /proc path) that
 * dataset_inputs_count_records and dataset_inputs_load read as a user's
 * JSONL file.
 *
 * Invariants checked (abort on violation):
 *   - the record count equals an independent restatement of the rule: lines
 *     split at '\n', a last line without one counts, lines of only spaces,
 *     tabs and '\r' are blank, and a NUL byte anywhere refuses the file;
 *   - a load that succeeds gives entries whose line numbers are within the
 *     file and never decrease, and whose texts hold no NUL byte;
 *   - a load that fails says why, naming the file.
 * The first byte picks the --custom-dataset-type (auto-detection included).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "datasets/datasets.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool blank(const uint8_t *line, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        if (line[i] != ' ' && line[i] != '\t' && line[i] != '\r') {
            return false;
        }
    }
    return true;
}

/* expected_records restates the counting rule; -1 when a NUL refuses it. */
static int64_t expected_records(const uint8_t *data, size_t size, uint64_t *out_lines)
{
    if (memchr(data, '\0', size) != NULL) {
        return -1;
    }
    int64_t count = 0;
    uint64_t lines = 0;
    size_t start = 0;
    for (size_t i = 0; i <= size; i++) {
        if (i == size && start == size) {
            break;
        }
        if (i == size || data[i] == '\n') {
            lines++;
            count += !blank(data + start, i - start);
            start = i + 1;
        }
    }
    *out_lines = lines;
    return count;
}

static void check_load(const char *path, uint8_t type_byte, uint64_t lines)
{
    struct dataset_inputs_options opts = {
        .path = path,
        .type = (enum dataset_input_type)(type_byte % (DATASET_INPUT_INPUTS_JSON + 1)),
    };
    struct dataset_inputs *ds = NULL;
    char err[DATASET_ERR_CAP] = "";
    if (dataset_inputs_load(&opts, &ds, err, sizeof(err)) != 0) {
        if (ds != NULL || strstr(err, path) == NULL) {
            abort();
        }
        return;
    }
    uint64_t last = 0;
    for (size_t i = 0; i < dataset_inputs_count(ds); i++) {
        const struct dataset_entry *e = dataset_inputs_entry(ds, i);
        if (dataset_inputs_type(ds) != DATASET_INPUT_INPUTS_JSON &&
            (e->line < 1 || e->line > lines || e->line < last)) {
            abort();
        }
        last = e->line;
        for (size_t t = 0; t < e->text_count; t++) {
            (void)strlen(e->texts[t]);
        }
    }
    dataset_inputs_free(ds);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) {
        return 0;
    }
    int fd = memfd_create("fuzz.jsonl", 0);
    if (fd < 0 || write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
        abort();
    }
    char path[64];
    snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
    uint64_t lines = 0;
    int64_t want = expected_records(data + 1, size - 1, &lines);
    uint64_t count = 0;
    char err[DATASET_ERR_CAP] = "";
    int ret = dataset_inputs_count_records(path, &count, err, sizeof(err));
    if (want < 0 ? ret == 0 : (ret != 0 || count != (uint64_t)want)) {
        abort();
    }
    check_load(path, data[0], lines);
    close(fd);
    return 0;
}
