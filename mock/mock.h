/*
 * mock.h - `ringperf mock-server`: a mock inference server on io_uring speaking OpenAI
 * chat/completions/responses/embeddings, Anthropic messages, Hugging Face TGI and the NIM,
 * Cohere and TEI rankings APIs.
 *
 * A load-test target that imitates an LLM inference engine (like AIPerf's mock server) and is
 * cheap enough never to be the bottleneck when ringperf is benchmarked against it: each worker
 * thread runs its own io_uring loop with its own SO_REUSEPORT listener, every connection's
 * buffers are allocated at start-up (a request body past 48 KiB gets receive room of its own
 * while it is read), tokens are paced with io_uring timeouts (one pending timer
 * per active stream, never a sleep) and written with IORING_OP_SEND. Emitting a token costs no
 * allocation and no syscall beyond the (batched) send.
 *
 * Flags (`ringperf mock-server [flags]`; `--flag VALUE` or `--flag=VALUE`):
 *   --host HOST            address to bind (default 127.0.0.1; IPv4, IPv6 or a resolvable name).
 *                          A non-loopback address is bound only when given explicitly.
 *   --port N               TCP port (default 8000; 0 picks a free port)
 *   --threads N            worker threads, one io_uring each (default 1, at most 256)
 *   --ttft-ms MS           time to first token (default 0; fractional milliseconds accepted)
 *   --itl-ms MS            inter-token latency per token (default 0)
 *   --ttft-jitter-ms MS    uniform jitter added to the TTFT, in [-MS, +MS] (default 0)
 *   --itl-jitter-ms MS     uniform jitter added to each inter-event gap, in [-MS, +MS]
 *   --tokens-per-chunk N   tokens carried by each stream event (default 1, at most 65536)
 *   --output-tokens N      output length when the request gives no max tokens (default 16)
 *   --error-500-rate PCT   percent of completion requests answered 500 (default 0)
 *   --error-429-rate PCT   percent answered 429 with `Retry-After: 1`
 *   --drop-rate PCT        percent whose connection is closed mid-response
 *   --stall-rate PCT       percent that stop mid-response and hold the connection open
 *   --malformed-rate PCT   percent that carry a corrupt (invalid JSON) event or body
 *   --seed N               seed of the fault and jitter random generator (default 0)
 *   --spec-decode-tokens K simulate speculative decoding with K drafts per verify step (default
 *                          0: off; at most 16): every chat and completions answer carries vLLM's
 *                          `"metrics":{"speculative_decoding":{...}}` (the body's top level, or
 *                          a stream's usage chunk, else its finish_reason chunk). Of n output
 *                          tokens the first comes from the prefill; verify step s (from 0)
 *                          accepts min(s mod (K + 1), left - 1) drafts and emits one more token,
 *                          `left` being the tokens still to emit, until none is left. Reported:
 *                          mean_acceptance_length 1 + accepted / steps (1.0 without steps),
 *                          draft_acceptance_rate accepted / (K x steps) (0.0 without steps), the
 *                          dense acceptance_histogram of K + 1 counts, num_accepted_draft_tokens,
 *                          num_draft_tokens K x steps, num_spec_steps and num_spec_tokens K.
 *   --token-log FILE       write the token log described below to FILE (truncated first)
 *   --max-connections N    open connections across all threads (default 4096)
 *   --max-body-kb N        largest request body accepted, in KiB (default 65536 = 64 MiB, at
 *                          most 1 GiB); receive room past 64 KiB is mapped per request
 *   --video-job-ms MS      how long a video job takes before it completes or fails (default 200)
 *   --video-fail-rate PCT  percent of video jobs that end "failed" (default 0)
 *   --help                 print the flags and exit
 * The five fault rates must add up to at most 100. Each completion request draws one number
 * from the seeded generator and gets at most one fault.
 *
 * Routes:
 *   POST /v1/chat/completions, POST /v1/completions
 *       Output length = `max_completion_tokens`, else `max_tokens`, else --output-tokens;
 *       the text is deterministic: token i is word i of a fixed cycle of common English words,
 *       each with a leading space. `prompt_tokens` is a whitespace word count of the prompt
 *       (chat: every text `content` of `messages`, string or text parts; completions: `prompt`,
 *       a string or array of strings; array items that are integers count as one token each).
 *       `finish_reason` is "length" when the request gave the limit, "stop" otherwise.
 *       With `"stream":true`: `200`, `Content-Type: text/event-stream`, `Transfer-Encoding:
 *       chunked`; the headers are sent at once, then one SSE event `data: {json}\n\n` per HTTP
 *       chunk: a chunk event carrying up to --tokens-per-chunk tokens (the first chat event
 *       also carries `"role":"assistant"`), a final event with an empty delta/text and the
 *       finish_reason, a usage-only event `{"choices":[],"usage":{...}}` when
 *       `stream_options.include_usage` is true, then `data: [DONE]`. The first event is due
 *       TTFT after the request arrived; each further event is due itl_ms x (tokens in it)
 *       after the previous one's scheduled time (so the token rate does not depend on the
 *       chunking); the final, usage and [DONE] events follow the last token at once.
 *       Otherwise one `chat.completion` / `text_completion` JSON body with `usage`, sent after
 *       TTFT + ITL x (n - 1). Jitter applies to every gap; a gap never goes below zero.
 *   POST /v1/responses (OpenAI Responses API)
 *       Output length = `max_output_tokens`, else `max_tokens`, else --output-tokens; prompt
 *       words of `input` (a string, or items with string or part-list content) and
 *       `instructions`. Streaming (`"stream":true`): `event:`-named SSE events:
 *       response.created, response.output_item.added and response.content_part.added at once,
 *       one response.output_text.delta per chunk (paced as above), then
 *       response.output_text.done with the whole text (left out when the text is over 16 KiB)
 *       and response.completed with usage {input_tokens, output_tokens, total_tokens}; no
 *       [DONE]. Otherwise one `"object":"response"` body with output[0] a message holding one
 *       output_text part, and usage.
 *   POST /v1/messages (Anthropic Messages API)
 *       Output length = `max_tokens`, else --output-tokens; prompt words of `messages` and
 *       `system`. Streaming: message_start (usage.input_tokens), content_block_start and ping at
 *       once, one content_block_delta text_delta per chunk, then content_block_stop,
 *       message_delta (stop_reason "max_tokens" when the request gave the limit, else
 *       "end_turn"; usage.output_tokens) and message_stop. Otherwise a `"type":"message"` body
 *       with one text block, stop_reason and usage. Errors keep the OpenAI error shape.
 *   POST /generate, POST /generate_stream (Hugging Face TGI)
 *       Output length = `parameters.max_new_tokens`, else --output-tokens. /generate answers
 *       {"generated_text":...,"details":{finish_reason,generated_tokens,seed}};
 *       /generate_stream always streams `data:` events {"index","token":{"id","text",...},
 *       "generated_text":null,"details":null}, the event with the last token carrying
 *       generated_text (the whole text, or "" when it is over 16 KiB) and details; no [DONE].
 *   POST /generate with "input_ids" (SGLang's native API; the prompt length is the ids sent)
 *       Output length = `sampling_params.max_new_tokens`, else --output-tokens; output token i
 *       is id 1000 + i. With "stream":true, one `data:` event per chunk of tokens,
 *       {"text":the text so far ("" past 16 KiB),"output_ids":[this chunk's ids],"meta_info":
 *       {"id","finish_reason":null (last event: {"type":"length","length":N} or {"type":"stop",
 *       "matched":2}),"prompt_tokens","completion_tokens":so far,"cached_tokens"}}, then
 *       `data: [DONE]`; without, {"output_ids":[every id],"meta_info":{...}} (no "text").
 *   POST /inference/v1/generate (vLLM's token-id API: "token_ids", sampling_params.max_tokens;
 *       "stream":true is refused) -> {"request_id","choices":[{"index":0,"logprobs":null,
 *       "finish_reason","token_ids":[...]}],"prompt_logprobs":null,"kv_transfer_params":null}.
 *   POST /v1/embeddings
 *       `input` (a string, or a list of strings or token ids) gives one embedding per item; a
 *       chat-shaped body (`messages`, for chat_embeddings) gives one. Answers
 *       {"object":"list","data":[{"index","object":"embedding","embedding":[8 floats]}...],
 *       "model","usage":{prompt_tokens,total_tokens}} after --ttft-ms (no per-token pacing).
 *   POST /v1/ranking (NIM: query.text, passages[{text}] -> {"rankings":[{index,logit}]}),
 *   POST /v2/rerank (Cohere: query, documents[] -> {"id","results":[{index,relevance_score}],
 *   "meta"}), POST /rerank (TEI: query, texts[] -> [{index,score}]): one item per passage,
 *       scores falling with the index, sent after --ttft-ms.
 *   The fault draw applies to every route above; for embeddings and rankings the body's items
 *   play the part of the tokens (a drop or stall cuts after half of them, malformed cuts the
 *   body short), and they are not written to the token log.
 *   POST /v1/echo   -> 200 with the request's body as it came (Content-Type application/json;
 *       413 past a connection's send buffer): a reply of any shape, for the raw and template
 *       endpoints' response_field (escaped member names, long lists). No fault draw.
 *   GET /v1/models  -> a model list of the names seen in requests so far (or "mock-model")
 *   GET /health     -> 200 {"status":"ok"}
 *   POST /v1/videos, GET /v1/videos/{id}, GET /v1/videos/{id}/content (OpenAI's and SGLang's
 *       asynchronous video API; mock_video.c): a submission (a JSON object with a "prompt")
 *       answers a "queued" job object at once; a poll answers "in_progress" with a progress
 *       percent until --video-job-ms have passed since the submission, then "completed" with
 *       inference_time_s (the job's time in seconds) and peak_memory_mb 2048.5, or, for the
 *       --video-fail-rate share, "failed" with an error object. The submission's "mock_url":
 *       "relative" makes a completed job name its video's url on this server,
 *       "foreign" on another server (elsewhere.invalid); otherwise it has none. The content is
 *       MOCK__VIDEO_BYTES bytes of video/mp4, 404 before the job completes or when it failed.
 *       The job's state is in its id, so any thread answers any poll.
 *   Anything else   -> 404 (unknown path) or 405 (known path, wrong method), with an
 *                      OpenAI-style body {"error":{"message":...,"type":...,"code":N}}.
 *   A body that is not valid JSON or misses required fields -> 400 with the same error shape.
 * HTTP/1.0 and 1.1 requests with a Content-Length body; keep-alive (the default in 1.1) and
 * pipelining are supported. Answers are always HTTP/1.1 (streams use chunked encoding, so stream
 * with an HTTP/1.1 client). Each thread serves at most ceil(--max-connections / --threads)
 * connections; one over the limit is closed at once, and the first refusal on each thread is
 * logged to stderr (later ones are counted in mock_stats). Requests it cannot serve are answered
 * and the connection closed: 400 malformed request, 411 POST without Content-Length or with
 * Transfer-Encoding, 413 body over --max-body-kb, 431 header block over 16 KiB or more than 64
 * headers, 505 other versions.
 *
 * Faults (streaming and non-streaming alike; k = floor(n / 2) for n output tokens):
 *   error_500  immediate 500 with an OpenAI error body (type "server_error").
 *   error_429  immediate 429 with `Retry-After: 1` (type "rate_limit_exceeded").
 *   drop       the response runs normally until k tokens have been sent (a non-streaming body
 *              is cut after its k-th word), then the connection is closed.
 *   stall      as drop, but instead of closing, nothing more is sent and the connection is
 *              held open until the client closes it or the server stops.
 *   malformed  streaming: an extra event whose data is invalid JSON is sent just before the
 *              event carrying token k; every token is still delivered and the stream ends
 *              normally. Non-streaming: the JSON body is cut right after the text (no closing
 *              brackets, no usage); Content-Length matches what is sent.
 *
 * Token log (--token-log FILE): JSON lines, one per emitted output token:
 *   {"request_id":"<id>","token":<index from 0>,"send_ns":<CLOCK_MONOTONIC ns>}
 * `request_id` is the request's X-Request-ID header (JSON-escaped; bytes outside printable
 * ASCII become '?'), or "mock-<thread>-<seq>" when it has none. `send_ns` is read just before the
 * send carrying the token's bytes is handed to the kernel: with the log on, a send that carries
 * logged tokens is submitted at once (not at the end of the loop turn), so neither the batching of
 * a turn nor a late worker moves the stamp away from when the bytes left (on loopback the peer's
 * receive timestamp is taken inside that submit). Tokens formatted while an earlier send is in
 * flight share the stamp of the send that carries them. Tokens of one request appear in order;
 * lines of different requests and threads interleave. Lines are buffered per thread (256 KiB) and
 * written at the end of a loop turn once half full or a second old, and at stop, so logging stays
 * off the timing path.
 *
 * At start the server prints exactly one line to stdout, `mock-server listening on
 * http://HOST:PORT` (the real port when 0 was asked), and flushes it. SIGINT or SIGTERM stop
 * it cleanly: the connections are closed and the token log is flushed.
 */
