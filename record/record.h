/*
 * record.h - what one request was: its identity (ordinal, shard, connection,
 * session and turn), its timestamps, the response as it was read (events,
 * text, usage, the stream's end markers) and how it ended. The engine fills
 * records, response/ reads the response into them, and metrics/, export/ and
 * cluster/ consume them, so this module depends on nothing.
 */
#ifndef RINGPERF_RECORD_H
#define RINGPERF_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The bytes kept of a failed request's error type and message. */
#define RECORD_ERROR_TYPE_BYTES 48
#define RECORD_ERROR_MESSAGE_BYTES 512

/* record_outcome: how a request ended. */
enum record_outcome {
    RECORD_SUCCESS = 0,
    RECORD_ERROR,
    RECORD_CANCELLED,
};

/* record_event_flags describe one stream event (or a whole non-streamed body). */
enum record_event_flags {
    RECORD_EVENT_CONTENT = 1u << 0,   /* carried output text: counts for TTFT/ITL */
    RECORD_EVENT_REASONING = 1u << 1, /* carried reasoning text */
    RECORD_EVENT_USAGE = 1u << 2,     /* carried a usage object */
    RECORD_EVENT_SAME_READ = 1u << 3, /* arrived in the same network read as the previous event */
};

/* record_event is one received event with the arrival time of the bytes that
 * completed it. */
struct record_event {
    int64_t arrival_ns; /* CLOCK_MONOTONIC */
    uint32_t flags;     /* enum record_event_flags */
    uint32_t text_len;  /* output + reasoning bytes this event carried */
};

/* RECORD_ABSENT is a count the server did not report. It is the one way of
 * saying so from the response reader through the metrics (METRICS_ABSENT is
 * the same value) to the exports; a reported 0 is a count like any other. */
#define RECORD_ABSENT (-1)

/* RECORD_USAGE_COUNTS(X) applies X to the name of every integer count of
 * struct record_usage, for code that treats all of them alike (keeping the
 * latest reported value, marking all absent). */
#define RECORD_USAGE_COUNTS(X)                                                                     \
    X(prompt_tokens)                                                                               \
    X(completion_tokens)                                                                           \
    X(total_tokens)                                                                                \
    X(reasoning_tokens)                                                                            \
    X(prompt_cache_read_tokens)                                                                    \
    X(prompt_cache_write_tokens)                                                                   \
    X(prompt_cache_miss_tokens)                                                                    \
    X(prompt_audio_tokens)                                                                         \
    X(completion_audio_tokens)                                                                     \
    X(tool_use_prompt_tokens)                                                                      \
    X(accepted_prediction_tokens)                                                                  \
    X(rejected_prediction_tokens)

/* record_usage is the token usage a server reported (response/ reads it,
 * under each vendor's names), and what metrics/ computes the usage metrics
 * from. Every count is RECORD_ABSENT until the server reports it. */
struct record_usage {
    bool present; /* a non-empty usage object arrived */
    int64_t prompt_tokens;
    int64_t completion_tokens;
    int64_t total_tokens;
    int64_t reasoning_tokens;
    int64_t prompt_cache_read_tokens;  /* cached prompt tokens read */
    int64_t prompt_cache_write_tokens; /* prompt tokens written to the cache */
    int64_t prompt_cache_miss_tokens;
    int64_t prompt_audio_tokens;
    int64_t completion_audio_tokens;
    int64_t tool_use_prompt_tokens;
    int64_t accepted_prediction_tokens;
    int64_t rejected_prediction_tokens;
    double prompt_audio_seconds; /* RECORD_ABSENT when not reported */
};

#define RECORD__ABSENT_COUNT(name) .name = RECORD_ABSENT,
/* RECORD_USAGE_NONE is a struct record_usage with nothing reported. */
#define RECORD_USAGE_NONE                                                                          \
    ((struct record_usage){RECORD_USAGE_COUNTS(RECORD__ABSENT_COUNT).prompt_audio_seconds =        \
                               RECORD_ABSENT})

