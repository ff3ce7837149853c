/*
 * config.h - the `ringperf profile` command line, compatible with NVIDIA AIPerf.
 *
 * ringperf accepts AIPerf's `aiperf profile` flags and aliases. One static table
 * describes every flag AIPerf documents (name, aliases, help group, value kind,
 * default, help text, and whether ringperf supports it yet); the parser, the help
 * printer and the command-line redactor all read that table.
 *
 * Parsing rules (the same as AIPerf's cyclopts front end):
 *   - `--flag value` and `--flag=value` are equivalent; switches take no value
 *     (`--streaming`), though `--streaming=true|false` is accepted.
 *   - List flags (`--model`, `--url`, `-H/--header`, `--extra-inputs`) may be
 *     repeated and also take several values at once (`--extra-inputs a:1 b:2`):
 *     they consume every following argument up to the next flag. `--model`
 *     also splits on commas.
 *   - A repeated non-list flag is not an error: the last value wins.
 *   - A flag AIPerf has but ringperf does not implement is rejected with a
 *     message naming it, never silently ignored.
 *
 * Nothing here keeps global state; a parsed `struct profile_config` owns copies
 * of everything it needs and does not borrow from argv.
 */
#ifndef RINGPERF_CONFIG_H
#define RINGPERF_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Limits. Exceeding one is a parse error naming the limit. */
#define CONFIG_ARGS_MAX 4096          /* arguments after the `profile` word */
#define CONFIG_ARG_BYTES_MAX 65536    /* bytes in one argument */
#define CONFIG_LIST_MAX 256           /* entries in one list (models, urls, extra inputs) */
#define CONFIG_HEADERS_MAX 64         /* custom headers */
#define CONFIG_HEADER_BYTES_MAX 8192  /* bytes in one header name plus value */
#define CONFIG_HOST_BYTES_MAX 255     /* host name or IP literal */
#define CONFIG_PATH_BYTES_MAX 4096    /* request target: path plus query */
#define CONFIG_USERINFO_BYTES_MAX 255 /* `user:password` in a URL */
#define CONFIG_CLI_COMMAND_BYTES_MAX (1u << 20)

/* CONFIG_TIME_MAX_SECONDS is the longest time a duration, delay, gap between requests or
 * schedule may span: 1e9 s, about 31.7 years. In nanoseconds (1e18) it stays well inside an
 * int64_t even added to the monotonic clock, a grace period and a timeout. */
#define CONFIG_TIME_MAX_SECONDS 1e9
/* CONFIG_TIME_MAX_TEXT is CONFIG_TIME_MAX_SECONDS as messages say it. */
#define CONFIG_TIME_MAX_TEXT "1e9 s (about 31 years)"

/* CONFIG_EXIT_INVALID is the exit status of a command line that is refused (a bad flag value, a
 * combination that cannot run, a missing file): 1, as AIPerf exits on a configuration error. A
 * run that fails exits 1 as well, so scripts test for zero, as they do with AIPerf. */
#define CONFIG_EXIT_INVALID 1

/* CONFIG_FLAGS_MAX bounds the flag table: each entry has one "given" bit in
 * profile_config.flags_given. */
#define CONFIG_FLAGS_MAX 512

/* CONFIG_PARSE_HELP is returned by config_parse_profile when -h/--help was given:
 * the caller prints config_print_help() and exits 0. */
#define CONFIG_PARSE_HELP 1

/* CONFIG_REDACTED is the text that replaces secrets in cli_command. */
#define CONFIG_REDACTED "<redacted>"

/* config_endpoint_type lists AIPerf's --endpoint-type values, in the order of
 * the spec's endpoint table. The old name `rankings` parses as NIM_RANKINGS. */
enum config_endpoint_type {
    CONFIG_ENDPOINT_CHAT,
    CONFIG_ENDPOINT_COMPLETIONS,
    CONFIG_ENDPOINT_RESPONSES,
    CONFIG_ENDPOINT_MESSAGES,
    CONFIG_ENDPOINT_EMBEDDINGS,
    CONFIG_ENDPOINT_CHAT_EMBEDDINGS,
    CONFIG_ENDPOINT_NIM_EMBEDDINGS,
    CONFIG_ENDPOINT_NIM_RANKINGS,
    CONFIG_ENDPOINT_COHERE_RANKINGS,
    CONFIG_ENDPOINT_HF_TEI_RANKINGS,
    CONFIG_ENDPOINT_HUGGINGFACE_GENERATE,
    CONFIG_ENDPOINT_IMAGE_GENERATION,
    CONFIG_ENDPOINT_IMAGE_EDIT,
    CONFIG_ENDPOINT_VIDEO_GENERATION,
    CONFIG_ENDPOINT_IMAGE_RETRIEVAL,
    CONFIG_ENDPOINT_AUDIO_TRANSCRIPTION,
    CONFIG_ENDPOINT_SOLIDO_RAG,
    CONFIG_ENDPOINT_RAW,
    CONFIG_ENDPOINT_TEMPLATE,
    CONFIG_ENDPOINT_SGLANG_GENERATE,
    CONFIG_ENDPOINT_VLLM_GENERATE,
    CONFIG_ENDPOINT_COUNT
};

/* config_ui_type is --ui-type. CONFIG_UI_AUTO means "not given": AIPerf picks
 * dashboard on a TTY, none otherwise, and simple with -v/-vv on a TTY; the
 * caller resolves it because only the caller knows about the terminal. */
enum config_ui_type { CONFIG_UI_DASHBOARD, CONFIG_UI_SIMPLE, CONFIG_UI_NONE, CONFIG_UI_AUTO };

