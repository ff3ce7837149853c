/*
 * profile.c - `ringperf profile`: parse the AIPerf command line, prepare the
 * payloads and the target, run the engine, and report.
 */
#include "cli/cli.h"
#include "cluster/cluster.h"
#include "cli/cli_aws.h"
#include "cli/cli_control_hooks.h"
#include "cli/cli_descriptors.h"
#include "cli/cli_netprobe.h"
#include "cli/cli_realtime.h"
#include "export/export.h"
#include "workload/workload.h"
#include "cli/cli_progress.h"
#include "cli/cli_readiness.h"
#include "cli/cli_signals.h"
#include "cli/cli_profile.h"
#include "cli/cli_scrapers.h"
#include "cli/cli_targets.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "config/config.h"
#include "datasets/datasets.h"
#include "endpoint/endpoint.h"
#include "tokenizer/tokenizer.h"
#include "tls/tls.h"

/* check_failure_threshold stops the run once failures exceed
 * --failed-request-threshold, judged after max(concurrency, 10) records as
 * AIPerf does; an open loop without --concurrency has none, so 10. */
static void check_failure_threshold(struct profile_run *run)
{
    double threshold = run->cfg.failed_request_threshold;
    uint64_t seen = run->seen_records;
    uint64_t cap = workload_phase_session_cap(&run->cfg, &run->engine);
    uint64_t minimum = cap > 10 ? cap : 10;
    if (threshold <= 0 || run->threshold_exceeded || seen < minimum) {
        return;
    }
    if ((double)run->seen_errors / (double)seen > threshold) {
        run->threshold_exceeded = true;
        fprintf(stderr,
                "\nringperf: %llu of %llu requests failed, over --failed-request-threshold "
                "%g; stopping the run\n",
                (unsigned long long)run->seen_errors, (unsigned long long)seen, threshold);
        __atomic_store_n(&run->stop.requested, ENGINE_STOP_GRACEFUL, __ATOMIC_RELEASE);
    }
}

/* stop_on_export_error says, when it happens, which file could not be written
 * and why (a full disk: "No space left on device"), and stops sending: the
 * records would be lost. The in-flight requests still finish. */
static void stop_on_export_error(struct profile_run *run)
{
    char file[EXPORT_PATH_BYTES + 16];
    export_run_failed_file(&run->exp, file, sizeof(file));
    fprintf(stderr, "\nringperf profile: writing %s failed: %s; stopping the run\n", file,
            strerror(-run->export_error));
    __atomic_store_n(&run->stop.requested, 1, __ATOMIC_RELEASE);
}

static void on_record(void *ctx, const struct record *rec)
{
    struct profile_run *run = ctx;
    if (run->engine.schedule != NULL && rec->send_start_ns != 0) {
        metrics_hist_record(run->send_lag, rec->send_start_ns - rec->scheduled_ns);
    }
    struct metrics_record local;
    const struct metrics_record *metrics = cli_shards_record_metrics(run, rec, &local);
    if (run->export_error == 0) {
        run->export_error = export_run_record(&run->exp, rec, metrics);
        if (run->export_error != 0) {
            stop_on_export_error(run);
        }
    }
    cluster_share_record(&run->cluster, rec, metrics, &run->exp);
    cli_live_record(&run->live, rec, metrics);
    check_failure_threshold(run);
}

/* collect_shards merges what the shards handed over into the run's results (all of it once they
 * have ended), stopping the run when its interval could not be written. */
static void collect_shards(struct profile_run *run, bool all)
{
    int ret = cli_shards_collect(run, all);
    if (ret != 0 && run->export_error == 0) {
        run->export_error = ret;
        stop_on_export_error(run);
    }
}

static void on_finish(void *ctx, const struct engine_run_stats *stats)
{
    struct profile_run *run = ctx;
    run->engine_stats = *stats;
    if (run->engine.record_hook != NULL) {
        /* The shards' threads have ended: what they hold now is all of it. */
        collect_shards(run, true);
    }
}

static void on_shards(void *ctx, uint32_t first, const struct engine_shard_live *rows,
                      uint32_t count)
{
    struct profile_run *run = ctx;
    cli_live_shards(&run->live, first, rows, count);
}

static void on_progress(void *ctx, uint64_t finished, uint64_t total)
{
    struct profile_run *run = ctx;
    if (run->engine.record_hook != NULL) {
        collect_shards(run, false);
    }
    cli_live_progress(&run->live, &run->results, finished, total);
    cluster_share_flush(&run->cluster);
}

