/*
 * merge.c - one result from the records files the
 * shares of a run wrote (MPI ranks, or --shard-index/--shard-count
 * processes such as the pods of a Kubernetes Indexed Job). Every record is
 * replayed through metrics/ exactly as the one-machine run replays it, in
 * order of completion (a k-way merge that holds one record per share), so
 * the merged exports are those of one run of the same size.
 */
#include "cluster/cluster_merge.h"
#include "cluster/merge_spec.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config.h"
#include "export/export.h"
#include "metrics/metrics_record.h"
#include "record/record.h"

/* A records line longer than this is not one ringperf wrote. */
#define LINE_BYTES_MAX (64u << 20)
#define CONTENT_MAX (1u << 20)

struct merge_source {
    const char *path;
    FILE *file;
    char *line;
    size_t line_cap;
    json_t *header;
    json_t *next; /* the record to merge next, or NULL at the end */
    int64_t next_end_wall_ns;
    bool complete;  /* the trailer was read */
    bool cancelled; /* the trailer says the share was cancelled */
    uint64_t records;
    uint64_t request_id_nonce;
};

struct merge_state {
    struct merge_source *src;
    size_t count;
    struct profile_config cfg; /* only what the exports read */
    struct metrics_results results;
    struct export_run exp;
    int64_t *content_ns;
    const char *conversation; /* the record being replayed names its conversation this */
    struct record_spec_decode spec_decode; /* the record being replayed's statistics */
    bool incomplete;
    bool cancelled;
    int error;
};

static int64_t get_int(const json_t *obj, const char *key)
{
    return (int64_t)json_integer_value(json_object_get(obj, key));
}

/* read_line parses the next line of `s` into a new reference in *out
 * (NULL at the end of the file). Returns 0 or -EPROTO for a line that is not
 * JSON (a share killed mid-write leaves a partial last line). */
static int read_line(struct merge_source *s, json_t **out)
{
    *out = NULL;
    ssize_t n = getline(&s->line, &s->line_cap, s->file);
    if (n <= 0) {
        return 0;
    }
    if ((size_t)n > LINE_BYTES_MAX) {
        return -EPROTO;
    }
    json_error_t err;
    *out = json_loadb(s->line, (size_t)n, 0, &err);
    return *out != NULL ? 0 : -EPROTO;
}

static int64_t end_wall_ns(const json_t *rec)
{
    int64_t wall = get_int(rec, "wall_start_ns");
    int64_t start = get_int(rec, "start_ns");
    int64_t end = get_int(rec, "end_ns");
    return wall != 0 && start != 0 && end != 0 ? wall + (end - start) : wall;
}

/* advance loads the next record of `s`, noting the trailer. */
static void advance(struct merge_state *m, struct merge_source *s)
{
    json_decref(s->next);
    s->next = NULL;
    json_t *line = NULL;
    if (read_line(s, &line) != 0) {
        fprintf(stderr,
                "ringperf merge: %s: a partial or damaged line; the records after it "
                "are left out\n",
                s->path);
        m->incomplete = true;
        return;
    }
    if (line != NULL && json_is_true(json_object_get(line, "end"))) {
        s->complete = true;
        s->cancelled = json_is_true(json_object_get(line, "cancelled"));
        json_decref(line);
        return;
    }
    s->next = line;
    s->next_end_wall_ns = line != NULL ? end_wall_ns(line) : 0;
}

static int open_source(struct merge_source *s, const char *path)
{
    s->path = path;
    s->file = fopen(path, "r");
    if (s->file == NULL) {
        fprintf(stderr, "ringperf merge: cannot read %s: %s\n", path, strerror(errno));
        return -errno;
    }
    if (read_line(s, &s->header) != 0 || s->header == NULL ||
        get_int(s->header, "ringperf_records") != CLUSTER_RECORDS_FORMAT) {
        fprintf(stderr, "ringperf merge: %s is not a ringperf records file (format %d)\n", path,
                CLUSTER_RECORDS_FORMAT);
        return -EPROTO;
    }
    const char *nonce = json_string_value(json_object_get(s->header, "request_id_nonce"));
    s->request_id_nonce = nonce != NULL ? strtoull(nonce, NULL, 16) : 0;
    return 0;
}

