/*
 * test_sessions.c - multi-turn conversations end to end against the mock
 * server: synthetic conversations with think times and live history,
 * multi_turn and raw_payload files, --user-centric-rate, and their errors.
 */
#include <criterion/criterion.h>

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "e2e.h"

#define PROFILE "profile --model Qwen/Qwen3-0.6B --url URL --artifact-dir DIR "
/* Flag checks fail before anything is sent: no server needed. */
#define CHECK "profile --model m --url 127.0.0.1:9 "
#define MAX_RECORDS 64

/* turn_record is what these tests read from one profile_export.jsonl line. */
struct turn_record {
    int64_t session;
    int64_t turn;
    char conversation[64];
    char correlation[64];
    int64_t start_ns;
    int64_t end_ns;
    int64_t scheduled_ns;  /* when it was due */
    int64_t prompt_tokens; /* the mock's usage: it counts the words of every message */
    int64_t isl;           /* input_sequence_length: the client's count, history included */
    int64_t osl;           /* output_sequence_length */
    bool error;
};

struct records {
    struct turn_record items[MAX_RECORDS];
    size_t count;
};

static int64_t metric(json_t *metrics, const char *name)
{
    json_t *value = json_object_get(json_object_get(metrics, name), "value");
    return json_is_number(value) ? (int64_t)json_number_value(value) : -1;
}

static void copy_string(char *out, size_t cap, json_t *value)
{
    snprintf(out, cap, "%s", json_is_string(value) ? json_string_value(value) : "");
}

/* read_records loads every record of the world's profile_export.jsonl. */
static void read_records(const struct e2e *w, struct records *out)
{
    char path[512];
    snprintf(path, sizeof(path), "%s/profile_export.jsonl", w->dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "%s", path);
    char line[65536];
    out->count = 0;
    while (fgets(line, sizeof(line), f) != NULL) {
        cr_assert_lt(out->count, MAX_RECORDS);
        json_error_t err;
        json_t *root = json_loads(line, 0, &err);
        cr_assert_not_null(root, "%s", err.text);
        json_t *meta = json_object_get(root, "metadata");
        struct turn_record *r = &out->items[out->count++];
        r->session = json_integer_value(json_object_get(meta, "session_num"));
        r->turn = json_integer_value(json_object_get(meta, "turn_index"));
        copy_string(r->conversation, sizeof(r->conversation),
                    json_object_get(meta, "conversation_id"));
        copy_string(r->correlation, sizeof(r->correlation),
                    json_object_get(meta, "x_correlation_id"));
        r->start_ns = json_integer_value(json_object_get(meta, "request_start_ns"));
        r->end_ns = json_integer_value(json_object_get(meta, "request_end_ns"));
        r->scheduled_ns = json_integer_value(json_object_get(meta, "request_scheduled_ns"));
        r->prompt_tokens = metric(json_object_get(root, "metrics"), "usage_prompt_tokens");
        r->isl = metric(json_object_get(root, "metrics"), "input_sequence_length");
        r->osl = metric(json_object_get(root, "metrics"), "output_sequence_length");
        r->error = !json_is_null(json_object_get(root, "error"));
        json_decref(root);
    }
    fclose(f);
}

/* previous_turn returns the record of the turn before r in r's session. */
static const struct turn_record *previous_turn(const struct records *rs,
                                               const struct turn_record *r)
{
    for (size_t i = 0; i < rs->count; i++) {
        const struct turn_record *p = &rs->items[i];
        if (p->session == r->session && p->turn + 1 == r->turn) {
            return p;
        }
    }
    return NULL;
}

/* assert_turns_in_order requires every later turn to leave at least
 * min_gap_ns after the previous turn of its session ended, with the same
 * conversation and correlation ids, and (live history) more prompt tokens. */
