/*
 * run.c - the share of a run this process does (MPI rank or --shard-index), its records
 * file, and the end of an MPI run, whose records files gather.c brings to rank 0.
 *
 * Rates: share i runs --request-rate R as R/N with its own seeded stream.
 * Poisson streams of rate R/N add up to Poisson R exactly. Constant-rate
 * shares are shifted by i/R so the union is constant at R again. Gamma
 * streams of rate R/N add up to rate R, but the union is not itself a gamma
 * stream: its bursts are those of N independent streams.
 */
#include "cluster/cluster.h"
#include "cluster/merge_spec.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The common start lies this far after the clocks are known: time for the
 * start message to reach every rank. */
#define START_DELAY_NS (200LL * 1000 * 1000)
#define WRITER_BYTES (1u << 20)

static int shard_from_env(const struct profile_config *cfg, int *out_index)
{
    if (cfg->shard_index_set) {
        *out_index = (int)cfg->shard_index;
        return 0;
    }
    const char *env = getenv("JOB_COMPLETION_INDEX");
    if (env == NULL || env[0] == '\0') {
        fprintf(stderr, "ringperf profile: --shard-count needs --shard-index (or "
                        "JOB_COMPLETION_INDEX, as Kubernetes Indexed Jobs set it)\n");
        return CONFIG_EXIT_INVALID;
    }
    char *end = NULL;
    errno = 0;
    long v = strtol(env, &end, 10);
    if (errno != 0 || *end != '\0' || v < 0 || v >= CLUSTER_RANKS_MAX) {
        fprintf(stderr, "ringperf profile: JOB_COMPLETION_INDEX '%s' is not a shard index\n", env);
        return CONFIG_EXIT_INVALID;
    }
    *out_index = (int)v;
    return 0;
}

static int check_split(const struct cluster_share *cc, const struct profile_config *cfg)
{
    const char *who = cc->mpi ? "MPI ranks" : "shards (--shard-count)";
    if (cc->index >= cc->count) {
        fprintf(stderr, "ringperf profile: --shard-index %d is not below --shard-count %d\n",
                cc->index, cc->count);
        return CONFIG_EXIT_INVALID;
    }
    if (cfg->concurrency > 0 && cfg->concurrency < cc->count) {
        fprintf(stderr,
                "ringperf profile: --concurrency %lld is less than the %d %s sharing the run; "
                "each needs at least one connection\n",
                (long long)cfg->concurrency, cc->count, who);
        return CONFIG_EXIT_INVALID;
    }
    if (!cc->mpi && !cfg->random_seed_set) {
        fprintf(stderr, "ringperf profile: --shard-count needs --random-seed, so that every "
                        "shard builds the same dataset\n");
        return CONFIG_EXIT_INVALID;
    }
    return 0;
}

int cluster_share_init(struct cluster_share *cc, struct profile_config *cfg)
{
    *cc = (struct cluster_share){.count = 1};
    char errbuf[256];
    if (cluster_init(&cc->cluster, errbuf, sizeof(errbuf)) != 0) {
        fprintf(stderr, "ringperf profile: MPI: %s\n", errbuf);
        return 1;
    }
    int size = cluster_size(cc->cluster);
    if (size > 1) {
        cc->mpi = true;
        cc->index = cluster_rank(cc->cluster);
        cc->count = size;
        if (cfg->shard_count > 0) {
            fprintf(stderr, "ringperf profile: --shard-count is for runs without MPI; under "
                            "mpirun the ranks already split the run\n");
            return CONFIG_EXIT_INVALID;
        }
        if (cc->index != 0) {
            /* One live API per run: rank 0's, which shows every rank's figures
             * (cluster_share_live_attach). */
            cfg->api_port_set = false;
            unsetenv("AIPERF_API_SERVER_PORT");
        }
    } else if (cfg->shard_count >= 1) {
        cc->count = (int)cfg->shard_count;
        int ret = shard_from_env(cfg, &cc->index);
        if (ret != 0) {
            return ret;
        }
    }
    cc->sharded = cc->mpi || cfg->shard_count >= 1;
    return cc->sharded ? check_split(cc, cfg) : 0;
}

