/*
 * `ringperf plot` and `profile --auto-plot` end to end: runs against the mock server, then the
 * PNGs decoded (size, each series' colour inside the plot area), the SVGs parsed as XML by
 * Python's minidom, report.html checked for its parts and rendered by headless Chromium (skipped
 * where Chromium is not installed), and a sweep of two concurrencies giving the Pareto plot.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/cli/e2e.h"
#include "tests/support/lsan_fontconfig.h"
#include "tests/support/png_pixels.h"
#include "tests/support/read_text.h"

#define WIDTH 1600
#define HEIGHT 800
/* The plot area (plot/chart.c's viewport 0.1..0.72 x 0.15..0.9), in pixels from the top left. */
#define AREA_X0 165
#define AREA_X1 1147
#define AREA_Y0 85
#define AREA_Y1 675
#define BLUE 0x1f77b4   /* the first series */
#define ORANGE 0xff7f0e /* the second: ITL in the spectrum, the Pareto front */
#define LIGHT_BG 0xffffff
#define DARK_BG 0x1e1e1e

static void start(struct e2e *w, char *const mock_flags[])
{
    test_suppress_fontconfig_leaks(RINGPERF_LSAN_SUPP);
    e2e_start(w, mock_flags);
}

static void plot_path(const struct e2e *w, const char *name, char *out, size_t cap)
{
    snprintf(out, cap, "%s/plots/%s", w->dir, name);
}

/* check_png: the plot is a PNG of AIPerf's 1600x800, on the theme's background, with at least
 * `least` pixels of each colour wanted inside the plot area. */
static void check_png(const struct e2e *w, const char *name, uint32_t background,
                      const uint32_t *colours, size_t ncolours, size_t least)
{
    char path[256];
    plot_path(w, name, path, sizeof(path));
    struct png_pixels png;
    cr_assert(png_pixels_load(path, &png), "%s is a PNG", path);
    cr_assert_eq(png.width, WIDTH, "%s width", name);
    cr_assert_eq(png.height, HEIGHT, "%s height", name);
    cr_assert_gt(png_pixels_count_near(&png, WIDTH - 40, 0, WIDTH, 40, background, 4), 1500,
                 "%s: the corner is the theme's background", name);
    size_t area = (size_t)(AREA_X1 - AREA_X0) * (AREA_Y1 - AREA_Y0);
    size_t blank = png_pixels_count_near(&png, AREA_X0, AREA_Y0, AREA_X1, AREA_Y1, background, 4);
    cr_assert_lt(blank, area, "%s: the plot area is not blank", name);
    for (size_t i = 0; i < ncolours; i++) {
        size_t n = png_pixels_count_near(&png, AREA_X0, AREA_Y0, AREA_X1, AREA_Y1, colours[i], 30);
        cr_assert_geq(n, least, "%s: %zu pixels of #%06x in the plot area", name, n, colours[i]);
    }
    png_pixels_free(&png);
}

static void check_svg(const struct e2e *w, const char *name)
{
    char path[256];
    char cmd[512];
    plot_path(w, name, path, sizeof(path));
    snprintf(cmd, sizeof(cmd),
             "python3 -c 'import sys, xml.dom.minidom as m; d = m.parse(sys.argv[1]); "
             "sys.exit(0 if d.documentElement.tagName == \"svg\" else 3)' %s",
             path);
    cr_assert_eq(system(cmd), 0, "%s parses as XML with an <svg> root", path);
}

/* check_report: self-contained (no script, no external resource), every figure inline. */
static char *check_report(const struct e2e *w, const char *const *figures, size_t nfigures)
{
    char *html = e2e_read_text(w, "plots/report.html");
    cr_assert_eq(test_count_of(html, "<svg"), nfigures, "one inline SVG per figure");
    for (size_t i = 0; i < nfigures; i++) {
        char id[96];
        snprintf(id, sizeof(id), "<figure id=\"%s\">", figures[i]);
        cr_assert_not_null(strstr(html, id), "%s is in the page", figures[i]);
    }
    cr_assert_null(strstr(html, "<script"), "no script");
    cr_assert_null(strstr(html, "src="), "nothing loaded");
    cr_assert_null(strstr(html, "<link"), "nothing loaded");
    cr_assert_not_null(strstr(html, "<pre class=\"command\">ringperf profile -m 'm' -u "),
                       "the command");
    cr_assert_not_null(strstr(html, "<td>CPUs online</td>"), "the machine");
    cr_assert_not_null(strstr(html, "<td>uname</td><td>Linux "), "the machine");
    return html;
}

/* screenshot renders the page in headless Chromium and checks it: the page's background, the
 * colours of the plots drawn in it. Returns false when Chromium is not installed. */
