/*
 * format.c - a figure as AIPerf prints it: Python's "{:,.Nf}", digits grouped by three. Here
 * because both the exports (the console tables) and the live UI print metrics this way.
 */
#include "metrics/metrics.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void metrics_format_grouped(char *out, size_t cap, double v, int decimals)
{
    if (cap == 0) {
        return;
    }
    if (decimals < 0 || decimals > METRICS_FORMAT_DECIMALS_MAX) {
        decimals = decimals < 0 ? 0 : METRICS_FORMAT_DECIMALS_MAX;
    }
    char digits[400]; /* DBL_MAX's 309 digits, the point and METRICS_FORMAT_DECIMALS_MAX */
    snprintf(digits, sizeof(digits), "%.*f", decimals, fabs(v));
    const char *dot = strchr(digits, '.');
    size_t int_len = dot != NULL ? (size_t)(dot - digits) : strlen(digits);
    size_t len = 0;
    /* Python prints "-0.00" for a tiny negative, and so do we. */
    if (v < 0 && len + 1 < cap) {
        out[len++] = '-';
    }
    for (size_t i = 0; i < int_len && len + 1 < cap; i++) {
        if (i > 0 && (int_len - i) % 3 == 0 && len + 2 < cap) {
            out[len++] = ',';
        }
        out[len++] = digits[i];
    }
    for (const char *p = dot; p != NULL && *p != '\0' && len + 1 < cap; p++) {
        out[len++] = *p;
    }
    out[len] = '\0';
}
