/*
 * api_server.c - the HTTP side of the API on libmicrohttpd: one internal
 * polling thread, GET/HEAD only, bounded requests, routes as AIPerf's
 * FastAPI server has them.
 */
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netdb.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "api/api_internal.h"

#define PROM_BYTES_MAX (1024u * 1024)
#define PATH_BYTES_MAX 4096
#define FILES_PREFIX "/api/results/files/"
#define REPORT_FILE "plots/report.html"

struct api_server {
    struct MHD_Daemon *daemon;
    struct api_guard *guard;
    pthread_mutex_t lock; /* guards snap, final_state, results_path */
    struct api_snapshot snap;
    bool final_set;
    enum api_state final_state;
    char results_path[PATH_BYTES_MAX];
    char *config_json;
    char *run_json;
    char *artifact_dir;
    char *token;     /* the bearer token routes want, or NULL */
    int artifact_fd; /* -1 when the directory could not be opened */
    int report_fd;   /* api_options.report_dir (or artifact_dir): -1 when it cannot be opened */
    uint16_t port;
    /* The info labels of /metrics: labels' strings point into the arrays. */
    struct api_labels labels;
    char benchmark_id[API_LABEL_BYTES_MAX];
    char model[API_LABEL_BYTES_MAX];
    char endpoint_type[API_LABEL_BYTES_MAX];
    char version[API_LABEL_BYTES_MAX];
};

/* copy_snapshot takes the published snapshot (and the final state, which
 * wins over what was last published). */
static void copy_snapshot(struct api_server *s, struct api_snapshot *out, char *results_path)
{
    pthread_mutex_lock(&s->lock);
    memcpy(out, &s->snap, sizeof(*out));
    if (s->final_set) {
        out->state = s->final_state;
    }
    if (results_path != NULL) {
        memcpy(results_path, s->results_path, PATH_BYTES_MAX);
    }
    pthread_mutex_unlock(&s->lock);
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type,
                             struct MHD_Response *r)
{
    if (r == NULL) {
        return MHD_NO;
    }
    MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
    MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    enum MHD_Result ret = MHD_queue_response(c, status, r);
    MHD_destroy_response(r);
    return ret;
}

static enum MHD_Result reply_static(struct MHD_Connection *c, unsigned status, const char *type,
                                    const char *body)
{
    return reply(
        c, status, type,
        MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT));
}

/* reply_json sends doc (a new reference, consumed; NULL means out of memory). */
static enum MHD_Result reply_json(struct MHD_Connection *c, unsigned status, json_t *doc)
{
    char *text = doc != NULL ? json_dumps(doc, JSON_COMPACT) : NULL;
    json_decref(doc);
    if (text == NULL) {
        return reply_static(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "application/json",
                            "{\"detail\":\"out of memory\"}");
    }
    return reply(c, status, "application/json",
                 MHD_create_response_from_buffer(strlen(text), text, MHD_RESPMEM_MUST_FREE));
}

static enum MHD_Result reply_detail(struct MHD_Connection *c, unsigned status, const char *detail)
{
    return reply_json(c, status, json_pack("{s:s}", "detail", detail));
}