#ifndef RINGPERF_MOCK_H
#define RINGPERF_MOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Limits of the configuration. */
#define MOCK_THREADS_MAX 256
#define MOCK_CONNECTIONS_MAX (1u << 20)
#define MOCK_BODY_KB_MAX (1024u * 1024)   /* 1 GiB */
#define MOCK_OUTPUT_TOKENS_MAX (1u << 20) /* largest output length a request may ask for */
/* Up to 65536 tokens per event, so that an event can outgrow a client's usual buffers (about
 * 300 KiB of words); each connection's send buffer is two of the largest events, mapped lazily
 * (--max-connections bounds the address space it takes). */
#define MOCK_TOKENS_PER_CHUNK_MAX 65536
#define MOCK_DELAY_MS_MAX (3600.0 * 1000.0) /* any latency or jitter flag: one hour */
#define MOCK_SPEC_DECODE_TOKENS_MAX 16      /* --spec-decode-tokens */

/* mock_config is the server's configuration. Fill it with mock_config_init() or
 * mock_config_parse(); strings are borrowed and must outlive the server. */
/* MOCK_SIGV4_SECRET_MAX is the longest --sigv4-secret (sigv4.h's SIGV4_SECRET_MAX). */
#define MOCK_SIGV4_SECRET_MAX 128

