/* billing_math.h - the money arithmetic of spec/billing.md
 * (billing_math.c): integer µcr, one rounding per charge, half away from
 * zero, no floating point. */
#ifndef RD_BILLING_MATH_H
#define RD_BILLING_MATH_H

#include <stdint.h>

/* Wide enough for a rate × GPUs × seconds product before its one rounding. */
__extension__ typedef __int128 billing_wide;

/* n / d rounded half away from zero, clamped to int64; d > 0. */
int64_t billing_round_div(billing_wide n, billing_wide d);

#include "rdtime.h"

#define BILLING_DAY 86400
#define BILLING_DEVICE_FEE_UCR 15000000LL   /* 15 credits per device per month */

/* What a span costs: rate (µcr per GPU-hour) × GPUs (hundredths) × seconds
 * / 3600, rounded once.  Never negative for non-negative inputs. */
int64_t billing_span_charge(int64_t rate_ucr_per_hour, int64_t gpus_x100, int64_t seconds);

/* The host's part of a span on someone else's capacity (billing.md rule 2):
 * round((price - usage_fee) × GPUs × seconds / 7200); 0 when the price does
 * not exceed the fee.  The platform gets billing_span_charge(price, ...)
 * minus this, so the parts add up to what the customer paid. */
int64_t billing_host_share(int64_t price_ucr, int64_t usage_fee_ucr, int64_t gpus_x100, int64_t seconds);

/* One day's device fee: 15 credits × devices / days_in_month, rounded. */
int64_t billing_device_fee(int64_t devices, int days_in_month);

/* 00:00 UTC of t's day. */
rd_time billing_day_start(rd_time t);

/* Days in the UTC month of t (28..31). */
int billing_days_in_month(rd_time t);

/* "YYYY-MM-DD" of t's UTC day into buf (11 bytes). */
char *billing_day_name(rd_time t, char buf[11]);

#endif
