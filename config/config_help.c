/*
 * config_help.c - `ringperf profile --help`, generated from the flag table.
 */
#include <string.h>

#include "config/config_internal.h"

#define HELP_WIDTH 100
#define HELP_INDENT 6

/* group_names are AIPerf's help headings of the flag groups. */
static const char *const group_names[CONFIG__G_COUNT] = {
    [CONFIG__G_ENDPOINT] = "Endpoint",
    [CONFIG__G_TOKENIZER] = "Tokenizer",
    [CONFIG__G_INPUT] = "Input",
    [CONFIG__G_FIXED_SCHEDULE] = "Fixed Schedule",
    [CONFIG__G_GOODPUT] = "Goodput",
    [CONFIG__G_CONVERSATION] = "Conversation Input",
    [CONFIG__G_PROMPT] = "Prompt",
    [CONFIG__G_CACHE_BUST] = "Cache Bust",
    [CONFIG__G_PREFIX_PROMPT] = "Prefix Prompt",
    [CONFIG__G_ISL] = "Input Sequence Length (ISL)",
    [CONFIG__G_OSL] = "Output Sequence Length (OSL)",
    [CONFIG__G_AUDIO] = "Audio Input",
    [CONFIG__G_IMAGE] = "Image Input",
    [CONFIG__G_VIDEO] = "Video Input",
    [CONFIG__G_RANKINGS] = "Rankings",
    [CONFIG__G_SYNTHESIS] = "Synthesis",
    [CONFIG__G_LOAD_GENERATOR] = "Load Generator",
    [CONFIG__G_SCENARIO] = "Scenario",
    [CONFIG__G_WARMUP] = "Warmup",
    [CONFIG__G_USER_CENTRIC] = "User-Centric Rate",
    [CONFIG__G_CANCELLATION] = "Request Cancellation",
    [CONFIG__G_OUTPUT] = "Output",
    [CONFIG__G_HTTP_TRACE] = "HTTP Trace",
    [CONFIG__G_SERVER_METRICS] = "Server Metrics",
    [CONFIG__G_NETWORK_LATENCY] = "Network Latency",
    [CONFIG__G_GPU_TELEMETRY] = "GPU Telemetry",
    [CONFIG__G_UI] = "UI",
    [CONFIG__G_MULTI_RUN] = "Multi-Run",
    [CONFIG__G_ACCURACY] = "Accuracy",
    [CONFIG__G_SERVICE] = "Service",
    [CONFIG__G_WORKERS] = "Workers",
    [CONFIG__G_ZMQ] = "ZMQ Communication",
};

/* group_name returns the help heading of a group. */
static const char *group_name(unsigned group)
{
    return group < CONFIG__G_COUNT ? group_names[group] : "Other";
}

static const char *metavar(const struct config__flag *flag)
{
    switch (flag->kind) {
    case CONFIG__K_INT:
        return " <int>";
    case CONFIG__K_DOUBLE:
        return " <float>";
    case CONFIG__K_STRING:
    case CONFIG__K_CHOICE:
        return " <str>";
    case CONFIG__K_LIST:
        return " <list>";
    default:
        return "";
    }
}

/* wrap prints words of text (len bytes) indented, breaking lines at HELP_WIDTH. */
static void wrap(FILE *out, const char *text, size_t len, size_t *column)
{
    size_t i = 0;
    while (i < len) {
        while (i < len && text[i] == ' ') {
            i++;
        }
        size_t word = 0;
        while (i + word < len && text[i + word] != ' ') {
            word++;
        }
        if (word == 0) {
            break;
        }
        if (*column > HELP_INDENT && *column + 1 + word > HELP_WIDTH) {
            fprintf(out, "\n%*s", HELP_INDENT, "");
            *column = HELP_INDENT;
        } else if (*column > HELP_INDENT) {
            fputc(' ', out);
            (*column)++;
        }
        fwrite(text + i, 1, word, out);
        *column += word;
        i += word;
    }
}

static void wrap_str(FILE *out, const char *text, size_t *column)
{
    wrap(out, text, strlen(text), column);
}

static void print_names(FILE *out, const struct config__flag *flag)
{
    fputs("  ", out);
    for (const char *p = flag->names; *p != '\0'; p++) {
        if (*p == ' ') {
            fputs(", ", out);
        } else {
            fputc(*p, out);
        }
    }
    fprintf(out, "%s\n%*s", metavar(flag), HELP_INDENT, "");
}

static void print_choices(FILE *out, const struct config__flag *flag, size_t *column)
{
    wrap_str(out, "Choices:", column);
    for (const struct config__choice *c = flag->choices; c->name != NULL; c++) {
        if (!c->hidden) {
            char word[64];
            bool last = true;
            for (const struct config__choice *n = c + 1; n->name != NULL; n++) {
                last = last && n->hidden;
            }
            snprintf(word, sizeof(word), "%s%s", c->name, last ? "." : ",");
            wrap_str(out, word, column);
        }
    }
}

static void print_flag(FILE *out, const struct config__flag *flag)
{
    size_t column = HELP_INDENT;
    print_names(out, flag);
    wrap_str(out, flag->help, &column);
    if (flag->default_text != NULL) {
        wrap_str(out, "Default:", &column);
        wrap_str(out, flag->default_text, &column);
        fputc('.', out);
        column++;
    }
    if (flag->choices != NULL && flag->choices[1].name != NULL) {
        print_choices(out, flag, &column);
    }
    fputc('\n', out);
}

static void print_groups(FILE *out, bool supported)
{
    size_t count = 0;
    const struct config__flag *flags = config__flags(&count);
    for (unsigned g = 0; g < CONFIG__G_COUNT; g++) {
        bool heading = false;
        for (size_t i = 0; i < count; i++) {
            bool is_supported = (flags[i].traits & CONFIG__T_SUPPORTED) != 0;
            if (flags[i].group != g || is_supported != supported) {
                continue;
            }
            if (!heading) {
                fprintf(out, "\n%s%s:\n", group_name(g), supported ? "" : " (not supported yet)");
                heading = true;
            }
            print_flag(out, &flags[i]);
        }
    }
}

void config_print_help(FILE *out)
{
    fputs("Usage: ringperf profile [OPTIONS]\n"
          "\n"
          "Benchmark an OpenAI-compatible inference server. Flags, aliases and defaults follow\n"
          "NVIDIA AIPerf's `aiperf profile`; `--flag value` and `--flag=value` are equivalent,\n"
          "list flags may be repeated, and a repeated single-value flag keeps its last value.\n"
          "\n"
          "  -h, --help\n"
          "      Show this help and exit.\n",
          out);
    print_groups(out, true);
    fputs("\n"
          "The AIPerf flags below are recognised but not supported by ringperf yet; giving one\n"
          "is an error rather than being silently ignored.\n",
          out);
    print_groups(out, false);
}
