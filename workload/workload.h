/*
 * workload.h - the public header of workload/: config and datasets turned
 * into what a run sends, all prepared before it starts. Here: what every
 * request carries (the bodies for the endpoint type, the headers: the
 * endpoint's authentication, then -H headers; and the response reader). The
 * load phases and their schedules are in workload_phase.h, the multi-turn
 * conversations in workload_sessions.h; this header includes both.
 */
#ifndef RINGPERF_WORKLOAD_H
#define RINGPERF_WORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "config/config.h"
#include "datasets/datasets.h"
#include "endpoint/endpoint.h"
#include "response/response.h"
#include "engine/engine.h"
#include "tokenizer/tokenizer.h"
#include "workload/workload_phase.h"
#include "workload/workload_sessions.h"

/* workload_requests owns everything an engine_config borrows about requests. */
struct workload_requests {
    enum endpoint_type type;
    struct response_reader reader;
    struct template *template; /* template: the compiled payload_template; else NULL */
    struct engine_payload *payloads;
    size_t payload_count;
    int64_t *payload_isl; /* input tokens of each payload; NULL without a tokenizer */
    /* The max_tokens each synthetic payload asks for (0 = none), for the
     * osl_mismatch_* metrics; NULL for other runs. */
    int64_t *payload_osl;
    /* The input images of each payload (AIPerf's num_images); NULL when the endpoint carries
     * no images, and for multi-turn runs. */
    int64_t *payload_images;
    struct http_header *headers;
    size_t header_count;
    char auth_value[4096]; /* a Bearer value written by endpoint_auth_headers */
    /* --input-file runs: the dataset, one body per entry (payloads[] point
     * into bodies[], in send order), and for a fixed schedule each payload's
     * due time after the run's start. */
    struct dataset_inputs *inputs; /* NULL: synthetic prompts */
    char **bodies;                 /* bodies[i] is entry i's body; owned */
    size_t body_count;
    size_t *payload_entries;      /* payloads[k] is the body of entry payload_entries[k]; owned */
    int64_t *schedule_offsets_ns; /* per payload; NULL unless fixed_schedule */
    /* A random or shuffled run shorter than its file: the order drawn over the
     * whole file, as positions in the entries loaded (only those drawn). */
    size_t *presampled;
    size_t presampled_count;
    bool fixed_schedule;
    /* Multi-turn runs: the conversations (payloads then unused), and the
     * --extra-inputs object their bodies are built with while the run goes. */
    bool multi_turn;
    struct workload_sessions sessions;
    char *sessions_extra;
    char *sessions_system;     /* the system prompt of every conversation, or NULL */
    uint64_t cache_bust_nonce; /* --cache-bust markers differ from run to run */
    /* multipart/form-data endpoints (image_edit, audio_transcription; form_requests.c): the
     * Content-Type with the run's boundary, each payload as inputs.json shows it, and each
     * payload's audio length in seconds (-1: none), for audio_duration and rtfx. NULL/"" for
     * other endpoints. payloads[i].file and .tail are owned too. */
    char content_type[128];
    char **payload_json;
    double *payload_audio_seconds;
};

/* workload_requests_write_inputs writes dir/inputs.json, the payloads as
 * sent: a multi-turn run's conversations (workload_sessions_write_inputs);
 * an --input-file run's entries, each body once, grouped by session in file
 * order, with the file's session ids (inputs_json, raw_payload directories)
 * or session_<n>; or each synthetic payload as a session of its own. The file is
 * written as inputs.json.partial and renamed when whole. Returns 0 or -errno
 * of the write, flush, close or rename that failed (-ENOSPC: the disk is full). */
int workload_requests_write_inputs(const char *dir, const struct workload_requests *requests);

/* workload_requests_conversation_name returns the name inputs.json gives the conversation that
 * `record` played (its session_id): a multi-turn session's conversation, else the entry or
 * synthetic payload the request sent (session_<n>, or the file's session id). Writes into
 * scratch (cap bytes) or returns a string the requests own; *out_len is its length. */
const char *workload_requests_conversation_name(const struct workload_requests *requests,
                                                const struct record *record, char *scratch,
                                                size_t cap, size_t *out_len);

/* workload_requests_type maps --endpoint-type to the endpoint module's type.
 * Returns 0, or -ENOTSUP with a message on stderr for a type ringperf cannot
 * run yet. */
int workload_requests_type(const struct profile_config *cfg, enum endpoint_type *out);

/* workload_requests_prepare builds the payloads (AIPerf's default of up to 100
 * dataset entries, synthetic prompts from seed: exactly --isl tokens long with
 * a tokenizer, else --isl words; or the --input-file entries in the order of
 * --dataset-sampling-strategy, or of their timestamps on a fixed schedule),
 * the headers and the reader.
 * Prints what went wrong to stderr. Returns 0, -EINVAL or -ENOMEM. */
int workload_requests_prepare(const struct profile_config *cfg, uint64_t seed,
                              const struct tokenizer *tok, struct workload_requests *out);

/* workload_requests_free releases what workload_requests_prepare made. */
void workload_requests_free(struct workload_requests *requests);

#endif
