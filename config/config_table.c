/*
 * config_table.c - every `aiperf profile` flag, as one static const table.
 *
 * Sources: AIPerf's docs/cli-options.md (the 62 KB generation, all profile
 * flags) plus every newer flag named in shared/spec/aiperf-reference.md and its
 * seed documents. Groups follow the newest AIPerf help. Supported flags carry a
 * field offset into struct profile_config; the rest are listed so that they are
 * recognised, named in help, and rejected with a clear message. The ranges and
 * choices the flags accept are config_values.c's; the groups' help headings are
 * config_help.c's.
 */
#include <stddef.h>

#include "config/config_internal.h"
#include "config/config_values.h"

#define OFF(field) offsetof(struct profile_config, field)

/* A flag ringperf does not implement yet: recognised, listed, rejected. */
#define NOPE(grp, knd, nm, hlp)                                                                    \
    {                                                                                              \
        .names = (nm), .help = (hlp), .offset = CONFIG__NO_FIELD,                                  \
        .given_offset = CONFIG__NO_FIELD, .group = CONFIG__G_##grp, .kind = CONFIG__K_##knd        \
    }

/* A supported flag; the entry adds help, default_text, example, range, choices. */
#define SUP(grp, knd, nm, trt, off)                                                                \
    .names = (nm), .offset = (off), .given_offset = CONFIG__NO_FIELD, .group = CONFIG__G_##grp,    \
    .kind = CONFIG__K_##knd, .traits = (CONFIG__T_SUPPORTED | (trt))

/* A supported flag that also records that it was given. */
#define SUP_GIVEN(grp, knd, nm, trt, off, given)                                                   \
    .names = (nm), .offset = (off), .given_offset = (given), .group = CONFIG__G_##grp,             \
    .kind = CONFIG__K_##knd, .traits = (CONFIG__T_SUPPORTED | (trt))

