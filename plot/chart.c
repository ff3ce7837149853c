/*
 * chart.c - one plot_chart drawn by PLplot: axes with units, the series, a legend, in the light
 * or dark theme, through the cairo drivers (pngcairo, svgcairo). PLplot keeps global state per
 * stream, so each file is one plinit .. plend1 on stream 0, from one thread at a time.
 */
#include "plot/plot_internal.h"

#include <errno.h>
#include <math.h>
#include <plplot.h>
#include <stdio.h>
#include <string.h>

/* AIPerf draws 1600x800; its PNGs are scaled 1.5 on top (2400x1200). */
#define WIDTH_PX 1600
#define HEIGHT_PX 800
#define FIRST_SERIES_COLOUR 2
#define FILL_COLOUR 14 /* after the palette's 8 */

struct theme {
    unsigned background;
    unsigned foreground;
    unsigned grid;
};

static const struct theme themes[] = {
    [PLOT_THEME_LIGHT] = {0xffffff, 0x222222, 0xdddddd},
    [PLOT_THEME_DARK] = {0x1e1e1e, 0xe0e0e0, 0x444444},
};

/* Plotly's default colour sequence, which AIPerf's figures use. */
static const unsigned palette[] = {0x1f77b4, 0xff7f0e, 0x2ca02c, 0xd62728,
                                   0x9467bd, 0x8c564b, 0xe377c2, 0x7f7f7f};

#define PALETTE_N (sizeof(palette) / sizeof(palette[0]))

static void set_colour(PLINT index, unsigned rgb)
{
    plscol0(index, (PLINT)(rgb >> 16), (PLINT)((rgb >> 8) & 0xff), (PLINT)(rgb & 0xff));
}

static void widen(const double *v, size_t n, double *lo, double *hi)
{
    for (size_t i = 0; v != NULL && i < n; i++) {
        if (isfinite(v[i])) {
            *lo = fmin(*lo, v[i]);
            *hi = fmax(*hi, v[i]);
        }
    }
}

/* A range with a margin, so that points (and their error bars) are not drawn on the frame: of
 * x over every series, of y over the series on one side (right). */
static void range(const struct plot_chart *c, bool want_x, bool right, double *lo, double *hi)
{
    *lo = INFINITY;
    *hi = -INFINITY;
    for (size_t s = 0; s < c->series_count; s++) {
        const struct plot_series *e = &c->series[s];
        if (!want_x && e->right != right) {
            continue;
        }
        widen(want_x ? e->x : e->y, e->n, lo, hi);
        widen(want_x ? e->x_lo : e->y_lo, e->n, lo, hi);
        widen(want_x ? e->x_hi : e->y_hi, e->n, lo, hi);
    }
    if (!isfinite(*lo)) {
        *lo = 0;
        *hi = 1;
    }
    double span = *hi - *lo;
    double pad = span > 0 ? span * 0.06 : fmax(fabs(*hi) * 0.1, 1.0);
    *lo -= pad;
    *hi += pad;
}

/* Percentile labels for an x axis in "nines": x = -log10(1 - q). */
static void nines_label(PLINT axis, PLFLT value, char *label, PLINT length, PLPointer data)
{
    (void)data;
    if (axis == PL_X_AXIS) {
        double q = 100.0 * (1.0 - pow(10.0, -value));
        snprintf(label, (size_t)length, "p%.*f", value > 2.5 ? 1 : 0, q < 0 ? 0.0 : q);
    } else {
        snprintf(label, (size_t)length, "%g", value);
    }
}

/* draw_series draws one series; a point's label goes right of it, or left of it in the right
 * part of the window (x_mid) so that the frame does not cut it. */
