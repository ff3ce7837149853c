/*
 * expect_payload.h - test helper for the request body tests: build a body
 * and compare it, or expect the build to fail with a message.
 */
#ifndef RINGPERF_TESTS_SUPPORT_EXPECT_PAYLOAD_H
#define RINGPERF_TESTS_SUPPORT_EXPECT_PAYLOAD_H

#include <criterion/criterion.h>

#include <stdlib.h>
#include <string.h>

#include "endpoint/endpoint.h"
#include "payload/payload.h"

/* expect_payload requires payload_build(spec) to give exactly `want`. */
static inline void expect_payload(const struct payload_spec *spec, const char *want)
{
    char err[256] = "";
    char *body = payload_build(spec, err, sizeof(err));
    cr_assert_not_null(body, "%s: unexpected error: %s", endpoint_type_name(spec->type), err);
    cr_assert_str_eq(body, want, "%s", endpoint_type_name(spec->type));
    free(body);
}

/* expect_payload_error requires payload_build(spec) to fail with a message
 * that contains `needle`. */
static inline void expect_payload_error(const struct payload_spec *spec, const char *needle)
{
    char err[256] = "";
    char *body = payload_build(spec, err, sizeof(err));
    cr_assert_null(body, "expected an error, got %s", body ? body : "");
    cr_assert(strstr(err, needle) != NULL, "message '%s' lacks '%s'", err, needle);
}

#endif
