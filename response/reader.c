/*
 * reader.c - the run-wide response reader (type and raw's compiled
 * response_field), the token scratch, and per-request parse state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "response/response_json.h"

struct response_scratch {
    int cap;
    struct response__tok *tok;
};

struct response_scratch *response_scratch_new(size_t tokens_max)
{
    if (tokens_max == 0 || tokens_max > INT32_MAX) {
        return NULL;
    }
    struct response_scratch *s = malloc(sizeof(*s));
    if (s != NULL) {
        s->tok = malloc(tokens_max * sizeof(*s->tok));
        s->cap = (int)tokens_max;
    }
    if (s != NULL && s->tok == NULL) {
        free(s);
        s = NULL;
    }
    return s;
}

void response_scratch_free(struct response_scratch *s)
{
    if (s != NULL) {
        free(s->tok);
        free(s);
    }
}

bool response__scratch_grow(struct response_scratch *s, size_t tokens_max)
{
    if (tokens_max <= (size_t)s->cap || tokens_max > INT32_MAX) {
        return false;
    }
    struct response__tok *tok = realloc(s->tok, tokens_max * sizeof(*tok));
    if (tok == NULL) {
        return false;
    }
    s->tok = tok;
    s->cap = (int)tokens_max;
    return true;
}

struct response__tok *response__scratch_tokens(struct response_scratch *s, int *out_cap)
{
    *out_cap = s->cap;
    return s->tok;
}

void response_parse_state_reset(struct response_parse_state *s)
{
    struct response_scratch *scratch = s->scratch;
    memset(s, 0, sizeof(*s));
    s->scratch = scratch;
}

static bool reader__name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool reader__name_char(char c)
{
    return reader__name_start(c) || (c >= '0' && c <= '9');
}

/* Parses a member name at *p (bare or "quoted"); returns 0 or -EINVAL. */
static int reader__name(const char **p, struct response_field_step *step)
{
    const char *s = *p;
    size_t n = 0;
    if (*s == '"') {
        s++;
        while (s[n] && s[n] != '"' && s[n] != '\\') {
            n++;
        }
        if (s[n] != '"' || n == 0) {
            return -EINVAL;
        }
        *p = s + n + 1;
    } else {
        if (!reader__name_start(*s)) {
            return -EINVAL;
        }
        while (reader__name_char(s[n])) {
            n++;
        }
        *p = s + n;
    }
    if (n > RESPONSE_FIELD_NAME_MAX) {
        return -EINVAL;
    }
    step->is_index = false;
    step->name_len = (uint8_t)n;
    memcpy(step->name, s, n);
    return 0;
}

/* Parses "[N]" or "[-N]" at *p; returns 0 or -EINVAL. */
static int reader__index(const char **p, struct response_field_step *step)
{
    const char *s = *p + 1;
    bool neg = *s == '-';
    s += neg;
    int64_t v = 0;
    const char *digits = s;
    while (*s >= '0' && *s <= '9') {
        v = v * 10 + (*s - '0');
        if (v > INT32_MAX) {
            return -EINVAL;
        }
        s++;
    }
    if (s == digits || *s != ']') {
        return -EINVAL;
    }
    step->is_index = true;
    step->index = (int32_t)(neg ? -v : v);
    *p = s + 1;
    return 0;
}

static int reader__compile(struct response_reader *r, const char *p)
{
    while (*p) {
        if (r->field_step_count == RESPONSE_FIELD_STEPS_MAX) {
            return -EINVAL;
        }
        struct response_field_step *step = &r->field[r->field_step_count];
        int rc;
        if (*p == '[') {
            rc = reader__index(&p, step);
        } else {
            if (r->field_step_count > 0 && *p++ != '.') {
                return -EINVAL;
            }
            rc = reader__name(&p, step);
        }
        if (rc < 0) {
            return rc;
        }
        r->field_step_count++;
    }
    return 0;
}

int response_reader_init(struct response_reader *r, enum endpoint_type t,
                         const char *response_field, char *errbuf, size_t errcap)
{
    memset(r, 0, sizeof(*r));
    r->type = t;
    if (!response_field || !*response_field) {
        return 0;
    }
    if (reader__compile(r, response_field) < 0) {
        r->field_step_count = 0;
        if (errbuf == NULL || errcap == 0) {
            return -EINVAL;
        }
        snprintf(errbuf, errcap,
                 "response_field '%.80s' is not supported: give member names and indexes "
                 "only, e.g. choices[0].message.content (at most %d steps, names up to %d "
                 "bytes); falling back to auto-detection",
                 response_field, RESPONSE_FIELD_STEPS_MAX, RESPONSE_FIELD_NAME_MAX);
        return -EINVAL;
    }
    return 0;
}
