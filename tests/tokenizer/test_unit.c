/*
 * test_unit.c - the tokenizer on small hand-made tokenizer.json files: what
 * loads, what is refused (with the component named), added tokens, decode,
 * UTF-8 repair, and concurrent readers.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "tokenizer/tokenizer.h"

#define QWEN_PATTERN                                                                               \
    "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\\\r\\\\n\\\\p{L}\\\\p{N}]?\\\\p{L}+|\\\\p{N}| "              \
    "?[^\\\\s\\\\p{L}\\\\p{N}]+[\\\\r\\\\n]*|\\\\s*[\\\\r\\\\n]+|\\\\s+(?!\\\\S)|\\\\s+"

struct parts {
    const char *model_extra; /* appended inside "model" */
    const char *merges;      /* JSON array body */
    const char *normalizer;
    const char *pre_tokenizer;
    const char *decoder;
    const char *added; /* JSON array body */
};

/* byte_char writes the ByteLevel spelling of byte b as JSON string content. */
static size_t byte_char(int b, char *out)
{
    static int table[256];
    if (table['!'] == 0) {
        int extra = 0;
        for (int i = 0; i < 256; i++) {
            bool printable = (i >= 33 && i <= 126) || (i >= 161 && i <= 172) || i >= 174;
            table[i] = printable ? i : 256 + extra++;
        }
    }
    int cp = table[b];
    if (cp == '"' || cp == '\\') {
        out[0] = '\\';
        out[1] = (char)cp;
        return 2;
    }
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
}

static char *build(const struct parts *p)
{
    static char buf[65536];
    size_t o = 0;
    o += (size_t)snprintf(buf + o, sizeof(buf) - o,
                          "{\"added_tokens\": [%s], \"normalizer\": %s, \"pre_tokenizer\": %s, "
                          "\"decoder\": %s, \"model\": {\"type\": \"BPE\"%s, \"vocab\": {",
                          p->added ? p->added : "", p->normalizer ? p->normalizer : "null",
                          p->pre_tokenizer ? p->pre_tokenizer : "null",
                          p->decoder ? p->decoder : "{\"type\": \"ByteLevel\"}",
                          p->model_extra ? p->model_extra : "");
    for (int b = 0; b < 256; b++) {
        buf[o++] = '"';
        o += byte_char(b, buf + o);
        o += (size_t)snprintf(buf + o, sizeof(buf) - o, "\": %d, ", b);
    }
    o += (size_t)snprintf(buf + o, sizeof(buf) - o,
                          "\"he\": 256, \"ll\": 257, \"hell\": 258, \"hello\": 259, \"\xc4\xa0w\": "
                          "260, \"or\": 261}, \"merges\": [%s]}}",
                          p->merges ? p->merges
                                    : "\"h e\", \"l l\", \"he ll\", [\"hell\", \"o\"], "
                                      "\"\xc4\xa0 w\", \"o r\"");
    return buf;
}

static const char *ADDED = "{\"id\": 300, \"content\": \"<|end|>\", \"special\": true},"
                           "{\"id\": 301, \"content\": \"<tag>\", \"special\": false, "
                           "\"lstrip\": true, \"rstrip\": true},"
                           "{\"id\": 302, \"content\": \"<|end|>x\", \"special\": false}";

static struct tokenizer *load(const struct parts *p)
{
    char err[TOKENIZER_ERR_CAP];
    struct tokenizer *tok = NULL;
    const char *json = build(p);
    int rc = tokenizer_load_buffer(json, strlen(json), "tiny", &tok, err, sizeof(err));
    cr_assert_eq(rc, 0, "%s", err);
    return tok;
}

static void expect_ids(const struct tokenizer *tok, const char *text, size_t len,
                       const uint32_t *want, size_t want_count)
{
    struct tokenizer_scratch s = {0};
    const uint32_t *ids;
    size_t count;
    cr_assert_eq(tokenizer_encode(tok, &s, text, len, &ids, &count), TOKENIZER_OK);
    cr_assert_eq(count, want_count, "\"%.*s\": %zu ids, want %zu", (int)len, text, count,
                 want_count);
    for (size_t i = 0; i < count; i++) {
        cr_assert_eq(ids[i], want[i], "\"%.*s\": id %zu is %u, want %u", (int)len, text, i, ids[i],
                     want[i]);
    }
    tokenizer_scratch_free(&s);
}

