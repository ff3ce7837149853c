/*
 * mock_conn.c - what a connection answers: routing, the fault draw, and producing SSE events or
 * a non-streaming body on schedule.
 *
 * A connection answers one request at a time. Output is appended to its send buffer only when
 * the buffer has room for the largest step (mock__event_bytes_max), so formatting never fails;
 * when it lacks room the answer resumes from the send completion. The schedule is kept in
 * absolute CLOCK_MONOTONIC time from the request's arrival, so late timers do not accumulate
 * drift.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "mock/mock_internal.h"
#include "mock/mock_worker.h"

/* Room left before the body of a simple answer, for its status line and headers. */
#define HEAD_RESERVE 512
#define NS_PER_MS 1000000.0

void mock__conn_reset(struct mock__conn *c)
{
    c->phase = MOCK__PHASE_IDLE;
    c->fault = MOCK__FAULT_NONE;
    c->close_when_sent = false;
    c->head_sent = false;
    c->malformed_sent = false;
    c->token_next = 0;
    c->token_stop = 0;
    c->fault_token = 0;
    c->log_first = 0;
    c->log_count = 0;
    c->due_ns = 0;
    c->first_ns = 0;
}

static struct mock__buf tx_buf(const struct mock__worker *w, struct mock__conn *c)
{
    return (struct mock__buf){
        .p = c->tx + c->tx_len, .cap = w->tx_cap - c->tx_len, .eventstream = c->job.eventstream};
}

static size_t tx_free(const struct mock__worker *w, const struct mock__conn *c)
{
    return w->tx_cap - c->tx_len;
}

/* commit adds what `b` formatted to the send buffer. An overflow is a sizing bug: the answer
 * cannot be completed, so the connection is dropped rather than sending a torn message. */
static bool commit(struct mock__worker *w, struct mock__conn *c, const struct mock__buf *b)
{
    if (b->overflow) {
        fprintf(stderr, "mock-server: internal error: send buffer overflow; closing connection\n");
        mock__conn_close(w, c);
        return false;
    }
    c->tx_len += b->len;
    return true;
}

/* gap_ns returns base_ns plus uniform jitter in [-jitter_ns, +jitter_ns], never below zero. */
static uint64_t gap_ns(struct mock__worker *w, uint64_t base_ns, uint64_t jitter_ns)
{
    if (jitter_ns == 0) {
        return base_ns;
    }
    double v = (double)base_ns + (mock__rng_unit(&w->jitter_rng) * 2.0 - 1.0) * (double)jitter_ns;
    return v <= 0 ? 0 : (uint64_t)v;
}

/* log_tokens counts tokens just put in the send buffer and, with the token log on, notes them
 * as waiting: their line is written when the send carrying them is submitted
 * (mock__conn_log_sent), not now, so `send_ns` is when their bytes reached the kernel. */
static void log_tokens(struct mock__worker *w, struct mock__conn *c, uint32_t first, uint32_t count)
{
    if (!mock__route_tokens(c->job.route)) {
        return; /* embeddings and ranking items are not tokens */
    }
    w->stats.tokens += count;
    if (w->log.buf == NULL) {
        return;
    }
    if (c->log_count == 0) {
        c->log_first = first;
    }
    c->log_count += count;
}

void mock__conn_log_sent(struct mock__worker *w, struct mock__conn *c, uint64_t send_ns)
{
    for (uint32_t i = 0; i < c->log_count; i++) {
        mock__tokenlog_add(&w->log, c->request_id, c->request_id_len, c->log_first + i, send_ns);
    }
    c->log_count = 0;
}

static void answer_error(struct mock__worker *w, struct mock__conn *c, int status, const char *type,
                         const char *msg, uint32_t retry_after_s, const char *allow)
{
    struct mock__buf b = tx_buf(w, c);
    mock__fmt_error_response(&b, status, type, msg, c->keep_alive, retry_after_s, allow);
    if (commit(w, c, &b)) {
        c->phase = MOCK__PHASE_DRAIN;
        mock__conn_progress(w, c);
    }
}

