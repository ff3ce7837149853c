/*
 * cli_export.h - artifact files of `ringperf profile` (internal to cli/).
 */
#ifndef RINGPERF_CLI_EXPORT_H
#define RINGPERF_CLI_EXPORT_H

#include "cli/cli_internal.h"
#include "cli/jsonw.h"

/* cli_export is the open per-record export of a run. */
struct cli_export {
    FILE *records;
    struct cli_jsonw writer;
    bool streaming;
    uint64_t request_id_nonce;
    uint64_t lines;
};

/* cli_export_open creates dir/records_name for writing. Returns 0 or -errno. */
int cli_export_open(struct cli_export *exp, const char *dir, const char *records_name);

/* cli_export_record appends one JSON line for a record. Returns 0 or -errno. */
int cli_export_record(struct cli_export *exp, const struct engine_record *record,
                      const struct cli_record_metrics *metrics);

/* cli_export_close flushes and closes the file. Returns 0 or -errno. */
int cli_export_close(struct cli_export *exp);

/* cli_export_inputs writes dir/inputs.json: every payload, as sent. */
int cli_export_inputs(const char *dir, const struct engine_payload *payloads, size_t count);

#endif
