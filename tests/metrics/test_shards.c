/*
 * test_shards.c - the golden comparison of issue 20: the same records turned
 * into metrics on three shard threads (metrics_shards, merged while they run
 * and at the end) give every record the metrics, and the run the summary, that
 * the coordinator's path (metrics_record_compute, metrics_results_add) gives,
 * image and audio metrics and the sweep-line metrics included (the latter fed
 * on the coordinator from each record's annex, in the shards' order), and multi-turn runs
 * whose input counts include each session's history.
 * Client-side token counts come from a small byte-level BPE tokenizer with the
 * GPT-2 split pattern, so every shard runs the regex and BPE at once.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "metrics/metrics_record.h"

#define SHARDS 3
#define RECORDS 3000
#define MAX_EVENTS 24
#define TEXT_CAP 512

struct fake {
    struct record rec;
    struct record_event events[MAX_EVENTS];
    char text[TEXT_CAP];
    char reasoning[TEXT_CAP];
};

/* tiny_tokenizer is byte-level BPE over the 256 bytes, merging "he", "ll",
 * "hell", "hello" and " w", split by the GPT-2 pattern. */
static struct tokenizer *tiny_tokenizer(void)
{
    static char json[16384];
    size_t o = (size_t)snprintf(json, sizeof(json),
                                "{\"added_tokens\": [], \"normalizer\": null, \"pre_tokenizer\": "
                                "{\"type\": \"ByteLevel\", \"add_prefix_space\": false, "
                                "\"use_regex\": true}, \"decoder\": {\"type\": \"ByteLevel\"}, "
                                "\"model\": {\"type\": \"BPE\", \"vocab\": {");
    int extra = 0;
    for (int b = 0; b < 256; b++) {
        bool printable = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || b >= 174;
        int cp = printable ? b : 256 + extra++;
        if (cp == '"' || cp == '\\') {
            o += (size_t)snprintf(json + o, sizeof(json) - o, "\"\\%c\": %d, ", cp, b);
        } else if (cp < 0x80) {
            o += (size_t)snprintf(json + o, sizeof(json) - o, "\"%c\": %d, ", cp, b);
        } else {
            o += (size_t)snprintf(json + o, sizeof(json) - o, "\"%c%c\": %d, ",
                                  (char)(0xC0 | (cp >> 6)), (char)(0x80 | (cp & 0x3F)), b);
        }
    }
    snprintf(json + o, sizeof(json) - o,
             "\"he\": 256, \"ll\": 257, \"hell\": 258, \"hello\": 259, \"\xc4\xa0w\": 260}, "
             "\"merges\": [\"h e\", \"l l\", \"he ll\", \"hell o\", \"\xc4\xa0 w\"]}}");
    struct tokenizer *tok = NULL;
    char err[TOKENIZER_ERR_CAP];
    cr_assert_eq(tokenizer_load_buffer(json, strlen(json), "tiny", &tok, err, sizeof(err)), 0, "%s",
                 err);
    return tok;
}

static uint64_t next_rand(uint64_t *state)
{
    *state = *state * 6364136223846793005ULL + 1442695040888963407ULL;
    return *state >> 33;
}

static void fill_text(char *out, size_t *len, uint64_t words, uint64_t *rng)
{
    static const char *const vocab[] = {"hello", " world", " hell", "o", " rivers", "\n", " 42"};
    *len = 0;
    for (uint64_t i = 0; i < words && *len + 8 < TEXT_CAP; i++) {
        const char *w = vocab[next_rand(rng) % 7];
        memcpy(out + *len, w, strlen(w));
        *len += strlen(w);
    }
}

/* make_record fills one of a run's records: mostly streamed successes with
 * content and reasoning events at irregular times, some errors and
 * cancellations, usage on most. */