/* config_arrival_pattern is --arrival-pattern/--request-rate-mode. */
enum config_arrival_pattern {
    CONFIG_ARRIVAL_POISSON,
    CONFIG_ARRIVAL_CONSTANT,
    CONFIG_ARRIVAL_GAMMA,
    CONFIG_ARRIVAL_CONCURRENCY_BURST,
};

/* config_export_level is --export-level: summary writes no per-request file,
 * records (the default) writes profile_export.jsonl, raw adds
 * profile_export_raw.jsonl. */
enum config_export_level { CONFIG_EXPORT_RECORDS, CONFIG_EXPORT_SUMMARY, CONFIG_EXPORT_RAW };

/* config_conn_reuse is --connection-reuse-strategy: pooled keep-alive
 * connections (the default), a new connection for every request, or one for
 * each conversation, closed after its last turn. */
enum config_conn_reuse { CONFIG_REUSE_POOLED, CONFIG_REUSE_NEVER, CONFIG_REUSE_STICKY };

/* config_auth_type is --auth-type: how requests are authenticated beyond --api-key. */
enum config_auth_type { CONFIG_AUTH_NONE, CONFIG_AUTH_SIGV4 };

/* config_cache_bust is --cache-bust: where a per-conversation marker goes. */
enum config_cache_bust {
    CONFIG_CACHE_BUST_NONE,
    CONFIG_CACHE_BUST_SYSTEM_PREFIX,
    CONFIG_CACHE_BUST_SYSTEM_SUFFIX,
    CONFIG_CACHE_BUST_FIRST_TURN_PREFIX,
    CONFIG_CACHE_BUST_FIRST_TURN_SUFFIX,
};

/* config_wait_mode is --wait-for-model-mode: what a readiness probe asks. */
enum config_wait_mode { CONFIG_WAIT_INFERENCE, CONFIG_WAIT_MODELS, CONFIG_WAIT_BOTH };

/* config_model_selection is --model-selection-strategy. AIPerf's weighted
 * strategy is not supported yet. */
enum config_model_selection { CONFIG_MODEL_SELECTION_ROUND_ROBIN, CONFIG_MODEL_SELECTION_RANDOM };

/* config_log_level is --log-level, most verbose first. */
enum config_log_level {
    CONFIG_LOG_TRACE,
    CONFIG_LOG_DEBUG,
    CONFIG_LOG_INFO,
    CONFIG_LOG_NOTICE,
    CONFIG_LOG_WARNING,
    CONFIG_LOG_SUCCESS,
    CONFIG_LOG_ERROR,
    CONFIG_LOG_CRITICAL
};

/* config_image_format is --image-format; random picks png or jpeg per image. */
enum config_image_format { CONFIG_IMAGE_PNG, CONFIG_IMAGE_JPEG, CONFIG_IMAGE_RANDOM };

/* config_audio_format is --audio-format. */
enum config_audio_format { CONFIG_AUDIO_WAV, CONFIG_AUDIO_MP3 };

/* CONFIG_MEDIA_BATCH_MAX bounds --image-batch-size and --audio-batch-size. */
#define CONFIG_MEDIA_BATCH_MAX 64

/* config_strlist is an owned array of owned NUL-terminated strings. */
struct config_strlist {
    char **items;
    size_t count;
};

/* config_header is one custom request header from -H/--header, split at the
 * first ':' with surrounding blanks trimmed. The name is an RFC 9110 token; the
 * value has no control characters except tab. Both strings are owned. */
struct config_header {
    char *name;
    char *value;
};

/* config_sweep_param is one parameter a comma list sweeps (AIPerf's in-process sweep): the
 * CLI flag --concurrency, --request-rate, --isl, --osl, --benchmark-duration or --num-users.
 * A YAML `sweep:` section maps its keys onto the same values. */
enum config_sweep_param {
    CONFIG_SWEEP_CONCURRENCY,
    CONFIG_SWEEP_REQUEST_RATE,
    CONFIG_SWEEP_ISL,
    CONFIG_SWEEP_OSL,
    CONFIG_SWEEP_BENCHMARK_DURATION,
    CONFIG_SWEEP_NUM_USERS,
    CONFIG_SWEEP_PARAM_COUNT
};

/* Limits of a sweep: values of one parameter, and cells (runs per trial) in all. */
#define CONFIG_SWEEP_VALUES_MAX 64
#define CONFIG_SWEEP_CELLS_MAX 1024
/* CONFIG_PROFILE_RUNS_MAX is AIPerf's bound on --num-profile-runs. */
#define CONFIG_PROFILE_RUNS_MAX 10

/* config_sweep_type is --sweep-type: every combination of the lists (grid), or the i-th
 * value of every list together (zip, lists of one length). */
enum config_sweep_type { CONFIG_SWEEP_GRID, CONFIG_SWEEP_ZIP };

/* config_sweep_mode is --parameter-sweep-mode: with --num-profile-runs > 1, every cell once
 * per trial (repeated), or every trial of a cell before the next cell (independent). */
enum config_sweep_mode { CONFIG_SWEEP_REPEATED, CONFIG_SWEEP_INDEPENDENT };

/* config_convergence_mode is --convergence-mode. */
enum config_convergence_mode {
    CONFIG_CONVERGENCE_CI_WIDTH,
    CONFIG_CONVERGENCE_CV,
    CONFIG_CONVERGENCE_DISTRIBUTION
};

/* config_sweep_dim is one swept parameter and its values, in the order given. */
struct config_sweep_dim {
    enum config_sweep_param param;
    size_t count; /* >= 2 */
    double values[CONFIG_SWEEP_VALUES_MAX];
};

