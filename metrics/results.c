/*
 * results.c - records seen through metrics/, and their accumulation.
 *
 * The formulas live in metrics/ (AIPerf spec §2.2); this file only maps an
 * engine record onto struct metrics_request: "content responses" are the
 * events that carried output or reasoning text, and token counts come from
 * the run's tokenizer or the server's usage.
 */
#include "metrics/metrics_record.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int metrics_results_init(struct metrics_results *results,
                         const struct metrics_results_options *opts, char *errbuf, size_t errcap)
{
    *results = (struct metrics_results){
        .streaming = opts->streaming,
        .use_server_token_count = opts->use_server_token_count,
        .per_chunk_usage = opts->per_chunk_usage,
        .produces_tokens = true,
        .tokenizes_input = true,
    };
    if (opts->goodput != NULL &&
        metrics_goodput_parse(opts->goodput, &results->goodput, errbuf, errcap) != 0) {
        return -EINVAL;
    }
    struct metrics_run_config run_cfg = {.streaming = opts->streaming,
                                         .goodput = &results->goodput,
                                         .network_rtt_given = opts->network_rtt_given,
                                         .network_rtt_ns = opts->network_rtt_ns};
    int ret = metrics_sweep_new(NULL, &results->sweep);
    return ret != 0 ? ret : metrics_run_new(&run_cfg, &results->run);
}

void metrics_results_free(struct metrics_results *results)
{
    metrics_run_free(results->run);
    results->run = NULL;
    metrics_sweep_free(results->sweep);
    results->sweep = NULL;
    tokenizer_scratch_free(&results->token_scratch);
    free(results->content_ns);
    results->content_ns = NULL;
    results->content_cap = 0;
}

static bool is_content(const struct record_event *ev)
{
    return (ev->flags & (RECORD_EVENT_CONTENT | RECORD_EVENT_REASONING)) != 0;
}

/* content_times fills `content_ns` (room for every event of rec) with the
 * content responses' arrival times. */
static void content_times(const struct record *rec, int64_t *content_ns,
                          struct metrics_request *req)
{
    uint32_t n = 0;
    req->first_output_index = UINT32_MAX;
    for (uint32_t i = 0; i < rec->event_count; i++) {
        const struct record_event *ev = &rec->events[i];
        if (!is_content(ev)) {
            continue;
        }
        if (req->first_output_index == UINT32_MAX && (ev->flags & RECORD_EVENT_CONTENT) != 0) {
            req->first_output_index = n;
        }
        content_ns[n++] = ev->arrival_ns;
    }
    req->content_ns = content_ns;
    req->content_count = n;
    if (req->first_output_index == UINT32_MAX) {
        req->first_output_index = n;
    }
}

/* grow_content makes the results' scratch hold every event of rec; false when
 * it could not grow. */
static bool grow_content(struct metrics_results *results, const struct record *rec)
{
    if (rec->event_count > results->content_cap) {
        int64_t *grown = realloc(results->content_ns, rec->event_count * sizeof(*grown));
        if (grown == NULL) {
            return false;
        }
        results->content_ns = grown;
        results->content_cap = rec->event_count;
    }
    return true;
}

/* server_tokens takes the server's usage as it is (a count it left out is
 * RECORD_ABSENT all the way) and maps it onto token counts: completion_tokens
 * includes the reasoning tokens, which AIPerf's output_token_count does
 * not. */
static void server_tokens(const struct record_usage *u, struct metrics_request *req)
{
    req->tokens = (struct metrics_tokens){METRICS_ABSENT, METRICS_ABSENT, METRICS_ABSENT};
    req->usage = RECORD_USAGE_NONE;
    if (!u->present) {
        return;
    }
    req->usage = *u;
    req->tokens.input = u->prompt_tokens;
    req->tokens.reasoning = u->reasoning_tokens;
    if (u->completion_tokens != RECORD_ABSENT) {
        int64_t reasoning = u->reasoning_tokens > 0 ? u->reasoning_tokens : 0;
        int64_t output = u->completion_tokens - reasoning;
        req->tokens.output = output > 0 ? output : METRICS_ABSENT;
    }
}