int cluster_share_seed(struct cluster_share *cc, uint64_t *seed)
{
    if (cc->mpi && cluster_bcast(cc->cluster, seed, sizeof(*seed)) != 0) {
        fprintf(stderr, "ringperf profile: MPI: broadcasting the seed failed\n");
        return 1;
    }
    return 0;
}

static int64_t share_offset_ns(void *ctx, uint64_t k)
{
    const struct cluster_share *cc = ctx;
    if (cc->load->trace_offsets_ns != NULL) {
        /* A fixed schedule by ordinal: this share's k-th request is ordinal i + kN. */
        uint64_t ordinal = (uint64_t)cc->index + k * (uint64_t)cc->count;
        size_t n = cc->load->trace_count;
        return cc->load->trace_offsets_ns[ordinal < n ? ordinal : n - 1];
    }
    return cc->inner->offset_ns(cc->inner->ctx, k) + cc->phase_ns;
}

static uint32_t split_evenly(uint64_t total, int index, int count)
{
    return (uint32_t)(total / (uint64_t)count + ((uint64_t)index < total % (uint64_t)count));
}

/* split_rate gives this share its own arrival stream at R/N; everything
 * else in *engine stays as it was (counts are split by the caller, and which
 * ordinals are cancelled must not depend on the share). */
static void split_rate(struct cluster_share *cc, const struct profile_config *cfg, uint64_t seed,
                       struct workload_phase *load, struct engine_config *engine)
{
    struct engine_config whole = *engine;
    struct profile_config share_cfg = *cfg;
    share_cfg.request_rate_per_second = cfg->request_rate_per_second / cc->count;
    uint64_t share_seed = seed ^ (0x9e3779b97f4a7c15ULL * (uint64_t)(cc->index + 1));
    workload_phase_configure(&share_cfg, share_seed, load, engine);
    const struct engine_schedule *schedule = engine->schedule;
    *engine = whole;
    engine->schedule = schedule;
    if (cfg->arrival_pattern == CONFIG_ARRIVAL_CONSTANT) {
        cc->phase_ns = (int64_t)(1e9 * cc->index / cfg->request_rate_per_second);
    }
}

/* split_counts gives this share its ordinals, requests and connections. */
static void split_counts(const struct cluster_share *cc, struct engine_config *engine)
{
    uint64_t total = engine->request_count;
    if (total > 0) {
        engine->request_count =
            total > (uint64_t)cc->index
                ? (total - (uint64_t)cc->index + (uint64_t)cc->count - 1) / (uint64_t)cc->count
                : 0;
    }
    /* User-centric sessions: user k here is user i + kN of the run's. */
    engine->user_total = engine->concurrency;
    engine->user_offset = (uint64_t)cc->index;
    engine->user_stride = (uint64_t)cc->count;
    engine->concurrency = split_evenly(engine->concurrency, cc->index, cc->count);
    if (engine->prefill_limit > 0) {
        uint32_t p = split_evenly(engine->prefill_limit, cc->index, cc->count);
        engine->prefill_limit = p > 0 ? p : 1;
    }
    engine->ordinal_base = (uint64_t)cc->index;
    engine->ordinal_stride = (uint64_t)cc->count;
}

bool cluster_share_split_warmup(struct cluster_share *cc, const struct profile_config *cfg,
                                uint64_t seed, struct workload_phase *load,
                                struct engine_config *warm)
{
    if (cc->count <= 1) {
        return true;
    }
    if (warm->schedule != NULL && load->trace_offsets_ns == NULL) {
        int64_t phase_ns = cc->phase_ns;
        split_rate(cc, cfg, seed + 1, load, warm);
        cc->phase_ns = phase_ns; /* the warmup starts unshifted; the profiling phase keeps its */
    }
    bool counted = warm->request_count > 0;
    split_counts(cc, warm);
    /* A share with no warmup requests of its own (count < N) skips the warmup. */
    return !counted || warm->request_count > 0;
}