static bool screenshot(const struct e2e *w, const uint32_t *colours, size_t ncolours)
{
    if (system("command -v chromium >/dev/null 2>&1") != 0) {
        return false;
    }
    char cmd[1024];
    snprintf(cmd, sizeof(cmd),
             "chromium --headless --no-sandbox --disable-gpu --hide-scrollbars "
             "--user-data-dir=%s/chromium --window-size=1280,2600 --screenshot=%s/shot.png "
             "file://%s/plots/report.html >/dev/null 2>&1",
             w->dir, w->dir, w->dir);
    cr_assert_eq(system(cmd), 0, "%s", cmd);
    char path[256];
    snprintf(path, sizeof(path), "%s/shot.png", w->dir);
    struct png_pixels shot;
    cr_assert(png_pixels_load(path, &shot), "the screenshot is a PNG");
    size_t all = (size_t)shot.width * shot.height;
    size_t white = png_pixels_count_near(&shot, 0, 0, shot.width, shot.height, LIGHT_BG, 4);
    cr_assert_lt(white, all * 98 / 100, "the page is not blank (%zu of %zu white)", white, all);
    for (size_t i = 0; i < ncolours; i++) {
        size_t n = png_pixels_count_near(&shot, 0, 0, shot.width, shot.height, colours[i], 30);
        cr_assert_gt(n, 200, "the page shows #%06x (%zu pixels)", colours[i], n);
    }
    png_pixels_free(&shot);
    return true;
}

Test(plot, a_run_gives_its_plots_and_a_page_that_renders, .timeout = 180)
{
    struct e2e w;
    char *const mock_flags[] = {"--ttft-ms", "8", "--itl-ms", "1", "--error-500-rate", "10", NULL};
    start(&w, mock_flags);
    e2e_run_ok(&w, "profile -m m -u URL --streaming --concurrency 4 --request-count 80 "
                   "--artifact-dir DIR --ui-type none");
    char *out = NULL;
    cr_assert_eq(run_ringperf(&w, "plot DIR", true, &out), 0, "%s", out);
    cr_assert_not_null(strstr(out, "/plots/report.html"), "%s", out);
    free(out);
    static const uint32_t one[] = {BLUE};
    static const uint32_t three[] = {BLUE, ORANGE, 0x2ca02c};
    static const uint32_t two[] = {BLUE, ORANGE};
    check_png(&w, "ttft_over_time.png", LIGHT_BG, one, 1, 60);
    check_png(&w, "ttft_timeline.png", LIGHT_BG, two, 2, 200);
    check_png(&w, "latency_percentile_spectrum.png", LIGHT_BG, three, 3, 60);
    check_svg(&w, "ttft_over_time.svg");
    check_svg(&w, "ttft_timeline.svg");
    check_svg(&w, "latency_percentile_spectrum.svg");
    static const char *const figures[] = {"ttft_over_time", "ttft_timeline",
                                          "latency_percentile_spectrum"};
    char *html = check_report(&w, figures, 3);
    cr_assert_not_null(strstr(html, "<td>Internal Server Error</td>"), "the error summary");
    cr_assert_not_null(strstr(html, "<td>time_to_first_token</td><td>ms</td>"), "the summary");
    free(html);
    if (!screenshot(&w, three, 3)) {
        e2e_finish(&w);
        cr_skip_test("chromium is not installed (scripts/install-deps.sh installs it): the "
                     "files were checked, the page was not rendered");
    }
    e2e_finish(&w);
}

/* With the mock's DCGM exporter: throughput (blue) and the GPUs' utilisation (orange) on two
 * axes, and the figure in the page (the run without telemetry above has no such figure). */
Test(plot, gpu_telemetry_gives_the_utilisation_plot, .timeout = 120)
{
    struct e2e w;
    start(&w, (char *const[]){"--ttft-ms", "5", "--itl-ms", "2", NULL});
    char words[512];
    snprintf(words, sizeof(words),
             "profile -m m -u URL --streaming --concurrency 4 --benchmark-duration 2 "
             "--gpu-telemetry %s/dcgm --artifact-dir DIR --ui-type none",
             w.url);
    e2e_run_ok(&w, words);
    char *out = NULL;
    cr_assert_eq(run_ringperf(&w, "plot DIR", true, &out), 0, "%s", out);
    free(out);
    static const uint32_t two[] = {BLUE, ORANGE};
    check_png(&w, "gpu_utilization_and_throughput_over_time.png", LIGHT_BG, two, 2, 200);
    check_svg(&w, "gpu_utilization_and_throughput_over_time.svg");
    static const char *const figures[] = {"ttft_over_time", "ttft_timeline",
                                          "gpu_utilization_and_throughput_over_time",
                                          "latency_percentile_spectrum"};
    free(check_report(&w, figures, 4));
    e2e_finish(&w);
}