static const struct config__flag flag_table[] = {
    /* Endpoint */
    {SUP(ENDPOINT, LIST, "--model -m --model-names", CONFIG__T_COMMA_SPLIT, OFF(models)),
     .help = "Model name(s) to benchmark. Repeat the flag, give several values, or use a "
             "comma-separated list. Required.",
     .example = "Qwen/Qwen3-0.6B"},
    {SUP(ENDPOINT, CHOICE, "--model-selection-strategy", 0, OFF(model_selection)),
     .help = "How each request's model is picked from several --model values: in turn "
             "(round_robin) or at random (random, reproducible with --random-seed).",
     .default_text = "round_robin", .example = "random",
     .choices = config__model_selection_choices},
    {SUP(ENDPOINT, STRING, "--custom-endpoint --endpoint", CONFIG__T_ALLOW_EMPTY,
         OFF(custom_endpoint)),
     .help = "Request path that replaces the endpoint type's default path (e.g. /v1/custom). "
             "An empty value appends no path.",
     .example = "/v1/chat/completions"},
    {SUP(ENDPOINT, CHOICE, "--endpoint-type", 0, OFF(endpoint_type)),
     .help = "API to benchmark; decides the request body, response parsing and default path.",
     .default_text = "chat", .example = "chat", .choices = config__endpoint_choices},
    {SUP(ENDPOINT, SWITCH, "--streaming", 0, OFF(streaming_requested)),
     .help = "Request streamed (SSE) responses; needed for TTFT and inter-token latency. "
             "Ignored for endpoint types that cannot stream."},
    {SUP(ENDPOINT, LIST, "--url -u", CONFIG__T_URL, OFF(urls)),
     .help = "Base URL(s) of the server; several URLs are used round-robin. http:// is "
             "assumed when no scheme is given; the endpoint path is appended.",
     .default_text = "localhost:8000", .example = "http://localhost:8000"},
    {SUP(ENDPOINT, CHOICE, "--url-strategy", 0, CONFIG__NO_FIELD),
     .help = "How requests are spread over several --url values.", .default_text = "round_robin",
     .example = "round_robin", .choices = config__url_strategy_choices},
    {SUP(ENDPOINT, DOUBLE, "--request-timeout-seconds", 0, OFF(request_timeout_seconds)),
     .help = "Time limit for one whole request (connect, send, receive); a request over it "
             "fails.",
     .default_text = "600", .example = "600", .range = &config__range_seconds_gt0},
    {SUP(ENDPOINT, DOUBLE, "--wait-for-model-timeout", 0, OFF(wait_for_model_seconds)),
     .help = "Before benchmarking, probe the server until it is ready, for at most this many "
             "seconds, and stop with an error if it never is; 0 does not wait.",
     .default_text = "0", .example = "300", .range = &config__range_seconds_ge0},
    {SUP(ENDPOINT, CHOICE, "--wait-for-model-mode", 0, OFF(wait_for_model_mode)),
     .help = "What the readiness probe asks: inference sends a one-token request to the "
             "endpoint; models asks GET /v1/models under the --url; both asks both.",
     .default_text = "inference", .example = "models", .choices = config__wait_mode_choices},
    {SUP(ENDPOINT, DOUBLE, "--wait-for-model-interval", 0, OFF(wait_for_model_interval_seconds)),
     .help = "Seconds between readiness probes.", .default_text = "5", .example = "1",
     .range = &config__range_seconds_gt0},
    {SUP(ENDPOINT, SWITCH, "--reset-kv-cache", 0, OFF(reset_kv_cache)),
     .help = "Before the profiling phase (after any warmup), POST --reset-kv-cache-path to each "
             "server, retrying while it answers 409, 423, 429 or 503 for up to 60 s; the run "
             "stops if a server refuses. Any --reset-kv-cache-* flag turns this on."},
    {SUP_GIVEN(ENDPOINT, DOUBLE, "--reset-kv-cache-timeout-seconds", 0,
               OFF(reset_kv_cache_timeout_seconds), OFF(reset_kv_cache)),
     .help = "Time limit of each cache-reset request.", .default_text = "30", .example = "10",
     .range = &config__range_seconds_gt0},
    {SUP_GIVEN(ENDPOINT, STRING, "--reset-kv-cache-path", 0, OFF(reset_kv_cache_path),
               OFF(reset_kv_cache)),
     .help = "Path of the cache-reset request, under each --url's host (vLLM's; SGLang uses "
             "/flush_cache).",
     .default_text = "/reset_prefix_cache", .example = "/flush_cache"},
    {SUP(ENDPOINT, SWITCH, "--server-profiler", 0, OFF(server_profiler)),
     .help = "POST --server-profiler-start-path to each server before the profiling phase and "
             "--server-profiler-stop-path after it (a failed stop is a warning). Any "
             "--server-profiler-* flag turns this on."},
    {SUP_GIVEN(ENDPOINT, DOUBLE, "--server-profiler-timeout-seconds", 0,
               OFF(server_profiler_timeout_seconds), OFF(server_profiler)),
     .help = "Time limit of each profiler request.", .default_text = "30", .example = "60",
     .range = &config__range_seconds_gt0},
    {SUP_GIVEN(ENDPOINT, STRING, "--server-profiler-start-path", 0, OFF(server_profiler_start_path),
               OFF(server_profiler)),
     .help = "Path that starts the server's profiler.", .default_text = "/start_profile",
     .example = "/start_profile"},
    {SUP_GIVEN(ENDPOINT, STRING, "--server-profiler-stop-path", 0, OFF(server_profiler_stop_path),
               OFF(server_profiler)),
     .help = "Path that stops the server's profiler.", .default_text = "/stop_profile",
     .example = "/stop_profile"},
    {SUP(ENDPOINT, STRING, "--api-key", CONFIG__T_SECRET, OFF(api_key)),
     .help = "API key, sent as `Authorization: Bearer <key>`. Redacted in reports.",
     .example = "sk-..."},
    {SUP(ENDPOINT, STRING, "--tls-ca", 0, OFF(tls_ca_file)),
     .help = "PEM file of the CAs that https:// servers' certificates must chain to, instead "
             "of SSL_CERT_FILE or the system bundle.",
     .example = "ca.pem"},
    {SUP(ENDPOINT, STRING, "--tls-cert", 0, OFF(tls_cert_file)),
     .help = "PEM client certificate chain (leaf first) offered to https:// servers that ask "
             "for one.",
     .example = "client.pem"},
    {SUP(ENDPOINT, STRING, "--tls-key", 0, OFF(tls_key_file)),
     .help = "PEM private key of --tls-cert, when it is not in that file.",
     .example = "client.key"},
    {SUP(ENDPOINT, SWITCH, "--tls-insecure", 0, OFF(tls_insecure)),
     .help = "Do not verify https:// servers' certificates or host names (insecure; prints a "
             "warning). AIPERF_HTTP_SSL_VERIFY=false does the same."},
    {SUP(ENDPOINT, CHOICE, "--transport --transport-type", 0, CONFIG__NO_FIELD),
     .help = "Transport protocol; detected from the URL scheme when not given.", .example = "http",
     .choices = config__transport_choices},
    {SUP(ENDPOINT, SWITCH, "--use-legacy-max-tokens", 0, OFF(use_legacy_max_tokens)),
     .help = "Send `max_tokens` instead of `max_completion_tokens`."},
    {SUP(ENDPOINT, SWITCH, "--use-server-token-count", 0, OFF(use_server_token_count)),
     .help = "Take token counts from the server's `usage` fields instead of tokenizing "
             "locally."},
    {SUP(ENDPOINT, SWITCH, "--per-chunk-usage", 0, OFF(per_chunk_usage)),
     .help = "Ask for usage on every streamed chunk (stream_options.continuous_usage_stats), "
             "and divide ITL by the output tokens after the first chunk's, as the server counts "
             "them (needs --endpoint-type chat, --streaming and --use-server-token-count)."},
    {SUP(ENDPOINT, CHOICE, "--connection-reuse-strategy", 0, OFF(connection_reuse)),
     .help = "pooled: keep-alive connections any request may reuse; never: a new connection "
             "for every request (sent with `Connection: close`); sticky-user-sessions: one "
             "connection for each conversation, closed after its last turn.",
     .default_text = "pooled", .example = "never", .choices = config__conn_reuse_choices},
    {SUP(ENDPOINT, SWITCH, "--download-video-content", 0, OFF(download_video_content)),
     .help = "video_generation: fetch each finished video (the job's url, else GET "
             "/v1/videos/{id}/content), reading it to its end without keeping it. The time "
             "between polls is AIPERF_HTTP_VIDEO_POLL_INTERVAL seconds (0.1)."},
    NOPE(ENDPOINT, STRING, "--request-content-type",
         "Request body encoding: application/json or multipart/form-data."),
    {SUP(ENDPOINT, STRING, "--session-header", 0, OFF(session_header)),
     .help = "The header that carries a conversation's id on each of its turns, instead of "
             "X-Correlation-ID (X-Session-Affinity carries it too).",
     .default_text = "X-Correlation-ID", .example = "X-Session-ID"},
    {SUP(ENDPOINT, CHOICE, "--auth-type", 0, OFF(auth_type)),
     .help = "sigv4: sign every request (probes and control hooks included) with AWS Signature "
             "Version 4, with the credentials of the environment (AWS_ACCESS_KEY_ID, "
             "AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN) or of ~/.aws/credentials "
             "(AWS_SHARED_CREDENTIALS_FILE); never from a flag. Needs --aws-region and "
             "--aws-service.",
     .default_text = "none", .example = "sigv4", .choices = config__auth_type_choices},
    {SUP(ENDPOINT, STRING, "--aws-region", 0, OFF(aws_region)),
     .help = "AWS region of the SigV4 credential scope.", .example = "us-east-1"},
    {SUP(ENDPOINT, STRING, "--aws-service", 0, OFF(aws_service)),
     .help = "AWS service name of the SigV4 credential scope (execute-api for API Gateway, "
             "sagemaker for SageMaker Runtime).",
     .example = "execute-api"},
    {SUP(ENDPOINT, STRING, "--aws-profile", 0, OFF(aws_profile)),
     .help = "Section of ~/.aws/credentials to sign with, instead of the environment's keys.",
     .default_text = "$AWS_PROFILE, else default", .example = "staging"},
    {SUP(ENDPOINT, STRING, "--sagemaker-endpoint-name", 0, OFF(sagemaker_endpoint_name)),
     .help = "Invoke this SageMaker Runtime endpoint: POST /endpoints/NAME/invocations (or "
             "invocations-response-stream with --streaming, whose replies are AWS event-stream "
             "frames), signed with SigV4 as service sagemaker. --url defaults to "
             "https://runtime.sagemaker.REGION.amazonaws.com.",
     .example = "my-vllm-endpoint"},
    {SUP(ENDPOINT, STRING, "--sagemaker-target-model", 0, OFF(sagemaker_target_model)),
     .help = "Multi-model endpoints: the model artifact to invoke, relative to the endpoint's "
             "model location (X-Amzn-SageMaker-Target-Model; not sent with --streaming, whose "
             "operation does not take it).",
     .example = "model-a.tar.gz"},
    {SUP(ENDPOINT, STRING, "--sagemaker-target-variant", 0, OFF(sagemaker_target_variant)),
     .help = "Send every request to this production variant (X-Amzn-SageMaker-Target-Variant).",
     .example = "variant-b"},
    {SUP(ENDPOINT, STRING, "--sagemaker-inference-component-name", 0,
         OFF(sagemaker_inference_component)),
     .help = "The inference component to invoke (X-Amzn-SageMaker-Inference-Component).",
     .example = "my-component"},
    /* Tokenizer */
    {SUP(TOKENIZER, STRING, "--tokenizer", 0, OFF(tokenizer)),
     .help = "Tokenizer name or path used for token counts; defaults to the first model.",
     .example = "Qwen/Qwen3-0.6B"},
    {SUP(TOKENIZER, STRING, "--tokenizer-revision", 0, OFF(tokenizer_revision)),
     .help = "Which revision of the model's tokenizer in the Hugging Face cache: a branch or "
             "tag under refs/, or a commit hash (nothing is downloaded). Default: refs/main.",
     .example = "main"},
    NOPE(TOKENIZER, SWITCH, "--tokenizer-trust-remote-code", "Allow custom tokenizer code."),
    NOPE(TOKENIZER, SWITCH, "--apply-chat-template", "Count input tokens with the chat template."),
    /* Input */
    {SUP(INPUT, LIST, "--extra-inputs", CONFIG__T_EXTRA, OFF(extra_inputs)),
     .help = "Fields merged into every request body, as key:value pairs (values are JSON "
             "where they parse as JSON) or a JSON object.",
     .example = "temperature:0.7"},
    {SUP(INPUT, LIST, "--header -H", CONFIG__T_HEADER, CONFIG__NO_FIELD),
     .help = "Extra request header as Name:Value, or a JSON object of headers. Credential "
             "headers are redacted in reports.",
     .example = "X-Request-Source:ringperf"},
    {SUP(INPUT, STRING, "--input-file", 0, OFF(input_file)),
     .help = "Dataset file or directory: JSONL records (single_turn, random_pool, "
             "mooncake_trace, raw_payload) or an earlier run's inputs.json.",
     .example = "inputs.jsonl"},
    {SUP(INPUT, STRING, "--public-dataset", 0, OFF(public_dataset)),
     .help = "A public dataset read from a local copy (never downloaded): sharegpt, from "
             "--input-file or the Hugging Face cache ($HF_HOME/hub or "
             "~/.cache/huggingface/hub).",
     .example = "sharegpt"},
    NOPE(INPUT, STRING, "--hf-subset", "Hugging Face subset of a public dataset."),
    NOPE(INPUT, LIST, "--dataset-filter", "Dataset filter as key=value."),
    {SUP(INPUT, STRING, "--custom-dataset-type", 0, OFF(custom_dataset_type)),
     .help = "Format of --input-file: single_turn, random_pool, mooncake_trace, raw_payload "
             "or inputs_json (multi_turn is recognised but not run yet).",
     .default_text = "auto-detected", .example = "single_turn"},
    {SUP(INPUT, SWITCH, "--ignore-trace-delays", 0, OFF(ignore_trace_delays)),
     .help = "Send each turn of a replayed session as soon as the previous reply ends, "
             "ignoring the recorded delays."},
    NOPE(INPUT, SWITCH, "--use-think-time-only", "Replay only recorded think time."),
    NOPE(INPUT, INT, "--max-context-length", "Drop traces whose context exceeds this length."),
    {SUP(INPUT, STRING, "--dataset-sampling-strategy", 0, OFF(dataset_sampling_strategy)),
     .help = "Order of the --input-file entries: sequential, random (with replacement) or "
             "shuffle.",
     .default_text = "sequential (random_pool: shuffle)", .example = "shuffle"},
    NOPE(INPUT, SWITCH, "--allow-dataset-wrap --no-allow-dataset-wrap",
         "Reuse traces when concurrency exceeds the pool."),
    {SUP_GIVEN(INPUT, INT, "--random-seed", 0, OFF(random_seed), OFF(random_seed_set)),
     .help = "Seed that makes synthetic prompts, sampling and delays reproducible.",
     .example = "42", .range = &config__range_seed},
    NOPE(INPUT, DOUBLE, "--trace-session-sample-ratio", "Fraction of trace sessions to keep."),
    {SUP(INPUT, STRING, "--config -f", 0, OFF(config_file)),
     .help = "AIPerf config file (config v2 YAML: benchmark: with model, endpoint, dataset, "
             "phases...). Flags on the command line override its settings; `ringperf config "
             "validate|expand FILE` checks it.",
     .example = "benchmark.yaml"},
    /* Fixed schedule */
    {SUP(FIXED_SCHEDULE, SWITCH, "--fixed-schedule", 0, OFF(fixed_schedule)),
     .help = "Send the --input-file requests at their recorded timestamps (ms). On by "
             "default for timestamped traces."},
    {SUP(FIXED_SCHEDULE, SWITCH, "--no-fixed-schedule", 0, OFF(no_fixed_schedule)),
     .help = "Do not replay a timestamped trace on its schedule; use the load flags instead."},
    {SUP(FIXED_SCHEDULE, SWITCH, "--fixed-schedule-auto-offset", 0,
         OFF(fixed_schedule_auto_offset)),
     .help = "Shift the schedule so that the first timestamp is sent at once."},
    {SUP_GIVEN(FIXED_SCHEDULE, INT, "--fixed-schedule-start-offset", 0,
               OFF(fixed_schedule_start_offset_ms), OFF(fixed_schedule_start_offset_set)),
     .help = "Replay only timestamps at or after this (ms); the schedule starts there.",
     .example = "1000", .range = &config__range_tokens},
    {SUP_GIVEN(FIXED_SCHEDULE, INT, "--fixed-schedule-end-offset", 0,
               OFF(fixed_schedule_end_offset_ms), OFF(fixed_schedule_end_offset_set)),
     .help = "Replay only timestamps at or before this (ms).", .example = "60000",
     .range = &config__range_tokens},
    /* Goodput */
    {SUP(GOODPUT, STRING, "--goodput", 0, OFF(goodput)),
     .help = "Service level objectives as 'metric:value ...', values in display units (ms, "
             "tokens/sec); a request that meets all of them is good. Reports goodput.",
     .example = "'time_to_first_token:100 inter_token_latency:3.4'"},
    /* Conversation input */
    {SUP(CONVERSATION, INT, "--conversation-num --num-conversations --num-sessions", 0,
         OFF(conversation_num)),
     .help = "Unique conversations (sessions) to generate; they are reused until the run stops.",
     .default_text = "--num-dataset-entries", .example = "20", .range = &config__range_count},
    {SUP(CONVERSATION, INT, "--num-dataset-entries --num-prompts", 0, OFF(num_dataset_entries)),
     .help = "Distinct synthetic prompts; requests cycle through them.", .default_text = "100",
     .example = "500", .range = &config__range_count},
    {SUP(CONVERSATION, INT, "--conversation-turn-mean --session-turns-mean", 0,
         OFF(conversation_turn_mean)),
     .help = "Mean turns per conversation; each turn resends the history with the live replies.",
     .default_text = "1", .example = "3", .range = &config__range_count},
    {SUP(CONVERSATION, INT, "--conversation-turn-stddev --session-turns-stddev", 0,
         OFF(conversation_turn_stddev)),
     .help = "Standard deviation of the turns per conversation.", .default_text = "0",
     .example = "1", .range = &config__range_stddev},
    {SUP(CONVERSATION, DOUBLE, "--conversation-turn-delay-mean --session-turn-delay-mean", 0,
         OFF(conversation_turn_delay_mean_ms)),
     .help = "Mean think time in ms between a reply and the next turn.", .default_text = "0",
     .example = "500", .range = &config__range_stddev},
    {SUP(CONVERSATION, DOUBLE, "--conversation-turn-delay-stddev --session-turn-delay-stddev", 0,
         OFF(conversation_turn_delay_stddev_ms)),
     .help = "Standard deviation of the think time in ms.", .default_text = "0", .example = "100",
     .range = &config__range_stddev},
    {SUP_GIVEN(CONVERSATION, DOUBLE, "--conversation-turn-delay-ratio --session-delay-ratio", 0,
               OFF(conversation_turn_delay_ratio), OFF(conversation_turn_delay_ratio_set)),
     .help = "Multiplier applied to every think time.", .default_text = "1.0", .example = "0.5",
     .range = &config__range_stddev},
    {SUP(CONVERSATION, DOUBLE, "--inter-turn-delay-cap-seconds", 0,
         OFF(inter_turn_delay_cap_seconds)),
     .help = "Cap every replayed delay between turns (recorded or think time) at this many "
             "seconds.",
     .example = "5", .range = &config__range_seconds_gt0},
    {SUP(CONVERSATION, DOUBLE, "--max-idle-gap-cap-seconds", 0, OFF(max_idle_gap_cap_seconds)),
     .help = "Shorten every gap between consecutive scheduled starts of a trace to at most this "
             "many seconds.",
     .example = "10", .range = &config__range_seconds_gt0},
    {SUP(CONVERSATION, DOUBLE, "--replay-speedup", 0, OFF(replay_speedup)),
     .help = "Replay a trace this many times faster (timestamps and delays divided by it).",
     .default_text = "1", .example = "2", .range = &config__range_rate},
    NOPE(CONVERSATION, SWITCH, "--open-loop-replay --no-open-loop-replay", "Open-loop replay."),
    NOPE(CONVERSATION, SWITCH, "--omit-kv-hints", "Drop recorded KV-cache hints."),
    NOPE(CONVERSATION, SWITCH, "--force-min-tokens --no-force-min-tokens",
         "Pin min_tokens to the recorded output length."),
    /* Prompt */
    {SUP(PROMPT, INT, "--prompt-batch-size -b --batch-size-text --batch-size", 0,
         OFF(prompt_batch_size)),
     .help = "Texts per embeddings request, each a synthetic prompt of --isl tokens.",
     .default_text = "1", .example = "8", .range = &config__range_batch},
    NOPE(PROMPT, STRING, "--prompt-corpus", "Synthetic text corpus: sonnet or coding."),
    {SUP(PROMPT, STRING, "--system-prompt", 0, OFF(system_prompt)),
     .help = "A system prompt sent verbatim with every request.", .example = "'You are terse.'"},
    {SUP(PROMPT, STRING, "--system-prompt-file", 0, OFF(system_prompt_file)),
     .help = "A file whose text, exactly as it is, is the system prompt of every request "
             "(instead of --system-prompt).",
     .example = "system.txt"},
    /* Cache bust */
    {SUP(CACHE_BUST, CHOICE, "--cache-bust", 0, OFF(cache_bust)),
     .help = "Put a marker unique to each conversation and run, [rid:<12 hex digits>], at the "
             "start or end of the system prompt or of the conversation's first user turn, so "
             "that no two share a prefix the server has cached (chat, responses, messages; "
             "first-turn targets also completions). The marker's tokens are not in the ISL.",
     .default_text = "none", .example = "first_turn_prefix", .choices = config__cache_bust_choices},
    /* Prefix prompt */
    {SUP(PREFIX_PROMPT, INT,
         "--prompt-prefix-pool-size --prefix-prompt-pool-size --num-prefix-prompts", 0,
         OFF(num_prefix_prompts)),
     .help = "Number of prefix prompts; one, picked at random, starts each request's prompt.",
     .example = "10", .range = &config__range_count},
    {SUP(PREFIX_PROMPT, INT, "--prompt-prefix-length --prefix-prompt-length", 0,
         OFF(prefix_prompt_length)),
     .help = "Tokens of each prefix prompt (needs --num-prefix-prompts).", .example = "100",
     .range = &config__range_count},
    {SUP(PREFIX_PROMPT, INT, "--shared-system-prompt-length", 0, OFF(shared_system_prompt_length)),
     .help = "Tokens of one synthetic system prompt shared by every request (a common prefix for "
             "the server's cache).",
     .example = "50", .range = &config__range_count},
    {SUP(PREFIX_PROMPT, INT, "--user-context-prompt-length", 0, OFF(user_context_prompt_length)),
     .help = "Tokens of a context message unique to each session (dataset entry), sent as a "
             "user message before the prompt (needs --num-dataset-entries).",
     .example = "200", .range = &config__range_count},
    /* Input sequence length */
    {SUP(ISL, INT, "--isl --synthetic-input-tokens-mean --prompt-input-tokens-mean",
         CONFIG__T_SWEEP, OFF(isl_tokens_mean)),
     .help = "Mean input length in tokens of synthetic prompts. A comma list sweeps it.",
     .default_text = "550", .example = "550", .range = &config__range_tokens},
    {SUP(ISL, DOUBLE, "--isl-stddev --synthetic-input-tokens-stddev --prompt-input-tokens-stddev",
         0, OFF(isl_tokens_stddev)),
     .help = "Standard deviation of the synthetic input length in tokens.", .default_text = "0",
     .example = "0", .range = &config__range_stddev},
    {SUP_GIVEN(ISL, INT,
               "--isl-block-size --synthetic-input-tokens-block-size "
               "--prompt-input-tokens-block-size",
               0, OFF(isl_block_size), OFF(isl_block_size_set)),
     .help = "Tokens per hash_ids block of mooncake traces.", .default_text = "512",
     .example = "512", .range = &config__range_count},
    {SUP(ISL, STRING, "--seq-dist --sequence-distribution", 0, OFF(seq_dist)),
     .help = "A mixture of input/output lengths: 'ISL,OSL:PERCENT;...' (each length may be "
             "N|STDDEV); each request draws one pair. Replaces --isl/--osl.",
     .example = "'256,128:60;1024,512:40'"},
    /* Output sequence length */
    {SUP_GIVEN(OSL, INT, "--osl --output-tokens-mean --prompt-output-tokens-mean", CONFIG__T_SWEEP,
               OFF(osl_tokens_mean), OFF(osl_set)),
     .help = "Mean output length in tokens, sent as max_completion_tokens (max_tokens). "
             "Unset: the model decides. A comma list sweeps it.",
     .example = "200", .range = &config__range_tokens},
    {SUP(OSL, DOUBLE, "--osl-stddev --output-tokens-stddev --prompt-output-tokens-stddev", 0,
         OFF(osl_tokens_stddev)),
     .help = "Standard deviation of the requested output length in tokens.", .default_text = "0",
     .example = "0", .range = &config__range_stddev},
    /* Audio input */
    {SUP(AUDIO, INT, "--audio-batch-size --batch-size-audio", 0, OFF(audio_batch_size)),
     .help = "Audio clips per request (with --audio-length-mean).", .default_text = "1",
     .example = "2", .range = &config__range_media_batch},
    {SUP(AUDIO, DOUBLE, "--audio-length-mean", 0, OFF(audio_length_mean_seconds)),
     .help = "Mean length in seconds of the synthetic noise clip sent with each prompt "
             "(chat, responses). 0: no audio.",
     .default_text = "0", .example = "5.0", .range = &config__range_audio_seconds},
    {SUP(AUDIO, DOUBLE, "--audio-length-stddev", 0, OFF(audio_length_stddev_seconds)),
     .help = "Standard deviation of the audio length in seconds.", .default_text = "0",
     .example = "1.0", .range = &config__range_audio_seconds},
    {SUP(AUDIO, CHOICE, "--audio-format", 0, OFF(audio_format)),
     .help = "Audio encoding: wav (PCM) or mp3.", .default_text = "wav", .example = "mp3",
     .choices = config__audio_format_choices},
    {SUP(AUDIO, LIST, "--audio-depths", CONFIG__T_COMMA_SPLIT, OFF(audio_depths)),
     .help = "Bit depths to pick from per clip: 8, 16, 24 or 32.", .default_text = "16",
     .example = "16"},
    {SUP(AUDIO, LIST, "--audio-sample-rates", CONFIG__T_COMMA_SPLIT, OFF(audio_sample_rates)),
     .help = "Sample rates in kHz to pick from per clip (values above 96 are taken as Hz); "
             "mp3 allows 8, 11.025, 12, 16, 22.05, 24, 32, 44.1 and 48.",
     .default_text = "16", .example = "16"},
    {SUP(AUDIO, INT, "--audio-num-channels", 0, OFF(audio_num_channels)),
     .help = "Audio channels: 1 (mono) or 2 (stereo).", .default_text = "1", .example = "1",
     .range = &config__range_audio_channels},
    /* Image input */
    {SUP(IMAGE, DOUBLE, "--image-width-mean", 0, OFF(image_width_mean_px)),
     .help = "Mean width in pixels of the synthetic images sent with each prompt (chat, "
             "responses, messages); images are sent when width and height means are > 0.",
     .default_text = "0", .example = "512", .range = &config__range_image_px},
    {SUP(IMAGE, DOUBLE, "--image-width-stddev", 0, OFF(image_width_stddev_px)),
     .help = "Standard deviation of the image width in pixels.", .default_text = "0",
     .example = "0", .range = &config__range_image_px},
    {SUP(IMAGE, DOUBLE, "--image-height-mean", 0, OFF(image_height_mean_px)),
     .help = "Mean height in pixels of the synthetic images.", .default_text = "0",
     .example = "512", .range = &config__range_image_px},
    {SUP(IMAGE, DOUBLE, "--image-height-stddev", 0, OFF(image_height_stddev_px)),
     .help = "Standard deviation of the image height in pixels.", .default_text = "0",
     .example = "0", .range = &config__range_image_px},
    {SUP(IMAGE, INT, "--image-batch-size --batch-size-image", 0, OFF(image_batch_size)),
     .help = "Images per request.", .default_text = "1", .example = "2",
     .range = &config__range_media_batch},
    {SUP(IMAGE, CHOICE, "--image-format", 0, OFF(image_format)),
     .help = "Image encoding: png, jpeg, or random (one of the two per image).",
     .default_text = "png", .example = "jpeg", .choices = config__image_format_choices},
    {SUP(IMAGE, STRING, "--image-source", 0, OFF(image_source)),
     .help = "Image content: assets (ringperf draws a seeded picture of gradients and "
             "rectangles in place of AIPerf's bundled photos) or noise (random pixels). "
             "Directories of images are not supported yet.",
     .default_text = "assets", .example = "noise"},
    {SUP(IMAGE, CHOICE, "--image-source-sampling", 0, CONFIG__NO_FIELD),
     .help = "How source images are sampled; accepted for compatibility (generated images "
             "have no pool).",
     .default_text = "random_with_replacement", .example = "shuffle_cycle",
     .choices = config__image_sampling_choices},
    /* Video input */
    NOPE(VIDEO, INT, "--video-batch-size --batch-size-video", "Videos per request."),
    NOPE(VIDEO, DOUBLE, "--video-duration", "Video length in seconds."),
    NOPE(VIDEO, INT, "--video-fps", "Video frames per second."),
    NOPE(VIDEO, INT, "--video-width", "Video width in pixels."),
    NOPE(VIDEO, INT, "--video-height", "Video height in pixels."),
    NOPE(VIDEO, STRING, "--video-synth-type", "Synthetic video content."),
    NOPE(VIDEO, STRING, "--video-format", "Video container: webm or mp4."),
    NOPE(VIDEO, STRING, "--video-codec", "Video codec."),
    NOPE(VIDEO, INT, "--video-audio-sample-rate", "Sample rate of the video's audio track."),
    NOPE(VIDEO, INT, "--video-audio-num-channels", "Channels of the video's audio track."),
    NOPE(VIDEO, STRING, "--video-audio-codec", "Codec of the video's audio track."),
    NOPE(VIDEO, STRING, "--video-audio-depth", "Bit depth of the video's audio track."),
    /* Rankings */
    {SUP(RANKINGS, INT, "--rankings-passages-mean", 0, OFF(rankings_passages_mean)),
     .help = "Mean passages per rankings request.", .default_text = "1", .example = "5",
     .range = &config__range_batch},
    {SUP(RANKINGS, INT, "--rankings-passages-stddev", 0, OFF(rankings_passages_stddev)),
     .help = "Stddev of the passages per request.", .default_text = "0", .example = "1",
     .range = &config__range_tokens},
    {SUP(RANKINGS, INT, "--rankings-passages-prompt-token-mean", 0,
         OFF(rankings_passage_tokens_mean)),
     .help = "Mean tokens per passage.", .default_text = "--isl (550)", .example = "512",
     .range = &config__range_count},
    {SUP(RANKINGS, INT, "--rankings-passages-prompt-token-stddev", 0,
         OFF(rankings_passage_tokens_stddev)),
     .help = "Stddev of the tokens per passage.", .default_text = "0", .example = "10",
     .range = &config__range_tokens},
    {SUP(RANKINGS, INT, "--rankings-query-prompt-token-mean", 0, OFF(rankings_query_tokens_mean)),
     .help = "Mean tokens per query.", .default_text = "--isl (550)", .example = "64",
     .range = &config__range_count},
    {SUP(RANKINGS, INT, "--rankings-query-prompt-token-stddev", 0,
         OFF(rankings_query_tokens_stddev)),
     .help = "Stddev of the tokens per query.", .default_text = "0", .example = "10",
     .range = &config__range_tokens},
    /* Synthesis */
    NOPE(SYNTHESIS, DOUBLE, "--synthesis-speedup-ratio", "Timestamp scaling of traces."),
    NOPE(SYNTHESIS, DOUBLE, "--synthesis-prefix-len-multiplier", "Prefix length multiplier."),
    NOPE(SYNTHESIS, INT, "--synthesis-prefix-root-multiplier", "Independent radix trees."),
    NOPE(SYNTHESIS, DOUBLE, "--synthesis-prompt-len-multiplier", "Prompt length multiplier."),
    NOPE(SYNTHESIS, DOUBLE, "--synthesis-output-len-multiplier", "Output length multiplier."),
    NOPE(SYNTHESIS, INT, "--synthesis-max-isl", "Skip traces with a longer input."),
    NOPE(SYNTHESIS, INT, "--synthesis-max-osl", "Cap trace output lengths."),
    /* Load generator */
    {SUP(LOAD_GENERATOR, DOUBLE, "--benchmark-duration", CONFIG__T_SWEEP,
         OFF(benchmark_duration_seconds)),
     .help = "Stop sending new requests after this many seconds. A comma list sweeps it.",
     .example = "60", .range = &config__range_seconds_gt0},
    {SUP_GIVEN(LOAD_GENERATOR, DOUBLE, "--benchmark-grace-period", CONFIG__T_ALLOW_INF,
               OFF(benchmark_grace_period_seconds), OFF(benchmark_grace_period_set)),
     .help = "Seconds to keep counting responses after --benchmark-duration ends; 'inf' "
             "waits for all.",
     .default_text = "30", .example = "30", .range = &config__range_seconds_ge0},
    {SUP(LOAD_GENERATOR, INT, "--concurrency", CONFIG__T_SWEEP, OFF(concurrency)),
     .help = "Requests kept in flight (closed loop): a new one is sent as one completes. A "
             "comma list (1,4,16) sweeps it.",
     .example = "64", .range = &config__range_concurrency},
    {SUP(LOAD_GENERATOR, INT, "--prefill-concurrency", 0, OFF(prefill_concurrency)),
     .help = "At most this many requests wait for their first token at once (needs "
             "--streaming; at most --concurrency).",
     .example = "8", .range = &config__range_concurrency},
    {SUP(LOAD_GENERATOR, DOUBLE, "--request-rate", CONFIG__T_SWEEP, OFF(request_rate_per_second)),
     .help = "Target requests per second (open loop), optionally capped by --concurrency. A "
             "comma list sweeps it.",
     .example = "5.0", .range = &config__range_rate},
    {SUP_GIVEN(LOAD_GENERATOR, CHOICE, "--arrival-pattern --request-rate-mode", 0,
               OFF(arrival_pattern), OFF(arrival_pattern_set)),
     .help = "How --request-rate requests are spaced: poisson (exponential gaps), constant "
             "(1/rate), gamma (shape --arrival-smoothness), or concurrency_burst.",
     .default_text = "poisson", .example = "constant", .choices = config__arrival_choices},
    {SUP_GIVEN(LOAD_GENERATOR, DOUBLE, "--arrival-smoothness --vllm-burstiness", 0,
               OFF(arrival_smoothness), OFF(arrival_smoothness_set)),
     .help = "Gamma shape k of the gaps (as vLLM's --burstiness): 1 is Poisson, larger is "
             "smoother. Given alone, it selects the gamma pattern.",
     .example = "2.0", .range = &config__range_smoothness},
    {SUP_GIVEN(LOAD_GENERATOR, INT, "--request-count --num-requests", 0, OFF(request_count),
               OFF(request_count_set)),
     .help = "Number of requests to send.", .default_text = "10", .example = "100",
     .range = &config__range_count},
    {SUP(LOAD_GENERATOR, DOUBLE, "--concurrency-ramp-duration", 0, OFF(concurrency_ramp_seconds)),
     .help = "Seconds over which requests in flight grow linearly from one to --concurrency.",
     .example = "30", .range = &config__range_seconds_gt0},
    {SUP(LOAD_GENERATOR, DOUBLE, "--prefill-concurrency-ramp-duration", 0,
         OFF(prefill_concurrency_ramp_seconds)),
     .help = "Seconds over which --prefill-concurrency grows linearly from one to its value.",
     .example = "30", .range = &config__range_seconds_gt0},
    {SUP(LOAD_GENERATOR, DOUBLE, "--request-rate-ramp-duration", 0, OFF(request_rate_ramp_seconds)),
     .help = "Seconds over which the request rate climbs linearly to --request-rate.",
     .example = "30", .range = &config__range_seconds_gt0},
    NOPE(LOAD_GENERATOR, STRING, "--request-rate-series", "Piecewise-linear rate file."),
    {SUP(LOAD_GENERATOR, DOUBLE, "--failed-request-threshold", 0, OFF(failed_request_threshold)),
     .help = "Stop the run, and exit non-zero, once the share of failed requests exceeds this "
             "ratio (checked after max(concurrency, 10) requests).",
     .example = "0.1", .range = &config__range_ratio},
    NOPE(LOAD_GENERATOR, DOUBLE, "--trajectory-start-min-ratio", "Agentic replay start bound."),
    NOPE(LOAD_GENERATOR, DOUBLE, "--trajectory-start-max-ratio", "Agentic replay start bound."),
    NOPE(LOAD_GENERATOR, SWITCH, "--burst-phase-starts", "Burst agentic phase starts."),
    /* Scenario */
    NOPE(SCENARIO, STRING, "--scenario", "Named scenario that locks benchmark settings."),
    NOPE(SCENARIO, SWITCH, "--unsafe-override", "Turn scenario lock errors into warnings."),
    /* Warmup */
    {SUP(WARMUP, INT, "--warmup-request-count --num-warmup-requests", 0, OFF(warmup_request_count)),
     .help = "Requests sent before profiling starts, with the profiling load settings; "
             "excluded from the results.",
     .example = "100", .range = &config__range_count},
    {SUP(WARMUP, DOUBLE, "--warmup-duration", 0, OFF(warmup_duration_seconds)),
     .help = "Seconds of warmup load before profiling starts; excluded from the results.",
     .example = "30", .range = &config__range_seconds_gt0},
    NOPE(WARMUP, DOUBLE, "--agentic-cache-warmup-duration", "Agentic cache warmup seconds."),
    NOPE(WARMUP, INT, "--num-warmup-sessions", "Warmup sessions."),
    {SUP(WARMUP, INT, "--warmup-concurrency", 0, OFF(warmup_concurrency)),
     .help = "Requests in flight during the warmup (default: --concurrency).", .example = "8",
     .range = &config__range_concurrency},
    {SUP(WARMUP, INT, "--warmup-prefill-concurrency", 0, OFF(warmup_prefill_concurrency)),
     .help = "--prefill-concurrency during the warmup (default: --prefill-concurrency).",
     .example = "4", .range = &config__range_concurrency},
    {SUP(WARMUP, DOUBLE, "--warmup-request-rate", 0, OFF(warmup_request_rate)),
     .help = "Requests per second during the warmup (default: --request-rate).", .example = "5",
     .range = &config__range_rate},
    {SUP_GIVEN(WARMUP, CHOICE, "--warmup-arrival-pattern", 0, OFF(warmup_arrival_pattern),
               OFF(warmup_arrival_pattern_set)),
     .help = "How warmup requests are spaced (default: --arrival-pattern).", .example = "constant",
     .choices = config__arrival_choices},
    {SUP_GIVEN(WARMUP, DOUBLE, "--warmup-grace-period", CONFIG__T_ALLOW_INF,
               OFF(warmup_grace_period_seconds), OFF(warmup_grace_period_set)),
     .help = "Seconds warmup requests still running when --warmup-duration ends may take "
             "before they are cancelled; 'inf' (the default) lets them finish.",
     .default_text = "inf", .example = "10", .range = &config__range_seconds_ge0},
    {SUP(WARMUP, DOUBLE, "--warmup-concurrency-ramp-duration", 0,
         OFF(warmup_concurrency_ramp_seconds)),
     .help = "--concurrency-ramp-duration for the warmup (default: the profiling one).",
     .example = "10", .range = &config__range_seconds_gt0},
    {SUP(WARMUP, DOUBLE, "--warmup-prefill-concurrency-ramp-duration", 0,
         OFF(warmup_prefill_concurrency_ramp_seconds)),
     .help = "--prefill-concurrency-ramp-duration for the warmup (default: the profiling one).",
     .example = "10", .range = &config__range_seconds_gt0},
    {SUP(WARMUP, DOUBLE, "--warmup-request-rate-ramp-duration", 0,
         OFF(warmup_request_rate_ramp_seconds)),
     .help = "--request-rate-ramp-duration for the warmup (default: the profiling one).",
     .example = "10", .range = &config__range_seconds_gt0},
    /* User-centric rate */
    {SUP(USER_CENTRIC, DOUBLE, "--user-centric-rate", 0, OFF(user_centric_rate)),
     .help = "Requests per second across all users: each of --num-users users sends its next "
             "turn num_users/rate seconds after its previous one (at once when the reply is "
             "later), never two at a time. Needs multi-turn conversations.",
     .example = "10", .range = &config__range_rate},
    {SUP(USER_CENTRIC, INT, "--num-users", CONFIG__T_SWEEP, OFF(num_users)),
     .help = "Simulated users for --user-centric-rate. A comma list sweeps it.", .example = "16",
     .range = &config__range_concurrency},
    /* Request cancellation */
    {SUP(CANCELLATION, DOUBLE, "--request-cancellation-rate", 0, OFF(cancellation_rate_percent)),
     .help = "Percentage of requests to cancel; they end as errors with code 499 and "
             "was_cancelled.",
     .default_text = "0", .example = "10", .range = &config__range_percent},
    {SUP(CANCELLATION, DOUBLE, "--request-cancellation-delay", 0, OFF(cancellation_delay_seconds)),
     .help = "Seconds after a cancelled request was fully sent before it is cancelled.",
     .default_text = "0", .example = "0.5", .range = &config__range_seconds_ge0},
    /* Output */
    {SUP_GIVEN(OUTPUT, STRING, "--artifact-dir --output-artifact-dir", 0, OFF(artifact_dir),
               OFF(artifact_dir_set)),
     .help = "Directory for the exported results.", .default_text = "artifacts",
     .example = "artifacts"},
    {SUP(OUTPUT, STRING, "--profile-export-prefix --profile-export-file", 0,
         OFF(profile_export_prefix)),
     .help = "Base name for every exported file instead of the profile_export* defaults.",
     .example = "my_run"},
    {SUP(OUTPUT, CHOICE, "--export-level --profile-export-level", 0, OFF(export_level)),
     .help = "summary: summary files only; records: also profile_export.jsonl, one line per "
             "request; raw: also profile_export_raw.jsonl with every response chunk.",
     .default_text = "records", .example = "raw", .choices = config__export_level_choices},
    {SUP(OUTPUT, DOUBLE, "--slice-duration", 0, OFF(slice_duration_seconds)),
     .help = "Also write per-window statistics (profile_export_aiperf_timeslices.json/.csv) "
             "for windows of this many seconds, and use it as the interval of the .hlog files.",
     .example = "10", .range = &config__range_slice_seconds},
    {SUP(OUTPUT, SWITCH, "--auto-plot", 0, OFF(auto_plot)),
     .help = "After the run, draw its plots and report.html into <artifact dir>/plots, as "
             "`ringperf plot` does; a plotting failure is a warning."},
    {SUP(OUTPUT, SWITCH, "--no-auto-plot", 0, OFF(no_auto_plot)),
     .help = "Do not plot after the run (overrides --auto-plot, e.g. one from a config file)."},
    {SUP(OUTPUT, SWITCH, "--plot-required", 0, OFF(plot_required)),
     .help = "With --auto-plot, a plotting failure ends the run with exit status 1."},
    {SUP(OUTPUT, SWITCH, "--export-outputs-json", 0, OFF(export_outputs_json)),
     .help = "Also write outputs.json: every request's identity, times, metrics and response "
             "text, warmup requests included (always written at --export-level raw)."},
    NOPE(OUTPUT, STRING, "--otel-url", "OTLP/HTTP metrics endpoint."),
    NOPE(OUTPUT, LIST, "--stream", "Telemetry streamed over OTel."),
    NOPE(OUTPUT, LIST, "--otel-resource-attributes", "OTel resource attributes."),
    NOPE(OUTPUT, STRING, "--gen-ai-provider", "GenAI semantic convention provider."),
    NOPE(OUTPUT, STRING, "--mlflow-tracking-uri", "MLflow tracking URI."),
    NOPE(OUTPUT, STRING, "--mlflow-experiment", "MLflow experiment."),
    NOPE(OUTPUT, STRING, "--mlflow-run-name", "MLflow run name."),
    NOPE(OUTPUT, LIST, "--mlflow-tag", "MLflow run tags."),
    NOPE(OUTPUT, STRING, "--mlflow-parent-run-id", "MLflow parent run."),
    NOPE(OUTPUT, LIST, "--mlflow-artifact-glob", "MLflow artifact globs."),
    NOPE(OUTPUT, STRING, "--wandb-project", "Weights & Biases project."),
    NOPE(OUTPUT, STRING, "--wandb-entity", "Weights & Biases entity."),
    NOPE(OUTPUT, STRING, "--wandb-run-name", "Weights & Biases run name."),
    NOPE(OUTPUT, LIST, "--wandb-tag", "Weights & Biases tags."),
    /* HTTP trace */
    {SUP(HTTP_TRACE, SWITCH, "--export-http-trace", 0, OFF(export_http_trace)),
     .help = "Add each request's HTTP trace (send, first and last byte, connect, bytes and reads, "
             "wall-clock ns) as trace_data to its profile_export.jsonl line."},
    {SUP(HTTP_TRACE, SWITCH, "--show-trace-timing", 0, OFF(show_trace_timing)),
     .help = "Print the HTTP trace timing table (the http_req_* metrics) before the main table."},
    /* Server metrics */
    {SUP(SERVER_METRICS, LIST, "--server-metrics", CONFIG__T_URL | CONFIG__T_COMMA_SPLIT,
         OFF(server_metrics)),
     .help = "More Prometheus endpoints to scrape, besides each --url's own /metrics (which is "
             "scraped by default); /metrics is appended unless the path ends so.",
     .example = "localhost:9100"},
    {SUP(SERVER_METRICS, SWITCH, "--no-server-metrics", 0, OFF(no_server_metrics)),
     .help = "Do not scrape the servers' Prometheus /metrics (scraped about every 333 ms by "
             "default, into server_metrics_export.*)."},
    {SUP(SERVER_METRICS, LIST, "--server-metrics-formats", CONFIG__T_COMMA_SPLIT,
         OFF(server_metrics_formats)),
     .help = "Which server metrics files to write: json, csv, jsonl. Default: json,csv.",
     .example = "json,csv,jsonl"},
    /* Network latency */
    {SUP(NETWORK_LATENCY, SWITCH, "--network-latency-automatic", 0, OFF(network_latency_automatic)),
     .help = "Measure the network round trip to each server while profiling (a TCP handshake "
             "every ping interval, written to profile_export_network_latency.jsonl): the "
             "summary adds network_rtt, their mean, and the network_adjusted_* blocks."},
    {SUP(NETWORK_LATENCY, DOUBLE, "--network-latency-mean", 0, OFF(network_latency_mean_ms)),
     .help = "The network round trip to the server, in ms: the summary adds network_rtt and "
             "request latency, TTFT and TTFO blocks less it (network_adjusted_*).",
     .example = "0.5", .range = &config__range_network_rtt},
    {SUP(NETWORK_LATENCY, DOUBLE, "--network-latency-ping-interval", 0,
         OFF(network_latency_ping_interval_s)),
     .help = "Seconds between round-trip probes of --network-latency-automatic.",
     .default_text = "1", .example = "0.5", .range = &config__range_ping_interval},
    /* GPU telemetry */
    {SUP(GPU_TELEMETRY, LIST, "--gpu-telemetry", CONFIG__T_URL | CONFIG__T_COMMA_SPLIT,
         OFF(gpu_telemetry)),
     .help = "DCGM exporter URLs to read GPU telemetry from (default: localhost:9400 and "
             "localhost:9401, probed quietly), into gpu_telemetry_export.jsonl and the summary's "
             "telemetry_data and energy metrics.",
     .example = "localhost:9400"},
    {SUP(GPU_TELEMETRY, SWITCH, "--no-gpu-telemetry", 0, OFF(no_gpu_telemetry)),
     .help = "Do not collect GPU telemetry (not even the quiet probe of the default DCGM "
             "exporters)."},
    /* UI */
    {SUP(UI, CHOICE, "--ui-type --ui", 0, OFF(ui_type)),
     .help = "Progress display. Default: dashboard on a terminal, none otherwise, simple "
             "with -v/-vv.",
     .example = "simple", .choices = config__ui_choices},
    {SUP(UI, DOUBLE, "--stats-interval", 0, OFF(stats_interval_seconds)),
     .help = "Seconds between the progress log lines printed when there is no progress bar "
             "(--ui-type simple or none, or no terminal); the bar and the API stay live.",
     .default_text = "1", .example = "30", .range = &config__range_seconds_gt0},
    /* Multi-run */
    {SUP(MULTI_RUN, INT, "--num-profile-runs", 0, OFF(multi_run.num_profile_runs)),
     .help = "Run the benchmark this many times (profile_runs/run_NNNN/) and write the spread "
             "of every statistic, with confidence intervals, to aggregate/.",
     .default_text = "1", .example = "5", .range = &config__range_profile_runs},
    {SUP(MULTI_RUN, DOUBLE, "--profile-run-cooldown-seconds", 0, OFF(multi_run.cooldown_seconds)),
     .help = "Pause between repeated runs.", .default_text = "0", .example = "10",
     .range = &config__range_seconds_ge0},
    {SUP(MULTI_RUN, DOUBLE, "--confidence-level", 0, OFF(multi_run.confidence_level)),
     .help = "Confidence level of the Student-t intervals of repeated runs, below 1.",
     .default_text = "0.95", .example = "0.99", .range = &config__range_confidence},
    {SUP(MULTI_RUN, SWITCH, "--profile-run-disable-warmup-after-first", 0,
         OFF(multi_run.disable_warmup_after_first)),
     .help = "Warm up only before the first of the repeated runs (the default)."},
    {SUP(MULTI_RUN, SWITCH, "--no-profile-run-disable-warmup-after-first", 0,
         OFF(multi_run.warmup_every_run)),
     .help = "Warm up before every repeated run."},
    {SUP(MULTI_RUN, SWITCH, "--set-consistent-seed", 0, OFF(multi_run.set_consistent_seed)),
     .help = "Without --random-seed, give every repeated run seed 42 (the default), so that "
             "they send the same requests."},
    {SUP(MULTI_RUN, SWITCH, "--no-set-consistent-seed", 0, OFF(multi_run.seed_per_run)),
     .help = "Without --random-seed, give every repeated run a seed of its own."},
    {SUP(MULTI_RUN, STRING, "--convergence-metric", 0, OFF(multi_run.convergence_metric)),
     .help = "Stop repeating (after 3 runs, at most --num-profile-runs) once this metric's "
             "statistic is stable.",
     .example = "time_to_first_token"},
    {SUP(MULTI_RUN, STRING, "--convergence-stat", 0, OFF(multi_run.convergence_stat)),
     .help = "The statistic --convergence-metric watches: avg, min, max, sum, std or p1..p99.",
     .default_text = "avg", .example = "p99"},
    {SUP(MULTI_RUN, DOUBLE, "--convergence-threshold", 0, OFF(multi_run.convergence_threshold)),
     .help = "ci_width: the interval's width over the mean; cv: std over mean; stable below it.",
     .default_text = "0.10", .example = "0.05", .range = &config__range_convergence},
    {SUP(MULTI_RUN, CHOICE, "--convergence-mode", 0, OFF(multi_run.convergence_mode)),
     .help = "How --convergence-metric is judged: ci_width, cv, or distribution (a "
             "Kolmogorov-Smirnov test of its per-request values, stable above the threshold).",
     .default_text = "ci_width", .example = "cv", .choices = config__convergence_choices},
    {SUP(MULTI_RUN, DOUBLE, "--parameter-sweep-cooldown-seconds", 0, OFF(sweep.cooldown_seconds)),
     .help = "Pause between the cells of a sweep.", .default_text = "0", .example = "10",
     .range = &config__range_seconds_ge0},
    {SUP(MULTI_RUN, SWITCH, "--parameter-sweep-same-seed", 0, OFF(sweep.same_seed)),
     .help = "Give every cell of a sweep the same seed (by default cell i adds i to it)."},
    {SUP(MULTI_RUN, SWITCH, "--no-parameter-sweep-same-seed", 0, OFF(sweep.seed_per_cell)),
     .help = "Give every cell of a sweep a seed of its own (the default)."},
    {SUP(MULTI_RUN, CHOICE, "--parameter-sweep-mode", 0, OFF(sweep.mode)),
     .help = "With --num-profile-runs: every cell once per trial (repeated) or all trials of a "
             "cell before the next (independent).",
     .default_text = "repeated", .example = "independent", .choices = config__sweep_mode_choices},
    {SUP(MULTI_RUN, CHOICE, "--sweep-type", 0, OFF(sweep.type)),
     .help = "Several comma lists: every combination (grid) or their i-th values together "
             "(zip).",
     .default_text = "grid", .example = "zip", .choices = config__sweep_type_choices},
    NOPE(MULTI_RUN, LIST, "--variant --sweep-variant", "One sweep variation."),
    NOPE(MULTI_RUN, LIST, "--search-sla", "SLA filter for search."),
    NOPE(MULTI_RUN, LIST, "--search-sla-tier", "Tier of SLA filters."),
    NOPE(MULTI_RUN, STRING, "--search-recipe", "Named search recipe."),
    NOPE(MULTI_RUN, DOUBLE, "--ttft-sla-ms", "TTFT SLA in ms."),
    NOPE(MULTI_RUN, DOUBLE, "--itl-sla-ms", "ITL SLA in ms."),
    NOPE(MULTI_RUN, DOUBLE, "--tpot-sla-ms", "TPOT SLA in ms."),
    NOPE(MULTI_RUN, DOUBLE, "--e2e-sla-ms", "End-to-end latency SLA in ms."),
    NOPE(MULTI_RUN, DOUBLE, "--error-rate-sla", "Maximum error rate."),
    NOPE(MULTI_RUN, DOUBLE, "--slo-attainment-fraction", "Required SLO attainment."),
    /* Accuracy */
    NOPE(ACCURACY, STRING, "--accuracy-benchmark", "Accuracy benchmark to run."),
    NOPE(ACCURACY, LIST, "--accuracy-tasks", "Accuracy tasks."),
    NOPE(ACCURACY, INT, "--accuracy-n-shots", "Few-shot examples."),
    NOPE(ACCURACY, SWITCH, "--accuracy-enable-cot --accuracy-no-enable-cot",
         "Chain-of-thought prompting."),
    NOPE(ACCURACY, STRING, "--accuracy-grader", "Grader override."),
    NOPE(ACCURACY, STRING, "--accuracy-system-prompt", "Accuracy system prompt."),
    NOPE(ACCURACY, SWITCH, "--accuracy-verbose", "Per-problem grading details."),
    /* Service */
    {SUP(SERVICE, CHOICE, "--log-level", 0, OFF(log_level)), .help = "Log verbosity.",
     .default_text = "INFO", .example = "DEBUG", .choices = config__log_level_choices},
    {SUP(SERVICE, SWITCH, "--verbose -v", 0, OFF(verbose)), .help = "Same as --log-level DEBUG."},
    {SUP(SERVICE, SWITCH, "--extra-verbose -vv", 0, OFF(extra_verbose)),
     .help = "Same as --log-level TRACE."},
    NOPE(SERVICE, INT, "--record-processor-service-count --record-processors",
         "Record processor services."),
    {SUP_GIVEN(SERVICE, INT, "--api-port", 0, OFF(api_port), OFF(api_port_set)),
     .help = "Serve the live HTTP API (JSON, Prometheus /metrics, results) on this port for "
             "the run; 0 picks a free port. Also AIPERF_API_SERVER_PORT.",
     .example = "9097", .range = &config__range_port},
    {SUP(SERVICE, STRING, "--api-host", 0, OFF(api_host)),
     .help = "Address the live HTTP API binds; 0.0.0.0 exposes it beyond this host.",
     .default_text = "127.0.0.1", .example = "0.0.0.0"},
    {SUP(SERVICE, STRING, "--api-token", CONFIG__T_SECRET, OFF(api_token)),
     .help = "Bearer token the live API asks for on every route but /healthz and /readyz "
             "(Authorization: Bearer TOKEN); give one whenever --api-host is not loopback. "
             "Not an AIPerf flag.",
     .example = "s3cret"},
    /* Workers */
    {SUP(WORKERS, INT, "--workers-max --max-workers", 0, OFF(workers_max)),
     .help = "Maximum worker threads; by default chosen from the CPU count and concurrency.",
     .example = "2", .range = &config__range_workers},
    {SUP_GIVEN(WORKERS, INT, "--shard-index", 0, OFF(shard_index), OFF(shard_index_set)),
     .help = "Not an AIPerf flag: run share N of a run split over --shard-count independent "
             "processes (e.g. a Kubernetes Indexed Job); combine them with `ringperf merge`.",
     .default_text = "$JOB_COMPLETION_INDEX", .example = "0", .range = &config__range_shard_index},
    {SUP(WORKERS, INT, "--shard-count", 0, OFF(shard_count)),
     .help = "Not an AIPerf flag: how many processes share the run (see --shard-index). Under "
             "mpirun or srun the MPI ranks split the run without it.",
     .example = "4", .range = &config__range_shard_count},
    {SUP(WORKERS, INT, "--realtime-priority", 0, OFF(realtime_priority)),
     .help = "Not an AIPerf flag: run the shards at SCHED_FIFO priority N (1-99), keep the other "
             "threads off their CPUs and lock memory, for microsecond timing. Needs root or "
             "CAP_SYS_NICE (or `ulimit -r N`) and CAP_IPC_LOCK (or `ulimit -l unlimited`); "
             "without them ringperf warns and runs at normal priority.",
     .example = "10", .range = &config__range_rt_priority},
    /* ZMQ communication */
    NOPE(ZMQ, STRING, "--zmq-host", "Host for AIPerf's internal ZMQ sockets."),
    NOPE(ZMQ, STRING, "--zmq-ipc-path", "Directory for ZMQ IPC sockets."),
    NOPE(ZMQ, SWITCH, "--zmq-dual-bind", "Bind ZMQ on both IPC and TCP."),
};

_Static_assert(sizeof(flag_table) / sizeof(flag_table[0]) <= CONFIG_FLAGS_MAX,
               "profile_config.flags_given has one bit per flag table entry");

const struct config__flag *config__flags(size_t *out_count)
{
    *out_count = sizeof(flag_table) / sizeof(flag_table[0]);
    return flag_table;
}
