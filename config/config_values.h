/*
 * config_values.h - the ranges and choices config_values.c defines for the flag table
 * (config_table.c), and nothing else: private to those two files.
 */
#ifndef RINGPERF_CONFIG_VALUES_H
#define RINGPERF_CONFIG_VALUES_H

#include "config/config_internal.h"

extern const struct config__range config__range_concurrency;
extern const struct config__range config__range_count;
extern const struct config__range config__range_workers;
extern const struct config__range config__range_shard_index;
extern const struct config__range config__range_shard_count;
extern const struct config__range config__range_rt_priority;
extern const struct config__range config__range_network_rtt;
extern const struct config__range config__range_ping_interval;
extern const struct config__range config__range_tokens;
extern const struct config__range config__range_stddev;
extern const struct config__range config__range_seed;
extern const struct config__range config__range_seconds_gt0;
extern const struct config__range config__range_slice_seconds;
extern const struct config__range config__range_seconds_ge0;
extern const struct config__range config__range_rate;
extern const struct config__range config__range_port;
extern const struct config__range config__range_batch;
extern const struct config__range config__range_percent;
extern const struct config__range config__range_ratio;
extern const struct config__range config__range_smoothness;
extern const struct config__range config__range_profile_runs;
extern const struct config__range config__range_confidence;
extern const struct config__range config__range_convergence;
extern const struct config__range config__range_media_batch;
extern const struct config__range config__range_image_px;
extern const struct config__range config__range_audio_seconds;
extern const struct config__range config__range_audio_channels;

extern const struct config__choice config__endpoint_choices[];
extern const struct config__choice config__arrival_choices[];
extern const struct config__choice config__convergence_choices[];
extern const struct config__choice config__sweep_mode_choices[];
extern const struct config__choice config__sweep_type_choices[];
extern const struct config__choice config__model_selection_choices[];
extern const struct config__choice config__ui_choices[];
extern const struct config__choice config__log_level_choices[];
extern const struct config__choice config__export_level_choices[];
extern const struct config__choice config__cache_bust_choices[];
extern const struct config__choice config__wait_mode_choices[];
extern const struct config__choice config__auth_type_choices[];
extern const struct config__choice config__conn_reuse_choices[];
extern const struct config__choice config__url_strategy_choices[];
extern const struct config__choice config__transport_choices[];
extern const struct config__choice config__image_format_choices[];
extern const struct config__choice config__audio_format_choices[];
extern const struct config__choice config__image_sampling_choices[];

#endif