static enum MHD_Result reply_prometheus(const struct api_server *s, struct MHD_Connection *c,
                                        const struct api_snapshot *snap)
{
    char *buf = malloc(PROM_BYTES_MAX);
    long n = buf != NULL ? api_prometheus_render(snap, &s->labels, buf, PROM_BYTES_MAX) : -ENOMEM;
    if (n < 0) {
        free(buf);
        return reply_static(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", "render failed\n");
    }
    return reply(c, MHD_HTTP_OK, "text/plain; version=0.0.4; charset=utf-8",
                 MHD_create_response_from_buffer((size_t)n, buf, MHD_RESPMEM_MUST_FREE));
}

static const char *content_type_of(const char *name)
{
    const char *dot = strrchr(name, '.');
    if (dot == NULL) {
        return "application/octet-stream";
    }
    if (strcmp(dot, ".json") == 0) {
        return "application/json";
    }
    if (strcmp(dot, ".jsonl") == 0) {
        return "application/x-ndjson";
    }
    if (strcmp(dot, ".csv") == 0) {
        return "text/csv; charset=utf-8";
    }
    if (strcmp(dot, ".txt") == 0 || strcmp(dot, ".log") == 0) {
        return "text/plain; charset=utf-8";
    }
    if (strcmp(dot, ".html") == 0) {
        return "text/html; charset=utf-8"; /* report.html: self-contained, no script */
    }
    return "application/octet-stream";
}

static enum MHD_Result reply_fd(struct MHD_Connection *c, int fd, uint64_t size, const char *type)
{
    struct MHD_Response *r = MHD_create_response_from_fd64(size, fd);
    if (r == NULL) {
        close(fd);
        return MHD_NO;
    }
    return reply(c, MHD_HTTP_OK, type, r);
}

static enum MHD_Result serve_file(struct api_server *s, struct MHD_Connection *c, const char *name)
{
    if (!api_filename_is_safe(name, strlen(name))) {
        return reply_detail(c, MHD_HTTP_BAD_REQUEST, "invalid file name");
    }
    uint64_t size = 0;
    int fd = s->artifact_fd >= 0 ? api__open_artifact(s->artifact_fd, name, &size) : -ENOENT;
    if (fd < 0) {
        return reply_detail(c, fd == -ENOENT ? MHD_HTTP_NOT_FOUND : MHD_HTTP_FORBIDDEN,
                            fd == -ENOENT ? "file not found" : "file not available");
    }
    return reply_fd(c, fd, size, content_type_of(name));
}

/* serve_report is /report.html: plots/report.html of the run's directory, or of its session's,
 * which --auto-plot draws once the run's (the session's) files are written, while the API stays
 * up for its grace period. */
static enum MHD_Result serve_report(struct api_server *s, struct MHD_Connection *c)
{
    uint64_t size = 0;
    int fd = s->report_fd >= 0 ? api__open_artifact(s->report_fd, REPORT_FILE, &size) : -ENOENT;
    if (fd < 0) {
        return reply_detail(c, MHD_HTTP_NOT_FOUND,
                            "no report yet: --auto-plot draws " REPORT_FILE
                            " when the run (a session: its last run) ends");
    }
    return reply_fd(c, fd, size, content_type_of(REPORT_FILE));
}

static enum MHD_Result serve_results(struct MHD_Connection *c, const struct api_snapshot *snap,
                                     const char *path)
{
    if (snap->state != API_STATE_COMPLETE || path[0] == '\0') {
        return reply_detail(c, MHD_HTTP_NOT_FOUND, "results are not available yet");
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    off_t size = fd >= 0 ? lseek(fd, 0, SEEK_END) : -1;
    if (size < 0 || lseek(fd, 0, SEEK_SET) != 0) {
        if (fd >= 0) {
            close(fd);
        }
        return reply_detail(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "results file unreadable");
    }
    return reply_fd(c, fd, (uint64_t)size, "application/json");
}

static enum MHD_Result route_probe(struct MHD_Connection *c, const char *url,
                                   const struct api_snapshot *snap)
{
    if (strcmp(url, "/healthz") == 0) {
        bool ok = snap->state != API_STATE_FAILED;
        return reply_static(c, ok ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE,
                            "text/plain; charset=utf-8", ok ? "ok" : "unhealthy");
    }
    bool ready = snap->state == API_STATE_RUNNING;
    return reply_static(c, ready ? MHD_HTTP_OK : MHD_HTTP_SERVICE_UNAVAILABLE,
                        "text/plain; charset=utf-8", ready ? "ok" : "not ready");
}

static enum MHD_Result route_static(struct api_server *s, struct MHD_Connection *c, const char *url,
                                    bool *out_found)
{
    *out_found = true;
    if (strcmp(url, "/api/config") == 0) {
        return reply_static(c, MHD_HTTP_OK, "application/json", s->config_json);
    }
    if (strcmp(url, "/api/run") == 0) {
        return reply_static(c, MHD_HTTP_OK, "application/json", s->run_json);
    }
    if (strcmp(url, "/openapi.json") == 0) {
        return reply_static(c, MHD_HTTP_OK, "application/json", api__openapi_json());
    }
    if (strcmp(url, "/dashboard") == 0) {
        return reply_static(c, MHD_HTTP_OK, "text/html; charset=utf-8", api__dashboard_html());
    }
    if (strcmp(url, "/docs") == 0 || strcmp(url, "/redoc") == 0 || strcmp(url, "/") == 0) {
        return reply_static(c, MHD_HTTP_OK, "text/html; charset=utf-8", api__docs_html());
    }
    if (strcmp(url, "/api/results/list") == 0) {
        return reply_json(c, MHD_HTTP_OK, api__list_json(s->artifact_dir));
    }
    if (strcmp(url, "/report.html") == 0) {
        return serve_report(s, c);
    }
    if (strncmp(url, FILES_PREFIX, strlen(FILES_PREFIX)) == 0) {
        return serve_file(s, c, url + strlen(FILES_PREFIX));
    }
    *out_found = false;
    return MHD_NO;
}

static enum MHD_Result route(struct api_server *s, struct MHD_Connection *c, const char *url)
{
    bool found = false;
    enum MHD_Result ret = route_static(s, c, url, &found);
    if (found) {
        return ret;
    }
    struct api_snapshot *snap = malloc(sizeof(*snap));
    char *results_path = malloc(PATH_BYTES_MAX);
    if (snap == NULL || results_path == NULL) {
        free(snap);
        free(results_path);
        return MHD_NO;
    }
    copy_snapshot(s, snap, results_path);
    if (strcmp(url, "/healthz") == 0 || strcmp(url, "/readyz") == 0) {
        ret = route_probe(c, url, snap);
    } else if (strcmp(url, "/metrics") == 0) {
        ret = reply_prometheus(s, c, snap);
    } else if (strcmp(url, "/api/metrics") == 0) {
        ret = reply_json(c, MHD_HTTP_OK, api__metrics_json(snap));
    } else if (strcmp(url, "/api/progress") == 0) {
        ret = reply_json(c, MHD_HTTP_OK, api__progress_json(snap));
    } else if (strcmp(url, "/api/live") == 0) {
        ret = reply_json(c, MHD_HTTP_OK, api__live_json(snap));
    } else if (strcmp(url, "/api/workers") == 0) {
        ret = reply_json(c, MHD_HTTP_OK, api__workers_json(snap));
    } else if (strcmp(url, "/api/results") == 0) {
        ret = serve_results(c, snap, results_path);
    } else {
        ret = reply_detail(c, MHD_HTTP_NOT_FOUND, "Not Found");
    }
    free(snap);
    free(results_path);
    return ret;
}

/* token_matches compares given with the token in time that does not depend on where a guess
 * first differs. */
static bool token_matches(const struct api_server *s, const char *given)
{
    size_t want_len = strlen(s->token);
    size_t given_len = strlen(given);
    unsigned char diff = given_len != want_len;
    for (size_t i = 0; i < want_len; i++) {
        diff |= (unsigned char)(s->token[i] ^ (i < given_len ? given[i] : 0));
    }
    return diff == 0;
}

/* authorized says whether the request carries "Authorization: Bearer <token>". A browser's
 * address bar cannot send that header, so /dashboard alone also takes `?token=`; its script
 * then sends the header on every route it polls. */
static bool authorized(const struct api_server *s, struct MHD_Connection *c, const char *url)
{
    const char *value =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    static const char scheme[] = "Bearer ";
    if (value != NULL && strncasecmp(value, scheme, sizeof(scheme) - 1) == 0) {
        return token_matches(s, value + sizeof(scheme) - 1);
    }
    const char *query = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "token");
    return strcmp(url, "/dashboard") == 0 && query != NULL && token_matches(s, query);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **req_cls)
{
    (void)version;
    (void)upload_data;
    (void)upload_data_size;
    (void)req_cls;
    struct api_server *s = cls;
    api__guard_head_read(s->guard, c);
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0) {
        struct MHD_Response *r = MHD_create_response_from_buffer(
            strlen("{\"detail\":\"Method Not Allowed\"}"), "{\"detail\":\"Method Not Allowed\"}",
            MHD_RESPMEM_PERSISTENT);
        if (r != NULL) {
            MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
        }
        return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "application/json", r);
    }
    /* A GET carries no body; refuse one before reading it. */
    const char *length =
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if ((length != NULL && strcmp(length, "0") != 0) ||
        MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_TRANSFER_ENCODING) !=
            NULL) {
        return reply_detail(c, MHD_HTTP_CONTENT_TOO_LARGE, "request bodies are not accepted");
    }
    if (url == NULL || url[0] != '/') {
        return reply_detail(c, MHD_HTTP_BAD_REQUEST, "bad request target");
    }
    bool probe = strcmp(url, "/healthz") == 0 || strcmp(url, "/readyz") == 0;
    if (s->token != NULL && !probe && !authorized(s, c, url)) {
        struct MHD_Response *r = MHD_create_response_from_buffer(
            strlen("{\"detail\":\"Unauthorized\"}"), "{\"detail\":\"Unauthorized\"}",
            MHD_RESPMEM_PERSISTENT);
        if (r != NULL) {
            MHD_add_response_header(r, MHD_HTTP_HEADER_WWW_AUTHENTICATE, "Bearer");
        }
        return reply(c, MHD_HTTP_UNAUTHORIZED, "application/json", r);
    }
    return route(s, c, url);
}