static int make_dirs(char *path)
{
    for (char *p = path + 1; *p != '\0'; p++) {
        if (*p == '/') {
            *p = '\0';
            int ret = mkdir(path, 0755);
            *p = '/';
            if (ret != 0 && errno != EEXIST) {
                return -errno;
            }
        }
    }
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        return -errno;
    }
    return 0;
}

bool cli_profile_auto_plot(const struct profile_run *run)
{
    return run->cfg.auto_plot && !run->cfg.no_auto_plot;
}

int cli_profile_artifact_dir(struct profile_run *run, char *out, size_t cap)
{
    const struct profile_config *cfg = &run->cfg;
    if (run->run_dir != NULL) {
        snprintf(out, cap, "%s", run->run_dir);
    } else if (cfg->artifact_dir_set) {
        snprintf(out, cap, "%s", cfg->artifact_dir);
    } else {
        char model[256];
        snprintf(model, sizeof(model), "%s%s", cfg->models.items[0],
                 cfg->models.count > 1 ? "_multi" : "");
        for (char *p = model; *p != '\0'; p++) {
            if (*p == '/') {
                *p = '_';
            }
        }
        char stimulus[96];
        workload_stimulus(cfg, &run->engine, run->requests.fixed_schedule || cfg->fixed_schedule,
                          stimulus, sizeof(stimulus));
        snprintf(out, cap, "%s/%s-openai-%s-%s", cfg->artifact_dir, model,
                 config_endpoint_type_name(cfg->endpoint_type), stimulus);
    }
    int ret = make_dirs(out);
    if (ret != 0) {
        fprintf(stderr, "ringperf profile: --artifact-dir: cannot create '%s': %s\n", out,
                strerror(-ret));
    }
    return ret;
}

static void configure_engine(struct profile_run *run)
{
    const struct profile_config *cfg = &run->cfg;
    struct engine_config *e = &run->engine;
    e->endpoint_type = run->requests.type;
    e->reader = &run->requests.reader;
    e->streaming = cfg->streaming;
    e->session_header = cfg->session_header;
    e->conn_reuse = cfg->connection_reuse == CONFIG_REUSE_NEVER    ? ENGINE_REUSE_NEVER
                    : cfg->connection_reuse == CONFIG_REUSE_STICKY ? ENGINE_REUSE_STICKY
                                                                   : ENGINE_REUSE_POOLED;
    workload_phase_configure(cfg, run->seed, &run->load, e);
    e->request_timeout_ns = (uint64_t)(cfg->request_timeout_seconds * 1e9);
    if (endpoint_type_polls(run->requests.type)) {
        run->jobs = (struct engine_jobs){
            .poll_interval_ns = (int64_t)(cfg->video_poll_interval_s * 1e9),
            .download = cfg->download_video_content,
        };
        e->jobs = &run->jobs;
    }
    e->shard_count = cfg->workers_max > 0 ? (uint32_t)cfg->workers_max : 0;
    e->pin_shards = true;
    e->stop_grace_ns = STOP_GRACE_NS;
    e->request_id_nonce = ((uint64_t)time(NULL) << 20) ^ (uint64_t)getpid();
    /* Not an AIPerf flag: bench/ compares kernel receive timestamps with user-space ones. */
    const char *user_ts = getenv("RINGPERF_USER_TIMESTAMPS");
    e->user_timestamps = user_ts != NULL && strcmp(user_ts, "1") == 0;
}

/* write_sent_inputs rewrites a multi-turn run's inputs.json once the turns are sent: each
 * payload as its conversation's first play sent it, the replies in its history, so that a
 * replay of the file sends the same requests. */
static int write_sent_inputs(struct profile_run *run, char *errbuf, size_t errcap)
{
    const char *inputs_dir = cluster_share_inputs_dir(&run->cluster, run->artifact_dir);
    int ret = inputs_dir != NULL ? workload_requests_write_inputs(inputs_dir, &run->requests) : 0;
    if (ret != 0) {
        snprintf(errbuf, errcap, "cannot write %s/inputs.json: %s", inputs_dir, strerror(-ret));
    }
    return ret;
}

/* stop_profiler stops the server profiler --server-profiler started, even
 * after Ctrl-C; a failure is a warning, as the run's results stand. */
