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
    cr_assert_eq(r.field_step_count, 4);
    cr_assert(r.field[1].is_index);
    cr_assert_eq(r.field[1].index, 0);
    cr_assert_eq(r.field[3].name_len, 7);
    cr_assert_eq(
        response_reader_init(&r, ENDPOINT_RAW, "[-1].\"generated text\"", err, sizeof(err)), 0);
    cr_assert_eq(r.field_step_count, 2);
    cr_assert_eq(r.field[0].index, -1);
    cr_assert_eq(response_reader_init(&r, ENDPOINT_RAW, NULL, err, sizeof(err)), 0);
    cr_assert_eq(r.field_step_count, 0);
    const char *bad[] = {"a.",   "a..b", "a[x]",
                         "a[1",  "1abc", "a|b",
                         "a[*]", "\"\"", "a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q",
                         "a b"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        err[0] = '\0';
        cr_assert_eq(response_reader_init(&r, ENDPOINT_RAW, bad[i], err, sizeof(err)), -EINVAL,
                     "%s", bad[i]);
        cr_assert_eq(r.field_step_count, 0);
        cr_assert_eq(r.type, ENDPOINT_RAW);
        cr_assert(strstr(err, "auto-detection") != NULL);
    }
}
