/*
 * config_command.c - `ringperf config validate FILE`, `ringperf config expand FILE` and
 * `ringperf config init`: command-line glue over config_file and config_template (config/).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "config/config.h"

static void print_config_usage(FILE *out)
{
    fprintf(out, "Usage: ringperf config validate FILE\n"
                 "       ringperf config expand FILE\n"
                 "       ringperf config init [--template NAME] [--model M] [--url U] "
                 "[--output FILE]\n"
                 "       ringperf config init --list [--category C] | --search WORD\n\n"
                 "validate  checks an AIPerf config file (config v2 YAML) as `ringperf profile "
                 "--config FILE` would,\n"
                 "          every variation of its sweep included; exit 0 when it is valid, 1 "
                 "when not\n"
                 "expand    prints its settings as one `ringperf profile` command line and the "
                 "variations\n"
                 "          its sweep: expands to, each with its flags\n"
                 "init      writes a starter config file (default template: minimal) to stdout "
                 "or --output;\n"
                 "          --list shows the templates by category, --search those matching "
                 "a word\n");
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

/* init_args is `config init`'s command line. */
struct init_args {
    const char *template_name;
    const char *model;
    const char *url;
    const char *output;
    const char *category;
    const char *search;
    bool list;
};

/* value_of returns the value of option argv[*i] (its next word, or after '='), moving *i. */
static const char *value_of(int argc, char **argv, int *i, const char *name)
{
    const char *eq = strchr(argv[*i], '=');
    if (eq != NULL) {
        return eq + 1;
    }
    if (*i + 1 >= argc) {
        fprintf(stderr, "ringperf config init: %s needs a value\n", name);
        return NULL;
    }
    return argv[++*i];
}

static bool is_option(const char *arg, const char *long_name, const char *short_name)
{
    size_t n = strlen(long_name);
    return strcmp(arg, short_name) == 0 ||
           (strncmp(arg, long_name, n) == 0 && (arg[n] == '\0' || arg[n] == '='));
}

static int parse_init(int argc, char **argv, struct init_args *out)
{
    static const char *const names[][2] = {{"--template", "-t"}, {"--model", "-m"},
                                           {"--url", "-u"},      {"--output", "-o"},
                                           {"--category", "-c"}, {"--search", "-s"}};
    *out = (struct init_args){.template_name = "minimal"};
    const char **slots[] = {&out->template_name, &out->model,    &out->url,
                            &out->output,        &out->category, &out->search};
    for (int i = 2; i < argc; i++) {
        if (is_option(argv[i], "--list", "-l") && strchr(argv[i], '=') == NULL) {
            out->list = true;
            continue;
        }
        size_t k = 0;
        while (k < 6 && !is_option(argv[i], names[k][0], names[k][1])) {
            k++;
        }
        if (k == 6) {
            fprintf(stderr,
                    "ringperf config init: unknown argument '%s'; see `ringperf config --help`\n",
                    argv[i]);
            return CONFIG_EXIT_INVALID;
        }
        *slots[k] = value_of(argc, argv, &i, names[k][0]);
        if (*slots[k] == NULL) {
            return CONFIG_EXIT_INVALID;
        }
    }
    return 0;
}

/* list_templates prints the templates that pass the --category and --search filters,
 * under their categories' names, as `aiperf config init --list` groups them. */
static int list_templates(const struct init_args *a)
{
    size_t count;
    const struct config_template *t = config_templates(&count);
    const char *shown = NULL;
    size_t matched = 0;
    for (size_t i = 0; i < count; i++) {
        bool in_category = a->category == NULL || config_template_in_category(&t[i], a->category);
        if (!in_category || (a->search != NULL && !config_template_matches(&t[i], a->search))) {
            continue;
        }
        if (shown == NULL || strcmp(shown, t[i].category) != 0) {
            printf("%s%s\n", shown != NULL ? "\n" : "", t[i].category);
            shown = t[i].category;
        }
        printf("  %-22s %s: %s\n", t[i].name, t[i].title, t[i].description);
        matched++;
    }
    if (matched == 0) {
        fprintf(stderr, "ringperf config init: no template matches%s%s%s%s\n",
                a->category != NULL ? " --category " : "", a->category != NULL ? a->category : "",
                a->search != NULL ? " --search " : "", a->search != NULL ? a->search : "");
        return CONFIG_EXIT_INVALID;
    }
    return 0;
}

static int write_template(const struct init_args *a)
{
    const struct config_template *t = config_template_find(a->template_name);
    if (t == NULL) {
        fprintf(stderr,
                "ringperf config init: --template: no template '%s'; `ringperf config init "
                "--list` shows them\n",
                a->template_name);
        return CONFIG_EXIT_INVALID;
    }
    FILE *out = a->output != NULL ? fopen(a->output, "w") : stdout;
    if (out == NULL) {
        fprintf(stderr, "ringperf config init: --output: cannot write %s: %s\n", a->output,
                strerror(errno));
        return CONFIG_EXIT_INVALID;
    }
    int ret = config_template_render(t, a->model, a->url, out);
    if (a->output != NULL && fclose(out) != 0 && ret == 0) {
        ret = -EIO;
    }
    if (ret == -EINVAL) {
        fprintf(stderr, "ringperf config init: --model and --url must be plain YAML words (no "
                        "'# ', ': ', quotes or a leading symbol); edit the file instead\n");
    } else if (ret != 0) {
        fprintf(stderr, "ringperf config init: cannot write the template: %s\n", strerror(-ret));
    } else if (a->output != NULL) {
        fprintf(stderr,
                "ringperf: wrote %s (template %s); check it with `ringperf config "
                "validate %s`\n",
                a->output, t->name, a->output);
    }
    return ret == 0 ? 0 : CONFIG_EXIT_INVALID;
}

static int init_main(int argc, char **argv)
{
    struct init_args a;
    int status = parse_init(argc, argv, &a);
    if (status != 0) {
        return status;
    }
    if (a.list || a.search != NULL || a.category != NULL) {
        return list_templates(&a);
    }
    return write_template(&a);
}

int cli_config_main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "init") == 0) {
        return init_main(argc, argv);
    }
    if (argc == 2 && (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0)) {
        print_config_usage(stdout);
        return 0;
    }
    bool known = argc == 3 && (strcmp(argv[1], "validate") == 0 || strcmp(argv[1], "expand") == 0);
    if (!known) {
        fprintf(stderr, "ringperf config: expected `validate FILE`, `expand FILE` or `init`\n\n");
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