/* config_sweep is the parameter sweep of a run (dim_count 0: none). Holds no pointers. */
struct config_sweep {
    struct config_sweep_dim dims[CONFIG_SWEEP_PARAM_COUNT]; /* in command-line order */
    size_t dim_count;
    enum config_sweep_type type; /* --sweep-type; default grid */
    enum config_sweep_mode mode; /* --parameter-sweep-mode; default repeated */
    double cooldown_seconds;     /* --parameter-sweep-cooldown-seconds; default 0 */
    bool same_seed;              /* --parameter-sweep-same-seed; default false */
    bool seed_per_cell;          /* --no-parameter-sweep-same-seed */
};

/* config_multi_run is how often a run is repeated and how the repeats are summarised
 * (--num-profile-runs and its companions). convergence_metric NULL: a fixed count. */
struct config_multi_run {
    int64_t num_profile_runs;                      /* 1..10; default 1 */
    double confidence_level;                       /* inside (0, 1); default 0.95 */
    double cooldown_seconds;                       /* --profile-run-cooldown-seconds; default 0 */
    bool disable_warmup_after_first;               /* default true */
    bool warmup_every_run;                         /* --no-profile-run-disable-warmup-after-first */
    bool set_consistent_seed;                      /* default true: seed 42 without --random-seed */
    bool seed_per_run;                             /* --no-set-consistent-seed */
    char *convergence_metric;                      /* a metric tag, e.g. time_to_first_token */
    char *convergence_stat;                        /* NULL = avg */
    double convergence_threshold;                  /* default 0.10 */
    enum config_convergence_mode convergence_mode; /* default ci_width */
};

/* profile_config is the parsed and validated `ringperf profile` command line.
 * Every pointer is owned by the struct and released by config_free(). Optional
 * numbers use 0 (or a `_set` flag where 0 is a legal value) for "not given". */