/* answer_json sends `body_len` bytes already formatted at tx + HEAD_RESERVE behind a 200 head. */
static void answer_json(struct mock__worker *w, struct mock__conn *c, size_t body_len)
{
    char head[HEAD_RESERVE];
    struct mock__buf hb = {.p = head, .cap = sizeof(head)};
    mock__fmt_json_head(&hb, 200, body_len, c->keep_alive, 0, NULL);
    c->tx_head = HEAD_RESERVE - hb.len;
    memcpy(c->tx + c->tx_head, head, hb.len);
    c->tx_len = HEAD_RESERVE + body_len;
    c->phase = MOCK__PHASE_DRAIN;
    mock__conn_progress(w, c);
}

static void answer_models(struct mock__worker *w, struct mock__conn *c, bool health)
{
    struct mock__buf b = {.p = c->tx + HEAD_RESERVE, .cap = w->tx_cap - HEAD_RESERVE};
    if (health) {
        mock__buf_str(&b, "{\"status\":\"ok\"}");
    } else {
        mock__models_fmt(&w->server->models, &b);
    }
    if (b.overflow) {
        answer_error(w, c, 500, "server_error", "model list too large", 0, NULL);
        return;
    }
    answer_json(w, c, b.len);
}

/* answer_metrics answers GET /metrics with the Prometheus text format. */
static void answer_metrics(struct mock__worker *w, struct mock__conn *c, bool dcgm)
{
    struct mock__buf b = {.p = c->tx + HEAD_RESERVE, .cap = w->tx_cap - HEAD_RESERVE};
    if (dcgm) {
        mock__metrics_fmt_dcgm(&b, w->now_ns);
    } else {
        mock__metrics_fmt(&w->server->metrics, &b);
    }
    if (b.overflow) {
        answer_error(w, c, 500, "server_error", "metrics too large", 0, NULL);
        return;
    }
    char head[HEAD_RESERVE];
    struct mock__buf hb = {.p = head, .cap = sizeof(head)};
    mock__fmt_text_head(&hb, b.len, c->keep_alive);
    c->tx_head = HEAD_RESERVE - hb.len;
    memcpy(c->tx + c->tx_head, head, hb.len);
    c->tx_len = HEAD_RESERVE + b.len;
    c->phase = MOCK__PHASE_DRAIN;
    mock__conn_progress(w, c);
}

/* answer_video answers a request of the video API (mock_video.c). */
static void answer_video(struct mock__worker *w, struct mock__conn *c,
                         const struct mock__request *req, enum mock__video_op op, const char *id,
                         size_t id_len)
{
    if (op == MOCK__VIDEO_BAD_METHOD) {
        w->stats.client_errors++;
        answer_error(w, c, 405, "invalid_request_error", "method not allowed on this path", 0,
                     id != NULL ? "GET" : "POST");
        return;
    }
    struct mock__buf b = {.p = c->tx + HEAD_RESERVE, .cap = w->tx_cap - HEAD_RESERVE};
    const char *why = NULL;
    int status = op == MOCK__VIDEO_SUBMIT
                     ? mock__video_submit(w->cfg, w->now_ns, mock__rng_unit(&w->fault_rng) * 100.0,
                                          req->body, req->body_len, &b, &why)
                 : op == MOCK__VIDEO_POLL ? mock__video_poll(w->now_ns, id, id_len, &b, &why)
                                          : mock__video_content(w->now_ns, id, id_len, &b, &why);
    if (status != 200) {
        w->stats.client_errors++;
        answer_error(w, c, status, status == 404 ? "not_found_error" : "invalid_request_error", why,
                     0, NULL);
        return;
    }
    if (op != MOCK__VIDEO_CONTENT) {
        answer_json(w, c, b.len);
        return;
    }
    char head[HEAD_RESERVE];
    struct mock__buf hb = {.p = head, .cap = sizeof(head)};
    mock__fmt_bytes_head(&hb, "video/mp4", b.len, c->keep_alive);
    c->tx_head = HEAD_RESERVE - hb.len;
    memcpy(c->tx + c->tx_head, head, hb.len);
    c->tx_len = HEAD_RESERVE + b.len;
    c->phase = MOCK__PHASE_DRAIN;
    mock__conn_progress(w, c);
}

