/*
 * lines.c - the text lines of a stream's PayloadPart events: a container behind SageMaker
 * writes its output a line at a time ("data: {...}" or bare JSON), and one line may be split
 * over several events, so lines are cut on '\n' across payloads, not per event.
 */
#include <string.h>

#include "evs/evs.h"

void evs_lines_init(struct evs_lines *l, char *buf, size_t cap)
{
    *l = (struct evs_lines){.buf = buf, .cap = cap};
}

enum evs_line_status evs_lines_next(struct evs_lines *l, const uint8_t *payload, size_t len,
                                    size_t *pos, const char **out_line, size_t *out_len)
{
    if (l->taken) {
        l->len = 0;
        l->taken = false;
    }
    const char *start = (const char *)payload + *pos;
    size_t rest = len - *pos;
    const char *nl = rest > 0 ? memchr(start, '\n', rest) : NULL;
    size_t piece = nl != NULL ? (size_t)(nl - start) : rest;
    if (nl != NULL && l->len == 0) {
        *pos += piece + 1;
        *out_line = start;
        *out_len = piece;
        return EVS_LINE;
    }
    if (piece > l->cap - l->len) {
        return EVS_LINE_TOO_LONG;
    }
    if (piece > 0) {
        memcpy(l->buf + l->len, start, piece);
    }
    l->len += piece;
    *pos += piece + (nl != NULL);
    if (nl == NULL) {
        return EVS_LINE_NEED_MORE;
    }
    l->taken = true;
    *out_line = l->buf;
    *out_len = l->len;
    return EVS_LINE;
}

bool evs_lines_finish(struct evs_lines *l, const char **out_line, size_t *out_len)
{
    if (l->taken || l->len == 0) {
        return false;
    }
    l->taken = true;
    *out_line = l->buf;
    *out_len = l->len;
    return true;
}

static bool space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f';
}

static void trim(const char **s, size_t *n)
{
    while (*n > 0 && space(**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n > 0 && space((*s)[*n - 1])) {
        (*n)--;
    }
}

bool evs_line_text(const char *line, size_t len, const char **out, size_t *out_len)
{
    trim(&line, &len);
    if (len >= 5 && memcmp(line, "data:", 5) == 0) {
        line += 5;
        len -= 5;
        trim(&line, &len);
    }
    *out = line;
    *out_len = len;
    return len > 0;
}