/* count_text returns the token count of a text, or METRICS_ABSENT for none. */
static int64_t count_text(const struct metrics_results *results, struct tokenizer_scratch *scratch,
                          const char *text, size_t len)
{
    size_t count = 0;
    if (len == 0 ||
        tokenizer_count(results->tokenizer, scratch, text, len, &count) != TOKENIZER_OK) {
        return METRICS_ABSENT;
    }
    return count > 0 ? (int64_t)count : METRICS_ABSENT;
}

/* client_tokens counts as AIPerf does by default: one encode of all the output
 * text, one of all the reasoning text, and the payload's input tokens. */
static void client_tokens(const struct metrics_results *results, struct tokenizer_scratch *scratch,
                          const struct record *rec, struct metrics_request *req)
{
    req->tokens.output = count_text(results, scratch, rec->text, rec->text_len);
    req->tokens.reasoning = count_text(results, scratch, rec->reasoning_text, rec->reasoning_len);
    if (rec->in_session && results->session_input_tokens != NULL) {
        int64_t isl = results->session_input_tokens(results->session_ctx, rec, req->tokens.output);
        req->tokens.input = isl >= 0 ? isl : METRICS_ABSENT;
    } else {
        req->tokens.input = results->payload_isl != NULL ? results->payload_isl[rec->payload_index]
                                                         : METRICS_ABSENT;
    }
    req->client_tokens = true;
}

/* gate_tokens drops the counts AIPerf's endpoint metadata rules out: output, reasoning and
 * generated-token usage on endpoints that produce no tokens (a transcript is text, not tokens
 * generated), prompt usage on endpoints that do not tokenize their input. */
static void gate_tokens(const struct metrics_results *results, struct metrics_request *req)
{
    struct record_usage *u = &req->usage;
    if (!results->produces_tokens) {
        req->tokens.output = METRICS_ABSENT;
        req->tokens.reasoning = METRICS_ABSENT;
        u->completion_tokens = u->total_tokens = u->reasoning_tokens = RECORD_ABSENT;
        u->completion_audio_tokens = RECORD_ABSENT;
        u->accepted_prediction_tokens = u->rejected_prediction_tokens = RECORD_ABSENT;
    }
    if (!results->tokenizes_input) {
        req->tokens.input = METRICS_ABSENT;
        u->prompt_tokens = RECORD_ABSENT;
    }
}

void metrics_record_compute(struct metrics_results *results, const struct record *rec,
                            struct metrics_record *out)
{
    bool room = grow_content(results, rec);
    metrics_record_compute_in(results, &results->token_scratch, room ? results->content_ns : NULL,
                              rec, out);
}

void metrics_record_compute_in(const struct metrics_results *results,
                               struct tokenizer_scratch *scratch, int64_t *content_ns,
                               const struct record *rec, struct metrics_record *out)
{
    struct metrics_request *req = &out->request;
    *req = (struct metrics_request){
        .failed = rec->outcome != RECORD_SUCCESS,
        .streaming = results->streaming,
        .start_ns = rec->send_start_ns,
        .start_wall_ns = rec->wall_start_ns,
        .scheduled_ns = results->open_loop && rec->send_start_ns != 0 ? rec->scheduled_ns : 0,
        .credit_issued_ns = results->fixed_schedule ? 0 : rec->scheduled_ns,
        .spec_decode = rec->spec_decode.payloads > 0 ? &rec->spec_decode : NULL,
    };
    const struct record_http *h = &rec->http;
    req->http = (struct metrics_http){
        .present = true,
        .reused = rec->reused_connection,
        .blocked_ns = h->dispatch_ns != 0 ? h->dispatch_ns - rec->scheduled_ns : 0,
        .connect_ns = h->connect_end_ns != 0 ? h->connect_end_ns - h->connect_start_ns : 0,
        .send_start_ns = rec->send_start_ns,
        /* The send's completion can be reaped after the reply's first read (both in one batch):
         * the server had the whole request by the time it answered. */
        .send_end_ns = h->first_byte_ns != 0 && rec->send_end_ns > h->first_byte_ns
                           ? h->first_byte_ns
                           : rec->send_end_ns,
        .first_byte_ns = h->first_byte_ns,
        .end_ns = rec->end_ns,
        .bytes_sent = h->bytes_sent,
        .bytes_received = h->bytes_received,
        .sends = h->sends,
        .reads = h->reads,
    };
    server_tokens(&rec->usage, req);
    if (results->tokenizer != NULL && !results->use_server_token_count) {
        client_tokens(results, scratch, rec, req);
    }
    if (content_ns != NULL) {
        content_times(rec, content_ns, req);
    }
    if (results->per_chunk_usage) {
        req->first_chunk_tokens = rec->first_content_completion_tokens;
    }
    if (results->payload_osl != NULL && !rec->in_session) {
        req->requested_osl = results->payload_osl[rec->payload_index];
    }
    if (results->payload_images != NULL && !rec->in_session) {
        req->images = results->payload_images[rec->payload_index];
    }
    if (results->payload_audio_seconds != NULL && !rec->in_session) {
        req->audio_seconds = results->payload_audio_seconds[rec->payload_index];
    }
    gate_tokens(results, req);
    metrics_request_compute(req, &out->values);
    out->shared_reads = metrics_record_shared_reads(rec, results->streaming);
}

