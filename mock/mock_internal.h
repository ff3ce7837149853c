/*
 * mock_internal.h - private interfaces of mock/: the HTTP/1.1 request parser, the OpenAI body
 * parser and response formatter, the token log and the per-thread worker loop.
 *
 * Nothing here is part of the public contract; tests and fuzz targets include it to reach the
 * pure parsers directly.
 */
#ifndef RINGPERF_MOCK_INTERNAL_H
#define RINGPERF_MOCK_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mock/mock.h"

/* ---- Limits ---------------------------------------------------------------------------- */

#define MOCK__HEADER_BYTES_MAX (16u * 1024) /* request line + headers + blank line */
#define MOCK__HEADERS_MAX 64
#define MOCK__METHOD_BYTES_MAX 16
#define MOCK__MODEL_BYTES_MAX 256 /* raw model name from a request body */
#define MOCK__MODEL_JSON_BYTES_MAX (MOCK__MODEL_BYTES_MAX * 6)
#define MOCK__REQUEST_ID_BYTES_MAX 256 /* raw X-Request-ID value */
#define MOCK__REQUEST_ID_JSON_BYTES_MAX (MOCK__REQUEST_ID_BYTES_MAX * 6)
#define MOCK__MODELS_MAX 16 /* distinct model names remembered for /v1/models */
#define MOCK__RESPONSE_ID_BYTES 48
#define MOCK__WORD_BYTES_MAX 8 /* longest word of the output cycle, leading space included */
#define MOCK__ERROR_MESSAGE_BYTES 256
/* Room for every fixed part of one event or response head (ids, numbers, headers, model). */
#define MOCK__FIXED_BYTES_MAX (1024 + MOCK__MODEL_JSON_BYTES_MAX)

/* ---- Bounded output buffer -------------------------------------------------------------- */

/* mock__buf appends into caller-owned memory [p, p + cap). An append that does not fit sets
 * `overflow` and leaves the contents unchanged from that point on. */
struct mock__buf {
    char *p;
    size_t len;
    size_t cap;
    bool overflow;
    bool eventstream;   /* frame each stream event as an AWS event-stream message (mock_evs.c) */
    bool evs_exception; /* ... as an exception message (a ModelStreamError) */
};

