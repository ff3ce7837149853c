/*
 * reader.c - the run-wide response reader (type and the compiled
 * response_field), the token scratch, and per-request parse state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jmespath/jmespath.h"
#include "response/response_json.h"

struct response_scratch {
    int cap;
    struct response__tok *tok;
    /* response_field's list values past the stack's (field.c), grown on demand. */
    struct jmespath_value *values;
    size_t values_cap;
};

struct response_scratch *response_scratch_new(size_t tokens_max)
{
    if (tokens_max == 0 || tokens_max > INT32_MAX) {
        return NULL;
    }
    struct response_scratch *s = calloc(1, sizeof(*s));
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
        free(s->values);
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

struct jmespath_value *response__scratch_values(struct response_scratch *s, size_t want,
                                                size_t *out_cap)
{
    if (want > s->values_cap) {
        struct jmespath_value *v =
            want <= SIZE_MAX / sizeof(*v) ? realloc(s->values, want * sizeof(*v)) : NULL;
        if (v == NULL) {
            *out_cap = 0;
            return NULL;
        }
        s->values = v;
        s->values_cap = want;
    }
    *out_cap = s->values_cap;
    return s->values;
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

int response_reader_init(struct response_reader *r, enum endpoint_type t,
                         const char *response_field, char *errbuf, size_t errcap)
{
    memset(r, 0, sizeof(*r));
    r->type = t;
    if (!response_field || !*response_field) {
        return 0;
    }
    return jmespath_compile(response_field, &r->field, errbuf, errcap);
}

void response_reader_release(struct response_reader *r)
{
    jmespath_free(r->field);
    r->field = NULL;
}
