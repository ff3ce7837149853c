/*
 * mock_fmt.c - response formatting for the mock server: status lines, OpenAI JSON bodies, SSE
 * events in HTTP chunks, and the deterministic output words.
 *
 * Everything appends into a bounded mock__buf with memcpy and hand-written integer conversion,
 * so producing a token costs no allocation and no printf.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "mock/mock_internal.h"

/* Common English words, each a single token in the usual BPE vocabularies when it follows a
 * space, so a tokenizer counting the output agrees with the server's token count. */
static const char *const WORDS[] = {
    " the",  " of",    " and", " to",   " in",  " is",  " that", " for", " it",   " as",    " was",
    " with", " be",    " by",  " on",   " not", " he",  " this", " are", " or",   " his",   " from",
    " at",   " which", " but", " have", " an",  " had", " they", " you", " were", " their",
};
#define WORD_COUNT (sizeof(WORDS) / sizeof(WORDS[0]))

/* Size reserved in front of a chunk's data for its hex length and CRLF ("ffffffff\r\n"). */
#define CHUNK_HEADER_RESERVE 10

void mock__buf_u64(struct mock__buf *b, uint64_t v)
{
    char tmp[20];
    size_t n = 0;
    do {
        tmp[sizeof(tmp) - 1 - n] = (char)('0' + v % 10);
        v /= 10;
        n++;
    } while (v != 0);
    mock__buf_put(b, tmp + sizeof(tmp) - n, n);
}

void mock__buf_hex(struct mock__buf *b, uint64_t v)
{
    char tmp[16];
    size_t n = 0;
    do {
        tmp[sizeof(tmp) - 1 - n] = "0123456789abcdef"[v & 0xf];
        v >>= 4;
        n++;
    } while (v != 0);
    mock__buf_put(b, tmp + sizeof(tmp) - n, n);
}

static bool needs_escape(unsigned char ch, bool ascii_only)
{
    return ch < 0x20 || ch == '"' || ch == '\\' || (ascii_only && ch >= 0x7f);
}

void mock__json_escape(struct mock__buf *b, const char *s, size_t n, bool ascii_only)
{
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (!needs_escape(ch, ascii_only)) {
            continue;
        }
        mock__buf_put(b, s + run, i - run);
        run = i + 1;
        if (ch == '"' || ch == '\\') {
            char esc[2] = {'\\', (char)ch};
            mock__buf_put(b, esc, 2);
        } else if (ch >= 0x7f) {
            mock__buf_put(b, "?", 1);
        } else {
            char esc[6] = {
                '\\', 'u', '0', '0', "0123456789abcdef"[ch >> 4], "0123456789abcdef"[ch & 0xf]};
            mock__buf_put(b, esc, sizeof(esc));
        }
    }
    mock__buf_put(b, s + run, n - run);
}

const char *mock__word(uint64_t index, size_t *out_len)
{
    const char *w = WORDS[index % WORD_COUNT];
    *out_len = strlen(w);
    return w;
}

/* prefix_len is the total length of tokens [0, m). */
static uint64_t prefix_len(uint64_t m)
{
    uint64_t cycle = 0;
    uint64_t part = 0;
    for (size_t i = 0; i < WORD_COUNT; i++) {
        size_t len = strlen(WORDS[i]);
        cycle += len;
        if (i < m % WORD_COUNT) {
            part += len;
        }
    }
    return (m / WORD_COUNT) * cycle + part;
}

uint64_t mock__words_len(uint64_t first, uint64_t count)
{
    return prefix_len(first + count) - prefix_len(first);
}

void mock__fmt_words(struct mock__buf *b, uint64_t first, uint64_t count)
{
    for (uint64_t i = 0; i < count; i++) {
        size_t len = 0;
        const char *w = mock__word(first + i, &len);
        mock__buf_put(b, w, len);
    }
}

size_t mock__event_bytes_max(uint32_t tokens_per_chunk)
{
    /* Tails may repeat the whole text (responses output_text.done, TGI generated_text). */
    return 4 * MOCK__FIXED_BYTES_MAX + 2 * (size_t)tokens_per_chunk * MOCK__WORD_BYTES_MAX +
           MOCK__FULL_TEXT_BYTES_MAX + 4 * MOCK__EVS_FRAMING_BYTES;
}

const char *mock__status_reason(int status)
{
    switch (status) {
    case 200:
        return "OK";
    case 400:
        return "Bad Request";
    case 404:
        return "Not Found";
    case 405:
        return "Method Not Allowed";
    case 411:
        return "Length Required";
    case 413:
        return "Content Too Large";
    case 429:
        return "Too Many Requests";
    case 431:
        return "Request Header Fields Too Large";
    case 500:
        return "Internal Server Error";
    case 505:
        return "HTTP Version Not Supported";
    default:
        return "Unknown";
    }
}