struct profile_config {
    /* Endpoint */
    struct config_strlist models;            /* -m/--model/--model-names; >= 1 entry */
    struct config_strlist urls;              /* -u/--url; >= 1 entry, default localhost:8000 */
    enum config_endpoint_type endpoint_type; /* default chat */
    char *custom_endpoint;                   /* --endpoint/--custom-endpoint; NULL = not given,
                                                "" = append no path */
    bool streaming;                          /* effective: false if the endpoint cannot stream */
    bool streaming_requested;                /* --streaming as given */
    double request_timeout_seconds;          /* > 0, default 600 */
    char *api_key;                           /* NULL = none; a secret, never log it */
    /* AWS SigV4 (--auth-type sigv4, or implied by --sagemaker-endpoint-name). The
     * credentials are never flags: see sigv4_credentials_load(). */
    enum config_auth_type auth_type; /* effective: SIGV4 also with a SageMaker endpoint */
    char *aws_region;                /* --aws-region; required for SigV4 */
    char *aws_service;               /* --aws-service; "sagemaker" for a SageMaker endpoint */
    char *aws_profile;               /* --aws-profile; NULL = the environment, then AWS_PROFILE */
    char *sagemaker_endpoint_name;   /* --sagemaker-endpoint-name; NULL = none */
    /* SageMaker routing, sent as X-Amzn-SageMaker-* headers; NULL = not sent. */
    char *sagemaker_target_model;        /* --sagemaker-target-model (not when streaming) */
    char *sagemaker_target_variant;      /* --sagemaker-target-variant */
    char *sagemaker_inference_component; /* --sagemaker-inference-component-name */
    bool use_legacy_max_tokens;
    /* video_generation: fetch each finished video (--download-video-content), and the seconds
     * between two polls of a job (AIPERF_HTTP_VIDEO_POLL_INTERVAL, 0.1 by default). */
    bool download_video_content;
    double video_poll_interval_s;
    bool use_server_token_count;
    bool per_chunk_usage;                    /* --per-chunk-usage */
    enum config_conn_reuse connection_reuse; /* --connection-reuse-strategy */
    char *session_header;                    /* --session-header; NULL = X-Correlation-ID */
    double wait_for_model_seconds;           /* --wait-for-model-timeout; 0 = do not wait */
    enum config_wait_mode wait_for_model_mode;
    double wait_for_model_interval_seconds; /* > 0, default 5 */
    /* Control hooks: each is on when its switch or any of its other flags is given. */
    bool reset_kv_cache;                    /* --reset-kv-cache */
    double reset_kv_cache_timeout_seconds;  /* > 0, default 30 */
    char *reset_kv_cache_path;              /* NULL = /reset_prefix_cache */
    bool server_profiler;                   /* --server-profiler */
    double server_profiler_timeout_seconds; /* > 0, default 30 */
    char *server_profiler_start_path;       /* NULL = /start_profile */
    char *server_profiler_stop_path;        /* NULL = /stop_profile */
    /* ringperf scrapes neither yet, so these only record the user's wish; AIPerf scripts pass
     * them in CI, where no exporter runs. */
    bool no_server_metrics;                       /* --no-server-metrics */
    struct config_strlist server_metrics;         /* --server-metrics: extra /metrics URLs */
    struct config_strlist server_metrics_formats; /* json|csv|jsonl; empty = json,csv */
    bool no_gpu_telemetry;                        /* --no-gpu-telemetry */
    struct config_strlist gpu_telemetry;          /* --gpu-telemetry: DCGM exporter URLs */
    /* TLS for https:// URLs (ringperf's flags; AIPerf reads only the environment) */
    char *tls_ca_file;   /* --tls-ca; NULL = SSL_CERT_FILE, else the system CA bundle */
    char *tls_cert_file; /* --tls-cert: client certificate chain (PEM) */
    char *tls_key_file;  /* --tls-key: its private key; NULL = the key is in tls_cert_file */
    bool tls_insecure;   /* --tls-insecure: certificates are not verified */
    /* Tokenizer */
    char *tokenizer;          /* NULL = not given (AIPerf: the first model) */
    char *tokenizer_revision; /* --tokenizer-revision; NULL = refs/main, else any snapshot */
    /* Input */
    struct config_header *headers; /* -H/--header, in command-line order */
    size_t header_count;
    struct config_strlist extra_inputs; /* --extra-inputs, raw `key:value` or JSON text */
    int64_t random_seed;                /* >= 0; valid only when random_seed_set */
    bool random_seed_set;
    char *input_file;                /* --input-file (file or directory); NULL = synthetic */
    char *custom_dataset_type;       /* --custom-dataset-type; NULL = auto-detect */
    char *dataset_sampling_strategy; /* sequential|random|shuffle; NULL = format default */
    int64_t isl_block_size;          /* --isl-block-size; valid when isl_block_size_set */
    bool isl_block_size_set;
    /* Fixed schedule (timestamped input files) */
    bool fixed_schedule;                    /* --fixed-schedule */
    bool no_fixed_schedule;                 /* --no-fixed-schedule: ignore trace timestamps */
    bool fixed_schedule_auto_offset;        /* shift the first timestamp to 0 */
    int64_t fixed_schedule_start_offset_ms; /* valid when ..._start_offset_set */
    bool fixed_schedule_start_offset_set;
    int64_t fixed_schedule_end_offset_ms; /* valid when ..._end_offset_set */
    bool fixed_schedule_end_offset_set;
    /* Input / output sequence length */
    int64_t isl_tokens_mean;  /* --isl; default 550 */
    double isl_tokens_stddev; /* --isl-stddev; default 0 */
    int64_t osl_tokens_mean;  /* --osl; valid only when osl_set */
    bool osl_set;
    double osl_tokens_stddev; /* --osl-stddev; default 0 */
    /* Load generator */
    int64_t concurrency;   /* >= 1; 0 = not given */
    int64_t request_count; /* --request-count/--num-requests; default 10 */
    bool request_count_set;
    double request_rate_per_second;              /* --request-rate; 0 = not given (closed loop) */
    double benchmark_duration_seconds;           /* 0 = not given */
    double benchmark_grace_period_seconds;       /* default 30; may be INFINITY */
    enum config_arrival_pattern arrival_pattern; /* default poisson; gamma when only
                                                    --arrival-smoothness is given */
    bool arrival_pattern_set;
    double arrival_smoothness; /* gamma shape k; valid when arrival_smoothness_set */
    bool arrival_smoothness_set;
    int64_t warmup_request_count;   /* 0 = no count-triggered warmup */
    double warmup_duration_seconds; /* 0 = no duration-triggered warmup */
    /* The warmup phase's load; each falls back to the profiling phase's when
     * not given (0, or the *_set flag false). */
    int64_t warmup_concurrency;
    int64_t warmup_prefill_concurrency;
    double warmup_request_rate;
    enum config_arrival_pattern warmup_arrival_pattern;
    bool warmup_arrival_pattern_set;
    double warmup_concurrency_ramp_seconds;
    double warmup_prefill_concurrency_ramp_seconds;
    double warmup_request_rate_ramp_seconds;
    double warmup_grace_period_seconds;          /* after --warmup-duration; may be INFINITY */
    bool warmup_grace_period_set;                /* not given: warmup requests always finish */
    double cancellation_rate_percent;            /* --request-cancellation-rate, 0..100 */
    double cancellation_delay_seconds;           /* --request-cancellation-delay, >= 0 */
    int64_t prefill_concurrency;                 /* --prefill-concurrency; 0 = no limit */
    double failed_request_threshold;             /* 0 = not given; stop above this failure ratio */
    double concurrency_ramp_seconds;             /* --concurrency-ramp-duration; 0 = none */
    double prefill_concurrency_ramp_seconds;     /* --prefill-concurrency-ramp-duration */
    int64_t num_dataset_entries;                 /* --num-dataset-entries; 0 = AIPerf's 100 */
    enum config_model_selection model_selection; /* default round_robin */
    char *seq_dist;                              /* --seq-dist text; NULL = not given */
    char *system_prompt;                         /* --system-prompt; NULL = none */
    char *system_prompt_file;                    /* --system-prompt-file; NULL = none */
    enum config_cache_bust cache_bust;           /* --cache-bust; default none */
    int64_t shared_system_prompt_length;         /* --shared-system-prompt-length; 0 = none */
    /* Multi-turn conversations (cli/sessions.c) */
    int64_t conversation_num;                 /* --conversation-num; 0 = not given */
    int64_t conversation_turn_mean;           /* --conversation-turn-mean; 0 = not given (1) */
    int64_t conversation_turn_stddev;         /* --conversation-turn-stddev */
    double conversation_turn_delay_mean_ms;   /* --conversation-turn-delay-mean */
    double conversation_turn_delay_stddev_ms; /* --conversation-turn-delay-stddev */
    double conversation_turn_delay_ratio;     /* --conversation-turn-delay-ratio (1.0) */
    bool conversation_turn_delay_ratio_set;
    /* Trace replay (cli/input_requests.c): 0 = not given */
    bool ignore_trace_delays;
    double inter_turn_delay_cap_seconds;
    double max_idle_gap_cap_seconds;
    double replay_speedup;    /* 0 = 1 */
    double user_centric_rate; /* --user-centric-rate QPS; 0 = not given */
    int64_t num_users;        /* --num-users; 0 = not given */
    /* Dataset extras (cli/prompt_extras.c, datasets/sharegpt.c) */
    int64_t prompt_batch_size;            /* --prompt-batch-size/-b: texts per embeddings
                                             request; default 1 */
    int64_t rankings_passages_mean;       /* passages per rankings request; default 1 */
    int64_t rankings_passages_stddev;     /* default 0 */
    int64_t rankings_passage_tokens_mean; /* tokens per passage; 0 = --isl */
    int64_t rankings_passage_tokens_stddev;
    int64_t rankings_query_tokens_mean; /* tokens per query; 0 = --isl */
    int64_t rankings_query_tokens_stddev;
    int64_t num_prefix_prompts;         /* --num-prefix-prompts pool size; 0 = none */
    int64_t prefix_prompt_length;       /* --prefix-prompt-length tokens; 0 = none */
    int64_t user_context_prompt_length; /* --user-context-prompt-length; 0 = none */
    char *public_dataset;               /* --public-dataset; only "sharegpt"; NULL = none */
    double request_rate_ramp_seconds;   /* --request-rate-ramp-duration; 0 = none */
    bool benchmark_grace_period_set;    /* only valid with --benchmark-duration */
    /* Output */
    char *artifact_dir;                    /* default "artifacts" */
    bool artifact_dir_set;                 /* AIPerf adds a per-run subdirectory only if unset */
    char *profile_export_prefix;           /* NULL = AIPerf's default file names */
    enum config_export_level export_level; /* --export-level; default records */
    double stats_interval_seconds;         /* --stats-interval; default 1 */
    bool export_outputs_json;              /* --export-outputs-json (implied by raw) */
    bool auto_plot;                        /* --auto-plot: ringperf plot after the run */
    bool no_auto_plot;                     /* --no-auto-plot: wins over --auto-plot */
    bool plot_required;                    /* --plot-required: a plot failure ends with 1 */
    bool export_http_trace;                /* --export-http-trace: trace_data on each record */
    bool show_trace_timing;                /* --show-trace-timing: the HTTP trace table */
    char *goodput;                         /* --goodput SLO text; NULL = not given */
    double slice_duration_seconds;         /* --slice-duration; 0 = not given */
    /* UI, service, workers */
    enum config_ui_type ui_type;     /* default CONFIG_UI_AUTO */
    enum config_log_level log_level; /* default INFO; -v gives DEBUG, -vv gives TRACE */
    bool verbose;                    /* -v/--verbose */
    bool extra_verbose;              /* -vv/--extra-verbose */
    int64_t workers_max;             /* --workers-max; 0 = default */
    /* --shard-index/--shard-count (not AIPerf flags): this process runs share
     * shard_index of shard_count of the run, as MPI rank shard_index would
     * (cli/cluster_run.c); shard_count 0 = not sharded. Without
     * --shard-index, JOB_COMPLETION_INDEX (Kubernetes Indexed Jobs). */
    int64_t shard_index;
    bool shard_index_set;
    int64_t shard_count;
    /* --realtime-priority N (not an AIPerf flag): run the shards at SCHED_FIFO
     * priority N (1..99), the other threads off the shards' CPUs, memory
     * locked; 0 = not given (normal scheduling). */
    int64_t realtime_priority;
    int64_t api_port;  /* --api-port 0..65535; valid only when api_port_set */
    bool api_port_set; /* the live API is on (AIPERF_API_SERVER_PORT: cli/) */
    char *api_host;    /* --api-host; NULL = 127.0.0.1 */
    char *api_token;   /* --api-token: the bearer token every route but the probes wants */
    double network_latency_mean_ms; /* --network-latency-mean; valid when its flag was given */
    bool network_latency_automatic; /* --network-latency-automatic: probe the round trip */
    double network_latency_ping_interval_s; /* between probes; 0 = 1 s */
    /* Images (--image-*; cli/media_inputs.c): sent when both means are > 0 */
    int64_t image_batch_size;              /* images per request, 0..64; default 1 */
    double image_width_mean_px;            /* 0 = no images */
    double image_width_stddev_px;          /* default 0 */
    double image_height_mean_px;           /* 0 = no images */
    double image_height_stddev_px;         /* default 0 */
    enum config_image_format image_format; /* default png */
    char *image_source;                    /* "assets" (NULL) or "noise"; no directories */
    /* Audio (--audio-*): sent when the length mean is > 0 */
    int64_t audio_batch_size;                 /* clips per request, 0..64; default 1 */
    double audio_length_mean_seconds;         /* 0 = no audio */
    double audio_length_stddev_seconds;       /* default 0 */
    enum config_audio_format audio_format;    /* default wav */
    struct config_strlist audio_depths;       /* bits, each 8|16|24|32; empty = [16] */
    struct config_strlist audio_sample_rates; /* kHz (values > 96 are Hz); empty = [16] */
    int64_t audio_num_channels;               /* 1 or 2; default 1 */
    /* Repeated runs and sweeps (config_sweep.c) */
    struct config_multi_run multi_run;
    struct config_sweep sweep;
    /* Provenance */
    char *config_file; /* -f/--config: the YAML file the run read first; NULL = none */
    char *cli_command; /* "ringperf profile ..." shell-quoted, secrets redacted */
    /* One bit per flag table entry, set when the flag was on the command line
     * (read it with config_flag_given). */
    uint64_t flags_given[CONFIG_FLAGS_MAX / 64];
};