/* metrics_end ends the completion in /metrics once (finish paths may run more than once). */
static void metrics_end(struct mock__worker *w, struct mock__conn *c, bool served)
{
    if (!c->metrics_open) {
        return;
    }
    c->metrics_open = false;
    uint64_t first = c->first_ns != 0 ? c->first_ns : w->now_ns;
    mock__metrics_finished(&w->server->metrics, &c->job, served, first - c->started_ns,
                           w->now_ns - c->started_ns);
}

/* answer_control answers vLLM's control endpoints as vLLM does: 200 and an
 * empty body, once --control-busy has run out. */
static void answer_control(struct mock__worker *w, struct mock__conn *c, enum mock__route route)
{
    if (w->control_busy_left > 0) {
        w->control_busy_left--;
        w->stats.control_busy++;
        answer_error(w, c, 503, "server_error", "busy with a previous control request; retry", 1,
                     NULL);
        return;
    }
    w->stats.cache_resets += route == MOCK__ROUTE_RESET_CACHE;
    w->stats.profiler_starts += route == MOCK__ROUTE_START_PROFILE;
    w->stats.profiler_stops += route == MOCK__ROUTE_STOP_PROFILE;
    answer_json(w, c, 0);
}

/* answer_echo answers with the request's body as it came: a response of any shape (escaped
 * member names, long lists) for the raw and template endpoints' response_field. */
static void answer_echo(struct mock__worker *w, struct mock__conn *c,
                        const struct mock__request *req)
{
    if (req->body_len > w->tx_cap - HEAD_RESERVE) {
        answer_error(w, c, 413, "invalid_request_error", "body too large to echo", 0, NULL);
        return;
    }
    memcpy(c->tx + HEAD_RESERVE, req->body, req->body_len);
    answer_json(w, c, req->body_len);
}

static void set_request_id(struct mock__worker *w, struct mock__conn *c,
                           const struct mock__request *req)
{
    struct mock__buf b = {.p = c->request_id, .cap = sizeof(c->request_id)};
    if (req->request_id != NULL && req->request_id_len > 0) {
        mock__json_escape(&b, req->request_id, req->request_id_len, true);
    }
    if (b.len == 0 || b.overflow) {
        b = (struct mock__buf){.p = c->request_id, .cap = sizeof(c->request_id)};
        mock__buf_str(&b, "mock-");
        mock__buf_u64(&b, w->index);
        mock__buf_put(&b, "-", 1);
        mock__buf_u64(&b, w->seq);
    }
    c->request_id_len = b.len;
}

/* remember_model adds a new model name to the shared table; names this worker already added
 * are found in its own list, so the lock is taken once per new name. */
static void remember_model(struct mock__worker *w, const struct mock__job *job)
{
    for (uint32_t i = 0; i < w->models_seen_count; i++) {
        if (w->models_seen_len[i] == job->model_len &&
            memcmp(w->models_seen[i], job->model, job->model_len) == 0) {
            return;
        }
    }
    if (w->models_seen_count == MOCK__MODELS_MAX) {
        return;
    }
    uint32_t i = w->models_seen_count++;
    memcpy(w->models_seen[i], job->model, job->model_len);
    w->models_seen_len[i] = job->model_len;
    mock__models_add(&w->server->models, job->model, job->model_len);
}

static enum mock__fault roll_fault(struct mock__worker *w)
{
    const struct mock_config *cfg = w->cfg;
    const double rates[] = {cfg->error_500_rate, cfg->error_429_rate, cfg->drop_rate,
                            cfg->stall_rate, cfg->malformed_rate};
    const enum mock__fault kinds[] = {MOCK__FAULT_500, MOCK__FAULT_429, MOCK__FAULT_DROP,
                                      MOCK__FAULT_STALL, MOCK__FAULT_MALFORMED};
    double total = rates[0] + rates[1] + rates[2] + rates[3] + rates[4];
    if (total <= 0) {
        return MOCK__FAULT_NONE;
    }
    double r = mock__rng_unit(&w->fault_rng) * 100.0;
    double acc = 0;
    for (size_t i = 0; i < sizeof(rates) / sizeof(rates[0]); i++) {
        acc += rates[i];
        if (r < acc) {
            return kinds[i];
        }
    }
    return MOCK__FAULT_NONE;
}