static void make_record(struct fake *f, uint64_t i, uint64_t *rng)
{
    struct record *r = &f->rec;
    *r = (struct record){.ordinal = i, .shard_id = (uint32_t)(i % SHARDS), .payload_index = i % 4};
    r->usage = RECORD_USAGE_NONE;
    r->events = f->events;
    r->text = f->text;
    r->reasoning_text = f->reasoning;
    uint64_t kind = next_rand(rng) % 100;
    r->outcome = kind < 90 ? RECORD_SUCCESS : kind < 97 ? RECORD_ERROR : RECORD_CANCELLED;
    r->wall_start_ns = 1700000000000000000LL + (int64_t)i * 1000003;
    r->send_start_ns = 5000000000LL + (int64_t)i * 1000003;
    r->scheduled_ns = r->send_start_ns - (int64_t)(next_rand(rng) % 5000);
    r->send_end_ns = r->send_start_ns + 20000;
    int64_t t = r->send_end_ns + (int64_t)(next_rand(rng) % 3000000);
    r->event_count = 1 + (uint32_t)(next_rand(rng) % (MAX_EVENTS - 1));
    for (uint32_t e = 0; e < r->event_count; e++) {
        t += (int64_t)(next_rand(rng) % 400000);
        uint32_t flags = e < 2 && i % 5 == 0 ? RECORD_EVENT_REASONING : RECORD_EVENT_CONTENT;
        flags |= next_rand(rng) % 9 == 0 ? RECORD_EVENT_SAME_READ : 0;
        f->events[e] = (struct record_event){.arrival_ns = t, .flags = flags};
    }
    r->end_ns = t + 1000;
    r->http.first_byte_ns = r->send_end_ns + 500;
    fill_text(f->text, &r->text_len, r->event_count, rng);
    fill_text(f->reasoning, &r->reasoning_len, i % 5 == 0 ? 2 : 0, rng);
    if (r->outcome != RECORD_SUCCESS) {
        r->error_code = r->outcome == RECORD_CANCELLED ? 499 : 500 + (int)(i % 3);
        snprintf(r->error_type, sizeof(r->error_type), "%s",
                 r->outcome == RECORD_CANCELLED ? "RequestCancellationError" : "HTTPError");
        snprintf(r->error_message, sizeof(r->error_message), "failure %d", (int)(i % 4));
    } else if (i % 7 != 0) {
        r->usage.present = true;
        r->usage.prompt_tokens = 30 + (int64_t)(i % 11);
        r->usage.completion_tokens = (int64_t)r->event_count + (int64_t)(i % 3);
        r->usage.total_tokens = r->usage.prompt_tokens + r->usage.completion_tokens;
    }
}

struct shard_worker {
    struct metrics_shards *shards;
    struct fake *records;
    uint32_t shard;
};

static void *run_shard(void *arg)
{
    struct shard_worker *w = arg;
    for (uint64_t i = 0; i < RECORDS; i++) {
        if (w->records[i].rec.shard_id == w->shard) {
            metrics_shards_record(w->shards, w->shard, &w->records[i].rec);
        }
    }
    return NULL;
}

/* run_shards runs the records through the shards, each on a thread of its own, while this
 * thread collects as the progress ticks do, then collects all. */
static void run_shards(struct metrics_shards *shards, struct fake *records,
                       struct metrics_results *results)
{
    struct shard_worker workers[SHARDS];
    pthread_t threads[SHARDS];
    for (uint32_t s = 0; s < SHARDS; s++) {
        workers[s] = (struct shard_worker){.shards = shards, .records = records, .shard = s};
        cr_assert_eq(pthread_create(&threads[s], NULL, run_shard, &workers[s]), 0);
    }
    for (int k = 0; k < 200; k++) {
        cr_assert_eq(metrics_shards_collect(shards, results), 0);
    }
    for (uint32_t s = 0; s < SHARDS; s++) {
        pthread_join(threads[s], NULL);
    }
    cr_assert_eq(metrics_shards_collect_all(shards, results), 0);
}

#define TURNS 4
#define SESSIONS (RECORDS / TURNS)

/* session_history is a multi-turn run's history as workload_sessions keeps it: a turn's input
 * is its own 100 tokens and every earlier reply of its session. Each session keeps to one
 * shard, so each slot is only ever touched by that shard's thread. */
struct session_history {
    int64_t replies[SESSIONS];
};

static int64_t session_input_tokens(void *ctx, const struct record *rec, int64_t output_tokens)
{
    struct session_history *h = ctx;
    int64_t before = h->replies[rec->session];
    h->replies[rec->session] += output_tokens > 0 ? output_tokens : 0;
    return 100 + before;
}

/* as_session makes record i turn i % TURNS of session i / TURNS, each session on one shard:
 * SESSIONS conversations of TURNS turns, whose turns the shards see in order. */
