/* rdtime.c - RFC 3339 and duration parsing, formatting in UTC. */
#include "rdtime.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int read_digits(const char **p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        if (!isdigit((unsigned char)**p))
            return 0;
        v = v * 10 + (**p - '0');
        (*p)++;
    }
    *out = v;
    return 1;
}

static int expect(const char **p, char c)
{
    if (**p != c)
        return 0;
    (*p)++;
    return 1;
}

static int days_in_month(int year, int month)
{
    static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 && leap ? 29 : days[month - 1];
}

rd_code rdtime_parse(const char *field, const char *text, rd_time *out, rd_err *err)
{
    const char *p = text;
    int y, mo, d, h, mi, s, oh = 0, om = 0, sign = 0;

    if (!read_digits(&p, 4, &y) || !expect(&p, '-') || !read_digits(&p, 2, &mo) ||
        !expect(&p, '-') || !read_digits(&p, 2, &d) || (*p != 'T' && *p != 't' && *p != ' '))
        goto bad;
    p++;
    if (!read_digits(&p, 2, &h) || !expect(&p, ':') || !read_digits(&p, 2, &mi) ||
        !expect(&p, ':') || !read_digits(&p, 2, &s))
        goto bad;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            goto bad;
        while (isdigit((unsigned char)*p))
            p++;
    }
    if (*p == 'Z' || *p == 'z') {
        p++;
    } else if (*p == '+' || *p == '-') {
        sign = *p == '-' ? -1 : 1;
        p++;
        if (!read_digits(&p, 2, &oh) || !expect(&p, ':') || !read_digits(&p, 2, &om))
            goto bad;
    } else {
        goto bad;
    }
    if (*p)
        goto bad;
    if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo) || h > 23 || mi > 59 ||
        s > 60 || oh > 23 || om > 59)
        goto bad;

    struct tm tm = { 0 };
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = s > 59 ? 59 : s;
    *out = (rd_time)timegm(&tm) - (rd_time)sign * (oh * 3600 + om * 60);
    return RD_OK;
bad:
    return rd_fail(err, RD_EINVAL, "%s must be an RFC 3339 time such as 2026-11-01T00:00:00Z, got '%s'",
                   field, text);
}

char *rdtime_format(rd_time t, char buf[RDTIME_BUFLEN])
{
    time_t tt = (time_t)t;
    struct tm tm;
    if (!gmtime_r(&tt, &tm)) {
        snprintf(buf, RDTIME_BUFLEN, "invalid-time");
        return buf;
    }
    strftime(buf, RDTIME_BUFLEN, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

rd_code rdtime_parse_duration(const char *field, const char *text, int64_t *seconds, rd_err *err)
{
    const char *p = text;
    int64_t v = 0;

    if (!isdigit((unsigned char)*p))
        goto bad;
    while (isdigit((unsigned char)*p)) {
        if (v > (INT64_MAX / 86400 - 9) / 10)
            goto bad;
        v = v * 10 + (*p++ - '0');
    }
    int64_t unit = 1;
    if (*p) {
        switch (*p++) {
        case 's': unit = 1; break;
        case 'm': unit = 60; break;
        case 'h': unit = 3600; break;
        case 'd': unit = 86400; break;
        default: goto bad;
        }
        if (*p)
            goto bad;
    }
    if (v == 0)
        goto bad;
    *seconds = v * unit;
    return RD_OK;
bad:
    return rd_fail(err, RD_EINVAL, "%s must be a positive duration such as 90s, 10m, 2h or 1d, got '%s'",
                   field, text);
}