/* record_usage_keep folds the usage object `latest` into `kept`: every
 * count it reports replaces the one kept, the others stay (servers that
 * report usage on every chunk report a growing total; some report parts of
 * it on different chunks). Nothing happens when latest is not present. */
void record_usage_keep(struct record_usage *kept, const struct record_usage *latest);

/* RECORD_SPEC_BUCKETS bounds the accepted-draft histogram kept of one request: counts of
 * 0..RECORD_SPEC_BUCKETS-1 accepted drafts per verify step (num_speculative_tokens up to 63). */
#define RECORD_SPEC_BUCKETS 64

/* record_spec_decode is the speculative-decoding statistics a server reported for one request
 * (vLLM's metrics.speculative_decoding, which response/ reads and checks), engine-neutral as
 * AIPerf's SpecDecodeAcceptanceRecord. `payloads` counts the events that carried a non-empty
 * stats object; only a request with exactly one, and that one `valid`, has statistics. */
struct record_spec_decode {
    uint32_t payloads;
    bool valid;                    /* the payload read is a consistent vLLM payload */
    double mean_acceptance_length; /* as reported: 1 + accepted / steps */
    double draft_acceptance_rate;  /* as reported, a fraction: accepted / drafted */
    int64_t accepted_draft_tokens;
    int64_t draft_tokens;
    int64_t steps;       /* verify steps: the histogram's counts add up to it */
    int64_t spec_tokens; /* num_spec_tokens (the drafts per step), RECORD_ABSENT if not sent */
    uint32_t bucket_count;
    int64_t histogram[RECORD_SPEC_BUCKETS]; /* [j]: steps that accepted j drafts */
};

/* record_spec_decode_consistent reports whether s's counts are one request's, the identities
 * AIPerf's SpecDecodeAcceptanceRecord holds: bucket_count at most RECORD_SPEC_BUCKETS (and
 * spec_tokens + 1 when spec_tokens is known), every count non-negative, the histogram's counts
 * adding up to the steps and its j-weighted sum to the accepted drafts, which are at most the
 * drafted ones. Sums that overflow are inconsistent. */
bool record_spec_decode_consistent(const struct record_spec_decode *s);

/* record_spec_decode_usable reports whether s holds one valid payload with at least one verify
 * step: AIPerf's acceptance record, the source of every spec_decode_* metric. */
bool record_spec_decode_usable(const struct record_spec_decode *s);

/* record_spec_decode_zero_step reports whether s holds one valid payload of a request that ran
 * no verify step (max_tokens 1, a drafter that never matched): AIPerf leaves it out of the
 * per-request metrics and counts it in spec_decode_zero_step_requests. */
bool record_spec_decode_zero_step(const struct record_spec_decode *s);

/* record_http is the HTTP exchange of one request as the engine saw it, for AIPerf's
 * http_req_* trace metrics: monotonic ns (0 = did not happen) and byte and operation counts. */
struct record_http {
    int64_t dispatch_ns;      /* a connection took the request (scheduled_ns until then) */
    int64_t connect_start_ns; /* a new connection's socket opened; 0 on a reused one */
    int64_t connect_end_ns;   /* it was ready to send: TCP (and TLS) handshakes done */
    int64_t first_byte_ns;    /* the first response bytes were read */
    uint64_t bytes_sent;      /* HTTP bytes of the request (head and body) */
    uint64_t bytes_received;  /* HTTP bytes of the response (head and body) */
    uint32_t sends;           /* send operations that carried the request */
    uint32_t reads;           /* network reads that carried the response */
};

/* record is everything measured about one request. Timestamps are
 * CLOCK_MONOTONIC nanoseconds, 0 when the request never reached that point. */
struct record {
    uint64_t ordinal;
    uint32_t shard_id;
    uint32_t connection_id; /* per shard: which pooled connection carried it */
    uint32_t target_index;  /* which of engine_config.targets it was sent to */
    size_t payload_index;
    enum record_outcome outcome;
    bool in_session;  /* part of a multi-turn session (engine_config.sessions) */
    uint64_t session; /* in_session: the session number, and this request's turn */
    uint32_t turn;