static void as_session(struct record *r, uint64_t i)
{
    r->in_session = true;
    r->session = i / TURNS;
    r->turn = (uint32_t)(i % TURNS);
    r->shard_id = (uint32_t)(r->session % SHARDS);
}

static void init_results(struct metrics_results *r, const struct metrics_results_options *opts,
                         const struct tokenizer *tok, const int64_t *isl)
{
    /* Payloads with images and audio: the shards must compute those metrics too. */
    static const int64_t images[4] = {0, 1, 3, 2};
    static const double audio_seconds[4] = {-1, 2.5, 0.75, 12};
    char err[256];
    cr_assert_eq(metrics_results_init(r, opts, err, sizeof(err)), 0, "%s", err);
    r->tokenizer = tok;
    r->payload_isl = isl;
    r->payload_images = images;
    r->payload_audio_seconds = audio_seconds;
    r->open_loop = true;
}

static void assert_same_sweep(const struct metrics_sweep_summary *a,
                              const struct metrics_sweep_summary *b)
{
    cr_assert(a->present, "the run's requests fit the sweep collector");
    cr_assert_eq(a->present, b->present);
    cr_assert_eq(a->icl, b->icl);
    cr_assert_eq(a->window_start_ns, b->window_start_ns);
    cr_assert_eq(a->window_end_ns, b->window_end_ns);
    for (int id = 0; id < METRICS_SWEEP_COUNT; id++) {
        const double *x = &a->stat[id].avg;
        const double *y = &b->stat[id].avg;
        for (int k = 0; k < 8; k++) {
            /* Sums taken in another order may differ in their last bits. */
            double tol = 1e-9 * (x[k] < 0 ? -x[k] : x[k]);
            cr_assert(x[k] - y[k] <= tol && y[k] - x[k] <= tol, "sweep %d field %d: %.17g vs %.17g",
                      id, k, x[k], y[k]);
        }
    }
}

static void assert_same_stats(const struct metrics_stats *a, const struct metrics_stats *b,
                              const char *what, int id)
{
    const double *x = &a->avg;
    const double *y = &b->avg;
    for (int k = 0; k < 15; k++) {
        cr_assert(x[k] == y[k] || (x[k] != x[k] && y[k] != y[k]), "%s %d field %d: %.17g vs %.17g",
                  what, id, k, x[k], y[k]);
    }
    cr_assert_eq(a->count, b->count, "%s %d count", what, id);
}

static void assert_same_summary(struct metrics_results *a, struct metrics_results *b, bool sessions)
{
    struct metrics_summary *sa = calloc(1, sizeof(*sa));
    struct metrics_summary *sb = calloc(1, sizeof(*sb));
    cr_assert(sa != NULL && sb != NULL);
    metrics_results_summarize(a, sa);
    metrics_results_summarize(b, sb);
    assert_same_sweep(&sa->sweep, &sb->sweep);
    cr_assert_eq(sa->exact, sb->exact);
    for (int id = 0; id < METRICS_ID_COUNT; id++) {
        cr_assert_eq(sa->record_present[id], sb->record_present[id], "metric %d", id);
        if (sa->record_present[id]) {
            assert_same_stats(&sa->record[id], &sb->record[id], "metric", id);
        }
        cr_assert_eq(sa->adj_present[id], sb->adj_present[id], "adj %d", id);
        for (int p = 0; sa->adj_present[id] && p < METRICS_ADJ_PERCENTILES; p++) {
            cr_assert(sa->adj[id].percentile[p] == sb->adj[id].percentile[p], "adj %d", id);
            cr_assert_eq(sa->adj[id].finite[p], sb->adj[id].finite[p]);
        }
    }
    for (int id = 0; id < METRICS_SCALAR_COUNT; id++) {
        cr_assert_eq(sa->scalar_present[id], sb->scalar_present[id], "scalar %d", id);
        cr_assert(sa->scalar[id] == sb->scalar[id], "scalar %d: %.17g vs %.17g", id, sa->scalar[id],
                  sb->scalar[id]);
    }
    cr_assert(sa->record_present[METRICS_TTFT] && sa->record_present[METRICS_OSL]);
    /* A session's turns carry no payload's images or audio. */
    cr_assert(sessions ||
              (sa->record_present[METRICS_NUM_IMAGES] && sa->record_present[METRICS_RTFX]));
    cr_assert(sa->adj_present[METRICS_REQUEST_LATENCY], "the run had errors: adj_ blocks");
    free(sa);
    free(sb);
}