/* resolve_bind turns host:port into a socket address. */
static int resolve_bind(const char *host, uint16_t port, struct sockaddr_storage *out, bool *out_v6,
                        char *errbuf, size_t errcap)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE};
    struct addrinfo *found = NULL;
    int ret = getaddrinfo(host, NULL, &hints, &found);
    if (ret != 0) {
        snprintf(errbuf, errcap, "--api-host: cannot resolve '%s': %s", host, gai_strerror(ret));
        return -EINVAL;
    }
    memcpy(out, found->ai_addr, found->ai_addrlen);
    *out_v6 = found->ai_family == AF_INET6;
    freeaddrinfo(found);
    if (*out_v6) {
        ((struct sockaddr_in6 *)out)->sin6_port = htons(port);
    } else {
        ((struct sockaddr_in *)out)->sin_port = htons(port);
    }
    return 0;
}

static void copy_labels(struct api_server *s, const struct api_labels *l)
{
    snprintf(s->benchmark_id, sizeof(s->benchmark_id), "%s",
             l->benchmark_id ? l->benchmark_id : "");
    snprintf(s->model, sizeof(s->model), "%s", l->model ? l->model : "");
    snprintf(s->endpoint_type, sizeof(s->endpoint_type), "%s",
             l->endpoint_type ? l->endpoint_type : "");
    snprintf(s->version, sizeof(s->version), "%s", l->version ? l->version : "");
    s->labels = *l;
    s->labels.benchmark_id = s->benchmark_id;
    s->labels.model = s->model;
    s->labels.endpoint_type = s->endpoint_type;
    s->labels.version = s->version;
}