static int split_engine(struct cluster_share *cc, const struct profile_config *cfg, uint64_t seed,
                        struct workload_phase *load, struct engine_config *engine)
{
    if (engine->concurrency < (uint32_t)cc->count) {
        fprintf(stderr,
                "ringperf profile: concurrency %u (the default) is less than the %d shares of "
                "the run; give --concurrency %d or more\n",
                engine->concurrency, cc->count, cc->count);
        return CONFIG_EXIT_INVALID;
    }
    uint64_t total = engine->request_count;
    if (total > 0 && total < (uint64_t)cc->count) {
        fprintf(stderr,
                "ringperf profile: --request-count %llu is less than the %d ranks sharing the "
                "run\n",
                (unsigned long long)total, cc->count);
        return CONFIG_EXIT_INVALID;
    }
    if (engine->schedule != NULL && load->trace_offsets_ns == NULL) {
        split_rate(cc, cfg, seed, load, engine);
    }
    split_counts(cc, engine);
    if (engine->schedule != NULL) {
        cc->inner = engine->schedule;
        cc->load = load;
        cc->schedule = (struct engine_schedule){.offset_ns = share_offset_ns, .ctx = cc};
        engine->schedule = &cc->schedule;
    }
    return 0;
}

int cluster_share_prepare(struct cluster_share *cc, const struct profile_config *cfg, uint64_t seed,
                          struct workload_phase *load, struct engine_config *engine,
                          char *artifact_dir, size_t cap)
{
    if (cc->mpi && cluster_bcast(cc->cluster, &engine->request_id_nonce,
                                 sizeof(engine->request_id_nonce)) != 0) {
        fprintf(stderr, "ringperf profile: MPI: broadcasting the run's nonce failed\n");
        return 1;
    }
    cc->run_nonce = engine->request_id_nonce;
    cc->streaming = engine->streaming;
    cc->open_loop = engine->schedule != NULL;
    cc->request_id_nonce = engine->request_id_nonce;
    snprintf(cc->top_dir, sizeof(cc->top_dir), "%s", artifact_dir);
    cc->export_raw = cfg->export_level == CONFIG_EXPORT_RAW;
    cc->whole_total =
        engine->sessions != NULL ? engine->sessions->ordinal_limit : engine->request_count;
    if (!cc->sharded) {
        return 0;
    }
    if (cc->count > 1) {
        int ret = split_engine(cc, cfg, seed, load, engine);
        if (ret != 0) {
            return ret;
        }
    }
    struct export_paths *merged = cc->mpi && cc->index == 0 ? malloc(sizeof(*merged)) : NULL;
    if (merged != NULL && export_paths_init(merged, cc->top_dir, cfg->profile_export_prefix) == 0) {
        snprintf(cc->results_json, sizeof(cc->results_json), "%s", merged->json);
    }
    free(merged);
    int len = snprintf(artifact_dir, cap, "%s/rank_%d", cc->top_dir, cc->index);
    if (len < 0 || (size_t)len >= cap || (mkdir(artifact_dir, 0755) != 0 && errno != EEXIST)) {
        fprintf(stderr, "ringperf profile: cannot create %s\n", artifact_dir);
        return 1;
    }
    int n =
        snprintf(cc->file_path, sizeof(cc->file_path), "%s/%s", artifact_dir, CLUSTER_RECORDS_FILE);
    if (n < 0 || (size_t)n >= sizeof(cc->file_path)) {
        fprintf(stderr, "ringperf profile: --artifact-dir is too long\n");
        return 1;
    }
    return 0;
}

const char *cluster_share_inputs_dir(const struct cluster_share *cc, const char *artifact_dir)
{
    if (!cc->sharded) {
        return artifact_dir;
    }
    return cc->index == 0 ? cc->top_dir : NULL;
}

static const char *level_name(enum config_export_level level)
{
    return level == CONFIG_EXPORT_SUMMARY ? "summary"
           : level == CONFIG_EXPORT_RAW   ? "raw"
                                          : "records";
}