static void assert_turns_in_order(const struct records *rs, int64_t min_gap_ns, bool grows)
{
    for (size_t i = 0; i < rs->count; i++) {
        const struct turn_record *r = &rs->items[i];
        cr_assert_not(r->error, "session %lld turn %lld failed", (long long)r->session,
                      (long long)r->turn);
        if (r->turn == 0) {
            continue;
        }
        const struct turn_record *p = previous_turn(rs, r);
        cr_assert_not_null(p, "session %lld turn %lld has no turn before it", (long long)r->session,
                           (long long)r->turn);
        cr_assert_geq(r->start_ns - p->end_ns, min_gap_ns,
                      "session %lld turn %lld left %lld ns after the previous turn ended",
                      (long long)r->session, (long long)r->turn,
                      (long long)(r->start_ns - p->end_ns));
        cr_assert_str_eq(r->conversation, p->conversation);
        cr_assert_str_eq(r->correlation, p->correlation);
        if (grows) {
            cr_assert_gt(r->prompt_tokens, p->prompt_tokens,
                         "turn %lld carries the history: more prompt than turn %lld",
                         (long long)r->turn, (long long)p->turn);
        }
    }
}

Test(sessions_e2e, synthetic_conversations_think_and_resend_the_live_history, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_run_ok(&w, PROFILE "--endpoint-type chat --streaming --concurrency 2 --request-count 9 "
                           "--conversation-num 2 --conversation-turn-mean 3 "
                           "--conversation-turn-delay-mean 30 --isl 20 --osl 8 --random-seed 7");
    struct records *rs = calloc(1, sizeof(*rs));
    read_records(&w, rs);
    cr_assert_eq(rs->count, 9, "exactly --request-count turns");
    assert_turns_in_order(rs, 30 * 1000 * 1000, true);
    size_t by_turn[3] = {0};
    for (size_t i = 0; i < rs->count; i++) {
        cr_assert_lt(rs->items[i].turn, 3);
        by_turn[rs->items[i].turn]++;
        cr_assert_not_null(strstr(rs->items[i].conversation, "session_"));
    }
    cr_assert_eq(by_turn[0], 3, "three sessions started: two conversations, one reused");
    free(rs);
    e2e_finish(&w);
}

/* inputs.json holds what a multi-turn run sent, each turn with the replies it got in its
 * history, so replaying it (inputs_json) sends the same requests: the mock counts the words of
 * every message as prompt tokens, and each (conversation, turn) gets the same count in the
 * replay as in the run. (The file used to hold each turn's new message only: 89/198/310
 * prompt tokens in the run, 89/89/92 in the replay.) */
Test(sessions_e2e, a_replay_of_inputs_json_sends_what_the_run_sent, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_run_ok(&w, PROFILE "--endpoint-type chat --streaming --concurrency 3 --conversation-num 3 "
                           "--conversation-turn-mean 3 --isl 20 --osl 8 --random-seed 7");
    struct records *run = calloc(1, sizeof(*run));
    read_records(&w, run);
    cr_assert_eq(run->count, 9);
    char src[512];
    char dst[512];
    snprintf(src, sizeof(src), "%s/inputs.json", w.dir);
    snprintf(dst, sizeof(dst), "%s/sent.json", w.dir);
    cr_assert_eq(rename(src, dst), 0);
    e2e_run_ok(&w, PROFILE "--endpoint-type chat --streaming --concurrency 3 --input-file "
                           "IN/sent.json --custom-dataset-type inputs_json");
    struct records *replay = calloc(1, sizeof(*replay));
    read_records(&w, replay);
    cr_assert_eq(replay->count, 9);
    for (size_t i = 0; i < replay->count; i++) {
        const struct turn_record *r = &replay->items[i];
        const struct turn_record *same = NULL;
        for (size_t k = 0; k < run->count && same == NULL; k++) {
            const struct turn_record *o = &run->items[k];
            same = strcmp(o->conversation, r->conversation) == 0 && o->turn == r->turn ? o : NULL;
        }
        cr_assert_not_null(same, "%s turn %lld was in the run", r->conversation,
                           (long long)r->turn);
        cr_assert_gt(r->prompt_tokens, 0);
        cr_assert_eq(r->prompt_tokens, same->prompt_tokens,
                     "%s turn %lld: %lld prompt tokens in the replay, %lld in the run",
                     r->conversation, (long long)r->turn, (long long)r->prompt_tokens,
                     (long long)same->prompt_tokens);
    }
    free(run);
    free(replay);
    e2e_finish(&w);
}

