/*
 * config_values.c - the values the flags of config_table.c accept: the ranges of numeric
 * flags and the choices of CHOICE flags (config_values.h), which the flag table points to.
 */
#include "config/config_values.h"

#define MIN_IN CONFIG__R_MIN_INCL
#define MIN_EX CONFIG__R_MIN_EXCL
#define MAX_IN CONFIG__R_MAX_INCL

const struct config__range config__range_concurrency = {1, 1e6, MIN_IN | MAX_IN};
const struct config__range config__range_count = {1, 1e12, MIN_IN | MAX_IN};
const struct config__range config__range_workers = {1, 4096, MIN_IN | MAX_IN};
const struct config__range config__range_shard_index = {0, 4095, MIN_IN | MAX_IN};
const struct config__range config__range_shard_count = {1, 4096, MIN_IN | MAX_IN};
/* SCHED_FIFO's priorities on Linux; config__finalize checks the kernel's own maximum. */
const struct config__range config__range_rt_priority = {1, 99, MIN_IN | MAX_IN};
const struct config__range config__range_network_rtt = {0, 3600000, MIN_IN | MAX_IN};
const struct config__range config__range_ping_interval = {0, 86400, MIN_EX | MAX_IN};
const struct config__range config__range_tokens = {0, 1e8, MIN_IN | MAX_IN};
const struct config__range config__range_stddev = {0, 1e8, MIN_IN | MAX_IN};
const struct config__range config__range_seed = {0, 0, MIN_IN};
const struct config__range config__range_seconds_gt0 = {0, CONFIG_TIME_MAX_SECONDS,
                                                        MIN_EX | MAX_IN};
/* A window shorter than a nanosecond would be no window (the exports count in ns). */
const struct config__range config__range_slice_seconds = {1e-9, CONFIG_TIME_MAX_SECONDS,
                                                          MIN_IN | MAX_IN};
const struct config__range config__range_seconds_ge0 = {0, CONFIG_TIME_MAX_SECONDS,
                                                        MIN_IN | MAX_IN};
const struct config__range config__range_rate = {0, 1e9, MIN_EX | MAX_IN};
const struct config__range config__range_port = {0, 65535, MIN_IN | MAX_IN};
const struct config__range config__range_batch = {1, 4096, MIN_IN | MAX_IN};

const struct config__choice config__endpoint_choices[] = {
    {"chat", CONFIG_ENDPOINT_CHAT, false},
    {"completions", CONFIG_ENDPOINT_COMPLETIONS, false},
    {"responses", CONFIG_ENDPOINT_RESPONSES, false},
    {"messages", CONFIG_ENDPOINT_MESSAGES, false},
    {"embeddings", CONFIG_ENDPOINT_EMBEDDINGS, false},
    {"chat_embeddings", CONFIG_ENDPOINT_CHAT_EMBEDDINGS, false},
    {"nim_embeddings", CONFIG_ENDPOINT_NIM_EMBEDDINGS, false},
    {"nim_rankings", CONFIG_ENDPOINT_NIM_RANKINGS, false},
    {"rankings", CONFIG_ENDPOINT_NIM_RANKINGS, true},
    {"cohere_rankings", CONFIG_ENDPOINT_COHERE_RANKINGS, false},
    {"hf_tei_rankings", CONFIG_ENDPOINT_HF_TEI_RANKINGS, false},
    {"huggingface_generate", CONFIG_ENDPOINT_HUGGINGFACE_GENERATE, false},
    {"image_generation", CONFIG_ENDPOINT_IMAGE_GENERATION, false},
    {"image_edit", CONFIG_ENDPOINT_IMAGE_EDIT, false},
    {"video_generation", CONFIG_ENDPOINT_VIDEO_GENERATION, false},
    {"image_retrieval", CONFIG_ENDPOINT_IMAGE_RETRIEVAL, false},
    {"audio_transcription", CONFIG_ENDPOINT_AUDIO_TRANSCRIPTION, false},
    {"solido_rag", CONFIG_ENDPOINT_SOLIDO_RAG, false},
    {"raw", CONFIG_ENDPOINT_RAW, false},
    {"template", CONFIG_ENDPOINT_TEMPLATE, false},
    {"sglang_generate", CONFIG_ENDPOINT_SGLANG_GENERATE, false},
    {"vllm_generate", CONFIG_ENDPOINT_VLLM_GENERATE, false},
    {NULL, 0, false},
};

const struct config__choice config__arrival_choices[] = {
    {"poisson", CONFIG_ARRIVAL_POISSON, false},
    {"constant", CONFIG_ARRIVAL_CONSTANT, false},
    {"gamma", CONFIG_ARRIVAL_GAMMA, false},
    {"concurrency_burst", CONFIG_ARRIVAL_CONCURRENCY_BURST, false},
    {NULL, 0, false},
};

const struct config__range config__range_percent = {0, 100, MIN_IN | MAX_IN};
const struct config__range config__range_ratio = {0, 1, MIN_IN | MAX_IN};
const struct config__range config__range_smoothness = {0, 1e6, MIN_EX | MAX_IN};

const struct config__range config__range_profile_runs = {1, CONFIG_PROFILE_RUNS_MAX,
                                                         MIN_IN | MAX_IN};
