/*
 * test_multipart.c - the multipart/form-data framing writers: exact bytes, sizing with cap 0,
 * refusal of names and boundaries that would break the framing, and the delimiter check.
 */
#include <criterion/criterion.h>

#include <errno.h>
#include <string.h>

#include "http/http.h"

Test(http_multipart, parts_have_rfc7578_framing)
{
    char buf[256];
    size_t len = 0;
    ssize_t n = http_multipart_file_head(buf, sizeof(buf), "b-1", "file", "audio.wav", "audio/wav");
    cr_assert_gt(n, 0);
    len += (size_t)n;
    memcpy(buf + len, "RIFF", 4);
    len += 4;
    len += (size_t)http_multipart_file_end(buf + len, sizeof(buf) - len);
    len += (size_t)http_multipart_field(buf + len, sizeof(buf) - len, "b-1", "model", "m", 1);
    len += (size_t)http_multipart_close(buf + len, sizeof(buf) - len, "b-1");
    const char *want = "--b-1\r\nContent-Disposition: form-data; name=\"file\"; "
                       "filename=\"audio.wav\"\r\nContent-Type: audio/wav\r\n\r\nRIFF\r\n"
                       "--b-1\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nm\r\n"
                       "--b-1--\r\n";
    cr_assert_eq(len, strlen(want));
    cr_assert_eq(memcmp(buf, want, len), 0, "%.*s", (int)len, buf);
}

Test(http_multipart, cap_zero_sizes_and_short_buffers_are_left_alone)
{
    ssize_t need = http_multipart_field(NULL, 0, "b", "prompt", "a cat", 5);
    cr_assert_eq(need, (ssize_t)strlen("--b\r\nContent-Disposition: form-data; "
                                       "name=\"prompt\"\r\n\r\na cat\r\n"));
    char buf[8];
    memset(buf, 'x', sizeof(buf));
    cr_assert_eq(http_multipart_field(buf, sizeof(buf), "b", "prompt", "a cat", 5), need);
    cr_assert_eq(buf[0], 'x', "nothing written when it does not fit");
    cr_assert_eq(http_multipart_close(NULL, 0, "b"), 7);
    cr_assert_eq(http_multipart_field(NULL, 0, "b", "empty", NULL, 0), need - 1 - 5);
}

Test(http_multipart, unsafe_names_and_boundaries_are_refused)
{
    cr_assert_eq(http_multipart_field(NULL, 0, "b", "na\"me", "v", 1), -EINVAL);
    cr_assert_eq(http_multipart_field(NULL, 0, "b", "na\r\nme", "v", 1), -EINVAL);
    cr_assert_eq(http_multipart_file_head(NULL, 0, "b", "f", "a\\b.wav", "audio/wav"), -EINVAL);
    cr_assert_eq(http_multipart_file_head(NULL, 0, "b", "f", "a.wav", "audio/wav\n"), -EINVAL);
    cr_assert_eq(http_multipart_field(NULL, 0, "b", NULL, "v", 1), -EINVAL);
    cr_assert_eq(http_multipart_field(NULL, 0, "b", "n", NULL, 3), -EINVAL);
    cr_assert_eq(http_multipart_close(NULL, 0, ""), -EINVAL);
    cr_assert_not(http_multipart_boundary_valid("has space"));
    cr_assert_not(http_multipart_boundary_valid("semi;colon"));
    cr_assert_not(http_multipart_boundary_valid(NULL));
    char long_b[72];
    memset(long_b, 'a', 71);
    long_b[71] = '\0';
    cr_assert_not(http_multipart_boundary_valid(long_b));
    long_b[70] = '\0';
    cr_assert(http_multipart_boundary_valid(long_b));
    cr_assert(http_multipart_boundary_valid("ringperf-0123abcd'()+_,./:=?"));
}

Test(http_multipart, the_delimiter_check_finds_the_boundary_anywhere)
{
    cr_assert(http_multipart_boundary_absent("b1", "no delimiter here -b1 b1--", 26));
    cr_assert_not(http_multipart_boundary_absent("b1", "x--b1", 5));
    cr_assert_not(http_multipart_boundary_absent("b1", "--b1", 4));
    cr_assert(http_multipart_boundary_absent("b1", "--b", 3), "a cut delimiter is not one");
    cr_assert(http_multipart_boundary_absent("b1", NULL, 0));
}
