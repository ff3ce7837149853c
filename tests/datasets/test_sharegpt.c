/*
 * test_sharegpt.c - the streaming ShareGPT loader on generated files: AIPerf's
 * filter, the prompt and output length of each kept conversation, errors that
 * name line and column, files larger than one read chunk, and the Hugging
 * Face cache lookup.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datasets/datasets.h"
#include "tokenizer/tokenizer.h"

/* words appends n words to a JSON string body. */
static void words(FILE *f, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        fprintf(f, "%sw%zu", i > 0 ? " " : "", i);
    }
}

/* conversation writes one ShareGPT object with a prompt and a reply. */
static void conversation(FILE *f, const char *id, size_t prompt_words, size_t output_words)
{
    fprintf(f, "{\"id\": \"%s\", \"conversations\": [\n  {\"from\": \"human\", \"value\": \"", id);
    words(f, prompt_words);
    fputs("\"},\n  {\"from\": \"gpt\", \"value\": \"", f);
    words(f, output_words);
    fputs("\"}]}", f);
}

static char *build(void (*fill)(FILE *), size_t *len)
{
    char *text = NULL;
    FILE *f = open_memstream(&text, len);
    cr_assert_not_null(f);
    fill(f);
    fclose(f);
    return text;
}

static void filter_file(FILE *f)
{
    fputs("[\n", f);
    conversation(f, "keep4", 4, 4);  /* line 2: kept */
    fputs(",\n", f);                 /* line 4 ends */
    conversation(f, "short", 3, 10); /* prompt < 4 */
    fputs(",\n", f);
    conversation(f, "shortout", 10, 3); /* output < 4 */
    fputs(",\n", f);
    conversation(f, "long", 1025, 10); /* prompt > 1024 */
    fputs(",\n", f);
    conversation(f, "total", 1000, 1049); /* total > 2048 */
    fputs(",\n", f);
    fputs("{\"id\": \"one\", \"conversations\": [{\"from\": \"human\", \"value\": \"a b c d "
          "e\"}]},\n",
          f);
    fputs("{\"id\": \"none\", \"conversations\": []},\n", f);
    conversation(f, "edge", 1024, 1024); /* kept: 2048 total */
    fputs("\n]\n", f);
}

Test(dataset_sharegpt, filter_keeps_what_aiperf_keeps)
{
    size_t len = 0;
    char *text = build(filter_file, &len);
    struct dataset_sharegpt_options opts = {0};
    struct dataset_inputs *ds = NULL;
    char err[DATASET_ERR_CAP];
    cr_assert_eq(dataset_sharegpt_load_buffer(text, len, "sg.json", &opts, &ds, err, sizeof(err)),
                 0, "%s", err);
    cr_assert_eq(dataset_inputs_count(ds), 2);
    const struct dataset_entry *e = dataset_inputs_entry(ds, 0);
    cr_assert_eq(e->text_count, 1);
    cr_assert_str_eq(e->texts[0], "w0 w1 w2 w3");
    cr_assert_eq(e->output_length, 4);
    cr_assert_eq(e->line, 2);
    e = dataset_inputs_entry(ds, 1);
    cr_assert_eq(e->output_length, 1024);
    cr_assert_eq(dataset_inputs_type(ds), DATASET_INPUT_SINGLE_TURN);
    dataset_inputs_free(ds);

    /* --osl: no output filter, and the file's lengths are not used. */
    opts.osl_set = true;
    cr_assert_eq(dataset_sharegpt_load_buffer(text, len, "sg.json", &opts, &ds, err, sizeof(err)),
                 0, "%s", err);
    cr_assert_eq(dataset_inputs_count(ds), 3);
    cr_assert_eq(dataset_inputs_entry(ds, 1)->output_length, 0);
    dataset_inputs_free(ds);

    opts.entries_max = 1;
    cr_assert_eq(dataset_sharegpt_load_buffer(text, len, "sg.json", &opts, &ds, err, sizeof(err)),
                 0);
    cr_assert_eq(dataset_inputs_count(ds), 1);
    dataset_inputs_free(ds);
    free(text);
}

