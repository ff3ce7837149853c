#include "corpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fixed {
    const char *text;
    size_t len; /* 0: strlen */
    bool round_trips;
};

#define RT true
#define NO false

static const struct fixed FIXED[] = {
    {"", 0, RT},
    {"Hello, world!", 0, RT},
    {"int main(void) {\n    printf(\"%d\\n\", 42);\n    return 0;\n}\n", 0, RT},
    {"def f(x):\n\tif x:\n\t\treturn [i ** 2 for i in range(x)]  # squares\n", 0, RT},
    {"    leading spaces", 0, RT},
    {"trailing   ", 0, RT},
    {"\n\n\n", 0, RT},
    {"a\r\nb\r\n\r\nc", 0, RT},
    {"x\t\t\ty   \n   z", 0, RT},
    {"1234567890 3.14159 2,718 1e10 0x1F 007 1,000,000", 0, RT},
    {"你好，世界！这是一个测试。", 0, RT},
    {"こんにちは、カタカナ、漢字とひらがな。", 0, RT},
    {"안녕하세요 세계", 0, RT},
    {"🎉👍🏽👨‍👩‍👧‍👦🇺🇸❤️ 😀😃😄", 0, RT},
    {"Español: ¿Qué tal? Ελληνικά Русский العربية हिन्दी עברית ไทย", 0, RT},
    {"I'm don't we'll they've she'd it's YOU'RE I'LL 'S 'tis", 0, RT},
    {"e\xcc\x81 A\xcc\x8a \xe1\x84\x80\xe1\x85\xa1", 0, NO}, /* NFC composes these */
    {"\xef\xbb\xbfhello \xef\xbb\xbf world", 0, RT},         /* BOM: whitespace to JS */
    {"a\xc2\xa0"
     "b\xe2\x80\xa8"
     "c\xe3\x80\x80"
     "d\xe2\x80\x8b"
     "e",
     0, RT},
    {"<|im_start|>system\nYou are helpful<|im_end|>\n<|im_start|>user\nhi<|im_end|>", 0, NO},
    {"<think>reasoning</think>answer", 0, RT},
    {"<|endoftext|><|endoftext|>", 0, NO},
    {"<|im_start <|im_start| <<|im_end|>> <|fim_prefix|>x", 0, NO},
    {"\xff\xfe", 0, NO},
    {"abc\x80"
     "def",
     0, NO},
    {"\xc3", 0, NO},
    {"\xe4\xbd", 0, NO},
    {"\xed\xa0\x80 surrogate", 0, NO},
    {"\xf4\x90\x80\x80 too big", 0, NO},
    {"\xc0\xaf \xe0\x80\xaf overlong", 0, NO},
    {"a\0b", 3, RT},
    {"\x01\x02\x1b[31mred\x1b[0m\x7f", 0, RT},
    {"{\"key\": [1, 2, 3], \"nested\": {\"a\": null}}", 0, RT},
    {"https://example.com/path?q=1&r=2#frag", 0, RT},
    {"## Title\n\n- item **bold** `code`\n\n> quote", 0, RT},
    {"diff --git a/x.c b/x.c\n@@ -1,3 +1,4 @@\n-old\n+new\n", 0, RT},
};

