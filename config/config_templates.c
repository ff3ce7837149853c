/*
 * config_templates.c - the starter config files `ringperf config init` writes (AIPerf's
 * `aiperf config init`): config v2 YAML that this module's own parser reads, each with
 * AIPerf's `# @template` metadata block. The texts are ringperf's; the names and categories
 * follow AIPerf's bundled library where ringperf can run the same kind of benchmark.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"

/* The placeholders a template's body holds for --model and --url. */
#define MODEL_MARK "@MODEL@"
#define URL_MARK "@URL@"
#define DEFAULT_MODEL "meta-llama/Llama-3.1-8B-Instruct"
#define DEFAULT_URL "http://localhost:8000"

/* The lines most templates open with: the model, the server, streamed answers, and
 * synthetic prompts of the given count and lengths. */
#define HEAD "benchmark:\n  model: " MODEL_MARK "\n  endpoint:\n    url: " URL_MARK "\n"
#define STREAMING "    streaming: true\n"
#define SYNTHETIC(entries, isl, osl)                                                               \
    "  dataset:\n    type: synthetic\n    entries: " #entries "\n    prompts: {isl: " #isl         \
    ", osl: " #osl "}\n"

static const struct config_template templates[] = {
    {"minimal", "Minimal Configuration",
     "The fewest settings a run needs: a model, a server, synthetic prompts and one phase.",
     "Getting Started", "quick-start, simple", "beginner", "shorthand syntax",
     "# The path of the URL follows from the endpoint type (chat: /v1/chat/completions).\n" HEAD
         SYNTHETIC(100, 512, 128) "  phases:\n"
                                  "    type: concurrency\n"
                                  "    concurrency: 8\n"
                                  "    requests: 100\n"},
    {"warmup_profiling", "Warmup + Profiling (Two-Phase)",
     "A warmup phase whose requests are left out of the results, then the measured phase.",
     "Getting Started", "warmup, phases", "beginner", "warmup phase, exclude_from_results",
     HEAD STREAMING SYNTHETIC(
         200, 256,
         64) "  phases:\n"
             "    # Fills caches and compiles kernels; not counted.\n"
             "    - {name: warmup, type: concurrency, concurrency: 4, requests: 20}\n"
             "    # What the results describe.\n"
             "    - {name: profiling, type: concurrency, concurrency: 16, requests: 200}\n"},
    {"latency_test", "Latency Test (Controlled QPS)",
     "TTFT, ITL and end-to-end latency at a fixed Poisson request rate for a fixed time.",
     "Load Testing", "latency, ttft, itl, rate", "beginner", "poisson arrivals, streaming",
     "# TTFT and ITL need streamed answers.\n" HEAD STREAMING SYNTHETIC(
         500, 1024, 256) "  phases:\n"
                         "    type: poisson\n"
                         "    rate: 4          # requests per second, on average\n"
                         "    duration: 120    # seconds\n"
                         "  artifacts:\n"
                         "    slice_duration: 10  # timeslices of 10 s, for the over-time plots\n"},
    {"goodput_slo", "Goodput / SLO Benchmark",
     "Good requests per second: those whose latencies meet every service-level objective.",
     "Load Testing", "goodput, slo, latency", "intermediate", "slos",
     HEAD STREAMING SYNTHETIC(
         300, 512, 128) "  phases:\n"
                        "    type: concurrency\n"
                        "    concurrency: 32\n"
                        "    requests: 300\n"
                        "  # A request is good when it meets all of these (milliseconds).\n"
                        "  slos:\n"
                        "    time_to_first_token: 500\n"
                        "    inter_token_latency: 50\n"
                        "    request_latency: 8000\n"},
    {"time_based_soak", "Time-Based Soak Test",
     "A steady constant request rate held for a long time, to find drift and leaks.",
     "Load Testing", "soak, stability, duration", "intermediate",
     "constant arrivals, grace period, timeslices",
     HEAD STREAMING SYNTHETIC(
         1000, 512, 256) "  phases:\n"
                         "    type: constant\n"
                         "    rate: 2\n"
                         "    duration: 30m\n"
                         "    grace_period: 60  # seconds for the last answers after the duration\n"
                         "  artifacts:\n"
                         "    slice_duration: 60\n"},
    {"sweep_distributions", "Grid Sweep + Multi-Run",
     "Every combination of input length and request rate, each run three times for "
     "confidence intervals.",
     "Sweep & Multi-Run", "sweep, grid, multi-run, confidence", "advanced",
     "grid sweep, multi_run, confidence aggregate",
     HEAD STREAMING SYNTHETIC(
         200, 256,
         128) "  phases:\n"
              "    type: poisson\n"
              "    rate: 2\n"
              "    requests: 200\n"
              "# 2 x 3 cells; each cell gets its directory and the sweep its Pareto set.\n"
              "sweep:\n"
              "  type: grid\n"
              "  parameters:\n"
              "    datasets.main.prompts.isl: [256, 1024]\n"
              "    rate: [2, 4, 8]\n"
              "# Three runs of each cell: mean, spread and Student-t interval per metric.\n"
              "multi_run:\n"
              "  num_runs: 3\n"
              "  cooldown_seconds: 5\n"
              "  confidence_level: 0.95\n"},
    {"concurrency_sweep", "Concurrency Sweep",
     "Throughput against latency as the number of requests in flight doubles.", "Sweep & Multi-Run",
     "sweep, concurrency, pareto", "beginner", "grid sweep, auto plot",
     HEAD STREAMING SYNTHETIC(500, 512,
                              128) "  phases:\n"
                                   "    type: concurrency\n"
                                   "    concurrency: 1\n"
                                   "    requests: 200\n"
                                   "  artifacts:\n"
                                   "    auto_plot: true  # the Pareto plots when the sweep ends\n"
                                   "sweep:\n"
                                   "  parameters:\n"
                                   "    concurrency: [1, 2, 4, 8, 16, 32]\n"},
};

