/* SPDX-License-Identifier: Apache-2.0 */
#ifndef SBX_TEST_PARSE_H
#define SBX_TEST_PARSE_H
/* Numbers that tests read back from the daemon, its children or the system
 * (pids, ports, counts): strtol with the end and the range checked, so that
 * garbage or an overflow is a clear failure instead of a silent 0 (atoi) or
 * undefined behaviour (sscanf). */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* The decimal number at the start of s (leading blanks skipped) within
 * [min, max]; *end (may be NULL) receives the position after it, or s when
 * there is none. */
static inline bool test_parse_long(const char *s, long min, long max, long *out, const char **end)
{
    char *e;
    errno = 0;
    long v = strtol(s, &e, 10);
    bool ok = e != s && errno != ERANGE && v >= min && v <= max;
    if (ok) *out = v;
    if (end) *end = ok ? e : s;
    return ok;
}

/* A process id at the start of s, or -1. */
static inline int test_parse_pid(const char *s)
{
    long v;
    return test_parse_long(s, 1, INT_MAX, &v, NULL) ? (int)v : -1;
}

/* The process id on the first line of the file at path, or -1. */
static inline int test_read_pid(const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f) return -1;
    char line[32];
    int pid = fgets(line, sizeof line, f) ? test_parse_pid(line) : -1;
    fclose(f);
    return pid;
}

/* How many blank-separated numbers the rest of f holds (as in
 * /proc/PID/task/TID/children); stops at the first word that is not one. */
static inline int test_count_numbers(FILE *f)
{
    char *text = NULL;
    size_t cap = 0;
    int n = 0;
    if (getdelim(&text, &cap, '\0', f) > 0) {
        const char *p = text;
        long v;
        while (test_parse_long(p, LONG_MIN, LONG_MAX, &v, &p))
            n++;
    }
    free(text);
    return n;
}

#endif
