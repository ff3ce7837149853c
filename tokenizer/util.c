#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tokenizer/tokenizer_internal.h"

bool tok__grow(void **buf, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) {
        return true;
    }
    size_t cap_new = *cap > 0 ? *cap : 64;
    while (cap_new < need) {
        if (cap_new > SIZE_MAX / 2 / elem) {
            return false;
        }
        cap_new *= 2;
    }
    void *p = realloc(*buf, cap_new * elem);
    if (p == NULL) {
        return false;
    }
    *buf = p;
    *cap = cap_new;
    return true;
}

uint64_t tok__hash_bytes(const char *p, size_t len)
{
    /* FNV-1a folded 8 bytes at a time, then mixed: vocabulary keys are short. */
    uint64_t h = 0xcbf29ce484222325ULL ^ len;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, p + i, 8);
        h = (h ^ w) * 0x100000001b3ULL;
        h ^= h >> 29;
    }
    for (; i < len; i++) {
        h = (h ^ (unsigned char)p[i]) * 0x100000001b3ULL;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    return h;
}

/* utf8_seq returns the length of the well-formed sequence at p, or 0 and the
 * length of the maximal ill-formed subpart (at least 1) in *bad. */
static size_t utf8_seq(const unsigned char *p, size_t n, size_t *bad)
{
    unsigned char c = p[0];
    size_t need;
    unsigned char lo = 0x80;
    unsigned char hi = 0xBF;
    if (c < 0x80) {
        return 1;
    } else if (c >= 0xC2 && c <= 0xDF) {
        need = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
        need = 2;
        lo = c == 0xE0 ? 0xA0 : 0x80;
        hi = c == 0xED ? 0x9F : 0xBF;
    } else if (c >= 0xF0 && c <= 0xF4) {
        need = 3;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF;
    } else {
        *bad = 1;
        return 0;
    }
    for (size_t i = 1; i <= need; i++) {
        if (i >= n || p[i] < lo || p[i] > hi) {
            *bad = i;
            return 0;
        }
        lo = 0x80;
        hi = 0xBF;
    }
    return need + 1;
}

size_t tok__utf8_lossy_len(const char *p, size_t len, bool *valid)
{
    const unsigned char *u = (const unsigned char *)p;
    size_t out = 0;
    *valid = true;
    for (size_t i = 0; i < len;) {
        if (u[i] < 0x80) {
            i++;
            out++;
            continue;
        }
        size_t bad = 0;
        size_t n = utf8_seq(u + i, len - i, &bad);
        if (n > 0) {
            i += n;
            out += n;
        } else {
            *valid = false;
            i += bad;
            out += 3;
        }
    }
    return out;
}

void tok__utf8_lossy_copy(const char *p, size_t len, char *out)
{
    const unsigned char *u = (const unsigned char *)p;
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        size_t bad = 0;
        size_t n = utf8_seq(u + i, len - i, &bad);
        if (n > 0) {
            memcpy(out + o, p + i, n);
            i += n;
            o += n;
        } else {
            memcpy(out + o, "\xEF\xBF\xBD", 3);
            i += bad;
            o += 3;
        }
    }
}

size_t tok__utf8_decode(const char *p, size_t n, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)p;
    if (u[0] < 0x80 || n < 2) {
        *cp = u[0];
        return 1;
    }
    if (u[0] < 0xE0) {
        *cp = ((uint32_t)(u[0] & 0x1F) << 6) | (u[1] & 0x3F);
        return 2;
    }
    if (u[0] < 0xF0 || n < 4) {
        if (n < 3) {
            *cp = u[0];
            return 1;
        }
        *cp = ((uint32_t)(u[0] & 0x0F) << 12) | ((uint32_t)(u[1] & 0x3F) << 6) | (u[2] & 0x3F);
        return 3;
    }
    *cp = ((uint32_t)(u[0] & 0x07) << 18) | ((uint32_t)(u[1] & 0x3F) << 12) |
          ((uint32_t)(u[2] & 0x3F) << 6) | (u[3] & 0x3F);
    return 4;
}

