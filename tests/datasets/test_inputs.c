/*
 * test_inputs.c - the input-file loaders: every format, auto-detection,
 * directories, sampling orders, hash-id blocks, and the errors of bad input.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datasets/datasets.h"

static struct dataset_inputs *load_text(const char *text, enum dataset_input_type type)
{
    struct dataset_inputs_options opts = {.type = type};
    struct dataset_inputs *ds = NULL;
    char err[DATASET_ERR_CAP] = "";
    int ret =
        dataset_inputs_load_buffer(text, strlen(text), "in.jsonl", &opts, &ds, err, sizeof(err));
    cr_assert_eq(ret, 0, "%s", err);
    return ds;
}

/* load_error loads text expecting failure and returns the message. */
static void load_error(const char *text, enum dataset_input_type type, char *err, size_t cap)
{
    struct dataset_inputs_options opts = {.type = type};
    struct dataset_inputs *ds = NULL;
    int ret = dataset_inputs_load_buffer(text, strlen(text), "in.jsonl", &opts, &ds, err, cap);
    cr_assert_eq(ret, -1, "loading '%s' fails", text);
    cr_assert_null(ds);
}

Test(dataset_inputs, single_turn_texts_in_file_order)
{
    struct dataset_inputs *ds = load_text("{\"texts\": [\"Hello!\"]}\n\n"
                                          "{\"text\": \"Tell me a joke.\", \"output_length\": 7, "
                                          "\"extra\": {\"temperature\": 0.5}}\n",
                                          DATASET_INPUT_AUTO);
    cr_assert_eq(dataset_inputs_type(ds), DATASET_INPUT_SINGLE_TURN);
    cr_assert_eq(dataset_inputs_count(ds), 2);
    const struct dataset_entry *e = dataset_inputs_entry(ds, 0);
    cr_assert_eq(e->text_count, 1);
    cr_assert_str_eq(e->texts[0], "Hello!");
    cr_assert_null(e->payload);
    e = dataset_inputs_entry(ds, 1);
    cr_assert_str_eq(e->texts[0], "Tell me a joke.");
    cr_assert_eq(e->output_length, 7);
    cr_assert_eq(e->line, 3, "blank lines still count");
    cr_assert_str_eq(e->extra_json, "{\"temperature\":0.5}");
    cr_assert(!dataset_inputs_timestamped(ds));
    dataset_inputs_free(ds);
}

Test(dataset_inputs, multi_turn_records_become_one_entry_per_turn)
{
    struct dataset_inputs *ds =
        load_text("{\"session_id\": \"s1\", \"turns\": [{\"text\": \"Hi\"}, "
                  "{\"text\": \"More\", \"delay\": 250, \"output_length\": 9}]}\n"
                  "{\"turns\": [{\"texts\": [\"Solo\"]}]}\n",
                  DATASET_INPUT_AUTO);
    cr_assert_eq(dataset_inputs_type(ds), DATASET_INPUT_MULTI_TURN);
    cr_assert_eq(dataset_inputs_count(ds), 3);
    const struct dataset_entry *e = dataset_inputs_entry(ds, 0);
    cr_assert_str_eq(e->session_id, "s1");
    cr_assert_eq(e->turn, 0);
    cr_assert_str_eq(e->texts[0], "Hi");
    e = dataset_inputs_entry(ds, 1);
    cr_assert_str_eq(e->session_id, "s1");
    cr_assert_eq(e->turn, 1);
    cr_assert(e->has_delay);
    cr_assert_float_eq(e->delay_ms, 250.0, 1e-9);
    cr_assert_eq(e->output_length, 9);
    e = dataset_inputs_entry(ds, 2);
    cr_assert_null(e->session_id);
    cr_assert_eq(e->turn, 0);
    cr_assert_eq(e->line, 2);
    dataset_inputs_free(ds);
}

Test(dataset_inputs, single_turn_media_are_kept_as_written)
{
    struct dataset_inputs *ds =
        load_text("{\"text\": \"Describe\", \"images\": [\"https://x/a.png\", \"b.jpg\"], "
                  "\"audio\": \"wav,UklGRg==\"}\n{\"image\": \"data:image/png;base64,AA==\"}\n",
                  DATASET_INPUT_AUTO);
    const struct dataset_entry *e = dataset_inputs_entry(ds, 0);
    cr_assert_eq(e->image_count, 2);
    cr_assert_str_eq(e->images[1], "b.jpg");
    cr_assert_eq(e->audio_count, 1);
    cr_assert_str_eq(e->audios[0], "wav,UklGRg==");
    e = dataset_inputs_entry(ds, 1);
    cr_assert_eq(e->text_count, 0, "an image alone needs no text");
    cr_assert_eq(e->image_count, 1);
    dataset_inputs_free(ds);
}