/* config_sweep_cells returns how many cells cfg's sweep has: 1 without one, the product
 * of the lists' lengths for a grid, their common length for a zip. */
size_t config_sweep_cells(const struct profile_config *cfg);

/* config_sweep_cell_values writes cell `cell`'s value of every dim of cfg's sweep, in dim
 * order, into out (cfg->sweep.dim_count entries). Grid cells vary the last list fastest.
 * Returns false for a cell past config_sweep_cells. */
bool config_sweep_cell_values(const struct profile_config *cfg, size_t cell, double *out);

/* config_sweep_apply sets the field of cfg that param sweeps to value (an integer parameter
 * takes it rounded). */
void config_sweep_apply(struct profile_config *cfg, enum config_sweep_param param, double value);

/* config_sweep_param_name returns the name a sweep's files give param ("concurrency",
 * "request_rate", "isl", "osl", "benchmark_duration", "num_users"); static. */
const char *config_sweep_param_name(enum config_sweep_param param);

/* config_sweep_param_flag returns the flag that sweeps param ("--concurrency", "--isl"...),
 * the spelling a YAML sweep: section can hand config_parse_profile a list with; static. */
const char *config_sweep_param_flag(enum config_sweep_param param);

/* config_sweep_param_is_integer reports whether param takes whole numbers. */
bool config_sweep_param_is_integer(enum config_sweep_param param);

