/*
 * endpoint_json.h - the validated JSON token tree shared by the response
 * parsers in response/ (json.c, chunk.c, chunk_types.c). Private.
 *
 * The tree is jsmn's, with jsmn's token types (json.c says why the tokenizer
 * is not jsmn). Every index is a token index into doc->tok; -1 means
 * "absent" and every helper accepts it, so lookups chain without checks in
 * between.
 */
#ifndef RINGPERF_RESPONSE_JSON_H
#define RINGPERF_RESPONSE_JSON_H

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

#include "response/response.h"

/* response__tok is one token: jsmn's (type; start and end offsets, a
 * string's without its quotes; size, the members or elements of a container,
 * 1 for a key), and next, the index after the token's subtree, so that
 * lookups step over a value without walking it. A key's subtree is the key
 * alone; its value is the next token. */
struct response__tok {
    jsmntype_t type;
    int start;
    int end;
    int size;
    int next;
};

/* response__doc is a tokenized, validated JSON text; token 0 is the root. */
struct response__doc {
    const char *js;
    const struct response__tok *tok;
    int ntok;
};

/* response__tokenize tokenizes `len` bytes of `json` into tok[0..cap) and
 * validates them as one strict JSON value (any type) with surrounding
 * whitespace. Returns RESPONSE_PARSE_OK (d filled), _ERR_MALFORMED or
 * _ERR_TOO_MANY_TOKENS. */
enum response_parse_status response__tokenize(struct response__doc *d, struct response__tok *tok,
                                              int cap, const char *json, size_t len);

/* response__skip returns the index after the subtree rooted at token i. */
int response__skip(const struct response__doc *d, int i);

/* response__get returns the value token of member `key` of object token obj
 * (the last one when repeated), or -1. */
int response__get(const struct response__doc *d, int obj, const char *key);

/* response__get_decoded is response__get() for a decoded name (`len` bytes,
 * NUL allowed): each member name is compared after decoding its escapes, as
 * AIPerf's JSON parser sees it, so that "caf\u00e9" is the member café. */
int response__get_decoded(const struct response__doc *d, int obj, const char *name, size_t len);

/* response__key names one object member for response__members; len is
 * strlen(name), known at compile time through RESPONSE__KEY. */
struct response__key {
    const char *name;
    size_t len;
};

#define RESPONSE__KEY(literal)                                                                     \
    {                                                                                              \
        (literal), sizeof(literal) - 1                                                             \
    }

/* response__members looks up key_count members of object token obj in one
 * walk over its members: out[k] becomes the value token of member keys[k]
 * (the last one when repeated, as response__get), or -1. Every out[k] is -1
 * when obj is not an object. Key names are not empty. */
void response__members(const struct response__doc *d, int obj, const struct response__key *keys,
                       size_t key_count, int *out);

/* response__at returns element k of array token arr (k < 0 counts from the
 * end), or -1. */
int response__at(const struct response__doc *d, int arr, int64_t k);

/* response__is reports whether token i exists and has type `type`. */
bool response__is(const struct response__doc *d, int i, jsmntype_t type);

/* response__size returns the member or element count of a container, else 0. */
int response__size(const struct response__doc *d, int i);

/* response__str_eq reports whether token i is the string `want` (raw bytes). */
bool response__str_eq(const struct response__doc *d, int i, const char *want);

/* response__view returns the bytes of token i (a string without its
 * quotes), or an empty view for -1. */
struct response_str response__view(const struct response__doc *d, int i);

/* response__string returns the view of token i when it is a string, else an
 * empty view. */
struct response_str response__string(const struct response__doc *d, int i);

/* response__outer returns the whole JSON text of token i (quotes included). */
struct response_str response__outer(const struct response__doc *d, int i);

/* response__is_null reports whether token i is JSON null. */
bool response__is_null(const struct response__doc *d, int i);

/* response__is_number reports whether token i is a JSON number. */
bool response__is_number(const struct response__doc *d, int i);

/* response__double reads a finite JSON number (integer or not) of at most 63 characters. */
bool response__double(const struct response__doc *d, int i, double *out);

/* response__truthy is Python's truthiness of token i (false for -1). */
bool response__truthy(const struct response__doc *d, int i);

/* response__uint reads a non-negative JSON integer that fits in uint64_t. */
bool response__uint(const struct response__doc *d, int i, uint64_t *out);

/* response__count reads a usage count: a non-negative JSON integer, clamped
 * to INT64_MAX. Leaves *out alone and returns false for anything else. */
bool response__count(const struct response__doc *d, int i, int64_t *out);

/* response__int reads a JSON integer that fits in int64_t. */
bool response__int(const struct response__doc *d, int i, int64_t *out);

