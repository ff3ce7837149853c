/*
 * export_internal.h - helpers shared by the CSV writers of export/ (not
 * public).
 */
#ifndef RINGPERF_EXPORT_INTERNAL_H
#define RINGPERF_EXPORT_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "metrics/metrics.h"

/* export__put_field writes a CSV field, quoted when it holds a comma, quote
 * or newline. */
void export__put_field(FILE *out, const char *s);

/* export__put_number writes ",v": integral values of integer metrics without
 * decimals, everything else with two. */
void export__put_number(FILE *out, const struct metrics_info *info, double v);

/* export__sorted_ids fills ids (room for every id of the kind) with the
 * present record (scalar false) or scalar metrics of `s`, sorted by tag, and
 * returns how many. */
size_t export__sorted_ids(const struct metrics_summary *s, bool scalar, int *ids);

#endif