/* fill_under fills the area between the series' line and y = 0, translucent, in colour. */
static void fill_under(const struct plot_series *s, unsigned rgb)
{
    PLINT n = (PLINT)s->n;
    double xs[2 * PLOT_FILL_POINTS_MAX + 2];
    double ys[2 * PLOT_FILL_POINTS_MAX + 2];
    if (n < 2 || n > 2 * PLOT_FILL_POINTS_MAX) {
        return;
    }
    memcpy(xs, s->x, (size_t)n * sizeof(double));
    memcpy(ys, s->y, (size_t)n * sizeof(double));
    xs[n] = s->x[n - 1];
    ys[n] = 0;
    xs[n + 1] = s->x[0];
    ys[n + 1] = 0;
    plscol0a(FILL_COLOUR, (PLINT)(rgb >> 16), (PLINT)((rgb >> 8) & 0xff), (PLINT)(rgb & 0xff), 0.3);
    plcol0(FILL_COLOUR);
    plfill(n + 2, xs, ys);
}

static void draw_series(const struct plot_series *s, PLINT colour, double x_mid)
{
    if (s->fill) {
        fill_under(s, palette[(size_t)(colour - FIRST_SERIES_COLOUR) % PALETTE_N]);
    }
    plcol0(colour);
    PLINT n = (PLINT)s->n;
    if (s->line && n > 1) {
        plwidth(2.5);
        plline(n, s->x, s->y);
    }
    plwidth(2.0); /* error bars, and the timeline's bars, stay visible at 1600x800 */
    if (s->x_lo != NULL && s->x_hi != NULL) {
        plerrx(n, s->x_lo, s->x_hi, s->y);
    }
    if (s->y_lo != NULL && s->y_hi != NULL) {
        plerry(n, s->x, s->y_lo, s->y_hi);
    }
    if (s->points && n > 0) {
        plssym(0, 1.6);
        plstring(n, s->x, s->y, "\u2022"); /* a filled circle (cairo draws the font's glyph) */
    }
    for (PLINT i = 0; s->point_labels != NULL && i < n; i++) {
        plschr(0, 0.9);
        bool right = s->x[i] > x_mid;
        plptex(s->x[i], s->y[i], 1, 0, right ? 1.15 : -0.15, s->point_labels[i]);
        plschr(0, 1.1);
    }
    plwidth(1.0);
}

static void legend(const struct plot_chart *c)
{
    PLINT opt[PLOT_MAX_SERIES], colours[PLOT_MAX_SERIES], styles[PLOT_MAX_SERIES];
    PLINT numbers[PLOT_MAX_SERIES];
    PLFLT widths[PLOT_MAX_SERIES], scales[PLOT_MAX_SERIES];
    const char *text[PLOT_MAX_SERIES];
    const char *symbols[PLOT_MAX_SERIES];
    for (size_t s = 0; s < c->series_count; s++) {
        opt[s] = (c->series[s].line || c->series[s].x_lo != NULL ? PL_LEGEND_LINE : 0) |
                 (c->series[s].points ? PL_LEGEND_SYMBOL : 0);
        colours[s] = FIRST_SERIES_COLOUR + (PLINT)s;
        styles[s] = 1;
        numbers[s] = 1;
        widths[s] = 2.5;
        scales[s] = 1.4;
        text[s] = c->series[s].label;
        symbols[s] = "\u2022";
    }
    PLFLT w, h;
    /* A chart with a right-hand axis keeps its legend inside, clear of that axis' labels. */
    bool dual = c->y2label != NULL;
    PLINT position = dual ? PL_POSITION_INSIDE | PL_POSITION_TOP | PL_POSITION_LEFT
                          : PL_POSITION_OUTSIDE | PL_POSITION_RIGHT;
    pllegend(&w, &h, PL_LEGEND_BACKGROUND | PL_LEGEND_BOUNDING_BOX, position, dual ? 0.02 : 0.015,
             dual ? 0.02 : 0.0, 0.05, 0, 1, 1, 0, 0, (PLINT)c->series_count, opt, 1.0, 1.0, 2.0,
             0.0, colours, text, NULL, NULL, NULL, NULL, colours, styles, widths, colours, scales,
             numbers, symbols);
}

