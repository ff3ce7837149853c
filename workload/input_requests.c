/*
 * input_requests.c - the requests of an --input-file (or --public-dataset)
 * run: loading only what the run sends, building each entry's body, the send
 * order (sampling, or a trace's timestamps), the file's conversations, and
 * inputs.json.
 */
#include "workload/workload_media.h"
#include "workload/workload_internal.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <jansson.h>

#include "datasets/datasets.h"
#include "metrics/metrics.h"

/* ---- --input-file ---- */

/* Most payload slots an --input-file run prepares; longer runs cycle them. */
#define INPUT_ORDER_MAX ((size_t)1 << 20)

/* input_source is what building the bodies of a dataset needs. */
struct input_source {
    const struct profile_config *cfg;
    const struct tokenizer *tok;
    struct prompt_source prompts; /* synthetic text for input_length records */
    struct dataset_blocks *blocks;
    const char *extra;
    char *prompt; /* PROMPT_BYTES_MAX bytes */
};

/* merged_extra returns --extra-inputs with the record's "extra" merged over
 * it (malloc'd), or NULL when neither is given or memory runs out. */
static char *merged_extra(const char *global, const char *entry)
{
    if (entry == NULL) {
        return global != NULL ? strdup(global) : NULL;
    }
    json_t *base = global != NULL ? json_loads(global, 0, NULL) : json_object();
    json_t *add = json_loads(entry, 0, NULL);
    char *out = NULL;
    if (json_is_object(base) && json_is_object(add) && json_object_update(base, add) == 0) {
        out = json_dumps(base, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    }
    json_decref(base);
    json_decref(add);
    return out;
}

/* entry_prompt writes entry e's prompt into src->prompt and returns its
 * token count (METRICS_ABSENT without a tokenizer), or -2 on error. */
static int64_t entry_prompt(struct input_source *src, const struct dataset_entry *e)
{
    size_t len = 0;
    if (e->text_count == 0 && e->hash_id_count == 0 && e->input_length == 0 &&
        e->image_count + e->audio_count > 0) {
        src->prompt[0] = '\0'; /* media alone: no text to count */
        return 0;
    }
    if (e->hash_id_count > 0) {
        len =
            dataset_blocks_prompt(src->blocks, &src->prompts.scratch, e->hash_ids, e->hash_id_count,
                                  e->input_length, src->prompt, PROMPT_BYTES_MAX);
    } else if (e->text_count == 0) {
        len = src->prompts.prompter != NULL
                  ? dataset_prompter_generate(src->prompts.prompter, &src->prompts.scratch,
                                              &src->prompts.rng, e->input_length, src->prompt,
                                              PROMPT_BYTES_MAX)
                  : dataset_synthetic_prompt(&src->prompts.rng, e->input_length, src->prompt,
                                             PROMPT_BYTES_MAX);
    } else {
        for (size_t i = 0; i < e->text_count; i++) {
            size_t n = strlen(e->texts[i]);
            if (len + n + 2 > PROMPT_BYTES_MAX) {
                return -2;
            }
            if (i > 0) {
                src->prompt[len++] = ' ';
            }
            memcpy(src->prompt + len, e->texts[i], n);
            len += n;
        }
        src->prompt[len] = '\0';
    }
    if (len == 0 && (e->hash_id_count > 0 || e->text_count == 0)) {
        return -2;
    }
    size_t tokens = 0;
    if (src->tok == NULL || tokenizer_count(src->tok, &src->prompts.scratch, src->prompt, len,
                                            &tokens) != TOKENIZER_OK) {
        return METRICS_ABSENT;
    }
    return (int64_t)tokens;
}

/* entry_body builds the body of entry i: its payload verbatim, or a body for
 * the endpoint from its texts. Prints what went wrong. */
static char *entry_body(struct input_source *src, struct workload_requests *out, size_t i,
                        int64_t *out_isl)
{
    const struct profile_config *cfg = src->cfg;
    const struct dataset_entry *e = dataset_inputs_entry(out->inputs, i);
    *out_isl = METRICS_ABSENT;
    if (e->payload != NULL) {
        if (cfg->cache_bust != CONFIG_CACHE_BUST_NONE) {
            fprintf(stderr, "ringperf profile: --cache-bust cannot mark request bodies sent "
                            "verbatim (raw_payload, inputs_json): drop it, or give texts\n");
            return NULL;
        }
        *out_isl = workload__body_tokens(e->payload, src->tok, &src->prompts.scratch);
        return strdup(e->payload);
    }
    if (out->type == ENDPOINT_RAW) {
        fprintf(stderr, "ringperf profile: --endpoint-type raw sends request bodies verbatim: "
                        "give a raw_payload or inputs_json --input-file\n");
        return NULL;
    }
    *out_isl = entry_prompt(src, e);
    if (*out_isl == -2) {
        fprintf(stderr,
                "ringperf profile: %s:%llu: cannot make a prompt of this record: with %zu "
                "hash_ids, input_length (%llu) must exceed (hash_ids - 1) x --isl-block-size "
                "(%lld), and the prompt must fit in %u bytes\n",
                cfg->input_file, (unsigned long long)e->line, e->hash_id_count,
                (unsigned long long)e->input_length,
                (long long)(cfg->isl_block_size_set ? cfg->isl_block_size : 512), PROMPT_BYTES_MAX);
        return NULL;
    }
    char where[512];
    snprintf(where, sizeof(where), "%s:%llu", cfg->input_file, (unsigned long long)e->line);
    struct workload_media_set media;
    if (workload_media_from_entry(e, where, &media) != 0) {
        return NULL;
    }
    char *extra = merged_extra(src->extra, e->extra_json);
    struct payload_spec spec = {
        .type = out->type,
        .model = workload__model_of(cfg, &src->prompts, i),
        .prompt = src->prompt,
        .max_tokens = e->output_length > 0 ? e->output_length
                      : cfg->osl_set
                          ? dataset_sample_length(&src->prompts.rng, (uint64_t)cfg->osl_tokens_mean,
                                                  cfg->osl_tokens_stddev)
                          : 0,
        .streaming = cfg->streaming,
        .use_legacy_max_tokens = cfg->use_legacy_max_tokens,
        .extra_inputs_json = extra,
        .use_server_token_count = cfg->use_server_token_count,
        .per_chunk_usage = cfg->per_chunk_usage,
        .texts = e->text_count > 0 ? e->texts : NULL,
        .text_count = e->text_count,
        .query = e->text_count > 0 ? e->texts[0] : src->prompt,
        .passages = e->text_count > 1 ? e->texts + 1 : NULL,
        .passage_count = e->text_count > 1 ? e->text_count - 1 : 0,
        .media = media.view,
        .cache_bust = workload__cache_bust(cfg),
        .cache_bust_key = workload__cache_bust_key(out->cache_bust_nonce, i),
        .template = out->template,
    };
    char errbuf[512];
    char *body = payload_build(&spec, errbuf, sizeof(errbuf));
    if (body == NULL) {
        fprintf(stderr, "ringperf profile: %s: cannot build the request body: %s\n", where, errbuf);
    }
    workload_media_set_free(&media);
    free(extra);
    return body;
}

static int by_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a;
    uint64_t y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* load_sample loads only the records a count-limited random or shuffled run
 * draws: the file's records are counted, the run's order drawn over them as
 * sample_order would, and just those records parsed. out->presampled keeps
 * that order, as positions in the loaded entries. */
static int load_sample(uint64_t seed, enum dataset_sampling sampling, size_t needed,
                       struct dataset_inputs_options *opts, struct workload_requests *out)
{
    char err[DATASET_ERR_CAP];
    uint64_t records = 0;
    if (dataset_inputs_count_records(opts->path, &records, err, sizeof(err)) != 0) {
        fprintf(stderr, "ringperf profile: --input-file %s\n", err);
        return -EINVAL;
    }
    size_t *order = calloc(needed, sizeof(*order));
    uint64_t *wanted = calloc(needed, sizeof(*wanted));
    if (order == NULL || wanted == NULL) {
        free(order);
        free(wanted);
        return -ENOMEM;
    }
    struct dataset_rng rng;
    dataset_rng_seed(&rng, seed ^ 0x73616d706c65ULL);
    dataset_sample_order(sampling, (size_t)records, &rng, order, needed);
    for (size_t k = 0; k < needed; k++) {
        wanted[k] = order[k];
    }
    qsort(wanted, needed, sizeof(*wanted), by_u64);
    size_t unique = 0;
    for (size_t k = 0; k < needed; k++) {
        if (unique == 0 || wanted[unique - 1] != wanted[k]) {
            wanted[unique++] = wanted[k];
        }
    }
    opts->records_wanted = wanted;
    opts->records_wanted_count = unique;
    int ret = dataset_inputs_load(opts, &out->inputs, err, sizeof(err)) == 0 ? 0 : -EINVAL;
    if (ret != 0) {
        fprintf(stderr, "ringperf profile: --input-file %s\n", err);
    }
    for (size_t k = 0; ret == 0 && k < needed; k++) {
        uint64_t key = order[k];
        const uint64_t *at = bsearch(&key, wanted, unique, sizeof(*wanted), by_u64);
        order[k] = (size_t)(at - wanted);
    }
    free(wanted);
    opts->records_wanted = NULL;
    if (ret != 0) {
        free(order);
        return ret;
    }
    out->presampled = order;
    out->presampled_count = needed;
    return 0;
}

static int load_inputs(const struct profile_config *cfg, uint64_t seed,
                       struct workload_requests *out)
{
    struct dataset_inputs_options opts = {.path = cfg->input_file};
    if (cfg->custom_dataset_type != NULL &&
        dataset_input_type_parse(cfg->custom_dataset_type, &opts.type) != 0) {
        fprintf(stderr,
                "ringperf profile: --custom-dataset-type %s is not supported; supported: "
                "single_turn, multi_turn, random_pool, mooncake_trace, raw_payload, inputs_json\n",
                cfg->custom_dataset_type);
        return -EINVAL;
    }
    /* A count-limited run sends `needed` requests. Read that many entries
     * first: enough for a run that takes the file in order, and enough to
     * tell its format and whether it is a timestamped trace. */
    size_t needed =
        cfg->request_count_set && cfg->benchmark_duration_seconds <= 0 && !cfg->fixed_schedule
            ? (size_t)cfg->request_count + (size_t)cfg->warmup_request_count
            : 0;
    opts.entries_max = needed;
    char err[DATASET_ERR_CAP];
    if (dataset_inputs_load(&opts, &out->inputs, err, sizeof(err)) != 0) {
        fprintf(stderr, "ringperf profile: --input-file %s\n", err);
        return -EINVAL;
    }
    if (needed == 0 || dataset_inputs_count(out->inputs) < needed) {
        return 0; /* the whole file is in */
    }
    enum dataset_input_type type = dataset_inputs_type(out->inputs);
    enum dataset_sampling sampling = dataset_sampling_default(type);
    if (cfg->dataset_sampling_strategy != NULL) {
        dataset_sampling_parse(cfg->dataset_sampling_strategy, &sampling);
    }
    bool timed = dataset_inputs_timestamped(out->inputs) && !cfg->no_fixed_schedule;
    bool in_order = sampling == DATASET_SAMPLING_SEQUENTIAL || type == DATASET_INPUT_MULTI_TURN;
    if (!timed && in_order) {
        return 0;
    }
    /* A trace replays whole; a random draw needs to know every record. */
    dataset_inputs_free(out->inputs);
    out->inputs = NULL;
    opts.entries_max = 0;
    opts.type = type;
    struct stat st;
    if (!timed && type != DATASET_INPUT_INPUTS_JSON && stat(opts.path, &st) == 0 &&
        S_ISREG(st.st_mode)) {
        return load_sample(seed, sampling, needed, &opts, out);
    }
    if (dataset_inputs_load(&opts, &out->inputs, err, sizeof(err)) != 0) {
        fprintf(stderr, "ringperf profile: --input-file %s\n", err);
        return -EINVAL;
    }
    return 0;
}

/* build_bodies builds the body of every entry, or with used only of the
 * entries marked there (the others keep a NULL body). */
static int build_bodies(const struct profile_config *cfg, uint64_t seed,
                        const struct tokenizer *tok, const char *extra,
                        struct workload_requests *out, int64_t *isl, const bool *used)
{
    struct input_source src = {.cfg = cfg, .tok = tok, .extra = extra};
    dataset_rng_seed(&src.prompts.rng, seed);
    src.prompts.model_seed = seed ^ 0x6d6f64656cULL;
    char errbuf[512];
    int ret = 0;
    if (tok != NULL &&
        dataset_prompter_new(tok, &src.prompts.prompter, errbuf, sizeof(errbuf)) != 0) {
        fprintf(stderr, "ringperf profile: %s\n", errbuf);
        return -EINVAL;
    }
    size_t count = dataset_inputs_count(out->inputs);
    uint64_t block = cfg->isl_block_size_set ? (uint64_t)cfg->isl_block_size : 512;
    src.prompt = malloc(PROMPT_BYTES_MAX);
    out->bodies = calloc(count, sizeof(*out->bodies));
    if (src.prompt == NULL || out->bodies == NULL ||
        dataset_blocks_new(src.prompts.prompter, block, seed ^ 0x626c6f636bULL, &src.blocks) != 0) {
        ret = -ENOMEM;
    }
    for (size_t i = 0; ret == 0 && i < count; i++) {
        if (used != NULL && !used[i]) {
            out->body_count++;
            continue;
        }
        out->bodies[i] = entry_body(&src, out, i, &isl[i]);
        ret = out->bodies[i] != NULL ? 0 : -EINVAL;
        out->body_count += ret == 0;
    }
    free(src.prompt);
    dataset_blocks_free(src.blocks);
    dataset_prompter_free(src.prompts.prompter);
    tokenizer_scratch_free(&src.prompts.scratch);
    return ret;
}

/* schedule_order puts the entries whose timestamps fall in the
 * --fixed-schedule-start/end-offset window (inclusive) in timestamp order,
 * with due times relative to the start offset, else (auto offset) the first
 * timestamp, else 0. Returns the number of entries, or 0 with a message. */
static size_t schedule_order(const struct profile_config *cfg, struct workload_requests *out,
                             size_t *order)
{
    size_t count = dataset_inputs_count(out->inputs);
    struct workload__timed_entry *timed = calloc(count, sizeof(*timed));
    size_t n = 0;
    for (size_t i = 0; timed != NULL && i < count; i++) {
        const struct dataset_entry *e = dataset_inputs_entry(out->inputs, i);
        if (!e->has_timestamp) {
            fprintf(stderr,
                    "ringperf profile: %s:%llu: --fixed-schedule needs a \"timestamp\" "
                    "(ms) in every record\n",
                    cfg->input_file, (unsigned long long)e->line);
            free(timed);
            return 0;
        }
        if (workload__in_window(cfg, e->timestamp_ms)) {
            timed[n++] = (struct workload__timed_entry){e->timestamp_ms, i};
        }
    }
    if (timed != NULL && n > 0) {
        qsort(timed, n, sizeof(*timed), workload__by_timestamp);
        double zero_ms = workload__schedule_zero_ms(cfg, timed[0].timestamp_ms);
        for (size_t k = 0; k < n; k++) {
            order[k] = timed[k].index;
            out->schedule_offsets_ns[k] = workload__offset_ns(timed[k].timestamp_ms, zero_ms);
        }
        workload__shape_schedule(cfg, out->schedule_offsets_ns, n);
    } else if (timed != NULL) {
        fprintf(stderr,
                "ringperf profile: --input-file %s: no timestamps inside the "
                "--fixed-schedule-start/end-offset window\n",
                cfg->input_file);
    }
    free(timed);
    return n;
}

/* sample_order orders the entries by --dataset-sampling-strategy; returns
 * the number of payload slots, or 0 with a message. */
static size_t sample_order(const struct profile_config *cfg, uint64_t seed,
                           struct workload_requests *out, size_t *order, size_t slots)
{
    if (out->presampled != NULL) {
        /* load_sample drew the order already, over the whole file. */
        size_t n = out->presampled_count < slots ? out->presampled_count : slots;
        memcpy(order, out->presampled, n * sizeof(*order));
        return n;
    }
    enum dataset_sampling sampling = dataset_sampling_default(dataset_inputs_type(out->inputs));
    if (cfg->dataset_sampling_strategy != NULL &&
        dataset_sampling_parse(cfg->dataset_sampling_strategy, &sampling) != 0) {
        fprintf(stderr,
                "ringperf profile: --dataset-sampling-strategy %s: expected sequential, "
                "random or shuffle\n",
                cfg->dataset_sampling_strategy);
        return 0;
    }
    size_t count = dataset_inputs_count(out->inputs);
    size_t n = sampling == DATASET_SAMPLING_SEQUENTIAL ? count : slots;
    struct dataset_rng rng;
    dataset_rng_seed(&rng, seed ^ 0x73616d706c65ULL);
    dataset_sample_order(sampling, count, &rng, order, n);
    return n;
}

/* build_sent builds the bodies of the entries order[0..n) sends, and only
 * those: a 1,000-request run over a 1,000,000-line file builds 1,000. */
static int build_sent(const struct profile_config *cfg, uint64_t seed, const struct tokenizer *tok,
                      const char *extra, struct workload_requests *out, int64_t *isl,
                      const size_t *order, size_t n)
{
    bool *used = calloc(dataset_inputs_count(out->inputs), sizeof(*used));
    if (used == NULL) {
        return -ENOMEM;
    }
    for (size_t k = 0; k < n; k++) {
        used[order[k]] = true;
    }
    int ret = build_bodies(cfg, seed, tok, extra, out, isl, used);
    free(used);
    return ret;
}

static int order_payloads(const struct profile_config *cfg, uint64_t seed,
                          const struct tokenizer *tok, const char *extra,
                          struct workload_requests *out, int64_t *isl)
{
    size_t count = dataset_inputs_count(out->inputs);
    size_t slots = count;
    if (cfg->request_count_set && (uint64_t)cfg->request_count > count) {
        slots = (uint64_t)cfg->request_count < INPUT_ORDER_MAX ? (size_t)cfg->request_count
                                                               : INPUT_ORDER_MAX;
    }
    slots = slots > count ? slots : count;
    out->fixed_schedule =
        cfg->fixed_schedule || (dataset_inputs_timestamped(out->inputs) && !cfg->no_fixed_schedule);
    size_t *order = calloc(slots, sizeof(*order));
    out->schedule_offsets_ns = out->fixed_schedule ? calloc(count, sizeof(int64_t)) : NULL;
    if (order == NULL || (out->fixed_schedule && out->schedule_offsets_ns == NULL)) {
        free(order);
        return -ENOMEM;
    }
    size_t n = out->fixed_schedule ? schedule_order(cfg, out, order)
                                   : sample_order(cfg, seed, out, order, slots);
    /* A run of fewer requests sends only the first slots: ordinal % n is the
     * same for every ordinal it issues. */
    uint64_t needed = (uint64_t)cfg->request_count + (uint64_t)cfg->warmup_request_count;
    if (!out->fixed_schedule && cfg->request_count_set && cfg->benchmark_duration_seconds <= 0 &&
        needed < n) {
        n = (size_t)needed;
    }
    if (n > 0 && build_sent(cfg, seed, tok, extra, out, isl, order, n) != 0) {
        free(order);
        return -EINVAL;
    }
    out->payloads = n > 0 ? calloc(n, sizeof(*out->payloads)) : NULL;
    out->payload_isl = n > 0 && tok != NULL ? calloc(n, sizeof(*out->payload_isl)) : NULL;
    int ret = n == 0                                                               ? -EINVAL
              : out->payloads == NULL || (tok != NULL && out->payload_isl == NULL) ? -ENOMEM
                                                                                   : 0;
    for (size_t k = 0; ret == 0 && k < n; k++) {
        char *body = out->bodies[order[k]];
        out->payloads[k] = (struct engine_payload){.body = body, .body_len = strlen(body)};
        if (out->payload_isl != NULL) {
            out->payload_isl[k] = isl[order[k]];
        }
        out->payload_count++;
    }
    /* The order is which entry each payload sends: the records' names in inputs.json. */
    out->payload_entries = order;
    return ret;
}

int workload__build_input_payloads(const struct profile_config *cfg, uint64_t seed,
                                   const struct tokenizer *tok, const char *extra,
                                   struct workload_requests *out)
{
    int ret = cfg->public_dataset != NULL
                  ? workload_prompt_extras_load_public(cfg, tok, &out->inputs)
                  : load_inputs(cfg, seed, out);
    ret = ret != 0 ? ret : workload__check_trace_times(cfg, out->inputs);
    if (ret != 0) {
        return ret;
    }
    size_t count = dataset_inputs_count(out->inputs);
    int64_t *isl = calloc(count, sizeof(*isl));
    out->multi_turn = workload__input_sessions(cfg, out);
    if (isl == NULL) {
        ret = -ENOMEM;
    } else if (out->multi_turn) {
        ret = build_bodies(cfg, seed, tok, extra, out, isl, NULL);
        if (ret == 0) {
            ret = workload__add_input_conversations(cfg, out, isl);
        }
    } else {
        ret = order_payloads(cfg, seed, tok, extra, out, isl);
    }
    free(isl);
    return ret;
}

/* write_session_id writes s as a JSON string. */
static void write_json_string(FILE *f, const char *s)
{
    json_t *str = json_string(s);
    if (str == NULL || json_dumpf(str, f, JSON_ENCODE_ANY) != 0) {
        fputs("\"\"", f);
    }
    json_decref(str);
}

/* put_session_name writes session_<n>, the name inputs.json gives a conversation the dataset
 * did not name, into scratch. */
static const char *put_session_name(size_t n, char *scratch, size_t cap, size_t *out_len)
{
    int len = snprintf(scratch, cap, "session_%zu", n);
    *out_len = len < 0 ? 0 : ((size_t)len < cap ? (size_t)len : cap - 1);
    return scratch;
}

const char *workload_requests_conversation_name(const struct workload_requests *requests,
                                                const struct record *record, char *scratch,
                                                size_t cap, size_t *out_len)
{
    if (record->in_session) {
        return workload_sessions_conversation_name(&requests->sessions, record->session, scratch,
                                                   cap, out_len);
    }
    size_t entry = record->payload_index;
    if (requests->payload_entries != NULL && entry < requests->payload_count) {
        entry = requests->payload_entries[entry];
        /* An entry of a named session is that session's turn (write_inputs groups them). */
        const char *named = dataset_inputs_entry(requests->inputs, entry)->session_id;
        if (named != NULL) {
            *out_len = strlen(named);
            return named;
        }
    }
    return put_session_name(entry, scratch, cap, out_len);
}

/* write_payload_inputs writes the inputs.json file `path` for synthetic payloads: one
 * session per payload. */
static int write_payload_inputs(const char *path, const struct workload_requests *requests)
{
    json_t *data = json_array();
    for (size_t i = 0; i < requests->payload_count; i++) {
        json_error_t error;
        /* A multipart body shows as its fields, its file described (form_requests.c). */
        json_t *body =
            requests->payload_json != NULL
                ? json_loads(requests->payload_json[i], 0, &error)
                : json_loadb(requests->payloads[i].body, requests->payloads[i].body_len, 0, &error);
        char session[32];
        size_t session_len;
        put_session_name(i, session, sizeof(session), &session_len);
        json_array_append_new(data, json_pack("{s:s, s:[o]}", "session_id", session, "payloads",
                                              body != NULL ? body : json_null()));
    }
    json_t *root = json_pack("{s:o}", "data", data);
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        json_decref(root);
        return -errno;
    }
    json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    json_decref(root);
    return workload__close_written(f);
}

