/* SPDX-License-Identifier: Apache-2.0 */
/* The string formats the validator checks: RFC 3339 dates and date-times. */
#include "openapi_internal.h"

#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static bool digits(const char *s, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

static int days_in_month(int y, int m)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0)) return 29;
    return days[m - 1];
}

/* full-date = YYYY-MM-DD with a real calendar day. */
bool openapi_is_rfc3339_date(const char *s)
{
    int y, mo, d;
    if (!digits(s, 4, &y) || s[4] != '-' || !digits(s + 5, 2, &mo) || s[7] != '-' ||
        !digits(s + 8, 2, &d))
        return false;
    return mo >= 1 && mo <= 12 && d >= 1 && d <= days_in_month(y, mo);
}

/* RFC 3339 section 5.6 date-time: full-date "T" partial-time time-offset,
 * with "T" and "Z" in either case (5.6 note), seconds 00-60. */
bool openapi_is_rfc3339_datetime(const char *s)
{
    if (strlen(s) < 20 || !openapi_is_rfc3339_date(s) || (s[10] != 'T' && s[10] != 't'))
        return false;
    const char *t = s + 11;
    int h, mi, sec;
    if (!digits(t, 2, &h) || t[2] != ':' || !digits(t + 3, 2, &mi) || t[5] != ':' ||
        !digits(t + 6, 2, &sec))
        return false;
    if (h > 23 || mi > 59 || sec > 60) return false;
    const char *p = t + 8;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p)) return false;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if ((*p == 'Z' || *p == 'z') && p[1] == '\0') return true;
    if (*p != '+' && *p != '-') return false;
    int oh, om;
    if (!digits(p + 1, 2, &oh) || p[3] != ':' || !digits(p + 4, 2, &om) || p[6] != '\0')
        return false;
    return oh <= 23 && om <= 59;
}