static const char *SPLIT_QWEN =
    "{\"type\": \"Sequence\", \"pretokenizers\": [{\"type\": \"Split\", "
    "\"pattern\": {\"Regex\": \"" QWEN_PATTERN "\"}, \"behavior\": "
    "\"Isolated\", \"invert\": false}, {\"type\": \"ByteLevel\", "
    "\"add_prefix_space\": false, \"use_regex\": false}]}";

Test(tokenizer_unit, merges_apply_by_rank_within_pre_tokenized_words)
{
    struct parts p = {.pre_tokenizer = SPLIT_QWEN, .normalizer = "{\"type\": \"NFC\"}"};
    struct tokenizer *tok = load(&p);
    expect_ids(tok, "hello world", 11, (uint32_t[]){259, 260, 261, 'l', 'd'}, 5);
    expect_ids(tok, "", 0, NULL, 0);
    expect_ids(tok, "h", 1, (uint32_t[]){'h'}, 1);
    cr_assert_eq(tokenizer_vocab_size(tok), 262);
    tokenizer_free(tok);
}

/* Counting keeps a word cache in the scratch: the same words counted again, or with another
 * tokenizer on the same scratch, count as that tokenizer encodes them. */
Test(tokenizer_unit, counts_come_from_the_word_cache_of_the_right_tokenizer)
{
    struct parts full = {.pre_tokenizer = SPLIT_QWEN};
    struct parts few = {.pre_tokenizer = SPLIT_QWEN, .merges = "\"h e\""};
    struct tokenizer *toks[2] = {load(&full), load(&few)};
    static const char text[] = "hello world hello world";
    struct tokenizer_scratch s = {0};
    size_t want[2];
    for (int t = 0; t < 2; t++) {
        const uint32_t *ids;
        cr_assert_eq(tokenizer_encode(toks[t], &s, text, sizeof(text) - 1, &ids, &want[t]),
                     TOKENIZER_OK);
    }
    cr_assert_lt(want[0], want[1], "fewer merges, more tokens: %zu, %zu", want[0], want[1]);
    for (int round = 0; round < 4; round++) {
        size_t n = 0;
        cr_assert_eq(tokenizer_count(toks[round % 2], &s, text, sizeof(text) - 1, &n),
                     TOKENIZER_OK);
        cr_assert_eq(n, want[round % 2], "round %d: %zu tokens, want %zu", round, n,
                     want[round % 2]);
    }
    tokenizer_scratch_free(&s);
    tokenizer_free(toks[0]);
    tokenizer_free(toks[1]);
}

Test(tokenizer_unit, ignore_merges_takes_whole_words_from_the_vocabulary)
{
    struct parts p = {.pre_tokenizer = SPLIT_QWEN,
                      .model_extra = ", \"ignore_merges\": true",
                      .merges = "\"h e\""};
    struct tokenizer *tok = load(&p);
    /* "hello" is in the vocabulary although no merge path reaches it. */
    expect_ids(tok, "hello hel", 9, (uint32_t[]){259, ' ', 256, 'l'}, 4);
    tokenizer_free(tok);
}

Test(tokenizer_unit, added_tokens_split_first_longest_match_with_strip)
{
    struct parts p = {.pre_tokenizer = SPLIT_QWEN, .added = ADDED};
    struct tokenizer *tok = load(&p);
    /* "<|end|>x" is longer than "<|end|>" and wins; <tag> eats spaces on both sides. */
    expect_ids(tok, "he<|end|>x<|end|>", 17, (uint32_t[]){256, 302, 300}, 3);
    expect_ids(tok, "he  <tag>  he", 13, (uint32_t[]){256, 301, 256}, 3);
    expect_ids(tok, "<|end", 5, (uint32_t[]){'<', '|', 'e', 'n', 'd'}, 5);
    cr_assert(tokenizer_is_special(tok, 300));
    cr_assert_not(tokenizer_is_special(tok, 301));
    cr_assert_not(tokenizer_is_special(tok, 99999));
    tokenizer_free(tok);
}

