/*
 * fuzz_wire_reader.c - libFuzzer target for the whole response path as the engine drives it:
 * bytes -> HTTP framing (chunked or not) -> SSE events, an AWS event stream or a whole body ->
 * the endpoint's response reader -> the record (wire/).
 *
 * Input layout: bytes 0-1 pick a split point, byte 2 the body buffer's size; then one mode
 * byte (low bits: the endpoint type, mod ENDPOINT_TYPE_COUNT, and the request's body mode, the
 * low bits over ENDPOINT_TYPE_COUNT mod 3; top bit: a body-discarding probe), then the response
 * bytes. They are fed whole, split at the chosen point, and byte by byte for
 * short inputs, each read in its own exact-size heap copy, every read at the same arrival time;
 * when the bytes end without the response ending, the server closes the connection.
 *
 * Checked (abort on violation): all three ways give the same request outcome, failure and
 * record (text, usage, events with their times and flags, error fields, status), apart from
 * what is about reads themselves (their count, which events shared one, the bytes of reads
 * after the end and so keep-alive when there are some); the record never exceeds its limits; a
 * failure has a type and a terminated message; a success has a 2xx status; a body handed over (a
 * video job's answer) lies in the read or in the reader's buffer and is the same bytes however the
 * reads were cut.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint/endpoint.h"
#include "record/record.h"
#include "response/response.h"
#include "tests/fuzz/fuzz_splits.h"
#include "tests/support/wire_fixture.h"
#include "wire/wire.h"

#define BODY_BYTES_PER_UNIT 64
#define ARRIVAL_NS 1000

static uint64_t digest_string(uint64_t h, const char *s, size_t cap)
{
    const char *end = memchr(s, '\0', cap);
    if (end == NULL) {
        abort(); /* every kept string is terminated */
    }
    return fuzz_digest(h, s, (size_t)(end - s));
}

static void check_record(const struct wire_fixture *r)
{
    const struct record *rec = &r->rec;
    if (rec->event_count > WIRE_FIXTURE_EVENTS || rec->text_len > WIRE_FIXTURE_TEXT ||
        rec->reasoning_len > WIRE_FIXTURE_TEXT) {
        abort();
    }
#define CHECK_COUNT(name)                                                                          \
    if (rec->usage.name != RECORD_ABSENT && rec->usage.name < 0) {                                 \
        abort();                                                                                   \
    }
    RECORD_USAGE_COUNTS(CHECK_COUNT)
#undef CHECK_COUNT
    const struct wire_result *res = &r->result;
    if (res->ended && res->failed &&
        (res->failure.type == NULL ||
         memchr(res->failure.message, '\0', sizeof(res->failure.message)) == NULL)) {
        abort();
    }
    if (res->ended && !res->failed && res->outcome == RECORD_SUCCESS &&
        (rec->http_status < 200 || rec->http_status > 299)) {
        abort();
    }
}

/* digest_result digests how the request ended. Keep-alive counts only when the stream ended
 * exactly with the response (bytes_after false): bytes after it clear keep-alive when they
 * share the response's last read, and a later read is never fed, so that one flag is about
 * the reads. */
static uint64_t digest_result(uint64_t h, const struct wire_fixture *r, bool bytes_after)
{
    const struct wire_result *res = &r->result;
    int fields[] = {r->generated, res->ended, res->ended ? (int)res->outcome : -1,
                    res->ended && res->failed,
                    res->ended && !res->failed && !bytes_after && res->keep_alive};
    h = fuzz_digest(h, fields, sizeof(fields));
    if (res->ended && res->failed) {
        h = fuzz_digest(h, &res->failure.code, sizeof(res->failure.code));
        h = fuzz_digest(h, res->failure.type, strlen(res->failure.type));
        h = digest_string(h, res->failure.message, sizeof(res->failure.message));
    }
    return h;
}

