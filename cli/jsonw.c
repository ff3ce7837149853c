#include "cli/jsonw.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int cli_jsonw_init(struct cli_jsonw *w, FILE *out, size_t cap)
{
    if (cap < 2 * CLI_JSONW_PIECE_MAX) {
        cap = 2 * CLI_JSONW_PIECE_MAX;
    }
    *w = (struct cli_jsonw){.out = out, .cap = cap};
    w->buf = malloc(cap);
    return w->buf != NULL ? 0 : -ENOMEM;
}

void cli_jsonw_free(struct cli_jsonw *w)
{
    free(w->buf);
    w->buf = NULL;
}

int cli_jsonw_flush(struct cli_jsonw *w)
{
    if (w->error == 0 && w->len > 0 && fwrite(w->buf, 1, w->len, w->out) != w->len) {
        w->error = -EIO;
    }
    w->len = 0;
    return w->error;
}

/* room makes sure n more bytes fit, flushing first when they would not. */
static char *room(struct cli_jsonw *w, size_t n)
{
    if (w->len + n > w->cap) {
        cli_jsonw_flush(w);
    }
    return w->buf + w->len;
}

void cli_jsonw_raw(struct cli_jsonw *w, const char *text, size_t len)
{
    if (len > CLI_JSONW_PIECE_MAX) {
        len = CLI_JSONW_PIECE_MAX;
    }
    memcpy(room(w, len), text, len);
    w->len += len;
}

void cli_jsonw_lit(struct cli_jsonw *w, const char *text)
{
    cli_jsonw_raw(w, text, strlen(text));
}

void cli_jsonw_key(struct cli_jsonw *w, bool *first, const char *name)
{
    if (!*first) {
        cli_jsonw_raw(w, ",", 1);
    }
    *first = false;
    cli_jsonw_string(w, name, strlen(name));
    cli_jsonw_raw(w, ":", 1);
}

/* escape_piece appends the escaped body of a string, at most
 * CLI_JSONW_PIECE_MAX / 6 input bytes of it; returns how many it took. */
static size_t escape_piece(struct cli_jsonw *w, const char *s, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    if (len > CLI_JSONW_PIECE_MAX / 6) {
        len = CLI_JSONW_PIECE_MAX / 6;
    }
    char *p = room(w, len * 6);
    char *start = p;
    for (size_t i = 0; i < len; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (ch == '"' || ch == '\\') {
            *p++ = '\\';
            *p++ = (char)ch;
        } else if (ch < 0x20) {
            memcpy(p, "\\u00", 4);
            p[4] = hex[ch >> 4];
            p[5] = hex[ch & 15];
            p += 6;
        } else {
            *p++ = (char)ch;
        }
    }
    w->len += (size_t)(p - start);
    return len;
}

void cli_jsonw_string(struct cli_jsonw *w, const char *s, size_t len)
{
    if (len > CLI_JSONW_PIECE_MAX / 6 - 2) {
        len = CLI_JSONW_PIECE_MAX / 6 - 2;
    }
    cli_jsonw_raw(w, "\"", 1);
    escape_piece(w, s, len);
    cli_jsonw_raw(w, "\"", 1);
}

void cli_jsonw_string_long(struct cli_jsonw *w, const char *s, size_t len)
{
    cli_jsonw_raw(w, "\"", 1);
    /* Escaping is byte by byte, so pieces may split a UTF-8 sequence. */
    for (size_t done = 0; done < len;) {
        done += escape_piece(w, s + done, len - done);
    }
    cli_jsonw_raw(w, "\"", 1);
}

void cli_jsonw_int(struct cli_jsonw *w, int64_t v)
{
    char digits[24];
    size_t n = 0;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        digits[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u > 0);
    char *p = room(w, n + 1);
    size_t len = 0;
    if (v < 0) {
        p[len++] = '-';
    }
    while (n > 0) {
        p[len++] = digits[--n];
    }
    w->len += len;
}

void cli_jsonw_ms_from_ns(struct cli_jsonw *w, int64_t ns)
{
    int64_t whole = ns / 1000000;
    int64_t frac = ns % 1000000;
    if (ns < 0 && frac != 0) {
        cli_jsonw_raw(w, "-", 1);
        whole = -whole;
        frac = -frac;
    }
    cli_jsonw_int(w, whole);
    if (frac == 0) {
        return;
    }
    char digits[8] = {'.'};
    for (int i = 6; i >= 1; i--) {
        digits[i] = (char)('0' + frac % 10);
        frac /= 10;
    }
    size_t len = 7;
    while (digits[len - 1] == '0') {
        len--;
    }
    cli_jsonw_raw(w, digits, len);
}

void cli_jsonw_double(struct cli_jsonw *w, double v)
{
    if (!isfinite(v)) {
        cli_jsonw_raw(w, "null", 4);
        return;
    }
    char text[32];
    int n = snprintf(text, sizeof(text), "%.15g", v);
    /* A bare integer would read back as an int; keep the value a float. */
    bool has_point = strpbrk(text, ".eEn") != NULL;
    cli_jsonw_raw(w, text, (size_t)n);
    if (!has_point) {
        cli_jsonw_raw(w, ".0", 2);
    }
}
