/*
 * sessions.c - a run's multi-turn conversations and the engine callbacks that
 * play them (see workload_sessions.h).
 */
#include "workload/workload_sessions.h"
#include "workload/workload_internal.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* workload_session_tokens is one open session's reply tokens so far. */
struct workload_session_tokens {
    uint64_t key; /* session + 1; 0 = empty slot */
    int64_t tokens;
};

static bool grow(void **items, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap) {
        return true;
    }
    size_t next = *cap > 0 ? *cap * 2 : 64;
    while (next < need) {
        next *= 2;
    }
    void *grown = realloc(*items, next * size);
    if (grown == NULL) {
        return false;
    }
    *items = grown;
    *cap = next;
    return true;
}

/* drop_turn frees what a turn that was not added owns. */
static void drop_turn(struct workload_turn *turn)
{
    free(turn->prompt);
    workload_media_set_free(&turn->media);
}

int workload_sessions_add(struct workload_sessions *s, bool new_conversation,
                          struct workload_turn *turn, const char *session_id)
{
    bool fresh = new_conversation || s->conv_count == 0;
    if (!grow((void **)&s->turns, &s->turn_cap, s->turn_count + 1, sizeof(*s->turns)) ||
        (fresh && !grow((void **)&s->convs, &s->conv_cap, s->conv_count + 1, sizeof(*s->convs)))) {
        drop_turn(turn);
        return -ENOMEM;
    }
    if (fresh) {
        s->convs[s->conv_count++] = (struct workload_conversation){
            .first_turn = s->turn_count, .turn_count = 0, .session_id = session_id};
    }
    struct workload_conversation *conv = &s->convs[s->conv_count - 1];
    if (conv->turn_count >= WORKLOAD_SESSION_TURNS_MAX) {
        drop_turn(turn);
        return -EINVAL;
    }
    s->turns[s->turn_count] = *turn;
    /* The view points into the set: point it at the copy kept here. */
    workload_media_set_view(&s->turns[s->turn_count].media);
    s->turn_count++;
    conv->turn_count++;
    return 0;
}

int workload_sessions_set_context(struct workload_sessions *s, char *context)
{
    if (s->conv_count == 0) {
        free(context);
        return -EINVAL;
    }
    free(s->convs[s->conv_count - 1].context);
    s->convs[s->conv_count - 1].context = context;
    return 0;
}

const struct workload_conversation *
workload_sessions_conversation(const struct workload_sessions *s, uint64_t session)
{
    return &s->convs[session % s->conv_count];
}

const char *workload_sessions_conversation_name(const struct workload_sessions *s, uint64_t session,
                                                char *scratch, size_t cap, size_t *out_len)
{
    const struct workload_conversation *conv = workload_sessions_conversation(s, session);
    if (conv->session_id != NULL) {
        *out_len = strlen(conv->session_id);
        return conv->session_id;
    }
    int n = snprintf(scratch, cap, "session_%zu", (size_t)(conv - s->convs));
    *out_len = n < 0 ? 0 : ((size_t)n < cap ? (size_t)n : cap - 1);
    return scratch;
}

static const struct workload_turn *turn_of(const struct workload_sessions *s, uint64_t session,
                                           uint32_t turn)
{
    return &s->turns[workload_sessions_conversation(s, session)->first_turn + turn];
}

static uint32_t turn_count(void *ctx, uint64_t session)
{
    return workload_sessions_conversation(ctx, session)->turn_count;
}

static uint64_t first_ordinal(void *ctx, uint64_t session)
{
    const struct workload_sessions *s = ctx;
    return session / s->conv_count * s->cycle_turns + s->first_offset[session % s->conv_count];
}

static int64_t think_ns(void *ctx, uint64_t session, uint32_t turn)
{
    return turn_of(ctx, session, turn)->delay_ns;
}

/* build writes the body of turn `turn` of a conversation with the given
 * history (history_count messages; NULL for none). */