static void count_fault(struct mock__worker *w, enum mock__fault fault)
{
    uint64_t *counters[] = {NULL,
                            &w->stats.faults_500,
                            &w->stats.faults_429,
                            &w->stats.faults_drop,
                            &w->stats.faults_stall,
                            &w->stats.faults_malformed};
    if (fault != MOCK__FAULT_NONE) {
        (*counters[fault])++;
    }
}

/* schedule sets when the first event (streaming) or the whole body is due. */
static void schedule(struct mock__worker *w, struct mock__conn *c)
{
    uint32_t n = c->job.output_tokens;
    c->due_ns = w->now_ns + gap_ns(w, w->ttft_ns, w->ttft_jitter_ns);
    if (c->job.stream || n <= 1 || !mock__route_tokens(c->job.route)) {
        return;
    }
    if (w->itl_jitter_ns == 0) {
        c->due_ns += w->itl_ns * (uint64_t)(n - 1);
        return;
    }
    for (uint32_t i = 1; i < n; i++) {
        c->due_ns += gap_ns(w, w->itl_ns, w->itl_jitter_ns);
    }
}

static const char *id_prefix(enum mock__route route)
{
    switch (route) {
    case MOCK__ROUTE_CHAT:
        return "chatcmpl-mock-";
    case MOCK__ROUTE_RESPONSES:
        return "resp_mock-";
    case MOCK__ROUTE_MESSAGES:
        return "msg_mock-";
    case MOCK__ROUTE_EMBEDDINGS:
        return "embd-mock-";
    case MOCK__ROUTE_NIM_RANKING:
    case MOCK__ROUTE_COHERE_RERANK:
    case MOCK__ROUTE_TEI_RERANK:
        return "rerank-mock-";
    case MOCK__ROUTE_GENERATE:
    case MOCK__ROUTE_GENERATE_STREAM:
        return "gen-mock-";
    default:
        return "cmpl-mock-";
    }
}

static void start_completion(struct mock__worker *w, struct mock__conn *c,
                             const struct mock__request *req, enum mock__route route,
                             bool eventstream)
{
    char msg[MOCK__ERROR_MESSAGE_BYTES];
    struct mock__job *job = &c->job;
    bool form = route == MOCK__ROUTE_IMAGE_EDITS || route == MOCK__ROUTE_TRANSCRIPTIONS;
    enum mock__api_status st =
        form ? mock__form_parse(route, req->content_type, req->content_type_len, req->body,
                                req->body_len, w->cfg->output_tokens, job, msg, sizeof(msg))
             : mock__api_parse(route, req->body, req->body_len, w->cfg->output_tokens, job, msg,
                               sizeof(msg));
    if (st != MOCK__API_OK) {
        w->stats.client_errors++;
        answer_error(w, c, 400, "invalid_request_error", msg, 0, NULL);
        return;
    }
    if (route == MOCK__ROUTE_RAG) {
        /* SOLIDO's body has no "stream": it streams to a client that asks for events. */
        job->stream = req->accepts_event_stream;
    }
    remember_model(w, job);
    job->eventstream = eventstream && job->stream;
    job->report_cache = w->cfg->cache_hit_rate > 0;
    if (route == MOCK__ROUTE_CHAT || route == MOCK__ROUTE_COMPLETIONS) {
        job->spec_tokens = w->cfg->spec_decode_tokens;
    }
    job->cached_tokens = (uint64_t)((double)job->prompt_tokens * w->cfg->cache_hit_rate / 100.0);
    if (job->cached_tokens > job->prompt_tokens) {
        job->cached_tokens = job->prompt_tokens;
    }
    struct mock__buf idb = {.p = job->id, .cap = sizeof(job->id)};
    mock__buf_str(&idb, id_prefix(route));
    mock__buf_u64(&idb, w->index);
    mock__buf_put(&idb, "-", 1);
    mock__buf_u64(&idb, w->seq);
    job->id_len = idb.len;
    job->created_s = (uint64_t)time(NULL);
    c->fault = (uint8_t)roll_fault(w);
    count_fault(w, c->fault);
    if (c->fault == MOCK__FAULT_500) {
        answer_error(w, c, 500, "server_error", "mock-server: injected internal server error", 0,
                     NULL);
        return;
    }
    if (c->fault == MOCK__FAULT_429) {
        answer_error(w, c, 429, "rate_limit_exceeded",
                     "mock-server: injected rate limit; retry after 1 second", 1, NULL);
        return;
    }
    w->stats.completions++;
    c->started_ns = w->now_ns;
    c->metrics_open = true;
    mock__metrics_started(&w->server->metrics);
    c->fault_token = job->output_tokens / 2;
    bool cut = c->fault == MOCK__FAULT_DROP || c->fault == MOCK__FAULT_STALL;
    c->token_stop = cut ? c->fault_token : job->output_tokens;
    schedule(w, c);
    if (job->stream) {
        struct mock__buf b = tx_buf(w, c);
        mock__fmt_stream_head(&b, job, c->keep_alive);
        if (!commit(w, c, &b)) {
            return;
        }
    }
    c->phase = job->stream ? MOCK__PHASE_STREAM : MOCK__PHASE_BODY;
    mock__conn_progress(w, c);
}