static void close_source(struct merge_source *s)
{
    json_decref(s->next);
    json_decref(s->header);
    free(s->line);
    if (s->file != NULL) {
        fclose(s->file);
    }
}

/* check_shares makes sure the files are distinct shares of one split and
 * notes a missing share as incomplete. */
static int check_shares(struct merge_state *m, int expected)
{
    int count = (int)get_int(m->src[0].header, "shard_count");
    if (expected > 0 && expected != count) {
        fprintf(stderr, "ringperf merge: the files come from a run of %d shares, not %d\n", count,
                expected);
        return -EINVAL;
    }
    if (count <= 0 || count > CLUSTER_RANKS_MAX) {
        fprintf(stderr, "ringperf merge: %s: bad shard_count\n", m->src[0].path);
        return -EINVAL;
    }
    bool *seen = calloc((size_t)count, sizeof(*seen));
    if (seen == NULL) {
        return -ENOMEM;
    }
    int ret = 0;
    for (size_t i = 0; i < m->count && ret == 0; i++) {
        int64_t index = get_int(m->src[i].header, "shard_index");
        if (get_int(m->src[i].header, "shard_count") != count || index < 0 || index >= count ||
            seen[index]) {
            fprintf(stderr,
                    "ringperf merge: %s: share %lld of %lld repeats a share or belongs to "
                    "another split\n",
                    m->src[i].path, (long long)index,
                    (long long)get_int(m->src[i].header, "shard_count"));
            ret = -EINVAL;
        } else {
            seen[index] = true;
        }
    }
    for (int i = 0; i < count && ret == 0; i++) {
        if (!seen[i]) {
            fprintf(stderr,
                    "ringperf merge: share %d of %d is missing; the result is marked "
                    "incomplete\n",
                    i, count);
            m->incomplete = true;
        }
    }
    free(seen);
    return ret;
}

/* level_of chooses the merged export level: the override, else the
 * shares'. Raw is refused (-ENOTSUP): the records files keep no response
 * text, and a raw export without it would not be the run's. */
static int level_of(const char *name, const char *override, enum config_export_level *out)
{
    const char *level = override != NULL ? override : name;
    if (level != NULL && strcmp(level, "summary") == 0) {
        *out = CONFIG_EXPORT_SUMMARY;
        return 0;
    }
    if (level != NULL && strcmp(level, "raw") == 0) {
        fprintf(stderr,
                "ringperf merge: the shares ran with --export-level raw, but their records "
                "files keep no response text, so profile_export_raw.jsonl cannot be merged "
                "(each share's own is in its rank_<i> directory). Give --export-level records "
                "(or summary) to merge the rest.\n");
        return -ENOTSUP;
    }
    *out = CONFIG_EXPORT_RECORDS;
    return 0;
}

/* config_from uses share 0's header (or the first file's) for what the
 * exports read of the command line. Strings borrow from the header. */
static int config_from(struct merge_state *m, const json_t *h, const char *level_override)
{
    struct profile_config *c = &m->cfg;
    c->cli_command = (char *)json_string_value(json_object_get(h, "cli_command"));
    c->goodput = (char *)json_string_value(json_object_get(h, "goodput"));
    const json_t *artifacts = json_object_get(json_object_get(h, "input_config"), "artifacts");
    c->profile_export_prefix = (char *)json_string_value(json_object_get(artifacts, "prefix"));
    int ret = level_of(json_string_value(json_object_get(h, "export_level")), level_override,
                       &c->export_level);
    c->slice_duration_seconds = json_real_value(json_object_get(h, "slice_duration_seconds"));
    json_t *seed = json_object_get(h, "random_seed");
    c->random_seed_set = json_is_integer(seed);
    c->random_seed = json_integer_value(seed);
    return ret;
}