Test(tokenizer_unit, decode_skips_special_tokens_and_keeps_other_added_tokens)
{
    struct parts p = {.pre_tokenizer = SPLIT_QWEN, .added = ADDED};
    struct tokenizer *tok = load(&p);
    struct tokenizer_scratch s = {0};
    const char *text;
    size_t len;
    uint32_t ids[] = {259, 300, 301, 260, 261, 'l', 'd'};
    cr_assert_eq(tokenizer_decode(tok, &s, ids, 7, &text, &len), TOKENIZER_OK);
    cr_assert_str_eq(text, "hello<tag> world");
    cr_assert_eq(len, strlen("hello<tag> world"));
    uint32_t partial[] = {0xE4, 0xBD, 'a', 0xFF}; /* bytes of a cut character, then junk */
    cr_assert_eq(tokenizer_decode(tok, &s, partial, 4, &text, &len), TOKENIZER_OK);
    cr_assert_str_eq(text, "\xef\xbf\xbd"
                           "a\xef\xbf\xbd");
    uint32_t bad[] = {1, 290};
    cr_assert_eq(tokenizer_decode(tok, &s, bad, 2, &text, &len), TOKENIZER_ERR_BAD_ID);
    cr_assert_eq(tokenizer_decode(tok, &s, bad, 0, &text, &len), TOKENIZER_OK);
    cr_assert_eq(len, 0);
    tokenizer_scratch_free(&s);
    tokenizer_scratch_free(&s);
    tokenizer_free(tok);
}

Test(tokenizer_unit, invalid_utf8_becomes_replacement_characters_before_encoding)
{
    struct parts p = {.pre_tokenizer = SPLIT_QWEN};
    struct tokenizer *tok = load(&p);
    struct tokenizer_scratch s = {0};
    const uint32_t *ids;
    size_t count;
    const char *text;
    size_t len;
    /* E4 BD is one maximal ill-formed subpart: one U+FFFD; FF is another. */
    cr_assert_eq(tokenizer_encode(tok, &s, "a\xe4\xbd\xff", 4, &ids, &count), TOKENIZER_OK);
    uint32_t copy[16];
    memcpy(copy, ids, count * sizeof(*ids));
    cr_assert_eq(tokenizer_decode(tok, &s, copy, count, &text, &len), TOKENIZER_OK);
    cr_assert_str_eq(text, "a\xef\xbf\xbd\xef\xbf\xbd");
    tokenizer_scratch_free(&s);
    tokenizer_free(tok);
}

Test(tokenizer_unit, nfc_normalizer_composes_before_splitting)
{
    struct parts p = {.pre_tokenizer = SPLIT_QWEN, .normalizer = "{\"type\": \"NFC\"}"};
    struct tokenizer *tok = load(&p);
    expect_ids(tok, "e\xcc\x81", 3, (uint32_t[]){0xC3, 0xA9}, 2);
    struct parts plain = {.pre_tokenizer = SPLIT_QWEN};
    struct tokenizer *raw = load(&plain);
    expect_ids(raw, "e\xcc\x81", 3, (uint32_t[]){'e', 0xCC, 0x81}, 3);
    tokenizer_free(raw);
    tokenizer_free(tok);
}

static void expect_refused(const char *json, const char *needle)
{
    char err[TOKENIZER_ERR_CAP] = "";
    struct tokenizer *tok = (struct tokenizer *)1;
    int rc = tokenizer_load_buffer(json, strlen(json), "bad.json", &tok, err, sizeof(err));
    cr_assert_lt(rc, 0, "loaded although it should fail with \"%s\"", needle);
    cr_assert_null(tok);
    cr_assert(strstr(err, needle) != NULL, "message \"%s\" lacks \"%s\"", err, needle);
    cr_assert(strstr(err, "bad.json") != NULL, "message \"%s\" lacks the file name", err);
}

