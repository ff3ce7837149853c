/*
 * api_internal.h - shared between the files of api/; not a public API.
 */
#ifndef RINGPERF_API_INTERNAL_H
#define RINGPERF_API_INTERNAL_H

#include <jansson.h>
#include <microhttpd.h>

#include "api/api.h"

/* api__metrics_json builds the /api/metrics body from snap: a new reference,
 * or NULL when out of memory. */
json_t *api__metrics_json(const struct api_snapshot *snap);

/* api__server_figures_add sets the servers' live figures (AIPerf's server snapshot rows, spec
 * §4.2) into object `into`: tag -> {header, unit, avg, current}, the present ones only. */
void api__server_figures_add(json_t *into, const struct scrape_live *live);

/* api__gpus_json is ringperf's own live GPU list: each GPU's index, uuid, name and latest
 * fields ({unit, current}, AIPerf's names and units). A new reference. */
json_t *api__gpus_json(const struct scrape_live *live);

/* api__progress_json builds the /api/progress body (phases keyed by name). */
json_t *api__progress_json(const struct api_snapshot *snap);

/* api__workers_json builds the /api/workers body (one row per shard). */
json_t *api__workers_json(const struct api_snapshot *snap);

/* api__list_json lists the regular files under dir (relative paths, sizes),
 * up to API_LIST_DEPTH_MAX levels and API_LIST_ENTRIES_MAX files, without
 * following symbolic links. Returns a new reference or NULL. */
json_t *api__list_json(const char *dir);

/* api__open_artifact opens name (already api_filename_is_safe) beneath the
 * directory open as dir_fd, refusing symbolic links anywhere on the path
 * and anything but a regular file. Returns the fd and its size in
 * *out_size, or -errno (-ENOENT, -ELOOP, -EISDIR...). */
int api__open_artifact(int dir_fd, const char *name, uint64_t *out_size);

/* api__openapi_json returns the static OpenAPI 3 document of the routes. */
const char *api__openapi_json(void);

/* api__live_json builds the /api/live body the dashboard page polls: the
 * timeline, per-metric interval and run percentiles, error kinds and shard
 * health. A new reference, or NULL when out of memory. */
json_t *api__live_json(const struct api_snapshot *snap);

/* api__dashboard_html returns the static /dashboard page. */
const char *api__dashboard_html(void);

/* api__docs_html returns the static /docs page. */
const char *api__docs_html(void);

/* api_guard bounds how long a client may take to send a request head and
 * keeps API_CONNECTIONS_RESERVED connection slots free (api_guard.c). */
struct api_guard;

/* api__guard_new starts the guard's watchdog thread; clients get
 * read_limit_ns to deliver each request head. Returns 0 or -errno. */
int api__guard_new(int64_t read_limit_ns, struct api_guard **out);

/* api__guard_free stops the watchdog; call after the daemon has stopped.
 * NULL is a no-op. */
void api__guard_free(struct api_guard *guard);

/* api__guard_connection is the daemon's MHD_OPTION_NOTIFY_CONNECTION
 * callback (cls: the guard). */
void api__guard_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                           enum MHD_ConnectionNotificationCode code);

/* api__guard_request_done is the daemon's MHD_OPTION_NOTIFY_COMPLETED
 * callback (cls: the guard): a kept-alive client's clock restarts. */
void api__guard_request_done(void *cls, struct MHD_Connection *c, void **req_cls,
                             enum MHD_RequestTerminationCode code);

/* api__guard_head_read tells the guard that c's request head has arrived. */
void api__guard_head_read(struct api_guard *guard, struct MHD_Connection *c);

#endif