static char *build(const struct workload_sessions *s, const struct workload_turn *t,
                   const struct payload_message *history, size_t history_count, uint64_t session,
                   uint32_t turn, char *err, size_t errcap)
{
    struct payload_spec spec = s->base;
    spec.cache_bust_key = workload__cache_bust_key(s->cache_bust_nonce, session);
    bool first_turn_target = spec.cache_bust == PAYLOAD_CACHE_BUST_FIRST_TURN_PREFIX ||
                             spec.cache_bust == PAYLOAD_CACHE_BUST_FIRST_TURN_SUFFIX;
    if (first_turn_target && turn > 0) {
        spec.cache_bust = PAYLOAD_CACHE_BUST_NONE; /* its history carries the first turn's */
    }
    spec.model = t->model;
    spec.prompt = t->prompt;
    spec.max_tokens = t->max_tokens;
    spec.media = t->media.view;
    spec.history = history;
    spec.history_count = history_count;
    return payload_build(&spec, err, errcap);
}

/* keep_sent keeps a copy of the body the first play of a conversation sends for inputs.json.
 * Only session k < conv_count plays conversation k first, and one shard builds each of its
 * turns once, so each slot has one writer. Out of memory, the slot stays empty and inputs.json
 * falls back to the dataset's turn. */
static void keep_sent(const struct workload_sessions *s, uint64_t session, uint32_t turn,
                      const char *body)
{
    if (!s->keep_sent || s->sent == NULL || session >= s->conv_count) {
        return;
    }
    size_t slot = s->convs[session].first_turn + turn;
    if (s->sent[slot] == NULL) {
        s->sent[slot] = strdup(body);
    }
}

/* turn_body runs on shard threads: it reads only what seal left behind (and writes its own
 * slot of sent). */
static int turn_body(void *ctx, uint64_t session, uint32_t turn,
                     const struct engine_turn_reply *replies, struct engine_turn_body *out,
                     char *err, size_t errcap)
{
    const struct workload_sessions *s = ctx;
    const struct workload_turn *t = turn_of(s, session, turn);
    if (t->body != NULL) {
        *out = (struct engine_turn_body){.body = t->body, .len = t->body_len, .owned = false};
        return 0;
    }
    /* The deltas_without_responses context: the conversation's opening
     * context, then every earlier user turn, each followed by the reply it
     * actually got. */
    const char *context = workload_sessions_conversation(s, session)->context;
    size_t count = (size_t)turn * 2 + (context != NULL);
    struct payload_message *history = count > 0 ? calloc(count, sizeof(*history)) : NULL;
    if (count > 0 && history == NULL) {
        snprintf(err, errcap, "out of memory for the history of turn %u", turn);
        return -1;
    }
    struct payload_message *at = history;
    if (context != NULL) {
        *at++ = (struct payload_message){.role = "user", .text = context, .len = strlen(context)};
    }
    const struct workload_turn *first = turn_of(s, session, 0);
    /* The first turn went out with its cache-bust marker: so it reads in the
     * history, or the server would not find it cached. */
    char *first_sent = NULL;
    if (turn > 0 && (s->base.cache_bust == PAYLOAD_CACHE_BUST_FIRST_TURN_PREFIX ||
                     s->base.cache_bust == PAYLOAD_CACHE_BUST_FIRST_TURN_SUFFIX)) {
        first_sent = payload_cache_bust_text(s->base.cache_bust,
                                             workload__cache_bust_key(s->cache_bust_nonce, session),
                                             first->prompt);
        if (first_sent == NULL) {
            free(history);
            snprintf(err, errcap, "out of memory for the history of turn %u", turn);
            return -1;
        }
    }
    for (uint32_t k = 0; k < turn; k++) {
        const char *text = k == 0 && first_sent != NULL ? first_sent : first[k].prompt;
        *at++ = (struct payload_message){
            .role = "user", .text = text, .len = strlen(text), .media = &first[k].media.view};
        *at++ = (struct payload_message){
            .role = "assistant", .text = replies[k].text, .len = replies[k].len};
    }
    char *body = build(s, t, history, count, session, turn, err, errcap);
    free(history);
    free(first_sent);
    if (body == NULL) {
        return -1;
    }
    keep_sent(s, session, turn, body);
    *out = (struct engine_turn_body){.body = body, .len = strlen(body), .owned = true};
    return 0;
}