Test(tokenizer_unit, unsupported_components_are_refused_by_name)
{
    struct parts p = {.model_extra = ", \"byte_fallback\": true"};
    expect_refused(build(&p), "byte_fallback");
    p = (struct parts){.normalizer = "{\"type\": \"Lowercase\"}"};
    expect_refused(build(&p), "normalizer \"Lowercase\"");
    p = (struct parts){.pre_tokenizer = "{\"type\": \"Metaspace\"}"};
    expect_refused(build(&p), "pre-tokenizer \"Metaspace\"");
    p = (struct parts){.decoder = "{\"type\": \"WordPiece\"}"};
    expect_refused(build(&p), "decoder \"WordPiece\"");
    p = (struct parts){.pre_tokenizer = "{\"type\": \"Split\", \"pattern\": {\"Regex\": \"a\"}, "
                                        "\"behavior\": \"MergedWithNext\"}"};
    expect_refused(build(&p), "MergedWithNext");
    p = (struct parts){.pre_tokenizer = "{\"type\": \"Split\", \"pattern\": {\"Regex\": \"(\"}}"};
    expect_refused(build(&p), "does not compile");
    p = (struct parts){.merges = "\"h zz\""};
    expect_refused(build(&p), "not in the vocabulary");
    p = (struct parts){.merges = "\"hq\""};
    expect_refused(build(&p), "merges[0]");
    expect_refused("{\"model\": {\"type\": \"Unigram\", \"vocab\": []}}", "model type \"Unigram\"");
    expect_refused("{\"model\": {\"type\": \"WordPiece\"}}", "WordPiece");
    expect_refused("{\"model\": {\"vocab\": {\"a\": 0}, \"merges\": []}}", "byte 0x00");
    expect_refused("{\"model\": \n  [1,}", "line 2");
    expect_refused("[]", "top level");
    expect_refused("", "line");
}

Test(tokenizer_unit, load_reports_missing_files_and_free_null_is_a_no_op)
{
    char err[TOKENIZER_ERR_CAP];
    struct tokenizer *tok = NULL;
    cr_assert_lt(tokenizer_load("/nonexistent/tokenizer.json", &tok, err, sizeof(err)), 0);
    cr_assert(strstr(err, "/nonexistent/tokenizer.json") != NULL, "%s", err);
    cr_assert_lt(tokenizer_load("/tmp", &tok, err, sizeof(err)), 0);
    tokenizer_free(NULL);
    tokenizer_scratch_free(NULL);
    struct tokenizer_scratch s = {0};
    tokenizer_scratch_free(&s);
    char path[64];
    cr_assert_eq(
        tokenizer_resolve("/nonexistent-dir/x", NULL, NULL, path, sizeof(path), err, sizeof(err)),
        -ENOENT);
    cr_assert_eq(tokenizer_resolve(NULL, NULL, NULL, path, sizeof(path), err, sizeof(err)),
                 -ENOENT);
    cr_assert(strstr(err, "--tokenizer") != NULL, "%s", err);
}

Test(tokenizer_unit, gpt2_style_byte_level_regex_and_prefix_space)
{
    struct parts p = {.pre_tokenizer = "{\"type\": \"ByteLevel\", \"add_prefix_space\": true}"};
    struct tokenizer *tok = load(&p);
    /* add_prefix_space turns "world" into " world"; the GPT-2 regex splits words. */
    expect_ids(tok, "world hello", 11, (uint32_t[]){260, 261, 'l', 'd', ' ', 259}, 6);
    tokenizer_free(tok);
    p.pre_tokenizer = "{\"type\": \"Split\", \"pattern\": {\"String\": \"l\"}, \"behavior\": "
                      "\"Removed\"}";
    tok = load(&p);
    expect_ids(tok, "hello", 5, (uint32_t[]){256, 'o'}, 2);
    tokenizer_free(tok);
}

struct thread_arg {
    const struct tokenizer *tok;
    size_t count;
    uint32_t first;
};

static void *encode_many(void *p)
{
    struct thread_arg *arg = p;
    struct tokenizer_scratch s = {0};
    for (int i = 0; i < 2000; i++) {
        const uint32_t *ids;
        if (tokenizer_encode(arg->tok, &s, "hello world <|end|> hello", 25, &ids, &arg->count) !=
            TOKENIZER_OK) {
            arg->count = 0;
            break;
        }
        arg->first = ids[0];
    }
    tokenizer_scratch_free(&s);
    return NULL;
}

Test(tokenizer_unit, concurrent_readers_with_their_own_scratch_agree, .timeout = 60)
{
    struct parts p = {.pre_tokenizer = SPLIT_QWEN, .added = ADDED};
    struct tokenizer *tok = load(&p);
    pthread_t threads[4];
    struct thread_arg args[4];
    for (int i = 0; i < 4; i++) {
        args[i] = (struct thread_arg){.tok = tok};
        cr_assert_eq(pthread_create(&threads[i], NULL, encode_many, &args[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(threads[i], NULL);
        cr_assert_eq(args[i].count, 9);
        cr_assert_eq(args[i].first, 259);
    }
    tokenizer_free(tok);
}