/* golden runs the records through both paths, the shards on threads of their
 * own while this thread collects, and compares; with `sessions` the records are the turns of
 * multi-turn conversations whose input counts include their history. */
static void golden(const struct metrics_results_options *opts, const struct tokenizer *tok,
                   bool sessions)
{
    static const int64_t isl[4] = {31, 32, 33, 1000};
    uint64_t rng = 42;
    struct fake *records = calloc(RECORDS, sizeof(*records));
    struct metrics_record *expected = calloc(RECORDS, sizeof(*expected));
    size_t annex_bytes = metrics_shards_annex_bytes(MAX_EVENTS);
    char *annexes = calloc(RECORDS, annex_bytes);
    cr_assert(records != NULL && expected != NULL && annexes != NULL);
    struct metrics_results coordinator;
    struct metrics_results sharded;
    init_results(&coordinator, opts, tok, isl);
    init_results(&sharded, opts, tok, isl);
    struct session_history *history = calloc(2, sizeof(*history));
    cr_assert_not_null(history);
    if (sessions) {
        coordinator.session_input_tokens = session_input_tokens;
        coordinator.session_ctx = &history[0];
        sharded.session_input_tokens = session_input_tokens;
        sharded.session_ctx = &history[1];
    }
    for (uint64_t i = 0; i < RECORDS; i++) {
        make_record(&records[i], i, &rng);
        if (sessions) {
            as_session(&records[i].rec, i);
        }
        records[i].rec.annex = annexes + i * annex_bytes;
        metrics_record_compute(&coordinator, &records[i].rec, &expected[i]);
        metrics_results_add(&coordinator, &records[i].rec, &expected[i]);
    }
    struct metrics_shards *shards = NULL;
    cr_assert_eq(metrics_shards_new(&sharded, opts, SHARDS, MAX_EVENTS, &shards), 0);
    run_shards(shards, records, &sharded);
    /* The coordinator's own sweep-line collection, from the annexes, in another order than the
     * records were made: the order they would arrive in, shard by shard. */
    for (uint32_t s = 0; s < SHARDS; s++) {
        for (uint64_t i = 0; i < RECORDS; i++) {
            if (records[i].rec.shard_id == s) {
                metrics_results_sweep_add(&sharded, metrics_shards_of(&records[i].rec));
            }
        }
    }
    for (uint64_t i = 0; i < RECORDS; i++) {
        const struct metrics_record *m = metrics_shards_of(&records[i].rec);
        cr_assert_eq(memcmp(m->values.has, expected[i].values.has, sizeof(m->values.has)), 0,
                     "record %llu", (unsigned long long)i);
        for (int id = 0; id < METRICS_ID_COUNT; id++) {
            cr_assert(!m->values.has[id] || m->values.value[id] == expected[i].values.value[id],
                      "record %llu metric %d", (unsigned long long)i, id);
        }
        cr_assert_eq(m->shared_reads, expected[i].shared_reads);
        cr_assert_eq(m->request.content_count, expected[i].request.content_count);
    }
    cr_assert_eq(sharded.success_count, coordinator.success_count);
    cr_assert_eq(sharded.error_count, coordinator.error_count);
    cr_assert_eq(sharded.cancelled_count, coordinator.cancelled_count);
    cr_assert_eq(sharded.error_kind_count, coordinator.error_kind_count);
    cr_assert_eq(sharded.same_read_events, coordinator.same_read_events);
    cr_assert_gt(coordinator.same_read_events, 0);
    cr_assert_eq(sharded.first_wall_ns, coordinator.first_wall_ns);
    assert_same_summary(&coordinator, &sharded, sessions);
    if (sessions) {
        /* The history counted: a session's last turn has more input than its first. */
        const struct metrics_record *last = metrics_shards_of(&records[TURNS - 1].rec);
        cr_assert_gt(last->request.tokens.input, 100);
        cr_assert_eq(memcmp(&history[0], &history[1], sizeof(history[0])), 0);
    }
    free(history);
    metrics_shards_free(shards);
    metrics_results_free(&coordinator);
    metrics_results_free(&sharded);
    free(annexes);
    free(expected);
    free(records);
}

