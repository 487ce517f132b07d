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

/* "90s", "10m", "2h", "1d", a bare number of seconds, or parts in
 * descending units as Go and systemd write them ("1h30m", "1d12h"). */
rd_code rdtime_parse_duration(const char *field, const char *text, int64_t *seconds, rd_err *err)
{
    static const char units[] = "dhms";
    static const int64_t unit_seconds[] = { 86400, 3600, 60, 1 };
    const char *p = text;
    int64_t total = 0;
    size_t last = 0; /* units must descend: index into units of the next allowed */

    if (!isdigit((unsigned char)*p))
        goto bad;
    while (*p) {
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
            const char *u = strchr(units + last, *p);
            if (!u)
                goto bad;
            last = (size_t)(u - units) + 1;
            unit = unit_seconds[u - units];
            p++;
        } else if (p != text + strspn(text, "0123456789")) {
            goto bad; /* a bare number is seconds only on its own */
        }
        if (v * unit > INT64_MAX / 2 - total)
            goto bad;
        total += v * unit;
    }
    if (total == 0)
        goto bad;
    *seconds = total;
    return RD_OK;
bad:
    return rd_fail(err, RD_EINVAL, "%s must be a positive duration such as 90s, 10m, 2h, 1d or 1h30m, got '%s'",
                   field, text);
}

rd_code rdtime_parse_duration_ms(const char *field, const char *text, int64_t *ms, rd_err *err)
{
    size_t n = strlen(text);
    if (n > 2 && strcmp(text + n - 2, "ms") == 0) {
        int64_t v = 0;
        size_t i;
        for (i = 0; i < n - 2 && isdigit((unsigned char)text[i]) && v < INT64_MAX / 100; i++)
            v = v * 10 + (text[i] - '0');
        if (i != n - 2 || v == 0)
            return rd_fail(err, RD_EINVAL, "%s must be a positive duration such as 500ms, 10s, 2m or 1h, got '%s'",
                           field, text);
        *ms = v;
        return RD_OK;
    }
    int64_t s = 0;
    rd_code rc = rdtime_parse_duration(field, text, &s, NULL);
    if (rc != RD_OK)
        return rd_fail(err, RD_EINVAL, "%s must be a positive duration such as 500ms, 10s, 2m or 1h, got '%s'", field,
                       text);
    if (rc == RD_OK && s > INT64_MAX / 1000)
        rc = rd_fail(err, RD_EINVAL, "%s is too long, got '%s'", field, text);
    if (rc == RD_OK)
        *ms = s * 1000;
    return rc;
}

int64_t rdtime_mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}