struct mock_config {
    const char *host;          /* address to bind; default "127.0.0.1" */
    uint16_t port;             /* default 8000; 0 = pick a free port */
    uint32_t threads;          /* worker threads, 1..MOCK_THREADS_MAX; default 1 */
    double ttft_ms;            /* time to first token */
    double itl_ms;             /* inter-token latency, per token */
    double ttft_jitter_ms;     /* uniform jitter in [-x, +x] added to the TTFT */
    double itl_jitter_ms;      /* uniform jitter in [-x, +x] added to each inter-event gap */
    uint32_t tokens_per_chunk; /* tokens per stream event, 1..MOCK_TOKENS_PER_CHUNK_MAX */
    uint32_t output_tokens;    /* output length without max tokens in the request; default 16 */
    double error_500_rate;     /* fault rates in percent, 0..100, summing to at most 100 */
    double error_429_rate;
    double drop_rate;
    double stall_rate;
    double malformed_rate;
    uint64_t seed;              /* seed of the fault and jitter generator */
    const char *token_log_path; /* NULL = no token log */
    uint32_t max_connections;   /* across all threads; default 4096 */
    uint32_t max_body_bytes;    /* largest request body; default 64 MiB */
    /* Percent of each prompt's tokens reported as read from the prompt cache,
     * 0..100, rounded down per request; 0 (the default) reports no cache
     * fields. Chat and completions report usage.prompt_tokens_details
     * .cached_tokens, responses usage.input_tokens_details.cached_tokens,
     * messages usage.cache_read_input_tokens. */
    double cache_hit_rate;
    /* Drafts per verify step of a simulated speculative decoder, 1..MOCK_SPEC_DECODE_TOKENS_MAX;
     * 0 (the default) reports none. Chat and completions answers then carry vLLM's
     * per-request statistics (metrics.speculative_decoding, see --spec-decode-tokens). */
    uint32_t spec_decode_tokens;
    /* The first this many control requests (cache reset, profiler start and
     * stop) each worker thread gets are answered 503 with Retry-After: 1, as
     * a server busy with a previous reset would; default 0. */
    uint32_t control_busy;
    /* The header that marks a conversation's turns, counted in
     * mock_stats.session_requests; default "X-Correlation-ID". */
    const char *session_header;
    /* AWS SigV4 (--sigv4-secret): every request must carry a valid signature made with this
     * secret access key (any access key id), else it is answered 403; NULL = not checked.
     * sigv4_region and sigv4_service, when set, must be the credential scope's. */
    const char *sigv4_secret;
    const char *sigv4_region;
    const char *sigv4_service;
    /* Video jobs (POST /v1/videos): how long one takes, in ms (default 200), and the percent
     * that end "failed" (default 0), drawn from the seeded generator at submission. */
    double video_job_ms;
    double video_fail_rate;
};