static uint64_t digest_record(uint64_t h, const struct record *rec)
{
    int64_t times[] = {rec->headers_ns, rec->end_ns, rec->http.first_byte_ns,
                       rec->first_content_completion_tokens};
    h = fuzz_digest(h, times, sizeof(times));
    int flags[] = {rec->http_status,   rec->error_code,          rec->saw_done,
                   rec->saw_content,   rec->saw_finish_reason,   rec->text_truncated,
                   rec->usage.present, (int)rec->events_dropped, (int)rec->event_count};
    h = fuzz_digest(h, flags, sizeof(flags));
    h = digest_string(h, rec->error_type, sizeof(rec->error_type));
    h = digest_string(h, rec->error_message, sizeof(rec->error_message));
    for (uint32_t i = 0; i < rec->event_count; i++) {
        const struct record_event *ev = &rec->events[i];
        uint64_t e[] = {(uint64_t)ev->arrival_ns, ev->flags & ~(uint32_t)RECORD_EVENT_SAME_READ,
                        ev->text_len};
        h = fuzz_digest(h, e, sizeof(e));
    }
    h = fuzz_digest(h, rec->text, rec->text_len);
    h = fuzz_digest(h, rec->reasoning_text, rec->reasoning_len);
#define DIGEST_COUNT(name) h = fuzz_digest(h, &rec->usage.name, sizeof(rec->usage.name));
    RECORD_USAGE_COUNTS(DIGEST_COUNT)
#undef DIGEST_COUNT
    return fuzz_digest(h, &rec->usage.prompt_audio_seconds, sizeof(double));
}

static void setup(struct wire_fixture *r, uint8_t mode, size_t body_cap)
{
    enum endpoint_type type = (enum endpoint_type)((mode & 0x7f) % ENDPOINT_TYPE_COUNT);
    if (wire_fixture_init(r, type, body_cap) != 0) {
        abort();
    }
    r->cfg.discard_body = (mode & 0x80) != 0;
    r->wire.body_mode = (enum wire_body_mode)((mode & 0x7f) / ENDPOINT_TYPE_COUNT % 3);
}

/* handed_over is the digest of the body the reader handed back (0: none), taken while the read
 * it may point into is still alive. */
static uint64_t handed_over;

static void take_handed_over(const struct wire_fixture *r, const char *piece, size_t len)
{
    const struct wire_result *res = &r->result;
    if (!res->ended || res->failed || res->outcome != RECORD_SUCCESS ||
        r->wire.body_mode != WIRE_BODY_HAND_OVER || r->cfg.discard_body || res->body_len == 0) {
        return;
    }
    if (!fuzz_inside(res->body, res->body_len, piece, len) &&
        !fuzz_inside(res->body, res->body_len, r->wire.body, r->wire.body_cap)) {
        abort();
    }
    handed_over = fuzz_digest(FUZZ_DIGEST_SEED, res->body, res->body_len);
}

/* feed hands one read to the reader, as its own heap copy; false once the request ended. */
static bool feed(struct wire_fixture *r, const uint8_t *data, size_t len)
{
    char *piece = fuzz_piece(data, len);
    bool going = wire_fixture_feed(r, piece, len, ARRIVAL_NS);
    take_handed_over(r, piece, len);
    free(piece);
    check_record(r);
    return going;
}

static uint64_t run(const uint8_t *data, size_t len, size_t cap, const size_t *cuts, size_t ncuts)
{
    if (len < 1) {
        return 0;
    }
    static struct wire_fixture r;
    setup(&r, data[0], cap);
    handed_over = 0;
    /* The mode byte is not part of the stream: cuts are shifted past it, empty reads dropped
     * (the engine never hands the reader one). */
    bool going = true;
    size_t start = 1;
    for (size_t i = 0; i <= ncuts && going; i++) {
        size_t end = i < ncuts ? (cuts[i] > 1 ? cuts[i] : 1) : len;
        if (end > start) {
            going = feed(&r, data + start, end - start);
            start = end;
        }
    }
    bool bytes_after = !going && (r.result.trailing || start < len);
    uint64_t h = FUZZ_DIGEST_SEED;
    if (going) {
        bool completed = wire_reader_eof(&r.wire, &r.cfg, ARRIVAL_NS + 1, &r.rec, &r.result);
        take_handed_over(&r, NULL, 0);
        h = fuzz_digest(h, &completed, sizeof(completed));
        r.generated |= r.result.generated;
        check_record(&r);
    }
    h = digest_result(h, &r, bytes_after);
    h = digest_record(h, &r.rec);
    h = fuzz_digest(h, &handed_over, sizeof(handed_over));
    wire_fixture_free(&r);
    return h;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_splits(data, size, BODY_BYTES_PER_UNIT, run);
    return 0;
}
