/*
 * config_command.c - `ringperf config validate FILE` and `ringperf config expand FILE`:
 * command-line glue over config_file (config/).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "config/config.h"

static void print_config_usage(FILE *out)
{
    fprintf(out, "Usage: ringperf config validate FILE\n"
                 "       ringperf config expand FILE\n\n"
                 "validate  checks an AIPerf config file (config v2 YAML) as `ringperf profile "
                 "--config FILE` would,\n"
                 "          every variation of its sweep included; exit 0 when it is valid, 1 "
                 "when not\n"
                 "expand    prints its settings as one `ringperf profile` command line and the "
                 "variations\n"
                 "          its sweep: expands to, each with its flags\n");
}

/* validate parses every variation as a run would, and names the first that fails. */
static int validate(const struct config_file *file, const char *path)
{
    size_t count = config_file_variation_count(file);
    if (count > CONFIG_FILE_VARIATIONS_MAX) {
        fprintf(stderr, "ringperf: %s: the sweep has more than %d variations\n", path,
                CONFIG_FILE_VARIATIONS_MAX);
        return CONFIG_EXIT_INVALID;
    }
    for (size_t v = 0; v < count; v++) {
        struct profile_config cfg;
        char errbuf[1024];
        if (config_parse_file(file, v, 0, NULL, &cfg, errbuf, sizeof(errbuf)) != 0) {
            char label[512] = "";
            if (count > 1 && config_file_variation_label(file, v, label, sizeof(label)) == 0) {
                fprintf(stderr, "ringperf: variation [%zu] %s: %s\n", v + 1, label, errbuf);
            } else {
                fprintf(stderr, "ringperf: %s\n", errbuf);
            }
            return CONFIG_EXIT_INVALID;
        }
        config_free(&cfg);
    }
    printf("%s: valid (%zu variation%s)\n", path, count, count == 1 ? "" : "s");
    return 0;
}

int cli_config_main(int argc, char **argv)
{
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        print_config_usage(stdout);
        return 0;
    }
    bool known = argc == 3 && (strcmp(argv[1], "validate") == 0 || strcmp(argv[1], "expand") == 0);
    if (!known) {
        fprintf(stderr, "ringperf config: expected `validate FILE` or `expand FILE`\n\n");
        print_config_usage(stderr);
        return CONFIG_EXIT_INVALID;
    }
    struct config_file *file = NULL;
    char errbuf[1024];
    if (config_file_load(argv[2], environ, &file, errbuf, sizeof(errbuf)) != 0) {
        fprintf(stderr, "ringperf: %s\n", errbuf);
        return CONFIG_EXIT_INVALID;
    }
    int status = 0;
    if (strcmp(argv[1], "validate") == 0) {
        status = validate(file, argv[2]);
    } else if (config_file_print_expansion(file, stdout) != 0) {
        status = CONFIG_EXIT_INVALID;
    }
    config_file_free(file);
    return status;
}