static json_t *header_json(const struct cluster_share *cc, const struct profile_config *cfg)
{
    char nonce[20];
    snprintf(nonce, sizeof(nonce), "%016llx", (unsigned long long)cc->run_nonce);
    char id_nonce[20];
    snprintf(id_nonce, sizeof(id_nonce), "%016llx", (unsigned long long)cc->request_id_nonce);
    json_t *h = json_pack(
        "{s:i, s:s, s:i, s:i, s:b, s:s, s:I, s:I, s:I, s:b, s:b, s:s, s:s, s:s?, s:s, s:f, s:o, "
        "s:o}",
        "ringperf_records", CLUSTER_RECORDS_FORMAT, "run_nonce", nonce, "shard_index", cc->index,
        "shard_count", cc->count, "mpi", cc->mpi, "host", cluster_host(cc->cluster),
        "clock_offset_ns", (json_int_t)cc->clock.offset_ns, "clock_uncertainty_ns",
        (json_int_t)cc->clock.uncertainty_ns, "start_wall_ns", (json_int_t)cc->start_wall_ns,
        "streaming", cc->streaming, "open_loop", cc->open_loop, "request_id_nonce", id_nonce,
        "cli_command", cfg->cli_command != NULL ? cfg->cli_command : "", "goodput", cfg->goodput,
        "export_level", level_name(cfg->export_level), "slice_duration_seconds",
        cfg->slice_duration_seconds, "random_seed",
        cfg->random_seed_set ? json_integer(cfg->random_seed) : json_null(), "input_config",
        export_input_config(cfg, cc->top_dir));
    return h;
}