Test(metrics_shards, tokenizer_counts_give_the_coordinators_summary, .timeout = 120)
{
    struct tokenizer *tok = tiny_tokenizer();
    struct metrics_results_options opts = {.streaming = true, .goodput = "time_to_first_token:2"};
    golden(&opts, tok, false);
    tokenizer_free(tok);
}

Test(metrics_shards, server_counts_give_the_coordinators_summary, .timeout = 120)
{
    struct metrics_results_options opts = {
        .streaming = true, .network_rtt_given = true, .network_rtt_ns = 100000};
    golden(&opts, NULL, false);
}

Test(metrics_shards, session_history_counts_give_the_coordinators_summary, .timeout = 120)
{
    struct tokenizer *tok = tiny_tokenizer();
    struct metrics_results_options opts = {.streaming = true};
    golden(&opts, tok, true);
    tokenizer_free(tok);
}

Test(metrics_shards, no_shards_is_refused)
{
    struct metrics_results r;
    char err[64];
    struct metrics_results_options opts = {.streaming = true};
    cr_assert_eq(metrics_results_init(&r, &opts, err, sizeof(err)), 0);
    struct metrics_shards *shards = NULL;
    cr_assert_eq(metrics_shards_new(&r, &opts, 0, 8, &shards), -EINVAL);
    metrics_results_free(&r);
}

/* metrics_record_compute_as gives, from what one results computed, what results that differ
 * only in their schedule and session history compute (the warmup's records in outputs.json):
 * here a closed loop without history against a fixed schedule with it. */
Test(metrics_shards, compute_as_gives_what_the_other_results_compute, .timeout = 60)
{
    static const int64_t isl[4] = {31, 32, 33, 1000};
    struct tokenizer *tok = tiny_tokenizer();
    struct metrics_results_options opts = {.streaming = true};
    struct metrics_results counted;
    struct metrics_results other;
    init_results(&counted, &opts, tok, isl);
    init_results(&other, &opts, tok, isl);
    counted.open_loop = false;
    other.fixed_schedule = true;
    struct session_history *history = calloc(2, sizeof(*history));
    struct fake *f = calloc(1, sizeof(*f));
    cr_assert(history != NULL && f != NULL);
    other.session_input_tokens = session_input_tokens;
    other.session_ctx = &history[0];
    uint64_t rng = 7;
    uint64_t differed = 0;
    for (uint64_t i = 0; i < 400; i++) {
        make_record(f, i, &rng);
        if (i >= 200) {
            as_session(&f->rec, i); /* four turns of each session, in order */
        }
        struct metrics_record first;
        struct metrics_record as;
        struct metrics_record expected;
        metrics_record_compute(&counted, &f->rec, &first);
        /* The expected side keeps its own history, so that each is called once per turn. */
        other.session_ctx = &history[1];
        metrics_record_compute(&other, &f->rec, &expected);
        other.session_ctx = &history[0];
        metrics_record_compute_as(&other, &f->rec, &first, &as);
        cr_assert_eq(memcmp(as.values.has, expected.values.has, sizeof(as.values.has)), 0,
                     "record %llu", (unsigned long long)i);
        for (int id = 0; id < METRICS_ID_COUNT; id++) {
            cr_assert(!as.values.has[id] || as.values.value[id] == expected.values.value[id],
                      "record %llu metric %d", (unsigned long long)i, id);
        }
        cr_assert_eq(as.request.tokens.input, expected.request.tokens.input);
        differed += memcmp(first.values.has, expected.values.has, sizeof(first.values.has)) != 0 ||
                    first.request.tokens.input != expected.request.tokens.input;
    }
    cr_assert_gt(differed, 100, "the two results do differ");
    free(f);
    free(history);
    metrics_results_free(&counted);
    metrics_results_free(&other);
    tokenizer_free(tok);
}

#define SLICE_NS 7000000 /* the records start about 1 ms apart: 7 a slice, 429 slices */
#define SLICES_MAX 400   /* the last 29 slices' records are counted as dropped */

/* The shards group their records into AIPerf's timeslices by start time as export/intervals.c
 * did on the coordinator: every slice summarises alike, and the records past the last slice
 * are counted. */