static void handle_request(struct mock__worker *w, struct mock__conn *c,
                           const struct mock__request *req)
{
    c->keep_alive = req->keep_alive && !c->peer_eof;
    w->stats.requests_closing += req->keep_alive ? 0 : 1;
    w->stats.session_requests += req->has_session_header ? 1 : 0;
    w->seq++;
    set_request_id(w, c, req);
    if (w->cfg->sigv4_secret != NULL) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        const char *why = mock__sigv4_verify(w->cfg, req, now.tv_sec);
        if (why != NULL) {
            w->stats.sigv4_rejected++;
            w->stats.client_errors++;
            answer_error(w, c, 403, "access_denied", why, 0, NULL);
            return;
        }
        w->stats.sigv4_verified++;
    }
    const char *video_id = NULL;
    size_t video_id_len = 0;
    enum mock__video_op video = mock__video_op_of(req->method, req->method_len, req->path,
                                                  req->path_len, &video_id, &video_id_len);
    if (video != MOCK__VIDEO_NONE) {
        answer_video(w, c, req, video, video_id, video_id_len);
        return;
    }
    bool method_ok = false;
    /* SageMaker routes on the body, not the path: its invocations are chat completions here. */
    bool sagemaker_stream = false;
    bool sagemaker = mock__sagemaker_path(req->path, req->path_len, &sagemaker_stream);
    static const char chat_path[] = "/v1/chat/completions";
    enum mock__route route =
        mock__route_find(req->method, req->method_len, sagemaker ? chat_path : req->path,
                         sagemaker ? sizeof(chat_path) - 1 : req->path_len, &method_ok);
    if (route == MOCK__ROUTE_NONE) {
        w->stats.client_errors++;
        answer_error(w, c, 404, "not_found_error",
                     "unknown path; this server has POST /v1/chat/completions, "
                     "/v1/completions, /v1/responses, /v1/messages, /v1/embeddings, "
                     "/v1/ranking, /v2/rerank, /rerank, /generate, /generate_stream, "
                     "/inference/v1/generate, /v1/echo, "
                     "/reset_prefix_cache, /start_profile, /stop_profile, and GET /v1/models, "
                     "/health, /metrics and /dcgm/metrics",
                     0, NULL);
        return;
    }
    if (!method_ok) {
        bool get = route == MOCK__ROUTE_MODELS || route == MOCK__ROUTE_HEALTH ||
                   route == MOCK__ROUTE_METRICS || route == MOCK__ROUTE_DCGM;
        w->stats.client_errors++;
        answer_error(w, c, 405, "invalid_request_error", "method not allowed on this path", 0,
                     get ? "GET" : "POST");
        return;
    }
    if (route == MOCK__ROUTE_HEALTH || route == MOCK__ROUTE_MODELS) {
        answer_models(w, c, route == MOCK__ROUTE_HEALTH);
        return;
    }
    if (route == MOCK__ROUTE_METRICS || route == MOCK__ROUTE_DCGM) {
        answer_metrics(w, c, route == MOCK__ROUTE_DCGM);
        return;
    }
    if (route == MOCK__ROUTE_RESET_CACHE || route == MOCK__ROUTE_START_PROFILE ||
        route == MOCK__ROUTE_STOP_PROFILE) {
        answer_control(w, c, route);
        return;
    }
    if (route == MOCK__ROUTE_ECHO) {
        answer_echo(w, c, req);
        return;
    }
    start_completion(w, c, req, route, sagemaker_stream);
}