void metrics_record_compute_as(const struct metrics_results *results, const struct record *rec,
                               const struct metrics_record *counted, struct metrics_record *out)
{
    *out = *counted;
    struct metrics_request *req = &out->request;
    req->scheduled_ns = results->open_loop && rec->send_start_ns != 0 ? rec->scheduled_ns : 0;
    req->credit_issued_ns = results->fixed_schedule ? 0 : rec->scheduled_ns;
    /* As client_tokens: a turn's input counts its history only where the client counted. */
    if (req->client_tokens && rec->in_session && results->session_input_tokens != NULL) {
        int64_t isl = results->session_input_tokens(results->session_ctx, rec, req->tokens.output);
        req->tokens.input = isl >= 0 && results->tokenizes_input ? isl : METRICS_ABSENT;
    }
    metrics_request_compute(req, &out->values);
}

int64_t metrics_record_wall_ns(const struct record *rec, int64_t monotonic_ns)
{
    if (monotonic_ns == 0 || rec->send_start_ns == 0) {
        return 0;
    }
    return rec->wall_start_ns + (monotonic_ns - rec->send_start_ns);
}

/* error_key_len is how much of an error message tells its kind: all of it, or what comes
 * before a response payload it quotes (": {", ": [" or ': "'), so that malformed responses,
 * each with its own payload, are one kind in the summary (the records keep every payload). */
static size_t error_key_len(const char *message)
{
    size_t len = strlen(message);
    static const char *const payload_starts[] = {": {", ": [", ": \""};
    for (size_t i = 0; i < sizeof(payload_starts) / sizeof(payload_starts[0]); i++) {
        const char *at = strstr(message, payload_starts[i]);
        if (at != NULL && (size_t)(at - message) < len) {
            len = (size_t)(at - message);
        }
    }
    return len;
}

/* add_error_kind counts `count` errors of one kind: code, type and the first key_len bytes of
 * message. */
static void add_error_kind(struct metrics_results *results, int code, const char *type,
                           const char *message, size_t key_len, uint64_t count)
{
    for (size_t i = 0; i < results->error_kind_count; i++) {
        struct metrics_error_kind *kind = &results->errors[i];
        if (kind->code == code && strcmp(kind->type, type) == 0 &&
            strlen(kind->message) == key_len && strncmp(kind->message, message, key_len) == 0) {
            kind->count += count;
            return;
        }
    }
    if (results->error_kind_count == METRICS_ERROR_KINDS_MAX) {
        results->errors_unlisted += count;
        return;
    }
    struct metrics_error_kind *kind = &results->errors[results->error_kind_count++];
    kind->code = code;
    snprintf(kind->type, sizeof(kind->type), "%s", type);
    snprintf(kind->message, sizeof(kind->message), "%.*s", (int)key_len, message);
    kind->count = count;
}