static const json_t *lead_header(const struct merge_state *m)
{
    for (size_t i = 0; i < m->count; i++) {
        if (get_int(m->src[i].header, "shard_index") == 0) {
            return m->src[i].header;
        }
    }
    return m->src[0].header;
}

static void replay_times(const json_t *rec, struct record *r)
{
    r->ordinal = (uint64_t)get_int(rec, "ordinal");
    r->shard_id = (uint32_t)get_int(rec, "shard");
    r->payload_index = (size_t)get_int(rec, "payload");
    r->in_session = json_object_get(rec, "session") != NULL;
    r->session = (uint64_t)get_int(rec, "session");
    r->turn = (uint32_t)get_int(rec, "turn");
    r->outcome = (enum record_outcome)get_int(rec, "outcome");
    r->wall_start_ns = get_int(rec, "wall_start_ns");
    r->send_start_ns = get_int(rec, "start_ns");
    r->scheduled_ns = get_int(rec, "scheduled_ns");
    r->send_end_ns = get_int(rec, "send_end_ns");
    r->headers_ns = get_int(rec, "headers_ns");
    r->end_ns = get_int(rec, "end_ns");
    r->cancel_ns = get_int(rec, "cancel_ns");
    r->http_status = (int)get_int(rec, "http_status");
    const json_t *err = json_object_get(rec, "error");
    if (json_is_object(err)) {
        r->error_code = (int)get_int(err, "code");
        const char *type = json_string_value(json_object_get(err, "type"));
        const char *message = json_string_value(json_object_get(err, "message"));
        snprintf(r->error_type, sizeof(r->error_type), "%s", type != NULL ? type : "");
        snprintf(r->error_message, sizeof(r->error_message), "%s", message != NULL ? message : "");
    }
}

/* replay_http reads a share's HTTP exchange of the record (cluster/run.c put_http); a records
 * file without one leaves the http_req_* metrics out. */
static void replay_http(const json_t *rec, const struct record *r, struct metrics_http *out)
{
    const json_t *h = json_object_get(rec, "http");
    int64_t v[9];
    if (json_array_size(h) != sizeof(v) / sizeof(v[0])) {
        return;
    }
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        v[i] = json_integer_value(json_array_get(h, i));
    }
    *out = (struct metrics_http){
        .present = true,
        .reused = v[0] != 0,
        .blocked_ns = v[1],
        .connect_ns = v[2],
        .send_start_ns = r->send_start_ns,
        .send_end_ns = v[8],
        .first_byte_ns = v[3],
        .end_ns = r->end_ns,
        .bytes_sent = v[4] > 0 ? (uint64_t)v[4] : 0,
        .bytes_received = v[5] > 0 ? (uint64_t)v[5] : 0,
        .sends = v[6] > 0 ? (uint32_t)v[6] : 0,
        .reads = v[7] > 0 ? (uint32_t)v[7] : 0,
    };
}

