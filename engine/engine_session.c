/*
 * engine_session.c - multi-turn sessions: one connection runs a session's
 * turns in order, keeps the replies for the next turn's history, and waits out
 * the think time between turns without holding a request slot.
 *
 * A session stays on the connection (and so the shard) that started it, so
 * its records reach the coordinator in turn order and its turns reuse one
 * kept-alive socket, as AIPerf's sticky sessions do.
 */
#include "engine/engine_conn.h"
#include "engine/engine_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A session's kept replies stop growing here; later replies are cut short. */
#define SESSION_REPLY_BYTES_MAX ((size_t)64 << 20)

static void release_body(struct engine__session *s)
{
    if (s->body.owned) {
        free((void *)s->body.body);
    }
    s->body = (struct engine_turn_body){0};
}

/* append_reply keeps the text of the turn that just ended (empty unless it
 * succeeded) for the history of the turns after it. */
static void append_reply(struct engine__session *s, const struct record *rec)
{
    size_t len = rec->outcome == RECORD_SUCCESS ? rec->text_len : 0;
    if (s->reply_len + len > SESSION_REPLY_BYTES_MAX) {
        len = SESSION_REPLY_BYTES_MAX - s->reply_len;
    }
    if (s->reply_len + len > s->reply_text_cap) {
        size_t cap = s->reply_text_cap > 0 ? s->reply_text_cap : 4096;
        while (cap < s->reply_len + len) {
            cap *= 2;
        }
        char *grown = realloc(s->reply_text, cap);
        if (grown == NULL) {
            len = 0; /* out of memory: the history carries an empty reply */
        } else {
            s->reply_text = grown;
            s->reply_text_cap = cap;
        }
    }
    if (len > 0) {
        memcpy(s->reply_text + s->reply_len, rec->text, len);
    }
    /* Offsets, not pointers: reply_text may move when it grows. */
    s->replies[s->turn] = (struct engine_turn_reply){.text = NULL, .len = len};
    s->reply_len += len;
}

/* build_body asks the caller for the body of the session's current turn; on
 * failure the body stays empty and the message waits in s->error. */
static void build_body(const struct engine_sessions *sessions, struct engine__session *s)
{
    const char *base = s->reply_text;
    for (uint32_t k = 0; k < s->turn && sessions->keep_replies; k++) {
        s->replies[k].text = base;
        base += s->replies[k].len;
    }
    s->error[0] = '\0';
    if (sessions->turn_body(sessions->ctx, s->session, s->turn,
                            sessions->keep_replies ? s->replies : NULL, &s->body, s->error,
                            sizeof(s->error)) != 0) {
        release_body(s);
        if (s->error[0] == '\0') {
            snprintf(s->error, sizeof(s->error), "cannot build turn %u of session %llu", s->turn,
                     (unsigned long long)s->session);
        }
    }
}

/* start_turn sends the session's current turn, due at due_ns. */
static void start_turn(struct engine__shard *shard, struct engine__conn *c, int64_t due_ns)
{
    struct engine__session *s = &c->session;
    build_body(shard->config->sessions, s);
    struct engine_work work = {.ordinal = s->first_ordinal + s->turn, .due_ns = due_ns};
    struct record *rec = shard->free_records[--shard->free_record_count];
    engine__start_request(shard, c, engine_now_ns(), &work, rec);
}

/* user_due returns when a user-centric connection's next turn is due: one gap
 * after its previous one, or now when the reply came later than that (the
 * user's baseline then restarts from now). A user's first turn is staggered
 * across the gap so that the run starts in steady state. */
