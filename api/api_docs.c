/*
 * api_docs.c - the static OpenAPI document and the /docs page a person reads.
 */
#include "api/api_internal.h"

/* ROUTES lists every route once: path, summary, response type. */
#define ROUTES(X)                                                                                  \
    X("/api/config", "Benchmark configuration (no API key)", "application/json")                   \
    X("/api/run", "Run identity and the redacted cli_command", "application/json")                 \
    X("/api/metrics", "Live metric values", "application/json")                                    \
    X("/metrics", "Prometheus text exposition (counters _total, histograms in base units)",        \
      "text/plain")                                                                                \
    X("/api/progress", "Per-phase request progress", "application/json")                           \
    X("/api/workers", "Per-worker request counts, errors and state", "application/json")           \
    X("/api/live",                                                                                 \
      "Timeline, interval and run percentiles, errors, shard health, server figures and GPUs "     \
      "(ringperf)",                                                                                \
      "application/json")                                                                          \
    X("/dashboard",                                                                                \
      "Live page: charts over time, progress, errors, shards, server and GPUs, final tables, "     \
      "report.html",                                                                               \
      "text/html")                                                                                 \
    X("/api/results", "Final results (profile_export_aiperf.json) once the run completed",         \
      "application/json")                                                                          \
    X("/report.html", "The run's (a session's) report page once --auto-plot drew it (404 before)", \
      "text/html")                                                                                 \
    X("/api/results/list", "Artifact files under the artifact directory", "application/json")      \
    X("/api/results/files/{filename}", "Download one artifact file by relative path",              \
      "application/octet-stream")                                                                  \
    X("/healthz", "Liveness: ok, or 503 unhealthy when the run failed", "text/plain")              \
    X("/readyz", "Readiness: 200 only while the benchmark is running", "text/plain")               \
    X("/openapi.json", "This OpenAPI document", "application/json")                                \
    X("/docs", "Human-readable API documentation", "text/html")

#define OPENAPI_PATH(path, summary, type)                                                          \
    "\"" path "\":{\"get\":{\"summary\":\"" summary "\",\"responses\":{\"200\":{"                  \
    "\"description\":\"OK\",\"content\":{\"" type "\":{}}}}}},"

static const char openapi[] =
    "{\"openapi\":\"3.0.3\",\"info\":{\"title\":\"ringperf live API\","
    "\"version\":\"" RINGPERF_VERSION
    "\"},\"paths\":{" ROUTES(OPENAPI_PATH) "\"/redoc\":{\"get\":{\"summary\":\"Same as "
                                           "/docs\",\"responses\":{\"200\":{"
                                           "\"description\":\"OK\"}}}}}}";

#define DOCS_ROW(path, summary, type)                                                              \
    "<tr><td><code>GET " path "</code></td><td>" summary "</td><td><code>" type                    \
    "</code></td></tr>\n"

static const char docs[] =
    "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ringperf live API</title>\n"
    "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto;padding:0 1em}"
    "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:.3em .6em;"
    "text-align:left}</style></head><body>\n"
    "<h1>ringperf live API</h1>\n"
    "<p>Served while <code>ringperf profile --api-port</code> runs, and for a few seconds "
    "after it ends (<code>AIPERF_API_SERVER_POST_COMPLETE_GRACE</code>). Secrets never appear: "
    "the API key is left out of <code>/api/config</code>, and <code>cli_command</code> has "
    "keys, credential headers and URL user info replaced by <code>&lt;redacted&gt;</code>.</p>\n"
    "<table><tr><th>Route</th><th>What it returns</th><th>Type</th></tr>\n" ROUTES(
        DOCS_ROW) "</table>\n<p>Machine-readable: <a href=\"/openapi.json\">/openapi.json</a>. "
                  "Prometheus scrape target: <a "
                  "href=\"/metrics\">/metrics</a>.</p>\n</body></html>\n";

const char *api__openapi_json(void)
{
    return openapi;
}

const char *api__docs_html(void)
{
    return docs;
}
