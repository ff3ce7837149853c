/*
 * input_conversations.c - the multi-turn conversations an input file holds:
 * multi_turn records, raw_payload directories and inputs_json sessions in
 * file order, and session replays of mooncake traces on their schedule.
 */
#include "workload/workload_media.h"
#include "workload/workload_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* workload__input_sessions reports whether the file holds multi-turn sessions: a
 * multi_turn file, or raw_payload directories and inputs_json with sessions
 * of several turns. A timestamped trace replays on its schedule instead. */
bool workload__input_sessions(const struct profile_config *cfg, const struct workload_requests *out)
{
    if (dataset_inputs_type(out->inputs) == DATASET_INPUT_MOONCAKE_TRACE) {
        /* A trace with session ids replays sessions: see add_trace_conversations. */
        for (size_t i = 0; i < dataset_inputs_count(out->inputs); i++) {
            if (dataset_inputs_entry(out->inputs, i)->session_id != NULL) {
                return true;
            }
        }
        return false;
    }
    if (cfg->fixed_schedule ||
        (dataset_inputs_timestamped(out->inputs) && !cfg->no_fixed_schedule)) {
        return false;
    }
    if (dataset_inputs_type(out->inputs) == DATASET_INPUT_MULTI_TURN) {
        return true;
    }
    for (size_t i = 0; i < dataset_inputs_count(out->inputs); i++) {
        if (dataset_inputs_entry(out->inputs, i)->turn > 0) {
            return true;
        }
    }
    return false;
}

/* joined_texts returns an entry's texts joined by one space (malloc'd). */
static char *joined_texts(const struct dataset_entry *e)
{
    size_t len = 0;
    for (size_t i = 0; i < e->text_count; i++) {
        len += strlen(e->texts[i]) + 1;
    }
    char *out = malloc(len + 1);
    size_t at = 0;
    for (size_t i = 0; out != NULL && i < e->text_count; i++) {
        size_t n = strlen(e->texts[i]);
        if (i > 0) {
            out[at++] = ' ';
        }
        memcpy(out + at, e->texts[i], n);
        at += n;
    }
    if (out != NULL) {
        out[at] = '\0';
    }
    return out;
}

/* add_input_conversations turns the file's sessions into conversations, in
 * file order: verbatim bodies as written (the history is in them), and
 * multi_turn texts as user turns that get the live replies in between. */
static int add_input_conversations(const struct profile_config *cfg, struct workload_requests *out,
                                   const int64_t *isl)
{
    int64_t static_tokens = 0;
    for (size_t i = 0; i < dataset_inputs_count(out->inputs); i++) {
        const struct dataset_entry *e = dataset_inputs_entry(out->inputs, i);
        size_t conv = out->sessions.conv_count - (e->turn > 0 ? 1 : 0);
        struct workload_turn turn = {
            .model = cfg->models.items[conv % cfg->models.count],
            .delay_ns =
                e->turn > 0 && e->has_delay ? workload__turn_delay_ns(cfg, e->delay_ms, true) : 0,
            .max_tokens = e->output_length > 0 ? e->output_length
                          : cfg->osl_set       ? (uint64_t)cfg->osl_tokens_mean
                                               : 0,
        };
        if (e->payload != NULL) {
            turn.body = out->bodies[i];
            turn.body_len = strlen(out->bodies[i]);
            turn.static_tokens = isl[i];
        } else {
            char where[512];
            snprintf(where, sizeof(where), "%s:%llu", cfg->input_file, (unsigned long long)e->line);
            if (workload_media_from_entry(e, where, &turn.media) != 0) {
                return -EINVAL;
            }
            turn.prompt = joined_texts(e);
            if (turn.prompt == NULL) {
                workload_media_set_free(&turn.media);
                return -ENOMEM;
            }
            static_tokens = e->turn == 0 ? 0 : static_tokens;
            static_tokens = static_tokens >= 0 && isl[i] >= 0 ? static_tokens + isl[i] : -1;
            turn.static_tokens = static_tokens;
        }
        int ret = workload_sessions_add(&out->sessions, e->turn == 0, &turn, e->session_id);
        if (ret != 0) {
            return ret;
        }
    }
    return 0;
}

/* session_turn is one trace record and the session it belongs to. */
struct session_turn {
    const char *session_id; /* NULL: a session of its own */
    size_t index;
};

static int by_session(const void *a, const void *b)
{
    const struct session_turn *x = a;
    const struct session_turn *y = b;
    if (x->session_id != NULL && y->session_id != NULL) {
        int c = strcmp(x->session_id, y->session_id);
        if (c != 0) {
            return c;
        }
    } else if (x->session_id != y->session_id) {
        return x->session_id == NULL ? -1 : 1;
    }
    return x->index < y->index ? -1 : x->index > y->index;
}

static bool same_session(const struct session_turn *a, const struct session_turn *b)
{
    return a->session_id != NULL && b->session_id != NULL &&
           strcmp(a->session_id, b->session_id) == 0;
}

