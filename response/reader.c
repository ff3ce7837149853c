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
    struct response__tok tok[];
};

struct response_scratch *response_scratch_new(size_t tokens_max)
{
    if (tokens_max == 0 || tokens_max > INT32_MAX) {
        return NULL;
    }
    struct response_scratch *s = malloc(sizeof(*s) + tokens_max * sizeof(struct response__tok));
    if (s) {
        s->cap = (int)tokens_max;
    }
    return s;
}

void response_scratch_free(struct response_scratch *s)
{
    free(s);
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