static int replay_request(struct merge_state *m, const json_t *rec, const struct record *r,
                          struct metrics_request *req)
{
    *req = (struct metrics_request){
        .failed = r->outcome != RECORD_SUCCESS,
        .streaming = m->results.streaming,
        .start_ns = r->send_start_ns,
        .scheduled_ns = r->scheduled_ns,
        .start_wall_ns = r->wall_start_ns,
        .first_output_index = (uint32_t)get_int(rec, "first_output_index"),
        .client_tokens = json_is_true(json_object_get(rec, "client_tokens")),
        .first_chunk_tokens = get_int(rec, "first_chunk_tokens"),
        .credit_issued_ns = get_int(rec, "credit_ns"),
        .requested_osl = get_int(rec, "requested_osl"),
        .images = get_int(rec, "images"),
    };
    replay_http(rec, r, &req->http);
    const json_t *content = json_object_get(rec, "content_ns");
    size_t n = json_array_size(content);
    if (n > CONTENT_MAX || req->first_output_index > n || r->outcome < RECORD_SUCCESS ||
        r->outcome > RECORD_CANCELLED) {
        return -EPROTO;
    }
    for (size_t i = 0; i < n; i++) {
        m->content_ns[i] = r->send_start_ns + json_integer_value(json_array_get(content, i));
    }
    req->content_ns = m->content_ns;
    req->content_count = (uint32_t)n;
    const json_t *tu = json_object_get(rec, "tokens_usage");
    int64_t *dst[] = {&req->tokens.input,
                      &req->tokens.output,
                      &req->tokens.reasoning,
                      &req->usage.prompt_tokens,
                      &req->usage.completion_tokens,
                      &req->usage.total_tokens,
                      &req->usage.reasoning_tokens,
                      &req->usage.prompt_cache_read_tokens,
                      &req->usage.prompt_cache_write_tokens,
                      &req->usage.prompt_cache_miss_tokens,
                      &req->usage.prompt_audio_tokens,
                      &req->usage.completion_audio_tokens,
                      &req->usage.tool_use_prompt_tokens,
                      &req->usage.accepted_prediction_tokens,
                      &req->usage.rejected_prediction_tokens};
    if (json_array_size(tu) != sizeof(dst) / sizeof(dst[0])) {
        return -EPROTO;
    }
    for (size_t i = 0; i < sizeof(dst) / sizeof(dst[0]); i++) {
        *dst[i] = json_integer_value(json_array_get(tu, i));
    }
    const char *audio = json_string_value(json_object_get(rec, "audio_seconds"));
    req->usage.prompt_audio_seconds = audio != NULL ? strtod(audio, NULL) : -1.0;
    const char *input_audio = json_string_value(json_object_get(rec, "input_audio_seconds"));
    req->audio_seconds = input_audio != NULL ? strtod(input_audio, NULL) : 0.0;
    int spec = cluster__spec_read(rec, &m->spec_decode);
    req->spec_decode = spec > 0 ? &m->spec_decode : NULL;
    return spec < 0 ? spec : 0;
}

/* merged_conversation_name names a replayed record's conversation as its share exported it
 * (records files written before they carried the name: by its correlation id). */
static const char *merged_conversation_name(const void *ctx, const struct record *r, char *scratch,
                                            size_t cap, size_t *out_len)
{
    const struct merge_state *m = ctx;
    if (m->conversation != NULL) {
        *out_len = strlen(m->conversation);
        return m->conversation;
    }
    *out_len = record_correlation_id(m->exp.request_id_nonce,
                                     r->in_session ? r->session : r->ordinal, scratch, cap);
    return scratch;
}

/* replay folds one record of share `s` into the merged results and exports. */
static int replay(struct merge_state *m, const struct merge_source *s, const json_t *rec)
{
    struct record r = {0};
    replay_times(rec, &r);
    struct metrics_record metrics;
    int ret = replay_request(m, rec, &r, &metrics.request);
    if (ret != 0) {
        return ret;
    }
    metrics_request_compute(&metrics.request, &metrics.values);
    int64_t shared_reads = get_int(rec, "same_read");
    metrics.shared_reads =
        shared_reads > 0 && shared_reads <= UINT32_MAX ? (uint32_t)shared_reads : 0;
    metrics_results_add(&m->results, &r, &metrics);
    m->exp.request_id_nonce = s->request_id_nonce;
    m->exp.record_rank = (int)get_int(s->header, "shard_index");
    m->exp.record_host = json_string_value(json_object_get(s->header, "host"));
    m->conversation = json_string_value(json_object_get(rec, "conversation"));
    return export_run_record(&m->exp, &r, &metrics);
}