Test(metrics_shards, timeslices_grouped_on_the_shards_summarise_as_the_coordinators, .timeout = 120)
{
    static const int64_t isl[4] = {31, 32, 33, 1000};
    struct tokenizer *tok = tiny_tokenizer();
    struct metrics_results_options opts = {.streaming = true};
    struct metrics_results results;
    init_results(&results, &opts, tok, isl);
    uint64_t rng = 11;
    struct fake *records = calloc(RECORDS, sizeof(*records));
    size_t annex_bytes = metrics_shards_annex_bytes(MAX_EVENTS);
    char *annexes = calloc(RECORDS, annex_bytes);
    struct metrics_run **expected = calloc(SLICES_MAX, sizeof(*expected));
    cr_assert(records != NULL && annexes != NULL && expected != NULL);
    struct metrics_goodput goodput = {0};
    struct metrics_run_config config = {
        .streaming = true, .significant_figures = 1, .goodput = &goodput};
    int64_t base = 1700000000000000000LL + 2500000; /* the first records start before it */
    uint64_t dropped = 0;
    for (uint64_t i = 0; i < RECORDS; i++) {
        make_record(&records[i], i, &rng);
        records[i].rec.annex = annexes + i * annex_bytes;
        struct metrics_record m;
        metrics_record_compute(&results, &records[i].rec, &m);
        if (records[i].rec.wall_start_ns < base) {
            continue;
        }
        uint64_t k = (uint64_t)(records[i].rec.wall_start_ns - base) / SLICE_NS;
        if (k >= SLICES_MAX) {
            dropped++;
            continue;
        }
        if (expected[k] == NULL) {
            cr_assert_eq(metrics_run_new(&config, &expected[k]), 0);
        }
        metrics_run_add(expected[k], &m.request, &m.values);
    }
    struct metrics_shards *shards = NULL;
    cr_assert_eq(metrics_shards_new(&results, &opts, SHARDS, MAX_EVENTS, &shards), 0);
    struct metrics_slices slices;
    cr_assert_eq(metrics_slices_init(&slices, base, SLICE_NS, SLICES_MAX, &config), 0);
    cr_assert_eq(metrics_shards_slices(shards, &slices), 0);
    cr_assert_eq(metrics_shards_slices(shards, &slices), -EINVAL, "only once");
    run_shards(shards, records, &results);
    cr_assert_eq(slices.dropped, dropped);
    cr_assert_gt(dropped, 0);
    cr_assert_eq(slices.count, SLICES_MAX);
    struct metrics_summary *want = calloc(1, sizeof(*want));
    struct metrics_summary *got = calloc(1, sizeof(*got));
    struct metrics_run *copy = NULL;
    cr_assert_eq(metrics_run_new(&config, &copy), 0);
    for (uint64_t k = 0; k < SLICES_MAX; k++) {
        const struct metrics_run *slice = slices.runs[k];
        cr_assert_eq(slice != NULL, expected[k] != NULL, "slice %llu", (unsigned long long)k);
        if (slice == NULL) {
            continue;
        }
        /* Summarising may reorder a run's samples: summarise a copy of the shards' slice. */
        metrics_run_reset(copy);
        cr_assert_eq(metrics_run_merge(copy, slice), 0);
        metrics_run_set_window(copy, base + (int64_t)k * SLICE_NS,
                               base + (int64_t)(k + 1) * SLICE_NS);
        metrics_run_set_window(expected[k], base + (int64_t)k * SLICE_NS,
                               base + (int64_t)(k + 1) * SLICE_NS);
        metrics_run_summarize(expected[k], want);
        metrics_run_summarize(copy, got);
        for (int id = 0; id < METRICS_ID_COUNT; id++) {
            cr_assert_eq(got->record_present[id], want->record_present[id]);
            if (want->record_present[id]) {
                assert_same_stats(&got->record[id], &want->record[id], "slice metric", id);
            }
        }
        for (int id = 0; id < METRICS_SCALAR_COUNT; id++) {
            cr_assert_eq(got->scalar_present[id], want->scalar_present[id]);
            cr_assert(got->scalar[id] == want->scalar[id], "slice %llu scalar %d: %.17g vs %.17g",
                      (unsigned long long)k, id, got->scalar[id], want->scalar[id]);
        }
        metrics_run_free(expected[k]);
    }
    metrics_run_free(copy);
    free(want);
    free(got);
    free(expected);
    metrics_shards_free(shards);
    metrics_slices_free(&slices);
    metrics_results_free(&results);
    free(annexes);
    free(records);
    tokenizer_free(tok);
}