bool tok__is_js_space(uint32_t cp)
{
    if (cp == 0x20 || (cp >= 0x09 && cp <= 0x0D)) {
        return true;
    }
    if (cp < 0xA0) {
        return false;
    }
    return cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
           cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000 || cp == 0xFEFF;
}

/* add_js_space rewrites \s and \S so that, like JavaScript's, they include
 * U+FEFF, which PCRE2's Unicode \s (the Z categories) leaves out. */
static bool add_js_space(const char *in, size_t len, char *out, size_t cap, size_t *out_len)
{
    size_t o = 0;
    bool in_class = false;
    for (size_t i = 0; i < len; i++) {
        const char *piece = NULL;
        size_t piece_len = 1;
        char one[2] = {in[i], 0};
        if (in[i] == '\\' && i + 1 < len) {
            char e = in[i + 1];
            if (e == 's') {
                piece = in_class ? "\\s\\x{FEFF}" : "[\\s\\x{FEFF}]";
            } else if (e == 'S' && !in_class) {
                piece = "[^\\s\\x{FEFF}]";
            } else {
                piece = in + i;
                piece_len = 2;
            }
            if (piece != in + i) {
                piece_len = strlen(piece);
            }
            i++;
        } else if (!in_class && in[i] == '[') {
            in_class = true;
            piece = in + i;
            /* "[]" and "[^]" open a class whose first member is a literal ']'. */
            size_t j = i + 1;
            if (j < len && in[j] == '^') {
                j++;
            }
            if (j < len && in[j] == ']') {
                j++;
            }
            piece_len = j - i;
            i = j - 1;
        } else if (in_class && in[i] == '[' && i + 1 < len && in[i + 1] == ':') {
            const char *end = memchr(in + i, ']', len - i);
            piece = in + i;
            piece_len = end != NULL ? (size_t)(end - (in + i)) + 1 : len - i;
            i += piece_len - 1;
        } else {
            if (in_class && in[i] == ']') {
                in_class = false;
            }
            piece = one;
        }
        if (o + piece_len >= cap) {
            return false;
        }
        memcpy(out + o, piece, piece_len);
        o += piece_len;
    }
    out[o] = '\0';
    *out_len = o;
    return true;
}

pcre2_code *tok__compile_pattern(const char *pattern, size_t len, bool literal, char *err,
                                 size_t err_cap)
{
    char rewritten[TOK__PATTERN_BYTES_MAX * 4];
    size_t rewritten_len = len;
    uint32_t options = PCRE2_UTF | PCRE2_UCP;
    if (len > TOK__PATTERN_BYTES_MAX) {
        snprintf(err, err_cap, "Split pattern longer than %d bytes", TOK__PATTERN_BYTES_MAX);
        return NULL;
    }
    if (literal) {
        options = PCRE2_UTF | PCRE2_LITERAL; /* UCP is not allowed with LITERAL */
        memcpy(rewritten, pattern, len);
    } else if (!add_js_space(pattern, len, rewritten, sizeof(rewritten), &rewritten_len)) {
        snprintf(err, err_cap, "Split pattern too long after rewriting");
        return NULL;
    }
    int code = 0;
    PCRE2_SIZE at = 0;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)rewritten, rewritten_len, options, &code, &at, NULL);
    if (re == NULL) {
        PCRE2_UCHAR msg[256];
        pcre2_get_error_message(code, msg, sizeof(msg));
        snprintf(err, err_cap, "Split pattern does not compile at offset %zu: %s", (size_t)at,
                 (const char *)msg);
        return NULL;
    }
    /* JIT is a large speed-up where the platform has it; the interpreter is the fallback. */
    (void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
    return re;
}

const char *tokenizer_status_str(enum tokenizer_status status)
{
    switch (status) {
    case TOKENIZER_OK:
        return "ok";
    case TOKENIZER_ERR_NOMEM:
        return "out of memory";
    case TOKENIZER_ERR_TOO_LONG:
        return "text too long to tokenize";
    case TOKENIZER_ERR_REGEX:
        return "pre-tokenizer regex failed";
    case TOKENIZER_ERR_BAD_ID:
        return "token id outside the vocabulary";
    }
    return "unknown tokenizer status";
}
