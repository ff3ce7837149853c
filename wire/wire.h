/*
 * wire.h - reading one HTTP response off the wire into its request's record: the HTTP framing
 * (http/), then a body that is a server-sent event stream (sse/), an AWS event stream (evs/,
 * SageMaker's streamed replies) or one whole body, each event or body folded into the record by
 * response/ with AIPerf's stream rules.
 *
 * Bytes in, the record and what it means out: no clock, no socket, and no allocation unless
 * the caller lets the body buffer grow (wire_reader_set_body_max: a response or an event longer
 * than the buffer, growing once and kept by the connection). The engine
 * feeds it each network read and acts on the result (prefill over, request failed or finished),
 * and a fuzz target drives the same code to check that a stream gives the same record however
 * the network cut it.
 *
 * Every view into a read is dropped when wire_reader_feed returns, so whatever the record keeps
 * (text, usage, an error's message) is copied out.
 */
#ifndef RINGPERF_WIRE_H
#define RINGPERF_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "evs/evs.h"
#include "http/http.h"
#include "record/record.h"
#include "response/response.h"
#include "sse/sse.h"

/* wire_config is what a run says about reading its responses; shared by every reader. */
struct wire_config {
    const struct response_reader *reader;
    struct response_limits limits;
    /* Read the framing only: any 2xx is a success and its body is not looked at (readiness
     * probes and control hooks, which want the status, not the text). */
    bool discard_body;
};

/* wire_body_mode is what the reader does with one request's 2xx body (wire_reader.body_mode). */
enum wire_body_mode {
    WIRE_BODY_READ = 0, /* the endpoint's response reader reads it (streams included) */
    /* Hand the whole body to the caller, unread (wire_result.body): an asynchronous job's
     * answers, which the engine reads itself. */
    WIRE_BODY_HAND_OVER,
    /* Count it and keep none of it: a job's download, which may be far larger than the body
     * buffer. Any 2xx is then a success. */
    WIRE_BODY_DISCARD,
};

/* wire_reader is one connection's reader: set up once by wire_reader_init, reset before each
 * request. The members are the parsers' states and the body buffer; callers read only `http`
 * (a proxy's CONNECT reply is parsed with it between requests, see engine_proxy.c). */
struct wire_reader {
    struct http_response_parser http;
    struct sse_parser sse;
    /* An AWS event stream's frames, then the lines its PayloadPart events carry: both borrow
     * halves of `body`, which a stream does not otherwise use. */
    struct evs_parser evs;
    struct evs_lines evs_lines;
    struct response_parse_state parse_state;
    bool status_ok;   /* the final head's status is 2xx */
    bool body_is_sse; /* a 2xx text/event-stream */
    bool body_is_evs; /* a 2xx application/vnd.amazon.eventstream */
    /* A non-streamed body, or the body of an error response, collected here when it spans
     * reads (a body that arrives whole in one read is read where it lies). */
    char *body;
    size_t body_len;
    size_t body_cap;
    size_t body_max; /* body_cap unless wire_reader_set_body_max let it grow */
    bool body_truncated;
    /* What to do with this request's 2xx body; wire_reader_reset sets WIRE_BODY_READ, and the
     * caller may change it before the response arrives. */
    enum wire_body_mode body_mode;
};

/* wire_result is what one read (or the server's close) did to the request. */
struct wire_result {
    bool generated; /* output arrived: the request's prefill is over */
    bool ended;     /* the request ended: `outcome` says how */
    enum record_outcome outcome;
    bool keep_alive; /* ended without failure or trailing bytes, and the server keeps the
                        connection open */
    bool trailing;   /* bytes followed the response in the read: a broken server (we never
                        pipeline), so the connection must not be reused */
    /* WIRE_BODY_HAND_OVER, ended with success: the whole body (a view into the read or into
     * the reader's buffer, valid until the caller feeds the reader again or resets it). */
    const char *body;
    size_t body_len;
    /* The request failed for a reason the record does not yet hold (a malformed response, a
     * stream error): failure names it, and the connection is not to be reused. An HTTP error
     * status is not a failure here: the record holds its code, reason and message. The members
     * from `failure` on are set only when failed (they are large, and most reads do not fail). */
    bool failed;
    struct response_failure failure;
    char failure_type[RECORD_ERROR_TYPE_BYTES]; /* failure.type, when it is the server's label */
};

/* wire_reader_init sets up w with borrowed buffers: head (head_cap bytes) for the response
 * head and at most max_headers fields, body (body_cap bytes) for bodies and the stream
 * parsers, and scratch for JSON tokens of large bodies (shared by a shard's readers). */
void wire_reader_init(struct wire_reader *w, char *head, size_t head_cap, size_t max_headers,
                      char *body, size_t body_cap, struct response_scratch *scratch);

/* wire_reader_set_body_max lets w grow its body buffer, on the reading thread, up to body_max
 * bytes for a longer whole body or a longer SSE event (doubling; the reader keeps what it grew
 * to): the buffer given to wire_reader_init must then come from malloc, and the caller frees
 * w->body, which may have moved, instead. A body or event past body_max fails the request
 * (ResponseTooLarge, SSEParseError); AWS event-stream frames keep to half of the buffer. */
void wire_reader_set_body_max(struct wire_reader *w, size_t body_max);

/* wire_reader_reset prepares w for the next request's response. */
void wire_reader_reset(struct wire_reader *w);

/* wire_reader_feed reads the `len` bytes of one network read, all of which arrived at
 * arrival_ns, into rec (its head time, status, events, text, usage, end and, for an HTTP error
 * status, its error), and says in *out what happened. Once out->ended, the request is over and
 * the rest of the read is not looked at. */
void wire_reader_feed(struct wire_reader *w, const struct wire_config *cfg, const char *data,
                      size_t len, int64_t arrival_ns, struct record *rec, struct wire_result *out);

/* wire_reader_eof tells w the server closed the connection, at now_ns. Returns true (with *out
 * ended) when that completed the response, a body read until close; false when the response
 * was cut short, which the caller reports as the transport error it is. */
bool wire_reader_eof(struct wire_reader *w, const struct wire_config *cfg, int64_t now_ns,
                     struct record *rec, struct wire_result *out);

#endif