int workload_sessions_seal(struct workload_sessions *s, uint32_t concurrency)
{
    if (s->conv_count == 0) {
        return -EINVAL;
    }
    s->first_offset = calloc(s->conv_count, sizeof(*s->first_offset));
    s->concurrency = concurrency;
    s->sent = calloc(s->turn_count, sizeof(*s->sent));
    if (s->first_offset == NULL || s->sent == NULL || workload_sessions_shards(s, 1) != 0) {
        return -ENOMEM;
    }
    bool live = false;
    for (size_t i = 0; i < s->conv_count; i++) {
        s->first_offset[i] = s->cycle_turns;
        s->cycle_turns += s->convs[i].turn_count;
    }
    for (size_t i = 0; i < s->turn_count; i++) {
        live |= s->turns[i].body == NULL;
    }
    s->engine = (struct engine_sessions){
        .turn_count = turn_count,
        .first_ordinal = first_ordinal,
        .think_ns = think_ns,
        .turn_body = turn_body,
        .ctx = s,
        .keep_replies = live,
    };
    return 0;
}

int workload_sessions_shards(struct workload_sessions *s, uint32_t shard_count)
{
    if (shard_count <= s->table_count) {
        return 0;
    }
    /* Open sessions: at most one per connection of a shard (the engine gives each shard its
     * share of the connections, and a session keeps to its shard), plus those a stop or the
     * request limit left unfinished; a table stays at most a quarter full. */
    size_t cap = 64;
    while (cap < ((size_t)s->concurrency / shard_count + 1) * 8) {
        cap *= 2;
    }
    struct workload_session_table *tables = calloc(shard_count, sizeof(*tables));
    if (tables == NULL) {
        return -ENOMEM;
    }
    for (uint32_t i = 0; i < shard_count; i++) {
        /* The tables made before keep their sessions (a warmup's, unfinished). */
        tables[i] = i < s->table_count
                        ? s->tables[i]
                        : (struct workload_session_table){
                              .open = calloc(cap, sizeof(*tables[i].open)), .cap = cap};
        if (tables[i].open == NULL) {
            for (uint32_t j = s->table_count; j < i; j++) {
                free(tables[j].open);
            }
            free(tables);
            return -ENOMEM;
        }
    }
    free(s->tables);
    s->tables = tables;
    s->table_count = shard_count;
    return 0;
}

void workload_sessions_forget(struct workload_sessions *s)
{
    for (uint32_t i = 0; i < s->table_count; i++) {
        memset(s->tables[i].open, 0, s->tables[i].cap * sizeof(*s->tables[i].open));
    }
}

static size_t slot_home(const struct workload_session_table *t, uint64_t key)
{
    return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> 20) & (t->cap - 1);
}

/* slot_find returns key's slot, or the empty slot where it would go, or t->cap when the
 * table is full and key is not in it. */
static size_t slot_find(const struct workload_session_table *t, uint64_t key)
{
    size_t i = slot_home(t, key);
    for (size_t probes = 0; t->open[i].key != 0 && t->open[i].key != key; probes++) {
        if (probes == t->cap) {
            return t->cap; /* full, and not there */
        }
        i = (i + 1) & (t->cap - 1);
    }
    return i;
}

/* slot_remove empties slot i and shifts back the entries that probed past
 * it, so lookups never need tombstones. In a full table (no empty slot ends the run of
 * entries) it looks at every other slot once. */
static void slot_remove(struct workload_session_table *t, size_t i)
{
    size_t mask = t->cap - 1;
    size_t j = i;
    for (size_t step = 1; step < t->cap; step++) {
        j = (j + 1) & mask;
        if (t->open[j].key == 0) {
            break;
        }
        size_t home = slot_home(t, t->open[j].key);
        /* The entry at j may move to i unless its home lies in (i, j]. */
        bool stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (!stays) {
            t->open[i] = t->open[j];
            i = j;
        }
    }
    t->open[i].key = 0;
}