static inline void mock__buf_put(struct mock__buf *b, const char *s, size_t n)
{
    if (b->overflow || n > b->cap - b->len) {
        b->overflow = true;
        return;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static inline void mock__buf_str(struct mock__buf *b, const char *s)
{
    mock__buf_put(b, s, strlen(s));
}

/* mock__buf_u64 appends `v` in decimal. */
void mock__buf_u64(struct mock__buf *b, uint64_t v);

/* mock__buf_hex appends `v` in lower-case hexadecimal without leading zeros. */
void mock__buf_hex(struct mock__buf *b, uint64_t v);

/* mock__json_escape appends `s[0..n)` escaped for use inside a JSON string (quotes excluded).
 * Bytes below 0x20 become \u00XX; when `ascii_only` is true, bytes >= 0x7f become '?' (for
 * header values, which need not be UTF-8). */
void mock__json_escape(struct mock__buf *b, const char *s, size_t n, bool ascii_only);

/* ---- HTTP/1.1 request parser (mock_http.c) ---------------------------------------------- */

enum mock__req_status {
    MOCK__REQ_OK = 0,                /* a whole request (headers and body) is in the buffer */
    MOCK__REQ_NEED_MORE,             /* incomplete; call again with more bytes */
    MOCK__REQ_BAD,                   /* 400: malformed request line or header */
    MOCK__REQ_LENGTH_REQUIRED,       /* 411: body without Content-Length (or chunked) */
    MOCK__REQ_BODY_TOO_LARGE,        /* 413: Content-Length over the limit */
    MOCK__REQ_HEADERS_TOO_LARGE,     /* 431: header block or header count over the limit */
    MOCK__REQ_VERSION_NOT_SUPPORTED, /* 505: not HTTP/1.0 or HTTP/1.1 */
};

/* mock__request is one parsed request. Every pointer is a view into the buffer given to
 * mock__request_parse() and is valid while that buffer is unchanged. */
struct mock__request {
    const char *method;
    size_t method_len;
    const char *path; /* request target up to '?' */
    size_t path_len;
    int minor_version;      /* 0 or 1 */
    bool keep_alive;        /* HTTP/1.1 unless "Connection: close"; HTTP/1.0 only with keep-alive */
    const char *request_id; /* X-Request-ID value, or NULL */
    size_t request_id_len;
    bool has_session_header;   /* carries the header named session_header (a conversation's turn) */
    bool accepts_event_stream; /* its Accept lists text/event-stream (SOLIDO RAG streams then) */
    const char *content_type;  /* the Content-Type value, or NULL */
    size_t content_type_len;
    const char *head; /* the request line and header fields, as received */
    size_t head_len;
    const char *body;
    size_t body_len;
    size_t size_needed; /* MOCK__REQ_NEED_MORE: the request's whole size once its header block
                           is in, so the caller can make room for its body; else 0 */
    const char *error;  /* static reason for an error status, or NULL */
};

/* mock__request_parse parses one request from `buf[0..len)`. It keeps no state between calls:
 * call again from the same start with more bytes after MOCK__REQ_NEED_MORE. Bodies must carry
 * Content-Length <= body_max_bytes. On MOCK__REQ_OK, `*out_consumed` is the request's total
 * size (header block plus body) and `*out` holds views into `buf`; has_session_header says
 * whether a field named session_header (case-insensitive; NULL = none) came with it. On an
 * error status out->error is a static message; the connection cannot be reused. */
enum mock__req_status mock__request_parse(const char *buf, size_t len, size_t body_max_bytes,
                                          const char *session_header, struct mock__request *out,
                                          size_t *out_consumed);

/* mock__sigv4_verify checks req's AWS SigV4 signature (mock_config.sigv4_secret) at server
 * time now_unix_s. Returns NULL when it holds, else a static reason for the 403. */
const char *mock__sigv4_verify(const struct mock_config *cfg, const struct mock__request *req,
                               int64_t now_unix_s);

/* mock__sagemaker_path reports whether path is SageMaker Runtime's /endpoints/NAME/invocations
 * (*out_stream false) or /endpoints/NAME/invocations-response-stream (*out_stream true). */
bool mock__sagemaker_path(const char *path, size_t len, bool *out_stream);

/* MOCK__EVS_FRAMING_BYTES bounds what event-stream framing adds to one event. */
#define MOCK__EVS_FRAMING_BYTES 128

/* mock__evs_frame frames b->p[start..b->len) in place as one PayloadPart message, or as a
 * ModelStreamError exception message (overflow set when it does not fit). */
void mock__evs_frame(struct mock__buf *b, size_t start, bool exception);

/* mock__req_status_code maps an error status to its HTTP status code (0 for OK/NEED_MORE). */
int mock__req_status_code(enum mock__req_status status);

/* ---- OpenAI request bodies and responses (mock_openai.c) -------------------------------- */

enum mock__route {
    MOCK__ROUTE_NONE = 0,
    MOCK__ROUTE_CHAT,            /* POST /v1/chat/completions */
    MOCK__ROUTE_COMPLETIONS,     /* POST /v1/completions */
    MOCK__ROUTE_MODELS,          /* GET /v1/models */
    MOCK__ROUTE_HEALTH,          /* GET /health */
    MOCK__ROUTE_RESPONSES,       /* POST /v1/responses (OpenAI Responses API) */
    MOCK__ROUTE_MESSAGES,        /* POST /v1/messages (Anthropic Messages API) */
    MOCK__ROUTE_GENERATE,        /* POST /generate (Hugging Face TGI) */
    MOCK__ROUTE_GENERATE_STREAM, /* POST /generate_stream (TGI, always streams) */
    MOCK__ROUTE_EMBEDDINGS,      /* POST /v1/embeddings ("input", or chat-shaped "messages") */
    MOCK__ROUTE_NIM_RANKING,     /* POST /v1/ranking (NVIDIA NIM) */
    MOCK__ROUTE_COHERE_RERANK,   /* POST /v2/rerank (Cohere) */
    MOCK__ROUTE_TEI_RERANK,      /* POST /rerank (Hugging Face TEI) */
    MOCK__ROUTE_RESET_CACHE,     /* POST /reset_prefix_cache (vLLM's control endpoints) */
    MOCK__ROUTE_START_PROFILE,   /* POST /start_profile */
    MOCK__ROUTE_STOP_PROFILE,    /* POST /stop_profile */
    MOCK__ROUTE_IMAGES,          /* POST /v1/images/generations (OpenAI; units are images) */
    MOCK__ROUTE_INFER,           /* POST /v1/infer (NIM image retrieval; a unit per image) */
    MOCK__ROUTE_RAG,             /* POST /rag/api/prompt (SOLIDO RAG; streams on Accept) */
    MOCK__ROUTE_IMAGE_EDITS,     /* POST /v1/images/edits (multipart; units are images) */
    MOCK__ROUTE_TRANSCRIPTIONS,  /* POST /v1/audio/transcriptions (multipart; words) */
    MOCK__ROUTE_METRICS,         /* GET /metrics (vLLM-shaped Prometheus exposition) */
    MOCK__ROUTE_DCGM,            /* GET /dcgm/metrics (DCGM-exporter-shaped GPU telemetry) */
    MOCK__ROUTE_SGLANG_GENERATE, /* POST /generate with "input_ids" (SGLang's native API) */
    MOCK__ROUTE_VLLM_GENERATE,   /* POST /inference/v1/generate (vLLM's token-id API) */
    MOCK__ROUTE_ECHO,            /* POST /v1/echo (the request body back, for raw endpoints) */
};

/* mock__video_op is what a request of the video API (mock_video.c) asks for. */
enum mock__video_op {
    MOCK__VIDEO_NONE = 0,   /* not a video path */
    MOCK__VIDEO_SUBMIT,     /* POST /v1/videos */
    MOCK__VIDEO_POLL,       /* GET /v1/videos/{id} */
    MOCK__VIDEO_CONTENT,    /* GET /v1/videos/{id}/content */
    MOCK__VIDEO_BAD_METHOD, /* a video path with another method */
};

/* MOCK__VIDEO_BYTES is the size of a finished job's video. */
#define MOCK__VIDEO_BYTES 4096

/* mock__video_op_of maps a request line to a video operation; *out_id (a view into path) is the
 * job id of a poll or a download. */
enum mock__video_op mock__video_op_of(const char *method, size_t method_len, const char *path,
                                      size_t path_len, const char **out_id, size_t *out_id_len);

/* mock__video_submit starts a job at now_ns for a submission body; roll_pct (0..100) is the
 * seeded draw that decides its fate. Appends the job object to b and returns 200, or returns
 * 400 with a static reason in *why. */
int mock__video_submit(const struct mock_config *cfg, uint64_t now_ns, double roll_pct,
                       const char *body, size_t body_len, struct mock__buf *b, const char **why);

/* mock__video_poll appends the job object of id as it stands at now_ns and returns 200, or
 * returns 404 with a static reason for an id this server did not make. */
int mock__video_poll(uint64_t now_ns, const char *id, size_t id_len, struct mock__buf *b,
                     const char **why);

/* mock__video_content appends a completed job's video (MOCK__VIDEO_BYTES bytes) and returns 200,
 * or returns 404 with a static reason (unknown id, not completed, failed). */
int mock__video_content(uint64_t now_ns, const char *id, size_t id_len, struct mock__buf *b,
                        const char **why);

/* mock__route_tokens reports whether a route generates words (its "units" are output tokens);
 * embeddings and rankings routes answer one unit per input item instead. */
bool mock__route_tokens(enum mock__route route);

/* mock__route_find maps a method and path to a route. Returns MOCK__ROUTE_NONE for an unknown
 * path; `*out_method_ok` is false when the path is known but the method is not its own. */
enum mock__route mock__route_find(const char *method, size_t method_len, const char *path,
                                  size_t path_len, bool *out_method_ok);

/* MOCK__IMAGES_MAX bounds the images ("n") one image generation request may ask for. */
#define MOCK__IMAGES_MAX 16
/* MOCK__PNG_B64 is every image the mock generates: a 2x2 RGB PNG, base64. */
#define MOCK__PNG_B64                                                                              \
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAEklEQVR42mP4z8DAULaTAUIBAB6OBF1pFgRMAAAAAElF" \
    "TkSuQmCC"

/* MOCK__EMBEDDING_DIMS is the length of every embedding vector the mock returns. */
#define MOCK__EMBEDDING_DIMS 8
/* MOCK__UNIT_BYTES_MAX bounds one formatted unit: a word, an embedding or a ranking item. */
#define MOCK__UNIT_BYTES_MAX 256
/* MOCK__FULL_TEXT_BYTES_MAX bounds the whole output text repeated in a final stream event
 * (responses output_text.done, TGI generated_text); longer outputs leave it out (see mock.h). */
#define MOCK__FULL_TEXT_BYTES_MAX (16u * 1024)

/* mock__job is a completion request reduced to what the response needs. Self-contained (no
 * views into the request), so it survives the receive buffer being reused. */
struct mock__job {
    enum mock__route route;
    bool stream;
    bool include_usage;
    bool continuous_usage;  /* stream_options.continuous_usage_stats: usage on every chunk */
    bool limit_given;       /* max tokens came from the request: finish_reason "length" */
    uint32_t output_tokens; /* units: words, or embeddings/ranking items for those routes */
    uint32_t seq;           /* next event sequence number (responses streams) */
    uint64_t prompt_tokens;
    bool report_cache;      /* usage carries cached_tokens (mock_config.cache_hit_rate > 0) */
    uint64_t cached_tokens; /* prompt tokens reported as read from the prompt cache */
    uint32_t spec_tokens;   /* chat/completions: drafts per verify step reported; 0 = none */
    uint64_t created_s;
    bool has_file;     /* multipart routes: the file (or image URL) part arrived */
    uint64_t audio_ms; /* transcriptions: the WAV file's length, 0 when not a WAV */
    size_t model_len;
    char model[MOCK__MODEL_BYTES_MAX + 1]; /* raw, NUL-terminated */
    size_t model_json_len;
    char model_json[MOCK__MODEL_JSON_BYTES_MAX]; /* escaped for a JSON string */
    size_t id_len;
    char id[MOCK__RESPONSE_ID_BYTES]; /* "chatcmpl-..." / "cmpl-..." */
    bool eventstream; /* SageMaker's streaming operation: AWS event-stream framing */
};

enum mock__api_status {
    MOCK__API_OK = 0,
    MOCK__API_BAD_JSON, /* body is not JSON */
    MOCK__API_INVALID,  /* JSON, but a field is missing, of the wrong type or out of range */
};

/* mock__job_start resets `out` for a request of `route`: not streaming, no usage flags, output
 * length `default_tokens` (no limit given), no prompt words, no cache report. */
void mock__job_start(struct mock__job *out, enum mock__route route, uint32_t default_tokens);

/* mock__api_parse reads a request body of any completion route into `out` (route, stream,
 * include_usage, output length or item count, prompt word count, model; report_cache off).
 * `default_tokens` is the output length when the body gives no max tokens. On an error the reason
 * is written to `msg` (NUL-terminated when msgcap > 0). Borrows `body` and reads it in place,
 * allocating nothing, except that a body that is not JSON is loaded with jansson to word the
 * reason (jansson's line, column and text). */
enum mock__api_status mock__api_parse(enum mock__route route, const char *body, size_t len,
                                      uint32_t default_tokens, struct mock__job *out, char *msg,
                                      size_t msgcap);

/* mock__form_parse reads a multipart/form-data body of the image edit or transcription route
 * into `out` (model, prompt words, "n" images, the audio's length), as mock__api_parse does a
 * JSON body: in place, allocating nothing. `content_type` is the request's Content-Type (its
 * boundary). */
enum mock__api_status mock__form_parse(enum mock__route route, const char *content_type,
                                       size_t content_type_len, const char *body, size_t len,
                                       uint32_t default_tokens, struct mock__job *out, char *msg,
                                       size_t msgcap);

/* mock__prompt_words counts the whitespace-separated words of a JSON string's raw bytes (between
 * the quotes, escapes undecoded; from a text response_walk_check() accepted) as they would be
 * counted after decoding: an escape that decodes to a space (\t \n \f \r, \u0009-\u000D,
 * \u0020) separates words, any other is part of one. Spaces are the ASCII six of isspace(). */
uint64_t mock__prompt_words(const char *raw, size_t len);

/* mock__word returns the word emitted as token `index` (leading space included) and its
 * length in `*out_len`. */
const char *mock__word(uint64_t index, size_t *out_len);

/* mock__words_len returns the total length of tokens [first, first + count). */
uint64_t mock__words_len(uint64_t first, uint64_t count);

/* mock__event_bytes_max is an upper bound on what any one stream step appends (an event with
 * `tokens_per_chunk` tokens, the malformed event, or the final+usage+[DONE] tail). */
size_t mock__event_bytes_max(uint32_t tokens_per_chunk);

/* mock__fmt_stream_head appends the 200 status line and headers of an SSE response, then the
 * route's opening events (responses: response.created, output_item.added,
 * content_part.added; messages: message_start, content_block_start, ping). */
void mock__fmt_stream_head(struct mock__buf *b, struct mock__job *job, bool keep_alive);

/* mock__fmt_token_event appends one HTTP chunk holding the SSE event for tokens
 * [first, first + count); `first == 0` marks the first chat event (carries the role); the TGI
 * event holding the last token also carries generated_text and details. */
void mock__fmt_token_event(struct mock__buf *b, struct mock__job *job, uint32_t first,
                           uint32_t count);

/* mock__fmt_malformed_event appends one HTTP chunk whose SSE data is truncated JSON. */
void mock__fmt_malformed_event(struct mock__buf *b, const struct mock__job *job);

/* mock__fmt_stream_tail appends the route's closing events and the last (zero) chunk: chat and
 * completions the final event (finish_reason), the usage event when the job asked for it and
 * `data: [DONE]`; responses output_text.done and response.completed (with usage); messages
 * content_block_stop, message_delta (stop_reason, usage) and message_stop; TGI nothing more. */
void mock__fmt_stream_tail(struct mock__buf *b, struct mock__job *job);

/* mock__fmt_unit appends unit `i` of a non-streaming body: word i, or item i of an embeddings
 * or rankings list (with its leading comma). At most MOCK__UNIT_BYTES_MAX bytes. */
void mock__fmt_unit(struct mock__buf *b, const struct mock__job *job, uint32_t i);

/* mock__units_len returns the total length of units [first, first + count). */
uint64_t mock__units_len(const struct mock__job *job, uint32_t first, uint32_t count);

/* ---- Formatting of the routes beyond chat/completions (mock_api.c) ------------------------ */

/* mock__api_* are what the mock__fmt_* functions above do for the responses, messages, TGI,
 * embeddings and rankings routes. */
void mock__api_stream_open(struct mock__buf *b, struct mock__job *job);
void mock__api_token_event(struct mock__buf *b, struct mock__job *job, uint32_t first,
                           uint32_t count);
void mock__api_stream_tail(struct mock__buf *b, struct mock__job *job);
void mock__api_body_prefix(struct mock__buf *b, const struct mock__job *job);
void mock__api_body_suffix(struct mock__buf *b, const struct mock__job *job);
void mock__api_unit(struct mock__buf *b, const struct mock__job *job, uint32_t i);

/* ---- Formatting of the image generation, image retrieval and RAG routes (mock_services.c) - */

/* mock__route_service reports whether `route` is one mock_services.c formats. */
bool mock__route_service(enum mock__route route);
void mock__svc_token_event(struct mock__buf *b, struct mock__job *job, uint32_t first,
                           uint32_t count);
void mock__svc_body_prefix(struct mock__buf *b, const struct mock__job *job);
void mock__svc_body_suffix(struct mock__buf *b, const struct mock__job *job);
/* mock__svc_unit ends the unit mock__api_unit began with `{"index":i`. */
void mock__svc_unit(struct mock__buf *b, const struct mock__job *job);

/* ---- Formatting of the token-id routes (mock_tokens.c) ------------------------------------ */

/* mock__route_token_ids reports whether `route` answers with token ids (SGLang's and vLLM's
 * generate APIs): its units are ids, not words, though they are tokens generated. */
bool mock__route_token_ids(enum mock__route route);
void mock__tok_event(struct mock__buf *b, struct mock__job *job, uint32_t first, uint32_t count);
void mock__tok_stream_tail(struct mock__buf *b, struct mock__job *job);
void mock__tok_body_prefix(struct mock__buf *b, const struct mock__job *job);
void mock__tok_body_suffix(struct mock__buf *b, const struct mock__job *job);
void mock__tok_unit(struct mock__buf *b, uint32_t i);

/* mock__fmt_chunk_open starts an HTTP chunk holding one SSE event, with an `event:` line when
 * `event` is not NULL; mock__fmt_chunk_close ends the event and fills in the chunk size. */
size_t mock__fmt_chunk_open(struct mock__buf *b, const char *event);
void mock__fmt_chunk_close(struct mock__buf *b, size_t mark);

/* mock__fmt_words appends words [first, first + count). */
void mock__fmt_words(struct mock__buf *b, uint64_t first, uint64_t count);

/* mock__fmt_body_prefix appends a non-streaming body up to where the generated text starts. */
void mock__fmt_body_prefix(struct mock__buf *b, const struct mock__job *job);

/* mock__fmt_body_suffix appends what follows the text: finish_reason, usage, closing braces. */
void mock__fmt_body_suffix(struct mock__buf *b, const struct mock__job *job);

/* mock__fmt_spec_decode appends `,"metrics":{"speculative_decoding":{...}}`, vLLM's per-request
 * statistics of the job's simulated speculative decoding (mock.h, --spec-decode-tokens), or
 * nothing when job->spec_tokens is 0 (mock_spec.c). */
void mock__fmt_spec_decode(struct mock__buf *b, const struct mock__job *job);

/* mock__fmt_text_head appends a 200 status line and headers for a Prometheus text body of
 * `body_len` bytes. */
void mock__fmt_text_head(struct mock__buf *b, uint64_t body_len, bool keep_alive);

/* mock__fmt_bytes_head appends a 200 status line and headers for a body of `body_len` bytes of
 * `content_type`. */
void mock__fmt_bytes_head(struct mock__buf *b, const char *content_type, uint64_t body_len,
                          bool keep_alive);

/* mock__fmt_json_head appends a status line and headers for a JSON body of `body_len` bytes.
 * `retry_after_s` > 0 adds a Retry-After header; `allow` (or NULL) adds an Allow header. */
void mock__fmt_json_head(struct mock__buf *b, int status, uint64_t body_len, bool keep_alive,
                         uint32_t retry_after_s, const char *allow);

/* mock__fmt_error_response appends a whole response whose body is
 * {"error":{"message":msg,"type":type,"code":status}}. */
void mock__fmt_error_response(struct mock__buf *b, int status, const char *type, const char *msg,
                              bool keep_alive, uint32_t retry_after_s, const char *allow);

/* mock__status_reason returns the reason phrase of an HTTP status ("OK", "Not Found", ...). */
const char *mock__status_reason(int status);

/* ---- Token log (mock_tokenlog.c) -------------------------------------------------------- */

/* mock__tokenlog buffers token-log lines of one worker and writes them to a shared O_APPEND
 * file descriptor. Lines are written whole, so lines of different workers never mix. */
struct mock__tokenlog {
    int fd; /* borrowed; -1 = logging off */
    char *buf;
    size_t len;
    size_t cap;
    uint64_t lines;
    bool failed; /* a write failed; logging stopped and was reported once */
};

/* mock__tokenlog_init allocates a `cap`-byte buffer for lines to `fd` (-1 disables the log).
 * Returns 0 or -ENOMEM. */
int mock__tokenlog_init(struct mock__tokenlog *log, int fd, size_t cap);

/* mock__tokenlog_add appends one line for token `token` of the request whose JSON-escaped id is
 * `id_json[0..id_len)`, writing the buffer out first when it lacks room. */
void mock__tokenlog_add(struct mock__tokenlog *log, const char *id_json, size_t id_len,
                        uint32_t token, uint64_t send_ns);

/* mock__tokenlog_pending reports whether buffered lines wait to be written. */
bool mock__tokenlog_pending(const struct mock__tokenlog *log);

/* mock__tokenlog_high reports whether the buffer is over its flush threshold. */
bool mock__tokenlog_high(const struct mock__tokenlog *log);

/* mock__tokenlog_flush writes the buffered lines. Returns 0 or -errno (then logging stops). */
int mock__tokenlog_flush(struct mock__tokenlog *log);

/* mock__tokenlog_destroy flushes and frees the buffer; the fd is not closed. */
void mock__tokenlog_destroy(struct mock__tokenlog *log);

/* ---- Random numbers ------------------------------------------------------------------- */

/* mock__rng_next advances a splitmix64 state and returns 64 random bits. */
uint64_t mock__rng_next(uint64_t *state);

/* mock__rng_unit returns a uniform double in [0, 1). */
double mock__rng_unit(uint64_t *state);

/* ---- Server and workers (mock_server.c, mock_worker.c, mock_conn.c) ---------------------- */

/* mock__models is the shared table of model names seen, for GET /v1/models. */
struct mock__models;

/* mock__models_add records `name` if it is new and the table has room (takes the lock). */
void mock__models_add(struct mock__models *models, const char *name, size_t len);

/* mock__models_fmt appends the /v1/models JSON body (takes the lock). */
void mock__models_fmt(struct mock__models *models, struct mock__buf *b);

struct mock__worker;

/* mock__worker_main is the thread body of one worker (argument: struct mock__worker *). */
void *mock__worker_main(void *arg);

#endif