Test(dataset_inputs, only_the_wanted_records_are_kept_and_all_are_counted)
{
    static const char text[] = "{\"text\": \"a\"}\n\n{\"text\": \"b\"}\n{\"text\": \"c\"}\n"
                               "  \n{\"text\": \"d\"}\n{\"text\": \"e\"}";
    static const uint64_t wanted[] = {1, 3};
    struct dataset_inputs_options opts = {.records_wanted = wanted, .records_wanted_count = 2};
    struct dataset_inputs *ds = NULL;
    char err[DATASET_ERR_CAP];
    cr_assert_eq(
        dataset_inputs_load_buffer(text, strlen(text), "in.jsonl", &opts, &ds, err, sizeof(err)), 0,
        "%s", err);
    cr_assert_eq(dataset_inputs_count(ds), 2);
    cr_assert_str_eq(dataset_inputs_entry(ds, 0)->texts[0], "b");
    cr_assert_eq(dataset_inputs_entry(ds, 0)->line, 3, "blank lines are not records");
    cr_assert_str_eq(dataset_inputs_entry(ds, 1)->texts[0], "d");
    dataset_inputs_free(ds);

    char path[] = "/tmp/ringperf-records-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    uint64_t records = 0;
    cr_assert_eq(dataset_inputs_count_records(path, &records, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(records, 5, "the last line counts without its newline");
    unlink(path);
    cr_assert_eq(dataset_inputs_count_records(path, &records, err, sizeof(err)), -1);
    cr_assert_not_null(strstr(err, path), "%s", err);
}

Test(dataset_inputs, texts_with_names_and_contents_flatten)
{
    struct dataset_inputs *ds =
        load_text("{\"texts\": [{\"name\": \"q\", \"contents\": [\"a\", \"b\"]}, \"c\"]}\n",
                  DATASET_INPUT_SINGLE_TURN);
    const struct dataset_entry *e = dataset_inputs_entry(ds, 0);
    cr_assert_eq(e->text_count, 3);
    cr_assert_str_eq(e->texts[2], "c");
    dataset_inputs_free(ds);
}

Test(dataset_inputs, raw_payload_lines_are_kept_verbatim_without_whitespace)
{
    struct dataset_inputs *ds = load_text(
        "{\"messages\": [{\"role\": \"user\", \"content\": \"a  b\"}], \"temperature\": 0.7}\r\n",
        DATASET_INPUT_AUTO);
    cr_assert_eq(dataset_inputs_type(ds), DATASET_INPUT_RAW_PAYLOAD);
    const struct dataset_entry *e = dataset_inputs_entry(ds, 0);
    cr_assert_str_eq(
        e->payload,
        "{\"messages\":[{\"role\":\"user\",\"content\":\"a  b\"}],\"temperature\":0.7}");
    cr_assert_eq(e->payload_len, strlen(e->payload));
    dataset_inputs_free(ds);
}

Test(dataset_inputs, mooncake_trace_timestamps_and_hash_ids)
{
    struct dataset_inputs *ds =
        load_text("{\"timestamp\": 27, \"input_length\": 1024, \"output_length\": 9, "
                  "\"hash_ids\": [4, 5]}\n{\"timestamp\": 10, \"text_input\": \"hi\"}\n",
                  DATASET_INPUT_AUTO);
    cr_assert_eq(dataset_inputs_type(ds), DATASET_INPUT_MOONCAKE_TRACE);
    cr_assert(dataset_inputs_timestamped(ds));
    const struct dataset_entry *e = dataset_inputs_entry(ds, 0);
    cr_assert_eq(e->input_length, 1024);
    cr_assert_eq(e->hash_id_count, 2);
    cr_assert_eq(e->hash_ids[1], 5);
    cr_assert_eq(e->timestamp_ms, 27.0);
    cr_assert_str_eq(dataset_inputs_entry(ds, 1)->texts[0], "hi");
    dataset_inputs_free(ds);
}

static const char PRETTY_INPUTS[] = "{\n  \"data\": [\n    {\n      \"session_id\": \"s-1\",\n"
                                    "      \"payloads\": [\n        {\n          \"messages\": "
                                    "[{\"role\": \"user\", \"content\": \"Hello there\"}],\n"
                                    "          \"max_tokens\": 1024, \"top_p\": 0.1\n        },\n"
                                    "        {\"model\": \"m\"}\n      ]\n    },\n"
                                    "    {\"payloads\": [{\"x\": 1e3}]}\n  ]\n}\n";

Test(dataset_inputs, pretty_printed_inputs_json_keeps_sessions_and_number_spelling)
{
    struct dataset_inputs *ds = load_text(PRETTY_INPUTS, DATASET_INPUT_AUTO);
    cr_assert_eq(dataset_inputs_type(ds), DATASET_INPUT_INPUTS_JSON);
    cr_assert_eq(dataset_inputs_count(ds), 3);
    const struct dataset_entry *e = dataset_inputs_entry(ds, 0);
    cr_assert_str_eq(e->session_id, "s-1");
    cr_assert_str_eq(e->payload, "{\"messages\":[{\"role\":\"user\",\"content\":\"Hello there\"}],"
                                 "\"max_tokens\":1024,\"top_p\":0.1}");
    cr_assert_eq(dataset_inputs_entry(ds, 1)->turn, 1);
    cr_assert_str_eq(dataset_inputs_entry(ds, 2)->payload, "{\"x\":1e3}");
    cr_assert_str_eq(dataset_inputs_entry(ds, 2)->session_id, "session_1");
    dataset_inputs_free(ds);
}

Test(dataset_inputs, errors_name_file_line_column_and_expectation)
{
    static const struct {
        const char *text;
        enum dataset_input_type type;
        const char *expect;
    } cases[] = {
        {"{\"text\": \"a\"}\n{\"text\": 5}\n", DATASET_INPUT_AUTO, "in.jsonl:2: \"text\""},
        {"{\"text\": \"a\"}\n{\"text\": \"b\",\n", DATASET_INPUT_AUTO, "in.jsonl:2: column"},
        {"[1, 2]\n", DATASET_INPUT_SINGLE_TURN, "expected a JSON object"},
        {"{\"foo\": 1}\n", DATASET_INPUT_AUTO, "--custom-dataset-type"},
        {"{\"session_id\": \"a\", \"turns\": []}\n", DATASET_INPUT_AUTO, "in.jsonl:1: \"turns\""},
        {"{\"text\": \"a\"}\n", DATASET_INPUT_MULTI_TURN, "non-empty list of turns"},
        {"{\"turns\": [{\"text\": \"a\"}, 5]}\n", DATASET_INPUT_AUTO, "\"turns\"[1]"},
        {"{\"session_id\": 3, \"turns\": [{\"text\": \"a\"}]}\n", DATASET_INPUT_AUTO,
         "\"session_id\""},
        {"{\"text\": \"a\", \"texts\": [\"b\"]}\n", DATASET_INPUT_AUTO, "not both"},
        {"{\"text\": \"a\", \"video\": \"x.mp4\"}\n", DATASET_INPUT_AUTO, "not supported yet"},
        {"{\"text\": \"a\", \"image\": 5}\n", DATASET_INPUT_AUTO, "\"image\": expected a string"},
        {"{\"image\": \"a\", \"images\": [\"b\"]}\n", DATASET_INPUT_AUTO, "not both"},
        {"{\"audios\": [\"wav,AAAA\", 3]}\n", DATASET_INPUT_AUTO, "\"audios\"[1]"},
        {"{\"text\": \"a\", \"timestamp\": 1, \"delay\": 2}\n", DATASET_INPUT_AUTO, "not both"},
        {"{\"text\": \"a\", \"timestamp\": -1}\n", DATASET_INPUT_AUTO, "non-negative"},
        {"{\"input_length\": 5, \"hash_ids\": [1, \"x\"]}\n", DATASET_INPUT_AUTO, "hash_ids"},
        {"{\"timestamp\": 5}\n", DATASET_INPUT_MOONCAKE_TRACE, "input_length"},
        {"{\"data\": 5}\n", DATASET_INPUT_INPUTS_JSON, "\"data\" list"},
        {"{\"data\": [{\"session_id\": 1, \"payloads\": []}]}", DATASET_INPUT_INPUTS_JSON,
         "session_id"},
        {"{\"data\": [{}]}", DATASET_INPUT_INPUTS_JSON, "payloads"},
        {"{\"data\": [\n{\"payloads\": [}\n]}", DATASET_INPUT_INPUTS_JSON, "in.jsonl:2:"},
        {"\n\n", DATASET_INPUT_AUTO, "no records"},
        {"", DATASET_INPUT_RAW_PAYLOAD, "no records"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char err[DATASET_ERR_CAP] = "";
        load_error(cases[i].text, cases[i].type, err, sizeof(err));
        cr_assert_not_null(strstr(err, cases[i].expect), "case %zu: '%s' lacks '%s'", i, err,
                           cases[i].expect);
    }
}

Test(dataset_inputs, type_names_round_trip)
{
    for (int t = DATASET_INPUT_SINGLE_TURN; t <= DATASET_INPUT_INPUTS_JSON; t++) {
        enum dataset_input_type back = DATASET_INPUT_AUTO;
        cr_assert_eq(dataset_input_type_parse(dataset_input_type_name(t), &back), 0);
        cr_assert_eq((int)back, t);
    }
    enum dataset_input_type unused;
    cr_assert_eq(dataset_input_type_parse("sharegpt", &unused), -1);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs(text, f);
    fclose(f);
}

Test(dataset_inputs, raw_payload_directory_is_one_session_per_sorted_file)
{
    char dir[] = "/tmp/ringperf-inputs-XXXXXX";
    cr_assert_not_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof(path), "%s/b.jsonl", dir);
    write_file(path, "{\"messages\": [1]}\n{\"messages\": [2]}\n");
    snprintf(path, sizeof(path), "%s/a.jsonl", dir);
    write_file(path, "{\"messages\": [0]}\n");
    snprintf(path, sizeof(path), "%s/notes.txt", dir);
    write_file(path, "not json\n");
    struct dataset_inputs_options opts = {.path = dir};
    struct dataset_inputs *ds = NULL;
    char err[DATASET_ERR_CAP];
    cr_assert_eq(dataset_inputs_load(&opts, &ds, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(dataset_inputs_type(ds), DATASET_INPUT_RAW_PAYLOAD);
    cr_assert_eq(dataset_inputs_count(ds), 3);
    cr_assert_str_eq(dataset_inputs_entry(ds, 0)->session_id, "a");
    cr_assert_str_eq(dataset_inputs_entry(ds, 1)->payload, "{\"messages\":[1]}");
    cr_assert_str_eq(dataset_inputs_entry(ds, 2)->session_id, "b");
    cr_assert_eq(dataset_inputs_entry(ds, 2)->turn, 1);
    dataset_inputs_free(ds);
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(dataset_inputs, file_streams_and_stops_at_entries_max)
{
    char path[] = "/tmp/ringperf-inputs-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    FILE *f = fdopen(fd, "w");
    for (int i = 0; i < 5000; i++) {
        fprintf(f, "{\"text\": \"line %d\"}\n", i);
    }
    fclose(f);
    struct dataset_inputs_options opts = {.path = path, .entries_max = 10};
    struct dataset_inputs *ds = NULL;
    char err[DATASET_ERR_CAP];
    cr_assert_eq(dataset_inputs_load(&opts, &ds, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(dataset_inputs_count(ds), 10);
    cr_assert_str_eq(dataset_inputs_entry(ds, 9)->texts[0], "line 9");
    dataset_inputs_free(ds);
    opts.path = "/nonexistent/file.jsonl";
    cr_assert_eq(dataset_inputs_load(&opts, &ds, err, sizeof(err)), -1);
    cr_assert_not_null(strstr(err, "/nonexistent/file.jsonl"));
    unlink(path);
}

Test(dataset_sampling, orders_cover_entries_as_each_strategy_promises)
{
    enum { N = 7, SLOTS = 20 };
    size_t order[SLOTS];
    struct dataset_rng rng;
    dataset_rng_seed(&rng, 1);
    dataset_sample_order(DATASET_SAMPLING_SEQUENTIAL, N, &rng, order, SLOTS);
    for (size_t i = 0; i < SLOTS; i++) {
        cr_assert_eq(order[i], i % N);
    }
    dataset_sample_order(DATASET_SAMPLING_SHUFFLE, N, &rng, order, SLOTS);
    for (size_t pass = 0; pass + N <= SLOTS; pass += N) {
        int seen[N] = {0};
        for (size_t i = 0; i < N; i++) {
            seen[order[pass + i]]++;
        }
        for (size_t i = 0; i < N; i++) {
            cr_assert_eq(seen[i], 1, "each full pass is a permutation");
        }
    }
    dataset_sample_order(DATASET_SAMPLING_SHUFFLE, 100, &rng, order, 3);
    cr_assert(order[0] != order[1] && order[1] != order[2] && order[0] != order[2]);
    dataset_sample_order(DATASET_SAMPLING_RANDOM, N, &rng, order, SLOTS);
    for (size_t i = 0; i < SLOTS; i++) {
        cr_assert_lt(order[i], N);
    }
    enum dataset_sampling s;
    cr_assert_eq(dataset_sampling_parse("shuffle", &s), 0);
    cr_assert_eq(s, DATASET_SAMPLING_SHUFFLE);
    cr_assert_eq(dataset_sampling_parse("Shuffle", &s), -1);
    cr_assert_eq(dataset_sampling_default(DATASET_INPUT_RANDOM_POOL), DATASET_SAMPLING_SHUFFLE);
    cr_assert_eq(dataset_sampling_default(DATASET_INPUT_RAW_PAYLOAD), DATASET_SAMPLING_SEQUENTIAL);
}

Test(dataset_compact, strips_whitespace_outside_strings_only)
{
    const char *in = "{ \"a\\\" b\" : [ 1 ,\n\t2 ], \"c\": \"x  y\\\\\" }";
    char out[64];
    size_t n = dataset_compact_json(in, strlen(in), out);
    cr_assert_str_eq(out, "{\"a\\\" b\":[1,2],\"c\":\"x  y\\\\\"}");
    cr_assert_eq(n, strlen(out));
}

Test(dataset_blocks, same_hash_id_same_text_and_lengths_add_up)
{
    struct dataset_blocks *b = NULL;
    cr_assert_eq(dataset_blocks_new(NULL, 4, 9, &b), 0);
    char one[256];
    char two[256];
    const uint64_t ids_a[] = {7, 8, 9};
    const uint64_t ids_b[] = {7, 8, 1};
    cr_assert_gt(dataset_blocks_prompt(b, NULL, ids_a, 3, 10, one, sizeof(one)), 0);
    cr_assert_gt(dataset_blocks_prompt(b, NULL, ids_b, 3, 11, two, sizeof(two)), 0);
    size_t words = 1;
    for (const char *p = one; *p != '\0'; p++) {
        words += *p == ' ';
    }
    cr_assert_eq(words, 10, "without a tokenizer one word stands for one token");
    /* The first two blocks (8 words) are shared. */
    size_t prefix = 0;
    for (size_t spaces = 0; spaces < 8; prefix++) {
        spaces += one[prefix] == ' ';
    }
    cr_assert_eq(strncmp(one, two, prefix), 0, "'%s' vs '%s'", one, two);
    cr_assert_eq(dataset_blocks_prompt(b, NULL, ids_a, 3, 8, one, sizeof(one)), 0,
                 "too short for three blocks");
    cr_assert_eq(dataset_blocks_prompt(b, NULL, ids_a, 3, 10, one, 8), 0, "does not fit");
    cr_assert_str_eq(one, "");
    dataset_blocks_free(b);
    cr_assert_eq(dataset_blocks_new(NULL, 0, 9, &b), -1);
}

Test(dataset_inputs, a_nul_byte_is_refused_in_files_and_buffers_alike)
{
    /* "{"text": "a"}\n{"text": "b<NUL>c"}\n": C strings would cut the second
     * record at the NUL, and it would still parse if the cut were clean. */
    static const char text[] = "{\"text\": \"a\"}\n{\"text\": \"b\"}\0{\"text\": \"c\"}\n";
    size_t len = sizeof(text) - 1;
    struct dataset_inputs_options opts = {.type = DATASET_INPUT_SINGLE_TURN};
    struct dataset_inputs *ds = NULL;
    char err[DATASET_ERR_CAP] = "";
    cr_assert_eq(dataset_inputs_load_buffer(text, len, "in.jsonl", &opts, &ds, err, sizeof(err)),
                 -1);
    cr_assert_null(ds);
    cr_assert_not_null(strstr(err, "in.jsonl:2: the line holds a NUL byte"), "%s", err);
    char path[] = "/tmp/ringperf-nul-XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, len), (ssize_t)len);
    close(fd);
    opts.path = path;
    err[0] = '\0';
    cr_assert_eq(dataset_inputs_load(&opts, &ds, err, sizeof(err)), -1);
    cr_assert_not_null(strstr(err, ":2: the line holds a NUL byte"), "%s", err);
    uint64_t count = 0;
    cr_assert_eq(dataset_inputs_count_records(path, &count, err, sizeof(err)), -1);
    cr_assert_not_null(strstr(err, ":2: the line holds a NUL byte"), "%s", err);
    unlink(path);
}