Test(plot, the_dark_theme_timeslices_and_bad_arguments, .timeout = 120)
{
    struct e2e w;
    start(&w, NULL);
    e2e_run_ok(&w, "profile -m m -u URL --streaming --concurrency 2 --benchmark-duration 2 "
                   "--slice-duration 0.5 --artifact-dir DIR --ui-type none");
    char *out = NULL;
    cr_assert_eq(run_ringperf(&w, "plot --theme dark DIR", true, &out), 0, "%s", out);
    free(out);
    static const uint32_t one[] = {BLUE};
    static const uint32_t avg[] = {ORANGE}; /* each window's avg, drawn over its p90 */
    check_png(&w, "ttft_over_time.png", DARK_BG, one, 1, 20);
    check_png(&w, "timeslices_ttft.png", DARK_BG, avg, 1, 20);
    check_png(&w, "timeslices_itl.png", DARK_BG, avg, 1, 20);
    char *html = e2e_read_text(&w, "plots/report.html");
    cr_assert_not_null(strstr(html, "background:#1e1e1e"), "the page is dark too");
    free(html);
    cr_assert_eq(run_ringperf(&w, "plot --theme sepia DIR", true, &out), 1, "%s", out);
    cr_assert_not_null(strstr(out, "--theme: expected light or dark, got 'sepia'"), "%s", out);
    free(out);
    cr_assert_eq(run_ringperf(&w, "plot IN/nothing-here", true, &out), 1, "%s", out);
    cr_assert_not_null(strstr(out, "not a directory"), "%s", out);
    free(out);
    e2e_finish(&w);
}

Test(plot, a_sweep_with_auto_plot_gives_the_pareto_plot, .timeout = 180)
{
    struct e2e w;
    char *const mock_flags[] = {"--ttft-ms", "5", "--itl-ms", "2", NULL};
    start(&w, mock_flags);
    char *out = NULL;
    int rc = run_ringperf(&w,
                          "profile -m m -u URL --streaming --concurrency 1,4 --request-count 24 "
                          "--artifact-dir DIR --ui-type none --auto-plot --plot-required",
                          true, &out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_not_null(strstr(out, "Report: "), "%s", out);
    free(out);
    static const uint32_t both[] = {BLUE, ORANGE};
    check_png(&w, "pareto_curve_throughput_vs_latency.png", LIGHT_BG, both, 2, 20);
    check_svg(&w, "pareto_curve_throughput_vs_latency.svg");
    static const char *const figures[] = {"pareto_curve_throughput_vs_latency",
                                          "pareto_curve_throughput_vs_interactivity",
                                          "ttft_vs_throughput"};
    char *html = check_report(&w, figures, 3);
    cr_assert_not_null(strstr(html, "<td>concurrency_1</td>"), "the runs table");
    cr_assert_not_null(strstr(html, "<td>concurrency_4</td>"), "the runs table");
    cr_assert_not_null(strstr(html, "Not drawn: latency_throughput_uncertainty: no confidence "
                                    "intervals"),
                       "single trials have no intervals, and the page says so");
    free(html);
    e2e_finish(&w);
}

Test(plot, repeated_runs_of_a_sweep_give_the_uncertainty_plot, .timeout = 180)
{
    struct e2e w;
    char *const mock_flags[] = {"--ttft-ms", "5", "--itl-ms", "1", NULL};
    start(&w, mock_flags);
    e2e_run_ok(&w, "profile -m m -u URL --streaming --concurrency 1,2 --num-profile-runs 2 "
                   "--request-count 12 --artifact-dir DIR --ui-type none");
    char *out = NULL;
    cr_assert_eq(run_ringperf(&w, "plot DIR", true, &out), 0, "%s", out);
    free(out);
    static const uint32_t one[] = {BLUE};
    check_png(&w, "latency_throughput_uncertainty.png", LIGHT_BG, one, 1, 20);
    check_svg(&w, "latency_throughput_uncertainty.svg");
    /* The cells' aggregates, not the four runs below profile_runs/, are the points. */
    static const char *const figures[] = {
        "latency_throughput_uncertainty", "pareto_curve_throughput_vs_latency",
        "pareto_curve_throughput_vs_interactivity", "ttft_vs_throughput"};
    char *html = check_report(&w, figures, 4);
    cr_assert_eq(test_count_of(html, "<tr><td>concurrency_"), 2, "two points, one per cell");
    free(html);
    e2e_finish(&w);
}

Test(plot, plot_required_makes_a_plotting_failure_fatal, .timeout = 120)
{
    struct e2e w;
    start(&w, NULL);
    e2e_write(&w, "plots", "a file where the plots directory would go\n");
    char *out = NULL;
    int rc = run_ringperf(&w,
                          "profile -m m -u URL --request-count 5 --artifact-dir DIR "
                          "--ui-type none --auto-plot --plot-required",
                          true, &out);
    cr_assert_eq(rc, 1, "%s", out);
    cr_assert_not_null(strstr(out, "--plot-required: plotting failed"), "%s", out);
    free(out);
    rc = run_ringperf(&w,
                      "profile -m m -u URL --request-count 5 --artifact-dir DIR "
                      "--ui-type none --auto-plot",
                      true, &out);
    cr_assert_eq(rc, 0, "%s", out);
    cr_assert_not_null(strstr(out, "warning: --auto-plot failed"), "%s", out);
    free(out);
    e2e_finish(&w);
}