struct bad_case {
    const char *text;
    const char *message;
};

Test(dataset_sharegpt, errors_name_file_line_and_column)
{
    static const struct bad_case cases[] = {
        {"", "x.json:1:1: unexpected end of file; expected ']'"},
        {"{}", "x.json:1:1: expected '[': a JSON array"},
        {"[\n  1]", "x.json:2:3: expected '{' (a conversation object) or ']'"},
        {"[{\"conversations\": []},\n {\"conversations\": [}]", "x.json:2:"},
        {"[{\"a\": 1}]", "x.json:1:2: expected a conversation object with a \"conversations\""},
        {"[{\"conversations\": [1, 2]}]", "x.json:1:2: conversations[0]: expected an object"},
        {"[{\"conversations\": []} {}]", "x.json:1:24: expected ',' or ']'"},
        {"[{\"conversations\": []},]", "x.json:1:24: expected '{' (a conversation object)"},
        {"[{\"conversations\": []}] x", "x.json:1:25: expected the end of the file"},
        {"[{\"conversations\": [", "unexpected end of file; expected the rest of a conversation"},
        {"[]", "x.json:1:1: no conversation passed AIPerf's ShareGPT filter"},
        {"[{\"conversations\": \"\\\"}\"}]", "expected a conversation object with a"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct dataset_sharegpt_options opts = {0};
        struct dataset_inputs *ds = (struct dataset_inputs *)&opts;
        char err[DATASET_ERR_CAP];
        int ret = dataset_sharegpt_load_buffer(cases[i].text, strlen(cases[i].text), "x.json",
                                               &opts, &ds, err, sizeof(err));
        cr_assert_eq(ret, -1, "case %zu", i);
        cr_assert_null(ds);
        cr_assert_not_null(strstr(err, cases[i].message), "case %zu: %s", i, err);
    }
}

static void big_file(FILE *f)
{
    fputs("\xef\xbb\xbf[", f);
    for (int i = 0; i < 3000; i++) {
        char id[32];
        snprintf(id, sizeof(id), "c%d", i);
        fputs(i > 0 ? ",\n" : "\n", f);
        conversation(f, id, 4 + (size_t)(i % 300), 4 + (size_t)(i % 7));
    }
    fputs("]", f);
}

Test(dataset_sharegpt, a_file_streams_like_a_buffer)
{
    size_t len = 0;
    char *text = build(big_file, &len);
    cr_assert_gt(len, (size_t)2 << 20, "bigger than the 1 MiB read chunk");
    char path[] = "/tmp/ringperf_sharegpt_XXXXXX";
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    cr_assert_eq(write(fd, text, len), (ssize_t)len);
    close(fd);
    struct dataset_sharegpt_options opts = {0};
    struct dataset_inputs *a = NULL;
    struct dataset_inputs *b = NULL;
    char err[DATASET_ERR_CAP];
    cr_assert_eq(dataset_sharegpt_load(path, &opts, &a, err, sizeof(err)), 0, "%s", err);
    cr_assert_eq(dataset_sharegpt_load_buffer(text, len, path, &opts, &b, err, sizeof(err)), 0);
    cr_assert_eq(dataset_inputs_count(a), 3000);
    cr_assert_eq(dataset_inputs_count(b), 3000);
    for (size_t i = 0; i < 3000; i++) {
        const struct dataset_entry *x = dataset_inputs_entry(a, i);
        const struct dataset_entry *y = dataset_inputs_entry(b, i);
        cr_assert_str_eq(x->texts[0], y->texts[0]);
        cr_assert_eq(x->output_length, 4 + i % 7);
        cr_assert_eq(x->line, 2 + 3 * i);
        cr_assert_eq(y->line, x->line);
    }
    dataset_inputs_free(a);
    dataset_inputs_free(b);
    unlink(path);
    cr_assert_eq(dataset_sharegpt_load(path, &opts, &a, err, sizeof(err)), -1);
    cr_assert_not_null(strstr(err, "cannot open"));
    free(text);
}

Test(dataset_sharegpt, finds_the_file_in_the_hugging_face_cache)
{
    char root[] = "/tmp/ringperf_hf_XXXXXX";
    cr_assert_not_null(mkdtemp(root));
    char dir[512];
    char path[1024];
    char found[1024];
    char err[DATASET_ERR_CAP];
    cr_assert_eq(dataset_sharegpt_find(NULL, root, NULL, found, sizeof(found), err, sizeof(err)),
                 -ENOENT);
    cr_assert_not_null(strstr(err, "--input-file"), "%s", err);
    cr_assert_not_null(strstr(err, DATASET_SHAREGPT_FILE));
    snprintf(dir, sizeof(dir), "%s/hub", root);
    mkdir(dir, 0700);
    snprintf(dir, sizeof(dir), "%s/hub/%s", root, DATASET_SHAREGPT_HF_DIR);
    mkdir(dir, 0700);
    snprintf(dir, sizeof(dir), "%s/hub/%s/snapshots", root, DATASET_SHAREGPT_HF_DIR);
    mkdir(dir, 0700);
    snprintf(dir, sizeof(dir), "%s/hub/%s/snapshots/abc123", root, DATASET_SHAREGPT_HF_DIR);
    mkdir(dir, 0700);
    snprintf(path, sizeof(path), "%s/%s", dir, DATASET_SHAREGPT_FILE);
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("[]", f);
    fclose(f);
    cr_assert_eq(
        dataset_sharegpt_find(NULL, root, "/nonexistent", found, sizeof(found), err, sizeof(err)),
        0, "%s", err);
    cr_assert_str_eq(found, path);
    /* HF_HUB_CACHE wins over HF_HOME. */
    char hub[600];
    snprintf(hub, sizeof(hub), "%s/hub", root);
    cr_assert_eq(
        dataset_sharegpt_find(hub, "/nonexistent", NULL, found, sizeof(found), err, sizeof(err)),
        0);
    cr_assert_eq(
        dataset_sharegpt_find("/nonexistent", root, NULL, found, sizeof(found), err, sizeof(err)),
        -ENOENT);
    unlink(path);
    snprintf(dir, sizeof(dir), "rm -rf '%s'", root);
    cr_assert_eq(system(dir), 0);
}

Test(dataset_sharegpt, token_lengths_with_a_tokenizer, .timeout = 300)
{
    const char *path = getenv("RINGPERF_TOKENIZER_QWEN3");
    if (path == NULL || access(path, R_OK) != 0) {
        cr_skip_test("no Qwen3 tokenizer (run through ctest)");
    }
    struct tokenizer *tok = NULL;
    char err[DATASET_ERR_CAP];
    cr_assert_eq(tokenizer_load(path, &tok, err, sizeof(err)), 0, "%s", err);
    /* "w0 w1 w2" is more tokens than words; lengths follow the tokenizer. */
    size_t len = 0;
    char *text = build(filter_file, &len);
    struct dataset_sharegpt_options opts = {.tok = tok};
    struct dataset_inputs *ds = NULL;
    cr_assert_eq(dataset_sharegpt_load_buffer(text, len, "sg.json", &opts, &ds, err, sizeof(err)),
                 0, "%s", err);
    struct tokenizer_scratch s = {0};
    for (size_t i = 0; i < dataset_inputs_count(ds); i++) {
        const struct dataset_entry *e = dataset_inputs_entry(ds, i);
        size_t n = 0;
        cr_assert_eq(tokenizer_count(tok, &s, e->texts[0], strlen(e->texts[0]), &n), TOKENIZER_OK);
        cr_assert(n >= 4 && n <= 1024);
        cr_assert(e->output_length >= 4 && n + e->output_length <= 2048);
    }
    /* Each "wN" is two tokens: "short" and "shortout" now pass. */
    cr_assert_eq(dataset_inputs_count(ds), 3);
    size_t n = 0;
    cr_assert_eq(tokenizer_count(tok, &s, "w0 w1 w2 w3", 11, &n), TOKENIZER_OK);
    cr_assert_eq(dataset_inputs_entry(ds, 0)->output_length, n);
    tokenizer_scratch_free(&s);
    dataset_inputs_free(ds);
    tokenizer_free(tok);
    free(text);
}