/* config_is_multi_run reports whether cfg asks for more than one run: a sweep, or
 * --num-profile-runs above 1. */
bool config_is_multi_run(const struct profile_config *cfg);

/* config_load_is_paced reports whether a phase of `rate` requests/s with `pattern` is an open
 * loop: a rate, with any pattern but concurrency_burst (AIPerf's name for "as fast as the
 * concurrency allows"). */
bool config_load_is_paced(double rate, enum config_arrival_pattern pattern);

/* config_profiling_concurrency is the profiling phase's concurrency as AIPerf resolves it:
 * --concurrency (a cap, in a paced run), else 1 in burst mode (no rate, no user-centric rate,
 * no fixed schedule), else 0: an uncapped paced, user-centric or --fixed-schedule run has
 * none. */
int64_t config_profiling_concurrency(const struct profile_config *cfg);

/* config_scheme is the scheme of a resolved URL. */
enum config_scheme { CONFIG_SCHEME_HTTP, CONFIG_SCHEME_HTTPS };

/* config_target is one --url resolved against the endpoint: where to connect
 * and what to put in the request line. Caller-allocated; holds no pointers. */
struct config_target {
    enum config_scheme scheme;
    uint16_t port;                                /* default 80 (http) / 443 (https) */
    char host[CONFIG_HOST_BYTES_MAX + 1];         /* for getaddrinfo: no IPv6 brackets */
    char authority[CONFIG_HOST_BYTES_MAX + 9];    /* Host header: host, [v6], ":port"
                                                     only when not the default */
    char path[CONFIG_PATH_BYTES_MAX + 1];         /* request target: "/..." plus "?query" */
    char userinfo[CONFIG_USERINFO_BYTES_MAX + 1]; /* "" or "user:password" from the URL,
                                                     for Basic auth; a secret */
};

/* config_parse_profile parses the arguments that follow the `profile` word
 * (argv[0] is the first flag; argv is only read, and not kept) into *out.
 * Returns 0 on success; CONFIG_PARSE_HELP if -h/--help is present (nothing else
 * is checked and *out holds defaults but no allocations); or -EINVAL (-ENOMEM
 * when memory ran out) with a one-line message naming the flag and the fix
 * written to errbuf (truncated to errcap bytes, always NUL-terminated when
 * errcap > 0). On every return *out may be passed to config_free(); on failure
 * it holds no allocations. */
int config_parse_profile(int argc, char **argv, struct profile_config *out, char *errbuf,
                         size_t errcap);

/* config_file is an AIPerf config file (config v2 YAML, `-f/--config`) read into the flags
 * its settings stand for: `benchmark.phases[0].concurrency: 8` is `--concurrency 8`, so a
 * file and the equivalent command line give the same profile_config and input_config. Its
 * sweep: section becomes the comma lists of the sweep flags (`--concurrency 8,16`). Opaque;
 * immutable once loaded. */
struct config_file;

/* CONFIG_FILE_WHOLE_SWEEP asks config_parse_file for the whole run, sweep included. */
#define CONFIG_FILE_WHOLE_SWEEP SIZE_MAX
/* CONFIG_FILE_VARIATIONS_MAX bounds the variations a sweep expands to. */
#define CONFIG_FILE_VARIATIONS_MAX 10000

/* config_file_load reads the YAML file at path with libfyaml into *out (the caller frees it
 * with config_file_free). ${VAR} and ${VAR:default} in values are read from envp (borrowed;
 * NULL = an empty environment). Returns 0, or -EINVAL with a one-line message in errbuf: a
 * syntax error, an unknown key (with the nearest known one), a setting ringperf does not
 * support, or a value of the wrong shape, each as "FILE:LINE:COLUMN: ...". Values themselves
 * are checked when the file is parsed (config_parse_file), as the flags' values are. */
int config_file_load(const char *path, char *const *envp, struct config_file **out, char *errbuf,
                     size_t errcap);

/* config_file_load_text is config_file_load for len bytes of YAML text (borrowed) named name
 * in messages. */
int config_file_load_text(const char *text, size_t len, const char *name, char *const *envp,
                          struct config_file **out, char *errbuf, size_t errcap);

/* config_file_free releases file; config_file_free(NULL) is a no-op. */
void config_file_free(struct config_file *file);

