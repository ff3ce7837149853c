/*
 * sharegpt.c - --public-dataset sharegpt from a local copy of
 * ShareGPT_V3_unfiltered_cleaned_split.json.
 *
 * The real file is one ~650 MB JSON array. It is read in fixed chunks and
 * scanned byte by byte for the boundaries of the array's elements (tracking
 * strings, escapes and nesting); each element, one conversation, is parsed on
 * its own with jansson and dropped once its two texts are kept. Memory is then
 * the kept prompts plus one conversation, never a tree of the whole file.
 */
#include <errno.h>
#include <glob.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datasets/datasets_internal.h"
#include "tokenizer/tokenizer.h"

/* AIPerf's (and vLLM's) ShareGPT filter, in tokens. */
enum {
    SHAREGPT_PROMPT_MIN = 4,
    SHAREGPT_PROMPT_MAX = 1024,
    SHAREGPT_OUTPUT_MIN = 4,
    SHAREGPT_TOTAL_MAX = 2048,
    SHAREGPT_CHUNK_BYTES = 1 << 20,
};

enum scan_state {
    SCAN_START,      /* before '[' */
    SCAN_FIRST,      /* after '[': an element or ']' */
    SCAN_NEXT,       /* after ',': an element */
    SCAN_IN_ELEMENT, /* inside an element */
    SCAN_AFTER,      /* after an element: ',' or ']' */
    SCAN_DONE,       /* after ']': only whitespace */
};

struct scan {
    const char *file;
    const struct dataset_sharegpt_options *opts;
    struct dataset_inputs *ds;
    struct tokenizer_scratch scratch;
    enum scan_state state;
    uint64_t offset; /* bytes seen */
    uint64_t line;   /* of the current byte, 1-based */
    uint64_t col;
    uint64_t elem_line; /* where the current element starts */
    uint64_t elem_col;
    char *elem; /* the current element's bytes */
    size_t elem_len;
    size_t elem_cap;
    size_t depth;
    bool in_string;
    bool escape;
    char *err;
    size_t err_cap;
};