/* right_axis draws the series on the right-hand axis, on a window of their own. */
static void right_axis(const struct plot_chart *c, double x0, double x1)
{
    double y0 = c->y2_min, y1 = c->y2_max;
    if (y0 == 0 && y1 == 0) {
        range(c, false, true, &y0, &y1);
    }
    plwind(x0, x1, y0, y1);
    plcol0(1);
    plbox("", 0, 0, "cmstv", 0, 0);
    plmtex("r", 4.5, 0.5, 0.5, c->y2label);
    for (size_t s = 0; s < c->series_count; s++) {
        if (c->series[s].right) {
            draw_series(&c->series[s], FIRST_SERIES_COLOUR + (PLINT)s, x0 + (x1 - x0) * 0.6);
        }
    }
}

static void draw(const struct plot_chart *c, const struct theme *t)
{
    double x0, x1, y0, y1;
    range(c, true, false, &x0, &x1);
    range(c, false, false, &y0, &y1);
    pladv(0);
    plvpor(0.1, 0.72, 0.15, 0.9);
    plwind(x0, x1, y0, y1);
    plschr(0, 1.1);
    if (c->x_nines) {
        plslabelfunc(nines_label, NULL);
    }
    set_colour(15, t->grid);
    plcol0(15);
    plbox(c->x_nines ? "go" : "g", c->x_nines ? 1.0 : 0, 0, c->y_log ? "gl" : "g", 0, 0);
    plcol0(1);
    const char *y_opt = c->y2label != NULL ? "bnstv" : (c->y_log ? "bcnstvl" : "bcnstv");
    plbox(c->x_nines ? "bcnsto" : "bcnst", c->x_nines ? 1.0 : 0, c->x_nines ? 10 : 0, y_opt, 0, 0);
    plslabelfunc(NULL, NULL);
    pllab(c->xlabel, c->ylabel, "");
    plschr(0, 1.4);
    plmtex("t", 1.5, 0.5, 0.5, c->title);
    plschr(0, 1.1);
    for (size_t s = 0; s < c->series_count; s++) {
        if (!c->series[s].right) {
            draw_series(&c->series[s], FIRST_SERIES_COLOUR + (PLINT)s, x0 + (x1 - x0) * 0.6);
        }
    }
    if (c->y2label != NULL) {
        right_axis(c, x0, x1);
    }
    legend(c);
}

/* render_one writes one file. PLplot exits the process on a file it cannot open, so the file
 * is opened here first and a failure reported instead. */
static int render_one(const struct plot_chart *c, const char *path, const char *device,
                      enum plot_theme theme, char *err, size_t cap)
{
    FILE *probe = fopen(path, "w");
    if (probe == NULL) {
        snprintf(err, cap, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    fclose(probe);
    const struct theme *t = &themes[theme];
    plsstrm(0);
    plsdev(device);
    plsfnam(path);
    plspage(0, 0, WIDTH_PX, HEIGHT_PX, 0, 0);
    plscolbg((PLINT)(t->background >> 16), (PLINT)((t->background >> 8) & 0xff),
             (PLINT)(t->background & 0xff));
    plscmap0n(16);
    plinit();
    set_colour(0, t->background);
    set_colour(1, t->foreground);
    for (size_t i = 0; i < PALETTE_N; i++) {
        set_colour(FIRST_SERIES_COLOUR + (PLINT)i, palette[i]);
    }
    draw(c, t);
    plend1();
    return 0;
}

int plot__render(const struct plot_chart *chart, const char *dir, enum plot_theme theme, char *err,
                 size_t cap)
{
    static const char *const devices[][2] = {{"png", "pngcairo"}, {"svg", "svgcairo"}};
    for (size_t i = 0; i < 2; i++) {
        char path[PLOT_PATH_BYTES];
        snprintf(path, sizeof(path), "%s/%s.%s", dir, chart->name, devices[i][0]);
        if (render_one(chart, path, devices[i][1], theme, err, cap) != 0) {
            return -1;
        }
    }
    return 0;
}