static void put_status_line(struct mock__buf *b, int status)
{
    mock__buf_str(b, "HTTP/1.1 ");
    mock__buf_u64(b, (uint64_t)status);
    mock__buf_put(b, " ", 1);
    mock__buf_str(b, mock__status_reason(status));
    mock__buf_put(b, "\r\n", 2);
}

static void put_connection(struct mock__buf *b, bool keep_alive)
{
    mock__buf_str(b, keep_alive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n");
}

void mock__fmt_json_head(struct mock__buf *b, int status, uint64_t body_len, bool keep_alive,
                         uint32_t retry_after_s, const char *allow)
{
    put_status_line(b, status);
    mock__buf_str(b, "Content-Type: application/json\r\nContent-Length: ");
    mock__buf_u64(b, body_len);
    mock__buf_put(b, "\r\n", 2);
    if (retry_after_s > 0) {
        mock__buf_str(b, "Retry-After: ");
        mock__buf_u64(b, retry_after_s);
        mock__buf_put(b, "\r\n", 2);
    }
    if (allow != NULL) {
        mock__buf_str(b, "Allow: ");
        mock__buf_str(b, allow);
        mock__buf_put(b, "\r\n", 2);
    }
    put_connection(b, keep_alive);
}

void mock__fmt_text_head(struct mock__buf *b, uint64_t body_len, bool keep_alive)
{
    put_status_line(b, 200);
    mock__buf_str(b, "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\nContent-Length: ");
    mock__buf_u64(b, body_len);
    mock__buf_put(b, "\r\n", 2);
    put_connection(b, keep_alive);
}

static void put_error_body(struct mock__buf *b, int status, const char *type, const char *msg)
{
    mock__buf_str(b, "{\"error\":{\"message\":\"");
    mock__json_escape(b, msg, strlen(msg), false);
    mock__buf_str(b, "\",\"type\":\"");
    mock__buf_str(b, type);
    mock__buf_str(b, "\",\"code\":");
    mock__buf_u64(b, (uint64_t)status);
    mock__buf_str(b, "}}");
}

void mock__fmt_error_response(struct mock__buf *b, int status, const char *type, const char *msg,
                              bool keep_alive, uint32_t retry_after_s, const char *allow)
{
    char body[2 * MOCK__ERROR_MESSAGE_BYTES + 128];
    struct mock__buf bb = {.p = body, .cap = sizeof(body)};
    put_error_body(&bb, status, type, msg);
    if (bb.overflow) {
        bb.len = 0;
        bb.overflow = false;
        put_error_body(&bb, status, type, "error message too long");
    }
    mock__fmt_json_head(b, status, bb.len, keep_alive, retry_after_s, allow);
    mock__buf_put(b, bb.p, bb.len);
}

static bool openai_route(const struct mock__job *job)
{
    return job->route == MOCK__ROUTE_CHAT || job->route == MOCK__ROUTE_COMPLETIONS;
}

void mock__fmt_stream_head(struct mock__buf *b, struct mock__job *job, bool keep_alive)
{
    put_status_line(b, 200);
    mock__buf_str(b, job->eventstream ? "Content-Type: application/vnd.amazon.eventstream\r\n"
                                      : "Content-Type: text/event-stream\r\n");
    mock__buf_str(b, "Cache-Control: no-cache\r\nTransfer-Encoding: chunked\r\n");
    put_connection(b, keep_alive);
    if (!openai_route(job)) {
        mock__api_stream_open(b, job);
    }
}

/* mock__fmt_chunk_open reserves room for the chunk header and starts the SSE event. */
size_t mock__fmt_chunk_open(struct mock__buf *b, const char *event)
{
    size_t mark = b->len;
    mock__buf_put(b, "          ", CHUNK_HEADER_RESERVE);
    if (event != NULL) {
        mock__buf_str(b, "event: ");
        mock__buf_str(b, event);
        mock__buf_put(b, "\n", 1);
    }
    mock__buf_put(b, "data: ", 6);
    return mark;
}

static size_t chunk_open(struct mock__buf *b)
{
    return mock__fmt_chunk_open(b, NULL);
}

/* mock__fmt_chunk_close ends the event, writes the chunk header and slides the data up. */
void mock__fmt_chunk_close(struct mock__buf *b, size_t mark)
{
    if (b->evs_exception) {
        mock__evs_frame(b, mark + CHUNK_HEADER_RESERVE, true);
    } else {
        mock__buf_put(b, "\n\n", 2);
        if (b->eventstream) {
            mock__evs_frame(b, mark + CHUNK_HEADER_RESERVE, false);
        }
    }
    if (b->overflow) {
        return;
    }
    size_t data_len = b->len - mark - CHUNK_HEADER_RESERVE;
    struct mock__buf hb = {.p = b->p + mark, .cap = CHUNK_HEADER_RESERVE};
    mock__buf_hex(&hb, data_len);
    mock__buf_put(&hb, "\r\n", 2);
    memmove(b->p + mark + hb.len, b->p + mark + CHUNK_HEADER_RESERVE, data_len);
    b->len = mark + hb.len + data_len;
    mock__buf_put(b, "\r\n", 2);
}

static void put_usage_counts(struct mock__buf *b, const struct mock__job *job, uint64_t completion);

static void put_chunk_json_head(struct mock__buf *b, const struct mock__job *job)
{
    bool chat = job->route == MOCK__ROUTE_CHAT;
    mock__buf_str(b, "{\"id\":\"");
    mock__buf_put(b, job->id, job->id_len);
    mock__buf_str(b, chat ? "\",\"object\":\"chat.completion.chunk\",\"created\":"
                          : "\",\"object\":\"text_completion\",\"created\":");
    mock__buf_u64(b, job->created_s);
    mock__buf_str(b, ",\"model\":\"");
    mock__buf_put(b, job->model_json, job->model_json_len);
    mock__buf_str(b, "\",\"choices\":[");
}

void mock__fmt_token_event(struct mock__buf *b, struct mock__job *job, uint32_t first,
                           uint32_t count)
{
    if (!openai_route(job)) {
        mock__api_token_event(b, job, first, count);
        return;
    }
    size_t mark = chunk_open(b);
    put_chunk_json_head(b, job);
    if (job->route == MOCK__ROUTE_CHAT) {
        mock__buf_str(b, first == 0
                             ? "{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\""
                             : "{\"index\":0,\"delta\":{\"content\":\"");
        mock__fmt_words(b, first, count);
        mock__buf_str(b, "\"},\"finish_reason\":null}]");
        if (job->continuous_usage) {
            /* vLLM's continuous_usage_stats: the counts so far on every chunk. */
            mock__buf_put(b, ",", 1);
            put_usage_counts(b, job, first + count);
        }
        mock__buf_put(b, "}", 1);
    } else {
        mock__buf_str(b, "{\"index\":0,\"text\":\"");
        mock__fmt_words(b, first, count);
        mock__buf_str(b, "\",\"logprobs\":null,\"finish_reason\":null}]}");
    }
    mock__fmt_chunk_close(b, mark);
}

void mock__fmt_malformed_event(struct mock__buf *b, const struct mock__job *job)
{
    if (job->eventstream) {
        /* What SageMaker sends when the container fails mid-stream: an exception message. */
        size_t at = b->len;
        mock__buf_put(b, "          ", CHUNK_HEADER_RESERVE);
        mock__buf_str(b, "{\"Message\":\"mock-server: injected model stream error\"}");
        b->evs_exception = true;
        mock__fmt_chunk_close(b, at);
        b->evs_exception = false;
        return;
    }
    size_t mark = chunk_open(b);
    if (!openai_route(job)) {
        mock__buf_str(b, "{\"type\":\"content_block_delta\",\"delta\":{\"text\":");
        mock__fmt_chunk_close(b, mark);
        return;
    }
    put_chunk_json_head(b, job);
    mock__buf_str(b, job->route == MOCK__ROUTE_CHAT ? "{\"index\":0,\"delta\":{\"content\":"
                                                    : "{\"index\":0,\"text\":");
    mock__fmt_chunk_close(b, mark);
}

static const char *finish_reason(const struct mock__job *job)
{
    return job->limit_given ? "length" : "stop";
}

/* put_usage_open writes a usage object's token counts, `completion` of them
 * output so far, and leaves the object open. */
static void put_usage_open(struct mock__buf *b, const struct mock__job *job, uint64_t completion)
{
    mock__buf_str(b, "\"usage\":{\"prompt_tokens\":");
    mock__buf_u64(b, job->prompt_tokens);
    mock__buf_str(b, ",\"completion_tokens\":");
    mock__buf_u64(b, completion);
    mock__buf_str(b, ",\"total_tokens\":");
    mock__buf_u64(b, job->prompt_tokens + completion);
}

/* put_usage_counts writes the usage of a chunk mid-stream. */
static void put_usage_counts(struct mock__buf *b, const struct mock__job *job, uint64_t completion)
{
    put_usage_open(b, job, completion);
    mock__buf_put(b, "}", 1);
}

static void put_usage(struct mock__buf *b, const struct mock__job *job)
{
    put_usage_open(b, job, job->output_tokens);
    if (job->report_cache) {
        mock__buf_str(b, ",\"prompt_tokens_details\":{\"cached_tokens\":");
        mock__buf_u64(b, job->cached_tokens);
        mock__buf_put(b, "}", 1);
    }
    mock__buf_put(b, "}", 1);
}

void mock__fmt_stream_tail(struct mock__buf *b, struct mock__job *job)
{
    if (!openai_route(job)) {
        mock__api_stream_tail(b, job);
        mock__buf_str(b, "0\r\n\r\n");
        return;
    }
    size_t mark = chunk_open(b);
    put_chunk_json_head(b, job);
    mock__buf_str(b, job->route == MOCK__ROUTE_CHAT
                         ? "{\"index\":0,\"delta\":{},\"finish_reason\":\""
                         : "{\"index\":0,\"text\":\"\",\"logprobs\":null,"
                           "\"finish_reason\":\"");
    mock__buf_str(b, finish_reason(job));
    mock__buf_str(b, "\"}]");
    if (!job->include_usage) {
        mock__fmt_spec_decode(b, job); /* vLLM's trailing chunk, when there is no usage one */
    }
    mock__buf_put(b, "}", 1);
    mock__fmt_chunk_close(b, mark);
    if (job->include_usage) {
        mark = chunk_open(b);
        put_chunk_json_head(b, job);
        mock__buf_str(b, "],");
        put_usage(b, job);
        mock__fmt_spec_decode(b, job);
        mock__buf_put(b, "}", 1);
        mock__fmt_chunk_close(b, mark);
    }
    mark = chunk_open(b);
    mock__buf_str(b, "[DONE]");
    mock__fmt_chunk_close(b, mark);
    mock__buf_str(b, "0\r\n\r\n");
}

void mock__fmt_body_prefix(struct mock__buf *b, const struct mock__job *job)
{
    if (!openai_route(job)) {
        mock__api_body_prefix(b, job);
        return;
    }
    bool chat = job->route == MOCK__ROUTE_CHAT;
    mock__buf_str(b, "{\"id\":\"");
    mock__buf_put(b, job->id, job->id_len);
    mock__buf_str(b, chat ? "\",\"object\":\"chat.completion\",\"created\":"
                          : "\",\"object\":\"text_completion\",\"created\":");
    mock__buf_u64(b, job->created_s);
    mock__buf_str(b, ",\"model\":\"");
    mock__buf_put(b, job->model_json, job->model_json_len);
    mock__buf_str(b, chat ? "\",\"choices\":[{\"index\":0,\"message\":{\"role\":\"assistant\","
                            "\"content\":\""
                          : "\",\"choices\":[{\"index\":0,\"text\":\"");
}

void mock__fmt_body_suffix(struct mock__buf *b, const struct mock__job *job)
{
    if (!openai_route(job)) {
        mock__api_body_suffix(b, job);
        return;
    }
    mock__buf_str(b, job->route == MOCK__ROUTE_CHAT ? "\"},\"finish_reason\":\""
                                                    : "\",\"logprobs\":null,\"finish_reason\":\"");
    mock__buf_str(b, finish_reason(job));
    mock__buf_str(b, "\"}],");
    put_usage(b, job);
    mock__fmt_spec_decode(b, job);
    mock__buf_put(b, "}", 1);
}

void mock__fmt_unit(struct mock__buf *b, const struct mock__job *job, uint32_t i)
{
    if (mock__route_tokens(job->route)) {
        mock__fmt_words(b, i, 1);
        return;
    }
    mock__api_unit(b, job, i);
}

uint64_t mock__units_len(const struct mock__job *job, uint32_t first, uint32_t count)
{
    if (mock__route_tokens(job->route)) {
        return mock__words_len(first, count);
    }
    uint64_t total = 0;
    for (uint32_t i = 0; i < count; i++) {
        char tmp[MOCK__UNIT_BYTES_MAX];
        struct mock__buf b = {.p = tmp, .cap = sizeof(tmp)};
        mock__api_unit(&b, job, first + i);
        total += b.len;
    }
    return total;
}

uint64_t mock__rng_next(uint64_t *state)
{
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

double mock__rng_unit(uint64_t *state)
{
    return (double)(mock__rng_next(state) >> 11) * (1.0 / 9007199254740992.0);
}