static void stop_profiler(struct profile_run *run)
{
    char errbuf[512];
    struct engine_stop own = {0};
    if (cli_control_hook(&run->cfg, &run->engine, CLI_HOOK_PROFILER_STOP, &own, errbuf,
                         sizeof(errbuf)) != 0) {
        fprintf(stderr, "ringperf profile: warning: %s\n", errbuf);
    }
}

int cli_profile_execute(struct profile_run *run)
{
    char errbuf[512];
    struct cli_signals *signals = &run->signals;
    struct engine_record_sink sink = {
        .on_record = on_record,
        .on_progress = on_progress,
        .on_shards = on_shards,
        .on_finish = on_finish,
        .ctx = run,
        .progress_interval_ns = CLI_PROGRESS_INTERVAL_NS,
    };
    int ret = cli_wait_for_model(&run->cfg, &run->probes, &run->stop, errbuf, sizeof(errbuf));
    /* Not ready in time, or Ctrl-C while waiting: said already; no run, no exports. */
    bool not_ready = ret == -ETIMEDOUT || ret == -ECANCELED;
    if (ret == 0) {
        if (run->cluster.index == 0) { /* the run's, not each share's */
            cli_scrapers_start(&run->scrapers, &run->targets, run->requests.headers,
                               run->requests.header_count);
            run->live.server_scrape = run->scrapers.metrics;
            run->live.gpu_scrape = run->scrapers.gpus;
        }
        cli_live_phase(&run->live, "warmup");
        ret = cli_warmup_run(run, errbuf, sizeof(errbuf));
        cli_live_phase(&run->live, "profiling");
    }
    /* The control hooks are the run's, not each share's: the first share makes them. */
    bool hooks = run->cluster.index == 0;
    if (ret == 0 && hooks) {
        ret = cli_control_hook(&run->cfg, &run->engine, CLI_HOOK_RESET_KV_CACHE, &run->stop, errbuf,
                               sizeof(errbuf));
    }
    if (ret == 0 && hooks) {
        ret = cli_control_hook(&run->cfg, &run->engine, CLI_HOOK_PROFILER_START, &run->stop, errbuf,
                               sizeof(errbuf));
    }
    bool profiler_started =
        ret == 0 && hooks && cli_control_hook_wanted(&run->cfg, CLI_HOOK_PROFILER_START);
    if (ret == 0) {
        ret = cluster_share_start(&run->cluster, &run->cfg, &run->engine, errbuf, sizeof(errbuf));
    }
    run->exp.start_wall_ns = export_wall_now_ns();
    struct netlatency *prober = NULL;
    if (ret == 0) {
        ret = cli_netprobe_start(&run->cfg, &prober, errbuf, sizeof(errbuf));
    }
    /* The signal watcher may be setting the flag right now: read it as it is written. */
    if (ret == 0 && !__atomic_load_n(&run->stop.requested, __ATOMIC_ACQUIRE)) {
        if (run->requests.multi_turn) {
            workload_sessions_keep_sent(&run->requests.sessions, true);
        }
        /* Only the profiling phase: warmup, probes and hooks copy run->engine. */
        cli_shards_arm(run);
        cli_scrapers_phase(&run->scrapers, SCRAPE_PHASE_PROFILING);
        ret = engine_run(&run->engine, &sink, &run->stop, errbuf, sizeof(errbuf));
        cli_scrapers_stop(&run->scrapers);
        run->engine.record_hook = NULL;
        if (ret == 0 && run->requests.multi_turn) {
            ret = write_sent_inputs(run, errbuf, sizeof(errbuf));
        }
    }
    if (cli_netprobe_finish(prober, &run->results, &run->exp.paths) != 0 && ret == 0) {
        run->export_error = -EIO;
    }
    if (profiler_started) {
        stop_profiler(run);
    }
    cli_live_end_display(&run->live);
    /* A run a signal stopped exits 128 + the signal, as shells expect, its exports written. */
    if (not_ready) {
        cli_live_finish(&run->live, &run->results, true, NULL);
        return cli_signals_exit_status(signals, 1);
    }
    if (ret != 0) {
        fprintf(stderr, "ringperf profile: %s\n", errbuf);
        cli_live_finish(&run->live, &run->results, true, NULL);
        return 1;
    }
    return cli_report_finish(run, signals);
}

/* load_tokenizer finds the tokenizer as AIPerf does (--tokenizer, else the
 * model's Hugging Face cache; never the network). Without one the run still
 * goes ahead on the server's token counts, but a --tokenizer that cannot be
 * loaded is an error. */
