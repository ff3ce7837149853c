/*
 * read_text.h - test helper for every module's tests: read a stream or a file whole, walk and
 * search the text.
 */
#ifndef RINGPERF_TESTS_SUPPORT_READ_TEXT_H
#define RINGPERF_TESTS_SUPPORT_READ_TEXT_H

#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* test_read_stream returns everything f still yields (malloc'd, NUL-terminated). */
static inline char *test_read_stream(FILE *f)
{
    size_t cap = 1 << 16;
    size_t len = 0;
    char *buf = malloc(cap);
    cr_assert_not_null(buf);
    size_t n;
    while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len + 1 == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
            cr_assert_not_null(buf);
        }
    }
    buf[len] = '\0';
    return buf;
}

/* test_read_path returns the contents of path (malloc'd, NUL-terminated), or NULL when it
 * cannot be opened. */
static inline char *test_read_path(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        return NULL;
    }
    char *text = test_read_stream(f);
    fclose(f);
    return text;
}

/* test_next_line returns the line at *cursor in a text being walked (its
 * end NUL-terminated in place, without the '\n') and moves *cursor past it;
 * NULL once the text is used up. A last line without '\n' is a line too. */
static inline char *test_next_line(char **cursor)
{
    char *line = *cursor;
    if (line == NULL || *line == '\0') {
        return NULL;
    }
    char *end = strchr(line, '\n');
    if (end != NULL) {
        *end = '\0';
        *cursor = end + 1;
    } else {
        *cursor = line + strlen(line);
    }
    return line;
}

/* test_count_of returns how many times needle occurs in text (overlapping ones included). */
static inline size_t test_count_of(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(text, needle); p != NULL; p = strstr(p + 1, needle)) {
        n++;
    }
    return n;
}

#endif