/* The upper end is exclusive too: config__check_multi_run refuses 1. */
const struct config__range config__range_confidence = {0, 1, MIN_EX | MAX_IN};
const struct config__range config__range_convergence = {0, 1e6, MIN_EX | MAX_IN};

const struct config__choice config__convergence_choices[] = {
    {"ci_width", CONFIG_CONVERGENCE_CI_WIDTH, false},
    {"cv", CONFIG_CONVERGENCE_CV, false},
    {"distribution", CONFIG_CONVERGENCE_DISTRIBUTION, false},
    {NULL, 0, false},
};

const struct config__choice config__sweep_mode_choices[] = {
    {"repeated", CONFIG_SWEEP_REPEATED, false},
    {"independent", CONFIG_SWEEP_INDEPENDENT, false},
    {NULL, 0, false},
};

const struct config__choice config__sweep_type_choices[] = {
    {"grid", CONFIG_SWEEP_GRID, false},
    {"zip", CONFIG_SWEEP_ZIP, false},
    {NULL, 0, false},
};

const struct config__choice config__model_selection_choices[] = {
    {"round_robin", CONFIG_MODEL_SELECTION_ROUND_ROBIN, false},
    {"random", CONFIG_MODEL_SELECTION_RANDOM, false},
    {NULL, 0, false},
};

const struct config__choice config__ui_choices[] = {
    {"dashboard", CONFIG_UI_DASHBOARD, false},
    {"simple", CONFIG_UI_SIMPLE, false},
    {"none", CONFIG_UI_NONE, false},
    {NULL, 0, false},
};

const struct config__choice config__log_level_choices[] = {
    {"TRACE", CONFIG_LOG_TRACE, false},
    {"DEBUG", CONFIG_LOG_DEBUG, false},
    {"INFO", CONFIG_LOG_INFO, false},
    {"NOTICE", CONFIG_LOG_NOTICE, false},
    {"WARNING", CONFIG_LOG_WARNING, false},
    {"SUCCESS", CONFIG_LOG_SUCCESS, false},
    {"ERROR", CONFIG_LOG_ERROR, false},
    {"CRITICAL", CONFIG_LOG_CRITICAL, false},
    {NULL, 0, false},
};

const struct config__choice config__export_level_choices[] = {
    {"records", CONFIG_EXPORT_RECORDS, false},
    {"summary", CONFIG_EXPORT_SUMMARY, false},
    {"raw", CONFIG_EXPORT_RAW, false},
    {NULL, 0, false},
};

const struct config__choice config__cache_bust_choices[] = {
    {"none", CONFIG_CACHE_BUST_NONE, false},
    {"system_prefix", CONFIG_CACHE_BUST_SYSTEM_PREFIX, false},
    {"system_suffix", CONFIG_CACHE_BUST_SYSTEM_SUFFIX, false},
    {"first_turn_prefix", CONFIG_CACHE_BUST_FIRST_TURN_PREFIX, false},
    {"first_turn_suffix", CONFIG_CACHE_BUST_FIRST_TURN_SUFFIX, false},
    {NULL, 0, false},
};

const struct config__choice config__wait_mode_choices[] = {
    {"inference", CONFIG_WAIT_INFERENCE, false},
    {"models", CONFIG_WAIT_MODELS, false},
    {"both", CONFIG_WAIT_BOTH, false},
    {NULL, 0, false},
};

const struct config__choice config__auth_type_choices[] = {
    {"none", CONFIG_AUTH_NONE, false},
    {"sigv4", CONFIG_AUTH_SIGV4, false},
    {NULL, 0, false},
};

const struct config__choice config__conn_reuse_choices[] = {
    {"pooled", CONFIG_REUSE_POOLED, false},
    {"never", CONFIG_REUSE_NEVER, false},
    {"sticky-user-sessions", CONFIG_REUSE_STICKY, false},
    {NULL, 0, false},
};

/* Single-choice flags: accepted and validated, nothing to store. */
const struct config__choice config__url_strategy_choices[] = {{"round_robin", 0, false},
                                                              {NULL, 0, false}};
const struct config__choice config__transport_choices[] = {{"http", 0, false}, {NULL, 0, false}};

const struct config__choice config__image_format_choices[] = {
    {"png", CONFIG_IMAGE_PNG, false},
    {"jpeg", CONFIG_IMAGE_JPEG, false},
    {"random", CONFIG_IMAGE_RANDOM, false},
    {NULL, 0, false},
};
const struct config__choice config__audio_format_choices[] = {
    {"wav", CONFIG_AUDIO_WAV, false},
    {"mp3", CONFIG_AUDIO_MP3, false},
    {NULL, 0, false},
};
/* Accepted and validated; generated images have no source pool to sample. */
const struct config__choice config__image_sampling_choices[] = {
    {"random_with_replacement", 0, false},
    {"shuffle_cycle", 0, false},
    {"sequential_cycle", 0, false},
    {NULL, 0, false},
};
const struct config__range config__range_media_batch = {0, CONFIG_MEDIA_BATCH_MAX, MIN_IN | MAX_IN};
const struct config__range config__range_image_px = {0, 4096, MIN_IN | MAX_IN};
const struct config__range config__range_audio_seconds = {0, 600, MIN_IN | MAX_IN};
const struct config__range config__range_audio_channels = {1, 2, MIN_IN | MAX_IN};