static int load_tokenizer(struct profile_run *run)
{
    char path[4096];
    char err[1024];
    if (tokenizer_resolve(run->cfg.tokenizer, run->cfg.models.items[0], run->cfg.tokenizer_revision,
                          path, sizeof(path), err, sizeof(err)) == 0 &&
        tokenizer_load(path, &run->tokenizer, err, sizeof(err)) == 0) {
        return 0;
    }
    run->tokenizer = NULL;
    if (run->cfg.tokenizer_revision != NULL) {
        /* A revision asked for by name is not silently replaced by server counts. */
        fprintf(stderr, "ringperf profile: %s\n", err);
        return -EINVAL;
    }
    if (run->cfg.tokenizer != NULL) {
        fprintf(stderr, "ringperf profile: --tokenizer: %s\n", err);
        return -EINVAL;
    }
    fprintf(stderr,
            "ringperf profile: no tokenizer for %s (%s). Token counts come from the server's "
            "usage reports, as with --use-server-token-count, and synthetic prompts are --isl "
            "words long rather than tokens. Give --tokenizer FILE|DIR to count tokens exactly.\n",
            run->cfg.models.items[0], err);
    return 0;
}

/* session_input_tokens gives metrics/ a multi-turn turn's input tokens, its
 * history included, from the run's conversations. */
static int64_t session_input_tokens(void *ctx, const struct record *record, int64_t output_tokens)
{
    return workload_sessions_input_tokens(ctx, record, output_tokens);
}

/* conversation_name gives export/ the name inputs.json gives the conversation a record
 * played, its join key. */
static const char *conversation_name(const void *ctx, const struct record *record, char *scratch,
                                     size_t cap, size_t *out_len)
{
    return workload_requests_conversation_name(ctx, record, scratch, cap, out_len);
}

/* prepare_results sets up the run's results: how each record becomes metrics
 * (its tokenizer, its payloads' input tokens, its conversations) and the send
 * lag histogram. Returns 0, or the exit status after printing why. */
static int prepare_results(struct profile_run *run)
{
    struct metrics_results_options results_opts = {
        /* AIPerf's streaming metrics (TTFT, ITL, ...) are STREAMING_TOKENS_ONLY: a streamed
         * image generation has none. */
        .streaming = run->engine.streaming && endpoint_type_produces_tokens(run->requests.type),
        .use_server_token_count = run->cfg.use_server_token_count,
        .per_chunk_usage = run->cfg.per_chunk_usage,
        .goodput = run->cfg.goodput,
        .network_rtt_given = config_flag_given(&run->cfg, "--network-latency-mean"),
        .network_rtt_ns = (int64_t)(run->cfg.network_latency_mean_ms * 1e6),
    };
    char errbuf[512];
    int ret = metrics_results_init(&run->results, &results_opts, errbuf, sizeof(errbuf));
    if (ret == -EINVAL) {
        fprintf(stderr, "ringperf profile: %s\n", errbuf);
    }
    run->results.tokenizer = run->tokenizer;
    /* AIPerf's TOKENIZES_INPUT_ONLY metrics (ISL, ...): none for image_retrieval. */
    run->results.payload_isl =
        endpoint_type_tokenizes_input(run->requests.type) ? run->requests.payload_isl : NULL;
    run->results.payload_images = run->requests.payload_images;
    run->results.payload_audio_seconds = run->requests.payload_audio_seconds;
    /* AIPerf's PRODUCES_TOKENS_ONLY and TOKENIZES_INPUT_ONLY metrics, by endpoint metadata. */
    run->results.produces_tokens = endpoint_type_produces_tokens(run->requests.type);
    run->results.produces_video = endpoint_type_polls(run->requests.type);
    run->results.tokenizes_input = endpoint_type_tokenizes_input(run->requests.type);
    run->results.output_token_ids = endpoint_type_token_ids(run->requests.type);
    run->results.payload_osl = run->requests.payload_osl;
    if (run->requests.multi_turn) {
        run->results.session_input_tokens = session_input_tokens;
        run->results.session_ctx = &run->requests.sessions;
    }
    run->exp.conversation_name = conversation_name;
    run->exp.conversation_ctx = &run->requests;
    run->results.open_loop = run->engine.schedule != NULL;
    run->results.fixed_schedule = run->requests.fixed_schedule;
    /* The warmup's results count tokens as the run's do, but leave the
     * conversations' histories to the profiling phase. */
    if (ret == 0) {
        ret = metrics_results_init(&run->warmup, &results_opts, errbuf, sizeof(errbuf));
        run->warmup.tokenizer = run->tokenizer;
        run->warmup.payload_isl = run->results.payload_isl;
        run->warmup.payload_osl = run->requests.payload_osl;
        run->warmup.payload_images = run->requests.payload_images;
        run->warmup.payload_audio_seconds = run->requests.payload_audio_seconds;
        run->warmup.produces_tokens = run->results.produces_tokens;
        run->warmup.produces_video = run->results.produces_video;
        run->warmup.tokenizes_input = run->results.tokenizes_input;
        run->warmup.output_token_ids = run->results.output_token_ids;
    }
    if (ret == 0 && metrics_hist_new(1, 3600LL * 1000 * 1000 * 1000, 3, &run->send_lag) != 0) {
        ret = -ENOMEM;
    }
    if (ret == 0) {
        ret = cli_shards_prepare(run, &results_opts);
    }
    if (ret != 0) {
        fprintf(stderr, "%s", ret == -ENOMEM ? "ringperf profile: out of memory\n" : "");
        return 1;
    }
    return 0;
}

