/* num.c - exact decimal parsing into scaled integers. */
#include "num.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static rd_code parse_scaled(const char *text, int places, int64_t *out)
{
    const char *p = text;
    int neg = 0, frac_digits = 0, int_digits = 0;
    int64_t v = 0;

    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    while (isdigit((unsigned char)*p)) {
        if (v > (INT64_MAX - 9) / 10)
            return RD_EINVAL;
        v = v * 10 + (*p++ - '0');
        int_digits++;
    }
    if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) {
            if (++frac_digits > places)
                return RD_EINVAL;
            if (v > (INT64_MAX - 9) / 10)
                return RD_EINVAL;
            v = v * 10 + (*p++ - '0');
        }
        if (frac_digits == 0)
            return RD_EINVAL;
    }
    if (*p || int_digits == 0)
        return RD_EINVAL;
    for (int i = frac_digits; i < places; i++) {
        if (v > INT64_MAX / 10)
            return RD_EINVAL;
        v *= 10;
    }
    *out = neg ? -v : v;
    return RD_OK;
}

rd_code num_parse_fixed(const char *field, const char *text, int places, int64_t min, int64_t max, int64_t *out,
                        rd_err *err)
{
    int64_t v;
    if (parse_scaled(text, places, &v) != RD_OK || v < min || v > max) {
        int64_t scale = 1;
        for (int i = 0; i < places; i++)
            scale *= 10;
        if (places == 0)
            return rd_fail(err, RD_EINVAL, "%s must be a whole number between %lld and %lld, got '%s'", field,
                           (long long)min, (long long)max, text);
        return rd_fail(err, RD_EINVAL, "%s must be a number with at most %d decimals between %lld.%0*lld and %lld.%0*lld, got '%s'",
                       field, places, (long long)(min / scale), places, (long long)(min % scale < 0 ? -(min % scale) : min % scale),
                       (long long)(max / scale), places, (long long)(max % scale), text);
    }
    *out = v;
    return RD_OK;
}

rd_code num_parse_int(const char *field, const char *text, int64_t min, int64_t max, int64_t *out, rd_err *err)
{
    return num_parse_fixed(field, text, 0, min, max, out, err);
}

rd_code num_parse_credits(const char *field, const char *text, int64_t min_ucr, int64_t max_ucr, int64_t *out,
                          rd_err *err)
{
    int64_t v;
    if (parse_scaled(text, 6, &v) != RD_OK || v < min_ucr || v > max_ucr)
        return rd_fail(err, RD_EINVAL, "%s must be an amount of credits with at most 6 decimals%s (e.g. 100 or 12.5), got '%s'",
                       field, min_ucr > 0 ? ", above zero" : min_ucr == 0 ? ", not negative" : "", text);
    *out = v;
    return RD_OK;
}

char *num_format_credits(int64_t ucr, char buf[NUM_CREDITS_BUFLEN])
{
    /* unsigned: -INT64_MIN does not fit an int64_t */
    uint64_t mag = ucr < 0 ? (uint64_t)0 - (uint64_t)ucr : (uint64_t)ucr;
    snprintf(buf, NUM_CREDITS_BUFLEN, "%s%llu.%06llu", ucr < 0 ? "-" : "",
             (unsigned long long)(mag / NUM_UCR_PER_CREDIT), (unsigned long long)(mag % NUM_UCR_PER_CREDIT));
    size_t n = strlen(buf);
    const char *dot = strchr(buf, '.');
    while (n > (size_t)(dot - buf) + 3 && buf[n - 1] == '0')
        buf[--n] = '\0';
    return buf;
}