static int open_file(struct cluster_share *cc, const struct profile_config *cfg)
{
    json_t *h = header_json(cc, cfg);
    char *header = h != NULL ? json_dumps(h, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(h);
    if (header == NULL) {
        return -ENOMEM;
    }
    int ret = export_jsonw_open(&cc->writer, cc->file_path, WRITER_BYTES, EXPORT_OUTFILE_DIRECT,
                                /* merge reads what a share that died left */
                                EXPORT_OUTFILE_IN_PLACE);
    if (ret == 0) {
        /* The header is read as soon as the file exists (merge, the live view). */
        export_jsonw_raw(&cc->writer, header, strlen(header));
        export_jsonw_raw(&cc->writer, "\n", 1);
        ret = export_jsonw_flush(&cc->writer);
    }
    free(header);
    return ret;
}

/* meet_ranks waits for every rank, estimates the clocks, and sleeps until
 * the common start instant rank 0 chose (on each rank's own clock). */
static int meet_ranks(struct cluster_share *cc, struct engine_config *engine)
{
    if (cluster_barrier(cc->cluster) != 0) {
        return -EIO;
    }
    if (cc->index == 0) {
        cc->clocks = calloc((size_t)cc->count, sizeof(*cc->clocks));
        cc->hosts = calloc((size_t)cc->count, CLUSTER_HOST_BYTES);
        if (cc->clocks == NULL || cc->hosts == NULL) {
            return -ENOMEM;
        }
    }
    int ret = cluster_clock_sync(cc->cluster, CLUSTER_CLOCK_ROUNDS, cc->clocks, &cc->clock);
    if (ret == 0) {
        ret = cluster_gather_hosts(cc->cluster, cc->hosts);
    }
    if (ret == 0 && cc->index == 0) {
        cc->pids = calloc((size_t)cc->count, sizeof(*cc->pids));
        ret = cc->pids != NULL ? 0 : -ENOMEM;
    }
    if (ret == 0) {
        ret = cluster_gather_i64(cc->cluster, (int64_t)getpid(), cc->pids);
    }
    if (ret == 0 && cc->index == 0) {
        __atomic_store_n(&cc->pids_ready, 1, __ATOMIC_RELEASE);
    }
    int64_t start = cluster_wall_now_ns() + START_DELAY_NS;
    if (ret == 0) {
        ret = cluster_bcast(cc->cluster, &start, sizeof(start));
    }
    if (ret != 0) {
        return ret;
    }
    cc->start_wall_ns = start;
    int64_t local_start = start + cc->clock.offset_ns;
    if (engine->schedule != NULL) {
        /* The engine counts the schedule from this instant, whatever its set-up took. */
        engine->schedule_start_ns = engine_now_ns() + (local_start - cluster_wall_now_ns());
    } else {
        cluster_sleep_until_wall_ns(local_start);
    }
    return 0;
}

int cluster_share_start(struct cluster_share *cc, const struct profile_config *cfg,
                        struct engine_config *engine, char *errbuf, size_t errcap)
{
    if (!cc->sharded) {
        return 0;
    }
    cc->start_wall_ns = cluster_wall_now_ns();
    if (cc->mpi) {
        int ret = meet_ranks(cc, engine);
        if (ret != 0) {
            snprintf(errbuf, errcap, "MPI: starting the ranks together failed: %s", strerror(-ret));
            return ret;
        }
        /* One report for the run: rank 0 prints the merged one at the end. */
        fflush(stdout);
        int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        cc->saved_stdout = null_fd >= 0 ? dup(STDOUT_FILENO) : -1;
        if (cc->saved_stdout >= 0) {
            dup2(null_fd, STDOUT_FILENO);
            cc->silenced = true;
        }
        if (null_fd >= 0) {
            close(null_fd);
        }
    }
    int ret = open_file(cc, cfg);
    if (ret != 0) {
        snprintf(errbuf, errcap, "cannot write %s: %s", cc->file_path, strerror(-ret));
    }
    return ret;
}

static void put_key_int(struct export_jsonw *w, bool *first, const char *key, int64_t v)
{
    export_jsonw_key(w, first, key);
    export_jsonw_int(w, v);
}

static void put_request(struct export_jsonw *w, bool *first, const struct metrics_request *req)
{
    export_jsonw_key(w, first, "content_ns");
    export_jsonw_raw(w, "[", 1);
    for (uint32_t i = 0; i < req->content_count; i++) {
        if (i > 0) {
            export_jsonw_raw(w, ",", 1);
        }
        export_jsonw_int(w, req->content_ns[i] - req->start_ns);
    }
    export_jsonw_raw(w, "]", 1);
    put_key_int(w, first, "first_output_index", req->first_output_index);
    const struct metrics_tokens *t = &req->tokens;
    const struct record_usage *u = &req->usage;
    int64_t v[] = {t->input,
                   t->output,
                   t->reasoning,
                   u->prompt_tokens,
                   u->completion_tokens,
                   u->total_tokens,
                   u->reasoning_tokens,
                   u->prompt_cache_read_tokens,
                   u->prompt_cache_write_tokens,
                   u->prompt_cache_miss_tokens,
                   u->prompt_audio_tokens,
                   u->completion_audio_tokens,
                   u->tool_use_prompt_tokens,
                   u->accepted_prediction_tokens,
                   u->rejected_prediction_tokens};
    export_jsonw_key(w, first, "tokens_usage");
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
        export_jsonw_raw(w, i == 0 ? "[" : ",", 1);
        export_jsonw_int(w, v[i]);
    }
    export_jsonw_raw(w, "]", 1);
    export_jsonw_key(w, first, "audio_seconds");
    cluster__put_exact(w, u->prompt_audio_seconds);
    export_jsonw_key(w, first, "client_tokens");
    export_jsonw_lit(w, req->client_tokens ? "true" : "false");
    if (req->first_chunk_tokens != 0) {
        put_key_int(w, first, "first_chunk_tokens", req->first_chunk_tokens);
    }
    if (req->images != 0) {
        put_key_int(w, first, "images", req->images);
    }
    if (req->audio_seconds > 0) {
        export_jsonw_key(w, first, "input_audio_seconds");
        cluster__put_exact(w, req->audio_seconds);
    }
    /* A video job's server figures, as strings like the audio seconds (exact doubles). */
    if (req->has_video_inference) {
        export_jsonw_key(w, first, "video_inference_s");
        cluster__put_exact(w, req->video_inference_s);
    }
    if (req->has_video_peak_memory) {
        export_jsonw_key(w, first, "video_peak_memory_mb");
        cluster__put_exact(w, req->video_peak_memory_mb);
    }
    if (req->requested_osl != 0) {
        put_key_int(w, first, "requested_osl", req->requested_osl);
    }
    cluster__spec_put(w, first, req->spec_decode);
}

