/* billing_math.c - the money arithmetic of spec/billing.md.
 *
 * Money is integer µcr; each charge is computed in 128-bit integers and
 * rounded once (half away from zero), so no amount depends on floating
 * point or on the order of operations.  Days are UTC days.
 */
#include "billing_math.h"

#include <stdio.h>
#include <time.h>

int64_t billing_round_div(billing_wide n, billing_wide d)
{
    billing_wide q = n / d, r = n % d;
    if ((r < 0 ? -r : r) * 2 >= d)
        q += n < 0 ? -1 : 1;
    if (q > INT64_MAX)
        return INT64_MAX;
    if (q < INT64_MIN)
        return INT64_MIN;
    return (int64_t)q;
}

int64_t billing_span_charge(int64_t rate_ucr_per_hour, int64_t gpus_x100, int64_t seconds)
{
    /* rate per GPU-hour × (gpus_x100 / 100) GPUs × seconds / 3600 */
    return billing_round_div((billing_wide)rate_ucr_per_hour * gpus_x100 * seconds, 360000);
}

int64_t billing_host_share(int64_t price_ucr, int64_t usage_fee_ucr, int64_t gpus_x100, int64_t seconds)
{
    if (price_ucr <= usage_fee_ucr)
        return 0;   /* nothing left to split: the platform keeps what was paid */
    /* half of (price - fee) per GPU-hour: / (2 × 3600 × 100) */
    return billing_round_div((billing_wide)(price_ucr - usage_fee_ucr) * gpus_x100 * seconds, 720000);
}

int64_t billing_device_fee(int64_t devices, int days_in_month)
{
    return billing_round_div((billing_wide)BILLING_DEVICE_FEE_UCR * devices, days_in_month);
}

rd_time billing_day_start(rd_time t)
{
    return t - (((t % BILLING_DAY) + BILLING_DAY) % BILLING_DAY);
}

int billing_days_in_month(rd_time t)
{
    static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    char buf[RDTIME_BUFLEN];
    int year = 0, month = 1;
    sscanf(rdtime_format(t, buf), "%d-%d", &year, &month);
    int leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return month == 2 && leap ? 29 : days[(month - 1) % 12];
}

char *billing_day_name(rd_time t, char buf[11])
{
    char full[RDTIME_BUFLEN];
    snprintf(buf, 11, "%.10s", rdtime_format(t, full));
    return buf;
}