/* --conversation-num is AIPerf's --num-sessions: without --request-count or
 * --benchmark-duration it ends the run after that many sessions, whole. */
Test(sessions_e2e, conversation_num_alone_ends_the_run_after_its_sessions, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    size_t errors = 0;
    e2e_run_ok(&w, PROFILE "--endpoint-type chat --concurrency 3 --conversation-num 7");
    cr_assert_eq(count_export_lines(&w, &errors), 7, "seven one-turn sessions, not 10 requests");
    e2e_run_ok(&w, PROFILE "--endpoint-type chat --concurrency 3 --conversation-num 4 "
                           "--conversation-turn-mean 2");
    cr_assert_eq(count_export_lines(&w, &errors), 8, "four sessions of two turns");
    e2e_run_ok(&w, PROFILE "--endpoint-type chat --concurrency 3 --conversation-num 7 "
                           "--request-count 5");
    cr_assert_eq(count_export_lines(&w, &errors), 5, "--request-count still ends the run");
    cr_assert_eq(errors, 0);
    e2e_finish(&w);
}

Test(sessions_e2e, multi_turn_file_keeps_ids_delays_and_the_history, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_write(
        &w, "conv.jsonl",
        "{\"session_id\": \"alpha\", \"turns\": [{\"text\": \"Hello there\"}, "
        "{\"text\": \"Tell me more\", \"delay\": 40}, {\"text\": \"Thanks\", \"delay\": 40}]}\n"
        "{\"session_id\": \"beta\", \"turns\": [{\"text\": \"A single turn\"}]}\n");
    char words[512];
    snprintf(words, sizeof(words),
             PROFILE "--endpoint-type chat --streaming --concurrency 2 --input-file %s/conv.jsonl",
             w.dir);
    e2e_run_ok(&w, words);
    struct records *rs = calloc(1, sizeof(*rs));
    read_records(&w, rs);
    cr_assert_eq(rs->count, 4, "every turn of the file once");
    assert_turns_in_order(rs, 40 * 1000 * 1000, true);
    for (size_t i = 0; i < rs->count; i++) {
        if (rs->items[i].turn > 0) {
            cr_assert_str_eq(rs->items[i].conversation, "alpha");
        }
    }
    char path[512];
    snprintf(path, sizeof(path), "%s/inputs.json", w.dir);
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    cr_assert_not_null(root, "%s", err.text);
    json_t *data = json_object_get(root, "data");
    cr_assert_eq(json_array_size(data), 2);
    cr_assert_str_eq(json_string_value(json_object_get(json_array_get(data, 0), "session_id")),
                     "alpha");
    cr_assert_eq(json_array_size(json_object_get(json_array_get(data, 0), "payloads")), 3);
    json_decref(root);
    free(rs);
    e2e_finish(&w);
}

Test(sessions_e2e, raw_payload_sessions_send_each_turn_after_the_previous, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char sub[512];
    snprintf(sub, sizeof(sub), "%s/conv", w.dir);
    cr_assert_eq(mkdir(sub, 0755), 0);
    static const char turn[] = "{\"messages\": [{\"role\": \"user\", \"content\": \"x\"}], "
                               "\"model\": \"Qwen/Qwen3-0.6B\", \"max_tokens\": 4}\n";
    char three[sizeof(turn) * 3];
    snprintf(three, sizeof(three), "%s%s%s", turn, turn, turn);
    e2e_write(&w, "conv/a.jsonl", three);
    e2e_write(&w, "conv/b.jsonl", three);
    char words[512];
    snprintf(words, sizeof(words),
             PROFILE "--input-file %s/conv --custom-dataset-type raw_payload --streaming "
                     "--concurrency 2",
             w.dir);
    e2e_run_ok(&w, words);
    struct records *rs = calloc(1, sizeof(*rs));
    read_records(&w, rs);
    cr_assert_eq(rs->count, 6);
    /* Verbatim bodies: no history is added, so the prompt does not grow. */
    assert_turns_in_order(rs, 0, false);
    free(rs);
    e2e_finish(&w);
}