static int copy_strings(struct api_server *s, const struct api_options *opts)
{
    copy_labels(s, &opts->labels);
    s->config_json = strdup(opts->config_json != NULL ? opts->config_json : "{}");
    s->run_json = strdup(opts->run_json != NULL ? opts->run_json : "{}");
    s->artifact_dir = strdup(opts->artifact_dir != NULL ? opts->artifact_dir : ".");
    s->token = opts->token != NULL ? strdup(opts->token) : NULL;
    if (s->config_json == NULL || s->run_json == NULL || s->artifact_dir == NULL ||
        (opts->token != NULL && s->token == NULL)) {
        return -ENOMEM;
    }
    s->artifact_fd = open(s->artifact_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const char *report_dir = opts->report_dir != NULL ? opts->report_dir : s->artifact_dir;
    s->report_fd = open(report_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return 0;
}

static int start_daemon(struct api_server *s, const struct sockaddr_storage *addr, bool v6)
{
    unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO | (v6 ? MHD_USE_IPv6 : 0);
    /* The server's thread inherits this mask: it must never take SIGINT or
     * SIGTERM, which the run handles on a thread of its own. */
    sigset_t all;
    sigset_t old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int ret = api__guard_new((int64_t)API_REQUEST_READ_S * 1000000000, &s->guard);
    if (ret == 0) {
        s->daemon =
            MHD_start_daemon(flags, 0, NULL, NULL, on_request, s, MHD_OPTION_SOCK_ADDR,
                             (const struct sockaddr *)addr, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
                             (size_t)API_REQUEST_BYTES_MAX * 2, MHD_OPTION_CONNECTION_LIMIT,
                             (unsigned)API_CONNECTIONS_MAX, MHD_OPTION_CONNECTION_TIMEOUT,
                             (unsigned)API_CONNECTION_TIMEOUT_S, MHD_OPTION_NOTIFY_CONNECTION,
                             api__guard_connection, s->guard, MHD_OPTION_NOTIFY_COMPLETED,
                             api__guard_request_done, s->guard, MHD_OPTION_END);
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (ret != 0) {
        return ret;
    }
    if (s->daemon == NULL) {
        return -EADDRINUSE;
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
    s->port = info != NULL ? info->port : 0;
    return 0;
}

int api_server_start(const struct api_options *opts, struct api_server **out, char *errbuf,
                     size_t errcap)
{
    if (errcap > 0) {
        errbuf[0] = '\0';
    }
    struct api_server *s = calloc(1, sizeof(*s));
    if (s == NULL) {
        return -ENOMEM;
    }
    s->artifact_fd = -1;
    s->report_fd = -1;
    s->snap.phase = "profiling";
    pthread_mutex_init(&s->lock, NULL);
    struct sockaddr_storage addr;
    bool v6 = false;
    const char *host = opts->host != NULL ? opts->host : API_DEFAULT_HOST;
    int ret = resolve_bind(host, opts->port, &addr, &v6, errbuf, errcap);
    if (ret == 0) {
        ret = copy_strings(s, opts);
    }
    if (ret == 0) {
        ret = start_daemon(s, &addr, v6);
        if (ret == -EADDRINUSE) {
            snprintf(errbuf, errcap,
                     "cannot listen on %s:%u (port in use, or not a local "
                     "address)",
                     host, (unsigned)opts->port);
        } else if (ret != 0) {
            snprintf(errbuf, errcap, "cannot start the API server: %s", strerror(-ret));
        }
    }
    if (ret != 0) {
        api_server_free(s);
        return ret;
    }
    *out = s;
    return 0;
}

uint16_t api_server_port(const struct api_server *server)
{
    return server->port;
}

void api_server_publish(struct api_server *server, const struct api_snapshot *snap)
{
    pthread_mutex_lock(&server->lock);
    memcpy(&server->snap, snap, sizeof(*snap));
    pthread_mutex_unlock(&server->lock);
}

int api_server_set_results(struct api_server *server, enum api_state final_state,
                           const char *results_path)
{
    size_t n = results_path != NULL ? strlen(results_path) : 0;
    if (n >= PATH_BYTES_MAX) {
        return -ENAMETOOLONG;
    }
    pthread_mutex_lock(&server->lock);
    server->final_set = true;
    server->final_state = final_state;
    memcpy(server->results_path, results_path != NULL ? results_path : "", n + 1);
    pthread_mutex_unlock(&server->lock);
    return 0;
}

void api_server_free(struct api_server *server)
{
    if (server == NULL) {
        return;
    }
    if (server->daemon != NULL) {
        MHD_stop_daemon(server->daemon);
    }
    api__guard_free(server->guard);
    if (server->artifact_fd >= 0) {
        close(server->artifact_fd);
    }
    if (server->report_fd >= 0) {
        close(server->report_fd);
    }
    free(server->config_json);
    free(server->token);
    free(server->run_json);
    free(server->artifact_dir);
    pthread_mutex_destroy(&server->lock);
    free(server);
}