/* reserve_descriptors makes room for the descriptors of this process's
 * share of the run, warmup included, before anything is sent or written. */
static int reserve_descriptors(const struct profile_run *run)
{
    struct workload_phase warm_load = {0};
    struct engine_config warm;
    bool warmup = workload_phase_warmup(&run->cfg, run->seed, &run->engine, &warm_load, &warm);
    return cli_descriptors_reserve(
        cli_descriptors_needed(&run->cfg, &run->engine, warmup ? &warm : NULL));
}

/* write_first_files starts the run's set of files in its directory: an earlier run's files
 * there go first (no mix of two runs), then inputs.json and the per-request files. */
static int write_first_files(struct profile_run *run)
{
    int ret = export_run_clear(run->artifact_dir, &run->cfg);
    if (ret != 0) {
        fprintf(stderr, "ringperf profile: cannot remove the earlier run's files in %s: %s\n",
                run->artifact_dir, strerror(-ret));
        return 1;
    }
    const char *inputs_dir = cluster_share_inputs_dir(&run->cluster, run->artifact_dir);
    ret = inputs_dir != NULL ? workload_requests_write_inputs(inputs_dir, &run->requests) : 0;
    if (ret != 0) {
        fprintf(stderr, "ringperf profile: cannot write %s/inputs.json: %s\n", inputs_dir,
                strerror(-ret));
        return 1;
    }
    ret = export_run_open(&run->exp, run->artifact_dir, &run->cfg);
    if (ret != 0) {
        fprintf(stderr, "ringperf profile: cannot create the exports in %s: %s\n",
                run->artifact_dir, strerror(-ret));
        return 1;
    }
    return 0;
}

/* collect_secrets lists the credentials the run sends (the API key, and the
 * value of every header config_header_is_sensitive names), for the engine to
 * redact from responses. */
static void collect_secrets(struct profile_run *run)
{
    if (run->cfg.api_key != NULL) {
        record_secrets_add(&run->secrets, run->cfg.api_key, strlen(run->cfg.api_key));
    }
    for (size_t i = 0; i < run->requests.header_count; i++) {
        const struct http_header *h = &run->requests.headers[i];
        if (config_header_is_sensitive(h->name, h->name_len)) {
            record_secrets_add(&run->secrets, h->value, h->value_len);
        }
    }
    for (size_t i = 0; i < run->targets.count; i++) {
        const char *basic = run->targets.targets[i].authorization;
        record_secrets_add(&run->secrets, basic, strlen(basic));
    }
    run->engine.secrets = &run->secrets;
}

int cli_profile_prepare_session(struct profile_run *run)
{
    char errbuf[512];
    if (workload_requests_type(&run->cfg, &run->requests.type) != 0 ||
        cli_targets_resolve(&run->targets, &run->cfg) != 0) {
        return CONFIG_EXIT_INVALID;
    }
    if (engine_probe(errbuf, sizeof(errbuf)) != 0) {
        fprintf(stderr, "ringperf profile: %s\n", errbuf);
        return 1;
    }
    return load_tokenizer(run) != 0 ? CONFIG_EXIT_INVALID : 0;
}

