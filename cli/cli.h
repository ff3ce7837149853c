/*
 * cli.h - the `ringperf` command line: subcommands and their wiring.
 *
 * main() only dispatches; each subcommand is a function returning the process
 * exit code (0 success, 1 run or configuration error, 2 usage error).
 */
#ifndef RINGPERF_CLI_H
#define RINGPERF_CLI_H

/* cli_main dispatches argv (argv[0] is the program) to a subcommand. */
int cli_main(int argc, char **argv);

/* cli_profile_main runs `ringperf profile`; argv[0] is the word "profile". */
int cli_profile_main(int argc, char **argv);

/* cli_merge_main runs `ringperf merge DIR...` (cli/merge.c): one result
 * from the per-rank or per-shard artifact directories of a shared run;
 * argv[0] is the word "merge". */
int cli_merge_main(int argc, char **argv);

/* cli_config_main runs `ringperf config validate|expand FILE` (cli/config_command.c) on an
 * AIPerf config file; argv[0] is the word "config". */
int cli_config_main(int argc, char **argv);

#endif