static int64_t user_due(const struct engine__shard *shard, const struct engine__conn *c)
{
    const struct engine_config *config = shard->config;
    int64_t gap = config->sessions->user_gap_ns;
    if (c->session.last_due_ns == 0) {
        uint64_t user = (uint64_t)c->id * shard->shard_count + shard->id;
        double users = config->concurrency;
        if (config->user_total > 0) {
            /* One of several processes: stagger by the user's index in the run. */
            user = config->user_offset + config->user_stride * user;
            users = (double)config->user_total;
        }
        return shard->start_ns + (int64_t)((double)gap * (double)user / users);
    }
    int64_t due = c->session.last_due_ns + gap;
    int64_t now = engine_now_ns();
    return due > now ? due : now;
}

/* end_session frees the connection for another session, or with `retire`
 * (the run's duration is over) leaves it unused: nothing may start any more,
 * and handing it more work would only churn. */
static void end_session(struct engine__shard *shard, struct engine__conn *c, bool retire)
{
    struct engine__session *s = &c->session;
    release_body(s);
    if (s->thinking) {
        s->thinking = false;
        shard->thinking_count--;
    }
    s->active = false;
    if (shard->config->conn_reuse == ENGINE_REUSE_STICKY && c->fd >= 0) {
        /* A connection serves one conversation, however it ended. */
        engine__close_socket(shard, c);
    }
    if (!retire) {
        shard->idle_conns[shard->idle_count++] = c->id;
    }
}

/* think sets the connection waiting for its session's next turn. */
static void think(struct engine__shard *shard, struct engine__conn *c, int64_t due_ns)
{
    struct engine__session *s = &c->session;
    if (due_ns >= shard->end_ns) {
        end_session(shard, c, true); /* the run's duration ends first: the turn never starts */
        return;
    }
    s->thinking = true;
    s->next_due_ns = due_ns;
    shard->thinking_count++;
    if (due_ns < shard->next_think_ns) {
        shard->next_think_ns = due_ns;
    }
}

int engine__session_init(struct engine__conn *c, const struct engine_config *config)
{
    if (config->sessions == NULL) {
        return 0;
    }
    c->session.reply_cap = 16;
    c->session.replies = calloc(c->session.reply_cap, sizeof(*c->session.replies));
    return c->session.replies != NULL ? 0 : -1;
}

void engine__session_destroy(struct engine__conn *c)
{
    release_body(&c->session);
    free(c->session.replies);
    free(c->session.reply_text);
    c->session.replies = NULL;
    c->session.reply_text = NULL;
}

void engine__session_begin(struct engine__shard *shard, struct engine__conn *c,
                           const struct engine_work *work)
{
    const struct engine_sessions *sessions = shard->config->sessions;
    struct engine__session *s = &c->session;
    s->active = true;
    s->thinking = false;
    s->session = work->ordinal;
    s->first_ordinal = sessions->first_ordinal(sessions->ctx, s->session);
    s->turn_count = sessions->turn_count(sessions->ctx, s->session);
    s->turn = 0;
    s->reply_len = 0;
    size_t id_len = record_correlation_id(shard->config->request_id_nonce, s->session,
                                          s->correlation_id, sizeof(s->correlation_id));
    c->headers[ENGINE__HEADER_CORRELATION_ID].value_len = id_len;
    c->headers[ENGINE__HEADER_SESSION_AFFINITY].value_len = id_len;
    if (s->turn_count == 0) {
        s->turn_count = 1;
    }
    if (sessions->keep_replies && s->turn_count > s->reply_cap) {
        struct engine_turn_reply *grown = realloc(s->replies, s->turn_count * sizeof(*grown));
        if (grown == NULL) {
            s->turn_count = s->reply_cap; /* out of memory: a shorter session */
        } else {
            s->replies = grown;
            s->reply_cap = s->turn_count;
        }
    }
    if (sessions->user_gap_ns > 0) {
        think(shard, c, user_due(shard, c));
        return;
    }
    start_turn(shard, c, work->due_ns);
}

