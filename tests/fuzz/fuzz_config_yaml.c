/*
 * fuzz_config_yaml.c - config_file_load_text on arbitrary bytes: libfyaml's document, the
 * key tables, ${VAR} substitution, units and the sweep translation.
 *
 * The input is copied into its own allocation so that ASan catches a read past it. A file
 * that loads is parsed (first variation and the whole run), labelled and expanded; a parse
 * failure must leave a message, and the variations of a loaded sweep are bounded.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void parse_variation(const struct config_file *file, size_t variation)
{
    struct profile_config cfg;
    char err[512] = "";
    int rc = config_parse_file(file, variation, 0, NULL, &cfg, err, sizeof(err));
    if (rc != 0 && err[0] == '\0') {
        abort(); /* every refusal explains itself */
    }
    if (rc == 0) {
        config_free(&cfg);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (text == NULL) {
        return 0;
    }
    memcpy(text, data, size);
    char *env[] = {"MODEL=m", "RATE=2.5", "EMPTY=", NULL};
    struct config_file *file = NULL;
    char err[512] = "";
    int rc = config_file_load_text(text, size, "fuzz.yaml", env, &file, err, sizeof(err));
    if (rc != 0 && (err[0] == '\0' || file != NULL)) {
        abort();
    }
    if (rc == 0) {
        size_t count = config_file_variation_count(file);
        if (count == 0) {
            abort();
        }
        char label[512];
        if (count <= CONFIG_FILE_VARIATIONS_MAX) {
            (void)config_file_variation_label(file, count - 1, label, sizeof(label));
            parse_variation(file, count - 1);
        }
        parse_variation(file, CONFIG_FILE_WHOLE_SWEEP);
        FILE *sink = fopen("/dev/null", "w");
        if (sink != NULL) {
            (void)config_file_print_expansion(file, sink);
            fclose(sink);
        }
        config_file_free(file);
    }
    free(text);
    return 0;
}