int64_t workload_sessions_input_tokens(struct workload_sessions *s, const struct record *rec,
                                       int64_t output_tokens)
{
    const struct workload_turn *t = turn_of(s, rec->session, rec->turn);
    if (t->body != NULL || !s->engine.keep_replies || rec->shard_id >= s->table_count) {
        return t->static_tokens;
    }
    /* The table of the shard that ran the session: only that shard's thread (or, without
     * shards of metrics, the coordinator) touches it. */
    struct workload_session_table *table = &s->tables[rec->shard_id];
    uint64_t key = rec->session + 1;
    size_t i = slot_find(table, key);
    if (i == table->cap) {
        /* The table is sized never to fill; were it to, this session's history goes
         * uncounted rather than the search never ending. */
        return t->static_tokens;
    }
    int64_t replies = table->open[i].key == key ? table->open[i].tokens : 0;
    bool last = rec->turn + 1 >= workload_sessions_conversation(s, rec->session)->turn_count;
    if (last) {
        if (table->open[i].key == key) {
            slot_remove(table, i);
        }
    } else {
        if (table->open[i].key != key) {
            table->open[i] = (struct workload_session_tokens){.key = key, .tokens = 0};
        }
        table->open[i].tokens += output_tokens > 0 ? output_tokens : 0;
    }
    return t->static_tokens < 0 ? -1 : t->static_tokens + replies;
}

void workload_sessions_keep_sent(struct workload_sessions *s, bool keep)
{
    s->keep_sent = keep;
}

static void write_string(FILE *f, const char *text)
{
    json_t *str = json_string(text);
    if (str == NULL || json_dumpf(str, f, JSON_ENCODE_ANY) != 0) {
        fputs("\"\"", f);
    }
    json_decref(str);
}

static int write_turn(FILE *f, const struct workload_sessions *s,
                      const struct workload_conversation *conv, const struct workload_turn *t,
                      uint32_t turn)
{
    if (t->body != NULL) {
        return fwrite(t->body, 1, t->body_len, f) == t->body_len ? 0 : -EIO;
    }
    const char *sent = s->sent != NULL ? s->sent[t - s->turns] : NULL;
    if (sent != NULL) {
        fputs(sent, f);
        return 0;
    }
    char err[256];
    struct payload_message context = {
        .role = "user", .text = conv->context, .len = conv->context ? strlen(conv->context) : 0};
    char *body = build(s, t, conv->context != NULL ? &context : NULL, conv->context != NULL,
                       (uint64_t)(conv - s->convs), turn, err, sizeof(err));
    if (body == NULL) {
        return -EIO;
    }
    fputs(body, f);
    free(body);
    return 0;
}

int workload_sessions_write_inputs(const struct workload_sessions *s, const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        return -errno;
    }
    int ret = 0;
    fputs("{\n  \"data\": [", f);
    for (size_t c = 0; ret == 0 && c < s->conv_count; c++) {
        const struct workload_conversation *conv = &s->convs[c];
        fputs(c > 0 ? ",\n    {\n      \"session_id\": " : "\n    {\n      \"session_id\": ", f);
        char fallback[32];
        snprintf(fallback, sizeof(fallback), "session_%zu", c);
        write_string(f, conv->session_id != NULL ? conv->session_id : fallback);
        fputs(",\n      \"payloads\": [", f);
        for (uint32_t t = 0; ret == 0 && t < conv->turn_count; t++) {
            fputs(t > 0 ? ",\n        " : "\n        ", f);
            ret = write_turn(f, s, conv, &s->turns[conv->first_turn + t], (uint32_t)t);
        }
        fputs("\n      ]\n    }", f);
    }
    fputs("\n  ]\n}\n", f);
    int closed = workload__close_written(f);
    return ret != 0 ? ret : closed;
}

void workload_sessions_free(struct workload_sessions *s)
{
    for (size_t i = 0; i < s->turn_count; i++) {
        free(s->turns[i].prompt);
        workload_media_set_free(&s->turns[i].media);
    }
    free(s->turns);
    for (size_t i = 0; i < s->conv_count; i++) {
        free(s->convs[i].context);
    }
    free(s->convs);
    free(s->first_offset);
    for (uint32_t i = 0; i < s->table_count; i++) {
        free(s->tables[i].open);
    }
    free(s->tables);
    for (size_t i = 0; s->sent != NULL && i < s->turn_count; i++) {
        free(s->sent[i]);
    }
    free(s->sent);
    *s = (struct workload_sessions){0};
}
