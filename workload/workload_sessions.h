/*
 * workload_sessions.h - the multi-turn conversations of a run:
 * their turns, the engine_sessions callbacks that send them, the input-token
 * count of each turn including the live history, and inputs.json.
 *
 * Session k of the run plays conversation k mod conversation_count, so a run
 * longer than the dataset reuses its conversations as AIPerf does; turn t of
 * session k has request ordinal (k / C) * T + first[k mod C] + t, where T is
 * the turns of all C conversations, which keeps ordinals dense and unique
 * whichever process runs the session.
 */
#ifndef RINGPERF_WORKLOAD_SESSIONS_H
#define RINGPERF_WORKLOAD_SESSIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "workload/workload_media.h"
#include "payload/payload.h"
#include "engine/engine.h"

/* WORKLOAD_SESSION_TURNS_MAX bounds the turns of one conversation. */
#define WORKLOAD_SESSION_TURNS_MAX 10000

/* workload_turn is one turn of a conversation. */
struct workload_turn {
    /* The body sent verbatim (raw_payload, inputs_json: the history is already
     * in it), borrowed; or NULL: the body is built when the turn is due from
     * `prompt` and the conversation so far. */
    const char *body;
    size_t body_len;
    char *prompt;        /* the user's text (owned), when body is NULL */
    const char *model;   /* borrowed */
    uint64_t max_tokens; /* 0 = leave it out */
    int64_t delay_ns;    /* think time before this turn (turns after the first) */
    /* Input tokens of this turn without the replies: a verbatim body's, or the
     * system prompt and the user turns up to this one. -1 = not counted. */
    int64_t static_tokens;
    /* The user turn's images and audio (owned; sent with it, and with it in
     * the history of the turns after it). */
    struct workload_media_set media;
};

/* workload_conversation is a run of consecutive turns. */
struct workload_conversation {
    size_t first_turn;
    uint32_t turn_count;
    const char *session_id; /* borrowed, or NULL: "session_<index>" */
    /* A user message that opens the conversation, before its first turn
     * (--user-context-prompt-length): owned, or NULL. */
    char *context;
};

/* workload_session_table is one shard's open sessions: open addressing on the session
 * number + 1 (0 = empty), `cap` slots, a power of two. */
struct workload_session_table {
    struct workload_session_tokens *open;
    size_t cap;
};

/* workload_sessions owns a run's conversations. Zero-initialise, set `base` (every
 * payload field except model, prompt, max_tokens and history), add turns,
 * then seal. */
struct workload_sessions {
    struct payload_spec base;
    struct workload_turn *turns;
    size_t turn_count;
    size_t turn_cap;
    struct workload_conversation *convs;
    size_t conv_count;
    size_t conv_cap;
    uint64_t *first_offset;        /* ordinal of each conversation's first turn within a cycle */
    uint64_t cycle_turns;          /* turns of all the conversations */
    struct engine_sessions engine; /* valid after workload_sessions_seal */
    uint64_t cache_bust_nonce;     /* --cache-bust: the run's (workload__cache_bust_key) */
    /* The output tokens of the replies so far of each open session, one table per shard
     * (workload_sessions_shards), as a session keeps to the shard that started it. */
    struct workload_session_table *tables;
    uint32_t table_count;
    uint32_t concurrency; /* workload_sessions_seal's: sizes the tables */
    /* The bodies the first play of each conversation sent (session k < conv_count plays
     * conversation k), per turn, with the replies it got in their history: what inputs.json
     * holds after the run. Owned; NULL where none was kept. Each slot is written once, by the
     * shard that built the turn, and read after the run's threads are joined. */
    char **sent;
    bool keep_sent; /* workload_sessions_keep_sent: the profiling phase keeps them */
};

/* workload_sessions_add appends a turn: to a new conversation when
 * `new_conversation` (or when there is none yet), else to the last one.
 * Takes ownership of turn->prompt and turn->media (also on failure). Returns 0, -EINVAL
 * (a conversation would exceed WORKLOAD_SESSION_TURNS_MAX) or -ENOMEM. */
int workload_sessions_add(struct workload_sessions *s, bool new_conversation,
                          struct workload_turn *turn, const char *session_id);

/* workload_sessions_set_context gives the last conversation its opening user
 * message; takes ownership of context (also on failure). Returns 0, or
 * -EINVAL when there is no conversation yet. */
int workload_sessions_set_context(struct workload_sessions *s, char *context);

/* workload_sessions_seal prepares s->engine for a run of up to `concurrency`
 * sessions at once (sizes the token bookkeeping). Returns 0, -EINVAL (no
 * conversations) or -ENOMEM. */
int workload_sessions_seal(struct workload_sessions *s, uint32_t concurrency);

/* workload_sessions_shards makes room for the history of runs of up to `shard_count` shards
 * (one table each, the ones made before kept), before a run starts. Returns 0 or -ENOMEM. */
int workload_sessions_shards(struct workload_sessions *s, uint32_t shard_count);

/* workload_sessions_forget empties every shard's table: a phase starts with no open
 * sessions (a warmup stopped mid-conversation leaves some, whose replies would otherwise
 * count in the history of the profiling phase's sessions of the same numbers). Call while no
 * engine runs. */
void workload_sessions_forget(struct workload_sessions *s);

/* workload_sessions_keep_sent makes the turns built from now on keep their bodies for
 * inputs.json (the profiling phase's; a warmup's are not the run's), or stops that. Call
 * while no engine runs. */
void workload_sessions_keep_sent(struct workload_sessions *s, bool keep);

/* workload_sessions_input_tokens returns the input tokens of a session's record:
 * its turn's static tokens plus the output tokens of the replies before it
 * (live history), and remembers this record's output_tokens (< 0: none) for
 * the session's next turn. Records of one session must come in turn order,
 * as the engine delivers them. The history is kept per shard (rec->shard_id's
 * table): shards may call this at once, each for its own records (a record of
 * a shard past workload_sessions_shards gets its static tokens alone).
 * Returns -1 when the turn was not counted. */
int64_t workload_sessions_input_tokens(struct workload_sessions *s, const struct record *rec,
                                       int64_t output_tokens);

/* workload_sessions_conversation returns the conversation session k plays. */
const struct workload_conversation *
workload_sessions_conversation(const struct workload_sessions *s, uint64_t session);

/* workload_sessions_conversation_name returns the dataset's name for the
 * conversation session k plays (a view into s), or, when it has none,
 * "session_<index>" written into scratch (cap bytes, NUL-terminated); its
 * length is *out_len. It suits export_run.conversation_name. */
const char *workload_sessions_conversation_name(const struct workload_sessions *s, uint64_t session,
                                                char *scratch, size_t cap, size_t *out_len);

/* workload_sessions_write_inputs writes the inputs.json file `path`: per conversation its
 * session id and its turns' bodies as sent: the first play's, with the replies it got in
 * their history (so that replaying the file sends the same requests); a turn not sent yet as
 * the dataset holds it, without the replies. Returns 0 or -EIO. */
int workload_sessions_write_inputs(const struct workload_sessions *s, const char *path);

/* workload_sessions_free releases what s owns; safe on a zeroed struct. */
void workload_sessions_free(struct workload_sessions *s);

#endif