/* trace_sessions groups the trace's records by session id, turns in file
 * order, and puts the sessions in the order of their first turn's timestamp
 * (timed: only those in the --fixed-schedule window) or of the file. Writes
 * the records into turns (session by session) and each session's first turn
 * into starts (timestamp_ms, position in turns). Returns the number of
 * sessions; 0 with a message on error. */
static size_t trace_sessions(const struct profile_config *cfg, const struct workload_requests *out,
                             bool timed, struct session_turn *turns,
                             struct workload__timed_entry *starts)
{
    size_t count = dataset_inputs_count(out->inputs);
    for (size_t i = 0; i < count; i++) {
        turns[i] = (struct session_turn){dataset_inputs_entry(out->inputs, i)->session_id, i};
    }
    qsort(turns, count, sizeof(*turns), by_session);
    size_t sessions = 0;
    for (size_t k = 0; k < count; k++) {
        if (k > 0 && same_session(&turns[k - 1], &turns[k])) {
            continue;
        }
        const struct dataset_entry *e = dataset_inputs_entry(out->inputs, turns[k].index);
        if (timed && !e->has_timestamp) {
            fprintf(stderr,
                    "ringperf profile: %s:%llu: a fixed schedule needs a \"timestamp\" (ms) in "
                    "the first record of every session\n",
                    cfg->input_file, (unsigned long long)e->line);
            return 0;
        }
        double start_ms = timed ? e->timestamp_ms : (double)turns[k].index;
        if (!timed || workload__in_window(cfg, start_ms)) {
            starts[sessions++] = (struct workload__timed_entry){start_ms, k};
        }
    }
    qsort(starts, sessions, sizeof(*starts), workload__by_timestamp);
    if (sessions == 0) {
        fprintf(stderr,
                "ringperf profile: --input-file %s: no session starts inside the "
                "--fixed-schedule-start/end-offset window\n",
                cfg->input_file);
    }
    return sessions;
}

/* add_trace_conversations replays a trace whose records carry session ids
 * (mooncake_trace): each session's records are its turns, sent in order,
 * each after the previous reply and its "delay"; a timestamped trace starts
 * each session at its first record's timestamp. Every record's prompt is
 * its own (hash_id blocks stand for the whole context), so turns are sent as
 * built, without live history. */
static int add_trace_conversations(const struct profile_config *cfg, struct workload_requests *out,
                                   const int64_t *isl)
{
    size_t count = dataset_inputs_count(out->inputs);
    bool timed =
        cfg->fixed_schedule || (dataset_inputs_timestamped(out->inputs) && !cfg->no_fixed_schedule);
    struct session_turn *turns = calloc(count, sizeof(*turns));
    struct workload__timed_entry *starts = calloc(count, sizeof(*starts));
    out->schedule_offsets_ns = timed ? calloc(count, sizeof(int64_t)) : NULL;
    int ret = turns != NULL && starts != NULL && (!timed || out->schedule_offsets_ns != NULL)
                  ? 0
                  : -ENOMEM;
    size_t sessions = ret == 0 ? trace_sessions(cfg, out, timed, turns, starts) : 0;
    ret = ret != 0 ? ret : sessions == 0 ? -EINVAL : 0;
    double zero_ms = sessions > 0 ? workload__schedule_zero_ms(cfg, starts[0].timestamp_ms) : 0;
    for (size_t s = 0; ret == 0 && s < sessions; s++) {
        if (timed) {
            out->schedule_offsets_ns[s] = workload__offset_ns(starts[s].timestamp_ms, zero_ms);
        }
        size_t k = starts[s].index;
        for (size_t t = 0;
             ret == 0 && (t == 0 || (k + t < count && same_session(&turns[k], &turns[k + t])));
             t++) {
            size_t i = turns[k + t].index;
            const struct dataset_entry *e = dataset_inputs_entry(out->inputs, i);
            struct workload_turn turn = {
                .body = out->bodies[i],
                .body_len = strlen(out->bodies[i]),
                .model = cfg->models.items[s % cfg->models.count],
                .delay_ns =
                    t > 0 && e->has_delay ? workload__turn_delay_ns(cfg, e->delay_ms, true) : 0,
                .static_tokens = isl[i],
            };
            ret = workload_sessions_add(&out->sessions, t == 0, &turn, e->session_id);
        }
    }
    if (timed && ret == 0) {
        workload__shape_schedule(cfg, out->schedule_offsets_ns, sessions);
    }
    out->fixed_schedule = timed && ret == 0;
    free(turns);
    free(starts);
    return ret;
}

int workload__add_input_conversations(const struct profile_config *cfg,
                                      struct workload_requests *out, const int64_t *isl)
{
    return dataset_inputs_type(out->inputs) == DATASET_INPUT_MOONCAKE_TRACE
               ? add_trace_conversations(cfg, out, isl)
               : add_input_conversations(cfg, out, isl);
}