/* config_file_variation_count is the number of runs the file's sweep expands to (1 without a
 * sweep; CONFIG_FILE_VARIATIONS_MAX + 1 when it is more than that). */
size_t config_file_variation_count(const struct config_file *file);

/* config_file_variation_label writes variation's directory name as AIPerf names a sweep cell
 * (`concurrency_8`, several parameters joined by `__`) into out. Returns 0 or -ENOSPC. */
int config_file_variation_label(const struct config_file *file, size_t variation, char *out,
                                size_t cap);

/* config_parse_file parses variation (0-based; CONFIG_FILE_WHOLE_SWEEP for the whole run) of
 * file with the flags of argv (as config_parse_profile takes them) layered on top: a flag on
 * the command line replaces every value the file gives it. Returns as config_parse_profile
 * does; a bad value in the file is reported at its line and column. The whole run of a file
 * with a sweep is refused while ringperf cannot run sweeps (config_file_print_expansion shows
 * the variations). */
int config_parse_file(const struct config_file *file, size_t variation, int argc, char **argv,
                      struct profile_config *out, char *errbuf, size_t errcap);

/* config_template is one starter config file `ringperf config init` writes (AIPerf's
 * `aiperf config init` library): its `# @template` metadata and its YAML (static). */
struct config_template {
    const char *name; /* minimal, goodput_slo, ... */
    const char *title;
    const char *description;
    const char *category; /* AIPerf's: Getting Started, Load Testing, Sweep & Multi-Run, ... */
    const char *tags;     /* comma-separated */
    const char *difficulty;
    const char *features;
    const char *body; /* the YAML, with @MODEL@ and @URL@ where --model and --url go */
};

/* config_templates returns every template (static), grouped by category, and their count. */
const struct config_template *config_templates(size_t *out_count);

/* config_template_find returns the template called name (static), or NULL. */
const struct config_template *config_template_find(const char *name);

/* config_template_matches reports whether word (ASCII case ignored) is in t's name, title,
 * description, tags or features, as `--search` looks. */
bool config_template_matches(const struct config_template *t, const char *word);

/* config_template_in_category reports whether t is in category, compared on letters and
 * digits alone, case ignored: "load-testing" and "Load Testing" name one category. */
bool config_template_in_category(const struct config_template *t, const char *category);

/* config_template_render writes t to out: its metadata block as comments, then the config
 * file with model and url (NULL: AIPerf's example model and http://localhost:8000) in place.
 * Returns 0, -EINVAL when model or url cannot stand unquoted in YAML, or -EIO. */
int config_template_render(const struct config_template *t, const char *model, const char *url,
                           FILE *out);

/* config_file_print_expansion writes what `ringperf config expand` prints: the number of
 * variations, the file's settings as one `ringperf profile` command line (secrets redacted),
 * then each variation's label and flags. Returns 0, or -EINVAL for a sweep over
 * CONFIG_FILE_VARIATIONS_MAX, -ENOMEM. */
int config_file_print_expansion(const struct config_file *file, FILE *out);

/* config_free releases everything *cfg owns and zeroes it. config_free(NULL)
 * and freeing twice are no-ops. */
void config_free(struct profile_config *cfg);

/* config_print_help writes `ringperf profile --help` to out: every supported
 * flag grouped as AIPerf groups them, with aliases, value type, default and
 * help text, followed by the AIPerf flags ringperf recognises but does not
 * support yet. */
void config_print_help(FILE *out);

/* config_flag_given reports whether the flag spelled `flag` (any of its
 * spellings, e.g. "--concurrency" or "--num-requests") was on the command line
 * that filled cfg, whatever its value: AIPerf's "explicitly set" for
 * input_config. False for a name that is no flag, and for every flag of a
 * profile_config not filled by config_parse_profile. */
bool config_flag_given(const struct profile_config *cfg, const char *flag);

/* config_choice_name returns the spelling of choice `value` of the choice flag
 * spelled `flag` (e.g. ("--wait-for-model-mode", CONFIG_WAIT_MODELS) ->
 * "models"), or NULL when flag is no choice flag or has no such value. The
 * string is static. */
const char *config_choice_name(const char *flag, int value);

/* config_header_is_sensitive reports whether a header name (len bytes, not
 * NUL-terminated) carries credentials, compared case-insensitively: AIPerf's
 * list (Authorization, Proxy-Authorization, X-Api-Key, Api-Key,
 * Ocp-Apim-Subscription-Key, X-Goog-Api-Key, X-Functions-Key, Aeg-Sas-Key,
 * X-Amz-Security-Token), Cookie, and any name containing auth, token, secret,
 * password, api-key, apikey, api_key, cookie, credential or signature. The
 * one rule for cli_command, input_config and /api/config. */
bool config_header_is_sensitive(const char *name, size_t len);

/* config_redact_url writes url into out (cap bytes) with its userinfo and
 * credential query parameters replaced by CONFIG_REDACTED, as AIPerf's
 * redact_url does. Returns false if it did not fit. */
bool config_redact_url(const char *url, char *out, size_t cap);

/* config_endpoint_type_name returns the AIPerf spelling of type (e.g. "chat"),
 * or "unknown" for an out-of-range value. The string is static. */
const char *config_endpoint_type_name(enum config_endpoint_type type);

/* config_endpoint_default_path returns the request path AIPerf uses for type
 * (e.g. "/v1/chat/completions"), or "" for raw and template, whose full path
 * goes in --url. huggingface_generate returns "/generate"; the streaming path
 * "/generate_stream" is chosen by config_resolve_url. The string is static. */