/* replay_all merges the shares' records in order of completion. */
static int replay_all(struct merge_state *m)
{
    for (size_t i = 0; i < m->count; i++) {
        advance(m, &m->src[i]);
    }
    for (;;) {
        struct merge_source *pick = NULL;
        for (size_t i = 0; i < m->count; i++) {
            struct merge_source *s = &m->src[i];
            if (s->next != NULL && (pick == NULL || s->next_end_wall_ns < pick->next_end_wall_ns)) {
                pick = s;
            }
        }
        if (pick == NULL) {
            return 0;
        }
        int ret = replay(m, pick, pick->next);
        if (ret != 0) {
            fprintf(stderr, "ringperf merge: %s: a record could not be merged: %s\n", pick->path,
                    strerror(-ret));
            return ret;
        }
        pick->records++;
        advance(m, pick);
    }
}

static json_t *ranks_json(const struct merge_state *m, json_t *hosts)
{
    json_t *ranks = json_array();
    for (size_t i = 0; ranks != NULL && i < m->count; i++) {
        const struct merge_source *s = &m->src[i];
        json_t *host = json_object_get(s->header, "host");
        json_array_append_new(
            ranks, json_pack("{s:I, s:O, s:I, s:I, s:I, s:b}", "rank",
                             (json_int_t)get_int(s->header, "shard_index"), "host", host,
                             "clock_offset_ns", (json_int_t)get_int(s->header, "clock_offset_ns"),
                             "clock_uncertainty_ns",
                             (json_int_t)get_int(s->header, "clock_uncertainty_ns"), "records",
                             (json_int_t)s->records, "complete", s->complete));
        bool known = false;
        for (size_t k = 0; k < json_array_size(hosts); k++) {
            known |= json_equal(json_array_get(hosts, k), host);
        }
        if (!known && host != NULL) {
            json_array_append(hosts, host);
        }
    }
    return ranks;
}

/* annotate adds the shares to run_info of the JSON summary and puts back
 * the run's own input_config (the merge has no command line to rebuild it
 * from). */
