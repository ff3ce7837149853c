/*
 * workload files: a file written says how it failed when it is closed.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <stdio.h>

#include "workload/workload_internal.h"

Test(workload_files, closing_a_file_on_a_full_disk_returns_enospc)
{
    FILE *f = fopen("/dev/full", "w");
    if (f == NULL) {
        cr_skip_test("no /dev/full");
    }
    fputs("{\"data\": []}\n", f);
    cr_assert_eq(workload__close_written(f), -ENOSPC);
}

Test(workload_files, closing_a_file_written_in_full_returns_zero)
{
    FILE *f = tmpfile();
    cr_assert_not_null(f);
    fputs("{\"data\": []}\n", f);
    cr_assert_eq(workload__close_written(f), 0);
}
