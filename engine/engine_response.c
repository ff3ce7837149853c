/*
 * engine_response.c - a connection's response reads handed to its wire reader (wire/), and
 * what the reader says acted on: the prefill is over, the request failed or finished, the
 * connection is kept or closed.
 */
#include "engine/engine_conn.h"

/* act_on ends the request as the reader says, if it ended. */
static void act_on(struct engine__shard *shard, struct engine__conn *c, const struct wire_result *r)
{
    if (r->generated) {
        engine__prefill_done(shard, c);
    }
    if (!r->ended) {
        return;
    }
    if (r->failed) {
        engine__fail(shard, c, r->failure.code, r->failure.type, r->failure.message);
        return;
    }
    if (c->job.phase != ENGINE__JOB_NONE && r->outcome == RECORD_SUCCESS) {
        /* A job's 2xx answer: the job goes on, or its record ends (engine_job.c). */
        engine__job_answer(shard, c, r->body, r->body_len, c->record->end_ns, r->keep_alive);
        return;
    }
    engine__finish(shard, c, r->outcome, r->keep_alive);
}

void engine__response_bytes(struct engine__shard *shard, struct engine__conn *c, const char *data,
                            size_t len, int64_t arrival_ns)
{
    c->response_started = true;
    struct wire_result r;
    wire_reader_feed(&c->wire, &shard->config_wire, data, len, arrival_ns, c->record, &r);
    act_on(shard, c, &r);
}

bool engine__response_eof(struct engine__shard *shard, struct engine__conn *c)
{
    struct wire_result r;
    if (!wire_reader_eof(&c->wire, &shard->config_wire, engine_now_ns(), c->record, &r)) {
        return false;
    }
    act_on(shard, c, &r);
    return true;
}
