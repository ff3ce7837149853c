#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

#include "config/config.h"
#include "mock/mock.h"

static void print_usage(FILE *out)
{
    fprintf(out,
            "ringperf %s - benchmark client for LLM inference servers "
            "(NVIDIA AIPerf compatible)\n\n"
            "Usage: ringperf COMMAND [FLAGS]\n\n"
            "Commands:\n"
            "  profile       run a benchmark (takes `aiperf profile` flags; see "
            "`ringperf profile --help`)\n"
            "  mock-server   start an OpenAI-compatible mock inference server (see "
            "`ringperf mock-server --help`)\n"
            "  config        check an AIPerf config file or list its sweep's variations (see "
            "`ringperf config --help`)\n"
            "  merge         merge the per-rank or per-shard results of one run (see "
            "`ringperf merge --help`)\n"
            "  plot          draw the plots and report.html of finished runs (see "
            "`ringperf plot --help`)\n\n"
            "Flags:\n"
            "  -h, --help    show this help\n"
            "  --version     print the version\n",
            RINGPERF_VERSION);
}

int cli_main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        print_usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? CONFIG_EXIT_INVALID : 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("ringperf %s\n", RINGPERF_VERSION);
        return 0;
    }
    if (strcmp(argv[1], "profile") == 0) {
        return cli_profile_main(argc - 1, argv + 1);
    }
    if (strcmp(argv[1], "config") == 0) {
        return cli_config_main(argc - 1, argv + 1);
    }
    if (strcmp(argv[1], "merge") == 0) {
        return cli_merge_main(argc - 1, argv + 1);
    }
    if (strcmp(argv[1], "plot") == 0) {
        return cli_plot_main(argc - 1, argv + 1);
    }
    if (strcmp(argv[1], "mock-server") == 0) {
        return mock_main(argc - 1, argv + 1);
    }
    fprintf(stderr,
            "ringperf: unknown command '%s'; the commands are profile, config, merge, plot and "
            "mock-server "
            "(see ringperf --help)\n",
            argv[1]);
    return CONFIG_EXIT_INVALID;
}