/* prepare_requests makes the run's payloads, or keeps the last run's when they were made
 * for the same lengths and seed: a sweep over concurrency sends the same requests. A
 * multi-turn run's conversations keep state, so they are made anew. */
static int prepare_requests(struct profile_run *run)
{
    const struct profile_config *cfg = &run->cfg;
    if (run->requests_ready && !run->requests.multi_turn &&
        run->requests_isl == cfg->isl_tokens_mean && run->requests_osl == cfg->osl_tokens_mean &&
        run->requests_seed == run->seed) {
        return 0;
    }
    enum endpoint_type type = run->requests.type;
    workload_requests_free(&run->requests);
    run->requests = (struct workload_requests){.type = type};
    run->requests_ready = false;
    if (workload_requests_prepare(cfg, run->seed, run->tokenizer, &run->requests) != 0) {
        return CONFIG_EXIT_INVALID;
    }
    run->requests_ready = true;
    run->requests_isl = cfg->isl_tokens_mean;
    run->requests_osl = cfg->osl_tokens_mean;
    run->requests_seed = run->seed;
    return 0;
}

/* prepare_load gives the engine this run's load and payloads. */
static void prepare_load(struct profile_run *run)
{
    if (run->requests.inputs != NULL) {
        workload_phase_inputs(&run->cfg, run->requests.schedule_offsets_ns,
                              run->requests.multi_turn ? run->requests.sessions.conv_count
                                                       : run->requests.payload_count,
                              run->requests.multi_turn ? run->requests.sessions.turn_count
                                                       : run->requests.payload_count,
                              &run->load, &run->engine);
    }
    run->engine.payloads = run->requests.payloads;
    run->engine.payload_count = run->requests.payload_count;
    run->engine.content_type =
        run->requests.content_type[0] != '\0' ? run->requests.content_type : NULL;
    if (run->requests.multi_turn) {
        workload_phase_sessions(&run->cfg, &run->requests.sessions.engine, true, &run->load,
                                &run->engine);
    }
    run->engine.extra_headers = run->requests.headers;
    run->engine.extra_header_count = run->requests.header_count;
}

int cli_profile_configure(struct profile_run *run)
{
    run->engine =
        (struct engine_config){.targets = run->targets.targets, .target_count = run->targets.count};
    run->load = (struct workload_phase){0};
    run->seed = run->cfg.random_seed_set ? (uint64_t)run->cfg.random_seed
                                         : ((uint64_t)time(NULL) << 16) ^ (uint64_t)getpid();
    if (cluster_share_seed(&run->cluster, &run->seed) != 0) {
        return 1;
    }
    configure_engine(run);
    return 0;
}

int cli_profile_prepare_run(struct profile_run *run)
{
    int ret = cli_profile_configure(run);
    if (ret != 0) {
        return ret;
    }
    cli_realtime_prepare(&run->cfg, &run->engine, &run->realtime);
    cli_report_slices_ahead(&run->cfg);
    ret = prepare_requests(run);
    if (ret != 0) {
        return ret;
    }
    prepare_load(run);
    run->secrets = (struct record_secrets){0};
    collect_secrets(run);
    if (cli_aws_prepare(&run->aws, &run->cfg, &run->engine, &run->secrets) != 0) {
        return CONFIG_EXIT_INVALID;
    }
    if (cli_readiness_prepare(&run->probes, &run->cfg, &run->engine, run->requests.type) != 0) {
        return CONFIG_EXIT_INVALID;
    }
    if (cli_profile_artifact_dir(run, run->artifact_dir, sizeof(run->artifact_dir)) != 0) {
        return 1;
    }
    int split = cluster_share_prepare(&run->cluster, &run->cfg, run->seed, &run->load, &run->engine,
                                      run->artifact_dir, sizeof(run->artifact_dir));
    if (split != 0) {
        return split;
    }
    if (reserve_descriptors(run) != 0) {
        return 1;
    }
    run->exp.streaming = run->engine.streaming;
    run->exp.request_id_nonce = run->engine.request_id_nonce;
    ret = prepare_results(run);
    if (ret != 0) {
        return ret;
    }
    struct cluster_share_shards shards = {.count = &run->live.shard_count,
                                          .rows = run->live.shards};
    if (cluster_share_live_attach(&run->cluster, &shards, &run->results) != 0) {
        return 1;
    }
    if (run->cluster.mpi) {
        run->live.on_snapshot = cluster_share_live_snapshot;
        run->live.on_snapshot_ctx = &run->cluster;
    }
    run->live.stop = &run->stop;
    run->live.point_info = run->point_info;
    if (run->point_info != NULL) {
        run->live.report_dir = run->plot_dir;
        run->live.hold = &run->held_api;
    }
    run->live.open_loop = run->engine.schedule != NULL;
    /* Before the live API's thread starts, so that it inherits the CPUs apart. */
    cli_realtime_start(&run->realtime, &run->engine);
    /* MPI rank 0 serves the top directory, where the merged exports go. The API's port is
     * the last check that can refuse the run: nothing is written before it. */
    const char *served = run->cluster.mpi ? run->cluster.top_dir : run->artifact_dir;
    if (cli_live_start(&run->live, &run->cfg, served, run->engine.request_id_nonce) != 0) {
        return 1;
    }
    return write_first_files(run);
}