/* response__seconds reads token i when it is a non-negative JSON number (integer or not) of
 * at most 63 bytes and at most 1e15 into *out; false (and *out untouched) otherwise. */
bool response__seconds(const struct response__doc *d, int i, double *out);

/* response__scratch_tokens returns the token array of `s` and sets *out_cap
 * to its size (reader.c). */
struct response__tok *response__scratch_tokens(struct response_scratch *s, int *out_cap);

/* response__scratch_values returns room for at least `want` response_field
 * list values in `s` (grown, and kept for the next responses) with its size
 * in *out_cap, or NULL (and 0) when out of memory (reader.c). */
struct jmespath_value;
struct jmespath_value *response__scratch_values(struct response_scratch *s, size_t want,
                                                size_t *out_cap);

/* response__scratch_grow makes `s` hold `tokens_max` tokens (reader.c); false when it already
 * does, tokens_max is over INT32_MAX, or out of memory (s unchanged). */
bool response__scratch_grow(struct response_scratch *s, size_t tokens_max);

/* ---- Filling response_chunk (chunk.c), used by chunk_types.c ----------- */

/* response__add_text appends a non-empty piece to out->texts and to the
 * matching older per-kind view. */
void response__add_text(struct response_chunk *out, struct response_str s,
                        enum response_text_kind kind, bool literal);

/* response__add_string adds token i as a piece when it is a non-empty string. */
void response__add_string(const struct response__doc *d, int i, struct response_chunk *out,
                          enum response_text_kind kind);

/* response__usage reads usage object token `usage` into out (see endpoint.h). */
void response__usage(const struct response__doc *d, int usage, struct response_chunk *out);

/* response__spec_decode reads vLLM's speculative-decoding statistics from the "metrics" object
 * token `metrics` (-1 or not an object: nothing) into out (spec_decode.c). */
void response__spec_decode(const struct response__doc *d, int metrics, struct response_chunk *out);

/* response__error fills the error fields from error value token `err`. */
void response__error(const struct response__doc *d, int err, struct response_chunk *out);

/* response__finish marks the stream's end marker with reason token i (a
 * string, or -1/other for no reason). */
void response__finish(const struct response__doc *d, int i, struct response_chunk *out);

/* Per-type readers (chunk_types.c). Each reads the validated doc (root token
 * 0, of any JSON type) and returns the status for response_parse_event(). */
enum response_parse_status response__read_responses(const struct response__doc *d,
                                                    struct response_parse_state *state,
                                                    struct response_str event_type,
                                                    struct response_chunk *out);
enum response_parse_status response__read_messages(const struct response__doc *d,
                                                   struct response_str event_type,
                                                   struct response_chunk *out);
enum response_parse_status response__read_tgi(const struct response__doc *d,
                                              struct response_chunk *out);
enum response_parse_status response__read_embeddings(const struct response__doc *d,
                                                     enum endpoint_type t,
                                                     struct response_chunk *out);
enum response_parse_status response__read_rankings(const struct response__doc *d,
                                                   enum endpoint_type t,
                                                   struct response_chunk *out);
enum response_parse_status response__read_raw(const struct response__doc *d,
                                              const struct response_reader *reader,
                                              struct response_scratch *scratch,
                                              struct response_chunk *out);
/* response__field searches compiled response_field `e` over the doc (NULL:
 * takes token `node` itself) and converts what it finds as AIPerf's
 * convert_to_response_data does (field.c): a non-empty string is a text piece,
 * a list whose first element is a list of numbers or a number is embeddings,
 * one whose first element is an object rankings. The lists a search makes
 * take RESPONSE_FIELD_VALUES_MAX values on the stack, then `scratch`'s
 * (NULL: none). Returns RESPONSE_PARSE_OK when it converted a value,
 * _IGNORED when it found nothing to convert, _ERR_FIELD_VALUES when the
 * search needs more values than that room. */
struct jmespath;
enum response_parse_status response__field(const struct response__doc *d, const struct jmespath *e,
                                           int node, struct response_scratch *scratch,
                                           struct response_chunk *out);

/* chunk_services.c */
enum response_parse_status response__read_images(const struct response__doc *d,
                                                 struct response_chunk *out);
enum response_parse_status response__read_infer(const struct response__doc *d,
                                                struct response_chunk *out);
enum response_parse_status response__read_solido(const struct response__doc *d,
                                                 struct response_chunk *out);
enum response_parse_status response__read_transcript(const struct response__doc *d,
                                                     struct response_chunk *out);
/* chunk_tokens.c */
enum response_parse_status response__read_sglang(const struct response__doc *d,
                                                 struct response_chunk *out);
enum response_parse_status response__read_vllm(const struct response__doc *d,
                                               struct response_chunk *out);

#endif