void metrics_results_add(struct metrics_results *results, const struct record *rec,
                         const struct metrics_record *metrics)
{
    const struct metrics_values *v = &metrics->values;
    int64_t first = metrics->request.first_chunk_tokens;
    if (results->per_chunk_usage && v->has[METRICS_ITL] &&
        !(first > 0 && (double)first < v->value[METRICS_OSL])) {
        results->itl_first_chunk_fallbacks++;
    }
    if (rec->outcome == RECORD_SUCCESS) {
        results->success_count++;
    } else {
        results->cancelled_count += rec->outcome == RECORD_CANCELLED;
        results->error_count++;
        add_error_kind(results, rec->error_code, rec->error_type, rec->error_message,
                       error_key_len(rec->error_message), 1);
    }
    if (rec->wall_start_ns != 0 &&
        (results->first_wall_ns == 0 || rec->wall_start_ns < results->first_wall_ns)) {
        results->first_wall_ns = rec->wall_start_ns;
    }
    metrics_run_add(results->run, &metrics->request, &metrics->values);
    metrics_results_sweep_add(results, metrics);
    results->same_read_events += metrics->shared_reads;
}

int metrics_results_merge(struct metrics_results *dst, const struct metrics_results *src)
{
    int ret = metrics_run_merge(dst->run, src->run);
    if (ret != 0) {
        return ret;
    }
    dst->success_count += src->success_count;
    dst->error_count += src->error_count;
    dst->cancelled_count += src->cancelled_count;
    dst->errors_unlisted += src->errors_unlisted;
    dst->same_read_events += src->same_read_events;
    dst->itl_first_chunk_fallbacks += src->itl_first_chunk_fallbacks;
    if (src->first_wall_ns != 0 &&
        (dst->first_wall_ns == 0 || src->first_wall_ns < dst->first_wall_ns)) {
        dst->first_wall_ns = src->first_wall_ns;
    }
    for (size_t i = 0; i < src->error_kind_count; i++) {
        const struct metrics_error_kind *k = &src->errors[i];
        add_error_kind(dst, k->code, k->type, k->message, strlen(k->message), k->count);
    }
    return 0;
}

void metrics_results_sweep_add(struct metrics_results *results,
                               const struct metrics_record *metrics)
{
    const struct metrics_request *req = &metrics->request;
    const struct metrics_values *v = &metrics->values;
    if (results->sweep == NULL || req->start_wall_ns == 0 || req->start_ns == 0 ||
        req->http.end_ns == 0) {
        return;
    }
    /* AIPerf's times are wall-clock; the offsets from the send start are the monotonic ones. */
    int64_t wall = req->start_wall_ns;
    struct metrics_sweep_request s = {
        .start_ns = wall,
        .first_ns =
            v->has[METRICS_TTFT] ? wall + (int64_t)v->value[METRICS_TTFT] : METRICS_SWEEP_NONE,
        .end_ns = wall + (req->http.end_ns - req->start_ns),
        .input_tokens = v->has[METRICS_ISL] ? v->value[METRICS_ISL] : METRICS_SWEEP_NO_TOKENS,
        .output_tokens = v->has[METRICS_OSL] ? v->value[METRICS_OSL] : METRICS_SWEEP_NO_TOKENS,
    };
    /* The inter-chunk gaps are AIPerf's inter_chunk_latency: successful streamed requests. */
    uint32_t gaps = metrics_request_icl_count(req);
    metrics_sweep_add(results->sweep, &s, req->content_ns, gaps > 0 ? gaps + 1 : 0);
}

int metrics_results_summarize(struct metrics_results *results, struct metrics_summary *out)
{
    metrics_run_summarize(results->run, out);
    if (results->sweep != NULL) {
        metrics_sweep_summarize(results->sweep, &out->sweep);
    }
    return 0;
}

void metrics_results_reset(struct metrics_results *results)
{
    metrics_run_reset(results->run);
    results->success_count = 0;
    results->error_count = 0;
    results->cancelled_count = 0;
    results->first_wall_ns = 0;
    results->error_kind_count = 0;
    results->errors_unlisted = 0;
    results->same_read_events = 0;
    results->itl_first_chunk_fallbacks = 0;
}

uint32_t metrics_record_shared_reads(const struct record *rec, bool streaming)
{
    uint32_t shared = 0;
    bool seen = false;
    for (uint32_t i = 0; rec->outcome == RECORD_SUCCESS && streaming && i < rec->event_count; i++) {
        const struct record_event *ev = &rec->events[i];
        if (is_content(ev)) {
            shared += seen && (ev->flags & RECORD_EVENT_SAME_READ) != 0;
            seen = true;
        }
    }
    return shared;
}