    int64_t wall_start_ns;  /* CLOCK_REALTIME at send start */
    int64_t scheduled_ns;   /* when the request was due to leave (open loop), or
                               when a connection became free for it (closed loop) */
    int64_t send_start_ns;  /* just before the bytes were submitted */
    int64_t send_end_ns;    /* the kernel accepted the last request byte */
    int64_t headers_ns;     /* response head complete */
    int64_t end_ns;         /* response complete, or failure noticed */
    int64_t cancel_ns;      /* when a cancellation was applied, else 0 */
    int http_status;        /* 0 when no response head arrived */
    bool reused_connection; /* sent on a kept-alive connection */
    struct record_http http;
    bool saw_done;          /* stream ended with [DONE] */
    bool saw_finish_reason; /* a finish_reason arrived */
    bool saw_content;       /* a content event arrived */
    /* The usage completion_tokens that came with the first content event
     * (servers that report usage on every chunk); 0 when it carried none. */
    int64_t first_content_completion_tokens;

    /* Filled when outcome != RECORD_SUCCESS. */
    int error_code; /* HTTP status, 499 for cancelled, 0 for transport errors */
    char error_type[RECORD_ERROR_TYPE_BYTES];
    char error_message[RECORD_ERROR_MESSAGE_BYTES];

    struct record_event *events; /* owned by the engine; event_count valid entries */
    uint32_t event_count;
    uint32_t events_dropped; /* events past max_events_per_request: counted, not kept */

    char *text; /* output text (content and tool calls), UTF-8, not NUL-terminated */
    size_t text_len;
    char *reasoning_text;
    size_t reasoning_len;
    bool text_truncated; /* some text exceeded max_text_bytes */

    struct record_usage usage;
    struct record_spec_decode spec_decode;
    /* The engine user's memory of this record (engine_record_hook.annex_bytes),
     * or NULL: owned by the engine, filled on the shard, read by the sink. */
    void *annex;
};

/* record_outcome_name returns "success", "error" or "cancelled". */
const char *record_outcome_name(enum record_outcome outcome);

/* record_request_id writes the X-Request-ID the engine sent for an ordinal
 * (UUID-shaped, unique per nonce and ordinal) into out and returns its length;
 * cap must be at least 37. */
size_t record_request_id(uint64_t nonce, uint64_t ordinal, char *out, size_t cap);

/* record_correlation_id writes the X-Correlation-ID (and X-Session-Affinity)
 * the engine sends with every turn of a session, as record_request_id does. */
size_t record_correlation_id(uint64_t nonce, uint64_t session, char *out, size_t cap);

/* RECORD_SECRETS_MAX bounds the secrets one run redacts (the API key, each
 * credential header's value and its token). */
#define RECORD_SECRETS_MAX 32
/* RECORD_SECRET_BYTES_MIN: shorter values are not redacted, as they would
 * match ordinary text everywhere. */
#define RECORD_SECRET_BYTES_MIN 4
/* RECORD_REDACTED replaces a secret found in a response. */
#define RECORD_REDACTED "<redacted>"

/* record_secrets is the run's credentials as sent, borrowed (they outlive the
 * run), so that a server that echoes them does not get them stored. */
struct record_secrets {
    struct {
        const char *ptr;
        size_t len;
    } items[RECORD_SECRETS_MAX];
    size_t count;
};

/* record_secrets_add adds the credential `value` (len bytes, borrowed) to s,
 * and for "Bearer X", "Basic X" or "Token X" the token X as well. Values
 * shorter than RECORD_SECRET_BYTES_MIN, and those past RECORD_SECRETS_MAX,
 * are not added. */
void record_secrets_add(struct record_secrets *s, const char *value, size_t len);

/* record_redact replaces every secret of s in rec's response (its text, its
 * reasoning text and its error message) with RECORD_REDACTED, or with as
 * many '*' when the secret is shorter than that: in place, never longer, no
 * allocation. A text that ends with the start of a secret (cut at its cap)
 * has that part redacted too. s may be NULL. */
void record_redact(struct record *rec, const struct record_secrets *s);

#endif