/* mock_config_init fills `out` with the defaults listed above. */
void mock_config_init(struct mock_config *out);

/* mock_config_validate checks the ranges and the rate sum of `cfg`. Returns 0, or -EINVAL with
 * a message naming the flag and the fix written to `errbuf` (always NUL-terminated when
 * errcap > 0). */
int mock_config_validate(const struct mock_config *cfg, char *errbuf, size_t errcap);

/* mock_config_parse parses the `ringperf mock-server` flags. argv[0] is the command name and
 * is skipped. `out` is initialised with mock_config_init() first; string fields borrow argv.
 * Returns 0 on success, 1 when --help was given (nothing else is checked; print mock_usage()
 * and exit 0), or -EINVAL with a message naming the flag and the fix in `errbuf`, e.g.
 * "--ttft-ms: 'abc' is not a number; give milliseconds from 0 to 3600000, e.g. --ttft-ms 50
 * or 0.5". */
int mock_config_parse(int argc, char **argv, struct mock_config *out, char *errbuf, size_t errcap);

/* mock_usage prints the flags and their defaults to `out`. */
void mock_usage(FILE *out);

/* mock_stats are counters summed over the worker threads. */
struct mock_stats {
    uint64_t connections_accepted;
    uint64_t connections_rejected; /* closed at once because max_connections was reached */
    uint64_t requests;             /* requests parsed, every route and status */
    uint64_t requests_closing;     /* ... of which asked to close the connection after */
    uint64_t session_requests;     /* ... of which carried the session header */
    uint64_t completions;          /* completion requests answered 200 (faults included) */
    uint64_t tokens;               /* output tokens queued for sending */
    uint64_t client_errors;        /* 4xx/5xx answers that were not injected faults */
    uint64_t faults_500;
    uint64_t faults_429;
    uint64_t faults_drop;
    uint64_t faults_stall;
    uint64_t faults_malformed;
    uint64_t token_log_lines;
    uint64_t cache_resets;    /* POST /reset_prefix_cache answered 200 */
    uint64_t profiler_starts; /* POST /start_profile answered 200 */
    uint64_t profiler_stops;  /* POST /stop_profile answered 200 */
    uint64_t control_busy;    /* control requests answered 503 (--control-busy) */
    uint64_t sigv4_verified;  /* requests whose SigV4 signature held (--sigv4-secret) */
    uint64_t sigv4_rejected;  /* ... and answered 403 because it did not */
};