void cli_profile_release_run(struct profile_run *run)
{
    run->live.server_scrape = NULL;
    run->live.gpu_scrape = NULL;
    cli_scrapers_free(&run->scrapers); /* before the targets they borrow */
    cli_live_free(&run->live);
    export_run_close(&run->exp);
    metrics_results_free(&run->results);
    metrics_results_free(&run->warmup);
    cli_shards_release(run);
    export_intervals_free(&run->exp.intervals);
    metrics_hist_free(run->send_lag);
    cli_readiness_free(&run->probes);
    run->live = (struct cli_live){0};
    run->exp = (struct export_run){0};
    run->results = (struct metrics_results){0};
    run->warmup = (struct metrics_results){0};
    run->send_lag = NULL;
    run->probes = (struct cli_readiness_probes){0};
    /* The session's signal watcher may be storing a stop right now: clear it as it writes it.
     * A signal between runs also sets signals.stop_signal, which ends the session. */
    __atomic_store_n(&run->stop.requested, 0, __ATOMIC_RELEASE);
    run->threshold_exceeded = false;
    run->export_error = 0;
    run->engine_stats = (struct engine_run_stats){0};
}

static void release(struct profile_run *run)
{
    cli_profile_release_run(run);
    workload_requests_free(&run->requests);
    tokenizer_free(run->tokenizer);
    cli_readiness_free(&run->probes);
    cli_held_api_stop(&run->held_api);
    cli_aws_free(&run->aws);
    cli_targets_free(&run->targets);   /* after the engine freed every connection made from them */
    cluster_share_free(&run->cluster); /* last: leaves MPI */
    config_free(&run->cfg);
}

/* run_one is `ringperf profile` without repeats: one run in AIPerf's directory. */
static int run_one(struct profile_run *run)
{
    int ret = cli_profile_prepare_run(run);
    if (ret != 0) {
        return ret;
    }
    cli_signals_start(&run->signals, &run->stop, &run->cluster, STOP_GRACE_NS);
    ret = cli_profile_execute(run);
    cli_signals_end(&run->signals);
    snprintf(run->plot_dir, sizeof(run->plot_dir), "%s", run->artifact_dir);
    return ret;
}

int cli_profile_main(int argc, char **argv)
{
    struct profile_run *run = calloc(1, sizeof(*run));
    if (run == NULL) {
        fprintf(stderr, "ringperf profile: out of memory\n");
        return 1;
    }
    char errbuf[1024];
    int ret = config_parse_profile(argc - 1, argv + 1, &run->cfg, errbuf, sizeof(errbuf));
    if (ret == CONFIG_PARSE_HELP) {
        config_print_help(stdout);
        ret = 0;
    } else if (ret != 0) {
        fprintf(stderr, "ringperf profile: %s\nRun 'ringperf profile --help' for every flag.\n",
                errbuf);
        ret = CONFIG_EXIT_INVALID;
    } else {
        ret = cluster_share_init(&run->cluster, &run->cfg);
        ret = ret != 0 ? ret : cli_profile_prepare_session(run);
        if (ret == 0) {
            ret = config_is_multi_run(&run->cfg) ? cli_multi_main(run) : run_one(run);
        }
    }
    bool plot = ret == 0 && cli_profile_auto_plot(run) && !run->plotted;
    bool required = run->cfg.plot_required;
    release(run);
    if (plot) {
        ret = cli_plot_after_run(run->plot_dir, required, ret);
    }
    free(run);
    return ret;
}
