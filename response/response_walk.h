/*
 * response_walk.h - reading a whole JSON text in place, without a token tree: check it once,
 * then walk to the values wanted and step over the rest.
 *
 * For texts of any size (a request body of megabytes, an array of a million numbers), where
 * the token tree of response_parse_event() would need memory in proportion to the text.
 * response_walk_check() accepts exactly the texts jansson's
 * json_loadb(JSON_DECODE_ANY | JSON_ALLOW_NUL) accepts, so a reader built on it gives the
 * verdicts of one built on jansson. Every other function reads a text the check accepted
 * (anything else is undefined) and cannot fail.
 *
 * A value is named by the offset of its first byte in the text; RESPONSE_WALK_NONE means
 * "absent", and every function accepts it (as a value of type RESPONSE_WALK_ABSENT), so
 * lookups chain without checks in between. Strings come back as views of their raw bytes
 * between the quotes, escapes undecoded (decode with jsonstr_unescape()). Nothing
 * allocates; views point into the caller's text.
 */
#ifndef RINGPERF_RESPONSE_WALK_H
#define RINGPERF_RESPONSE_WALK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "response/response.h"

/* RESPONSE_WALK_NONE is the offset of an absent value. */
#define RESPONSE_WALK_NONE SIZE_MAX

/* RESPONSE_WALK_DEPTH_MAX bounds nesting as jansson does: a value inside more than
 * RESPONSE_WALK_DEPTH_MAX - 1 arrays and objects is refused. */
#define RESPONSE_WALK_DEPTH_MAX 2048

/* response_walk_type is the JSON type of a value. */
enum response_walk_type {
    RESPONSE_WALK_ABSENT = 0, /* RESPONSE_WALK_NONE */
    RESPONSE_WALK_NULL,
    RESPONSE_WALK_BOOL,
    RESPONSE_WALK_NUMBER,
    RESPONSE_WALK_STRING,
    RESPONSE_WALK_ARRAY,
    RESPONSE_WALK_OBJECT,
};

/* response_walk_check reports whether `text` is one JSON value, with whitespace around it,
 * that jansson 2.14's json_loadb(JSON_DECODE_ANY | JSON_ALLOW_NUL) would load: RFC 8259's
 * grammar, valid UTF-8 throughout (no overlong forms, surrogates or code points past
 * U+10FFFF), \u escapes of surrogates only in high-low pairs, no \u0000 in member names,
 * integers (no fraction or exponent) within int64_t, other numbers within a double's range,
 * and at most RESPONSE_WALK_DEPTH_MAX levels of values. One difference: jansson loses a NUL
 * byte that directly follows a number or a literal (its one-byte unget drops it) and so
 * loads "[1\0]"; this check refuses it, as RFC 8259 does. Reads each byte a few times, writes
 * nothing, uses about 300 bytes of stack. */
bool response_walk_check(struct response_str text);

/* response_walk_root returns the offset of the root value of a checked text. */
size_t response_walk_root(struct response_str text);

/* response_walk_type returns the type of the value at `at`. */
enum response_walk_type response_walk_type(struct response_str text, size_t at);

/* response_walk_end returns the offset just past the value at `at` (RESPONSE_WALK_NONE for
 * an absent one). Steps over strings with memchr and over a container's bytes once. */
size_t response_walk_end(struct response_str text, size_t at);

/* response_walk_iter walks the members of an object or the elements of an array.
 * Caller-allocated; set up by response_walk_iter_init(). */
struct response_walk_iter {
    struct response_str text;
    size_t pos;   /* where the next member or element starts, or its container's end */
    size_t value; /* the value last returned, RESPONSE_WALK_NONE before the first */
    bool object;
};

/* response_walk_iter_init starts a walk over the container at `at`; a value of another type
 * (or an absent one) walks as an empty container. */
void response_walk_iter_init(struct response_walk_iter *it, struct response_str text, size_t at);

/* response_walk_iter_next moves to the next member or element: sets *out_value to its value
 * and, for an object's member, *out_key to its name's raw bytes (an empty view for an array's
 * element; out_key may be NULL). Returns false, leaving both alone, after the last one. */
bool response_walk_iter_next(struct response_walk_iter *it, struct response_str *out_key,
                             size_t *out_value);

/* response_walk_key_is reports whether the raw member name `key` decodes to want[0..want_len)
 * (escapes decoded, so "mod\u0065l" is "model"). Names looked for are under 64 bytes. */
bool response_walk_key_is(struct response_str key, const char *want, size_t want_len);

/* response_walk_key names one member for response_walk_members(); len is strlen(name), known
 * at compile time through RESPONSE_WALK_KEY. */
struct response_walk_key {
    const char *name;
    size_t len;
};

#define RESPONSE_WALK_KEY(literal)                                                                 \
    {                                                                                              \
        (literal), sizeof(literal) - 1                                                             \
    }

/* response_walk_members looks up key_count members of the object at `obj` in one walk over
 * its members: out[k] becomes the value of member keys[k] (the last one when repeated, as
 * jansson keeps it), or RESPONSE_WALK_NONE; all of them when obj is not an object. */
void response_walk_members(struct response_str text, size_t obj,
                           const struct response_walk_key *keys, size_t key_count, size_t *out);

/* response_walk_get returns the value of member `key` of the object at `obj` (the last one
 * when repeated), or RESPONSE_WALK_NONE. */
size_t response_walk_get(struct response_str text, size_t obj, const char *key);

/* response_walk_count returns the members or elements of a container, or 0. */
size_t response_walk_count(struct response_str text, size_t at);

/* response_walk_string sets *out_raw to the raw bytes (escapes undecoded) of the string at
 * `at` and returns true, or returns false, leaving *out_raw alone, for any other type. */
bool response_walk_string(struct response_str text, size_t at, struct response_str *out_raw);

/* response_walk_is_true reports whether the value at `at` is the literal true. */
bool response_walk_is_true(struct response_str text, size_t at);

/* response_walk_int reads the value at `at` when it is an integer as jansson types one (a
 * number without fraction or exponent; the check bounds it to int64_t). Returns false,
 * leaving *out alone, for anything else, 1.0 and 1e2 included. */
bool response_walk_int(struct response_str text, size_t at, int64_t *out);

#endif