/* mock_server is a running server: its listeners, worker threads and their rings. Opaque. */
struct mock_server;

/* mock_server_start validates `cfg`, binds one SO_REUSEPORT listener per thread, opens the
 * token log and starts the worker threads, each with its own io_uring. It returns once every
 * worker is accepting. `cfg` is copied; its strings are borrowed until mock_server_free().
 * Returns 0 and the server in `*out_server`, or a negative errno with a message in `errbuf`
 * (-EINVAL bad configuration, -EADDRINUSE, -ENOMEM, -ENOSYS when io_uring is unavailable, ...).
 * Prints nothing to stdout. */
int mock_server_start(const struct mock_config *cfg, struct mock_server **out_server, char *errbuf,
                      size_t errcap);

/* mock_server_port returns the bound TCP port (the real one when port 0 was asked). */
uint16_t mock_server_port(const struct mock_server *server);

/* mock_server_stop asks every worker to stop, closes their connections, flushes the token log
 * and joins the threads. Idempotent. Returns 0, or the first negative errno a worker ended
 * with. */
int mock_server_stop(struct mock_server *server);

/* mock_server_stats fills `out` with the counters. Valid after mock_server_stop(); while the
 * server runs it returns zeros. */
void mock_server_stats(const struct mock_server *server, struct mock_stats *out);

/* mock_server_free stops the server if needed and frees it. mock_server_free(NULL) is a no-op. */
void mock_server_free(struct mock_server *server);

/* mock_server_run runs a server in the foreground until SIGINT or SIGTERM: it blocks both
 * signals in the calling thread (the workers inherit the mask) and reads them from a signalfd,
 * starts the server, prints `mock-server listening on http://HOST:PORT` to `out` and flushes
 * it, waits for a signal (or for a worker that failed and stopped the server), then stops and
 * frees the server and restores the signal mask. Errors are printed
 * to stderr. Returns 0 after a clean stop or a negative errno. */
int mock_server_run(const struct mock_config *cfg, FILE *out);

/* mock_main is the `ringperf mock-server` command: parses argv (argv[0] = command name), prints
 * usage for --help, runs the server on stdout. Returns the process exit code: 0, or 2 for a
 * usage error, or 1 when the server failed. */
int mock_main(int argc, char **argv);

#endif