#define TEMPLATE_COUNT (sizeof(templates) / sizeof(templates[0]))

const struct config_template *config_templates(size_t *out_count)
{
    *out_count = TEMPLATE_COUNT;
    return templates;
}

const struct config_template *config_template_find(const char *name)
{
    for (size_t i = 0; i < TEMPLATE_COUNT; i++) {
        if (strcmp(templates[i].name, name) == 0) {
            return &templates[i];
        }
    }
    return NULL;
}

/* contains_folded reports whether text holds word, ASCII case ignored. */
static bool contains_folded(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = text; *p != '\0'; p++) {
        size_t i = 0;
        while (i < n && p[i] != '\0' &&
               tolower((unsigned char)p[i]) == tolower((unsigned char)word[i])) {
            i++;
        }
        if (i == n) {
            return true;
        }
    }
    return n == 0;
}

bool config_template_matches(const struct config_template *t, const char *word)
{
    const char *fields[] = {t->name, t->title, t->description, t->tags, t->features};
    for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
        if (contains_folded(fields[i], word)) {
            return true;
        }
    }
    return false;
}

/* next_alnum returns the first letter or digit at or after p (its NUL when none). */
static const char *next_alnum(const char *p)
{
    while (*p != '\0' && !isalnum((unsigned char)*p)) {
        p++;
    }
    return p;
}

bool config_template_in_category(const struct config_template *t, const char *category)
{
    const char *a = next_alnum(t->category);
    const char *b = next_alnum(category);
    while (*a != '\0' && tolower((unsigned char)*a) == tolower((unsigned char)*b)) {
        a = next_alnum(a + 1);
        b = next_alnum(b + 1);
    }
    return *a == '\0' && *b == '\0';
}

/* put_body writes body with its placeholders replaced. */
static void put_body(FILE *out, const char *body, const char *model, const char *url)
{
    for (const char *p = body; *p != '\0';) {
        if (strncmp(p, MODEL_MARK, strlen(MODEL_MARK)) == 0) {
            fputs(model, out);
            p += strlen(MODEL_MARK);
        } else if (strncmp(p, URL_MARK, strlen(URL_MARK)) == 0) {
            fputs(url, out);
            p += strlen(URL_MARK);
        } else {
            fputc(*p++, out);
        }
    }
}

/* yaml_plain reports whether s can stand as a plain YAML scalar in the templates' places:
 * no character that starts a comment, a mapping, a flow or a quote. */
static bool yaml_plain(const char *s)
{
    if (s[0] == '\0' || strchr("-?:,[]{}#&*!|>'\"%@`", s[0]) != NULL) {
        return false;
    }
    for (const char *p = s; *p != '\0'; p++) {
        if ((unsigned char)*p < 0x20 || *p == '#' || (*p == ':' && (p[1] == ' ' || !p[1]))) {
            return false;
        }
    }
    return true;
}

int config_template_render(const struct config_template *t, const char *model, const char *url,
                           FILE *out)
{
    model = model != NULL ? model : DEFAULT_MODEL;
    url = url != NULL ? url : DEFAULT_URL;
    if (!yaml_plain(model) || !yaml_plain(url)) {
        return -EINVAL;
    }
    fprintf(out,
            "# @template\n# title: %s\n# description: %s\n# category: %s\n# tags: %s\n"
            "# difficulty: %s\n# features: %s\n#\n# Run: ringperf profile --config %s.yaml\n"
            "# Check: ringperf config validate %s.yaml\n"
            "schema_version: \"2.0\"\n",
            t->title, t->description, t->category, t->tags, t->difficulty, t->features, t->name,
            t->name);
    put_body(out, t->body, model, url);
    return ferror(out) ? -EIO : 0;
}
