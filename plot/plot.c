/*
 * plot.c - plot_dirs: find the runs, pick AIPerf's mode (one run: single-run plots; more:
 * multi-run plots), draw them into the output directory and write report.html there.
 */
#include "plot/plot_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int make_dir(const char *path, char *err, size_t cap)
{
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        snprintf(err, cap, "cannot create %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int plot_dirs(const char *const *dirs, size_t count, const struct plot_options *opt, char *out_dir,
              size_t out_cap, char *err, size_t err_cap)
{
    if (count == 0) {
        snprintf(err, err_cap, "no directory given");
        return -1;
    }
    char dir[PLOT_PATH_BYTES];
    if (opt->output_dir != NULL) {
        snprintf(dir, sizeof(dir), "%s", opt->output_dir);
    } else {
        snprintf(dir, sizeof(dir), "%s/plots", dirs[0]);
    }
    struct plot_runs *runs = calloc(1, sizeof(*runs));
    struct plot_drawn *drawn = calloc(1, sizeof(*drawn));
    int ret = runs != NULL && drawn != NULL ? 0 : -1;
    if (ret != 0) {
        snprintf(err, err_cap, "out of memory");
    }
    ret = ret != 0 ? ret : plot__find_runs(dirs, count, runs, err, err_cap);
    ret = ret != 0 ? ret : make_dir(dir, err, err_cap);
    if (ret == 0) {
        ret = runs->count == 1 ? plot__single(&runs->items[0], dir, opt->theme, drawn, err, err_cap)
                               : plot__multi(runs, dir, opt->theme, drawn, err, err_cap);
    }
    ret = ret != 0 ? ret : plot__write_report(runs, drawn, dir, opt->theme, err, err_cap);
    if (ret == 0 && out_dir != NULL) {
        snprintf(out_dir, out_cap, "%s", dir);
    }
    if (runs != NULL) {
        plot__free_runs(runs);
    }
    free(runs);
    free(drawn);
    return ret;
}