void mock__conn_input(struct mock__worker *w, struct mock__conn *c)
{
    while (c->state == MOCK__CONN_OPEN && c->phase == MOCK__PHASE_IDLE) {
        struct mock__request req;
        size_t consumed = 0;
        enum mock__req_status st =
            mock__request_parse(c->rx + c->rx_used, c->rx_len - c->rx_used, w->cfg->max_body_bytes,
                                w->cfg->session_header, &req, &consumed);
        if (st == MOCK__REQ_NEED_MORE) {
            c->rx_want = req.size_needed;
            break;
        }
        c->rx_want = 0;
        w->stats.requests++;
        if (st != MOCK__REQ_OK) {
            w->stats.client_errors++;
            c->keep_alive = false;
            c->close_when_sent = true;
            answer_error(w, c, mock__req_status_code(st), "invalid_request_error", req.error, 0,
                         NULL);
            break;
        }
        c->rx_used += consumed;
        handle_request(w, c, &req);
    }
    if (c->state == MOCK__CONN_OPEN && c->phase == MOCK__PHASE_IDLE && c->peer_eof) {
        mock__conn_close(w, c);
        return;
    }
    mock__conn_recv(w, c);
}

static void finish_stream(struct mock__worker *w, struct mock__conn *c)
{
    if (c->fault == MOCK__FAULT_DROP) {
        metrics_end(w, c, false);
        c->close_when_sent = true;
        c->phase = MOCK__PHASE_DRAIN;
        return;
    }
    if (c->fault == MOCK__FAULT_STALL) {
        metrics_end(w, c, false);
        c->phase = MOCK__PHASE_STALLED;
        return;
    }
    if (tx_free(w, c) < w->event_bytes_max) {
        return;
    }
    struct mock__buf b = tx_buf(w, c);
    mock__fmt_stream_tail(&b, &c->job);
    if (commit(w, c, &b)) {
        /* Counted before the last bytes leave: a scrape after the client's last read sees it. */
        metrics_end(w, c, c->fault == MOCK__FAULT_NONE);
        c->phase = MOCK__PHASE_DRAIN;
    }
}

static void pump_stream(struct mock__worker *w, struct mock__conn *c)
{
    uint32_t per_chunk = w->cfg->tokens_per_chunk;
    while (c->token_next < c->token_stop) {
        if (c->due_ns > w->now_ns) {
            mock__conn_timer(w, c, c->due_ns);
            return;
        }
        if (tx_free(w, c) < w->event_bytes_max) {
            return; /* resumed by the send completion */
        }
        uint32_t left = c->token_stop - c->token_next;
        uint32_t count = left < per_chunk ? left : per_chunk;
        struct mock__buf b = tx_buf(w, c);
        if (c->fault == MOCK__FAULT_MALFORMED && !c->malformed_sent &&
            c->fault_token < c->token_next + count) {
            mock__fmt_malformed_event(&b, &c->job);
            c->malformed_sent = true;
        }
        mock__fmt_token_event(&b, &c->job, c->token_next, count);
        if (!commit(w, c, &b)) {
            return;
        }
        c->first_ns = c->first_ns != 0 ? c->first_ns : w->now_ns;
        log_tokens(w, c, c->token_next, count);
        c->token_next += count;
        c->due_ns += gap_ns(w, w->itl_ns * count, w->itl_jitter_ns);
    }
    finish_stream(w, c);
}

