#include <criterion/criterion.h>

#include <errno.h>
#include <string.h>

#include "response/response.h"

Test(response_reader, compiles_the_response_field_subset)
{
    struct response_reader r;
    char err[256] = "";
    cr_assert_eq(
        response_reader_init(&r, ENDPOINT_RAW, "choices[0].message.content", err, sizeof(err)), 0);
    cr_assert_not_null(r.field);
    response_reader_release(&r);
    cr_assert_null(r.field);
    cr_assert_eq(
        response_reader_init(&r, ENDPOINT_TEMPLATE, "data[*].embedding | [0]", err, sizeof(err)),
        0);
    response_reader_release(&r);
    cr_assert_eq(response_reader_init(&r, ENDPOINT_RAW, NULL, err, sizeof(err)), 0);
    cr_assert_null(r.field);
    const char *bad[] = {"a.", "a..b", "a[x]", "a[1", "1abc", "a || b", "a[?b]", "a b"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        cr_assert_eq(response_reader_init(&r, ENDPOINT_RAW, bad[i], err, sizeof(err)), -EINVAL,
                     "%s", bad[i]);
        cr_assert_null(r.field);
        cr_assert_eq(r.type, ENDPOINT_RAW);
        cr_assert(strstr(err, "at column") != NULL, "%s", err);
    }
}
