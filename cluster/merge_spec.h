/*
 * merge_spec.h - what the shares' records files carry beyond plain JSON numbers (private to
 * cluster/): exact doubles, and a request's speculative-decoding statistics; written with the
 * request by run.c, read back by merge.c, so that a merged run has the same metrics as one run.
 */
#ifndef RINGPERF_CLUSTER_MERGE_SPEC_H
#define RINGPERF_CLUSTER_MERGE_SPEC_H

#include <stdbool.h>

#include <jansson.h>

#include "export/export_jsonw.h"
#include "record/record.h"

/* cluster__put_exact writes v as a JSON string of "%.17g", which strtod reads back as the
 * very same double (a JSON number would go through jansson's shorter printing). */
void cluster__put_exact(struct export_jsonw *w, double v);

/* cluster__spec_put writes "spec_decode": [...] (a member after *first) for statistics s, or
 * nothing when s is NULL. */
void cluster__spec_put(struct export_jsonw *w, bool *first, const struct record_spec_decode *s);

/* cluster__spec_read reads a records line's "spec_decode" member into *out. Returns 1 (read),
 * 0 (the line has none) or -EPROTO for one that is not what cluster__spec_put writes, or whose
 * statistics said to be valid are not consistent (record_spec_decode_consistent). */
int cluster__spec_read(const json_t *rec, struct record_spec_decode *out);

#endif
