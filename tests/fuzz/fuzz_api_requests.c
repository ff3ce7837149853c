/*
 * fuzz_api_requests.c - the live API's request handling, whole: the bytes
 * are sent as one request to a real api_server on loopback (libmicrohttpd's
 * parser, then our method, body, token and route checks, and the artifact
 * file route), with a published snapshot so that every view renders.
 *
 * Invariants checked (abort on violation):
 *   - every answer starts with an HTTP/1.x status line, or the server
 *     closes the connection without one;
 *   - nothing outside the artifact directory is ever served: the directory
 *     holds symbolic links to /etc/passwd and /etc, and no answer may carry
 *     /etc/passwd's first line;
 *   - the server with --api-token never answers with a protected route's
 *     content to a request that does not hold the token;
 *   - after every input, /healthz still answers 200.
 * The server runs on its own thread and lives for the whole fuzzing run.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "api/api.h"

#define TOKEN "fuzz-token"
#define ANSWER_BYTES_MAX (1 << 20)
#define SILENCE_MS 25

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_world {
    struct api_server *open;   /* no token */
    struct api_server *locked; /* --api-token */
    char passwd_line[128];     /* /etc/passwd's first line: must never be served */
};

static void make_artifacts(char *dir)
{
    snprintf(dir, 64, "/tmp/fuzz-api-XXXXXX");
    if (mkdtemp(dir) == NULL) {
        abort();
    }
    char path[128];
    snprintf(path, sizeof(path), "%s/profile_export_aiperf.json", dir);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        abort();
    }
    fputs("{\"request_count\":{\"avg\":3}}", f);
    fclose(f);
    snprintf(path, sizeof(path), "%s/passwd", dir);
    if (symlink("/etc/passwd", path) != 0) {
        abort();
    }
    snprintf(path, sizeof(path), "%s/etc", dir);
    if (symlink("/etc", path) != 0) {
        abort();
    }
}

static struct api_server *start(const char *dir, const char *token)
{
    struct api_options opts = {
        .artifact_dir = dir,
        .config_json = "{\"endpoint\":{\"model_names\":[\"m\"]}}",
        .run_json = "{\"cli_command\":\"ringperf profile\"}",
        .labels = {.benchmark_id = "b", .model = "m", .endpoint_type = "chat", .version = "v"},
        .token = token,
    };
    struct api_server *s = NULL;
    char err[256];
    if (api_server_start(&opts, &s, err, sizeof(err)) != 0) {
        abort();
    }
    struct api_snapshot *snap = calloc(1, sizeof(*snap));
    snap->state = API_STATE_RUNNING;
    snap->phase = "profiling";
    snap->finished = 3;
    snap->success = 3;
    snap->shard_count = 2;
    api_server_publish(s, snap);
    free(snap);
    return s;
}

static const struct fuzz_world *world(void)
{
    static struct fuzz_world w;
    if (w.open == NULL) {
        char dir[64];
        make_artifacts(dir);
        w.open = start(dir, NULL);
        w.locked = start(dir, TOKEN);
        FILE *f = fopen("/etc/passwd", "r");
        if (f == NULL || fgets(w.passwd_line, sizeof(w.passwd_line), f) == NULL) {
            abort();
        }
        fclose(f);
        w.passwd_line[strcspn(w.passwd_line, "\n")] = '\0';
    }
    return &w;
}

/* exchange sends raw to port and reads the answer (NUL-terminated, owned)
 * until the server closes, ANSWER_BYTES_MAX, or wait_ms of silence. Most
 * inputs are not a complete request, and libmicrohttpd does not end a
 * request head cut short by the client's half-close (the API's guard does,
 * after API_REQUEST_READ_S): silence ends the exchange instead. */
static char *exchange(uint16_t port, const uint8_t *raw, size_t len, size_t *out_len, int wait_ms)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct timeval wait = {.tv_sec = wait_ms / 1000, .tv_usec = (wait_ms % 1000) * 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        abort();
    }
    size_t off = 0;
    while (off < len) {
        ssize_t n = send(fd, raw + off, len - off, MSG_NOSIGNAL);
        if (n <= 0) {
            break;
        }
        off += (size_t)n;
    }
    shutdown(fd, SHUT_WR); /* the request ends here: no waiting for the idle timeout */
    char *buf = malloc(ANSWER_BYTES_MAX + 1);
    size_t got = 0;
    ssize_t n;
    while (got < ANSWER_BYTES_MAX && (n = recv(fd, buf + got, ANSWER_BYTES_MAX - got, 0)) > 0) {
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    *out_len = got;
    return buf;
}

/* PROTECTED holds text that only routes behind the token can answer with:
 * /api/config, /api/run, the artifact files and /metrics. */
static const char *const PROTECTED[] = {"model_names", "cli_command", "request_count",
                                        "aiperf_info"};

static void check_answer(const struct fuzz_world *w, const char *answer, size_t len,
                         bool without_token)
{
    if (len > 0 && strncmp(answer, "HTTP/1.", 7) != 0) {
        abort();
    }
    if (memmem(answer, len, w->passwd_line, strlen(w->passwd_line)) != NULL) {
        abort();
    }
    for (size_t i = 0; without_token && i < sizeof(PROTECTED) / sizeof(PROTECTED[0]); i++) {
        if (memmem(answer, len, PROTECTED[i], strlen(PROTECTED[i])) != NULL) {
            abort();
        }
    }
}

static void check_health(uint16_t port)
{
    static const char probe[] = "GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    size_t len = 0;
    char *answer = exchange(port, (const uint8_t *)probe, sizeof(probe) - 1, &len, 10000);
    if (strncmp(answer, "HTTP/1.1 200", 12) != 0) {
        abort();
    }
    free(answer);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const struct fuzz_world *w = world();
    size_t len = 0;
    char *answer = exchange(api_server_port(w->open), data, size, &len, SILENCE_MS);
    check_answer(w, answer, len, false);
    free(answer);
    answer = exchange(api_server_port(w->locked), data, size, &len, SILENCE_MS);
    check_answer(w, answer, len, memmem(data, size, TOKEN, strlen(TOKEN)) == NULL);
    free(answer);
    check_health(api_server_port(w->open));
    return 0;
}