static int annotate(const struct merge_state *m)
{
    json_error_t err;
    json_t *root = json_load_file(m->exp.paths.json, JSON_PRESERVE_ORDER, &err);
    json_t *info = json_object_get(root, "run_info");
    if (!json_is_object(info)) {
        json_decref(root);
        return -EIO;
    }
    json_t *config = json_object_get(lead_header(m), "input_config");
    if (json_is_object(config)) {
        json_object_set(root, "input_config", config);
    }
    json_t *hosts = json_array();
    json_object_set_new(info, "ranks", ranks_json(m, hosts));
    json_object_set_new(info, "hosts", hosts);
    json_object_set_new(info, "shard_count", json_integer(get_int(lead_header(m), "shard_count")));
    json_object_set_new(info, "merged", json_true());
    json_object_set_new(info, "incomplete", json_boolean(m->incomplete));
    int ret = json_dump_file(root, m->exp.paths.json,
                             JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    json_decref(root);
    return ret == 0 ? 0 : -EIO;
}

static int merge_open(struct merge_state *m, char *const *paths, size_t count,
                      const struct cluster_merge_options *opts)
{
    m->src = calloc(count, sizeof(*m->src));
    m->content_ns = malloc(CONTENT_MAX * sizeof(*m->content_ns));
    if (m->src == NULL || m->content_ns == NULL) {
        return -ENOMEM;
    }
    m->count = count;
    for (size_t i = 0; i < count; i++) {
        int ret = open_source(&m->src[i], paths[i]);
        if (ret != 0) {
            return ret;
        }
    }
    int ret = check_shares(m, opts->expected_count);
    if (ret != 0) {
        return ret;
    }
    const json_t *lead = lead_header(m);
    ret = config_from(m, lead, opts->export_level);
    if (ret != 0) {
        return ret;
    }
    bool streaming = json_is_true(json_object_get(lead, "streaming"));
    struct metrics_results_options results_opts = {
        .streaming = streaming,
        .use_server_token_count = m->cfg.use_server_token_count,
        .per_chunk_usage = m->cfg.per_chunk_usage,
        .goodput = m->cfg.goodput,
    };
    char errbuf[512];
    ret = metrics_results_init(&m->results, &results_opts, errbuf, sizeof(errbuf));
    if (ret != 0) {
        fprintf(stderr, "ringperf merge: %s\n", ret == -EINVAL ? errbuf : strerror(-ret));
        return ret;
    }
    if (mkdir(opts->out_dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "ringperf merge: cannot create %s: %s\n", opts->out_dir, strerror(errno));
        return -errno;
    }
    m->exp.streaming = streaming;
    m->exp.start_wall_ns = get_int(lead, "start_wall_ns");
    m->exp.conversation_name = merged_conversation_name;
    m->exp.conversation_ctx = m;
    ret = export_run_open(&m->exp, opts->out_dir, &m->cfg);
    if (ret != 0) {
        fprintf(stderr, "ringperf merge: cannot create the exports in %s: %s\n", opts->out_dir,
                strerror(-ret));
    }
    return ret;
}

static void merge_close(struct merge_state *m)
{
    export_run_close(&m->exp);
    export_intervals_free(&m->exp.intervals);
    metrics_results_free(&m->results);
    for (size_t i = 0; m->src != NULL && i < m->count; i++) {
        close_source(&m->src[i]);
    }
    free(m->src);
    free(m->content_ns);
}

static int merge_finish(struct merge_state *m, const struct cluster_merge_options *opts)
{
    for (size_t i = 0; i < m->count; i++) {
        m->incomplete |= !m->src[i].complete;
        m->cancelled |= m->src[i].cancelled;
        if (!m->src[i].complete) {
            fprintf(stderr,
                    "ringperf merge: %s did not finish (the share stopped after %llu records); "
                    "the result is marked incomplete\n",
                    m->src[i].path, (unsigned long long)m->src[i].records);
        }
    }
    int ret = export_run_close(&m->exp);
    if (ret != 0) {
        fprintf(stderr, "ringperf merge: writing %s failed: %s\n", m->exp.paths.records,
                strerror(-ret));
        return 1;
    }
    m->exp.request_id_nonce = m->src[0].request_id_nonce;
    struct export_finish_info finish = {
        .cfg = &m->cfg,
        .was_cancelled = m->cancelled || m->incomplete,
        .title = opts->title != NULL ? opts->title : "ringperf | LLM Metrics",
    };
    int saved = -1;
    if (opts->quiet) {
        fflush(stdout);
        int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        saved = null_fd >= 0 ? dup(STDOUT_FILENO) : -1;
        if (saved >= 0) {
            dup2(null_fd, STDOUT_FILENO);
        }
        if (null_fd >= 0) {
            close(null_fd);
        }
    }
    int status = export_run_finish(&m->exp, &m->results, &finish);
    if (saved >= 0) {
        fflush(stdout);
        dup2(saved, STDOUT_FILENO);
        close(saved);
    }
    /* Without a successful request there is no summary to annotate (export_run_finish
     * said why on stderr). */
    if (m->results.success_count > 0 && annotate(m) != 0) {
        fprintf(stderr, "ringperf merge: cannot annotate %s\n", m->exp.paths.json);
        return 1;
    }
    return status;
}

int cluster_merge_files(char *const *paths, size_t count, const struct cluster_merge_options *opts)
{
    struct merge_state *m = calloc(1, sizeof(*m));
    if (m == NULL || count == 0 || count > CLUSTER_MERGE_FILES_MAX) {
        free(m);
        fprintf(stderr, "ringperf merge: nothing to merge\n");
        return 1;
    }
    int status = 1;
    int ret = merge_open(m, paths, count, opts);
    if (ret == 0 && replay_all(m) == 0) {
        status = merge_finish(m, opts);
    } else if (ret == -ENOTSUP) {
        status = CONFIG_EXIT_INVALID;
    }
    merge_close(m);
    free(m);
    return status;
}