static void put_times(struct cluster_share *cc, struct export_jsonw *w, bool *first,
                      const struct record *rec, const struct metrics_request *req)
{
    int64_t wall = rec->wall_start_ns != 0 ? rec->wall_start_ns - cc->clock.offset_ns : 0;
    put_key_int(w, first, "wall_start_ns", wall);
    put_key_int(w, first, "start_ns", rec->send_start_ns);
    put_key_int(w, first, "scheduled_ns", req->scheduled_ns);
    put_key_int(w, first, "credit_ns", req->credit_issued_ns);
    put_key_int(w, first, "send_end_ns", rec->send_end_ns);
    put_key_int(w, first, "headers_ns", rec->headers_ns);
    put_key_int(w, first, "end_ns", rec->end_ns);
    put_key_int(w, first, "cancel_ns", rec->cancel_ns);
}

/* put_http writes the request's HTTP exchange for the merge's http_req_* metrics: [reused,
 * blocked_ns, connect_ns, first_byte_ns, bytes_sent, bytes_received, sends, reads,
 * send_end_ns]; the send start and end times are the record's own. */
static void put_http(struct export_jsonw *w, bool *first, const struct metrics_http *h)
{
    if (!h->present) {
        return;
    }
    const int64_t values[] = {h->reused,
                              h->blocked_ns,
                              h->connect_ns,
                              h->first_byte_ns,
                              (int64_t)h->bytes_sent,
                              (int64_t)h->bytes_received,
                              h->sends,
                              h->reads,
                              h->send_end_ns};
    export_jsonw_key(w, first, "http");
    for (size_t i = 0; i < sizeof(values) / sizeof(values[0]); i++) {
        export_jsonw_raw(w, i == 0 ? "[" : ",", 1);
        export_jsonw_int(w, values[i]);
    }
    export_jsonw_raw(w, "]", 1);
}

void cluster_share_record(struct cluster_share *cc, const struct record *rec,
                          const struct metrics_record *metrics, const struct export_run *exp)
{
    if (!export_jsonw_is_open(&cc->writer) || cc->error != 0) {
        return;
    }
    struct export_jsonw *w = &cc->writer;
    bool first = true;
    export_jsonw_raw(w, "{", 1);
    put_key_int(w, &first, "ordinal", (int64_t)rec->ordinal);
    put_key_int(w, &first, "shard", rec->shard_id);
    put_key_int(w, &first, "payload", (int64_t)rec->payload_index);
    if (rec->in_session) {
        put_key_int(w, &first, "session", (int64_t)rec->session);
        put_key_int(w, &first, "turn", rec->turn);
    }
    char scratch[EXPORT_CONVERSATION_NAME_BYTES];
    size_t name_len = 0;
    const char *name = export_run_conversation_name(exp, rec, scratch, &name_len);
    export_jsonw_key(w, &first, "conversation");
    export_jsonw_string(w, name, name_len);
    put_key_int(w, &first, "outcome", rec->outcome);
    put_times(cc, w, &first, rec, &metrics->request);
    put_key_int(w, &first, "http_status", rec->http_status);
    put_request(w, &first, &metrics->request);
    put_key_int(w, &first, "same_read", metrics->shared_reads);
    put_http(w, &first, &metrics->request.http);
    export_jsonw_key(w, &first, "error");
    export_record_error(w, rec);
    export_jsonw_raw(w, "}\n", 2);
    cc->records++;
    cc->error = w->error;
}

void cluster_share_flush(struct cluster_share *cc)
{
    if (export_jsonw_is_open(&cc->writer) && cc->error == 0) {
        cc->error = export_jsonw_flush(&cc->writer);
    }
}

