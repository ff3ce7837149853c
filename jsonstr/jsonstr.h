/*
 * jsonstr.h - the bytes of a JSON string as written between its quotes (escapes still in),
 * decoded into UTF-8 or compared with decoded bytes. A leaf: jmespath/ decodes its quoted
 * identifiers with it when an expression is compiled, response/ the text and the member names
 * of a response on the request path, so that the two agree on what a name is.
 */
#ifndef RINGPERF_JSONSTR_H
#define RINGPERF_JSONSTR_H

#include <stdbool.h>
#include <stddef.h>

/* jsonstr_unescape decodes the JSON-escaped string bytes `esc` (`len`
 * bytes, as found between the quotes) into UTF-8 at `out` (`cap` bytes) and
 * returns the number of bytes written; it never writes more than `cap` and
 * never NUL-terminates. The output is never longer than the input, so
 * cap >= len always suffices.
 *   - \" \\ \/ \b \f \n \r \t and \uXXXX are decoded; a surrogate pair
 *     becomes one 4-byte sequence; a lone surrogate becomes U+FFFD; \u0000
 *     becomes a NUL byte.
 *   - An invalid escape (unknown letter, short \u, trailing backslash) is
 *     copied through unchanged.
 *   - Other bytes are copied as they are (not validated as UTF-8).
 * When the output does not fit, decoding stops at the last whole character
 * that fits and *out_truncated (if not NULL) is set to true; otherwise it is
 * set to false. */
size_t jsonstr_unescape(const char *esc, size_t len, char *out, size_t cap, bool *out_truncated);

/* jsonstr_equal reports whether the JSON-escaped bytes esc[0..len) decode, as
 * jsonstr_unescape() decodes them, to exactly want[0..n) (any bytes, NUL
 * included). Allocates nothing and stops at the first difference; bytes
 * without a backslash cost one memchr and one memcmp. */
bool jsonstr_equal(const char *esc, size_t len, const char *want, size_t n);

#endif