const char *config_endpoint_default_path(enum config_endpoint_type type);

/* config_endpoint_supports_streaming reports whether type can stream (SSE);
 * --streaming is silently turned off for the others, as AIPerf does. */
bool config_endpoint_supports_streaming(enum config_endpoint_type type);

/* config_endpoint_produces_tokens reports whether type produces output tokens,
 * i.e. whether token metrics (TTFT, ITL, OSL...) apply to it. */
bool config_endpoint_produces_tokens(enum config_endpoint_type type);

/* config_resolve_url resolves cfg->urls.items[url_index] against the endpoint
 * type, custom endpoint and streaming flag of cfg, as AIPerf does: http:// is
 * prepended when the URL has no scheme; trailing slashes of the base path are
 * dropped; the endpoint's default path is appended, minus its leading /v1 when
 * the base path already ends in /v1; a custom endpoint replaces the default
 * path (given one leading slash, never de-duplicated, "" appends nothing); the
 * base URL's query is kept; a fragment is dropped. https:// URLs default to
 * port 443, with out->host the bare host for SNI and certificate checks. Writes
 * *out and returns 0; returns -EINVAL with a message in errbuf for a malformed
 * URL or index. */
int config_resolve_url(const struct profile_config *cfg, size_t url_index,
                       struct config_target *out, char *errbuf, size_t errcap);

/* config_resolve_metrics_url resolves a Prometheus URL of `flag` (--server-metrics,
 * --gpu-telemetry) as AIPerf does: http:// when it has no scheme, "/metrics" appended to its
 * path unless the path already ends so (the query is kept). Writes *out and returns 0, or
 * -EINVAL with a message naming flag in errbuf. */
int config_resolve_metrics_url(const char *url, const char *flag, struct config_target *out,
                               char *errbuf, size_t errcap);

/* config_server_metrics_format reports whether the server metrics export `format` ("json",
 * "csv" or "jsonl") is wanted: --server-metrics-formats, else AIPerf's default json and csv. */
bool config_server_metrics_format(const struct profile_config *cfg, const char *format);

/* CONFIG_PROXY_AUTHORIZATION_BYTES bounds config_proxy.authorization: "Basic " and the
 * base64 of a user:password of up to CONFIG_USERINFO_BYTES_MAX bytes, NUL included. */
#define CONFIG_PROXY_AUTHORIZATION_BYTES 360
/* CONFIG_NO_PROXY_ENTRY_BYTES_MAX bounds one NO_PROXY entry; longer entries never match. */
#define CONFIG_NO_PROXY_ENTRY_BYTES_MAX 300

/* config_basic_authorization writes "Basic " and the base64 of the percent-decoded user
 * and password (userinfo: "user[:password]" as a URL holds it, still encoded) into out,
 * or "" for an empty userinfo: the Authorization a URL's user:password@ stands for, as
 * curl and aiohttp (AIPerf's client) send it. Returns false when it does not fit in cap
 * (CONFIG_PROXY_AUTHORIZATION_BYTES always fits). out is a secret. */
bool config_basic_authorization(const char *userinfo, char *out, size_t cap);

/* config_proxy is the forward proxy one target is reached through (config_proxy_for).
 * Caller-allocated; holds no pointers. */
struct config_proxy {
    bool used;                                 /* false: connect to the target directly */
    char variable[16];                         /* the variable that named it, e.g. "HTTPS_PROXY" */
    uint16_t port;                             /* 1080 when the proxy URL has none, as curl */
    char host[CONFIG_HOST_BYTES_MAX + 1];      /* for getaddrinfo: no IPv6 brackets */
    char authority[CONFIG_HOST_BYTES_MAX + 9]; /* "host:port" ("[v6]:port"), for messages: it
                                                  never holds credentials */
    /* "" or "Basic <base64(user:password)>" from the proxy URL's user:password@ (percent-
     * decoded), for Proxy-Authorization. A secret: never print it. */
    char authorization[CONFIG_PROXY_AUTHORIZATION_BYTES];
};

/* config_proxy_for picks the proxy for target from the environment envp (borrowed, only
 * read) with curl's rules: no_proxy/NO_PROXY first (config_no_proxy_match; loopback is not
 * exempt unless listed), then for http:// targets http_proxy/HTTP_PROXY and for https://
 * targets https_proxy/HTTPS_PROXY, then all_proxy/ALL_PROXY; lower case wins, an empty value
 * counts as unset. (curl ignores upper-case HTTP_PROXY; ringperf honours it as AIPerf's
 * Python stack does.) The proxy URL is http://[user:password@]host[:port][/]; the scheme
 * may be left out. Writes *out (out->used false when no proxy applies) and returns 0, or
 * returns -EINVAL with a message naming the variable (credentials redacted) in errbuf for
 * a proxy URL that is malformed or asks for an unsupported scheme (https://, socks...). */
int config_proxy_for(char *const *envp, const struct config_target *target,
                     struct config_proxy *out, char *errbuf, size_t errcap);

/* config_no_proxy_match reports whether host (a bare name or IP literal, no brackets, no
 * port) is exempt from proxying by no_proxy, a comma-separated list as curl reads it:
 * "*" exempts every host; an entry matches the host itself and, as a domain, every name
 * under it ("example.com" and ".example.com" both match "api.example.com"); IP literals
 * (IPv6 with or without brackets) match only the same address, or every address in an
 * a.b.c.d/n or v6/n range; case, surrounding blanks and trailing dots are ignored.
 * no_proxy NULL or "" exempts nothing. */
bool config_no_proxy_match(const char *no_proxy, const char *host);

#endif