static uint64_t next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static size_t put_cp(char *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static const uint32_t SCRIPT_RANGES[][2] = {
    {0x00C0, 0x00FF}, {0x0100, 0x017F}, {0x0391, 0x03A9}, {0x03B1, 0x03C9},
    {0x0410, 0x044F}, {0x05D0, 0x05EA}, {0x0627, 0x063A}, {0x0905, 0x0939},
    {0x0E01, 0x0E2E}, {0x2010, 0x2027}, {0x2200, 0x22FF}, {0x2500, 0x257F},
    {0x3041, 0x3096}, {0x30A1, 0x30FA}, {0x4E00, 0x9FA5}, {0xAC00, 0xD7A3},
};
static const char *const EMOJI[] = {"😀",  "🎉",      "👍🏽", "👨‍👩‍👧",
                                    "🇯🇵", "❤️", "🚀",        "🤖"};
static const char *const WHITESPACE[] = {" ",        "\t",           "\n",           "\r",
                                         "\xc2\xa0", "\xe3\x80\x80", "\xe2\x80\xa8", "\xef\xbb\xbf",
                                         "\x0b",     "\x0c"};
static const char *const CONTRACTIONS[] = {"'s",  "'t", "'re", "'ve", "'m",
                                           "'ll", "'d", "'S",  "'LL", "'Re"};
static const char *const SPECIALS[] = {"<|im_start|>",  "<|im_end|>", "<think>",    "</think>",
                                       "<|endoftext|>", "<|im_",      "<tool_call>"};
static const char PUNCT[] = "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

#define PICK(arr) (arr)[next(rng) % (sizeof(arr) / sizeof((arr)[0]))]

/* fragment appends one random fragment to out (room for 256 bytes) and returns its length. */
static size_t fragment(uint64_t *rng, char *out, bool *round_trips)
{
    size_t o = 0;
    size_t n = 1 + next(rng) % 8;
    switch (next(rng) % 14) {
    case 0:
        for (size_t i = 0; i < n + 2; i++) {
            out[o++] = (char)((next(rng) % 4 == 0 ? 'A' : 'a') + next(rng) % 26);
        }
        break;
    case 1:
        for (size_t i = next(rng) % 24 + 1; i > 0; i--) {
            out[o++] = ' ';
        }
        break;
    case 2:
        for (size_t i = 0; i < n; i++) {
            const char *w = PICK(WHITESPACE);
            memcpy(out + o, w, strlen(w));
            o += strlen(w);
        }
        break;
    case 3:
        for (size_t i = next(rng) % 15 + 1; i > 0; i--) {
            out[o++] = (char)('0' + next(rng) % 10);
        }
        break;
    case 4:
        for (size_t i = 0; i < n; i++) {
            out[o++] = PUNCT[next(rng) % (sizeof(PUNCT) - 1)];
        }
        break;
    case 5:
    case 6:
        for (size_t i = 0; i < n; i++) {
            const uint32_t *r = PICK(SCRIPT_RANGES);
            o += put_cp(out + o, r[0] + (uint32_t)(next(rng) % (r[1] - r[0] + 1)));
        }
        break;
    case 7: {
        const char *e = PICK(EMOJI);
        memcpy(out + o, e, strlen(e));
        o += strlen(e);
        break;
    }
    case 8: /* a base letter with combining marks: NFC may compose it */
        out[o++] = (char)('a' + next(rng) % 26);
        for (size_t i = next(rng) % 3 + 1; i > 0; i--) {
            o += put_cp(out + o, 0x0300 + (uint32_t)(next(rng) % 0x70));
        }
        *round_trips = false;
        break;
    case 9: {
        const char *c = PICK(CONTRACTIONS);
        memcpy(out + o, c, strlen(c));
        o += strlen(c);
        break;
    }
    case 10: {
        const char *sp = PICK(SPECIALS);
        memcpy(out + o, sp, strlen(sp));
        o += strlen(sp);
        *round_trips = false;
        break;
    }
    case 11:
        for (size_t i = next(rng) % 3 + 1; i > 0; i--) {
            out[o++] = (char)(0x80 + next(rng) % 0x80);
        }
        *round_trips = false;
        break;
    case 12:
        out[o++] = (char)(next(rng) % 0x20);
        break;
    default:
        o += put_cp(out + o, 0x1100 + (uint32_t)(next(rng) % 0x13)); /* Hangul jamo */
        o += put_cp(out + o, 0x1161 + (uint32_t)(next(rng) % 0x15));
        *round_trips = false;
        break;
    }
    return o;
}

static bool add_case(struct corpus *c, const char *text, size_t len, bool round_trips)
{
    struct corpus_case *cc = &c->cases[c->count];
    cc->text = malloc(len + 1);
    if (cc->text == NULL) {
        return false;
    }
    memcpy(cc->text, text, len);
    cc->text[len] = '\0';
    cc->len = len;
    cc->round_trips = round_trips;
    c->count++;
    return true;
}

static bool add_random(struct corpus *c, uint64_t *rng, size_t fragments)
{
    size_t cap = fragments * 256 + 1;
    char *buf = malloc(cap);
    if (buf == NULL) {
        return false;
    }
    size_t len = 0;
    bool round_trips = true;
    for (size_t i = 0; i < fragments; i++) {
        len += fragment(rng, buf + len, &round_trips);
    }
    bool ok = add_case(c, buf, len, round_trips);
    free(buf);
    return ok;
}

static bool add_long(struct corpus *c)
{
    static char buf[30000];
    memset(buf, ' ', 5000);
    buf[5000] = 'x';
    bool ok = add_case(c, buf, 5001, true);
    memset(buf, '\n', 3000);
    ok = ok && add_case(c, buf, 3000, true);
    for (size_t i = 0; i < 3000; i++) {
        buf[i] = (char)('0' + i % 10);
    }
    ok = ok && add_case(c, buf, 3000, true);
    memset(buf, 'a', 10000); /* one 10000-byte word: the heap merge path */
    ok = ok && add_case(c, buf, 10000, true);
    for (size_t i = 0; i < 9000; i += 3) {
        memcpy(buf + i, "\xe4\xbd\xa0", 3);
    }
    return ok && add_case(c, buf, 9000, true);
}

bool corpus_build(struct corpus *c, size_t random_count, uint64_t seed)
{
    size_t fixed = sizeof(FIXED) / sizeof(FIXED[0]);
    c->count = 0;
    c->cases = calloc(fixed + random_count + 8, sizeof(*c->cases));
    if (c->cases == NULL) {
        return false;
    }
    for (size_t i = 0; i < fixed; i++) {
        size_t len = FIXED[i].len > 0 ? FIXED[i].len : strlen(FIXED[i].text);
        if (!add_case(c, FIXED[i].text, len, FIXED[i].round_trips)) {
            return false;
        }
    }
    if (!add_long(c)) {
        return false;
    }
    uint64_t rng = seed;
    for (size_t i = 0; i < random_count; i++) {
        size_t fragments = i % 50 == 49 ? 400 : 1 + next(&rng) % 30;
        if (!add_random(c, &rng, fragments)) {
            return false;
        }
    }
    return true;
}

void corpus_free(struct corpus *c)
{
    for (size_t i = 0; i < c->count; i++) {
        free(c->cases[i].text);
    }
    free(c->cases);
    c->cases = NULL;
    c->count = 0;
}

static void put_base64(FILE *f, const unsigned char *p, size_t len)
{
    static const char ALPHABET[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (size_t i = 0; i < len; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16;
        v |= i + 1 < len ? (uint32_t)p[i + 1] << 8 : 0;
        v |= i + 2 < len ? p[i + 2] : 0;
        fputc(ALPHABET[(v >> 18) & 63], f);
        fputc(ALPHABET[(v >> 12) & 63], f);
        fputc(i + 1 < len ? ALPHABET[(v >> 6) & 63] : '=', f);
        fputc(i + 2 < len ? ALPHABET[v & 63] : '=', f);
    }
}

bool corpus_write_json(const struct corpus *c, const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL) {
        return false;
    }
    fputc('[', f);
    for (size_t i = 0; i < c->count; i++) {
        fputs(i > 0 ? ",\"" : "\"", f);
        put_base64(f, (const unsigned char *)c->cases[i].text, c->cases[i].len);
        fputc('"', f);
    }
    fputs("]\n", f);
    return fclose(f) == 0;
}