/* fail writes "file:line:col: message" into err and returns -1. */
__attribute__((format(printf, 4, 5))) static int fail(struct scan *s, uint64_t line, uint64_t col,
                                                      const char *fmt, ...)
{
    if (s->err_cap == 0) {
        return -1;
    }
    int n = snprintf(s->err, s->err_cap, "%s:%llu:%llu: ", s->file, (unsigned long long)line,
                     (unsigned long long)col);
    if (n >= 0 && (size_t)n < s->err_cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(s->err + n, s->err_cap - (size_t)n, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* element_position finds the file line and column of byte pos of the
 * current element. */
static void element_position(const struct scan *s, size_t pos, uint64_t *line, uint64_t *col)
{
    *line = s->elem_line;
    *col = s->elem_col;
    for (size_t i = 0; i < pos && i < s->elem_len; i++) {
        if (s->elem[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

/* length_of counts text in tokens, or in words without a tokenizer. */
static int length_of(struct scan *s, const char *text, size_t len, size_t *out)
{
    if (s->opts->tok != NULL) {
        enum tokenizer_status st = tokenizer_count(s->opts->tok, &s->scratch, text, len, out);
        if (st != TOKENIZER_OK) {
            return fail(s, s->elem_line, s->elem_col, "cannot count the tokens of a turn: %s",
                        tokenizer_status_str(st));
        }
        return 0;
    }
    size_t words = 0;
    bool in_word = false;
    for (size_t i = 0; i < len; i++) {
        bool space = text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r';
        words += !space && !in_word;
        in_word = !space;
    }
    *out = words;
    return 0;
}

/* turn_text returns conversations[i].value, or NULL with a message. */
static const json_t *turn_text(struct scan *s, const json_t *turns, size_t i)
{
    const json_t *value = json_object_get(json_array_get(turns, i), "value");
    if (!json_is_string(value)) {
        fail(s, s->elem_line, s->elem_col,
             "conversations[%zu]: expected an object with a string \"value\"", i);
        return NULL;
    }
    return value;
}

/* keep applies the filter to one conversation and keeps its prompt. Returns
 * 0, 1 when entries_max is reached, or -1. */
static int keep(struct scan *s, const json_t *prompt, const json_t *completion)
{
    size_t plen = json_string_length(prompt);
    size_t prompt_tokens = 0;
    size_t output_tokens = 0;
    if (length_of(s, json_string_value(prompt), plen, &prompt_tokens) != 0 ||
        length_of(s, json_string_value(completion), json_string_length(completion),
                  &output_tokens) != 0) {
        return -1;
    }
    if (prompt_tokens < SHAREGPT_PROMPT_MIN || prompt_tokens > SHAREGPT_PROMPT_MAX ||
        (!s->opts->osl_set && output_tokens < SHAREGPT_OUTPUT_MIN) ||
        prompt_tokens + output_tokens > SHAREGPT_TOTAL_MAX) {
        return 0;
    }
    struct dataset_entry *e = dataset__entry_push(s->ds);
    char **texts = malloc(sizeof(*texts));
    char *text = texts != NULL ? strndup(json_string_value(prompt), plen) : NULL;
    if (e == NULL || text == NULL) {
        free(texts);
        if (e != NULL) {
            s->ds->count--;
        }
        return fail(s, s->elem_line, s->elem_col, "out of memory or over %zu conversations",
                    (size_t)DATASET_ENTRIES_MAX);
    }
    texts[0] = text;
    e->texts = (const char *const *)texts;
    e->text_count = 1;
    e->output_length = s->opts->osl_set ? 0 : output_tokens;
    e->line = s->elem_line;
    size_t max = s->opts->entries_max;
    return max > 0 && s->ds->count >= max ? 1 : 0;
}

/* take_element parses the element just scanned. */
static int take_element(struct scan *s)
{
    json_error_t jerr;
    json_t *root = json_loadb(s->elem, s->elem_len, 0, &jerr);
    if (root == NULL) {
        uint64_t line = 0;
        uint64_t col = 0;
        element_position(s, (size_t)jerr.position, &line, &col);
        return fail(s, line, col, "invalid JSON: %s", jerr.text);
    }
    int ret = 0;
    const json_t *turns = json_object_get(root, "conversations");
    if (!json_is_array(turns)) {
        ret = fail(s, s->elem_line, s->elem_col,
                   "expected a conversation object with a \"conversations\" array");
    } else if (json_array_size(turns) >= 2) {
        const json_t *prompt = turn_text(s, turns, 0);
        const json_t *completion = prompt != NULL ? turn_text(s, turns, 1) : NULL;
        ret = completion != NULL ? keep(s, prompt, completion) : -1;
    }
    json_decref(root);
    return ret;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* element_byte adds c to the current element; returns 1 when it ends. */
static int element_byte(struct scan *s, char c)
{
    if (s->elem_len == s->elem_cap) {
        size_t cap = s->elem_cap == 0 ? 4096 : s->elem_cap * 2;
        if (s->elem_len >= DATASET_SHAREGPT_OBJECT_BYTES_MAX) {
            return fail(s, s->elem_line, s->elem_col,
                        "a conversation longer than %zu bytes; is this ShareGPT?",
                        (size_t)DATASET_SHAREGPT_OBJECT_BYTES_MAX);
        }
        char *grown = realloc(s->elem, cap);
        if (grown == NULL) {
            return fail(s, s->elem_line, s->elem_col, "out of memory");
        }
        s->elem = grown;
        s->elem_cap = cap;
    }
    s->elem[s->elem_len++] = c;
    if (s->in_string) {
        s->in_string = s->escape || c != '"';
        s->escape = !s->escape && c == '\\';
        return 0;
    }
    if (c == '"') {
        s->in_string = true;
    } else if (c == '{' || c == '[') {
        s->depth++;
    } else if (c == '}' || c == ']') {
        s->depth--;
    }
    return s->depth == 0 ? 1 : 0;
}

/* outside_byte handles a byte between elements. */
static int outside_byte(struct scan *s, char c)
{
    if (is_space(c)) {
        return 0;
    }
    if (s->state == SCAN_START) {
        s->state = c == '[' ? SCAN_FIRST : s->state;
        return c == '[' ? 0
                        : fail(s, s->line, s->col,
                               "expected '[': a JSON array of "
                               "ShareGPT conversations");
    }
    if (s->state == SCAN_AFTER && (c == ',' || c == ']')) {
        s->state = c == ',' ? SCAN_NEXT : SCAN_DONE;
        return 0;
    }
    if (s->state == SCAN_FIRST && c == ']') {
        s->state = SCAN_DONE;
        return 0;
    }
    if ((s->state == SCAN_FIRST || s->state == SCAN_NEXT) && c == '{') {
        s->state = SCAN_IN_ELEMENT;
        s->elem_len = 0;
        s->depth = 0;
        s->in_string = false;
        s->escape = false;
        s->elem_line = s->line;
        s->elem_col = s->col;
        return element_byte(s, c);
    }
    const char *want = s->state == SCAN_AFTER  ? "',' or ']'"
                       : s->state == SCAN_DONE ? "the end of the file after ']'"
                       : s->state == SCAN_NEXT ? "'{' (a conversation object)"
                                               : "'{' (a conversation object) or ']'";
    return fail(s, s->line, s->col, "expected %s", want);
}

/* feed scans len bytes. Returns 0, 1 when entries_max is reached, or -1. */
static int feed(struct scan *s, const char *data, size_t len)
{
    for (size_t i = 0; i < len; i++) {
        char c = data[i];
        int ret = 0;
        if (s->offset == 0 && len - i >= 3 && memcmp(data + i, "\xef\xbb\xbf", 3) == 0) {
            i += 2; /* a UTF-8 byte order mark */
            s->offset += 3;
            continue;
        }
        if (s->state == SCAN_IN_ELEMENT) {
            ret = element_byte(s, c);
            if (ret == 1) {
                s->state = SCAN_AFTER;
                ret = take_element(s);
            }
        } else {
            ret = outside_byte(s, c);
        }
        if (ret != 0) {
            return ret;
        }
        s->offset++;
        s->line += c == '\n';
        s->col = c == '\n' ? 1 : s->col + 1;
    }
    return 0;
}

static void scan_init(struct scan *s, const char *file, const struct dataset_sharegpt_options *opts,
                      char *err, size_t err_cap)
{
    memset(s, 0, sizeof(*s));
    s->file = file;
    s->opts = opts;
    s->line = 1;
    s->col = 1;
    s->err = err;
    s->err_cap = err_cap;
    s->ds = calloc(1, sizeof(*s->ds));
    if (s->ds != NULL) {
        s->ds->type = DATASET_INPUT_SINGLE_TURN;
    }
}

/* scan_finish checks the end of the input and hands the dataset out. */
static int scan_finish(struct scan *s, int ret, struct dataset_inputs **out)
{
    if (ret == 0 && s->state != SCAN_DONE) {
        ret = fail(s, s->line, s->col, "unexpected end of file; expected %s",
                   s->state == SCAN_IN_ELEMENT ? "the rest of a conversation object" : "']'");
    }
    if (ret >= 0 && s->ds->count == 0) {
        ret =
            fail(s, 1, 1,
                 "no conversation passed AIPerf's ShareGPT filter (two turns, prompt %d..%d "
                 "tokens, output >= %d unless --osl, total <= %d)",
                 SHAREGPT_PROMPT_MIN, SHAREGPT_PROMPT_MAX, SHAREGPT_OUTPUT_MIN, SHAREGPT_TOTAL_MAX);
    }
    free(s->elem);
    tokenizer_scratch_free(&s->scratch);
    if (ret < 0) {
        dataset_inputs_free(s->ds);
        *out = NULL;
        return -1;
    }
    *out = s->ds;
    return 0;
}

int dataset_sharegpt_load_buffer(const char *data, size_t len, const char *name,
                                 const struct dataset_sharegpt_options *opts,
                                 struct dataset_inputs **out, char *err, size_t err_cap)
{
    struct scan s;
    scan_init(&s, name, opts, err, err_cap);
    if (s.ds == NULL) {
        *out = NULL;
        snprintf(err, err_cap, "%s: out of memory", name);
        return -1;
    }
    return scan_finish(&s, feed(&s, data, len), out);
}

int dataset_sharegpt_load(const char *path, const struct dataset_sharegpt_options *opts,
                          struct dataset_inputs **out, char *err, size_t err_cap)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        snprintf(err, err_cap, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    struct scan s;
    scan_init(&s, path, opts, err, err_cap);
    char *chunk = malloc(SHAREGPT_CHUNK_BYTES);
    int ret = s.ds != NULL && chunk != NULL ? 0 : fail(&s, 1, 1, "out of memory");
    while (ret == 0) {
        size_t n = fread(chunk, 1, SHAREGPT_CHUNK_BYTES, f);
        if (n == 0) {
            if (ferror(f)) {
                ret = fail(&s, s.line, s.col, "read error: %s", strerror(errno));
            }
            break;
        }
        ret = feed(&s, chunk, n);
    }
    free(chunk);
    fclose(f);
    if (s.ds == NULL) {
        free(s.elem);
        return -1;
    }
    /* Stopping at entries_max leaves the rest of the file unread. */
    if (ret == 1) {
        s.state = SCAN_DONE;
    }
    return scan_finish(&s, ret, out);
}

/* find_in looks in one hub cache directory. */
static int find_in(const char *hub, char *out, size_t cap)
{
    char pattern[4096];
    int n = snprintf(pattern, sizeof(pattern), "%s/%s/snapshots/*/%s", hub, DATASET_SHAREGPT_HF_DIR,
                     DATASET_SHAREGPT_FILE);
    if (n < 0 || (size_t)n >= sizeof(pattern)) {
        return -ENOENT;
    }
    glob_t g;
    int ret = -ENOENT;
    if (glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0) {
        /* Sorted: the last snapshot name is as good a pick as any. */
        const char *path = g.gl_pathv[g.gl_pathc - 1];
        if (strlen(path) < cap) {
            memcpy(out, path, strlen(path) + 1);
            ret = 0;
        }
    }
    globfree(&g);
    return ret;
}

int dataset_sharegpt_find(const char *hub_cache, const char *hf_home, const char *home, char *out,
                          size_t cap, char *err, size_t err_cap)
{
    char hub[4096];
    hub[0] = '\0';
    if (hub_cache != NULL && hub_cache[0] != '\0') {
        snprintf(hub, sizeof(hub), "%s", hub_cache);
    } else if (hf_home != NULL && hf_home[0] != '\0') {
        snprintf(hub, sizeof(hub), "%s/hub", hf_home);
    } else if (home != NULL && home[0] != '\0') {
        snprintf(hub, sizeof(hub), "%s/.cache/huggingface/hub", home);
    }
    if (hub[0] != '\0' && find_in(hub, out, cap) == 0) {
        return 0;
    }
    snprintf(err, err_cap,
             "--public-dataset sharegpt: ringperf does not download datasets; give the file "
             "with --input-file PATH, or put %s in %s/%s/snapshots/<any>/",
             DATASET_SHAREGPT_FILE, hub[0] != '\0' ? hub : "$HF_HOME/hub", DATASET_SHAREGPT_HF_DIR);
    return -ENOENT;
}
