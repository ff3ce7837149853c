/*
 * endpoint_json.h - the validated JSON token tree shared by the response
 * parsers in endpoint/ (json.c, chunk.c, chunk_types.c). Private.
 *
 * The tree is jsmn's, with jsmn's token types (json.c says why the tokenizer
 * is not jsmn). Every index is a token index into doc->tok; -1 means
 * "absent" and every helper accepts it, so lookups chain without checks in
 * between.
 */
#ifndef RINGPERF_ENDPOINT_JSON_H
#define RINGPERF_ENDPOINT_JSON_H

/* The token types only. A file that also runs jsmn_parse (the fuzz target
 * comparing trees) includes jsmn.h itself first. */
#ifndef JSMN_H
#define JSMN_HEADER
#include <jsmn.h>
#undef JSMN_HEADER
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "endpoint/endpoint.h"

/* endpoint__tok is one token: jsmn's (type; start and end offsets, a
 * string's without its quotes; size, the members or elements of a container,
 * 1 for a key), and next, the index after the token's subtree, so that
 * lookups step over a value without walking it. A key's subtree is the key
 * alone; its value is the next token. */
struct endpoint__tok {
    jsmntype_t type;
    int start;
    int end;
    int size;
    int next;
};

/* endpoint__doc is a tokenized, validated JSON text; token 0 is the root. */
struct endpoint__doc {
    const char *js;
    const struct endpoint__tok *tok;
    int ntok;
};

/* endpoint__tokenize tokenizes `len` bytes of `json` into tok[0..cap) and
 * validates them as one strict JSON value (any type) with surrounding
 * whitespace. Returns ENDPOINT_PARSE_OK (d filled), _ERR_MALFORMED or
 * _ERR_TOO_MANY_TOKENS. */
enum endpoint_parse_status endpoint__tokenize(struct endpoint__doc *d, struct endpoint__tok *tok,
                                              int cap, const char *json, size_t len);

/* endpoint__skip returns the index after the subtree rooted at token i. */
int endpoint__skip(const struct endpoint__doc *d, int i);

/* endpoint__get returns the value token of member `key` of object token obj
 * (the last one when repeated), or -1. */
int endpoint__get(const struct endpoint__doc *d, int obj, const char *key);

/* endpoint__key names one object member for endpoint__members; len is
 * strlen(name), known at compile time through ENDPOINT__KEY. */
struct endpoint__key {
    const char *name;
    size_t len;
};

#define ENDPOINT__KEY(literal)                                                                     \
    {                                                                                              \
        (literal), sizeof(literal) - 1                                                             \
    }

/* endpoint__members looks up key_count members of object token obj in one
 * walk over its members: out[k] becomes the value token of member keys[k]
 * (the last one when repeated, as endpoint__get), or -1. Every out[k] is -1
 * when obj is not an object. Key names are not empty. */
void endpoint__members(const struct endpoint__doc *d, int obj, const struct endpoint__key *keys,
                       size_t key_count, int *out);

/* endpoint__at returns element k of array token arr (k < 0 counts from the
 * end), or -1. */
int endpoint__at(const struct endpoint__doc *d, int arr, int64_t k);

/* endpoint__is reports whether token i exists and has type `type`. */
bool endpoint__is(const struct endpoint__doc *d, int i, jsmntype_t type);

/* endpoint__size returns the member or element count of a container, else 0. */
int endpoint__size(const struct endpoint__doc *d, int i);

/* endpoint__str_eq reports whether token i is the string `want` (raw bytes). */
bool endpoint__str_eq(const struct endpoint__doc *d, int i, const char *want);

/* endpoint__view returns the bytes of token i (a string without its
 * quotes), or an empty view for -1. */
struct endpoint_str endpoint__view(const struct endpoint__doc *d, int i);

/* endpoint__string returns the view of token i when it is a string, else an
 * empty view. */
struct endpoint_str endpoint__string(const struct endpoint__doc *d, int i);

/* endpoint__outer returns the whole JSON text of token i (quotes included). */
struct endpoint_str endpoint__outer(const struct endpoint__doc *d, int i);

/* endpoint__is_null reports whether token i is JSON null. */
bool endpoint__is_null(const struct endpoint__doc *d, int i);

/* endpoint__is_number reports whether token i is a JSON number. */
bool endpoint__is_number(const struct endpoint__doc *d, int i);

/* endpoint__truthy is Python's truthiness of token i (false for -1). */
bool endpoint__truthy(const struct endpoint__doc *d, int i);

/* endpoint__uint reads a non-negative JSON integer that fits in uint64_t. */
bool endpoint__uint(const struct endpoint__doc *d, int i, uint64_t *out);

/* endpoint__int reads a JSON integer that fits in int64_t. */
bool endpoint__int(const struct endpoint__doc *d, int i, int64_t *out);

/* endpoint__scratch_tokens returns the token array of `s` and sets *out_cap
 * to its size (reader.c). */
struct endpoint__tok *endpoint__scratch_tokens(struct endpoint_scratch *s, int *out_cap);

/* ---- Filling endpoint_chunk (chunk.c), used by chunk_types.c ----------- */

/* endpoint__add_text appends a non-empty piece to out->texts and to the
 * matching older per-kind view. */
void endpoint__add_text(struct endpoint_chunk *out, struct endpoint_str s,
                        enum endpoint_text_kind kind, bool literal);

/* endpoint__add_string adds token i as a piece when it is a non-empty string. */
void endpoint__add_string(const struct endpoint__doc *d, int i, struct endpoint_chunk *out,
                          enum endpoint_text_kind kind);

/* endpoint__usage reads usage object token `usage` into out (see endpoint.h). */
void endpoint__usage(const struct endpoint__doc *d, int usage, struct endpoint_chunk *out);

/* endpoint__error fills the error fields from error value token `err`. */
void endpoint__error(const struct endpoint__doc *d, int err, struct endpoint_chunk *out);

/* endpoint__finish marks the stream's end marker with reason token i (a
 * string, or -1/other for no reason). */
void endpoint__finish(const struct endpoint__doc *d, int i, struct endpoint_chunk *out);

/* Per-type readers (chunk_types.c). Each reads the validated doc (root token
 * 0, of any JSON type) and returns the status for endpoint_parse_event(). */
enum endpoint_parse_status endpoint__read_responses(const struct endpoint__doc *d,
                                                    struct endpoint_parse_state *state,
                                                    struct endpoint_str event_type,
                                                    struct endpoint_chunk *out);
enum endpoint_parse_status endpoint__read_messages(const struct endpoint__doc *d,
                                                   struct endpoint_str event_type,
                                                   struct endpoint_chunk *out);
enum endpoint_parse_status endpoint__read_tgi(const struct endpoint__doc *d,
                                              struct endpoint_chunk *out);
enum endpoint_parse_status endpoint__read_embeddings(const struct endpoint__doc *d,
                                                     enum endpoint_type t,
                                                     struct endpoint_chunk *out);
enum endpoint_parse_status endpoint__read_rankings(const struct endpoint__doc *d,
                                                   enum endpoint_type t,
                                                   struct endpoint_chunk *out);
enum endpoint_parse_status endpoint__read_raw(const struct endpoint__doc *d,
                                              const struct endpoint_reader *reader,
                                              struct endpoint_chunk *out);

#endif