static int close_file(struct cluster_share *cc, bool cancelled, int status)
{
    if (!export_jsonw_is_open(&cc->writer)) {
        return cc->error;
    }
    char nonce[20];
    snprintf(nonce, sizeof(nonce), "%016llx", (unsigned long long)cc->run_nonce);
    char line[160];
    int n = snprintf(line, sizeof(line),
                     "{\"end\":true,\"run_nonce\":\"%s\",\"records\":%llu,\"cancelled\":%s,"
                     "\"status\":%d}\n",
                     nonce, (unsigned long long)cc->records, cancelled ? "true" : "false", status);
    export_jsonw_raw(&cc->writer, line, (size_t)n);
    int ret = export_jsonw_close(&cc->writer);
    return cc->error != 0 ? cc->error : ret;
}

static void restore_stdout(struct cluster_share *cc)
{
    if (cc->silenced) {
        cc->silenced = false;
        fflush(stdout);
        dup2(cc->saved_stdout, STDOUT_FILENO);
        close(cc->saved_stdout);
        cc->saved_stdout = -1;
    }
}

int cluster_share_finish(struct cluster_share *cc, bool cancelled, int status)
{
    if (!cc->sharded) {
        return status;
    }
    int ret = close_file(cc, cancelled, status);
    if (ret != 0) {
        fprintf(stderr, "ringperf profile: writing %s failed: %s\n", cc->file_path, strerror(-ret));
        status = 1;
    }
    if (!cc->mpi) {
        return status;
    }
    if (cluster_share_live_end(cc) != 0) {
        fprintf(stderr, "ringperf profile: MPI: exchanging the final live figures failed\n");
    }
    if (cc->index == 0) {
        restore_stdout(cc);
    }
    return cluster_share_gather(cc, status);
}

/* rank_is_gone reports whether rank r, on this host, no longer exists (or
 * is a zombie its launcher has yet to reap). */
static bool rank_is_gone(const struct cluster_share *cc, int r)
{
    if (strcmp(cc->hosts + (size_t)r * CLUSTER_HOST_BYTES, cluster_host(cc->cluster)) != 0 ||
        cc->pids[r] <= 0) {
        return false; /* another host's: nothing to look at from here */
    }
    if (kill((pid_t)cc->pids[r], 0) != 0) {
        return errno == ESRCH;
    }
    char path[64];
    snprintf(path, sizeof(path), "/proc/%lld/stat", (long long)cc->pids[r]);
    FILE *f = fopen(path, "r");
    char stat[256] = "";
    size_t n = f != NULL ? fread(stat, 1, sizeof(stat) - 1, f) : 0;
    if (f != NULL) {
        fclose(f);
    }
    stat[n] = '\0';
    const char *paren = strrchr(stat, ')');
    return paren != NULL && paren[1] == ' ' && paren[2] == 'Z';
}

void cluster_share_stop_notice(struct cluster_share *cc)
{
    if (!cc->mpi || cc->index != 0 || !__atomic_load_n(&cc->pids_ready, __ATOMIC_ACQUIRE)) {
        return;
    }
    for (int r = 1; r < cc->count; r++) {
        if (rank_is_gone(cc, r)) {
            fprintf(stderr,
                    "\nringperf: rank %d on %s stopped before the end of the run; its records "
                    "up to then are in %s/rank_%d; run `ringperf merge %s` to combine what "
                    "every rank wrote (marked incomplete)\n",
                    r, cc->hosts + (size_t)r * CLUSTER_HOST_BYTES, cc->top_dir, r, cc->top_dir);
        }
    }
    fflush(stderr);
}

const char *cluster_share_results_path(struct cluster_share *cc, const char *own)
{
    return cc->mpi && cc->index == 0 && cc->results_json[0] != '\0' ? cc->results_json : own;
}

void cluster_share_free(struct cluster_share *cc)
{
    export_jsonw_close(&cc->writer);
    restore_stdout(cc);
    cluster_share_live_free(cc);
    free(cc->pids);
    free(cc->clocks);
    free(cc->hosts);
    cluster_free(cc->cluster);
    *cc = (struct cluster_share){0};
}