Test(sessions_e2e, user_centric_users_never_overlap_themselves, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    /* A --concurrency cap at or above the users is met already (AIPerf allows it). */
    e2e_run_ok(&w, PROFILE "--endpoint-type chat --streaming --request-count 16 "
                           "--conversation-turn-mean 2 --user-centric-rate 200 --num-users 4 "
                           "--concurrency 8");
    struct records *rs = calloc(1, sizeof(*rs));
    read_records(&w, rs);
    cr_assert_eq(rs->count, 16);
    assert_turns_in_order(rs, 0, true);
    free(rs);
    e2e_finish(&w);
}

Test(sessions_e2e, conversation_flags_are_checked_by_name, .timeout = 60)
{
    static const struct {
        const char *words;
        const char *expect;
    } cases[] = {
        {CHECK "--user-centric-rate 10", "--num-users"},
        {CHECK "--num-users 4", "--user-centric-rate"},
        {CHECK "--user-centric-rate 10 --num-users 4", "--conversation-turn-mean"},
        {CHECK "--user-centric-rate 10 --num-users 4 --conversation-turn-mean 2 "
               "--request-rate 5",
         "--request-rate"},
        {CHECK "--conversation-turn-mean 0", "--conversation-turn-mean"},
        {CHECK "--user-centric-rate 10 --num-users 4 --conversation-turn-mean 2 --concurrency 3",
         "--concurrency 3 is below --num-users 4"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *out = NULL;
        int status = run_ringperf(NULL, cases[i].words, true, &out);
        cr_assert_eq(status, 1, "case %zu exits 1: %s", i, out);
        cr_assert_not_null(strstr(out, cases[i].expect), "case %zu names %s: %s", i,
                           cases[i].expect, out);
        free(out);
    }
}

/* lengths_of reads a record's input_sequence_length and output_sequence_length. */
static void lengths_of(json_t *root, int64_t *out_isl, int64_t *out_osl)
{
    json_t *metrics = json_object_get(root, "metrics");
    *out_isl = metric(metrics, "input_sequence_length");
    *out_osl = metric(metrics, "output_sequence_length");
}

/* check_turn_tokens runs three turns of one conversation with `extra` flags
 * and requires each turn's input tokens to be the turn before's, its reply and
 * its own 40-token prompt; the first turn's are `first`. */
static void check_turn_tokens(const char *extra, int64_t first)
{
    struct e2e w;
    e2e_start(&w, NULL);
    char words[1024];
    snprintf(words, sizeof(words),
             PROFILE "--endpoint-type chat --streaming --concurrency 1 --request-count 3 "
                     "--conversation-turn-mean 3 --isl 40 --osl 6 --random-seed 9 "
                     "--tokenizer " RINGPERF_TOKENIZER_QWEN3 " %s",
             extra);
    e2e_run_ok(&w, words);
    char path[512];
    snprintf(path, sizeof(path), "%s/profile_export.jsonl", w.dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    int64_t isl[3] = {-1, -1, -1};
    int64_t osl[3] = {-1, -1, -1};
    char line[65536];
    while (fgets(line, sizeof(line), f) != NULL) {
        json_t *root = json_loads(line, 0, NULL);
        cr_assert_not_null(root);
        int64_t turn =
            json_integer_value(json_object_get(json_object_get(root, "metadata"), "turn_index"));
        cr_assert(turn >= 0 && turn < 3);
        lengths_of(root, &isl[turn], &osl[turn]);
        json_decref(root);
    }
    fclose(f);
    cr_assert_eq(isl[0], first, "the first turn: %lld tokens", (long long)isl[0]);
    for (int t = 1; t < 3; t++) {
        cr_assert_gt(osl[t - 1], 0);
        cr_assert_eq(isl[t], isl[t - 1] + osl[t - 1] + 40,
                     "turn %d: %lld = %lld + reply %lld + its own 40", t, (long long)isl[t],
                     (long long)isl[t - 1], (long long)osl[t - 1]);
    }
    e2e_finish(&w);
}

Test(sessions_e2e, input_tokens_of_a_turn_count_the_replies_before_it, .timeout = 120)
{
    check_turn_tokens("", 40);
}

Test(sessions_e2e, a_user_context_opens_each_conversation, .timeout = 120)
{
    check_turn_tokens("--user-context-prompt-length 30 --num-dataset-entries 2", 70);
}

Test(sessions_e2e, trace_sessions_start_on_schedule_and_keep_their_delays, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_write(&w, "trace.jsonl",
              "{\"session_id\": \"a\", \"timestamp\": 0, \"input_length\": 30, \"hash_ids\": [1], "
              "\"output_length\": 4}\n"
              "{\"session_id\": \"b\", \"timestamp\": 50, \"input_length\": 30, \"hash_ids\": [2], "
              "\"output_length\": 4}\n"
              "{\"session_id\": \"a\", \"delay\": 30, \"input_length\": 60, \"hash_ids\": [1, 3], "
              "\"output_length\": 4}\n");
    char words[512];
    snprintf(words, sizeof(words),
             PROFILE "--endpoint-type chat --streaming --isl-block-size 30 --input-file "
                     "%s/trace.jsonl",
             w.dir);
    e2e_run_ok(&w, words);
    struct records *rs = calloc(1, sizeof(*rs));
    read_records(&w, rs);
    cr_assert_eq(rs->count, 3, "every record of the trace once");
    assert_turns_in_order(rs, 30 * 1000 * 1000, false);
    /* The sessions start 50 ms apart on the trace's clock: their due times say
     * so exactly, whenever they actually left. */
    char path[512];
    snprintf(path, sizeof(path), "%s/profile_export.jsonl", w.dir);
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f);
    int64_t due_a = 0;
    int64_t due_b = 0;
    char line[65536];
    while (fgets(line, sizeof(line), f) != NULL) {
        json_t *root = json_loads(line, 0, NULL);
        json_t *meta = json_object_get(root, "metadata");
        const char *conv = json_string_value(json_object_get(meta, "conversation_id"));
        int64_t due = json_integer_value(json_object_get(meta, "request_scheduled_ns"));
        if (json_integer_value(json_object_get(meta, "turn_index")) == 0) {
            *(strcmp(conv, "a") == 0 ? &due_a : &due_b) = due;
        }
        json_decref(root);
    }
    fclose(f);
    int64_t apart = due_b - due_a;
    cr_assert(apart > 49 * 1000 * 1000 && apart < 51 * 1000 * 1000,
              "session b was due %lld ns after a", (long long)apart);
    free(rs);
    e2e_finish(&w);
}

Test(sessions_e2e, every_turn_of_a_conversation_carries_its_own_images, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    e2e_run_ok(&w, PROFILE "--endpoint-type chat --streaming --concurrency 2 --request-count 6 "
                           "--conversation-num 2 --conversation-turn-mean 3 --image-width-mean 16 "
                           "--image-height-mean 16 --random-seed 4");
    struct records *rs = calloc(1, sizeof(*rs));
    read_records(&w, rs);
    cr_assert_eq(rs->count, 6);
    assert_turns_in_order(rs, 0, true);
    json_t *root = e2e_load_json(&w, "inputs.json");
    json_t *data = json_object_get(root, "data");
    cr_assert_eq(json_array_size(data), 2);
    const char *first_url = NULL;
    for (size_t t = 0; t < 3; t++) {
        json_t *payload = json_array_get(json_object_get(json_array_get(data, 0), "payloads"), t);
        /* The turn's own message is its last: the history as sent comes before it. */
        json_t *messages = json_object_get(payload, "messages");
        cr_assert_eq(json_array_size(messages), 2 * t + 1, "turn %zu carries its history", t);
        json_t *content = json_object_get(json_array_get(messages, 2 * t), "content");
        cr_assert(json_is_array(content), "turn %zu is content parts", t);
        const char *url = json_string_value(
            json_object_get(json_object_get(json_array_get(content, 1), "image_url"), "url"));
        cr_assert(url != NULL && strncmp(url, "data:image/png;base64,", 22) == 0);
        if (t == 0) {
            first_url = url;
        } else {
            cr_assert(strcmp(url, first_url) != 0, "turn %zu has an image of its own", t);
        }
    }
    json_decref(root);
    free(rs);
    e2e_finish(&w);
}

/* near_ms reports whether a span in ns is within 1 ms of `ms`. */
static bool near_ms(int64_t span_ns, int64_t ms)
{
    return span_ns > (ms - 1) * 1000 * 1000 && span_ns < (ms + 1) * 1000 * 1000;
}

Test(sessions_e2e, replay_knobs_reshape_a_trace, .timeout = 120)
{
    struct e2e w;
    e2e_start(&w, NULL);
    /* Session b starts 2 s after a; a's second turn waits 400 ms. */
    e2e_write(&w, "trace.jsonl",
              "{\"session_id\": \"a\", \"timestamp\": 0, \"input_length\": 30, \"hash_ids\": [1], "
              "\"output_length\": 4}\n"
              "{\"session_id\": \"b\", \"timestamp\": 2000, \"input_length\": 30, \"hash_ids\": "
              "[2], \"output_length\": 4}\n"
              "{\"session_id\": \"a\", \"delay\": 400, \"input_length\": 60, \"hash_ids\": [1, 3], "
              "\"output_length\": 4}\n");
    /* The idle gap is cut to 100 ms and halved; the delay halved to 200 ms and capped at 60. */
    e2e_run_ok(&w, PROFILE "--endpoint-type chat --streaming --isl-block-size 30 --input-file "
                           "IN/trace.jsonl --max-idle-gap-cap-seconds 0.1 --replay-speedup 2 "
                           "--inter-turn-delay-cap-seconds 0.06");
    struct records *rs = calloc(1, sizeof(*rs));
    read_records(&w, rs);
    cr_assert_eq(rs->count, 3);
    const struct turn_record *a0 = NULL;
    const struct turn_record *a1 = NULL;
    const struct turn_record *b0 = NULL;
    for (size_t i = 0; i < rs->count; i++) {
        const struct turn_record *r = &rs->items[i];
        if (strcmp(r->conversation, "b") == 0) {
            b0 = r;
        } else if (r->turn == 0) {
            a0 = r;
        } else {
            a1 = r;
        }
    }
    cr_assert(a0 != NULL && a1 != NULL && b0 != NULL);
    cr_assert(near_ms(b0->scheduled_ns - a0->scheduled_ns, 50), "b due %lld ns after a",
              (long long)(b0->scheduled_ns - a0->scheduled_ns));
    cr_assert(near_ms(a1->scheduled_ns - a0->end_ns, 60), "a's turn 1 due %lld ns after turn 0",
              (long long)(a1->scheduled_ns - a0->end_ns));
    free(rs);
    e2e_finish(&w);
}

#define SPREAD_SESSIONS 6
#define SPREAD_TURNS 3

/* spread_run is what one run of check_shard_counts gives: each turn's input and output
 * tokens, by session and turn, and the summary's and its warmup's token averages. */
struct spread_run {
    int64_t isl[SPREAD_SESSIONS][SPREAD_TURNS];
    int64_t osl[SPREAD_SESSIONS][SPREAD_TURNS];
    double isl_avg;
    double osl_avg;
    double warm_isl_avg;
    double warm_count;
    int64_t warm_isl[4]; /* outputs.json's warmup entries' input tokens, in order */
};

static int compare_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a;
    int64_t y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* read_warmup_outputs reads the input tokens of outputs.json's warmup entries, sorted. */
static void read_warmup_outputs(struct e2e *w, struct spread_run *out)
{
    json_t *doc = e2e_load_json(w, "outputs.json");
    json_t *warmup = json_object_get(doc, "warmup");
    cr_assert_eq(json_array_size(warmup), 4);
    for (size_t i = 0; i < 4; i++) {
        json_t *metrics = json_object_get(json_array_get(warmup, i), "metrics");
        out->warm_isl[i] = metric(metrics, "input_sequence_length");
    }
    qsort(out->warm_isl, 4, sizeof(out->warm_isl[0]), compare_i64);
    json_decref(doc);
}

static double avg_of(json_t *doc, const char *block)
{
    return json_number_value(json_object_get(json_object_get(doc, block), "avg"));
}

/* run_spread runs six three-turn conversations, six at a time, after a warmup, on `workers`
 * shards, and reads every turn's counts. */
static void run_spread(struct e2e *w, int workers, struct spread_run *out)
{
    char words[1024];
    snprintf(words, sizeof(words),
             PROFILE "--endpoint-type chat --streaming --concurrency %d --conversation-num %d "
                     "--conversation-turn-mean %d --isl 40 --osl 6 --random-seed 9 "
                     "--warmup-request-count 4 --export-outputs-json --workers-max %d "
                     "--tokenizer " RINGPERF_TOKENIZER_QWEN3,
             SPREAD_SESSIONS, SPREAD_SESSIONS, SPREAD_TURNS, workers);
    e2e_run_ok(w, words);
    memset(out, 0xff, sizeof(*out));
    struct records *rs = calloc(1, sizeof(*rs));
    cr_assert_not_null(rs);
    read_records(w, rs);
    cr_assert_eq(rs->count, SPREAD_SESSIONS * SPREAD_TURNS);
    for (size_t i = 0; i < rs->count; i++) {
        const struct turn_record *r = &rs->items[i];
        cr_assert(r->session >= 0 && r->session < SPREAD_SESSIONS && r->turn >= 0 &&
                  r->turn < SPREAD_TURNS);
        out->isl[r->session][r->turn] = r->isl;
        out->osl[r->session][r->turn] = r->osl;
    }
    free(rs);
    json_t *doc = e2e_load_json(w, "profile_export_aiperf.json");
    out->isl_avg = avg_of(doc, "input_sequence_length");
    out->osl_avg = avg_of(doc, "output_sequence_length");
    json_t *warm = json_object_get(doc, "warmup_metrics");
    out->warm_isl_avg = avg_of(warm, "input_sequence_length");
    out->warm_count = avg_of(warm, "request_count");
    json_decref(doc);
    read_warmup_outputs(w, out);
}

/* Each shard keeps the history of the sessions it runs, and the warmup's records become
 * metrics on the shards too: on one shard or three, every turn's input counts its session's
 * earlier replies alike, and the records, summaries, warmup_metrics and outputs.json's warmup
 * entries match. */
Test(sessions_e2e, one_shard_or_three_count_the_same_history, .timeout = 180)
{
    struct e2e w;
    e2e_start(&w, NULL);
    struct spread_run *runs = calloc(2, sizeof(*runs));
    cr_assert_not_null(runs);
    run_spread(&w, 1, &runs[0]);
    run_spread(&w, 3, &runs[1]);
    for (int s = 0; s < SPREAD_SESSIONS; s++) {
        for (int t = 0; t < SPREAD_TURNS; t++) {
            cr_assert_eq(runs[1].isl[s][t], runs[0].isl[s][t], "session %d turn %d input", s, t);
            cr_assert_eq(runs[1].osl[s][t], runs[0].osl[s][t], "session %d turn %d output", s, t);
            if (t > 0) {
                cr_assert_eq(runs[0].isl[s][t], runs[0].isl[s][t - 1] + runs[0].osl[s][t - 1] + 40,
                             "session %d turn %d counts the reply before it", s, t);
            }
        }
    }
    cr_assert_float_eq(runs[1].isl_avg, runs[0].isl_avg, 1e-9);
    cr_assert_float_eq(runs[1].osl_avg, runs[0].osl_avg, 1e-9);
    cr_assert_float_eq(runs[0].warm_count, 4.0, 1e-9);
    cr_assert_float_eq(runs[1].warm_count, 4.0, 1e-9);
    cr_assert_float_eq(runs[1].warm_isl_avg, runs[0].warm_isl_avg, 1e-9);
    for (int i = 0; i < 4; i++) {
        cr_assert_gt(runs[0].warm_isl[i], 0);
        cr_assert_eq(runs[1].warm_isl[i], runs[0].warm_isl[i], "warmup entry %d of outputs.json",
                     i);
    }
    free(runs);
    e2e_finish(&w);
}