/* write_file_inputs writes the inputs.json file `path` of an --input-file run: its entries,
 * each body once, grouped by session in file order. */
static int write_file_inputs(const char *path, const struct workload_requests *requests)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        return -errno;
    }
    fputs("{\n  \"data\": [", f);
    size_t written = 0;
    for (size_t i = 0; i < requests->body_count; i++) {
        if (requests->bodies[i] == NULL) {
            continue; /* an entry the run does not send */
        }
        const struct dataset_entry *e = dataset_inputs_entry(requests->inputs, i);
        const struct dataset_entry *prev =
            i > 0 ? dataset_inputs_entry(requests->inputs, i - 1) : NULL;
        /* Consecutive entries of one named session are its turns. */
        bool same = prev != NULL && e->session_id != NULL && prev->session_id != NULL &&
                    strcmp(e->session_id, prev->session_id) == 0 && e->turn > 0;
        if (!same) {
            fputs(written > 0 ? "\n      ]\n    },\n    {\n      \"session_id\": "
                              : "\n    {\n      \"session_id\": ",
                  f);
            char fallback[32];
            size_t fallback_len;
            put_session_name(i, fallback, sizeof(fallback), &fallback_len);
            write_json_string(f, e->session_id != NULL ? e->session_id : fallback);
            fputs(",\n      \"payloads\": [\n        ", f);
        } else {
            fputs(",\n        ", f);
        }
        fputs(requests->bodies[i], f);
        written++;
    }
    fputs(written > 0 ? "\n      ]\n    }\n  ]\n}\n" : "]\n}\n", f);
    return workload__close_written(f);
}

int workload_requests_write_inputs(const char *dir, const struct workload_requests *requests)
{
    /* Written whole under a temporary name, then renamed: an old run's inputs.json is
     * replaced whole or kept. */
    char path[4096];
    char partial[4200];
    int n = snprintf(path, sizeof(path), "%s/inputs.json", dir);
    if (n < 0 || (size_t)n >= sizeof(path)) {
        return -ENAMETOOLONG;
    }
    snprintf(partial, sizeof(partial), "%s.partial", path);
    int ret = requests->multi_turn ? workload_sessions_write_inputs(&requests->sessions, partial)
              : requests->inputs == NULL ? write_payload_inputs(partial, requests)
                                         : write_file_inputs(partial, requests);
    if (ret == 0 && rename(partial, path) != 0) {
        ret = -errno;
    }
    if (ret != 0) {
        unlink(partial);
    }
    return ret;
}