/* body_head queues the status line, headers and body prefix. Content-Length covers the whole
 * body the request asked for, even when a drop or stall fault will cut it short. */
static bool body_head(struct mock__worker *w, struct mock__conn *c)
{
    char prefix[MOCK__FIXED_BYTES_MAX];
    char suffix[MOCK__FIXED_BYTES_MAX];
    struct mock__buf pb = {.p = prefix, .cap = sizeof(prefix)};
    struct mock__buf sb = {.p = suffix, .cap = sizeof(suffix)};
    mock__fmt_body_prefix(&pb, &c->job);
    if (c->fault != MOCK__FAULT_MALFORMED) {
        mock__fmt_body_suffix(&sb, &c->job);
    }
    uint64_t body_len = pb.len + mock__units_len(&c->job, 0, c->job.output_tokens) + sb.len;
    struct mock__buf b = tx_buf(w, c);
    mock__fmt_json_head(&b, 200, body_len, c->keep_alive, 0, NULL);
    mock__buf_put(&b, prefix, pb.len);
    return commit(w, c, &b);
}

static void finish_body(struct mock__worker *w, struct mock__conn *c)
{
    if (c->fault == MOCK__FAULT_DROP) {
        c->close_when_sent = true;
    } else if (c->fault == MOCK__FAULT_STALL) {
        metrics_end(w, c, false);
        c->phase = MOCK__PHASE_STALLED;
        return;
    } else if (c->fault != MOCK__FAULT_MALFORMED) {
        if (tx_free(w, c) < MOCK__FIXED_BYTES_MAX) {
            return;
        }
        struct mock__buf b = tx_buf(w, c);
        mock__fmt_body_suffix(&b, &c->job);
        if (!commit(w, c, &b)) {
            return;
        }
    }
    metrics_end(w, c, c->fault == MOCK__FAULT_NONE);
    c->phase = MOCK__PHASE_DRAIN;
}

static void pump_body(struct mock__worker *w, struct mock__conn *c)
{
    if (!c->head_sent) {
        if (c->due_ns > w->now_ns) {
            mock__conn_timer(w, c, c->due_ns);
            return;
        }
        if (!body_head(w, c)) {
            return;
        }
        c->head_sent = true;
        c->first_ns = w->now_ns;
    }
    while (c->token_next < c->token_stop) {
        size_t unit_max =
            mock__route_tokens(c->job.route) ? MOCK__WORD_BYTES_MAX : MOCK__UNIT_BYTES_MAX;
        size_t fit = tx_free(w, c) / unit_max;
        if (fit == 0) {
            return; /* resumed by the send completion */
        }
        uint32_t left = c->token_stop - c->token_next;
        uint32_t count = left < fit ? left : (uint32_t)fit;
        struct mock__buf b = tx_buf(w, c);
        for (uint32_t i = 0; i < count; i++) {
            mock__fmt_unit(&b, &c->job, c->token_next + i);
        }
        if (!commit(w, c, &b)) {
            return;
        }
        log_tokens(w, c, c->token_next, count);
        c->token_next += count;
    }
    finish_body(w, c);
}

static void end_answer(struct mock__worker *w, struct mock__conn *c)
{
    bool keep = c->keep_alive && !c->close_when_sent && !c->peer_eof;
    mock__conn_reset(c);
    if (!keep) {
        mock__conn_close(w, c);
        return;
    }
    mock__conn_input(w, c);
}

void mock__conn_progress(struct mock__worker *w, struct mock__conn *c)
{
    if (c->state != MOCK__CONN_OPEN) {
        return;
    }
    if (c->phase == MOCK__PHASE_STREAM) {
        pump_stream(w, c);
    } else if (c->phase == MOCK__PHASE_BODY) {
        pump_body(w, c);
    }
    if (c->state != MOCK__CONN_OPEN) {
        return;
    }
    mock__conn_send(w, c);
    if (c->phase == MOCK__PHASE_DRAIN && !c->send_armed && c->tx_head == c->tx_len) {
        end_answer(w, c);
    }
}
