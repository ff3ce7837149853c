/*
 * jmespath_internal.h - the compiled syntax tree shared by parse.c and
 * eval.c. Private to jmespath/.
 */
#ifndef RINGPERF_JMESPATH_INTERNAL_H
#define RINGPERF_JMESPATH_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "jmespath/jmespath.h"

/* jmespath__op is one node type of the tree. CHAIN evaluates `right` on the
 * result of `left`: a.b, a[0] and a | b are all chains (they differ only in
 * how they bind when parsed). */
enum jmespath__op {
    JMESPATH__CURRENT,        /* @, and the implicit right side of a projection */
    JMESPATH__FIELD,          /* name: name_off, name_len */
    JMESPATH__INDEX,          /* [N]: index */
    JMESPATH__SLICE,          /* [a:b:c]: slice[], has[] */
    JMESPATH__CHAIN,          /* left, then right */
    JMESPATH__LIST_PROJECT,   /* left (a list), right applied to each element */
    JMESPATH__OBJECT_PROJECT, /* left (an object), right applied to each member value */
    JMESPATH__FLATTEN,        /* left, one level of nested lists spliced in */
};

struct jmespath__node {
    enum jmespath__op op;
    int16_t left;
    int16_t right;
    int32_t index;
    int32_t slice[3];
    bool has[3];
    uint16_t name_off;
    uint16_t name_len;
};

struct jmespath {
    int16_t root;
    uint16_t node_count;
    uint16_t names_used;
    struct jmespath__node node[JMESPATH_NODES_MAX];
    char names[2 * JMESPATH_EXPR_BYTES_MAX + 2]; /* decoded names, each NUL-terminated */
};

#endif