bool engine__session_last_turn(const struct engine__shard *shard, const struct engine__conn *c)
{
    const struct engine_sessions *sessions = shard->config->sessions;
    const struct engine__session *s = &c->session;
    uint32_t next = s->turn + 1;
    return next >= s->turn_count ||
           (sessions->ordinal_limit != 0 && s->first_ordinal + next >= sessions->ordinal_limit);
}

void engine__session_turn_ended(struct engine__shard *shard, struct engine__conn *c,
                                const struct record *rec)
{
    const struct engine_sessions *sessions = shard->config->sessions;
    struct engine__session *s = &c->session;
    if (!s->active) {
        shard->idle_conns[shard->idle_count++] = c->id;
        return;
    }
    release_body(s);
    if (sessions->keep_replies) {
        append_reply(s, rec);
    }
    s->last_due_ns = rec->scheduled_ns;
    bool more = !engine__session_last_turn(shard, c);
    s->turn++;
    bool stopping = atomic_load_explicit(&shard->cancel, memory_order_acquire) ||
                    atomic_load_explicit(&shard->draining, memory_order_acquire);
    if (stopping || !more) {
        end_session(shard, c, false);
        return;
    }
    /* The think time counts from when the response ended (its arrival time),
     * not from when this shard got round to it: on a busy machine the two
     * differ, and the next turn's schedule should not drift with the load. */
    int64_t ended = rec->end_ns > 0 ? rec->end_ns : engine_now_ns();
    int64_t due = sessions->user_gap_ns > 0
                      ? user_due(shard, c)
                      : ended + sessions->think_ns(sessions->ctx, s->session, s->turn);
    think(shard, c, due);
}

/* may_start reports whether the shard can start one more request now. */
static bool may_start(const struct engine__shard *shard, int64_t now)
{
    return shard->free_record_count > 0 && engine__prefill_room(shard, now);
}

void engine__sessions_resume(struct engine__shard *shard)
{
    if (shard->thinking_count == 0) {
        return;
    }
    bool stopping = atomic_load_explicit(&shard->cancel, memory_order_acquire) ||
                    atomic_load_explicit(&shard->draining, memory_order_acquire);
    int64_t now = engine_now_ns();
    if (!stopping && now < shard->end_ns && shard->next_think_ns > now + ENGINE__SPIN_NS) {
        return;
    }
    int64_t next = INT64_MAX;
    bool blocked = false;
    for (uint32_t i = 0; i < shard->conn_count && shard->thinking_count > 0; i++) {
        struct engine__conn *c = &shard->conns[i];
        struct engine__session *s = &c->session;
        if (!s->thinking) {
            continue;
        }
        if (stopping || now >= shard->end_ns || s->next_due_ns >= shard->end_ns) {
            end_session(shard, c, !stopping);
            continue;
        }
        /* Not due yet while this turn's submissions wait: the loop submits them first
         * (take_due_work in engine_conn.c says why) and comes back without sleeping. */
        if (s->next_due_ns > now + ENGINE__SPIN_NS ||
            (s->next_due_ns > now && engine__submissions_waiting(shard))) {
            next = s->next_due_ns < next ? s->next_due_ns : next;
            continue;
        }
        if (!may_start(shard, now)) {
            /* Due but blocked: a completion frees what it waits for, and the
             * loop is woken by that completion, so do not spin on it. */
            next = s->next_due_ns < next ? s->next_due_ns : next;
            blocked = true;
            continue;
        }
        int64_t spin_from = engine_now_ns();
        int64_t spun = spin_from;
        while (spun < s->next_due_ns) {
            spun = engine_now_ns(); /* the last few microseconds, as open-loop sends do */
        }
        shard->spin_ns += spun - spin_from;
        s->thinking = false;
        shard->thinking_count--;
        start_turn(shard, c, s->next_due_ns);
        now = engine_now_ns();
    }
    shard->next_think_ns = next;
    shard->think_blocked = blocked;
    engine__record_wait(shard, &shard->record_waiting_turn,
                        blocked && shard->free_record_count == 0);
}
